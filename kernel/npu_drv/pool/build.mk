# SPDX-License-Identifier: MIT
#
# The VRAM pool with compaction (portable core), as a static library
# for the in-process device and the allocation benchmark, and its tests.

POOL_SRCS := kernel/npu_drv/pool/npu_rbtree.c \
	     kernel/npu_drv/pool/npu_pool.c \
	     kernel/npu_drv/pool/npu_pool_compact.c \
	     kernel/npu_drv/pool/npu_pool_check.c
POOL_LIB := $(BUILD)/lib/libnpupool.a
# objs (mk/rules.mk) is defined after the fragments are read, and rule
# prerequisites expand at once: map sources to objects here.
pool_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

$(POOL_LIB): $(call pool_objs,$(POOL_SRCS))
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

POOL_TEST_NAMES := pool_random_test pool_compact_test rbtree_test
POOL_TESTS := $(addprefix $(BUILD)/tests/pool/,$(POOL_TEST_NAMES))

$(BUILD)/tests/pool/%: $(BUILD)/obj/kernel/npu_drv/pool/tests/%.o $(POOL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

TESTS += $(POOL_TESTS)
SAN_TESTS += $(POOL_TESTS)

# Compaction seen through the transport (in-process device here, the
# kernel module in the VM): patterns written through mmap survive it.
POOL_DEV_TEST := $(BUILD)/tests/pool/pool_device_test
POOL_DEV_LIBS := $(BUILD)/lib/libnputransport.a $(BUILD)/lib/libnpucore.a \
		 $(BUILD)/lib/libnpupool.a $(BUILD)/lib/libnpuops.a

$(BUILD)/obj/kernel/npu_drv/pool/tests/pool_device_test.o: \
	CPPFLAGS += $(UAPI_CFLAGS) -Ilibnpurt/transport

$(POOL_DEV_TEST): $(BUILD)/obj/kernel/npu_drv/pool/tests/pool_device_test.o \
		  $(POOL_DEV_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(DRM_LIBS) -lpthread

TESTS += $(POOL_DEV_TEST)
SAN_TESTS += $(POOL_DEV_TEST)

# The VM harness (selftests/vm) runs the same program against the module.
$(BUILD)/bin/npu_pool_devtest: $(POOL_DEV_TEST)
	@mkdir -p $(dir $@)
	cp $< $@

BINS += $(BUILD)/bin/npu_pool_devtest

# libFuzzer target: make fuzz-pool [FUZZ_SECONDS=60]
POOL_FUZZ := $(BUILD)/fuzz/pool_fuzz
$(POOL_FUZZ): kernel/npu_drv/pool/tests/pool_fuzz.c $(POOL_SRCS) \
	      kernel/npu_drv/pool/tests/pool_test_util.h \
	      kernel/npu_drv/pool/npu_pool.h kernel/npu_drv/pool/npu_rbtree.h \
	      kernel/npu_drv/pool/npu_pool_internal.h
	@mkdir -p $(dir $@)
	clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined \
		kernel/npu_drv/pool/tests/pool_fuzz.c $(POOL_SRCS) -o $@

.PHONY: fuzz-pool
fuzz-pool: $(POOL_FUZZ)
	@mkdir -p $(BUILD)/fuzz/pool-corpus
	$(POOL_FUZZ) -max_total_time=$${FUZZ_SECONDS:-60} -max_len=4096 \
		$(BUILD)/fuzz/pool-corpus
