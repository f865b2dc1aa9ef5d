# SPDX-License-Identifier: MIT
#
# make bench-efficiency: fusion, reuse, streams and NC1HWC0 each measured
# on the device's timing model (before/after ratios) for four test models.
# Writes $(BUILD)/bench/efficiency.json and efficiency.md; deterministic.

.PHONY: bench-efficiency
bench-efficiency: $(BUILD)/bin/npuc $(BUILD)/bin/npu-om
	BUILD=$(BUILD) $(PYTHON) bench/efficiency/bench_efficiency.py \
		--json $(BUILD)/bench/efficiency.json
