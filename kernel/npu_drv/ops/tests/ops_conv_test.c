// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_conv_test.c - CONV2D and MATMUL against naive double-precision
 * references on odd shapes (1x1, 7x7, non-multiples of 16, groups,
 * depthwise, padding, strides, dilation, batch broadcasting, transposes),
 * NC1HWC0 against NCHW, and chunking invariance (bit-identical results).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"

#define TOL	1e-5

struct conv_case {
	u32 n, c, h, w, o, kh, kw, groups, sh, sw, dh, dw, pt, pl, pb, pr;
	int bias, act;
};

static u32 out_dim(u32 in, u32 p0, u32 p1, u32 k, u32 s, u32 d)
{
	return (in + p0 + p1 - d * (k - 1) - 1) / s + 1;
}

static void conv_ref(const struct conv_case *cc, const float *x, const float *w,
		     const float *b, double *y, u32 oh, u32 ow)
{
	u32 cg = cc->c / cc->groups, og = cc->o / cc->groups;
	u32 n, o, yy, xx, c, i, j;

	for (n = 0; n < cc->n; n++)
	for (o = 0; o < cc->o; o++)
	for (yy = 0; yy < oh; yy++)
	for (xx = 0; xx < ow; xx++) {
		double s = cc->bias ? b[o] : 0;
		u32 g = o / og;

		for (c = 0; c < cg; c++)
		for (i = 0; i < cc->kh; i++)
		for (j = 0; j < cc->kw; j++) {
			long iy = (long)yy * cc->sh - cc->pt + (long)i * cc->dh;
			long ix = (long)xx * cc->sw - cc->pl + (long)j * cc->dw;

			if (iy < 0 || iy >= cc->h || ix < 0 || ix >= cc->w)
				continue;
			s += (double)x[((n * cc->c + g * cg + c) * cc->h + iy) *
				      cc->w + ix] *
			     w[((o * cg + c) * cc->kh + i) * cc->kw + j];
		}
		if (cc->act == DRM_NPU_ACT_RELU && s < 0)
			s = 0;
		y[((n * cc->o + o) * oh + yy) * ow + xx] = s;
	}
}

static void conv_task(struct drm_npu_task *t, const struct conv_case *cc,
		      u32 oh, u32 ow)
{
	u32 xs[4] = { cc->n, cc->c, cc->h, cc->w };
	u32 ws[4] = { cc->o, cc->c / cc->groups, cc->kh, cc->kw };
	u32 bs[1] = { cc->o }, ys[4] = { cc->n, cc->o, oh, ow };
	struct drm_npu_conv2d_params *p = &t->params.conv2d;
	u32 k = 0;

	tl_task(t, DRM_NPU_OP_CONV2D, 3 + cc->bias);
	tl_opnd(&t->operands[k++], 0, DRM_NPU_DTYPE_F32, 4, xs, NULL);
	tl_opnd(&t->operands[k++], 1, DRM_NPU_DTYPE_F32, 4, ws, NULL);
	if (cc->bias)
		tl_opnd(&t->operands[k++], 2, DRM_NPU_DTYPE_F32, 1, bs, NULL);
	tl_opnd(&t->operands[k], 3, DRM_NPU_DTYPE_F32, 4, ys, NULL);
	p->flags = cc->bias ? DRM_NPU_CONV_HAS_BIAS : 0;
	p->groups = cc->groups;
	p->stride_h = cc->sh;
	p->stride_w = cc->sw;
	p->dilation_h = cc->dh;
	p->dilation_w = cc->dw;
	p->pad_top = cc->pt;
	p->pad_left = cc->pl;
	p->pad_bottom = cc->pb;
	p->pad_right = cc->pr;
	p->act.kind = cc->act;
}

/* NCHW [n][c][h][w] -> NC1HWC0 with C0 = 16, zero-padded. */
static float *to_5d(const float *x, u32 n, u32 c, u32 h, u32 w)
{
	u32 c1 = (c + 15) / 16, i, j, y, z;
	float *r = calloc((size_t)n * c1 * h * w * 16, sizeof(float));

	for (i = 0; i < n; i++)
	for (j = 0; j < c; j++)
	for (y = 0; y < h; y++)
	for (z = 0; z < w; z++)
		r[((((size_t)i * c1 + j / 16) * h + y) * w + z) * 16 + j % 16] =
			x[(((size_t)i * c + j) * h + y) * w + z];
	return r;
}

