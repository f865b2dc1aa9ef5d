// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_resize.c - RESIZE (ONNX Resize, opset 13+): nearest (any dtype, four
 * rounding modes), N-linear or N-cubic (F32) over every dimension, with
 * the half_pixel, pytorch_half_pixel, asymmetric and align_corners
 * coordinate transforms. scale[d] (fp32 bits) is the ONNX scale; 0 means
 * out/in. Linear sources are clamped to [0, in - 1] (ONNX and PyTorch
 * agree); cubic taps past the edges read the edge (the ONNX reference pads
 * by repeating it), or with EXCLUDE_OUTSIDE weigh 0 and the others are
 * renormalised. Interpolation sums, in double, every combination of the
 * taps of the dims whose weights are not a single 1; a dim of the same
 * extent and scale 1 is copied (npu_resize_dim_plain()). Work unit: a
 * segment of an output row, shorter the more taps an element sums
 * (npu_resize_seg()).
 */
#include "npu_ops_float.h"

struct rs_dim {
	u32 in, out;
	double scale;
	double len;	/* ONNX output_width: in * scale (not rounded) */
	double start, end;	/* TF_CROP_AND_RESIZE's roi */
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
	case DRM_NPU_RESIZE_TF_CROP_AND_RESIZE:
		return (d->len == 1.0 ? (d->end - d->start) *
			((double)d->in - 1) / 2 : x * (d->end - d->start) *
			((double)d->in - 1) / (d->len - 1.0)) +
		       d->start * ((double)d->in - 1);
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

/* The taps of one dim for one output coordinate: at most four. */
struct rs_taps {
	u32 n;
	u32 idx[4];
	double w[4];
};

/* Linear: lower index, upper index and upper weight. */
static void linear_taps(double x, u32 n, struct rs_taps *t)
{
	double f;

	if (x < 0)
		x = 0;
	if (x > (double)n - 1)
		x = (double)n - 1;
	f = npu_floor_d(x);
	t->idx[0] = (u32)f;
	t->idx[1] = t->idx[0] + 1 < n ? t->idx[0] + 1 : t->idx[0];
	t->w[1] = x - f;
	t->w[0] = 1.0 - t->w[1];
	t->n = t->w[1] != 0 ? 2 : 1;
}

/*
 * Cubic (ONNX's cubic_coeffs with coefficient @a): the four taps around x
 * are ceil(x) - 2 .. ceil(x) + 1 at distances 1 + r, r, 1 - r, 2 - r with
 * r in (0, 1] (an integral x is r = 1: taps x - 2 .. x + 1, weights 0, 0,
 * 1, 0). A tap past an edge reads the edge, or with @exclude weighs 0.
 */
static void cubic_taps(double x, u32 n, double a, bool exclude,
		       struct rs_taps *t)
{
	double c, r, s = 0;
	s64 base;
	u32 j;

