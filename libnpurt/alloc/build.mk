# SPDX-License-Identifier: MIT
#
# The runtime's caching allocator: $(BUILD)/lib/libnpurtalloc.a
# (links with $(BUILD)/lib/libnpupool.a for the rb-tree) and its tests.

ALLOC_SRCS := libnpurt/alloc/npurt_alloc.c libnpurt/alloc/npurt_alloc_stats.c \
	      libnpurt/alloc/npurt_alloc_pool.c
ALLOC_LIB := $(BUILD)/lib/libnpurtalloc.a
alloc_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
ALLOC_OBJS := $(call alloc_objs,$(ALLOC_SRCS))

$(ALLOC_OBJS): CPPFLAGS += -Ilibnpurt/alloc -Ikernel/npu_drv

$(ALLOC_LIB): $(ALLOC_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

BINS += $(ALLOC_LIB)

ALLOC_TESTS := $(BUILD)/tests/alloc/alloc_caching_test

$(call alloc_objs,libnpurt/alloc/tests/alloc_caching_test.c): \
	CPPFLAGS += -Ilibnpurt/alloc -Ikernel/npu_drv

$(BUILD)/tests/alloc/%: $(BUILD)/obj/libnpurt/alloc/tests/%.o $(ALLOC_LIB) \
			$(BUILD)/lib/libnpupool.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

TESTS += $(ALLOC_TESTS)
SAN_TESTS += $(ALLOC_TESTS)
