// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_math.c - elementary functions of the op kernels, without libm.
 *
 * Every transcendental function is evaluated in double precision (range
 * reduction plus a series with enough terms for ~1e-15 relative error), and
 * the float entry points round that once. A float result is therefore the
 * correctly rounded value unless the exact result lies within ~1e-7 ulp of
 * a rounding boundary, which keeps the error at or below 1 ulp everywhere.
 * The same code runs in the kernel module (SSE2 doubles) and in userspace,
 * so the results are bit-identical in both homes.
 */
#include "npu_math.h"

#define LN2_HI		0.693147180369123816490	/* 0x3fe62e42fee00000 */
#define LN2_LO		0.000000000190821492927058770002
#define INV_LN2		1.44269504088896338700
#define TWO_OVER_SQRTPI	1.12837916709551257390
#define INV_SQRTPI	0.564189583547756286948

static const double dinf = __builtin_inf();

/* 1/n, n = 0..23 (inv_int[0] unused). */
static const double inv_int[24] = {
	0, 1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8,
	1.0 / 9, 1.0 / 10, 1.0 / 11, 1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15,
	1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19, 1.0 / 20, 1.0 / 21, 1.0 / 22,
	1.0 / 23,
};

static double nan_d(void)
{
	return npu_u2d(0x7ff8000000000000ull);
}

/* 2^k for -1074 <= k <= 1023 as an exact double. */
static double pow2_d(int k)
{
	if (k >= -1022)
		return npu_u2d((u64)(k + 1023) << 52);
	return npu_u2d(1ull << (k + 1074));	/* subnormal */
}

double npu_floor_d(double x)
{
	double t;

	if (!(npu_fabs(x) < 4503599627370496.0))	/* 2^52, NaN, inf */
		return x;
	t = (double)(s64)x;
	if (t > x)
		t -= 1.0;
	if (t == 0.0)
		return x < 0 ? -0.0 : (x == 0 ? x : 0.0);
	return t;
}

double npu_exp_d(double x)
{
	double r, p;
	s64 k;

	if (x != x)
		return x;
	if (x > 709.782712893384)
		return dinf;
	if (x < -745.2)
		return 0.0;
	k = (s64)(x * INV_LN2 + (x >= 0 ? 0.5 : -0.5));
	r = (x - (double)k * LN2_HI) - (double)k * LN2_LO;
	/* |r| <= 0.35: Taylor series to r^13 (truncation < 2e-16). */
	p = 0.00000000016059043836821614599;			/* 1/13! */
	p = p * r + 0.0000000020876756987868098979;		/* 1/12! */
	p = p * r + 0.000000025052108385441718775;
	p = p * r + 0.00000027557319223985890653;
	p = p * r + 0.0000027557319223985890653;
	p = p * r + 0.000024801587301587301587;
	p = p * r + 0.00019841269841269841270;
	p = p * r + 0.0013888888888888888889;
	p = p * r + 0.0083333333333333333333;
	p = p * r + 0.041666666666666666667;
	p = p * r + 0.16666666666666666667;
	p = p * r + 0.5;
	p = p * r + 1.0;
	p = p * r + 1.0;
	if (k > 1023)
		return p * pow2_d((int)k - 1) * 2.0;
	if (k < -1000)
		return p * pow2_d((int)k + 1000) * pow2_d(-1000);
	return p * pow2_d((int)k);
}

double npu_expm1_d(double x)
{
	double p;
	int n;

	if (x != x)
		return x;
	if (npu_fabs(x) >= 0.5) {
		if (x < -40.0)
			return -1.0;
		return npu_exp_d(x) - 1.0;
	}
	/* x * (1 + x/2 * (1 + x/3 * (...))): relative error < 1e-17. */
	p = 1.0;
	for (n = 18; n >= 2; n--)
		p = 1.0 + x * inv_int[n] * p;
	return x * p;
}