	/*
	 * A hostile scale puts x anywhere: past 2 of an edge every tap is
	 * outside on that side (the edge, or weight 0), so clamping there
	 * changes nothing and keeps the index conversion in range.
	 */
	if (!(x >= -3.0))
		x = -3.0;
	if (x > (double)n + 2)
		x = (double)n + 2;
	c = npu_floor_d(x);
	if (c != x)
		c += 1.0;	/* ceil */
	r = x - (c - 1.0);
	base = (s64)c - 2;
	t->w[0] = ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a;
	t->w[1] = ((a + 2) * r - (a + 3)) * r * r + 1;
	t->w[2] = ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1;
	t->w[3] = ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a;
	for (j = 0; j < 4; j++) {
		s64 k = base + j;

		if (exclude && (k < 0 || k >= (s64)n))
			t->w[j] = 0;
		s += t->w[j];
		t->idx[j] = k < 0 ? 0 : k >= (s64)n ? n - 1 : (u32)k;
	}
	if (exclude && s != 0)
		for (j = 0; j < 4; j++)
			t->w[j] /= s;
	t->n = 4;
	if (t->w[0] == 0 && t->w[1] == 0 && t->w[2] == 1 && t->w[3] == 0) {
		t->idx[0] = t->idx[2];	/* the input sample itself */
		t->w[0] = 1;
		t->n = 1;
	}
}

/*
 * Interpolates one output element from the taps of every dim: the sum over
 * the combinations of the active dims' taps (the first active dim's tap
 * varies fastest), each weight the product of its dims' in dim order.
 */
static float interpolate(const float *x, const struct drm_npu_operand *in,
			 const struct rs_taps *tp, u32 r)
{
	u32 act[DRM_NPU_MAX_RANK], na = 0, dig[DRM_NPU_MAX_RANK] = { 0 }, d;
	u64 base = 0;
	double acc = 0;

	for (d = 0; d < r; d++) {
		if (tp[d].n > 1)
			act[na++] = d;
		else
			base += (u64)tp[d].idx[0] * in->strides[d];
	}
	for (;;) {
		double w = 1.0;
		u64 off = base;

		for (d = 0; d < na; d++) {
			const struct rs_taps *t = &tp[act[d]];

			w *= t->w[dig[d]];
			off += (u64)t->idx[dig[d]] * in->strides[act[d]];
		}
		acc += w * x[off];
		for (d = 0; d < na && ++dig[d] == tp[act[d]].n; d++)
			dig[d] = 0;
		if (d == na)
			break;
	}
	return (float)acc;
}

int npu_run_resize(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_resize_params *p = &t->params.resize;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *out = npu_opnd(t, 1);
	u32 r = out->rank, es = npu_dtype_size(in->dtype), d, last;
	u32 seg = npu_resize_seg(t);
	bool plain[DRM_NPU_MAX_RANK];
	bool exclude = p->flags & DRM_NPU_RESIZE_EXCLUDE_OUTSIDE;
	double a = (double)npu_u2f(p->cubic_a);
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
		dims[d].start = (double)npu_u2f(p->roi_start[d]);
		dims[d].end = (double)npu_u2f(p->roi_end[d]);
		plain[d] = npu_resize_dim_plain(t, d);
	}
	last = r ? r - 1 : 0;
	for (u = begin; u < end; u++) {
		u32 oc[DRM_NPU_MAX_RANK] = { 0 };
		struct rs_taps tp[DRM_NPU_MAX_RANK];
		u64 yo = 0;

		npu_seg_of_n(u, r ? out->shape[last] : 1, seg, &sg);
		npu_unravel(sg.row, out->shape, last, oc);
		for (d = 0; d < last; d++)
			yo += (u64)oc[d] * out->strides[d];
		for (i = sg.start; i < (u64)sg.start + sg.len; i++) {
			u64 so = 0, yi = yo + (r ? i * out->strides[last] : 0);
			bool outside = false;

			if (r)
				oc[last] = (u32)i;	/* < out->shape[last] */
			for (d = 0; d < r && !outside; d++) {
				double x = src_coord(p->coord, &dims[d], oc[d]);

				/* TF's CropAndResize: outside is a value */
				if (p->coord ==
				    DRM_NPU_RESIZE_TF_CROP_AND_RESIZE &&
				    !(x >= 0 && x <= (double)dims[d].in - 1)) {
					outside = true;
					break;
				}

				if (p->mode == DRM_NPU_RESIZE_NEAREST)
					so += (u64)nearest_index(p->nearest, x,
								 dims[d].in) *
					      in->strides[d];
				else if (plain[d])
					tp[d] = (struct rs_taps){ .n = 1,
						.idx = { oc[d] }, .w = { 1 } };
				else if (p->mode == DRM_NPU_RESIZE_LINEAR)
					linear_taps(x, dims[d].in, &tp[d]);
				else
					cubic_taps(x, dims[d].in, a, exclude,
						   &tp[d]);
			}
			if (outside)
				((float *)args->data[1])[yi] =
					npu_u2f(p->extrapolation);
			else if (p->mode == DRM_NPU_RESIZE_NEAREST)
				memcpy((u8 *)args->data[1] + yi * es,
				       (const u8 *)args->data[0] + so * es, es);
			else
				((float *)args->data[1])[yi] =
					interpolate(args->data[0], in, tp, r);
		}
	}
	return 0;
}
