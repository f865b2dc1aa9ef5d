// SPDX-License-Identifier: MIT
/*
 * pass_layout.c - layout assignment NCHW -> NC1HWC0.
 *
 * The device's cube-friendly layout keeps channels in blocks of C0 (16 for
 * 2/4-byte types, 32 for 1-byte types), as Ascend's 5HD format does. Chains
 * of layout-friendly ops (Conv, pooling, BatchNorm, element-wise
 * activations, same-shape binary ops) that contain at least one Conv or
 * pooling node switch their activations to NC1HWC0; a TransData node
 * converts at each boundary (one per tensor, shared by its consumers), and
 * TransData pairs that undo each other are cancelled. Weights stay OIHW.
 * A Conv reads an image-like input (at most 4 channels) as NCHW itself.
 * A channel Concat of whole C0 blocks joins a region (a COPY per input
 * into the output's C1 blocks) instead of cutting it in two.
 * F16 activations take part with C0 = 16 like F32 ones, and so do the
 * f16 <-> f32 Casts of the precision pass (a COPY between two NC1HWC0
 * views of the same C0), so an f16 model's conversions stay in the chain.
 */
#include <stdlib.h>

#include "aipp.h"
#include "passes.h"

static bool act_4d_dt(const struct ir_tensor *t, bool int8)
{
	return t && !t->data && (t->dtype == IR_F32 || t->dtype == IR_F16 ||
				 (int8 && (t->dtype == IR_I8 ||
					   t->dtype == IR_U8))) &&
	       t->shape.rank == 4 &&
	       ir_shape_is_static(&t->shape) &&
	       (t->layout == IR_LAYOUT_ND || t->layout == IR_LAYOUT_NCHW ||
		t->layout == IR_LAYOUT_NC1HWC0);
}

static bool act_4d(const struct ir_tensor *t)
{
	return act_4d_dt(t, false);
}

/*
 * npu.QConv, npu.QAdd and an int8 MaxPool: int8 regions (C0 = 32); their
 * activations are I8/U8.
 */
static bool friendly_qconv(const struct ir_node *n)
{
	if (n->op == IR_OP_QADD)	/* elementwise, both inputs */
		return act_4d_dt(n->inputs[0], true) &&
		       act_4d_dt(n->inputs[1], true) &&
		       act_4d_dt(n->outputs[0], true) &&
		       n->inputs[0]->dtype != IR_F32 &&
		       n->inputs[1]->dtype != IR_F32 &&
		       n->outputs[0]->dtype != IR_F32;
	return act_4d_dt(n->inputs[0], true) &&
	       act_4d_dt(n->outputs[0], true) &&
	       n->inputs[0]->dtype != IR_F32 &&
	       n->outputs[0]->dtype != IR_F32;
}

/* Inputs of @n that carry activations (the rest are parameters). */
static bool is_act_input(const struct ir_node *n, int i)
{
	switch (n->op) {
	case IR_OP_CONV:
		return i == 0 || (n->has_residual && i == n->num_inputs - 1);
	case IR_OP_QCONV:
		return i == 0;
	case IR_OP_BATCH_NORM: case IR_OP_CLIP:
		return i == 0;
	default:
		return true;
	}
}

/*
 * A channel Concat of 4-D activations stays in NC1HWC0 when every input
 * but the last fills whole C0 blocks: each input is then a run of C1
 * blocks of the output (a COPY each, emit_concat()), and the last one's
 * padding channels are the output's.
 */
static bool friendly_concat(const struct ir_node *n)
{
	const struct ir_tensor *o = n->outputs[0];
	int64_t axis = ir_attr_int(n, "axis", 0);
	int i, d;

	if (n->num_outputs != 1 || !act_4d(o) || (axis != 1 && axis != -3))
		return false;
	for (i = 0; i < n->num_inputs; i++) {
		const struct ir_tensor *t = n->inputs[i];

		if (!act_4d(t) || t->dtype != o->dtype)
			return false;
		for (d = 0; d < 4; d++)
			if (d != 1 && t->shape.dim[d] != o->shape.dim[d])
				return false;
		/* f32/f16 activations (act_4d()): C0 = 16 */
		if (i < n->num_inputs - 1 && t->shape.dim[1] % 16)
			return false;
	}
	return n->num_inputs > 0;
}

