// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_more_test.c - LAYERNORM, BATCHNORM, GATHER (incl. the bad-index
 * fault), WHERE, PAD, RESIZE, TRANSDATA, QUANTIZE/DEQUANTIZE and ATTENTION
 * against references written here (double precision, or exact values
 * worked out from the ONNX specification and PyTorch).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"
#include "npu_kern.h"

#define F32	DRM_NPU_DTYPE_F32

static struct drm_npu_task T;

static void op(u32 i, u32 dt, u32 rank, const u32 *shape, const u32 *st)
{
	tl_opnd(&T.operands[i], (u16)i, dt, rank, shape, st);
}

/*
 * LAYERNORM over the last dim with a scale and bias of shape [1] (stride
 * 0 once broadcast): every element takes element 0 of each, never the
 * one past it (99 here), on the contiguous two-at-a-time path too.
 */
/*
 * The reference: @groups groups of @grp floats of @x normalised (biased
 * variance, eps 1e-5), times s[i * ss] plus b[i * bs].
 */
static void ln_ref(const float *x, u32 groups, u32 grp, const float *s,
		   u32 ss, const float *b, u32 bs, double *ref)
{
	u32 g, i;

	for (g = 0; g < groups; g++) {
		double m = 0, v = 0;

		for (i = 0; i < grp; i++)
			m += x[g * grp + i];
		m /= grp;
		for (i = 0; i < grp; i++)
			v += (x[g * grp + i] - m) * (x[g * grp + i] - m);
		v /= grp;
		for (i = 0; i < grp; i++)
			ref[g * grp + i] = (x[g * grp + i] - m) /
					   sqrt(v + 1e-5) * s[i * ss] +
					   b[i * bs];
	}
}

static void layernorm_scalar_scale(const float *x)
{
	enum { A = 3, B = 5, C = 12, N = A * B * C };
	float s[2] = { 0.75f, 99.0f }, b[2] = { -0.5f, 99.0f }, y[N], y2[N];
	void *data[4] = { (void *)x, s, b, y };
	double ref[N], err;
	int ok;

	ln_ref(x, N / C, C, s, 0, b, 0, ref);
	tl_task(&T, DRM_NPU_OP_LAYERNORM, 4);
	op(0, F32, 3, (const u32[]){ A, B, C }, NULL);
	op(1, F32, 1, (const u32[]){ 1 }, NULL);
	op(2, F32, 1, (const u32[]){ 1 }, NULL);
	op(3, F32, 3, (const u32[]){ A, B, C }, NULL);
	T.params.norm.axis = 2;
	T.params.norm.flags = DRM_NPU_NORM_HAS_BIAS;
	T.params.norm.epsilon = tl_f2u(1e-5f);
	ok = tl_run(&T, data) == 0;
	err = tl_max_rel(y, ref, N, tl_rms(ref, N));
	data[3] = y2;
	ok &= tl_run_chunked(&T, data) == 0 && !memcmp(y, y2, sizeof(y));
	tap_ok(ok && err < 1e-6, "LAYERNORM with scale and bias of shape [1] "
	       "broadcast: rel err %.2g", err);
}

/*
 * LAYERNORM's contiguous rows (the levels' ln_sum and ln_out vectors)
 * give the bits of the strided path (x every other float: the scalar
 * loops) at every ISA level: rows of 1, 7, 8, 9, 768 and 771 floats, with
 * and without a bias, values around 1000 (the variance cancels), and a
 * row with an inf (the variance's partial sums start at +0, not m - m).
 */
static void layernorm_levels(void)
{
	static const u32 cols[] = { 1, 7, 8, 9, 768, 771 };
	enum { R = 3, CM = 771 };
	static float x[R * CM], xs[2 * R * CM], s[CM], b[CM];
	static float y[R * CM], y2[R * CM];
	u32 isa, c, i, save = tl_isa;
	int ok = 1, hb;

	tl_seed(41);
	tl_fill(x, R * CM, 999, 1001);
	tl_fill(s, CM, -2, 2);
	tl_fill(b, CM, -1, 1);
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++)
		for (c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
			for (hb = 0; hb < 2; hb++) {
				u32 n = cols[c], shape[2] = { R, n };
				void *data[4] = { x, s, hb ? (void *)b : y,
						  y };

				tl_isa = isa;
				x[n + n / 2] = (c == 4 && hb) ? NPU_INFF :
					       1000.5f;
				for (i = 0; i < R * n; i++)
					xs[2 * i] = x[i];
				tl_task(&T, DRM_NPU_OP_LAYERNORM, 3 + hb);
				op(0, F32, 2, shape, NULL);
				op(1, F32, 1, &n, NULL);
				if (hb)
					op(2, F32, 1, &n, NULL);
				op(2 + hb, F32, 2, shape, NULL);
				T.params.norm.axis = 1;
				T.params.norm.flags = hb ?
					DRM_NPU_NORM_HAS_BIAS : 0;
				T.params.norm.epsilon = tl_f2u(1e-5f);
				ok &= tl_run(&T, data) == 0;
				op(0, F32, 2, shape,
				   (const u32[]){ 2 * n, 2 });
				data[0] = xs;
				data[2 + hb] = y2;
				ok &= tl_run(&T, data) == 0;
				ok &= !memcmp(y, y2, (size_t)R * n * 4);
			}
	tl_isa = save;
	tap_ok(ok, "LAYERNORM: contiguous rows give the strided path's bits "
	       "at every ISA level (1 to 771 floats, bias or not, an inf)");
}

/* ln_sum's documented order, one by one */
static double ln_sum_ref(const float *x, u64 n, double m, bool sq)
{
	double p[8] = { 0 }, t;
	u64 i;

	for (i = 0; i + 8 <= n; i += 8)
		for (u32 l = 0; l < 8; l++) {
			double v = x[i + l];

			if (sq) {
				v -= m;
				v *= v;
			}
			p[l] += v;
		}
	t = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
	for (; i < n; i++) {
		double v = x[i];

		if (sq) {
			v -= m;
			v *= v;
		}
		t += v;
	}
	return t;
}

/*
 * The levels' ln_sum and ln_out against their documented operations, in
 * double bits (the sums of values of mixed magnitude, so that another
 * order rounds differently), every length 0..40 and 1000.
 */
