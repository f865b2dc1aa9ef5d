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

/*
 * The reduced dims of one output element: the innermost is a run (@run
 * elements @run_st apart) that the kernels walk in a plain loop; the
 * others (@n of them, outermost first) step an odometer between runs.
 * Extent-1 dims are left out and a dim that continues the next one's run
 * (stride = inner stride * inner extent) is merged into it, so the order
 * of the elements, and with it every sum's bits, is the odometer's over
 * all reduced dims, innermost fastest.
 */
struct red_dims {
	u32 n;
	u64 ext[DRM_NPU_MAX_RANK];
	u64 st[DRM_NPU_MAX_RANK];
	u64 run, run_st;
	u64 count;
};

static void red_dims_init(struct red_dims *rd,
			  const struct drm_npu_operand *in, u32 axes)
{
	u32 d;

	rd->n = 0;
	rd->run = 1;
	rd->run_st = 0;
	rd->count = 1;
	for (d = 0; d < in->rank; d++) {
		if (!((axes >> d) & 1) || in->shape[d] == 1)
			continue;
		rd->count *= in->shape[d];
		if (rd->run > 1 &&
		    rd->run_st == (u64)in->strides[d] * in->shape[d]) {
			rd->run *= in->shape[d];	/* continues this run */
			rd->run_st = in->strides[d];
			continue;
		}
		if (rd->run > 1) {
			rd->ext[rd->n] = rd->run;
			rd->st[rd->n] = rd->run_st;
			rd->n++;
		}
		rd->run = in->shape[d];
		rd->run_st = in->strides[d];
	}
}

/*
 * Move @off to the start of the next run: an odometer over the outer
 * reduced dims, innermost fastest. Returns false after the last run.
 */
static bool red_next_run(const struct red_dims *rd, u64 *idx, u64 *off)
{
	u32 d;

	for (d = rd->n; d-- > 0;) {
		*off += rd->st[d];
		if (++idx[d] < rd->ext[d])
			return true;
		*off -= rd->st[d] * rd->ext[d];
		idx[d] = 0;
	}
	return false;
}

/* One run of F32 values into @acc; the kind is chosen outside the loop. */
static double red_run_f(u32 kind, const float *x, u64 n, u64 st, double acc)
{
	u64 j, o = 0;

	switch (kind) {
	case DRM_NPU_REDUCE_SUM:
	case DRM_NPU_REDUCE_MEAN:
		for (j = 0; j < n; j++, o += st)
			acc += (double)x[o];
		break;
	case DRM_NPU_REDUCE_SUM_SQUARE:
		for (j = 0; j < n; j++, o += st)
			acc += (double)x[o] * (double)x[o];
		break;
	case DRM_NPU_REDUCE_PROD:
		for (j = 0; j < n; j++, o += st)
			acc *= (double)x[o];
		break;
	case DRM_NPU_REDUCE_MAX:
		for (j = 0; j < n; j++, o += st) {
			double v = x[o];

			if (v > acc || v != v)
				acc = (acc != acc) ? acc : v;
		}
		break;
	default:
		for (j = 0; j < n; j++, o += st) {
			double v = x[o];

			if (v < acc || v != v)
				acc = (acc != acc) ? acc : v;
		}
	}
	return acc;
}

static double red_float(u32 kind, const float *x, const struct red_dims *rd)
{
	u64 idx[DRM_NPU_MAX_RANK] = { 0 };
	double acc;
	u64 off = 0;

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
	if (rd->count) {
		do
			acc = red_run_f(kind, x + off, rd->run, rd->run_st, acc);
		while (red_next_run(rd, idx, &off));
	}
	if (kind == DRM_NPU_REDUCE_MEAN)
		acc = acc / (double)rd->count;
	return acc;
}

/* One run of I32 or I64 values: red_run_i32() and red_run_i64(). */
#define RED_T		s32
#define RED_RUN		red_run_i32
#include "op_reduce_int_tmpl.h"
#undef RED_T
#undef RED_RUN
#define RED_T		s64
#define RED_RUN		red_run_i64
#include "op_reduce_int_tmpl.h"
#undef RED_T
#undef RED_RUN

static s64 red_int(u32 kind, u32 dt, const void *x, const struct red_dims *rd)
{
	u64 idx[DRM_NPU_MAX_RANK] = { 0 };
	s64 lo = dt == DRM_NPU_DTYPE_I32 ? -0x7fffffffll - 1 :
					   -0x7fffffffffffffffll - 1;
	s64 hi = dt == DRM_NPU_DTYPE_I32 ? 0x7fffffffll : 0x7fffffffffffffffll;
	u64 acc, off = 0;

	acc = kind == DRM_NPU_REDUCE_PROD ? 1 :
	      kind == DRM_NPU_REDUCE_MAX ? (u64)lo :
	      kind == DRM_NPU_REDUCE_MIN ? (u64)hi : 0;
	if (rd->count) {
		do
			acc = dt == DRM_NPU_DTYPE_I32 ?
			      red_run_i32(kind, (const s32 *)x + off, rd->run,
					  rd->run_st, acc) :
			      red_run_i64(kind, (const s64 *)x + off, rd->run,
					  rd->run_st, acc);
		while (red_next_run(rd, idx, &off));
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
	u32 coord[DRM_NPU_MAX_RANK] = { 0 }, dt = in->dtype;
	u32 es = npu_dtype_size(dt);
	struct red_dims rd;
	u64 u;

	red_dims_init(&rd, in, axes);
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
