// SPDX-License-Identifier: MIT
/*
 * shape_fold.c - fold the small integer subgraphs that compute the
 * parameters of other nodes, during shape inference.
 *
 * Exporters compute pads, target shapes, repeats and masks with subgraphs
 * of their own: torch's F.pad writes Constant -> ConstantOfShape -> Concat
 * -> Reshape -> Slice -> Transpose -> Reshape -> Cast -> Pad, Tensor.expand
 * writes ConstantOfShape -> Mul -> Equal -> Where -> Expand, and exports
 * with static shapes read them through Shape -> Gather -> .... Pad, Expand,
 * Reshape, ConstantOfShape, Range, ... cannot be shape-inferred before
 * those values are known, and the const-fold pass runs only after shape
 * inference succeeded. So shape inference folds them as it goes, in
 * topological order: each node is inferred, and when its value is then
 * known (a shape value without symbols, or every input a constant), it
 * becomes a constant before its consumers are inferred. Topological order
 * makes this one sweep a fixpoint.
 *
 * Only integer and bool results of at most SHAPE_FOLD_MAX elements, and
 * f32 scalars (Range's start/limit/delta), are folded here: those are the
 * parameters; other float constant subgraphs are left to the const-fold
 * pass (which reports them). Values come from the op
 * kernels through interp_eval_node(), the bits the device would compute.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "interp/interp.h"
#include "shape_internal.h"

/* Largest result folded during shape inference, in elements. */
#define SHAPE_FOLD_MAX	4096
/* Nodes with more outputs are left to the const-fold pass. */
#define FOLD_MAX_OUTPUTS	INTERP_MAX_OUTPUTS

static bool fold_dtype(enum ir_dtype dt)
{
	return dt == IR_I64 || dt == IR_I32 || dt == IR_BOOL ||
	       dt == IR_I8 || dt == IR_U8;
}

static bool small_static(const struct ir_tensor *t)
{
	int64_t nel;

	if (!t->shape_known || !ir_shape_is_static(&t->shape) ||
	    t->layout != IR_LAYOUT_ND)
		return false;
	nel = ir_tensor_numel(t);
	/*
	 * f32 scalars too: Range's start, limit and delta are often computed
	 * in float from constants (ONNX's window functions).
	 */
	if (!fold_dtype(t->dtype))
		return t->dtype == IR_F32 && nel == 1;
	return nel >= 0 && nel <= SHAPE_FOLD_MAX;
}

/* Output 0 holds a shape value without symbols: it is a constant. */
static int fold_from_sval(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *t = n->outputs[0];
	void *outs[1];
	int64_t i;

	if (n->num_outputs != 1 || !t->sval ||
	    (t->dtype != IR_I64 && t->dtype != IR_I32) ||
	    ir_tensor_numel(t) != t->sval_len)
		return 0;
	for (i = 0; i < t->sval_len; i++)
		if (IR_SVAL_IS_SYM(t->sval[i]))
			return 0;
	outs[0] = malloc((size_t)t->sval_len * 8 + 1);
	if (!outs[0])
		return -ENOMEM;
	for (i = 0; i < t->sval_len; i++) {
		if (t->dtype == IR_I64)
			((int64_t *)outs[0])[i] = t->sval[i];
		else
			((int32_t *)outs[0])[i] = (int32_t)t->sval[i];
	}
	interp_replace_by_outputs(g, n, outs);
	return 1;
}

/*
 * Slice of a constant with any steps, negative ones included (torch's F.pad
 * reverses its pads with Slice(step=-1), which strided copies cannot do):
 * shape inference left the begin and step of every dim in npu_begin and
 * npu_step.
 */
static int host_slice(const struct ir_node *n, void *out)
{
	const struct ir_tensor *x = n->inputs[0], *y = n->outputs[0];
	const int64_t *begin, *step;
	int64_t idx[IR_MAX_RANK] = { 0 }, o, nel = ir_tensor_numel(y);
	size_t es = ir_dtype_size(y->dtype);
	int r = x->shape.rank, d;

	if (ir_attr_ints(n, "npu_begin", &begin) != r ||
	    ir_attr_ints(n, "npu_step", &step) != r || y->shape.rank != r ||
	    !x->data || !es)
		return -EINVAL;
	for (o = 0; o < nel; o++) {
		int64_t src = 0;

		for (d = 0; d < r; d++)
			src = src * x->shape.dim[d] + begin[d] +
			      idx[d] * step[d];
		memcpy((char *)out + o * es, (const char *)x->data + src * es,
		       es);
		for (d = r - 1; d >= 0; d--) {
			if (++idx[d] < y->shape.dim[d])
				break;
			idx[d] = 0;
		}
	}
	return 0;
}

/* Every input is a constant: evaluate the node with the op kernels. */
static int fold_by_eval(struct ir_graph *g, struct ir_node *n)
{
	void *outs[FOLD_MAX_OUTPUTS] = { 0 };
	int i, have = 0, ret;

	if (n->num_outputs > FOLD_MAX_OUTPUTS)
		return 0;
	for (i = 0; i < n->num_inputs; i++) {
		if (!n->inputs[i])
			continue;
		if (!n->inputs[i]->data)
			return 0;
		have++;
	}
	if (!have)
		return 0;
	ret = interp_alloc_outputs(n, outs);
	if (ret)
		goto fail;
	ret = interp_eval_node(g, n, NULL, outs);
	if (ret && n->op == IR_OP_SLICE) {
		ret = host_slice(n, outs[0]);
		if (!ret)
			g->err[0] = 0;
	}
	if (ret) {
		/* not evaluable on the host: the node stays, and so does the
		 * error its consumer reports if it needs the value */
		g->err[0] = 0;
		ret = 0;
		goto fail;
	}
	interp_replace_by_outputs(g, n, outs);
	return 1;
fail:
	for (i = 0; i < n->num_outputs; i++)
		free(outs[i]);
	return ret;
}

/**
 * shape_fold_node() - make an inferred node a constant if its value is known
 * @g: graph
 * @n: a node whose outputs were just inferred
 *
 * Return: 1 if @n was removed and its outputs are now constants, 0 if it
 * stays, a negative errno on allocation failure.
 */
int shape_fold_node(struct ir_graph *g, struct ir_node *n)
{
	int i, ret;

	if (n->num_outputs < 1 || !n->outputs[0] || ir_node_counted(n) ||
	    ir_node_is_random(n))
		return 0;
	for (i = 0; i < n->num_outputs; i++)
		if (n->outputs[i] && !small_static(n->outputs[i]))
			return 0;
	ret = fold_from_sval(g, n);
	if (ret)
		return ret;
	return fold_by_eval(g, n);
}