static void ln_kern_levels(void)
{
	enum { N = 1000 };
	static float x[N], s[N], b[N], y[N], want[N];
	u32 isa, n, i, bad = 0;

	tl_seed(43);
	tl_fill(x, N, -1, 1);
	for (i = 0; i < N; i += 3)
		x[i] *= 1e6f;
	tl_fill(s, N, -2, 2);
	tl_fill(b, N, -1, 1);
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		const struct npu_kern *k = npu_kern_get(isa);

		for (n = 0; n <= N; n = n < 40 ? n + 1 : N + 1) {
			double m = ln_sum_ref(x, n, 0, false) / (n ? n : 1);
			double a = k->ln_sum(x, n, 0, false);
			double q = k->ln_sum(x, n, m, true);
			double ra = ln_sum_ref(x, n, 0, false);
			double rq = ln_sum_ref(x, n, m, true);

			bad += memcmp(&a, &ra, 8) != 0 || memcmp(&q, &rq, 8);
			for (int hb = 0; hb < 2; hb++) {
				k->ln_out(y, x, s, hb ? b : NULL, n, m, 0.37);
				for (i = 0; i < n; i++) {
					double d = (x[i] - m) * 0.37 * s[i];

					if (hb)
						d += b[i];
					want[i] = (float)d;
				}
				bad += n && memcmp(y, want, n * 4) != 0;
			}
		}
	}
	tap_ok(!bad, "ln_sum and ln_out: their documented operations' bits at "
	       "every ISA level, lengths 0..40 and 1000 (%u differ)", bad);
}

static void layernorm(void)
{
	enum { A = 3, B = 5, C = 12, N = A * B * C };
	float x[N], s[B * C], b[B * C], y[N], y2[N];
	double ref[N];
	u32 axis;

	tl_seed(31);
	tl_fill(x, N, -2, 3);
	tl_fill(s, B * C, 0.5f, 1.5f);
	tl_fill(b, B * C, -1, 1);
	for (axis = 1; axis <= 2; axis++) {
		u32 grp = axis == 2 ? C : B * C;
		void *data[4] = { x, s, b, y };
		double err;
		int ok;

		ln_ref(x, N / grp, grp, s, 1, b, 1, ref);
		tl_task(&T, DRM_NPU_OP_LAYERNORM, 4);
		op(0, F32, 3, (const u32[]){ A, B, C }, NULL);
		op(1, F32, 3 - axis, axis == 2 ? (const u32[]){ C } :
		   (const u32[]){ B, C }, NULL);
		op(2, F32, 3 - axis, axis == 2 ? (const u32[]){ C } :
		   (const u32[]){ B, C }, NULL);
		op(3, F32, 3, (const u32[]){ A, B, C }, NULL);
		T.params.norm.axis = axis;
		T.params.norm.flags = DRM_NPU_NORM_HAS_BIAS;
		T.params.norm.epsilon = tl_f2u(1e-5f);
		ok = tl_run(&T, data) == 0;
		err = tl_max_rel(y, ref, N, tl_rms(ref, N));
		data[3] = y2;
		ok &= tl_run_chunked(&T, data) == 0 && !memcmp(y, y2, sizeof(y));
		tap_ok(ok && err < 1e-6, "LAYERNORM axis %u (biased variance): rel err %.2g",
		       axis, err);
	}
	layernorm_scalar_scale(x);
}

static void batchnorm(void)
{
	enum { N = 2, C = 3, H = 4, W = 5, E = N * C * H * W };
	float x[E], y[E], p[4][C];
	float *x5 = calloc(N * H * W * 16, 4), *y5 = malloc(N * H * W * 16 * 4);
	double ref[E];
	void *data[6] = { x, p[0], p[1], p[2], p[3], y };
	u32 i, c;
	int ok;

	tl_seed(41);
	tl_fill(x, E, -2, 2);
	for (i = 0; i < 4; i++)
		tl_fill(p[i], C, i == 3 ? 0.1f : -1, 1.5f);
	for (i = 0; i < E; i++) {
		c = i / (H * W) % C;
		ref[i] = (x[i] - p[2][c]) / sqrt(p[3][c] + 1e-5) * p[0][c] + p[1][c];
	}
	tl_task(&T, DRM_NPU_OP_BATCHNORM, 6);
	op(0, F32, 4, (const u32[]){ N, C, H, W }, NULL);
	for (i = 1; i <= 4; i++)
		op(i, F32, 1, (const u32[]){ C }, NULL);
	op(5, F32, 4, (const u32[]){ N, C, H, W }, NULL);
	T.params.norm.epsilon = tl_f2u(1e-5f);
	ok = tl_run(&T, data) == 0;
	tap_ok(ok && tl_max_rel(y, ref, E, 1e-2) < 1e-6,
	       "BATCHNORM NCHW: rel err %.2g", tl_max_rel(y, ref, E, 1e-2));
	for (i = 0; i < E; i++) {
		u32 n = i / (C * H * W), cc = i / (H * W) % C, hw = i % (H * W);

		x5[(n * H * W + hw) * 16 + cc] = x[i];
	}
	op(0, F32, 5, (const u32[]){ N, 1, H, W, 16 }, NULL);
	op(5, F32, 5, (const u32[]){ N, 1, H, W, 16 }, NULL);
	T.operands[0].layout = T.operands[5].layout = DRM_NPU_LAYOUT_NC1HWC0;
	memset(y5, 0x7f, N * H * W * 16 * 4);
	data[0] = x5;
	data[5] = y5;
	ok = tl_run_chunked(&T, data) == 0;
	for (i = 0; i < N * H * W * 16; i++) {
		u32 cc = i % 16, hw = i / 16 % (H * W), n = i / 16 / (H * W);

		if (cc >= C)
			ok &= y5[i] == 0;
		else
			ok &= y5[i] == y[(n * C + cc) * H * W + hw];
	}
	tap_ok(ok, "BATCHNORM NC1HWC0 agrees with NCHW, padding channels 0");
	free(x5);
	free(y5);
}