double npu_log_d(double x)
{
	u64 u = npu_d2u(x);
	double m, s, s2, t, sum;
	int e, k;

	if (x != x)
		return x;
	if (x < 0)
		return nan_d();
	if (x == 0)
		return -dinf;
	if (x == dinf)
		return x;
	e = 0;
	if ((u >> 52) == 0) {			/* subnormal: scale by 2^54 */
		x *= 18014398509481984.0;
		u = npu_d2u(x);
		e = -54;
	}
	e += (int)((u >> 52) & 0x7ff) - 1023;
	m = npu_u2d((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
	if (m > 1.4142135623730951) {
		m *= 0.5;
		e++;
	}
	/* log(m) = 2 atanh(s), |s| <= 0.1716: series to s^23. */
	s = (m - 1.0) / (m + 1.0);
	s2 = s * s;
	sum = 0.0;
	for (k = 11; k >= 1; k--)
		sum = (sum + inv_int[2 * k + 1]) * s2;
	t = 2.0 * s + 2.0 * s * sum;
	return (double)e * LN2_HI + ((double)e * LN2_LO + t);
}

double npu_log1p_d(double x)
{
	double u;

	if (x != x)
		return x;
	if (x < -1.0)
		return nan_d();
	if (x == -1.0)
		return -dinf;
	if (npu_fabs(x) < 0.0001)
		return x * (1.0 - x * (0.5 - x * (1.0 / 3 - x * (0.25 - x * 0.2))));
	u = 1.0 + x;
	if (u == dinf)
		return u;
	/* log(u) corrected for the rounding of 1 + x. */
	return npu_log_d(u) - ((u - 1.0) - x) / u;
}

/* 1/n and 1/(2n+1) for the erf series (n < ERF_TERMS). */
#define ERF_TERMS	64
static const double inv_n[ERF_TERMS] = {
	0, 1.0 / 1, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5,
	1.0 / 6, 1.0 / 7, 1.0 / 8, 1.0 / 9, 1.0 / 10, 1.0 / 11,
	1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15, 1.0 / 16, 1.0 / 17,
	1.0 / 18, 1.0 / 19, 1.0 / 20, 1.0 / 21, 1.0 / 22, 1.0 / 23,
	1.0 / 24, 1.0 / 25, 1.0 / 26, 1.0 / 27, 1.0 / 28, 1.0 / 29,
	1.0 / 30, 1.0 / 31, 1.0 / 32, 1.0 / 33, 1.0 / 34, 1.0 / 35,
	1.0 / 36, 1.0 / 37, 1.0 / 38, 1.0 / 39, 1.0 / 40, 1.0 / 41,
	1.0 / 42, 1.0 / 43, 1.0 / 44, 1.0 / 45, 1.0 / 46, 1.0 / 47,
	1.0 / 48, 1.0 / 49, 1.0 / 50, 1.0 / 51, 1.0 / 52, 1.0 / 53,
	1.0 / 54, 1.0 / 55, 1.0 / 56, 1.0 / 57, 1.0 / 58, 1.0 / 59,
	1.0 / 60, 1.0 / 61, 1.0 / 62, 1.0 / 63,
};

static const double inv_odd[ERF_TERMS] = {
	1.0 / 1, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11,
	1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23,
	1.0 / 25, 1.0 / 27, 1.0 / 29, 1.0 / 31, 1.0 / 33, 1.0 / 35,
	1.0 / 37, 1.0 / 39, 1.0 / 41, 1.0 / 43, 1.0 / 45, 1.0 / 47,
	1.0 / 49, 1.0 / 51, 1.0 / 53, 1.0 / 55, 1.0 / 57, 1.0 / 59,
	1.0 / 61, 1.0 / 63, 1.0 / 65, 1.0 / 67, 1.0 / 69, 1.0 / 71,
	1.0 / 73, 1.0 / 75, 1.0 / 77, 1.0 / 79, 1.0 / 81, 1.0 / 83,
	1.0 / 85, 1.0 / 87, 1.0 / 89, 1.0 / 91, 1.0 / 93, 1.0 / 95,
	1.0 / 97, 1.0 / 99, 1.0 / 101, 1.0 / 103, 1.0 / 105, 1.0 / 107,
	1.0 / 109, 1.0 / 111, 1.0 / 113, 1.0 / 115, 1.0 / 117, 1.0 / 119,
	1.0 / 121, 1.0 / 123, 1.0 / 125, 1.0 / 127,
};

/* erfc(a) for a >= 2.5 by its continued fraction (Laplace). */
static double erfc_cf(double a)
{
	double f = a;
	int k;

	if (a > 27.3)
		return 0.0;
	for (k = 80; k >= 1; k--)
		f = a + (k * 0.5) / f;
	return npu_exp_d(-a * a) * INV_SQRTPI / f;
}

double npu_erf_d(double x)
{
	double a = npu_fabs(x), x2, t, sum, r;
	int n;

	if (x != x)
		return x;
	if (a >= 2.5) {
		r = 1.0 - erfc_cf(a);
		return x < 0 ? -r : r;
	}
	/*
	 * Maclaurin series; at a = 2.5 cancellation costs < 2 digits. Below
	 * 2.5 it needs at most 48 terms; reciprocals come from tables so the
	 * loop has no division.
	 */
	x2 = x * x;
	t = x;
	sum = x;
	for (n = 1; n < ERF_TERMS; n++) {
		double term;

		t = -t * x2 * inv_n[n];
		term = t * inv_odd[n];
		sum += term;
		if (npu_fabs(term) < 0.00000000000000001 * npu_fabs(sum))
			break;
	}
	return TWO_OVER_SQRTPI * sum;
}

double npu_erfc_d(double x)
{
	if (x != x)
		return x;
	if (x >= 2.5)
		return erfc_cf(x);
	return 1.0 - npu_erf_d(x);
}

double npu_tanh_d(double x)
{
	double e;

	if (x != x)
		return x;
	if (x > 20.0)
		return 1.0;
	if (x < -20.0)
		return -1.0;
	e = npu_expm1_d(2.0 * x);
	return e / (e + 2.0);
}

double npu_sqrt_d(double x)
{
	double y;
	int i, scale = 0;

	if (x != x || x == 0 || x == dinf)
		return x;
	if (x < 0)
		return nan_d();
	if (x < 1.0 / 1e300) {			/* keep the guess in range */
		x *= 1.3407807929942597e154;	/* 2^512 */
		scale = 1;
	}
	y = npu_u2d((npu_d2u(x) >> 1) + 0x1ff8000000000000ull);
	for (i = 0; i < 6; i++)
		y = 0.5 * (y + x / y);
	return scale ? y / 1.157920892373162e77 : y;	/* / 2^256 */
}

/* Is y an integer, and an odd one? */
static int int_kind_d(double y)
{
	double h;

	if (npu_floor_d(y) != y)
		return 0;			/* not an integer */
	if (npu_fabs(y) >= 9007199254740992.0)
		return 2;			/* even */
	h = y * 0.5;
	return npu_floor_d(h) != h ? 1 : 2;	/* 1 odd, 2 even */
}

double npu_pow_d(double x, double y)
{
	int kind;
	double r;

	if (y == 0 || x == 1.0)
		return 1.0;
	if (x != x || y != y)
		return nan_d();
	kind = int_kind_d(y);
	if (y == dinf || y == -dinf) {
		if (x == -1.0)
			return 1.0;
		if (y < 0 ? npu_fabs(x) < 1.0 : npu_fabs(x) > 1.0)
			return dinf;
		return 0.0;
	}
	if (x == 0) {
		int neg = (npu_d2u(x) >> 63) != 0;

		if (y < 0)
			return (kind == 1 && neg) ? -dinf : dinf;
		return (kind == 1) ? x : 0.0;
	}
	if (x == dinf)
		return y > 0 ? dinf : 0.0;
	if (x == -dinf) {
		if (y < 0)
			return kind == 1 ? -0.0 : 0.0;
		return kind == 1 ? -dinf : dinf;
	}
	if (x < 0) {
		if (!kind)
			return nan_d();
		r = npu_exp_d(y * npu_log_d(-x));
		return kind == 1 ? -r : r;
	}
	return npu_exp_d(y * npu_log_d(x));
}

float npu_expf(float x)
{
	return (float)npu_exp_d(x);
}

float npu_expm1f(float x)
{
	return (float)npu_expm1_d(x);
}

float npu_logf(float x)
{
	return (float)npu_log_d(x);
}

float npu_log1pf(float x)
{
	return (float)npu_log1p_d(x);
}

float npu_tanhf(float x)
{
	return (float)npu_tanh_d(x);
}

float npu_erff(float x)
{
	return (float)npu_erf_d(x);
}

float npu_sigmoidf(float x)
{
	double e;

	if (x != x)
		return x;
	if (x >= 0)
		return (float)(1.0 / (1.0 + npu_exp_d(-(double)x)));
	e = npu_exp_d(x);
	return (float)(e / (1.0 + e));
}

/*
 * (The tables of this file hold doubles as their bit patterns.)
 *
 * erfc(t) * exp(t^2) as Chebyshev series, fitted by least squares to
 * mpmath values (40 digits): t in [0.5, 2.5] in the variable t, t in
 * [2.5, 12] in the variable 1/t. Largest relative error on a 100003-point
 * check grid: 4.0e-11 and 4.1e-12, far below float's 6e-8.
 */
const u64 npu_erfcx_near[15] = {
	0x3fd761a20f86e846ull,	/* 0.36533404842669304 */
	0xbfc89170c2c7d0bdull,	/* -0.1919384909703065 */
	0x3fa76d5d3b4be849ull,	/* 0.045756257522910966 */
	0xbf84a7173886eee2ull,	/* -0.010084325230188044 */
	0x3f610b45444a7fe9ull,	/* 0.0020805695406380565 */
	0xbf3a92c09c31d688ull,	/* -0.00040547563930402224 */
	0x3f13b364d4130a44ull,	/* 7.515242488679528e-05 */
	0xbeebedc51b832d4bull,	/* -1.3317484317451825e-05 */
	0x3ec30225cc29164cull,	/* 2.2659765772949674e-06 */
	0xbe98ee6804fa1bbcull,	/* -3.715049432324464e-07 */
	0x3e6f99c41ddfcb6dull,	/* 5.886079511288031e-08 */
	0xbe43666a13253609ull,	/* -9.033855084698998e-09 */
	0x3e172117d3880d6cull,	/* 1.3463006943001912e-09 */
	0xbdea9c591578898bull,	/* -1.936185749363276e-10 */
	0x3dbe160ac6c0ebd1ull,	/* 2.7363150306453688e-11 */
};

const u64 npu_erfcx_far[13] = {
	0x3fc0bbe4451d605dull,	/* 0.1307339990114568 */
	0x3fb5046034c8b34dull,	/* 0.08209801949187785 */
	0xbf5f751c9743a428ull,	/* -0.0019200114448330117 */
	0xbf1fdb7b03383b03ull,	/* -0.00012152612981018375 */
	0x3ef133cb4e51d8cdull,	/* 1.6405411674879495e-05 */
	0xbe9d48c3fe4515a9ull,	/* -4.363691899110671e-07 */
	0xbe7ad54502aaa230ull,	/* -9.996102849164352e-08 */
	0x3e4f7be0ff08a2bbull,	/* 1.4660834297512223e-08 */
	0xbe014c6ff40a3d35ull,	/* -5.0345503467552e-10 */
	0xbde1befac878d2a2ull,	/* -1.291192467493662e-10 */
	0x3dbb024ba10732c8ull,	/* 2.456451193866405e-11 */
	0xbd7aa4d9717e1a45ull,	/* -1.5145328076137034e-12 */
	0xbd4e9d5fdf0036f2ull,	/* -2.175308404648511e-13 */
};

/* 2/sqrt(pi) (-1)^n / (n! (2n + 1)): erf(z) = z P(z^2), n <= 12 */
const u64 npu_erf_series[13] = {
	0x3ff20dd750429b6dull,	/* 1.1283791670955126 */
	0xbfd812746b0379e7ull,	/* -0.37612638903183754 */
	0x3fbce2f21a042be2ull,	/* 0.11283791670955126 */
	0xbf9b82ce31288b51ull,	/* -0.026866170645131252 */
	0x3f7565bcd0e6a53full,	/* 0.005223977625442188 */
	0xbf4c02db40040b86ull,	/* -0.0008548327023450853 */
	0x3f1f9a326f9b89b7ull,	/* 0.00012055332981789664 */
	0xbeef4d25c3e0c2ebull,	/* -1.492565035840625e-05 */
	0x3ebb9e6c9dc651a3ull,	/* 1.6462114365889248e-06 */
	0xbe85f742ec43e71aull,	/* -1.6365844691234924e-07 */
	0x3e4fcc5720624c1cull,	/* 1.4807192815879218e-08 */
	0xbe151d7181c5d36dull,	/* -1.2290555301717928e-09 */
	0x3dd9e6ad5e55a730ull,	/* 9.422759064650411e-11 */
};

/* 1/n!, n = 0..13 (npu_exp_d()'s series) */
const u64 npu_exp_taylor[14] = {
	0x3ff0000000000000ull,	/* 1.0 */
	0x3ff0000000000000ull,	/* 1.0 */
	0x3fe0000000000000ull,	/* 0.5 */
	0x3fc5555555555555ull,	/* 0.16666666666666666 */
	0x3fa5555555555555ull,	/* 0.041666666666666664 */
	0x3f81111111111111ull,	/* 0.008333333333333333 */
	0x3f56c16c16c16c17ull,	/* 0.001388888888888889 */
	0x3f2a01a01a01a01aull,	/* 0.0001984126984126984 */
	0x3efa01a01a01a01aull,	/* 2.48015873015873e-05 */
	0x3ec71de3a556c734ull,	/* 2.7557319223985893e-06 */
	0x3e927e4fb7789f5cull,	/* 2.755731922398589e-07 */
	0x3e5ae64567f544e4ull,	/* 2.505210838544172e-08 */
	0x3e21eed8eff8d898ull,	/* 2.08767569878681e-09 */
	0x3de6124613a86d09ull,	/* 1.6059043836821613e-10 */
};

/* GELU one lane at a time: the same operations as the row loops */
typedef double npu_gd1 __attribute__((__vector_size__(1 * sizeof(u64))));
typedef s64 npu_gi1 __attribute__((__vector_size__(8)));
#define GD	npu_gd1
#define GI	npu_gi1
#define GW	1
#include "npu_gelu_tmpl.h"
#undef GD
#undef GI
#undef GW

/* GELU in double, beyond the float lanes' range (x < -13, -inf, NaN) */
static float npu_geluf_d(float x)
{
	npu_gd1 v = { x };

	v = gelu_gd(v);
	return (float)v[0];
}

/* GELU in float lanes, one lane: the same operations as the row loops */
typedef float npu_gf1 __attribute__((__vector_size__(1 * sizeof(u32))));
typedef s32 npu_gfi1 __attribute__((__vector_size__(4)));
typedef u32 npu_gfu1 __attribute__((__vector_size__(4)));
#define GFV	npu_gf1
#define GFI	npu_gfi1
#define GFU	npu_gfu1
#define GFW	1
#include "npu_gelu_f_tmpl.h"
#undef GFV
#undef GFI
#undef GFU
#undef GFW

float npu_geluf(float x)
{
	npu_gf1 v = { x };

	if (x >= -NPU_GELU_F_LIM && x <= NPU_GELU_F_LIM) {
		v = gelu_gf(v);
		return v[0];
	}
	if (x > NPU_GELU_F_LIM)
		return x;	/* erf(x / sqrt 2) rounds to 1: exactly x */
	return npu_geluf_d(x);
}

/*
 * The fast float exp: npu_expf_tmpl.h's operations, the same in the
 * vector loop and for one value (a lane of four). Outside [-87, 88] (and
 * for NaN) it is npu_expf(), correctly rounded.
 */
#define EXPF_LO		NPU_EXPF_LO
#define EXPF_HI		NPU_EXPF_HI

typedef float npu_v4f __attribute__((__vector_size__(4 * sizeof(u32))));
typedef s32 npu_v4i __attribute__((__vector_size__(16)));

#define EXV	npu_v4f
#define EXI	npu_v4i
#include "npu_expf_tmpl.h"
#undef EXV
#undef EXI

float npu_expf_fast(float x)
{
	npu_v4f v = { x, 0.0f, 0.0f, 0.0f };

	if (!(x >= EXPF_LO && x <= EXPF_HI))
		return npu_expf(x);
	v = expf_lanes(v);
	return v[0];
}

float npu_sigmoidf_fast(float x)
{
	float a = -npu_fabsf(x), e, d;

	if (!(a >= EXPF_LO))		/* |x| > 87, NaN */
		return npu_sigmoidf(x);
	e = npu_expf_fast(a);
	d = 1.0f + e;
	return x >= 0 ? 1.0f / d : e / d;
}

float npu_tanhf_fast(float x)
{
	float a = npu_fabsf(x), z, p, e, t;

	if (!(a <= NPU_TANHF_BIG))	/* |x| > 43.5, NaN */
		return npu_tanhf(x);
	if (a < NPU_TANHF_SMALL) {
		z = x * x;
		p = npu_u2f(NPU_TANHF_P5);
		p = p * z + npu_u2f(NPU_TANHF_P4);
		p = p * z + npu_u2f(NPU_TANHF_P3);
		p = p * z + npu_u2f(NPU_TANHF_P2);
		p = p * z + npu_u2f(NPU_TANHF_P1);
		p = p * z + npu_u2f(NPU_TANHF_P0);
		return x + x * (z * p);
	}
	e = npu_expf_fast(-2.0f * a);
	t = (1.0f - e) / (1.0f + e);
	return x < 0 ? -t : t;
}

float npu_siluf_fast(float x)
{
	double xd = x;

	/* beyond the fast range in double: a subnormal sigmoid loses bits */
	if (!(-npu_fabsf(x) >= EXPF_LO))
		return (float)(xd / (1.0 + npu_exp_d(-xd)));
	return x * npu_sigmoidf_fast(x);
}

void npu_expf_row(float *x, u32 n)
{
	u32 i, j;

	for (i = 0; i + 4 <= n; i += 4) {
		npu_v4f v, w;
		bool odd = false;

		memcpy(&v, x + i, sizeof(v));
		for (j = 0; j < 4; j++)
			odd |= !(v[j] >= EXPF_LO && v[j] <= EXPF_HI);
		if (odd) {
			for (j = 0; j < 4; j++)
				x[i + j] = npu_expf_fast(x[i + j]);
			continue;
		}
		w = expf_lanes(v);
		memcpy(x + i, &w, sizeof(w));
	}
	for (; i < n; i++)
		x[i] = npu_expf_fast(x[i]);
}

float npu_powf(float x, float y)
{
	return (float)npu_pow_d(x, y);
}

/*
 * Correctly rounded: a double Newton estimate, then the neighbour whose
 * rounding interval contains sqrt(x), decided with exact squares (a 25-bit
 * midpoint squared fits in a double's 53 bits).
 */
float npu_sqrtf(float x)
{
	double xd = x, mid;
	float r;
	u32 u;

	if (x != x || x == 0 || npu_isinff(x))
		return x < 0 ? NPU_NANF : x;
	if (x < 0)
		return NPU_NANF;
	r = (float)npu_sqrt_d(xd);
	u = npu_f2u(r);
	mid = ((double)r + (double)npu_u2f(u + 1)) * 0.5;
	if (mid * mid < xd)
		return npu_u2f(u + 1);
	mid = ((double)r + (double)npu_u2f(u - 1)) * 0.5;
	if (mid * mid > xd)
		return npu_u2f(u - 1);
	return r;
}

/* Give a zero result the sign of x, as libm does. */
static float signed_zero(float r, float x)
{
	if (r == 0)
		return npu_u2f(npu_f2u(x) & 0x80000000u);
	return r;
}

float npu_truncf(float x)
{
	if (!(npu_fabsf(x) < 8388608.0f))	/* 2^23, NaN, inf */
		return x;
	return signed_zero((float)(s32)x, x);
}

float npu_floorf(float x)
{
	float t;

	if (!(npu_fabsf(x) < 8388608.0f))
		return x;
	t = (float)(s32)x;
	if (t > x)
		t -= 1.0f;
	return signed_zero(t, x);
}

float npu_ceilf(float x)
{
	float t;

	if (!(npu_fabsf(x) < 8388608.0f))
		return x;
	t = (float)(s32)x;
	if (t < x)
		t += 1.0f;
	return signed_zero(t, x);
}

float npu_roundevenf(float x)
{
	const float big = 8388608.0f;	/* 2^23: C (no -ffast-math) keeps the order */
	float a = npu_fabsf(x), r;

	if (!(a < 8388608.0f))
		return x;
	r = (a + big) - big;			/* the FPU rounds half to even */
	return signed_zero(x < 0 ? -r : r, x);
}

u16 npu_f32_to_f16(float f)
{
	u32 u = npu_f2u(f);
	u32 sign = (u >> 16) & 0x8000u;
	u32 a = u & 0x7fffffffu;
	u32 h, rem, mant, shift, half;

	if (a >= 0x7f800000u) {			/* inf or NaN */
		if (a == 0x7f800000u)
			return (u16)(sign | 0x7c00u);
		return (u16)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
	}
	if (a >= 0x477ff000u)			/* >= 65520 rounds to inf */
		return (u16)(sign | 0x7c00u);
	if (a < 0x38800000u) {			/* below 2^-14: subnormal */
		if (a <= 0x33000000u)		/* <= 2^-25 rounds to 0 */
			return (u16)sign;
		mant = (a & 0x7fffffu) | 0x800000u;
		shift = 126 - (a >> 23);
		h = mant >> shift;
		rem = mant & ((1u << shift) - 1);
		half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (u16)(sign | h);
	}
	h = (a - 0x38000000u) >> 13;
	rem = a & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++;
	return (u16)(sign | h);
}

float npu_f16_to_f32(u16 h)
{
	u32 sign = (u32)(h & 0x8000u) << 16;
	u32 e = (h >> 10) & 0x1fu;
	u32 m = h & 0x3ffu;

	if (e == 0x1f)
		return npu_u2f(sign | 0x7f800000u | (m << 13));
	if (e == 0) {
		if (m == 0)
			return npu_u2f(sign);
		e = 113;
		while (!(m & 0x400u)) {
			m <<= 1;
			e--;
		}
		return npu_u2f(sign | (e << 23) | ((m & 0x3ffu) << 13));
	}
	return npu_u2f(sign | ((e + 112) << 23) | (m << 13));
}
