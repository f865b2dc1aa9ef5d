// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_gather.c - GATHER (ONNX Gather): out[i.., j.., k..] =
 * data[i.., idx[j..], k..] along @axis. Indices are I32 or I64; negative
 * ones count from the end; anything outside [-d, d) stops the task with
 * DRM_NPU_FAULT_BAD_INDEX. Any dtype (elements are moved, not converted).
 * Work unit: one (outer index, index element) pair: a data[axis] slice.
 */
#include "npu_ops_internal.h"

int npu_run_gather(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *d = npu_opnd(t, 0), *ix = npu_opnd(t, 1);
	const struct drm_npu_operand *o = npu_opnd(t, 2);
	u32 axis = t->params.gather.axis, q = ix->rank;
	u32 es = npu_dtype_size(d->dtype), post_nd = d->rank - axis - 1;
	u64 nidx = npu_numel(ix), dim = d->shape[axis], u;
	u64 dst_st[DRM_NPU_MAX_RANK], src_st[DRM_NPU_MAX_RANK];
	u32 post_shape[DRM_NPU_MAX_RANK], i;

	for (i = 0; i < post_nd; i++) {
		post_shape[i] = d->shape[axis + 1 + i];
		src_st[i] = d->strides[axis + 1 + i];
		dst_st[i] = o->strides[axis + q + i];
	}
	for (u = begin; u < end; u++) {
		u32 pc[DRM_NPU_MAX_RANK] = { 0 }, jc[DRM_NPU_MAX_RANK] = { 0 };
		u64 pre = u / nidx, j = u % nidx, io, so, dof;
		s64 v;

		npu_unravel(pre, d->shape, axis, pc);
		npu_unravel(j, ix->shape, q, jc);
		io = 0;
		for (i = 0; i < q; i++)
			io += (u64)jc[i] * ix->strides[i];
		v = ix->dtype == DRM_NPU_DTYPE_I32 ?
			((const s32 *)args->data[1])[io] :
			((const s64 *)args->data[1])[io];
		if (v < 0)
			v += (s64)dim;
		if (v < 0 || (u64)v >= dim)
			return DRM_NPU_FAULT_BAD_INDEX;
		so = (u64)v * d->strides[axis];
		dof = 0;
		for (i = 0; i < axis; i++) {
			so += (u64)pc[i] * d->strides[i];
			dof += (u64)pc[i] * o->strides[i];
		}
		for (i = 0; i < q; i++)
			dof += (u64)jc[i] * o->strides[axis + i];
		npu_copy_block((u8 *)args->data[2] + dof * es, dst_st,
			       (const u8 *)args->data[0] + so * es, src_st,
			       post_shape, post_nd, es);
	}
	return 0;
}
