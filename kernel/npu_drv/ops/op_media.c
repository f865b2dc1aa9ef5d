// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_media.c - the media unit (IMG_CSC, IMG_RESIZE) and AIPP.
 *
 * Pixels are u8. A pixel is first read into a canonical channel vector:
 * (Y, U, V) for YUV420SP (NV21's chroma reordered) and YUV400 (U = V =
 * 128), (R, G, B) for the packed RGB formats. Colour conversion is Q8
 * integer arithmetic, resizing is integer arithmetic with Q11 weights, so
 * IMG_CSC and IMG_RESIZE are exact and have no float at all; AIPP's
 * normalisation is one fp32 subtraction and one multiplication per value.
 * Work unit: one output row (all channels) of one image.
 * Semantics and numerics: Documentation/media.rst.
 */
#include "npu_ops_float.h"

/* YUV -> RGB, Q8 rows R, G, B over (Y - ib0, U - ib1, V - ib2). */
static const s16 npu_csc_q8[DRM_NPU_CSC_MATRIX_COUNT][9] = {
	[DRM_NPU_CSC_BT601_FULL] = { 256, 0, 359, 256, -88, -183, 256, 454, 0 },
	[DRM_NPU_CSC_BT601_NARROW] = { 298, 0, 409, 298, -100, -208,
				       298, 516, 0 },
	[DRM_NPU_CSC_BT709_NARROW] = { 298, 0, 459, 298, -55, -136,
				       298, 541, 0 },
};

static const u8 npu_csc_ib[DRM_NPU_CSC_MATRIX_COUNT][3] = {
	[DRM_NPU_CSC_BT601_FULL] = { 0, 128, 128 },
	[DRM_NPU_CSC_BT601_NARROW] = { 16, 128, 128 },
	[DRM_NPU_CSC_BT709_NARROW] = { 16, 128, 128 },
};

static const u8 npu_zero3[3];

static inline int npu_img_is_yuv(u32 fmt)
{
	return fmt == DRM_NPU_IMG_NV12 || fmt == DRM_NPU_IMG_NV21 ||
	       fmt == DRM_NPU_IMG_YUV400;
}

/* floor(v / 256) for any sign, without relying on >> of negatives. */
static inline s32 npu_q8_floor(s32 v)
{
	return v >= 0 ? v / 256 : -((-v + 255) / 256);
}

static inline u8 npu_clamp_u8(s32 v)
{
	return v < 0 ? 0 : v > 255 ? 255 : (u8)v;
}

/* out_c = clamp(floor((sum_k m[c][k] (v_k - ib_k) + 128) / 256) + ob_c) */
static void npu_csc_apply(const s16 *m, const u8 *ib, const u8 *ob,
			  const s32 *v, s32 *out)
{
	u32 c;

	for (c = 0; c < 3; c++) {
		s32 acc = 128;
		u32 k;

		for (k = 0; k < 3; k++)
			acc += (s32)m[c * 3 + k] * (v[k] - (s32)ib[k]);
		out[c] = npu_clamp_u8(npu_q8_floor(acc) + (s32)ob[c]);
	}
}

/*
 * Pixel (n, y, x) of an image in @fmt: operand 0 (Y or packed) at @p0,
 * operand 1 (UV) at @p1. Every coordinate is below the shape that
 * check_img_in() matched (chroma: y / 2 < ceil(H / 2)).
 */
static void npu_img_pixel(u32 fmt, const struct drm_npu_task *t,
			  const u8 *p0, const u8 *p1, u64 n, u64 y, u64 x,
			  s32 *v)
{
	const struct drm_npu_operand *a = npu_opnd(t, 0), *b;
	u64 o = n * a->strides[0] + y * a->strides[1] + x * a->strides[2];

	switch (fmt) {
	case DRM_NPU_IMG_NV12:
	case DRM_NPU_IMG_NV21: {
		u64 q;
		int sw = fmt == DRM_NPU_IMG_NV21;

		b = npu_opnd(t, 1);
		q = n * b->strides[0] + (y / 2) * b->strides[1] +
		    (x / 2) * b->strides[2];
		v[0] = p0[o];
		v[1 + sw] = p1[q];
		v[2 - sw] = p1[q + b->strides[3]];
		break;
	}
	case DRM_NPU_IMG_RGB888:
		v[0] = p0[o];
		v[1] = p0[o + a->strides[3]];
		v[2] = p0[o + 2 * (u64)a->strides[3]];
		break;
	case DRM_NPU_IMG_BGR888:
	case DRM_NPU_IMG_XRGB8888:	/* bytes B, G, R, X */
		v[2] = p0[o];
		v[1] = p0[o + a->strides[3]];
		v[0] = p0[o + 2 * (u64)a->strides[3]];
		break;
	default:			/* YUV400 */
		v[0] = p0[o];
		v[1] = 128;
		v[2] = 128;
	}
}

