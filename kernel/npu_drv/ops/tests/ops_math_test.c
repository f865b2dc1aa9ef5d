// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_math_test.c - accuracy of the op kernels' own math (npu_math.c)
 * against libm (allowed here, in the test only): max ulp error over dense
 * sweeps of the float range, special values, exact rounding functions,
 * and binary16 conversions (exhaustive decode, all rounding midpoints).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ops_testlib.h"
#include "npu_kern.h"
#include "npu_math.h"

/* Bounds of the float-arithmetic sigmoid and SiLU (ops.rst, "Accuracy") */
#define SIGMOID_FAST_ULP	3.0
#define SILU_FAST_ULP		3.5
#define TANH_FAST_ULP		3.0

/* Distance in float ulps between @got and the exact value @ref. */
static double ulp_err(float got, double ref)
{
	double ulp;
	int e;

	if (isnan(ref))
		return isnan(got) ? 0 : INFINITY;
	if (isinf(ref) || fabs(ref) > 3.4028234663852886e38) {
		/* overflowed reference: the float answer must be inf or MAX */
		if (isinf(got) && (got > 0) == (ref > 0))
			return 0;
		return fabs((double)got - ref) / ldexp(1.0, 104);
	}
	if (isinf(got) || isnan(got))
		return INFINITY;
	frexp(ref, &e);		/* ref = m * 2^e, 0.5 <= |m| < 1 */
	if (e - 1 < -126)
		ulp = ldexp(1.0, -149);
	else
		ulp = ldexp(1.0, e - 24);
	return fabs((double)got - ref) / ulp;
}

typedef float (*ffn)(float);
typedef double (*dfn)(double);

static double sigmoid_ref(double x)
{
	return 1.0 / (1.0 + exp(-x));
}

static double silu_ref(double x)
{
	return x / (1.0 + exp(-x));
}

static double gelu_ref(double x)
{
	return 0.5 * x * erfc(-x / sqrt(2.0));
}

/*
 * Sweep every @step-th float bit pattern with magnitude in [lo, hi]
 * (0 <= lo <= hi), positive when @signs & 1, negative when @signs & 2.
 */
static double sweep(ffn f, dfn ref, float lo, float hi, u32 step, int signs,
		    float *worst_x)
{
	double worst = 0;
	u32 u, ulo = tl_f2u(lo), uhi = tl_f2u(hi);
	int s;

	for (s = 0; s < 2; s++) {
		if (!(signs & (1 << s)))
			continue;
		for (u = ulo; u <= uhi && u >= ulo; u += step) {
			float x;
			double e;

			memcpy(&x, &u, 4);
			if (s)
				x = -x;
			e = ulp_err(f(x), ref(x));
			if (e > worst) {
				worst = e;
				*worst_x = x;
			}
		}
	}
	return worst;
}

struct fcase {
	const char *name;
	ffn f;
	dfn ref;
	float lo, hi;
	int signs;
	double max_ulp;
};

static void sweeps(void)
{
	static const struct fcase cases[] = {
		{ "expf", npu_expf, exp, 0, 104, 3, 1.0 },
		{ "expm1f", npu_expm1f, expm1, 0, 100, 3, 1.0 },
		{ "logf", npu_logf, log, 0, 3.4e38f, 1, 1.0 },
		{ "log1pf", npu_log1pf, log1p, 0, 3.4e38f, 1, 1.0 },
		{ "log1pf (-1, 0]", npu_log1pf, log1p, 0, 0.99999994f, 2, 1.0 },
		{ "tanhf", npu_tanhf, tanh, 0, 30, 3, 1.0 },
		{ "erff", npu_erff, erf, 0, 10, 3, 1.0 },
		{ "sqrtf", npu_sqrtf, sqrt, 0, 3.4e38f, 1, 0.5 },
		{ "sigmoidf", npu_sigmoidf, sigmoid_ref, 0, 110, 3, 1.0 },
		{ "geluf", npu_geluf, gelu_ref, 0, 3.4e38f, 1, 2.0 },
		{ "expf_fast", npu_expf_fast, exp, 0, 104, 3, 2.0 },
		{ "geluf (x < 0)", npu_geluf, gelu_ref, 0, 20, 2, 7.0 },
		{ "sigmoidf_fast", npu_sigmoidf_fast, sigmoid_ref, 0, 110, 3,
		  SIGMOID_FAST_ULP },
		{ "siluf_fast", npu_siluf_fast, silu_ref, 0, 3.4e38f, 3,
		  SILU_FAST_ULP },
		{ "tanhf_fast", npu_tanhf_fast, tanh, 0, 60, 3, TANH_FAST_ULP },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fcase *c = &cases[i];
		float wx = 0;
		double w = sweep(c->f, c->ref, c->lo, c->hi, 251, c->signs, &wx);

		tap_ok(w <= c->max_ulp, "%s: max error %.3f ulp (at %a), bound %.1f",
		       c->name, w, wx, c->max_ulp);
	}
}

