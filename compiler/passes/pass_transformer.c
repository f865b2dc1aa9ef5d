// SPDX-License-Identifier: MIT
/*
 * pass_transformer.c - transformer patterns from their decomposed ONNX
 * forms: GELU, LayerNorm and attention (MatMul-Softmax-MatMul).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* @n is a binary @op of (@x, scalar const) in either order; *v = scalar. */
static bool bin_with_const(const struct ir_node *n, enum ir_op op,
			   const struct ir_tensor *x, double *v)
{
	int k;

	if (!n || n->op != op || n->num_inputs != 2 || !pu_plain(n))
		return false;
	for (k = 0; k < 2; k++) {
		if ((x == NULL || n->inputs[k] == x) &&
		    ir_tensor_numel(n->inputs[1 - k]) == 1 &&
		    pu_const_uniform(n->inputs[1 - k], v)) {
			/* a constant on the left of Div/Sub means 1/x, c-x */
			if (k == 1 && (op == IR_OP_DIV || op == IR_OP_SUB))
				return false;
			return true;
		}
	}
	return false;
}

/* The non-constant input of a binary-with-scalar node. */
static struct ir_tensor *bin_var(const struct ir_node *n)
{
	return n->inputs[0]->data ? n->inputs[1] : n->inputs[0];
}

static struct ir_node *sole_user(const struct ir_tensor *t)
{
	return pu_single_use(t) ? t->uses[0].node : NULL;
}

#define REPLACE_MAX_NODES	64

/* Is @t one of the @nin inputs of the node replacing a subgraph? */
static bool is_in(struct ir_tensor *const *ins, int nin,
		  const struct ir_tensor *t)
{
	for (int k = 0; k < nin; k++)
		if (ins[k] == t)
			return true;
	return false;
}

/*
 * Replace the subgraph ending in @last (output kept) by a new node. The
 * nodes of the subgraph (ancestors of @last up to @ins that nothing else
 * reads any more) are removed here, and the new node names all of them
 * as its provenance (ir_node.origins).
 */
static struct ir_node *replace_by(struct ir_graph *g, struct ir_node *last,
				  enum ir_op op, const char *name, int nin,
				  struct ir_tensor **ins)
{
	struct ir_tensor *out = last->outputs[0];
	struct ir_node *sub[REPLACE_MAX_NODES], *n;
	int ns = 0, i, j, k;
	bool again = true;

	/* the candidates: @last's ancestors, stopping at @ins */
	sub[ns++] = last;
	for (i = 0; i < ns; i++)
		for (k = 0; k < sub[i]->num_inputs; k++) {
			struct ir_tensor *t = sub[i]->inputs[k];
			struct ir_node *p = t ? t->producer : NULL;

			if (!p || t->data || is_in(ins, nin, t))
				continue;
			for (j = 0; j < ns && sub[j] != p; j++)
				;
			if (j == ns && ns < REPLACE_MAX_NODES)
				sub[ns++] = p;
		}
	n = ir_node_new(g, op, name, nin, ins, 0, NULL);
	if (!n)
		return NULL;
	(void)ir_node_add_origins(n, last);
	ir_node_remove(g, last);
	n->num_outputs = 1;
	ir_node_set_output(n, 0, out);
	/* drop the candidates nothing reads any more, naming them */
	while (again) {
		again = false;
		for (j = 1; j < ns; j++) {
			bool dead = sub[j] != NULL;

			for (k = 0; dead && k < sub[j]->num_outputs; k++)
				if (sub[j]->outputs[k] &&
				    (sub[j]->outputs[k]->num_uses ||
				     sub[j]->outputs[k]->is_output))
					dead = false;
			if (dead) {
				(void)ir_node_add_origins(n, sub[j]);
				ir_node_remove(g, sub[j]);
				sub[j] = NULL;
				again = true;
			}
		}
	}
	/* removed from the end backwards: list them in graph order */
	for (i = 0, j = n->num_origins - 1; i < j; i++, j--) {
		char *tmp = n->origins[i];

		n->origins[i] = n->origins[j];
		n->origins[j] = tmp;
	}
	return n;
}

/*
 * Try @fuse_at (1: fused, 0: no match, < 0: error) on every node; after a
 * fusion the node array changed, so re-sort and rescan from the start.
 */
static int fuse_everywhere(struct ir_graph *g, struct pass_stats *st,
			   int (*fuse_at)(struct ir_graph *g,
					  struct ir_node *n,
					  struct pass_stats *st))
{
	struct ir_node **nodes;
	int i, n, ret, changed;