static bool friendly(const struct ir_node *n)
{
	int i;

	if (n->op == IR_OP_CONCAT)
		return friendly_concat(n);

	if (n->op == IR_OP_QCONV || n->op == IR_OP_QADD ||
	    (n->op == IR_OP_MAX_POOL && n->inputs[0] &&
	     (n->inputs[0]->dtype == IR_I8 || n->inputs[0]->dtype == IR_U8)))
		return friendly_qconv(n);
	switch (n->op) {
	case IR_OP_CONV: case IR_OP_MAX_POOL: case IR_OP_AVERAGE_POOL:
	case IR_OP_GLOBAL_AVERAGE_POOL: case IR_OP_GLOBAL_MAX_POOL:
	case IR_OP_BATCH_NORM:
	case IR_OP_RELU: case IR_OP_SIGMOID: case IR_OP_TANH: case IR_OP_CLIP:
	case IR_OP_LEAKY_RELU: case IR_OP_HARD_SWISH: case IR_OP_HARD_SIGMOID:
	case IR_OP_ACTIVATION: case IR_OP_GELU:
	case IR_OP_ADD: case IR_OP_MUL: case IR_OP_SUB: case IR_OP_MAX:
	case IR_OP_MIN:
	case IR_OP_CAST:	/* f16 <-> f32 only: act_4d() below */
		break;
	default:
		return false;
	}
	if (n->num_outputs < 1 || !act_4d(n->outputs[0]))
		return false;
	for (i = 1; i < n->num_outputs; i++)
		if (n->outputs[i] && (n->outputs[i]->num_uses ||
				      n->outputs[i]->is_output))
			return false;
	for (i = 0; i < n->num_inputs; i++) {
		const struct ir_tensor *t = n->inputs[i];

		if (!t || !is_act_input(n, i))
			continue;
		/* Clip bounds and similar scalars are parameters */
		if (n->op == IR_OP_CLIP && i > 0)
			continue;
		if (!act_4d(t) ||
		    !ir_shape_equal(&t->shape, &n->outputs[0]->shape))
			if (n->op != IR_OP_CONV && !(n->op >= IR_OP_MAX_POOL &&
						     n->op <= IR_OP_GLOBAL_MAX_POOL))
				return false;
		if (!act_4d(t))
			return false;
	}
	return true;
}

static bool anchor(const struct ir_node *n)
{
	return n->op == IR_OP_CONV || n->op == IR_OP_QCONV ||
	       n->op == IR_OP_MAX_POOL ||
	       n->op == IR_OP_AVERAGE_POOL ||
	       n->op == IR_OP_GLOBAL_AVERAGE_POOL ||
	       n->op == IR_OP_GLOBAL_MAX_POOL;
}

/*
 * A float Conv reads an input of at most NCHW_CONV_MAX_C channels (an
 * image: gray, RGB, RGBA) as NCHW, with its output in NC1HWC0: a
 * TransData would pad 3 channels to 16 (5.3 times the bytes, written
 * and read again) for the same sums; the device's convolution takes
 * each operand in its own layout (the channels are the same taps in the
 * same order, so the same bits).
 */
#define NCHW_CONV_MAX_C	4

static bool conv_reads_nchw(const struct ir_node *c, int j,
			    const struct ir_tensor *t)
{
	return c->op == IR_OP_CONV && j == 0 &&
	       (t->dtype == IR_F32 || t->dtype == IR_F16) &&
	       t->shape.rank == 4 && t->shape.dim[1] >= 1 &&
	       t->shape.dim[1] <= NCHW_CONV_MAX_C &&
	       ir_attr_int(c, "group", 1) == 1;
}

/* Union-find over node indices (priv holds the index + 1). */
static int uf_find(int *p, int i)
{
	while (p[i] != i)
		i = p[i] = p[p[i]];
	return i;
}

static struct ir_node *transdata(struct ir_graph *g, struct ir_tensor *in,
				 enum ir_layout to)
{
	struct ir_tensor *out = ir_tensor_new(g, NULL, in->dtype, &in->shape);
	char name[300];

	if (!out)
		return NULL;
	out->layout = to;
	/* the same value in another layout */
	if (in->origin && ir_tensor_set_origin(out, in->origin))
		return NULL;
	snprintf(name, sizeof(name), "%.250s/transdata_%s", in->name,
		 to == IR_LAYOUT_NC1HWC0 ? "5hd" : "nchw");
	return ir_node_new(g, IR_OP_TRANSDATA, name, 1, &in, 1, &out);
}

/* TransData(b->a)(TransData(a->b)(x)) reads x. */
static int cancel_pairs(struct ir_graph *g, struct pass_stats *st)
{
	int i;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i], *p;
		struct ir_tensor *x;

		if (n->op != IR_OP_TRANSDATA)
			continue;
		p = pu_producer(n->inputs[0], IR_OP_TRANSDATA);
		if (!p)
			continue;
		x = p->inputs[0];
		if ((x->layout == IR_LAYOUT_NC1HWC0) !=
		    (n->outputs[0]->layout == IR_LAYOUT_NC1HWC0) ||
		    (n->outputs[0]->is_output && (x->is_input || x->is_output)))
			continue;
		pu_bypass(g, n, x);
		st->removed++;
		pu_sweep(g);
		i = -1;
	}
	return 0;
}

