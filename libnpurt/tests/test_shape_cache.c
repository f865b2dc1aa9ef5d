// SPDX-License-Identifier: MIT
/*
 * test_shape_cache.c - dynamic shapes on demand: a BERT-like encoder
 * exported with symbolic batch and sequence (tests/online/bert_dyn.py,
 * torch's outputs as reference) is loaded from ONNX with one gear
 * (seq 16) and a shape cache of 8, then run at 20 sequence lengths in a
 * sequence with repeats: every result matches torch, hits, misses and
 * evictions equal an LRU model of the same sequence (the gear is not a
 * lookup), and a repeated shape compiles nothing. The preallocated memory
 * strategy runs shapes in one workspace and refuses a larger one. With
 * padding to gears on, a shape that a gear covers runs in it with no
 * compile, its results the request's rows (host and device-block I/O).
 *
 * Usage: test_shape_cache [DIR]   (DIR: where the model is generated;
 * default: beside this program)
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npurt.h"
#include "op_chain.h"
#include "rt_test_util.h"
#include "tap.h"

#define CLASSES		4
#define MAX_CASES	32
#define CACHE_SIZE	8
#define GEAR_SEQ	16

static const int seqs[20] = { 3, 5, 7, 8, 9, 11, 12, 13, GEAR_SEQ, 17, 19,
			      21, 24, 27, 29, 31, 33, 40, 48, 64 };
/* Indices into seqs: every length, with repeats near and far. */
static const int order[] = { 0, 1, 2, 0, 3, 4, 1, 5, 8, 6, 7, 2, 9, 10, 11,
			     12, 5, 13, 14, 8, 15, 16, 17, 18, 19, 19, 18,
			     17, 3, 12, 13, 0, 14, 8, 16 };

struct tcase {
	uint32_t batch, seq;
	int64_t *ids;
	float ref[CLASSES * 2];
};

static int load_cases(const char *path, struct tcase *c, int *n)
{
	FILE *f = fopen(path, "rb");
	uint32_t cnt = 0;
	int ok = f && fread(&cnt, 4, 1, f) == 1 && cnt <= MAX_CASES;

	for (uint32_t i = 0; ok && i < cnt; i++) {
		size_t k;

		ok = fread(&c[i].batch, 4, 1, f) == 1 &&
		     fread(&c[i].seq, 4, 1, f) == 1 && c[i].batch <= 2;
		k = ok ? (size_t)c[i].batch * c[i].seq : 0;
		c[i].ids = ok ? malloc(k * 8) : NULL;
		ok = ok && c[i].ids && fread(c[i].ids, 8, k, f) == k &&
		     fread(c[i].ref, 4, c[i].batch * CLASSES, f) ==
			     c[i].batch * CLASSES;
	}
	if (f)
		fclose(f);
	*n = ok ? (int)cnt : 0;
	return ok ? 0 : -1;
}

static int gen(const char *dir)
{
	char cmd[PATH_MAX + 512];
	size_t u;

	u = (size_t)snprintf(cmd, sizeof(cmd),
			     "/usr/bin/python3 tests/online/bert_dyn.py %s",
			     dir);
	for (int i = 0; i < 20; i++)
		u += (size_t)snprintf(cmd + u, sizeof(cmd) - u, " %d",
				      seqs[i]);
	snprintf(cmd + u, sizeof(cmd) - u, " 2x64");
	return system(cmd);
}

static npurt_status run(npurt_model *m, const struct tcase *c, float *out)
{
	uint64_t shape[2] = { c->batch, c->seq };
	const uint64_t *shapes[1] = { shape };
	npurt_io in = { NULL, c->ids, 0, (size_t)c->batch * c->seq * 8 };
	npurt_io o = { NULL, out, 0, c->batch * CLASSES * sizeof(float) };
	npurt_status st = npurt_model_select_shapes(m, shapes);

	return st ? st : npurt_model_execute(m, &in, 1, &o, 1);
}

struct lru {
	int slot[CACHE_SIZE], n;
	uint64_t hits, misses, evictions;
};

/* Returns whether @k was a hit. */
static int lru_access(struct lru *l, int k)
{
	int i, hit;

	for (i = 0; i < l->n && l->slot[i] != k; i++)
		;
	hit = i < l->n;
	if (hit) {
		l->hits++;
	} else {
		l->misses++;
		if (l->n == CACHE_SIZE) {
			l->n--;
			l->evictions++;
		}
		i = l->n++;
	}
	memmove(&l->slot[1], &l->slot[0], i * sizeof(l->slot[0]));
	l->slot[0] = k;
	return hit;
}

