// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_attention.c - ATTENTION: out = softmax(scale * Q K^T [+ mask]) V,
 * batched over the leading dims (broadcast like MATMUL). The mask is
 * additive (F32) or boolean (BOOL: false masks the key out), broadcast to
 * [..., Sq, Sk]. A row whose keys are all masked gives NaN, as PyTorch.
 *
 * No scratch memory: each query row makes three passes over the keys
 * (row maximum, normaliser in double, weighted sum of V accumulated in the
 * output row), recomputing the dot products instead of storing them.
 * Work unit: one query row of one batch.
 */
#include "npu_ops_float.h"

struct attn_ctx {
	const struct drm_npu_operand *q, *k, *v, *m, *o;
	u64 qb[DRM_NPU_MAX_RANK], kb[DRM_NPU_MAX_RANK], vb[DRM_NPU_MAX_RANK];
	u64 mb[DRM_NPU_MAX_RANK];
	u32 r, sk, d, dv;
	float scale;
};

static float score(const struct attn_ctx *c, const float *qr, const float *kp,
		   const void *mp, u64 mo, u32 j)
{
	const float *kr = kp + (u64)j * c->k->strides[c->k->rank - 2];
	u64 ks = c->k->strides[c->k->rank - 1];
	u64 qs = c->q->strides[c->q->rank - 1];
	float s = 0;
	u32 t;

	for (t = 0; t < c->d; t++)
		s += qr[t * qs] * kr[t * ks];
	s *= c->scale;
	if (c->m) {
		u64 mi = mo + (u64)j * c->mb[c->r - 1];

		if (c->m->dtype == DRM_NPU_DTYPE_BOOL)
			s = ((const u8 *)mp)[mi] ? s : -NPU_INFF;
		else
			s += ((const float *)mp)[mi];
	}
	return s;
}

int npu_run_attention(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	int has_mask = !!(t->params.attention.flags & DRM_NPU_ATTN_HAS_MASK);
	struct attn_ctx c = { 0 };
	struct drm_npu_operand sc;
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
	npu_bcast_strides(c.q, c.o, c.qb);
	npu_bcast_strides(c.k, c.o, c.kb);
	npu_bcast_strides(c.v, c.o, c.vb);
	if (c.m) {
		sc = *c.o;
		sc.shape[c.r - 1] = c.sk;
		npu_bcast_strides(c.m, &sc, c.mb);
	}
	for (u = begin; u < end; u++) {
		u32 oc[DRM_NPU_MAX_RANK] = { 0 }, br = c.r - 2, j, e;
		const float *qr, *kp, *vp;
		const void *mp = has_mask ? args->data[3] : NULL;
		float *y, mx = -NPU_INFF;
		u64 mo = 0, ys = c.o->strides[c.r - 1];
		u64 vs = c.v->strides[c.v->rank - 1];
		double sum = 0;

		npu_unravel(u, c.o->shape, c.r - 1, oc);
		qr = (const float *)args->data[0] + npu_offset(oc, c.qb, br) +
		     (u64)oc[br] * c.q->strides[c.q->rank - 2];
		kp = (const float *)args->data[1] + npu_offset(oc, c.kb, br);
		vp = (const float *)args->data[2] + npu_offset(oc, c.vb, br);
		y = (float *)args->data[3 + has_mask] +
		    npu_offset32(oc, c.o->strides, c.r - 1);
		if (c.m)
			mo = npu_offset(oc, c.mb, c.r - 1);
		for (j = 0; j < c.sk; j++) {
			float s = score(&c, qr, kp, mp, mo, j);

			if (s > mx || s != s)
				mx = (s != s || mx != mx) ? NPU_NANF : s;
		}
		for (j = 0; j < c.sk; j++)
			sum += npu_exp_d((double)score(&c, qr, kp, mp, mo, j) - mx);
		for (e = 0; e < c.dv; e++)
			y[e * ys] = 0.0f;
		for (j = 0; j < c.sk; j++) {
			float pj = (float)(npu_exp_d((double)score(&c, qr, kp, mp,
								   mo, j) - mx) / sum);
			const float *vr = vp + (u64)j * c.v->strides[c.v->rank - 2];

			for (e = 0; e < c.dv; e++)
				y[e * ys] += pj * vr[e * vs];
		}
	}
	return 0;
}
