// SPDX-License-Identifier: MIT
/*
 * op_chain.c - see op_chain.h.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "onnx/onnx.pb-c.h"
#include "op_chain.h"

static float *rnd(size_t n, float scale, unsigned int *s)
{
	float *p = malloc(n * sizeof(*p));

	for (size_t i = 0; p && i < n; i++) {
		*s = *s * 1103515245u + 12345u;
		p[i] = ((float)((*s >> 8) & 0xffff) / 65535.0f - 0.5f) * scale;
	}
	return p;
}

int chain_init(struct chain *ch, int cin, int c, int h, int w, int hidden,
	       int classes, int blocks, unsigned int seed)
{
	int feat = c * h * w;
	int bad = 0;

	memset(ch, 0, sizeof(*ch));
	if (blocks < 1 || blocks > CHAIN_MAX_BLOCKS)
		return -1;
	ch->cin = cin;
	ch->c = c;
	ch->h = h;
	ch->w = w;
	ch->hidden = hidden;
	ch->classes = classes;
	ch->blocks = blocks;
	for (int b = 0; b < blocks; b++) {
		int ci = b ? c : cin;

		ch->conv_w[b] = rnd((size_t)c * ci * 9, 1.0f / ci, &seed);
		ch->conv_b[b] = rnd((size_t)c, 0.2f, &seed);
		bad |= !ch->conv_w[b] || !ch->conv_b[b];
	}
	ch->w1 = rnd((size_t)feat * hidden, 4.0f / feat, &seed);
	ch->b1 = rnd((size_t)hidden, 0.2f, &seed);
	ch->w2 = rnd((size_t)hidden * classes, 8.0f / hidden, &seed);
	ch->x = rnd((size_t)cin * h * w, 2.0f, &seed);
	bad |= !ch->w1 || !ch->b1 || !ch->w2 || !ch->x;
	if (bad) {
		chain_free(ch);
		return -1;
	}
	return 0;
}

void chain_free(struct chain *ch)
{
	for (int b = 0; b < CHAIN_MAX_BLOCKS; b++) {
		free(ch->conv_w[b]);
		free(ch->conv_b[b]);
	}
	free(ch->w1);
	free(ch->b1);
	free(ch->w2);
	free(ch->x);
	memset(ch, 0, sizeof(*ch));
}

int chain_num_ops(const struct chain *ch)
{
	return 2 * ch->blocks + 6;
}

/* ---- graph mode: the ONNX graph ---- */

#define MAX_NODES	(2 * CHAIN_MAX_BLOCKS + 8)
#define MAX_INITS	(2 * CHAIN_MAX_BLOCKS + 8)

struct gb {
	Onnx__GraphProto g;
	Onnx__NodeProto nodes[MAX_NODES], *np[MAX_NODES];
	Onnx__TensorProto inits[MAX_INITS], *ip[MAX_INITS];
	int64_t idims[MAX_INITS][4];
	Onnx__AttributeProto attrs[MAX_NODES][3], *ap[MAX_NODES][3];
	char *ins[MAX_NODES][3], *outs[MAX_NODES];
	char names[MAX_NODES + MAX_INITS][32];
	int nn, ni, nnames;
	int64_t ones[2], pads[4];
};

static char *name(struct gb *b, const char *fmt, int i)
{
	char *n = b->names[b->nnames++];

	snprintf(n, sizeof(b->names[0]), fmt, i);
	return n;
}

static char *init_f32(struct gb *b, const char *fmt, int i, int rank,
		      const int64_t *dims, const float *data)
{
	Onnx__TensorProto *t = &b->inits[b->ni];
	size_t n = 1;

	onnx__tensor_proto__init(t);
	t->name = name(b, fmt, i);
	memcpy(b->idims[b->ni], dims, rank * sizeof(*dims));
	t->n_dims = rank;
	t->dims = b->idims[b->ni];
	t->has_data_type = 1;
	t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	for (int k = 0; k < rank; k++)
		n *= (size_t)dims[k];
	t->has_raw_data = 1;
	t->raw_data.len = n * sizeof(float);
	t->raw_data.data = (uint8_t *)data;
	b->ip[b->ni] = t;
	b->ni++;
	return t->name;
}

