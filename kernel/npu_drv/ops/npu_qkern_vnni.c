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
