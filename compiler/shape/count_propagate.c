// SPDX-License-Identifier: MIT
/*
 * count_propagate.c - carry a data-dependent extent through the nodes that
 * read it.
 *
 * NonZero's and NMS's outputs (legalize_count.c) have the bound's static
 * shape: their valid rows are a prefix along the counted dim, the rest is
 * zero. A node that treats the rows of that dim independently - an
 * elementwise op, a cast, a reshape or transpose that keeps the dim
 * outermost, a Slice or Softmax or Concat across the other dims, a Gather
 * by those rows (when their padding is still the zeros the task wrote:
 * an index computed from it could be out of range and fault), a MatMul
 * with them as A's rows - computes its valid
 * rows from valid rows only and garbage from the padding, which stays
 * behind the valid prefix. Its output then has the same extent, counted
 * by the same count tensor, and may be a graph output itself (a detector's
 * boxes gathered by NMS's selection). What mixes rows (a reduction over
 * them, a Gather that picks rows of the counted dim, a reshape that folds
 * the dim into another) needs the extent as a shape, which a statically
 * planned program does not have: lower.c refuses it, naming the node.
 *
 * The packed prefix is the natural layout only where every dim before the
 * counted one is 1 (NMS's [rows, 3]; NonZero of a vector): the counted
 * tensors are required to have that form, inputs and outputs alike.
 */
#include "shape.h"
#include "shape_internal.h"

/* Is dim @d of @t the outermost one of more than one element? */
static bool outermost(const struct ir_tensor *t, int d)
{
	if (!t || d < 0 || d >= t->shape.rank ||
	    (t->layout != IR_LAYOUT_ND && t->layout != IR_LAYOUT_NCHW))
		return false;
	for (int i = 0; i < d; i++)
		if (t->shape.dim[i] != 1)
			return false;
	return true;
}

static int64_t inner(const struct ir_tensor *t, int d)
{
	int64_t n = 1;

	for (int i = d + 1; i < t->shape.rank; i++)
		n *= t->shape.dim[i];
	return n;
}

/*
 * The dim of @out that holds @in's counted dim @d when the data is the
 * same bytes (Reshape, Flatten, Squeeze, Unsqueeze, Identity): the one
 * with the same extent, the same elements inside and only 1s before it.
 */
static int same_bytes_dim(const struct ir_tensor *in, int d,
			  const struct ir_tensor *out)
{
	for (int k = 0; k < out->shape.rank; k++) {
		if (out->shape.dim[k] == 1 && k < out->shape.rank - 1)
			continue;
		if (out->shape.dim[k] == in->shape.dim[d] &&
		    inner(out, k) == inner(in, d))
			return k;
		return -1;
	}
	return -1;
}

static bool is_elementwise(enum ir_op op)
{
	switch (op) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
	case IR_OP_POW: case IR_OP_MAX: case IR_OP_MIN: case IR_OP_PRELU:
	case IR_OP_EQUAL: case IR_OP_LESS: case IR_OP_GREATER: case IR_OP_SUM:
	case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_WHERE:
	case IR_OP_GREATER_OR_EQUAL: case IR_OP_LESS_OR_EQUAL:
	case IR_OP_RELU: case IR_OP_SIGMOID: case IR_OP_TANH: case IR_OP_EXP:
	case IR_OP_SQRT: case IR_OP_CLIP: case IR_OP_LEAKY_RELU:
	case IR_OP_HARD_SIGMOID: case IR_OP_HARD_SWISH: case IR_OP_ERF:
	case IR_OP_NEG: case IR_OP_ABS: case IR_OP_LOG: case IR_OP_RECIPROCAL:
	case IR_OP_ELU: case IR_OP_SOFTPLUS: case IR_OP_FLOOR: case IR_OP_CEIL:
	case IR_OP_NOT: case IR_OP_GELU: case IR_OP_ACTIVATION: case IR_OP_CAST:
		return true;
	default:
		return false;
	}
}

/*
 * Output dim of a broadcasting op (or a Concat across other dims, @concat)
 * for input @x's dim @d. Every other input must have the same extent
 * there: counted by the same count along the same dim, or (broadcasting
 * only) 1 or absent. An uncounted input as long as the bound would meet a
 * shorter extent at run time: ONNX broadcasts an extent of 1 against it,
 * and refuses any other (a review finding: Add of NonZero's [1, n] and a
 * [1, 8] constant).
 */
static int bcast_dim(const struct ir_node *n, const struct ir_tensor *x,
		     int d, bool concat)
{
	const struct ir_tensor *o = n->outputs[0];
	int od = d + o->shape.rank - x->shape.rank;

	for (int i = 0; i < n->num_inputs; i++) {
		const struct ir_tensor *t = n->inputs[i];
		int td;

		if (!t || t == x)
			continue;
		td = od - (o->shape.rank - t->shape.rank);
		if (t->count == x->count && t->count_dim == td)
			continue;
		if (concat || (td >= 0 && t->shape.dim[td] != 1))
			return -1;
	}
	return od;
}

