// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_count_test.c - NONZERO and NMS, the ops whose output extent the data
 * decides (uapi 1.5): the packed rows and the count against references
 * written here independently (a sort, not the kernel's repeated scan),
 * the zeroed tail of the bound, and the descriptors the checker refuses
 * (bad params, an out that is not the bound, a count that is not one I64,
 * a cost that saturates).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"

#define F32	DRM_NPU_DTYPE_F32
#define I64	DRM_NPU_DTYPE_I64

static struct drm_npu_task T;

static int check(void)
{
	u32 bad;

	return npu_op_check(&T, &bad);
}

/* ---- NONZERO ---- */

/* Reference: coordinates of the nonzeros of a dense [r0, r1, r2] array. */
static u64 nz_ref(const float *x, const u32 *sh, s64 *ref, u64 bound)
{
	u64 n = 0, e, numel = (u64)sh[0] * sh[1] * sh[2];

	for (e = 0; e < numel; e++)
		n += x[e] != 0.0f;
	for (e = 0, bound = 0; e < numel; e++) {
		if (x[e] == 0.0f)
			continue;
		ref[0 * n + bound] = (s64)(e / ((u64)sh[1] * sh[2]));
		ref[1 * n + bound] = (s64)(e / sh[2] % sh[1]);
		ref[2 * n + bound] = (s64)(e % sh[2]);
		bound++;
	}
	return n;
}

static void nonzero_dense(void)
{
	u32 sh[3] = { 3, 5, 7 }, osh[2] = { 3, 105 }, one[1] = { 1 };
	float x[105];
	s64 out[315], ref[315] = { 0 }, count = -1;
	void *data[3] = { x, out, &count };
	u64 n, i;
	int tail_zero = 1;

	for (i = 0; i < 105; i++)
		x[i] = tl_rand() % 3 ? 0.0f : tl_uniform(-2, 2);
	x[0] = -0.0f;	/* negative zero is zero */
	x[104] = NAN;	/* NaN is nonzero */
	tl_task(&T, DRM_NPU_OP_NONZERO, 3);
	tl_opnd(&T.operands[0], 0, F32, 3, sh, NULL);
	tl_opnd(&T.operands[1], 1, I64, 2, osh, NULL);
	tl_opnd(&T.operands[2], 2, I64, 1, one, NULL);
	memset(out, 0x5a, sizeof(out));
	n = nz_ref(x, sh, ref, 105);
	tap_ok(tl_run(&T, data) == 0 && count == (s64)n &&
	       !memcmp(out, ref, 3 * n * sizeof(s64)),
	       "NONZERO [3,5,7] F32: %llu coordinates packed as [3, n]",
	       (unsigned long long)n);
	for (i = 3 * n; i < 315; i++)
		tail_zero &= out[i] == 0;
	tap_ok(tail_zero, "NONZERO: the bound past 3 * n is zeroed");
}

/* A transposed view (strides of [7,5] read as [5,7]): coordinates of the view. */
static void nonzero_strided(void)
{
	u32 sh[2] = { 5, 7 }, st[2] = { 1, 5 }, osh[2] = { 2, 35 }, one[1] = { 1 };
	s8 x[35];
	s64 out[70], count = 0;
	void *data[3] = { x, out, &count };
	u64 i, j, n = 0, bad = 0;

	for (i = 0; i < 35; i++)
		x[i] = (s8)(i % 4 == 1 ? i : 0);
	tl_task(&T, DRM_NPU_OP_NONZERO, 3);
	tl_opnd(&T.operands[0], 0, DRM_NPU_DTYPE_I8, 2, sh, st);
	tl_opnd(&T.operands[1], 1, I64, 2, osh, NULL);
	tl_opnd(&T.operands[2], 2, I64, 1, one, NULL);
	tap_ok(tl_run(&T, data) == 0, "NONZERO over a strided I8 view: runs");
	for (i = 0; i < 5; i++)
		for (j = 0; j < 7; j++) {
			if (!x[i + 5 * j])
				continue;
			bad += n >= (u64)count || out[n] != (s64)i ||
			       out[count + n] != (s64)j;
			n++;
		}
	tap_ok(!bad && n == (u64)count,
	       "NONZERO strided: %lld coordinates in the view's row-major order",
	       (long long)count);
}

static void nonzero_edges(void)
{
	u32 one[1] = { 1 }, sh0[2] = { 0, 1 }, zsh[2] = { 2, 0 }, e[2] = { 3, 4 };
	float x = 3.0f, xs[12] = { 0 };
	s64 out[24], count = -1;
	void *data[3] = { &x, out, &count };

	tl_task(&T, DRM_NPU_OP_NONZERO, 3);
	tl_opnd(&T.operands[0], 0, F32, 0, NULL, NULL);
	tl_opnd(&T.operands[1], 1, I64, 2, sh0, NULL);
	tl_opnd(&T.operands[2], 2, I64, 1, one, NULL);
	tap_ok(tl_run(&T, data) == 0 && count == 1,
	       "NONZERO of a nonzero scalar: out [0, 1], count 1");
	{
		u32 in0[2] = { 2, 0 };

		tl_opnd(&T.operands[0], 0, F32, 2, in0, NULL);
		tl_opnd(&T.operands[1], 1, I64, 2, zsh, NULL);
		count = -1;
		tap_ok(tl_run(&T, data) == 0 && count == 0,
		       "NONZERO of an empty [2, 0]: count 0 (written though nothing is read)");
	}
	data[0] = xs;
	tl_opnd(&T.operands[0], 0, F32, 2, e, NULL);
	{
		u32 osh[2] = { 2, 12 };

		tl_opnd(&T.operands[1], 1, I64, 2, osh, NULL);
	}
	count = -1;
	tap_ok(tl_run(&T, data) == 0 && count == 0, "NONZERO of all zeros: count 0");
}

static void nonzero_refused(void)
{
	u32 sh[2] = { 3, 4 }, osh[2] = { 2, 12 }, bad_o[2] = { 2, 11 };
	u32 one[1] = { 1 }, two[1] = { 2 }, gap[2] = { 13, 1 };

	tl_task(&T, DRM_NPU_OP_NONZERO, 3);
	tl_opnd(&T.operands[0], 0, F32, 2, sh, NULL);
	tl_opnd(&T.operands[1], 1, I64, 2, bad_o, NULL);
	tl_opnd(&T.operands[2], 2, I64, 1, one, NULL);
	tap_ok(check() == -EINVAL, "NONZERO: out short of numel(in) columns refused");
	tl_opnd(&T.operands[1], 1, I64, 2, osh, gap);
	tap_ok(check() == -EINVAL, "NONZERO: an out with a row gap refused");
	tl_opnd(&T.operands[1], 1, F32, 2, osh, NULL);
	tap_ok(check() == -EINVAL, "NONZERO: an F32 out refused");
	tl_opnd(&T.operands[1], 1, I64, 2, osh, NULL);
	tl_opnd(&T.operands[2], 2, I64, 1, two, NULL);
	tap_ok(check() == -EINVAL, "NONZERO: a count of two elements refused");
	tl_opnd(&T.operands[2], 2, DRM_NPU_DTYPE_I32, 1, one, NULL);
	tap_ok(check() == -EINVAL, "NONZERO: an I32 count refused");
	tl_opnd(&T.operands[2], 2, I64, 1, one, NULL);
	T.params.raw[0] = 1;
	tap_ok(check() == -EINVAL, "NONZERO: nonzero params refused");
	T.params.raw[0] = 0;
	tap_ok(check() == 0, "NONZERO: the same task, well formed, accepted");
}

/* ---- NMS ---- */

struct ref_box {
	float s;
	u32 i;
};

static int by_score(const void *a, const void *b)
{
	const struct ref_box *x = a, *y = b;

	if (x->s != y->s)
		return x->s > y->s ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static double iou(const float *a, const float *b)
{
	double ay0 = fmin(a[0], a[2]), ay1 = fmax(a[0], a[2]);
	double ax0 = fmin(a[1], a[3]), ax1 = fmax(a[1], a[3]);
	double by0 = fmin(b[0], b[2]), by1 = fmax(b[0], b[2]);
	double bx0 = fmin(b[1], b[3]), bx1 = fmax(b[1], b[3]);
	double ih = fmin(ay1, by1) - fmax(ay0, by0);
	double iw = fmin(ax1, bx1) - fmax(ax0, bx0);
	double aa = (ay1 - ay0) * (ax1 - ax0), ab = (by1 - by0) * (bx1 - bx0);

	if (ih <= 0 || iw <= 0 || aa <= 0 || ab <= 0)
		return 0;
	return ih * iw / (aa + ab - ih * iw);
}

/* Reference NMS over boxes [B, N, 4], scores [B, C, N]: rows written. */
static u64 nms_ref(const float *bx, const float *sc, u32 B, u32 C, u32 N,
		   u32 max, float iou_thr, float score_thr, s64 *rows)
{
	struct ref_box *o = calloc(N ? N : 1, sizeof(*o));
	u32 *kept = calloc(N ? N : 1, sizeof(*kept));
	u64 r = 0;

	for (u32 b = 0; b < B; b++)
		for (u32 c = 0; c < C; c++) {
			u32 m = 0, nk = 0;

			for (u32 i = 0; i < N; i++) {
				float s = sc[((u64)b * C + c) * N + i];

				if (s > score_thr)
					o[m++] = (struct ref_box){ s, i };
			}
			qsort(o, m, sizeof(*o), by_score);
			for (u32 j = 0; j < m && nk < max; j++) {
				const float *cand = bx + ((u64)b * N + o[j].i) * 4;
				int keep = 1;

				for (u32 k = 0; k < nk && keep; k++)
					keep = iou(bx + ((u64)b * N + kept[k]) * 4,
						   cand) <= iou_thr;
				if (!keep)
					continue;
				kept[nk++] = o[j].i;
				rows[r * 3] = b;
				rows[r * 3 + 1] = c;
				rows[r * 3 + 2] = o[j].i;
				r++;
			}
		}
	free(o);
	free(kept);
	return r;
}

static u32 nB, nC, nN, nKeep;

static void nms_task(u32 B, u32 C, u32 N, u32 max, float iou_thr,
		     float score_thr, int has_thr)
{
	u32 bsh[3] = { B, N, 4 }, ssh[3] = { B, C, N }, wsh[2] = { B * C, N };
	u32 osh[2] = { B * C * (N < max ? N : max), 3 }, psh[1] = { B * C };

	nB = B;
	nC = C;
	nN = N;
	nKeep = N < max ? N : max;
	tl_task(&T, DRM_NPU_OP_NMS, 5);
	tl_opnd(&T.operands[0], 0, F32, 3, bsh, NULL);
	tl_opnd(&T.operands[1], 1, F32, 3, ssh, NULL);
	tl_opnd(&T.operands[2], 2, DRM_NPU_DTYPE_I32, 2, wsh, NULL);
	tl_opnd(&T.operands[3], 3, I64, 2, osh, NULL);
	tl_opnd(&T.operands[4], 4, I64, 1, psh, NULL);
	T.params.nms.max_per_class = max;
	T.params.nms.iou_threshold = tl_f2u(iou_thr);
	if (has_thr) {
		T.params.nms.flags = DRM_NPU_NMS_HAS_SCORE_THRESHOLD;
		T.params.nms.score_threshold = tl_f2u(score_thr);
	}
}

/*
 * The NMS task of nms_task() over @bx and @sc, its pairs in random
 * chunks, then PACK_ROWS: the packed rows in @out, their number in
 * @count. 0, or the first error.
 */
static int nms_run(float *bx, float *sc, s64 *out, s64 *count)
{
	struct drm_npu_task nms = T, pack;
	u32 pairs = nB * nC, psh[1] = { pairs };
	u32 dsh[3] = { pairs, nKeep, 3 }, one[1] = { 1 };
	s32 *ws = malloc(sizeof(s32) * pairs * (nN ? nN : 1));
	s64 *pc = malloc(sizeof(s64) * pairs);
	void *d1[5] = { bx, sc, ws, out, pc }, *d2[3] = { pc, out, count };
	u32 bad;
	int ret;

	ret = npu_op_check(&nms, &bad);
	if (!ret)
		ret = tl_run_chunked(&nms, d1);
	tl_task(&pack, DRM_NPU_OP_PACK_ROWS, 3);
	tl_opnd(&pack.operands[0], 0, I64, 1, psh, NULL);
	tl_opnd(&pack.operands[1], 1, I64, 3, dsh, NULL);
	tl_opnd(&pack.operands[2], 2, I64, 1, one, NULL);
	if (!ret)
		ret = tl_run(&pack, d2);
	free(ws);
	free(pc);
	return ret;
}

static void nms_random(void)
{
	enum { B = 2, C = 3, N = 40, MAX = 10 };
	float *bx = malloc(sizeof(float) * B * N * 4);
	float *sc = malloc(sizeof(float) * B * C * N);
	s64 out[B * C * MAX * 3], ref[B * C * MAX * 3], count = -1;
	u64 i, r, tail = 1;

	for (i = 0; i < (u64)B * N; i++) {
		float y = tl_uniform(0, 10), x = tl_uniform(0, 10);
		float h = tl_uniform(0.5f, 4), w = tl_uniform(0.5f, 4);

		/* corners in either order: the op takes min and max */
		bx[i * 4 + 0] = i % 2 ? y + h : y;
		bx[i * 4 + 1] = x;
		bx[i * 4 + 2] = i % 2 ? y : y + h;
		bx[i * 4 + 3] = x + w;
	}
	tl_fill(sc, (size_t)B * C * N, 0, 1);
	sc[5] = sc[6];		/* a tie: the lower index goes first */
	sc[7] = NAN;		/* never kept */
	nms_task(B, C, N, MAX, 0.3f, 0.2f, 1);
	memset(out, 0x5a, sizeof(out));
	r = nms_ref(bx, sc, B, C, N, MAX, 0.3f, 0.2f, ref);
	tap_ok(nms_run(bx, sc, out, &count) == 0 && count == (s64)r &&
	       !memcmp(out, ref, r * 3 * sizeof(s64)),
	       "NMS B=2 C=3 N=40 max=10, pairs in random chunks: %llu rows as the sorted reference",
	       (unsigned long long)r);
	for (i = r * 3; i < sizeof(out) / sizeof(out[0]); i++)
		tail &= out[i] == 0;
	tap_ok(tail, "NMS: PACK_ROWS zeroes the bound past the rows");

	nms_task(B, C, N, 1000, 1.0f, 0, 0);	/* nothing suppressed */
	{
		s64 *big = malloc(sizeof(s64) * B * C * N * 3);
		s64 *rb = malloc(sizeof(s64) * B * C * N * 3);

		r = nms_ref(bx, sc, B, C, N, 1000, 1.0f, -INFINITY, rb);
		tap_ok(nms_run(bx, sc, big, &count) == 0 && count == (s64)r &&
		       r == (u64)B * C * N - 1 &&
		       !memcmp(big, rb, r * 3 * sizeof(s64)),
		       "NMS iou 1, no score threshold: all %llu boxes but the NaN, in score order",
		       (unsigned long long)r);
		free(big);
		free(rb);
	}
	free(bx);
	free(sc);
}

/* 3000 boxes in 4 classes against the reference: the heap at depth 12. */
static void nms_many(void)
{
	enum { C = 4, N = 3000, MAX = 200 };
	float *bx = malloc(sizeof(float) * N * 4);
	float *sc = malloc(sizeof(float) * C * N);
	s64 *out = malloc(sizeof(s64) * C * MAX * 3);
	s64 *ref = malloc(sizeof(s64) * C * MAX * 3), count = -1;
	u64 i, r;

	for (i = 0; i < N; i++) {
		float y = tl_uniform(0, 300), x = tl_uniform(0, 300);

		bx[i * 4 + 0] = y;
		bx[i * 4 + 1] = x;
		bx[i * 4 + 2] = y + tl_uniform(2, 40);
		bx[i * 4 + 3] = x + tl_uniform(2, 40);
	}
	for (i = 0; i < C * N; i++)	/* coarse scores: many ties */
		sc[i] = (float)(tl_rand() % 64) / 64.0f;
	nms_task(1, C, N, MAX, 0.45f, 0.25f, 1);
	r = nms_ref(bx, sc, 1, C, N, MAX, 0.45f, 0.25f, ref);
	tap_ok(nms_run(bx, sc, out, &count) == 0 && count == (s64)r &&
	       !memcmp(out, ref, r * 3 * sizeof(s64)),
	       "NMS C=4 N=3000 max=200, 64 score levels (ties): %llu rows as the reference",
	       (unsigned long long)r);
	free(bx);
	free(sc);
	free(out);
	free(ref);
}

/* Counts past K or negative (a racing writer) are clamped: no overrun. */
static void pack_rows_clamps(void)
{
	u32 psh[1] = { 3 }, dsh[3] = { 3, 2, 3 }, one[1] = { 1 };
	s64 pc[3] = { 5, -7, 1 }, d[18], count = -1;
	void *data[3] = { pc, d, &count };
	int i, ok;

	for (i = 0; i < 18; i++)
		d[i] = i + 1;
	tl_task(&T, DRM_NPU_OP_PACK_ROWS, 3);
	tl_opnd(&T.operands[0], 0, I64, 1, psh, NULL);
	tl_opnd(&T.operands[1], 1, I64, 3, dsh, NULL);
	tl_opnd(&T.operands[2], 2, I64, 1, one, NULL);
	ok = tl_run(&T, data) == 0 && count == 3 && d[6] == 13 && d[8] == 15;
	for (i = 9; i < 18; i++)
		ok &= d[i] == 0;
	tap_ok(ok, "PACK_ROWS: counts 5 (K = 2) and -7 clamped to 2 and 0: 3 rows");
	tl_opnd(&T.operands[1], 1, I64, 3, (u32[3]){ 2, 2, 3 }, NULL);
	tap_ok(check() == -EINVAL, "PACK_ROWS: data of another P than the counts refused");
	/* P = 2^32 - 1 groups of K = 0: P + 1 wrapped the cost to 0 in 32 bits */
	tl_opnd(&T.operands[0], 0, I64, 1, (u32[1]){ ~0u }, NULL);
	tl_opnd(&T.operands[1], 1, I64, 3, (u32[3]){ ~0u, 0, 3 }, NULL);
	tap_ok(npu_op_unit_cost(&T) == 1ull << 32 && check() == -EINVAL,
	       "PACK_ROWS over 2^32 - 1 empty groups: costs 2^32, refused (a review finding)");
}

/* Two identical boxes and a center-format pair: IoU 1 suppresses. */
static void nms_center(void)
{
	float bx[3 * 4] = { 5, 5, 2, 2,   5, 5, 2, 2,   5.5f, 5, 2, 2 };
	float sc[3] = { 0.5f, 0.9f, 0.7f };
	s64 out[9], count = -1;

	nms_task(1, 1, 3, 3, 0.5f, 0, 0);
	T.params.nms.flags = DRM_NPU_NMS_CENTER_BOX;
	/* box 2 overlaps box 1 by IoU 1.5 / 2.5 = 0.6 > 0.5: suppressed */
	tap_ok(nms_run(bx, sc, out, &count) == 0 && count == 1 && out[2] == 1,
	       "NMS center boxes: the best of three overlapping kept alone");
	T.params.nms.iou_threshold = tl_f2u(0.7f);
	tap_ok(nms_run(bx, sc, out, &count) == 0 && count == 2 && out[2] == 1 &&
	       out[5] == 2, "NMS center boxes, iou 0.7: boxes 1 and 2 kept");
}

static void nms_refused(void)
{
	nms_task(1, 2, 8, 4, 0.5f, 0, 0);
	tap_ok(check() == 0, "NMS: a well-formed task accepted");
	T.params.nms.iou_threshold = tl_f2u(1.5f);
	tap_ok(check() == -EINVAL, "NMS: iou_threshold 1.5 refused");
	T.params.nms.iou_threshold = tl_f2u(-0.0f);
	tap_ok(check() == -EINVAL, "NMS: iou_threshold -0 refused");
	T.params.nms.iou_threshold = tl_f2u(NAN);
	tap_ok(check() == -EINVAL, "NMS: iou_threshold NaN refused");
	T.params.nms.iou_threshold = tl_f2u(0.5f);
	T.params.nms.max_per_class = 0;
	tap_ok(check() == -EINVAL, "NMS: max_per_class 0 refused");
	T.params.nms.max_per_class = 4;
	T.params.nms.flags = 4;
	tap_ok(check() == -EINVAL, "NMS: an unknown flag refused");
	T.params.nms.flags = 0;
	T.params.nms.score_threshold = tl_f2u(0.5f);
	tap_ok(check() == -EINVAL, "NMS: a score threshold without its flag refused");
	T.params.nms.flags = DRM_NPU_NMS_HAS_SCORE_THRESHOLD;
	T.params.nms.score_threshold = 0x7fc00000u;
	tap_ok(check() == -EINVAL, "NMS: a NaN score threshold refused");
	T.params.nms.score_threshold = 0;
	T.params.raw[sizeof(T.params.nms)] = 1;
	tap_ok(check() == -EINVAL, "NMS: nonzero params past the struct refused");
	T.params.raw[sizeof(T.params.nms)] = 0;
	{
		u32 osh[2] = { 1 * 2 * 4 - 1, 3 }, wsh[2] = { 2, 7 };
		u32 psh[1] = { 3 };

		tl_opnd(&T.operands[3], 3, I64, 2, osh, NULL);
		tap_ok(check() == -EINVAL, "NMS: an out one row short of the bound refused");
		nms_task(1, 2, 8, 4, 0.5f, 0, 0);
		tl_opnd(&T.operands[2], 2, DRM_NPU_DTYPE_I32, 2, wsh, NULL);
		tap_ok(check() == -EINVAL, "NMS: a scratch short of N refused");
		nms_task(1, 2, 8, 4, 0.5f, 0, 0);
		tl_opnd(&T.operands[4], 4, I64, 1, psh, NULL);
		tap_ok(check() == -EINVAL, "NMS: counts of 3 for 2 pairs refused");
	}
	{
		u32 bsh[3] = { 1, 7, 4 };

		nms_task(1, 2, 8, 4, 0.5f, 0, 0);
		tl_opnd(&T.operands[0], 0, F32, 3, bsh, NULL);
		tap_ok(check() == -EINVAL, "NMS: boxes and scores of different N refused");
	}
}

/*
 * N = 2^28 boxes, max_per_class = 2^32 - 1: a pair costs ~2^60 operations
 * (every candidate against up to 2^28 kept boxes): refused, not wrapped.
 */
static void nms_cost_saturates(void)
{
	nms_task(1, 1, 1u << 28, ~0u, 0.5f, 0, 0);
	tap_ok(npu_op_unit_cost(&T) >= 1ull << 60,
	       "NMS N=2^28, max 2^32-1: a unit costs 2^60 operations");
	tap_ok(check() == -EINVAL, "... and the checker refuses the task");
	nms_task(1, 80, 25200, 100, 0.5f, 0, 0);
	tap_ok(check() == 0 && npu_op_work_units(&T) == 80,
	       "NMS of a 640x640 YOLO head (80 classes, 25200 boxes, 100 each): accepted, 80 units");
}

/* ---- UNIQUE ---- */

/* Slices s and t of a dense [o, a, i] int array: <0, 0, >0. */
static int slice_cmp(const s32 *x, u32 o, u32 a, u32 in, u32 s, u32 t)
{
	for (u32 oi = 0; oi < o; oi++)
		for (u32 ii = 0; ii < in; ii++) {
			s32 u = x[(oi * a + s) * in + ii], v = x[(oi * a + t) * in + ii];

			if (u != v)
				return u < v ? -1 : 1;
		}
	return 0;
}

/* The UNIQUE task of a dense [O, A, I] of @dt: in, perm, y, ix, counts. */
static void unique_task(u32 dt, const u32 *sh, int sorted)
{
	u32 ps[2] = { 2, sh[1] }, as[1] = { sh[1] }, one[1] = { 1 };

	tl_task(&T, DRM_NPU_OP_UNIQUE, 6);
	T.params.unique.flags = sorted ? DRM_NPU_UNIQUE_SORTED : 0;
	tl_opnd(&T.operands[0], 0, dt, 3, sh, NULL);
	tl_opnd(&T.operands[1], 1, I64, 2, ps, NULL);
	tl_opnd(&T.operands[2], 2, dt, 3, sh, NULL);
	tl_opnd(&T.operands[3], 3, I64, 1, as, NULL);
	tl_opnd(&T.operands[4], 4, I64, 1, as, NULL);
	tl_opnd(&T.operands[5], 5, I64, 1, one, NULL);
}

/*
 * UNIQUE of a dense I32 [o, a, i] against a reference by brute force:
 * the distinct slices (ascending, or by first occurrence), first indices,
 * counts, the inverse from perm, and the zeroed tails.
 */
static void unique_case(u32 o, u32 a, u32 in, int sorted, u32 levels)
{
	u32 sh[3] = { o, a, in };
	u64 n = (u64)o * a * in;
	s32 *x = malloc(n * 4), *y = malloc(n * 4);
	s64 *perm = malloc(a * 16), *ix = malloc(a * 8), *cn = malloc(a * 8);
	u32 *first = malloc(a * 4), *order = malloc(a * 4), u = 0, bad = 0;
	s64 count = -1;
	void *data[6] = { x, perm, y, ix, cn, &count };

	for (u64 e = 0; e < n; e++)
		x[e] = (s32)(tl_rand() % levels) - (s32)(levels / 2);
	unique_task(DRM_NPU_DTYPE_I32, sh, sorted);
	memset(y, 0x5a, n * 4);
	/* reference: first occurrences in index order */
	for (u32 s = 0; s < a; s++) {
		u32 k = 0;

		while (k < u && slice_cmp(x, o, a, in, first[k], s))
			k++;
		if (k == u)
			first[u++] = s;
	}
	for (u32 k = 0; k < u; k++)
		order[k] = k;
	if (sorted)	/* insertion sort of the distinct slices */
		for (u32 k = 1; k < u; k++)
			for (u32 j = k; j > 0 && slice_cmp(x, o, a, in,
				first[order[j - 1]], first[order[j]]) > 0; j--) {
				u32 v = order[j];

				order[j] = order[j - 1];
				order[j - 1] = v;
			}
	if (tl_run(&T, data) || count != u) {
		tap_ok(0, "UNIQUE [%u, %u, %u] %s: runs, %lld distinct of %u",
		       o, a, in, sorted ? "sorted" : "unsorted",
		       (long long)count, u);
		goto out;
	}
	for (u32 g = 0; g < u; g++) {
		u32 s = first[order[g]], c = 0;

		bad += ix[g] != s;
		for (u32 t = 0; t < a; t++)
			c += !slice_cmp(x, o, a, in, s, t);
		bad += cn[g] != c;
		for (u32 oi = 0; oi < o; oi++)
			for (u32 ii = 0; ii < in; ii++)
				bad += y[(oi * u + g) * in + ii] !=
				       x[(oi * a + s) * in + ii];
	}
	for (u32 k = 0; k < a; k++) {	/* inverse: perm row 1 at row 0 */
		u32 s = (u32)perm[k], g = (u32)perm[a + k];

		bad += s >= a || g >= u ||
		       slice_cmp(x, o, a, in, s, first[order[g]]) != 0;
	}
	for (u32 g = u; g < a; g++)
		bad += ix[g] != 0 || cn[g] != 0;
	for (u64 e = (u64)o * u * in; e < n; e++)
		bad += y[e] != 0;
	tap_ok(!bad, "UNIQUE [%u, %u, %u] %s: %u distinct slices, first indices, counts, inverse as the reference",
	       o, a, in, sorted ? "sorted" : "by first occurrence", u);
out:
	free(x);
	free(y);
	free(perm);
	free(ix);
	free(cn);
	free(first);
	free(order);
}

/* F32: -0 equals +0, NaN equals NaN and sorts last. */
static void unique_floats(void)
{
	float x[8] = { 2.0f, NAN, -0.0f, 1.0f, 0.0f, NAN, 2.0f, -3.0f }, y[8];
	u32 sh[3] = { 1, 8, 1 }, ps[2] = { 2, 8 };
	s64 perm[16], ix[8], cn[8], count = -1;
	void *data[6] = { x, perm, y, ix, cn, &count };

	unique_task(F32, sh, 1);
	tap_ok(tl_run(&T, data) == 0 && count == 5 && y[0] == -3.0f &&
	       y[1] == 0.0f && cn[1] == 2 && ix[1] == 2 && y[2] == 1.0f &&
	       y[3] == 2.0f && cn[3] == 2 && isnan(y[4]) && cn[4] == 2 &&
	       ix[4] == 1,
	       "UNIQUE F32: -0 and +0 one value (first at 2), the two NaNs one, last");
	tl_opnd(&T.operands[2], 2, DRM_NPU_DTYPE_I32, 3, sh, NULL);
	tap_ok(check() == -EINVAL, "UNIQUE: y of another dtype than in refused");
	tl_opnd(&T.operands[2], 2, F32, 3, sh, NULL);
	tl_opnd(&T.operands[1], 1, I64, 2, (u32[2]){ 2, 7 }, NULL);
	tap_ok(check() == -EINVAL, "UNIQUE: perm short of A refused");
	tl_opnd(&T.operands[1], 1, I64, 2, ps, NULL);
	T.params.unique.flags = 2;
	tap_ok(check() == -EINVAL, "UNIQUE: an unknown flag refused");
}

int main(void)
{
	tl_seed(18);
	nonzero_dense();
	nonzero_strided();
	nonzero_edges();
	nonzero_refused();
	nms_random();
	nms_many();
	pack_rows_clamps();
	nms_center();
	nms_refused();
	nms_cost_saturates();
	unique_case(1, 50, 1, 1, 7);
	unique_case(1, 50, 1, 0, 7);
	unique_case(3, 40, 2, 1, 2);
	unique_case(2, 33, 3, 0, 2);
	unique_case(1, 1000, 1, 0, 100);
	unique_floats();
	return tap_done();
}
