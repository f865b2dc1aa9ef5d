/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_ops_float.h - element access and activations for the float kernels.
 * Float code: include only from the op_*.c kernels.
 */
#ifndef NPU_OPS_FLOAT_H
#define NPU_OPS_FLOAT_H

#include "npu_ops_internal.h"
#include "npu_math.h"

#define NPU_SQRT1_2	0.70710678118654752440
#define NPU_SQRT_2_PI	0.79788456080286535588	/* sqrt(2 / pi) */

/* Load element @i of a float-typed (F32/F16) operand as float. */
static inline float npu_ld_f(u32 dt, const void *p, u64 i)
{
	if (dt == DRM_NPU_DTYPE_F16)
		return npu_f16_to_f32(((const u16 *)p)[i]);
	return ((const float *)p)[i];
}

static inline void npu_st_f(u32 dt, void *p, u64 i, float v)
{
	if (dt == DRM_NPU_DTYPE_F16)
		((u16 *)p)[i] = npu_f32_to_f16(v);
	else
		((float *)p)[i] = v;
}

/* Integer (and BOOL) elements, widened to s64. */
static inline s64 npu_ld_i(u32 dt, const void *p, u64 i)
{
	switch (dt) {
	case DRM_NPU_DTYPE_I8:
		return ((const s8 *)p)[i];
	case DRM_NPU_DTYPE_U8:
	case DRM_NPU_DTYPE_BOOL:
		return ((const u8 *)p)[i];
	case DRM_NPU_DTYPE_I32:
		return ((const s32 *)p)[i];
	default:
		return ((const s64 *)p)[i];
	}
}

/* Store with two's complement wrap-around (BOOL stores v != 0). */
static inline void npu_st_i(u32 dt, void *p, u64 i, s64 v)
{
	switch (dt) {
	case DRM_NPU_DTYPE_I8:
		((s8 *)p)[i] = (s8)(u8)(u64)v;
		break;
	case DRM_NPU_DTYPE_U8:
		((u8 *)p)[i] = (u8)(u64)v;
		break;
	case DRM_NPU_DTYPE_BOOL:
		((u8 *)p)[i] = v != 0;
		break;
	case DRM_NPU_DTYPE_I32:
		((s32 *)p)[i] = (s32)(u32)(u64)v;
		break;
	default:
		((s64 *)p)[i] = v;
	}
}

static inline int npu_dt_is_float(u32 dt)
{
	return dt == DRM_NPU_DTYPE_F32 || dt == DRM_NPU_DTYPE_F16;
}

/* Float to integer: truncate toward zero, saturate, NaN -> 0. */
static inline s64 npu_f2i_sat(float f, s64 lo, s64 hi)
{
	if (f != f)
		return 0;
	if (f <= (float)lo)
		return lo;
	if (f >= (float)hi)
		return hi;
	return (s64)f;
}

/* Decoded activation (alpha/beta bit patterns turned into floats). */
struct npu_kern;

struct npu_act {
	u32 kind;
	float alpha, beta;
	/*
	 * The caller's ISA level for the vectorised rows (GELU, EXP,
	 * SIGMOID, SILU, TANH; npu_act_row()), NULL: the baseline's
	 */
	const struct npu_kern *kern;
};

static inline void npu_act_init(struct npu_act *a,
				const struct drm_npu_act_params *p)
{
	a->kind = p->kind;
	a->alpha = npu_u2f(p->alpha);
	a->beta = npu_u2f(p->beta);
	a->kern = NULL;
}

/*
 * The activations the ISA levels' stores apply themselves (npu_kern's
 * epi16, npu_act_row()'s compare-and-select): 0 none, 1 RELU (v < 0 ? 0),
 * 2 CLIP with its bounds in @lo and @hi; -1 for the others.
 */
static inline int npu_act_clamp(const struct npu_act *a, float *lo,
				float *hi)
{
	*lo = 0.0f;
	*hi = 0.0f;
	switch (a->kind) {
	case DRM_NPU_ACT_NONE:
		return 0;
	case DRM_NPU_ACT_RELU:
		return 1;
	case DRM_NPU_ACT_CLIP:
		*lo = a->alpha;
		*hi = a->beta;
		return 2;
	default:
		return -1;
	}
}

float npu_act1(const struct npu_act *a, float x);
void npu_act_row(const struct npu_act *a, float *x, u32 n);

#endif /* NPU_OPS_FLOAT_H */
