// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_grid_sample.c - GRID_SAMPLE (ONNX GridSample, opset 16; torch
 * grid_sample): out[n, c, h, w] is in[n, c] sampled at grid[n, h, w] =
 * (x, y), normalised to [-1, 1] over the width and the height.
 *
 * As torch's CPU kernel: a coordinate is unnormalised to pixels
 * ((v + 1) / 2 (size - 1) with ALIGN_CORNERS, ((v + 1) size - 1) / 2
 * without); BORDER clamps it to [0, size - 1], REFLECTION mirrors it at
 * the border (the pixel centres at 0 and size - 1 with ALIGN_CORNERS, the
 * outer edges at -0.5 and size - 0.5 without) and then clamps it. Bilinear
 * weighs the four pixels around it, nearest takes the pixel it rounds to
 * (half to even), bicubic the 4 x 4 around floor() with A = -0.75, each
 * tap's integer coordinate going through the padding again. A tap outside
 * the image reads 0. Sums in double. A coordinate that is not a number
 * samples 0. Work unit: a segment of an output row, as long as the cost
 * of its mode allows (npu_grid_sample_seg()).
 */
#include "npu_ops_float.h"

#define GS_A	(-0.75)

struct gs_ctx {
	const float *x;
	const struct drm_npu_operand *in;
	u32 padding;
	bool align;
};

static double gs_fmod_pos(double v, double m)
{
	return v - m * npu_floor_d(v / m);
}

/* Mirror @v at twice_low / 2 and twice_high / 2 (torch reflect_coordinates). */
static double gs_reflect(double v, double twice_low, double twice_high)
{
	double lo = twice_low / 2, span = (twice_high - twice_low) / 2, extra;
	double flips;

	if (twice_low == twice_high)
		return 0;
	v = npu_fabs(v - lo);
	flips = npu_floor_d(v / span);
	extra = v - span * flips;
	if (extra < 0)			/* rounding of a huge @v */
		extra = 0;
	if (extra > span)
		extra = span;
	return gs_fmod_pos(flips, 2) == 0 ? extra + lo : span - extra + lo;
}

static double gs_clip(double v, u32 size)
{
	return v < 0 ? 0 : v > (double)size - 1 ? (double)size - 1 : v;
}

/* BORDER and REFLECTION of a pixel coordinate (torch compute_coordinates). */
static double gs_pad(const struct gs_ctx *g, double v, u32 size)
{
	if (g->padding == DRM_NPU_GRID_SAMPLE_BORDER)
		return gs_clip(v, size);
	if (g->padding == DRM_NPU_GRID_SAMPLE_REFLECTION) {
		v = g->align ? gs_reflect(v, 0, 2.0 * ((double)size - 1)) :
			       gs_reflect(v, -1, 2.0 * (double)size - 1);
		return gs_clip(v, size);
	}
	return v;
}

static double gs_unnormalise(const struct gs_ctx *g, double v, u32 size)
{
	return g->align ? (v + 1) / 2 * ((double)size - 1) :
			  ((v + 1) * (double)size - 1) / 2;
}

/*
 * in[n, c, iy, ix] for integral double coordinates, 0 outside the image.
 * The comparisons come before any conversion: a coordinate may be huge.
 */
static double gs_at(const struct gs_ctx *g, u64 plane, double iy, double ix)
{
	const struct drm_npu_operand *in = g->in;

	if (!(iy >= 0 && iy < (double)in->shape[2] &&
	      ix >= 0 && ix < (double)in->shape[3]))
		return 0;
	return g->x[plane + (u64)iy * in->strides[2] +
		    (u64)ix * in->strides[3]];
}

/* Round half to even (torch nearbyint). */
static double gs_rint(double v)
{
	double r = npu_floor_d(v + 0.5);

	if (r - v == 0.5 && gs_fmod_pos(r, 2) != 0)
		r -= 1;
	return r;
}

