// SPDX-License-Identifier: MIT
/*
 * shape_legalize.c - rewrite ONNX forms the device cannot run as they are
 * into equivalent IR, before a node's shape is inferred:
 *
 *  - optional outputs nothing reads (LayerNormalization's Mean/InvStdDev,
 *    Dropout's mask, BatchNormalization's training outputs, MaxPool's
 *    Indices) are dropped;
 *  - LayerNormalization whose Mean/InvStdDev outputs are read: those come
 *    from ReduceMean / Sub / Mul / ReduceMean / Add / Sqrt / Reciprocal;
 *  - Pow with an exponent of another dtype than the base: the exponent is
 *    cast (a constant exponent is converted in place);
 *  - Dropout whose mask is read: in inference the mask is all true, a
 *    constant; training mode is refused;
 *  - Max/Min with a single input: the identity;
 *  - ops the device has no kernel for, in terms of ops it has: CastLike,
 *    Mean, Selu, Softsign, ThresholdedRelu, Trilu, ReduceL1, ReduceL2,
 *    ReduceLogSum, ReduceLogSumExp (in the stable form, max subtracted).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"

static bool used(const struct ir_tensor *t)
{
	return t && (t->num_uses || t->is_output);
}

static struct ir_tensor *node1(struct ir_graph *g, enum ir_op op,
			       const char *base, const char *suffix, int nin,
			       struct ir_tensor **ins, struct ir_tensor *out)
{
	char name[300];

	snprintf(name, sizeof(name), "%.250s/%s", base, suffix);
	if (!out)
		out = ir_tensor_new(g, NULL, ins[0]->dtype, NULL);
	if (!out || !ir_node_new(g, op, name, nin, ins, 1, &out))
		return NULL;
	return out;
}

static int legalize_layernorm(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *mean = NULL, *inv = NULL;
	struct ir_tensor *d, *t, *ins[2];
	int64_t axis = ir_attr_int(n, "axis", -1), axes[IR_MAX_RANK];
	float eps = ir_attr_float(n, "epsilon", 1e-5f);
	int r = x->shape.rank, i, na = 0;
	struct ir_node *rm;

	if (n->num_outputs > 1)
		mean = n->outputs[1];
	if (n->num_outputs > 2)
		inv = n->outputs[2];
	if (!used(mean) && !used(inv))
		return 0;
	if (axis < 0)
		axis += r;
	if (axis < 0 || axis >= r)
		return ir_error(g, "node '%s' (LayerNormalization): axis out of "
				"range for rank %d", n->name, r);
	if (x->dtype != IR_F32)
		return ir_error(g, "node '%s' (LayerNormalization): only f32 "
				"is supported", n->name);
	for (i = (int)axis; i < r; i++)
		axes[na++] = i;
	/* detach the extra outputs; new nodes produce them */
	for (i = 1; i < n->num_outputs; i++)
		ir_node_set_output(n, i, NULL);
	n->num_outputs = 1;
	if (!mean || !used(mean))
		mean = NULL;
	t = node1(g, IR_OP_REDUCE_MEAN, n->name, "mean", 1, &x, mean);
	if (!t)
		return -ENOMEM;
	rm = t->producer;
	ir_attr_set_ints(rm, "axes", axes, na);
	ir_attr_set_int(rm, "keepdims", 1);
	mean = t;
	if (!used(inv))
		return 1;
	ins[0] = x;
	ins[1] = mean;
	d = node1(g, IR_OP_SUB, n->name, "centered", 2, ins, NULL);
	ins[0] = d;
	ins[1] = d;
	t = d ? node1(g, IR_OP_MUL, n->name, "squared", 2, ins, NULL) : NULL;
	t = t ? node1(g, IR_OP_REDUCE_MEAN, n->name, "var", 1, &t, NULL) : NULL;
	if (!t)
		return -ENOMEM;
	ir_attr_set_ints(t->producer, "axes", axes, na);
	ir_attr_set_int(t->producer, "keepdims", 1);
	ins[0] = t;
	ins[1] = ir_const_scalar_f32(g, NULL, eps);
	t = ins[1] ? node1(g, IR_OP_ADD, n->name, "var_eps", 2, ins, NULL)
		   : NULL;
	t = t ? node1(g, IR_OP_SQRT, n->name, "stddev", 1, &t, NULL) : NULL;
	t = t ? node1(g, IR_OP_RECIPROCAL, n->name, "inv_stddev", 1, &t, inv)
	      : NULL;
	return t ? 1 : -ENOMEM;
}

