// SPDX-License-Identifier: MIT
/*
 * pass_simplify.c - identity/no-op removal, dead-code elimination, common
 * subexpressions, reshape and transpose simplification.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "passes.h"

/* --- identity-elim -------------------------------------------------------- */

/* Would bypassing @n lose a distinct graph input/output? */
static bool bypass_ok(const struct ir_node *n, const struct ir_tensor *in)
{
	const struct ir_tensor *out = n->outputs[0];

	if (!out || !in)
		return false;
	if (out->is_output && (in->is_input || in->is_output))
		return false;
	if (out->dtype != in->dtype || !ir_shape_equal(&out->shape, &in->shape)
	    || out->layout != in->layout)
		return false;
	for (int i = 1; i < n->num_outputs; i++)
		if (n->outputs[i] && (n->outputs[i]->num_uses ||
				      n->outputs[i]->is_output))
			return false;
	return true;
}

/* The input @n passes through unchanged, or NULL. */
static struct ir_tensor *noop_source(const struct ir_node *n)
{
	struct ir_tensor *x = ir_in(n, 0), *y;
	const int64_t *perm;
	double v;
	int np, i, k;

	if (n->act.kind != IR_ACT_NONE || n->has_residual)
		return NULL;
	switch (n->op) {
	case IR_OP_IDENTITY:
	case IR_OP_DROPOUT:	/* inference: dropout is the identity */
		return x;
	case IR_OP_CAST: case IR_OP_RESHAPE: case IR_OP_FLATTEN:
	case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE: case IR_OP_EXPAND:
	case IR_OP_SLICE: case IR_OP_PAD: case IR_OP_CONCAT:
		/* equal shape and dtype in and out means nothing happens */
		if (n->op == IR_OP_CONCAT && n->num_inputs != 1)
			return NULL;
		if (n->op == IR_OP_SLICE) {
			const int64_t *b, *s;
			int r = ir_attr_ints(n, "npu_begin", &b);

			if (ir_attr_ints(n, "npu_step", &s) != r)
				return NULL;
			for (i = 0; i < r; i++)
				if (b[i] || s[i] != 1)
					return NULL;
		}
		return x;
	case IR_OP_TRANSPOSE:
		np = ir_attr_ints(n, "perm", &perm);
		for (i = 0; i < np; i++)
			if (perm[i] != i)
				return NULL;
		return np ? x : NULL;
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
		/* x + 0, x - 0, x * 1, x / 1 (the constant on the right) */
		for (k = 0; k < 2; k++) {
			x = ir_in(n, k);
			y = ir_in(n, 1 - k);
			if (!pu_const_uniform(y, &v))
				continue;
			if (k == 0 && (n->op == IR_OP_ADD || n->op == IR_OP_SUB)
			    && v == 0)
				return x;
			if (k == 1 && n->op == IR_OP_ADD && v == 0)
				return x;
			if (k == 0 && (n->op == IR_OP_MUL || n->op == IR_OP_DIV)
			    && v == 1)
				return x;
			if (k == 1 && n->op == IR_OP_MUL && v == 1)
				return x;
		}
		return NULL;
	default:
		return NULL;
	}
}

int pass_identity_elim(struct ir_graph *g, struct pass_stats *st)
{
	int i;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];
		struct ir_tensor *src = noop_source(n);

		if (!src || !bypass_ok(n, src))
			continue;
		pu_bypass(g, n, src);
		st->removed++;
		i--;
	}
	return 0;
}

/* --- dce ------------------------------------------------------------------ */

static bool node_live(const struct ir_node *n)
{
	int i;

	for (i = 0; i < n->num_outputs; i++)
		if (n->outputs[i] && (n->outputs[i]->num_uses ||
				      n->outputs[i]->is_output))
			return true;
	return false;
}

int pass_dce(struct ir_graph *g, struct pass_stats *st)
{
	int i;

	for (i = g->num_nodes - 1; i >= 0; i--) {
		if (node_live(g->nodes[i]))
			continue;
		ir_node_remove(g, g->nodes[i]);
		st->removed++;
	}
	ir_graph_gc(g);
	return 0;
}

/* --- cse ------------------------------------------------------------------ */

static bool attr_equal(const struct ir_attr *a, const struct ir_attr *b)
{
	if (a->type != b->type || strcmp(a->name, b->name))
		return false;
	switch (a->type) {
	case IR_ATTR_INT: return a->i == b->i;
	case IR_ATTR_FLOAT: return !memcmp(&a->f, &b->f, sizeof(a->f));
	case IR_ATTR_STRING: return !strcmp(a->s ? a->s : "", b->s ? b->s : "");
	case IR_ATTR_INTS:
		return a->n == b->n && !memcmp(a->ints, b->ints,
					       (size_t)a->n * sizeof(*a->ints));
	case IR_ATTR_FLOATS:
		return a->n == b->n &&
		       !memcmp(a->floats, b->floats,
			       (size_t)a->n * sizeof(*a->floats));
	case IR_ATTR_TENSOR: return a->t == b->t;
	case IR_ATTR_GRAPH: return a->graph == b->graph;	/* never shared */
	}
	return false;
}

