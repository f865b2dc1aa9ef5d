// SPDX-License-Identifier: MIT
/*
 * ir_graph.c - graphs, tensors, nodes and their producer/consumer links.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xxhash.h>

#include "ir.h"
#include "om_bigbuf.h"

/* Grow *arr (of *cap elements of @size) to hold at least @need. */
static int ir_grow(void **arr, int *cap, int need, size_t size)
{
	int ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

#define IR_GROW(arr, cap, need) \
	ir_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

struct ir_graph *ir_graph_new(const char *name)
{
	struct ir_graph *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->name = strdup(name ? name : "graph");
	if (!g->name) {
		free(g);
		return NULL;
	}
	g->opset = 13;
	return g;
}

static void ir_attr_free(struct ir_attr *a)
{
	free(a->name);
	free(a->s);
	free(a->ints);
	free(a->floats);
	ir_graph_free(a->graph);
}

static void ir_node_free(struct ir_node *n)
{
	int i;

	for (i = 0; i < n->num_attrs; i++)
		ir_attr_free(&n->attrs[i]);
	free(n->attrs);
	free(n->inputs);
	free(n->outputs);
	free(n->name);
	for (i = 0; i < n->num_origins; i++)
		free(n->origins[i]);
	free(n->origins);
	free(n);
}

/* --- the name table ----------------------------------------------------- */

/* A removed entry: probing continues past it, inserting may reuse it. */
static struct ir_tensor ir_name_tomb;
#define IR_TOMB (&ir_name_tomb)

uint64_t ir_name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

static int ir_name_map_put(struct ir_graph *g, struct ir_tensor *t);

/* Rebuild the table with room for @need live entries (load <= 1/2). */
static int ir_name_map_rehash(struct ir_graph *g, uint32_t need)
{
	struct ir_tensor **old = g->name_map;
	uint32_t ocap = g->name_map_cap, cap = 64, i;

	while (cap < 2 * (uint64_t)need + 2)
		cap *= 2;
	g->name_map = calloc(cap, sizeof(*g->name_map));
	if (!g->name_map) {
		g->name_map = old;
		return -ENOMEM;
	}
	g->name_map_cap = cap;
	g->name_map_used = 0;
	g->name_map_dead = 0;
	for (i = 0; i < ocap; i++)
		if (old[i] && old[i] != IR_TOMB)
			ir_name_map_put(g, old[i]);
	free(old);
	return 0;
}

static int ir_name_map_put(struct ir_graph *g, struct ir_tensor *t)
{
	uint32_t mask, i;

	if (4 * ((uint64_t)g->name_map_used + g->name_map_dead + 1) >
	    3 * (uint64_t)g->name_map_cap &&
	    ir_name_map_rehash(g, g->name_map_used + 1))
		return -ENOMEM;
	mask = g->name_map_cap - 1;
	i = (uint32_t)ir_name_hash(t->name) & mask;
	while (g->name_map[i] && g->name_map[i] != IR_TOMB)
		i = (i + 1) & mask;
	if (g->name_map[i] == IR_TOMB)
		g->name_map_dead--;
	g->name_map[i] = t;
	g->name_map_used++;
	return 0;
}

/* The slot holding @t (found through its current name), or -1. */
static int64_t ir_name_map_slot(const struct ir_graph *g,
				const struct ir_tensor *t)
{
	uint32_t mask, i;

	if (!g->name_map_cap)
		return -1;
	mask = g->name_map_cap - 1;
	for (i = (uint32_t)ir_name_hash(t->name) & mask; g->name_map[i];
	     i = (i + 1) & mask)
		if (g->name_map[i] == t)
			return i;
	return -1;
}

static void ir_name_map_del(struct ir_graph *g, struct ir_tensor *t)
{
	int64_t i = ir_name_map_slot(g, t);

	if (i < 0)
		return;
	g->name_map[i] = IR_TOMB;
	g->name_map_used--;
	g->name_map_dead++;
}

static void ir_tensor_free(struct ir_tensor *t)
{
	free(t->name);
	if (!t->data_mapped)
		free(t->data);
	free(t->uses);
	free(t->sval);
	free(t->origin);
	free(t);
}

void ir_graph_free(struct ir_graph *g)
{
	int i;

	if (!g)
		return;
	for (i = 0; i < g->num_nodes; i++)
		ir_node_free(g->nodes[i]);
	ir_graph_purge(g);
	free(g->dead_nodes);
	free(g->keep_dtype);
	for (i = 0; i < g->num_tensors; i++)
		ir_tensor_free(g->tensors[i]);
	for (i = 0; i < g->num_syms; i++)
		free(g->syms[i]);
	free(g->syms);
	free(g->name_map);
	free(g->nodes);
	free(g->tensors);
	free(g->inputs);
	free(g->outputs);
	free(g->out_decl);
	free(g->captures);
	free(g->name);
	if (g->mapped)
		munmap(g->mapped, g->mapped_len);
	free(g);
}

const char *ir_graph_error(const struct ir_graph *g)
{
	return g->err[0] ? g->err : "no error recorded";
}

int ir_error(struct ir_graph *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->err, sizeof(g->err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int ir_graph_add_input(struct ir_graph *g, struct ir_tensor *t)
{
	if (IR_GROW(g->inputs, g->cap_inputs, g->num_inputs + 1))
		return -ENOMEM;
	g->inputs[g->num_inputs++] = t;
	t->is_input = true;
	return 0;
}

int ir_graph_add_output(struct ir_graph *g, struct ir_tensor *t)
{
	if (IR_GROW(g->outputs, g->cap_outputs, g->num_outputs + 1))
		return -ENOMEM;
	g->outputs[g->num_outputs++] = t;
	t->is_output = true;
	return 0;
}

/* Swap names so the graph's interface keeps its names. */
static void ir_swap_names(struct ir_graph *g, struct ir_tensor *a,
			  struct ir_tensor *b)
{
	int64_t sa = ir_name_map_slot(g, a), sb = ir_name_map_slot(g, b);
	char *tmp = a->name;

	a->name = b->name;
	b->name = tmp;
	/* each slot now belongs to the other tensor's (old) name */
	if (sa >= 0)
		g->name_map[sa] = b;
	if (sb >= 0)
		g->name_map[sb] = a;
}

int ir_graph_replace_output(struct ir_graph *g, struct ir_tensor *old,
			    struct ir_tensor *new_t)
{
	int i, found = 0;

	for (i = 0; i < g->num_outputs; i++) {
		if (g->outputs[i] == old) {
			g->outputs[i] = new_t;
			found = 1;
		}
	}
	if (!found)
		return -ENOENT;
	old->is_output = false;
	new_t->is_output = true;
	if (!new_t->is_input)
		ir_swap_names(g, old, new_t);
	/* the new output holds the old one's value */
	if (!new_t->origin && old->origin &&
	    ir_tensor_set_origin(new_t, old->origin))
		return -ENOMEM;
	return 0;
}

struct ir_tensor *ir_graph_find_tensor(const struct ir_graph *g,
				       const char *name)
{
	uint32_t mask, i;

	if (!g->name_map_cap)
		return NULL;
	mask = g->name_map_cap - 1;
	for (i = (uint32_t)ir_name_hash(name) & mask; g->name_map[i];
	     i = (i + 1) & mask)
		if (g->name_map[i] != IR_TOMB &&
		    !strcmp(g->name_map[i]->name, name))
			return g->name_map[i];
	return NULL;
}

/* --- symbols ------------------------------------------------------------- */

int ir_sym_intern(struct ir_graph *g, const char *name)
{
	int i;

	for (i = 0; i < g->num_syms; i++)
		if (!strcmp(g->syms[i], name))
			return i;
	if (IR_GROW(g->syms, g->cap_syms, g->num_syms + 1))
		return -ENOMEM;
	g->syms[g->num_syms] = strdup(name);
	if (!g->syms[g->num_syms])
		return -ENOMEM;
	return g->num_syms++;
}

const char *ir_sym_name(const struct ir_graph *g, int64_t dim)
{
	int id;

	if (!IR_DIM_IS_SYM(dim))
		return NULL;
	id = IR_DIM_SYM_ID(dim);
	return id >= 0 && id < g->num_syms ? g->syms[id] : "?";
}

int ir_graph_bind_sym(struct ir_graph *g, const char *name, int64_t value)
{
	int i, d, id = -1;

	for (i = 0; i < g->num_syms; i++)
		if (!strcmp(g->syms[i], name))
			id = i;
	if (id < 0)
		return -ENOENT;
	for (i = 0; i < g->num_tensors; i++) {
		struct ir_shape *s = &g->tensors[i]->shape;

		for (d = 0; d < s->rank; d++)
			if (s->dim[d] == IR_DIM_SYM(id))
				s->dim[d] = value;
	}
	return 0;
}

/* --- shapes -------------------------------------------------------------- */

bool ir_shape_is_static(const struct ir_shape *s)
{
	int i;

	for (i = 0; i < s->rank; i++)
		if (IR_DIM_IS_SYM(s->dim[i]))
			return false;
	return true;
}

bool ir_shape_equal(const struct ir_shape *a, const struct ir_shape *b)
{
	int i;

	if (a->rank != b->rank)
		return false;
	for (i = 0; i < a->rank; i++)
		if (a->dim[i] != b->dim[i])
			return false;
	return true;
}

int64_t ir_shape_numel(const struct ir_shape *s)
{
	int64_t n = 1;
	int i;

	for (i = 0; i < s->rank; i++) {
		if (IR_DIM_IS_SYM(s->dim[i]))
			return -1;
		if (__builtin_mul_overflow(n, s->dim[i], &n))
			return -1;
	}
	return n;
}

char *ir_shape_str(const struct ir_graph *g, const struct ir_shape *s,
		   char *buf, size_t len)
{
	size_t pos = 0;
	int i;

	if (!len)
		return buf;
	buf[0] = 0;
	pos += snprintf(buf + pos, len - pos, "[");
	for (i = 0; i < s->rank && pos < len; i++) {
		const char *sep = i ? "," : "";

		if (IR_DIM_IS_SYM(s->dim[i]))
			pos += snprintf(buf + pos, len - pos, "%s%s", sep,
					g ? ir_sym_name(g, s->dim[i]) : "?");
		else
			pos += snprintf(buf + pos, len - pos, "%s%lld", sep,
					(long long)s->dim[i]);
	}
	if (pos < len)
		snprintf(buf + pos, len - pos, "]");
	return buf;
}

struct ir_shape ir_shape_make(int rank, const int64_t *dims)
{
	struct ir_shape s;
	int i;

	memset(&s, 0, sizeof(s));
	s.rank = rank;
	for (i = 0; i < rank && i < IR_MAX_RANK; i++)
		s.dim[i] = dims[i];
	return s;
}

/* --- tensors ------------------------------------------------------------- */

static char *ir_unique_name(struct ir_graph *g, const char *name, int id)
{
	char buf[256];
	int k;

	if (!name || !*name) {
		snprintf(buf, sizeof(buf), "t%d", id);
		name = buf;
	}
	if (!ir_graph_find_tensor(g, name))
		return strdup(name);
	for (k = 1;; k++) {
		char alt[300];

		snprintf(alt, sizeof(alt), "%.250s_%d", name, k);
		if (!ir_graph_find_tensor(g, alt))
			return strdup(alt);
	}
}

int ir_tensor_rename(struct ir_graph *g, struct ir_tensor *t,
		     const char *name)
{
	char *n = ir_unique_name(g, name, t->id);

	if (!n)
		return -ENOMEM;
	ir_name_map_del(g, t);
	free(t->name);
	t->name = n;
	return ir_name_map_put(g, t);
}

struct ir_tensor *ir_tensor_new(struct ir_graph *g, const char *name,
				enum ir_dtype dt, const struct ir_shape *shape)
{
	struct ir_tensor *t;

	if (IR_GROW(g->tensors, g->cap_tensors, g->num_tensors + 1))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->id = g->next_id++;
	t->name = ir_unique_name(g, name, t->id);
	if (!t->name) {
		free(t);
		return NULL;
	}
	t->dtype = dt;
	if (shape) {
		t->shape = *shape;
		t->shape_known = true;
	}
	if (ir_name_map_put(g, t)) {
		free(t->name);
		free(t);
		return NULL;
	}
	g->tensors[g->num_tensors++] = t;
	return t;
}

int64_t ir_tensor_numel(const struct ir_tensor *t)
{
	return ir_shape_numel(&t->shape);
}

int ir_tensor_set_data(struct ir_tensor *t, const void *data, size_t nbytes)
{
	void *p = om_bigbuf_alloc(nbytes);

	if (!p)
		return -ENOMEM;
	if (nbytes)
		memcpy(p, data, nbytes);
	if (!t->data_mapped)
		free(t->data);
	t->data = p;
	t->data_mapped = false;
	t->digest_valid = false;
	t->nbytes = nbytes;
	return 0;
}

int ir_tensor_own(struct ir_tensor *t)
{
	if (!t || !t->data_mapped)
		return 0;
	return ir_tensor_set_data(t, t->data, t->nbytes);
}

void ir_tensor_adopt_data(struct ir_tensor *t, void *data, size_t nbytes)
{
	if (!t->data_mapped)
		free(t->data);
	t->data = data;
	t->nbytes = nbytes;
	t->data_mapped = false;
	t->digest_valid = false;
}

void ir_tensor_borrow_data(struct ir_tensor *t, const void *data,
			   size_t nbytes)
{
	ir_tensor_adopt_data(t, (void *)data, nbytes);
	t->data_mapped = true;	/* never freed, never written */
}

void ir_tensor_digest(const struct ir_tensor *t, uint64_t out[2])
{
	/* the cached digest is a memo of a read-only mapping's bytes */
	struct ir_tensor *m = (struct ir_tensor *)t;
	XXH128_hash_t h;

	if (t->data_mapped && t->digest_valid) {
		out[0] = t->digest[0];
		out[1] = t->digest[1];
		return;
	}
	if (!t->data) {
		out[0] = 0;
		out[1] = 0;
		return;
	}
	h = XXH3_128bits(t->data, t->nbytes);
	out[0] = h.low64;
	out[1] = h.high64;
	if (t->data_mapped) {
		m->digest[0] = out[0];
		m->digest[1] = out[1];
		m->digest_valid = true;
	}
}

struct ir_tensor *ir_const_new(struct ir_graph *g, const char *name,
			       enum ir_dtype dt, const struct ir_shape *shape,
			       const void *data, size_t nbytes)
{
	struct ir_tensor *t;
	int64_t n = ir_shape_numel(shape);

	if (n < 0 || (size_t)n * ir_dtype_size(dt) != nbytes) {
		ir_error(g, "constant '%s': %zu bytes do not match its shape",
			 name ? name : "?", nbytes);
		return NULL;
	}
	t = ir_tensor_new(g, name, dt, shape);
	if (!t)
		return NULL;
	if (ir_tensor_set_data(t, data, nbytes))
		return NULL;
	return t;
}

struct ir_tensor *ir_const_scalar_f32(struct ir_graph *g, const char *name,
				      float v)
{
	struct ir_shape s = { 0 };

	return ir_const_new(g, name, IR_F32, &s, &v, sizeof(v));
}

/*
 * Element @i (of @es bytes) of @t's data into @v, by memcpy(): a mapped
 * constant (ir_tensor.data_mapped) is aligned to nothing.
 */
static void const_elem(const struct ir_tensor *t, int64_t i, void *v,
		       size_t es)
{
	memcpy(v, (const char *)t->data + (size_t)i * es, es);
}

#define CONST_READER(name, type)					\
static type name(const struct ir_tensor *t, int64_t i)			\
{									\
	type v;								\
									\
	const_elem(t, i, &v, sizeof(v));				\
	return v;							\
}
CONST_READER(elem_f32, float)
CONST_READER(elem_i8, int8_t)
CONST_READER(elem_u8, uint8_t)
CONST_READER(elem_u16, uint16_t)
CONST_READER(elem_i32, int32_t)
CONST_READER(elem_i64, int64_t)

double ir_const_get_f(const struct ir_tensor *t, int64_t i)
{
	switch (t->dtype) {
	case IR_F32: return elem_f32(t, i);
	case IR_I8: return elem_i8(t, i);
	case IR_U8: case IR_BOOL: return elem_u8(t, i);
	case IR_I32: return elem_i32(t, i);
	case IR_I64: return (double)elem_i64(t, i);
	case IR_F16: {
		/* IEEE half to double, for constant inspection only */
		uint16_t h = elem_u16(t, i);
		int e = (h >> 10) & 0x1f, m = h & 0x3ff;
		double v = e ? (1.0 + m / 1024.0) : m / 1024.0;
		int k;

		e = e ? e - 15 : -14;
		for (k = 0; k < (e < 0 ? -e : e); k++)
			v = e < 0 ? v / 2 : v * 2;
		return (h & 0x8000) ? -v : v;
	}
	default: return 0;
	}
}

int64_t ir_f64_to_i64(double v)
{
	/* C leaves out-of-range conversions undefined: saturate, NaN -> 0 */
	if (v != v)
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

int64_t ir_const_get_i(const struct ir_tensor *t, int64_t i)
{
	switch (t->dtype) {
	case IR_I64: return elem_i64(t, i);
	case IR_I32: return elem_i32(t, i);
	default: return ir_f64_to_i64(ir_const_get_f(t, i));
	}
}

/* --- uses ---------------------------------------------------------------- */

static int ir_use_add(struct ir_tensor *t, struct ir_node *n, int index)
{
	if (IR_GROW(t->uses, t->cap_uses, t->num_uses + 1))
		return -ENOMEM;
	t->uses[t->num_uses].node = n;
	t->uses[t->num_uses].index = index;
	t->num_uses++;
	return 0;
}

static void ir_use_del(struct ir_tensor *t, struct ir_node *n, int index)
{
	int i;

	for (i = 0; i < t->num_uses; i++) {
		if (t->uses[i].node == n && t->uses[i].index == index) {
			t->uses[i] = t->uses[--t->num_uses];
			return;
		}
	}
}

struct ir_node *ir_sole_consumer(const struct ir_tensor *t)
{
	if (t->num_uses != 1 || t->is_output)
		return NULL;
	return t->uses[0].node;
}

/* --- nodes --------------------------------------------------------------- */

struct ir_node *ir_node_new(struct ir_graph *g, enum ir_op op,
			    const char *name, int num_inputs,
			    struct ir_tensor *const *inputs, int num_outputs,
			    struct ir_tensor *const *outputs)
{
	struct ir_node *n;
	char buf[64];
	int i;

	if (IR_GROW(g->nodes, g->cap_nodes, g->num_nodes + 1))
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->id = g->next_id++;
	if (!name || !*name) {
		snprintf(buf, sizeof(buf), "%s_%d", ir_op_name(op), n->id);
		name = buf;
	}
	n->name = strdup(name);
	n->op = op;
	n->graph = g;
	n->opset = (int)g->opset;
	n->inputs = calloc(num_inputs ? num_inputs : 1, sizeof(*n->inputs));
	n->outputs = calloc(num_outputs ? num_outputs : 1,
			    sizeof(*n->outputs));
	if (!n->name || !n->inputs || !n->outputs) {
		ir_node_free(n);
		return NULL;
	}
	n->num_inputs = num_inputs;
	n->num_outputs = num_outputs;
	g->nodes[g->num_nodes++] = n;
	g->edits++;
	for (i = 0; i < num_inputs; i++)
		if (inputs && inputs[i] && ir_node_set_input(n, i, inputs[i]))
			return NULL;
	for (i = 0; i < num_outputs; i++)
		if (outputs && outputs[i])
			ir_node_set_output(n, i, outputs[i]);
	return n;
}

int ir_node_add_origin(struct ir_node *n, const char *name)
{
	char **p;
	int i;

	if (!name || !*name)
		return 0;
	for (i = 0; i < n->num_origins; i++)
		if (!strcmp(n->origins[i], name))
			return 0;
	p = realloc(n->origins, (size_t)(n->num_origins + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	n->origins = p;
	p[n->num_origins] = strdup(name);
	if (!p[n->num_origins])
		return -ENOMEM;
	n->num_origins++;
	return 0;
}

int ir_node_add_origins(struct ir_node *dst, const struct ir_node *src)
{
	int i, ret = 0;

	for (i = 0; i < src->num_origins && !ret; i++)
		ret = ir_node_add_origin(dst, src->origins[i]);
	return ret;
}

int ir_tensor_set_origin(struct ir_tensor *t, const char *name)
{
	char *s = name ? strdup(name) : NULL;

	if (name && !s)
		return -ENOMEM;
	free(t->origin);
	t->origin = s;
	return 0;
}

int ir_node_set_input(struct ir_node *n, int index, struct ir_tensor *t)
{
	if (index < 0 || index >= n->num_inputs)
		return -EINVAL;
	if (n->inputs[index])
		ir_use_del(n->inputs[index], n, index);
	n->inputs[index] = t;
	if (n->graph)
		n->graph->edits++;
	return t ? ir_use_add(t, n, index) : 0;
}

int ir_node_add_input(struct ir_node *n, struct ir_tensor *t)
{
	struct ir_tensor **p;

	p = realloc(n->inputs, (size_t)(n->num_inputs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	n->inputs = p;
	n->inputs[n->num_inputs++] = NULL;
	return ir_node_set_input(n, n->num_inputs - 1, t);
}

void ir_node_truncate_inputs(struct ir_node *n, int count)
{
	while (n->num_inputs > count) {
		ir_node_set_input(n, n->num_inputs - 1, NULL);
		n->num_inputs--;
	}
}

int ir_node_set_output(struct ir_node *n, int index, struct ir_tensor *t)
{
	if (index < 0 || index >= n->num_outputs)
		return -EINVAL;
	if (n->outputs[index] && n->outputs[index]->producer == n)
		n->outputs[index]->producer = NULL;
	n->outputs[index] = t;
	if (n->graph)
		n->graph->edits++;
	if (t)
		t->producer = n;
	return 0;
}

void ir_node_remove(struct ir_graph *g, struct ir_node *n)
{
	int i;

	for (i = 0; i < n->num_inputs; i++)
		ir_node_set_input(n, i, NULL);
	for (i = 0; i < n->num_outputs; i++)
		ir_node_set_output(n, i, NULL);
	/* from the end: passes mostly remove what they just looked at */
	for (i = g->num_nodes - 1; i >= 0; i--) {
		if (g->nodes[i] == n) {
			memmove(&g->nodes[i], &g->nodes[i + 1],
				(size_t)(g->num_nodes - i - 1) *
				sizeof(g->nodes[0]));
			g->num_nodes--;
			break;
		}
	}
	n->dead = true;
	g->edits++;
	if (IR_GROW(g->dead_nodes, g->cap_dead, g->num_dead + 1)) {
		ir_node_free(n);	/* no memory: no snapshot may keep it */
		return;
	}
	g->dead_nodes[g->num_dead++] = n;
}

void ir_graph_purge(struct ir_graph *g)
{
	int i;

	for (i = 0; i < g->num_dead; i++)
		ir_node_free(g->dead_nodes[i]);
	g->num_dead = 0;
}

void ir_replace_uses(struct ir_graph *g, struct ir_tensor *old,
		     struct ir_tensor *new_t)
{
	if (old == new_t)
		return;
	while (old->num_uses) {
		struct ir_use u = old->uses[0];

		ir_node_set_input(u.node, u.index, new_t);
	}
	if (old->is_output)
		ir_graph_replace_output(g, old, new_t);
}

/* --- order and garbage --------------------------------------------------- */

int ir_graph_toposort(struct ir_graph *g)
{
	struct ir_node **order;
	int *pending, i, j, k, head = 0, tail = 0;

	if (!g->num_nodes || g->sorted_at == g->edits)
		return 0;
	order = calloc(g->num_nodes + 1, sizeof(*order));
	pending = calloc(g->num_nodes + 1, sizeof(*pending));
	if (!order || !pending) {
		free(order);
		free(pending);
		return -ENOMEM;
	}
	/* pending[i]: inputs of node i produced by a not yet placed node */
	for (i = 0; i < g->num_nodes; i++)
		g->nodes[i]->priv = (void *)(intptr_t)i;
	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];

		for (j = 0; j < n->num_inputs; j++)
			if (n->inputs[j] && n->inputs[j]->producer)
				pending[i]++;
		if (!pending[i])
			order[tail++] = n;
	}
	while (head < tail) {
		struct ir_node *n = order[head++];

		for (j = 0; j < n->num_outputs; j++) {
			struct ir_tensor *t = n->outputs[j];

			if (!t)
				continue;
			for (k = 0; k < t->num_uses; k++) {
				int c = (int)(intptr_t)t->uses[k].node->priv;

				if (--pending[c] == 0)
					order[tail++] = g->nodes[c];
			}
		}
	}
	for (i = 0; i < g->num_nodes; i++)
		g->nodes[i]->priv = NULL;
	if (tail != g->num_nodes) {
		for (i = 0; i < g->num_nodes; i++)
			if (pending[i])
				break;
		ir_error(g, "graph has a cycle through node '%s' (%s)",
			 g->nodes[i]->name, ir_op_name(g->nodes[i]->op));
		free(order);
		free(pending);
		return -EINVAL;
	}
	if (g->num_nodes)
		memcpy(g->nodes, order,
		       (size_t)g->num_nodes * sizeof(*order));
	free(order);
	free(pending);
	g->sorted_at = g->edits;
	return 0;
}

static int ir_ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a;
	uintptr_t y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Free tensors that nothing produces, consumes, exports or references from
 * a node attribute (If/Loop bodies are not imported). One pass over the
 * attributes collects the referenced tensors, sorted, so the sweep costs
 * O((tensors + attributes) log attributes).
 */
void ir_graph_gc(struct ir_graph *g)
{
	struct ir_tensor **ref = NULL;
	size_t nref = 0, cap = 0;
	int i, j, k = 0;

	for (i = 0; i < g->num_nodes; i++) {
		for (j = 0; j < g->nodes[i]->num_attrs; j++) {
			struct ir_tensor *t = g->nodes[i]->attrs[j].t;
			struct ir_tensor **p;

			if (!t)
				continue;
			if (nref == cap) {
				cap = cap ? 2 * cap : 16;
				p = realloc(ref, cap * sizeof(*ref));
				if (!p) {
					free(ref);
					return;	/* keep everything */
				}
				ref = p;
			}
			ref[nref++] = t;
		}
	}
	if (nref)
		qsort(ref, nref, sizeof(*ref), ir_ptr_cmp);
	for (i = 0; i < g->num_tensors; i++) {
		struct ir_tensor *t = g->tensors[i];

		if (!t->producer && !t->num_uses && !t->is_input &&
		    !t->is_output &&
		    !(nref && bsearch(&t, ref, nref, sizeof(*ref),
				      ir_ptr_cmp))) {
			ir_name_map_del(g, t);
			ir_tensor_free(t);
			continue;
		}
		g->tensors[k++] = t;
	}
	g->num_tensors = k;
	free(ref);
}
