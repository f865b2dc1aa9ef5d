# SPDX-License-Identifier: MIT
# Npu-om: inspect a compiled model file (the .om library, which checks
# tasks with the op kernels' rules).

NPUOM_OBJS	:= $(BUILD)/obj/tools/npu-om/npu_om.o
$(NPUOM_OBJS): CPPFLAGS += -Ilibnpurt/om $(UAPI_CFLAGS) $(VERSION_CPPFLAGS)
$(NPUOM_OBJS): mk/version.mk

$(BUILD)/bin/npu-om: $(NPUOM_OBJS) $(BUILD)/lib/libnpuom.a $(BUILD)/lib/libnpuops.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -lpthread -o $@

BINS		+= $(BUILD)/bin/npu-om
TESTS		+= tools/npu-om/test_npu_om.sh