static void gather(void)
{
	float d[5 * 4], y[2 * 3 * 4], y1[5 * 2];
	int64_t ix[6] = { 0, 4, -1, 2, -5, 1 };
	int32_t ix1[2] = { 3, -4 };
	void *data[3] = { d, ix, y };
	int ok, i, j;

	for (i = 0; i < 20; i++)
		d[i] = (float)i;
	tl_task(&T, DRM_NPU_OP_GATHER, 3);
	op(0, F32, 2, (const u32[]){ 5, 4 }, NULL);
	op(1, DRM_NPU_DTYPE_I64, 2, (const u32[]){ 2, 3 }, NULL);
	op(2, F32, 3, (const u32[]){ 2, 3, 4 }, NULL);
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < 6; i++)
		for (j = 0; j < 4; j++)
			ok &= y[i * 4 + j] == d[((ix[i] + 5) % 5) * 4 + j];
	tap_ok(ok, "GATHER axis 0 with I64 indices, negative ones wrap");
	ix[3] = 5;
	tap_ok(tl_run(&T, data) == DRM_NPU_FAULT_BAD_INDEX,
	       "GATHER index 5 of 5 faults with BAD_INDEX");
	ix[3] = -6;
	tap_ok(tl_run_chunked(&T, data) == DRM_NPU_FAULT_BAD_INDEX,
	       "GATHER index -6 of 5 faults (chunked run too)");
	tl_task(&T, DRM_NPU_OP_GATHER, 3);
	op(0, F32, 2, (const u32[]){ 5, 4 }, NULL);
	op(1, DRM_NPU_DTYPE_I32, 1, (const u32[]){ 2 }, NULL);
	op(2, F32, 2, (const u32[]){ 5, 2 }, NULL);
	T.params.gather.axis = 1;
	data[1] = ix1;
	data[2] = y1;
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < 5; i++)
		ok &= y1[i * 2] == d[i * 4 + 3] && y1[i * 2 + 1] == d[i * 4];
	tap_ok(ok, "GATHER axis 1 with I32 indices");
	{
		int64_t shp[4] = { 1, 3, 224, 224 }, one = 2, out;
		void *dd[3] = { shp, &one, &out };

		tl_task(&T, DRM_NPU_OP_GATHER, 3);
		op(0, DRM_NPU_DTYPE_I64, 1, (const u32[]){ 4 }, NULL);
		op(1, DRM_NPU_DTYPE_I64, 0, NULL, NULL);
		op(2, DRM_NPU_DTYPE_I64, 0, NULL, NULL);
		tap_ok(tl_run(&T, dd) == 0 && out == 224,
		       "GATHER a scalar index from an I64 shape tensor");
	}
}

static void where_pad(void)
{
	u8 cond[2] = { 1, 0 };
	float x[6] = { 1, 2, 3, 4, 5, 6 }, yv = -1, out[6];
	void *data[4] = { cond, x, &yv, out };
	int ok;

	tl_task(&T, DRM_NPU_OP_WHERE, 4);
	op(0, DRM_NPU_DTYPE_BOOL, 2, (const u32[]){ 2, 1 }, NULL);
	op(1, F32, 2, (const u32[]){ 2, 3 }, NULL);
	op(2, F32, 0, NULL, NULL);
	op(3, F32, 2, (const u32[]){ 2, 3 }, NULL);
	ok = tl_run(&T, data) == 0 && out[0] == 1 && out[2] == 3 &&
	     out[3] == -1 && out[5] == -1;
	tap_ok(ok, "WHERE with broadcast cond and scalar y");

	{
		/* in [2, 3] = 1..6, pad dim0 1+0, dim1 2+1 */
		static const float want[3][3][6] = {
			{ { 9, 9, 9, 9, 9, 9 }, { 9, 9, 1, 2, 3, 9 },
			  { 9, 9, 4, 5, 6, 9 } },
			{ { 6, 5, 4, 5, 6, 5 }, { 3, 2, 1, 2, 3, 2 },
			  { 6, 5, 4, 5, 6, 5 } },
			{ { 1, 1, 1, 2, 3, 3 }, { 1, 1, 1, 2, 3, 3 },
			  { 4, 4, 4, 5, 6, 6 } },
		};
		float py[18];
		u32 mode;

		for (mode = 0; mode < 3; mode++) {
			void *pd[2] = { x, py };

			tl_task(&T, DRM_NPU_OP_PAD, 2);
			op(0, F32, 2, (const u32[]){ 2, 3 }, NULL);
			op(1, F32, 2, (const u32[]){ 3, 6 }, NULL);
			T.params.padding.mode = mode;
			T.params.padding.value = mode ? 0 : tl_f2u(9.0f);
			T.params.padding.before[0] = 1;
			T.params.padding.before[1] = 2;
			ok = tl_run(&T, pd) == 0 &&
			     !memcmp(py, want[mode], sizeof(py));
			tap_ok(ok, "PAD mode %u (constant/reflect/edge as numpy)", mode);
		}
	}
	{
		int32_t xi[2] = { 7, 8 }, yi[5];
		void *pd[2] = { xi, yi };

		tl_task(&T, DRM_NPU_OP_PAD, 2);
		op(0, DRM_NPU_DTYPE_I32, 1, (const u32[]){ 2 }, NULL);
		op(1, DRM_NPU_DTYPE_I32, 1, (const u32[]){ 5 }, NULL);
		T.params.padding.value = tl_f2u(-3.0f);
		T.params.padding.before[0] = 1;
		tap_ok(tl_run(&T, pd) == 0 && yi[0] == -3 && yi[1] == 7 &&
		       yi[2] == 8 && yi[4] == -3, "PAD I32 constant");
	}
}

static int resize1d(u32 mode, u32 coord, u32 nearest, float scale,
		    const float *in, u32 n, u32 m, float *out)
{
	void *data[2] = { (void *)in, out };

	tl_task(&T, DRM_NPU_OP_RESIZE, 2);
	op(0, F32, 4, (const u32[]){ 1, 1, 1, n }, NULL);
	op(1, F32, 4, (const u32[]){ 1, 1, 1, m }, NULL);
	T.params.resize.mode = mode;
	T.params.resize.coord = coord;
	T.params.resize.nearest = nearest;
	T.params.resize.scale[3] = scale ? tl_f2u(scale) : 0;
	if (mode == DRM_NPU_RESIZE_CUBIC)
		T.params.resize.cubic_a = tl_f2u(-0.75f);
	return tl_run(&T, data);
}

static int same(const float *a, const float *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fabsf(a[i] - b[i]) > 1e-6f)
			return 0;
	return 1;
}

static int close_rel(const float *a, const float *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fabsf(a[i] - b[i]) > 1e-6f * fmaxf(1.0f, fabsf(b[i])))
			return 0;
	return 1;
}

/*
 * Cubic against the ONNX reference (onnx.backend.test.case.node.resize's
 * interpolate_nd with cubic_coeffs, float64 then float32), worked out on
 * inputs chosen so every tap weight matters: edges, exclude_outside's
 * renormalisation, both dims of a 2-D resize active.
 */