	do {
		nodes = pu_snapshot(g, &n);
		if (!nodes)
			return -ENOMEM;
		changed = 0;
		for (i = 0; i < n; i++) {
			/* every pattern starts at a node's input 0 */
			if (nodes[i]->dead || !nodes[i]->num_inputs ||
			    !nodes[i]->inputs[0])
				continue;
			ret = fuse_at(g, nodes[i], st);
			if (ret < 0) {
				free(nodes);
				return ret;
			}
			if (ret)
				changed = 1;
		}
		free(nodes);
		if (changed && ir_graph_toposort(g))
			return -EINVAL;
	} while (changed);
	return 0;
}

/* --- GELU: x * 0.5 * (1 + erf(x / sqrt(2))) ------------------------------- */

/*
 * The common tail of both GELU forms: f = erf(..) or tanh(..), then
 * 0.5 * x * (1 + f) in any of the orders exporters write. Returns the last
 * node of the pattern or NULL.
 */
static struct ir_node *match_gelu_tail(struct ir_node *f, struct ir_tensor *x)
{
	struct ir_node *a, *p, *q, *h;
	struct ir_tensor *other;
	double v;

	a = sole_user(f->outputs[0]);
	if (!bin_with_const(a, IR_OP_ADD, f->outputs[0], &v) || v != 1.0)
		return NULL;
	p = sole_user(a->outputs[0]);
	if (!p || p->op != IR_OP_MUL || !pu_plain(p) || p->num_inputs != 2)
		return NULL;
	other = p->inputs[0] == a->outputs[0] ? p->inputs[1] : p->inputs[0];
	if (other == x) {
		/* (x * (1 + f)) * 0.5 */
		q = sole_user(p->outputs[0]);
		if (bin_with_const(q, IR_OP_MUL, p->outputs[0], &v) && v == 0.5)
			return q;
		return NULL;
	}
	h = other->producer;
	if (h && pu_single_use(other) &&
	    bin_with_const(h, IR_OP_MUL, x, &v) && v == 0.5)
		return p;	/* (x * 0.5) * (1 + f) */
	if (ir_tensor_is_const(other) && pu_const_uniform(other, &v) &&
	    v == 0.5) {
		/* ((1 + f) * 0.5) * x */
		q = sole_user(p->outputs[0]);
		if (q && q->op == IR_OP_MUL && pu_plain(q) &&
		    pu_input_index(q, x) >= 0)
			return q;
	}
	return NULL;
}

/* erf form: x * 0.5 * (1 + erf(x / sqrt(2))) */
static struct ir_node *match_gelu_erf(struct ir_node *erf,
				      struct ir_tensor **xp)
{
	struct ir_node *u;
	double v;

	if (erf->op != IR_OP_ERF || !erf->inputs[0] ||
	    !pu_single_use(erf->inputs[0]))
		return NULL;
	u = erf->inputs[0]->producer;
	if (!u)
		return NULL;
	if (!(bin_with_const(u, IR_OP_DIV, NULL, &v) &&
	      pu_near(v, M_SQRT2, 1e-4)) &&
	    !(bin_with_const(u, IR_OP_MUL, NULL, &v) &&
	      pu_near(v, M_SQRT1_2, 1e-4)))
		return NULL;
	*xp = bin_var(u);
	return match_gelu_tail(erf, *xp);
}

/*
 * tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))),
 * x^3 as Pow(x, 3) or x * x * x.
 */
static struct ir_node *match_gelu_tanh(struct ir_node *th,
				       struct ir_tensor **xp)
{
	struct ir_node *u, *s, *c, *p3;
	struct ir_tensor *x, *cube;
	double v;
	int k;