/* Output 0's dims and input 0's as the selection describes them. */
static int described(npurt_model *m, uint64_t b, uint64_t s)
{
	npurt_tensor_desc di, dout;

	return !npurt_model_get_input(m, 0, 0, &di) &&
	       !npurt_model_get_output(m, 0, 0, &dout) && di.rank == 2 &&
	       di.dims[0] == b && di.dims[1] == s && di.size == b * s * 8 &&
	       dout.rank == 2 && dout.dims[0] == b &&
	       dout.dims[1] == CLASSES && dout.size == b * CLASSES * 4;
}

/* The same run with the input and the output in device blocks. */
static npurt_status run_blocks(npurt_context *ctx, npurt_model *m,
			       const struct tcase *c, float *out)
{
	size_t isz = (size_t)c->batch * c->seq * 8;
	size_t osz = c->batch * CLASSES * sizeof(float);
	npurt_mem *bi = NULL, *bo = NULL;
	npurt_status st = npurt_mem_alloc(ctx, isz, &bi);

	if (!st)
		st = npurt_mem_alloc(ctx, osz, &bo);
	if (!st)
		st = npurt_memcpy_h2d(bi, 0, c->ids, isz);
	if (!st) {
		npurt_io in = { bi, NULL, 0, isz };
		npurt_io o = { bo, NULL, 0, osz };

		st = npurt_model_execute(m, &in, 1, &o, 1);
	}
	if (!st)
		st = npurt_memcpy_d2h(out, bo, 0, osz);
	npurt_mem_free(bi);
	npurt_mem_free(bo);
	return st;
}