/*
 * @n values in [-@range, @range], every third scaled by 0.01, and NaN,
 * +-inf and -0 at 5..8.
 */
static void fill_odd(float *x, u32 n, u32 seed, float range)
{
	u32 i;

	tl_seed(seed);
	for (i = 0; i < n; i++)
		x[i] = tl_uniform(-range, range) * (i % 3 ? 1.0f : 0.01f);
	x[5] = NAN;
	x[6] = INFINITY;
	x[7] = -INFINITY;
	x[8] = -0.0f;
}

/*
 * Every ISA level's EXP, SIGMOID and SILU rows give npu_expf_fast()'s,
 * npu_sigmoidf_fast()'s and npu_siluf_fast()'s bits, odd lanes included.
 */
static void exp_sigmoid_rows(void)
{
	enum { N = 2053 };
	static float x[N], y[N];
	u32 isa, i, f;

	fill_odd(x, N, 17, 100);
	x[9] = 0.0f;
	x[10] = -87.0f;
	x[11] = 87.0f;
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		const struct npu_kern *k = npu_kern_get(isa);
		int bad = 0;

		for (f = 0; f < 4; f++) {
			memcpy(y, x, sizeof(x));
			if (f == 0)
				k->expf_row(y, N);
			else if (f == 3)
				k->tanh_row(y, N);
			else
				k->sigmoid_row(y, N, f == 2);
			for (i = 0; i < N; i++) {
				float e = f == 0 ? npu_expf_fast(x[i]) :
					  f == 1 ? npu_sigmoidf_fast(x[i]) :
					  f == 2 ? npu_siluf_fast(x[i]) :
					  npu_tanhf_fast(x[i]);

				bad += memcmp(&e, &y[i], 4) != 0;
			}
		}
		tap_ok(!bad, "EXP, SIGMOID, SILU, TANH rows at level %u (%s): the "
		       "bits of the float functions (%d bad)", isa, k->name,
		       bad);
	}
}

/* Odd spots: tiny and subnormal inputs, every pattern. */
/* Every ISA level's GELU row loop gives npu_geluf()'s bits. */
static void gelu_rows(void)
{
	enum { N = 4103 };
	static float x[N], y[N];
	u32 isa, i;

	fill_odd(x, N, 9, 30);
	x[9] = 3e38f;
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		const struct npu_kern *k = npu_kern_get(isa);
		int bad = 0;

		memcpy(y, x, sizeof(x));
		k->gelu_row(y, N);
		for (i = 0; i < N; i++) {
			float e = npu_geluf(x[i]);

			bad += memcmp(&e, &y[i], 4) != 0;
		}
		tap_ok(!bad, "GELU rows at level %u (%s): the bits of geluf "
		       "(%d bad)", isa, k->name, bad);
		/* axpy: multiply then add, lane by lane */
		memcpy(y, x, sizeof(x));
		k->axpy(y + 1, x + 100, 0.37f, N - 200);
		bad = 0;
		for (i = 0; i < N - 200; i++) {
			float e = x[i + 1] + 0.37f * x[i + 100];

			bad += memcmp(&e, &y[i + 1], 4) != 0;
		}
		tap_ok(!bad, "axpy at level %u: y + a * x unfused (%d bad)", isa,
		       bad);
	}
}

/* npu_expf_row() (four lanes at a time) gives npu_expf_fast()'s bits. */
static void exp_row(void)
{
	enum { N = 4099 };
	static float x[N], y[N];
	u32 i;
	int bad = 0;

	tl_seed(5);
	for (i = 0; i < N; i++)
		x[i] = tl_uniform(-100, 100);
	x[7] = NAN;
	x[100] = INFINITY;
	x[101] = -INFINITY;
	x[102] = -87.0f;
	x[103] = 88.0f;
	x[104] = -0.0f;
	memcpy(y, x, sizeof(x));
	npu_expf_row(y, N);
	for (i = 0; i < N; i++) {
		float e = npu_expf_fast(x[i]);

		bad += memcmp(&e, &y[i], 4) != 0;
	}
	tap_ok(!bad, "expf_row: the bits of expf_fast on every lane (%d bad)",
	       bad);
}

static void tiny(void)
{
	float wx = 0;
	double w = sweep(npu_logf, log, 0, 1e-30f, 61, 1, &wx);

	tap_ok(w <= 1.0, "logf on subnormals/tiny: max error %.3f ulp", w);
	w = sweep(npu_expf, exp, 0, 1e-3f, 509, 3, &wx);
	w = fmax(w, sweep(npu_tanhf, tanh, 0, 1e-3f, 509, 3, &wx));
	w = fmax(w, sweep(npu_erff, erf, 0, 1e-3f, 509, 3, &wx));
	tap_ok(w <= 1.0, "expf/tanhf/erff near 0: max error %.3f ulp", w);
}

