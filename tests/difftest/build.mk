# SPDX-License-Identifier: MIT
#
# The differential fuzzer of the compiler (Documentation/difftest.rst).
# make check runs its bounded run (fixed seeds) and the minimized
# regression cases; `make difftest-campaign N=10000` runs a long campaign,
# also against ONNX Runtime (installed from the npm registry into
# $(BUILD)/ort by `make difftest-ort`), and writes the counts per class to
# $(BUILD)/difftest/campaign.json.

TESTS		+= tests/difftest/difftest.t tests/difftest/regress.t \
		   tests/difftest/optable.t

DIFFTEST_TOOLS	:= $(BUILD)/bin/npuc $(BUILD)/bin/npu-run $(BUILD)/bin/npuc-fe
ORT_VERSION	:= 1.30.0
N		?= 10000
START		?= 1000000
JOBS		?= 2

.PHONY: difftest difftest-ort difftest-campaign difftest-campaign-noort

# The bounded run alone, verbose.
difftest: $(DIFFTEST_TOOLS)
	$(PROVE) -v -e '' tests/difftest/difftest.t tests/difftest/regress.t \
		tests/difftest/optable.t

# onnxruntime-node with its CPU library, from the npm registry (no install
# scripts: the library ships in the package).
$(BUILD)/ort/node_modules/onnxruntime-node/package.json:
	@mkdir -p $(BUILD)/ort
	cd $(BUILD)/ort && npm install --ignore-scripts --no-audit --no-fund \
		onnxruntime-node@$(ORT_VERSION)

difftest-ort: $(BUILD)/ort/node_modules/onnxruntime-node/package.json

difftest-campaign: $(DIFFTEST_TOOLS) difftest-ort
	BUILD=$(BUILD) $(PYTHON) tests/difftest/difftest.py --campaign $(N) \
		--start $(START) --jobs $(JOBS) --ort \
		--json $(BUILD)/difftest/campaign.json

# The same without ONNX Runtime (no node needed).
difftest-campaign-noort: $(DIFFTEST_TOOLS)
	BUILD=$(BUILD) $(PYTHON) tests/difftest/difftest.py --campaign $(N) \
		--start $(START) --jobs $(JOBS) \
		--json $(BUILD)/difftest/campaign.json
