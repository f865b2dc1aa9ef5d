# SPDX-License-Identifier: MIT
# Npu-om: inspect a compiled model file (the .om library, which checks
# tasks with the op kernels' rules).

NPUOM_OBJS	:= $(BUILD)/obj/tools/npu-om/npu_om.o \
		   $(BUILD)/obj/tools/npu-om/om_timing.o
$(NPUOM_OBJS): CPPFLAGS += -Ilibnpurt/om -Ilibnpurt/timing $(UAPI_CFLAGS) \
			   $(VERSION_CPPFLAGS)
$(NPUOM_OBJS): mk/version.mk

$(BUILD)/bin/npu-om: $(NPUOM_OBJS) $(BUILD)/lib/libnputiming.a \
		     $(BUILD)/lib/libnpuom.a $(BUILD)/lib/libnpuops.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -lm -lpthread -o $@

BINS		+= $(BUILD)/bin/npu-om
TESTS		+= tools/npu-om/test_npu_om.sh