/* OIHW weights @w stored O-innermost ([KH][KW][I][O] in memory) in @wt. */
static void to_olast(const struct conv_case *cc, const float *w, float *wt)
{
	u32 cg = cc->c / cc->groups, o, c, i, j;

	for (o = 0; o < cc->o; o++)
	for (c = 0; c < cg; c++)
	for (i = 0; i < cc->kh; i++)
	for (j = 0; j < cc->kw; j++)
		wt[((i * cc->kw + j) * cg + c) * cc->o + o] =
			w[((o * cg + c) * cc->kh + i) * cc->kw + j];
}

static void conv_one(const struct conv_case *cc, const char *name)
{
	u32 oh = out_dim(cc->h, cc->pt, cc->pb, cc->kh, cc->sh, cc->dh);
	u32 ow = out_dim(cc->w, cc->pl, cc->pr, cc->kw, cc->sw, cc->dw);
	size_t nx = (size_t)cc->n * cc->c * cc->h * cc->w;
	size_t nw = (size_t)cc->o * (cc->c / cc->groups) * cc->kh * cc->kw;
	size_t ny = (size_t)cc->n * cc->o * oh * ow;
	float *x = malloc(nx * 4), *w = malloc(nw * 4), *b = malloc(cc->o * 4);
	float *y = malloc(ny * 4), *y2 = malloc(ny * 4);
	double *ref = malloc(ny * 8);
	struct drm_npu_task t;
	void *data[4];
	int ret;

	tl_fill(x, nx, -1, 1);
	tl_fill(w, nw, -1, 1);
	tl_fill(b, cc->o, -1, 1);
	conv_ref(cc, x, w, b, ref, oh, ow);
	conv_task(&t, cc, oh, ow);
	data[0] = x;
	data[1] = w;
	data[2] = cc->bias ? (void *)b : (void *)y;
	data[3] = y;
	ret = tl_run(&t, data);
	tap_ok(ret == 0 && tl_max_rel(y, ref, ny, tl_rms(ref, ny)) < TOL,
	       "conv %s: rel err %.3g", name, tl_max_rel(y, ref, ny, tl_rms(ref, ny)));
	memset(y2, 0xff, ny * 4);
	data[2 + cc->bias] = y2;
	ret = tl_run_chunked(&t, data);
	tap_ok(ret == 0 && !memcmp(y, y2, ny * 4),
	       "conv %s: random chunking gives identical bits", name);

	/* weights stored O-innermost ([KH][KW][I][O] in memory): strided OIHW */
	{
		u32 cg = cc->c / cc->groups;
		float *wt = malloc(nw * 4);
		u32 wst[4] = { 1, cc->o, cc->kw * cg * cc->o, cg * cc->o };
		double err;

		to_olast(cc, w, wt);
		tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 4,
			(const u32[]){ cc->o, cg, cc->kh, cc->kw }, wst);
		data[1] = wt;
		ret = tl_run_chunked(&t, data);
		err = tl_max_rel(y2, ref, ny, tl_rms(ref, ny));
		tap_ok(ret == 0 && err < TOL,
		       "conv %s: strided (O-innermost) weights: rel err %.3g",
		       name, err);
		/*
		 * At the baseline level the pixel-major product (O-innermost
		 * weights, ops.rst) sums like the 4x8 tiles: the same bits.
		 */
		if (tl_isa == NPU_ISA_BASELINE)
			tap_ok(ret == 0 && !memcmp(y, y2, ny * 4),
			       "conv %s: baseline: O-innermost weights give the "
			       "bits of dense ones", name);
		/* and in NC1HWC0, through the 16-channel input blocks */
		{
			u32 c1 = (cc->c + 15) / 16, o1 = (cc->o + 15) / 16;
			float *x5 = to_5d(x, cc->n, cc->c, cc->h, cc->w);
			size_t n5 = (size_t)cc->n * o1 * oh * ow * 16;
			float *y5 = malloc(n5 * 4);
			float *yb = to_5d(y2, cc->n, cc->o, oh, ow);
			u32 xs[5] = { cc->n, c1, cc->h, cc->w, 16 };
			u32 ys[5] = { cc->n, o1, oh, ow, 16 };
			struct drm_npu_task t5 = t;

			tl_opnd(&t5.operands[0], 0, DRM_NPU_DTYPE_F32, 5, xs,
				NULL);
			t5.operands[0].layout = DRM_NPU_LAYOUT_NC1HWC0;
			tl_opnd(&t5.operands[2 + cc->bias], 3,
				DRM_NPU_DTYPE_F32, 5, ys, NULL);
			t5.operands[2 + cc->bias].layout =
				DRM_NPU_LAYOUT_NC1HWC0;
			memset(y5, 0x7f, n5 * 4);
			data[0] = x5;
			data[2 + cc->bias] = y5;
			ret = tl_run_chunked(&t5, data);
			tap_ok(ret == 0 && !memcmp(y5, yb, n5 * 4),
			       "conv %s: O-innermost weights: NC1HWC0 agrees "
			       "with NCHW bit for bit", name);
			data[0] = x;
			free(x5);
			free(y5);
			free(yb);
		}
		tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 4,
			(const u32[]){ cc->o, cg, cc->kh, cc->kw }, NULL);
		data[1] = w;
		data[2 + cc->bias] = y2;
		free(wt);
	}

	/* the same in NC1HWC0 (input and output), bits must agree */
	{
		u32 c1 = (cc->c + 15) / 16, o1 = (cc->o + 15) / 16;
		float *x5 = to_5d(x, cc->n, cc->c, cc->h, cc->w);
		size_t n5 = (size_t)cc->n * o1 * oh * ow * 16;
		float *y5 = malloc(n5 * 4), *yb = to_5d(y, cc->n, cc->o, oh, ow);
		u32 xs[5] = { cc->n, c1, cc->h, cc->w, 16 };
		u32 ys[5] = { cc->n, o1, oh, ow, 16 };
		struct drm_npu_operand *ox = &t.operands[0];
		struct drm_npu_operand *oy = &t.operands[2 + cc->bias];

		tl_opnd(ox, 0, DRM_NPU_DTYPE_F32, 5, xs, NULL);
		ox->layout = DRM_NPU_LAYOUT_NC1HWC0;
		tl_opnd(oy, 3, DRM_NPU_DTYPE_F32, 5, ys, NULL);
		oy->layout = DRM_NPU_LAYOUT_NC1HWC0;
		memset(y5, 0x7f, n5 * 4);
		data[0] = x5;
		data[2 + cc->bias] = y5;
		ret = tl_run_chunked(&t, data);
		tap_ok(ret == 0 && !memcmp(y5, yb, n5 * 4),
		       "conv %s: NC1HWC0 agrees with NCHW bit for bit", name);
		/* in one call with the unified buffer (depthwise tables) */
		memset(y5, 0x7f, n5 * 4);
		ret = tl_run(&t, data);
		tap_ok(ret == 0 && !memcmp(y5, yb, n5 * 4),
		       "conv %s: NC1HWC0 in one call agrees too", name);
		free(x5);
		free(y5);
		free(yb);
	}
	free(x);
	free(w);
	free(b);
	free(y);
	free(y2);
	free(ref);
}