static bool nodes_equal(const struct ir_node *a, const struct ir_node *b)
{
	int i;

	if (ir_node_is_random(a) || a->op != b->op ||
	    a->num_inputs != b->num_inputs ||
	    a->num_outputs != b->num_outputs || a->num_attrs != b->num_attrs ||
	    a->has_residual != b->has_residual ||
	    memcmp(&a->act, &b->act, sizeof(a->act)))
		return false;
	for (i = 0; i < a->num_inputs; i++)
		if (a->inputs[i] != b->inputs[i])
			return false;
	for (i = 0; i < a->num_attrs; i++) {
		const struct ir_attr *o = ir_attr_find(b, a->attrs[i].name);

		if (!o || !attr_equal(&a->attrs[i], o))
			return false;
	}
	return true;
}

static bool consts_equal(const struct ir_tensor *a, const struct ir_tensor *b)
{
	return a->dtype == b->dtype && ir_shape_equal(&a->shape, &b->shape) &&
	       a->nbytes == b->nbytes && a->layout == b->layout &&
	       !memcmp(a->data, b->data, a->nbytes);
}

/*
 * CSE keys: a 64-bit hash of what nodes_equal() / consts_equal() compare,
 * so each node or constant is compared only with the earlier ones of the
 * same key (a chained table), not with every earlier one.
 */
static uint64_t cse_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/*
 * Eight bytes a step (a multiply-xorshift mix), then FNV-1a over the tail:
 * the hash only picks candidates, consts_equal() and nodes_equal() decide,
 * so it needs to spread, not to be any particular function. Byte-wise
 * FNV-1a over every weight was a fifth of resnet50's compile time, eight
 * bytes a step still 6% (a chain of dependent multiplies): a constant of
 * 256 bytes or more goes through XXH3 (libxxhash), at memory speed.
 */
static uint64_t cse_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t f = 0xcbf29ce484222325ull ^ n;

	if (n >= 256)
		return cse_mix(h, XXH3_64bits(p, n));

	for (; n >= 8; n -= 8, b += 8) {
		uint64_t w;

		memcpy(&w, b, sizeof(w));
		f = (f ^ w) * 0x9e3779b97f4a7c15ull;
		f ^= f >> 29;
	}
	while (n--) {
		f ^= *b++;
		f *= 0x100000001b3ull;
	}
	return cse_mix(h, f);
}

static uint64_t cse_attr_hash(const struct ir_attr *a)
{
	uint64_t h = cse_bytes(a->type, a->name, strlen(a->name));

	switch (a->type) {
	case IR_ATTR_INT: return cse_mix(h, (uint64_t)a->i);
	case IR_ATTR_FLOAT: return cse_bytes(h, &a->f, sizeof(a->f));
	case IR_ATTR_STRING:
		return a->s ? cse_bytes(h, a->s, strlen(a->s)) : h;
	case IR_ATTR_INTS:
		return cse_bytes(h, a->ints, (size_t)a->n * sizeof(*a->ints));
	case IR_ATTR_FLOATS:
		return cse_bytes(h, a->floats,
				 (size_t)a->n * sizeof(*a->floats));
	case IR_ATTR_TENSOR: return cse_mix(h, (uintptr_t)a->t);
	case IR_ATTR_GRAPH: return cse_mix(h, (uintptr_t)a->graph);
	}
	return h;
}

static uint64_t cse_node_hash(const struct ir_node *n)
{
	uint64_t h = cse_mix(n->op, (uint64_t)n->num_inputs << 32 |
			     (uint32_t)n->num_outputs);
	uint64_t attrs = 0;
	int i;

	h = cse_mix(h, (uint64_t)n->has_residual << 32 | n->act.kind);
	h = cse_bytes(h, &n->act.alpha, sizeof(n->act.alpha));
	h = cse_bytes(h, &n->act.beta, sizeof(n->act.beta));
	for (i = 0; i < n->num_inputs; i++)
		h = cse_mix(h, (uintptr_t)n->inputs[i]);
	/* attributes in any order: nodes_equal() looks them up by name */
	for (i = 0; i < n->num_attrs; i++)
		attrs += cse_attr_hash(&n->attrs[i]);
	return cse_mix(h, attrs);
}

