// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_transdata.c - TRANSDATA between NCHW [N, C, H, W] and NC1HWC0
 * [N, ceil(C / C0), H, W, C0], C0 = 16 for 2/4-byte and 32 for 1-byte
 * elements. Channels C..C1*C0-1 of an NC1HWC0 output are zero-filled.
 * Any 1/2/4-byte dtype (bytes are moved, not converted).
 * Work unit: one segment of an output row (npu_seg_of()).
 */
#include "npu_ops_internal.h"

int npu_run_transdata(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *out = npu_opnd(t, 1);
	u32 es = npu_dtype_size(in->dtype);
	const u8 *x = args->data[0];
	u8 *y = args->data[1];
	int to_5d = npu_is_nc1hwc0(out);
	struct npu_seg sg;
	u64 u, i;

	for (u = begin; u < end; u++) {
		u32 oc[DRM_NPU_MAX_RANK] = { 0 };
		u64 yo;

		npu_seg_of(u, out->shape[out->rank - 1], &sg);
		npu_unravel(sg.row, out->shape, out->rank - 1, oc);
		yo = npu_offset32(oc, out->strides, out->rank - 1);
		if (to_5d) {
			/* row: n, c1, h, w; runs over c0 (one segment) */
			u64 c0n = out->shape[4], C = in->shape[1];

			for (i = 0; i < c0n; i++) {
				/* C1 * C0 may pass 2^32: 64-bit channel */
				u64 c = oc[1] * c0n + i;
				u8 *dst = y + (yo + i * out->strides[4]) * es;

				if (c >= C) {
					memset(dst, 0, es);
					continue;
				}
				memcpy(dst, x + ((u64)oc[0] * in->strides[0] +
						 c * in->strides[1] +
						 (u64)oc[2] * in->strides[2] +
						 (u64)oc[3] * in->strides[3]) * es, es);
			}
		} else {
			/* row: n, c, h; a segment of w */
			u32 c0n = in->shape[4], c = oc[1];
			u64 so = (u64)oc[0] * in->strides[0] +
				 (u64)(c / c0n) * in->strides[1] +
				 (u64)oc[2] * in->strides[2] +
				 (u64)(c % c0n) * in->strides[4];

			for (i = sg.start; i < (u64)sg.start + sg.len; i++)
				memcpy(y + (yo + i * out->strides[3]) * es,
				       x + (so + i * in->strides[3]) * es, es);
		}
	}
	return 0;
}