static int legalize_pow(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *b = n->inputs[0], *e = n->inputs[1], *c;
	int64_t i, cnt;

	if (!e || e->dtype == b->dtype)
		return 0;
	if (b->dtype != IR_F32 && b->dtype != IR_I32 && b->dtype != IR_I64)
		return ir_error(g, "node '%s' (Pow): base dtype %s is not "
				"supported", n->name, ir_dtype_name(b->dtype));
	cnt = ir_tensor_numel(e);
	if (e->data && cnt >= 0) {
		size_t es = ir_dtype_size(b->dtype);
		char *buf = malloc((size_t)cnt * es + 1);

		if (!buf)
			return -ENOMEM;
		for (i = 0; i < cnt; i++) {
			double v = ir_const_get_f(e, i);

			if (b->dtype == IR_F32)
				((float *)buf)[i] = (float)v;
			else if (b->dtype == IR_I32)
				((int32_t *)buf)[i] = (int32_t)ir_f64_to_i64(
					v > INT32_MAX ? INT32_MAX :
					v < INT32_MIN ? INT32_MIN : v);
			else
				((int64_t *)buf)[i] = ir_f64_to_i64(v);
		}
		c = ir_const_new(g, NULL, b->dtype, &e->shape, buf,
				 (size_t)cnt * es);
		free(buf);
	} else {
		c = node1(g, IR_OP_CAST, n->name, "exponent_cast", 1, &e,
			  ir_tensor_new(g, NULL, b->dtype, NULL));
		if (c) {
			int64_t to = b->dtype == IR_F32 ? 1 :
				     b->dtype == IR_I32 ? 6 : 7;

			ir_attr_set_int(c->producer, "to", to);
		}
	}
	if (!c)
		return -ENOMEM;
	ir_node_set_input(n, 1, c);
	return 1;
}

static int legalize_dropout(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *tm = ir_in(n, 2), *mask, *ones;
	int64_t cnt;
	void *buf;

	if (tm && (!tm->data || ir_const_get_i(tm, 0)))
		return ir_error(g, "node '%s' (Dropout): training mode is not "
				"supported (export the model in eval mode)",
				n->name);
	if (n->opset < 7 && ir_attr_int(n, "is_test", 0) == 0 &&
	    n->opset < 6)
		return ir_error(g, "node '%s' (Dropout, opset %d): training "
				"mode (is_test=0) is not supported", n->name,
				n->opset);
	mask = n->num_outputs > 1 ? n->outputs[1] : NULL;
	if (!used(mask))
		return 0;
	cnt = ir_shape_numel(&n->inputs[0]->shape);
	if (cnt < 0)
		return ir_error(g, "node '%s' (Dropout): a used mask needs a "
				"static shape", n->name);
	buf = malloc((size_t)cnt + 1);
	if (!buf)
		return -ENOMEM;
	memset(buf, 1, (size_t)cnt);	/* inference: every element kept */
	ones = ir_const_new(g, NULL, IR_BOOL, &n->inputs[0]->shape, buf,
			    (size_t)cnt);
	free(buf);
	if (!ones)
		return -ENOMEM;
	ir_replace_uses(g, mask, ones);
	return 1;
}

