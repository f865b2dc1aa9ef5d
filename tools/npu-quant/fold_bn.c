// SPDX-License-Identifier: MIT
/*
 * fold_bn.c - fold inference BatchNormalization into the Conv before it,
 * in the ModelProto, before npu-quant calibrates and quantizes.
 *
 * A Conv followed by a BatchNormalization is one convolution with scaled
 * weights and a new bias:
 *
 *   s = scale / sqrt(var + eps)
 *   W'[o] = W[o] * s[o],  b'[o] = (b[o] - mean[o]) * s[o] + B[o]
 *
 * Quantizing the pair as it stands would put the int8 weights before the
 * BatchNormalization, and the compiler then cannot fuse the QDQ pattern
 * into an int8 convolution (the float BatchNormalization sits between the
 * Conv and its output's QuantizeLinear): the "int8" model would run float
 * convolutions between QUANTIZE and DEQUANTIZE tasks, slower than the
 * float model. Post-training quantizers fold first for this reason (and
 * the folded weights' per-channel ranges are the ones that matter).
 *
 * Folded only when it is exact in structure: both operands constant
 * (initializers, float32, inside the file), the Conv's output read by the
 * BatchNormalization alone and not a graph output, no training mode, one
 * output. The arithmetic is done in double and rounded once to float, as
 * the compiler's own Conv-BN folding does.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold_bn.h"

static bool is_default(const char *d)
{
	return !d || !*d || !strcmp(d, "ai.onnx");
}

/* A node of op type @op (a node may come without one: never a match). */
static bool is_op(const Onnx__NodeProto *n, const char *op)
{
	return n->op_type && !strcmp(n->op_type, op);
}

static Onnx__TensorProto *find_init(const Onnx__GraphProto *g,
				    const char *name, size_t *index)
{
	for (size_t i = 0; name && *name && i < g->n_initializer; i++)
		if (g->initializer[i]->name &&
		    !strcmp(g->initializer[i]->name, name)) {
			if (index)
				*index = i;
			return g->initializer[i];
		}
	return NULL;
}

/* Inputs of all nodes, graph outputs: how often @name is read. */
static size_t uses(const Onnx__GraphProto *g, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_input; k++)
			n += g->node[i]->input[k] &&
			     !strcmp(g->node[i]->input[k], name);
	for (size_t i = 0; i < g->n_output; i++)
		n += g->output[i]->name && !strcmp(g->output[i]->name, name);
	return n;
}

static int64_t numel(const Onnx__TensorProto *t)
{
	int64_t n = 1;

	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0 || (t->dims[i] && n > INT64_MAX / t->dims[i]))
			return -1;
		n *= t->dims[i];
	}
	return n;
}

/* A float32 initializer's values (a new array), or NULL. */
static float *floats(const Onnx__TensorProto *t, int64_t want)
{
	int64_t n = t ? numel(t) : -1;
	float *v;

	if (!t || t->data_type != 1 || n != want || n <= 0 ||
	    t->n_external_data || (size_t)n > SIZE_MAX / sizeof(float))
		return NULL;
	if (t->has_raw_data ? t->raw_data.len != (size_t)n * 4 :
			      t->n_float_data != (size_t)n)
		return NULL;
	v = malloc((size_t)n * sizeof(float));
	if (!v)
		return NULL;
	if (t->has_raw_data)
		memcpy(v, t->raw_data.data, (size_t)n * 4);	/* LE host */
	else
		memcpy(v, t->float_data, (size_t)n * 4);
	return v;
}

/* Replace @t's data with @n floats @v (taken over). */
static void set_floats(Onnx__TensorProto *t, float *v, int64_t n)
{
	free(t->float_data);
	t->float_data = NULL;
	t->n_float_data = 0;
	free(t->raw_data.data);
	t->has_raw_data = 1;
	t->raw_data.data = (uint8_t *)v;
	t->raw_data.len = (size_t)n * 4;
}

static const char *attr_f(const Onnx__NodeProto *n, const char *name,
			  float *f)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name &&
		    !strcmp(n->attribute[i]->name, name)) {
			*f = n->attribute[i]->f;
			return name;
		}
	return NULL;
}

