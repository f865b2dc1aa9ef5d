# SPDX-License-Identifier: MIT
#
# The device's timing model ($(BUILD)/lib/libnputiming.a): modeled cycles
# of a compiled model on a target (npu_timing.h, timing-model.rst). Used by
# npu-om --timing, npu-run's --json and --profile (the modeled view beside
# wall time) and make bench-efficiency; reads models with libnpuom.

TIMING_SRCS	:= libnpurt/timing/timing_params.c \
		   libnpurt/timing/timing_cost.c \
		   libnpurt/timing/timing_sched.c \
		   libnpurt/timing/timing_report.c \
		   libnpurt/timing/timing_trace.c
TIMING_LIB	:= $(BUILD)/lib/libnputiming.a
timing_objs	= $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
TIMING_CPPFLAGS	:= -Ilibnpurt/timing -Ilibnpurt/om $(UAPI_CFLAGS)

$(call timing_objs,$(TIMING_SRCS)): CPPFLAGS += $(TIMING_CPPFLAGS)
$(TIMING_LIB): $(call timing_objs,$(TIMING_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

BINS		+= $(TIMING_LIB)

$(call timing_objs,libnpurt/timing/tests/test_timing.c): \
	CPPFLAGS += $(TIMING_CPPFLAGS) -Ilibnpurt/tests

$(BUILD)/tests/timing/test_timing: \
		$(call timing_objs,libnpurt/timing/tests/test_timing.c \
				   libnpurt/tests/rt_models.c) \
		$(TIMING_LIB) $(BUILD)/lib/libnpuom.a $(BUILD)/lib/libnpuops.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -lm -lpthread -o $@

TESTS		+= $(BUILD)/tests/timing/test_timing
SAN_TESTS	+= build/tests/timing/test_timing
