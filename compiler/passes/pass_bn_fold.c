// SPDX-License-Identifier: MIT
/*
 * pass_bn_fold.c - fold an inference BatchNormalization into the Conv or
 * Gemm that feeds it.
 *
 * BN(y) = s * (y - mean) + beta with s = gamma / sqrt(var + eps), per
 * channel. For y = Conv(x, W, b): W'[o] = W[o] * s[o], b' = s * (b - mean) +
 * beta. For y = alpha * A * B + beta_g * C (Gemm): B' scales B's output
 * columns by s, C' = s * (beta_g * C - mean) + beta with beta_g' = 1.
 * New constants are made (weights may be shared); the arithmetic is done in
 * double and rounded once.
 */
#include <math.h>
#include <stdlib.h>

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

static int fold_into_conv(struct ir_graph *g, struct ir_node *conv,
			  struct ir_node *bn)
{
	const struct ir_tensor *w = conv->inputs[1], *b = ir_in(conv, 2);
	int64_t o = w->shape.dim[0], per = ir_tensor_numel(w) / o, i, j;
	double *s, *t, *mean, *nw, *nb;
	struct ir_tensor *tw, *tb;
	struct ir_shape bs = { .rank = 1, .dim = { o } };
	int ret = -ENOMEM;

	if (!w->data || (b && !b->data) || conv->num_inputs > 3)
		return 1;
	s = calloc((size_t)o, sizeof(*s));
	t = calloc((size_t)o, sizeof(*t));
	mean = calloc((size_t)o, sizeof(*mean));
	nw = calloc((size_t)(o * per), sizeof(*nw));
	nb = calloc((size_t)o, sizeof(*nb));
	if (!s || !t || !mean || !nw || !nb)
		goto out;
	if (bn_params(bn, o, s, t, mean)) {
		ret = 1;
		goto out;
	}
	for (i = 0; i < o; i++) {
		for (j = 0; j < per; j++)
			nw[i * per + j] = ir_const_get_f(w, i * per + j) * s[i];
		nb[i] = (b ? ir_const_get_f(b, i) : 0.0) * s[i] + t[i];
	}
	tw = pu_const_f32(g, w->name, &w->shape, nw);
	tb = pu_const_f32(g, b ? b->name : NULL, &bs, nb);
	if (!tw || !tb)
		goto out;
	ir_node_set_input(conv, 1, tw);
	if (b)
		ir_node_set_input(conv, 2, tb);
	else
		ir_node_add_input(conv, tb);
	pu_absorb(g, conv, bn);
	ret = 0;
out:
	free(s);
	free(t);
	free(mean);
	free(nw);
	free(nb);
	return ret;
}

static int fold_into_gemm(struct ir_graph *g, struct ir_node *gemm,
			  struct ir_node *bn)
{
	const struct ir_tensor *w = gemm->inputs[1], *c = ir_in(gemm, 2);
	bool tb = ir_attr_int(gemm, "transB", 0) != 0;
	int64_t n = gemm->outputs[0]->shape.dim[1], k, i, j;
	double beta = ir_attr_float(gemm, "beta", 1.0f);
	double *s, *t, *mean, *nw, *nc;
	struct ir_shape cs = { .rank = 1, .dim = { n } };
	struct ir_tensor *tw, *tc;
	int ret = -ENOMEM;

	if (!w->data || (c && !c->data) || w->shape.rank != 2 ||
	    (c && ir_tensor_numel(c) != 1 && ir_tensor_numel(c) != n) ||
	    gemm->num_inputs > 3)
		return 1;
	k = w->shape.dim[tb ? 1 : 0];
	s = calloc((size_t)n, sizeof(*s));
	t = calloc((size_t)n, sizeof(*t));
	mean = calloc((size_t)n, sizeof(*mean));
	nw = calloc((size_t)(n * k), sizeof(*nw));
	nc = calloc((size_t)n, sizeof(*nc));
	if (!s || !t || !mean || !nw || !nc)
		goto out;
	if (bn_params(bn, n, s, t, mean)) {
		ret = 1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		double cv = c ? ir_const_get_f(c, ir_tensor_numel(c) == 1 ?
						  0 : i) : 0.0;

		for (j = 0; j < k; j++) {
			int64_t idx = tb ? i * k + j : j * n + i;

			nw[idx] = ir_const_get_f(w, idx) * s[i];
		}
		nc[i] = beta * cv * s[i] + t[i];
	}
	tw = pu_const_f32(g, w->name, &w->shape, nw);
	tc = pu_const_f32(g, c ? c->name : NULL, &cs, nc);
	if (!tw || !tc)
		goto out;
	ir_node_set_input(gemm, 1, tw);
	if (c)
		ir_node_set_input(gemm, 2, tc);
	else
		ir_node_add_input(gemm, tc);
	ir_attr_set_float(gemm, "beta", 1.0f);
	pu_absorb(g, gemm, bn);
	ret = 0;
out:
	free(s);
	free(t);
	free(mean);
	free(nw);
	free(nc);
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
