// SPDX-License-Identifier: MIT
/*
 * test_shape.c - shape inference: broadcasting, symbolic dims flowing
 * through, Reshape -1, shape arithmetic (Shape->Gather->Concat->Reshape),
 * window ops, and errors that name the node and both shapes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_test.h"
#include "shape/shape.h"

static char buf[256];

static const char *sh(struct ir_graph *g, const struct ir_tensor *t)
{
	return ir_shape_str(g, &t->shape, buf, sizeof(buf));
}

static struct ir_tensor *ints(struct ir_graph *g, int n, const int64_t *v)
{
	struct ir_shape s = { .rank = 1, .dim = { n } };

	return ir_const_new(g, NULL, IR_I64, &s, v, (size_t)n * 8);
}

static struct ir_tensor *scalar_i64(struct ir_graph *g, int64_t v)
{
	struct ir_shape s = { 0 };

	return ir_const_new(g, NULL, IR_I64, &s, &v, 8);
}

static struct ir_tensor *op2(struct ir_graph *g, enum ir_op op,
			     const char *name, struct ir_tensor *a,
			     struct ir_tensor *b)
{
	struct ir_tensor *ins[2] = { a, b };

	return ft_op(g, op, name, b ? 2 : 1, ins);
}

static void test_broadcast(void)
{
	struct ir_graph *g = ir_graph_new("bc");
	struct ir_tensor *a = ft_input(g, "a", ft_shape(2, 3, 4, -1));
	struct ir_tensor *b = ft_input(g, "b", ft_shape(3, 1, -1));
	struct ir_tensor *c = ft_input(g, "c", ft_shape(5, -1)), *y;

	y = op2(g, IR_OP_ADD, "ok_add", a, b);
	ft_ok(shape_infer(g) == 0 && !strcmp(sh(g, y), "[2,3,4]"),
	      "[2,3,4] + [3,1] -> %s", sh(g, y));
	op2(g, IR_OP_MUL, "bad_mul", y, c);
	ft_ok(shape_infer(g) != 0 && strstr(g->err, "bad_mul") &&
	      strstr(g->err, "[2,3,4]") && strstr(g->err, "[5]"),
	      "mismatch names node and both shapes: %s", g->err);
	ir_graph_free(g);
}

static void test_symbolic(void)
{
	struct ir_graph *g = ir_graph_new("sym");
	int bid = ir_sym_intern(g, "batch"), sid = ir_sym_intern(g, "seq");
	struct ir_shape s = { .rank = 3, .dim = { IR_DIM_SYM(bid),
						 IR_DIM_SYM(sid), 64 } };
	struct ir_tensor *x = ft_input(g, "x", s), *y, *z, *shp, *d0, *d1;
	int64_t m1[2] = { -1, 64 }, i0[1] = { 0 }, i1[1] = { 1 };
	int64_t tail[1] = { 64 }, ax[1] = { 0 };
	struct ir_tensor *cat[3];

	y = op2(g, IR_OP_MATMUL, "mm", x,
		ft_const(g, NULL, ft_shape(64, 64, -1), 1, -1, 1));
	z = op2(g, IR_OP_RESHAPE, "flat", y, ints(g, 2, m1));
	/* torch style: Reshape(z, Concat(Shape(x)[0], Shape(x)[1], 64)) */
	shp = op2(g, IR_OP_SHAPE, "shape", x, NULL);
	d0 = op2(g, IR_OP_UNSQUEEZE, NULL,
		 op2(g, IR_OP_GATHER, NULL, shp, scalar_i64(g, i0[0])),
		 ints(g, 1, ax));
	d1 = op2(g, IR_OP_UNSQUEEZE, NULL,
		 op2(g, IR_OP_GATHER, NULL, shp, scalar_i64(g, i1[0])),
		 ints(g, 1, ax));
	cat[0] = d0;
	cat[1] = d1;
	cat[2] = ints(g, 1, tail);
	shp = ft_op(g, IR_OP_CONCAT, "cat", 3, cat);
	ir_attr_set_int(shp->producer, "axis", 0);
	y = op2(g, IR_OP_RESHAPE, "unflat", z, shp);
	ir_graph_add_output(g, y);
	if (shape_infer(g)) {
		ft_ok(false, "symbolic graph infers: %s", g->err);
		ft_ok(false, "-1 resolves to batch*seq");
		ft_ok(false, "Shape->Gather->Concat brings the symbols back");
		ir_graph_free(g);
		return;
	}
	ft_ok(true, "symbolic graph infers");
	ft_ok(!strcmp(sh(g, z), "[batch*seq,64]"), "-1 resolves to %s",
	      sh(g, z));
	ft_ok(!strcmp(sh(g, y), "[batch,seq,64]"),
	      "Shape->Gather->Concat->Reshape gives back %s", sh(g, y));
	ir_graph_free(g);
}

