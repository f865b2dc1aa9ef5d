# SPDX-License-Identifier: MIT
#
# Npu-run: run, check and time a compiled model or an ONNX model compiled
# online (public API only, linked with the all-in-one static libnpurt.a;
# libnpuc.so.1 is found through the RUNPATH, $ORIGIN/../lib).

NPURUN_SRCS	:= tools/npu-run/npu_run.c tools/npu-run/npy.c \
		   tools/npu-run/diag.c tools/npu-run/images.c tools/npu-run/bisect.c \
		   tools/npu-run/generate.c
NPURUN_OBJS	:= $(patsubst %.c,$(BUILD)/obj/%.o,$(NPURUN_SRCS))

$(NPURUN_OBJS): CPPFLAGS += -Ilibnpurt/include -Ilibnpurt/om -Itools/npu-run \
			    -Ilibnpurt/timing \
			    $(UAPI_CFLAGS)
$(BUILD)/obj/tools/npu-run/npu_run.o: CPPFLAGS += $(VERSION_CPPFLAGS)
$(BUILD)/obj/tools/npu-run/npu_run.o: mk/version.mk

$(BUILD)/bin/npu-run: $(NPURUN_OBJS) $(TIMING_LIB) $(BUILD)/lib/libnpurt.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(NPURUN_OBJS) $(TIMING_LIB) $(BUILD)/lib/libnpurt.a \
		$(DRM_LIBS) $(NUMA_LIBS) $(IMG_LIBS) -ldl -lpthread -lm \
		-Wl,-rpath,'$$ORIGIN/../lib' -o $@

BINS		+= $(BUILD)/bin/npu-run
TESTS		+= tools/npu-run/test_npu_run.sh
TESTS		+= tools/npu-run/test_npu_run_onnx.sh
