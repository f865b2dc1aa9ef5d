// SPDX-License-Identifier: MIT
/*
 * test_passes.c - every pass on small graphs built in C: the pattern is
 * rewritten as documented and the interpreter gives the same outputs
 * before and after.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "fe_test.h"
#include "passes/pass_manager.h"
#include "shape/shape.h"

#define TOL 1e-5

static struct ir_tensor *conv(struct ir_graph *g, struct ir_tensor *x,
			      int64_t cin, int64_t cout, unsigned seed,
			      bool bias)
{
	struct ir_tensor *ins[3];
	struct ir_tensor *o;
	int64_t pads[4] = { 1, 1, 1, 1 };

	ins[0] = x;
	ins[1] = ft_const(g, NULL, ft_shape(cout, cin, 3, 3, -1), seed,
			  -0.5f, 0.5f);
	ins[2] = bias ? ft_const(g, NULL, ft_shape(cout, -1), seed + 1,
				 -0.2f, 0.2f) : NULL;
	o = ft_op(g, IR_OP_CONV, NULL, bias ? 3 : 2, ins);
	ir_attr_set_ints(o->producer, "pads", pads, 4);
	return o;
}

static struct ir_tensor *bn(struct ir_graph *g, struct ir_tensor *x,
			    int64_t c, unsigned seed)
{
	struct ir_tensor *ins[5] = {
		x,
		ft_const(g, NULL, ft_shape(c, -1), seed, 0.5f, 1.5f),
		ft_const(g, NULL, ft_shape(c, -1), seed + 1, -0.3f, 0.3f),
		ft_const(g, NULL, ft_shape(c, -1), seed + 2, -0.3f, 0.3f),
		ft_const(g, NULL, ft_shape(c, -1), seed + 3, 0.5f, 2.0f),
	};

	return ft_op(g, IR_OP_BATCH_NORM, NULL, 5, ins);
}

static struct ir_tensor *un(struct ir_graph *g, enum ir_op op,
			    struct ir_tensor *x)
{
	return ft_op(g, op, NULL, 1, &x);
}

static struct ir_tensor *bin(struct ir_graph *g, enum ir_op op,
			     struct ir_tensor *a, struct ir_tensor *b)
{
	struct ir_tensor *ins[2] = { a, b };

	return ft_op(g, op, NULL, 2, ins);
}

static void check(struct ir_graph *g, const char *passes, const char *what,
		  struct pass_stats *st)
{
	double rel;

	if (ft_pass_equiv(g, passes, &rel, st)) {
		ft_ok(false, "%s: passes ran and the graph still runs", what);
		return;
	}
	ft_ok(rel <= TOL, "%s: outputs equal before/after (rel %.2g)", what,
	      rel);
}

static void test_identity(void)
{
	struct ir_graph *g = ir_graph_new("identity");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(2, 8, -1)), *y;
	struct pass_stats st;

	y = un(g, IR_OP_IDENTITY, x);
	y = un(g, IR_OP_DROPOUT, y);
	y = bin(g, IR_OP_ADD, y, ft_scalar(g, 0.0f));
	y = bin(g, IR_OP_MUL, y, ft_scalar(g, 1.0f));
	y = un(g, IR_OP_RELU, y);
	ir_graph_add_output(g, y);
	check(g, "identity-elim", "identity-elim", &st);
	ft_ok(st.removed == 4 && g->num_nodes == 1,
	      "identity-elim removes Identity, Dropout, +0 and *1 (%d)",
	      st.removed);
	ir_graph_free(g);
}

static void test_const_fold(void)
{
	struct ir_graph *g = ir_graph_new("fold");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(4, 4, -1)), *c, *y;
	struct ir_tensor *a = ft_const(g, "a", ft_shape(4, 4, -1), 1, -1, 1);
	struct ir_tensor *b = ft_const(g, "b", ft_shape(4, -1), 2, -1, 1);
	struct pass_stats st;

	c = bin(g, IR_OP_ADD, a, b);
	c = un(g, IR_OP_SIGMOID, c);
	c = bin(g, IR_OP_MATMUL, c, a);
	y = bin(g, IR_OP_MUL, x, c);
	ir_graph_add_output(g, y);
	check(g, "const-fold", "const-fold", &st);
	ft_ok(st.folded == 3 && g->num_nodes == 1 &&
	      ir_tensor_is_const(g->nodes[0]->inputs[1]),
	      "const-fold evaluates Add, Sigmoid and MatMul of constants "
	      "(%d folded)", st.folded);
	ir_graph_free(g);
}

static void test_dce_cse(void)
{
	struct ir_graph *g = ir_graph_new("dce");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(3, 5, -1)), *a, *b;
	struct ir_tensor *c1 = ft_const(g, "c1", ft_shape(5, -1), 9, -1, 1);
	struct ir_tensor *c2 = ft_const(g, "c2", ft_shape(5, -1), 9, -1, 1);
	struct pass_stats st;

	un(g, IR_OP_TANH, x);			/* dead */
	a = bin(g, IR_OP_ADD, un(g, IR_OP_RELU, x), c1);
	b = bin(g, IR_OP_ADD, un(g, IR_OP_RELU, x), c2);
	ir_graph_add_output(g, bin(g, IR_OP_MUL, a, b));
	check(g, "dce", "dce", &st);
	ft_ok(st.removed == 1 && ft_count(g, IR_OP_TANH) == 0,
	      "dce removes the unused Tanh");
	check(g, "cse,dce", "cse", &st);
	ft_ok(ft_count(g, IR_OP_RELU) == 1 && ft_count(g, IR_OP_ADD) == 1,
	      "cse merges equal constants, then equal Relu and Add nodes "
	      "(%d removed)", st.removed);
	ir_graph_free(g);
}

