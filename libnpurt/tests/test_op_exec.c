// SPDX-License-Identifier: MIT
/*
 * test_op_exec.c - single-op mode (npurt_op_execute) and its op cache.
 *
 * A (conv + relu) x 2 + reshape + matmul + add + relu + matmul + softmax
 * chain (op_chain.c) runs op by op through npurt_op_execute and as one graph
 * compiled online (npurt_model_load_onnx_memory); the results agree. The
 * first pass compiles every distinct op once (misses), the second finds
 * them all (hits) and compiles nothing; a small cache evicts like an LRU
 * model of the same key sequence; a missing libnpuc is named.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npurt.h"
#include "op_chain.h"
#include "rt_test_util.h"
#include "tap.h"

static int failed_run(npurt_status st, const char *what)
{
	tap_diag("%s: %s: %s", what, npurt_status_str(st), rt_err());
	return 0;
}

/* The ops of one chain pass, as cache keys (names), in call order. */
static int chain_keys(const struct chain *ch, const char **keys)
{
	int n = 0;

	for (int b = 0; b < ch->blocks; b++) {
		keys[n++] = b ? "conv-cc" : "conv-cin";
		keys[n++] = "relu-act";
	}
	keys[n++] = "reshape";
	keys[n++] = "matmul1";
	keys[n++] = "add";
	keys[n++] = "relu-fc";
	keys[n++] = "matmul2";
	keys[n++] = "softmax";
	return n;
}

/* An LRU of @cap over string keys: counts hits, misses and evictions. */
struct lru_model {
	const char *slot[64];
	int n, cap;
	uint64_t hits, misses, evictions;
};

static void lru_access(struct lru_model *l, const char *k)
{
	int i;

	for (i = 0; i < l->n && strcmp(l->slot[i], k); i++)
		;
	if (i < l->n) {
		l->hits++;
	} else {
		l->misses++;
		if (l->n == l->cap) {
			l->n--;
			l->evictions++;
		}
		i = l->n++;
	}
	memmove(&l->slot[1], &l->slot[0], i * sizeof(l->slot[0]));
	l->slot[0] = k;
}

