// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_attention.c - ATTENTION: out = softmax(scale * Q K^T [+ mask]) V,
 * batched over the leading dims (broadcast like MATMUL). The mask is
 * additive (F32) or boolean (BOOL: false masks the key out), broadcast to
 * [..., Sq, Sk]. A row whose keys are all masked gives NaN, as PyTorch.
 *
 * Scratch: a 1 KiB block of scores on the stack, and the core's unified
 * buffer for the keys transposed when they fit (attn_keys_fit()), followed
 * by two rows' score blocks when rows go in pairs (attn_row_pair()). Keys
 * are taken in blocks of ATTN_KB with the running-maximum ("online")
 * softmax: each block's scores are computed once, their exponentials taken
 * a vector at a time in float (the level's expf_row, npu_expf_row()'s
 * bits, <= 2 ulp) and summed in double in a fixed order (attn_block_sum()),
 * the output row (the accumulator) and the normaliser are rescaled when
 * the maximum grows, and the row is divided by the normaliser at the end.
 * Dot products over a contiguous head dimension use 8 partial sums
 * (vectorised; a fixed order, so results do not depend on chunking).
 * Work unit: one query row of one batch.
 */
#include "npu_ops_float.h"
#include "npu_kern.h"

#define ATTN_KB		256

struct attn_ctx {
	const struct drm_npu_operand *q, *k, *v, *m, *o;
	u64 qb[DRM_NPU_MAX_RANK], kb[DRM_NPU_MAX_RANK], vb[DRM_NPU_MAX_RANK];
	u64 mb[DRM_NPU_MAX_RANK];
	u64 qs, ks, krs, vs, vrs, ys;
	u32 r, sk, d, dv;
	float scale;
	const struct npu_kern *kern;	/* the ISA level's loops */
	/* the keys transposed in the unified buffer, or NULL */
	const float *kt;
	u64 ktrs;
};

static float dot(const float *a, u64 as, const float *b, u64 bs, u64 n)
{
	float p[8] = { 0 }, s;
	u64 t;
	u32 j;

	if (as == 1 && bs == 1) {
		for (t = 0; t + 8 <= n; t += 8)
			for (j = 0; j < 8; j++)
				p[j] += a[t + j] * b[t + j];
		s = ((p[0] + p[1]) + (p[2] + p[3])) +
		    ((p[4] + p[5]) + (p[6] + p[7]));
		for (; t < n; t++)
			s += a[t] * b[t];
		return s;
	}
	s = 0;
	for (t = 0; t < n; t++)
		s += a[t * as] * b[t * bs];
	return s;
}

typedef float attn_v4f __attribute__((__vector_size__(4 * sizeof(u32))));
typedef s32 attn_v4i __attribute__((__vector_size__(16)));
typedef double attn_v2d __attribute__((__vector_size__(2 * sizeof(u64))));

/*
 * The largest of @n scores, NaN when any is NaN; four lanes of compares
 * and selects (a maximum is exact: any order gives the same value, and the
 * sign of a zero maximum cannot change a probability).
 */
static float attn_max(const float *x, u32 n)
{
	attn_v4f m = { -NPU_INFF, -NPU_INFF, -NPU_INFF, -NPU_INFF }, v;
	attn_v4i gt, nan = { 0 };
	float mx;
	u32 j;

	for (j = 0; j + 4 <= n; j += 4) {
		memcpy(&v, x + j, sizeof(v));
		gt = v > m;
		nan |= v != v;
		m = (attn_v4f)(((attn_v4i)v & gt) | ((attn_v4i)m & ~gt));
	}
	mx = m[0];
	for (u32 i = 1; i < 4; i++)
		mx = m[i] > mx ? m[i] : mx;
	for (; j < n; j++) {
		nan[0] |= x[j] != x[j];
		mx = x[j] > mx ? x[j] : mx;
	}
	return (nan[0] | nan[1] | nan[2] | nan[3]) ? NPU_NANF : mx;
}