static void test_reshape_transpose(void)
{
	struct ir_graph *g = ir_graph_new("views");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(2, 3, 4, -1)), *y;
	struct ir_tensor *ins[2];
	int64_t shp[2] = { 6, 4 }, ax[1] = { 0 }, p1[3] = { 2, 0, 1 };
	int64_t p2[3] = { 1, 2, 0 };
	struct pass_stats st;

	ins[0] = x;
	ins[1] = ir_const_new(g, NULL, IR_I64, &(struct ir_shape){ 1, { 2 } },
			      shp, sizeof(shp));
	y = ft_op(g, IR_OP_RESHAPE, NULL, 2, ins);
	y = un(g, IR_OP_FLATTEN, y);
	ins[0] = y;
	ins[1] = ir_const_new(g, NULL, IR_I64, &(struct ir_shape){ 1, { 1 } },
			      ax, sizeof(ax));
	y = ft_op(g, IR_OP_UNSQUEEZE, NULL, 2, ins);
	y = un(g, IR_OP_RELU, y);
	ir_graph_add_output(g, y);
	check(g, "reshape-simplify,dce", "reshape-simplify", &st);
	ft_ok(ft_count(g, IR_OP_RESHAPE) == 1 &&
	      ft_count(g, IR_OP_FLATTEN) + ft_count(g, IR_OP_UNSQUEEZE) == 0,
	      "Reshape->Flatten->Unsqueeze becomes one Reshape");
	ir_graph_free(g);

	g = ir_graph_new("transposes");
	x = ft_input(g, "x", ft_shape(2, 3, 4, -1));
	y = un(g, IR_OP_TRANSPOSE, x);
	ir_attr_set_ints(y->producer, "perm", p1, 3);
	y = un(g, IR_OP_TRANSPOSE, y);
	ir_attr_set_ints(y->producer, "perm", p2, 3);
	y = un(g, IR_OP_RELU, y);
	ir_graph_add_output(g, y);
	check(g, "transpose-simplify,identity-elim,dce", "transpose-simplify",
	      &st);
	ft_ok(ft_count(g, IR_OP_TRANSPOSE) == 0,
	      "inverse Transposes cancel (%d left)",
	      ft_count(g, IR_OP_TRANSPOSE));
	ir_graph_free(g);
}

