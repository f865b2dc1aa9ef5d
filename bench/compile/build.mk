# SPDX-License-Identifier: MIT
#
# make bench-compile: npuc's compile time and peak memory on chains of
# 1k..64k nodes, beside ONNX Runtime's session creation on the same files
# (onnxruntime-node, installed by the difftest's `make difftest-ort`; the
# benchmark runs without it when npm cannot fetch it), and the growth
# exponents. Writes $(BUILD)/bench/compile.json.
# make check runs compiler/tests/scale.t (16k nodes, CPU-time bounds).

BENCH_COMPILE_SIZES ?= 1000,2000,4000,8000,16000,32000,64000

.PHONY: bench-compile
bench-compile: $(BUILD)/bin/npuc
	-$(MAKE) difftest-ort
	BUILD=$(BUILD) $(PYTHON) bench/compile/bench_compile.py \
		--sizes $(BENCH_COMPILE_SIZES) --json $(BUILD)/bench/compile.json
TESTS		+= compiler/tests/scale.t
