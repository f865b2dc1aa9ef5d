// SPDX-License-Identifier: MIT
/*
 * ir_attr.c - typed node attributes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

const struct ir_attr *ir_attr_find(const struct ir_node *n, const char *name)
{
	int i;

	for (i = 0; i < n->num_attrs; i++)
		if (!strcmp(n->attrs[i].name, name))
			return &n->attrs[i];
	return NULL;
}

int64_t ir_attr_int(const struct ir_node *n, const char *name, int64_t def)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	if (!a)
		return def;
	if (a->type == IR_ATTR_INT)
		return a->i;
	if (a->type == IR_ATTR_FLOAT)
		return (int64_t)a->f;
	return def;
}

float ir_attr_float(const struct ir_node *n, const char *name, float def)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	if (!a)
		return def;
	if (a->type == IR_ATTR_FLOAT)
		return a->f;
	if (a->type == IR_ATTR_INT)
		return (float)a->i;
	return def;
}

const char *ir_attr_str(const struct ir_node *n, const char *name,
			const char *def)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	return a && a->type == IR_ATTR_STRING && a->s ? a->s : def;
}

int ir_attr_ints(const struct ir_node *n, const char *name,
		 const int64_t **out)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	*out = NULL;
	if (!a || a->type != IR_ATTR_INTS)
		return 0;
	*out = a->ints;
	return a->n;
}

int ir_attr_floats(const struct ir_node *n, const char *name,
		   const float **out)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	*out = NULL;
	if (!a || a->type != IR_ATTR_FLOATS)
		return 0;
	*out = a->floats;
	return a->n;
}

void ir_attr_remove(struct ir_node *n, const char *name)
{
	int i;

	for (i = 0; i < n->num_attrs; i++) {
		struct ir_attr *a = &n->attrs[i];

		if (strcmp(a->name, name))
			continue;
		free(a->name);
		free(a->s);
		free(a->ints);
		free(a->floats);
		ir_graph_free(a->graph);
		n->attrs[i] = n->attrs[--n->num_attrs];
		return;
	}
}

/* A fresh attribute slot named @name (replacing any previous one). */
static struct ir_attr *ir_attr_slot(struct ir_node *n, const char *name,
				    enum ir_attr_type type)
{
	struct ir_attr *p, *a;

	ir_attr_remove(n, name);
	p = realloc(n->attrs, (size_t)(n->num_attrs + 1) * sizeof(*p));
	if (!p)
		return NULL;
	n->attrs = p;
	a = &p[n->num_attrs];
	memset(a, 0, sizeof(*a));
	a->name = strdup(name);
	if (!a->name)
		return NULL;
	a->type = type;
	n->num_attrs++;
	return a;
}

int ir_attr_set_int(struct ir_node *n, const char *name, int64_t v)
{
	struct ir_attr *a = ir_attr_slot(n, name, IR_ATTR_INT);

	if (!a)
		return -ENOMEM;
	a->i = v;
	return 0;
}

int ir_attr_set_float(struct ir_node *n, const char *name, float v)
{
	struct ir_attr *a = ir_attr_slot(n, name, IR_ATTR_FLOAT);

	if (!a)
		return -ENOMEM;
	a->f = v;
	return 0;
}

int ir_attr_set_str(struct ir_node *n, const char *name, const char *v)
{
	struct ir_attr *a = ir_attr_slot(n, name, IR_ATTR_STRING);

	if (!a)
		return -ENOMEM;
	a->s = strdup(v);
	return a->s ? 0 : -ENOMEM;
}

int ir_attr_set_ints(struct ir_node *n, const char *name,
		     const int64_t *v, int count)
{
	struct ir_attr *a = ir_attr_slot(n, name, IR_ATTR_INTS);

	if (!a)
		return -ENOMEM;
	a->ints = calloc(count ? count : 1, sizeof(*v));
	if (!a->ints)
		return -ENOMEM;
	if (count)
		memcpy(a->ints, v, (size_t)count * sizeof(*v));
	a->n = count;
	return 0;
}

int ir_attr_set_floats(struct ir_node *n, const char *name,
		       const float *v, int count)
{
	struct ir_attr *a = ir_attr_slot(n, name, IR_ATTR_FLOATS);

	if (!a)
		return -ENOMEM;
	a->floats = calloc(count ? count : 1, sizeof(*v));
	if (!a->floats)
		return -ENOMEM;
	if (count)
		memcpy(a->floats, v, (size_t)count * sizeof(*v));
	a->n = count;
	return 0;
}

int ir_attr_set_tensor(struct ir_node *n, const char *name,
		       struct ir_tensor *t)
{
	struct ir_attr *a = ir_attr_slot(n, name, IR_ATTR_TENSOR);

	if (!a)
		return -ENOMEM;
	a->t = t;
	return 0;
}

int ir_attr_set_graph(struct ir_node *n, const char *name,
		      struct ir_graph *sub)
{
	struct ir_attr *a = ir_attr_slot(n, name, IR_ATTR_GRAPH);

	if (!a) {
		ir_graph_free(sub);
		return -ENOMEM;
	}
	a->graph = sub;
	return 0;
}

struct ir_graph *ir_attr_graph(const struct ir_node *n, const char *name)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	return a && a->type == IR_ATTR_GRAPH ? a->graph : NULL;
}

int ir_attr_copy(struct ir_node *dst, const struct ir_attr *a,
		 struct ir_tensor *t)
{
	struct ir_graph *sub;

	switch (a->type) {
	case IR_ATTR_INT: return ir_attr_set_int(dst, a->name, a->i);
	case IR_ATTR_FLOAT: return ir_attr_set_float(dst, a->name, a->f);
	case IR_ATTR_STRING:
		return ir_attr_set_str(dst, a->name, a->s ? a->s : "");
	case IR_ATTR_INTS:
		return ir_attr_set_ints(dst, a->name, a->ints, a->n);
	case IR_ATTR_FLOATS:
		return ir_attr_set_floats(dst, a->name, a->floats, a->n);
	case IR_ATTR_TENSOR:
		return ir_attr_set_tensor(dst, a->name, t);
	case IR_ATTR_GRAPH:
		sub = ir_graph_clone(a->graph);
		return sub ? ir_attr_set_graph(dst, a->name, sub) : -ENOMEM;
	}
	return -EINVAL;
}
