/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_math.h - the op kernels' own floating-point math (no libm).
 *
 * Float code: include this header only from files under ops/, which the
 * kernel module builds with hard-float flags and runs between
 * kernel_fpu_begin() and kernel_fpu_end().
 *
 * The transcendental functions evaluate in double precision with enough
 * terms that the float result is the correctly rounded value except in rare
 * near-halfway cases: the measured error is at most 1 ulp (see
 * Documentation/ops.rst and tests/math_test.c). Special values follow C99
 * Annex F (NaN in -> NaN out, infinities and signed zeros as libm).
 */
#ifndef NPU_MATH_H
#define NPU_MATH_H

#include "../npu_os.h"

/* Bit casts between float/double and integers (memcpy: no aliasing UB). */
static inline u32 npu_f2u(float f)
{
	u32 u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float npu_u2f(u32 u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline u64 npu_d2u(double d)
{
	u64 u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static inline double npu_u2d(u64 u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static inline int npu_isnanf(float x)
{
	return x != x;
}

static inline int npu_isinff(float x)
{
	return (npu_f2u(x) & 0x7fffffffu) == 0x7f800000u;
}

static inline float npu_fabsf(float x)
{
	return npu_u2f(npu_f2u(x) & 0x7fffffffu);
}

static inline double npu_fabs(double x)
{
	return npu_u2d(npu_d2u(x) & 0x7fffffffffffffffull);
}

#define NPU_INFF	npu_u2f(0x7f800000u)
#define NPU_NANF	npu_u2f(0x7fc00000u)

/* Double-precision cores (about 1e-15 relative error). */
double npu_exp_d(double x);
double npu_expm1_d(double x);
double npu_log_d(double x);
double npu_log1p_d(double x);
double npu_erf_d(double x);
double npu_erfc_d(double x);
double npu_tanh_d(double x);
double npu_sqrt_d(double x);
double npu_pow_d(double x, double y);

/* Float functions: at most 1 ulp from the exact result. */
float npu_expf(float x);
float npu_expm1f(float x);
float npu_logf(float x);
float npu_log1pf(float x);
float npu_tanhf(float x);
float npu_erff(float x);
float npu_sqrtf(float x);		/* correctly rounded */
float npu_powf(float x, float y);
float npu_sigmoidf(float x);
float npu_geluf(float x);	/* 0.5 x erfc(-x / sqrt 2) */
/* npu_gelu_tmpl.h's tables (npu_math.c) */
extern const u64 npu_erfcx_near[15], npu_erfcx_far[13];
extern const u64 npu_erf_series[13], npu_exp_taylor[14];
/* exp in float arithmetic, vectorised, <= 2 ulp (npu_math.c) */
float npu_expf_fast(float x);
void npu_expf_row(float *x, u32 n);	/* x[i] = npu_expf_fast(x[i]) */
/*
 * sigmoid and SiLU in float arithmetic on npu_expf_fast(): e = exp(-|x|),
 * 1 / (1 + e) for x >= 0, e / (1 + e) below, SiLU x times that; |x| > 87
 * and NaN through npu_sigmoidf() (SiLU: x / (1 + exp(-x)) in double).
 * The same operations as the levels'
 * sigmoid_row (npu_kern.h), so every level gives their bits; error bounds
 * in Documentation/ops.rst, "Accuracy".
 */
float npu_sigmoidf_fast(float x);
float npu_siluf_fast(float x);
/*
 * tanh in float arithmetic: |x| < 0.55: x + x z P(z), z = x^2, P of degree
 * 5 (least squares on [0, 0.3025], coefficients as float bits below);
 * else (1 - e) / (1 + e) with e = exp(-2|x|) (npu_expf_fast()), the sign
 * of x; |x| > 43.5 and NaN through npu_tanhf(). The levels' tanh_row does
 * the same operations.
 */
float npu_tanhf_fast(float x);
#define NPU_TANHF_SMALL		0.55f
#define NPU_TANHF_BIG		43.5f
#define NPU_TANHF_P0		0xbeaaaaabu
#define NPU_TANHF_P1		0x3e088882u
#define NPU_TANHF_P2		0xbd5d0a22u
#define NPU_TANHF_P3		0x3cb2bd65u
#define NPU_TANHF_P4		0xbc0bb816u
#define NPU_TANHF_P5		0x3b25b20bu

/*
 * npu_expf_fast()'s constants (npu_math.c), shared with the levels'
 * expf_row (npu_kern.h), which repeat its operations lane by lane.
 */
#define NPU_EXPF_LN2_HI		0.693145751953125f
#define NPU_EXPF_LN2_LO_BITS	0x35bfbe8eu	/* 1.428606765330187045e-06 */
#define NPU_EXPF_LOG2E		1.44269504088896341f
#define NPU_EXPF_SHIFT		12582912.0f	/* 1.5 * 2^23 */
#define NPU_EXPF_LO		(-87.0f)
#define NPU_EXPF_HI		88.0f

/* Exact operations. */
float npu_floorf(float x);
float npu_ceilf(float x);
float npu_truncf(float x);
float npu_roundevenf(float x);		/* round half to even */
double npu_floor_d(double x);

/* IEEE binary16 <-> binary32, round to nearest even, NaN kept quiet. */
u16 npu_f32_to_f16(float f);
float npu_f16_to_f32(u16 h);

#endif /* NPU_MATH_H */