int npu_run_img_csc(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_img_csc_params *p = &t->params.img_csc;
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);
	const u8 *p0 = args->data[0];
	const u8 *p1 = t->num_operands == 3 ? args->data[1] : NULL;
	u8 *po = args->data[t->num_operands - 1];
	int bgr = p->out_format == DRM_NPU_IMG_BGR888;
	u64 u, x;

	for (u = begin; u < end; u++) {
		u64 n = u / out->shape[1], y = u % out->shape[1];

		for (x = 0; x < out->shape[2]; x++) {
			u64 o = n * out->strides[0] + y * out->strides[1] +
				x * out->strides[2];
			s32 v[3], rgb[3];

			npu_img_pixel(p->in_format, t, p0, p1, n, y, x, v);
			if (npu_img_is_yuv(p->in_format))
				npu_csc_apply(npu_csc_q8[p->matrix],
					      npu_csc_ib[p->matrix], npu_zero3,
					      v, rgb);
			else
				memcpy(rgb, v, sizeof(rgb));
			po[o] = (u8)rgb[bgr ? 2 : 0];
			po[o + out->strides[3]] = (u8)rgb[1];
			po[o + 2 * (u64)out->strides[3]] = (u8)rgb[bgr ? 0 : 2];
		}
	}
	return 0;
}

/*
 * Source taps along one axis (half-pixel centres, OpenCV INTER_LINEAR and
 * torchvision without antialias): s = (d + 0.5) * in / out - 0.5 clamped
 * to [0, in - 1], computed exactly as the fraction
 * ((2d + 1) in - out) / (2 out); the upper weight is that fraction's part
 * rounded to 1/2048. Nearest: floor(d * in / out).
 */
struct npu_tap {
	u64 i0, i1;
	u32 w1;		/* Q11 weight of i1 */
};

static void npu_tap_of(u32 mode, u64 d, u64 in, u64 out, struct npu_tap *tp)
{
	u64 num, den = 2 * out, q, r;

	if (mode == DRM_NPU_IMG_NEAREST) {
		q = d * in / out;
		tp->i0 = q < in ? q : in - 1;
		tp->i1 = tp->i0;
		tp->w1 = 0;
		return;
	}
	num = (2 * d + 1) * in;
	if (num <= out) {		/* s <= 0 */
		tp->i0 = 0;
		tp->i1 = 0;
		tp->w1 = 0;
		return;
	}
	num -= out;
	q = num / den;
	r = num % den;
	if (q >= in - 1) {
		tp->i0 = in - 1;
		tp->i1 = in - 1;
		tp->w1 = 0;
		return;
	}
	tp->i0 = q;
	tp->i1 = q + 1;
	tp->w1 = (u32)((r * 2048 + out) / den);	/* round half up */
}

int npu_run_img_resize(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_img_resize_params *p = &t->params.img_resize;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *out = npu_opnd(t, 1);
	const u8 *pi = args->data[0];
	u8 *po = args->data[1];
	u64 oh = out->shape[1], ow = out->shape[2], ch = out->shape[3];
	u64 rh = oh - p->pad_top - p->pad_bottom;
	u64 rw = ow - p->pad_left - p->pad_right;
	u64 u, x, c;

	for (u = begin; u < end; u++) {
		u64 n = u / oh, y = u % oh, ry;
		const u8 *r0, *r1;
		struct npu_tap ty;

		if (y < p->pad_top || y - p->pad_top >= rh) {
			for (x = 0; x < ow; x++)
				for (c = 0; c < ch; c++)
					po[n * out->strides[0] +
					   y * out->strides[1] +
					   x * out->strides[2] +
					   c * out->strides[3]] = p->border[c];
			continue;
		}
		ry = y - p->pad_top;
		npu_tap_of(p->mode, ry, in->shape[1], rh, &ty);
		r0 = pi + n * in->strides[0] + ty.i0 * in->strides[1];
		r1 = pi + n * in->strides[0] + ty.i1 * in->strides[1];
		for (x = 0; x < ow; x++) {
			u8 *o = po + n * out->strides[0] + y * out->strides[1] +
				x * out->strides[2];
			struct npu_tap tx;

			if (x < p->pad_left || x - p->pad_left >= rw) {
				for (c = 0; c < ch; c++)
					o[c * out->strides[3]] = p->border[c];
				continue;
			}
			npu_tap_of(p->mode, x - p->pad_left, in->shape[2], rw,
				   &tx);
			for (c = 0; c < ch; c++) {
				u64 a0 = tx.i0 * in->strides[2] +
					 c * in->strides[3];
				u64 a1 = tx.i1 * in->strides[2] +
					 c * in->strides[3];
				u64 top = (u64)r0[a0] * (2048 - tx.w1) +
					  (u64)r0[a1] * tx.w1;
				u64 bot = (u64)r1[a0] * (2048 - tx.w1) +
					  (u64)r1[a1] * tx.w1;
				u64 v = top * (2048 - ty.w1) + bot * ty.w1;

				o[c * out->strides[3]] =
					(u8)((v + (1u << 21)) >> 22);
			}
		}
	}
	return 0;
}