static const struct conv_case conv_cases[] = {
	/* n c h w o kh kw g sh sw dh dw pt pl pb pr bias act */
	{ 1, 3, 7, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, DRM_NPU_ACT_RELU },
	{ 2, 17, 9, 11, 19, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0 },
	{ 1, 8, 1, 1, 6, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0 },
	{ 1, 6, 13, 10, 4, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0 },
	{ 1, 12, 8, 9, 12, 3, 3, 12, 1, 1, 1, 1, 1, 1, 1, 1, 1, DRM_NPU_ACT_RELU },
	{ 1, 5, 12, 12, 7, 3, 2, 1, 1, 2, 2, 3, 2, 0, 1, 3, 0, 0 },
	{ 2, 3, 20, 23, 9, 7, 7, 1, 2, 2, 1, 1, 3, 3, 3, 3, 1, 0 },
	{ 1, 33, 14, 14, 18, 1, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, 0 },
	{ 1, 16, 5, 5, 16, 5, 5, 4, 1, 1, 1, 1, 2, 2, 2, 2, 1, 0 },
	{ 1, 4, 3, 3, 4, 3, 3, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0 },
	{ 1, 32, 19, 21, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, DRM_NPU_ACT_RELU },
	{ 1, 8, 11, 10, 8, 3, 3, 8, 2, 2, 2, 1, 2, 1, 1, 2, 1, DRM_NPU_ACT_RELU },
	{ 2, 24, 9, 70, 24, 5, 5, 24, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0 },
	/* the pixel-major product: tails of pixels and of channel blocks */
	{ 1, 48, 17, 23, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, DRM_NPU_ACT_RELU },
	{ 1, 32, 15, 31, 64, 1, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, 0 },
	{ 1, 3, 29, 33, 16, 7, 7, 1, 2, 2, 1, 1, 3, 3, 3, 3, 1, 0 },
	{ 1, 64, 7, 7, 32, 3, 3, 2, 1, 1, 2, 2, 2, 2, 2, 2, 1, 0 },
	{ 2, 16, 5, 3, 20, 3, 3, 1, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0 },
	/* units of 64 channels on small maps, a last block of 16, groups */
	{ 1, 40, 9, 11, 80, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, DRM_NPU_ACT_RELU },
	{ 1, 64, 6, 7, 200, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 },
	{ 2, 96, 4, 5, 130, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0 },
	/*
	 * units of several rows (NPU_CONV_UNIT_PIX): a one-pixel row (64
	 * rows a unit, a last block of 6), two pixels, a row of 150 (more
	 * tiles than a unified-buffer group at the baseline's 2 pixels)
	 */
	{ 1, 20, 70, 1, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, DRM_NPU_ACT_RELU },
	{ 2, 17, 30, 2, 66, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 },
	{ 1, 16, 3, 150, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 },
	{ 1, 35, 11, 13, 67, 3, 3, 1, 2, 1, 1, 1, 0, 1, 2, 1, 1, 0 },
	/* last blocks of 32 and of 32 + 8 channels: the mid (32) tile */
	{ 1, 24, 9, 10, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, DRM_NPU_ACT_RELU },
	{ 1, 16, 12, 12, 104, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0 },
};

