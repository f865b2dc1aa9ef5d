// SPDX-License-Identifier: MIT
/*
 * pass_fuse.c - operator fusion: activations into Conv/Gemm/MatMul/binary
 * ops, residual Adds into Conv, bias Adds into MatMul/Gemm.
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "emit/emit.h"

/* Fold a following activation into nodes accepted by @want. */
static int fuse_act(struct ir_graph *g, struct pass_stats *st,
		    bool (*want)(const struct ir_node *))
{
	int i;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i], *a;
		struct ir_act act;

		if (!want(n) || n->act.kind != IR_ACT_NONE || !n->outputs[0] ||
		    n->outputs[0]->dtype != IR_F32 ||
		    !pu_single_use(n->outputs[0]))
			continue;
		a = n->outputs[0]->uses[0].node;
		if (a->num_inputs < 1 || a->inputs[0] != n->outputs[0] ||
		    !pu_unary_act(a, &act) || act.kind == IR_ACT_NONE)
			continue;
		n->act = act;
		pu_absorb(g, n, a);
		st->fused++;
	}
	return 0;
}

static bool is_conv(const struct ir_node *n)
{
	return n->op == IR_OP_CONV;
}

static bool is_matmul(const struct ir_node *n)
{
	return n->op == IR_OP_MATMUL || n->op == IR_OP_GEMM;
}

static bool is_binary(const struct ir_node *n)
{
	switch (n->op) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
	case IR_OP_MAX: case IR_OP_MIN:
		return true;
	default:
		return false;
	}
}

int pass_conv_act_fusion(struct ir_graph *g, struct pass_stats *st)
{
	return fuse_act(g, st, is_conv);
}

int pass_matmul_act_fusion(struct ir_graph *g, struct pass_stats *st)
{
	return fuse_act(g, st, is_matmul);
}

int pass_eltwise_act_fusion(struct ir_graph *g, struct pass_stats *st)
{
	return fuse_act(g, st, is_binary);
}

/*
 * Conv -> Add(conv_out, r): the Add becomes the Conv's residual input; an
 * activation after it is fused later (conv-act-fusion).
 */
static bool is_conv_plain(const struct ir_node *c)
{
	return c->op == IR_OP_CONV;
}

static bool is_matmul_plain(const struct ir_node *c)
{
	return (c->op == IR_OP_MATMUL || c->op == IR_OP_GEMM) &&
	       c->outputs[0]->shape.rank >= 2 &&
	       (c->num_inputs == 2 || c->num_inputs == 3);
}

/*
 * X(..) -> Add(x_out, r): the Add becomes X's residual input (an extra
 * trailing input, with an empty bias slot if X had none); an activation
 * after it is fused later.
 */
static int fuse_residual(struct ir_graph *g, struct pass_stats *st,
			 bool (*want)(const struct ir_node *))
{
	struct ir_node **nodes;
	int i, k, n, changed;

again:
	nodes = pu_snapshot(g, &n);
	if (!nodes)
		return -ENOMEM;
	changed = 0;
	for (i = 0; i < n; i++) {
		struct ir_node *add = nodes[i], *conv = NULL;
		struct ir_tensor *res = NULL;

		if (add->dead || add->op != IR_OP_ADD || add->num_inputs != 2 ||
		    !pu_plain(add))
			continue;
		/* prefer the producer that runs last, so the other is ready */
		for (k = 1; k >= 0; k--) {
			struct ir_node *c = add->inputs[k]->producer;

			if (c && want(c) && pu_plain(c) &&
			    pu_single_use(add->inputs[k]) &&
			    add->inputs[1 - k] != add->inputs[k] &&
			    !add->inputs[1 - k]->data &&
			    ir_shape_equal(&add->inputs[1 - k]->shape,
					   &add->outputs[0]->shape) &&
			    ir_shape_equal(&add->inputs[k]->shape,
					   &add->outputs[0]->shape) &&
			    add->inputs[1 - k]->dtype == IR_F32) {
				conv = c;
				res = add->inputs[1 - k];
				break;
			}
		}
		if (!conv)
			continue;
		if (conv->num_inputs == 2)
			ir_node_add_input(conv, NULL);	/* no bias slot */
		ir_node_add_input(conv, res);
		conv->has_residual = true;
		pu_absorb(g, conv, add);
		st->fused++;
		changed = 1;
	}
	free(nodes);
	if (changed) {
		if (ir_graph_toposort(g))
			return -EINVAL;
		goto again;
	}
	return 0;
}

