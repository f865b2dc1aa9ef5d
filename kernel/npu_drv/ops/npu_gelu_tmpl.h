/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_gelu_tmpl.h - GELU, 0.5 x erfc(-x / sqrt 2), lane by lane over a
 * vector of doubles. The including file defines
 *   GD   a vector of GW doubles (GCC vector extension; GW may be 1)
 *   GI   the vector of GW s64 of the same size
 * and gets gelu_gd(). Every lane runs the same IEEE operations in the same
 * order whatever GW is (all three ranges are computed and the lane's one
 * selected, no contraction), so npu_geluf() (GW = 1, npu_math.c) and the
 * row loops of every ISA level (npu_kern_*.c) give the same bits.
 *
 * z = -x / sqrt 2; |z| < 0.5: erfc = 1 - z P(z^2) (the erf series to
 * z^25); 0.5 <= |z| < 12: erfc(|z|) = exp(-z^2) g(|z|) with g the fitted
 * Chebyshev series of npu_math.c, and erfc(z) = 2 - erfc(|z|) for z < 0;
 * erfc(|z|) = 0 from 12 on. exp(-q) for q = z^2 in [0.25, 144]: k by the
 * 1.5 * 2^52 rounding trick, a Taylor series to r^13, 2^k built in the
 * exponent bits (k >= -208: always a normal double).
 */

static __always_inline GD gd_splat(double v)
{
	GD r;
	u32 i;

	for (i = 0; i < GW; i++)
		r[i] = v;
	return r;
}

static __always_inline GD
gd_sel(GI m, GD t, GD f)
{
	return (GD)((m & (GI)t) | (~m & (GI)f));
}

static __always_inline GD
gd_cheb(const u64 *c, int n, GD u)
{
	GD b1 = gd_splat(0.0), b2 = gd_splat(0.0), t;
	int i;

	for (i = n - 1; i >= 1; i--) {
		t = gd_splat(2.0) * u * b1 - b2 + gd_splat(npu_u2d(c[i]));
		b2 = b1;
		b1 = t;
	}
	return u * b1 - b2 + gd_splat(npu_u2d(c[0]));
}

static __always_inline GD gelu_gd(GD xd)
{
	const GD magic = gd_splat(6755399441055744.0);	/* 1.5 * 2^52 */
	GD z, a, z2, p, e_small, q, y, kd, r, ex, g_near, g_far, ec, e, v;
	GI sbits;
	int i;

	z = -xd * gd_splat(0.70710678118654752440);
	a = (GD)((GI)z & ~(GI)gd_splat(-0.0));	/* |z| */
	/* small: 1 - z P(z^2) */
	z2 = z * z;
	p = gd_splat(npu_u2d(npu_erf_series[12]));
	for (i = 11; i >= 0; i--)
		p = p * z2 + gd_splat(npu_u2d(npu_erf_series[i]));
	e_small = gd_splat(1.0) - z * p;
	/*
	 * exp(-a^2), for a < 12 only (beyond it the result is 0): clamping
	 * keeps the exponent's integer arithmetic in range for every lane
	 * (a signed overflow under UBSan for a huge or infinite a).
	 */
	q = gd_sel(a < gd_splat(12.0), a, gd_splat(12.0));
	q = q * q;
	y = -q * gd_splat(1.44269504088896338700);	/* 1 / ln 2 */
	kd = (y + magic) - magic;
	r = (-q - kd * gd_splat(npu_u2d(0x3fe62e42fee00000ull))) -	/* ln2 hi */
	    kd * gd_splat(npu_u2d(0x3dea39ef35793c76ull));		/* ln2 lo */
	ex = gd_splat(npu_u2d(npu_exp_taylor[13]));
	for (i = 12; i >= 0; i--)
		ex = ex * r + gd_splat(npu_u2d(npu_exp_taylor[i]));
	sbits = ((GI)(kd + gd_splat(1023.0 + 4503599627370496.0)) -
		 (GI)gd_splat(4503599627370496.0)) << 52;
	ex = ex * (GD)sbits;
	/* g(a) */
	g_near = gd_cheb(npu_erfcx_near, 15, a - gd_splat(1.5));
	v = gd_splat(1.0) / a;
	g_far = gd_cheb(npu_erfcx_far, 13,
			(gd_splat(2.0) * v - gd_splat(0.08333333333333333 +
						      0.4)) /
			gd_splat(0.4 - 0.08333333333333333));
	ec = ex * gd_sel(a < gd_splat(2.5), g_near, g_far);
	ec = gd_sel(a < gd_splat(12.0), ec, gd_splat(0.0));
	e = gd_sel(z > gd_splat(0.0), ec, gd_splat(2.0) - ec);
	e = gd_sel(a < gd_splat(0.5), e_small, e);
	return gd_splat(0.5) * xd * e;
}
