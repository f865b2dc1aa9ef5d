/* SPDX-License-Identifier: MIT */
/*
 * legalize_build.h - building the replacement of a node that a
 * decomposition (shape_legalize.c, legalize_*.c) has taken out of the
 * graph: every new node is named after it ("<node>/<Op>_<k>") and gets
 * opset 13; a NULL input makes the step fail (out of memory), so a chain
 * of calls needs one check at its end.
 */
#ifndef NPUC_LEGALIZE_BUILD_H
#define NPUC_LEGALIZE_BUILD_H

#include "ir/ir.h"

struct lz_builder {
	struct ir_graph *g;
	char base[256];
	int k;
};

/*
 * Starts the decomposition of @n: @n leaves the graph (its inputs must
 * have been read before, its outputs but the first be unused) and its
 * output 0 is returned, for the last step to write.
 */
struct ir_tensor *lz_take(struct lz_builder *b, struct ir_graph *g,
			  struct ir_node *n);

/*
 * A node @op of @nin inputs writing @out (NULL: a new tensor of @dt).
 * Resize's roi (input 1) may be absent; any other NULL input fails.
 */
struct ir_tensor *lz_node(struct lz_builder *b, enum ir_op op, int nin,
			  struct ir_tensor **ins, enum ir_dtype dt,
			  struct ir_tensor *out);
/* One input, @x's dtype. */
struct ir_tensor *lz_unary(struct lz_builder *b, enum ir_op op,
			   struct ir_tensor *x, struct ir_tensor *out);
/* Two inputs: a comparison or logical op writes BOOL, others @x's dtype. */
struct ir_tensor *lz_binary(struct lz_builder *b, enum ir_op op,
			    struct ir_tensor *x, struct ir_tensor *y,
			    struct ir_tensor *out);
/* Where(@c, @x, @y). */
struct ir_tensor *lz_where(struct lz_builder *b, struct ir_tensor *c,
			   struct ir_tensor *x, struct ir_tensor *y,
			   struct ir_tensor *out);
/* Reshape(@x) to the @rank @dims (a constant shape). */
struct ir_tensor *lz_reshape(struct lz_builder *b, struct ir_tensor *x,
			     const int64_t *dims, int rank,
			     struct ir_tensor *out);
/* Transpose(@x) by the @n entries of @perm. */
struct ir_tensor *lz_transpose(struct lz_builder *b, struct ir_tensor *x,
			       const int64_t *perm, int n,
			       struct ir_tensor *out);
/* The reduction @op of @x over @axes (attributes), @keep its keepdims. */
struct ir_tensor *lz_reduce(struct lz_builder *b, enum ir_op op,
			    struct ir_tensor *x, const int64_t *axes,
			    int naxes, int keep, struct ir_tensor *out);
/* Copies @src's int, float, string and ints attributes onto @dst. */
int lz_copy_attrs(struct ir_node *dst, const struct ir_node *src);
/*
 * Cast(@x) to @dt (ONNX type @to) writing @out (NULL: a new tensor); @x
 * itself when it has @dt already and no @out is asked for.
 */
struct ir_tensor *lz_cast(struct lz_builder *b, struct ir_tensor *x,
			  enum ir_dtype dt, int to, struct ir_tensor *out);
/* A 1-D int64 constant of @n values. */
struct ir_tensor *lz_i64(struct ir_graph *g, const int64_t *v, int n);

#endif /* NPUC_LEGALIZE_BUILD_H */
