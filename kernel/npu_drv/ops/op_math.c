// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_math.c - MATH: elementwise trigonometric and inverse hyperbolic
 * functions (ONNX Sin, Cos, Tan, Asin, Acos, Atan, Asinh, Acosh, Atanh),
 * F32, the input broadcast to the output as for UNARY.
 *
 * Each function is evaluated in double with our own series (no libm) and
 * rounded once to float: sin and cos reduce the argument by the nearest
 * multiple of pi/2 (Cody-Waite, pi/2 in three parts and a tail: within
 * one ulp for |x| < 2^20, slowly less accurate beyond, and only bounded
 * by 1 far beyond 2^30) and sum their Taylor series on [-pi/4, pi/4];
 * atan uses atan x = pi/2 - atan(1/x) for |x| > 1, halves its argument
 * twice (atan x = 2 atan(x / (1 + sqrt(1 + x^2)))) and sums
 * its series below tan(pi/16); asin, acos, asinh, acosh and atanh are
 * written with atan, sqrt and log1p in forms without cancellation. NaN
 * gives NaN, as does an argument outside the domain; sin, cos and tan of
 * +-inf give NaN.
 * Unit: output row segment.
 */
#include "npu_ops_float.h"

#define PIO2		1.57079632679489661923
/* pi/2 in three parts of 33 bits and a tail (fdlibm's pio2_1 .. pio2_3t) */
#define PIO2_1		1.57079632673412561417
#define PIO2_2		0.0000000000607710050630396597660
#define PIO2_3		0.00000000000000000000202226624871116645580
#define PIO2_3T		0.0000000000000000000000000000000847842766036889956997
#define TWO_OVER_PI	0.63661977236758134308

static int m_finite(double x)
{
	return ((npu_d2u(x) >> 52) & 0x7ff) != 0x7ff;
}

/* sin r (cos r when @c) for |r| <= pi/4: Taylor series to r^25. */
static double m_series(double r, int c)
{
	double r2 = r * r, term = c ? 1.0 : r, sum = term;
	int n;

	for (n = 1; n <= 12; n++) {
		double a = c ? 2 * n - 1 : 2 * n, b = c ? 2 * n : 2 * n + 1;

		term *= -r2 / (a * b);
		sum += term;
	}
	return sum;
}

double npu_sin_cos_d(double x, int cosine)
{
	double k, r, q;

	if (!m_finite(x))
		return x - x;		/* NaN for NaN and +-inf */
	k = npu_floor_d(x * TWO_OVER_PI + 0.5);
	r = (((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3) - k * PIO2_3T;
	q = k - 4 * npu_floor_d(k / 4);	/* quadrant 0..3 */
	if (npu_fabs(r) > 0.8)		/* |x| far beyond 2^30: bounded only */
		r = r - 2 * PIO2 * npu_floor_d(r / (4 * PIO2) + 0.5) * 2;
	if (npu_fabs(r) > 0.8)
		r = 0;
	switch (((int)q + cosine) & 3) {
	case 0: return m_series(r, 0);
	case 1: return m_series(r, 1);
	case 2: return -m_series(r, 0);
	default: return -m_series(r, 1);
	}
}

static double m_atan(double x)
{
	double a = npu_fabs(x), x2, term, sum, res;
	int big, n;

	if (x != x)
		return x;
	big = a > 1;
	if (big)
		a = 1 / a;
	a = a / (1 + npu_sqrt_d(1 + a * a));
	a = a / (1 + npu_sqrt_d(1 + a * a));
	x2 = a * a;
	term = a;
	sum = a;
	for (n = 1; n <= 24; n++) {
		term *= -x2;
		sum += term / (2 * n + 1);
	}
	res = 4 * sum;
	if (big)
		res = PIO2 - res;
	return x < 0 ? -res : res;
}

static double m_eval(u32 kind, double x)
{
	double a = npu_fabs(x), nan = npu_u2d(0x7ff8000000000000ull);

	if (x != x)
		return x;
	switch (kind) {
	case DRM_NPU_MATH_SIN:
		return npu_sin_cos_d(x, 0);
	case DRM_NPU_MATH_COS:
		return npu_sin_cos_d(x, 1);
	case DRM_NPU_MATH_TAN:
		return npu_sin_cos_d(x, 0) / npu_sin_cos_d(x, 1);
	case DRM_NPU_MATH_ASIN:
		if (a > 1)
			return nan;
		if (a == 1)
			return x * PIO2;
		return m_atan(x / npu_sqrt_d((1 - x) * (1 + x)));
	case DRM_NPU_MATH_ACOS:
		if (a > 1)
			return nan;
		return 2 * m_atan(npu_sqrt_d((1 - x) / (1 + x)));
	case DRM_NPU_MATH_ATAN:
		return m_atan(x);
	case DRM_NPU_MATH_ASINH: {
		double r;

		if (!m_finite(x))
			return x;
		r = npu_log1p_d(a + a * a / (1 + npu_sqrt_d(1 + a * a)));
		return x < 0 ? -r : r;
	}
	case DRM_NPU_MATH_ACOSH:
		if (x < 1)
			return nan;
		if (!m_finite(x))
			return x;
		return npu_log1p_d((x - 1) + npu_sqrt_d((x - 1) * (x + 1)));
	default:	/* ATANH */
		if (a > 1)
			return nan;
		if (a == 1)	/* +-inf */
			return npu_u2d(0x7ff0000000000000ull |
				       (npu_d2u(x) & 0x8000000000000000ull));
		return 0.5 * npu_log1p_d(2 * x / (1 - x));
	}
}

int npu_run_math(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *ops[2] = { npu_opnd(t, 0), npu_opnd(t, 1) };
	const float *in = args->data[0];
	float *out = args->data[1];
	u32 kind = t->params.math.kind;
	struct npu_rows r;
	struct npu_seg sg;
	u64 u, i, offs[2];

	npu_rows_begin(&r, ops, 2);
	for (u = begin; u < end; u++) {
		npu_row_offsets(&r, u, &sg, offs);
		for (i = 0; i < sg.len; i++)
			out[offs[1] + i * r.inner[1]] = (float)m_eval(kind,
				(double)in[offs[0] + i * r.inner[0]]);
	}
	return 0;
}