static Onnx__NodeProto *node(struct gb *b, const char *op, int nin,
			     char *in0, char *in1, char *in2, char *out)
{
	Onnx__NodeProto *n = &b->nodes[b->nn];

	onnx__node_proto__init(n);
	n->op_type = (char *)op;
	n->name = name(b, "node%d", b->nn);
	b->ins[b->nn][0] = in0;
	b->ins[b->nn][1] = in1;
	b->ins[b->nn][2] = in2;
	n->n_input = nin;
	n->input = b->ins[b->nn];
	b->outs[b->nn] = out;
	n->n_output = 1;
	n->output = &b->outs[b->nn];
	b->np[b->nn] = n;
	b->nn++;
	return n;
}

static void attr_ints(struct gb *b, Onnx__NodeProto *n, const char *nm,
		      int64_t *v, int cnt)
{
	int k = (int)n->n_attribute;
	int idx = (int)(n - b->nodes);
	Onnx__AttributeProto *a = &b->attrs[idx][k];

	onnx__attribute_proto__init(a);
	a->name = (char *)nm;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	a->n_ints = cnt;
	a->ints = v;
	b->ap[idx][k] = a;
	n->attribute = b->ap[idx];
	n->n_attribute = k + 1;
}

static void attr_int(struct gb *b, Onnx__NodeProto *n, const char *nm,
		     int64_t v)
{
	int k = (int)n->n_attribute;
	int idx = (int)(n - b->nodes);
	Onnx__AttributeProto *a = &b->attrs[idx][k];

	onnx__attribute_proto__init(a);
	a->name = (char *)nm;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = v;
	b->ap[idx][k] = a;
	n->attribute = b->ap[idx];
	n->n_attribute = k + 1;
}

uint8_t *chain_onnx(const struct chain *ch, size_t *len)
{
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	Onnx__OperatorSetIdProto os = ONNX__OPERATOR_SET_ID_PROTO__INIT;
	Onnx__OperatorSetIdProto *osp[1] = { &os };
	Onnx__TensorShapeProto__Dimension d[4], *dp[4];
	Onnx__TensorShapeProto shp = ONNX__TENSOR_SHAPE_PROTO__INIT;
	Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
	Onnx__TypeProto tp = ONNX__TYPE_PROTO__INIT;
	Onnx__ValueInfoProto vin = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto vout = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto *vins[1] = { &vin }, *vouts[1] = { &vout };
	Onnx__TensorProto shape_t = ONNX__TENSOR_PROTO__INIT;
	int64_t xd[4] = { 1, ch->cin, ch->h, ch->w };
	int64_t shape_v[2] = { 1, (int64_t)ch->c * ch->h * ch->w };
	int64_t shape_d[1] = { 2 };
	int64_t feat = shape_v[1];
	struct gb *b = calloc(1, sizeof(*b));
	char *cur = "x";
	Onnx__NodeProto *n;
	uint8_t *buf = NULL;

	if (!b)
		return NULL;
	onnx__graph_proto__init(&b->g);
	b->ones[0] = b->ones[1] = 1;
	for (int k = 0; k < 4; k++) {
		b->pads[k] = 1;
		onnx__tensor_shape_proto__dimension__init(&d[k]);
		d[k].value_case =
			ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d[k].dim_value = xd[k];
		dp[k] = &d[k];
	}
	for (int blk = 0; blk < ch->blocks; blk++) {
		int64_t wd[4] = { ch->c, blk ? ch->c : ch->cin, 3, 3 };
		int64_t bd[1] = { ch->c };
		char *w = init_f32(b, "conv%d_w", blk, 4, wd, ch->conv_w[blk]);
		char *bias = init_f32(b, "conv%d_b", blk, 1, bd,
				      ch->conv_b[blk]);
		char *co = name(b, "conv%d", blk), *ro = name(b, "relu%d", blk);

		n = node(b, "Conv", 3, cur, w, bias, co);
		attr_ints(b, n, "pads", b->pads, 4);
		attr_ints(b, n, "strides", b->ones, 2);
		node(b, "Relu", 1, co, NULL, NULL, ro);
		cur = ro;
	}
	onnx__tensor_proto__init(&shape_t);
	shape_t.name = "flat_shape";
	shape_t.n_dims = 1;
	shape_t.dims = shape_d;
	shape_t.has_data_type = 1;
	shape_t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
	shape_t.n_int64_data = 2;
	shape_t.int64_data = shape_v;
	b->ip[b->ni++] = &shape_t;
	node(b, "Reshape", 2, cur, "flat_shape", NULL, "flat");
	{
		int64_t w1d[2] = { feat, ch->hidden }, b1d[1] = { ch->hidden };
		int64_t w2d[2] = { ch->hidden, ch->classes };

		node(b, "MatMul", 2, "flat",
		     init_f32(b, "w1%d", 0, 2, w1d, ch->w1), NULL, "fc1");
		node(b, "Add", 2, "fc1", init_f32(b, "b1%d", 0, 1, b1d, ch->b1),
		     NULL, "fc1b");
		node(b, "Relu", 1, "fc1b", NULL, NULL, "fc1r");
		node(b, "MatMul", 2, "fc1r",
		     init_f32(b, "w2%d", 0, 2, w2d, ch->w2), NULL, "logits");
	}
	n = node(b, "Softmax", 1, "logits", NULL, NULL, "y");
	attr_int(b, n, "axis", -1);

	shp.n_dim = 4;
	shp.dim = dp;
	tt.has_elem_type = 1;
	tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	tt.shape = &shp;
	tp.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp.tensor_type = &tt;
	vin.name = "x";
	vin.type = &tp;
	vout.name = "y";
	b->g.name = "chain";
	b->g.n_input = 1;
	b->g.input = vins;
	b->g.n_output = 1;
	b->g.output = vouts;
	b->g.n_node = b->nn;
	b->g.node = b->np;
	b->g.n_initializer = b->ni;
	b->g.initializer = b->ip;
	os.domain = "";
	os.has_version = 1;
	os.version = 17;
	m.has_ir_version = 1;
	m.ir_version = 8;
	m.n_opset_import = 1;
	m.opset_import = osp;
	m.producer_name = "op_chain";
	m.graph = &b->g;
	*len = onnx__model_proto__get_packed_size(&m);
	buf = malloc(*len ? *len : 1);
	if (buf)
		onnx__model_proto__pack(&m, buf);
	free(b);
	return buf;
}