static void test_reshape_static(void)
{
	struct ir_graph *g = ir_graph_new("rs");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(2, 3, 4, -1)), *y;
	int64_t t1[2] = { 4, -1 }, t2[3] = { 0, -1, 2 }, t3[2] = { 5, -1 };

	y = op2(g, IR_OP_RESHAPE, NULL, x, ints(g, 2, t1));
	ft_ok(shape_infer(g) == 0 && !strcmp(sh(g, y), "[4,6]"),
	      "Reshape [2,3,4] to [4,-1] -> %s", sh(g, y));
	y = op2(g, IR_OP_RESHAPE, NULL, x, ints(g, 3, t2));
	ft_ok(shape_infer(g) == 0 && !strcmp(sh(g, y), "[2,6,2]"),
	      "Reshape with 0 copies a dim -> %s", sh(g, y));
	op2(g, IR_OP_RESHAPE, "bad_reshape", x, ints(g, 2, t3));
	ft_ok(shape_infer(g) != 0 && strstr(g->err, "bad_reshape") &&
	      strstr(g->err, "[2,3,4]"), "-1 that does not divide: %s",
	      g->err);
	ir_graph_free(g);
}

static void test_ops(void)
{
	struct ir_graph *g = ir_graph_new("ops");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(1, 3, 15, 15, -1));
	struct ir_tensor *a = ft_input(g, "a", ft_shape(2, 1, 3, 4, -1));
	struct ir_tensor *b = ft_input(g, "b", ft_shape(5, 4, 6, -1));
	struct ir_tensor *c, *p, *m, *r, *t, *s, *ins[2];
	int64_t st[2] = { 2, 2 }, k[2] = { 3, 3 }, perm[4] = { 0, 2, 3, 1 };
	int64_t ax[1] = { 1 }, sl[4] = { 1, -1, 1, 2 };

	c = op2(g, IR_OP_CONV, "conv", x,
		ft_const(g, NULL, ft_shape(8, 3, 3, 3, -1), 2, -1, 1));
	ir_attr_set_ints(c->producer, "strides", st, 2);
	ir_attr_set_str(c->producer, "auto_pad", "SAME_UPPER");
	p = op2(g, IR_OP_MAX_POOL, "pool", c, NULL);
	ir_attr_set_ints(p->producer, "kernel_shape", k, 2);
	ir_attr_set_ints(p->producer, "strides", st, 2);
	ir_attr_set_int(p->producer, "ceil_mode", 1);
	m = op2(g, IR_OP_MATMUL, "mm", a, b);
	t = op2(g, IR_OP_TRANSPOSE, "tr", c, NULL);
	ir_attr_set_ints(t->producer, "perm", perm, 4);
	r = op2(g, IR_OP_REDUCE_SUM, "rsum", t, ints(g, 1, ax));
	ir_attr_set_int(r->producer, "keepdims", 0);
	ins[0] = t;
	ins[1] = ints(g, 1, &sl[0]);
	s = ft_op(g, IR_OP_SLICE, "slice", 2, ins);
	ir_node_add_input(s->producer, ints(g, 1, &sl[1]));
	ir_node_add_input(s->producer, ints(g, 1, &sl[2]));
	ir_node_add_input(s->producer, ints(g, 1, &sl[3]));
	ft_ok(shape_infer(g) == 0, "window, matmul, transpose, reduce, slice "
	      "infer: %s", g->err);
	ft_ok(!strcmp(sh(g, c), "[1,8,8,8]"), "Conv stride 2 SAME_UPPER: %s",
	      sh(g, c));
	ft_ok(!strcmp(sh(g, p), "[1,8,4,4]"), "MaxPool 3x3/2 ceil: %s",
	      sh(g, p));
	ft_ok(!strcmp(sh(g, m), "[2,5,3,6]"), "MatMul batch broadcast: %s",
	      sh(g, m));
	ft_ok(!strcmp(sh(g, r), "[1,8,8]"), "ReduceSum keepdims=0: %s",
	      sh(g, r));
	ft_ok(!strcmp(sh(g, s), "[1,3,8,8]"),
	      "Slice axis 1 from 1 to -1 step 2: %s", sh(g, s));
	ir_graph_free(g);
}

