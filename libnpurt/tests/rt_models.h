/* SPDX-License-Identifier: MIT */
/*
 * rt_models.h - small models built through the .om writer API, with their
 * reference results computed on the host, for the runtime's tests.
 */
#ifndef RT_MODELS_H
#define RT_MODELS_H

#include <stddef.h>
#include <stdint.h>

#include "om.h"

/* MLP: x[B,8] -> relu(x W1 + b1)[B,16] -> (. W2 + b2)[B,4] */
#define MLP_IN		8
#define MLP_HID		16
#define MLP_OUT		4

/*
 * Builds the MLP. @batches: the variants' batch sizes (1 static variant
 * when @nbatch == 1 and @dynamic is 0; otherwise a symbolic "batch" dim).
 * Returns 0 and a malloc'ed .om in *data, or a negative errno.
 */
int rt_build_mlp(const uint32_t *batches, uint32_t nbatch, int dynamic,
		 void **data, size_t *size);
/* Reference output y[batch, MLP_OUT] of x[batch, MLP_IN]. */
void rt_mlp_reference(const float *x, uint32_t batch, float *y);

/*
 * Two-branch net on two streams: x[1,K] -> a = relu(x Wa) (stream 0),
 * b = relu(x Wb) (stream 1), stream 1 signals, stream 0 waits, then
 * y = a + b [1,N]. Each branch is @chain matmuls deep (N x N after the
 * first) so both streams have work to overlap.
 */
#define TB_K		64
#define TB_N		64
int rt_build_two_branch(uint32_t chain, void **data, size_t *size);
void rt_two_branch_reference(const float *x, uint32_t chain, float *y);

/* Deterministic pseudo-random values in [-1, 1). */
void rt_fill(float *p, size_t n, uint32_t seed);

#endif
