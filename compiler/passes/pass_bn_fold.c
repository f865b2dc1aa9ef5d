// SPDX-License-Identifier: MIT
/*
 * pass_bn_fold.c - fold an inference BatchNormalization into the Conv or
 * Gemm that feeds it.
 *
 * BN(y) = s * (y - mean) + beta with s = gamma / sqrt(var + eps), per
 * channel. For y = Conv(x, W, b): W'[o] = W[o] * s[o], b' = s * (b - mean) +
 * beta. For y = alpha * A * B + beta_g * C (Gemm): B' scales B's output
 * columns by s, C' = s * (beta_g * C - mean) + beta with beta_g' = 1. C
 * broadcasts to [M, N] by its own shape: a scalar, [N] or [1, N] (per
 * column) stays per column ([N]); [M, 1] (per row) or [M, N] becomes a full
 * [M, N], since the BN scale varies along the columns. Never by its element
 * count: [M, 1] has N elements when M == N.
 * New constants are made (weights may be shared); the arithmetic is done in
 * double and rounded once.
 */
#include <math.h>
#include <stdlib.h>

#include "derive.h"
#include "om_bigbuf.h"
#include "passes.h"

/* Per-channel scale s and shift (t = beta - mean * s) of a BN node. */
static int bn_params(const struct ir_node *bn, int64_t c, double *s,
		     double *t, double *mean)
{
	const struct ir_tensor *gm = bn->inputs[1], *bt = bn->inputs[2];
	const struct ir_tensor *mu = bn->inputs[3], *var = bn->inputs[4];
	double eps = ir_attr_float(bn, "epsilon", 1e-5f);
	int64_t i;

	if (!gm->data || !bt->data || !mu->data || !var->data ||
	    ir_tensor_numel(gm) != c || ir_tensor_numel(bt) != c ||
	    ir_tensor_numel(mu) != c || ir_tensor_numel(var) != c)
		return -1;
	/* ONNX computes sqrt(var + eps) in the tensor's type: f32 */
	for (i = 0; i < c; i++) {
		float v = (float)ir_const_get_f(var, i) + (float)eps;

		s[i] = ir_const_get_f(gm, i) / sqrt((double)v);
		mean[i] = ir_const_get_f(mu, i);
		t[i] = ir_const_get_f(bt, i) - mean[i] * s[i];
	}
	return 0;
}

static bool bn_foldable(const struct ir_node *bn)
{
	int i;

	if (bn->num_inputs != 5 || bn->act.kind != IR_ACT_NONE ||
	    bn->inputs[0]->dtype != IR_F32)
		return false;
	for (i = 1; i < bn->num_outputs; i++)
		if (bn->outputs[i] && (bn->outputs[i]->num_uses ||
				       bn->outputs[i]->is_output))
			return false;
	return true;
}

/* Per-channel BN factors and the folded weights and bias being built. */
struct bn_fold {
	double *s, *t, *mean;	/* scale, shift, running mean per channel */
	double *nw, *nb;	/* new weights (@nw_count), new bias */
};

static void bn_fold_release(struct bn_fold *f)
{
	free(f->s);
	free(f->t);
	free(f->mean);
	free(f->nw);
	free(f->nb);
}

/*
 * Allocate for @c channels and @nw_count weights and read the BN's factors:
 * 0, 1 when the BN cannot be folded, or -ENOMEM; release in every case.
 */
static int bn_fold_prepare(struct bn_fold *f, const struct ir_node *bn,
			   int64_t c, int64_t nw_count)
{
	f->s = calloc((size_t)c, sizeof(*f->s));
	f->t = calloc((size_t)c, sizeof(*f->t));
	f->mean = calloc((size_t)c, sizeof(*f->mean));
	f->nw = calloc((size_t)nw_count, sizeof(*f->nw));
	f->nb = calloc((size_t)c, sizeof(*f->nb));
	if (!f->s || !f->t || !f->mean || !f->nw || !f->nb)
		return -ENOMEM;
	return bn_params(bn, c, f->s, f->t, f->mean) ? 1 : 0;
}

/* @node reads the folded weight @tw and bias @tb (a new input if none). */
static int bn_fold_connect(struct ir_node *node, const struct ir_tensor *b,
			   struct ir_tensor *tw, struct ir_tensor *tb)
{
	int ret = ir_node_set_input(node, 1, tw);

	if (!ret)
		ret = b ? ir_node_set_input(node, 2, tb) :
			  ir_node_add_input(node, tb);
	return ret;
}