static void test_legalize(void)
{
	struct ir_graph *g = ir_graph_new("legal");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(2, 3, 8, -1));
	struct ir_tensor *ins[3], *outs[3], *y, *m;
	int32_t e[1] = { 2 };
	struct ir_shape s1 = { .rank = 1, .dim = { 1 } };
	float **o = NULL;
	bool ok = true;
	int i;

	/* LayerNormalization with Mean and InvStdDev read */
	ins[0] = x;
	ins[1] = ft_const(g, NULL, ft_shape(8, -1), 3, 0.5f, 1.5f);
	ins[2] = ft_const(g, NULL, ft_shape(8, -1), 4, -0.5f, 0.5f);
	for (i = 0; i < 3; i++)
		outs[i] = ir_tensor_new(g, NULL, IR_F32, NULL);
	ir_node_new(g, IR_OP_LAYER_NORM, "ln", 3, ins, 3, outs);
	ir_graph_add_output(g, outs[0]);
	ir_graph_add_output(g, outs[1]);
	ir_graph_add_output(g, outs[2]);
	/* Pow with an i32 exponent, Max with one input, Dropout's mask */
	ins[0] = x;
	ins[1] = ir_const_new(g, NULL, IR_I32, &s1, e, sizeof(e));
	y = ft_op(g, IR_OP_POW, "pow", 2, ins);
	y = ft_op(g, IR_OP_MAX, "max1", 1, &y);
	outs[0] = ir_tensor_new(g, NULL, IR_F32, NULL);
	outs[1] = m = ir_tensor_new(g, NULL, IR_BOOL, NULL);
	ir_node_new(g, IR_OP_DROPOUT, "drop", 1, &y, 2, outs);
	ir_graph_add_output(g, outs[0]);
	ir_graph_add_output(g, m);
	if (!ft_ok(shape_infer(g) == 0, "legalizing graph infers: %s",
		   g->err)) {
		ft_ok(false, "legalized graph runs");
		ir_graph_free(g);
		return;
	}
	ft_ok(!strcmp(sh(g, g->outputs[1]), "[2,3,1]") &&
	      ft_count(g, IR_OP_RECIPROCAL) == 1 &&
	      ft_count(g, IR_OP_MAX) == 0 && g->outputs[4]->data &&
	      ft_count(g, IR_OP_CAST) == 0,
	      "LayerNorm Mean/InvStdDev, Pow's exponent, one-input Max and "
	      "Dropout's mask are legalized");
	if (ft_run(g, 7, &o) == 0) {
		for (i = 0; i < 6; i++)
			ok &= o[2][i] > 0;	/* 1/stddev is positive */
		for (i = 0; i < 48; i++)
			ok &= o[3][i] >= 0;	/* x^2 */
		for (i = 0; i < 48; i++)
			ok &= ((uint8_t *)o[4])[i] == 1;
		for (i = 0; i < 5; i++)
			free(o[i]);
		free(o);
		ft_ok(ok, "legalized graph runs: InvStdDev > 0, Pow(x, 2) >= 0, "
		      "mask all true");
	} else {
		ft_ok(false, "legalized graph runs: %s", g->err);
	}
	ir_graph_free(g);
}