static void test_bn_conv(void)
{
	struct ir_graph *g = ir_graph_new("bn");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(1, 3, 8, 8, -1)), *y;
	struct pass_stats st;

	y = bn(g, conv(g, x, 3, 8, 11, false), 8, 20);
	y = un(g, IR_OP_RELU, y);
	y = bn(g, conv(g, y, 8, 4, 12, true), 4, 30);
	ir_graph_add_output(g, y);
	check(g, "bn-fold", "bn-fold into Conv", &st);
	ft_ok(st.fused == 2 && ft_count(g, IR_OP_BATCH_NORM) == 0,
	      "both BatchNorms fold into their Convs (with and without bias)");
	check(g, "conv-act-fusion", "conv-act-fusion", &st);
	ft_ok(st.fused == 1 && ft_count(g, IR_OP_RELU) == 0 &&
	      g->nodes[0]->act.kind == IR_ACT_RELU,
	      "Conv+Relu fuse into one Conv with act=relu");
	ir_graph_free(g);
}

static void test_bn_gemm(void)
{
	struct ir_graph *g = ir_graph_new("bn-gemm");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(3, 6, -1)), *y;
	struct ir_tensor *ins[3];
	struct pass_stats st;

	ins[0] = x;
	ins[1] = ft_const(g, NULL, ft_shape(5, 6, -1), 3, -1, 1);
	ins[2] = ft_const(g, NULL, ft_shape(5, -1), 4, -1, 1);
	y = ft_op(g, IR_OP_GEMM, NULL, 3, ins);
	ir_attr_set_int(y->producer, "transB", 1);
	ir_attr_set_float(y->producer, "beta", 0.5f);
	y = bn(g, y, 5, 40);
	ir_graph_add_output(g, y);
	check(g, "bn-fold", "bn-fold into Gemm", &st);
	ft_ok(st.fused == 1 && ft_count(g, IR_OP_BATCH_NORM) == 0,
	      "BatchNorm folds into Gemm (transB, beta 0.5)");
	ir_graph_free(g);
}

static void test_clip_residual(void)
{
	struct ir_graph *g = ir_graph_new("residual");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(1, 4, 6, 6, -1)), *y;
	struct ir_tensor *ins[3];
	struct pass_stats st;

	y = conv(g, x, 4, 4, 50, true);
	ins[0] = y;
	ins[1] = ft_scalar(g, 0.0f);
	ins[2] = ft_scalar(g, 6.0f);
	y = ft_op(g, IR_OP_CLIP, NULL, 3, ins);
	y = bin(g, IR_OP_ADD, conv(g, y, 4, 4, 60, true), x);
	y = un(g, IR_OP_RELU, y);
	ir_graph_add_output(g, y);
	check(g, "conv-add-fusion,conv-act-fusion,dce", "residual fusion",
	      &st);
	ft_ok(ft_count(g, IR_OP_ADD) == 0 && ft_count(g, IR_OP_RELU) == 0 &&
	      ft_count(g, IR_OP_CLIP) == 0 && g->num_nodes == 2 &&
	      g->nodes[1]->has_residual &&
	      g->nodes[1]->act.kind == IR_ACT_RELU &&
	      g->nodes[0]->act.kind == IR_ACT_CLIP &&
	      g->nodes[0]->act.beta == 6.0f,
	      "Conv+Clip(0,6) and Conv+Add(residual)+Relu fuse");
	ir_graph_free(g);
}

static void test_matmul(void)
{
	struct ir_graph *g = ir_graph_new("mm");
	struct ir_tensor *x, *y;
	struct pass_stats st;

	x = ft_input(g, "x", ft_shape(2, 5, 8, -1));
	y = bin(g, IR_OP_MATMUL, x,
		ft_const(g, NULL, ft_shape(8, 16, -1), 5, -1, 1));
	y = bin(g, IR_OP_ADD, ft_const(g, NULL, ft_shape(16, -1), 6, -1, 1),
		y);
	y = un(g, IR_OP_SIGMOID, y);
	ir_graph_add_output(g, y);
	check(g, "matmul-bias-fusion,matmul-act-fusion", "MatMul+bias+act",
	      &st);
	ft_ok(g->num_nodes == 1 && g->nodes[0]->num_inputs == 3 &&
	      g->nodes[0]->act.kind == IR_ACT_SIGMOID,
	      "MatMul + bias Add + Sigmoid become one MatMul");
	ir_graph_free(g);

	/* residual: Gemm (no C) + Add(x) + Relu */
	g = ir_graph_new("mm-res");
	x = ft_input(g, "x", ft_shape(6, 8, -1));
	y = bin(g, IR_OP_GEMM, x, ft_const(g, NULL, ft_shape(8, 8, -1), 15,
					   -1, 1));
	y = un(g, IR_OP_RELU, bin(g, IR_OP_ADD, x, y));
	ir_graph_add_output(g, y);
	check(g, "matmul-add-fusion,matmul-act-fusion", "Gemm+residual+act",
	      &st);
	ft_ok(g->num_nodes == 1 && g->nodes[0]->has_residual &&
	      g->nodes[0]->num_inputs == 4 && !g->nodes[0]->inputs[2] &&
	      g->nodes[0]->act.kind == IR_ACT_RELU,
	      "Gemm + residual Add + Relu become one Gemm");
	ir_graph_free(g);
}