static void resize_cubic(void)
{
	static const float q[4] = { 0, 1, 4, 9 }, l8[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	float o[9], x[16], y[9];
	void *data[2] = { x, y };
	int i;

	resize1d(DRM_NPU_RESIZE_CUBIC, DRM_NPU_RESIZE_HALF_PIXEL, 0, 2, q, 4, 8, o);
	tap_ok(same(o, (const float[]){ -0.10546875f, 0.12109375f, 0.45703125f,
				       1.609375f, 2.828125f, 5.44921875f,
				       7.97265625f, 9.52734375f }, 8),
	       "RESIZE cubic x2 half_pixel A = -0.75 (edges repeat)");
	tl_task(&T, DRM_NPU_OP_RESIZE, 2);
	op(0, F32, 4, (const u32[]){ 1, 1, 1, 4 }, NULL);
	op(1, F32, 4, (const u32[]){ 1, 1, 1, 8 }, NULL);
	T.params.resize.mode = DRM_NPU_RESIZE_CUBIC;
	T.params.resize.cubic_a = tl_f2u(-0.5f);
	T.params.resize.flags = DRM_NPU_RESIZE_EXCLUDE_OUTSIDE;
	data[0] = (void *)q;
	data[1] = o;
	tap_ok(tl_run(&T, data) == 0 &&
	       same(o, (const float[]){ -0.0882352963f, 0.124087594f,
				       0.572519064f, 1.5625f, 3.0625f,
				       5.31297731f, 8.11678791f, 9.44117641f }, 8),
	       "RESIZE cubic A = -0.5 exclude_outside renormalises");
	resize1d(DRM_NPU_RESIZE_CUBIC, DRM_NPU_RESIZE_ALIGN_CORNERS, 0, 0, l8, 8, 3,
		 o);
	tap_ok(same(o, (const float[]){ 1, 4.5f, 8 }, 3),
	       "RESIZE cubic align_corners 8 -> 3 of a line is the line");
	for (i = 0; i < 16; i++)
		x[i] = (float)pow(i, 1.5);
	tl_task(&T, DRM_NPU_OP_RESIZE, 2);
	op(0, F32, 4, (const u32[]){ 1, 1, 4, 4 }, NULL);
	op(1, F32, 4, (const u32[]){ 1, 1, 3, 3 }, NULL);
	T.params.resize.mode = DRM_NPU_RESIZE_CUBIC;
	T.params.resize.coord = DRM_NPU_RESIZE_ASYMMETRIC;
	T.params.resize.cubic_a = tl_f2u(-0.75f);
	data[0] = x;
	data[1] = y;
	i = tl_run(&T, data);
	tap_ok(!i && close_rel(y, (const float[]){ 0, 1.55518675f, 4.55233669f,
						  12.441494f, 17.6273212f,
						  23.3349285f, 36.4186935f,
						  43.4196663f, 50.8511543f }, 9),
	       "RESIZE bicubic 4x4 -> 3x3 asymmetric: 16 taps (%d: %g %g)",
	       i, y[4], y[8]);
}

static void resize(void)
{
	static const float in3[3] = { 0, 1, 2 }, in8[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const float in2[2] = { 0, 1 };
	float o[12];

	resize1d(0, DRM_NPU_RESIZE_HALF_PIXEL, 0, 2, in3, 3, 6, o);
	tap_ok(same(o, (const float[]){ 0, 0, 1, 1, 2, 2 }, 6),
	       "RESIZE nearest x2 half_pixel round_prefer_floor");
	resize1d(0, DRM_NPU_RESIZE_HALF_PIXEL, 0, 0.5f, in8, 8, 4, o);
	tap_ok(same(o, (const float[]){ 0, 2, 4, 6 }, 4),
	       "RESIZE nearest /2 half_pixel: ties round down");
	resize1d(0, DRM_NPU_RESIZE_HALF_PIXEL, DRM_NPU_RESIZE_ROUND_PREFER_CEIL,
		 0.5f, in8, 8, 4, o);
	tap_ok(same(o, (const float[]){ 1, 3, 5, 7 }, 4),
	       "RESIZE nearest /2 round_prefer_ceil: ties round up");
	resize1d(0, DRM_NPU_RESIZE_ASYMMETRIC, DRM_NPU_RESIZE_FLOOR, 0, in3, 3, 7, o);
	tap_ok(same(o, (const float[]){ 0, 0, 0, 1, 1, 2, 2 }, 7),
	       "RESIZE nearest asymmetric floor (torch 'nearest') 3 -> 7");
	resize1d(0, DRM_NPU_RESIZE_ASYMMETRIC, DRM_NPU_RESIZE_CEIL, 0, in3, 3, 5, o);
	tap_ok(same(o, (const float[]){ 0, 1, 2, 2, 2 }, 5),
	       "RESIZE nearest asymmetric ceil, clamped");
	resize1d(1, DRM_NPU_RESIZE_HALF_PIXEL, 0, 0, in2, 2, 4, o);
	tap_ok(same(o, (const float[]){ 0, 0.25f, 0.75f, 1 }, 4),
	       "RESIZE linear half_pixel (torch align_corners=False)");
	resize1d(1, DRM_NPU_RESIZE_ALIGN_CORNERS, 0, 0, in2, 2, 4, o);
	tap_ok(same(o, (const float[]){ 0, 1.0f / 3, 2.0f / 3, 1 }, 4),
	       "RESIZE linear align_corners");
	resize1d(1, DRM_NPU_RESIZE_ASYMMETRIC, 0, 0, in2, 2, 4, o);
	tap_ok(same(o, (const float[]){ 0, 0.5f, 1, 1 }, 4),
	       "RESIZE linear asymmetric");
	resize1d(1, DRM_NPU_RESIZE_PYTORCH_HALF_PIXEL, 0, 0, in2, 2, 1, o);
	tap_ok(same(o, (const float[]){ 0 }, 1),
	       "RESIZE linear pytorch_half_pixel to length 1 takes index 0");
	{
		/* ONNX resize_downsample_scales_linear_align_corners: with a
		 * scale, the output length is in * scale unrounded (2.4) */
		float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, y[2];
		void *data[2] = { x, y };

		tl_task(&T, DRM_NPU_OP_RESIZE, 2);
		op(0, F32, 4, (const u32[]){ 1, 1, 2, 4 }, NULL);
		op(1, F32, 4, (const u32[]){ 1, 1, 1, 2 }, NULL);
		T.params.resize.mode = DRM_NPU_RESIZE_LINEAR;
		T.params.resize.coord = DRM_NPU_RESIZE_ALIGN_CORNERS;
		T.params.resize.scale[0] = T.params.resize.scale[1] = tl_f2u(1.0f);
		T.params.resize.scale[2] = T.params.resize.scale[3] = tl_f2u(0.6f);
		tap_ok(tl_run(&T, data) == 0 &&
		       same(y, (const float[]){ 1, 3.142857f }, 2),
		       "RESIZE align_corners with a scale uses in * scale (%g %g)",
		       y[0], y[1]);
	}
	{
		/* bilinear 2x2 -> 3x3 align_corners: centre is the mean */
		float x[4] = { 1, 2, 3, 4 }, y[9];
		void *data[2] = { x, y };

		tl_task(&T, DRM_NPU_OP_RESIZE, 2);
		op(0, F32, 4, (const u32[]){ 1, 1, 2, 2 }, NULL);
		op(1, F32, 4, (const u32[]){ 1, 1, 3, 3 }, NULL);
		T.params.resize.mode = DRM_NPU_RESIZE_LINEAR;
		T.params.resize.coord = DRM_NPU_RESIZE_ALIGN_CORNERS;
		tap_ok(tl_run(&T, data) == 0 &&
		       same(y, (const float[]){ 1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4 }, 9),
		       "RESIZE bilinear 2x2 -> 3x3 align_corners");
	}
	resize_cubic();
}

static void transdata(void)
{
	enum { N = 2, C = 20, H = 3, W = 4 };
	float x[N * C * H * W], back[N * C * H * W];
	float mid[N * 2 * H * W * 16];
	int8_t xi[N * C * H * W], mi[N * 1 * H * W * 32];
	void *data[2] = { x, mid };
	int ok, i;

	for (i = 0; i < N * C * H * W; i++) {
		x[i] = (float)i;
		xi[i] = (int8_t)(i % 120 + 1);
	}
	tl_task(&T, DRM_NPU_OP_TRANSDATA, 2);
	op(0, F32, 4, (const u32[]){ N, C, H, W }, NULL);
	op(1, F32, 5, (const u32[]){ N, 2, H, W, 16 }, NULL);
	T.operands[1].layout = DRM_NPU_LAYOUT_NC1HWC0;
	memset(mid, 0x55, sizeof(mid));
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < N * 2 * H * W * 16; i++) {
		int c0 = i % 16, hw = i / 16 % (H * W), c1 = i / 16 / (H * W) % 2;
		int n = i / 16 / (H * W) / 2, c = c1 * 16 + c0;

		ok &= c >= C ? mid[i] == 0 : mid[i] == x[(n * C + c) * H * W + hw];
	}
	tap_ok(ok, "TRANSDATA NCHW -> NC1HWC0 (C0 16), padding channels zero");
	tl_task(&T, DRM_NPU_OP_TRANSDATA, 2);
	op(0, F32, 5, (const u32[]){ N, 2, H, W, 16 }, NULL);
	op(1, F32, 4, (const u32[]){ N, C, H, W }, NULL);
	T.operands[0].layout = DRM_NPU_LAYOUT_NC1HWC0;
	data[0] = mid;
	data[1] = back;
	ok = tl_run_chunked(&T, data) == 0 && !memcmp(x, back, sizeof(x));
	tap_ok(ok, "TRANSDATA NC1HWC0 -> NCHW restores the tensor");
	tl_task(&T, DRM_NPU_OP_TRANSDATA, 2);
	op(0, DRM_NPU_DTYPE_I8, 4, (const u32[]){ N, C, H, W }, NULL);
	op(1, DRM_NPU_DTYPE_I8, 5, (const u32[]){ N, 1, H, W, 32 }, NULL);
	T.operands[1].layout = DRM_NPU_LAYOUT_NC1HWC0;
	data[0] = xi;
	data[1] = mi;
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < N * H * W * 32; i++) {
		int c = i % 32, hw = i / 32 % (H * W), n = i / 32 / (H * W);

		ok &= c >= C ? mi[i] == 0 : mi[i] == xi[(n * C + c) * H * W + hw];
	}
	tap_ok(ok, "TRANSDATA I8 uses C0 = 32");
}