	if (th->op != IR_OP_TANH || !th->inputs[0] ||
	    !pu_single_use(th->inputs[0]))
		return NULL;
	u = th->inputs[0]->producer;
	if (!bin_with_const(u, IR_OP_MUL, NULL, &v) ||
	    !pu_near(v, 0.7978845608028654, 1e-4))
		return NULL;
	s = bin_var(u)->producer;
	if (!s || s->op != IR_OP_ADD || !pu_plain(s) || s->num_inputs != 2 ||
	    !pu_single_use(bin_var(u)))
		return NULL;
	for (k = 0; k < 2; k++) {
		x = s->inputs[k];
		c = s->inputs[1 - k]->producer;
		if (!c || !pu_single_use(s->inputs[1 - k]) ||
		    !bin_with_const(c, IR_OP_MUL, NULL, &v) ||
		    !pu_near(v, 0.044715, 1e-4))
			continue;
		cube = bin_var(c);
		p3 = cube->producer;
		if (!p3 || !pu_single_use(cube))
			continue;
		if (bin_with_const(p3, IR_OP_POW, x, &v) && v == 3.0)
			break;
		if (p3->op == IR_OP_MUL && pu_plain(p3) &&
		    pu_input_index(p3, x) >= 0) {
			struct ir_tensor *sq = p3->inputs[0] == x ?
					       p3->inputs[1] : p3->inputs[0];
			struct ir_node *m2 = sq->producer;

			if (m2 && m2->op == IR_OP_MUL && pu_plain(m2) &&
			    pu_single_use(sq) && m2->inputs[0] == x &&
			    m2->inputs[1] == x)
				break;
		}
	}
	if (k == 2)
		return NULL;
	*xp = x;
	return match_gelu_tail(th, x);
}

