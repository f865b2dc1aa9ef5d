/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_kern_tmpl.h - the tile kernel of npu_kern.h, instantiated once per
 * ISA level by npu_kern_<level>.c. The including file defines
 *   VF            the vector type (GCC vector extension) of VW floats
 *   VBCAST(s)     a vector of VW copies of s
 *   VFMA(a, b, c) a * b + c, elementwise
 * and then NPU_KERN_TILE(name, MR, NV) for each kernel shape: MR rows by
 * NV vectors. The accumulators are MR * NV vectors held in registers.
 */

static __always_inline VF vload(const float *p)
{
	VF v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static __always_inline void vstore(float *p, VF v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

/* One k step: MR x NV multiply-adds with B(k) at @b and A(i, k) at @a. */
static __always_inline void
tile_step(VF acc[][4], const float *a, const float *b, const u64 sam,
	  const u32 MR, const u32 NV)
{
	VF bv[4] __attribute__((__uninitialized__));
	u32 i, v;

#pragma GCC unroll 4
	for (v = 0; v < NV; v++)
		bv[v] = vload(b + v * VW);
#pragma GCC unroll 16
	for (i = 0; i < MR; i++) {
		VF av = VBCAST(a[i * sam]);

#pragma GCC unroll 4
		for (v = 0; v < NV; v++)
			acc[i][v] = VFMA(av, bv[v], acc[i][v]);
	}
}

/* The two inner levels of the k nest. */
static __always_inline void
tile_inner(VF acc[][4], const struct npu_tile *t, const float *a2,
	   const float *b2, const u64 sam, const u32 MR, const u32 NV)
{
	u64 i2, i3;

	for (i2 = 0; i2 < t->n[2]; i2++, a2 += t->sa[2], b2 += t->sb[2]) {
		const float *a3 = a2, *b3 = b2;

		for (i3 = 0; i3 < t->n[3]; i3++, a3 += t->sa[3],
		     b3 += t->sb[3])
			tile_step(acc, a3, b3, sam, MR, NV);
	}
}

static __always_inline void
tile_body(const struct npu_tile *t, const u32 MR, const u32 NV, const u64 SAM)
{
	/*
	 * Registers, not memory: the kernel's -ftrivial-auto-var-init=zero
	 * would otherwise zero the arrays in memory and keep them there.
	 */
	VF acc[NPU_KERN_MAX_MR][4] __attribute__((__uninitialized__));
	const float *a0 = t->a, *b0 = t->b;
	/* a constant row stride turns the row addresses into displacements */
	const u64 sam = SAM ? SAM : t->sam;
	u64 i0, i1;
	u32 i, v;

#pragma GCC unroll 16
	for (i = 0; i < MR; i++)
#pragma GCC unroll 4
		for (v = 0; v < NV; v++)
			acc[i][v] = t->accum ? vload(t->c + i * t->ldc + v * VW) :
					       VBCAST(0.0f);
	for (i0 = 0; i0 < t->n[0]; i0++, a0 += t->sa[0], b0 += t->sb[0]) {
		const float *a1 = a0, *b1 = b0;

		for (i1 = 0; i1 < t->n[1]; i1++, a1 += t->sa[1],
		     b1 += t->sb[1])
			tile_inner(acc, t, a1, b1, sam, MR, NV);
	}
#pragma GCC unroll 16
	for (i = 0; i < MR; i++)
#pragma GCC unroll 4
		for (v = 0; v < NV; v++)
			vstore(t->c + i * t->ldc + v * VW, acc[i][v]);
}

/* Rows of a shape's function for row count k: k, or 1 past the shape. */
static __always_inline u32 tile_rows(u32 k, u32 mr)
{
	return k <= mr ? k : 1;
}

/*
 * One function per shape and row count (the row count a constant in
 * each, so that the accumulators stay in registers), and a switch over
 * the row counts. Out of line each: their frames never add up (the
 * kernel's 2 KiB frame limit).
 */
#define NPU_KERN_ONE(pfx, k)						\
static noinline void pfx##k(const struct npu_tile *t)			\
{									\
	tile_body(t, tile_rows(k, pfx##mr), pfx##nv, pfx##sam);		\
}

/* SAM: 0, or the only row stride this kernel is called with */
#define NPU_KERN_TILE_S(name, MR, NV, SAM)				\
enum { name##_mr = (MR), name##_nv = (NV), name##_sam = (SAM) };	\
NPU_KERN_ONE(name##_, 1)							\
NPU_KERN_ONE(name##_, 2)							\
NPU_KERN_ONE(name##_, 3)							\
NPU_KERN_ONE(name##_, 4)							\
NPU_KERN_ONE(name##_, 5)							\
NPU_KERN_ONE(name##_, 6)							\
NPU_KERN_ONE(name##_, 7)							\
NPU_KERN_ONE(name##_, 8)							\
NPU_KERN_ONE(name##_, 9)							\
NPU_KERN_ONE(name##_, 10)							\
NPU_KERN_ONE(name##_, 11)							\
NPU_KERN_ONE(name##_, 12)							\
NPU_KERN_ONE(name##_, 13)							\
NPU_KERN_ONE(name##_, 14)							\
static const npu_tile_fn name##_rows[NPU_KERN_MAX_MR] = {		\
	name##_1, name##_2, name##_3, name##_4, name##_5, name##_6,	\
	name##_7, name##_8, name##_9, name##_10, name##_11, name##_12,	\
	name##_13, name##_14,						\
};									\
static void name(const struct npu_tile *t)				\
{									\
	if (t->mr >= 1 && t->mr <= name##_mr)				\
		name##_rows[t->mr - 1](t);				\
}

#define NPU_KERN_TILE(name, MR, NV)	NPU_KERN_TILE_S(name, MR, NV, 0)

/* npu_kern.h's axpy: VW lanes at a time, multiply then add (no fusing) */
#define NPU_KERN_AXPY(name)						\
static void name(float *y, const float *x, float a, u32 n)		\
{									\
	VF av = VBCAST(a);						\
	u32 i;								\
									\
	for (i = 0; i + VW <= n; i += VW)				\
		vstore(y + i, vload(y + i) + av * vload(x + i));	\
	for (; i < n; i++)						\
		y[i] = y[i] + a * x[i];					\
}

/* npu_kern.h's dw16: 16 channels as 16 / VW vectors, multiply then add */
#define NPU_KERN_DW16(name)						\
static void name(float *acc, const float *x, u64 xs, const float *w,	\
		 u32 lo, u32 hi)					\
{									\
	VF wv[16 / VW], a, xv;						\
	u32 p, v;							\
									\
	for (v = 0; v < 16 / VW; v++)					\
		wv[v] = vload(w + v * VW);				\
	for (p = lo; p < hi; p++) {					\
		for (v = 0; v < 16 / VW; v++) {				\
			a = vload(acc + p * 16 + v * VW);		\
			xv = vload(x + p * xs + v * VW);		\
			vstore(acc + p * 16 + v * VW, a + wv[v] * xv);	\
		}							\
	}								\
}

/*
 * npu_kern.h's dw16_taps: R pixels at a time with their 16 channels in
 * R * 16 / VW registers, every tap of the list in order, multiply then
 * add from +0 (dw16's terms, order and roundings); a last pixel alone.
 */
static __always_inline void
dw16_taps_px(float *out, const float *x, u64 xs, const float *w,
	     const u64 *off, u32 nt, const u32 R)
{
	VF acc[8][16 / VW] __attribute__((__uninitialized__));
	VF wv;
	u32 t, i, v;

#pragma GCC unroll 8
	for (i = 0; i < R; i++)
#pragma GCC unroll 4
		for (v = 0; v < 16 / VW; v++)
			acc[i][v] = VBCAST(0.0f);
	for (t = 0; t < nt; t++) {
		const float *xt = x + off[t];

#pragma GCC unroll 4
		for (v = 0; v < 16 / VW; v++) {
			wv = vload(w + t * 16 + v * VW);
#pragma GCC unroll 8
			for (i = 0; i < R; i++)
				acc[i][v] = acc[i][v] +
					    wv * vload(xt + i * xs + v * VW);
		}
	}
#pragma GCC unroll 8
	for (i = 0; i < R; i++)
#pragma GCC unroll 4
		for (v = 0; v < 16 / VW; v++)
			vstore(out + i * 16 + v * VW, acc[i][v]);
}

#define NPU_KERN_DW16_TAPS(name, R)					\
enum { name##_r = (R) };						\
static void name(float *out, const float *x, u64 xs, const float *w,	\
		 const u64 *off, u32 nt, u32 np)			\
{									\
	u32 p = 0;							\
									\
	for (; p + name##_r <= np; p += name##_r)			\
		dw16_taps_px(out + p * 16, x + p * xs, xs, w, off, nt,	\
			     name##_r);					\
	if (name##_r > 4 && p + 4 <= np) {				\
		dw16_taps_px(out + p * 16, x + p * xs, xs, w, off, nt, 4); \
		p += 4;							\
	}								\
	if (name##_r > 2 && p + 2 <= np) {				\
		dw16_taps_px(out + p * 16, x + p * xs, xs, w, off, nt, 2); \
		p += 2;							\
	}								\
	for (; p < np; p++)						\
		dw16_taps_px(out + p * 16, x + p * xs, xs, w, off, nt, 1); \
}

/*
 * npu_kern.h's dot8_rows: the 8 partial sums of a row are the lanes of an
 * 8-float vector (one AVX2 register, two SSE ones), four rows at a time
 * sharing each load of q.
 */
typedef float npu_kern_v8 __attribute__((__vector_size__(8 * sizeof(u32))));

static __always_inline float dot8_reduce(const npu_kern_v8 *v,
					 const float *q, const float *k,
					 u32 t, u32 d)
{
	float p[8], s;

	__builtin_memcpy(p, v, sizeof(p));
	s = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));

	for (; t < d; t++)
		s += q[t] * k[t];
	return s;
}

#define NPU_KERN_DOT8_ROWS(name)					\
static void name(float *out, const float *q, const float *k, u64 krs,	\
		 u32 nk, u32 d)						\
{									\
	npu_kern_v8 a0, a1, a2, a3, qv, z = { 0 };			\
	u32 j = 0, t, d8 = d & ~7u;					\
									\
	for (; j + 4 <= nk; j += 4) {					\
		const float *k0 = k + j * krs, *k1 = k0 + krs;		\
		const float *k2 = k1 + krs, *k3 = k2 + krs;		\
		npu_kern_v8 b;						\
									\
		a0 = z;							\
		a1 = z;							\
		a2 = z;							\
		a3 = z;							\
		for (t = 0; t < d8; t += 8) {				\
			__builtin_memcpy(&qv, q + t, sizeof(qv));	\
			__builtin_memcpy(&b, k0 + t, sizeof(b));	\
			a0 = a0 + qv * b;				\
			__builtin_memcpy(&b, k1 + t, sizeof(b));	\
			a1 = a1 + qv * b;				\
			__builtin_memcpy(&b, k2 + t, sizeof(b));	\
			a2 = a2 + qv * b;				\
			__builtin_memcpy(&b, k3 + t, sizeof(b));	\
			a3 = a3 + qv * b;				\
		}							\
		out[j] = dot8_reduce(&a0, q, k0, d8, d);			\
		out[j + 1] = dot8_reduce(&a1, q, k1, d8, d);		\
		out[j + 2] = dot8_reduce(&a2, q, k2, d8, d);		\
		out[j + 3] = dot8_reduce(&a3, q, k3, d8, d);		\
	}								\
	for (; j < nk; j++) {						\
		const float *k0 = k + j * krs;				\
		npu_kern_v8 b;						\
									\
		a0 = z;							\
		for (t = 0; t < d8; t += 8) {				\
			__builtin_memcpy(&qv, q + t, sizeof(qv));	\
			__builtin_memcpy(&b, k0 + t, sizeof(b));	\
			a0 = a0 + qv * b;				\
		}							\
		out[j] = dot8_reduce(&a0, q, k0, d8, d);			\
	}								\
}

/*
 * npu_kern.h's axpy_rows: y in chunks of up to 4 vectors kept in
 * registers over all the rows, a tail element by element.
 */
/*
 * npu_kern.h's dott_rows: dot8_rows() with k transposed (kt[t * ktrs + j]
 * is element t of key j), VW keys a vector: the 8 partial sums of VW keys
 * are 8 vectors, reduced in dot8_reduce()'s tree lane by lane.
 */
static __always_inline VF dott_term(VF p, const float *q, const float *kt,
				    u64 ktrs, u32 t, u32 j)
{
	return p + VBCAST(q[t]) * vload(kt + t * ktrs + j);
}

#define NPU_KERN_DOTT_ROWS(name)					\
static void name(float *out, const float *q, const float *kt, u64 ktrs,	\
		 u32 nk, u32 d)						\
{									\
	u32 j = 0, t, d8 = d & ~7u, i;					\
									\
	for (; j + VW <= nk; j += VW) {					\
		VF p0 = VBCAST(0.0f), p1 = p0, p2 = p0, p3 = p0;	\
		VF p4 = p0, p5 = p0, p6 = p0, p7 = p0, s;		\
									\
		for (t = 0; t < d8; t += 8) {				\
			p0 = dott_term(p0, q, kt, ktrs, t, j);		\
			p1 = dott_term(p1, q, kt, ktrs, t + 1, j);	\
			p2 = dott_term(p2, q, kt, ktrs, t + 2, j);	\
			p3 = dott_term(p3, q, kt, ktrs, t + 3, j);	\
			p4 = dott_term(p4, q, kt, ktrs, t + 4, j);	\
			p5 = dott_term(p5, q, kt, ktrs, t + 5, j);	\
			p6 = dott_term(p6, q, kt, ktrs, t + 6, j);	\
			p7 = dott_term(p7, q, kt, ktrs, t + 7, j);	\
		}							\
		s = ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7));	\
		for (t = d8; t < d; t++)				\
			s = dott_term(s, q, kt, ktrs, t, j);		\
		vstore(out + j, s);					\
	}								\
	for (; j < nk; j++) {						\
		float p[8] = { 0 }, s;					\
									\
		for (t = 0; t < d8; t += 8)				\
			for (i = 0; i < 8; i++)				\
				p[i] = p[i] + q[t + i] *		\
				       kt[(t + i) * ktrs + j];		\
		s = ((p[0] + p[1]) + (p[2] + p[3])) +			\
		    ((p[4] + p[5]) + (p[6] + p[7]));			\
		for (t = d8; t < d; t++)				\
			s = s + q[t] * kt[t * ktrs + j];		\
		out[j] = s;						\
	}								\
}

/*
 * axpy_rows() for two output rows sharing the rows of v: @nv (a constant)
 * vectors of each in registers, eight independent sums where one row had
 * four, each v vector loaded once for both; per element the same terms in
 * the same order, multiply then add.
 */
static __always_inline void
axpy2_blk(float *y0, float *y1, const float *v, u64 vrs, const float *p0,
	  const float *p1, u32 n, const u32 nv)
{
	VF a0[4], a1[4], q0, q1, vv;
	u32 i, j;

#pragma GCC unroll 4
	for (i = 0; i < nv; i++) {
		a0[i] = vload(y0 + i * VW);
		a1[i] = vload(y1 + i * VW);
	}
	for (j = 0; j < n; j++) {
		const float *vr = v + j * vrs;

		q0 = VBCAST(p0[j]);
		q1 = VBCAST(p1[j]);
#pragma GCC unroll 4
		for (i = 0; i < nv; i++) {
			vv = vload(vr + i * VW);
			a0[i] = a0[i] + q0 * vv;
			a1[i] = a1[i] + q1 * vv;
		}
	}
#pragma GCC unroll 4
	for (i = 0; i < nv; i++) {
		vstore(y0 + i * VW, a0[i]);
		vstore(y1 + i * VW, a1[i]);
	}
}

/* npu_kern.h's axpy_rows2 */
#define NPU_KERN_AXPY_ROWS2(name)					\
static void name(float *y0, float *y1, const float *v, u64 vrs,	\
		 const float *p0, const float *p1, u32 n, u32 dv)	\
{									\
	u32 e0 = 0, nv, j;						\
									\
	for (; e0 + VW <= dv; e0 += nv * VW) {				\
		nv = (dv - e0) / VW < 4 ? (dv - e0) / VW : 4;		\
		if (nv == 4)						\
			axpy2_blk(y0 + e0, y1 + e0, v + e0, vrs, p0, p1, \
				  n, 4);				\
		else if (nv == 3)					\
			axpy2_blk(y0 + e0, y1 + e0, v + e0, vrs, p0, p1, \
				  n, 3);				\
		else if (nv == 2)					\
			axpy2_blk(y0 + e0, y1 + e0, v + e0, vrs, p0, p1, \
				  n, 2);				\
		else							\
			axpy2_blk(y0 + e0, y1 + e0, v + e0, vrs, p0, p1, \
				  n, 1);				\
	}								\
	for (; e0 < dv; e0++)						\
		for (j = 0; j < n; j++) {				\
			y0[e0] = y0[e0] + p0[j] * v[j * vrs + e0];	\
			y1[e0] = y1[e0] + p1[j] * v[j * vrs + e0];	\
		}							\
}

/* axpy_rows()'s @nv (a constant) vectors of y, kept in registers */
static __always_inline void
axpy1_blk(float *y, const float *v, u64 vrs, const float *p, u32 n,
	  const u32 nv)
{
	VF acc[4], pv;
	u32 i, j;

#pragma GCC unroll 4
	for (i = 0; i < nv; i++)
		acc[i] = vload(y + i * VW);
	for (j = 0; j < n; j++) {
		const float *vr = v + j * vrs;

		pv = VBCAST(p[j]);
#pragma GCC unroll 4
		for (i = 0; i < nv; i++)
			acc[i] = acc[i] + pv * vload(vr + i * VW);
	}
#pragma GCC unroll 4
	for (i = 0; i < nv; i++)
		vstore(y + i * VW, acc[i]);
}

#define NPU_KERN_AXPY_ROWS(name)					\
static void name(float *y, const float *v, u64 vrs, const float *p,	\
		 u32 n, u32 dv)						\
{									\
	u32 e0 = 0, nv, j;						\
									\
	for (; e0 + VW <= dv; e0 += nv * VW) {				\
		nv = (dv - e0) / VW < 4 ? (dv - e0) / VW : 4;		\
		if (nv == 4)						\
			axpy1_blk(y + e0, v + e0, vrs, p, n, 4);	\
		else if (nv == 3)					\
			axpy1_blk(y + e0, v + e0, vrs, p, n, 3);	\
		else if (nv == 2)					\
			axpy1_blk(y + e0, v + e0, vrs, p, n, 2);	\
		else							\
			axpy1_blk(y + e0, v + e0, vrs, p, n, 1);	\
	}								\
	for (; e0 < dv; e0++)						\
		for (j = 0; j < n; j++)					\
			y[e0] = y[e0] + p[j] * v[j * vrs + e0];		\
}

typedef s32 npu_kern_vi __attribute__((__vector_size__(sizeof(VF))));

/* npu_kern.h's max16_px: 16 / VW vectors a pixel */
/* npu_expf_tmpl.h's expf_lanes() on VW lanes, for v in [-87, 88] */
#define EXV	VF
#define EXI	npu_kern_vi
#include "npu_expf_tmpl.h"
#undef EXV
#undef EXI

/* Whether any lane of @m is set. */
static __always_inline bool vi_any(npu_kern_vi m)
{
	s32 any = 0;
	u32 j;

	for (j = 0; j < VW; j++)
		any |= m[j];
	return any != 0;
}

/* npu_kern.h's expf_row */
#define NPU_KERN_EXPF_ROW(name)						\
static void name(float *x, u32 n)					\
{									\
	const VF lo = VBCAST(NPU_EXPF_LO), hi = VBCAST(NPU_EXPF_HI);	\
	u32 i = 0, j;							\
									\
	for (; i + VW <= n; i += VW) {					\
		VF v = vload(x + i);					\
		npu_kern_vi in = v >= lo;				\
									\
		in &= v <= hi;						\
		if (vi_any(~in)) {					\
			for (j = 0; j < VW; j++)			\
				x[i + j] = npu_expf_fast(x[i + j]);	\
			continue;					\
		}							\
		vstore(x + i, expf_lanes(v));				\
	}								\
	for (; i < n; i++)						\
		x[i] = npu_expf_fast(x[i]);				\
}

/* npu_kern.h's tanh_row: both branches of npu_tanhf_fast(), selected */
#define NPU_KERN_TANH_ROW(name)						\
static void name(float *x, u32 n)					\
{									\
	const VF big = VBCAST(NPU_TANHF_BIG), one = VBCAST(1.0f);	\
	const VF small = VBCAST(NPU_TANHF_SMALL), neg0 = VBCAST(-0.0f);	\
	u32 i = 0, j;							\
									\
	for (; i + VW <= n; i += VW) {					\
		VF v = vload(x + i), a, z, p, e, t;			\
		npu_kern_vi lo;						\
									\
		a = (VF)((npu_kern_vi)v & ~(npu_kern_vi)neg0);		\
		if (vi_any(~(a <= big))) {				\
			for (j = 0; j < VW; j++)			\
				x[i + j] = npu_tanhf_fast(x[i + j]);	\
			continue;					\
		}							\
		z = v * v;						\
		p = VBCAST(npu_u2f(NPU_TANHF_P5));			\
		p = p * z + npu_u2f(NPU_TANHF_P4);			\
		p = p * z + npu_u2f(NPU_TANHF_P3);			\
		p = p * z + npu_u2f(NPU_TANHF_P2);			\
		p = p * z + npu_u2f(NPU_TANHF_P1);			\
		p = p * z + npu_u2f(NPU_TANHF_P0);			\
		p = v + v * (z * p);					\
		e = expf_lanes(VBCAST(-2.0f) * a);			\
		t = (one - e) / (one + e);				\
		t = (VF)((npu_kern_vi)t |				\
			 ((npu_kern_vi)v & (npu_kern_vi)neg0));		\
		lo = a < small;						\
		vstore(x + i, (VF)((lo & (npu_kern_vi)p) |		\
				   (~lo & (npu_kern_vi)t)));		\
	}								\
	for (; i < n; i++)						\
		x[i] = npu_tanhf_fast(x[i]);				\
}

/* npu_kern.h's sigmoid_row: npu_sigmoidf_fast() / npu_siluf_fast() */
#define NPU_KERN_SIGMOID_ROW(name)					\
static void name(float *x, u32 n, bool silu)				\
{									\
	const VF lo = VBCAST(NPU_EXPF_LO), one = VBCAST(1.0f);		\
	const VF zero = VBCAST(0.0f), neg0 = VBCAST(-0.0f);		\
	u32 i = 0, j;							\
									\
	for (; i + VW <= n; i += VW) {					\
		VF v = vload(x + i), a, e, d, s;			\
		npu_kern_vi pos;					\
									\
		a = (VF)((npu_kern_vi)v | (npu_kern_vi)neg0);		\
		if (vi_any(~(a >= lo))) {				\
			for (j = 0; j < VW; j++)			\
				x[i + j] = silu ?			\
					   npu_siluf_fast(x[i + j]) :	\
					   npu_sigmoidf_fast(x[i + j]);	\
			continue;					\
		}							\
		e = expf_lanes(a);					\
		d = one + e;						\
		pos = v >= zero;					\
		s = (VF)((pos & (npu_kern_vi)(one / d)) |		\
			 (~pos & (npu_kern_vi)(e / d)));		\
		vstore(x + i, silu ? v * s : s);			\
	}								\
	for (; i < n; i++)						\
		x[i] = silu ? npu_siluf_fast(x[i]) :			\
			      npu_sigmoidf_fast(x[i]);			\
}

/*
 * npu_kern.h's max16_px: MAX16_P pixels at a time, their windows side by
 * side (each pixel's max is a chain of compare-and-select over its taps:
 * one pixel at a time waited on that chain; 3x3 windows ran at a third
 * of the loads' speed). Every pixel takes its taps in order: the bits of
 * one at a time.
 */
#define MAX16_P		(VW >= 8 ? 4 : 2)

static __always_inline void
max16_px_group(float *y, u64 ys, const float *x, u64 xs, const u64 *off,
	       u32 nt, const u32 P)
{
	VF m[4][16 / VW], v, nanv = VBCAST(NPU_NANF);
	npu_kern_vi nan[4][16 / VW], gt;
	u32 q, t, k;

#pragma GCC unroll 4
	for (q = 0; q < P; q++)
#pragma GCC unroll 4
		for (k = 0; k < 16 / VW; k++) {
			m[q][k] = VBCAST(-NPU_INFF);
			nan[q][k] = (npu_kern_vi)VBCAST(0.0f);
		}
	for (t = 0; t < nt; t++) {
#pragma GCC unroll 4
		for (q = 0; q < P; q++) {
#pragma GCC unroll 4
			for (k = 0; k < 16 / VW; k++) {
				v = vload(x + q * xs + off[t] + k * VW);
				nan[q][k] |= v != v;
				gt = v > m[q][k];
				m[q][k] = (VF)((gt & (npu_kern_vi)v) |
					       (~gt & (npu_kern_vi)m[q][k]));
			}
		}
	}
#pragma GCC unroll 4
	for (q = 0; q < P; q++)
#pragma GCC unroll 4
		for (k = 0; k < 16 / VW; k++)
			vstore(y + q * ys + k * VW,
			       (VF)((nan[q][k] & (npu_kern_vi)nanv) |
				    (~nan[q][k] & (npu_kern_vi)m[q][k])));
}

#define NPU_KERN_MAX16_PX(name)						\
static void name(float *y, u64 ys, const float *x, u64 xs,		\
		 const u64 *off, u32 nt, u32 np)			\
{									\
	u32 p = 0;							\
									\
	for (; p + MAX16_P <= np; p += MAX16_P)				\
		max16_px_group(y + p * ys, ys, x + p * xs, xs, off, nt,	\
			       MAX16_P);				\
	for (; p < np; p++)						\
		max16_px_group(y + p * ys, ys, x + p * xs, xs, off, nt,	\
			       1);					\
}

/* npu_kern.h's epi16: 16 / VW vectors a pixel, masks as npu_act_row() */

#define NPU_KERN_EPI16(name)						\
static void name(float *y, u64 ys, const float *acc, u64 as, u32 cnt,	\
		 const float *b, const float *r, u32 lanes, u32 clamp,	\
		 float lo, float hi)					\
{									\
	VF bv[16 / VW], keep[16 / VW], l = VBCAST(lo), h = VBCAST(hi), v; \
	npu_kern_vi m;							\
	u32 p, k, j;							\
									\
	for (k = 0; k < 16 / VW; k++) {					\
		bv[k] = b ? vload(b + k * VW) : VBCAST(0.0f);		\
		for (j = 0; j < VW; j++)				\
			keep[k][j] = npu_u2f(k * VW + j < lanes ?	\
					     0xffffffffu : 0);		\
	}								\
	for (p = 0; p < cnt; p++) {					\
		for (k = 0; k < 16 / VW; k++) {				\
			v = vload(acc + p * as + k * VW);		\
			if (b)						\
				v = v + bv[k];				\
			if (r)						\
				v = v + vload(r + p * ys + k * VW);	\
			if (clamp) {					\
				m = v < l;				\
				v = (VF)((m & (npu_kern_vi)l) |		\
					 (~m & (npu_kern_vi)v));	\
			}						\
			if (clamp > 1) {				\
				m = v > h;				\
				v = (VF)((m & (npu_kern_vi)h) |		\
					 (~m & (npu_kern_vi)v));	\
			}						\
			v = (VF)((npu_kern_vi)v & (npu_kern_vi)keep[k]); \
			vstore(y + p * ys + k * VW, v);			\
		}							\
	}								\
}

/*
 * npu_kern.h's qadd_row, VW lanes at a time: the bytes widened exactly
 * to s32 lanes, then npu_qadd1()'s steps on every lane (the clamps as
 * masks, NaN failing both compares as in the scalar code), the scalar
 * function on the tail.
 */
#define NPU_KERN_QADD(pfx)						\
typedef s8 pfx##_qs __attribute__((__vector_size__(VW)));		\
typedef u8 pfx##_qu __attribute__((__vector_size__(VW)));		\
static __always_inline npu_kern_vi pfx##_qload(const u8 *p, u32 sgn)	\
{									\
	pfx##_qs s;							\
	pfx##_qu u;							\
									\
	if (sgn) {							\
		__builtin_memcpy(&s, p, sizeof(s));			\
		return __builtin_convertvector(s, npu_kern_vi);		\
	}								\
	__builtin_memcpy(&u, p, sizeof(u));				\
	return __builtin_convertvector(u, npu_kern_vi);			\
}									\
static void pfx##_qadd_row(u8 *y, const u8 *a, const u8 *b, u64 n,	\
			   u32 sgn, const struct npu_qadd_k *k)		\
{									\
	VF sa = VBCAST(k->sa), sb = VBCAST(k->sb), sy = VBCAST(k->sy);	\
	VF hi = VBCAST(k->hi), lo = VBCAST(k->lo);			\
	VF mg = VBCAST(12582912.0f);					\
	npu_kern_vi m, q;						\
	pfx##_qu o;							\
	VF v;								\
	u64 i;								\
									\
	for (i = 0; i + VW <= n; i += VW) {				\
		v = __builtin_convertvector(pfx##_qload(a + i, sgn & 1) - \
					    k->za, VF) * sa;		\
		v = v + __builtin_convertvector(			\
			pfx##_qload(b + i, sgn & 2) - k->zb, VF) * sb;	\
		v = v / sy;						\
		m = v <= hi;						\
		v = (VF)((m & (npu_kern_vi)v) | (~m & (npu_kern_vi)hi)); \
		m = v >= lo;						\
		v = (VF)((m & (npu_kern_vi)v) | (~m & (npu_kern_vi)lo)); \
		q = __builtin_convertvector((v + mg) - mg, npu_kern_vi) + \
		    k->zy;						\
		o = __builtin_convertvector(q, pfx##_qu);		\
		__builtin_memcpy(y + i, &o, sizeof(o));			\
	}								\
	for (; i < n; i++)						\
		y[i] = (u8)npu_qadd1(k, sgn & 1 ? (s8)a[i] : a[i],	\
				     sgn & 2 ? (s8)b[i] : b[i]);	\
}

/*
 * npu_kern.h's dq8_row and dq4_row, VW lanes at a time: int8 lanes
 * widened and converted exactly, one multiply. The packed nibbles are
 * spread without a shuffle: bytes widened to 16-bit lanes hold
 * (hi << 8) | lo, which read as bytes are lo, hi in memory order.
 */
#define NPU_KERN_DQ(pfx)						\
typedef s8 pfx##_vb __attribute__((__vector_size__(VW)));		\
typedef s16 pfx##_vs __attribute__((__vector_size__(VW * 2)));		\
typedef s32 pfx##_vi __attribute__((__vector_size__(VW * 4)));		\
typedef u8 pfx##_vh __attribute__((__vector_size__(VW / 2)));		\
typedef u16 pfx##_vu __attribute__((__vector_size__(VW)));		\
static __always_inline VF pfx##_cvt8(pfx##_vb b)			\
{									\
	pfx##_vs h = __builtin_convertvector(b, pfx##_vs);		\
									\
	return __builtin_convertvector(__builtin_convertvector(h,	\
					pfx##_vi), VF);			\
}									\
static void pfx##_dq8_row(float *y, const s8 *w, const float *s, u32 n) \
{									\
	pfx##_vb b;							\
	u32 i;								\
									\
	for (i = 0; i + VW <= n; i += VW) {				\
		__builtin_memcpy(&b, w + i, sizeof(b));			\
		vstore(y + i, pfx##_cvt8(b) * vload(s + i));		\
	}								\
	for (; i < n; i++)						\
		y[i] = (float)w[i] * s[i];				\
}									\
static void pfx##_dq4_row(float *y, const u8 *w, const float *s, u32 n) \
{									\
	pfx##_vh h;							\
	pfx##_vu u;							\
	pfx##_vb b;							\
	u32 i;								\
									\
	for (i = 0; i + VW <= n; i += VW) {				\
		__builtin_memcpy(&h, w + i / 2, sizeof(h));		\
		u = __builtin_convertvector(h, pfx##_vu);		\
		u = (u & 15) | ((u >> 4) << 8);				\
		__builtin_memcpy(&b, &u, sizeof(b));			\
		b = (b ^ 8) - 8;					\
		vstore(y + i, pfx##_cvt8(b) * vload(s + i));		\
	}								\
	for (; i < n; i += 2) {						\
		s32 lo = (s32)(w[i / 2] & 15) - ((w[i / 2] & 8) << 1);	\
		s32 hi = (s32)(w[i / 2] >> 4) - ((w[i / 2] & 128) >> 3); \
									\
		y[i] = (float)lo * s[i];				\
		y[i + 1] = (float)hi * s[i + 1];			\
	}								\
}

/* npu_kern.h's fma_row: VFMA per lane, the tiles' rounding */
#define NPU_KERN_FMA_ROW(name)						\
static void name(float *y, const float *x, float a, u32 n)		\
{									\
	VF av = VBCAST(a);						\
	u32 i;								\
									\
	for (i = 0; i + VW <= n; i += VW)				\
		vstore(y + i, VFMA(av, vload(x + i), vload(y + i)));	\
	for (; i < n; i++) {						\
		VF t = VFMA(VBCAST(a), VBCAST(x[i]), VBCAST(y[i]));	\
									\
		y[i] = t[0];						\
	}								\
}

/*
 * npu_kern.h's ln_sum and ln_out: LW doubles a vector (LD; LF: LW
 * floats), defined by the including file. 8 / LW vectors hold the 8
 * partial sums, lane l of vector k being p[k * LW + l].
 */
#define NPU_KERN_LN(pfx)						\
static double pfx##_ln_sum(const float *x, u64 n, double m, bool sq)	\
{									\
	LD acc[8 / LW], md, v;						\
	double p[8], t;							\
	LF f;								\
	u64 i;								\
	u32 k, l;							\
									\
	for (l = 0; l < LW; l++) {					\
		md[l] = m;						\
		v[l] = 0;	/* +0, as the scalar sums start */	\
	}								\
	for (k = 0; k < 8 / LW; k++)					\
		acc[k] = v;						\
	for (i = 0; i + 8 <= n; i += 8)					\
		for (k = 0; k < 8 / LW; k++) {				\
			__builtin_memcpy(&f, x + i + k * LW, sizeof(f));\
			v = __builtin_convertvector(f, LD);		\
			if (sq) {					\
				v = v - md;				\
				v = v * v;				\
			}						\
			acc[k] = acc[k] + v;				\
		}							\
	for (k = 0; k < 8 / LW; k++)					\
		for (l = 0; l < LW; l++)				\
			p[k * LW + l] = acc[k][l];			\
	t = ((p[0] + p[1]) + (p[2] + p[3])) +				\
	    ((p[4] + p[5]) + (p[6] + p[7]));				\
	for (; i < n; i++) {						\
		double d = x[i];					\
									\
		if (sq) {						\
			d -= m;						\
			d *= d;						\
		}							\
		t += d;							\
	}								\
	return t;							\
}									\
									\
static void pfx##_ln_out(float *y, const float *x, const float *s,	\
			 const float *b, u64 n, double m, double r)	\
{									\
	LD md, rd, v;							\
	LF f;								\
	u64 i;								\
	u32 l;								\
									\
	for (l = 0; l < LW; l++) {					\
		md[l] = m;						\
		rd[l] = r;						\
	}								\
	for (i = 0; i + LW <= n; i += LW) {				\
		__builtin_memcpy(&f, x + i, sizeof(f));			\
		v = (__builtin_convertvector(f, LD) - md) * rd;		\
		__builtin_memcpy(&f, s + i, sizeof(f));			\
		v = v * __builtin_convertvector(f, LD);			\
		if (b) {						\
			__builtin_memcpy(&f, b + i, sizeof(f));		\
			v = v + __builtin_convertvector(f, LD);		\
		}							\
		f = __builtin_convertvector(v, LF);			\
		__builtin_memcpy(y + i, &f, sizeof(f));			\
	}								\
	for (; i < n; i++) {						\
		double d = (x[i] - m) * r * s[i];			\
									\
		if (b)							\
			d += b[i];					\
		y[i] = (float)d;					\
	}								\
}

/* npu_kern.h's f16_row without F16C: the portable conversion */
#define NPU_KERN_F16_ROW(name)						\
static void name(float *y, const u16 *h, u32 n)				\
{									\
	u32 i;								\
									\
	for (i = 0; i < n; i++)						\
		y[i] = npu_f16_to_f32(h[i]);				\
}

/* npu_kern.h's f16_row with F16C (vcvtph2ps, 8 lanes; exact) */
#define NPU_KERN_F16C_ROW(name)						\
static void name(float *y, const u16 *h, u32 n)				\
{									\
	short hv __attribute__((__vector_size__(16)));			\
	float fv __attribute__((__vector_size__(32)));			\
	u32 i;								\
									\
	for (i = 0; i + 8 <= n; i += 8) {				\
		__builtin_memcpy(&hv, h + i, sizeof(hv));		\
		fv = __builtin_ia32_vcvtph2ps256(hv);			\
		__builtin_memcpy(y + i, &fv, sizeof(fv));		\
	}								\
	for (; i < n; i++)						\
		y[i] = npu_f16_to_f32(h[i]);				\
}
