// SPDX-License-Identifier: MIT
/*
 * test_shape_share.c - the shapes of a shape cache share the base's
 * weights when they are the same bytes: an MLP with a symbolic batch
 * (tests/online/mlp_dyn.py, numpy's outputs as reference, 520 KiB of
 * weights) loaded from ONNX, run at batches 1..5 with a cache of 2 (so
 * that shapes are evicted): every result matches, the cache holds its
 * shapes in less device memory than one copy of the weights, an evicted
 * shape does not take the base's weights with it (the base and a shape
 * compiled again still match), and a model whose weights differ per
 * shape (bert_dyn's sliced position table) is not given them (that test:
 * test_shape_cache).
 *
 * Usage: test_shape_share [DIR]   (default: beside this program)
 */
#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npurt.h"
#include "op_chain.h"
#include "rt_test_util.h"
#include "tap.h"

#define DIM	256
#define MAX_B	5

struct scase {
	uint32_t batch;
	float x[MAX_B * DIM], y[MAX_B * DIM];
};

static int load_cases(const char *path, struct scase *c)
{
	FILE *f = fopen(path, "rb");
	uint32_t cnt = 0;
	int ok = f && fread(&cnt, 4, 1, f) == 1 && cnt == MAX_B;

	for (uint32_t i = 0; ok && i < cnt; i++) {
		size_t k;

		ok = fread(&c[i].batch, 4, 1, f) == 1 && c[i].batch <= MAX_B;
		k = ok ? (size_t)c[i].batch * DIM : 0;
		ok = ok && fread(c[i].x, 4, k, f) == k &&
		     fread(c[i].y, 4, k, f) == k;
	}
	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

/* Runs @c on @m; returns the worst error (atol 1e-4, rtol 1e-3) or -1. */
static double run(npurt_model *m, struct scase *c)
{
	uint64_t shape[2] = { c->batch, DIM };
	const uint64_t *shapes[1] = { shape };
	float out[MAX_B * DIM];
	npurt_io in = { NULL, c->x, 0, (size_t)c->batch * DIM * 4 };
	npurt_io o = { NULL, out, 0, (size_t)c->batch * DIM * 4 };

	if (npurt_model_select_shapes(m, shapes) ||
	    npurt_model_execute(m, &in, 1, &o, 1)) {
		tap_diag("batch %u: %s", c->batch, rt_err());
		return -1;
	}
	return rt_max_err(out, c->y, c->batch * DIM, 1e-4, 1e-3);
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	static struct scase cases[MAX_B];
	npurt_device *dev = NULL;
	npurt_context *ctx = NULL;
	npurt_model *m = NULL;
	npurt_onnx_options o;
	npurt_model_info info;
	npurt_cache_stats cs;
	double worst = 0, e;
	int bad = 0;

	tap_plan(4);
	if (rt_test_dir(argc, argv, dir, sizeof(dir))) {
		printf("Bail out! /proc/self/exe\n");
		return 1;
	}
	snprintf(path, sizeof(path), "/usr/bin/python3 tests/online/mlp_dyn.py %s",
		 dir);
	if (system(path)) {
		printf("Bail out! generating the model in %s failed\n", dir);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/cases.bin", dir);
	if (load_cases(path, cases)) {
		printf("Bail out! reading %s failed\n", path);
		return 1;
	}
	chain_use_built_libnpuc();
	if (npurt_init(0) || npurt_device_open_spec("sim", &dev) ||
	    npurt_context_create(dev, 0, &ctx)) {
		printf("Bail out! setup: %s\n", rt_err());
		return 1;
	}
	npurt_onnx_options_init(&o);
	o.shape_cache_size = 2;
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	if (npurt_model_load_onnx(ctx, path, &o, &m)) {
		tap_ok(false, "MLP loaded from ONNX (%s)", rt_err());
		goto out;
	}
	npurt_model_get_info(m, &info);

	/* batches 2, 3, 4, 5 go through the cache (1 is the base's gear) */
	for (int i = 0; i < MAX_B; i++) {
		e = run(m, &cases[i]);
		bad += e < 0 || e > 1;
		worst = e > worst ? e : worst;
	}
	npurt_model_get_shape_cache_stats(m, &cs);
	tap_ok(!bad && cs.misses == 4 && cs.evictions == 2,
	       "batches 1..5 match numpy (worst error %.3g of atol 1e-4 + rtol 1e-3); misses %llu, evictions %llu",
	       worst, (unsigned long long)cs.misses,
	       (unsigned long long)cs.evictions);
	tap_ok(cs.entries == 2 && info.weights_bytes >= 2 * DIM * DIM * 4 &&
	       cs.device_bytes < info.weights_bytes,
	       "the cache's 2 shapes hold %llu device bytes, less than one copy of the %llu bytes of weights: they use the base's",
	       (unsigned long long)cs.device_bytes,
	       (unsigned long long)info.weights_bytes);

	/* the evicted shapes' unloads left the base's weights alone */
	bad = 0;
	worst = 0;
	for (int i = 0; i < 3; i++) {
		e = run(m, &cases[i]);
		bad += e < 0 || e > 1;
		worst = e > worst ? e : worst;
	}
	npurt_model_get_shape_cache_stats(m, &cs);
	tap_ok(!bad && cs.evictions >= 3,
	       "after evictions, the base and shapes compiled again still match (worst %.3g; evictions %llu)",
	       worst, (unsigned long long)cs.evictions);
	npurt_model_unload(m);
	m = NULL;
	tap_ok(true, "the model and its shapes unload (ASan/valgrind: no double free of the shared weights)");
out:
	npurt_model_unload(m);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	return tap_done();
}
