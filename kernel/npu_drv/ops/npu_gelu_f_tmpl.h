/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_gelu_f_tmpl.h - GELU in float lanes, 0.5 x (1 + erf(x / sqrt 2)),
 * for x in [-NPU_GELU_F_LIM, NPU_GELU_F_LIM] (npu_geluf() takes the
 * rest). The including file defines
 *   GFV  a vector of GFW floats (GCC vector extension; GFW may be 1)
 *   GFI  the vector of GFW s32 of the same size
 *   GFU  the vector of GFW u32 of the same size
 * and gets gelu_gf(). Every lane runs the same IEEE float operations in
 * the same order whatever GFW is (every range is computed and the lane's
 * one selected; the tree builds with -ffp-contract=off, so no product is
 * fused into a sum), so npu_geluf() (GFW = 1) and the row loops of every
 * ISA level give the same bits.
 *
 * z = x / sqrt 2, a = |z|:
 *   -0.5 < z < 0.75: 1 + erf(z) with erf(z) = z P(z^2), the Taylor
 *              series to z^19 (its first omitted term is below 1e-9;
 *              from -0.5 down 1 + erf cancels too much);
 *   otherwise: erfc(a) = exp(-x^2 / 2) g(a), g = erfc(t) exp(t^2) from
 *              the Chebyshev series of npu_math.c (12 terms on [0.5, 2.5]
 *              in t, 10 on [2.5, 12] in 1 / t) rounded to float, and
 *              1 + erf(z) = erfc(a) for z < 0, 2 - erfc(a) for z > 0.
 * x^2 / 2 is carried exactly as qh + ql: x split into 12 high bits and
 * the rest (each product of parts is exact), so exp(-x^2 / 2) keeps its
 * relative accuracy where erfc is tiny: e^-qh by 2^k e^r (Taylor to r^7)
 * times e^-ql by its series to ql^4 (|ql| < 0.042).
 * Error: <= 4 ulp of the float result (measured on a sweep:
 * Documentation/ops.rst, "Accuracy").
 */

#define NPU_GELU_F_LIM		13.0f

/* Chebyshev coefficients of g (npu_erfcx_near/far) as float bits */
static const u32 npu_gelu_f_near[12] = {
	0x3ebb0d10, 0xbe448b86, 0x3d3b6aea, 0xbc2538ba, 0x3b085a2a,
	0xb9d49605, 0x389d9b27, 0xb75f6e29, 0x3618112e, 0xb4c77340,
	0x337cce21, 0xb21b3351,
};

static const u32 npu_gelu_f_far[10] = {
	0x3e05df22, 0x3da82302, 0xbafba8e5, 0xb8fedbd8, 0x37899e5a,
	0xb4ea4620, 0xb3d6aa28, 0x327bdf08, 0xb00a6380, 0xaf0df7d6,
};

/* 2/sqrt(pi) (-1)^n / (n! (2n + 1)), n < 10, as float bits */
static const u32 npu_gelu_f_series[10] = {
	0x3f906ebb, 0xbec093a3, 0x3de71791, 0xbcdc1672, 0x3bab2de7,
	0xba6016da, 0x38fcd193, 0xb77a692e, 0x35dcf365, 0xb42fba17,
};

static __always_inline GFV gf_splat(float v)
{
	GFV r;
	u32 i;

	for (i = 0; i < GFW; i++)
		r[i] = v;
	return r;
}

static __always_inline GFV gf_sel(GFI m, GFV t, GFV f)
{
	return (GFV)((m & (GFI)t) | (~m & (GFI)f));
}

/* Whether any lane of the mask @m is set. */
static __always_inline bool gf_any(GFI m)
{
	u64 w[(sizeof(GFI) + 7) / 8] = { 0 }, acc = 0;
	u32 i;

	__builtin_memcpy(w, &m, sizeof(m));
	for (i = 0; i < (sizeof(GFI) + 7) / 8; i++)
		acc |= w[i];
	return acc != 0;
}

static __always_inline GFV gf_cheb(const u32 *c, int n, GFV u)
{
	GFV b1 = gf_splat(0.0f), b2 = gf_splat(0.0f), t;
	int i;

	for (i = n - 1; i >= 1; i--) {
		t = gf_splat(2.0f) * u * b1 - b2 + gf_splat(npu_u2f(c[i]));
		b2 = b1;
		b1 = t;
	}
	return u * b1 - b2 + gf_splat(npu_u2f(c[0]));
}

/*
 * e^-q for q in [0, 85]: 2^k e^r, k = round(-q / ln 2) by the 1.5 * 2^23
 * trick, r in two steps (ln 2's high part has 12 trailing zero bits),
 * Taylor to r^7; 2^k added to the exponent bits (k >= -123: normal).
 */
