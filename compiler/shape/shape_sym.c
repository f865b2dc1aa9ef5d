// SPDX-License-Identifier: MIT
/*
 * shape_sym.c - arithmetic on symbolic dims.
 *
 * A product of dims is kept as a static factor and a sorted multiset of base
 * symbols; its canonical name ("4*batch*seq") is interned as a derived
 * symbol, so the same product always yields the same symbol and a later
 * division (Reshape's -1) can take it apart again.
 */
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"

#define SYM_MAX_FACTORS	16

struct sym_prod {
	int64_t k;				/* static factor */
	int n;
	char names[SYM_MAX_FACTORS][64];	/* sorted base symbols */
};

/* Split a (possibly derived) dim into factors; false if not a product. */
static bool sym_factors(struct ir_graph *g, int64_t d, struct sym_prod *p)
{
	char buf[512], *save = NULL, *tok;
	const char *name;

	if (!IR_DIM_IS_SYM(d))
		return !__builtin_mul_overflow(p->k, d, &p->k);
	name = ir_sym_name(g, d);
	if (strchr(name, '+'))		/* a sum is one opaque factor */
		goto opaque;
	snprintf(buf, sizeof(buf), "%s", name);
	for (tok = strtok_r(buf, "*", &save); tok;
	     tok = strtok_r(NULL, "*", &save)) {
		char *end;
		long long v = strtoll(tok, &end, 10);

		if (!*end && end != tok) {
			if (__builtin_mul_overflow(p->k, (int64_t)v, &p->k))
				return false;
			continue;
		}
		if (p->n == SYM_MAX_FACTORS)
			return false;
		snprintf(p->names[p->n++], sizeof(p->names[0]), "%s", tok);
	}
	return true;
opaque:
	if (p->n == SYM_MAX_FACTORS)
		return false;
	snprintf(p->names[p->n++], sizeof(p->names[0]), "%s", name);
	return true;
}

static int sym_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The dim of a product: static, a base symbol, or a derived symbol. */
static int64_t sym_make(struct ir_graph *g, struct sym_prod *p)
{
	char name[1024];
	size_t pos = 0;
	int i, id;

	if (!p->n)
		return p->k;
	qsort(p->names, p->n, sizeof(p->names[0]), sym_cmp);
	if (p->k != 1)
		pos += snprintf(name, sizeof(name), "%lld", (long long)p->k);
	for (i = 0; i < p->n && pos < sizeof(name); i++)
		pos += snprintf(name + pos, sizeof(name) - pos, "%s%s",
				pos ? "*" : "", p->names[i]);
	id = ir_sym_intern(g, name);
	return id < 0 ? 0 : IR_DIM_SYM(id);
}

/* A product too large for any device: a symbol no binding can satisfy. */
static int64_t sym_overflow(struct ir_graph *g)
{
	return IR_DIM_SYM(ir_sym_intern(g, "overflow"));
}

int64_t shape_dim_mul(struct ir_graph *g, int64_t a, int64_t b)
{
	struct sym_prod p = { .k = 1 };
	int64_t r;

	if (!IR_DIM_IS_SYM(a) && !IR_DIM_IS_SYM(b))
		return __builtin_mul_overflow(a, b, &r) || r > ((int64_t)1 << 48)
		       ? sym_overflow(g) : r;
	if (a == 0 || b == 0)
		return 0;
	if (a == 1)
		return b;
	if (b == 1)
		return a;
	if (!sym_factors(g, a, &p) || !sym_factors(g, b, &p))
		return IR_DIM_SYM(ir_sym_intern(g, "?"));
	return sym_make(g, &p);
}

int64_t shape_dim_add(struct ir_graph *g, int64_t a, int64_t b)
{
	char name[512];

	if (!IR_DIM_IS_SYM(a) && !IR_DIM_IS_SYM(b))
		return a + b;	/* dims are below 2^48: no overflow */
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	if (IR_DIM_IS_SYM(a) && IR_DIM_IS_SYM(b))
		snprintf(name, sizeof(name), "%s+%s", ir_sym_name(g, a),
			 ir_sym_name(g, b));
	else if (IR_DIM_IS_SYM(a))
		snprintf(name, sizeof(name), "%s+%lld", ir_sym_name(g, a),
			 (long long)b);
	else
		snprintf(name, sizeof(name), "%lld+%s", (long long)a,
			 ir_sym_name(g, b));
	return IR_DIM_SYM(ir_sym_intern(g, name));
}

int shape_dim_div(struct ir_graph *g, int64_t num, int64_t den,
		  int64_t *out)
{
	struct sym_prod p = { .k = 1 }, q = { .k = 1 };
	int i, j;

	if (!IR_DIM_IS_SYM(num) && !IR_DIM_IS_SYM(den)) {
		if (!den || num % den)
			return -1;
		*out = num / den;
		return 0;
	}
	if (!sym_factors(g, num, &p) || !sym_factors(g, den, &q))
		return -1;
	for (j = 0; j < q.n; j++) {
		for (i = 0; i < p.n; i++)
			if (!strcmp(p.names[i], q.names[j]))
				break;
		if (i == p.n)
			return -1;
		memmove(p.names[i], p.names[i + 1],
			(size_t)(p.n - i - 1) * sizeof(p.names[0]));
		p.n--;
	}
	if (!q.k || p.k % q.k)
		return -1;
	p.k /= q.k;
	*out = sym_make(g, &p);
	return 0;
}

int64_t shape_prod(struct ir_graph *g, const struct ir_shape *s, int from,
		   int to)
{
	int64_t v = 1;
	int i;

	for (i = from; i < to; i++)
		v = shape_dim_mul(g, v, s->dim[i]);
	return v;
}
