// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_gemm.c - 4x8 register tile for matrix products.
 *
 * The accumulators of a 4x8 tile fit in eight SSE registers; the inner
 * loops have constant trip counts so GCC -O2 turns them into packed
 * multiplies and adds (no intrinsics, no -march, no FMA contraction: the
 * tree is built with -ffp-contract=off). Each accumulator sums its k terms
 * in order, which keeps results independent of tiling and chunking.
 */
#include "npu_gemm.h"

static __always_inline void
tile4_contig(const float *a, u64 sam, u64 sak, const float *b, u64 sbk, u32 K,
	     float acc[NPU_GEMM_MR][NPU_GEMM_NR], int accumulate)
{
	float c0[8] = { 0 }, c1[8] = { 0 }, c2[8] = { 0 }, c3[8] = { 0 };
	const float *a0 = a, *a1 = a + sam, *a2 = a + 2 * sam, *a3 = a + 3 * sam;
	u32 k, j;

	if (accumulate) {
		memcpy(c0, acc[0], sizeof(c0));
		memcpy(c1, acc[1], sizeof(c1));
		memcpy(c2, acc[2], sizeof(c2));
		memcpy(c3, acc[3], sizeof(c3));
	}

	for (k = 0; k < K; k++) {
		const float *bk = b + k * sbk;
		float x0 = a0[k * sak], x1 = a1[k * sak];
		float x2 = a2[k * sak], x3 = a3[k * sak];

		for (j = 0; j < 8; j++) {
			c0[j] += x0 * bk[j];
			c1[j] += x1 * bk[j];
			c2[j] += x2 * bk[j];
			c3[j] += x3 * bk[j];
		}
	}
	memcpy(acc[0], c0, sizeof(c0));
	memcpy(acc[1], c1, sizeof(c1));
	memcpy(acc[2], c2, sizeof(c2));
	memcpy(acc[3], c3, sizeof(c3));
}

/* Strided or partial columns: gather a row of b first. */
static __always_inline void
tile4_gather(const float *a, u64 sam, u64 sak, const float *b, u64 sbk,
	     const u64 *col, u32 K, float acc[NPU_GEMM_MR][NPU_GEMM_NR],
	     int accumulate)
{
	float c0[8] = { 0 }, c1[8] = { 0 }, c2[8] = { 0 }, c3[8] = { 0 };
	const float *a0 = a, *a1 = a + sam, *a2 = a + 2 * sam, *a3 = a + 3 * sam;
	float bk[8];
	u32 k, j;

	if (accumulate) {
		memcpy(c0, acc[0], sizeof(c0));
		memcpy(c1, acc[1], sizeof(c1));
		memcpy(c2, acc[2], sizeof(c2));
		memcpy(c3, acc[3], sizeof(c3));
	}

	for (k = 0; k < K; k++) {
		float x0 = a0[k * sak], x1 = a1[k * sak];
		float x2 = a2[k * sak], x3 = a3[k * sak];

		for (j = 0; j < 8; j++)
			bk[j] = b[k * sbk + col[j]];
		for (j = 0; j < 8; j++) {
			c0[j] += x0 * bk[j];
			c1[j] += x1 * bk[j];
			c2[j] += x2 * bk[j];
			c3[j] += x3 * bk[j];
		}
	}
	memcpy(acc[0], c0, sizeof(c0));
	memcpy(acc[1], c1, sizeof(c1));
	memcpy(acc[2], c2, sizeof(c2));
	memcpy(acc[3], c3, sizeof(c3));
}

static __always_inline void
tile1_contig(const float *a, u64 sak, const float *b, u64 sbk, u32 K,
	     float *acc, int accumulate)
{
	float c0[8] = { 0 };
	u32 k, j;

	if (accumulate)
		memcpy(c0, acc, sizeof(c0));

	for (k = 0; k < K; k++) {
		const float *bk = b + k * sbk;
		float x0 = a[k * sak];

		for (j = 0; j < 8; j++)
			c0[j] += x0 * bk[j];
	}
	memcpy(acc, c0, sizeof(c0));
}

static __always_inline void
tile1_gather(const float *a, u64 sak, const float *b, u64 sbk,
	     const u64 *col, u32 K, float *acc, int accumulate)
{
	float c0[8] = { 0 }, bk[8];
	u32 k, j;

	if (accumulate)
		memcpy(c0, acc, sizeof(c0));

	for (k = 0; k < K; k++) {
		float x0 = a[k * sak];

		for (j = 0; j < 8; j++)
			bk[j] = b[k * sbk + col[j]];
		for (j = 0; j < 8; j++)
			c0[j] += x0 * bk[j];
	}
	memcpy(acc, c0, sizeof(c0));
}

static __always_inline void
gemm_tile(const float *a, u64 sam, u64 sak, u32 mr, const float *b, u64 sbk,
	  u64 sbn, u32 nr, u32 K, float acc[NPU_GEMM_MR][NPU_GEMM_NR],
	  int accumulate)
{
	int contig = sbn == 1 && nr == NPU_GEMM_NR;
	u64 col[NPU_GEMM_NR];
	u32 i, j;

	for (j = 0; j < NPU_GEMM_NR; j++)
		col[j] = (u64)(j < nr ? j : nr - 1) * sbn;
	if (mr == NPU_GEMM_MR) {
		if (contig)
			tile4_contig(a, sam, sak, b, sbk, K, acc, accumulate);
		else
			tile4_gather(a, sam, sak, b, sbk, col, K, acc, accumulate);
		return;
	}
	for (i = 0; i < mr; i++) {
		if (contig)
			tile1_contig(a + i * sam, sak, b, sbk, K, acc[i],
				     accumulate);
		else
			tile1_gather(a + i * sam, sak, b, sbk, col, K, acc[i],
				     accumulate);
	}
}

void npu_gemm_tile(const float *a, u64 sam, u64 sak, u32 mr,
		   const float *b, u64 sbk, u64 sbn, u32 nr, u32 K,
		   float acc[NPU_GEMM_MR][NPU_GEMM_NR])
{
	gemm_tile(a, sam, sak, mr, b, sbk, sbn, nr, K, acc, 0);
}

void npu_gemm_tile_acc(const float *a, u64 sam, u64 sak, u32 mr,
		       const float *b, u64 sbk, u64 sbn, u32 nr, u32 K,
		       float acc[NPU_GEMM_MR][NPU_GEMM_NR])
{
	gemm_tile(a, sam, sak, mr, b, sbk, sbn, nr, K, acc, 1);
}