/*
 * The scores of keys [j0, j0 + n) for query row @qr, scaled and masked,
 * into @sc. Returns their maximum, NaN when any is NaN (a NaN score makes
 * the row NaN). Branch-free loops: the compiler vectorises them, and each
 * score is computed by the same operations as one at a time.
 */
static float attn_scores(const struct attn_ctx *c, float *sc, const float *qr,
			 const float *kp, const void *mp, u64 mo, u64 j0,
			 u32 n)
{
	float scale = c->scale;
	u32 j;

	/* contiguous heads: the level's dot products, dot()'s bits */
	if (c->kt)
		c->kern->dott_rows(sc, qr, c->kt + j0, c->ktrs, n, c->d);
	else if (c->qs == 1 && c->ks == 1)
		c->kern->dot8_rows(sc, qr, kp + j0 * c->krs, c->krs, n, c->d);
	else
		for (j = 0; j < n; j++)
			sc[j] = dot(qr, c->qs, kp + (j0 + j) * c->krs, c->ks,
				    c->d);
	for (j = 0; j < n; j++)
		sc[j] = sc[j] * scale;
	if (c->m) {
		u64 ms = c->mb[c->r - 1], mi = mo + j0 * ms;

		if (c->m->dtype == DRM_NPU_DTYPE_BOOL) {
			const u8 *mk = mp;

			for (j = 0; j < n; j++)
				sc[j] = mk[mi + j * ms] ? sc[j] : -NPU_INFF;
		} else {
			const float *mf = mp;

			for (j = 0; j < n; j++)
				sc[j] = sc[j] + mf[mi + j * ms];
		}
	}
	return attn_max(sc, n);
}

/*
 * The sum of a block's probabilities in double: 8 partial sums over whole
 * groups of 8, ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)), then
 * the tail one by one - a fixed order, so chunking and the ISA level do
 * not change the bits.
 */
static double attn_block_sum(const float *p, u32 n)
{
	double s[8] = { 0 }, t;
	u32 j, i;

	for (j = 0; j + 8 <= n; j += 8)
		for (i = 0; i < 8; i++)
			s[i] += p[j + i];
	t = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
	for (; j < n; j++)
		t += p[j];
	return t;
}

/* y[e] = (float)(y[e] / l) in double, two at a time where contiguous */
static void attn_normalise(float *y, u64 ys, u64 dv, double l)
{
	attn_v2d lv = { l, l }, v;
	u64 e = 0;

	if (ys == 1)
		for (; e + 2 <= dv; e += 2) {
			v = (attn_v2d){ y[e], y[e + 1] };
			v /= lv;
			y[e] = (float)v[0];
			y[e + 1] = (float)v[1];
		}
	for (; e < dv; e++)
		y[e * ys] = (float)(y[e * ys] / l);
}

/* One query row's running state: its scores block and softmax sums. */
struct attn_q {
	const float *qr;
	u64 mo;			/* the row's mask offset */
	float *y;
	float *sc;		/* ATTN_KB scores, then probabilities */
	float mx;		/* the running maximum */
	double l;		/* the running normaliser */
};

static void attn_q_begin(const struct attn_ctx *c, struct attn_q *q)
{
	u64 e;

	q->mx = -NPU_INFF;
	q->l = 0;
	for (e = 0; e < c->dv; e++)
		q->y[e * c->ys] = 0.0f;
}

/*
 * Keys [@j0, @j0 + @n) of row @q: the scores, the running maximum (y and
 * the normaliser rescaled when it grows), the probabilities in q->sc and
 * their sum added to the normaliser.
 */
static void attn_block(const struct attn_ctx *c, struct attn_q *q,
		       const float *kp, const void *mp, u64 j0, u32 n)
{
	float bmx, nmx;
	u64 j, e;

	bmx = attn_scores(c, q->sc, q->qr, kp, mp, q->mo, j0, n);
	nmx = (bmx > q->mx || bmx != bmx) ? bmx : q->mx;
	if (j0 && nmx != q->mx) {
		/* the maximum grew: rescale what was accumulated */
		double f = npu_exp_d((double)q->mx - nmx);

		q->l *= f;
		for (e = 0; e < c->dv; e++)
			q->y[e * c->ys] = (float)(q->y[e * c->ys] * f);
	}
	q->mx = nmx;
	/* the block's probabilities: npu_expf_row()'s bits */
	for (j = 0; j < n; j++)
		q->sc[j] = q->sc[j] - q->mx;
	c->kern->expf_row(q->sc, n);
	q->l += attn_block_sum(q->sc, n);
}

