/* SPDX-License-Identifier: MIT */
/*
 * shape.h - shape and dtype inference over the IR.
 *
 * Static and symbolic dims: a symbolic dim (ONNX dim_param "batch", "seq")
 * flows through every op; products made by Flatten/Reshape become derived
 * symbols with canonical names ("batch*seq", "4*batch"), so that a later
 * Reshape can divide them out again and resolve its -1. Integer tensors that
 * carry shapes (Shape -> Gather -> Concat -> Reshape) get a shape value
 * (ir_tensor.sval) so Reshape/Expand/Slice targets are known even when they
 * hold symbols.
 *
 * Errors name the node, its op and both shapes of a mismatch.
 */
#ifndef NPUC_SHAPE_H
#define NPUC_SHAPE_H

#include "ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Infer dtype and shape of every node output, in topological order. */
int shape_infer(struct ir_graph *g);
int shape_infer_node(struct ir_graph *g, struct ir_node *n);

/* Numpy broadcast of @a and @b into @out; error names @n and both shapes. */
int shape_broadcast(struct ir_graph *g, const struct ir_node *n,
		    const struct ir_shape *a, const struct ir_shape *b,
		    struct ir_shape *out);

/* Product of two dims (static or symbolic); < 0 is a derived symbol. */
int64_t shape_dim_mul(struct ir_graph *g, int64_t a, int64_t b);

/**
 * shape_node_ints() - integer list of an attribute or an input
 * @n: node
 * @input: input index that may carry the list (opset >= 13 style), or -1
 * @attr: attribute name that may carry it (older opsets), or NULL
 * @out: up to @max values
 *
 * Return: count, -ENOENT when neither is present, -EAGAIN when the input
 * exists but its value is not known at compile time.
 */
int shape_node_ints(const struct ir_node *n, int input, const char *attr,
		    int64_t *out, int max);

/*
 * Marks the tensors that inherit a data-dependent extent from the nodes
 * they read (count_propagate.c); @g in topological order. Run at the end
 * of shape_infer() and again by lowering, after the passes.
 */
void shape_propagate_counts(struct ir_graph *g);

/* Normalise a possibly negative @axis for @rank; -1 if out of range. */
int shape_axis(int64_t axis, int rank);

#ifdef __cplusplus
}
#endif

#endif /* NPUC_SHAPE_H */
