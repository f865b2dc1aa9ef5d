# SPDX-License-Identifier: MIT
#
# The uapi selftests: one TAP binary that runs against the in-process
# device (make check) or a kernel node (npu_uapi_test --device /dev/...).

NPU_UAPI_TEST_SRCS := $(addprefix selftests/npu/, npu_uapi_test.c \
	npu_test_util.c test_device_bo.c test_program.c test_queue_sem.c \
	test_submit.c test_sched.c test_math.c test_count.c test_random.c \
	test_stress.c test_fuzz.c test_chaos.c test_hostile.c test_bounded.c \
	test_peer.c)
NPU_UAPI_TEST_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(NPU_UAPI_TEST_SRCS))
NPU_UAPI_TEST := $(BUILD)/bin/npu_uapi_test

$(NPU_UAPI_TEST_OBJS): CPPFLAGS += $(UAPI_CFLAGS)

$(NPU_UAPI_TEST): $(NPU_UAPI_TEST_OBJS) $(TRANSPORT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(NPU_UAPI_TEST_OBJS) $(TRANSPORT_LIBS) \
		$(TRANSPORT_LDLIBS) -lm

BINS += $(NPU_UAPI_TEST)
TESTS += selftests/npu/run_uapi_test.sh selftests/npu/sim_env_test.sh \
	selftests/npu/uapi_layout.sh \
	selftests/npu/run_one_core.sh selftests/npu/run_one_core_sleep.sh \
	selftests/npu/run_polling_cores.sh
SAN_TESTS += build/bin/npu_uapi_test

# The guard-page mode of the in-process device (NPU_SIM_GUARD).
NPU_GUARD_TEST := $(BUILD)/bin/npu_guard_test
$(BUILD)/obj/selftests/npu/guard_test.o: CPPFLAGS += $(UAPI_CFLAGS)
$(NPU_GUARD_TEST): $(BUILD)/obj/selftests/npu/guard_test.o $(TRANSPORT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(TRANSPORT_LDLIBS) -lm

TESTS += $(NPU_GUARD_TEST)
SAN_TESTS += build/bin/npu_guard_test


# `make check-npu-tsan`: the same suite built with ThreadSanitizer (one
# compiler call over every source the in-process device uses), against the
# in-process device. Not part of `make check`: it takes a minute to build.
NPU_TSAN_DIR := $(BUILD)/tsan
NPU_TSAN_SRCS = $(CORE_SRCS) $(POOL_SRCS) $(OPS_SRCS) $(TRANSPORT_SRCS) \
	$(NPU_UAPI_TEST_SRCS)

.PHONY: check-npu-tsan
check-npu-tsan:
	@mkdir -p $(NPU_TSAN_DIR)/bin
	$(CC) $(CSTD) -O1 -g -fsanitize=thread -ffp-contract=off \
		-fno-math-errno $(UAPI_CFLAGS) -Ikernel/npu_drv \
		$(NPU_TSAN_SRCS) -o $(NPU_TSAN_DIR)/bin/npu_uapi_test \
		$(TRANSPORT_LDLIBS) -lm
	NPU_SIM_CORES=2 NPU_SIM_VRAM_MB=64 TSAN_OPTIONS=halt_on_error=1 \
		$(PROVE) -e '' $(NPU_TSAN_DIR)/bin/npu_uapi_test