static void attn_row(const struct attn_ctx *c, const float *qr, const float *kp,
		     const float *vp, const void *mp, u64 mo, float *y)
{
	float sc[ATTN_KB];
	struct attn_q q = { .qr = qr, .mo = mo, .y = y, .sc = sc };
	u64 j0, j, e;
	u32 n;

	attn_q_begin(c, &q);
	for (j0 = 0; j0 < c->sk; j0 += n) {
		n = c->sk - j0 < ATTN_KB ? (u32)(c->sk - j0) : ATTN_KB;
		attn_block(c, &q, kp, mp, j0, n);
		if (c->vs == 1 && c->ys == 1) {
			/* the level's loop, y in registers: axpy's bits */
			c->kern->axpy_rows(y, vp + j0 * c->vrs, c->vrs, sc, n,
					   c->dv);
			continue;
		}
		for (j = 0; j < n; j++) {
			const float *vr = vp + (u64)(j0 + j) * c->vrs;
			float pj = sc[j];

			for (e = 0; e < c->dv; e++)
				y[e * c->ys] += pj * vr[e * c->vs];
		}
	}
	attn_normalise(y, c->ys, c->dv, q.l);
}

/*
 * Two query rows of one batch (the same keys and values; contiguous
 * values and outputs) in lockstep: each row's blocks as attn_row() does
 * them, the values' products through axpy_rows2(), which loads each value
 * vector once for both rows and has twice the independent sums - the
 * bits of two attn_row() calls.
 */
static void attn_row_pair(const struct attn_ctx *c, struct attn_q *q,
			  const float *kp, const float *vp, const void *mp)
{
	u64 j0;
	u32 n;

	attn_q_begin(c, &q[0]);
	attn_q_begin(c, &q[1]);
	for (j0 = 0; j0 < c->sk; j0 += n) {
		n = c->sk - j0 < ATTN_KB ? (u32)(c->sk - j0) : ATTN_KB;
		attn_block(c, &q[0], kp, mp, j0, n);
		attn_block(c, &q[1], kp, mp, j0, n);
		c->kern->axpy_rows2(q[0].y, q[1].y, vp + j0 * c->vrs, c->vrs,
				    q[0].sc, q[1].sc, n, c->dv);
	}
	attn_normalise(q[0].y, 1, c->dv, q[0].l);
	attn_normalise(q[1].y, 1, c->dv, q[1].l);
}

/*
 * The keys of one batch transposed into the unified buffer, kt[t * sk + j]
 * = element t of key j, so that the scores of a query row are vectors
 * across keys (dott_rows) instead of one horizontal reduction per key.
 * The query rows of one batch follow each other in the units of a chunk:
 * they share the transposed keys. Only where dot8_rows() would run (the
 * query row and each key contiguous: other strides sum in another order,
 * dot()'s) and when all of the batch's keys fit.
 */
static bool attn_keys_fit(const struct attn_ctx *c, const void *ub)
{
	return ub && c->qs == 1 && c->ks == 1 && c->d &&
	       (u64)c->sk * c->d <= NPU_UB_BYTES / sizeof(float);
}

/*
 * Eight keys at a time: eight contiguous reads, one 8-float write per
 * element of the head (attn_keys_fit(): ks is 1).
 */
static void attn_transpose_keys(struct attn_ctx *c, const float *kp,
				float *ub)
{
	u64 sk = c->sk, d = c->d, krs = c->krs, j = 0, t;
	u32 i;

	for (; j + 8 <= sk; j += 8)
		for (t = 0; t < d; t++)
			for (i = 0; i < 8; i++)
				ub[t * sk + j + i] = kp[(j + i) * krs + t];
	for (; j < sk; j++)
		for (t = 0; t < d; t++)
			ub[t * sk + j] = kp[j * krs + t];
	c->kt = ub;
	c->ktrs = sk;
}

