// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_resize.c - RESIZE (ONNX Resize, opset 13+): nearest (any dtype, four
 * rounding modes) or N-linear (F32) over every dimension, with the
 * half_pixel, pytorch_half_pixel, asymmetric and align_corners coordinate
 * transforms. scale[d] (fp32 bits) is the ONNX scale; 0 means out/in.
 * Linear sources are clamped to [0, in - 1] (ONNX and PyTorch agree).
 * Work unit: one output row.
 */
#include "npu_ops_float.h"

struct rs_dim {
	u32 in, out;
	double scale;
	double len;	/* ONNX output_width: in * scale (not rounded) */
};

static double src_coord(u32 coord, const struct rs_dim *d, double x)
{
	switch (coord) {
	case DRM_NPU_RESIZE_ASYMMETRIC:
		return x / d->scale;
	case DRM_NPU_RESIZE_ALIGN_CORNERS:
		return d->len == 1.0 ? 0.0 :
		       x * (double)(d->in - 1) / (d->len - 1.0);
	case DRM_NPU_RESIZE_PYTORCH_HALF_PIXEL:
		return d->len == 1.0 ? -0.5 : (x + 0.5) / d->scale - 0.5;
	default:
		return (x + 0.5) / d->scale - 0.5;
	}
}

static u32 nearest_index(u32 mode, double x, u32 n)
{
	double f = npu_floor_d(x), r;

	switch (mode) {
	case DRM_NPU_RESIZE_ROUND_PREFER_CEIL:
		r = npu_floor_d(x + 0.5);
		break;
	case DRM_NPU_RESIZE_FLOOR:
		r = f;
		break;
	case DRM_NPU_RESIZE_CEIL:
		r = f == x ? x : f + 1.0;
		break;
	default:	/* round_prefer_floor: halves go down */
		r = (x - f == 0.5) ? f : npu_floor_d(x + 0.5);
	}
	if (r < 0)
		return 0;
	if (r > (double)n - 1)
		return n - 1;
	return (u32)r;
}

/* Linear: lower index, upper index and upper weight. */
static void linear_taps(double x, u32 n, u32 *i0, u32 *i1, double *w1)
{
	double f;

	if (x < 0)
		x = 0;
	if (x > (double)n - 1)
		x = (double)n - 1;
	f = npu_floor_d(x);
	*i0 = (u32)f;
	*i1 = *i0 + 1 < n ? *i0 + 1 : *i0;
	*w1 = x - f;
}

int npu_run_resize(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_resize_params *p = &t->params.resize;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *out = npu_opnd(t, 1);
	u32 r = out->rank, es = npu_dtype_size(in->dtype), d, last;
	struct rs_dim dims[DRM_NPU_MAX_RANK];
	struct npu_seg sg;
	u64 u, i;

	for (d = 0; d < r; d++) {
		dims[d].in = in->shape[d];
		dims[d].out = out->shape[d];
		dims[d].scale = p->scale[d] ? (double)npu_u2f(p->scale[d]) :
			(double)out->shape[d] / (double)in->shape[d];
		dims[d].len = p->scale[d] ? dims[d].scale * in->shape[d] :
			(double)out->shape[d];
	}
	last = r ? r - 1 : 0;
	for (u = begin; u < end; u++) {
		u32 oc[DRM_NPU_MAX_RANK] = { 0 };
		u32 i0[DRM_NPU_MAX_RANK], i1[DRM_NPU_MAX_RANK];
		double w1[DRM_NPU_MAX_RANK];
		u64 yo = 0;

		npu_seg_of(u, r ? out->shape[last] : 1, &sg);
		npu_unravel(sg.row, out->shape, last, oc);
		for (d = 0; d < last; d++)
			yo += (u64)oc[d] * out->strides[d];
		for (i = sg.start; i < (u64)sg.start + sg.len; i++) {
			u64 so = 0, yi = yo + (r ? i * out->strides[last] : 0);
			u32 act[DRM_NPU_MAX_RANK], na = 0, k;
			double acc = 0;

			if (r)
				oc[last] = (u32)i;	/* < out->shape[last] */
			for (d = 0; d < r; d++) {
				double x = src_coord(p->coord, &dims[d], oc[d]);

				if (p->mode == DRM_NPU_RESIZE_NEAREST) {
					i0[d] = nearest_index(p->nearest, x, dims[d].in);
					so += (u64)i0[d] * in->strides[d];
					continue;
				}
				linear_taps(x, dims[d].in, &i0[d], &i1[d], &w1[d]);
				if (w1[d] != 0)
					act[na++] = d;
			}
			if (p->mode == DRM_NPU_RESIZE_NEAREST) {
				memcpy((u8 *)args->data[1] + yi * es,
				       (const u8 *)args->data[0] + so * es, es);
				continue;
			}
			/* corners of the active dims, in a fixed order */
			for (k = 0; k < (1u << na); k++) {
				double w = 1.0;
				u64 off = 0;

				for (d = 0; d < r; d++)
					off += (u64)i0[d] * in->strides[d];
				for (d = 0; d < na; d++) {
					u32 a = act[d];

					if ((k >> d) & 1) {
						w *= w1[a];
						off += ((u64)i1[a] - i0[a]) *
						       in->strides[a];
					} else {
						w *= 1.0 - w1[a];
					}
				}
				acc += w * ((const float *)args->data[0])[off];
			}
			((float *)args->data[1])[yi] = (float)acc;
		}
	}
	return 0;
}
