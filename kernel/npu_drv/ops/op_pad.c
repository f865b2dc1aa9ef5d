// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_pad.c - PAD (ONNX Pad, non-negative pads): out = in padded by
 * before[d] in front of each dim and out[d] - in[d] - before[d] behind it.
 * CONSTANT writes value (fp32 bits converted to the dtype: float->int
 * truncates and saturates), REFLECT mirrors without repeating the edge
 * (numpy 'reflect'), EDGE repeats the border element. Any dtype.
 * Work unit: one output row.
 */
#include "npu_ops_float.h"

/* Source index of output index @o along a dim, or -1 for the constant. */
static s64 src_index(u32 mode, s64 o, u32 before, u32 n)
{
	s64 s = o - (s64)before;

	if (s >= 0 && s < (s64)n)
		return s;
	switch (mode) {
	case DRM_NPU_PAD_REFLECT:
		/* checked: pads < n, so one reflection suffices */
		return s < 0 ? -s : 2 * ((s64)n - 1) - s;
	case DRM_NPU_PAD_EDGE:
		return s < 0 ? 0 : (s64)n - 1;
	default:
		return -1;
	}
}

static void const_bytes(u32 dt, u32 bits, u8 *buf)
{
	float f = npu_u2f(bits);

	switch (dt) {
	case DRM_NPU_DTYPE_F32:
	case DRM_NPU_DTYPE_F16:
		npu_st_f(dt, buf, 0, f);
		break;
	case DRM_NPU_DTYPE_BOOL:
		buf[0] = f != 0;
		break;
	case DRM_NPU_DTYPE_I8:
		npu_st_i(dt, buf, 0, npu_f2i_sat(f, -128, 127));
		break;
	case DRM_NPU_DTYPE_U8:
		npu_st_i(dt, buf, 0, npu_f2i_sat(f, 0, 255));
		break;
	case DRM_NPU_DTYPE_I32:
		npu_st_i(dt, buf, 0, npu_f2i_sat(f, -0x7fffffffll - 1,
						 0x7fffffffll));
		break;
	default:
		npu_st_i(dt, buf, 0, npu_f2i_sat(f, -0x7fffffffffffffffll - 1,
						 0x7fffffffffffffffll));
	}
}

int npu_run_pad(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_pad_params *p = &t->params.padding;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *out = npu_opnd(t, 1);
	u32 es = npu_dtype_size(in->dtype), r = out->rank, last, d;
	const u8 *x = args->data[0];
	u8 *y = args->data[1], cval[8];
	struct npu_seg sg;
	u64 u, i;

	const_bytes(in->dtype, p->value, cval);
	last = r ? r - 1 : 0;
	for (u = begin; u < end; u++) {
		u32 oc[DRM_NPU_MAX_RANK] = { 0 };
		u64 so = 0, yo = 0;
		int outside = 0;

		npu_seg_of(u, r ? out->shape[last] : 1, &sg);
		npu_unravel(sg.row, out->shape, last, oc);
		for (d = 0; d < last; d++) {
			s64 s = src_index(p->mode, oc[d], p->before[d],
					  in->shape[d]);

			if (s < 0)
				outside = 1;
			else
				so += (u64)s * in->strides[d];
			yo += (u64)oc[d] * out->strides[d];
		}
		if (!r) {
			memcpy(y, x, es);
			continue;
		}
		for (i = sg.start; i < (u64)sg.start + sg.len; i++) {
			s64 s = src_index(p->mode, (s64)i, p->before[last],
					  in->shape[last]);
			u8 *dst = y + (yo + i * out->strides[last]) * es;

			if (outside || s < 0)
				memcpy(dst, cval, es);
			else
				memcpy(dst, x + (so + (u64)s * in->strides[last]) *
				       es, es);
		}
	}
	return 0;
}