struct mm_case {
	u32 batch_a, batch_b, m, k, n;
	int ta, tb, bias;
	float alpha, beta;
};

static void mm_one(const struct mm_case *mc)
{
	u32 batch = mc->batch_a > mc->batch_b ? mc->batch_a : mc->batch_b;
	size_t na = (size_t)mc->batch_a * mc->m * mc->k;
	size_t nb = (size_t)mc->batch_b * mc->k * mc->n;
	size_t ny = (size_t)batch * mc->m * mc->n, nbias = mc->n;
	float *a = malloc(na * 4), *b = malloc(nb * 4), *bias = malloc(nbias * 4);
	float *y = malloc(ny * 4), *y2 = malloc(ny * 4);
	double *ref = malloc(ny * 8);
	u32 as[3] = { mc->batch_a, mc->ta ? mc->k : mc->m, mc->ta ? mc->m : mc->k };
	u32 bs[3] = { mc->batch_b, mc->tb ? mc->n : mc->k, mc->tb ? mc->k : mc->n };
	u32 ys[3] = { batch, mc->m, mc->n }, biass[1] = { mc->n };
	struct drm_npu_task t;
	void *data[4];
	u32 bi, i, j, k;
	int ret;

	tl_fill(a, na, -1, 1);
	tl_fill(b, nb, -1, 1);
	tl_fill(bias, nbias, -1, 1);
	for (bi = 0; bi < batch; bi++) {
		const float *ab = a + (mc->batch_a > 1 ? bi : 0) * mc->m * mc->k;
		const float *bb = b + (mc->batch_b > 1 ? bi : 0) * mc->k * mc->n;

		for (i = 0; i < mc->m; i++)
		for (j = 0; j < mc->n; j++) {
			double s = 0;

			for (k = 0; k < mc->k; k++)
				s += (double)(mc->ta ? ab[k * mc->m + i] :
						       ab[i * mc->k + k]) *
				     (mc->tb ? bb[j * mc->k + k] : bb[k * mc->n + j]);
			s *= mc->alpha;
			if (mc->bias)
				s += (double)mc->beta * bias[j];
			ref[(bi * mc->m + i) * mc->n + j] = s;
		}
	}
	tl_task(&t, DRM_NPU_OP_MATMUL, 3 + mc->bias);
	tl_opnd(&t.operands[0], 0, DRM_NPU_DTYPE_F32, 3, as, NULL);
	tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 3, bs, NULL);
	if (mc->bias)
		tl_opnd(&t.operands[2], 2, DRM_NPU_DTYPE_F32, 1, biass, NULL);
	tl_opnd(&t.operands[2 + mc->bias], 3, DRM_NPU_DTYPE_F32, 3, ys, NULL);
	t.params.matmul.flags = (mc->ta ? DRM_NPU_MATMUL_TRANS_A : 0) |
				(mc->tb ? DRM_NPU_MATMUL_TRANS_B : 0) |
				(mc->bias ? DRM_NPU_MATMUL_HAS_BIAS : 0);
	t.params.matmul.alpha = tl_f2u(mc->alpha);
	t.params.matmul.beta = mc->bias ? tl_f2u(mc->beta) : 0;
	data[0] = a;
	data[1] = b;
	data[2] = mc->bias ? (void *)bias : (void *)y;
	data[3] = y;
	ret = tl_run(&t, data);
	tap_ok(ret == 0 && tl_max_rel(y, ref, ny, tl_rms(ref, ny)) < TOL,
	       "matmul [%u|%u]x%ux%ux%u ta%d tb%d bias%d: rel err %.3g",
	       mc->batch_a, mc->batch_b, mc->m, mc->k, mc->n, mc->ta, mc->tb,
	       mc->bias, tl_max_rel(y, ref, ny, tl_rms(ref, ny)));
	data[2 + mc->bias] = y2;
	memset(y2, 0xff, ny * 4);
	ret = tl_run_chunked(&t, data);
	tap_ok(ret == 0 && !memcmp(y, y2, ny * 4),
	       "matmul %ux%ux%u: chunking gives identical bits", mc->m, mc->k,
	       mc->n);
	/*
	 * A TRANS_B product of 4 rows or more is packed into rows for the
	 * level's kernel: the bits of the same product with B stored
	 * transposed (in every chunking, with and without the buffer).
	 */
	if (mc->tb && mc->m >= 4) {
		float *bt = malloc(nb * 4);
		u32 bts[3] = { mc->batch_b, mc->k, mc->n };
		u32 bb;

		for (bb = 0; bb < mc->batch_b; bb++)
			for (j = 0; j < mc->n; j++)
				for (k = 0; k < mc->k; k++)
					bt[(bb * mc->k + k) * mc->n + j] =
						b[(bb * mc->n + j) * mc->k + k];
		tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 3, bts, NULL);
		t.params.matmul.flags &= ~DRM_NPU_MATMUL_TRANS_B;
		data[1] = bt;
		memset(y2, 0xff, ny * 4);
		ret = tl_run_chunked(&t, data);
		tap_ok(ret == 0 && !memcmp(y, y2, ny * 4),
		       "matmul %ux%ux%u: TRANS_B has the bits of B stored "
		       "transposed", mc->m, mc->k, mc->n);
		free(bt);
	}
	free(a);
	free(b);
	free(bias);
	free(y);
	free(y2);
	free(ref);
}