/* Ops without a kernel of their own, against values computed here. */
static void test_legalized_values(void)
{
	struct ir_graph *g = ir_graph_new("ops2");
	float xv[6] = { -2, -0.5f, 0, 0.5f, 2, 3 };
	float yv[6] = { 1, -0.5f, 1, 0.25f, 2, -3 };
	struct ir_shape s = ft_shape(2, 3, -1);
	struct ir_tensor *x, *y, *ins[3], *o[8];
	int64_t ax[1] = { 1 };
	float **out = NULL, ref;
	bool ok[8] = { true, true, true, true, true, true, true, true };
	int i;

	x = ir_const_new(g, "x", IR_F32, &s, xv, sizeof(xv));
	y = ir_const_new(g, "y", IR_F32, &s, yv, sizeof(yv));
	ins[0] = x;
	ins[1] = y;
	ins[2] = x;
	o[0] = ft_op(g, IR_OP_SUM, "sum3", 3, ins);
	o[1] = ft_op(g, IR_OP_MEAN, "mean2", 2, ins);
	o[2] = ft_op(g, IR_OP_SOFTSIGN, "softsign", 1, ins);
	o[3] = ft_op(g, IR_OP_REDUCE_L2, "l2", 1, ins);
	ir_attr_set_ints(o[3]->producer, "axes", ax, 1);
	o[4] = ft_op(g, IR_OP_TRILU, "tril", 1, ins);
	ir_attr_set_int(o[4]->producer, "upper", 0);
	o[5] = ft_op(g, IR_OP_GREATER_OR_EQUAL, "ge", 2, ins);
	o[5]->dtype = IR_BOOL;
	o[6] = ft_op(g, IR_OP_THRESHOLDED_RELU, "thr", 1, ins);
	ir_attr_set_float(o[6]->producer, "alpha", 0.25f);
	o[7] = ft_op(g, IR_OP_SELU, "selu", 1, ins);
	for (i = 0; i < 8; i++)
		ir_graph_add_output(g, o[i]);
	if (!ft_ok(shape_infer(g) == 0 && ft_run(g, 1, &out) == 0,
		   "Sum/Mean/Softsign/ReduceL2/Trilu/GreaterOrEqual/"
		   "ThresholdedRelu/Selu legalize and run: %s", g->err)) {
		ft_ok(false, "values");
		ir_graph_free(g);
		return;
	}
	for (i = 0; i < 6; i++) {
		ok[0] &= out[0][i] == xv[i] + yv[i] + xv[i];
		ok[1] &= out[1][i] == (xv[i] + yv[i]) / 2;
		ref = xv[i] / (1 + (xv[i] < 0 ? -xv[i] : xv[i]));
		ok[2] &= out[2][i] == ref;
		ok[4] &= out[4][i] == ((i % 3) <= (i / 3) ? xv[i] : 0);
		ok[5] &= ((uint8_t *)out[5])[i] == (xv[i] >= yv[i]);
		ok[6] &= out[6][i] == (xv[i] > 0.25f ? xv[i] : 0);
		ok[7] &= xv[i] > 0 ? out[7][i] > 1.0507f * xv[i] - 1e-5f &&
				     out[7][i] < 1.0507f * xv[i] + 1e-5f
				   : out[7][i] <= 0;
	}
	ok[3] = out[3][0] > 2.0615f && out[3][0] < 2.0617f &&
		out[3][1] > 3.6399f && out[3][1] < 3.6401f;
	ft_ok(ok[0] && ok[1] && ok[2] && ok[3] && ok[4] && ok[5] && ok[6] &&
	      ok[7], "values: sum %d mean %d softsign %d l2 %d tril %d ge %d "
	      "thresholded %d selu %d", ok[0], ok[1], ok[2], ok[3], ok[4],
	      ok[5], ok[6], ok[7]);
	for (i = 0; i < 8; i++)
		free(out[i]);
	free(out);
	ir_graph_free(g);
}