/* Max/Min/Sum of one operand is the identity. */
static int legalize_single(struct ir_graph *g, struct ir_node *n)
{
	(void)g;
	if (n->num_inputs != 1)
		return 0;
	n->op = IR_OP_IDENTITY;
	return 1;
}

static int onnx_type_of(enum ir_dtype dt)
{
	static const int map[IR_DTYPE_COUNT] = {
		[IR_F32] = 1, [IR_U8] = 2, [IR_I8] = 3, [IR_I32] = 6,
		[IR_I64] = 7, [IR_BOOL] = 9, [IR_F16] = 10,
	};

	return (unsigned int)dt < IR_DTYPE_COUNT ? map[dt] : 0;
}

static int legalize_cast_like(struct ir_graph *g, struct ir_node *n)
{
	ir_attr_set_int(n, "to", onnx_type_of(n->inputs[1]->dtype));
	ir_node_truncate_inputs(n, 1);
	n->op = IR_OP_CAST;
	return 1;
}

/* A scalar constant of @dt holding @v. */
static struct ir_tensor *scalar_of(struct ir_graph *g, enum ir_dtype dt,
				   double v)
{
	struct ir_shape s = { 0 };
	int64_t i64 = (int64_t)v;
	int32_t i32 = (int32_t)v;
	float f = (float)v;
	uint8_t u8 = (uint8_t)v;
	int8_t i8 = (int8_t)v;

	switch (dt) {
	case IR_F32: return ir_const_new(g, NULL, dt, &s, &f, 4);
	case IR_I32: return ir_const_new(g, NULL, dt, &s, &i32, 4);
	case IR_I64: return ir_const_new(g, NULL, dt, &s, &i64, 8);
	case IR_U8: case IR_BOOL: return ir_const_new(g, NULL, dt, &s, &u8, 1);
	case IR_I8: return ir_const_new(g, NULL, dt, &s, &i8, 1);
	default: return NULL;
	}
}

/*
 * Put a new node @op after @n: @n now writes a fresh tensor that the new
 * node reads (with @extra as second input if given) to write @n's output.
 */
static struct ir_node *append_after(struct ir_graph *g, struct ir_node *n,
				    enum ir_op op, const char *suffix,
				    struct ir_tensor *extra)
{
	struct ir_tensor *out = n->outputs[0], *mid, *ins[2];
	char name[300];

	mid = ir_tensor_new(g, NULL, out->dtype, NULL);
	if (!mid)
		return NULL;
	ir_node_set_output(n, 0, mid);
	ins[0] = mid;
	ins[1] = extra;
	snprintf(name, sizeof(name), "%.250s/%s", n->name, suffix);
	return ir_node_new(g, op, name, extra ? 2 : 1, ins, 1, &out);
}

/* A new node @op reading @n's input 0, which @n then reads instead. */
static struct ir_node *prepend_before(struct ir_graph *g, struct ir_node *n,
				      enum ir_op op, const char *suffix)
{
	struct ir_tensor *x = n->inputs[0], *mid;
	char name[300];
	struct ir_node *p;

	mid = ir_tensor_new(g, NULL, x->dtype, NULL);
	if (!mid)
		return NULL;
	snprintf(name, sizeof(name), "%.250s/%s", n->name, suffix);
	p = ir_node_new(g, op, name, 1, &x, 1, &mid);
	if (p)
		ir_node_set_input(n, 0, mid);
	return p;
}

static int legalize_mean(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *k;

	n->op = IR_OP_SUM;
	if (n->num_inputs == 1)
		return 1;
	k = scalar_of(g, n->inputs[0]->dtype, n->num_inputs);
	return k && append_after(g, n, IR_OP_DIV, "mean", k) ? 1 : -ENOMEM;
}

