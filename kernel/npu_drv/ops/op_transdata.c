// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_transdata.c - TRANSDATA between NCHW [N, C, H, W] and NC1HWC0
 * [N, ceil(C / C0), H, W, C0], C0 = 16 for 2/4-byte and 32 for 1-byte
 * elements. Channels C..C1*C0-1 of an NC1HWC0 output are zero-filled.
 * Any 1/2/4-byte dtype (bytes are moved, not converted).
 * Work unit: one segment of an output row (npu_seg_of()).
 */
#include "npu_ops_internal.h"

/*
 * @n elements of @es bytes, @ds and @ss elements apart (NULL src: zeros).
 * Moves of a constant size (memcpy of 2 or 4 bytes is one load and one
 * store, at any alignment): no call per element.
 */
static void copy_strided(u8 *d, u64 ds, const u8 *src, u64 ss, u64 n, u32 es)
{
	u64 i;

	static const u32 zero;

	if (!src) {		/* zeros: the same walk over one zero element */
		src = (const u8 *)&zero;
		ss = 0;
	}
	switch (es) {
	case 1:
		for (i = 0; i < n; i++)
			d[i * ds] = src[i * ss];
		break;
	case 2:
		for (i = 0; i < n; i++)
			memcpy(d + 2 * i * ds, src + 2 * i * ss, 2);
		break;
	case 4:
		for (i = 0; i < n; i++)
			memcpy(d + 4 * i * ds, src + 4 * i * ss, 4);
		break;
	default:
		for (i = 0; i < n; i++)
			memcpy(d + i * ds * es, src + i * ss * es, es);
	}
}

int npu_run_transdata(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *out = npu_opnd(t, 1);
	u32 es = npu_dtype_size(in->dtype);
	const u8 *x = args->data[0];
	u8 *y = args->data[1];
	int to_5d = npu_is_nc1hwc0(out);
	struct npu_seg sg;
	u64 u, i, run;

	for (u = begin; u < end; u += run) {
		u32 oc[DRM_NPU_MAX_RANK] = { 0 };
		u64 yo;

		run = 1;
		npu_seg_of(u, out->shape[out->rank - 1], &sg);
		npu_unravel(sg.row, out->shape, out->rank - 1, oc);
		yo = npu_offset32(oc, out->strides, out->rank - 1);
		if (to_5d) {
			/*
			 * row: n, c1, h, w; runs over c0 (C0 <= NPU_ROW_SEG:
			 * one segment, a unit is a row). The units up to the
			 * end of this w row go together, channel by channel.
			 */
			u64 c0n = out->shape[4], C = in->shape[1];

			bool pad_run;

			run = out->shape[3] - oc[3];
			if (run > end - u)
				run = end - u;
			/*
			 * Dense pixels of a block with padding channels: one
			 * memset zeroes the run, then only the real channels
			 * are copied (not a strided pass per zero channel).
			 */
			pad_run = out->strides[4] == 1 &&
				  out->strides[3] == c0n &&
				  (u64)oc[1] * c0n + c0n > C;
			if (pad_run)
				memset(y + yo * es, 0, run * c0n * es);
			for (i = 0; i < c0n; i++) {
				/* C1 * C0 may pass 2^32: 64-bit channel */
				u64 c = oc[1] * c0n + i;
				u8 *dst = y + (yo + i * out->strides[4]) * es;

				if (pad_run && c >= C)
					break;
				copy_strided(dst, out->strides[3], c >= C ? NULL :
					     x + ((u64)oc[0] * in->strides[0] +
						  c * in->strides[1] +
						  (u64)oc[2] * in->strides[2] +
						  (u64)oc[3] * in->strides[3]) *
					     es, in->strides[3], run, es);
			}
		} else {
			/* row: n, c, h; a segment of w */
			u32 c0n = in->shape[4], c = oc[1];
			u64 so = (u64)oc[0] * in->strides[0] +
				 (u64)(c / c0n) * in->strides[1] +
				 (u64)oc[2] * in->strides[2] +
				 (u64)(c % c0n) * in->strides[4];

			copy_strided(y + (yo + (u64)sg.start *
					  out->strides[3]) * es,
				     out->strides[3],
				     x + (so + (u64)sg.start * in->strides[3]) *
				     es, in->strides[3], sg.len, es);
		}
	}
	return 0;
}
