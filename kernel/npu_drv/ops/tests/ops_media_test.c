// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_media_test.c - IMG_CSC, IMG_RESIZE and AIPP against references
 * written here in double precision from the formulas of
 * Documentation/media.rst (not from the kernels' integer forms), and the
 * checks' refusals.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"

#define U8	DRM_NPU_DTYPE_U8
#define F32	DRM_NPU_DTYPE_F32

static struct drm_npu_task T;

static void fill_u8(u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (u8)(tl_rand() >> 13);
}

static int check_ok(void)
{
	u32 bad;

	return npu_op_check(&T, &bad) == 0;
}

/* Float YUV -> RGB of the standard matrices (BT.601/709 coefficients). */
static void ref_yuv(u32 m, double y, double u, double v, double *rgb)
{
	double ys = 1.0, yo = 0, kr = 0.299, kb = 0.114, cs = 1.0;

	if (m != DRM_NPU_CSC_BT601_FULL) {
		ys = 255.0 / 219.0;
		yo = 16;
		cs = 255.0 / 224.0;
	}
	if (m == DRM_NPU_CSC_BT709_NARROW) {
		kr = 0.2126;
		kb = 0.0722;
	}
	y = (y - yo) * ys;
	u = (u - 128) * cs;
	v = (v - 128) * cs;
	rgb[0] = y + 2 * (1 - kr) * v;
	rgb[2] = y + 2 * (1 - kb) * u;
	rgb[1] = (y - kr * rgb[0] - kb * rgb[2]) / (1 - kr - kb);
}

static double clamp255(double v)
{
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* NV12/NV21 -> RGB/BGR: within 2 of the float formula (Q8 rounding). */
static void test_csc_nv(u32 fmt, u32 m, int bgr, u32 h, u32 w)
{
	u32 ys[3] = { 2, h, w }, uvs[4] = { 2, (h + 1) / 2, (w + 1) / 2, 2 };
	u32 os[4] = { 2, h, w, 3 };
	size_t ny = 2 * h * w, nuv = 2 * uvs[1] * uvs[2] * 2, no = ny * 3, i;
	u8 *y = malloc(ny), *uv = malloc(nuv), *o = malloc(no);
	void *data[3] = { y, uv, o };
	double worst = 0;
	int ret;

	fill_u8(y, ny);
	fill_u8(uv, nuv);
	tl_task(&T, DRM_NPU_OP_IMG_CSC, 3);
	T.params.img_csc.in_format = fmt;
	T.params.img_csc.out_format = bgr ? DRM_NPU_IMG_BGR888 :
					    DRM_NPU_IMG_RGB888;
	T.params.img_csc.matrix = m;
	tl_opnd(&T.operands[0], 0, U8, 3, ys, NULL);
	tl_opnd(&T.operands[1], 1, U8, 4, uvs, NULL);
	tl_opnd(&T.operands[2], 2, U8, 4, os, NULL);
	ret = tl_run_chunked(&T, data);
	for (i = 0; i < ny && !ret; i++) {
		u64 n = i / ((u64)h * w), yy = i / w % h, xx = i % w;
		const u8 *c = uv + ((n * uvs[1] + yy / 2) * uvs[2] + xx / 2) * 2;
		double rgb[3];
		int k;

		ref_yuv(m, y[i], c[fmt == DRM_NPU_IMG_NV21],
			c[fmt != DRM_NPU_IMG_NV21], rgb);
		for (k = 0; k < 3; k++) {
			double d = fabs(o[i * 3 + (bgr ? 2 - k : k)] -
					clamp255(rgb[k]));

			worst = d > worst ? d : worst;
		}
	}
	tap_ok(!ret && worst <= 2.0,
	       "IMG_CSC fmt %u matrix %u %s %ux%u: max |err| %.2f vs float",
	       fmt, m, bgr ? "BGR" : "RGB", h, w, worst);
	free(y);
	free(uv);
	free(o);
}

/* Packed formats reorder exactly; a crop is a view (offset, strides). */
static void test_csc_packed(void)
{
	static const u32 fmts[] = { DRM_NPU_IMG_RGB888, DRM_NPU_IMG_BGR888,
				    DRM_NPU_IMG_XRGB8888 };
	u32 f;

	for (f = 0; f < 3; f++) {
		u32 c = fmts[f] == DRM_NPU_IMG_XRGB8888 ? 4 : 3;
		u32 full[4] = { 1, 7, 9, c }, st[4] = { 7 * 9 * c, 9 * c, c, 1 };
		u32 crop[4] = { 1, 4, 5, c }, os[4] = { 1, 4, 5, 3 };
		u8 in[7 * 9 * 4], out[4 * 5 * 3];
		void *data[2] = { in, out };
		int ok = 1, ret;
		u32 i, j;

		fill_u8(in, sizeof(in));
		tl_task(&T, DRM_NPU_OP_IMG_CSC, 2);
		T.params.img_csc.in_format = fmts[f];
		T.params.img_csc.out_format = DRM_NPU_IMG_RGB888;
		tl_opnd(&T.operands[0], 0, U8, 4, crop, st);
		T.operands[0].offset = (2 * 9 + 3) * c;	/* crop at (2, 3) */
		tl_opnd(&T.operands[1], 1, U8, 4, os, NULL);
		data[0] = in + T.operands[0].offset;
		ret = tl_run(&T, data);
		for (i = 0; i < 4 && !ret; i++)
			for (j = 0; j < 5; j++) {
				const u8 *p = in + ((2 + i) * 9 + 3 + j) * c;
				const u8 *q = out + (i * 5 + j) * 3;
				int r = fmts[f] == DRM_NPU_IMG_RGB888;

				if (q[0] != p[r ? 0 : 2] || q[1] != p[1] ||
				    q[2] != p[r ? 2 : 0])
					ok = 0;
			}
		(void)full;
		tap_ok(!ret && ok, "IMG_CSC packed fmt %u cropped view: exact",
		       fmts[f]);
	}
}

/* Bilinear with half-pixel centres, in double, rounded: the reference. */
static double ref_bilinear(const u8 *img, u32 h, u32 w, u32 c, u32 ch,
			   u32 oh, u32 ow, u32 y, u32 x)
{
	double sy = (y + 0.5) * h / oh - 0.5, sx = (x + 0.5) * w / ow - 0.5;
	u32 y0, x0, y1, x1;
	double fy, fx;

	if (sy < 0)
		sy = 0;
	if (sx < 0)
		sx = 0;
	y0 = (u32)sy;
	x0 = (u32)sx;
	if (y0 >= h - 1) {
		y0 = h - 1;
		sy = y0;
	}
	if (x0 >= w - 1) {
		x0 = w - 1;
		sx = x0;
	}
	y1 = y0 + 1 < h ? y0 + 1 : y0;
	x1 = x0 + 1 < w ? x0 + 1 : x0;
	fy = sy - y0;
	fx = sx - x0;
	return (1 - fy) * ((1 - fx) * img[(y0 * w + x0) * ch + c] +
			   fx * img[(y0 * w + x1) * ch + c]) +
	       fy * ((1 - fx) * img[(y1 * w + x0) * ch + c] +
		     fx * img[(y1 * w + x1) * ch + c]);
}

static void test_resize(u32 mode, u32 h, u32 w, u32 oh, u32 ow, u32 ch,
			u32 pt, u32 pl, u32 pb, u32 pr)
{
	u32 is[4] = { 1, h, w, ch }, os[4] = { 1, oh, ow, ch };
	u8 *in = malloc((size_t)h * w * ch), *out = malloc((size_t)oh * ow * ch);
	void *data[2] = { in, out };
	u32 rh = oh - pt - pb, rw = ow - pl - pr, y, x, c;
	double worst = 0;
	int ret, border_ok = 1;

	fill_u8(in, (size_t)h * w * ch);
	tl_task(&T, DRM_NPU_OP_IMG_RESIZE, 2);
	T.params.img_resize.mode = mode;
	T.params.img_resize.pad_top = pt;
	T.params.img_resize.pad_left = pl;
	T.params.img_resize.pad_bottom = pb;
	T.params.img_resize.pad_right = pr;
	for (c = 0; c < 4; c++)
		T.params.img_resize.border[c] = (u8)(10 + c);
	tl_opnd(&T.operands[0], 0, U8, 4, is, NULL);
	tl_opnd(&T.operands[1], 1, U8, 4, os, NULL);
	ret = tl_run_chunked(&T, data);
	for (y = 0; y < oh && !ret; y++)
		for (x = 0; x < ow; x++)
			for (c = 0; c < ch; c++) {
				u8 got = out[((size_t)y * ow + x) * ch + c];
				double ref, d;

				if (y < pt || y >= pt + rh || x < pl ||
				    x >= pl + rw) {
					border_ok &= got == 10 + c;
					continue;
				}
				if (mode == DRM_NPU_IMG_NEAREST) {
					u32 sy = (u32)((u64)(y - pt) * h / rh);
					u32 sx = (u32)((u64)(x - pl) * w / rw);

					ref = in[((size_t)sy * w + sx) * ch + c];
				} else {
					ref = ref_bilinear(in, h, w, c, ch, rh,
							   rw, y - pt, x - pl);
				}
				d = fabs(got - ref);
				worst = d > worst ? d : worst;
			}
	tap_ok(!ret && border_ok && worst <= (mode ? 0.75 : 0.0),
	       "IMG_RESIZE %s %ux%u -> %ux%u (border %u,%u,%u,%u) C%u: max |err| %.3f",
	       mode ? "bilinear" : "nearest", h, w, rh, rw, pt, pl, pb, pr, ch,
	       worst);
	free(in);
	free(out);
}

/* AIPP RGB888 -> NCHW/NC1HWC0 with ImageNet normalisation and padding. */
static void test_aipp_rgb(int nc1, int swap)
{
	const u32 h = 5, w = 6, pt = 1, pl = 2, pb = 0, pr = 1;
	const u32 oh = h + pt + pb, ow = w + pl + pr;
	u32 is[4] = { 2, h, w, 3 }, on[4] = { 2, 3, oh, ow };
	u32 o5[5] = { 2, 1, oh, ow, 16 };
	static const double m[3] = { 0.485, 0.456, 0.406 };
	static const double s[3] = { 0.229, 0.224, 0.225 };
	u8 in[2 * 5 * 6 * 3];
	float out[2 * 16 * 6 * 9];
	void *data[2] = { in, out };
	double worst = 0;
	int ret, ok = 1;
	u32 n, c, y, x;

	fill_u8(in, sizeof(in));
	tl_task(&T, DRM_NPU_OP_AIPP, 2);
	T.params.aipp.in_format = DRM_NPU_IMG_RGB888;
	T.params.aipp.flags = swap ? DRM_NPU_AIPP_RBUV_SWAP : 0;
	T.params.aipp.pad_top = pt;
	T.params.aipp.pad_left = pl;
	T.params.aipp.pad_bottom = pb;
	T.params.aipp.pad_right = pr;
	T.params.aipp.pad_value = tl_f2u(-1.5f);
	for (c = 0; c < 3; c++) {
		T.params.aipp.min[c] = tl_f2u((float)(m[c] * 255));
		T.params.aipp.var_reci[c] = tl_f2u((float)(1 / (s[c] * 255)));
	}
	tl_opnd(&T.operands[0], 0, U8, 4, is, NULL);
	if (nc1) {
		tl_opnd(&T.operands[1], 1, F32, 5, o5, NULL);
		T.operands[1].layout = DRM_NPU_LAYOUT_NC1HWC0;
	} else {
		tl_opnd(&T.operands[1], 1, F32, 4, on, NULL);
		T.operands[1].layout = DRM_NPU_LAYOUT_NCHW;
	}
	memset(out, 0x7f, sizeof(out));
	ret = tl_run_chunked(&T, data);
	for (n = 0; n < 2 && !ret; n++)
		for (c = 0; c < (nc1 ? 16u : 3u); c++)
			for (y = 0; y < oh; y++)
				for (x = 0; x < ow; x++) {
					float got = nc1 ?
						out[(((size_t)n * oh + y) * ow + x) * 16 + c] :
						out[(((size_t)n * 3 + c) * oh + y) * ow + x];
					int in_img = y >= pt && y < pt + h &&
						     x >= pl && x < pl + w;
					double ref;
					u32 sc;

					if (c >= 3) {
						ok &= got == 0.0f;
						continue;
					}
					if (!in_img) {
						ok &= got == -1.5f;
						continue;
					}
					sc = swap ? 2 - c : c;
					ref = (in[(((size_t)n * h + y - pt) * w + x - pl) * 3 + sc] /
					       255.0 - m[c]) / s[c];
					worst = fmax(worst, fabs(got - ref));
				}
	tap_ok(!ret && ok && worst < 1e-5,
	       "AIPP RGB888 -> %s%s: padding exact, max |err| %.2g vs (x/255-mean)/std",
	       nc1 ? "NC1HWC0" : "NCHW", swap ? " (rb swap)" : "", worst);
}

/* AIPP NV12 with the BT.601 narrow matrix = IMG_CSC then normalise. */
static void test_aipp_nv12(void)
{
	const u32 h = 6, w = 10;
	u32 ys[3] = { 1, h, w }, uvs[4] = { 1, h / 2, w / 2, 2 };
	u32 os[4] = { 1, 3, h, w }, cs[4] = { 1, h, w, 3 };
	static const s16 q8[9] = { 298, 0, 409, 298, -100, -208, 298, 516, 0 };
	u8 y[6 * 10], uv[3 * 5 * 2], rgb[6 * 10 * 3];
	float out[3 * 6 * 10];
	void *d1[3] = { y, uv, out }, *d2[3] = { y, uv, rgb };
	int ret, ret2, ok = 1;
	u32 i, c;

	fill_u8(y, sizeof(y));
	fill_u8(uv, sizeof(uv));
	tl_task(&T, DRM_NPU_OP_AIPP, 3);
	T.params.aipp.in_format = DRM_NPU_IMG_NV12;
	T.params.aipp.flags = DRM_NPU_AIPP_CSC;
	memcpy(T.params.aipp.matrix, q8, sizeof(q8));
	T.params.aipp.input_bias[0] = 16;
	T.params.aipp.input_bias[1] = 128;
	T.params.aipp.input_bias[2] = 128;
	for (c = 0; c < 3; c++) {
		T.params.aipp.mean[c] = 100;
		T.params.aipp.var_reci[c] = tl_f2u(0.5f);
	}
	tl_opnd(&T.operands[0], 0, U8, 3, ys, NULL);
	tl_opnd(&T.operands[1], 1, U8, 4, uvs, NULL);
	tl_opnd(&T.operands[2], 2, F32, 4, os, NULL);
	ret = tl_run(&T, d1);
	tl_task(&T, DRM_NPU_OP_IMG_CSC, 3);
	T.params.img_csc.in_format = DRM_NPU_IMG_NV12;
	T.params.img_csc.out_format = DRM_NPU_IMG_RGB888;
	T.params.img_csc.matrix = DRM_NPU_CSC_BT601_NARROW;
	tl_opnd(&T.operands[0], 0, U8, 3, ys, NULL);
	tl_opnd(&T.operands[1], 1, U8, 4, uvs, NULL);
	tl_opnd(&T.operands[2], 2, U8, 4, cs, NULL);
	ret2 = tl_run(&T, d2);
	for (i = 0; i < h * w && !ret && !ret2; i++)
		for (c = 0; c < 3; c++)
			ok &= out[c * h * w + i] ==
			      (float)((int)rgb[i * 3 + c] - 100) * 0.5f;
	tap_ok(!ret && !ret2 && ok,
	       "AIPP NV12 + BT.601 narrow CSC = IMG_CSC then (x - mean) * var_reci, exactly");
}

/*
 * Dynamic AIPP: the same task with its parameters in an operand gives the
 * static task's bits; parameters out of range fault at run time.
 */
static void test_aipp_dynamic(void)
{
	const u32 h = 4, w = 5;
	u32 is[4] = { 1, h, w, 3 }, os[4] = { 1, 3, h + 1, w }, ds[1] = { 76 };
	static const s16 q8[9] = { 256, 0, 0, 0, 256, 0, 0, 0, 256 };
	struct drm_npu_aipp_dyn dyn;
	u8 in[4 * 5 * 3];
	float o1[3 * 5 * 5], o2[3 * 5 * 5];
	void *d1[2] = { in, o1 }, *d2[3] = { in, &dyn, o2 };
	int r1, r2, r3, c;
	u32 bad;

	fill_u8(in, sizeof(in));
	tl_task(&T, DRM_NPU_OP_AIPP, 2);
	T.params.aipp.in_format = DRM_NPU_IMG_BGR888;
	T.params.aipp.flags = DRM_NPU_AIPP_CSC | DRM_NPU_AIPP_RBUV_SWAP;
	T.params.aipp.pad_top = 1;
	memcpy(T.params.aipp.matrix, q8, sizeof(q8));
	T.params.aipp.output_bias[1] = 3;
	T.params.aipp.pad_value = tl_f2u(2.5f);
	for (c = 0; c < 3; c++) {
		T.params.aipp.mean[c] = (u16)(10 * c);
		T.params.aipp.min[c] = tl_f2u(0.25f * (float)c);
		T.params.aipp.var_reci[c] = tl_f2u(1.0f / (float)(c + 3));
	}
	memset(&dyn, 0, sizeof(dyn));
	dyn.flags = T.params.aipp.flags;
	memcpy(dyn.matrix, q8, sizeof(q8));
	dyn.output_bias[1] = 3;
	dyn.pad_value = T.params.aipp.pad_value;
	memcpy(dyn.mean, T.params.aipp.mean, sizeof(dyn.mean));
	memcpy(dyn.min, T.params.aipp.min, sizeof(dyn.min));
	memcpy(dyn.var_reci, T.params.aipp.var_reci, sizeof(dyn.var_reci));
	tl_opnd(&T.operands[0], 0, U8, 4, is, NULL);
	tl_opnd(&T.operands[1], 1, F32, 4, os, NULL);
	r1 = tl_run(&T, d1);

	tl_task(&T, DRM_NPU_OP_AIPP, 3);
	T.params.aipp.in_format = DRM_NPU_IMG_BGR888;
	T.params.aipp.flags = DRM_NPU_AIPP_DYNAMIC;
	T.params.aipp.pad_top = 1;
	tl_opnd(&T.operands[0], 0, U8, 4, is, NULL);
	tl_opnd(&T.operands[1], 1, U8, 1, ds, NULL);
	tl_opnd(&T.operands[2], 2, F32, 4, os, NULL);
	r2 = tl_run_chunked(&T, d2);
	tap_ok(!r1 && !r2 && !memcmp(o1, o2, sizeof(o1)),
	       "dynamic AIPP (parameters in an operand) = the static task, bit for bit");
	dyn.mean[2] = 300;
	r3 = tl_run(&T, d2);
	tap_ok(r3 == DRM_NPU_FAULT_BAD_PARAMS,
	       "dynamic AIPP with a mean of 300: BAD_PARAMS fault (%d)", r3);
	dyn.mean[2] = 20;
	dyn.reserved = 1;
	tap_ok(tl_run(&T, d2) == DRM_NPU_FAULT_BAD_PARAMS,
	       "dynamic AIPP with reserved bits set: BAD_PARAMS fault");
	T.params.aipp.mean[0] = 1;
	tap_ok(npu_op_check(&T, &bad) != 0,
	       "dynamic AIPP with static parameters set: refused");
	T.params.aipp.mean[0] = 0;
	ds[0] = 75;
	tl_opnd(&T.operands[1], 1, U8, 1, ds, NULL);
	tap_ok(npu_op_check(&T, &bad) != 0 && bad == 1,
	       "dynamic AIPP with a 75-byte parameter operand: refused");
}

/* Refusals: each breaks one rule of the checks. */
static void test_refusals(void)
{
	u32 is[4] = { 1, 4, 4, 3 }, os[4] = { 1, 3, 4, 4 }, r4[4] = { 1, 4, 4, 3 };
	u32 ys[3] = { 1, 5, 5 }, uvs[4] = { 1, 2, 3, 2 }, co[4] = { 1, 5, 5, 3 };

	tl_task(&T, DRM_NPU_OP_AIPP, 2);
	T.params.aipp.in_format = DRM_NPU_IMG_RGB888;
	tl_opnd(&T.operands[0], 0, U8, 4, is, NULL);
	tl_opnd(&T.operands[1], 1, F32, 4, os, NULL);
	tap_ok(check_ok(), "AIPP: a well-formed task passes");
	T.params.aipp.pad_bottom = 1;
	tap_ok(!check_ok(), "AIPP: out H must include the padding");
	T.params.aipp.pad_bottom = 0;
	T.params.aipp.matrix[0] = 1;
	tap_ok(!check_ok(), "AIPP: a matrix without CSC is refused");
	T.params.aipp.matrix[0] = 0;
	T.params.aipp.mean[3] = 1;
	tap_ok(!check_ok(), "AIPP: mean of a fourth channel is refused");
	T.params.aipp.mean[3] = 0;
	T.params.aipp.var_reci[0] = 0x7f800000u;
	tap_ok(!check_ok(), "AIPP: an infinite var_reci is refused");
	T.params.aipp.var_reci[0] = 0;
	T.params.aipp.flags = 4;
	tap_ok(!check_ok(), "AIPP: unknown flags are refused");
	T.params.aipp.flags = 0;
	T.operands[1].dtype = U8;
	tap_ok(!check_ok(), "AIPP: output must be F32");
	T.operands[1].dtype = F32;
	T.params.aipp.in_format = DRM_NPU_IMG_XRGB8888;
	tap_ok(!check_ok(), "AIPP: XRGB8888 needs C = 4");

	tl_task(&T, DRM_NPU_OP_IMG_CSC, 3);
	T.params.img_csc.in_format = DRM_NPU_IMG_NV12;
	T.params.img_csc.out_format = DRM_NPU_IMG_RGB888;
	tl_opnd(&T.operands[0], 0, U8, 3, ys, NULL);
	tl_opnd(&T.operands[1], 1, U8, 4, uvs, NULL);
	tl_opnd(&T.operands[2], 2, U8, 4, co, NULL);
	tap_ok(!check_ok(), "IMG_CSC: UV of an odd-sized image must be ceil(H/2) x ceil(W/2)");
	uvs[1] = 3;
	tl_opnd(&T.operands[1], 1, U8, 4, uvs, NULL);
	tap_ok(check_ok(), "IMG_CSC: NV12 5x5 with a 3x3 UV plane passes");
	T.params.img_csc.out_format = DRM_NPU_IMG_NV12;
	tap_ok(!check_ok(), "IMG_CSC: output must be RGB888/BGR888");
	T.params.img_csc.out_format = DRM_NPU_IMG_BGR888;
	T.params.img_csc.in_format = 99;
	tap_ok(!check_ok(), "IMG_CSC: unknown format is refused");

	tl_task(&T, DRM_NPU_OP_IMG_RESIZE, 2);
	tl_opnd(&T.operands[0], 0, U8, 4, is, NULL);
	tl_opnd(&T.operands[1], 1, U8, 4, r4, NULL);
	tap_ok(check_ok(), "IMG_RESIZE: a well-formed task passes");
	T.params.img_resize.pad_top = 2;
	T.params.img_resize.pad_bottom = 2;
	tap_ok(!check_ok(), "IMG_RESIZE: a border that leaves no area is refused");
	T.params.img_resize.pad_top = 0xffffffffu;
	T.params.img_resize.pad_bottom = 1;
	tap_ok(!check_ok(), "IMG_RESIZE: border sum past 2^32 is refused (64-bit sum)");
	T.params.img_resize.pad_top = 0;
	T.params.img_resize.pad_bottom = 0;
	T.params.img_resize.mode = 2;
	tap_ok(!check_ok(), "IMG_RESIZE: unknown mode is refused");
	T.params.img_resize.mode = 0;
	is[1] = 0;
	tl_opnd(&T.operands[0], 0, U8, 4, is, NULL);
	tap_ok(!check_ok(), "IMG_RESIZE: an empty source image is refused");
	is[1] = 4;
	is[3] = 5;
	r4[3] = 5;
	tl_opnd(&T.operands[0], 0, U8, 4, is, NULL);
	tl_opnd(&T.operands[1], 1, U8, 4, r4, NULL);
	tap_ok(!check_ok(), "IMG_RESIZE: more than 4 channels is refused");
}

int main(void)
{
	tl_seed(19);
	test_csc_nv(DRM_NPU_IMG_NV12, DRM_NPU_CSC_BT601_FULL, 0, 8, 12);
	test_csc_nv(DRM_NPU_IMG_NV21, DRM_NPU_CSC_BT601_NARROW, 1, 7, 9);
	test_csc_nv(DRM_NPU_IMG_NV12, DRM_NPU_CSC_BT709_NARROW, 0, 5, 3);
	test_csc_packed();
	test_resize(DRM_NPU_IMG_BILINEAR, 37, 53, 16, 24, 3, 0, 0, 0, 0);
	test_resize(DRM_NPU_IMG_BILINEAR, 7, 5, 31, 23, 3, 0, 0, 0, 0);
	test_resize(DRM_NPU_IMG_BILINEAR, 20, 30, 16, 20, 4, 2, 1, 3, 4);
	test_resize(DRM_NPU_IMG_BILINEAR, 1, 1, 4, 4, 1, 0, 0, 0, 0);
	test_resize(DRM_NPU_IMG_NEAREST, 37, 53, 16, 24, 3, 0, 0, 0, 0);
	test_resize(DRM_NPU_IMG_NEAREST, 7, 5, 31, 23, 1, 1, 1, 1, 1);
	test_aipp_rgb(0, 0);
	test_aipp_rgb(1, 0);
	test_aipp_rgb(0, 1);
	test_aipp_nv12();
	test_aipp_dynamic();
	test_refusals();
	return tap_done();
}
