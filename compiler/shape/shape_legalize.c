// SPDX-License-Identifier: MIT
/*
 * shape_legalize.c - rewrite ONNX forms the device cannot run as they are
 * into equivalent IR, before a node's shape is inferred:
 *
 *  - LayerNormalization whose Mean/InvStdDev outputs are read: those come
 *    from ReduceMean / Sub / Mul / ReduceMean / Add / Sqrt / Reciprocal;
 *  - Pow with an exponent of another dtype than the base: the exponent is
 *    cast (a constant exponent is converted in place);
 *  - Dropout whose mask is read: in inference the mask is all true, a
 *    constant; training mode is refused;
 *  - Max/Min with a single input: the identity.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"

static bool used(const struct ir_tensor *t)
{
	return t && (t->num_uses || t->is_output);
}

static struct ir_tensor *node1(struct ir_graph *g, enum ir_op op,
			       const char *base, const char *suffix, int nin,
			       struct ir_tensor **ins, struct ir_tensor *out)
{
	char name[300];

	snprintf(name, sizeof(name), "%.250s/%s", base, suffix);
	if (!out)
		out = ir_tensor_new(g, NULL, ins[0]->dtype, NULL);
	if (!out || !ir_node_new(g, op, name, nin, ins, 1, &out))
		return NULL;
	return out;
}

static int legalize_layernorm(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *mean = NULL, *inv = NULL;
	struct ir_tensor *d, *t, *ins[2];
	int64_t axis = ir_attr_int(n, "axis", -1), axes[IR_MAX_RANK];
	float eps = ir_attr_float(n, "epsilon", 1e-5f);
	int r = x->shape.rank, i, na = 0;
	struct ir_node *rm;

	if (n->num_outputs > 1)
		mean = n->outputs[1];
	if (n->num_outputs > 2)
		inv = n->outputs[2];
	if (!used(mean) && !used(inv))
		return 0;
	if (axis < 0)
		axis += r;
	if (axis < 0 || axis >= r)
		return ir_error(g, "node '%s' (LayerNormalization): axis out of "
				"range for rank %d", n->name, r);
	if (x->dtype != IR_F32)
		return ir_error(g, "node '%s' (LayerNormalization): only f32 "
				"is supported", n->name);
	for (i = (int)axis; i < r; i++)
		axes[na++] = i;
	/* detach the extra outputs; new nodes produce them */
	for (i = 1; i < n->num_outputs; i++)
		ir_node_set_output(n, i, NULL);
	n->num_outputs = 1;
	if (!mean || !used(mean))
		mean = NULL;
	t = node1(g, IR_OP_REDUCE_MEAN, n->name, "mean", 1, &x, mean);
	if (!t)
		return -ENOMEM;
	rm = t->producer;
	ir_attr_set_ints(rm, "axes", axes, na);
	ir_attr_set_int(rm, "keepdims", 1);
	mean = t;
	if (!used(inv))
		return 1;
	ins[0] = x;
	ins[1] = mean;
	d = node1(g, IR_OP_SUB, n->name, "centered", 2, ins, NULL);
	ins[0] = d;
	ins[1] = d;
	t = d ? node1(g, IR_OP_MUL, n->name, "squared", 2, ins, NULL) : NULL;
	t = t ? node1(g, IR_OP_REDUCE_MEAN, n->name, "var", 1, &t, NULL) : NULL;
	if (!t)
		return -ENOMEM;
	ir_attr_set_ints(t->producer, "axes", axes, na);
	ir_attr_set_int(t->producer, "keepdims", 1);
	ins[0] = t;
	ins[1] = ir_const_scalar_f32(g, NULL, eps);
	t = ins[1] ? node1(g, IR_OP_ADD, n->name, "var_eps", 2, ins, NULL)
		   : NULL;
	t = t ? node1(g, IR_OP_SQRT, n->name, "stddev", 1, &t, NULL) : NULL;
	t = t ? node1(g, IR_OP_RECIPROCAL, n->name, "inv_stddev", 1, &t, inv)
	      : NULL;
	return t ? 1 : -ENOMEM;
}

