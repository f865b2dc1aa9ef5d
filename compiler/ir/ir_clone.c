// SPDX-License-Identifier: MIT
/*
 * ir_clone.c - deep copy of a graph.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

static int ir_clone_attrs(struct ir_node *dst, const struct ir_node *src,
			  struct ir_tensor **tmap)
{
	int i, err = 0;

	for (i = 0; i < src->num_attrs && !err; i++) {
		const struct ir_attr *a = &src->attrs[i];

		err = ir_attr_copy(dst, a, a->type == IR_ATTR_TENSOR && a->t ?
				   tmap[(intptr_t)a->t->priv] : NULL);
	}
	return err;
}

struct ir_graph *ir_graph_clone(const struct ir_graph *g)
{
	struct ir_graph *c = ir_graph_new(g->name);
	struct ir_tensor **tmap = NULL;
	int i, j;

	if (!c)
		return NULL;
	c->opset = g->opset;
	c->precision = g->precision;
	c->derive = g->derive;
	if (g->keep_dtype) {
		c->keep_dtype = strdup(g->keep_dtype);
		if (!c->keep_dtype)
			goto fail;
	}
	tmap = calloc(g->num_tensors + 1, sizeof(*tmap));
	if (!tmap)
		goto fail;
	for (i = 0; i < g->num_syms; i++)
		if (ir_sym_intern(c, g->syms[i]) < 0)
			goto fail;
	for (i = 0; i < g->num_tensors; i++) {
		const struct ir_tensor *t = g->tensors[i];
		struct ir_tensor *n;

		n = ir_tensor_new(c, t->name, t->dtype, &t->shape);
		if (!n)
			goto fail;
		n->shape_known = t->shape_known;
		n->layout = t->layout;
		n->w_olast = t->w_olast;
		n->int4 = t->int4;
		if (t->origin && ir_tensor_set_origin(n, t->origin))
			goto fail;
		if (t->data && ir_tensor_set_data(n, t->data, t->nbytes))
			goto fail;
		tmap[i] = n;
		g->tensors[i]->priv = (void *)(intptr_t)i;
	}
	for (i = 0; i < g->num_nodes; i++) {
		const struct ir_node *s = g->nodes[i];
		struct ir_node *n;

		n = ir_node_new(c, s->op, s->name, s->num_inputs, NULL,
				s->num_outputs, NULL);
		if (!n)
			goto fail;
		n->opset = s->opset;
		n->act = s->act;
		n->has_residual = s->has_residual;
		if (ir_node_add_origins(n, s))
			goto fail;
		for (j = 0; j < s->num_inputs; j++)
			if (s->inputs[j] &&
			    ir_node_set_input(n, j,
					tmap[(intptr_t)s->inputs[j]->priv]))
				goto fail;
		for (j = 0; j < s->num_outputs; j++)
			if (s->outputs[j])
				ir_node_set_output(n, j,
					tmap[(intptr_t)s->outputs[j]->priv]);
		if (ir_clone_attrs(n, s, tmap))
			goto fail;
	}
	for (i = 0; i < g->num_inputs; i++)
		if (ir_graph_add_input(c, tmap[(intptr_t)g->inputs[i]->priv]))
			goto fail;
	for (i = 0; i < g->num_outputs; i++)
		if (ir_graph_add_output(c,
				tmap[(intptr_t)g->outputs[i]->priv]))
			goto fail;
	if (g->num_captures) {
		c->captures = calloc((size_t)g->num_captures,
				     sizeof(*c->captures));
		if (!c->captures)
			goto fail;
		for (i = 0; i < g->num_captures; i++)
			c->captures[i] = tmap[(intptr_t)g->captures[i]->priv];
		c->num_captures = g->num_captures;
	}
	c->capture_base = g->capture_base;
	c->unrolled = g->unrolled;
	for (i = 0; i < g->num_tensors; i++)
		g->tensors[i]->priv = NULL;
	free(tmap);
	return c;
fail:
	for (i = 0; i < g->num_tensors; i++)
		g->tensors[i]->priv = NULL;
	free(tmap);
	ir_graph_free(c);
	return NULL;
}