static struct ir_tensor *fill_i64(struct ir_graph *g, struct ir_tensor *shp,
				  int64_t v)
{
	struct ir_tensor *y = op2(g, IR_OP_CONSTANT_OF_SHAPE, NULL, shp, NULL);

	ir_attr_set_tensor(y->producer, "value", scalar_i64(g, v));
	return y;
}

/*
 * torch's F.pad: the pads come from ConstantOfShape -> Concat -> Reshape ->
 * Slice(step -1) -> Transpose -> Reshape, all constants. Shape inference
 * must fold them before Pad needs its pads.
 */
static void test_fold_pad_params(void)
{
	struct ir_graph *g = ir_graph_new("fpad");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(1, 3, 5, 6, -1));
	struct ir_tensor *ins[2], *p, *y;
	int64_t four[1] = { 4 }, head[4] = { 1, 2, 3, 4 }, pair[2] = { -1, 2 };
	int64_t st[1] = { -1 }, en[1] = { INT64_MIN }, ax[1] = { 0 };
	int64_t flat[1] = { -1 }, perm[2] = { 1, 0 };
	int64_t want[8] = { 0, 0, 3, 1, 0, 0, 4, 2 };
	struct ir_tensor *sl[5];
	bool vals = true;
	int i, ret;

	ins[0] = ints(g, 4, head);
	ins[1] = fill_i64(g, ints(g, 1, four), 0);
	p = ft_op(g, IR_OP_CONCAT, "cat", 2, ins);
	ir_attr_set_int(p->producer, "axis", 0);
	p = op2(g, IR_OP_RESHAPE, NULL, p, ints(g, 2, pair));
	sl[0] = p;
	sl[1] = ints(g, 1, st);
	sl[2] = ints(g, 1, en);
	sl[3] = ints(g, 1, ax);
	sl[4] = ints(g, 1, st);
	p = ft_op(g, IR_OP_SLICE, "reverse", 5, sl);
	p = op2(g, IR_OP_TRANSPOSE, NULL, p, NULL);
	ir_attr_set_ints(p->producer, "perm", perm, 2);
	p = op2(g, IR_OP_RESHAPE, NULL, p, ints(g, 1, flat));
	y = op2(g, IR_OP_PAD, "pad", x, p);
	ir_graph_add_output(g, y);
	ret = shape_infer(g);
	if (!ft_ok(ret == 0 && !strcmp(sh(g, y), "[1,3,12,9]"),
		   "F.pad's pads subgraph folds before Pad: %s %s", g->err,
		   y->shape_known ? sh(g, y) : "?")) {
		ft_ok(false, "pads values");
		ir_graph_free(g);
		return;
	}
	for (i = 0; i < 8; i++)
		vals &= p->data && ir_const_get_i(p, i) == want[i];
	ft_ok(vals && g->num_nodes == 1 && g->nodes[0]->op == IR_OP_PAD,
	      "only Pad is left, its pads are [0,0,3,1,0,0,4,2] (%d nodes)",
	      g->num_nodes);
	ir_graph_free(g);
}

/*
 * Tensor.expand: the target comes from Where(Equal(t, -1), 1, t) over a
 * Concat of Shape(z)[0] and constants; z has a static shape.
 */
