// SPDX-License-Identifier: MIT
/*
 * ir_verify.c - structural checks of a graph, run between passes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

bool ir_verify_enabled(void)
{
#ifdef NPUC_DEBUG
	return true;
#else
	const char *e = getenv("NPUC_VERIFY");

	return e && *e && strcmp(e, "0");
#endif
}

static int ir_verify_tensor(struct ir_graph *g, const struct ir_tensor *t)
{
	int i;

	for (i = 0; i < t->num_uses; i++) {
		const struct ir_use *u = &t->uses[i];

		if (u->index < 0 || u->index >= u->node->num_inputs ||
		    u->node->inputs[u->index] != t)
			return ir_error(g, "verify: tensor '%s' lists a use by "
					"'%s' input %d that does not read it",
					t->name, u->node->name, u->index);
	}
	if (t->producer) {
		bool found = false;

		for (i = 0; i < t->producer->num_outputs; i++)
			found |= t->producer->outputs[i] == t;
		if (!found)
			return ir_error(g, "verify: tensor '%s' names producer "
					"'%s' which does not write it",
					t->name, t->producer->name);
		if (t->data)
			return ir_error(g, "verify: tensor '%s' is a constant "
					"and has producer '%s'", t->name,
					t->producer->name);
	}
	if (t->data) {
		int64_t n = ir_tensor_numel(t);

		/* an NC1HWC0 constant (packed int8 weights) stores C0 blocks */
		if (n >= 0 && t->layout == IR_LAYOUT_NC1HWC0 &&
		    t->shape.rank == 4) {
			int64_t c0 = ir_dtype_size(t->dtype) == 1 ? 32 : 16;

			n = t->shape.dim[0] * ((t->shape.dim[1] + c0 - 1) / c0) *
			    t->shape.dim[2] * t->shape.dim[3] * c0;
		}
		if (n < 0 || (size_t)n * ir_dtype_size(t->dtype) != t->nbytes)
			return ir_error(g, "verify: constant '%s' holds %zu "
					"bytes, its shape needs %lld x %zu",
					t->name, t->nbytes, (long long)n,
					ir_dtype_size(t->dtype));
	}
	if (t->shape.rank < 0 || t->shape.rank > IR_MAX_RANK)
		return ir_error(g, "verify: tensor '%s' has rank %d",
				t->name, t->shape.rank);
	return 0;
}

static int ir_verify_node(struct ir_graph *g, const struct ir_node *n)
{
	int i, j, count;

	if (n->op <= IR_OP_INVALID || n->op >= IR_OP_COUNT)
		return ir_error(g, "verify: node '%s' has invalid op %d",
				n->name, n->op);
	for (i = 0; i < n->num_inputs; i++) {
		const struct ir_tensor *t = n->inputs[i];

		if (!t)
			continue;
		if (!t->producer && !t->data && !t->is_input)
			return ir_error(g, "verify: node '%s' (%s) input %d "
					"'%s' has no producer, is no constant "
					"and no graph input", n->name,
					ir_op_name(n->op), i, t->name);
		count = 0;
		for (j = 0; j < t->num_uses; j++)
			count += t->uses[j].node == n && t->uses[j].index == i;
		if (count != 1)
			return ir_error(g, "verify: node '%s' input %d '%s' "
					"is not recorded as a use", n->name, i,
					t->name);
	}
	for (i = 0; i < n->num_outputs; i++)
		if (n->outputs[i] && n->outputs[i]->producer != n)
			return ir_error(g, "verify: node '%s' output %d '%s' "
					"names another producer", n->name, i,
					n->outputs[i]->name);
	return 0;
}

int ir_verify(struct ir_graph *g)
{
	int i, j, err;

	for (i = 0; i < g->num_tensors; i++) {
		err = ir_verify_tensor(g, g->tensors[i]);
		if (err)
			return err;
		for (j = 0; j < i; j++)
			if (!strcmp(g->tensors[i]->name, g->tensors[j]->name))
				return ir_error(g, "verify: two tensors are "
						"named '%s'",
						g->tensors[i]->name);
	}
	for (i = 0; i < g->num_nodes; i++) {
		err = ir_verify_node(g, g->nodes[i]);
		if (err)
			return err;
		g->nodes[i]->priv = (void *)(intptr_t)(i + 1);
	}
	/* order: every producer comes before its consumers */
	for (i = 0; i < g->num_nodes && !err; i++) {
		const struct ir_node *n = g->nodes[i];

		for (j = 0; j < n->num_inputs; j++) {
			const struct ir_tensor *t = n->inputs[j];

			if (t && t->producer &&
			    (intptr_t)t->producer->priv > i) {
				err = ir_error(g, "verify: node '%s' reads '%s' "
					       "before its producer '%s' runs "
					       "(not in topological order)",
					       n->name, t->name,
					       t->producer->name);
				break;
			}
		}
	}
	for (i = 0; i < g->num_nodes; i++)
		g->nodes[i]->priv = NULL;
	if (err)
		return err;
	for (i = 0; i < g->num_outputs; i++) {
		const struct ir_tensor *t = g->outputs[i];

		if (!t->producer && !t->data && !t->is_input)
			return ir_error(g, "verify: graph output '%s' is never "
					"computed", t->name);
	}
	return 0;
}
