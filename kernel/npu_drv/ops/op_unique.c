// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_unique.c - UNIQUE: the distinct slices of in along its middle dim
 * (ONNX Unique), an output whose extent the data decides.
 *
 * in is [O, A, I]: the A slices of O x I elements are compared
 * lexicographically in row-major order (ONNX's axis; a flattened Unique is
 * [1, numel, 1]). Floats compare by value, -0 equal to +0, NaN equal to
 * NaN and after every number. The U distinct slices go to y [O, A, I]
 * (the bound), written packed as a dense [O, U, I] at its start, in
 * ascending order (DRM_NPU_UNIQUE_SORTED) or in order of first
 * occurrence; indices[g] is the first occurrence of slice g, counts[g]
 * how often it occurs, count receives U; the rest of y, indices and
 * counts is zeroed.
 *
 * perm (I64 [2, A]) is the work: row 0 the slices in sorted order (a
 * heap sort by value, then index), row 1 the output slice of each, so
 * that a SCATTER of row 1 at row 0 gives ONNX's inverse_indices (the
 * compiler emits it next). Without SORTED the runs of equal slices are
 * sorted again by their first index (a second heap sort over both rows).
 * Indices read back from perm (userspace maps it) are clamped below A.
 * One work unit: about A log2 A compares of O * I elements.
 */
#include "npu_ops_float.h"

struct uq {
	const struct drm_npu_operand *io;
	const void *x;
	s64 *p0, *p1;		/* perm rows */
	u64 o, a, i;
	u32 dt;
};

static u64 uq_at(const struct uq *q, const s64 *row, u64 k)
{
	u64 v = (u64)row[k];

	return v < q->a ? v : 0;
}

static int uq_cmp_elem(const struct uq *q, u64 s, u64 t, u64 e)
{
	u64 oi = e / q->i, ii = e % q->i, os, ts;
	s64 ia, ib;

	os = oi * q->io->strides[0] + s * q->io->strides[1] +
	     ii * q->io->strides[2];
	ts = oi * q->io->strides[0] + t * q->io->strides[1] +
	     ii * q->io->strides[2];
	if (q->dt == DRM_NPU_DTYPE_F32 || q->dt == DRM_NPU_DTYPE_F16) {
		float a = npu_ld_f(q->dt, q->x, os);
		float b = npu_ld_f(q->dt, q->x, ts);

		if (a != a || b != b)	/* NaN: equal to NaN, after numbers */
			return (a != a) - (b != b);
		return (a > b) - (a < b);
	}
	ia = npu_ld_i(q->dt, q->x, os);
	ib = npu_ld_i(q->dt, q->x, ts);
	return (ia > ib) - (ia < ib);
}

/* Slices @s and @t of in: <0, 0, >0. */
static int uq_cmp(const struct uq *q, u64 s, u64 t)
{
	u64 e, n = q->o * q->i;
	int c;

	if (s == t)
		return 0;
	for (e = 0; e < n; e++) {
		c = uq_cmp_elem(q, s, t, e);
		if (c)
			return c;
	}
	return 0;
}

/* Sort position j before k? By value then index, or (@by_first) by row 1. */
static bool uq_before(const struct uq *q, u64 j, u64 k, bool by_first)
{
	u64 sj = uq_at(q, q->p0, j), sk = uq_at(q, q->p0, k);
	int c;

	if (by_first) {
		s64 fj = q->p1[j], fk = q->p1[k];

		return fj < fk || (fj == fk && sj < sk);
	}
	c = uq_cmp(q, sj, sk);
	return c < 0 || (c == 0 && sj < sk);
}

static void uq_swap(const struct uq *q, u64 j, u64 k, bool both)
{
	s64 v = q->p0[j];

	q->p0[j] = q->p0[k];
	q->p0[k] = v;
	if (both) {
		v = q->p1[j];
		q->p1[j] = q->p1[k];
		q->p1[k] = v;
	}
}

