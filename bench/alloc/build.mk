# SPDX-License-Identifier: MIT
#
# The allocation-trace benchmark: `make bench-alloc` generates the
# standard traces (seeded, from real model shapes), replays them on every
# backend and writes $(BUILD)/bench/alloc-trace.json plus a table.

BENCH_ALLOC_SRCS := bench/alloc/alloc_bench.c bench/alloc/trace.c \
		    bench/alloc/be_pool.c bench/alloc/be_caching.c \
		    bench/alloc/be_first_fit.c bench/alloc/be_buddy.c \
		    bench/alloc/be_tlsf.c
bench_alloc_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
BENCH_ALLOC_OBJS := $(call bench_alloc_objs,$(BENCH_ALLOC_SRCS))
BENCH_ALLOC_BIN := $(BUILD)/bin/alloc-bench
BENCH_ALLOC_TRACES := $(BUILD)/bench/traces

$(BENCH_ALLOC_OBJS): CPPFLAGS += -Ibench/alloc -Ilibnpurt/alloc -Ikernel/npu_drv

$(BENCH_ALLOC_BIN): $(BENCH_ALLOC_OBJS) $(BUILD)/lib/libnpurtalloc.a \
		    $(BUILD)/lib/libnpupool.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

BINS += $(BENCH_ALLOC_BIN)
TESTS += bench/alloc/alloc_bench_test.sh bench/alloc/alloc_trace_errors_test.sh

.PHONY: bench-alloc
bench-alloc: $(BENCH_ALLOC_BIN)
	$(PYTHON) bench/alloc/gen_traces.py $(BENCH_ALLOC_TRACES)
	$(BENCH_ALLOC_BIN) --json $(BUILD)/bench/alloc-trace.json \
		$(addprefix $(BENCH_ALLOC_TRACES)/,cnn_infer.trace \
		transformer_infer.trace training.trace kv_cache.trace \
		adversarial.trace)