static void test_fold_expand_params(void)
{
	struct ir_graph *g = ir_graph_new("fexp");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(3, 1, -1));
	struct ir_tensor *z = ft_input(g, "z", ft_shape(2, 7, 9, -1));
	struct ir_tensor *ins[3], *t, *ones, *m, *y, *z2;
	int64_t three[1] = { 3 }, tail[2] = { -1, 4 }, ax[1] = { 0 };
	int ret;

	t = op2(g, IR_OP_GATHER, NULL, op2(g, IR_OP_SHAPE, NULL, z, NULL),
		scalar_i64(g, 0));
	ins[0] = op2(g, IR_OP_UNSQUEEZE, NULL, t, ints(g, 1, ax));
	ins[1] = ints(g, 2, tail);
	t = ft_op(g, IR_OP_CONCAT, "target", 2, ins);
	ir_attr_set_int(t->producer, "axis", 0);
	ones = fill_i64(g, ints(g, 1, three), 1);
	m = op2(g, IR_OP_MUL, NULL, ones, scalar_i64(g, -1));
	ins[0] = op2(g, IR_OP_EQUAL, NULL, t, m);
	ins[1] = ones;
	ins[2] = t;
	t = ft_op(g, IR_OP_WHERE, "where", 3, ins);
	y = op2(g, IR_OP_EXPAND, "expand", x, t);
	z2 = op2(g, IR_OP_RELU, NULL, z, NULL);
	ir_graph_add_output(g, y);
	ir_graph_add_output(g, z2);
	ret = shape_infer(g);
	ft_ok(ret == 0 && !strcmp(sh(g, y), "[2,3,4]") &&
	      g->num_nodes == 2 && ft_count(g, IR_OP_EXPAND) == 1 &&
	      t->data && ir_const_get_i(t, 1) == 1,
	      "Shape/Gather/Concat/ConstantOfShape/Mul/Equal/Where fold "
	      "before Expand: %s (%d nodes)", g->err[0] ? g->err :
	      (y->shape_known ? sh(g, y) : "?"), g->num_nodes);
	ir_graph_free(g);
}

/*
 * pos[:, :seq] with a symbolic seq (a position table sliced to the input's
 * length, as torch exports it): the end is unknown until a gear binds seq.
 * Read as an integer it was clamped to 0 and every shape computed from it
 * was folded to constants (a BERT gear of batch 4 then reshaped to [64,32]
 * instead of [256,32]); the slice now waits for the gear, and binds right.
 */
static void test_slice_symbolic_end(void)
{
	struct ir_graph *g = ir_graph_new("pos");
	int bid = ir_sym_intern(g, "batch"), sid = ir_sym_intern(g, "seq");
	struct ir_shape s = { .rank = 2, .dim = { IR_DIM_SYM(bid),
						 IR_DIM_SYM(sid) } };
	struct ir_tensor *x = ft_input(g, "x", s), *shp, *end, *sl, *ins[4];
	struct ir_tensor *pos = ft_const(g, "pos", ft_shape(1, 64, 8, -1), 1,
					 -1, 1);
	int64_t zero[1] = { 0 }, one[1] = { 1 };
	int ret;

	shp = op2(g, IR_OP_SHAPE, NULL, x, NULL);
	end = op2(g, IR_OP_SLICE, NULL, shp, ints(g, 1, one));
	ir_node_add_input(end->producer, ints(g, 1, (int64_t[]){ 2 }));
	ins[0] = pos;
	ins[1] = ints(g, 1, zero);
	ins[2] = end;
	ins[3] = ints(g, 1, one);
	sl = ft_op(g, IR_OP_SLICE, "pos_slice", 4, ins);
	ir_graph_add_output(g, sl);
	ret = shape_infer(g);
	ft_ok(ret != 0 && strstr(g->err, "pos_slice") &&
	      strstr(g->err, "symbolic"),
	      "a slice ending at a symbolic dim waits for the gear: %s",
	      ret ? g->err : sh(g, sl));
	ir_graph_bind_sym(g, "batch", 4);
	ir_graph_bind_sym(g, "seq", 10);
	ret = shape_infer(g);
	ft_ok(ret == 0 && !strcmp(sh(g, sl), "[1,10,8]"),
	      "with seq = 10 bound it is %s", ret ? g->err : sh(g, sl));
	ir_graph_free(g);
}

int main(void)
{
	ft_plan(24);
	test_legalized_values();
	test_legalize();
	test_broadcast();
	test_symbolic();
	test_slice_symbolic_end();
	test_reshape_static();
	test_ops();
	test_fold_pad_params();
	test_fold_expand_params();
	return ft_done();
}
