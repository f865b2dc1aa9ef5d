// SPDX-License-Identifier: MIT
/*
 * pass_util.c - pattern-matching and rewriting helpers for the passes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

struct ir_node *pu_producer(const struct ir_tensor *t, enum ir_op op)
{
	return t && t->producer && t->producer->op == op ? t->producer : NULL;
}

bool pu_single_use(const struct ir_tensor *t)
{
	return t && t->num_uses == 1 && !t->is_output;
}

bool pu_const_uniform(const struct ir_tensor *t, double *v)
{
	int64_t i, n;
	double first;

	if (!ir_tensor_is_const(t))
		return false;
	n = ir_tensor_numel(t);
	if (n < 1)
		return false;
	first = ir_const_get_f(t, 0);
	for (i = 1; i < n; i++)
		if (ir_const_get_f(t, i) != first)
			return false;
	*v = first;
	return true;
}

bool pu_near(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(1.0, fabs(b));
}

bool pu_unary_act(const struct ir_node *n, struct ir_act *a)
{
	const struct ir_tensor *lo, *hi;

	a->kind = IR_ACT_NONE;
	a->alpha = a->beta = 0;
	switch (n->op) {
	case IR_OP_RELU: a->kind = IR_ACT_RELU; break;
	case IR_OP_SIGMOID: a->kind = IR_ACT_SIGMOID; break;
	case IR_OP_TANH: a->kind = IR_ACT_TANH; break;
	case IR_OP_HARD_SWISH: a->kind = IR_ACT_HARDSWISH; break;
	case IR_OP_GELU:
		a->kind = strcmp(ir_attr_str(n, "approximate", "none"),
				 "tanh") ? IR_ACT_GELU : IR_ACT_GELU_TANH;
		break;
	case IR_OP_LEAKY_RELU:
		a->kind = IR_ACT_LEAKY_RELU;
		a->alpha = ir_attr_float(n, "alpha", 0.01f);
		break;
	case IR_OP_ELU:
		a->kind = IR_ACT_ELU;
		a->alpha = ir_attr_float(n, "alpha", 1.0f);
		break;
	case IR_OP_HARD_SIGMOID:
		a->kind = IR_ACT_HARDSIGMOID;
		a->alpha = ir_attr_float(n, "alpha", 0.2f);
		a->beta = ir_attr_float(n, "beta", 0.5f);
		break;
	case IR_OP_CLIP:
		if (n->opset < 11) {
			a->alpha = ir_attr_float(n, "min", -INFINITY);
			a->beta = ir_attr_float(n, "max", INFINITY);
		} else {
			lo = ir_in(n, 1);
			hi = ir_in(n, 2);
			if ((lo && !lo->data) || (hi && !hi->data))
				return false;
			a->alpha = lo ? (float)ir_const_get_f(lo, 0) : -INFINITY;
			a->beta = hi ? (float)ir_const_get_f(hi, 0) : INFINITY;
		}
		a->kind = IR_ACT_CLIP;
		break;
	case IR_OP_ACTIVATION:
		*a = n->act;
		break;
	default:
		return false;
	}
	return n->inputs[0] && n->inputs[0]->dtype == IR_F32;
}

struct ir_tensor *pu_const_f32(struct ir_graph *g, const char *name,
			       const struct ir_shape *shape, const double *v)
{
	int64_t i, n = ir_shape_numel(shape);
	struct ir_tensor *t;
	float *f = malloc((size_t)(n > 0 ? n : 1) * sizeof(*f));

	if (!f)
		return NULL;
	for (i = 0; i < n; i++)
		f[i] = (float)v[i];
	t = ir_const_new(g, name, IR_F32, shape, f, (size_t)n * sizeof(*f));
	free(f);
	return t;
}

struct ir_tensor *pu_const_i64(struct ir_graph *g, const char *name,
			       int n, const int64_t *v)
{
	struct ir_shape s = { .rank = 1, .dim = { n } };

	return ir_const_new(g, name, IR_I64, &s, v, (size_t)n * 8);
}

void pu_absorb(struct ir_graph *g, struct ir_node *keep, struct ir_node *from)
{
	struct ir_tensor *out = from->outputs[0];

	/* provenance: the fused node was made from both (best effort) */
	(void)ir_node_add_origins(keep, from);
	ir_node_remove(g, from);
	ir_node_set_output(keep, 0, out);
}

int pu_input_index(const struct ir_node *n, const struct ir_tensor *t)
{
	int i;

	for (i = 0; i < n->num_inputs; i++)
		if (n->inputs[i] == t)
			return i;
	return -1;
}

void pu_bypass(struct ir_graph *g, struct ir_node *n, struct ir_tensor *in)
{
	struct ir_tensor *out = n->outputs[0];

	ir_node_remove(g, n);
	ir_replace_uses(g, out, in);
}

bool pu_plain(const struct ir_node *n)
{
	return n->act.kind == IR_ACT_NONE && !n->has_residual &&
	       n->outputs[0] && n->outputs[0]->dtype == IR_F32;
}

/*
 * Remove nodes whose outputs nobody reads: backward passes over the
 * array (a removal frees the producers of its inputs, which come earlier
 * in topological order) until one removes nothing.
 */
int pu_sweep(struct ir_graph *g)
{
	int i, j, removed = 0, before;
	bool live;

	do {
		before = removed;
		for (i = g->num_nodes - 1; i >= 0; i--) {
			struct ir_node *n;

			if (i >= g->num_nodes)
				continue;
			n = g->nodes[i];
			live = false;
			for (j = 0; j < n->num_outputs; j++)
				if (n->outputs[j] &&
				    (n->outputs[j]->num_uses ||
				     n->outputs[j]->is_output))
					live = true;
			if (live)
				continue;
			ir_node_remove(g, n);
			removed++;
		}
	} while (removed != before);
	return removed;
}

struct ir_node **pu_snapshot(const struct ir_graph *g, int *n)
{
	struct ir_node **s = malloc(((size_t)g->num_nodes + 1) * sizeof(*s));

	if (!s)
		return NULL;
	if (g->num_nodes)
		memcpy(s, g->nodes, (size_t)g->num_nodes * sizeof(*s));
	*n = g->num_nodes;
	return s;
}
