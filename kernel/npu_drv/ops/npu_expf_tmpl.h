/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_expf_tmpl.h - the fast float exp on vector lanes, shared by
 * npu_math.c (4 lanes: npu_expf_fast(), npu_expf_row()) and every ISA
 * level's rows (npu_kern_tmpl.h), so that one body of operations gives
 * the same bits everywhere. The including file defines
 *   EXV  a vector of floats (GCC vector extension)
 *   EXI  the vector of s32 of the same size
 * and gets expf_lanes(), for lanes in [NPU_EXPF_LO, NPU_EXPF_HI]:
 * 2^k e^r with k = round(x / ln 2) (the 1.5 * 2^23 rounding trick),
 * r = x - k ln 2 in two steps (ln2_hi has 12 trailing zero bits, so
 * k * ln2_hi is exact for |k| <= 128), e^r by Taylor to r^7 (truncation
 * < 6e-9 relative for |r| <= ln 2 / 2), 2^k added to the exponent bits
 * (|k| <= 127: the result stays normal). <= 2 ulp (ops.rst, Accuracy).
 */
static __always_inline EXV expf_lanes(EXV x)
{
	EXV t, k, r, p, shift = (EXV){ 0 } + NPU_EXPF_SHIFT;
	EXI e;

	t = x * NPU_EXPF_LOG2E + shift;
	k = t - shift;
	r = (x - k * NPU_EXPF_LN2_HI) - k * npu_u2f(NPU_EXPF_LN2_LO_BITS);
	p = r * (1.0f / 5040) + 1.0f / 720;
	p = p * r + 1.0f / 120;
	p = p * r + 1.0f / 24;
	p = p * r + 1.0f / 6;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	p = p * r + 1.0f;
	e = __builtin_convertvector(k, EXI) << 23;
	return (EXV)((EXI)p + e);
}