int pass_gelu_fusion(struct ir_graph *g, struct pass_stats *st)
{
	struct ir_node **nodes;
	int i, num, changed;

again:
	nodes = pu_snapshot(g, &num);
	if (!nodes)
		return -ENOMEM;
	changed = 0;
	for (i = 0; i < num; i++) {
		struct ir_tensor *x = NULL;
		struct ir_node *last, *n;
		bool tanh_form = false;
		char name[300];

		if (nodes[i]->dead)
			continue;
		last = match_gelu_erf(nodes[i], &x);
		if (!last) {
			last = match_gelu_tanh(nodes[i], &x);
			tanh_form = last != NULL;
		}
		if (!last || x->dtype != IR_F32)
			continue;
		snprintf(name, sizeof(name), "%.280s/gelu", nodes[i]->name);
		n = replace_by(g, last, IR_OP_GELU, name, 1, &x);
		if (!n) {
			free(nodes);
			return -ENOMEM;
		}
		if (tanh_form)
			ir_attr_set_str(n, "approximate", "tanh");
		st->fused += pu_sweep(g) + 1;
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

/* --- LayerNorm ------------------------------------------------------------ */

/* ReduceMean over the trailing axes with keepdims; *first = first axis. */
static bool trailing_mean(const struct ir_node *r, int *first)
{
	const struct ir_tensor *x = r->inputs[0];
	int64_t axes[IR_MAX_RANK];
	bool red[IR_MAX_RANK] = { false };
	const int64_t *av;
	int na, i, rank = x->shape.rank;

	if (r->op != IR_OP_REDUCE_MEAN || !ir_attr_int(r, "keepdims", 1))
		return false;
	if (ir_in(r, 1)) {
		if (!r->inputs[1]->data)
			return false;
		na = (int)ir_tensor_numel(r->inputs[1]);
		for (i = 0; i < na && i < IR_MAX_RANK; i++)
			axes[i] = ir_const_get_i(r->inputs[1], i);
	} else {
		na = ir_attr_ints(r, "axes", &av);
		for (i = 0; i < na && i < IR_MAX_RANK; i++)
			axes[i] = av[i];
	}
	if (na < 1 || na > rank)
		return false;
	for (i = 0; i < na; i++)
		red[axes[i] < 0 ? axes[i] + rank : axes[i]] = true;
	for (i = 0; i < rank; i++)
		if (red[i] != (i >= rank - na))
			return false;
	*first = rank - na;
	return true;
}

/* Does @p broadcast to x's dims [first:]? */
static bool affine_ok(const struct ir_tensor *p, const struct ir_tensor *x,
		      int first)
{
	int i, lead;

	if (!p->data || p->dtype != IR_F32 || p->shape.rank > x->shape.rank -
	    first)
		return false;
	lead = x->shape.rank - p->shape.rank;
	for (i = 0; i < p->shape.rank; i++)
		if (p->shape.dim[i] != 1 &&
		    p->shape.dim[i] != x->shape.dim[lead + i])
			return false;
	return true;
}

static int fuse_layernorm_at(struct ir_graph *g, struct ir_node *r1,
			     struct pass_stats *st)
{
	struct ir_node *sub, *pw, *r2, *add, *sq, *dv, *mul, *bias, *last;
	struct ir_tensor *x = r1->inputs[0], *d, *gamma = NULL, *beta = NULL;
	struct ir_tensor *ins[3];
	int first, first2, k;
	double v, eps;
	struct ir_node *ln;
	char name[300];

	if (x->dtype != IR_F32 || !trailing_mean(r1, &first))
		return 0;
	sub = sole_user(r1->outputs[0]);
	if (!sub || sub->op != IR_OP_SUB || !pu_plain(sub) ||
	    sub->inputs[0] != x || sub->inputs[1] != r1->outputs[0])
		return 0;
	d = sub->outputs[0];
	if (d->num_uses != 2 || d->is_output)
		return 0;
	pw = d->uses[0].node;
	dv = d->uses[1].node;
	if (pw->op == IR_OP_DIV) {
		struct ir_node *tmp = pw;

		pw = dv;
		dv = tmp;
	}
	if (!(bin_with_const(pw, IR_OP_POW, d, &v) && v == 2.0) &&
	    !(pw->op == IR_OP_MUL && pu_plain(pw) && pw->inputs[0] == d &&
	      pw->inputs[1] == d))
		return 0;
	r2 = sole_user(pw->outputs[0]);
	if (!r2 || !trailing_mean(r2, &first2) || first2 != first)
		return 0;
	add = sole_user(r2->outputs[0]);
	if (!bin_with_const(add, IR_OP_ADD, r2->outputs[0], &eps))
		return 0;
	sq = sole_user(add->outputs[0]);
	if (!sq || sq->op != IR_OP_SQRT)
		return 0;
	if (!dv || dv->op != IR_OP_DIV || !pu_plain(dv) ||
	    dv->inputs[0] != d || dv->inputs[1] != sq->outputs[0] ||
	    !pu_single_use(sq->outputs[0]))
		return 0;
	last = dv;
	mul = sole_user(dv->outputs[0]);
	if (mul && mul->op == IR_OP_MUL && pu_plain(mul)) {
		k = mul->inputs[0] == dv->outputs[0] ? 1 : 0;
		if (affine_ok(mul->inputs[k], x, first) &&
		    ir_shape_equal(&mul->outputs[0]->shape, &x->shape)) {
			gamma = mul->inputs[k];
			last = mul;
			bias = sole_user(mul->outputs[0]);
			if (bias && bias->op == IR_OP_ADD && pu_plain(bias)) {
				k = bias->inputs[0] == mul->outputs[0] ? 1 : 0;
				if (affine_ok(bias->inputs[k], x, first) &&
				    ir_shape_equal(&bias->outputs[0]->shape,
						   &x->shape)) {
					beta = bias->inputs[k];
					last = bias;
				}
			}
		}
	}
	if (!gamma) {
		struct ir_shape s = { .rank = x->shape.rank - first };
		int64_t nel = 1, i;
		double *ones;

		for (i = 0; i < s.rank; i++) {
			s.dim[i] = x->shape.dim[first + i];
			nel *= s.dim[i];
		}
		ones = malloc((size_t)nel * sizeof(*ones));
		if (!ones)
			return -ENOMEM;
		for (i = 0; i < nel; i++)
			ones[i] = 1.0;
		gamma = pu_const_f32(g, NULL, &s, ones);
		free(ones);
		if (!gamma)
			return -ENOMEM;
	}
	ins[0] = x;
	ins[1] = gamma;
	ins[2] = beta;
	snprintf(name, sizeof(name), "%.280s/layernorm", r1->name);
	ln = replace_by(g, last, IR_OP_LAYER_NORM, name, beta ? 3 : 2, ins);
	if (!ln)
		return -ENOMEM;
	ir_attr_set_int(ln, "axis", first);
	ir_attr_set_float(ln, "epsilon", (float)eps);
	st->fused += pu_sweep(g) + 1;
	return 1;
}

int pass_layernorm_fusion(struct ir_graph *g, struct pass_stats *st)
{
	return fuse_everywhere(g, st, fuse_layernorm_at);
}

/* --- attention: MatMul(q, k^T) [* scale] [+ mask] -> Softmax -> MatMul(., v) */

static int fuse_attention_at(struct ir_graph *g, struct ir_node *sm,
			     struct pass_stats *st)
{
	struct ir_node *m1, *m2, *sc = NULL, *mk = NULL, *qs, *tr, *at;
	struct ir_tensor *s_in, *q, *kt, *v, *mask = NULL, *kk, *ins[4];
	int64_t perm[IR_MAX_RANK], axis;
	double scale = 1.0, c;
	int r, i;
	char name[300];
	struct ir_shape ks;

	if (sm->op != IR_OP_SOFTMAX || !sm->inputs[0] ||
	    sm->inputs[0]->dtype != IR_F32)
		return 0;
	r = sm->inputs[0]->shape.rank;
	axis = ir_attr_int(sm, "axis", sm->opset >= 13 ? -1 : 1);
	if (r < 2 || (axis != -1 && axis != r - 1) ||
	    (sm->opset < 13 && axis != r - 1))
		return 0;
	s_in = sm->inputs[0];
	if (!pu_single_use(s_in))
		return 0;
	mk = s_in->producer;
	if (mk && (mk->op != IR_OP_ADD || !pu_plain(mk) ||
		   mk->num_inputs != 2))
		mk = NULL;
	for (i = 0; mk && i < 2; i++) {
		struct ir_tensor *cand = mk->inputs[i];
		struct ir_node *p = cand->producer;

		if (p && (p->op == IR_OP_MATMUL || p->op == IR_OP_MUL ||
			  p->op == IR_OP_DIV) && pu_single_use(cand) &&
		    !cand->data) {
			mask = mk->inputs[1 - i];
			s_in = cand;
			break;
		}
	}
	sc = s_in->producer;
	if (sc && (bin_with_const(sc, IR_OP_MUL, NULL, &c) ||
		   bin_with_const(sc, IR_OP_DIV, NULL, &c)) &&
	    pu_single_use(s_in) && c != 0) {
		scale = sc->op == IR_OP_MUL ? c : 1.0 / c;
		s_in = bin_var(sc);
	} else {
		sc = NULL;
	}
	m1 = pu_producer(s_in, IR_OP_MATMUL);
	if (!m1 || !pu_plain(m1) || m1->num_inputs != 2 ||
	    !pu_single_use(s_in))
		return 0;
	m2 = sole_user(sm->outputs[0]);
	if (!m2 || m2->op != IR_OP_MATMUL || !pu_plain(m2) ||
	    m2->num_inputs != 2 || m2->inputs[0] != sm->outputs[0])
		return 0;
	q = m1->inputs[0];
	kt = m1->inputs[1];
	v = m2->inputs[1];
	if (q->shape.rank < 2 || kt->shape.rank < 2 || v->shape.rank < 2)
		return 0;
	if (mask && (mask->dtype != IR_F32 && mask->dtype != IR_BOOL))
		return 0;
	/* fold a scalar scale on q (torch divides q by sqrt(d) first) */
	qs = q->producer;
	if (qs && (bin_with_const(qs, IR_OP_DIV, NULL, &c) ||
		   bin_with_const(qs, IR_OP_MUL, NULL, &c)) &&
	    pu_single_use(q) && c != 0) {
		scale *= qs->op == IR_OP_MUL ? c : 1.0 / c;
		q = bin_var(qs);
	}
	/* the device takes k as [.., Sk, D]: transpose k^T back */
	r = kt->shape.rank;
	for (i = 0; i < r; i++)
		perm[i] = i;
	perm[r - 2] = r - 1;
	perm[r - 1] = r - 2;
	ks = kt->shape;
	ks.dim[r - 2] = kt->shape.dim[r - 1];
	ks.dim[r - 1] = kt->shape.dim[r - 2];
	kk = ir_tensor_new(g, NULL, IR_F32, &ks);
	if (!kk)
		return -ENOMEM;
	snprintf(name, sizeof(name), "%.280s/k", m1->name);
	tr = ir_node_new(g, IR_OP_TRANSPOSE, name, 1, &kt, 1, &kk);
	if (!tr)
		return -ENOMEM;
	ir_attr_set_ints(tr, "perm", perm, r);
	ins[0] = q;
	ins[1] = kk;
	ins[2] = v;
	ins[3] = mask;
	snprintf(name, sizeof(name), "%.280s/attention", sm->name);
	at = replace_by(g, m2, IR_OP_ATTENTION, name, mask ? 4 : 3, ins);
	if (!at)
		return -ENOMEM;
	ir_attr_set_float(at, "scale", (float)scale);
	st->fused += pu_sweep(g) + 1;
	st->rewritten++;	/* the Transpose made for k */
	return 1;
}

int pass_attention_fusion(struct ir_graph *g, struct pass_stats *st)
{
	return fuse_everywhere(g, st, fuse_attention_at);
}
