// SPDX-License-Identifier: MIT
/*
 * legalize_einsum.c - ONNX Einsum of one or two operands (static shapes,
 * f32 or f16) onto ReduceSum, Transpose, Reshape and one MatMul.
 *
 * The equation names each operand's dims by a letter ("bhqd,bhkd->bhqk";
 * "..." stands for the leading dims every operand shares, as many as each
 * one's rank leaves; without "->" the output is the letters used once, in
 * alphabetical order). A letter only one operand has and the output
 * lacks is summed out first (ReduceSum). With two operands the letters
 * left are batch (both and the output), contracted (both, not the
 * output), or free (one operand and the output): A becomes [batch, free
 * A, contracted] and B [batch, contracted, free B] (Transpose, Reshape),
 * one MatMul gives [batch, FA, FB], and a Reshape and a Transpose give
 * the output's order. A letter repeated in one operand is its diagonal,
 * taken first: the two dims moved last (Transpose), flattened (Reshape)
 * and every (d + 1)-th element gathered. Three or more operands are
 * refused with what to do.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

#define ES_MAX	IR_MAX_RANK

/* One operand's (or the output's) letters, '.' expanded to 'A', 'B'.. */
struct es_term {
	char l[ES_MAX];
	int n;
};

/* Parse @s (up to @end) into @t; the ellipsis takes @ell letters. */
static bool es_term(const char *s, const char *end, int ell, bool *had_ell,
		    struct es_term *t)
{
	t->n = 0;
	*had_ell = false;
	for (; s < end; s++) {
		if (*s == ' ')
			continue;
		if (*s == '.') {
			if (*had_ell || end - s < 3 || s[1] != '.' || s[2] != '.')
				return false;
			for (int k = 0; k < ell; k++) {
				if (t->n == ES_MAX)
					return false;
				t->l[t->n++] = (char)('A' + k);
			}
			*had_ell = true;
			s += 2;
			continue;
		}
		if (*s < 'a' || *s > 'z' || t->n == ES_MAX)
			return false;
		t->l[t->n++] = *s;
	}
	return true;
}

static int es_find(const struct es_term *t, char c)
{
	for (int i = 0; i < t->n; i++)
		if (t->l[i] == c)
			return i;
	return -1;
}

/* The letters of the equation: the operands' and the output's. */
struct es_eq {
	struct es_term in[2], out;
	int nin;
};

static int es_parse(struct ir_graph *g, const struct ir_node *n,
		    struct es_eq *e)
{
	const char *eq = ir_attr_str(n, "equation", ""), *arrow, *p, *end;
	int ell = -1;
	bool had;

	arrow = strstr(eq, "->");
	end = arrow ? arrow : eq + strlen(eq);
	e->nin = 0;
	for (p = eq; e->nin < n->num_inputs; e->nin++) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *stop = c ? c : end;
		const struct ir_tensor *x = n->inputs[e->nin];
		int named = 0;

		if (e->nin == 2)
			break;
		for (const char *q = p; q < stop; q++)
			named += *q >= 'a' && *q <= 'z';
		if (!es_term(p, stop, x->shape.rank - named, &had,
			     &e->in[e->nin]) || e->in[e->nin].n !=
		    x->shape.rank || (had && ell >= 0 &&
				      ell != x->shape.rank - named))
			return ir_error(g, "node '%s' (Einsum): term %d of "
					"'%s' does not name the %d dims of "
					"its operand", n->name, e->nin, eq,
					x->shape.rank);
		if (had)
			ell = x->shape.rank - named;
		p = stop + 1;
		if (!c)
			break;
	}
	if (n->num_inputs > 2 || e->nin + 1 != n->num_inputs)
		return ir_error(g, "node '%s' (Einsum): %d operands; one or two "
				"are supported (write a chain as pairwise "
				"Einsums)", n->name, n->num_inputs);
	e->nin = n->num_inputs;
	if (arrow) {
		if (!es_term(arrow + 2, arrow + strlen(arrow), ell < 0 ? 0 : ell,
			     &had, &e->out))
			return ir_error(g, "node '%s' (Einsum): bad output term "
					"in '%s'", n->name, eq);
		return 0;
	}
	/* implicit: the ellipsis first, then the letters used once */
	e->out.n = 0;
	for (int k = 0; k < (ell < 0 ? 0 : ell); k++)
		e->out.l[e->out.n++] = (char)('A' + k);
	for (char c = 'a'; c <= 'z'; c++) {
		int uses = 0;

		for (int i = 0; i < e->nin; i++)
			for (int d = 0; d < e->in[i].n; d++)
				uses += e->in[i].l[d] == c;
		if (uses == 1 && e->out.n < ES_MAX)
			e->out.l[e->out.n++] = c;
	}
	return 0;
}