/*
 * Make the folded constants (f32 @nw shaped like @w, then @bs's elements
 * of bias, in one array) and wire them into @node as inputs 1 and 2 (a
 * new input when it had no bias).
 */
static int bn_fold_install(struct ir_graph *g, struct ir_node *node,
			   const struct ir_tensor *w,
			   const struct ir_tensor *b, const float *nw,
			   const struct ir_shape *bs)
{
	int64_t n = ir_tensor_numel(w);
	struct ir_tensor *tw, *tb;

	tw = ir_const_new(g, w->name, IR_F32, &w->shape, nw,
			  (size_t)n * sizeof(float));
	tb = ir_const_new(g, b ? b->name : NULL, IR_F32, bs, nw + n,
			  (size_t)ir_shape_numel(bs) * sizeof(float));
	if (!tw || !tb)
		return -ENOMEM;
	return bn_fold_connect(node, b, tw, tb);
}

/*
 * bn_fold_install() for a Conv, whose folded weights (@nw, the bias after
 * them) become the new weight's data instead of being copied: memory
 * from om_bigbuf_alloc() the weight owns from here on (@owned; freed on
 * failure), or the partition cache's bytes (derive_borrow()).
 */
static int bn_fold_adopt(struct ir_graph *g, struct ir_node *node,
			 const struct ir_tensor *w, const struct ir_tensor *b,
			 const float *nw, bool owned, const struct ir_shape *bs)
{
	size_t wbytes = (size_t)ir_tensor_numel(w) * sizeof(float);
	struct ir_tensor *tw, *tb;

	tb = ir_const_new(g, b ? b->name : NULL, IR_F32, bs,
			  nw + ir_tensor_numel(w),
			  (size_t)ir_shape_numel(bs) * sizeof(float));
	tw = tb ? ir_tensor_new(g, w->name, IR_F32, &w->shape) : NULL;
	if (!tw) {
		if (owned)
			free((void *)nw);
		return -ENOMEM;
	}
	if (owned)
		ir_tensor_adopt_data(tw, (void *)nw, wbytes);
	else
		ir_tensor_borrow_data(tw, nw, wbytes);
	return bn_fold_connect(node, b, tw, tb);
}

/* @nw[i * per + j] = W * s, then @nw[o * per + i] = b * s + t, as f32. */
static void fold_conv_values(const struct ir_tensor *w,
			     const struct ir_tensor *b, const struct bn_fold *f,
			     int64_t o, int64_t per, float *nw)
{
	for (int64_t i = 0; i < o; i++) {
		for (int64_t j = 0; j < per; j++)
			nw[i * per + j] = (float)(ir_const_get_f(w, i * per + j) *
						  f->s[i]);
		nw[o * per + i] = (float)((b ? ir_const_get_f(b, i) : 0.0) *
					  f->s[i] + f->t[i]);
	}
}

/*
 * The folded weights and bias of a Conv are a pure function of its weight
 * and bias and the BN's four constants and epsilon: derived constants
 * (derive.h), found in the partition cache when a compile kept them.
 */
static int fold_into_conv(struct ir_graph *g, struct ir_node *conv,
			  struct ir_node *bn)
{
	const struct ir_tensor *w = conv->inputs[1], *b = ir_in(conv, 2);
	int64_t o = w->shape.dim[0], per = ir_tensor_numel(w) / o;
	size_t n = (size_t)(o * per + o) * sizeof(float);
	struct ir_shape bs = { .rank = 1, .dim = { o } };
	struct bn_fold f = { 0 };
	const float *kept = NULL;
	struct derive d;
	float *nw = NULL;
	bool memo;
	int ret;

	if (!w->data || (b && !b->data) || conv->num_inputs > 3)
		return 1;
	ret = bn_fold_prepare(&f, bn, o, 1);
	if (ret)
		goto out;
	memo = derive_begin(&d, g, "bn-fold-conv/1");
	if (memo) {
		derive_tensor(&d, w);
		derive_tensor(&d, b);
		for (int k = 1; k < 5; k++)
			derive_tensor(&d, bn->inputs[k]);
		derive_f64(&d, ir_attr_float(bn, "epsilon", 1e-5f));
		kept = derive_borrow(&d, w, n);
	}
	if (kept) {
		ret = bn_fold_adopt(g, conv, w, b, kept, false, &bs);
	} else if (!(nw = om_bigbuf_alloc(n))) {
		ret = -ENOMEM;
	} else {
		fold_conv_values(w, b, &f, o, per, nw);
		if (memo)
			derive_keep(&d, w, nw, n);
		ret = bn_fold_adopt(g, conv, w, b, nw, true, &bs);
		nw = NULL;	/* the new weight's, or freed */
	}
	if (!ret)
		pu_absorb(g, conv, bn);
out:
	free(nw);
	bn_fold_release(&f);
	return ret;
}

