/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_gemm.h - the register-tiled inner kernel shared by MATMUL and the
 * 1x1 convolutions. Float code: ops/ only.
 */
#ifndef NPU_GEMM_H
#define NPU_GEMM_H

#include "npu_ops_internal.h"

#define NPU_GEMM_MR	4
#define NPU_GEMM_NR	8

/*
 * npu_gemm_tile() - acc[i][j] = sum_k a[i*sam + k*sak] * b[k*sbk + j*sbn]
 * for i < mr (<= 4), j < nr (<= 8), k = 0..K-1 in order (so every element
 * gets the same bits whichever tile shape computes it). Columns j >= nr of
 * acc are unspecified; no element past nr or mr is read.
 */
void npu_gemm_tile(const float *a, u64 sam, u64 sak, u32 mr,
		   const float *b, u64 sbk, u64 sbn, u32 nr, u32 K,
		   float acc[NPU_GEMM_MR][NPU_GEMM_NR]);

/*
 * npu_gemm_tile_acc() - the same, continuing the sums already in @acc
 * (the k terms are still added one by one in order, so splitting K into
 * consecutive blocks gives the same bits as one call).
 */
void npu_gemm_tile_acc(const float *a, u64 sam, u64 sak, u32 mr,
		       const float *b, u64 sbk, u64 sbn, u32 nr, u32 K,
		       float acc[NPU_GEMM_MR][NPU_GEMM_NR]);

#endif /* NPU_GEMM_H */