/* The parameters an AIPP task runs with: its own, or the dynamic ones. */
struct npu_aipp_eff {
	u32 flags;
	s16 matrix[9];
	u8 input_bias[3], output_bias[3];
	u16 mean[4];
	u32 min[4], var_reci[4], pad_value;
};

static int npu_aipp_params(const struct npu_op_args *args,
			   struct npu_aipp_eff *e)
{
	const struct drm_npu_aipp_params *p = &args->task->params.aipp;
	struct drm_npu_aipp_dyn d;
	u32 i;

	if (!(p->flags & DRM_NPU_AIPP_DYNAMIC)) {
		e->flags = p->flags;
		memcpy(e->matrix, p->matrix, sizeof(e->matrix));
		memcpy(e->input_bias, p->input_bias, 3);
		memcpy(e->output_bias, p->output_bias, 3);
		memcpy(e->mean, p->mean, sizeof(e->mean));
		memcpy(e->min, p->min, sizeof(e->min));
		memcpy(e->var_reci, p->var_reci, sizeof(e->var_reci));
		e->pad_value = p->pad_value;
		return 0;
	}
	/* operand 1 (packed) or 2 (YUV420SP): DRM_NPU_AIPP_DYN_SIZE bytes */
	memcpy(&d, args->data[args->task->num_operands - 2], sizeof(d));
	if ((d.flags & ~(DRM_NPU_AIPP_CSC | DRM_NPU_AIPP_RBUV_SWAP)) ||
	    d.reserved)
		return DRM_NPU_FAULT_BAD_PARAMS;
	for (i = 0; i < 4; i++)
		if (d.mean[i] > 255)
			return DRM_NPU_FAULT_BAD_PARAMS;
	e->flags = d.flags;
	memcpy(e->matrix, d.matrix, sizeof(e->matrix));
	memcpy(e->input_bias, d.input_bias, 3);
	memcpy(e->output_bias, d.output_bias, 3);
	memcpy(e->mean, d.mean, sizeof(e->mean));
	memcpy(e->min, d.min, sizeof(e->min));
	memcpy(e->var_reci, d.var_reci, sizeof(e->var_reci));
	e->pad_value = d.pad_value;
	return 0;
}

int npu_run_aipp(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_aipp_params *p = &t->params.aipp;
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);
	const struct drm_npu_operand *in = npu_opnd(t, 0);
	int yuv420 = p->in_format == DRM_NPU_IMG_NV12 ||
		     p->in_format == DRM_NPU_IMG_NV21;
	const u8 *p0 = args->data[0];
	const u8 *p1 = yuv420 ? args->data[1] : NULL;
	float *po = args->data[t->num_operands - 1];
	struct npu_aipp_eff e;
	int nc1 = npu_is_nc1hwc0(out), csc, ret;
	u32 ch;
	u64 oh = out->shape[2], ow = out->shape[3];
	u64 h = in->shape[1], w = in->shape[2];
	float padv, mn[3], vr[3];
	u64 u, x;
	u32 c;

	ret = npu_aipp_params(args, &e);
	if (ret)
		return ret;
	csc = !!(e.flags & DRM_NPU_AIPP_CSC);
	ch = (p->in_format == DRM_NPU_IMG_YUV400 && !csc) ? 1 : 3;
	padv = npu_u2f(e.pad_value);
	for (c = 0; c < 3; c++) {
		mn[c] = npu_u2f(e.min[c]);
		vr[c] = npu_u2f(e.var_reci[c]);
	}
	for (u = begin; u < end; u++) {
		u64 n = u / oh, y = u % oh;
		int row_in = y >= p->pad_top && y - p->pad_top < h;

		for (x = 0; x < ow; x++) {
			/* out[n][c][y][x], or out[n][0][y][x][c] */
			u64 base = n * out->strides[0] + y * out->strides[2] +
				   x * out->strides[3];
			u64 cst = nc1 ? out->strides[4] : out->strides[1];
			float val[16];
			s32 v[3], r[3];
			u32 nout = nc1 ? NPU_C0_DEFAULT : ch;

			if (!row_in || x < p->pad_left ||
			    x - p->pad_left >= w) {
				for (c = 0; c < nout; c++)
					po[base + c * cst] = c < ch ? padv : 0;
				continue;
			}
			npu_img_pixel(p->in_format, t, p0, p1, n,
				      y - p->pad_top, x - p->pad_left, v);
			if (e.flags & DRM_NPU_AIPP_RBUV_SWAP) {
				u32 a = npu_img_is_yuv(p->in_format) ? 1 : 0;
				s32 tmp = v[a];

				v[a] = v[2];
				v[2] = tmp;
			}
			if (csc)
				npu_csc_apply(e.matrix, e.input_bias,
					      e.output_bias, v, r);
			else
				memcpy(r, v, sizeof(r));
			for (c = 0; c < nout; c++)
				val[c] = c < ch ?
					((float)(r[c] - (s32)e.mean[c]) -
					 mn[c]) * vr[c] : 0.0f;
			for (c = 0; c < nout; c++)
				po[base + c * cst] = val[c];
		}
	}
	return 0;
}