static void quant(void)
{
	float x[8] = { 0.25f, 0.35f, -0.25f, 0.45f, 100, -100, 0.0f, 0.05f };
	int8_t q[8];
	uint8_t qu[8];
	float back[8];
	void *data[2] = { x, q };
	int ok, i;

	/* x / 0.1 = 2.5, 3.5, -2.5, 4.5: halves to even; then + zp (-1) */
	tl_task(&T, DRM_NPU_OP_QUANTIZE, 2);
	op(0, F32, 1, (const u32[]){ 8 }, NULL);
	op(1, DRM_NPU_DTYPE_I8, 1, (const u32[]){ 8 }, NULL);
	T.params.quant.scale = tl_f2u(0.1f);
	T.params.quant.zero_point = -1;
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < 8; i++) {
		float v = rintf(x[i] / 0.1f) - 1;

		v = v < -128 ? -128 : (v > 127 ? 127 : v);
		ok &= q[i] == (int8_t)v;
	}
	tap_ok(ok, "QUANTIZE I8: round half to even, zero point, saturation");
	T.operands[1].dtype = DRM_NPU_DTYPE_U8;
	T.params.quant.zero_point = 128;
	data[1] = qu;
	ok = tl_run(&T, data) == 0 && qu[4] == 255 && qu[5] == 0 &&
	     qu[6] == 128 && qu[0] == 130;
	tap_ok(ok, "QUANTIZE U8 with zero point 128");
	tl_task(&T, DRM_NPU_OP_DEQUANTIZE, 2);
	op(0, DRM_NPU_DTYPE_U8, 1, (const u32[]){ 8 }, NULL);
	op(1, F32, 1, (const u32[]){ 8 }, NULL);
	T.params.quant.scale = tl_f2u(0.1f);
	T.params.quant.zero_point = 128;
	data[0] = qu;
	data[1] = back;
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < 8; i++)
		ok &= back[i] == (float)((int)qu[i] - 128) * 0.1f;
	tap_ok(ok, "DEQUANTIZE U8");
	{
		/* per-channel along axis 1 of [2, 3], zero points as I8 */
		float xc[6] = { 1, 1, 1, -1, -1, -1 }, sc[3] = { 0.5f, 0.25f, 0.1f };
		int8_t zp[3] = { 0, 1, -2 }, qc[6];
		float dq[6];
		void *d4[4] = { xc, qc, sc, zp };

		tl_task(&T, DRM_NPU_OP_QUANTIZE, 4);
		op(0, F32, 2, (const u32[]){ 2, 3 }, NULL);
		op(1, DRM_NPU_DTYPE_I8, 2, (const u32[]){ 2, 3 }, NULL);
		op(2, F32, 1, (const u32[]){ 3 }, NULL);
		op(3, DRM_NPU_DTYPE_I8, 1, (const u32[]){ 3 }, NULL);
		T.params.quant.flags = DRM_NPU_QUANT_PER_CHANNEL;
		T.params.quant.axis = 1;
		ok = tl_run(&T, d4) == 0 && qc[0] == 2 && qc[1] == 5 && qc[2] == 8 &&
		     qc[3] == -2 && qc[4] == -3 && qc[5] == -12;
		tap_ok(ok, "QUANTIZE per channel (axis 1) with zero-point operand");
		T.opcode = DRM_NPU_OP_DEQUANTIZE;
		op(0, DRM_NPU_DTYPE_I8, 2, (const u32[]){ 2, 3 }, NULL);
		op(1, F32, 2, (const u32[]){ 2, 3 }, NULL);
		d4[0] = qc;
		d4[1] = dq;
		ok = tl_run(&T, d4) == 0;
		for (i = 0; i < 6; i++)
			ok &= fabsf(dq[i] - xc[i]) < 1e-6f;
		tap_ok(ok, "DEQUANTIZE per channel round-trips");
	}
}

