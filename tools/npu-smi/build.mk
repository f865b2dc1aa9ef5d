# SPDX-License-Identifier: MIT
#
# Npu-smi: devices, memory and processes of the NPU (kernel devices
# through sysfs and fdinfo; the in-process device through the transport).

NPU_SMI_SRCS := $(addprefix tools/npu-smi/, npu_smi.c smi_dev.c smi_proc.c \
		smi_fmt.c)
NPU_SMI_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(NPU_SMI_SRCS))

BINS += $(BUILD)/bin/npu-smi
TESTS += tools/npu-smi/npu-smi-test.sh

$(NPU_SMI_OBJS): CPPFLAGS += $(UAPI_CFLAGS) -Ilibnpurt/transport
$(NPU_SMI_OBJS): CPPFLAGS += $(VERSION_CPPFLAGS)
$(NPU_SMI_OBJS): mk/version.mk

$(BUILD)/bin/npu-smi: $(NPU_SMI_OBJS) $(TRANSPORT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(NPU_SMI_OBJS) $(TRANSPORT_LIBS) \
		$(TRANSPORT_LDLIBS)
