// SPDX-License-Identifier: MIT
/*
 * bench_single_op.c - make bench-single-op: one model run op by op in
 * single-op mode (npurt_op_execute, op cache warm) and as one graph
 * compiled online (npurt_model_load_onnx_memory), on the in-process
 * device; prints time per run of each and their ratio.
 *
 * Single-op mode submits one model per op, with no cross-op fusion (Conv
 * + Relu, MatMul + Add + Relu stay apart), no memory planning across ops
 * and one device job per op; graph mode runs the fused, planned graph.
 *
 * Usage: bench_single_op [ITERS [BLOCKS [CHANNELS [SIZE]]]]
 *        (default 30 4 16 16)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npurt.h"
#include "op_chain.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int fail(const char *what)
{
	fprintf(stderr, "bench_single_op: %s: %s\n", what,
		npurt_last_error()->reason);
	return 1;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 30;
	int blocks = argc > 2 ? atoi(argv[2]) : 4;
	int c = argc > 3 ? atoi(argv[3]) : 16;
	int size = argc > 4 ? atoi(argv[4]) : 16;
	npurt_device *dev;
	npurt_context *ctx;
	npurt_stream *s;
	npurt_model *g = NULL;
	npurt_cache_stats cs;
	npurt_model_info info;
	struct chain ch;
	struct chain_dev d;
	double *t_op, *t_graph, t0, first_op, first_graph, sum_op = 0,
	       sum_graph = 0;
	float y_op[16], y_graph[16], diff = 0;
	uint8_t *onnx;
	size_t len;
	npurt_io in, out;

	if (iters < 1 || blocks < 1 || blocks > CHAIN_MAX_BLOCKS || c < 1 ||
	    size < 1) {
		fprintf(stderr, "usage: bench_single_op [ITERS [BLOCKS "
			"[CHANNELS [SIZE]]]]\n");
		return 2;
	}
	chain_use_built_libnpuc();
	t_op = calloc(iters, sizeof(double));
	t_graph = calloc(iters, sizeof(double));
	if (!t_op || !t_graph || npurt_init(0) ||
	    npurt_device_open_spec("sim", &dev) ||
	    npurt_context_create(dev, 0, &ctx) ||
	    npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &s) ||
	    chain_init(&ch, 3, c, size, size, 64, 10, blocks, 11) ||
	    chain_dev_init(&ch, ctx, &d))
		return fail("setup");

	t0 = now_ms();
	if (chain_run_ops(&ch, &d, s) || npurt_stream_synchronize(s))
		return fail("single-op mode");
	first_op = now_ms() - t0;
	for (int i = 0; i < iters; i++) {
		t0 = now_ms();
		if (chain_run_ops(&ch, &d, s) || npurt_stream_synchronize(s))
			return fail("single-op mode");
		t_op[i] = now_ms() - t0;
		sum_op += t_op[i];
	}
	npurt_memcpy_d2h(y_op, d.y, 0, 10 * sizeof(float));
	npurt_op_cache_get_stats(ctx, &cs);

	t0 = now_ms();
	onnx = chain_onnx(&ch, &len);
	if (!onnx || npurt_model_load_onnx_memory(ctx, onnx, len, NULL, &g))
		return fail("graph mode: load");
	free(onnx);
	in = (npurt_io){ d.x, NULL, 0, npurt_mem_size(d.x) };
	out = (npurt_io){ d.y, NULL, 0, 10 * sizeof(float) };
	if (npurt_model_execute_async(g, &in, 1, &out, 1, s) ||
	    npurt_stream_synchronize(s))
		return fail("graph mode");
	first_graph = now_ms() - t0;
	for (int i = 0; i < iters; i++) {
		t0 = now_ms();
		if (npurt_model_execute_async(g, &in, 1, &out, 1, s) ||
		    npurt_stream_synchronize(s))
			return fail("graph mode");
		t_graph[i] = now_ms() - t0;
		sum_graph += t_graph[i];
	}
	npurt_memcpy_d2h(y_graph, d.y, 0, 10 * sizeof(float));
	for (int i = 0; i < 10; i++) {
		float e = y_op[i] > y_graph[i] ? y_op[i] - y_graph[i] :
			  y_graph[i] - y_op[i];

		diff = e > diff ? e : diff;
	}
	npurt_model_get_info(g, &info);
	qsort(t_op, iters, sizeof(double), cmp);
	qsort(t_graph, iters, sizeof(double), cmp);
	printf("model: %d x (Conv 3x3 %d->%d + Relu) on %dx%d, Reshape, "
	       "MatMul+Add+Relu (64), MatMul (10), Softmax: %d ops\n",
	       blocks, 3, c, size, size, chain_num_ops(&ch));
	printf("single-op mode: first run %.2f ms (compiles %llu ops in "
	       "%.2f ms), then median %.3f ms, mean %.3f ms per run\n",
	       first_op, (unsigned long long)cs.misses, cs.compile_ns / 1e6,
	       t_op[iters / 2], sum_op / iters);
	printf("graph mode:     first run %.2f ms (compile + load), then "
	       "median %.3f ms, mean %.3f ms per run\n", first_graph,
	       t_graph[iters / 2], sum_graph / iters);
	printf("op cache: %llu hits, %llu misses, %u entries\n",
	       (unsigned long long)cs.hits, (unsigned long long)cs.misses,
	       cs.entries);
	printf("ratio single-op / graph (median): %.2f; outputs differ by "
	       "at most %.3g\n", t_op[iters / 2] / t_graph[iters / 2],
	       (double)diff);
	npurt_model_unload(g);
	chain_dev_free(&ch, &d);
	chain_free(&ch);
	npurt_stream_destroy(s);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	free(t_op);
	free(t_graph);
	return 0;
}
