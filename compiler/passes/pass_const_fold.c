// SPDX-License-Identifier: MIT
/*
 * pass_const_fold.c - evaluate nodes whose inputs are all constants.
 *
 * Values come from the very tasks the device would run (interp_eval_node()
 * -> emit -> npu_op_run), so a folded constant has the bits the device
 * would have computed. Integer tensors whose value shape inference already
 * knows (Shape -> Gather -> Concat chains over static shapes) become
 * constants directly.
 */
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "interp/interp.h"
#include "passes.h"

/* Do not fold outputs above this size: they would bloat the weights. */
#define FOLD_MAX_BYTES	(64u << 20)

static bool foldable(const struct ir_node *n)
{
	int i, have = 0;

	/* a data-dependent extent is no constant: its bound would be */
	if (ir_node_counted(n) || ir_node_is_random(n))
		return false;
	for (i = 0; i < n->num_inputs; i++) {
		if (!n->inputs[i])
			continue;
		if (!n->inputs[i]->data)
			return false;
		have++;
	}
	for (i = 0; i < n->num_outputs; i++) {
		const struct ir_tensor *t = n->outputs[i];

		if (!t || !t->shape_known || !ir_shape_is_static(&t->shape) ||
		    emit_tensor_bytes(t) > FOLD_MAX_BYTES ||
		    t->layout != IR_LAYOUT_ND)
			return false;
	}
	/* Shape and friends need no input data, only static shapes */
	return have || emit_is_host_op(n->op);
}

/* A static shape value (sval) of an integer output: make it a constant. */
static bool fold_sval(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *t = n->outputs[0];
	int64_t i;
	void *buf;

	if (n->num_outputs != 1 || !t || !t->sval ||
	    (t->dtype != IR_I64 && t->dtype != IR_I32) ||
	    ir_tensor_numel(t) != t->sval_len)
		return false;
	for (i = 0; i < t->sval_len; i++)
		if (IR_SVAL_IS_SYM(t->sval[i]))
			return false;
	buf = malloc((size_t)t->sval_len * 8 + 1);
	if (!buf)
		return false;
	for (i = 0; i < t->sval_len; i++) {
		if (t->dtype == IR_I64)
			((int64_t *)buf)[i] = t->sval[i];
		else
			((int32_t *)buf)[i] = (int32_t)t->sval[i];
	}
	ir_node_remove(g, n);
	free(t->data);
	t->data = buf;
	t->nbytes = (size_t)t->sval_len * ir_dtype_size(t->dtype);
	return true;
}

static int fold_node(struct ir_graph *g, struct ir_node *n)
{
	void *outs[INTERP_MAX_OUTPUTS] = { 0 };
	int i, ret, k = n->num_outputs;

	if (k > INTERP_MAX_OUTPUTS)
		return 1;
	ret = interp_alloc_outputs(n, outs);
	if (ret)
		goto fail;
	ret = interp_eval_node(g, n, NULL, outs);
	if (ret) {
		/* not evaluable on the host (e.g. unsupported): keep it */
		g->err[0] = 0;
		ret = 1;
		goto fail;
	}
	interp_replace_by_outputs(g, n, outs);
	return 0;
fail:
	for (i = 0; i < k; i++)
		free(outs[i]);
	return ret;
}

int pass_const_fold(struct ir_graph *g, struct pass_stats *st)
{
	int i, ret;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];

		if (fold_sval(g, n)) {
			st->folded++;
			i--;
			continue;
		}
		if (!foldable(n))
			continue;
		ret = fold_node(g, n);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			st->folded++;
			i--;
		}
	}
	return 0;
}
