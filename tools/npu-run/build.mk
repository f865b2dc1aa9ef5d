# SPDX-License-Identifier: MIT
#
# Npu-run: run, check and time a compiled model (public API only,
# linked with the all-in-one static libnpurt.a).

NPURUN_SRCS	:= tools/npu-run/npu_run.c tools/npu-run/npy.c \
		   tools/npu-run/diag.c
NPURUN_OBJS	:= $(patsubst %.c,$(BUILD)/obj/%.o,$(NPURUN_SRCS))

$(NPURUN_OBJS): CPPFLAGS += -Ilibnpurt/include -Ilibnpurt/om -Itools/npu-run \
			    $(UAPI_CFLAGS)

$(BUILD)/bin/npu-run: $(NPURUN_OBJS) $(BUILD)/lib/libnpurt.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(NPURUN_OBJS) $(BUILD)/lib/libnpurt.a \
		$(DRM_LIBS) $(NUMA_LIBS) -lpthread -lm -o $@

BINS		+= $(BUILD)/bin/npu-run
TESTS		+= tools/npu-run/test_npu_run.sh