static struct ir_tensor *gelu_decomposed(struct ir_graph *g,
					 struct ir_tensor *x)
{
	struct ir_tensor *e;

	e = bin(g, IR_OP_DIV, x, ft_scalar(g, 1.4142135f));
	e = un(g, IR_OP_ERF, e);
	e = bin(g, IR_OP_ADD, e, ft_scalar(g, 1.0f));
	e = bin(g, IR_OP_MUL, x, e);
	return bin(g, IR_OP_MUL, e, ft_scalar(g, 0.5f));
}

static void test_gelu_layernorm(void)
{
	struct ir_graph *g = ir_graph_new("tfm");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(2, 4, 16, -1)), *y;
	struct ir_tensor *m, *d, *v, *ins[2];
	int64_t ax[1] = { -1 };
	struct pass_stats st;

	y = bin(g, IR_OP_MATMUL, x,
		ft_const(g, NULL, ft_shape(16, 16, -1), 7, -0.5f, 0.5f));
	y = gelu_decomposed(g, y);
	/* LayerNorm decomposed as torch exports it (opset 13) */
	m = un(g, IR_OP_REDUCE_MEAN, y);
	ir_attr_set_ints(m->producer, "axes", ax, 1);
	d = bin(g, IR_OP_SUB, y, m);
	v = bin(g, IR_OP_POW, d, ft_scalar(g, 2.0f));
	v = un(g, IR_OP_REDUCE_MEAN, v);
	ir_attr_set_ints(v->producer, "axes", ax, 1);
	v = bin(g, IR_OP_ADD, v, ft_scalar(g, 1e-5f));
	v = un(g, IR_OP_SQRT, v);
	d = bin(g, IR_OP_DIV, d, v);
	d = bin(g, IR_OP_MUL, d, ft_const(g, NULL, ft_shape(16, -1), 8, 0.5f,
					  1.5f));
	ins[0] = d;
	ins[1] = ft_const(g, NULL, ft_shape(16, -1), 9, -0.5f, 0.5f);
	y = ft_op(g, IR_OP_ADD, NULL, 2, ins);
	ir_graph_add_output(g, y);
	check(g, "gelu-fusion,matmul-act-fusion,dce", "GELU fusion", &st);
	ft_ok(ft_count(g, IR_OP_ERF) == 0 && ft_count(g, IR_OP_GELU) == 0 &&
	      g->nodes[0]->act.kind == IR_ACT_GELU,
	      "decomposed GELU becomes a Gelu, then MatMul's activation");
	check(g, "layernorm-fusion,dce", "LayerNorm fusion", &st);
	ft_ok(ft_count(g, IR_OP_LAYER_NORM) == 1 && g->num_nodes == 2 &&
	      ft_count(g, IR_OP_REDUCE_MEAN) == 0,
	      "ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add -> "
	      "LayerNormalization");
	ir_graph_free(g);
}

static void test_gelu_tanh(void)
{
	struct ir_graph *g = ir_graph_new("gelu-tanh");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(4, 8, -1)), *y, *t;
	struct pass_stats st;

	y = bin(g, IR_OP_POW, x, ft_scalar(g, 3.0f));
	y = bin(g, IR_OP_MUL, y, ft_scalar(g, 0.044715f));
	y = bin(g, IR_OP_ADD, x, y);
	y = bin(g, IR_OP_MUL, y, ft_scalar(g, 0.7978845608f));
	t = un(g, IR_OP_TANH, y);
	t = bin(g, IR_OP_ADD, t, ft_scalar(g, 1.0f));
	y = bin(g, IR_OP_MUL, bin(g, IR_OP_MUL, x, ft_scalar(g, 0.5f)), t);
	ir_graph_add_output(g, y);
	check(g, "gelu-fusion,dce", "GELU tanh form", &st);
	ft_ok(g->num_nodes == 1 && g->nodes[0]->op == IR_OP_GELU &&
	      !strcmp(ir_attr_str(g->nodes[0], "approximate", ""), "tanh"),
	      "0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))) -> Gelu(tanh)");
	ir_graph_free(g);
}