static uint64_t cse_const_hash(const struct ir_tensor *t)
{
	uint64_t h = cse_mix(t->dtype, (uint64_t)t->layout << 32 |
			     (uint32_t)t->shape.rank);

	h = cse_bytes(h, t->shape.dim,
		      (size_t)t->shape.rank * sizeof(t->shape.dim[0]));
	if (t->nbytes >= 256 && t->data) {	/* a weight: hashed once */
		uint64_t dg[2];

		ir_tensor_digest(t, dg);
		return cse_bytes(h, dg, sizeof(dg));
	}
	return cse_bytes(h, t->data, t->nbytes);
}

/* A chained hash table of items (nodes or tensors) by 64-bit key. */
struct cse_table {
	size_t mask;
	int *head;		/* per bucket: first entry, -1 if none */
	int *next;		/* per entry */
	uint64_t *key;
	void **item;
	int n;
};

static int cse_table_init(struct cse_table *t, int max_items)
{
	size_t buckets = 16;

	while (buckets < 2 * (size_t)max_items)
		buckets *= 2;
	memset(t, 0, sizeof(*t));
	t->mask = buckets - 1;
	t->head = malloc(buckets * sizeof(*t->head));
	t->next = malloc(((size_t)max_items + 1) * sizeof(*t->next));
	t->key = malloc(((size_t)max_items + 1) * sizeof(*t->key));
	t->item = malloc(((size_t)max_items + 1) * sizeof(*t->item));
	if (!t->head || !t->next || !t->key || !t->item)
		return -ENOMEM;
	memset(t->head, 0xff, buckets * sizeof(*t->head));
	return 0;
}

static void cse_table_free(struct cse_table *t)
{
	free(t->head);
	free(t->next);
	free(t->key);
	free(t->item);
}

/* Appends: a chain lists its items in insertion order. */
static void cse_table_add(struct cse_table *t, uint64_t key, void *item)
{
	int *p = &t->head[key & t->mask];

	while (*p >= 0)
		p = &t->next[*p];
	t->key[t->n] = key;
	t->item[t->n] = item;
	t->next[t->n] = -1;
	*p = t->n++;
}

/* Merge constants with equal bytes (torch exports duplicate weights). */
static int cse_consts(struct ir_graph *g, struct pass_stats *st)
{
	struct cse_table tab;
	int i, e;

	if (cse_table_init(&tab, g->num_tensors)) {
		cse_table_free(&tab);
		return -ENOMEM;
	}
	for (i = 0; i < g->num_tensors; i++) {
		struct ir_tensor *a = g->tensors[i];
		uint64_t key;

		if (!a->data || !a->num_uses || a->is_output)
			continue;
		key = cse_const_hash(a);
		for (e = tab.head[key & tab.mask]; e >= 0; e = tab.next[e]) {
			struct ir_tensor *b = tab.item[e];

			/* b was eligible when added; uses only grow */
			if (tab.key[e] != key || !consts_equal(a, b))
				continue;
			ir_replace_uses(g, a, b);
			st->removed++;
			break;
		}
		if (e < 0)
			cse_table_add(&tab, key, a);
	}
	cse_table_free(&tab);
	return 0;
}

int pass_cse(struct ir_graph *g, struct pass_stats *st)
{
	struct cse_table tab;
	int i, k, e, ret;

	ret = cse_consts(g, st);
	if (ret)
		return ret;
	if (ir_graph_toposort(g))
		return -EINVAL;
	if (cse_table_init(&tab, g->num_nodes)) {
		cse_table_free(&tab);
		return -ENOMEM;
	}
	/*
	 * In topological order, so a node's inputs are final (merged) when
	 * it is hashed; a node is compared with the earlier nodes of its key
	 * in order and merged into the first equal one, unless both export
	 * graph outputs (then it stays).
	 */
	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i], *m = NULL;
		uint64_t key = cse_node_hash(n);
		bool distinct_outputs = true;

		for (e = tab.head[key & tab.mask]; e >= 0; e = tab.next[e]) {
			if (tab.key[e] == key && nodes_equal(tab.item[e], n)) {
				m = tab.item[e];
				break;
			}
		}
		if (!m) {
			cse_table_add(&tab, key, n);
			continue;
		}
		for (k = 0; k < n->num_outputs; k++)
			if (n->outputs[k] && n->outputs[k]->is_output &&
			    m->outputs[k] && m->outputs[k]->is_output)
				distinct_outputs = false;
		if (!distinct_outputs) {
			cse_table_add(&tab, key, n);
			continue;
		}
		for (k = 0; k < n->num_outputs; k++)
			if (n->outputs[k] && m->outputs[k] &&
			    n->outputs[k]->is_output &&
			    !m->outputs[k]->is_output)
				ir_graph_replace_output(g,
					n->outputs[k], m->outputs[k]);
		for (k = 0; k < n->num_outputs; k++)
			if (n->outputs[k] && m->outputs[k])
				ir_replace_uses(g, n->outputs[k],
						m->outputs[k]);
		ir_node_remove(g, n);
		st->removed++;
		i--;
	}
	cse_table_free(&tab);
	return 0;
}