static __always_inline GFV gf_exp_neg(GFV q)
{
	const GFV shift = gf_splat(12582912.0f);
	GFV y = -q, k, r, p;
	GFU e;

	k = (y * gf_splat(1.44269504088896341f) + shift) - shift;
	r = (y - k * gf_splat(0.693145751953125f)) -
	    k * gf_splat(npu_u2f(0x35bfbe8eu));
	p = r * gf_splat(1.0f / 5040) + gf_splat(1.0f / 720);
	p = p * r + gf_splat(1.0f / 120);
	p = p * r + gf_splat(1.0f / 24);
	p = p * r + gf_splat(1.0f / 6);
	p = p * r + gf_splat(0.5f);
	p = p * r + gf_splat(1.0f);
	p = p * r + gf_splat(1.0f);
	e = (GFU)__builtin_convertvector(k, GFI) << 23;
	return (GFV)((GFU)p + e);
}

/*
 * Each range is computed only when a lane needs it: a lane's result does
 * not depend on which other ranges were computed, so skipping one no lane
 * selects changes no bit (it saves the far series and its division on
 * most vectors of a network's activations).
 */
static __always_inline GFV gelu_gf(GFV x)
{
	GFV z, a, z2, p, e_small, xh, xl, qh, ql, ex, g_near, g_far, ec, e;
	GFI small, far;
	int i;

	z = x * gf_splat(0.707106781186547524f);
	a = (GFV)((GFI)z & ~(GFI)gf_splat(-0.0f));
	small = (z > gf_splat(-0.5f)) & (z < gf_splat(0.75f));
	/* -0.5 < z < 0.75: 1 + z P(z^2) */
	e_small = z;
	if (gf_any(small)) {
		z2 = z * z;
		p = gf_splat(npu_u2f(npu_gelu_f_series[9]));
		for (i = 8; i >= 0; i--)
			p = p * z2 + gf_splat(npu_u2f(npu_gelu_f_series[i]));
		e_small = gf_splat(1.0f) + z * p;
		if (!gf_any(~small))
			return gf_splat(0.5f) * x * e_small;
	}
	/* x^2 / 2 = qh + ql: 12 high bits of x, squared exactly */
	xh = (GFV)((GFU)x & (GFU)gf_splat(npu_u2f(0xfffff000u)));
	xl = x - xh;
	qh = xh * xh * gf_splat(0.5f);
	ql = (gf_splat(2.0f) * xh * xl + xl * xl) * gf_splat(0.5f);
	p = ql * gf_splat(1.0f / 24) - gf_splat(1.0f / 6);
	p = p * ql + gf_splat(0.5f);
	p = p * ql - gf_splat(1.0f);
	p = p * ql + gf_splat(1.0f);
	ex = gf_exp_neg(qh) * p;
	/* g(a): near on [0.5, 2.5] in a - 1.5, far in 1 / a */
	far = a >= gf_splat(2.5f);
	g_near = gf_cheb(npu_gelu_f_near, 12, a - gf_splat(1.5f));
	g_far = g_near;
	if (gf_any(far))
		g_far = gf_cheb(npu_gelu_f_far, 10,
				(gf_splat(2.0f) / a - gf_splat(0.48333333f)) *
				gf_splat(3.15789474f));
	ec = ex * gf_sel(~far, g_near, g_far);
	e = gf_sel(z > gf_splat(0.0f), gf_splat(2.0f) - ec, ec);
	e = gf_sel(small, e_small, e);
	return gf_splat(0.5f) * x * e;
}

/*
 * x[i] = npu_geluf(x[i]): GFW lanes at a time; a vector with a lane out
 * of [-NPU_GELU_F_LIM, NPU_GELU_F_LIM] (or NaN) goes lane by lane through
 * npu_geluf(), which gives the in-range lanes the same bits.
 */
static __always_inline void gelu_gf_row(float *x, u32 n)
{
	GFV v;
	GFI in;
	u32 i, j;

	for (i = 0; i + GFW <= n; i += GFW) {
		__builtin_memcpy(&v, x + i, sizeof(v));
		in = (v >= gf_splat(-NPU_GELU_F_LIM)) &
		     (v <= gf_splat(NPU_GELU_F_LIM));
		if (gf_any(~in)) {
			for (j = 0; j < GFW; j++)
				x[i + j] = npu_geluf(x[i + j]);
			continue;
		}
		v = gelu_gf(v);
		__builtin_memcpy(x + i, &v, sizeof(v));
	}
	for (; i < n; i++)
		x[i] = npu_geluf(x[i]);
}