static void test_attention(void)
{
	struct ir_graph *g = ir_graph_new("attn");
	struct ir_tensor *q = ft_input(g, "q", ft_shape(2, 6, 8, -1));
	struct ir_tensor *k = ft_input(g, "k", ft_shape(2, 6, 8, -1));
	struct ir_tensor *v = ft_input(g, "v", ft_shape(2, 6, 4, -1));
	struct ir_tensor *kt, *s;
	int64_t perm[3] = { 0, 2, 1 };
	struct pass_stats st;

	kt = un(g, IR_OP_TRANSPOSE, k);
	ir_attr_set_ints(kt->producer, "perm", perm, 3);
	s = bin(g, IR_OP_MATMUL, bin(g, IR_OP_DIV, q, ft_scalar(g, 2.0f)),
		kt);
	s = un(g, IR_OP_SOFTMAX, s);
	ir_attr_set_int(s->producer, "axis", -1);
	ir_graph_add_output(g, bin(g, IR_OP_MATMUL, s, v));
	check(g, "attention-fusion,transpose-simplify,identity-elim,dce",
	      "attention fusion", &st);
	ft_ok(ft_count(g, IR_OP_ATTENTION) == 1 && g->num_nodes == 1 &&
	      ir_attr_float(g->nodes[0], "scale", 0) == 0.5f,
	      "Div-MatMul-Softmax-MatMul -> Attention(scale 0.5), the k "
	      "transposes cancel");
	ir_graph_free(g);
}

static void test_eltwise(void)
{
	struct ir_graph *g = ir_graph_new("elt");
	struct ir_tensor *a = ft_input(g, "a", ft_shape(3, 7, -1));
	struct ir_tensor *b = ft_input(g, "b", ft_shape(7, -1)), *y;
	struct pass_stats st;

	y = un(g, IR_OP_TANH, bin(g, IR_OP_SUB, a, b));
	ir_graph_add_output(g, y);
	check(g, "eltwise-act-fusion", "eltwise-act-fusion", &st);
	ft_ok(g->num_nodes == 1 && g->nodes[0]->act.kind == IR_ACT_TANH,
	      "Sub+Tanh become one Sub with act=tanh");
	ir_graph_free(g);
}

static void test_qdq(void)
{
	struct ir_graph *g = ir_graph_new("qdq");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(2, 16, -1)), *y;
	struct ir_tensor *sc = ft_scalar(g, 0.05f), *zp, *ins[3];
	struct ir_shape s0 = { 0 };
	uint8_t z = 3;
	struct pass_stats st;
	int k;

	zp = ir_const_new(g, NULL, IR_U8, &s0, &z, 1);
	y = x;
	for (k = 0; k < 2; k++) {
		struct ir_tensor *q = ir_tensor_new(g, NULL, IR_U8, NULL);

		ins[0] = y;
		ins[1] = sc;
		ins[2] = zp;
		ir_node_new(g, IR_OP_QUANTIZE_LINEAR, NULL, 3, ins, 1, &q);
		ins[0] = q;
		y = ft_op(g, IR_OP_DEQUANTIZE_LINEAR, NULL, 3, ins);
	}
	ir_graph_add_output(g, un(g, IR_OP_RELU, y));
	check(g, "qdq-cancel,dce", "qdq-cancel", &st);
	ft_ok(st.removed >= 1 && ft_count(g, IR_OP_QUANTIZE_LINEAR) == 1 &&
	      ft_count(g, IR_OP_DEQUANTIZE_LINEAR) == 1,
	      "a DequantizeLinear->QuantizeLinear pair with equal parameters "
	      "cancels, QDQ runs as QUANTIZE/DEQUANTIZE tasks");
	ir_graph_free(g);
}

