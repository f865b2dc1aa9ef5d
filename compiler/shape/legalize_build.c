// SPDX-License-Identifier: MIT
/*
 * legalize_build.c - the node builder the decompositions share
 * (legalize_build.h).
 */
#include <stdbool.h>
#include <stdio.h>

#include "legalize_build.h"

struct ir_tensor *lz_take(struct lz_builder *b, struct ir_graph *g,
			  struct ir_node *n)
{
	struct ir_tensor *out = n->outputs[0];

	b->g = g;
	b->k = 0;
	snprintf(b->base, sizeof(b->base), "%.250s", n->name);
	ir_node_remove(g, n);
	return out;
}

struct ir_tensor *lz_node(struct lz_builder *b, enum ir_op op, int nin,
			  struct ir_tensor **ins, enum ir_dtype dt,
			  struct ir_tensor *out)
{
	char name[300];
	struct ir_node *n;
	int i;

	for (i = 0; i < nin; i++)
		if (!ins[i] && !(op == IR_OP_RESIZE && i == 1))
			return NULL;
	if (!out)
		out = ir_tensor_new(b->g, NULL, dt, NULL);
	if (!out)
		return NULL;
	snprintf(name, sizeof(name), "%s/%s_%d", b->base, ir_op_name(op),
		 b->k++);
	n = ir_node_new(b->g, op, name, nin, ins, 1, &out);
	if (!n)
		return NULL;
	n->opset = 13;
	return out;
}

struct ir_tensor *lz_unary(struct lz_builder *b, enum ir_op op,
			   struct ir_tensor *x, struct ir_tensor *out)
{
	return x ? lz_node(b, op, 1, &x, x->dtype, out) : NULL;
}

static bool writes_bool(enum ir_op op)
{
	return op == IR_OP_EQUAL || op == IR_OP_LESS || op == IR_OP_GREATER ||
	       op == IR_OP_GREATER_OR_EQUAL || op == IR_OP_AND ||
	       op == IR_OP_OR || op == IR_OP_XOR;
}

struct ir_tensor *lz_binary(struct lz_builder *b, enum ir_op op,
			    struct ir_tensor *x, struct ir_tensor *y,
			    struct ir_tensor *out)
{
	struct ir_tensor *ins[2] = { x, y };

	if (!x)
		return NULL;
	return lz_node(b, op, 2, ins, writes_bool(op) ? IR_BOOL : x->dtype,
		       out);
}

struct ir_tensor *lz_where(struct lz_builder *b, struct ir_tensor *c,
			   struct ir_tensor *x, struct ir_tensor *y,
			   struct ir_tensor *out)
{
	struct ir_tensor *ins[3] = { c, x, y };

	return x ? lz_node(b, IR_OP_WHERE, 3, ins, x->dtype, out) : NULL;
}

struct ir_tensor *lz_i64(struct ir_graph *g, const int64_t *v, int n)
{
	struct ir_shape sh = { .rank = 1, .dim = { n } };

	return ir_const_new(g, NULL, IR_I64, &sh, v, (size_t)n * 8);
}

struct ir_tensor *lz_reshape(struct lz_builder *b, struct ir_tensor *x,
			     const int64_t *dims, int rank,
			     struct ir_tensor *out)
{
	return lz_binary(b, IR_OP_RESHAPE, x, lz_i64(b->g, dims, rank), out);
}

struct ir_tensor *lz_transpose(struct lz_builder *b, struct ir_tensor *x,
			       const int64_t *perm, int n,
			       struct ir_tensor *out)
{
	struct ir_tensor *t = lz_unary(b, IR_OP_TRANSPOSE, x, out);

	if (t && ir_attr_set_ints(t->producer, "perm", perm, n))
		return NULL;
	return t;
}

struct ir_tensor *lz_reduce(struct lz_builder *b, enum ir_op op,
			    struct ir_tensor *x, const int64_t *axes,
			    int naxes, int keep, struct ir_tensor *out)
{
	struct ir_tensor *t = lz_unary(b, op, x, out);

	if (!t || ir_attr_set_ints(t->producer, "axes", axes, naxes) ||
	    ir_attr_set_int(t->producer, "keepdims", keep))
		return NULL;
	return t;
}

int lz_copy_attrs(struct ir_node *dst, const struct ir_node *src)
{
	for (int i = 0; i < src->num_attrs; i++) {
		const struct ir_attr *a = &src->attrs[i];
		int ret = 0;

		if (a->type == IR_ATTR_INT)
			ret = ir_attr_set_int(dst, a->name, a->i);
		else if (a->type == IR_ATTR_FLOAT)
			ret = ir_attr_set_float(dst, a->name, a->f);
		else if (a->type == IR_ATTR_STRING)
			ret = ir_attr_set_str(dst, a->name, a->s);
		else if (a->type == IR_ATTR_INTS)
			ret = ir_attr_set_ints(dst, a->name, a->ints, a->n);
		if (ret)
			return ret;
	}
	return 0;
}

struct ir_tensor *lz_cast(struct lz_builder *b, struct ir_tensor *x,
			  enum ir_dtype dt, int to, struct ir_tensor *out)
{
	struct ir_tensor *t;

	if (!x || (x->dtype == dt && !out))
		return x;
	t = lz_node(b, IR_OP_CAST, 1, &x, dt, out);
	return t && !ir_attr_set_int(t->producer, "to", to) ? t : NULL;
}