/* Every attribute named: a malformed node is left to the importer. */
static bool attrs_named(const Onnx__NodeProto *n)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (!n->attribute[i]->name || !*n->attribute[i]->name)
			return false;
	return true;
}

static bool attr_set(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name &&
		    !strcmp(n->attribute[i]->name, name) &&
		    n->attribute[i]->i)
			return true;
	return false;
}

/*
 * A new float initializer @name of dims @dims (@nd) appended to @g, taking
 * over @name and @v; on failure (NULL) the caller keeps both.
 */
static Onnx__TensorProto *add_init(Onnx__GraphProto *g, char *name, float *v,
				   const int64_t *dims, size_t nd)
{
	Onnx__TensorProto *t = calloc(1, sizeof(*t)), **arr;
	int64_t n = 1;

	if (!t)
		return NULL;
	onnx__tensor_proto__init(t);
	t->dims = malloc(nd * sizeof(int64_t));
	arr = realloc(g->initializer,
		      (g->n_initializer + 1) * sizeof(*g->initializer));
	if (arr)
		g->initializer = arr;
	if (!arr || !t->dims) {
		free(t->dims);
		free(t);
		return NULL;
	}
	memcpy(t->dims, dims, nd * sizeof(int64_t));
	for (size_t i = 0; i < nd; i++)
		n *= dims[i];
	t->n_dims = nd;
	t->name = name;
	t->has_data_type = 1;
	t->data_type = 1;
	set_floats(t, v, n);
	g->initializer[g->n_initializer++] = t;
	return t;
}

static void drop_node(Onnx__GraphProto *g, size_t i)
{
	onnx__node_proto__free_unpacked(g->node[i], NULL);
	memmove(&g->node[i], &g->node[i + 1],
		(g->n_node - i - 1) * sizeof(*g->node));
	g->n_node--;
}

static void drop_init_if_unused(Onnx__GraphProto *g, const char *name)
{
	size_t i;
	char *keep = strdup(name);

	if (keep && !uses(g, keep) && find_init(g, keep, &i)) {
		onnx__tensor_proto__free_unpacked(g->initializer[i], NULL);
		memmove(&g->initializer[i], &g->initializer[i + 1],
			(g->n_initializer - i - 1) * sizeof(*g->initializer));
		g->n_initializer--;
	}
	free(keep);
}

/* A name no tensor of @g has: @base + "_bnfold" (+ a number). */
static char *fresh_name(const Onnx__GraphProto *g, const char *base)
{
	size_t len = strlen(base) + 32;
	char *s = malloc(len);

	for (int k = 0; s; k++) {
		snprintf(s, len, k ? "%s_bnfold%d" : "%s_bnfold", base, k);
		if (!find_init(g, s, NULL) && !uses(g, s))
			return s;
	}
	return NULL;
}

/*
 * Input @idx of @c reads a new initializer of @v, dims @dims (@nd), named
 * after @base: @v is taken over on success. Return: 0 or -ENOMEM.
 */
static int use_new_init(Onnx__GraphProto *g, Onnx__NodeProto *c, size_t idx,
			const char *base, float *v, const int64_t *dims,
			size_t nd)
{
	char *name = fresh_name(g, base), *in = name ? strdup(name) : NULL;

	if (!in || !add_init(g, name, v, dims, nd)) {
		free(name);
		free(in);
		return -ENOMEM;
	}
	free(c->input[idx]);
	c->input[idx] = in;
	return 0;
}

