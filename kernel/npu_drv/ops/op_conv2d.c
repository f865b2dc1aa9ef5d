// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_conv2d.c - CONV2D: direct convolution, no im2col buffer.
 *
 * out[n][o][y][x] = act(bias[o] + sum_{c, kh, kw} in[n][g*Cg + c]
 *                   [y*sh - pt + kh*dh][x*sw - pl + kw*dw] * w[o][c][kh][kw])
 * with groups (depthwise when groups == C == O), stride, dilation and
 * asymmetric padding; input and output each NCHW or NC1HWC0 (the layout
 * field says which; padding channels of an NC1HWC0 output are written 0).
 *
 * Register tile: 4 output channels x 8 output columns, accumulated over
 * (c, kh, kw) in that order; taps that fall into padding contribute
 * nothing. Dense 1x1/stride-1/unpadded NCHW convolutions run as a matrix
 * product over flattened pixels (npu_gemm_tile).
 *
 * Work unit: (n, group, block of 4 output channels, output row), or for
 * flattened 1x1 convolutions (n, group, 64-pixel chunk, channel block).
 */
#include "npu_ops_float.h"
#include "npu_gemm.h"

struct conv_ctx {
	struct npu_conv_geom g;
	const struct drm_npu_operand *in, *w, *out;
	const float *x, *wt, *bias;
	u64 bias_st;
	float *y;
	struct npu_act act;
};

/* Element offset of channel @c of an activation (NCHW or NC1HWC0). */
static inline u64 chan_off(const struct drm_npu_operand *o, int c0, u32 c)
{
	if (c0)
		return (u64)(c / c0) * o->strides[1] +
		       (u64)(c % c0) * o->strides[4];
	return (u64)c * o->strides[1];
}

/* Bias, activation and store of @cnt results of output channel @o. */
static void store_row(const struct conv_ctx *cx, u32 n, u32 o, u64 pix_off,
		      u64 pix_st, const float *acc, u32 cnt)
{
	float row[NPU_GEMM_NR];
	float b = cx->bias ? cx->bias[(u64)o * cx->bias_st] : 0.0f;
	u64 base;
	u32 j;

	for (j = 0; j < cnt; j++)
		row[j] = acc[j] + b;
	npu_act_row(&cx->act, row, cnt);
	base = (u64)n * cx->out->strides[0] +
	       chan_off(cx->out, cx->g.out_c0, o) + pix_off;
	for (j = 0; j < cnt; j++)
		cx->y[base + j * pix_st] = row[j];
}

/*
 * acc[i][j] for output channels o0 + i (i < nb <= 4) and output columns
 * ox0 + j (j < 8) of row oy. Lanes past the row end compute garbage from
 * clamped, in-bounds reads and are not stored.
 */
static void conv_tile(const struct conv_ctx *cx, u32 n, u32 g, u32 o0, u32 nb,
		      u32 oy, u32 ox0, float acc[4][8])
{
	const struct npu_conv_geom *G = &cx->g;
	const struct drm_npu_operand *in = cx->in, *w = cx->w;
	u64 ws0 = w->strides[0], ws1 = w->strides[1];
	u64 ws2 = w->strides[2], ws3 = w->strides[3];
	u64 xs2 = in->strides[2], xs3 = in->strides[3];
	float c0[8] = { 0 }, c1[8] = { 0 }, c2[8] = { 0 }, c3[8] = { 0 };
	float xv[8], w0, w1, w2, w3;
	const float *wo = cx->wt + (u64)o0 * ws0;
	s64 ix0 = (s64)ox0 * G->sw - G->pl;
	u32 c, kh, kw, j;
	int dense = xs3 == 1 && G->sw == 1;

	for (c = 0; c < G->cg; c++) {
		const float *xc = cx->x + (u64)n * in->strides[0] +
				  chan_off(in, G->in_c0, g * G->cg + c);
		const float *wc = wo + (u64)c * ws1;

		for (kh = 0; kh < G->kh; kh++) {
			s64 iy = (s64)oy * G->sh - G->pt + (s64)kh * G->dh;
			const float *xr;

			if (iy < 0 || iy >= G->h)
				continue;
			xr = xc + (u64)iy * xs2;
			for (kw = 0; kw < G->kw; kw++) {
				s64 ix = ix0 + (s64)kw * G->dw;
				const float *wk = wc + kh * ws2 + kw * ws3;

				if (dense && ix >= 0 && ix + 8 <= G->w) {
					for (j = 0; j < 8; j++)
						xv[j] = xr[ix + j];
				} else {
					for (j = 0; j < 8; j++) {
						s64 p = ix + (s64)j * G->sw;

						xv[j] = (p >= 0 && p < G->w) ?
							xr[(u64)p * xs3] : 0.0f;
					}
				}
				w0 = wk[0];
				w1 = nb > 1 ? wk[ws0] : 0.0f;
				w2 = nb > 2 ? wk[2 * ws0] : 0.0f;
				w3 = nb > 3 ? wk[3 * ws0] : 0.0f;
				for (j = 0; j < 8; j++) {
					c0[j] += w0 * xv[j];
					c1[j] += w1 * xv[j];
					c2[j] += w2 * xv[j];
					c3[j] += w3 * xv[j];
				}
			}
		}
	}
	memcpy(acc[0], c0, sizeof(c0));
	memcpy(acc[1], c1, sizeof(c1));
	memcpy(acc[2], c2, sizeof(c2));
	memcpy(acc[3], c3, sizeof(c3));
}