/* --- reshape-simplify ----------------------------------------------------- */

static bool is_view(enum ir_op op)
{
	return op == IR_OP_RESHAPE || op == IR_OP_FLATTEN ||
	       op == IR_OP_SQUEEZE || op == IR_OP_UNSQUEEZE;
}

/*
 * A chain of views collapses into one Reshape from the first source to
 * the last shape; a view of a view reads the original tensor directly.
 */
int pass_reshape_simplify(struct ir_graph *g, struct pass_stats *st)
{
	struct ir_node **nodes;
	int i, num, changed;

again:
	nodes = pu_snapshot(g, &num);
	if (!nodes)
		return -ENOMEM;
	changed = 0;
	for (i = 0; i < num; i++) {
		struct ir_node *n = nodes[i], *p;
		struct ir_tensor *src, *shape, *out = n->outputs[0];

		if (n->dead || !is_view(n->op) || !out || !ir_shape_is_static(&out->shape))
			continue;
		p = ir_in(n, 0) ? n->inputs[0]->producer : NULL;
		if (!p || !is_view(p->op) || !p->inputs[0])
			continue;
		src = p->inputs[0];
		shape = pu_const_i64(g, NULL, out->shape.rank, out->shape.dim);
		if (!shape)
			goto nomem;
		if (n->op != IR_OP_RESHAPE) {
			struct ir_tensor *ins[2] = { src, shape };
			char *name = strdup(n->name);
			struct ir_node *r;

			ir_node_remove(g, n);
			r = ir_node_new(g, IR_OP_RESHAPE, name, 2, ins, 1,
					&out);
			free(name);
			if (!r)
				goto nomem;
		} else {
			ir_attr_remove(n, "allowzero");
			ir_node_set_input(n, 0, src);
			ir_node_set_input(n, 1, shape);
		}
		st->rewritten++;
		changed = 1;
	}
	free(nodes);
	if (changed) {	/* views of the new views: another round */
		if (ir_graph_toposort(g))
			return -EINVAL;
		goto again;
	}
	return 0;
nomem:
	free(nodes);
	return -ENOMEM;
}

/* --- transpose-simplify --------------------------------------------------- */

int pass_transpose_simplify(struct ir_graph *g, struct pass_stats *st)
{
	struct ir_node **nodes;
	int i, k, num, changed;

again:
	nodes = pu_snapshot(g, &num);
	if (!nodes)
		return -ENOMEM;
	changed = 0;
	for (i = 0; i < num; i++) {
		struct ir_node *n = nodes[i], *p;
		const int64_t *p1, *p2;
		int64_t perm[IR_MAX_RANK], rank;
		struct ir_tensor *x = ir_in(n, 0);
		bool moves_only_ones = true;
		int last = -1;

		if (n->dead || n->op != IR_OP_TRANSPOSE || !x)
			continue;
		rank = x->shape.rank;
		p = pu_producer(x, IR_OP_TRANSPOSE);
		if (p && ir_attr_ints(p, "perm", &p1) == rank &&
		    ir_attr_ints(n, "perm", &p2) == rank) {
			/* out[i] = x[p2[i]] = src[p1[p2[i]]] */
			for (k = 0; k < rank; k++)
				perm[k] = p1[p2[k]];
			ir_attr_set_ints(n, "perm", perm, (int)rank);
			(void)ir_node_add_origins(n, p);
			ir_node_set_input(n, 0, p->inputs[0]);
			st->fused++;
			continue;
		}
		/* moving only size-1 dims keeps the memory order: a view */
		if (ir_attr_ints(n, "perm", &p2) != rank ||
		    !ir_shape_is_static(&x->shape))
			continue;
		for (k = 0; k < rank; k++) {
			if (x->shape.dim[p2[k]] == 1)
				continue;
			if (p2[k] < last)
				moves_only_ones = false;
			last = (int)p2[k];
		}
		if (moves_only_ones && n->outputs[0]) {
			struct ir_tensor *shape, *out = n->outputs[0];
			struct ir_tensor *ins[2];
			struct ir_node *r;

			shape = pu_const_i64(g, NULL, out->shape.rank,
					     out->shape.dim);
			if (!shape)
				goto nomem;
			ins[0] = x;
			ins[1] = shape;
			ir_node_remove(g, n);
			r = ir_node_new(g, IR_OP_RESHAPE, NULL, 2, ins, 1,
					&out);
			if (!r)
				goto nomem;
			st->rewritten++;
			changed = 1;
		}
	}
	free(nodes);
	if (changed) {
		if (ir_graph_toposort(g))
			return -EINVAL;
		goto again;
	}
	return 0;
nomem:
	free(nodes);
	return -ENOMEM;
}