/* ---- single-op mode ---- */

static npurt_status upload(npurt_context *ctx, const float *p, size_t n,
			   npurt_mem **m)
{
	npurt_status st = npurt_mem_alloc(ctx, n * sizeof(float), m);

	if (!st && p)
		st = npurt_memcpy_h2d(*m, 0, p, n * sizeof(float));
	return st;
}

npurt_status chain_dev_init(const struct chain *ch, npurt_context *ctx,
			    struct chain_dev *d)
{
	size_t act = (size_t)ch->c * ch->h * ch->w;
	npurt_status st = NPURT_OK;

	memset(d, 0, sizeof(*d));
	for (int b = 0; !st && b < ch->blocks; b++) {
		st = upload(ctx, ch->conv_w[b],
			    (size_t)ch->c * (b ? ch->c : ch->cin) * 9,
			    &d->conv_w[b]);
		if (!st)
			st = upload(ctx, ch->conv_b[b], (size_t)ch->c,
				    &d->conv_b[b]);
	}
	if (!st)
		st = upload(ctx, ch->w1, act * ch->hidden, &d->w1);
	if (!st)
		st = upload(ctx, ch->b1, (size_t)ch->hidden, &d->b1);
	if (!st)
		st = upload(ctx, ch->w2, (size_t)ch->hidden * ch->classes,
			    &d->w2);
	if (!st)
		st = upload(ctx, ch->x, (size_t)ch->cin * ch->h * ch->w, &d->x);
	for (int k = 0; !st && k < 2; k++) {
		st = upload(ctx, NULL, act, &d->act[k]);
		if (!st)
			st = upload(ctx, NULL, (size_t)(ch->hidden > ch->classes ?
						 ch->hidden : ch->classes),
				    &d->fc[k]);
	}
	if (!st)
		st = upload(ctx, NULL, (size_t)ch->classes, &d->y);
	return st;
}

void chain_dev_free(const struct chain *ch, struct chain_dev *d)
{
	for (int b = 0; b < CHAIN_MAX_BLOCKS; b++) {
		npurt_mem_free(d->conv_w[b]);
		npurt_mem_free(d->conv_b[b]);
	}
	npurt_mem_free(d->w1);
	npurt_mem_free(d->b1);
	npurt_mem_free(d->w2);
	npurt_mem_free(d->x);
	for (int k = 0; k < 2; k++) {
		npurt_mem_free(d->act[k]);
		npurt_mem_free(d->fc[k]);
	}
	npurt_mem_free(d->y);
	memset(d, 0, sizeof(*d));
}

static npurt_op_tensor t4(npurt_mem *m, uint64_t a, uint64_t b, uint64_t c,
			  uint64_t e)
{
	npurt_op_tensor t = { .dtype = NPURT_DTYPE_F32, .rank = 4,
			      .dims = { a, b, c, e }, .mem = m };
	return t;
}

