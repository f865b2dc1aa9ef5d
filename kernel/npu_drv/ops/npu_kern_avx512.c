// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_kern_avx512.c - the AVX-512 level of the product kernels: 16-float
 * vectors, one rounding per multiply-add, 32 registers. Built with
 * -mavx512f (this file only) and called only when the CPU and the OS
 * support it (npu_kern_get()).
 */
#include "npu_kern.h"

#ifdef NPU_KERN_X86
/*
 * The level's instructions for this file's functions whatever the build's
 * flags: build.mk and Kbuild pass them too, single-command builds (the
 * fuzzers, the TSan build) cannot.
 */
#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx512f,avx2,fma,f16c"))), \
			     apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma,f16c")
#endif
typedef float VF __attribute__((__vector_size__(16 * sizeof(u32))));
#define VW		16
#define VBCAST(s)	vbcast(s)
#define VFMA(a, b, c)	__builtin_ia32_vfmaddps512_mask((a), (b), (c), \
							(unsigned short)0xffff, 4)

static __always_inline VF vbcast(float s)
{
	return (VF) { s, s, s, s, s, s, s, s,
		       s, s, s, s, s, s, s, s };
}

#include "npu_kern_tmpl.h"

/* MATMUL: 8 rows x 32 columns (16 accumulators); CONV2D: 14 pixels x 16 */
NPU_KERN_TILE(avx512_mm, 8, 2)
NPU_KERN_TILE(avx512_cv, 14, 1)
NPU_KERN_TILE_S(avx512_cv16, 14, 1, 16)
/* 6 pixels x 64 channels: 24 accumulators, even for one edge pixel 4 */
NPU_KERN_TILE(avx512_cw, 6, 4)
NPU_KERN_TILE_S(avx512_cw16, 6, 4, 16)
/* 12 pixels x 32 channels: 24 accumulators, 14 loads per 24 FMAs */
NPU_KERN_TILE(avx512_cm, 12, 2)
NPU_KERN_TILE_S(avx512_cm16, 12, 2, 16)

NPU_KERN_DW16(avx512_dw16)
NPU_KERN_DW16_TAPS(avx512_dw16_taps, 8)
NPU_KERN_EPI16(avx512_epi16)
NPU_KERN_MAX16_PX(avx512_max16_px)
NPU_KERN_DOT8_ROWS(avx512_dot8_rows)
NPU_KERN_DOTT_ROWS(avx512_dott_rows)
NPU_KERN_AXPY_ROWS(avx512_axpy_rows)
NPU_KERN_AXPY_ROWS2(avx512_axpy_rows2)
NPU_KERN_EXPF_ROW(avx512_expf_row)
NPU_KERN_SIGMOID_ROW(avx512_sigmoid_row)
NPU_KERN_TANH_ROW(avx512_tanh_row)
NPU_KERN_AXPY(avx512_axpy)
NPU_KERN_DQ(avx512)
NPU_KERN_QADD(avx512)
NPU_KERN_FMA_ROW(avx512_fma_row)

/* LAYERNORM's double lanes: 8 a vector */
typedef double avx512_ld __attribute__((__vector_size__(8 * sizeof(u64))));
typedef float avx512_lf __attribute__((__vector_size__(8 * sizeof(u32))));
#define LD	avx512_ld
#define LF	avx512_lf
#define LW	8
NPU_KERN_LN(avx512)
#undef LD
#undef LF
#undef LW
NPU_KERN_F16C_ROW(avx512_f16_row)

typedef s32 avx512_gfi __attribute__((__vector_size__(64)));
typedef u32 avx512_gfu __attribute__((__vector_size__(64)));
#define GFV	VF
#define GFI	avx512_gfi
#define GFU	avx512_gfu
#define GFW	VW
#include "npu_gelu_f_tmpl.h"

static void avx512_gelu_row(float *x, u32 n)
{
	gelu_gf_row(x, n);
}

const struct npu_kern npu_kern_avx512 = {
	.isa = NPU_ISA_AVX512,
	.name = "avx512",
	.mm_mr = 8, .mm_nr = 32, .mm = avx512_mm,
	.cv_mr = 14, .cv_nr = 16, .cv = avx512_cv, .cv16 = avx512_cv16,
	.cw_mr = 6, .cw_nr = 64, .cw = avx512_cw, .cw16 = avx512_cw16,
	.cm_mr = 12, .cm_nr = 32, .cm = avx512_cm, .cm16 = avx512_cm16,
	.dw16 = avx512_dw16,
	.dw16_taps = avx512_dw16_taps,
	.epi16 = avx512_epi16,
	.max16_px = avx512_max16_px,
	.dot8_rows = avx512_dot8_rows,
	.dott_rows = avx512_dott_rows,
	.axpy_rows = avx512_axpy_rows,
	.axpy_rows2 = avx512_axpy_rows2,
	.expf_row = avx512_expf_row,
	.sigmoid_row = avx512_sigmoid_row,
	.tanh_row = avx512_tanh_row,
	.gelu_row = avx512_gelu_row,
	.axpy = avx512_axpy,
	.f16_row = avx512_f16_row,
	.dq8_row = avx512_dq8_row,
	.dq4_row = avx512_dq4_row,
	.fma_row = avx512_fma_row,
	.ln_sum = avx512_ln_sum,
	.ln_out = avx512_ln_out,
	.qadd_row = avx512_qadd_row,
};

#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
