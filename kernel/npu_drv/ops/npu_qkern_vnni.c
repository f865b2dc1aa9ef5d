// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_qkern_vnni.c - the AVX-512 VNNI level of the int8 product kernels:
 * VPDPBUSD on 256-bit vectors (32 u8 x s8 products summed four by four
 * into eight int32 lanes, without intermediate saturation). Called only
 * when the CPU and the OS support it (npu_op_has_vnni()).
 *
 * The dot products take unsigned activations: an I8 input is flipped to
 * u8 (x + 128) and the zero point with it, and the sum of the weights
 * times that zero point is taken off once per output channel:
 *
 *   sum (x - za) * w = sum xu * w - zu * sum w,  xu = x + 128, zu = za + 128
 *
 * exact in 32-bit wrapping arithmetic, so the result equals the portable
 * loops' bit for bit. Padding taps read a vector of the zero point's byte
 * (they then add zu * w - zu * w = 0).
 */
#include "npu_qkern.h"

#ifdef NPU_QKERN_VNNI
#ifdef __clang__
#pragma clang attribute push(__attribute__((target( \
	"avx512f,avx512vl,avx512bw,avx512vnni,avx2,fma"))), \
	apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512vnni,avx2,fma")
#endif
#include <immintrin.h>

static __always_inline __m256i ld32(const u8 *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

/* Four 8-lane sums -> one 4-lane vector [s0, s1, s2, s3]. */
static __always_inline __m128i hsum4(__m256i a0, __m256i a1, __m256i a2,
				     __m256i a3)
{
	__m256i t0 = _mm256_hadd_epi32(a0, a1);
	__m256i t1 = _mm256_hadd_epi32(a2, a3);
	__m256i t2 = _mm256_hadd_epi32(t0, t1);

	return _mm_add_epi32(_mm256_castsi256_si128(t2),
			     _mm256_extracti128_si256(t2, 1));
}

/* acc (4 int32) * mult + yz, clamped to [lo, hi], rounded half to even. */
static __always_inline __m128i requant4(__m128i acc, __m256d mult,
					__m256d yz, __m256d lo, __m256d hi)
{
	__m256d d = _mm256_mul_pd(_mm256_cvtepi32_pd(acc), mult);

	d = _mm256_add_pd(d, yz);
	d = _mm256_min_pd(d, hi);	/* NaN -> hi, as the portable loop */
	d = _mm256_max_pd(d, lo);
	d = _mm256_round_pd(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	return _mm256_cvtpd_epi32(d);
}

static __always_inline void store4(u8 *out, u64 cs, __m128i v, u32 n)
{
	s32 r[4];
	u32 i;

	_mm_storeu_si128((__m128i *)r, v);
	for (i = 0; i < n; i++)
		out[i * cs] = (u8)r[i];
}

/* Where pixel ox + p reads tap (iy, kx): its C1 blocks, or the padding. */
static __always_inline const u8 *qconv_px(const struct npu_qconv_job *j,
					  const u8 *padbuf, u64 ox, u32 p,
					  u32 np, s64 iy, int rowok, u64 kx,
					  u64 *st)
{
	s64 ix = (s64)((ox + p) * j->sw + kx * j->dw) - (s64)j->pl;

	if (p < np && rowok && ix >= 0 && ix < (s64)j->iw) {
		*st = j->xs1;
		return j->x + (u64)iy * j->xs2 + (u64)ix * j->xs3;
	}
	*st = 0;
	return padbuf;
}

static __always_inline __m256i qdp(__m256i a, __m256i x, __m256i w)
{
	return _mm256_dpbusd_epi32(a, x, w);
}

/*
 * 4 pixels from ox x 4 output channels (weights at wp[]): 16 sums kept
 * in registers over every tap and channel block; out[p] gets pixel p's
 * four sums.
 */
static __always_inline void qconv_block(const struct npu_qconv_job *j,
					const u8 *const *wp,
					const u8 *padbuf, __m256i flip,
					u64 ox, u32 np, __m128i *out,
					const int i8)
{
	__m256i a00 = _mm256_setzero_si256(), a01 = a00, a02 = a00;
	__m256i a03 = a00, a10 = a00, a11 = a00, a12 = a00, a13 = a00;
	__m256i a20 = a00, a21 = a00, a22 = a00, a23 = a00, a30 = a00;
	__m256i a31 = a00, a32 = a00, a33 = a00;
	u64 ky, kx, c1;

	for (ky = 0; ky < j->kh; ky++) {
		s64 iy = j->iy0 + (s64)(ky * j->dh);
		int rowok = iy >= 0 && iy < (s64)j->ih;

		for (kx = 0; kx < j->kw; kx++) {
			u64 s0, s1, s2, s3, wo = ky * j->ws2 + kx * j->ws3;
			const u8 *x0 = qconv_px(j, padbuf, ox, 0, np, iy,
						rowok, kx, &s0);
			const u8 *x1 = qconv_px(j, padbuf, ox, 1, np, iy,
						rowok, kx, &s1);
			const u8 *x2 = qconv_px(j, padbuf, ox, 2, np, iy,
						rowok, kx, &s2);
			const u8 *x3 = qconv_px(j, padbuf, ox, 3, np, iy,
						rowok, kx, &s3);
			const u8 *w0 = wp[0] + wo, *w1 = wp[1] + wo;
			const u8 *w2 = wp[2] + wo, *w3 = wp[3] + wo;

			for (c1 = 0; c1 < j->c1; c1++) {
				__m256i v0 = i8 ? _mm256_xor_si256(ld32(x0), flip) :
						 ld32(x0);
				__m256i v1 = i8 ? _mm256_xor_si256(ld32(x1), flip) :
						 ld32(x1);
				__m256i v2 = i8 ? _mm256_xor_si256(ld32(x2), flip) :
						 ld32(x2);
				__m256i v3 = i8 ? _mm256_xor_si256(ld32(x3), flip) :
						 ld32(x3);
				__m256i u0 = ld32(w0), u1 = ld32(w1);
				__m256i u2 = ld32(w2), u3 = ld32(w3);

				a00 = qdp(a00, v0, u0);
				a01 = qdp(a01, v0, u1);
				a02 = qdp(a02, v0, u2);
				a03 = qdp(a03, v0, u3);
				a10 = qdp(a10, v1, u0);
				a11 = qdp(a11, v1, u1);
				a12 = qdp(a12, v1, u2);
				a13 = qdp(a13, v1, u3);
				a20 = qdp(a20, v2, u0);
				a21 = qdp(a21, v2, u1);
				a22 = qdp(a22, v2, u2);
				a23 = qdp(a23, v2, u3);
				a30 = qdp(a30, v3, u0);
				a31 = qdp(a31, v3, u1);
				a32 = qdp(a32, v3, u2);
				a33 = qdp(a33, v3, u3);
				x0 += s0;
				x1 += s1;
				x2 += s2;
				x3 += s3;
				w0 += j->ws1;
				w1 += j->ws1;
				w2 += j->ws1;
				w3 += j->ws1;
			}
		}
	}
	out[0] = hsum4(a00, a01, a02, a03);
	out[1] = hsum4(a10, a11, a12, a13);
	out[2] = hsum4(a20, a21, a22, a23);
	out[3] = hsum4(a30, a31, a32, a33);
}

/*
 * qconv_block() for 4 pixels whose taps all lie inside the input: tap t
 * of pixel p reads xb[p] + tapx[t], its weights wp[q] + tapw[t]; no
 * bounds checks in the loop.
 */
#define QCONV_MAX_TAPS	64

static __always_inline void qconv_block_in(const struct npu_qconv_job *j,
					   const u8 *const *wp,
					   const u8 *const *xb,
					   const u64 *tapx, const u64 *tapw,
					   u32 taps, __m256i flip,
					   __m128i *out, const int i8)
{
	__m256i a00 = _mm256_setzero_si256(), a01 = a00, a02 = a00;
	__m256i a03 = a00, a10 = a00, a11 = a00, a12 = a00, a13 = a00;
	__m256i a20 = a00, a21 = a00, a22 = a00, a23 = a00, a30 = a00;
	__m256i a31 = a00, a32 = a00, a33 = a00;
	u64 c1, xs1 = j->xs1, ws1 = j->ws1;
	u32 t;

	for (t = 0; t < taps; t++) {
		const u8 *x0 = xb[0] + tapx[t], *x1 = xb[1] + tapx[t];
		const u8 *x2 = xb[2] + tapx[t], *x3 = xb[3] + tapx[t];
		const u8 *w0 = wp[0] + tapw[t], *w1 = wp[1] + tapw[t];
		const u8 *w2 = wp[2] + tapw[t], *w3 = wp[3] + tapw[t];

		for (c1 = 0; c1 < j->c1; c1++) {
			__m256i v0 = ld32(x0 + c1 * xs1);
			__m256i v1 = ld32(x1 + c1 * xs1);
			__m256i v2 = ld32(x2 + c1 * xs1);
			__m256i v3 = ld32(x3 + c1 * xs1);
			__m256i u0 = ld32(w0 + c1 * ws1);
			__m256i u1 = ld32(w1 + c1 * ws1);
			__m256i u2 = ld32(w2 + c1 * ws1);
			__m256i u3 = ld32(w3 + c1 * ws1);

			if (i8) {
				v0 = _mm256_xor_si256(v0, flip);
				v1 = _mm256_xor_si256(v1, flip);
				v2 = _mm256_xor_si256(v2, flip);
				v3 = _mm256_xor_si256(v3, flip);
			}
			a00 = qdp(a00, v0, u0);
			a01 = qdp(a01, v0, u1);
			a02 = qdp(a02, v0, u2);
			a03 = qdp(a03, v0, u3);
			a10 = qdp(a10, v1, u0);
			a11 = qdp(a11, v1, u1);
			a12 = qdp(a12, v1, u2);
			a13 = qdp(a13, v1, u3);
			a20 = qdp(a20, v2, u0);
			a21 = qdp(a21, v2, u1);
			a22 = qdp(a22, v2, u2);
			a23 = qdp(a23, v2, u3);
			a30 = qdp(a30, v3, u0);
			a31 = qdp(a31, v3, u1);
			a32 = qdp(a32, v3, u2);
			a33 = qdp(a33, v3, u3);
		}
	}
	out[0] = hsum4(a00, a01, a02, a03);
	out[1] = hsum4(a10, a11, a12, a13);
	out[2] = hsum4(a20, a21, a22, a23);
	out[3] = hsum4(a30, a31, a32, a33);
}

/* The sum of output channel @oc's weights (products with bytes of 1). */
static s32 qconv_wsum(const struct npu_qconv_job *j, u64 oc)
{
	const __m256i ones = _mm256_set1_epi8(1);
	__m256i s = _mm256_setzero_si256();
	u64 c1, ky, kx;

	for (c1 = 0; c1 < j->c1; c1++)
		for (ky = 0; ky < j->kh; ky++)
			for (kx = 0; kx < j->kw; kx++) {
				const u8 *w = j->w + oc * j->ws0 + c1 * j->ws1 +
					      ky * j->ws2 + kx * j->ws3;

				s = _mm256_dpbusd_epi32(s, ones, ld32(w));
			}
	return _mm_cvtsi128_si32(hsum4(s, s, s, s));
}

/*
 * The broadcast form, for stride 1 or 2 when the unified
 * buffer holds the block's weights and the row's input window:
 *
 * - the weights of the 16-channel block are repacked, once per chunk, into
 *   [KH * KW][C1][8][16][4] bytes: a 64-byte vector holds four input
 *   channels of each of the 16 output channels;
 * - the input rows the output row reads are copied into a window
 *   [KH][C1][NPX][32] with the padding written as the zero point's byte,
 *   so that the loop has no bounds checks and pixel p of a block is a
 *   constant offset (p * stride * 32 bytes);
 * - one VPDPBUSD multiplies four input bytes of a pixel, broadcast to all
 *   16 lanes, with a weight vector: the 16 output channels of the pixel
 *   accumulate in the lanes of one register, 16 (or 8) pixels in as many
 *   registers, with no horizontal sums.
 *
 * Same integer sums, same requantization: the bits of the other forms.
 */
#define QBC_WIN_PX	16	/* pixels of a block: 16, or 8 near the end */

struct qbc {
	const struct npu_qconv_job *j;
	u64 taps, npx;		/* taps, window pixels */
	/* in the unified buffer, in this order: */
	s32 *comp;		/* bias - zu * sum of the channel's weights */
	u8 *w, *win;
};

static int qbc_setup(const struct npu_qconv_job *j, struct qbc *b)
{
	u64 span, wbytes, winbytes;

	if (!j->ub || (j->sw != 1 && j->sw != 2) || j->xs3 != 32 ||
	    j->ws0 > 0x7fffffffu / 16)	/* the gather's int32 index */
		return 0;
	b->taps = (u64)j->kh * j->kw;
	/* the pixels the last (rounded-up) block reads */
	span = ((j->ow + QBC_WIN_PX - 1) / QBC_WIN_PX * QBC_WIN_PX - 1) *
	       j->sw + (u64)(j->kw - 1) * j->dw + 1;
	/* each factor bounded first: the products below stay under 2^48 */
	if (b->taps > NPU_UB_BYTES || span > NPU_UB_BYTES ||
	    j->c1 > NPU_UB_BYTES / 512)
		return 0;
	wbytes = b->taps * j->c1 * 512;
	winbytes = (u64)j->kh * j->c1 * span * 32;
	if (64 + wbytes + winbytes > NPU_UB_BYTES)
		return 0;
	b->j = j;
	b->npx = span;
	b->comp = j->ub;
	b->w = (u8 *)j->ub + 64;
	b->win = b->w + wbytes;
	return 1;
}

/*
 * Repack the block's weights into the buffer, a gather of 16 channels'
 * four bytes per vector; comp[] from their sums (VPDPBUSD with bytes of 1).
 */
static void qbc_pack_weights(struct qbc *b)
{
	const struct npu_qconv_job *j = b->j;
	const __mmask16 live = (__mmask16)((1u << j->noc) - 1);
	const __m512i ones = _mm512_set1_epi8(1);
	const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
					       10, 11, 12, 13, 14, 15);
	const __m512i idx = _mm512_mullo_epi32(lane,
					       _mm512_set1_epi32((s32)j->ws0));
	__m512i sums = _mm512_setzero_si512(), add;
	u8 *d = b->w;
	u64 t, c1;
	int g;

	for (t = 0; t < b->taps; t++)
		for (c1 = 0; c1 < j->c1; c1++) {
			const u8 *src = j->w + c1 * j->ws1 +
					(t / j->kw) * j->ws2 +
					(t % j->kw) * j->ws3;

			for (g = 0; g < 8; g++) {
				__m512i v = _mm512_setzero_si512();

				v = _mm512_mask_i32gather_epi32(v, live, idx,
								src + g * 4,
								1);

				_mm512_storeu_si512(d, v);
				sums = _mm512_dpbusd_epi32(sums, ones, v);
				d += 64;
			}
		}
	add = _mm512_maskz_loadu_epi32(live, j->rq->add);
	sums = _mm512_mullo_epi32(sums, _mm512_set1_epi32(j->zpu));
	_mm512_storeu_si512(b->comp, _mm512_maskz_sub_epi32(live, add, sums));
}

/*
 * Copy the rows output row iy0 reads into the window, padding included;
 * an I8 input flipped to u8 on the way (npu_qconv_vnni()'s identity).
 */
static void qbc_fill_window(struct qbc *b)
{
	const struct npu_qconv_job *j = b->j;
	const __m256i flip = _mm256_set1_epi8((char)j->flip);
	u64 ky, c1, px;

	for (ky = 0; ky < j->kh; ky++) {
		s64 iy = j->iy0 + (s64)(ky * j->dh);
		int rowok = iy >= 0 && iy < (s64)j->ih;

		for (c1 = 0; c1 < j->c1; c1++) {
			u8 *d = b->win + ((ky * j->c1 + c1) * b->npx) * 32;
			const u8 *src = j->x + (u64)(rowok ? iy : 0) * j->xs2 +
					c1 * j->xs1;

			for (px = 0; px < b->npx; px++) {
				s64 ix = (s64)px - (s64)j->pl;
				__m256i v = _mm256_set1_epi8((char)j->padv);

				if (rowok && ix >= 0 && ix < (s64)j->iw)
					v = ld32(src + (u64)ix * 32);
				_mm256_storeu_si256((__m256i *)(d + px * 32),
						    _mm256_xor_si256(v, flip));
			}
		}
	}
}

static __always_inline __m512i bc4(const u8 *p)
{
	s32 v;

	memcpy(&v, p, 4);
	return _mm512_set1_epi32(v);
}

/* acc + comp -> 16 output bytes, requantized as q_requant(). */
static __always_inline __m128i qbc_requant(__m512i acc, __m512i comp,
					   __m512d m0, __m512d m1,
					   const struct npu_qrq *rq)
{
	const __m512d yz = _mm512_set1_pd(rq->yz);
	const __m512d lo = _mm512_set1_pd(rq->lo), hi = _mm512_set1_pd(rq->hi);
	__m512i s = _mm512_add_epi32(acc, comp);
	__m512d d0 = _mm512_cvtepi32_pd(_mm512_castsi512_si256(s));
	__m512d d1 = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(s, 1));
	__m256i r0, r1;

	d0 = _mm512_add_pd(_mm512_mul_pd(d0, m0), yz);
	d1 = _mm512_add_pd(_mm512_mul_pd(d1, m1), yz);
	d0 = _mm512_max_pd(_mm512_min_pd(d0, hi), lo);
	d1 = _mm512_max_pd(_mm512_min_pd(d1, hi), lo);
	d0 = _mm512_roundscale_pd(d0, _MM_FROUND_TO_NEAREST_INT |
				      _MM_FROUND_NO_EXC);
	d1 = _mm512_roundscale_pd(d1, _MM_FROUND_TO_NEAREST_INT |
				      _MM_FROUND_NO_EXC);
	r0 = _mm512_cvtpd_epi32(d0);
	r1 = _mm512_cvtpd_epi32(d1);
	s = _mm512_inserti64x4(_mm512_castsi256_si512(r0), r1, 1);
	return _mm512_cvtepi32_epi8(s);
}