/* Sums out of operand @i the letters no other term has. */
static struct ir_tensor *es_reduce_own(struct lz_builder *b,
				       struct es_eq *e, int i,
				       struct ir_tensor *x)
{
	struct es_term *t = &e->in[i], kept = { .n = 0 };
	int64_t axes[ES_MAX];
	int na = 0;

	for (int d = 0; d < t->n; d++) {
		char c = t->l[d];
		bool other = es_find(&e->out, c) >= 0 ||
			     (e->nin == 2 && es_find(&e->in[!i], c) >= 0);

		if (other)
			kept.l[kept.n++] = c;
		else
			axes[na++] = d;
	}
	if (!na)
		return x;
	*t = kept;
	return lz_reduce(b, IR_OP_REDUCE_SUM, x, axes, na, 0, NULL);
}

/* Transpose @x (letters @from) into the order @to, when it is another. */
static struct ir_tensor *es_permute(struct lz_builder *b, struct ir_tensor *x,
				    const struct es_term *from,
				    const struct es_term *to)
{
	int64_t perm[ES_MAX];
	bool id = true;

	for (int d = 0; d < to->n; d++) {
		perm[d] = es_find(from, to->l[d]);
		id &= perm[d] == d;
	}
	return id ? x : lz_transpose(b, x, perm, to->n, NULL);
}

/*
 * Two operands, their own letters summed out: A [batch, free A,
 * contracted] @ B [batch, contracted, free B], @ext each letter's extent.
 */
static int es_two(struct es_eq *e, const int64_t *ext, struct lz_builder *b,
		  struct ir_tensor *a, struct ir_tensor *bb,
		  struct ir_tensor *out)
{
	struct es_term ta = { .n = 0 }, tb = { .n = 0 }, tm = { .n = 0 };
	int64_t da[3], db[3], dm[ES_MAX], bp = 1, fa = 1, fb = 1, k = 1;
	bool batch = false;
	struct ir_tensor *y;

	for (int d = 0; d < e->out.n; d++) {	/* batch, the output's order */
		char c = e->out.l[d];

		if (es_find(&e->in[0], c) >= 0 && es_find(&e->in[1], c) >= 0) {
			ta.l[ta.n++] = tb.l[tb.n++] = c;
			dm[tm.n] = ext[(int)c];
			tm.l[tm.n++] = c;
			bp *= ext[(int)c];
			batch = true;
		}
	}
	for (int d = 0; d < e->in[0].n; d++) {	/* free A */
		char c = e->in[0].l[d];

		if (es_find(&e->in[1], c) < 0) {
			ta.l[ta.n++] = c;
			dm[tm.n] = ext[(int)c];
			tm.l[tm.n++] = c;
			fa *= ext[(int)c];
		}
	}
	for (int d = 0; d < e->in[0].n; d++) {	/* contracted */
		char c = e->in[0].l[d];

		if (es_find(&e->in[1], c) >= 0 && es_find(&e->out, c) < 0) {
			ta.l[ta.n++] = tb.l[tb.n++] = c;
			k *= ext[(int)c];
		}
	}
	for (int d = 0; d < e->in[1].n; d++) {	/* free B */
		char c = e->in[1].l[d];

		if (es_find(&e->in[0], c) < 0) {
			tb.l[tb.n++] = c;
			dm[tm.n] = ext[(int)c];
			tm.l[tm.n++] = c;
			fb *= ext[(int)c];
		}
	}
	da[0] = db[0] = bp;
	da[1] = fa;
	da[2] = db[1] = k;
	db[2] = fb;
	a = es_permute(b, a, &e->in[0], &ta);
	bb = es_permute(b, bb, &e->in[1], &tb);
	a = lz_reshape(b, a, batch ? da : da + 1, batch ? 3 : 2, NULL);
	bb = lz_reshape(b, bb, batch ? db : db + 1, batch ? 3 : 2, NULL);
	y = lz_binary(b, IR_OP_MATMUL, a, bb, NULL);
	y = lz_reshape(b, y, dm, tm.n, NULL);
	if (!y)
		return -ENOMEM;
	y = es_permute(b, y, &tm, &e->out);
	return lz_unary(b, IR_OP_IDENTITY, y, out) ? 1 : -ENOMEM;
}

