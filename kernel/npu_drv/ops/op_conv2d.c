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
 * Each output sums its taps (c, kh, kw) in that order, whatever the path:
 * im2col panels of 32 taps x 8 output columns packed on the stack feed the
 * 4x8 register tile of npu_gemm.c for 16 output channels at a time (taps
 * in the padding add zero); dense 1x1/stride-1/unpadded NCHW convolutions
 * multiply the input rows directly (the plane flattened into one row);
 * weights with other strides use a direct 4x8 tile (padding skipped).
 *
 * Depthwise convolutions (one channel per group) accumulate whole rows.
 *
 * Work unit: (n, group, block of 16 output channels, output row), or for
 * flattened 1x1 convolutions (n, group, 64-pixel chunk, channel block).
 */
#include "npu_ops_float.h"
#include "npu_gemm.h"
#include "npu_kern.h"

struct conv_ctx {
	struct npu_conv_geom g;
	const struct drm_npu_operand *in, *w, *out;
	const float *x, *wt, *bias;
	u64 bias_st;
	u64 xs2, xs3, ys2, ys3;	/* row/column strides (virtual when flat) */
	float *y;
	const float *res;	/* residual at the output's offsets, or NULL */
	struct npu_act act;
	const struct npu_kern *kern;	/* the ISA level's kernels */
	int epi;			/* npu_act_clamp() of act */
	float epi_lo, epi_hi;
	/* pixel-major product (conv_pm_span()), or pm.k == NULL */
	struct {
		const struct npu_kern *k;
		u64 n[2], sa[2], sb[2];	/* channel levels of the tap nest */
		u32 tail;		/* NC1HWC0: channels past n[0] blocks */
	} pm;
	/*
	 * The depthwise weight table in the unified buffer: the first
	 * channel it holds (~0u: none) and its dw16_row.pad_ok. One call's
	 * units mostly walk the rows of one block: gathered once for them.
	 */
	struct conv_dw_tab {
		u32 c0;
		bool pad_ok;
	} *dwt;
};

/* Element offset of channel @c of an activation (NCHW or NC1HWC0). */
static inline u64 chan_off(const struct drm_npu_operand *o, int c0, u64 c)
{
	if (c0)
		return (c / (u32)c0) * o->strides[1] +
		       (c % (u32)c0) * o->strides[4];
	return c * o->strides[1];
}

/* Bias, activation and store of @cnt results of output channel @o. */
static void store_row(const struct conv_ctx *cx, u32 n, u32 o, u64 pix_off,
		      u64 pix_st, const float *acc, u32 cnt)
{
	float row[8];
	float b = cx->bias ? cx->bias[(u64)o * cx->bias_st] : 0.0f;
	u64 base;
	u32 j;

	base = (u64)n * cx->out->strides[0] +
	       chan_off(cx->out, cx->g.out_c0, o) + pix_off;
	for (j = 0; j < cnt; j++)
		row[j] = acc[j] + b;
	if (cx->res)
		for (j = 0; j < cnt; j++)
			row[j] = row[j] + cx->res[base + j * pix_st];
	npu_act_row(&cx->act, row, cnt);
	for (j = 0; j < cnt; j++)
		cx->y[base + j * pix_st] = row[j];
}

/*
 * From lane C0 - 1 of a C1 block to lane 0 of the next, in elements: may
 * be negative (a C1 stride below 15 lane strides), so it is applied as a
 * signed step. Strides are u32, so the value lies within +-2^37 and the
 * u64 difference converts back exactly. With C1 = 1 a size-1 dim may hide
 * any C1 stride; then no step crosses a block the kernel reads (the walk
 * may still form the pointer one step past the group's last channel, and
 * never dereferences it).
 */
static s64 conv_block_step(const struct drm_npu_operand *in, u32 c0)
{
	if (!c0)
		return 0;
	return (s64)(in->strides[1] - (u64)(c0 - 1) * in->strides[4]);
}

/*
 * acc[i][j] for output channels o0 + i (i < nb <= 4) and output columns
 * ox0 + min(j, cnt - 1) (j < 8) of row oy: lanes past @cnt repeat the last
 * column (in-bounds reads, results not stored). Inlined with a constant
 * @nb so that depthwise (nb = 1) does a quarter of the work.
 */