static void attention(void)
{
	enum { B = 2, H = 3, SQ = 5, SK = 7, D = 8, DV = 6 };
	static float q[B * H * SQ * D], k[B * H * SK * D], v[B * H * SK * DV];
	static float mask[B * SK], y[B * H * SQ * DV], y2[B * H * SQ * DV];
	static u8 bmask[B * SK];
	static double ref[B * H * SQ * DV];
	float scale = 1.0f / sqrtf(D);
	int b, h, i, j, e, t, variant;

	tl_seed(77);
	tl_fill(q, sizeof(q) / 4, -1, 1);
	tl_fill(k, sizeof(k) / 4, -1, 1);
	tl_fill(v, sizeof(v) / 4, -1, 1);
	for (i = 0; i < B * SK; i++) {
		bmask[i] = (i % SK) < SK - 1 - i / SK;	/* key padding */
		mask[i] = bmask[i] ? 0.0f : -1e9f;
	}
	for (variant = 0; variant < 3; variant++) {
		void *data[5] = { q, k, v, variant == 2 ? (void *)bmask :
				  (void *)mask, y };
		int has_mask = variant > 0, ok;
		double err;

		for (b = 0; b < B; b++)
		for (h = 0; h < H; h++)
		for (i = 0; i < SQ; i++) {
			double s[SK], m = -INFINITY, sum = 0;
			const float *qr = q + ((b * H + h) * SQ + i) * D;

			for (j = 0; j < SK; j++) {
				const float *kr = k + ((b * H + h) * SK + j) * D;

				s[j] = 0;
				for (t = 0; t < D; t++)
					s[j] += (double)qr[t] * kr[t];
				s[j] *= scale;
				if (has_mask && !bmask[b * SK + j])
					s[j] = -INFINITY;
				m = fmax(m, s[j]);
			}
			for (j = 0; j < SK; j++)
				sum += exp(s[j] - m);
			for (e = 0; e < DV; e++) {
				double acc = 0;

				for (j = 0; j < SK; j++)
					acc += exp(s[j] - m) / sum *
					       v[((b * H + h) * SK + j) * DV + e];
				ref[((b * H + h) * SQ + i) * DV + e] = acc;
			}
		}
		tl_task(&T, DRM_NPU_OP_ATTENTION, 4 + has_mask);
		op(0, F32, 4, (const u32[]){ B, H, SQ, D }, NULL);
		op(1, F32, 4, (const u32[]){ B, H, SK, D }, NULL);
		op(2, F32, 4, (const u32[]){ B, H, SK, DV }, NULL);
		if (has_mask)
			op(3, variant == 2 ? DRM_NPU_DTYPE_BOOL : F32, 4,
			   (const u32[]){ B, 1, 1, SK }, NULL);
		op(3 + has_mask, F32, 4, (const u32[]){ B, H, SQ, DV }, NULL);
		data[3 + has_mask] = y;
		T.params.attention.scale = tl_f2u(scale);
		T.params.attention.flags = has_mask ? DRM_NPU_ATTN_HAS_MASK : 0;
		ok = tl_run(&T, data) == 0;
		err = tl_max_rel(y, ref, sizeof(y) / 4, tl_rms(ref, sizeof(y) / 4));
		data[3 + has_mask] = y2;
		ok &= tl_run_chunked(&T, data) == 0 && !memcmp(y, y2, sizeof(y));
		tap_ok(ok && err < 1e-5, "ATTENTION %s: rel err %.2g, chunking exact",
		       variant == 0 ? "unmasked" : variant == 1 ? "additive mask" :
		       "bool mask", err);
	}
}

/*
 * The level's score and value loops (dot8_rows, axpy_rows: several keys at
 * a time, the output row in registers) give the bits of the op's scalar
 * order - the strided path's dot() and axpy - at every ISA level: key and
 * head counts that are no multiple of the blocks, a head tail past 8.
 */
static void attention_levels(void)
{
	enum { H = 2, SQ = 3, SK = 37, D = 21, DV = 19 };
	static float q[H * SQ * D], k[H * SK * D];
	static float v[H * SK * DV], y[H * SQ * DV], y2[H * SQ * DV * 2];
	static float first[H * SQ * DV];
	u32 yst[3] = { SQ * DV * 2, DV * 2, 2 };
	u32 isa, i, save = tl_isa;
	int ok = 1;

	tl_seed(93);
	tl_fill(q, sizeof(q) / 4, -1, 1);
	tl_fill(k, sizeof(k) / 4, -1, 1);
	tl_fill(v, sizeof(v) / 4, -1, 1);
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		void *data[4] = { q, k, v, y };

		tl_isa = isa;
		tl_task(&T, DRM_NPU_OP_ATTENTION, 4);
		op(0, F32, 3, (const u32[]){ H, SQ, D }, NULL);
		op(1, F32, 3, (const u32[]){ H, SK, D }, NULL);
		op(2, F32, 3, (const u32[]){ H, SK, DV }, NULL);
		op(3, F32, 3, (const u32[]){ H, SQ, DV }, NULL);
		T.params.attention.scale = tl_f2u(0.37f);
		ok &= tl_run(&T, data) == 0;
		if (isa == NPU_ISA_BASELINE)
			memcpy(first, y, sizeof(y));
		ok &= !memcmp(first, y, sizeof(y));
		/* strided out: the scalar axpy loop */
		op(3, F32, 3, (const u32[]){ H, SQ, DV }, yst);
		data[3] = y2;
		ok &= tl_run(&T, data) == 0;
		for (i = 0; i < H * SQ * DV; i++)
			ok &= !memcmp(&y2[2 * i], &first[i], sizeof(float));
		/* the scores against the op's order written out */
		{
			const struct npu_kern *kn = npu_kern_get(isa);
			float sc[SK], p[8], want;
			u32 j, t;

			static float kt[D * SK], sct[SK];

			kn->dot8_rows(sc, q, k, D, SK, D);
			for (j = 0; j < SK; j++)
				for (t = 0; t < D; t++)
					kt[t * SK + j] = k[j * D + t];
			kn->dott_rows(sct, q, kt, SK, SK, D);
			ok &= !memcmp(sc, sct, sizeof(sc));
			for (j = 0; j < SK; j++) {
				memset(p, 0, sizeof(p));
				for (t = 0; t + 8 <= D; t += 8)
					for (i = 0; i < 8; i++)
						p[i] += q[t + i] * k[j * D + t + i];
				want = ((p[0] + p[1]) + (p[2] + p[3])) +
				       ((p[4] + p[5]) + (p[6] + p[7]));
				for (; t < D; t++)
					want += q[t] * k[j * D + t];
				ok &= !memcmp(&want, &sc[j], sizeof(want));
			}
		}
	}
	tl_isa = save;
	tap_ok(ok, "ATTENTION: the level's score loops (keys as rows and "
	       "transposed) and value loops give the scalar order's bits at "
	       "every ISA level");
}

