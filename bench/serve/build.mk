# SPDX-License-Identifier: MIT
#
# `make bench-serve`: one loaded model served by 1..N threads (requests/s,
# npurt_model_execute's pool, npurt_exec contexts, the model loaded N
# times) beside ONNX Runtime's node binding with as many requests in
# flight, interleaved; figures and ratios in $(BUILD)/bench/serve.json.
# Documentation/runtime.rst ("Concurrent executions").

$(call objs,bench/serve/bench_serve.c): CPPFLAGS += -Ilibnpurt/include \
	-Itools/npu-run $(UAPI_CFLAGS)

$(BUILD)/bench/bench_serve: $(call objs,bench/serve/bench_serve.c) \
	$(BUILD)/obj/tools/npu-run/npy.o $(BUILD)/lib/libnpurt.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(DRM_LIBS) $(NUMA_LIBS) -ldl -lpthread -lm -o $@

BENCH_SERVE_ARGS ?=
.PHONY: bench-serve
bench-serve: $(BUILD)/bench/bench_serve $(BUILD)/bin/npuc
	-$(MAKE) difftest-ort
	BUILD=$(BUILD) $(PYTHON) bench/serve/bench_serve.py \
		--json $(BUILD)/bench/serve.json $(BENCH_SERVE_ARGS)