static const struct mm_case mm_cases[] = {
	{ 1, 1, 1, 1, 1, 0, 0, 0, 1.0f, 0 },
	{ 1, 1, 7, 7, 7, 0, 0, 1, 1.0f, 1.0f },
	{ 1, 1, 33, 65, 17, 0, 1, 1, 1.0f, 1.0f },
	{ 3, 3, 5, 19, 23, 1, 0, 0, 0.5f, 0 },
	{ 4, 1, 9, 16, 31, 0, 0, 1, 1.0f, 2.0f },
	{ 1, 5, 8, 12, 8, 1, 1, 0, 1.0f, 0 },
	{ 2, 2, 64, 128, 96, 0, 0, 1, 1.0f, 1.0f },
	{ 1, 1, 3, 1000, 2, 0, 1, 0, 1.0f, 0 },
	/* batches that fold into one product (BERT's [S, 1, D] x [D, N]) */
	{ 37, 1, 1, 40, 50, 0, 0, 1, 1.0f, 1.0f },
	{ 20, 1, 2, 33, 70, 0, 1, 1, 1.0f, 0.5f },
	/* TRANS_B packed: a panel in the buffer; K rows past the buffer */
	{ 2, 2, 20, 100, 72, 0, 1, 1, 1.0f, 1.0f },
	{ 1, 1, 9, 1200, 40, 1, 1, 0, 1.0f, 0 },
};