/*
 * @np pixels from @ox (a block of @NP, the rest ignored) at stride @SW:
 * the sums over every tap and channel, then the store.
 */
static __always_inline void qbc_block(const struct qbc *b, u64 ox, u32 np,
				      const int NP, const int SW,
				      __m512d m0, __m512d m1)
{
	const struct npu_qconv_job *j = b->j;
	__m512i acc[QBC_WIN_PX];
	const __m512i comp = _mm512_loadu_si512(b->comp);
	const u8 *w = b->w;
	u64 t, c1;
	int p, g;

	for (p = 0; p < NP; p++)
		acc[p] = _mm512_setzero_si512();
	for (t = 0; t < b->taps; t++) {
		u64 ky = t / j->kw, kx = t % j->kw;
		const u8 *xr = b->win + (ky * j->c1 * b->npx +
					 ox * SW + kx * j->dw) * 32;

		for (c1 = 0; c1 < j->c1; c1++) {
			const u8 *x = xr + c1 * b->npx * 32;

			for (g = 0; g < 8; g++) {
				const __m512i wv = _mm512_loadu_si512(w);

#pragma GCC unroll 16
				for (p = 0; p < NP; p++) {
					const u8 *xp = x + p * SW * 32 + g * 4;

					acc[p] = _mm512_dpbusd_epi32(acc[p],
								     bc4(xp),
								     wv);
				}
				w += 64;
			}
		}
	}
	for (p = 0; p < NP && (u32)p < np; p++) {
		__m128i v = qbc_requant(acc[p], comp, m0, m1, j->rq);
		u8 *o = j->out + (ox + (u64)p) * j->out_px;

		if (j->out_ch == 1) {
			_mm_mask_storeu_epi8(o, (__mmask16)((1u << j->noc) - 1),
					     v);
		} else {
			u8 r[16];
			u32 i;

			_mm_storeu_si128((__m128i *)r, v);
			for (i = 0; i < j->noc; i++)
				o[i * j->out_ch] = r[i];
		}
	}
}