static int legalize_selu(struct ir_graph *g, struct ir_node *n)
{
	float alpha = ir_attr_float(n, "alpha", 1.67326319217681884765625f);
	float gamma = ir_attr_float(n, "gamma", 1.05070102214813232421875f);
	struct ir_tensor *k = ir_const_scalar_f32(g, NULL, gamma);

	n->op = IR_OP_ELU;
	ir_attr_remove(n, "gamma");
	ir_attr_set_float(n, "alpha", alpha);
	return k && append_after(g, n, IR_OP_MUL, "gamma", k) ? 1 : -ENOMEM;
}

static int legalize_softsign(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *a, *one, *ins[2];
	char name[300];

	/* x / (1 + |x|) */
	n->op = IR_OP_DIV;
	a = ir_tensor_new(g, NULL, x->dtype, NULL);
	one = ir_const_scalar_f32(g, NULL, 1.0f);
	if (!a || !one)
		return -ENOMEM;
	snprintf(name, sizeof(name), "%.250s/abs", n->name);
	if (!ir_node_new(g, IR_OP_ABS, name, 1, &x, 1, &a))
		return -ENOMEM;
	ins[0] = a;
	ins[1] = one;
	snprintf(name, sizeof(name), "%.250s/plus1", n->name);
	a = ir_tensor_new(g, NULL, x->dtype, NULL);
	if (!a || !ir_node_new(g, IR_OP_ADD, name, 2, ins, 1, &a))
		return -ENOMEM;
	return ir_node_add_input(n, a) ? -ENOMEM : 1;
}

static int legalize_thresholded_relu(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *c, *ins[2];
	float alpha = ir_attr_float(n, "alpha", 1.0f);
	char name[300];

	/* Where(x > alpha, x, 0) */
	ins[0] = x;
	ins[1] = ir_const_scalar_f32(g, NULL, alpha);
	c = ir_tensor_new(g, NULL, IR_BOOL, NULL);
	snprintf(name, sizeof(name), "%.250s/above", n->name);
	if (!ins[1] || !c || !ir_node_new(g, IR_OP_GREATER, name, 2, ins, 1,
					   &c))
		return -ENOMEM;
	n->op = IR_OP_WHERE;
	ir_attr_remove(n, "alpha");
	ir_node_set_input(n, 0, c);
	if (ir_node_add_input(n, x) ||
	    ir_node_add_input(n, scalar_of(g, x->dtype, 0)))
		return -ENOMEM;
	return 1;
}

static int legalize_trilu(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *kt = ir_in(n, 1), *m;
	bool upper = ir_attr_int(n, "upper", 1) != 0;
	int64_t k = 0, r = x->shape.rank, rows, cols, i, j;
	struct ir_shape ms = { .rank = 2 };
	uint8_t *mask;

	if (r < 2 || IR_DIM_IS_SYM(x->shape.dim[r - 1]) ||
	    IR_DIM_IS_SYM(x->shape.dim[r - 2]))
		return ir_error(g, "node '%s' (Trilu): needs rank >= 2 and "
				"static last two dims", n->name);
	if (kt && !kt->data)
		return ir_error(g, "node '%s' (Trilu): a k computed at run "
				"time is not supported (k must be a constant)",
				n->name);
	if (kt)
		k = ir_const_get_i(kt, 0);
	rows = x->shape.dim[r - 2];
	cols = x->shape.dim[r - 1];
	ms.dim[0] = rows;
	ms.dim[1] = cols;
	mask = malloc((size_t)(rows * cols) + 1);
	if (!mask)
		return -ENOMEM;
	for (i = 0; i < rows; i++)
		for (j = 0; j < cols; j++)
			mask[i * cols + j] = upper ? j - i >= k : j - i <= k;
	m = ir_const_new(g, NULL, IR_BOOL, &ms, mask, (size_t)(rows * cols));
	free(mask);
	if (!m)
		return -ENOMEM;
	/* Where(mask, x, 0): exact, also for inf and nan */
	ir_node_truncate_inputs(n, 0);
	n->op = IR_OP_WHERE;
	ir_attr_remove(n, "upper");
	if (ir_node_add_input(n, m) || ir_node_add_input(n, x) ||
	    ir_node_add_input(n, scalar_of(g, x->dtype, 0)))
		return -ENOMEM;
	return 1;
}

