// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_topk.c - TOPK: the indices of the k largest (DRM_NPU_TOPK_LARGEST)
 * or smallest elements of every line of the input along an axis, best
 * first; of equal values the lower index comes first (ONNX TopK). F32, I32
 * or I64 input, I64 indices.
 *
 * No scratch memory: the output line itself holds the best indices found
 * so far, in order; each element of the line is placed by insertion (k
 * compares at most), so a line costs n * (k + 1) operations. NaN compares
 * false both ways: it never displaces a number, and is kept only while
 * the output line has room (after every number seen before it).
 * Work unit: one line.
 */
#include "npu_ops_float.h"

struct topk_line {
	const void *in;
	u32 dt;
	u64 is;			/* element stride along the axis */
	s64 *out;
	u64 os;
	int largest;
};

/* Is element a strictly better than element b (values at a, b)? */
static int topk_better(const struct topk_line *l, u64 a, u64 b)
{
	switch (l->dt) {
	case DRM_NPU_DTYPE_F32: {
		float x = ((const float *)l->in)[a * l->is];
		float y = ((const float *)l->in)[b * l->is];

		return l->largest ? x > y : x < y;
	}
	case DRM_NPU_DTYPE_I32: {
		s32 x = ((const s32 *)l->in)[a * l->is];
		s32 y = ((const s32 *)l->in)[b * l->is];

		return l->largest ? x > y : x < y;
	}
	default: {
		s64 x = ((const s64 *)l->in)[a * l->is];
		s64 y = ((const s64 *)l->in)[b * l->is];

		return l->largest ? x > y : x < y;
	}
	}
}

static void topk_one(const struct topk_line *l, u64 n, u64 k)
{
	u64 have = 0, i, j;

	for (i = 0; i < n; i++) {
		/* after every kept element that is not worse than i */
		j = have;
		while (j > 0 && topk_better(l, i, (u64)l->out[(j - 1) * l->os]))
			j--;
		if (j >= k)
			continue;
		if (have < k)
			have++;
		for (u64 m = have - 1; m > j; m--)
			l->out[m * l->os] = l->out[(m - 1) * l->os];
		l->out[j * l->os] = (s64)i;
	}
}

int npu_run_topk(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_topk_params *p = &t->params.topk;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *o = npu_opnd(t, 1);
	u32 ax = p->axis, es = npu_dtype_size(in->dtype);
	u32 shape[DRM_NPU_MAX_RANK], i, r = o->rank;
	u64 n = in->shape[ax], u;
	struct topk_line l;

	/* the lines: every output coordinate with 0 along the axis */
	for (i = 0; i < r; i++)
		shape[i] = i == ax ? 1 : o->shape[i];
	l.dt = in->dtype;
	l.is = in->strides[ax];
	l.os = o->strides[ax];
	l.largest = !!(p->flags & DRM_NPU_TOPK_LARGEST);
	for (u = begin; u < end; u++) {
		u32 c[DRM_NPU_MAX_RANK] = { 0 };

		npu_unravel(u, shape, r, c);
		l.in = (const u8 *)args->data[0] +
		       npu_offset32(c, in->strides, r) * es;
		l.out = (s64 *)args->data[1] + npu_offset32(c, o->strides, r);
		topk_one(&l, n, p->k);
	}
	return 0;
}
