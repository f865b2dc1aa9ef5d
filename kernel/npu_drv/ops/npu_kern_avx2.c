// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_kern_avx2.c - the AVX2+FMA level of the product kernels: 8-float
 * vectors, one rounding per multiply-add. Built with -mavx2 -mfma (this
 * file only, see build.mk and Kbuild) and called only when the CPU and
 * the OS support both (npu_kern_get()).
 */
#include "npu_kern.h"

#ifdef NPU_KERN_X86
/*
 * The level's instructions for this file's functions whatever the build's
 * flags: build.mk and Kbuild pass them too, single-command builds (the
 * fuzzers, the TSan build) cannot.
 */
#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), \
			     apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#endif
typedef float VF __attribute__((__vector_size__(8 * sizeof(u32))));
#define VW		8
#define VBCAST(s)	vbcast(s)
#define VFMA(a, b, c)	__builtin_ia32_vfmaddps256((a), (b), (c))

static __always_inline VF vbcast(float s)
{
	return (VF) { s, s, s, s, s, s, s, s };
}

#include "npu_kern_tmpl.h"

/* 12 accumulators of 16 registers */
NPU_KERN_TILE(avx2_mm, 6, 2)
NPU_KERN_TILE(avx2_cv, 6, 2)
NPU_KERN_TILE_S(avx2_cv16, 6, 2, 16)
/* 2 pixels x 32 channels: 8 accumulators, 4 rows of B */
NPU_KERN_TILE(avx2_cw, 2, 4)
NPU_KERN_TILE_S(avx2_cw16, 2, 4, 16)

NPU_KERN_DW16(avx2_dw16)
NPU_KERN_DW16_TAPS(avx2_dw16_taps, 4)
NPU_KERN_EPI16(avx2_epi16)
NPU_KERN_MAX16_PX(avx2_max16_px)
NPU_KERN_DOT8_ROWS(avx2_dot8_rows)
NPU_KERN_DOTT_ROWS(avx2_dott_rows)
NPU_KERN_AXPY_ROWS(avx2_axpy_rows)
NPU_KERN_AXPY_ROWS2(avx2_axpy_rows2)
NPU_KERN_EXPF_ROW(avx2_expf_row)
NPU_KERN_SIGMOID_ROW(avx2_sigmoid_row)
NPU_KERN_TANH_ROW(avx2_tanh_row)
NPU_KERN_AXPY(avx2_axpy)
NPU_KERN_DQ(avx2)
NPU_KERN_QADD(avx2)
NPU_KERN_FMA_ROW(avx2_fma_row)

/* LAYERNORM's double lanes: 4 a vector */
typedef double avx2_ld __attribute__((__vector_size__(4 * sizeof(u64))));
typedef float avx2_lf __attribute__((__vector_size__(4 * sizeof(u32))));
#define LD	avx2_ld
#define LF	avx2_lf
#define LW	4
NPU_KERN_LN(avx2)
#undef LD
#undef LF
#undef LW
NPU_KERN_F16C_ROW(avx2_f16_row)

typedef s32 avx2_gfi __attribute__((__vector_size__(32)));
typedef u32 avx2_gfu __attribute__((__vector_size__(32)));
#define GFV	VF
#define GFI	avx2_gfi
#define GFU	avx2_gfu
#define GFW	VW
#include "npu_gelu_f_tmpl.h"

static void avx2_gelu_row(float *x, u32 n)
{
	gelu_gf_row(x, n);
}

const struct npu_kern npu_kern_avx2 = {
	.isa = NPU_ISA_AVX2,
	.name = "avx2+fma",
	.mm_mr = 6, .mm_nr = 16, .mm = avx2_mm,
	.cv_mr = 6, .cv_nr = 16, .cv = avx2_cv, .cv16 = avx2_cv16,
	.cw_mr = 2, .cw_nr = 32, .cw = avx2_cw, .cw16 = avx2_cw16,
	.cm_mr = 6, .cm_nr = 16, .cm = avx2_cv, .cm16 = avx2_cv16,
	.dw16 = avx2_dw16,
	.dw16_taps = avx2_dw16_taps,
	.epi16 = avx2_epi16,
	.max16_px = avx2_max16_px,
	.dot8_rows = avx2_dot8_rows,
	.dott_rows = avx2_dott_rows,
	.axpy_rows = avx2_axpy_rows,
	.axpy_rows2 = avx2_axpy_rows2,
	.expf_row = avx2_expf_row,
	.sigmoid_row = avx2_sigmoid_row,
	.tanh_row = avx2_tanh_row,
	.gelu_row = avx2_gelu_row,
	.axpy = avx2_axpy,
	.f16_row = avx2_f16_row,
	.dq8_row = avx2_dq8_row,
	.dq4_row = avx2_dq4_row,
	.fma_row = avx2_fma_row,
	.ln_sum = avx2_ln_sum,
	.ln_out = avx2_ln_out,
	.qadd_row = avx2_qadd_row,
};

#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