/* Fold BN node @b into Conv node @c: 1 folded, 0 not foldable, -ENOMEM. */
static int fold_one(Onnx__GraphProto *g, Onnx__NodeProto *c,
		    Onnx__NodeProto *b)
{
	Onnx__TensorProto *wt = find_init(g, c->input[1], NULL);
	Onnx__TensorProto *bt = c->n_input > 2 && *c->input[2] ?
				find_init(g, c->input[2], NULL) : NULL;
	float eps = 1e-5f, *w = NULL, *bias = NULL, *sc = NULL, *sh = NULL;
	float *mean = NULL, *var = NULL;
	int64_t o, per, nw;
	bool shared_w, shared_b;
	char **in;
	int ret = 0;

	if (!wt || wt->n_dims < 3 || (c->n_input > 2 && *c->input[2] && !bt))
		return 0;
	o = wt->dims[0];
	nw = numel(wt);
	if (o <= 0 || nw <= 0 || nw % o)
		return 0;
	per = nw / o;
	attr_f(b, "epsilon", &eps);
	w = floats(wt, nw);
	bias = bt ? floats(bt, o) : calloc((size_t)o, sizeof(float));
	sc = floats(find_init(g, b->input[1], NULL), o);
	sh = floats(find_init(g, b->input[2], NULL), o);
	mean = floats(find_init(g, b->input[3], NULL), o);
	var = floats(find_init(g, b->input[4], NULL), o);
	if (!w || !bias || !sc || !sh || !mean || !var)
		goto out;
	for (int64_t i = 0; i < o; i++) {
		double s = (double)sc[i] / sqrt((double)var[i] + (double)eps);

		for (int64_t k = 0; k < per; k++)
			w[i * per + k] = (float)((double)w[i * per + k] * s);
		bias[i] = (float)(((double)bias[i] - (double)mean[i]) * s +
				  (double)sh[i]);
	}
	/* a weight or bias another node reads too gets a copy */
	shared_w = uses(g, c->input[1]) > 1;
	shared_b = bt && uses(g, c->input[2]) > 1;
	if (shared_w) {
		ret = use_new_init(g, c, 1, c->input[1], w, wt->dims,
				   wt->n_dims);
		if (ret)
			goto out;
	} else {
		set_floats(wt, w, nw);
	}
	w = NULL;
	if (bt && !shared_b) {
		set_floats(bt, bias, o);
	} else {
		if (c->n_input < 3) {
			in = realloc(c->input, 3 * sizeof(*in));
			if (!in) {
				ret = -ENOMEM;
				goto out;
			}
			c->input = in;
			c->input[2] = NULL;
			c->n_input = 3;
		}
		ret = use_new_init(g, c, 2, b->output[0], bias, &o, 1);
		if (ret)
			goto out;
	}
	bias = NULL;
	/* the Conv now writes what the BatchNormalization wrote */
	free(c->output[0]);
	c->output[0] = b->output[0];
	b->output[0] = NULL;
	b->n_output = 0;
	ret = 1;
out:
	free(w);
	free(bias);
	free(sc);
	free(sh);
	free(mean);
	free(var);
	return ret;
}

static Onnx__NodeProto *producer(const Onnx__GraphProto *g, const char *t)
{
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_output; k++)
			if (!strcmp(g->node[i]->output[k], t))
				return g->node[i];
	return NULL;
}

int npuq_fold_bn(Onnx__ModelProto *m, int *folded)
{
	Onnx__GraphProto *g = m->graph;

	*folded = 0;
	/*
	 * IR version 3 lists every initializer among the graph's inputs too:
	 * the folded parameters would stay behind as inputs to feed. Such
	 * models are quantized as they are.
	 */
	if (!m->has_ir_version || m->ir_version < 4)
		return 0;
	for (size_t i = 0; i < g->n_node;) {
		Onnx__NodeProto *b = g->node[i], *c;
		char *params[4];
		int r;

		if (!is_op(b, "BatchNormalization") ||
		    !is_default(b->domain) || b->n_input != 5 ||
		    b->n_output != 1 || !attrs_named(b) ||
		    attr_set(b, "training_mode")) {
			i++;
			continue;
		}
		c = producer(g, b->input[0]);
		if (!c || !is_op(c, "Conv") || !is_default(c->domain) ||
		    !attrs_named(c) ||
		    c->n_input < 2 || c->n_output != 1 ||
		    uses(g, c->output[0]) != 1) {
			i++;
			continue;
		}
		for (int k = 0; k < 4; k++)
			params[k] = strdup(b->input[k + 1]);
		r = fold_one(g, c, b);
		if (r > 0) {
			drop_node(g, i);
			for (int k = 0; k < 4; k++)
				if (params[k])
					drop_init_if_unused(g, params[k]);
			(*folded)++;
		} else {
			i++;
		}
		for (int k = 0; k < 4; k++)
			free(params[k]);
		if (r < 0)
			return -ENOMEM;
	}
	return 0;
}