static void test_layout(void)
{
	struct ir_graph *g = ir_graph_new("layout");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(1, 20, 8, 8, -1)), *y;
	struct ir_tensor *a, *b;
	struct ir_shape s = ft_shape(2, 40, 3, 3, -1);
	int64_t k[2] = { 2, 2 };
	struct pass_stats st;

	y = un(g, IR_OP_RELU, conv(g, x, 20, 24, 90, true));
	y = un(g, IR_OP_MAX_POOL, y);
	ir_attr_set_ints(y->producer, "kernel_shape", k, 2);
	ir_attr_set_ints(y->producer, "strides", k, 2);
	y = un(g, IR_OP_FLATTEN, y);
	ir_graph_add_output(g, y);
	check(g, "layout-nc1hwc0", "layout-nc1hwc0", &st);
	ft_ok(ft_count(g, IR_OP_TRANSDATA) == 2 &&
	      g->nodes[1]->outputs[0]->layout == IR_LAYOUT_NC1HWC0 &&
	      g->nodes[3]->outputs[0]->layout == IR_LAYOUT_NC1HWC0,
	      "Conv/Relu/MaxPool switch to NC1HWC0 with TransData at the "
	      "two boundaries");
	ir_graph_free(g);

	/* a TransData pair that undoes itself is cancelled */
	g = ir_graph_new("pair");
	x = ft_input(g, "x", ft_shape(1, 20, 4, 4, -1));
	a = ir_tensor_new(g, "a", IR_F32, &x->shape);
	a->layout = IR_LAYOUT_NC1HWC0;
	b = ir_tensor_new(g, "b", IR_F32, &x->shape);
	b->layout = IR_LAYOUT_NCHW;
	ir_node_new(g, IR_OP_TRANSDATA, "to5hd", 1, &x, 1, &a);
	ir_node_new(g, IR_OP_TRANSDATA, "back", 1, &a, 1, &b);
	ir_graph_add_output(g, un(g, IR_OP_SIGMOID, b));
	check(g, "layout-nc1hwc0,dce", "TransData cancellation", &st);
	ft_ok(ft_count(g, IR_OP_TRANSDATA) == 0, "a TransData pair cancels");
	ir_graph_free(g);

	/*
	 * A channel Concat whose inputs but the last are whole 16-channel
	 * blocks stays in the region (no TransData around it); with a
	 * 20-channel input first it cuts the region (TransData around it).
	 */
	{
		static const int64_t c1[2][2] = { { 32, 20 }, { 20, 32 } };
		int v;

		for (v = 0; v < 2; v++) {
			struct ir_tensor *ins[2];

			g = ir_graph_new("concat");
			x = ft_input(g, "x", ft_shape(1, 8, 6, 5, -1));
			ins[0] = conv(g, x, 8, c1[v][0], 200, true);
			ins[1] = conv(g, x, 8, c1[v][1], 210, false);
			y = ft_op(g, IR_OP_CONCAT, NULL, 2, ins);
			ir_attr_set_int(y->producer, "axis", 1);
			y = conv(g, un(g, IR_OP_RELU, y), 52, 16, 220, true);
			ir_graph_add_output(g, y);
			check(g, "layout-nc1hwc0", "layout with a Concat", &st);
			ft_ok(v ? ft_count(g, IR_OP_TRANSDATA) > 2 :
				  ft_count(g, IR_OP_TRANSDATA) == 2,
			      "channel Concat of %lld + %lld channels: %d "
			      "TransData (%s)", (long long)c1[v][0],
			      (long long)c1[v][1],
			      ft_count(g, IR_OP_TRANSDATA),
			      v ? "cut at the Concat" : "input and output only");
			ir_graph_free(g);
		}
	}

	/*
	 * A Conv reads an input of up to 4 channels (an image) as NCHW: no
	 * TransData before it, its output still NC1HWC0; 5 channels take
	 * the TransData.
	 */
	{
		static const int64_t cin[2] = { 3, 5 };
		int v;

		for (v = 0; v < 2; v++) {
			g = ir_graph_new("image");
			x = ft_input(g, "x", ft_shape(1, cin[v], 6, 5, -1));
			y = conv(g, x, cin[v], 16, 230, true);
			y = conv(g, un(g, IR_OP_RELU, y), 16, 16, 240, true);
			ir_graph_add_output(g, y);
			check(g, "layout-nc1hwc0", "layout of an image conv",
			      &st);
			ft_ok(ft_count(g, IR_OP_TRANSDATA) == 2 - !v &&
			      x->uses[0].node->op == (v ? IR_OP_TRANSDATA :
							  IR_OP_CONV) &&
			      x->uses[0].node->outputs[0]->layout ==
			      IR_LAYOUT_NC1HWC0,
			      "a Conv of %lld input channels: %d TransData, "
			      "reads the input %s", (long long)cin[v],
			      ft_count(g, IR_OP_TRANSDATA),
			      v ? "through one" : "as NCHW");
			ir_graph_free(g);
		}
	}

	g = ir_graph_new("c0");
	a = ir_tensor_new(g, "a", IR_I8, &s);
	a->layout = IR_LAYOUT_NC1HWC0;
	b = ir_tensor_new(g, "b", IR_F16, &s);
	b->layout = IR_LAYOUT_NC1HWC0;
	ft_ok(emit_c0(IR_I8) == 32 && emit_c0(IR_F32) == 16 &&
	      emit_tensor_bytes(a) == 2 * 2 * 9 * 32 &&
	      emit_tensor_bytes(b) == 2 * 3 * 9 * 16 * 2,
	      "C0 is 32 for 1-byte and 16 for 2/4-byte types");
	ir_graph_free(g);
}