/*
 * A reduction like @n (its axes attribute or input, noop_with_empty_axes)
 * of @op over @x with @keepdims, named @n's name/@suffix.
 */
static struct ir_tensor *reduce_like(struct ir_graph *g,
				     const struct ir_node *n, enum ir_op op,
				     struct ir_tensor *x, int keepdims,
				     const char *suffix)
{
	struct ir_tensor *ins[2] = { x, ir_in(n, 1) }, *t;
	const int64_t *axes;
	int na = ir_attr_ints(n, "axes", &axes);
	char name[300];
	struct ir_node *r;

	t = ir_tensor_new(g, NULL, x->dtype, NULL);
	snprintf(name, sizeof(name), "%.250s/%s", n->name, suffix);
	r = t ? ir_node_new(g, op, name, ins[1] ? 2 : 1, ins, 1, &t) : NULL;
	if (!r)
		return NULL;
	r->opset = n->opset;
	if ((na > 0 && ir_attr_set_ints(r, "axes", axes, na)) ||
	    ir_attr_set_int(r, "keepdims", keepdims) ||
	    ir_attr_set_int(r, "noop_with_empty_axes",
			    ir_attr_int(n, "noop_with_empty_axes", 0)))
		return NULL;
	return t;
}

static struct ir_tensor *binary(struct ir_graph *g, const struct ir_node *n,
				enum ir_op op, struct ir_tensor *a,
				struct ir_tensor *b, enum ir_dtype dt,
				const char *suffix)
{
	struct ir_tensor *ins[2] = { a, b }, *t;

	if (!a || !b)
		return NULL;
	t = ir_tensor_new(g, NULL, dt, NULL);
	return t ? node1(g, op, n->name, suffix, 2, ins, t) : NULL;
}

/*
 * ReduceLogSumExp in the stable form: with m the maximum over the axes (0
 * where it is not finite, so that all -inf gives -inf, any +inf gives +inf
 * and NaN stays NaN), log(sum(exp(x - m))) + m. @n becomes the ReduceSum.
 */
static int legalize_logsumexp(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *m, *fin, *ms, *e, *ins[3];
	int keep = (int)ir_attr_int(n, "keepdims", 1);

	if (x->dtype != IR_F32)
		return ir_error(g, "node '%s' (ReduceLogSumExp): only f32 is "
				"supported", n->name);
	m = reduce_like(g, n, IR_OP_REDUCE_MAX, x, 1, "max");
	ins[0] = m ? node1(g, IR_OP_ABS, n->name, "abs_max", 1, &m, NULL)
		   : NULL;
	fin = ins[0] ? binary(g, n, IR_OP_LESS, ins[0],
			      ir_const_scalar_f32(g, NULL, INFINITY), IR_BOOL,
			      "max_finite") : NULL;
	if (!fin)
		return -ENOMEM;
	ins[0] = fin;
	ins[1] = m;
	ins[2] = scalar_of(g, IR_F32, 0);
	ms = ins[2] ? node1(g, IR_OP_WHERE, n->name, "shift", 3, ins,
			    ir_tensor_new(g, NULL, IR_F32, NULL)) : NULL;
	e = binary(g, n, IR_OP_SUB, x, ms, IR_F32, "centered");
	e = e ? node1(g, IR_OP_EXP, n->name, "exp", 1, &e, NULL) : NULL;
	if (!e)
		return -ENOMEM;
	ir_node_set_input(n, 0, e);
	n->op = IR_OP_REDUCE_SUM;
	if (!append_after(g, n, IR_OP_LOG, "log", NULL))
		return -ENOMEM;
	/* the shift, with the reduced dims dropped as the output has them */
	if (!keep)
		ms = reduce_like(g, n, IR_OP_REDUCE_MAX, ms, 0, "shift_out");
	return ms && append_after(g, n->outputs[0]->uses[0].node, IR_OP_ADD,
				  "add_shift", ms) ? 1 : -ENOMEM;
}

