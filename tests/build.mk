# SPDX-License-Identifier: MIT
#
# Real models, ONNX conformance, the model benchmark and the demo.
# The scripts run with Debian's python3 ($(PYTHON), which has onnx, torch,
# torchvision and numpy) and call $(BUILD)/bin/npuc and $(BUILD)/bin/npu-run.

E2E_MODELS	:= resnet18 resnet50 mobilenet_v2 squeezenet1_1 \
		   two_branch_cnn bert_encoder
E2E_TESTS	:= tests/models/demo.t $(E2E_MODELS:%=tests/models/%.t) \
		   tests/models/torch_ops.t tests/models/dynamic_batch.t \
		   tests/models/families.t tests/models/decoder_kv.t \
		   tests/models/compiler_regress.t tests/models/control_flow.t \
		   tests/models/signal_ops.t tests/models/storage_dtypes.t \
		   tests/models/streams_budget.t tests/models/precision.t \
		   tests/models/random_ops.t \
		   tests/conformance/conformance.t

TESTS		+= $(E2E_TESTS) tests/diag/diag.t tests/media/test_aipp.sh

# make check (and check-san): the node tests and the smaller models through
# npuc and npu-run built with ASan+UBSan. The two tools are built with the
# sanitizer build (san-build, mk/rules.mk); they are programs, not tests,
# so they cannot be listed in SAN_TESTS themselves.
SAN_TESTS	+= tests/conformance/conformance-san.t tests/models/models-san.t
san-build: e2e-san-tools
.PHONY: e2e-san-tools
e2e-san-tools:
	$(MAKE) SAN=1 BUILD=build-san build-san/bin/npuc build-san/bin/npu-run \
		build-san/lib/libnpuc.so.$(NPUC_LIB_VERSION)


.PHONY: demo conformance bench-models e2e-models

# The programs the scripts run. Named explicitly: a prerequisite list is
# expanded when make reads this fragment, before tools/*/build.mk have added
# themselves to BINS.
E2E_TOOLS	:= $(BUILD)/bin/npuc $(BUILD)/bin/npu-run $(BUILD)/bin/npu-compare

# The README's first command: build the stack, compile the bundled model and
# run it on the in-process device.
demo: all
	BUILD=$(BUILD) $(PYTHON) models/demo.py

# ONNX backend node tests: per-op passed/failed/unsupported, written to
# $(BUILD)/conformance.json.
conformance: $(E2E_TOOLS)
	BUILD=$(BUILD) $(PYTHON) tests/conformance/run_conformance.py \
		--json $(BUILD)/conformance.json

# Latency of every model on the in-process device beside ONNX Runtime on
# the same ONNX files, one core and all cores, and the fixed cost per run
# (Documentation/models.rst), written to $(BUILD)/bench/models.json.
# BENCH_ARGS adds options (--seconds, --rounds, --torch, model names).
# ONNX Runtime comes from the npm registry, pinned, into $(BUILD)/ort
# (the rule is tests/difftest/build.mk's).
bench-models: $(E2E_TOOLS) $(BUILD)/ort/node_modules/onnxruntime-node/package.json
	BUILD=$(BUILD) $(PYTHON) bench/models/bench_models.py \
		--json $(BUILD)/bench/models.json $(BENCH_ARGS)

# Only the six model tests (the slowest part of `make check`).
e2e-models: $(E2E_TOOLS)
	$(PROVE) $(PROVE_FLAGS) -e '' $(E2E_MODELS:%=tests/models/%.t)