static npurt_op_tensor t2(npurt_mem *m, uint64_t a, uint64_t b)
{
	npurt_op_tensor t = { .dtype = NPURT_DTYPE_F32, .rank = 2,
			      .dims = { a, b }, .mem = m };
	return t;
}

static npurt_op_tensor t1(npurt_mem *m, uint64_t a)
{
	npurt_op_tensor t = { .dtype = NPURT_DTYPE_F32, .rank = 1,
			      .dims = { a }, .mem = m };
	return t;
}

npurt_status chain_run_ops(const struct chain *ch, struct chain_dev *d,
			   npurt_stream *s)
{
	static const int64_t pads[4] = { 1, 1, 1, 1 }, ones[2] = { 1, 1 };
	const npurt_op_attr conv_attrs[2] = {
		{ .name = "pads", .type = NPURT_ATTR_INTS, .ints = pads,
		  .n = 4 },
		{ .name = "strides", .type = NPURT_ATTR_INTS, .ints = ones,
		  .n = 2 },
	};
	const npurt_op_attr sm_attr = { .name = "axis", .type = NPURT_ATTR_INT,
					.i = -1 };
	uint64_t c = (uint64_t)ch->c, h = (uint64_t)ch->h, w = (uint64_t)ch->w;
	uint64_t feat = c * h * w, hid = (uint64_t)ch->hidden;
	int64_t flat[2] = { 1, (int64_t)feat };
	npurt_mem *cur = d->x;
	npurt_op_tensor in[3], out[1];
	npurt_status st;
	int a = 0;

	for (int b = 0; b < ch->blocks; b++) {
		in[0] = t4(cur, 1, b ? c : (uint64_t)ch->cin, h, w);
		in[1] = t4(d->conv_w[b], c, b ? c : (uint64_t)ch->cin, 3, 3);
		in[2] = t1(d->conv_b[b], c);
		out[0] = t4(d->act[a], 0, 0, 0, 0);
		st = npurt_op_execute("Conv", conv_attrs, 2, in, 3, out, 1, s);
		if (st)
			return st;
		in[0] = t4(d->act[a], 1, c, h, w);
		out[0] = t4(d->act[!a], 0, 0, 0, 0);
		st = npurt_op_execute("Relu", NULL, 0, in, 1, out, 1, s);
		if (st)
			return st;
		cur = d->act[!a];
		a = !a;
	}
	in[0] = t4(cur, 1, c, h, w);
	in[1] = t1(NULL, 2);
	in[1].dtype = NPURT_DTYPE_I64;
	in[1].data = flat;
	in[1].data_size = sizeof(flat);
	out[0] = t2(d->act[!a], 0, 0);
	st = npurt_op_execute("Reshape", NULL, 0, in, 2, out, 1, s);
	if (st)
		return st;
	in[0] = t2(d->act[!a], 1, feat);
	in[1] = t2(d->w1, feat, hid);
	out[0] = t2(d->fc[0], 0, 0);
	st = npurt_op_execute("MatMul", NULL, 0, in, 2, out, 1, s);
	if (st)
		return st;
	in[0] = t2(d->fc[0], 1, hid);
	in[1] = t1(d->b1, hid);
	out[0] = t2(d->fc[1], 0, 0);
	st = npurt_op_execute("Add", NULL, 0, in, 2, out, 1, s);
	if (st)
		return st;
	in[0] = t2(d->fc[1], 1, hid);
	out[0] = t2(d->fc[0], 0, 0);
	st = npurt_op_execute("Relu", NULL, 0, in, 1, out, 1, s);
	if (st)
		return st;
	in[0] = t2(d->fc[0], 1, hid);
	in[1] = t2(d->w2, hid, (uint64_t)ch->classes);
	out[0] = t2(d->fc[1], 0, 0);
	st = npurt_op_execute("MatMul", NULL, 0, in, 2, out, 1, s);
	if (st)
		return st;
	in[0] = t2(d->fc[1], 1, (uint64_t)ch->classes);
	out[0] = t2(d->y, 0, 0);
	return npurt_op_execute("Softmax", &sm_attr, 1, in, 1, out, 1, s);
}

void chain_use_built_libnpuc(void)
{
	char exe[PATH_MAX], lib[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0 || getenv("NPURT_NPUC_LIB"))
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(lib, sizeof(lib), "%s/../%slib/libnpuc.so.1", exe,
		 strstr(exe, "/tests/") ? "../" : "");
	setenv("NPURT_NPUC_LIB", lib, 0);
}