/* Max-heap sift of position @k among @m (the largest goes last). */
static void uq_sift(const struct uq *q, u64 k, u64 m, bool by_first)
{
	for (;;) {
		u64 big = k, l = 2 * k + 1, r = l + 1;

		if (l < m && uq_before(q, big, l, by_first))
			big = l;
		if (r < m && uq_before(q, big, r, by_first))
			big = r;
		if (big == k)
			return;
		uq_swap(q, k, big, by_first);
		k = big;
	}
}

static void uq_sort(const struct uq *q, bool by_first)
{
	u64 k, m;

	for (k = q->a / 2; k-- > 0;)
		uq_sift(q, k, q->a, by_first);
	for (m = q->a; m > 1; m--) {
		uq_swap(q, 0, m - 1, by_first);
		uq_sift(q, 0, m - 1, by_first);
	}
}

/* Does sort position @k start a run of equal slices? */
static bool uq_starts(const struct uq *q, u64 k, bool by_first)
{
	if (!k)
		return true;
	if (by_first)
		return q->p1[k] != q->p1[k - 1];
	return uq_cmp(q, uq_at(q, q->p0, k), uq_at(q, q->p0, k - 1)) != 0;
}

/* Copy slice @s of in to slice @g of the packed [O, @u, I] y. */
static void uq_put(const struct uq *q, void *y, u64 s, u64 g, u64 u)
{
	u32 es = npu_dtype_size(q->dt);
	u64 oi, ii;

	for (oi = 0; oi < q->o; oi++)
		for (ii = 0; ii < q->i; ii++)
			memcpy((u8 *)y + ((oi * u + g) * q->i + ii) * es,
			       (const u8 *)q->x + (oi * q->io->strides[0] +
						   s * q->io->strides[1] +
						   ii * q->io->strides[2]) * es,
			       es);
}

int npu_run_unique(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	bool sorted = t->params.unique.flags & DRM_NPU_UNIQUE_SORTED;
	s64 *perm = args->data[1], *ix = args->data[3], *cnt = args->data[4];
	struct uq q;
	u64 k, g = 0, u = 0;
	s64 prev = 0;

	if (begin > 0 || end < 1)
		return 0;
	q.io = npu_opnd(t, 0);
	q.x = args->data[0];
	q.dt = q.io->dtype;
	q.o = q.io->shape[0];
	q.a = q.io->shape[1];
	q.i = q.io->shape[2];
	q.p0 = perm;
	q.p1 = perm + q.a;
	for (k = 0; k < q.a; k++)
		q.p0[k] = (s64)k;
	uq_sort(&q, false);
	if (!sorted) {
		/* row 1: each position's first occurrence; runs by it */
		for (k = 0; k < q.a; k++)
			q.p1[k] = uq_starts(&q, k, false) ? q.p0[k] :
				  q.p1[k - 1];
		uq_sort(&q, true);
	}
	for (k = 0; k < q.a; k++)
		u += uq_starts(&q, k, !sorted);
	memset(ix, 0, q.a * sizeof(*ix));
	memset(cnt, 0, q.a * sizeof(*cnt));
	memset(args->data[2], 0, q.o * q.a * q.i * npu_dtype_size(q.dt));
	for (k = 0; k < q.a; k++) {
		u64 s = uq_at(&q, q.p0, k);
		bool first;

		if (sorted) {
			first = uq_starts(&q, k, false);
		} else {	/* row 1 is rewritten as we go: keep its value */
			s64 cur = q.p1[k];

			first = !k || cur != prev;
			prev = cur;
		}
		if (first && k)
			g++;
		if (first) {
			ix[g] = (s64)s;
			/* g < u unless in or perm changed under us */
			uq_put(&q, args->data[2], s, g < u ? g : 0, u);
		}
		cnt[g]++;
		q.p1[k] = (s64)g;
	}
	*(s64 *)args->data[5] = (s64)u;
	return 0;
}
