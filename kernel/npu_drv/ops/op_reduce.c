// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_reduce.c - REDUCE over the dimensions of an axes mask (keepdims: the
 * reduced dims have extent 1 in the output). F32 accumulates in double;
 * I32/I64 in 64-bit integers (wrapping). Empty reductions give the
 * identity: sum 0, prod 1, max -inf, min +inf (integer: type limits).
 * MAX/MIN propagate NaN. MEAN of an empty set is NaN (0/0), as numpy.
 * Work unit: one output element.
 */
#include "npu_ops_float.h"

struct red_dims {
	u32 n, ext[DRM_NPU_MAX_RANK];
	u64 st[DRM_NPU_MAX_RANK];
	u64 count;
};

/*
 * The element after @off: an odometer over the reduced dims, innermost
 * fastest; @idx holds the position in each.
 */
static inline u64 red_next(const struct red_dims *rd, u32 *idx, u64 off)
{
	u32 d;

	for (d = rd->n; d-- > 0;) {
		off += rd->st[d];
		if (++idx[d] < rd->ext[d])
			break;
		off -= rd->st[d] * rd->ext[d];
		idx[d] = 0;
	}
	return off;
}

static double red_float(u32 kind, const float *x, const struct red_dims *rd)
{
	u32 idx[DRM_NPU_MAX_RANK] = { 0 };
	double acc;
	u64 i, off = 0;

	switch (kind) {
	case DRM_NPU_REDUCE_PROD:
		acc = 1.0;
		break;
	case DRM_NPU_REDUCE_MAX:
		acc = -(double)NPU_INFF;
		break;
	case DRM_NPU_REDUCE_MIN:
		acc = (double)NPU_INFF;
		break;
	default:
		acc = 0.0;
	}
	for (i = 0; i < rd->count; i++) {
		double v = x[off];

		switch (kind) {
		case DRM_NPU_REDUCE_SUM:
		case DRM_NPU_REDUCE_MEAN:
			acc += v;
			break;
		case DRM_NPU_REDUCE_SUM_SQUARE:
			acc += v * v;
			break;
		case DRM_NPU_REDUCE_PROD:
			acc *= v;
			break;
		case DRM_NPU_REDUCE_MAX:
			if (v > acc || v != v)
				acc = (acc != acc) ? acc : v;
			break;
		default:
			if (v < acc || v != v)
				acc = (acc != acc) ? acc : v;
		}
		off = red_next(rd, idx, off);
	}
	if (kind == DRM_NPU_REDUCE_MEAN)
		acc = acc / (double)rd->count;
	return acc;
}

static s64 red_int(u32 kind, u32 dt, const void *x, const struct red_dims *rd)
{
	u32 idx[DRM_NPU_MAX_RANK] = { 0 };
	s64 lo = dt == DRM_NPU_DTYPE_I32 ? -0x7fffffffll - 1 :
					   -0x7fffffffffffffffll - 1;
	s64 hi = dt == DRM_NPU_DTYPE_I32 ? 0x7fffffffll : 0x7fffffffffffffffll;
	u64 acc, i, off = 0;

	acc = kind == DRM_NPU_REDUCE_PROD ? 1 :
	      kind == DRM_NPU_REDUCE_MAX ? (u64)lo :
	      kind == DRM_NPU_REDUCE_MIN ? (u64)hi : 0;
	for (i = 0; i < rd->count; i++) {
		s64 v = npu_ld_i(dt, x, off);

		switch (kind) {
		case DRM_NPU_REDUCE_SUM:
		case DRM_NPU_REDUCE_MEAN:
			acc += (u64)v;
			break;
		case DRM_NPU_REDUCE_SUM_SQUARE:
			acc += (u64)v * (u64)v;
			break;
		case DRM_NPU_REDUCE_PROD:
			acc *= (u64)v;
			break;
		case DRM_NPU_REDUCE_MAX:
			if (v > (s64)acc)
				acc = (u64)v;
			break;
		default:
			if (v < (s64)acc)
				acc = (u64)v;
		}
		off = red_next(rd, idx, off);
	}
	if (kind == DRM_NPU_REDUCE_MEAN)
		return rd->count ? (s64)acc / (s64)rd->count : 0;
	return (s64)acc;
}

int npu_run_reduce(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *out = npu_opnd(t, 1);
	u32 axes = t->params.reduce.axes, kind = t->params.reduce.kind;
	u32 coord[DRM_NPU_MAX_RANK] = { 0 }, d, dt = in->dtype;
	u32 es = npu_dtype_size(dt);
	struct red_dims rd = { .count = 1 };
	u64 u;

	for (d = 0; d < in->rank; d++) {
		if (!((axes >> d) & 1))
			continue;
		rd.ext[rd.n] = in->shape[d];
		rd.st[rd.n] = in->strides[d];
		rd.count *= in->shape[d];
		rd.n++;
	}
	for (u = begin; u < end; u++) {
		u64 xo, yo;

		npu_unravel(u, out->shape, out->rank, coord);
		xo = npu_offset32(coord, in->strides, in->rank);
		yo = npu_offset32(coord, out->strides, out->rank);
		if (dt == DRM_NPU_DTYPE_F32)
			((float *)args->data[1])[yo] = (float)red_float(kind,
				(const float *)args->data[0] + xo, &rd);
		else
			npu_st_i(dt, args->data[1], yo,
				 red_int(kind, dt,
					 (const u8 *)args->data[0] + xo * es,
					 &rd));
	}
	return 0;
}