/* Each letter's extent; a letter of two extents is an error. */
static int es_extents(struct ir_graph *g, const struct ir_node *n,
		      const struct es_eq *e, int64_t *ext)
{
	for (int i = 0; i < e->nin; i++)
		for (int d = 0; d < e->in[i].n; d++) {
			char c = e->in[i].l[d];
			int64_t v = n->inputs[i]->shape.dim[d];

			if (ext[(int)c] >= 0 && ext[(int)c] != v)
				return ir_error(g, "node '%s' (Einsum): dim "
						"'%c' is %lld and %lld (no "
						"broadcasting)", n->name, c,
						(long long)ext[(int)c],
						(long long)v);
			ext[(int)c] = v;
		}
	for (int d = 0; d < e->out.n; d++)
		if (ext[(int)e->out.l[d]] < 0 || es_find(&e->out,
							 e->out.l[d]) != d)
			return ir_error(g, "node '%s' (Einsum): output dim "
					"'%c' names no operand dim, or twice",
					n->name, e->out.l[d]);
	return 0;
}

/* Operand @i's diagonals (a letter twice): x with each taken. */
static struct ir_tensor *es_diagonals(struct lz_builder *b, struct es_eq *e,
				      int i, struct ir_tensor *x,
				      const int64_t *ext)
{
	struct es_term *t = &e->in[i];

	for (int d2 = 1; d2 < t->n && x; d2++) {
		int d1 = es_find(t, t->l[d2]), k = 0;
		int64_t perm[ES_MAX], dims[ES_MAX], idx[1024], m;
		struct es_term nt = { .n = 0 };
		struct ir_tensor *ins[2];

		if (d1 == d2)
			continue;
		m = ext[(int)t->l[d2]];
		if (m > 1024)
			return NULL;
		for (int d = 0; d < t->n; d++)
			if (d != d1 && d != d2) {
				perm[k] = d;
				dims[k] = ext[(int)t->l[d]];
				nt.l[nt.n++] = t->l[d];
				k++;
			}
		perm[k] = d1;
		perm[k + 1] = d2;
		dims[k] = m * m;
		nt.l[nt.n++] = t->l[d2];
		for (int64_t j = 0; j < m; j++)
			idx[j] = j * (m + 1);
		x = lz_transpose(b, x, perm, t->n, NULL);
		x = lz_reshape(b, x, dims, k + 1, NULL);
		ins[0] = x;
		ins[1] = lz_i64(b->g, idx, (int)m);
		x = x ? lz_node(b, IR_OP_GATHER, 2, ins, x->dtype, NULL) : NULL;
		if (x && ir_attr_set_int(x->producer, "axis", k))
			return NULL;
		*t = nt;
		d2 = 0;		/* the term changed: look again */
	}
	return x;
}

int shape_legalize_einsum(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x[2] = { NULL }, *out;
	int64_t ext[128];
	struct lz_builder b;
	struct es_eq e;
	int ret;

	for (int i = 0; i < n->num_inputs && i < 2; i++) {
		x[i] = n->inputs[i];
		if (!x[i] || !ir_shape_is_static(&x[i]->shape) ||
		    (x[i]->dtype != IR_F32 && x[i]->dtype != IR_F16))
			return ir_error(g, "node '%s' (Einsum): operands of "
					"static shapes, f32 or f16, are "
					"supported", n->name);
	}
	ret = es_parse(g, n, &e);
	for (int c = 0; c < 128; c++)
		ext[c] = -1;
	if (!ret)
		ret = es_extents(g, n, &e, ext);
	if (ret)
		return ret;
	for (int i = 0; i < e.nin; i++)
		for (int d = 0; d < e.in[i].n; d++)
			if (ext[(int)e.in[i].l[d]] > 1024 &&
			    es_find(&e.in[i], e.in[i].l[d]) != d)
				return ir_error(g, "node '%s' (Einsum): a "
						"diagonal of more than 1024 is "
						"not supported", n->name);
	out = lz_take(&b, g, n);
	for (int i = 0; i < e.nin; i++) {
		x[i] = es_diagonals(&b, &e, i, x[i], ext);
		if (!x[i])
			return -ENOMEM;
	}
	x[0] = es_reduce_own(&b, &e, 0, x[0]);
	if (e.nin == 2) {
		x[1] = es_reduce_own(&b, &e, 1, x[1]);
		return x[0] && x[1] ? es_two(&e, ext, &b, x[0], x[1], out) :
				      -ENOMEM;
	}
	x[0] = es_permute(&b, x[0], &e.in[0], &e.out);
	return lz_unary(&b, IR_OP_IDENTITY, x[0], out) ? 1 : -ENOMEM;
}