static void pow_checks(void)
{
	static const float sx[] = { 0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 0.5f,
				    -0.5f, INFINITY, -INFINITY, NAN, 3.0f, -3.0f };
	static const float sy[] = { 0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 3.0f, -3.0f,
				    0.5f, -0.5f, INFINITY, -INFINITY, NAN, 1e10f };
	double worst = 0;
	int i, j, bad = 0;

	for (i = 0; i < (int)(sizeof(sx) / 4); i++)
		for (j = 0; j < (int)(sizeof(sy) / 4); j++) {
			float g = npu_powf(sx[i], sy[j]), r = powf(sx[i], sy[j]);

			if (!(isnan(g) && isnan(r)) &&
			    memcmp(&g, &r, 4) != 0) {
				bad++;
				tap_diag("pow(%g, %g) = %g, libm %g", sx[i], sy[j], g, r);
			}
		}
	tap_ok(!bad, "powf special values match C99 Annex F (%d mismatches)", bad);
	tl_seed(99);
	for (i = 0; i < 400000; i++) {
		float x = tl_uniform(0, 50), y = tl_uniform(-20, 20);
		double e = ulp_err(npu_powf(x, y), pow(x, y));

		if (i & 1) {
			x = -x;
			y = floorf(y);
			e = ulp_err(npu_powf(x, y), pow(x, y));
		}
		if (e > worst)
			worst = e;
	}
	tap_ok(worst <= 1.0, "powf random x in (-50, 50), y in (-20, 20): max %.3f ulp",
	       worst);
}

static void rounding(void)
{
	u32 u;
	int bad = 0;

	for (u = 0; u < 0xffffffffu - 251; u += 251) {
		float x, a, b;

		memcpy(&x, &u, 4);
		if (isnan(x))
			continue;
		a = npu_floorf(x);
		b = floorf(x);
		bad += memcmp(&a, &b, 4) != 0;
		a = npu_ceilf(x);
		b = ceilf(x);
		bad += memcmp(&a, &b, 4) != 0;
		a = npu_truncf(x);
		b = truncf(x);
		bad += memcmp(&a, &b, 4) != 0;
		a = npu_roundevenf(x);
		b = roundevenf(x);
		bad += memcmp(&a, &b, 4) != 0;
	}
	tap_ok(!bad, "floor/ceil/trunc/roundeven bit-exact on a 1/251 sweep (%d bad)",
	       bad);
	bad = 0;
	{
		static const float ties[] = { 0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 3.5f,
					      -3.5f, 8388607.5f, 4194304.5f };
		static const float want[] = { 0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 4.0f,
					      -4.0f, 8388608.0f, 4194304.0f };
		size_t i;

		for (i = 0; i < sizeof(ties) / 4; i++) {
			float r = npu_roundevenf(ties[i]);

			bad += memcmp(&r, &want[i], 4) != 0;
		}
	}
	tap_ok(!bad, "roundeven: halves go to even, signed zero kept");
}

static void half(void)
{
	u32 h, bad = 0, u;

	for (h = 0; h < 65536; h++) {
		_Float16 hv;
		float a, b;
		u16 hb = (u16)h;

		memcpy(&hv, &hb, 2);
		a = npu_f16_to_f32(hb);
		b = (float)hv;
		if (isnan(a) && isnan(b))
			continue;
		bad += memcmp(&a, &b, 4) != 0;
	}
	tap_ok(!bad, "f16 -> f32 exhaustive (%u mismatches)", bad);
	bad = 0;
	for (u = 0; u < 0xffffffffu - 1021; u += 1021) {
		float x;
		_Float16 r;
		u16 a, b;

		memcpy(&x, &u, 4);
		if (isnan(x))
			continue;
		r = (_Float16)x;
		memcpy(&b, &r, 2);
		a = npu_f32_to_f16(x);
		bad += a != b;
	}
	/* every rounding midpoint between neighbouring halves, and +-1 bit */
	for (h = 0; h < 0x7c00; h++) {
		float lo = npu_f16_to_f32((u16)h), hi = npu_f16_to_f32((u16)(h + 1));
		double mid = ((double)lo + hi) / 2;
		float m = (float)mid;
		int d;

		for (d = -1; d <= 1; d++) {
			u32 mu = tl_f2u(m) + (u32)d;
			float x;
			_Float16 r;
			u16 a, b;
			int s;

			for (s = 0; s < 2; s++) {
				memcpy(&x, &mu, 4);
				if (s)
					x = -x;
				r = (_Float16)x;
				memcpy(&b, &r, 2);
				a = npu_f32_to_f16(x);
				bad += a != b;
			}
		}
	}
	tap_ok(!bad, "f32 -> f16 round-to-nearest-even: sweep and all midpoints (%u bad)",
	       bad);
	{
		u16 n = npu_f32_to_f16(NAN);

		tap_ok((n & 0x7c00) == 0x7c00 && (n & 0x3ff),
		       "f32 -> f16 keeps NaN a NaN");
	}
}

int main(void)
{
	sweeps();
	tiny();
	pow_checks();
	rounding();
	half();
	exp_row();
	gelu_rows();
	exp_sigmoid_rows();
	return tap_done();
}
