# SPDX-License-Identifier: MIT
#
# [core] the uapi selftests: one TAP binary that runs against the in-process
# device (make check) or a kernel node (npu_uapi_test --device /dev/...).

NPU_UAPI_TEST_SRCS := $(addprefix selftests/npu/, npu_uapi_test.c \
	npu_test_util.c test_device_bo.c test_program.c test_queue_sem.c \
	test_submit.c test_sched.c test_math.c test_stress.c \
	test_fuzz.c)
NPU_UAPI_TEST_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(NPU_UAPI_TEST_SRCS))
NPU_UAPI_TEST := $(BUILD)/bin/npu_uapi_test

$(NPU_UAPI_TEST_OBJS): CPPFLAGS += $(UAPI_CFLAGS)

$(NPU_UAPI_TEST): $(NPU_UAPI_TEST_OBJS) $(TRANSPORT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(NPU_UAPI_TEST_OBJS) $(TRANSPORT_LIBS) \
		$(TRANSPORT_LDLIBS) -lm

BINS += $(NPU_UAPI_TEST)
TESTS += selftests/npu/run_uapi_test.sh
SAN_TESTS += build/bin/npu_uapi_test

