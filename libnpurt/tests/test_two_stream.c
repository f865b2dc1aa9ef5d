// SPDX-License-Identifier: MIT
/*
 * test_two_stream.c - a two-branch model whose branches run on two device
 * streams joined by SEM_SIGNAL/SEM_WAIT tasks: results against the host
 * reference over repeated executions (the semaphore timeline advances), and
 * the per-task device profile shows the two streams' tasks overlapping in
 * time (intervals, not speed: each task is slowed by the test mode so the
 * two branches are both in flight).
 */
#include <stdlib.h>
#include <string.h>

#include "rt_models.h"
#include "rt_test_util.h"
#include "tap.h"

#define CHAIN 4

int main(void)
{
	float x[TB_K], y[TB_N], ref[TB_N];
	npurt_io in = { NULL, x, 0, sizeof(x) }, out = { NULL, y, 0, sizeof(y) };
	npurt_task_record rec[64];
	npurt_model_info info;
	npurt_device *dev;
	npurt_context *ctx;
	npurt_model *m = NULL;
	uint32_t n = 0, overlaps = 0, s0 = 0, s1 = 0;
	int ok = 1, slowed;
	void *data;
	size_t size;

	tap_plan(6);
	if (npurt_init(0) || npurt_device_open(0, &dev) ||
	    npurt_context_create(dev, 0, &ctx)) {
		tap_ok(0, "runtime up: %s", rt_err());
		return 1;
	}
	if (rt_build_two_branch(CHAIN, &data, &size) ||
	    npurt_model_load_memory(ctx, data, size, &m)) {
		tap_ok(0, "two-branch model loads: %s", rt_err());
		return 1;
	}
	free(data);
	npurt_model_get_info(m, &info);
	tap_ok(info.num_streams == 2, "model has %u streams", info.num_streams);

	for (uint32_t it = 0; it < 5 && ok; it++) {
		rt_fill(x, TB_K, 100 + it);
		rt_two_branch_reference(x, CHAIN, ref);
		ok = !npurt_model_execute(m, &in, 1, &out, 1) &&
		     rt_max_err(y, ref, TB_N, 1e-5, 1e-4) <= 1.0;
	}
	tap_ok(ok, "5 executions match the host reference: %s",
	       ok ? "ok" : rt_err());

	slowed = rt_test_knob("slow_us", 20000) == 0;
	npurt_model_set_profiling(m, 1);
	rt_fill(x, TB_K, 7);
	rt_two_branch_reference(x, CHAIN, ref);
	ok = !npurt_model_execute(m, &in, 1, &out, 1);
	if (slowed)
		rt_test_knob("slow_us", 0);
	tap_ok(ok && rt_max_err(y, ref, TB_N, 1e-5, 1e-4) <= 1.0,
	       "profiled execution is correct");
	ok = !npurt_model_get_profile(m, rec, 64, &n);
	tap_ok(ok && n == 2 * CHAIN + 3, "%u task records (2 x %d MatMul, "
	       "signal, wait, add)", n, CHAIN);
	for (uint32_t i = 0; i < n && i < 64; i++) {
		if (strcmp(rec[i].op, "MatMul"))
			continue;
		rec[i].model_stream ? s1++ : s0++;
		for (uint32_t j = 0; j < n && j < 64; j++) {
			uint64_t lo, hi;

			if (strcmp(rec[j].op, "MatMul") ||
			    rec[j].model_stream == rec[i].model_stream ||
			    rec[i].model_stream)
				continue;
			lo = rec[i].start_ns > rec[j].start_ns ?
				rec[i].start_ns : rec[j].start_ns;
			hi = rec[i].end_ns < rec[j].end_ns ? rec[i].end_ns :
							     rec[j].end_ns;
			overlaps += lo < hi;
		}
	}
	for (uint32_t i = 0; i < n && i < 64; i++)
		printf("# stream %u task %u %-6s core %u [%llu, %llu]\n",
		       rec[i].model_stream, rec[i].task, rec[i].op, rec[i].core,
		       (unsigned long long)rec[i].start_ns,
		       (unsigned long long)rec[i].end_ns);
	tap_ok(s0 == CHAIN && s1 == CHAIN, "each stream ran %d MatMul tasks",
	       CHAIN);
	if (slowed)
		tap_ok(overlaps > 0, "stream 0 and stream 1 tasks overlap in "
		       "time (%u overlapping pairs)", overlaps);
	else
		tap_skip("no slow_us test mode on this device");
	npurt_model_unload(m);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	return tap_done();
}