int pass_layout_nc1hwc0(struct ir_graph *g, struct pass_stats *st)
{
	int n = g->num_nodes, i, j, k, *parent, *has_anchor;
	bool *conv;
	int ret = 0;

	parent = calloc((size_t)n + 1, sizeof(*parent));
	has_anchor = calloc((size_t)n + 1, sizeof(*has_anchor));
	conv = calloc((size_t)n + 1, sizeof(*conv));
	if (!parent || !has_anchor || !conv) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		parent[i] = i;
		g->nodes[i]->priv = (void *)(intptr_t)(i + 1);
		conv[i] = friendly(g->nodes[i]);
	}
	/* regions: friendly producer -> friendly consumer edges */
	for (i = 0; i < n; i++) {
		struct ir_node *c = g->nodes[i];

		if (!conv[i])
			continue;
		for (j = 0; j < c->num_inputs; j++) {
			struct ir_node *p;
			int pi;

			if (!c->inputs[j] || !is_act_input(c, j))
				continue;
			p = c->inputs[j]->producer;
			pi = p ? (int)(intptr_t)p->priv - 1 : -1;
			if (pi >= 0 && conv[pi])
				parent[uf_find(parent, i)] =
					uf_find(parent, pi);
		}
	}
	for (i = 0; i < n; i++)
		if (conv[i] && anchor(g->nodes[i]))
			has_anchor[uf_find(parent, i)] = 1;
	for (i = 0; i < n; i++)
		conv[i] = conv[i] && has_anchor[uf_find(parent, i)];
	/* switch the regions' outputs to NC1HWC0 */
	for (i = 0; i < n; i++)
		if (conv[i] && g->nodes[i]->outputs[0]->layout !=
		    IR_LAYOUT_NC1HWC0) {
			g->nodes[i]->outputs[0]->layout = IR_LAYOUT_NC1HWC0;
			st->rewritten++;
		}
	/* boundaries: inputs from outside the region */
	for (i = 0; i < n; i++) {
		struct ir_node *c = g->nodes[i];

		if (!conv[i])
			continue;
		for (j = 0; j < c->num_inputs; j++) {
			struct ir_tensor *t = c->inputs[j];
			struct ir_node *td = NULL;

			if (!t || t->data || !is_act_input(c, j) ||
			    t->layout == IR_LAYOUT_NC1HWC0 ||
			    conv_reads_nchw(c, j, t))
				continue;
			/* one TransData per tensor */
			for (k = 0; k < t->num_uses; k++)
				if (t->uses[k].node->op == IR_OP_TRANSDATA &&
				    t->uses[k].node->outputs[0]->layout ==
				    IR_LAYOUT_NC1HWC0)
					td = t->uses[k].node;
			if (!td) {
				td = transdata(g, t, IR_LAYOUT_NC1HWC0);
				if (!td) {
					ret = -ENOMEM;
					goto out;
				}
				st->rewritten++;
			}
			ir_node_set_input(c, j, td->outputs[0]);
		}
	}
	/* boundaries: outputs read outside the region or by the user */
	for (i = 0; i < n; i++) {
		struct ir_node *c = g->nodes[i];
		struct ir_tensor *t = c->outputs[0], *back = NULL;

		if (!conv[i])
			continue;
		for (k = 0; k < t->num_uses; k++) {
			struct ir_node *u = t->uses[k].node;
			int ui = u->priv ? (int)(intptr_t)u->priv - 1 : -1;

			if ((ui >= 0 && conv[ui]) || u->op == IR_OP_TRANSDATA)
				continue;
			if (!back) {
				struct ir_node *td;

				td = transdata(g, t, IR_LAYOUT_NCHW);
				if (!td) {
					ret = -ENOMEM;
					goto out;
				}
				back = td->outputs[0];
				st->rewritten++;
			}
			ir_node_set_input(u, t->uses[k].index, back);
			k--;
		}
		if (t->is_output) {
			struct ir_node *td = transdata(g, t, IR_LAYOUT_NCHW);

			if (!td) {
				ret = -ENOMEM;
				goto out;
			}
			ir_graph_replace_output(g, t, td->outputs[0]);
			st->rewritten++;
		}
	}
	for (i = 0; i < g->num_nodes; i++)
		g->nodes[i]->priv = NULL;
	ret = ir_graph_toposort(g);
	if (!ret)
		ret = cancel_pairs(g, st);
	if (!ret) {
		/* AIPP writes the first convolution's 5HD input itself */
		int f = aipp_fold_transdata(g);

		st->rewritten += f;
		if (f)
			ret = ir_graph_toposort(g);
	}
out:
	for (i = 0; i < g->num_nodes; i++)
		g->nodes[i]->priv = NULL;
	free(parent);
	free(has_anchor);
	free(conv);
	return ret;
}