/* 11-15: one gear (batch 4, seq 64), padding on. */
static npurt_status pad_tests(npurt_context *ctx, const char *path,
			      const struct tcase *cases)
{
	const struct tcase *b2 = &cases[20], *b1 = &cases[19];
	uint64_t shape[2] = { 2, 64 };
	const uint64_t *shapes[1] = { shape };
	npurt_onnx_options o;
	npurt_model_info info;
	npurt_cache_stats cs;
	npurt_model *m = NULL;
	float out[CLASSES * 2];
	double e1 = 9, e2 = 9, e3 = 9;
	npurt_status st;
	int desc_ok;

	npurt_onnx_options_init(&o);
	o.dynamic_dims = "4,64";
	o.shape_cache_size = 4;
	st = npurt_model_load_onnx(ctx, path, &o, &m);
	if (!st)
		st = npurt_model_set_pad_to_gear(m, 1);
	tap_ok(!st, "gear batch=4,seq=64 only, padding to gears on (%s)",
	       st ? rt_err() : "ok");
	if (st)
		return st;
	st = npurt_model_select_shapes(m, shapes);
	npurt_model_get_info(m, &info);
	npurt_model_get_shape_cache_stats(m, &cs);
	desc_ok = described(m, 2, 64);
	tap_ok(!st && info.current_variant == 0 && cs.misses == 0 && desc_ok,
	       "2x64 selects the gear 4x64 with no compile, and is "
	       "described as [2,64] -> [2,%d] (%s)", CLASSES,
	       st ? rt_err() : "ok");
	if (!st)
		st = run(m, b2, out);
	if (!st)
		e2 = rt_max_err(out, b2->ref, 2 * CLASSES, 1e-4, 1e-3);
	if (!st)
		st = run(m, b1, out);
	if (!st)
		e1 = rt_max_err(out, b1->ref, CLASSES, 1e-4, 1e-3);
	tap_ok(!st && e1 <= 1 && e2 <= 1,
	       "padded 2x64 and 1x64 match torch (worst %.3g, %.3g) (%s)",
	       e2, e1, st ? rt_err() : "ok");
	if (!st)
		st = npurt_model_select_shapes(m, shapes);
	if (!st)
		st = run_blocks(ctx, m, b2, out);
	if (!st)
		e3 = rt_max_err(out, b2->ref, 2 * CLASSES, 1e-4, 1e-3);
	tap_ok(!st && e3 <= 1, "the same through device blocks (worst %.3g) "
	       "(%s)", e3, st ? rt_err() : "ok");
	{
		uint64_t s5[2] = { 5, 64 };
		const uint64_t *sh5[1] = { s5 };
		npurt_stream *s = NULL;
		npurt_status ast = NPURT_ERR_INVALID, st5;
		char why[512] = "";

		if (!npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &s)) {
			npurt_io in = { NULL, b2->ids, 0, 2 * 64 * 8 };
			npurt_io oo = { NULL, out, 0, sizeof(out) };

			ast = npurt_model_execute_async(m, &in, 1, &oo, 1, s);
			snprintf(why, sizeof(why), "%s", rt_err());
			npurt_stream_destroy(s);
		}
		st5 = npurt_model_select_shapes(m, sh5);
		npurt_model_get_shape_cache_stats(m, &cs);
		npurt_model_get_info(m, &info);
		tap_ok(ast == NPURT_ERR_UNSUPPORTED && !st5 && cs.misses == 1 &&
		       info.current_variant == info.num_variants,
		       "a padded selection refuses execute_async (%s); 5x64, "
		       "which no gear covers, is compiled on demand", why);
	}
	npurt_model_unload(m);
	return NPURT_OK;
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct tcase cases[MAX_CASES];
	int ncases = 0, bad_result = 0, bad_hit = 0, bad_name = 0;
	int n_order = (int)(sizeof(order) / sizeof(order[0]));
	npurt_device *dev = NULL;
	npurt_context *ctx = NULL;
	npurt_model *m = NULL, *p = NULL;
	npurt_onnx_options o;
	npurt_cache_stats cs, prev;
	struct lru lru = { .n = 0 };
	double worst = 0;
	npurt_status st = NPURT_OK;

	tap_plan(15);
	if (rt_test_dir(argc, argv, dir, sizeof(dir))) {
		printf("Bail out! /proc/self/exe\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/cases.bin", dir);
	if (gen(dir) || load_cases(path, cases, &ncases) || ncases != 21) {
		printf("Bail out! generating the model in %s failed\n", dir);
		return 1;
	}
	chain_use_built_libnpuc();
	if (npurt_init(0) || npurt_device_open_spec("sim", &dev) ||
	    npurt_context_create(dev, 0, &ctx)) {
		printf("Bail out! setup: %s\n", rt_err());
		return 1;
	}

	/* 1: load with one gear and a cache of 8. */
	npurt_onnx_options_init(&o);
	o.dynamic_dims = "1,16";
	o.shape_cache_size = CACHE_SIZE;
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	st = npurt_model_load_onnx(ctx, path, &o, &m);
	tap_ok(!st, "BERT-like encoder (symbolic batch, seq) loaded from "
	       "ONNX with gear seq=16, shape cache 8 (%s)",
	       st ? rt_err() : "ok");
	if (st)
		goto out;

	/* 2-5: 35 runs over 20 lengths. */
	npurt_model_get_shape_cache_stats(m, &prev);
	for (int i = 0; i < n_order && !st; i++) {
		const struct tcase *c = &cases[order[i]];
		float out[CLASSES];
		npurt_model_info info;
		const char *vn = "";
		char want[64];
		int hit = -1;
		double e;

		st = run(m, c, out);
		if (st) {
			tap_diag("seq %u: %s: %s", c->seq,
				 npurt_status_str(st), rt_err());
			break;
		}
		e = rt_max_err(out, c->ref, CLASSES, 1e-4, 1e-3);
		worst = e > worst ? e : worst;
		bad_result += e > 1;
		if (c->seq != GEAR_SEQ)
			hit = lru_access(&lru, order[i]);
		npurt_model_get_shape_cache_stats(m, &cs);
		/* A hit (or the gear) compiles nothing; a miss does. */
		if (hit != 0 && (cs.compile_ns != prev.compile_ns ||
				 cs.misses != prev.misses))
			bad_hit++;
		if (hit == 0 && cs.misses != prev.misses + 1)
			bad_hit++;
		prev = cs;
		npurt_model_get_info(m, &info);
		npurt_model_variant_name(m, info.current_variant, &vn);
		snprintf(want, sizeof(want), c->seq == GEAR_SEQ ?
			 "batch=1,seq=%u" : "input_ids:1,%u", c->seq);
		if (strcmp(vn, want) ||
		    (c->seq == GEAR_SEQ) !=
			    (info.current_variant < info.num_variants)) {
			tap_diag("seq %u: variant \"%s\", expected \"%s\"",
				 c->seq, vn, want);
			bad_name++;
		}
	}
	tap_ok(!st && !bad_result,
	       "%d runs over 20 sequence lengths match torch (worst error "
	       "%.3g of atol 1e-4 + rtol 1e-3)", n_order, worst);
	npurt_model_get_shape_cache_stats(m, &cs);
	tap_ok(cs.hits == lru.hits && cs.misses == lru.misses &&
	       cs.evictions == lru.evictions && lru.evictions > 0 &&
	       lru.hits > 0,
	       "hits %llu misses %llu evictions %llu = the LRU model's "
	       "%llu %llu %llu", (unsigned long long)cs.hits,
	       (unsigned long long)cs.misses,
	       (unsigned long long)cs.evictions,
	       (unsigned long long)lru.hits, (unsigned long long)lru.misses,
	       (unsigned long long)lru.evictions);
	tap_ok(!bad_hit, "every repeated shape compiled nothing, every new "
	       "one once (%d violations; %.1f ms compiling, %.1f ms loading "
	       "%llu shapes)", bad_hit, cs.compile_ns / 1e6,
	       cs.load_ns / 1e6, (unsigned long long)cs.misses);
	tap_ok(!bad_name && cs.entries == CACHE_SIZE &&
	       cs.capacity == CACHE_SIZE,
	       "the variant in use is named by its shape; %u of %u entries "
	       "held (%llu device bytes)", cs.entries, cs.capacity,
	       (unsigned long long)cs.device_bytes);

	/* 6: a .om model has no shape cache. */
	{
		npurt_model_info info;

		npurt_model_select_variant(m, 0);
		npurt_model_get_info(m, &info);
		tap_ok(info.current_variant == 0 &&
		       npurt_model_get_shape_cache_stats(NULL, &cs) ==
			       NPURT_ERR_INVALID,
		       "select_variant goes back to the gear");
	}

	/* 7: a shape the compiler refuses (beyond the position table). */
	{
		uint64_t shape[2] = { 1, 65 };
		const uint64_t *shapes[1] = { shape };
		npurt_model_info info;

		st = npurt_model_select_shapes(m, shapes);
		npurt_model_get_info(m, &info);
		tap_ok(st == NPURT_ERR_SHAPE && strstr(rt_err(), "1,65") &&
		       info.current_variant < info.num_variants,
		       "seq 65 (position table of 64) is refused with the "
		       "compiler's message; the gear is in use (%s)",
		       rt_err());
	}

	/*
	 * 8-10: preallocated: one workspace for up to 1x64. (The first model
	 * goes first: its 8 shapes hold most of the context's semaphores.)
	 */
	npurt_model_unload(m);
	m = NULL;
	npurt_onnx_options_init(&o);
	o.shape_cache_size = 4;
	o.mem_strategy = NPURT_MEM_PREALLOCATED;
	o.max_shapes = "input_ids:1,64";
	st = npurt_model_load_onnx(ctx, path, &o, &p);
	tap_ok(!st, "preallocated strategy, max shape 1x64 (%s)",
	       st ? rt_err() : "ok");
	bad_result = 0;
	worst = 0;
	for (int i = 0; !st && i < 20; i += 3) {
		float out[CLASSES];
		double e;

		st = run(p, &cases[i], out);
		if (st)
			tap_diag("seq %u: %s", cases[i].seq, rt_err());
		if (!st) {
			e = rt_max_err(out, cases[i].ref, CLASSES, 1e-4, 1e-3);
			worst = e > worst ? e : worst;
			bad_result += e > 1;
		}
	}
	npurt_model_get_shape_cache_stats(p, &cs);
	tap_ok(!st && !bad_result && cs.misses == 7 && cs.evictions == 3,
	       "7 lengths in one workspace match torch (worst %.3g; misses "
	       "%llu, evictions %llu)", worst, (unsigned long long)cs.misses,
	       (unsigned long long)cs.evictions);
	{
		float out[CLASSES * 2];

		st = p ? run(p, &cases[20], out) : NPURT_ERR_INVALID;
		tap_ok(st == NPURT_ERR_SHAPE &&
		       strstr(rt_err(), "preallocated"),
		       "2x64 needs more than the preallocated workspace: "
		       "NPURT_ERR_SHAPE (%s)", rt_err());
	}
	npurt_model_unload(p);
	p = NULL;
	st = pad_tests(ctx, path, cases);
out:
	npurt_model_unload(m);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	for (int i = 0; i < ncases; i++)
		free(cases[i].ids);
	return tap_done();
}
