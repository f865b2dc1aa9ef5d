# SPDX-License-Identifier: MIT
#
# The transport (kernel node or in-process device) and the in-process
# home (libnpurt/sim). A program that talks to an NPU links
#   $(TRANSPORT_LIBS) $(TRANSPORT_LDLIBS)
# (the transport, the device core, the pool and the op kernels, libdrm).

TRANSPORT_SRCS := libnpurt/transport/npu_transport.c libnpurt/sim/npu_sim.c \
		  libnpurt/sim/npu_sim_guard.c
TRANSPORT_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(TRANSPORT_SRCS))
TRANSPORT_LIBS := $(BUILD)/lib/libnputransport.a $(BUILD)/lib/libnpucore.a \
		  $(BUILD)/lib/libnpupool.a $(BUILD)/lib/libnpuops.a
TRANSPORT_LDLIBS := $(DRM_LIBS) -lpthread

$(TRANSPORT_OBJS): CPPFLAGS += $(UAPI_CFLAGS)

$(BUILD)/lib/libnputransport.a: $(TRANSPORT_OBJS)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^
