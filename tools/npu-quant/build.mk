# SPDX-License-Identifier: MIT
# npu-quant: post-training quantization of a float ONNX model into a QDQ
# ONNX model (Documentation/npu-quant.rst), on the compiler's importer and
# reference interpreter.

NPUQ_OBJS	:= $(call objs,tools/npu-quant/npu_quant.c tools/npu-quant/calib.c \
			tools/npu-quant/fold_bn.c)
$(NPUQ_OBJS): CPPFLAGS += $(FE_CPPFLAGS) -Itools/npu-run $(VERSION_CPPFLAGS)
$(NPUQ_OBJS): | $(FE_PB_H)
$(NPUQ_OBJS): mk/version.mk

$(BUILD)/bin/npu-quant: $(NPUQ_OBJS) $(BUILD)/obj/tools/npu-run/npy.o \
			$(FE_LIB) $(FE_OPS_LIB) $(BUILD)/lib/libnpuom.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(NPUQ_OBJS) $(BUILD)/obj/tools/npu-run/npy.o \
		$(BUILD)/lib/libnpuom.a $(FE_LIBS) -lpthread -o $@

BINS		+= $(BUILD)/bin/npu-quant
TESTS		+= tools/npu-quant/test_npu_quant.sh

# make check(-san): the same test with the tool built with ASan+UBSan.
SAN_TESTS	+= tools/npu-quant/test_npu_quant-san.sh
san-build: npu-quant-san-tool
.PHONY: npu-quant-san-tool
# after e2e-san-tools: two recursive makes archiving the same libraries
# of build-san/ at once race under -j (a link saw a half-written
# libnpuops.a)
npu-quant-san-tool: e2e-san-tools
	$(MAKE) SAN=1 BUILD=build-san build-san/bin/npu-quant

# The PTQ accuracy report (bench/quant/quant_report.py,
# Documentation/npu-quant.rst): npu-quant on resnet18, mobilenet_v2 and the
# BERT-like encoder; top-1 agreement and logit error of the QDQ model against
# the float one on the in-process device, in $(BUILD)/quant/report.json.
# Minutes: not in make check. QUANT_ARGS adds options (--calib, --held,
# --methods, model names). Here, not in bench/: the libraries' fragments
# must have been read for their names.
.PHONY: quant-report
quant-report: $(BUILD)/bin/npu-quant $(BUILD)/bin/npuc $(BUILD)/bin/npu-om \
	      $(RT_SO) $(NPUC_LIB_SO)
	BUILD=$(BUILD) $(PYTHON) bench/quant/quant_report.py \
		--json $(BUILD)/quant/report.json $(QUANT_ARGS)