/* Unit @u (one query row): its query, keys, values, output, mask offset. */
static void attn_unit(const struct attn_ctx *c, const struct npu_op_args *args,
		      u64 u, struct attn_q *q, const float **kp,
		      const float **vp)
{
	u32 oc[DRM_NPU_MAX_RANK] = { 0 }, br = c->r - 2;
	int out = c->m ? 4 : 3;

	npu_unravel(u, c->o->shape, c->r - 1, oc);
	q->qr = (const float *)args->data[0] + npu_offset(oc, c->qb, br) +
		(u64)oc[br] * c->q->strides[c->q->rank - 2];
	*kp = (const float *)args->data[1] + npu_offset(oc, c->kb, br);
	*vp = (const float *)args->data[2] + npu_offset(oc, c->vb, br);
	q->y = (float *)args->data[out] + npu_offset32(oc, c->o->strides,
						       c->r - 1);
	q->mo = c->m ? npu_offset(oc, c->mb, c->r - 1) : 0;
}

int npu_run_attention(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	int has_mask = !!(t->params.attention.flags & DRM_NPU_ATTN_HAS_MASK);
	struct attn_ctx c = { 0 };
	struct drm_npu_operand sc;
	const float *kt_of = NULL;	/* whose keys the buffer holds */
	struct attn_q q[2];
	const void *mp;
	bool kt_ok, pair;
	u64 u;

	c.q = npu_opnd(t, 0);
	c.k = npu_opnd(t, 1);
	c.v = npu_opnd(t, 2);
	c.m = has_mask ? npu_opnd(t, 3) : NULL;
	c.o = npu_opnd(t, 3 + has_mask);
	c.r = c.o->rank;
	c.sk = c.k->shape[c.k->rank - 2];
	c.d = c.q->shape[c.q->rank - 1];
	c.dv = c.o->shape[c.r - 1];
	c.scale = npu_u2f(t->params.attention.scale);
	c.kern = npu_kern_get(args->isa);
	c.qs = c.q->strides[c.q->rank - 1];
	c.ks = c.k->strides[c.k->rank - 1];
	c.krs = c.k->strides[c.k->rank - 2];
	c.vs = c.v->strides[c.v->rank - 1];
	c.vrs = c.v->strides[c.v->rank - 2];
	c.ys = c.o->strides[c.r - 1];
	npu_bcast_strides(c.q, c.o, c.qb);
	npu_bcast_strides(c.k, c.o, c.kb);
	npu_bcast_strides(c.v, c.o, c.vb);
	if (c.m) {
		sc = *c.o;
		sc.shape[c.r - 1] = c.sk;
		npu_bcast_strides(c.m, &sc, c.mb);
	}
	mp = has_mask ? args->data[3] : NULL;
	kt_ok = attn_keys_fit(&c, args->ub);
	/* two rows' scores after the transposed keys: rows go in pairs */
	pair = kt_ok && c.vs == 1 && c.ys == 1 &&
	       ((u64)c.sk * c.d + 2 * ATTN_KB) * sizeof(float) <= NPU_UB_BYTES;
	for (u = begin; u < end; u++) {
		const float *kp, *vp, *kp2, *vp2;

		attn_unit(&c, args, u, &q[0], &kp, &vp);
		if (kt_ok && kp != kt_of) {
			attn_transpose_keys(&c, kp, args->ub);
			kt_of = kp;
		}
		if (pair && u + 1 < end) {
			attn_unit(&c, args, u + 1, &q[1], &kp2, &vp2);
			if (kp2 == kp && vp2 == vp) {
				q[0].sc = (float *)args->ub + (u64)c.sk * c.d;
				q[1].sc = q[0].sc + ATTN_KB;
				attn_row_pair(&c, q, kp, vp, mp);
				u++;
				continue;
			}
		}
		attn_row(&c, q[0].qr, kp, vp, mp, q[0].mo, q[0].y);
	}
	return 0;
}