static void qbc_row(const struct qbc *b, const int SW)
{
	const struct npu_qconv_job *j = b->j;
	const __m512d m0 = _mm512_loadu_pd(&j->rq->mult[0]);
	const __m512d m1 = _mm512_loadu_pd(&j->rq->mult[8]);
	u64 ox;

	for (ox = 0; ox < j->ow;) {
		u64 left = j->ow - ox;

		if (left > 8) {
			qbc_block(b, ox, left < 16 ? (u32)left : 16, 16, SW,
				  m0, m1);
			ox += 16;
		} else {
			qbc_block(b, ox, (u32)left, 8, SW, m0, m1);
			ox += 8;
		}
	}
}

static void qconv_broadcast(const struct npu_qconv_job *j, struct qbc *b)
{
	if (!j->held->valid || j->held->w != j->w ||
	    j->held->blk != j->blk) {	/* a new block, or a new chunk */
		qbc_pack_weights(b);
		j->held->w = j->w;
		j->held->blk = j->blk;
		j->held->valid = true;
	}
	qbc_fill_window(b);
	if (j->sw == 1)
		qbc_row(b, 1);
	else
		qbc_row(b, 2);
}

void npu_qconv_vnni(const struct npu_qconv_job *j)
{
	u8 padbuf[32];
	const __m256i flip = _mm256_set1_epi8((char)j->flip);
	const __m256d yz = _mm256_set1_pd(j->rq->yz);
	const __m256d lo = _mm256_set1_pd(j->rq->lo);
	const __m256d hi = _mm256_set1_pd(j->rq->hi);
	s32 comp[NPU_Q_OCB + 3];
	u64 tapx[QCONV_MAX_TAPS], tapw[QCONV_MAX_TAPS], oc, ox, ky, kx;
	u32 p, q, taps = 0;
	/* rows of the taps inside the input for every pixel of this row */
	int rows_in = j->iy0 >= 0 &&
		      j->iy0 + (s64)((u64)(j->kh - 1) * j->dh) < (s64)j->ih;
	struct qbc b;

	if (qbc_setup(j, &b)) {
		qconv_broadcast(j, &b);
		return;
	}
	memset(padbuf, j->padv, sizeof(padbuf));
	if ((u64)j->kh * j->kw <= QCONV_MAX_TAPS) {
		for (ky = 0; ky < j->kh; ky++)
			for (kx = 0; kx < j->kw; kx++) {
				tapx[taps] = ky * j->dh * j->xs2 +
					     kx * j->dw * j->xs3;
				tapw[taps] = ky * j->ws2 + kx * j->ws3;
				taps++;
			}
	} else {
		rows_in = 0;
	}
	/* comp[o] = bias - zu * sum of the channel's weights */
	for (oc = 0; oc < NPU_Q_OCB + 3; oc++)
		comp[oc] = oc < j->noc ?
			   (s32)((u32)j->rq->add[oc] -
				 (u32)j->zpu * (u32)qconv_wsum(j, oc)) : 0;
	for (oc = 0; oc < j->noc; oc += 4) {
		u32 nq = j->noc - oc < 4 ? (u32)(j->noc - oc) : 4;
		const u8 *wp[4];
		__m256d mult;
		__m128i cmp = _mm_loadu_si128((const __m128i *)&comp[oc]);
		double m4[4];

		for (q = 0; q < 4; q++) {
			wp[q] = j->w + (oc + (q < nq ? q : 0)) * j->ws0;
			m4[q] = q < nq ? j->rq->mult[oc + q] : 0.0;
		}
		mult = _mm256_loadu_pd(m4);
		for (ox = 0; ox < j->ow; ox += 4) {
			u32 np = j->ow - ox < 4 ? (u32)(j->ow - ox) : 4;
			__m128i sums[4];
			s64 ix0 = (s64)(ox * j->sw) - (s64)j->pl;
			s64 ixl = (s64)((ox + 3) * j->sw +
					(u64)(j->kw - 1) * j->dw) - (s64)j->pl;

			if (rows_in && np == 4 && ix0 >= 0 && ixl < (s64)j->iw) {
				const u8 *xb[4];

				for (p = 0; p < 4; p++)
					xb[p] = j->x + (u64)j->iy0 * j->xs2 +
						(u64)(ix0 + (s64)(p * j->sw)) *
						j->xs3;
				if (j->flip)
					qconv_block_in(j, wp, xb, tapx, tapw,
						       taps, flip, sums, 1);
				else
					qconv_block_in(j, wp, xb, tapx, tapw,
						       taps, flip, sums, 0);
			} else if (j->flip)
				qconv_block(j, wp, padbuf, flip, ox, np, sums,
					    1);
			else
				qconv_block(j, wp, padbuf, flip, ox, np, sums,
					    0);
			for (p = 0; p < np; p++)
				store4(j->out + (ox + p) * j->out_px +
				       oc * j->out_ch, j->out_ch,
				       requant4(_mm_add_epi32(sums[p], cmp), mult,
						yz, lo, hi), nq);
		}
	}
}

