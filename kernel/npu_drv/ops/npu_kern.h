/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_kern.h - register-blocked product kernels per ISA level, shared by
 * MATMUL and CONV2D. Float code: ops/ only.
 *
 * A tile computes C[i][j] = sum over k of A[i](k) * B(k)[j] for i < mr
 * rows and j < nr columns (nr is the kernel's full width), where k walks
 * a nest of four loops (outermost first, counts n[0..3]; a count may be
 * 0, then the sum is empty) and A and B advance by their own strides at
 * each level. A row i starts at a + i * sam; B(k) is nr contiguous floats.
 * Every C element sums its k terms in nest order, one term at a time
 * (acc = a * b + acc), so its bits never depend on the tile shape or on
 * which rows or columns share a tile: the baseline level rounds the
 * product and the sum separately, the FMA levels round once.
 *
 * Documentation/ops.rst, "Product kernels".
 */
#ifndef NPU_KERN_H
#define NPU_KERN_H

#include "npu_ops_internal.h"
#include "npu_math.h"

#if defined(__x86_64__)
#define NPU_KERN_X86	1
#endif

struct npu_tile {
	const float *a;
	const float *b;
	float *c;		/* mr rows of nr floats, ldc apart */
	u64 sam, ldc;
	u64 n[4], sa[4], sb[4];
	u32 mr;
	u32 accum;		/* continue the sums already in c */
};

typedef void (*npu_tile_fn)(const struct npu_tile *t);

/*
 * QADD's constants (op_qlinear.c): scales, the output clamp less the
 * output zero point, and the zero points.
 */
struct npu_qadd_k {
	float sa, sb, sy;
	float lo, hi;
	s32 za, zb, zy;
};

/*
 * One QADD element: clamp(rne(((a - za) * sa + (b - zb) * sb) / sy)) +
 * zy, each step one fp32 operation as ONNX's DequantizeLinear, Add and
 * QuantizeLinear compute them. The clamp comes first (integer bounds, so
 * before or after rounding is the same; NaN gives hi), then the magic
 * number rounds half to even.
 */
static inline s32 npu_qadd1(const struct npu_qadd_k *k, s32 av, s32 bv)
{
	const float magic = 12582912.0f;	/* 1.5 * 2^23 */
	float fa = (float)(av - k->za) * k->sa;
	float fb = (float)(bv - k->zb) * k->sb;
	float v = (fa + fb) / k->sy;

	v = v <= k->hi ? v : k->hi;
	v = v >= k->lo ? v : k->lo;
	return (s32)((v + magic) - magic) + k->zy;
}

/*
 * Move the loop levels of count 1 outwards (a level that runs once can
 * sit anywhere in the nest without changing the order of the terms), so
 * that the innermost loop is a long one: a 1x1 convolution's taps then
 * run in one loop over 16 channels instead of three nested loops.
 */
static inline void npu_tile_compact(struct npu_tile *t)
{
	u32 i, j;

	for (i = 4; i-- > 1;) {
		if (t->n[i] != 1)
			continue;
		for (j = i; j-- > 0;) {
			if (t->n[j] != 1) {
				u64 sa = t->sa[j], sb = t->sb[j], n = t->n[j];

				t->n[j] = 1;
				t->sa[j] = t->sa[i];
				t->sb[j] = t->sb[i];
				t->n[i] = n;
				t->sa[i] = sa;
				t->sb[i] = sb;
				break;
			}
		}
	}
}

/*
 * One ISA level's kernels: mm for MATMUL (wide rows of B), cv for the
 * pixel-major convolution (16 output channels per pixel).
 */
struct npu_kern {
	u32 isa;
	const char *name;
	u32 mm_mr, mm_nr;
	npu_tile_fn mm;
	u32 cv_mr, cv_nr;
	npu_tile_fn cv;
	npu_tile_fn cv16;	/* cv for a row stride of 16 (NC1HWC0, sw 1) */
	/* wide CONV2D tiles for units of 64 channels (small feature maps) */
	u32 cw_mr, cw_nr;
	npu_tile_fn cw, cw16;
	/* tiles for units of 32 channels (the cv tile where none is wider) */
	u32 cm_mr, cm_nr;
	npu_tile_fn cm, cm16;
	/*
	 * Depthwise over 16 channels: acc[p][c] += w[c] * x[p * xs + c] for
	 * pixels p in [lo, hi), c < 16; product and sum rounded separately,
	 * so every level gives the same bits.
	 */
	void (*dw16)(float *acc, const float *x, u64 xs, const float *w,
		     u32 lo, u32 hi);
	/*
	 * Depthwise over 16 channels, all taps of @np pixels whose taps
	 * all lie inside the input: out[p][c] = the sum over t < @nt, in
	 * order from +0, of w[t * 16 + c] * x[p * xs + off[t] + c], each
	 * product and sum rounded separately: the bits of dw16 tap by tap,
	 * with the sums in registers.
	 */
	void (*dw16_taps)(float *out, const float *x, u64 xs, const float *w,
			  const u64 *off, u32 nt, u32 np);
	/*
	 * ATTENTION's scores: out[j] = the dot product of q and row j of k
	 * (@krs apart) over @d contiguous floats, for j < @nk, in the op's
	 * order: 8 partial sums p[l] += q[t + l] * k[t + l] over whole
	 * groups of 8 (product and sum rounded separately), then
	 * ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)), then the tail
	 * terms one by one. Several rows at a time; the same bits at every
	 * level.
	 */
	void (*dot8_rows)(float *out, const float *q, const float *k,
			  u64 krs, u32 nk, u32 d);
	/*
	 * dot8_rows() with the keys transposed: element t of key j at
	 * kt[t * ktrs + j]; vectors across keys, the same bits.
	 */
	void (*dott_rows)(float *out, const float *q, const float *kt,
			  u64 ktrs, u32 nk, u32 d);
	/*
	 * y[e] = y[e] + p[j] * v[j * vrs + e] for j < @n in order, e < @dv:
	 * @n axpy rows with y held in registers across them (multiply then
	 * add: the bits of axpy row by row).
	 */
	void (*axpy_rows)(float *y, const float *v, u64 vrs, const float *p,
			  u32 n, u32 dv);
	/* axpy_rows() for two rows y0 (with p0) and y1 (p1): its bits */
	void (*axpy_rows2)(float *y0, float *y1, const float *v, u64 vrs,
			   const float *p0, const float *p1, u32 n, u32 dv);
	/*
	 * x[i] = npu_expf_fast(x[i]) for i < @n, a vector of lanes at a
	 * time with its operations (the bits of npu_expf_row() at every
	 * level); a vector with a lane outside [-87, 88] or NaN lane by
	 * lane through npu_expf_fast().
	 */
	void (*expf_row)(float *x, u32 n);
	/*
	 * x[i] = npu_sigmoidf_fast(x[i]) (@silu false) or npu_siluf_fast(x[i])
	 * (@silu true) for i < @n: their operations on vectors of lanes
	 * (one exp of -|x|, one division), the same bits at every level; a
	 * vector with |x| > 87 or NaN in a lane goes lane by lane.
	 */
	void (*sigmoid_row)(float *x, u32 n, bool silu);
	/* x[i] = npu_tanhf_fast(x[i]): its operations on lanes, its bits */
	void (*tanh_row)(float *x, u32 n);
	/*
	 * MAX pooling of @np pixels over 16 channels with every tap inside
	 * the input: y[p * ys + c] = the largest x[p * xs + off[t] + c] over
	 * t < @nt (>= 1), NPU_NANF when any is NaN - POOL2D's compare and
	 * select per tap, so the bits do not change.
	 */
	void (*max16_px)(float *y, u64 ys, const float *x, u64 xs,
			 const u64 *off, u32 nt, u32 np);
	/*
	 * The store of @cnt pixels of 16 channels: y[p * ys + c] =
	 * clamp(acc[p * as + c] + b[c] + r[p * ys + c]) for c < @lanes, 0
	 * past them (no add for a NULL @b or @r);
	 * @clamp 0: none, 1: v < lo ? lo : v (RELU: lo = 0), 2: that, then
	 * v > hi ? hi : v (CLIP) - npu_act_row()'s operations, so the bits
	 * of the bias add and activation do not change.
	 */
	void (*epi16)(float *y, u64 ys, const float *acc, u64 as, u32 cnt,
		      const float *b, const float *r, u32 lanes, u32 clamp,
		      float lo, float hi);
	/* x[i] = npu_geluf(x[i]), several lanes at a time (the same bits) */
	void (*gelu_row)(float *x, u32 n);
	/* y[i] = y[i] + a * x[i], multiply then add: the same bits */
	void (*axpy)(float *y, const float *x, float a, u32 n);
	/*
	 * Weight-only and f16 operands (MATMUL_WQ): exact conversions and
	 * one rounded multiply each, so every level gives the same bits.
	 * f16_row: y[i] = (float)h[i] (F16C where the level has it);
	 * dq8_row: y[i] = (float)w[i] * s[i];
	 * dq4_row: y[i] = (float)nibble(i) * s[i] for the signed nibbles of
	 * w, low nibble first, n even.
	 */
	void (*f16_row)(float *y, const u16 *h, u32 n);
	void (*dq8_row)(float *y, const s8 *w, const float *s, u32 n);
	void (*dq4_row)(float *y, const u8 *w, const float *s, u32 n);
	/*
	 * y[i] = a * x[i] + y[i] rounded as the level's tiles round one
	 * term (once with FMA, twice at the baseline): a row of products
	 * with the bits of the tile kernels' sums.
	 */
	void (*fma_row)(float *y, const float *x, float a, u32 n);
	/*
	 * LAYERNORM over @n contiguous floats, in double. ln_sum: the sum
	 * of x[i] (@sq false) or of (x[i] - m)^2 (@sq true) as 8 partial
	 * sums p[l] over whole groups of 8, then ((p0 + p1) + (p2 + p3)) +
	 * ((p4 + p5) + (p6 + p7)), then the tail one by one. ln_out:
	 * y[i] = (float)((x[i] - m) * r * s[i] (+ b[i], when @b)). The
	 * scalar loops' conversions and operations lane by lane: the same
	 * bits at every level.
	 */
	double (*ln_sum)(const float *x, u64 n, double m, bool sq);
	void (*ln_out)(float *y, const float *x, const float *s,
		       const float *b, u64 n, double m, double r);
	/*
	 * QADD over @n contiguous bytes: y[i] = npu_qadd1(k, a[i], b[i])
	 * (its low byte), a read as s8 when bit 0 of @sgn is set (else u8),
	 * b when bit 1 is. The element's fp32 steps lane by lane: the same
	 * bits at every level.
	 */
	void (*qadd_row)(u8 *y, const u8 *a, const u8 *b, u64 n, u32 sgn,
			 const struct npu_qadd_k *k);
};

/* Largest shapes of any level, for the callers' scratch tiles. */
#define NPU_KERN_MAX_MR		14
#define NPU_KERN_MAX_NR		64
#define NPU_KERN_MAX_TILE	384	/* floats: mr * nr of every shape */
#define NPU_KERN_MM_TILE	256	/* floats: mm_mr * mm_nr of every level */

extern const struct npu_kern npu_kern_baseline;
#ifdef NPU_KERN_X86
extern const struct npu_kern npu_kern_avx2;
extern const struct npu_kern npu_kern_avx512;
#endif

/* The kernels of level @isa (NPU_ISA_AUTO: the best this CPU runs). */
const struct npu_kern *npu_kern_get(u32 isa);

#endif /* NPU_KERN_H */