/* The full pipeline: order, switches, fixpoint, report, dump hook. */
static void test_pipeline(void)
{
	struct ir_graph *g = ir_graph_new("pipe"), *g2;
	struct ir_tensor *x = ft_input(g, "x", ft_shape(1, 3, 8, 8, -1)), *y;
	struct pm_opts o = { .opt_level = 2 };
	struct pm_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	y = un(g, IR_OP_IDENTITY, x);
	y = un(g, IR_OP_RELU, bn(g, conv(g, y, 3, 4, 70, true), 4, 80));
	ir_graph_add_output(g, y);
	g2 = ir_graph_clone(g);
	f = open_memstream(&buf, &len);
	o.dump_after = "bn-fold";
	o.dump_file = f;
	o.verify = true;
	ft_ok(pm_run(g, &o, &r) == 0, "pm_run succeeds");
	fclose(f);
	ft_ok(ft_count(g, IR_OP_CONV) == 1 && ft_count(g, IR_OP_RELU) == 0 &&
	      ft_count(g, IR_OP_BATCH_NORM) == 0 &&
	      ft_count(g, IR_OP_IDENTITY) == 0 &&
	      ft_count(g, IR_OP_TRANSDATA) == 1,
	      "Identity->Conv->BN->Relu ends as one Conv+relu in NC1HWC0 "
	      "(its 3-channel input read as NCHW)");
	ft_ok(r.rounds >= 2, "the fixpoint loop ran %d rounds", r.rounds);
	ft_ok(buf && strstr(buf, "# after pass bn-fold") &&
	      strstr(buf, "Conv"), "--dump-ir-after hook writes the IR");
	free(buf);
	o.dump_after = NULL;
	o.dump_file = NULL;
	o.disable = "bn-fold,conv-act-fusion";
	ft_ok(pm_run(g2, &o, &r) == 0 &&
	      ft_count(g2, IR_OP_BATCH_NORM) == 1 &&
	      ft_count(g2, IR_OP_RELU) == 1,
	      "--disable-pass keeps BatchNorm and Relu");
	ft_ok(pm_check_names("bn-fold,nope", (char[128]){ 0 }, 128) != 0 &&
	      pm_check_names("cse,dce", (char[128]){ 0 }, 128) == 0,
	      "unknown pass names are refused");
	ir_graph_free(g);
	ir_graph_free(g2);
}

int main(void)
{
	ft_plan(55);
	test_identity();
	test_const_fold();
	test_dce_cse();
	test_reshape_transpose();
	test_bn_conv();
	test_bn_gemm();
	test_clip_residual();
	test_matmul();
	test_gelu_layernorm();
	test_gelu_tanh();
	test_attention();
	test_eltwise();
	test_qdq();
	test_layout();
	test_pipeline();
	return ft_done();
}