/*
 * HAS_RESIDUAL (uapi 1.7): out = act(conv + bias + r) must have the bits of
 * the conv without activation followed by the add and the activation
 * (npuc's CONV2D + BINARY before the fusion), on every path: dense and
 * O-innermost weights, NCHW and NC1HWC0 (the residual in the output's
 * view), whole runs and random chunks (with and without the unified
 * buffer).
 */
static void conv_residual(const struct conv_case *cc, const char *name)
{
	u32 oh = out_dim(cc->h, cc->pt, cc->pb, cc->kh, cc->sh, cc->dh);
	u32 ow = out_dim(cc->w, cc->pl, cc->pr, cc->kw, cc->sw, cc->dw);
	u32 cg = cc->c / cc->groups, o1 = (cc->o + 15) / 16, c1, v;
	size_t nx = (size_t)cc->n * cc->c * cc->h * cc->w;
	size_t nw = (size_t)cc->o * cg * cc->kh * cc->kw;
	size_t ny = (size_t)cc->n * cc->o * oh * ow, k;
	size_t n5 = (size_t)cc->n * o1 * oh * ow * 16;
	float *x = malloc(nx * 4), *w = malloc(nw * 4), *wt = malloc(nw * 4);
	float *b = malloc(cc->o * 4), *r = malloc(ny * 4), *y = malloc(ny * 4);
	float *want, *want5, *r5, *x5, *got = malloc(n5 * 4);
	u32 wst[4] = { 1, cc->o, cc->kw * cg * cc->o, cg * cc->o };
	u32 xs[5], ys[5];
	struct drm_npu_task t, tr;
	void *data[5];
	int ok = 1, bias = cc->bias;

	tl_fill(x, nx, -1, 1);
	tl_fill(w, nw, -1, 1);
	tl_fill(b, cc->o, -1, 1);
	tl_fill(r, ny, -2, 2);
	to_olast(cc, w, wt);
	r5 = to_5d(r, cc->n, cc->o, oh, ow);
	x5 = to_5d(x, cc->n, cc->c, cc->h, cc->w);
	c1 = (cc->c + 15) / 16;
	for (v = 0; v < 4; v++) {
		int nc1 = v & 1, olast = v & 2;
		size_t cnt = nc1 ? n5 : ny;

		/*
		 * The reference: the conv alone (with the same weight form:
		 * above the baseline the two forms round differently), then
		 * the add and the activation.
		 */
		conv_task(&t, cc, oh, ow);
		t.params.conv2d.act.kind = DRM_NPU_ACT_NONE;
		if (olast)
			tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 4,
				(const u32[]){ cc->o, cg, cc->kh, cc->kw },
				wst);
		data[0] = x;
		data[1] = olast ? wt : w;
		data[2] = bias ? (void *)b : (void *)y;
		data[3] = y;
		ok &= tl_run(&t, data) == 0;
		for (k = 0; k < ny; k++) {
			float s = y[k] + r[k];

			y[k] = cc->act == DRM_NPU_ACT_RELU && s < 0.0f ?
			       0.0f : s;
		}
		want = y;
		want5 = to_5d(y, cc->n, cc->o, oh, ow);
		conv_task(&tr, cc, oh, ow);
		tr.num_operands = 4 + bias;
		tr.params.conv2d.flags |= DRM_NPU_CONV_HAS_RESIDUAL;
		tr.operands[3 + bias] = tr.operands[2 + bias];
		tr.operands[3 + bias].slot = 4;
		if (olast)
			tl_opnd(&tr.operands[1], 1, DRM_NPU_DTYPE_F32, 4,
				(const u32[]){ cc->o, cg, cc->kh, cc->kw },
				wst);
		if (nc1) {
			xs[0] = cc->n; xs[1] = c1; xs[2] = cc->h;
			xs[3] = cc->w; xs[4] = 16;
			ys[0] = cc->n; ys[1] = o1; ys[2] = oh;
			ys[3] = ow; ys[4] = 16;
			tl_opnd(&tr.operands[0], 0, DRM_NPU_DTYPE_F32, 5, xs,
				NULL);
			tr.operands[0].layout = DRM_NPU_LAYOUT_NC1HWC0;
			for (k = 2 + bias; k < 4u + bias; k++) {
				tl_opnd(&tr.operands[k], (u16)k,
					DRM_NPU_DTYPE_F32, 5, ys, NULL);
				tr.operands[k].layout = DRM_NPU_LAYOUT_NC1HWC0;
			}
		}
		data[0] = nc1 ? x5 : x;
		data[1] = olast ? wt : w;
		data[2] = bias ? (void *)b : (nc1 ? (void *)r5 : (void *)r);
		data[2 + bias] = nc1 ? r5 : r;
		data[3 + bias] = got;
		memset(got, 0x7f, cnt * 4);
		ok &= (v % 2 ? tl_run_chunked(&tr, data) :
			       tl_run(&tr, data)) == 0 &&
		      !memcmp(got, nc1 ? want5 : want, cnt * 4);
		free(want5);
	}
	tap_ok(ok, "conv %s: HAS_RESIDUAL gives the bits of the conv, then "
	       "the add and the activation (NCHW/NC1HWC0, dense/O-innermost "
	       "weights)", name);
	free(x);
	free(w);
	free(wt);
	free(b);
	free(r);
	free(y);
	free(r5);
	free(x5);
	free(got);
}

