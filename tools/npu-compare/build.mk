# SPDX-License-Identifier: MIT
# npu-compare: a dump of npu-run against the compiler's interpreter (or
# another runtime's tensors), per ONNX tensor (Documentation/diagnosis.rst).

NPUCMP_OBJS	:= $(BUILD)/obj/tools/npu-compare/npu_compare.o \
		   $(BUILD)/obj/tools/npu-compare/keep_bisect.o
$(NPUCMP_OBJS): CPPFLAGS += $(FE_CPPFLAGS) -Itools/npu-run -Itools/npu-compare
$(NPUCMP_OBJS): | $(FE_PB_H)

$(BUILD)/bin/npu-compare: $(NPUCMP_OBJS) $(BUILD)/obj/tools/npu-run/npy.o \
			  $(FE_LIB) $(FE_OPS_LIB) $(BUILD)/lib/libnpuom.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(NPUCMP_OBJS) $(BUILD)/obj/tools/npu-run/npy.o \
		$(BUILD)/lib/libnpuom.a $(FE_LIBS) -lpthread -o $@

BINS		+= $(BUILD)/bin/npu-compare