/*
 * Dot products of one row of a with four rows of b, over k bytes; with
 * @wsum, of a row of ones (the sums of b's rows). The tail loads are
 * masked: no byte past k is read, masked-off bytes are 0 in b.
 */
static __always_inline __m128i dot4(const u8 *a, const u8 *const *b, u32 k,
				    __m256i flip, int wsum)
{
	const __m256i ones = _mm256_set1_epi8(1);
	__m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0, av;
	__mmask32 m;
	u64 i;

	for (i = 0; i + 32 <= k; i += 32) {
		av = wsum ? ones : _mm256_xor_si256(ld32(a + i), flip);
		s0 = _mm256_dpbusd_epi32(s0, av, ld32(b[0] + i));
		s1 = _mm256_dpbusd_epi32(s1, av, ld32(b[1] + i));
		s2 = _mm256_dpbusd_epi32(s2, av, ld32(b[2] + i));
		s3 = _mm256_dpbusd_epi32(s3, av, ld32(b[3] + i));
	}
	if (i < k) {
		m = (__mmask32)((1ull << (k - i)) - 1);
		av = wsum ? ones :
		     _mm256_xor_si256(_mm256_maskz_loadu_epi8(m, a + i), flip);
		s0 = _mm256_dpbusd_epi32(s0, av,
					 _mm256_maskz_loadu_epi8(m, b[0] + i));
		s1 = _mm256_dpbusd_epi32(s1, av,
					 _mm256_maskz_loadu_epi8(m, b[1] + i));
		s2 = _mm256_dpbusd_epi32(s2, av,
					 _mm256_maskz_loadu_epi8(m, b[2] + i));
		s3 = _mm256_dpbusd_epi32(s3, av,
					 _mm256_maskz_loadu_epi8(m, b[3] + i));
	}
	return hsum4(s0, s1, s2, s3);
}