/* T: ATTENTION of h heads with an additive F32 mask [sk] */
static void attn_masked_task(u32 h, u32 sq, u32 sk, u32 d, u32 dv,
			     float scale)
{
	tl_task(&T, DRM_NPU_OP_ATTENTION, 5);
	op(0, F32, 3, (const u32[]){ h, sq, d }, NULL);
	op(1, F32, 3, (const u32[]){ h, sk, d }, NULL);
	op(2, F32, 3, (const u32[]){ h, sk, dv }, NULL);
	op(3, F32, 1, (const u32[]){ sk }, NULL);
	op(4, F32, 3, (const u32[]){ h, sq, dv }, NULL);
	T.params.attention.scale = tl_f2u(scale);
	T.params.attention.flags = DRM_NPU_ATTN_HAS_MASK;
}

/*
 * ATTENTION's rows in pairs (two query rows through axpy_rows2, with the
 * unified buffer) against rows one at a time (chunks of 1..7 units,
 * every other without the buffer): the same bits at every level, over two
 * key blocks whose maximum grows (the rescale), an odd row count (a last
 * row alone) and a value width of vectors and a tail.
 */
static void attention_pairs(void)
{
	enum { H = 2, SQ = 5, SK = 300, D = 24, DV = 37 };
	static float q[H * SQ * D], k[H * SK * D], v[H * SK * DV], m[SK];
	static float y[H * SQ * DV], y2[H * SQ * DV];
	void *data[5] = { q, k, v, m, y };
	u32 isa, j, save = tl_isa;
	int ok = 1;

	tl_seed(77);
	tl_fill(q, sizeof(q) / 4, -1, 1);
	tl_fill(k, sizeof(k) / 4, -1, 1);
	tl_fill(v, sizeof(v) / 4, -1, 1);
	for (j = 0; j < SK; j++)
		m[j] = (float)j / 30.0f;	/* the second block's keys win */
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		tl_isa = isa;
		attn_masked_task(H, SQ, SK, D, DV, 0.4f);
		data[4] = y;
		ok &= tl_run(&T, data) == 0;
		data[4] = y2;
		ok &= tl_run_chunked(&T, data) == 0;
		ok &= !memcmp(y, y2, sizeof(y));
	}
	tl_isa = save;
	tap_ok(ok, "ATTENTION rows in pairs give the bits of rows one at a "
	       "time at every level (two key blocks, a last row alone)");
}

/*
 * The levels' expf_row: npu_expf_row()'s bits for values across the fast
 * range, its bounds and past them (inf, NaN, -87.5, 88.5, denormal
 * results), whole vectors and tails, a vector with one odd lane.
 */
static void expf_levels(void)
{
	enum { N = 1000 + 13 };
	static float x[N], want[N], got[N];
	static const float odd[] = { -87.0f, 88.0f, -87.5f, 88.5f, -100.0f,
				     100.0f, 0.0f, -0.0f, 1e-30f };
	u32 isa, i;
	int ok = 1;

	tl_seed(41);
	tl_fill(x, N, -90, 90);
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		x[i * 37] = odd[i];
	x[500] = NPU_INFF;
	x[517] = -NPU_INFF;
	x[600] = NPU_NANF;
	for (i = 700; i < 800; i++)	/* whole vectors in the fast range */
		x[i] = (float)i / 100.0f - 8.0f;
	memcpy(want, x, sizeof(x));
	npu_expf_row(want, N);
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		memcpy(got, x, sizeof(x));
		npu_kern_get(isa)->expf_row(got, N);
		ok &= !memcmp(got, want, sizeof(got));
		memcpy(got, x + 700, 100 * sizeof(float));
		npu_kern_get(isa)->expf_row(got, 100);
		ok &= !memcmp(got, want + 700, 100 * sizeof(float));
	}
	tap_ok(ok, "expf_row: npu_expf_row()'s bits at every ISA level, odd "
	       "lanes (inf, NaN, outside [-87, 88]) included");
}

/*
 * MATMUL with GELU: the activation runs over whole output rows after the
 * unit's tiles (late_gelu) - the bits of npu_geluf() on the product, for
 * a width past several tiles and a column tail, at every ISA level.
 */