/* bn_fold_install() of @f's doubles (Gemm's fold), rounded once to f32. */
static int install_doubles(struct ir_graph *g, struct ir_node *node,
			   const struct ir_tensor *w, const struct ir_tensor *b,
			   const struct bn_fold *f, const struct ir_shape *bs)
{
	int64_t n = ir_tensor_numel(w), m = ir_shape_numel(bs);
	float *v = malloc((size_t)(n + m) * sizeof(float) + 1);
	int ret;

	if (!v)
		return -ENOMEM;
	for (int64_t i = 0; i < n; i++)
		v[i] = (float)f->nw[i];
	for (int64_t i = 0; i < m; i++)
		v[n + i] = (float)f->nb[i];
	ret = bn_fold_install(g, node, w, b, v, bs);
	free(v);
	return ret;
}

static int fold_into_gemm(struct ir_graph *g, struct ir_node *gemm,
			  struct ir_node *bn)
{
	const struct ir_tensor *w = gemm->inputs[1], *c = ir_in(gemm, 2);
	bool tb = ir_attr_int(gemm, "transB", 0) != 0;
	int64_t m = gemm->outputs[0]->shape.dim[0];
	int64_t n = gemm->outputs[0]->shape.dim[1], k, i, j, cm = 1, cn = 1;
	double beta = ir_attr_float(gemm, "beta", 1.0f);
	struct ir_shape bs = { .rank = 1, .dim = { n } };
	struct bn_fold f = { 0 };
	int ret;

	if (!w->data || (c && !c->data) || w->shape.rank != 2 ||
	    (c && c->shape.rank > 2) || gemm->num_inputs > 3 ||
	    m < 0 || n < 0)
		return 1;
	if (c && c->shape.rank == 2)
		cm = c->shape.dim[0];
	if (c && c->shape.rank >= 1)
		cn = c->shape.dim[c->shape.rank - 1];
	/* C broadcasts to [M, N] by its shape (unidirectionally) */
	if ((cm != 1 && cm != m) || (cn != 1 && cn != n))
		return 1;
	if (cm != 1) {		/* per row or full: the folded bias is full */
		bs.rank = 2;
		bs.dim[0] = m;
		bs.dim[1] = n;
	}
	k = w->shape.dim[tb ? 1 : 0];
	/* nb holds bs elements: allocate for the larger of n and m * n */
	ret = bn_fold_prepare(&f, bn, n, n * k);
	if (!ret && cm != 1) {
		free(f.nb);
		f.nb = calloc((size_t)(m * n) + 1, sizeof(*f.nb));
		if (!f.nb)
			ret = -ENOMEM;
	}
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		for (j = 0; j < k; j++) {
			int64_t idx = tb ? i * k + j : j * n + i;

			f.nw[idx] = ir_const_get_f(w, idx) * f.s[i];
		}
	for (int64_t r = 0; r < (cm != 1 ? m : 1); r++)
		for (i = 0; i < n; i++) {
			double cv = c ? ir_const_get_f(c, (cm != 1 ? r : 0) *
						       cn + (cn != 1 ? i : 0))
				      : 0.0;

			f.nb[r * n + i] = beta * cv * f.s[i] + f.t[i];
		}
	ret = install_doubles(g, gemm, w, c, &f, &bs);
	if (!ret) {
		ir_attr_set_float(gemm, "beta", 1.0f);
		pu_absorb(g, gemm, bn);
	}
out:
	bn_fold_release(&f);
	return ret;
}

int pass_bn_fold(struct ir_graph *g, struct pass_stats *st)
{
	int i, ret;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *bn = g->nodes[i], *p;

		if (bn->op != IR_OP_BATCH_NORM || !bn_foldable(bn))
			continue;
		p = bn->inputs[0]->producer;
		if (!p || !pu_single_use(bn->inputs[0]) || !pu_plain(p))
			continue;
		if (p->op == IR_OP_CONV)
			ret = fold_into_conv(g, p, bn);
		else if (p->op == IR_OP_GEMM && bn->inputs[0]->shape.rank == 2)
			ret = fold_into_gemm(g, p, bn);
		else
			continue;
		if (ret < 0)
			return ret;
		if (!ret) {
			st->fused++;
			i = -1;
		}
	}
	return 0;
}
