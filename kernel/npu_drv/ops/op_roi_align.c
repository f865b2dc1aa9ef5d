// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_roi_align.c - ROI_ALIGN (ONNX RoiAlign, opset 10 and 16; torchvision
 * roi_align): out[r, c, ph, pw] pools in[batch[r], c] over bin (ph, pw)
 * of box rois[r] = (x1, y1, x2, y2) scaled by spatial_scale.
 *
 * As ONNX Runtime's CPU kernel, in double: with HALF_PIXEL the box is
 * shifted by -0.5 pixel, else it is widened to at least 1 x 1; a bin is
 * box / bins; each holds a grid of sampling_ratio x sampling_ratio samples
 * (adaptive: ceil(bin's share of the box) per side) at the centres of its
 * cells. A sample more than a pixel outside the image is 0; else it is
 * clamped to the image and interpolated bilinearly. AVG divides the
 * samples' sum by their count; MAX takes, over the samples, the largest
 * of each sample's four weighted corner values (ONNX Runtime's max).
 *
 * The box comes from memory a user writes: a box of NaN, an infinity or
 * more than twice the image takes at most npu_roi_align_grid_max()
 * samples per side (what the unit cost counts), and every coordinate is
 * compared before it becomes an index. Work unit: an output row (r, c,
 * ph).
 */
#include "npu_ops_float.h"

struct ra_box {
	double x0, y0, bw, bh;		/* start, bin size */
	u64 gx, gy;			/* samples per bin side */
	double count;
};

/* Samples per bin side: @ratio, else ceil(@len / @bins), within [0, @max]. */
static u64 ra_grid(u32 ratio, double len, u32 bins, u64 max)
{
	double g;

	if (ratio)
		return ratio;
	g = len / bins;
	if (!(g > 0))		/* an empty or inverted box, or NaN */
		return 0;
	if (!(g < (double)max))	/* (an infinity, or past the cap) */
		return max;
	g = npu_floor_d(g) == g ? g : npu_floor_d(g) + 1;
	return (u64)g;
}

static void ra_box_of(const struct drm_npu_task *t, const float *roi,
		      u32 stride, struct ra_box *b)
{
	const struct drm_npu_roi_align_params *p = &t->params.roi_align;
	const struct drm_npu_operand *out = npu_opnd(t, 3);
	double s = (double)npu_u2f(p->spatial_scale);
	double off = p->flags & DRM_NPU_ROI_ALIGN_HALF_PIXEL ? 0.5 : 0;
	double x1 = roi[0] * s - off, y1 = roi[stride] * s - off;
	double w = roi[2 * stride] * s - off - x1;
	double h = roi[3 * stride] * s - off - y1;

	if (!(p->flags & DRM_NPU_ROI_ALIGN_HALF_PIXEL)) {
		w = w > 1 ? w : 1;	/* (NaN stays NaN) */
		h = h > 1 ? h : 1;
	}
	b->x0 = x1;
	b->y0 = y1;
	b->bw = w / out->shape[3];
	b->bh = h / out->shape[2];
	b->gx = ra_grid(p->sampling_ratio, w, out->shape[3],
			npu_roi_align_grid_max(t, 3));
	b->gy = ra_grid(p->sampling_ratio, h, out->shape[2],
			npu_roi_align_grid_max(t, 2));
	b->count = b->gx && b->gy ? (double)b->gx * (double)b->gy : 1;
}

/* The four weighted corners of the sample at (y, x); 0 outside. */
static void ra_corners(const float *x, const struct drm_npu_operand *in,
		       u64 plane, double y, double xx, double *v)
{
	u32 h = in->shape[2], w = in->shape[3];
	u64 y0, x0, y1, x1;
	double ly, lx;

	if (!(y >= -1.0 && y <= (double)h && xx >= -1.0 && xx <= (double)w)) {
		memset(v, 0, 4 * sizeof(*v));
		return;
	}
	y = y > 0 ? y : 0;
	xx = xx > 0 ? xx : 0;
	y0 = (u64)y;
	x0 = (u64)xx;
	if (y0 >= (u64)h - 1) {
		y0 = h - 1;
		y = (double)y0;
	}
	y1 = y0 + 1 < h ? y0 + 1 : y0;
	if (x0 >= (u64)w - 1) {
		x0 = w - 1;
		xx = (double)x0;
	}
	x1 = x0 + 1 < w ? x0 + 1 : x0;
	ly = y - (double)y0;
	lx = xx - (double)x0;
	v[0] = (1 - ly) * (1 - lx) * x[plane + y0 * in->strides[2] +
				      x0 * in->strides[3]];
	v[1] = (1 - ly) * lx * x[plane + y0 * in->strides[2] +
				 x1 * in->strides[3]];
	v[2] = ly * (1 - lx) * x[plane + y1 * in->strides[2] +
				 x0 * in->strides[3]];
	v[3] = ly * lx * x[plane + y1 * in->strides[2] + x1 * in->strides[3]];
}

static double ra_bin(const struct drm_npu_task *t, const float *x,
		     u64 plane, const struct ra_box *b, u64 ph, u64 pw)
{
	const struct drm_npu_operand *in = npu_opnd(t, 0);
	bool max = t->params.roi_align.mode == DRM_NPU_ROI_ALIGN_MAX;
	double acc = 0, v[4];
	u64 iy, ix;

	for (iy = 0; iy < b->gy; iy++) {
		double y = b->y0 + ph * b->bh + (iy + 0.5) * b->bh / b->gy;

		for (ix = 0; ix < b->gx; ix++) {
			double xx = b->x0 + pw * b->bw +
				    (ix + 0.5) * b->bw / b->gx;
			double m;

			ra_corners(x, in, plane, y, xx, v);
			if (!max) {
				acc += v[0] + v[1] + v[2] + v[3];
				continue;
			}
			m = v[0] > v[1] ? v[0] : v[1];
			m = m > v[2] ? m : v[2];
			m = m > v[3] ? m : v[3];
			acc = iy || ix ? (acc > m ? acc : m) : m;
		}
	}
	return max ? acc : acc / b->count;
}

int npu_run_roi_align(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *in = npu_opnd(t, 0);
	const struct drm_npu_operand *rois = npu_opnd(t, 1);
	const struct drm_npu_operand *bi = npu_opnd(t, 2);
	const struct drm_npu_operand *out = npu_opnd(t, 3);
	const float *x = args->data[0];
	float *y = args->data[3];
	u64 u;
	u64 pw;

	for (u = begin; u < end; u++) {
		u32 oc[3] = { 0 };
		struct ra_box b;
		u64 plane, yo;
		s64 n;

		npu_unravel(u, out->shape, 3, oc);	/* r, c, ph */
		n = bi->dtype == DRM_NPU_DTYPE_I32 ?
			((const s32 *)args->data[2])[(u64)oc[0] *
						     bi->strides[0]] :
			((const s64 *)args->data[2])[(u64)oc[0] *
						     bi->strides[0]];
		if (n < 0 || (u64)n >= in->shape[0])
			return DRM_NPU_FAULT_BAD_INDEX;
		ra_box_of(t, (const float *)args->data[1] +
			  (u64)oc[0] * rois->strides[0], rois->strides[1], &b);
		plane = (u64)n * in->strides[0] + (u64)oc[1] * in->strides[1];
		yo = (u64)oc[0] * out->strides[0] + (u64)oc[1] * out->strides[1] +
		     (u64)oc[2] * out->strides[2];
		for (pw = 0; pw < out->shape[3]; pw++)
			y[yo + (u64)pw * out->strides[3]] =
				(float)ra_bin(t, x, plane, &b, oc[2], pw);
	}
	return 0;
}
