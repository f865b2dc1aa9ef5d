// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_kern_base.c - the baseline level of the product kernels: 4-float
 * vectors (SSE2 on x86-64, whatever the target has elsewhere), product and
 * sum rounded separately (the tree builds with -ffp-contract=off). The
 * compiler's constant folding and reference interpreter always use it.
 */
#include "npu_kern.h"

typedef float VF __attribute__((__vector_size__(4 * sizeof(u32))));
#define VW		4
#define VBCAST(s)	vbcast(s)
#define VFMA(a, b, c)	((c) + (a) * (b))

static __always_inline VF vbcast(float s)
{
	return (VF) { s, s, s, s };
}

#include "npu_kern_tmpl.h"

NPU_KERN_TILE(base_mm, 4, 2)
NPU_KERN_TILE(base_cv, 2, 4)
NPU_KERN_TILE_S(base_cv16, 2, 4, 16)

NPU_KERN_DW16(base_dw16)
NPU_KERN_DW16_TAPS(base_dw16_taps, 2)
NPU_KERN_EPI16(base_epi16)
NPU_KERN_MAX16_PX(base_max16_px)
NPU_KERN_DOT8_ROWS(base_dot8_rows)
NPU_KERN_DOTT_ROWS(base_dott_rows)
NPU_KERN_AXPY_ROWS(base_axpy_rows)
NPU_KERN_AXPY_ROWS2(base_axpy_rows2)
NPU_KERN_EXPF_ROW(base_expf_row)
NPU_KERN_SIGMOID_ROW(base_sigmoid_row)
NPU_KERN_TANH_ROW(base_tanh_row)
NPU_KERN_AXPY(base_axpy)
NPU_KERN_DQ(base)
NPU_KERN_QADD(base)
NPU_KERN_FMA_ROW(base_fma_row)

/* LAYERNORM's double lanes: 2 a vector */
typedef double base_ld __attribute__((__vector_size__(2 * sizeof(u64))));
typedef float base_lf __attribute__((__vector_size__(2 * sizeof(u32))));
#define LD	base_ld
#define LF	base_lf
#define LW	2
NPU_KERN_LN(base)
#undef LD
#undef LF
#undef LW
NPU_KERN_F16_ROW(base_f16_row)

typedef s32 base_gfi __attribute__((__vector_size__(16)));
typedef u32 base_gfu __attribute__((__vector_size__(16)));
#define GFV	VF
#define GFI	base_gfi
#define GFU	base_gfu
#define GFW	VW
#include "npu_gelu_f_tmpl.h"

static void base_gelu_row(float *x, u32 n)
{
	gelu_gf_row(x, n);
}

const struct npu_kern npu_kern_baseline = {
	.isa = NPU_ISA_BASELINE,
	.name = "baseline",
	.mm_mr = 4, .mm_nr = 8, .mm = base_mm,
	.cv_mr = 2, .cv_nr = 16, .cv = base_cv, .cv16 = base_cv16,
	.cw_mr = 2, .cw_nr = 16, .cw = base_cv, .cw16 = base_cv16,
	.cm_mr = 2, .cm_nr = 16, .cm = base_cv, .cm16 = base_cv16,
	.dw16 = base_dw16,
	.dw16_taps = base_dw16_taps,
	.epi16 = base_epi16,
	.max16_px = base_max16_px,
	.dot8_rows = base_dot8_rows,
	.dott_rows = base_dott_rows,
	.axpy_rows = base_axpy_rows,
	.axpy_rows2 = base_axpy_rows2,
	.expf_row = base_expf_row,
	.sigmoid_row = base_sigmoid_row,
	.tanh_row = base_tanh_row,
	.gelu_row = base_gelu_row,
	.axpy = base_axpy,
	.f16_row = base_f16_row,
	.dq8_row = base_dq8_row,
	.dq4_row = base_dq4_row,
	.fma_row = base_fma_row,
	.ln_sum = base_ln_sum,
	.ln_out = base_ln_out,
	.qadd_row = base_qadd_row,
};