static int gather_dim(const struct ir_node *n, const struct ir_tensor *x,
		      int d)
{
	const struct ir_tensor *data = n->inputs[0], *ix = n->inputs[1];
	int axis = (int)ir_attr_int(n, "axis", 0);

	if (axis < 0)
		axis += data->shape.rank;
	/*
	 * Rows of the output follow the index: only indices whose padding
	 * is zero (a row the data has), not garbage that could fault.
	 */
	if (x == ix && !data->count && ix->count_zeroed &&
	    data->shape.dim[axis] > 0)
		return axis + d;
	if (x == data && !ix->count && d != axis)
		return d < axis ? d : d - 1 + ix->shape.rank;
	return -1;
}

static int slice_dim(const struct ir_node *n, const struct ir_tensor *x,
		     int d)
{
	const int64_t *begin, *step;
	int r = x->shape.rank;

	if (ir_attr_ints(n, "npu_begin", &begin) != r ||
	    ir_attr_ints(n, "npu_step", &step) != r)
		return -1;
	if (begin[d] != 0 || step[d] != 1 ||
	    n->outputs[0]->shape.dim[d] != x->shape.dim[d])
		return -1;
	return d;
}

static int transpose_dim(const struct ir_node *n, int d)
{
	const int64_t *perm;
	int r = ir_attr_ints(n, "perm", &perm);

	for (int k = 0; k < r; k++)
		if (perm[k] == d)
			return k;
	return -1;
}

/* Where a reader of @x (counted at @d) puts the extent in its output 0. */
static int output_dim(const struct ir_node *n, const struct ir_tensor *x,
		      int d)
{
	int axis;

	if (is_elementwise(n->op))
		return bcast_dim(n, x, d, false);
	switch (n->op) {
	case IR_OP_IDENTITY: case IR_OP_DROPOUT: case IR_OP_RESHAPE:
	case IR_OP_FLATTEN: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE:
		return x == n->inputs[0] ?
		       same_bytes_dim(x, d, n->outputs[0]) : -1;
	case IR_OP_TRANSPOSE:
		return transpose_dim(n, d);
	case IR_OP_SLICE:
		return x == n->inputs[0] ? slice_dim(n, x, d) : -1;
	case IR_OP_GATHER:
		return gather_dim(n, x, d);
	case IR_OP_CONCAT:
		axis = (int)ir_attr_int(n, "axis", 0);
		if (axis < 0)
			axis += x->shape.rank;
		return axis == d ? -1 : bcast_dim(n, x, d, true);
	case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX:
		/* before opset 13 over the flattened [axis:] (emit_softmax) */
		axis = (int)ir_attr_int(n, "axis", n->opset >= 13 ? -1 : 1);
		if (axis < 0)
			axis += x->shape.rank;
		if (n->opset < 13)
			return axis <= d ? -1 : d;
		return axis == d ? -1 : d;
	case IR_OP_MATMUL:
		/* A's rows (not K), B constant or uncounted */
		if (x != n->inputs[0] || x->shape.rank < 2 ||
		    d >= x->shape.rank - 1 || n->inputs[1]->count)
			return -1;
		return d + n->outputs[0]->shape.rank - x->shape.rank;
	default:
		return -1;
	}
}

/* The bound along the counted dim of @n's inputs counted by @count. */
static int64_t count_bound(const struct ir_node *n,
			   const struct ir_tensor *count)
{
	for (int i = 0; i < n->num_inputs; i++)
		if (n->inputs[i] && n->inputs[i]->count == count)
			return n->inputs[i]->shape.dim[n->inputs[i]->count_dim];
	return -1;
}

/* Does @n move or convert elements only, so that zero padding stays 0? */
static bool keeps_zeros(const struct ir_node *n, const struct ir_tensor *x)
{
	switch (n->op) {
	case IR_OP_IDENTITY: case IR_OP_DROPOUT: case IR_OP_RESHAPE:
	case IR_OP_FLATTEN: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE:
	case IR_OP_TRANSPOSE: case IR_OP_SLICE: case IR_OP_CAST:
	case IR_OP_RELU:
		return true;
	case IR_OP_GATHER:	/* of the counted data, not by its rows */
		return x == n->inputs[0];
	default:
		return false;
	}
}

/* The count node @n's output 0 inherits, or none; see the top. */
static void propagate_node(struct ir_node *n)
{
	struct ir_tensor *count = NULL, *o = n->outputs[0];
	bool zeroed = true;
	int od = -1;

	if (n->num_outputs != 1 || !o)
		return;
	for (int i = 0; i < n->num_inputs; i++) {
		const struct ir_tensor *x = n->inputs[i];
		int d;

		if (!x || !x->count)
			continue;
		if ((count && x->count != count) || !outermost(x, x->count_dim))
			return;
		d = output_dim(n, x, x->count_dim);
		if (d < 0 || (od >= 0 && d != od))
			return;
		count = x->count;
		od = d;
		zeroed &= x->count_zeroed && keeps_zeros(n, x);
	}
	if (!count || !outermost(o, od) ||
	    o->shape.dim[od] != count_bound(n, count))
		return;
	o->count = count;
	o->count_dim = od;
	o->count_zeroed = zeroed;
}

void shape_propagate_counts(struct ir_graph *g)
{
	for (int i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];

		if (n->op == IR_OP_NONZERO_TASK || n->op == IR_OP_NMS_TASK ||
		    n->op == IR_OP_UNIQUE_TASK)
			continue;
		for (int k = 0; k < n->num_outputs; k++)
			if (n->outputs[k]) {
				n->outputs[k]->count = NULL;
				n->outputs[k]->count_zeroed = false;
			}
		propagate_node(n);
	}
}