static void conv_row_unit(const struct conv_ctx *cx, u64 u)
{
	const struct npu_conv_geom *G = &cx->g;
	u32 oy = (u32)(u % G->oh), ob, g, n, o0, nb, ox, i, cnt;
	float acc[4][8];

	u /= G->oh;
	ob = (u32)(u % G->ob);
	u /= G->ob;
	g = (u32)(u % G->groups);
	n = (u32)(u / G->groups);
	o0 = ob * NPU_CONV_OCB;
	nb = G->og - o0 < NPU_CONV_OCB ? G->og - o0 : NPU_CONV_OCB;
	o0 += g * G->og;
	for (ox = 0; ox < G->ow; ox += 8) {
		cnt = G->ow - ox < 8 ? G->ow - ox : 8;
		conv_tile(cx, n, g, o0, nb, oy, ox, acc);
		for (i = 0; i < nb; i++)
			store_row(cx, n, o0 + i,
				  (u64)oy * cx->out->strides[2] +
				  (u64)ox * cx->out->strides[3],
				  cx->out->strides[3], acc[i], cnt);
	}
}

/* 1x1, stride 1, no padding, dense planes: W[O x C] times X[C x pixels]. */
static void conv_flat_unit(const struct conv_ctx *cx, u64 u)
{
	const struct npu_conv_geom *G = &cx->g;
	u64 pix = (u64)G->oh * G->ow, p0, p1, p;
	u32 ob = (u32)(u % G->ob), pu, g, n, o0, nb, i, cnt;
	const float *a, *b;
	float acc[4][8];

	u /= G->ob;
	pu = (u32)(u % G->flat_units);
	u /= G->flat_units;
	g = (u32)(u % G->groups);
	n = (u32)(u / G->groups);
	o0 = ob * NPU_CONV_OCB;
	nb = G->og - o0 < NPU_CONV_OCB ? G->og - o0 : NPU_CONV_OCB;
	o0 += g * G->og;
	p0 = (u64)pu * NPU_CONV_FLAT_PIX;
	p1 = p0 + NPU_CONV_FLAT_PIX < pix ? p0 + NPU_CONV_FLAT_PIX : pix;
	a = cx->wt + (u64)o0 * cx->w->strides[0];
	b = cx->x + (u64)n * cx->in->strides[0] +
	    (u64)g * G->cg * cx->in->strides[1];
	for (p = p0; p < p1; p += 8) {
		cnt = p1 - p < 8 ? (u32)(p1 - p) : 8;
		npu_gemm_tile(a, cx->w->strides[0], cx->w->strides[1], nb,
			      b + p * cx->in->strides[3], cx->in->strides[1],
			      cx->in->strides[3], cnt, G->cg, acc);
		for (i = 0; i < nb; i++)
			store_row(cx, n, o0 + i, p * cx->out->strides[3],
				  cx->out->strides[3], acc[i], cnt);
	}
}

/* NC1HWC0 output: channels O..C1*C0-1 of the last block are zero. */
static void zero_pad_channels(const struct conv_ctx *cx, u64 u)
{
	const struct npu_conv_geom *G = &cx->g;
	u32 c1 = cx->out->shape[1], c, n, y, x;
	u32 ctot = c1 * (u32)G->out_c0;

	if (G->groups * G->og == ctot)
		return;
	/* done once per image, by the first unit of that image */
	if (u % ((u64)G->groups * G->ob * (G->flat ? G->flat_units : G->oh)))
		return;
	n = (u32)(u / ((u64)G->groups * G->ob *
		       (G->flat ? G->flat_units : G->oh)));
	for (c = G->o; c < ctot; c++)
		for (y = 0; y < G->oh; y++)
			for (x = 0; x < G->ow; x++)
				cx->y[(u64)n * cx->out->strides[0] +
				      chan_off(cx->out, G->out_c0, c) +
				      (u64)y * cx->out->strides[2] +
				      (u64)x * cx->out->strides[3]] = 0.0f;
}

int npu_run_conv2d(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	int bias = !!(t->params.conv2d.flags & DRM_NPU_CONV_HAS_BIAS);
	struct conv_ctx cx;
	u64 u;

	npu_conv_geom(t, &cx.g);
	cx.in = npu_opnd(t, 0);
	cx.w = npu_opnd(t, 1);
	cx.out = npu_opnd(t, 2 + bias);
	cx.x = args->data[0];
	cx.wt = args->data[1];
	cx.bias = bias ? args->data[2] : NULL;
	cx.bias_st = bias ? npu_opnd(t, 2)->strides[0] : 0;
	cx.y = args->data[2 + bias];
	npu_act_init(&cx.act, &t->params.conv2d.act);
	for (u = begin; u < end; u++) {
		if (cx.g.out_c0)
			zero_pad_channels(&cx, u);
		if (cx.g.flat)
			conv_flat_unit(&cx, u);
		else
			conv_row_unit(&cx, u);
	}
	return 0;
}