static int legalize_reduce(struct ir_graph *g, struct ir_node *n)
{
	switch (n->op) {
	case IR_OP_REDUCE_L1:
		n->op = IR_OP_REDUCE_SUM;
		return prepend_before(g, n, IR_OP_ABS, "abs") ? 1 : -ENOMEM;
	case IR_OP_REDUCE_L2:
		n->op = IR_OP_REDUCE_SUM_SQUARE;
		return append_after(g, n, IR_OP_SQRT, "sqrt", NULL) ? 1
								     : -ENOMEM;
	case IR_OP_REDUCE_LOG_SUM:
		n->op = IR_OP_REDUCE_SUM;
		return append_after(g, n, IR_OP_LOG, "log", NULL) ? 1 : -ENOMEM;
	default:
		return legalize_logsumexp(g, n);
	}
}

/*
 * Optional outputs that nothing reads are dropped before any shape is
 * inferred or checked: LayerNormalization's Mean and InvStdDev, Dropout's
 * mask, BatchNormalization's training outputs, MaxPool's Indices. Shape
 * inference gives them no shape, and a tensor without one is refused by
 * lowering as if it were a symbolic dim the user must bind.
 */
static void drop_unused_optional_outputs(struct ir_node *n)
{
	int first, i;

	switch (n->op) {
	case IR_OP_LAYER_NORM: case IR_OP_DROPOUT: case IR_OP_BATCH_NORM:
	case IR_OP_MAX_POOL:
		first = 1;
		break;
	default:
		return;
	}
	for (i = first; i < n->num_outputs; i++)
		if (n->outputs[i] && !used(n->outputs[i]))
			ir_node_set_output(n, i, NULL);
	while (n->num_outputs > first && !n->outputs[n->num_outputs - 1])
		n->num_outputs--;
}

/* 0: nothing to do, 1: the graph changed (re-sort, restart), < 0: error */
int shape_legalize_node(struct ir_graph *g, struct ir_node *n)
{
	int i, need = 1;

	drop_unused_optional_outputs(n);
	/* malformed nodes are left to shape inference to report */
	if (n->op == IR_OP_POW || n->op == IR_OP_CAST_LIKE)
		need = 2;
	if (n->num_inputs < need || n->num_outputs < 1 || !n->outputs[0])
		return 0;
	for (i = 0; i < n->num_inputs; i++)
		if (!n->inputs[i] && (i < need || n->op == IR_OP_MEAN ||
				      n->op == IR_OP_SUM ||
				      n->op == IR_OP_MAX || n->op == IR_OP_MIN))
			return 0;
	switch (n->op) {
	case IR_OP_LAYER_NORM: return legalize_layernorm(g, n);
	case IR_OP_POW: return n->num_inputs == 2 ? legalize_pow(g, n) : 0;
	case IR_OP_DROPOUT: return legalize_dropout(g, n);
	case IR_OP_MAX: case IR_OP_MIN: case IR_OP_SUM:
		return legalize_single(g, n);
	case IR_OP_CAST_LIKE: return legalize_cast_like(g, n);
	case IR_OP_MEAN: return legalize_mean(g, n);
	case IR_OP_SELU: return legalize_selu(g, n);
	case IR_OP_SOFTSIGN: return legalize_softsign(g, n);
	case IR_OP_THRESHOLDED_RELU: return legalize_thresholded_relu(g, n);
	case IR_OP_TRILU: return legalize_trilu(g, n);
	case IR_OP_REDUCE_L1: case IR_OP_REDUCE_L2: case IR_OP_REDUCE_LOG_SUM:
	case IR_OP_REDUCE_LOG_SUM_EXP:
		return legalize_reduce(g, n);
	default: return 0;
	}
}
