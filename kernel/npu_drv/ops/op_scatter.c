// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_scatter.c - SCATTER: write updates into out at the positions given by
 * indices (ONNX ScatterND; ScatterElements with DRM_NPU_SCATTER_ELEMENTS),
 * replacing or reducing (add, mul, max, min) what is there. out already
 * holds the data (a COPY task before this one).
 *
 *   ND        indices [M.., k], updates [M.., out.shape[k:]]:
 *             out[idx[m], ...] (op)= updates[m, ...]
 *   ELEMENTS  indices and updates of one shape, each dim (but the axis) at
 *             most out's: out[c with c[axis] = idx[c]] (op)= updates[c]
 *
 * Negative indices count from the end; anything outside [-d, d) stops the
 * task with DRM_NPU_FAULT_BAD_INDEX. The task is one work unit, walked in
 * the order of the updates, so duplicate indices apply in that order on
 * every run and every machine.
 */
#include "npu_ops_float.h"

static void sc_apply(u32 dt, u32 red, u8 *o, const u8 *u)
{
	if (red == DRM_NPU_SCATTER_NONE) {
		memcpy(o, u, npu_dtype_size(dt));
		return;
	}
	switch (dt) {
	case DRM_NPU_DTYPE_F32: {
		float a, b;

		memcpy(&a, o, 4);
		memcpy(&b, u, 4);
		a = red == DRM_NPU_SCATTER_ADD ? a + b :
		    red == DRM_NPU_SCATTER_MUL ? a * b :
		    red == DRM_NPU_SCATTER_MAX ? (b > a || b != b ? b : a) :
		    (b < a || b != b ? b : a);
		memcpy(o, &a, 4);
		break;
	}
	case DRM_NPU_DTYPE_I32: {
		s32 a, b;

		memcpy(&a, o, 4);
		memcpy(&b, u, 4);
		a = red == DRM_NPU_SCATTER_ADD ? (s32)((u32)a + (u32)b) :
		    red == DRM_NPU_SCATTER_MUL ? (s32)((u32)a * (u32)b) :
		    red == DRM_NPU_SCATTER_MAX ? (b > a ? b : a) :
		    (b < a ? b : a);
		memcpy(o, &a, 4);
		break;
	}
	default: {
		s64 a, b;

		memcpy(&a, o, 8);
		memcpy(&b, u, 8);
		a = red == DRM_NPU_SCATTER_ADD ? (s64)((u64)a + (u64)b) :
		    red == DRM_NPU_SCATTER_MUL ? (s64)((u64)a * (u64)b) :
		    red == DRM_NPU_SCATTER_MAX ? (b > a ? b : a) :
		    (b < a ? b : a);
		memcpy(o, &a, 8);
		break;
	}
	}
}

/* Index element @off of @ix, checked against @dim; < 0 when outside. */
static s64 sc_index(const struct drm_npu_operand *ix, const void *d, u64 off,
		    u64 dim)
{
	s64 v = ix->dtype == DRM_NPU_DTYPE_I32 ? ((const s32 *)d)[off] :
						 ((const s64 *)d)[off];

	if (v < 0)
		v += (s64)dim;
	if (v < 0 || (u64)v >= dim)
		return -1;
	return v;
}

int npu_run_scatter(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_scatter_params *p = &t->params.scatter;
	const struct drm_npu_operand *ix = npu_opnd(t, 0), *up = npu_opnd(t, 1);
	const struct drm_npu_operand *o = npu_opnd(t, 2);
	u32 es = npu_dtype_size(o->dtype), dt = o->dtype, red = p->reduce;
	const u8 *ud = args->data[1];
	u8 *od = args->data[2];
	u64 e, n = npu_numel(up);
	u32 i;

	if (begin > 0 || end < 1)
		return 0;
	if (p->flags & DRM_NPU_SCATTER_ELEMENTS) {
		for (e = 0; e < n; e++) {
			u32 c[DRM_NPU_MAX_RANK] = { 0 };
			u64 oo = 0;
			s64 v;

			npu_unravel(e, up->shape, up->rank, c);
			v = sc_index(ix, args->data[0],
				     npu_offset32(c, ix->strides, ix->rank),
				     o->shape[p->axis]);
			if (v < 0)
				return DRM_NPU_FAULT_BAD_INDEX;
			for (i = 0; i < o->rank; i++)
				oo += (i == p->axis ? (u64)v : c[i]) *
				      (u64)o->strides[i];
			sc_apply(dt, red, od + oo * es,
				 ud + npu_offset32(c, up->strides, up->rank) *
				 es);
		}
		return 0;
	}
	{
		u32 q = ix->rank, k = ix->shape[q - 1], nd = o->rank - k;
		u64 rows = npu_dims_prod(ix, 0, q - 1), slice = 1, r;

		for (i = 0; i < nd; i++)
			slice *= o->shape[k + i];
		for (r = 0; r < rows; r++) {
			u32 c[DRM_NPU_MAX_RANK] = { 0 };
			u64 io, ob = 0, ub;

			npu_unravel(r, ix->shape, q - 1, c);
			io = npu_offset32(c, ix->strides, q - 1);
			ub = npu_offset32(c, up->strides, q - 1);
			for (i = 0; i < k; i++) {
				s64 v = sc_index(ix, args->data[0],
						 io + (u64)i * ix->strides[q - 1],
						 o->shape[i]);

				if (v < 0)
					return DRM_NPU_FAULT_BAD_INDEX;
				ob += (u64)v * o->strides[i];
			}
			for (e = 0; e < slice; e++) {
				u32 c2[DRM_NPU_MAX_RANK] = { 0 };

				npu_unravel(e, &o->shape[k], nd, c2);
				sc_apply(dt, red,
					 od + (ob + npu_offset32(c2,
						&o->strides[k], nd)) * es,
					 ud + (ub + npu_offset32(c2,
						&up->strides[q - 1], nd)) * es);
			}
		}
	}
	return 0;
}