/*
 * Depthwise in NC1HWC0 with non-finite weights: the edge pixels' taps in
 * the padding are skipped (inf * 0 would be NaN), so the zero-padded
 * window of the edge pixels must not be used; NC1HWC0 agrees with NCHW
 * bit for bit and an edge pixel whose inf tap lies in the padding stays
 * finite.
 */
static void conv_dw_nonfinite(void)
{
	static const struct conv_case cc = {
		1, 16, 6, 7, 16, 3, 3, 16, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 };
	enum { NX = 16 * 6 * 7, NW = 16 * 9 };
	static float x[NX], w[NW], y[NX];
	float *x5, *y5, *yb;
	struct drm_npu_task t;
	void *data[3];
	int ret, same;

	tl_fill(x, NX, 0.5f, 1);	/* nonzero: inf * x is inf */
	tl_fill(w, NW, -1, 1);
	w[3 * 9 + 0] = INFINITY;	/* channel 3, tap (0, 0) */
	w[5 * 9 + 8] = NAN;	/* channel 5, tap (2, 2) */
	conv_task(&t, &cc, 6, 7);
	data[0] = x;
	data[1] = w;
	data[2] = y;
	ret = tl_run(&t, data);
	x5 = to_5d(x, 1, 16, 6, 7);
	yb = to_5d(y, 1, 16, 6, 7);
	y5 = malloc(NX * 4);
	tl_opnd(&t.operands[0], 0, DRM_NPU_DTYPE_F32, 5,
		(const u32[]){ 1, 1, 6, 7, 16 }, NULL);
	t.operands[0].layout = DRM_NPU_LAYOUT_NC1HWC0;
	tl_opnd(&t.operands[2], 3, DRM_NPU_DTYPE_F32, 5,
		(const u32[]){ 1, 1, 6, 7, 16 }, NULL);
	t.operands[2].layout = DRM_NPU_LAYOUT_NC1HWC0;
	data[0] = x5;
	data[2] = y5;
	ret |= tl_run(&t, data);	/* with the unified buffer */
	same = !memcmp(y5, yb, NX * 4);
	ret |= tl_run_chunked(&t, data);
	tap_ok(ret == 0 && same && !memcmp(y5, yb, NX * 4) &&
	       /* (1, 0): tap (0, 0) in the left padding; (1, 1): inside */
	       !isinf(y[3 * 42 + 7]) && !isnan(y[3 * 42 + 7]) &&
	       isinf(y[3 * 42 + 7 + 1]) &&
	       /* (2, 6): tap (2, 2) in the right padding; (2, 5): inside */
	       !isnan(y[5 * 42 + 2 * 7 + 6]) &&
	       isnan(y[5 * 42 + 2 * 7 + 5]),
	       "depthwise NC1HWC0 with inf and NaN weights: taps in the "
	       "padding skipped at the edges, NCHW's bits");
	free(x5);
	free(y5);
	free(yb);
}

int main(void)
{
	size_t i;

	tl_seed(1234);
	for (i = 0; i < sizeof(conv_cases) / sizeof(conv_cases[0]); i++) {
		char name[32];

		snprintf(name, sizeof(name), "case %zu", i);
		conv_one(&conv_cases[i], name);
		conv_residual(&conv_cases[i], name);
	}
	for (i = 0; i < sizeof(mm_cases) / sizeof(mm_cases[0]); i++)
		mm_one(&mm_cases[i]);
	conv_dw_nonfinite();
	return tap_done();
}