static __always_inline void
conv_tile(const struct conv_ctx *cx, u32 n, u32 g, u32 o0, u32 nb, u32 oy,
	  u32 ox0, u32 cnt, float acc[4][8])
{
	const struct npu_conv_geom *G = &cx->g;
	const struct drm_npu_operand *w = cx->w;
	u64 ws0 = w->strides[0], ws1 = w->strides[1];
	u64 ws2 = w->strides[2], ws3 = w->strides[3];
	u64 xs2 = cx->xs2, xs3 = cx->xs3;
	float c0[8] = { 0 }, c1[8] = { 0 }, c2[8] = { 0 }, c3[8] = { 0 };
	float xv[8], w0, w1, w2, w3;
	const float *wo = cx->wt + (u64)o0 * ws0;
	s64 ix0 = (s64)ox0 * G->sw - G->pl, span = (s64)(cnt - 1) * G->sw;
	u64 loff[8];
	u32 c, kh, kw, j;
	int dense = xs3 == 1 && G->sw == 1 && cnt == 8;

	for (j = 0; j < 8; j++)
		loff[j] = (u64)(j < cnt ? j : cnt - 1) * G->sw * xs3;
	/* channel pointer stepped without a division per channel */
	u32 cin = g * G->cg, cb = G->in_c0 ? cin % (u32)G->in_c0 : 0;
	const float *xc = cx->x + (u64)n * cx->in->strides[0] +
			  chan_off(cx->in, G->in_c0, cin);
	u64 cstep = G->in_c0 ? cx->in->strides[4] : cx->in->strides[1];
	/* lane C0 - 1 of a block to lane 0 of the next: may go back */
	s64 bstep = conv_block_step(cx->in, G->in_c0);

	for (c = 0; c < G->cg; c++) {
		const float *wc = wo + (u64)c * ws1;

		if (c) {
			if (G->in_c0 && ++cb == (u32)G->in_c0) {
				cb = 0;
				xc += bstep;
			} else {
				xc += cstep;
			}
		}

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
				} else if (ix >= 0 && ix + span < G->w) {
					const float *xp = xr + (u64)ix * xs3;

					for (j = 0; j < 8; j++)
						xv[j] = xp[loff[j]];
				} else {
					for (j = 0; j < 8; j++) {
						s64 p = ix + (s64)(j < cnt ? j : cnt - 1) *
							     G->sw;

						xv[j] = (p >= 0 && p < G->w) ?
							xr[(u64)p * xs3] : 0.0f;
					}
				}
				w0 = wk[0];
				for (j = 0; j < 8; j++)
					c0[j] += w0 * xv[j];
				if (nb == 1)
					continue;
				w1 = nb > 1 ? wk[ws0] : 0.0f;
				w2 = nb > 2 ? wk[2 * ws0] : 0.0f;
				w3 = nb > 3 ? wk[3 * ws0] : 0.0f;
				for (j = 0; j < 8; j++) {
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

/* Taps per packed panel: 32 x 8 floats = 1 KiB of stack. */
#define CONV_KB		32

/* Walks the taps (c, kh, kw) of one group in order. */
struct tap_iter {
	u32 kh, kw, cb;
	const float *xc;	/* channel c of image n */
	u64 cstep;
	s64 bstep;		/* lane C0 - 1 of a block to lane 0 of the next: may go back */
};

static void taps_begin(const struct conv_ctx *cx, u32 n, u32 g,
		       struct tap_iter *it)
{
	const struct npu_conv_geom *G = &cx->g;
	u32 cin = g * G->cg;

	it->kh = 0;
	it->kw = 0;
	it->cb = G->in_c0 ? cin % (u32)G->in_c0 : 0;
	it->xc = cx->x + (u64)n * cx->in->strides[0] +
		 chan_off(cx->in, G->in_c0, cin);
	it->cstep = G->in_c0 ? cx->in->strides[4] : cx->in->strides[1];
	it->bstep = conv_block_step(cx->in, G->in_c0);
}

static void taps_next(const struct conv_ctx *cx, struct tap_iter *it)
{
	if (++it->kw < cx->g.kw)
		return;
	it->kw = 0;
	if (++it->kh < cx->g.kh)
		return;
	it->kh = 0;
	if (cx->g.in_c0 && ++it->cb == (u32)cx->g.in_c0) {
		it->cb = 0;
		it->xc += it->bstep;
	} else {
		it->xc += it->cstep;
	}
}

/*
 * panel[k][j] = input under tap k for output column start + min(j, cnt-1)
 * of row oy (0 in the padding): an im2col slice of 8 columns.
 */
static void pack_panel(const struct conv_ctx *cx, struct tap_iter *it, u32 kk,
		       u32 oy, u32 start, u32 cnt, float panel[CONV_KB][8])
{
	const struct npu_conv_geom *G = &cx->g;
	u64 xs3 = cx->xs3;
	s64 span = (s64)(cnt - 1) * G->sw;
	int dense = xs3 == 1 && G->sw == 1 && cnt == 8;
	u64 loff[8];
	u32 k, j;

	for (j = 0; j < 8; j++)
		loff[j] = (u64)(j < cnt ? j : cnt - 1) * G->sw * xs3;
	for (k = 0; k < kk; k++, taps_next(cx, it)) {
		s64 iy = (s64)oy * G->sh - G->pt + (s64)it->kh * G->dh;
		s64 ix = (s64)start * G->sw - G->pl + (s64)it->kw * G->dw;
		const float *xr = it->xc + (u64)(iy < 0 ? 0 : iy) * cx->xs2;

		if (iy < 0 || iy >= G->h) {
			for (j = 0; j < 8; j++)
				panel[k][j] = 0.0f;
		} else if (dense && ix >= 0 && ix + 8 <= G->w) {
			for (j = 0; j < 8; j++)
				panel[k][j] = xr[ix + j];
		} else if (ix >= 0 && ix + span < G->w) {
			const float *xp = xr + (u64)ix * xs3;

			for (j = 0; j < 8; j++)
				panel[k][j] = xp[loff[j]];
		} else {
			for (j = 0; j < 8; j++) {
				s64 p = ix + (s64)(j < cnt ? j : cnt - 1) * G->sw;

				panel[k][j] = (p >= 0 && p < G->w) ?
					      xr[(u64)p * xs3] : 0.0f;
			}
		}
	}
}

/* Weights with other strides: the direct tile, out of line (its stack). */
static noinline void
conv_tiles_strided(const struct conv_ctx *cx, u32 n, u32 g, u32 o0, u32 nb,
		   u32 oy, u32 start, u32 cnt, float acc[4][4][8])
{
	u32 nsb = (nb + 3) / 4, sb;

	for (sb = 0; sb < nsb; sb++) {
		u32 mr = nb - sb * 4 < 4 ? nb - sb * 4 : 4;

		/* constant block sizes let the inlined tile specialise */
		if (mr == 1)
			conv_tile(cx, n, g, o0 + sb * 4, 1, oy, start, cnt,
				  acc[sb]);
		else if (mr == 4)
			conv_tile(cx, n, g, o0 + sb * 4, 4, oy, start, cnt,
				  acc[sb]);
		else
			conv_tile(cx, n, g, o0 + sb * 4, mr, oy, start, cnt,
				  acc[sb]);
	}
}

/*
 * acc for up to 16 output channels o0.. (4 sub-blocks of 4) and one tile of
 * 8 columns. Three ways, chosen per task: dense 1x1 NCHW multiplies the
 * input rows directly; dense weights go through packed im2col panels of
 * CONV_KB taps and the register-tiled product; other weight strides use
 * the direct tile.
 */
static void conv_tile16(const struct conv_ctx *cx, u32 n, u32 g, u32 o0,
			u32 nb, u32 oy, u32 start, u32 cnt,
			float acc[4][4][8])
{
	const struct npu_conv_geom *G = &cx->g;
	u64 ws0 = cx->w->strides[0];
	u32 nsb = (nb + 3) / 4, sb, kb, kk, K;
	const float *wt = cx->wt + (u64)o0 * ws0;
	float panel[CONV_KB][8];
	struct tap_iter it;

	if (G->flat && !G->in_c0) {
		const float *b = cx->x + (u64)n * cx->in->strides[0] +
				 (u64)g * G->cg * cx->in->strides[1] +
				 (u64)start * cx->xs3;

		for (sb = 0; sb < nsb; sb++)
			npu_gemm_tile(wt + (u64)sb * 4 * ws0, ws0,
				      cx->w->strides[1], nb - sb * 4 < 4 ?
				      nb - sb * 4 : 4, b, cx->in->strides[1],
				      cx->xs3, cnt, G->cg, acc[sb]);
		return;
	}
	if (!G->wdense) {
		conv_tiles_strided(cx, n, g, o0, nb, oy, start, cnt, acc);
		return;
	}
	K = G->cg * G->kh * G->kw;
	taps_begin(cx, n, g, &it);
	for (kb = 0; kb < K; kb += kk) {
		kk = K - kb < CONV_KB ? K - kb : CONV_KB;
		pack_panel(cx, &it, kk, oy, start, cnt, panel);
		for (sb = 0; sb < nsb; sb++) {
			const float *a = wt + (u64)sb * 4 * ws0 + kb;
			u32 mr = nb - sb * 4 < 4 ? nb - sb * 4 : 4;

			if (kb)
				npu_gemm_tile_acc(a, ws0, 1, mr, &panel[0][0], 8,
						  1, 8, kk, acc[sb]);
			else
				npu_gemm_tile(a, ws0, 1, mr, &panel[0][0], 8, 1,
					      8, kk, acc[sb]);
		}
	}
}

/*
 * One output row (or, flattened, one chunk of pixels) of a block of
 * output channels, in tiles of 8 columns. A short last tile is shifted
 * left to end at the row end when the row has 8 columns or more, so that
 * it runs full width; each element's sum is the same wherever its tile
 * starts.
 */
static void conv_span(const struct conv_ctx *cx, u32 n, u32 g, u32 o0, u32 nb,
		      u32 oy, u32 x0, u32 x1)
{
	u64 ys2 = cx->ys2, ys3 = cx->ys3, ox;
	float acc[4][4][8];
	u32 i, cnt, skip;

	for (ox = x0; ox < x1; ox += 8) {
		u32 start = (u32)ox;	/* < x1 */

		cnt = x1 - ox < 8 ? (u32)(x1 - ox) : 8;
		skip = 0;
		if (cnt < 8 && x1 - x0 >= 8) {
			start = x1 - 8;
			skip = 8 - cnt;
			cnt = 8;
		}
		conv_tile16(cx, n, g, o0, nb, oy, start, cnt, acc);
		for (i = 0; i < nb; i++)
			store_row(cx, n, o0 + i,
				  (u64)oy * ys2 + (u64)(start + skip) * ys3, ys3,
				  acc[i / 4][i % 4] + skip, cnt - skip);
	}
}

/*
 * The pixel-major product: weights stored with the output channel
 * innermost (strides[0] == 1, the compiler's conv-weight-olast pass) give
 * one contiguous row of 16 weights per tap, so the ISA level's kernel
 * computes cv_mr pixels x 16 output channels straight from the operands:
 * A(pixel, tap) is the input under the tap, B(tap) the weight row. The
 * taps of a pixel are summed in (c, kh, kw) order; taps over the padding
 * are skipped (rows for the whole output row, columns per pixel: the edge
 * pixels run one at a time). A last block of fewer than 16 channels is
 * moved down to end at the group's last channel; a last pixel tile
 * narrower than cv_mr is moved left. Either way the same sums are stored
 * once.
 */
static bool conv_pm_init(struct conv_ctx *cx, u32 isa)
{
	const struct npu_conv_geom *G = &cx->g;

	cx->pm.k = NULL;
	cx->pm.tail = 0;
	if (cx->w->strides[0] != 1 || G->og < NPU_CONV_OCB ||
	    (G->cg == 1 && G->og == 1))
		return false;
	if (G->in_c0) {
		u32 c0 = (u32)G->in_c0;

		if (G->cg % c0 == 0) {
			cx->pm.n[0] = G->cg / c0;
			cx->pm.n[1] = c0;
		} else if (G->groups == 1) {
			/* blocks, then the channels of a partial block */
			cx->pm.n[0] = G->cg / c0;
			cx->pm.n[1] = c0;
			cx->pm.tail = G->cg % c0;
		} else {
			return false;
		}
		cx->pm.sa[0] = cx->in->strides[1];
		cx->pm.sa[1] = cx->in->strides[4];
		cx->pm.sb[0] = (u64)c0 * cx->w->strides[1];
	} else {
		cx->pm.n[0] = 1;
		cx->pm.n[1] = G->cg;
		cx->pm.sa[0] = 0;
		cx->pm.sa[1] = cx->in->strides[1];
		cx->pm.sb[0] = 0;
	}
	cx->pm.sb[1] = cx->w->strides[1];
	cx->pm.k = npu_kern_get(isa);
	return true;
}

/* Valid taps [lo, hi) along one axis for input start @i0 (may be < 0). */
static void conv_tap_range(s64 i0, u32 k, u32 d, u32 size, u32 *lo, u32 *hi)
{
	u32 a = 0, b = k;

	while (a < k && i0 + (s64)a * d < 0)
		a++;
	while (b > a && i0 + (s64)(b - 1) * d >= (s64)size)
		b--;
	*lo = a;
	*hi = b;
}

/*
 * The interior output pixels [*xa, *xb) within [@x0, @x1): those whose
 * every kw tap lies inside the input row (empty when none does).
 */
static void conv_interior(const struct npu_conv_geom *G, u64 x0, u64 x1,
			  u64 *xa, u64 *xb)
{
	u64 span = (u64)(G->kw - 1) * G->dw;

	*xa = ((u64)G->pl + G->sw - 1) / G->sw;
	*xb = (u64)G->w + G->pl >= span + 1 ?
	      ((u64)G->w + G->pl - span - 1) / G->sw + 1 : 0;
	if (*xa < x0)
		*xa = x0;
	if (*xb > x1)
		*xb = x1;
	if (*xb < *xa)
		*xb = *xa;
}

/* row[j] += b[j * bst], four lanes at a time where b is contiguous */
static void bias_add(float *row, const float *b, u64 bst, u32 cnt)
{
	typedef float v4f __attribute__((__vector_size__(4 * sizeof(u32))));
	v4f r, v;
	u32 j = 0;

	if (bst == 1) {
		for (; j + 4 <= cnt; j += 4) {
			memcpy(&r, row + j, sizeof(r));
			memcpy(&v, b + j, sizeof(v));
			r += v;
			memcpy(row + j, &r, sizeof(r));
		}
	}
	for (; j < cnt; j++)
		row[j] += b[j * bst];
}

/* One kernel shape of the pixel-major product: mr pixels x nr channels. */
struct conv_pm_shape {
	u32 mr, nr;
	npu_tile_fn fn, fn16;
};

/* An output row of a channel block: its first tap and its taps over kh. */
struct conv_pm_row {
	const float *a, *b;	/* at the row's first valid kh tap */
	u64 ybase;		/* output offset of the row's pixel 0, ch. c */
	u32 nkh;
};

/*
 * A tile: pixels [ox, ox + mr) of a line, with its first tap at a (input)
 * and b (weights). Pixel j of the line is sam floats after pixel j - 1 in
 * the input and at ybase + j * ys in the output. A line is a row (sam: the
 * stride of a column step) or, for the edge pixels of rows with every kh
 * tap inside, a column (sam: the stride of a row step; ox 0).
 */
struct conv_pm_px {
	const float *a, *b;
	u64 ybase, ys, sam;
	u32 nkh, ox, mr, nkw;
};

/*
 * Tiles that share each block of weights (a pixel group), and the weight
 * bytes of a block: the block is read from memory once per group and then
 * from the L1 cache by every tile of the group, instead of once per tile.
 * On the stack a group has at most CONV_PM_STACK_TILES tiles; in the
 * core's unified buffer it spans all the rows of a unit (up to
 * CONV_PM_UB_TILES tiles).
 */
#define CONV_PM_STACK_TILES	4
#define CONV_PM_UB_TILES	64
#define CONV_PM_BLOCK_BYTES	16384

/*
 * Pixels of the tile at position @pos of a run of @len pixels cut into
 * ceil(len / mr) tiles of near-equal size, each pixel computed once (7
 * pixels and mr 6: 4 + 3, not 6 + 6 with 5 computed twice; a tile of at
 * least mr / 2 pixels still has the sums to hide the FMA latency): the
 * first len % tiles have one pixel more.
 */
static u32 conv_pm_split(u64 len, u64 pos, u32 mr)
{
	u64 nt = (len + mr - 1) / mr, q = len / nt;

	return (u32)(pos < (len % nt) * (q + 1) ? q + 1 : q);
}

/*
 * The tile at pixel @ox of a row: edge pixels one by one, the interior
 * pixels [xa, xb) in conv_pm_split()'s tiles.
 */
static void conv_pm_plan(const struct conv_ctx *cx,
			 const struct conv_pm_shape *sh,
			 const struct conv_pm_row *r, u64 xa, u64 xb,
			 u32 ox, struct conv_pm_px *p)
{
	const struct npu_conv_geom *G = &cx->g;
	s64 ix0 = (s64)ox * G->sw - G->pl;
	u32 kw_lo = 0, kw_hi = G->kw;

	if (ox < xa || ox >= xb) {
		p->mr = 1;
		conv_tap_range(ix0, G->kw, G->dw, G->w, &kw_lo, &kw_hi);
		if (kw_lo >= kw_hi) {	/* an empty sum, as the rows */
			kw_lo = 0;
			kw_hi = 0;
			ix0 = 0;
		}
	} else {
		p->mr = conv_pm_split(xb - xa, ox - xa, sh->mr);
	}
	p->a = r->a + (u64)(ix0 + (s64)kw_lo * G->dw) * cx->xs3;
	p->b = r->b + (u64)kw_lo * cx->w->strides[3];
	p->ybase = r->ybase;
	p->ys = cx->ys3;
	p->sam = (u64)G->sw * cx->xs3;
	p->nkh = r->nkh;
	p->nkw = kw_hi - kw_lo;
	p->ox = ox;
}

/*
 * The sums of @nt tiles into @acc (a tile's mr x nr floats each), from
 * @base (the nest shared by the tiles; each tile has its own first tap
 * and kh, kw counts). The outer level of the nest that runs more than
 * once is cut into blocks of about CONV_PM_BLOCK_BYTES of weights, every
 * tile running a block before the next (continuing its sums: acc holds
 * floats, so the cut changes no bit).
 */
static noinline void
conv_pm_sums(const struct conv_ctx *cx, const struct conv_pm_shape *sh,
	     const struct npu_tile *base, const struct conv_pm_px *px, u32 nt,
	     float *acc)
{
	const struct npu_conv_geom *G = &cx->g;
	u32 lv = base->n[0] > 1 ? 0 : 1, i;
	u64 per = lv ? (u64)G->kh * G->kw : base->n[1] * G->kh * G->kw;
	u64 rows = CONV_PM_BLOCK_BYTES / ((u64)sh->nr * sizeof(float));
	u64 step = nt > 1 && per && per < rows ? rows / per : 1, kb = 0;
	struct npu_tile u;
	npu_tile_fn fn;

	/* one pass: a single tile, or no whole block (only the tail sums) */
	if (nt == 1 || step >= base->n[lv] || !base->n[0])
		step = base->n[lv] ? base->n[lv] : 1;
	do {
		for (i = 0; i < nt; i++) {
			const struct conv_pm_px *p = &px[i];

			/* a row stride of 16 is a constant in fn16's code */
			fn = p->sam == 16 ? sh->fn16 : sh->fn;
			u = *base;
			u.sam = p->sam;
			u.c = acc + (u64)i * sh->mr * sh->nr;
			u.accum = kb > 0;
			u.mr = p->mr;
			u.n[2] = p->nkh;
			u.n[3] = p->nkw;
			u.n[lv] = base->n[lv] - kb < step ? base->n[lv] - kb :
							    step;
			u.a = p->a + kb * base->sa[lv];
			u.b = p->b + kb * base->sb[lv];
			npu_tile_compact(&u);
			fn(&u);
			if (!cx->pm.tail || kb + step < base->n[lv])
				continue;
			/* the same sums continue over the last channels */
			u = *base;
			u.sam = p->sam;
			u.c = acc + (u64)i * sh->mr * sh->nr;
			u.accum = 1;
			u.mr = p->mr;
			u.n[0] = 1;
			u.n[1] = cx->pm.tail;
			u.n[2] = p->nkh;
			u.n[3] = p->nkw;
			u.a = p->a + cx->pm.n[0] * cx->pm.sa[0];
			u.b = p->b + cx->pm.n[0] * cx->pm.sb[0];
			npu_tile_compact(&u);
			fn(&u);
		}
		kb += step;
	} while (kb < base->n[lv]);
}

/*
 * Output offset @yo of a channel whose lane in its C0 block is *@q, moved
 * to the next channel (no division: NCHW steps strides[1]; NC1HWC0 steps
 * a lane, and from the last lane to the next block).
 */
static u64 conv_next_chan(const struct conv_ctx *cx, u64 yo, u32 *q)
{
	u32 c0 = (u32)cx->g.out_c0;

	if (!c0)
		return yo + cx->out->strides[1];
	if (++*q < c0)
		return yo + cx->out->strides[4];
	*q = 0;
	return yo + cx->out->strides[1] - (u64)(c0 - 1) * cx->out->strides[4];
}

/* row[j] += the residual of channel c + j (at the output's offsets). */
static void conv_pm_res_add(const struct conv_ctx *cx, float *row, u64 yo,
			    u32 c, u32 cnt)
{
	u32 q = cx->g.out_c0 ? c % (u32)cx->g.out_c0 : 0, j;

	for (j = 0; j < cnt; j++) {
		row[j] = row[j] + cx->res[yo];
		yo = conv_next_chan(cx, yo, &q);
	}
}

/* Bias, activation and store of the pixels of tile @p (sums at @acc). */
static void conv_pm_store(const struct conv_ctx *cx,
			  const struct conv_pm_shape *sh,
			  const struct conv_pm_px *p, const float *acc,
			  u32 c, u32 cnt, u32 skip)
{
	u32 c0 = (u32)cx->g.out_c0, i, j, q;
	u64 choff = 0;		/* channel c's offset past p->ybase's */
	float *row;

	if (cx->epi >= 0 && c0 == 16 && c % 16 == 0 &&
	    cx->out->strides[4] == 1 && p->ys >= 16 &&
	    (!cx->bias || cx->bias_st == 1)) {
		/* whole 16-channel blocks through the level's store */
		const float *src = acc + skip;
		u64 yo = p->ybase + (u64)p->ox * p->ys;

		for (j = 0; j + 16 <= cnt; j += 16) {
			cx->kern->epi16(cx->y + yo, p->ys, src + j, sh->nr,
					p->mr, cx->bias ? cx->bias + c + j :
					NULL, cx->res ? cx->res + yo : NULL, 16,
					(u32)cx->epi, cx->epi_lo, cx->epi_hi);
			yo += cx->out->strides[1];
		}
		if (j == cnt)
			return;
		/* a partial last block: the general store below */
		c += j;
		cnt -= j;
		skip += j;
		choff = (u64)(j / 16) * cx->out->strides[1];
	}
	for (i = 0; i < p->mr; i++) {
		u64 yo = p->ybase + choff + (u64)(p->ox + i) * p->ys;

		row = (float *)acc + i * sh->nr + skip;	/* in place */
		if (cx->bias)
			bias_add(row, cx->bias + (u64)c * cx->bias_st,
				 cx->bias_st, cnt);
		if (cx->res)
			conv_pm_res_add(cx, row, yo, c, cnt);
		npu_act_row(&cx->act, row, cnt);
		if (c0 && c % c0 == 0 && cx->out->strides[4] == 1) {
			/* whole C0 blocks: contiguous channels */
			for (j = 0; j < cnt; j += c0) {
				memcpy(cx->y + yo, row + j,
				       (cnt - j < c0 ? cnt - j : c0) *
				       sizeof(float));
				yo += cx->out->strides[1];
			}
			continue;
		}
		/* channel offsets stepped from c's, no division */
		q = c0 ? c % c0 : 0;
		for (j = 0; j < cnt; j++) {
			cx->y[yo] = row[j];
			yo = conv_next_chan(cx, yo, &q);
		}
	}
}

/*
 * The pixel-major walk of a channel block over output rows [oy0, oy1),
 * pixels [x0, x1) of each: the nest the tiles share, and where the next
 * tile of the walk is. Rows [fy0, fy1) have every kh tap inside the
 * input; when there are two or more, their edge pixels (fewer kw taps)
 * are not tiles of one pixel each but columns of those rows, one tile
 * per mr rows: the same taps in the same order for each pixel, mr times
 * the sums per loaded weight row.
 */
struct conv_pm_walk {
	struct npu_tile t;	/* shared levels; a, b at row 0's first tap */
	struct conv_pm_row row;	/* the current row */
	u64 xa, xb;		/* interior pixels: every kw tap inside */
	u32 n, oy, oy1, ox, x0, x1;
	u32 fy0, fy1;		/* rows whose edges go in columns */
	u32 cy;			/* the column walk: its next row */
};

/* Row @oy of the walk: its valid kh taps, first tap and output base. */
static void conv_pm_row_of(const struct conv_ctx *cx,
			   const struct conv_pm_walk *w, u32 start, u32 c,
			   u32 oy, struct conv_pm_row *r)
{
	const struct npu_conv_geom *G = &cx->g;
	s64 iy0 = (s64)oy * G->sh - G->pt;
	u32 kh_lo, kh_hi;

	conv_tap_range(iy0, G->kh, G->dh, G->h, &kh_lo, &kh_hi);
	if (kh_lo >= kh_hi) {
		/* no row inside the input: empty sums, and no address outside */
		kh_lo = 0;
		kh_hi = 0;
		iy0 = 0;
	}
	r->nkh = kh_hi - kh_lo;
	r->a = w->t.a + (u64)(iy0 + (s64)kh_lo * G->dh) * cx->xs2;
	r->b = cx->wt + start + (u64)kh_lo * cx->w->strides[2];
	r->ybase = (u64)w->n * cx->out->strides[0] + (u64)oy * cx->ys2 +
		   chan_off(cx->out, G->out_c0, c);
}

/* Interior pixels [*xa, *xb) of the walk, within [x0, x1). */
static void conv_pm_inner(const struct conv_pm_walk *w, u32 *xa, u32 *xb)
{
	*xa = w->xa < w->x1 ? (u32)w->xa : w->x1;
	*xb = w->xb < w->x1 ? (u32)w->xb : w->x1;
}

/* Does row @oy leave its edge pixels to the column walk? */
static bool conv_pm_col_row(const struct conv_pm_walk *w, u32 oy)
{
	return oy >= w->fy0 && oy < w->fy1;
}

static void conv_pm_row_at(const struct conv_ctx *cx, struct conv_pm_walk *w,
			   u32 start, u32 c, u32 oy)
{
	u32 xa, xb;

	conv_pm_row_of(cx, w, start, c, oy, &w->row);
	conv_pm_inner(w, &xa, &xb);
	w->oy = oy;
	w->ox = conv_pm_col_row(w, oy) ? xa : w->x0;
}

/* Rows [fy0, fy1) of [oy0, oy1) with every kh tap inside, if two or more. */
static void conv_pm_col_rows(const struct conv_ctx *cx, struct conv_pm_walk *w,
			     u32 oy0)
{
	const struct npu_conv_geom *G = &cx->g;
	u32 oy, lo, hi, xa, xb;

	w->fy0 = 0;
	w->fy1 = 0;
	conv_pm_inner(w, &xa, &xb);
	if (xa == w->x0 && xb == w->x1)
		return;		/* no edge pixel */
	for (oy = oy0; oy < w->oy1; oy++) {
		conv_tap_range((s64)oy * G->sh - G->pt, G->kh, G->dh, G->h,
			       &lo, &hi);
		if (lo == 0 && hi == G->kh) {
			if (w->fy1 == w->fy0)
				w->fy0 = oy;
			w->fy1 = oy + 1;
		} else if (w->fy1 > w->fy0) {
			break;
		}
	}
	if (w->fy1 - w->fy0 < 2)
		w->fy1 = w->fy0;
	w->cy = w->fy0;
}

/*
 * The next column tile into @p: up to mr rows of edge pixel column ox
 * from row cy. Returns false when the columns are done.
 */
static bool conv_pm_col_next(const struct conv_ctx *cx,
			     const struct conv_pm_shape *sh,
			     struct conv_pm_walk *w, u32 start, u32 c,
			     struct conv_pm_px *p)
{
	struct conv_pm_row r;
	u32 xa, xb;

	conv_pm_inner(w, &xa, &xb);
	if (w->fy1 == w->fy0)
		return false;
	if (w->ox >= xa && w->ox < xb)
		w->ox = xb;
	if (w->ox >= w->x1)
		return false;
	conv_pm_row_of(cx, w, start, c, w->cy, &r);
	conv_pm_plan(cx, sh, &r, w->xa, w->xb, w->ox, p);	/* one pixel */
	p->mr = conv_pm_split(w->fy1 - w->fy0, w->cy - w->fy0, sh->mr);
	p->ybase = r.ybase + (u64)w->ox * cx->ys3;
	p->ys = cx->ys2;
	p->sam = (u64)cx->g.sh * cx->xs2;
	p->ox = 0;
	w->cy += p->mr;
	if (w->cy >= w->fy1) {
		w->cy = w->fy0;
		w->ox++;
	}
	return true;
}

/* The next @max tiles of the walk into @px; returns how many. */
static u32 conv_pm_next(const struct conv_ctx *cx,
			const struct conv_pm_shape *sh, struct conv_pm_walk *w,
			u32 start, u32 c, struct conv_pm_px *px, u32 max)
{
	u32 nt = 0, xa, xb, xend;

	conv_pm_inner(w, &xa, &xb);
	while (nt < max && w->oy < w->oy1) {
		xend = conv_pm_col_row(w, w->oy) ? xb : w->x1;
		if (w->ox >= xend) {
			if (w->oy + 1 < w->oy1) {
				conv_pm_row_at(cx, w, start, c, w->oy + 1);
			} else {
				w->oy = w->oy1;
				w->ox = w->x0;	/* the columns' walk */
			}
			continue;
		}
		conv_pm_plan(cx, sh, &w->row, w->xa, w->xb, w->ox, &px[nt]);
		w->ox += px[nt].mr;
		nt++;
	}
	while (nt < max && conv_pm_col_next(cx, sh, w, start, c, &px[nt]))
		nt++;
	return nt;
}

/*
 * The walk in groups of tiles: the sums of a group, then bias, activation
 * and store. Groups live in the core's unified buffer when there is one
 * (all the unit's rows share each weight block), else in this frame.
 */
static noinline void
conv_pm_groups(const struct conv_ctx *cx, const struct conv_pm_shape *sh,
	       struct conv_pm_walk *w, u32 start, u32 c, u32 cnt, void *ub)
{
	float stack_acc[NPU_KERN_MAX_TILE];
	struct conv_pm_px stack_px[CONV_PM_STACK_TILES];
	u64 tile_bytes = (u64)sh->mr * sh->nr * sizeof(float);
	struct conv_pm_px *px = stack_px;
	float *acc = stack_acc;
	u32 maxt = NPU_KERN_MAX_TILE / (sh->mr * sh->nr), nt, i;

	if (maxt > CONV_PM_STACK_TILES)
		maxt = CONV_PM_STACK_TILES;
	if (ub) {
		/* sums first (64-byte tiles stay aligned), then the plan */
		maxt = (u32)(NPU_UB_BYTES / (tile_bytes + sizeof(*px)));
		if (maxt > CONV_PM_UB_TILES)
			maxt = CONV_PM_UB_TILES;
		acc = ub;
		px = (struct conv_pm_px *)((u8 *)ub + maxt * tile_bytes);
	}
	for (;;) {
		nt = conv_pm_next(cx, sh, w, start, c, px, maxt);
		if (!nt)
			break;
		conv_pm_sums(cx, sh, &w->t, px, nt, acc);
		for (i = 0; i < nt; i++)
			conv_pm_store(cx, sh, &px[i],
				      acc + (u64)i * sh->mr * sh->nr, c, cnt,
				      c - start);
	}
}

/*
 * Channels [@c, @c + @cnt) of output rows [@oy0, @oy1), pixels [@x0, @x1)
 * of each: the tile computes the nr channels from @start (<= @c,
 * start + nr >= c + cnt). The tiles go in groups that share each block
 * of weights (conv_pm_sums()).
 */
static noinline void
conv_pm_block(const struct conv_ctx *cx, const struct conv_pm_shape *sh,
	      u32 n, u32 g, u32 start, u32 c, u32 cnt, u32 oy0, u32 oy1,
	      u32 x0, u32 x1, void *ub)
{
	const struct npu_conv_geom *G = &cx->g;
	struct conv_pm_walk w;

	memset(&w, 0, sizeof(w));
	w.t.ldc = sh->nr;
	w.t.n[0] = cx->pm.n[0];
	w.t.n[1] = cx->pm.n[1];
	w.t.sa[0] = cx->pm.sa[0];
	w.t.sa[1] = cx->pm.sa[1];
	w.t.sa[2] = (u64)G->dh * cx->xs2;
	w.t.sa[3] = (u64)G->dw * cx->xs3;
	w.t.sb[0] = cx->pm.sb[0];
	w.t.sb[1] = cx->pm.sb[1];
	w.t.sb[2] = cx->w->strides[2];
	w.t.sb[3] = cx->w->strides[3];
	w.t.a = cx->x + (u64)n * cx->in->strides[0] +
		chan_off(cx->in, G->in_c0, (u64)g * G->cg);
	conv_interior(G, x0, x1, &w.xa, &w.xb);
	w.n = n;
	w.x0 = x0;
	w.x1 = x1;
	w.oy1 = oy1;
	conv_pm_col_rows(cx, &w, oy0);
	conv_pm_row_at(cx, &w, start, c, oy0);
	conv_pm_groups(cx, sh, &w, start, c, cnt, ub);
}

/*
 * Channels [@o0, @o0 + @nb) (one unit's, global indices) of group @g: in
 * blocks of the shape's nr channels, a last narrow block moved down to end
 * at the group's last channel (og >= nr: those channels are computed again
 * with the same bits, and stored by their own unit only).
 */
static void conv_pm_span(const struct conv_ctx *cx, u32 n, u32 g, u32 o0,
			 u32 nb, u32 oy0, u32 oy1, u32 x0, u32 x1, void *ub)
{
	const struct npu_kern *k = cx->pm.k;
	struct conv_pm_shape sh, nsh = { k->cv_mr, k->cv_nr, k->cv, k->cv16 };
	struct conv_pm_shape msh = { k->cm_mr, k->cm_nr, k->cm, k->cm16 };
	const struct conv_pm_shape *s;
	u32 gend = (g + 1) * cx->g.og, c, cnt, start;

	/*
	 * The wide (64) or mid (32) tile where the unit has the channels for
	 * it, unless the level's 16-channel tile holds more sums (AVX2: 6 x
	 * 16 against 2 x 32; its 12 accumulators hide the FMA latency, 8 do
	 * not); a last block of 16 channels or fewer takes the 16-channel
	 * tile rather than a wide one moved down over computed channels, and
	 * a last block narrower than the wide tile the mid one first (96
	 * channels: 64 + 32, not 64 + 64 with 32 computed twice; 40: 32 +
	 * 16, not 64).
	 */
	if (cx->g.ocb == 64 && k->cw_mr * k->cw_nr >= k->cv_mr * k->cv_nr)
		sh = (struct conv_pm_shape){ k->cw_mr, k->cw_nr, k->cw,
					     k->cw16 };
	else if (cx->g.ocb == 32 && k->cm_mr * k->cm_nr > k->cv_mr * k->cv_nr)
		sh = (struct conv_pm_shape){ k->cm_mr, k->cm_nr, k->cm,
					     k->cm16 };
	else
		sh = nsh;
	for (c = o0; c < o0 + nb; c += cnt) {
		u32 left = o0 + nb - c;

		if (left <= nsh.nr)
			s = &nsh;
		else if (left < sh.nr && msh.nr < sh.nr && msh.nr > nsh.nr)
			s = &msh;
		else
			s = &sh;
		cnt = o0 + nb - c < s->nr ? o0 + nb - c : s->nr;
		start = c + s->nr > gend ? gend - s->nr : c;
		conv_pm_block(cx, s, n, g, start, c, cnt, oy0, oy1, x0, x1,
			      ub);
	}
}

/*
 * Channels O..C1*C0-1 of an NC1HWC0 output are padding and must read as
 * zero. The unit of the last channel block of the last group zeroes them
 * for its own pixels [@p0, @p1) of row @oy: a bounded share per unit.
 */
static void zero_pad_span(const struct conv_ctx *cx, u32 n, u32 oy, u64 p0,
			  u64 p1)
{
	const struct npu_conv_geom *G = &cx->g;
	u64 ctot = (u64)cx->out->shape[1] * (u32)G->out_c0, c, p, base;

	for (c = G->o; c < ctot; c++) {
		base = (u64)n * cx->out->strides[0] +
		       chan_off(cx->out, G->out_c0, c) + (u64)oy * cx->ys2;
		for (p = p0; p < p1; p++)
			cx->y[base + p * cx->ys3] = 0.0f;
	}
}

/*
 * Depthwise (one input and one output channel per group): the taps are
 * too few for a matrix product, so accumulate whole rows instead - for
 * each tap, out[x] += w * in[row][x * sw + offset] over the columns whose
 * input lies inside the row (taps in the padding are skipped).
 */
#define DW_CHUNK	64

static void conv_dw_row(const struct conv_ctx *cx, u32 n, u32 c, u32 oy)
{
	const struct npu_conv_geom *G = &cx->g;
	const struct drm_npu_operand *w = cx->w;
	const float *xc = cx->x + (u64)n * cx->in->strides[0] +
			  chan_off(cx->in, G->in_c0, c);
	const float *wc = cx->wt + (u64)c * w->strides[0];
	u64 xs3 = cx->xs3;
	float acc[DW_CHUNK];
	u32 ox0, cnt, kh, kw, j, k;

	for (ox0 = 0; ox0 < G->ow; ox0 += cnt) {
		cnt = G->ow - ox0 < DW_CHUNK ? G->ow - ox0 : DW_CHUNK;
		for (j = 0; j < cnt; j++)
			acc[j] = 0.0f;
		for (kh = 0; kh < G->kh; kh++) {
			s64 iy = (s64)oy * G->sh - G->pt + (s64)kh * G->dh;
			const float *xr;

			if (iy < 0 || iy >= G->h)
				continue;
			xr = xc + (u64)iy * cx->xs2;
			for (kw = 0; kw < G->kw; kw++) {
				s64 base = (s64)ox0 * G->sw - G->pl +
					   (s64)kw * G->dw;
				float wv = wc[kh * w->strides[2] +
					      kw * w->strides[3]];
				s64 lo = 0, hi;

				if (base < 0)
					lo = (-base + G->sw - 1) / G->sw;
				if (base >= (s64)G->w)
					continue;
				hi = ((s64)G->w - 1 - base) / G->sw + 1;
				if (hi > cnt)
					hi = cnt;
				if (G->sw == 1 && xs3 == 1) {
					const float *xp = xr + base;

					for (k = (u32)lo; k < (u32)hi; k++)
						acc[k] += wv * xp[k];
				} else {
					for (k = (u32)lo; k < (u32)hi; k++)
						acc[k] += wv * xr[(u64)(base + (s64)k *
								      G->sw) * xs3];
				}
			}
		}
		for (j = 0; j < cnt; j += 8)
			store_row(cx, n, c, (u64)oy * cx->ys2 +
				  (u64)(ox0 + j) * cx->ys3, cx->ys3, acc + j,
				  cnt - j < 8 ? cnt - j : 8);
	}
}

/*
 * Depthwise over a 16-channel NC1HWC0 block (npu_conv_geom()'s dwblk):
 * the channels are vector lanes (npu_kern.h's dw16, per ISA level, which
 * multiplies and adds without fusing), and every lane sums
 * its taps exactly as conv_dw_row() does (in (kh, kw) order, padding
 * skipped, product and sum rounded separately), so the bits are the same.
 * Lanes past the last channel read the input's zero padding channels
 * (inside its shape), weigh them with 0 and store 0.
 */
#define DW16_PIX	16

/* A depthwise row of a 16-channel block: what its chunks share. */
struct dw16_row {
	const float *xp;	/* the block's plane of image n */
	const float *wtab;	/* [kh][kw][16] weights, or NULL: gather */
	const u64 *off;		/* interior taps' input offsets (wtab) */
	float *win;		/* an edge pixel's taps (pad_ok) */
	const u64 *woff;	/* their offsets in win: 16 apart */
	float *acc;		/* the whole row's sums, or NULL: chunks */
	float bias[16];		/* zero past the last channel */
	int clamp;		/* npu_act_clamp() */
	float lo, hi;
	u32 c0, lanes, oy;
	u32 kh_lo, kh_hi;	/* the row's valid kh taps */
	u64 xa, xb;		/* interior pixels: every tap inside */
	bool pad_ok;		/* edges through a zero-padded window */
};

/*
 * Edge pixels through a window of their taps with zeros for the columns
 * in the padding, all taps in registers (dw16_taps) instead of one call
 * per tap: a zero input adds w * 0 = +-0 to a sum that started at +0,
 * which never changes it (a sum from +0 is never -0 in round-to-nearest,
 * and x + +-0 = x), so the bits are those of skipping the tap - for
 * finite weights only (inf * 0 is NaN): dw16_table() checks them.
 */
static void dw16_edge_px(const struct conv_ctx *cx, const struct dw16_row *r,
			 u64 ox, float *acc)
{
	const struct npu_conv_geom *G = &cx->g;
	float *win = r->win;
	u32 kh, kw, t = 0;

	for (kh = r->kh_lo; kh < r->kh_hi; kh++) {
		u64 iy = (u64)r->oy * G->sh - G->pt + (u64)kh * G->dh;

		for (kw = 0; kw < G->kw; kw++, t++) {
			s64 ix = (s64)(ox * G->sw) - G->pl + (s64)kw * G->dw;

			if (ix < 0 || ix >= (s64)G->w)
				memset(win + t * 16, 0, 16 * sizeof(float));
			else
				memcpy(win + t * 16, r->xp + iy * cx->xs2 +
				       (u64)ix * cx->xs3, 16 * sizeof(float));
		}
	}
	cx->kern->dw16_taps(acc, win, 16, r->wtab + (u64)r->kh_lo * G->kw * 16,
			    r->woff, t, 1);
}

/* Pixels [@q0, @q1) of the chunk at @ox0, one window each. */
static void dw16_edges_padded(const struct conv_ctx *cx,
			      const struct dw16_row *r, u32 ox0, u64 q0,
			      u64 q1, float *acc)
{
	u64 q;

	for (q = q0; q < q1; q++)
		dw16_edge_px(cx, r, ox0 + q, acc + q * 16);
}

/* The 16 weights of tap (@kh, @kw), zero past the last channel. */
static void dw16_weights(const struct conv_ctx *cx, const struct dw16_row *r,
			 u32 kh, u32 kw, float *wl)
{
	const struct drm_npu_operand *w = cx->w;
	u32 j;

	if (r->wtab) {
		memcpy(wl, r->wtab + ((u64)kh * cx->g.kw + kw) * 16,
		       16 * sizeof(float));
		return;
	}
	for (j = 0; j < 16; j++)
		wl[j] = j < r->lanes ?
			cx->wt[(u64)(r->c0 + j) * w->strides[0] +
			       kh * w->strides[2] + kw * w->strides[3]] : 0.0f;
}

/*
 * Pixels [@q0, @q1) of the chunk at @ox0, tap by tap (taps over the
 * padding skipped per pixel), into @acc (the chunk's sums).
 */
static void dw16_taps_edge(const struct conv_ctx *cx, const struct dw16_row *r,
			   u32 ox0, s64 q0, s64 q1, float *acc)
{
	const struct npu_conv_geom *G = &cx->g;
	u64 xs3 = cx->xs3;
	float wl[16];
	u32 kh, kw;

	for (kh = r->kh_lo; kh < r->kh_hi; kh++) {
		s64 iy = (s64)r->oy * G->sh - G->pt + (s64)kh * G->dh;
		const float *xr = r->xp + (u64)iy * cx->xs2;

		for (kw = 0; kw < G->kw; kw++) {
			s64 base = (s64)ox0 * G->sw - G->pl + (s64)kw * G->dw;
			s64 lo = q0, hi;

			if (base < 0 && (-base + G->sw - 1) / G->sw > lo)
				lo = (-base + G->sw - 1) / G->sw;
			if (base >= (s64)G->w)
				continue;
			hi = ((s64)G->w - 1 - base) / G->sw + 1;
			if (hi > q1)
				hi = q1;
			if (lo >= hi)
				continue;
			dw16_weights(cx, r, kh, kw, wl);
			/* the ISA level's loop: the same bits at all */
			cx->kern->dw16(acc + lo * 16, xr + (u64)(base + lo *
				       (s64)G->sw) * xs3, (u64)G->sw * xs3, wl,
				       0, (u32)(hi - lo));
		}
	}
}

/*
 * The sums of @cnt pixels from @ox0: interior pixels (every tap inside)
 * with all their taps in registers when the unit has a weight table,
 * the edges tap by tap. Either way each sum runs over the same taps in
 * (kh, kw) order from +0, product and sum rounded separately.
 */
static void dw16_chunk(const struct conv_ctx *cx, const struct dw16_row *r,
		       u32 ox0, u32 cnt, float *acc)
{
	const struct npu_conv_geom *G = &cx->g;
	u64 a = ox0, b = ox0;
	s64 iy;

	if (r->wtab) {
		a = r->xa > ox0 ? r->xa : ox0;
		b = r->xb < (u64)ox0 + cnt ? r->xb : (u64)ox0 + cnt;
		if (b < a)
			b = a;
	}
	if (r->pad_ok) {
		dw16_edges_padded(cx, r, ox0, 0, a - ox0, acc);
		dw16_edges_padded(cx, r, ox0, b - ox0, cnt, acc);
	} else {
		memset(acc, 0, (u64)cnt * 16 * sizeof(float));
		dw16_taps_edge(cx, r, ox0, 0, (s64)(a - ox0), acc);
		dw16_taps_edge(cx, r, ox0, (s64)(b - ox0), cnt, acc);
	}
	if (a < b) {
		iy = (s64)r->oy * G->sh - G->pt + (s64)r->kh_lo * G->dh;
		if (r->kh_lo >= r->kh_hi)
			iy = 0;		/* no tap: no address outside */
		cx->kern->dw16_taps(acc + (a - ox0) * 16,
				    r->xp + (u64)iy * cx->xs2 +
				    (a * G->sw - G->pl) * cx->xs3,
				    (u64)G->sw * cx->xs3,
				    r->wtab + (u64)r->kh_lo * G->kw * 16,
				    r->off, (r->kh_hi - r->kh_lo) * G->kw,
				    (u32)(b - a));
	}
}

/*
 * The weight table [kh][kw][16] and room for the interior taps' offsets
 * in the core's unified buffer (when it holds them): gathered once per
 * block and call (cx->dwt: the units of a call walk a block's rows)
 * instead of once per chunk and tap.
 */
static void dw16_table(const struct conv_ctx *cx, struct dw16_row *r,
		       void *ub)
{
	const struct npu_conv_geom *G = &cx->g;
	u64 taps = (u64)G->kh * G->kw, t;
	u64 tb = taps * (16 * sizeof(float) + sizeof(u64)), end;
	bool win;
	float *wtab;
	u64 *off;
	u32 kh, kw;

	r->wtab = NULL;
	if (!ub || tb > NPU_UB_BYTES)
		return;
	wtab = ub;
	off = (u64 *)(wtab + taps * 16);
	/* the edge window (as large as the table) after the table */
	end = (tb + 63) & ~63ull;
	win = tb <= NPU_UB_BYTES - end;
	if (win) {
		r->win = (float *)((u8 *)ub + end);
		r->woff = (const u64 *)(r->win + taps * 16);
		end = (end + tb + 63) & ~63ull;
	}
	if (cx->dwt->c0 == r->c0) {
		r->pad_ok = cx->dwt->pad_ok;
	} else {
		/* r->wtab still NULL: dw16_weights() gathers */
		for (kh = 0; kh < G->kh; kh++)
			for (kw = 0; kw < G->kw; kw++)
				dw16_weights(cx, r, kh, kw, wtab +
					     ((u64)kh * G->kw + kw) * 16);
		r->pad_ok = win;
		for (t = 0; win && t < taps; t++)
			((u64 *)r->woff)[t] = t * 16;
		for (t = 0; t < taps * 16; t++)
			r->pad_ok &= !npu_isnanf(wtab[t]) &&
				     !npu_isinff(wtab[t]);
		cx->dwt->c0 = r->c0;
		cx->dwt->pad_ok = r->pad_ok;
	}
	r->wtab = wtab;
	r->off = off;
	/* the row's sums after the table and window, when they fit */
	if (end <= NPU_UB_BYTES &&
	    (u64)G->ow * 16 * sizeof(float) <= NPU_UB_BYTES - end)
		r->acc = (float *)((u8 *)ub + end);
}

/* Row @oy of the unit: its valid kh taps and their offsets (wtab). */
static void dw16_row_at(const struct conv_ctx *cx, struct dw16_row *r, u32 oy)
{
	const struct npu_conv_geom *G = &cx->g;
	u64 *off = (u64 *)r->off;
	u32 kh, kw, t;

	r->oy = oy;
	conv_tap_range((s64)oy * G->sh - G->pt, G->kh, G->dh, G->h, &r->kh_lo,
		       &r->kh_hi);
	if (r->kh_lo >= r->kh_hi) {
		r->kh_lo = 0;
		r->kh_hi = 0;
	}
	if (!r->wtab)
		return;
	for (t = 0, kh = 0; kh + r->kh_lo < r->kh_hi; kh++)
		for (kw = 0; kw < G->kw; kw++)
			off[t++] = (u64)kh * G->dh * cx->xs2 +
				   (u64)kw * G->dw * cx->xs3;
}

/*
 * The sums, bias, activation and store of row @r->oy (image @n, block
 * @blk): chunks of pixels (the whole row when its sums fit the unified
 * buffer).
 */
static void dw16_row_out(const struct conv_ctx *cx, const struct dw16_row *r,
			 u32 n, u32 blk, float *acc, u32 chunk)
{
	const struct npu_conv_geom *G = &cx->g;
	u64 yb = (u64)n * cx->out->strides[0] +
		 (u64)blk * cx->out->strides[1] + (u64)r->oy * cx->ys2;
	float row[16];
	u32 ox0, cnt, j, p;

	for (ox0 = 0; ox0 < G->ow; ox0 += cnt) {
		cnt = G->ow - ox0 < chunk ? G->ow - ox0 : chunk;
		dw16_chunk(cx, r, ox0, cnt, acc);
		if (r->clamp >= 0 && cx->ys3 >= 16) {
			/* the level's store: npu_act_row()'s bits */
			cx->kern->epi16(cx->y + yb + (u64)ox0 * cx->ys3,
					cx->ys3, acc, 16, cnt, r->bias,
					cx->res ? cx->res + yb +
					(u64)ox0 * cx->ys3 : NULL, r->lanes,
					(u32)r->clamp, r->lo, r->hi);
			continue;
		}
		for (p = 0; p < cnt; p++) {
			memcpy(row, acc + p * 16, sizeof(row));
			for (j = 0; j < 16; j++)
				row[j] += r->bias[j];
			for (j = 0; cx->res && j < 16; j++)
				row[j] = row[j] + cx->res[yb + (u64)(ox0 + p) *
							  cx->ys3 + j];
			npu_act_row(&cx->act, row, 16);
			for (j = r->lanes; j < 16; j++)
				row[j] = 0.0f;
			memcpy(cx->y + yb + (u64)(ox0 + p) * cx->ys3, row,
			       sizeof(row));
		}
	}
}

/*
 * Rows [@oy0, @oy1) of 16-channel block @blk of image @n (several rows a
 * unit on small maps: npu_conv_geom()'s rows), the weight table built
 * once for all of them.
 */
static noinline void
conv_dw16_rows(const struct conv_ctx *cx, u32 n, u32 blk, u32 oy0, u32 oy1,
	       void *ub)
{
	const struct npu_conv_geom *G = &cx->g;
	struct dw16_row r;
	float stack_acc[DW16_PIX * 16];
	u32 j, oy;

	memset(&r, 0, sizeof(r));
	r.c0 = blk * NPU_C0_DEFAULT;
	r.lanes = G->groups - r.c0;
	if (r.lanes > NPU_C0_DEFAULT)
		r.lanes = NPU_C0_DEFAULT;
	r.xp = cx->x + (u64)n * cx->in->strides[0] +
	       (u64)blk * cx->in->strides[1];
	conv_interior(G, 0, G->ow, &r.xa, &r.xb);
	dw16_table(cx, &r, ub);
	r.clamp = npu_act_clamp(&cx->act, &r.lo, &r.hi);
	for (j = 0; j < 16; j++)
		r.bias[j] = cx->bias && j < r.lanes ?
			    cx->bias[(u64)(r.c0 + j) * cx->bias_st] : 0.0f;
	for (oy = oy0; oy < oy1; oy++) {
		dw16_row_at(cx, &r, oy);
		dw16_row_out(cx, &r, n, blk, r.acc ? r.acc : stack_acc,
			     r.acc ? G->ow : DW16_PIX);
	}
}

/* Rows [@oy0, @oy1) of channels [@o0, @o0 + @nb) of group @g, image @n. */
static void conv_rows(const struct conv_ctx *cx, u32 n, u32 g, u32 o0,
		      u32 nb, u32 oy0, u32 oy1, void *ub)
{
	const struct npu_conv_geom *G = &cx->g;
	u32 oy, s, m;

	if (cx->pm.k) {
		conv_pm_span(cx, n, g, o0 + g * G->og, nb, oy0, oy1, 0, G->ow,
			     ub);
		return;
	}
	for (oy = oy0; oy < oy1; oy++) {
		for (s = 0; s < nb; s += m) {
			m = nb - s < NPU_CONV_OCB ? nb - s : NPU_CONV_OCB;
			conv_span(cx, n, g, o0 + s + g * G->og, m, oy, 0,
				  G->ow);
		}
	}
}

static void conv_row_unit(const struct conv_ctx *cx, u64 u, void *ub)
{
	const struct npu_conv_geom *G = &cx->g;
	u32 oy, oy0, oy1, ob, g, n, o0, nb;

	/* rb <= oh and rows * rb < oh + rows: the row indices fit u32 */
	oy0 = (u32)(u % G->rb) * G->rows;
	oy1 = G->oh - oy0 < G->rows ? G->oh : oy0 + G->rows;
	u /= G->rb;
	if (G->dwblk) {
		u64 blks = (G->groups + G->dwblk - 1) / G->dwblk;

		conv_dw16_rows(cx, (u32)(u / blks), (u32)(u % blks), oy0, oy1,
			       ub);
		return;
	}
	ob = (u32)(u % G->ob);
	u /= G->ob;
	g = (u32)(u % G->groups);
	n = (u32)(u / G->groups);
	if (G->cg == 1 && G->og == 1) {
		for (oy = oy0; oy < oy1; oy++) {
			conv_dw_row(cx, n, g, oy);
			if (g == G->groups - 1)
				zero_pad_span(cx, n, oy, 0, G->ow);
		}
		return;
	}
	o0 = ob * G->ocb;		/* ob < ceil(og / ocb): o0 < og */
	nb = G->og - o0 < G->ocb ? G->og - o0 : G->ocb;
	conv_rows(cx, n, g, o0, nb, oy0, oy1, ub);
	if (ob == G->ob - 1 && g == G->groups - 1)
		for (oy = oy0; oy < oy1; oy++)
			zero_pad_span(cx, n, oy, 0, G->ow);
}

/*
 * 1x1, stride 1, no padding, dense planes: the image is one row of
 * H x W pixels (cx holds that virtual geometry), cut in 64-pixel chunks.
 */
static void conv_flat_unit(const struct conv_ctx *cx, u64 u, void *ub)
{
	const struct npu_conv_geom *G = &cx->g;
	u32 ob = (u32)(u % G->ob), g, n, o0, nb;
	u64 pu, p0, p1;

	u /= G->ob;
	pu = u % G->flat_units;
	u /= G->flat_units;
	g = (u32)(u % G->groups);
	n = (u32)(u / G->groups);
	o0 = ob * G->ocb;
	nb = G->og - o0 < G->ocb ? G->og - o0 : G->ocb;
	p0 = pu * NPU_CONV_FLAT_PIX;
	p1 = p0 + NPU_CONV_FLAT_PIX < G->ow ? p0 + NPU_CONV_FLAT_PIX : G->ow;
	/* the flat plane has at most 2^32 - 1 pixels (npu_conv_geom()) */
	if (cx->pm.k)
		conv_pm_span(cx, n, g, o0 + g * G->og, nb, 0, 1, (u32)p0,
			     (u32)p1, ub);
	else
		conv_span(cx, n, g, o0 + g * G->og, nb, 0, (u32)p0, (u32)p1);
	if (ob == G->ob - 1 && g == G->groups - 1)
		zero_pad_span(cx, n, 0, p0, p1);
}

int npu_run_conv2d(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	int bias = !!(t->params.conv2d.flags & DRM_NPU_CONV_HAS_BIAS);
	int res = !!(t->params.conv2d.flags & DRM_NPU_CONV_HAS_RESIDUAL);
	struct conv_dw_tab dwt = { .c0 = ~0u };
	struct conv_ctx cx;
	u64 u;

	npu_conv_geom(t, &cx.g);
	cx.dwt = &dwt;
	cx.in = npu_opnd(t, 0);
	cx.w = npu_opnd(t, 1);
	cx.out = npu_opnd(t, 2 + bias + res);
	cx.x = args->data[0];
	cx.wt = args->data[1];
	cx.bias = bias ? args->data[2] : NULL;
	cx.bias_st = bias ? npu_opnd(t, 2)->strides[0] : 0;
	cx.res = res ? args->data[2 + bias] : NULL;
	cx.y = args->data[2 + bias + res];
	npu_act_init(&cx.act, &t->params.conv2d.act);
	cx.xs2 = cx.in->strides[2];
	cx.xs3 = cx.in->strides[3];
	cx.ys2 = cx.out->strides[2];
	cx.ys3 = cx.out->strides[3];
	if (cx.g.flat) {
		/* dense planes: one row of H * W pixels */
		cx.g.w = cx.g.h * cx.g.w;
		cx.g.h = 1;
		cx.g.ow = cx.g.oh * cx.g.ow;
		cx.g.oh = 1;
	}
	cx.kern = npu_kern_get(args->isa);
	cx.act.kern = cx.kern;
	cx.epi = npu_act_clamp(&cx.act, &cx.epi_lo, &cx.epi_hi);
	conv_pm_init(&cx, args->isa);
	for (u = begin; u < end; u++) {
		if (cx.g.flat)
			conv_flat_unit(&cx, u, args->ub);
		else
			conv_row_unit(&cx, u, args->ub);
	}
	return 0;
}
