/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_qkern.h - the int8 product kernels of QCONV2D and QMATMUL (float
 * code for the requantization: ops/ only).
 *
 * The sums are exact integer arithmetic (32-bit, wrapping) and the
 * requantization is the same sequence of IEEE double operations at every
 * level, so every level gives the same bits: the fast levels are a
 * matter of speed only. Documentation/quantization.rst, "Kernels".
 */
#ifndef NPU_QKERN_H
#define NPU_QKERN_H

#include "npu_ops_internal.h"

/* Requantization constants of a block of up to 16 output channels. */
struct npu_qrq {
	double mult[NPU_Q_OCB];	/* M per channel (a per-tensor M repeated) */
	s32 add[NPU_Q_OCB];	/* bias (0 without) */
	double yz, lo, hi;	/* y_zero, y_min, y_max */
};

/*
 * One QCONV2D unit on the packed form: NC1HWC0 input with C0 = 32 bytes
 * contiguous, packed I8 weight [O, C1, KH, KW, 32] with C0 contiguous,
 * weight zero point 0. Byte strides; x points at image n, w at the
 * block's first output channel, out at (n, o0, oy, 0).
 */
struct npu_qconv_job {
	const u8 *x;
	u64 xs1, xs2, xs3;
	const u8 *w;
	u64 ws0, ws1, ws2, ws3;
	u32 c1, ih, iw, kh, kw, dh, sw, dw, pl, ow;
	s64 iy0;		/* oy * stride_h - pad_top */
	u32 noc;		/* channels of the block, <= 16 */
	u8 flip;		/* 0x80 for an I8 input (as u8: +128), else 0 */
	u8 padv;		/* the raw byte of a_zero: padding taps */
	s32 zpu;		/* a_zero as the u8 the dot products see */
	const struct npu_qrq *rq;
	u8 *out;
	u64 out_px, out_ch;	/* bytes between output pixels, channels */
	/* the broadcast form (npu_qkern_vnni.c): NULL @ub runs the other */
	void *ub;		/* the core's unified buffer, NPU_UB_BYTES */
	u64 blk;		/* the block's index: with @w its identity */
	struct npu_qbc_held *held;	/* what the buffer holds (per chunk) */
};

/*
 * The block whose weights and requantization terms the unified buffer
 * holds: weights may repeat (an output-channel stride of 0), so the block
 * is known by its index, not by its weight pointer alone.
 */
struct npu_qbc_held {
	const u8 *w;
	u64 blk;
	bool valid;
};

/*
 * Rows [r0, r1) of a QMATMUL whose a rows and b rows ([N, K], I8, zero
 * point 0) are K contiguous bytes: out[r][n] for n < N.
 */
struct npu_qmm_job {
	const u8 *a;
	u64 a_rs;		/* bytes between rows of a */
	const u8 *b;
	u64 b_rs;		/* bytes between rows of b ([N, K]) */
	u32 n, k;
	u64 r0, r1;
	u8 flip;
	s32 zpu;
	/* per-column constants, read 4 columns at a time */
	const s32 *bias;	/* NULL: none */
	u64 bias_st;
	const float *mult;	/* NULL: the per-tensor @m */
	u64 mult_st;
	double m, yz, lo, hi;
	u8 *out;
	u64 o_rs, o_cs;		/* bytes between output rows, columns */
};

/*
 * The VNNI kernels are written with <immintrin.h>, which a kernel build
 * cannot include (it pulls in <stdlib.h>): the module runs the portable
 * loops, which give the same bits.
 */
#if defined(__x86_64__) && !defined(__KERNEL__)
#define NPU_QKERN_VNNI	1
#endif

#ifdef NPU_QKERN_VNNI
void npu_qconv_vnni(const struct npu_qconv_job *j);
void npu_qmm_vnni(const struct npu_qmm_job *j);
#endif

/* True when the CPU and OS run the AVX-512 VNNI kernels. */
u32 npu_op_has_vnni(void);

#endif /* NPU_QKERN_H */