int main(void)
{
	npurt_device *dev = NULL;
	npurt_context *ctx = NULL;
	npurt_stream *s = NULL;
	npurt_model *g = NULL;
	npurt_cache_stats st1, st2, st3;
	struct chain ch;
	struct chain_dev d;
	const char *keys[64];
	struct lru_model lru = { .cap = 3 };
	float y_op[16], y_op2[16], y_graph[16];
	uint8_t *onnx;
	size_t onnx_len;
	char lib[4096];
	npurt_status st;
	int nk;

	tap_plan(17);
	if (npurt_init(0) || npurt_device_open_spec("sim", &dev) ||
	    npurt_context_create(dev, 0, &ctx) ||
	    npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &s) ||
	    chain_init(&ch, 3, 8, 8, 8, 32, 10, 2, 7) ||
	    chain_dev_init(&ch, ctx, &d)) {
		printf("Bail out! setup: %s\n", rt_err());
		return 1;
	}

	/* 1: without the compiler library, a clear error naming it. */
	chain_use_built_libnpuc();
	snprintf(lib, sizeof(lib), "%s", getenv("NPURT_NPUC_LIB") ?
		 getenv("NPURT_NPUC_LIB") : "");
	setenv("NPURT_NPUC_LIB", "/nonexistent/libnpuc.so.1", 1);
	st = chain_run_ops(&ch, &d, s);
	tap_ok(st == NPURT_ERR_UNSUPPORTED &&
	       strstr(npurt_last_error()->reason, "libnpuc.so.1") &&
	       strstr(npurt_last_error()->action, "libnpuc"),
	       "no libnpuc: NPURT_ERR_UNSUPPORTED naming libnpuc.so.1 (%s: "
	       "%s)", npurt_status_str(st), npurt_last_error()->reason);
	setenv("NPURT_NPUC_LIB", lib, 1);

	/* 2-5: first pass: every op compiled once. */
	st = chain_run_ops(&ch, &d, s);
	if (!st)
		st = npurt_stream_synchronize(s);
	if (!st)
		st = npurt_memcpy_d2h(y_op, d.y, 0, ch.classes * sizeof(float));
	tap_ok(!st || failed_run(st, "single-op pass"),
	       "(conv+relu)x2+reshape+matmul+add+relu+matmul+softmax op by "
	       "op");
	npurt_op_cache_get_stats(ctx, &st1);
	/* 10 calls, 9 keys: the second Relu has the first one's key. */
	tap_ok(st1.misses == 9 && st1.hits == 1 && st1.entries == 9 &&
	       st1.compile_ns > 0,
	       "first pass: 9 misses, 1 hit, 9 entries, compiled in %.3f ms "
	       "(misses %llu, hits %llu)", st1.compile_ns / 1e6,
	       (unsigned long long)st1.misses, (unsigned long long)st1.hits);

	st = chain_run_ops(&ch, &d, s);
	if (!st)
		st = npurt_stream_synchronize(s);
	if (!st)
		st = npurt_memcpy_d2h(y_op2, d.y, 0,
				      ch.classes * sizeof(float));
	npurt_op_cache_get_stats(ctx, &st2);
	tap_ok(!st && st2.hits == 11 && st2.misses == 9,
	       "second pass: every op a cache hit (hits %llu, misses %llu)",
	       (unsigned long long)st2.hits, (unsigned long long)st2.misses);
	tap_ok(st2.compile_ns == st1.compile_ns &&
	       st2.load_ns == st1.load_ns,
	       "second pass: no compile time, no load time (%llu ns, %llu "
	       "ns)", (unsigned long long)(st2.compile_ns - st1.compile_ns),
	       (unsigned long long)(st2.load_ns - st1.load_ns));
	tap_ok(!memcmp(y_op, y_op2, sizeof(float) * ch.classes),
	       "second pass: the same bits");

	/* 6-7: graph mode, compiled online from the same weights. */
	onnx = chain_onnx(&ch, &onnx_len);
	st = onnx ? npurt_model_load_onnx_memory(ctx, onnx, onnx_len, NULL,
						 &g) : NPURT_ERR_NOMEM;
	free(onnx);
	if (!st) {
		npurt_io in = { NULL, ch.x, 0,
				(size_t)ch.cin * ch.h * ch.w * sizeof(float) };
		npurt_io out = { NULL, y_graph, 0,
				 ch.classes * sizeof(float) };

		st = npurt_model_execute(g, &in, 1, &out, 1);
	}
	tap_ok(!st || failed_run(st, "graph mode"),
	       "the same chain as one graph (npurt_model_load_onnx_memory)");
	{
		double err = rt_max_err(y_op, y_graph, (size_t)ch.classes,
					1e-6, 1e-4);
		double sum = 0;

		for (int i = 0; i < ch.classes; i++)
			sum += y_op[i];
		tap_ok(!st && err <= 1 && fabs(sum - 1) < 1e-5,
		       "single-op result matches graph mode (worst error "
		       "%.3g of atol 1e-6 + rtol 1e-4; softmax sums to %.7f)",
		       err, sum);
	}

	/* 8: an op with other attributes or constant data: a new key. */
	{
		static const float data[4] = { 1, 2, 3, 4 };
		npurt_op_tensor in = { .dtype = NPURT_DTYPE_F32, .rank = 2,
				       .dims = { 1, 4 }, .mem = d.fc[0] };
		npurt_op_tensor out = { .mem = d.fc[1] };
		npurt_op_attr ax = { .name = "axis", .type = NPURT_ATTR_INT,
				     .i = 0 };
		float got[4];

		npurt_memcpy_h2d(d.fc[0], 0, data, sizeof(data));
		st = npurt_op_execute("Softmax", &ax, 1, &in, 1, &out, 1, s);
		if (!st)
			st = npurt_memcpy_d2h(got, d.fc[1], 0, sizeof(got));
		npurt_op_cache_get_stats(ctx, &st3);
		tap_ok(!st && st3.misses == 10 && out.rank == 2 &&
		       out.dims[0] == 1 && out.dims[1] == 4 &&
		       fabsf(got[0] - 1) < 1e-6f,
		       "Softmax axis=0 is another key (misses %llu), output "
		       "shape filled in [%llu,%llu]",
		       (unsigned long long)st3.misses,
		       (unsigned long long)out.dims[0],
		       (unsigned long long)out.dims[1]);
	}

	/* 9-10: errors: an unknown op, an output block too small. */
	{
		npurt_op_tensor in = { .dtype = NPURT_DTYPE_F32, .rank = 1,
				       .dims = { 4 }, .mem = d.fc[0] };
		npurt_op_tensor out = { .mem = d.fc[1] };
		npurt_mem *small = NULL;

		st = npurt_op_execute("NoSuchOp", NULL, 0, &in, 1, &out, 1, s);
		tap_ok(st == NPURT_ERR_UNSUPPORTED &&
		       strstr(npurt_last_error()->reason, "NoSuchOp"),
		       "unknown op: NPURT_ERR_UNSUPPORTED (%s)",
		       npurt_last_error()->reason);
		npurt_mem_alloc(ctx, 8, &small);
		in.dims[0] = 64;
		out.mem = small;
		st = npurt_op_execute("Relu", NULL, 0, &in, 1, &out, 1, s);
		tap_ok(st == NPURT_ERR_SHAPE,
		       "output block too small: NPURT_ERR_SHAPE (%s)",
		       npurt_last_error()->reason);
		npurt_mem_free(small);
	}

	/* 11-13: a cache of 3 entries evicts like an LRU model. */
	nk = chain_keys(&ch, keys);
	npurt_op_cache_set_capacity(ctx, 3);
	npurt_op_cache_get_stats(ctx, &st1);
	tap_ok(st1.entries == 3 && st1.capacity == 3 &&
	       st1.evictions == 11 - 3,
	       "capacity 3: %u entries left, %llu evicted", st1.entries,
	       (unsigned long long)st1.evictions);
	/* The model's state after shrinking: the 3 most recent keys. */
	lru.n = 0;
	for (int i = 0; i < nk; i++)
		lru_access(&lru, keys[i]);
	lru.slot[2] = lru.slot[0];	/* ... then Softmax(axis 0), Relu[64] */
	lru.slot[1] = "softmax-axis0";
	lru.slot[0] = "relu-64";
	lru.hits = lru.misses = lru.evictions = 0;
	for (int pass = 0; pass < 2; pass++) {
		st = chain_run_ops(&ch, &d, s);
		for (int i = 0; i < nk; i++)
			lru_access(&lru, keys[i]);
	}
	if (!st)
		st = npurt_stream_synchronize(s);
	if (!st)
		st = npurt_memcpy_d2h(y_op2, d.y, 0,
				      ch.classes * sizeof(float));
	npurt_op_cache_get_stats(ctx, &st2);
	tap_ok(!st && st2.hits - st1.hits == lru.hits &&
	       st2.misses - st1.misses == lru.misses &&
	       st2.evictions - st1.evictions == lru.evictions,
	       "two passes with 3 entries: hits %llu misses %llu evictions "
	       "%llu (LRU model: %llu %llu %llu)",
	       (unsigned long long)(st2.hits - st1.hits),
	       (unsigned long long)(st2.misses - st1.misses),
	       (unsigned long long)(st2.evictions - st1.evictions),
	       (unsigned long long)lru.hits, (unsigned long long)lru.misses,
	       (unsigned long long)lru.evictions);
	tap_ok(!memcmp(y_op, y_op2, sizeof(float) * ch.classes),
	       "recompiled ops give the same bits");
	tap_ok(st2.entries == 3 && st2.device_bytes > 0,
	       "3 entries hold %llu device bytes",
	       (unsigned long long)st2.device_bytes);

	/* 14-15: contexts keep their own caches; destroy frees them. */
	{
		npurt_context *ctx2 = NULL;
		npurt_cache_stats z;

		st = npurt_context_create(dev, 0, &ctx2);
		if (!st)
			st = npurt_op_cache_get_stats(ctx2, &z);
		tap_ok(!st && z.entries == 0 && z.misses == 0 &&
		       z.capacity == 64,
		       "a new context starts with an empty op cache of 64");
		npurt_context_destroy(ctx2);
	}
	npurt_model_unload(g);
	chain_dev_free(&ch, &d);
	chain_free(&ch);
	npurt_stream_destroy(s);
	tap_ok(npurt_context_destroy(ctx) == NPURT_OK,
	       "context destroyed with ops cached");
	npurt_device_close(dev);
	npurt_finalize();
	return tap_done();
}