static void gs_cubic_weights(double t, double *w)
{
	double a = GS_A, u = t + 1, v = 1 - t, z = 2 - t;

	w[0] = ((a * u - 5 * a) * u + 8 * a) * u - 4 * a;
	w[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
	w[2] = ((a + 2) * v - (a + 3)) * v * v + 1;
	w[3] = ((a * z - 5 * a) * z + 8 * a) * z - 4 * a;
}

static double gs_bicubic(const struct gs_ctx *g, u64 plane, double ix,
			 double iy)
{
	u32 h = g->in->shape[2], w = g->in->shape[3], i, j;
	double fx, fy, wx[4], wy[4], acc = 0;

	/*
	 * Past 3 of an edge every tap is outside (zeros) or the edge
	 * (border); reflection mirrors each tap, any value (gs_reflect).
	 */
	if (g->padding != DRM_NPU_GRID_SAMPLE_REFLECTION) {
		ix = ix < -4.0 ? -4.0 : ix > (double)w + 3 ? (double)w + 3 : ix;
		iy = iy < -4.0 ? -4.0 : iy > (double)h + 3 ? (double)h + 3 : iy;
	}
	fx = npu_floor_d(ix);
	fy = npu_floor_d(iy);
	gs_cubic_weights(ix - fx, wx);
	gs_cubic_weights(iy - fy, wy);
	for (i = 0; i < 4; i++) {
		double ty = gs_pad(g, fy - 1 + i, h), row = 0;

		for (j = 0; j < 4; j++)
			row += wx[j] * gs_at(g, plane, ty,
					     gs_pad(g, fx - 1 + j, w));
		acc += wy[i] * row;
	}
	return acc;
}

static double gs_bilinear(const struct gs_ctx *g, u64 plane, double ix,
			  double iy)
{
	u32 h = g->in->shape[2], w = g->in->shape[3];
	double x0, y0, tx, ty;

	ix = ix < -2.0 ? -2.0 : ix > (double)w + 1 ? (double)w + 1 : ix;
	iy = iy < -2.0 ? -2.0 : iy > (double)h + 1 ? (double)h + 1 : iy;
	x0 = npu_floor_d(ix);
	y0 = npu_floor_d(iy);
	tx = ix - x0;
	ty = iy - y0;
	return gs_at(g, plane, y0, x0) * (1 - tx) * (1 - ty) +
	       gs_at(g, plane, y0, x0 + 1) * tx * (1 - ty) +
	       gs_at(g, plane, y0 + 1, x0) * (1 - tx) * ty +
	       gs_at(g, plane, y0 + 1, x0 + 1) * tx * ty;
}

static float gs_sample(const struct gs_ctx *g, u32 mode, u64 plane,
		       double gx, double gy)
{
	u32 h = g->in->shape[2], w = g->in->shape[3];
	double ix = gs_unnormalise(g, gx, w), iy = gs_unnormalise(g, gy, h);

	if (ix != ix || iy != iy)
		return 0;
	if (mode == DRM_NPU_GRID_SAMPLE_BICUBIC)
		return (float)gs_bicubic(g, plane, ix, iy);
	ix = gs_pad(g, ix, w);
	iy = gs_pad(g, iy, h);
	if (mode == DRM_NPU_GRID_SAMPLE_NEAREST)
		return (float)gs_at(g, plane, gs_rint(iy), gs_rint(ix));
	return (float)gs_bilinear(g, plane, ix, iy);
}

int npu_run_grid_sample(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_grid_sample_params *p = &t->params.grid_sample;
	const struct drm_npu_operand *gr = npu_opnd(t, 1), *out = npu_opnd(t, 2);
	const float *grid = args->data[1];
	float *y = args->data[2];
	struct gs_ctx g = {
		.x = args->data[0], .in = npu_opnd(t, 0), .padding = p->padding,
		.align = p->flags & DRM_NPU_GRID_SAMPLE_ALIGN_CORNERS,
	};
	u32 seg = npu_grid_sample_seg(t);
	struct npu_seg sg;
	u64 u, i;

	for (u = begin; u < end; u++) {
		u32 oc[4] = { 0 };
		u64 plane, go, yo;

		npu_seg_of_n(u, out->shape[3], seg, &sg);
		npu_unravel(sg.row, out->shape, 3, oc);
		plane = (u64)oc[0] * g.in->strides[0] +
			(u64)oc[1] * g.in->strides[1];
		go = (u64)oc[0] * gr->strides[0] + (u64)oc[2] * gr->strides[1];
		yo = (u64)oc[0] * out->strides[0] + (u64)oc[1] * out->strides[1] +
		     (u64)oc[2] * out->strides[2];
		for (i = sg.start; i < (u64)sg.start + sg.len; i++) {
			u64 gi = go + i * gr->strides[2];

			y[yo + i * out->strides[3]] =
				gs_sample(&g, p->mode, plane, grid[gi],
					  grid[gi + gr->strides[3]]);
		}
	}
	return 0;
}