static int legalize_pow(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *b = n->inputs[0], *e = n->inputs[1], *c;
	int64_t i, cnt;

	if (!e || e->dtype == b->dtype)
		return 0;
	if (b->dtype != IR_F32 && b->dtype != IR_I32 && b->dtype != IR_I64)
		return ir_error(g, "node '%s' (Pow): base dtype %s is not "
				"supported", n->name, ir_dtype_name(b->dtype));
	cnt = ir_tensor_numel(e);
	if (e->data && cnt >= 0) {
		size_t es = ir_dtype_size(b->dtype);
		char *buf = malloc((size_t)cnt * es + 1);

		if (!buf)
			return -ENOMEM;
		for (i = 0; i < cnt; i++) {
			double v = ir_const_get_f(e, i);

			if (b->dtype == IR_F32)
				((float *)buf)[i] = (float)v;
			else if (b->dtype == IR_I32)
				((int32_t *)buf)[i] = (int32_t)v;
			else
				((int64_t *)buf)[i] = (int64_t)v;
		}
		c = ir_const_new(g, NULL, b->dtype, &e->shape, buf,
				 (size_t)cnt * es);
		free(buf);
	} else {
		c = node1(g, IR_OP_CAST, n->name, "exponent_cast", 1, &e,
			  ir_tensor_new(g, NULL, b->dtype, NULL));
		if (c) {
			int64_t to = b->dtype == IR_F32 ? 1 :
				     b->dtype == IR_I32 ? 6 : 7;

			ir_attr_set_int(c->producer, "to", to);
		}
	}
	if (!c)
		return -ENOMEM;
	ir_node_set_input(n, 1, c);
	return 1;
}

static int legalize_dropout(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *tm = ir_in(n, 2), *mask, *ones;
	int64_t cnt;
	void *buf;

	if (tm && (!tm->data || ir_const_get_i(tm, 0)))
		return ir_error(g, "node '%s' (Dropout): training mode is not "
				"supported (export the model in eval mode)",
				n->name);
	if (n->opset < 7 && ir_attr_int(n, "is_test", 0) == 0 &&
	    n->opset < 6)
		return ir_error(g, "node '%s' (Dropout, opset %d): training "
				"mode (is_test=0) is not supported", n->name,
				n->opset);
	mask = n->num_outputs > 1 ? n->outputs[1] : NULL;
	if (!used(mask))
		return 0;
	cnt = ir_shape_numel(&n->inputs[0]->shape);
	if (cnt < 0)
		return ir_error(g, "node '%s' (Dropout): a used mask needs a "
				"static shape", n->name);
	buf = malloc((size_t)cnt + 1);
	if (!buf)
		return -ENOMEM;
	memset(buf, 1, (size_t)cnt);	/* inference: every element kept */
	ones = ir_const_new(g, NULL, IR_BOOL, &n->inputs[0]->shape, buf,
			    (size_t)cnt);
	free(buf);
	if (!ones)
		return -ENOMEM;
	ir_replace_uses(g, mask, ones);
	return 1;
}

static int legalize_single(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out = n->outputs[0];

	if (n->num_inputs != 1)
		return 0;
	/* one operand: the identity */
	n->op = IR_OP_IDENTITY;
	(void)x;
	(void)out;
	(void)g;
	return 1;
}

/* 0: nothing to do, 1: the graph changed (re-sort, restart), < 0: error */
int shape_legalize_node(struct ir_graph *g, struct ir_node *n)
{
	switch (n->op) {
	case IR_OP_LAYER_NORM: return legalize_layernorm(g, n);
	case IR_OP_POW: return n->num_inputs == 2 ? legalize_pow(g, n) : 0;
	case IR_OP_DROPOUT: return legalize_dropout(g, n);
	case IR_OP_MAX: case IR_OP_MIN: return legalize_single(g, n);
	default: return 0;
	}
}
