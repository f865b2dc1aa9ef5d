/* SPDX-License-Identifier: MIT */
/*
 * op_chain.h - a small CNN + MLP head, as one ONNX graph (graph mode) and
 * as a sequence of npurt_op_execute() calls (single-op mode), with the
 * same weights: the single-op test and make bench-single-op.
 *
 * x[1,cin,h,w] -> blocks x (Conv 3x3 pad 1 -> Relu) -> Reshape [1, c*h*w]
 *   -> MatMul [c*h*w, hidden] -> Add -> Relu -> MatMul [hidden, classes]
 *   -> Softmax(axis -1) -> y[1, classes]
 */
#ifndef OP_CHAIN_H
#define OP_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "npurt.h"

#define CHAIN_MAX_BLOCKS	16

struct chain {
	int cin, c, h, w, hidden, classes, blocks;
	float *conv_w[CHAIN_MAX_BLOCKS], *conv_b[CHAIN_MAX_BLOCKS];
	float *w1, *b1, *w2;
	float *x;
};

/* Device side of single-op mode: weights and activations. */
struct chain_dev {
	npurt_mem *conv_w[CHAIN_MAX_BLOCKS], *conv_b[CHAIN_MAX_BLOCKS];
	npurt_mem *w1, *b1, *w2;
	npurt_mem *x, *act[2], *fc[2], *y;
};

/* Random weights from @seed; 0 or -1 (out of memory). */
int chain_init(struct chain *ch, int cin, int c, int h, int w, int hidden,
	       int classes, int blocks, unsigned int seed);
void chain_free(struct chain *ch);
/* The ONNX graph (malloc'd protobuf bytes), or NULL. */
uint8_t *chain_onnx(const struct chain *ch, size_t *len);
/* Uploads weights and input and allocates activations. */
npurt_status chain_dev_init(const struct chain *ch, npurt_context *ctx,
			    struct chain_dev *d);
void chain_dev_free(const struct chain *ch, struct chain_dev *d);
/* The ops in order on @s (d->y holds the result after a sync). */
npurt_status chain_run_ops(const struct chain *ch, struct chain_dev *d,
			   npurt_stream *s);
/* Ops per run. */
int chain_num_ops(const struct chain *ch);

/*
 * Points $NPURT_NPUC_LIB at this build's libnpuc.so.1 (BUILD/lib, from
 * BUILD/tests/libnpurt/ or BUILD/bench/): under ASan, dlopen is the
 * sanitizer's interceptor, so the program's RUNPATH is not searched.
 */
void chain_use_built_libnpuc(void);

#endif