void npu_qmm_vnni(const struct npu_qmm_job *j)
{
	const __m256i flip = _mm256_set1_epi8((char)j->flip);
	const __m256d yz = _mm256_set1_pd(j->yz);
	const __m256d lo = _mm256_set1_pd(j->lo);
	const __m256d hi = _mm256_set1_pd(j->hi);
	u64 n0, r;
	u32 q;

	for (n0 = 0; n0 < j->n; n0 += 4) {
		u32 nq = j->n - n0 < 4 ? (u32)(j->n - n0) : 4;
		const u8 *bp[4];
		s32 c4[4];
		double m4[4];
		__m128i sw, cmp;
		__m256d mult;

		for (q = 0; q < 4; q++) {
			u64 col = n0 + (q < nq ? q : 0);

			bp[q] = j->b + col * j->b_rs;
			c4[q] = j->bias ? j->bias[col * j->bias_st] : 0;
			m4[q] = j->mult ? (double)j->mult[col * j->mult_st] :
					  j->m;
		}
		sw = dot4(NULL, bp, j->k, flip, 1);
		cmp = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)c4),
				    _mm_mullo_epi32(sw,
						    _mm_set1_epi32(j->zpu)));
		mult = _mm256_loadu_pd(m4);
		for (r = j->r0; r < j->r1; r++) {
			__m128i s = dot4(j->a + r * j->a_rs, bp, j->k, flip, 0);

			s = _mm_add_epi32(s, cmp);
			store4(j->out + r * j->o_rs + n0 * j->o_cs, j->o_cs,
			       requant4(s, mult, yz, lo, hi), nq);
		}
	}
}

#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