static void matmul_gelu(void)
{
	enum { M = 19, K = 23, N = 77 };
	static float a[M * K], b[K * N], y[M * N], y2[M * N];
	u32 isa, i, save = tl_isa;
	int ok = 1;

	tl_seed(95);
	tl_fill(a, sizeof(a) / 4, -2, 2);
	tl_fill(b, sizeof(b) / 4, -1, 1);
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		void *data[3] = { a, b, y };

		tl_isa = isa;
		tl_task(&T, DRM_NPU_OP_MATMUL, 3);
		op(0, F32, 2, (const u32[]){ M, K }, NULL);
		op(1, F32, 2, (const u32[]){ K, N }, NULL);
		op(2, F32, 2, (const u32[]){ M, N }, NULL);
		T.params.matmul.alpha = tl_f2u(1.0f);
		ok &= tl_run(&T, data) == 0;
		for (i = 0; i < M * N; i++)
			y2[i] = npu_geluf(y[i]);
		T.params.matmul.act.kind = DRM_NPU_ACT_GELU;
		ok &= tl_run_chunked(&T, data) == 0 &&
		      !memcmp(y, y2, sizeof(y));
	}
	tl_isa = save;
	tap_ok(ok, "MATMUL with GELU: npu_geluf() of the product, bit for bit, "
	       "at every ISA level");
	/*
	 * bias + RELU / CLIP through the level's 16-column store: the bits
	 * of the product, the bias added, then the clamp
	 */
	ok = 1;
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		static float bias[N], y3[M * N];
		void *d0[3] = { a, b, y }, *d1[4] = { a, b, bias, y3 };
		u32 act;

		tl_isa = isa;
		tl_fill(bias, N, -1, 1);
		for (act = 0; act < 2; act++) {
			tl_task(&T, DRM_NPU_OP_MATMUL, 3);
			op(0, F32, 2, (const u32[]){ M, K }, NULL);
			op(1, F32, 2, (const u32[]){ K, N }, NULL);
			op(2, F32, 2, (const u32[]){ M, N }, NULL);
			T.params.matmul.alpha = tl_f2u(1.0f);
			ok &= tl_run(&T, d0) == 0;
			for (i = 0; i < M * N; i++) {
				float v = y[i] + bias[i % N];

				v = v < 0.0f ? 0.0f : v;
				y2[i] = act && v > 0.5f ? 0.5f : v;
			}
			tl_task(&T, DRM_NPU_OP_MATMUL, 4);
			op(0, F32, 2, (const u32[]){ M, K }, NULL);
			op(1, F32, 2, (const u32[]){ K, N }, NULL);
			op(2, F32, 1, (const u32[]){ N }, NULL);
			op(3, F32, 2, (const u32[]){ M, N }, NULL);
			T.params.matmul.alpha = tl_f2u(1.0f);
			T.params.matmul.beta = tl_f2u(1.0f);
			T.params.matmul.flags = DRM_NPU_MATMUL_HAS_BIAS;
			T.params.matmul.act.kind = act ? DRM_NPU_ACT_CLIP :
						   DRM_NPU_ACT_RELU;
			T.params.matmul.act.alpha = tl_f2u(0.0f);
			T.params.matmul.act.beta = tl_f2u(0.5f);
			ok &= tl_run_chunked(&T, d1) == 0 &&
			      !memcmp(y3, y2, sizeof(y2));
		}
	}
	tl_isa = save;
	tap_ok(ok, "MATMUL + bias with RELU and CLIP: the product, the bias, "
	       "the clamp, bit for bit at every ISA level");
}

/*
 * Keys and queries of other inner strides sum in dot()'s order, not in
 * the transposed keys' tree: the bits with and without the unified buffer
 * (tl_run_chunked() runs every other chunk without it) must agree.
 */
static void attention_strided(void)
{
	enum { SK = 8, D = 16, DV = 4, SQ = 5 };
	static float q[SQ * D * 2], k[SK * D * 2], v[SK * DV];
	static float y1[SQ * DV], y2[SQ * DV];
	u32 qst[2] = { D, 1 }, kst[2] = { 2 * D, 2 };
	u32 save = tl_isa, isa, pass;
	int ok = 1;

	tl_seed(5);
	tl_fill(q, sizeof(q) / 4, -1, 1);
	tl_fill(k, sizeof(k) / 4, -1, 1);
	tl_fill(v, sizeof(v) / 4, -1, 1);
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++)
		for (pass = 0; pass < 2; pass++) {
			void *data[4] = { q, k, v, y1 };

			/* strided keys, then strided queries */
			qst[1] = pass ? 2 : 1;
			kst[1] = pass ? 1 : 2;
			qst[0] = pass ? 2 * D : D;
			kst[0] = pass ? D : 2 * D;
			tl_isa = isa;
			tl_task(&T, DRM_NPU_OP_ATTENTION, 4);
			op(0, F32, 2, (const u32[]){ SQ, D }, qst);
			op(1, F32, 2, (const u32[]){ SK, D }, kst);
			op(2, F32, 2, (const u32[]){ SK, DV }, NULL);
			op(3, F32, 2, (const u32[]){ SQ, DV }, NULL);
			T.params.attention.scale = tl_f2u(1.0f);
			ok &= tl_run(&T, data) == 0;
			data[3] = y2;
			ok &= tl_run_chunked(&T, data) == 0 &&
			      !memcmp(y1, y2, sizeof(y1));
		}
	tl_isa = save;
	tap_ok(ok, "ATTENTION with strided keys or queries: the same bits with "
	       "and without the unified buffer, at every level");
}

/* Long keys (several 256-key blocks, growing maxima), odd head size. */
static void attention_long(void)
{
	enum { H = 2, SQ = 3, SK = 600, D = 20, DV = 5 };
	static float q[H * SQ * D], k[H * SK * D], v[H * SK * DV], m[SK];
	static float y[H * SQ * DV];
	static double ref[H * SQ * DV];
	static u8 none[SK];
	void *data[5] = { q, k, v, m, y };
	int h, i, j, e, t, ok;
	double err;

	tl_seed(91);
	tl_fill(q, sizeof(q) / 4, -1, 1);
	tl_fill(k, sizeof(k) / 4, -1, 1);
	tl_fill(v, sizeof(v) / 4, -1, 1);
	for (j = 0; j < SK; j++)
		m[j] = (float)j / 100.0f - (j % 7 == 0 ? 30.0f : 0.0f);
	for (h = 0; h < H; h++)
	for (i = 0; i < SQ; i++) {
		double s[SK], mx = -INFINITY, sum = 0;

		for (j = 0; j < SK; j++) {
			s[j] = 0;
			for (t = 0; t < D; t++)
				s[j] += (double)q[(h * SQ + i) * D + t] *
					k[(h * SK + j) * D + t];
			s[j] = s[j] * 0.3 + m[j];
			mx = fmax(mx, s[j]);
		}
		for (j = 0; j < SK; j++)
			sum += exp(s[j] - mx);
		for (e = 0; e < DV; e++) {
			double acc = 0;

			for (j = 0; j < SK; j++)
				acc += exp(s[j] - mx) / sum * v[(h * SK + j) * DV + e];
			ref[(h * SQ + i) * DV + e] = acc;
		}
	}
	attn_masked_task(H, SQ, SK, D, DV, 0.3f);
	ok = tl_run(&T, data) == 0;
	err = tl_max_rel(y, ref, H * SQ * DV, tl_rms(ref, H * SQ * DV));
	tap_ok(ok && err < 1e-5, "ATTENTION 600 keys in blocks, head size 20: rel err %.2g",
	       err);
	/* every key masked: NaN like PyTorch */
	T.operands[3].dtype = DRM_NPU_DTYPE_BOOL;
	data[3] = none;
	ok = tl_run(&T, data) == 0 && isnan(y[0]) && isnan(y[H * SQ * DV - 1]);
	tap_ok(ok, "ATTENTION with every key masked gives NaN");
}

int main(void)
{
	layernorm();
	layernorm_levels();
	ln_kern_levels();
	batchnorm();
	gather();
	where_pad();
	resize();
	transdata();
	quant();
	attention();
	attention_long();
	attention_levels();
	attention_pairs();
	expf_levels();
	attention_strided();
	matmul_gelu();
	return tap_done();
}
