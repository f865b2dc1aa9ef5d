// SPDX-License-Identifier: MIT
/*
 * graph_hash.c - a graph's canonical form into a cache key: the ops,
 * attributes (subgraphs included), shapes, types, constants' bytes and the
 * wiring by position (see cache.h).
 */
#include <stdint.h>

#include "cache/cache.h"
#include "ir/ir.h"

static void hash_shape(struct cache_hasher *h, const struct ir_shape *s)
{
	cache_hash_u64(h, (uint64_t)s->rank);
	for (int i = 0; i < s->rank; i++)
		cache_hash_u64(h, (uint64_t)s->dim[i]);
}

/* A tensor by its number in the walk; its contents where it first shows. */
static void hash_tensor(struct cache_hasher *h, struct ir_tensor *t,
			int *next, bool names)
{
	if (!t) {
		cache_hash_u64(h, UINT64_MAX);
		return;
	}
	if (!t->priv) {
		t->priv = (void *)(intptr_t)++*next;
		cache_hash_u64(h, (uint64_t)t->dtype);
		cache_hash_u64(h, (uint64_t)t->layout);
		cache_hash_u64(h, (uint64_t)t->w_olast);
		cache_hash_u64(h, (uint64_t)t->int4);
		hash_shape(h, &t->shape);
		cache_hash_u64(h, t->nbytes);
		if (t->data) {
			uint64_t dg[2];

			ir_tensor_digest(t, dg);	/* the bytes, once */
			cache_hash_bytes(h, dg, sizeof(dg));
		}
		if (names)
			cache_hash_str(h, t->name);
	}
	cache_hash_u64(h, (uint64_t)(intptr_t)t->priv);
}

void cache_hash_attr(struct cache_hasher *h, const struct ir_attr *a,
		     int *next, bool names)
{
	cache_hash_str(h, a->name);
	cache_hash_u64(h, (uint64_t)a->type);
	cache_hash_u64(h, (uint64_t)a->i);
	cache_hash_bytes(h, &a->f, sizeof(a->f));
	cache_hash_str(h, a->s);
	cache_hash_u64(h, (uint64_t)a->n);
	if (a->ints)
		cache_hash_bytes(h, a->ints, (size_t)a->n * sizeof(*a->ints));
	if (a->floats)
		cache_hash_bytes(h, a->floats,
				 (size_t)a->n * sizeof(*a->floats));
	if (a->t)
		hash_tensor(h, a->t, next, names);
	/* a body (If, Loop, Scan) is part of what the node computes */
	cache_hash_u64(h, a->graph != NULL);
	if (a->graph)
		cache_hash_graph(h, a->graph, names);
}

void cache_hash_node_op(struct cache_hasher *h, const struct ir_node *n)
{
	cache_hash_u64(h, (uint64_t)n->op);
	cache_hash_u64(h, (uint64_t)n->opset);
	cache_hash_u64(h, (uint64_t)n->act.kind);
	cache_hash_bytes(h, &n->act.alpha, sizeof(n->act.alpha));
	cache_hash_bytes(h, &n->act.beta, sizeof(n->act.beta));
	cache_hash_u64(h, n->has_residual);
}

void cache_hash_node(struct cache_hasher *h, const struct ir_node *n,
		     int *next, bool names)
{
	if (names)
		cache_hash_str(h, n->name ? n->name : "");
	cache_hash_node_op(h, n);
	cache_hash_u64(h, (uint64_t)n->num_inputs);
	for (int k = 0; k < n->num_inputs; k++)
		hash_tensor(h, n->inputs[k], next, names);
	cache_hash_u64(h, (uint64_t)n->num_attrs);
	for (int k = 0; k < n->num_attrs; k++)
		cache_hash_attr(h, &n->attrs[k], next, names);
	cache_hash_u64(h, (uint64_t)n->num_outputs);
	for (int k = 0; k < n->num_outputs; k++)
		hash_tensor(h, n->outputs[k], next, names);
}

/*
 * With @names, names are part of the key: the .om's provenance (each
 * task's ONNX nodes and tensors, om-format.rst) records them, so a model
 * renamed must not get a cached file that names the other model's nodes;
 * the inputs' and outputs' names are also the model's interface.
 */
void cache_hash_graph(struct cache_hasher *h, struct ir_graph *g, bool names)
{
	int next = 0;

	for (int i = 0; i < g->num_tensors; i++)
		g->tensors[i]->priv = NULL;
	cache_hash_u64(h, (uint64_t)g->num_inputs);
	for (int i = 0; i < g->num_inputs; i++) {
		hash_tensor(h, g->inputs[i], &next, names);
		if (names)
			cache_hash_str(h, g->inputs[i] ? g->inputs[i]->name :
				       "");
	}
	if (names) {
		for (int i = 0; i < g->num_outputs; i++)
			cache_hash_str(h, g->outputs[i] ? g->outputs[i]->name :
				       "");
		for (int i = 0; i < g->num_syms; i++)
			cache_hash_str(h, g->syms[i]);	/* named dims */
	}
	/* a body's values from the scopes around it, by position */
	cache_hash_u64(h, (uint64_t)g->num_captures);
	for (int i = 0; i < g->num_captures; i++)
		hash_tensor(h, g->captures[i], &next, names);
	for (int i = 0; i < g->num_nodes; i++)
		cache_hash_node(h, g->nodes[i], &next, names);
	cache_hash_u64(h, (uint64_t)g->num_outputs);
	for (int i = 0; i < g->num_outputs; i++)
		hash_tensor(h, g->outputs[i], &next, names);
	for (int i = 0; i < g->num_tensors; i++)
		g->tensors[i]->priv = NULL;
}