int pass_conv_add_fusion(struct ir_graph *g, struct pass_stats *st)
{
	return fuse_residual(g, st, is_conv_plain);
}

int pass_matmul_add_fusion(struct ir_graph *g, struct pass_stats *st)
{
	return fuse_residual(g, st, is_matmul_plain);
}

/* Is @b a bias for an output of shape @o: [N] or [1, .., 1, N]? */
static bool bias_shape_ok(const struct ir_tensor *b, const struct ir_shape *o)
{
	int i;

	if (!b->data || b->dtype != IR_F32 || b->shape.rank > o->rank ||
	    !b->shape.rank)
		return false;
	for (i = 0; i < b->shape.rank - 1; i++)
		if (b->shape.dim[i] != 1)
			return false;
	return b->shape.dim[b->shape.rank - 1] == o->dim[o->rank - 1];
}

/*
 * MatMul(x, W) + b -> MatMul(x, W, b); Gemm without C + b -> Gemm(.., b).
 * The bias must fit both the ONNX output shape (the Add's meaning) and the
 * shape the MATMUL task computes (emit_matmul_shape(): a 1-D W makes it
 * [.., M, 1], where a bias [M] does not broadcast).
 */
int pass_matmul_bias_fusion(struct ir_graph *g, struct pass_stats *st)
{
	struct ir_shape ls;
	int i, k;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *add = g->nodes[i], *mm = NULL;
		struct ir_tensor *b = NULL;

		if (add->op != IR_OP_ADD || add->num_inputs != 2 ||
		    !pu_plain(add))
			continue;
		for (k = 0; k < 2 && !mm; k++) {
			struct ir_node *m = add->inputs[k]->producer;

			if (m && (m->op == IR_OP_MATMUL ||
				  m->op == IR_OP_GEMM) && pu_plain(m) &&
			    m->num_inputs == 2 &&
			    pu_single_use(add->inputs[k]) &&
			    m->outputs[0]->shape.rank >= 2 &&
			    bias_shape_ok(add->inputs[1 - k],
					  &m->outputs[0]->shape) &&
			    !emit_matmul_shape(m, &ls) &&
			    bias_shape_ok(add->inputs[1 - k], &ls) &&
			    ir_shape_equal(&m->outputs[0]->shape,
					   &add->outputs[0]->shape)) {
				mm = m;
				b = add->inputs[1 - k];
			}
		}
		if (!mm)
			continue;
		ir_node_add_input(mm, b);
		if (mm->op == IR_OP_GEMM)
			ir_attr_set_float(mm, "beta", 1.0f);
		pu_absorb(g, mm, add);
		st->fused++;
	}
	return 0;
}

/* Same constant bytes (scale or zero point), or both absent. */
static bool same_param(const struct ir_tensor *a, const struct ir_tensor *b)
{
	if (!a || !b)
		return a == b;
	return a == b || (a->data && b->data && a->dtype == b->dtype &&
			  a->nbytes == b->nbytes &&
			  ir_shape_equal(&a->shape, &b->shape) &&
			  !memcmp(a->data, b->data, a->nbytes));
}

/*
 * QuantizeLinear(DequantizeLinear(q, s, z), s, z) is q: dequantizing and
 * requantizing with the same parameters gives back every integer exactly
 * (the f32 value lies on the grid). QDQ models have such pairs wherever
 * two quantized ops meet.
 */
int pass_qdq_cancel(struct ir_graph *g, struct pass_stats *st)
{
	int i;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *q = g->nodes[i], *dq;
		struct ir_tensor *src;

		if (q->op != IR_OP_QUANTIZE_LINEAR)
			continue;
		dq = pu_producer(q->inputs[0], IR_OP_DEQUANTIZE_LINEAR);
		if (!dq || !same_param(ir_in(q, 1), ir_in(dq, 1)) ||
		    !same_param(ir_in(q, 2), ir_in(dq, 2)) ||
		    ir_attr_int(q, "axis", 1) != ir_attr_int(dq, "axis", 1))
			continue;
		src = dq->inputs[0];
		if (src->dtype != q->outputs[0]->dtype ||
		    (q->outputs[0]->is_output && (src->is_input ||
						  src->is_output)))
			continue;
		pu_bypass(g, q, src);
		st->removed++;
		i = -1;
	}
	return 0;
}
