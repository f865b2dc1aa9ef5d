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
 *    ReduceLogSum, ReduceLogSumExp (in the stable form, max subtracted),
 *    Sign, Round, Mod, IsNaN, IsInf, Celu, Shrink, Hardmax, Tile, OneHot,
 *    Sinh, Cosh (see each one's comment), ConvTranspose
 *    (legalize_convt.c), RNN, LSTM and GRU (legalize_rnn.c), and
 *    DepthToSpace ... CumSum (legalize_more.c), TopK (legalize_topk.c),
 *    ScatterND/ScatterElements/Scatter (legalize_scatter.c), EyeLike,
 *    the window functions, Upsample, Compress (legalize_gen.c), NonZero
 *    and NonMaxSuppression (legalize_count.c), QLinearConv and
 *    QLinearMatMul (legalize_qlinear.c), Einsum (legalize_einsum.c),
 *    MaxPool's Indices output (legalize_maxpool.c), Det (legalize_det.c),
 *    MatMulInteger, ConvInteger, DynamicQuantizeLinear
 *    (legalize_integer.c), 3-D pooling (legalize_pool3d.c), If, Loop and
 *    Scan (legalize_control.c), DFT, STFT, MelWeightMatrix
 *    (legalize_dft.c), BitShift (legalize_bitshift.c), TfIdfVectorizer
 *    (legalize_tfidf.c), 3-D Conv and ConvTranspose (legalize_conv3d.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"
#include "plugin/plugin_ir.h"

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
	return ir_dtype_to_onnx(dt);
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

/* A 1-D i64 constant. */
static struct ir_tensor *ints_const(struct ir_graph *g, const int64_t *v,
				    int n)
{
	struct ir_shape sh = { .rank = 1, .dim = { n } };

	return ir_const_new(g, NULL, IR_I64, &sh, v, (size_t)n * 8);
}

/*
 * Slice with negative steps: the device copies with unsigned strides, so
 * each such axis is sliced forward over the same elements (from the last
 * one selected, step -step) and then reversed by a Gather with constant
 * indices [cnt-1 .. 0]. Needs static dims on those axes.
 */
static int legalize_slice(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = &n->inputs[0]->shape;
	int64_t st[IR_MAX_RANK], en[IR_MAX_RANK], ax[IR_MAX_RANK];
	int64_t sp[IR_MAX_RANK], rev[IR_MAX_RANK], cnt[IR_MAX_RANK];
	int ns, na, nsp, nrev = 0, i;

	if (n->opset < 10 || !n->inputs[0]->shape_known)
		return 0;
	nsp = shape_node_ints(n, 4, NULL, sp, IR_MAX_RANK);
	ns = shape_node_ints(n, 1, NULL, st, IR_MAX_RANK);
	if (nsp <= 0 || ns != nsp ||
	    shape_node_ints(n, 2, NULL, en, IR_MAX_RANK) != ns)
		return 0;	/* shape inference reports what is wrong */
	na = shape_node_ints(n, 3, NULL, ax, IR_MAX_RANK);
	if (na == -ENOENT)
		for (na = 0; na < ns; na++)
			ax[na] = na;
	if (na != ns)
		return 0;
	for (i = 0; i < ns && sp[i] >= 0; i++)
		;
	if (i == ns)
		return 0;	/* no negative step */
	for (i = 0; i < ns; i++) {
		int a = shape_axis(ax[i], x->rank);
		int64_t b, c;

		if (sp[i] >= 0 || a < 0 || IR_DIM_IS_SYM(x->dim[a]))
			continue;
		c = shape_slice_dim(x->dim[a], st[i], en[i], sp[i], &b);
		/* forward over the same elements: first is the last taken */
		if (c > 0) {
			st[i] = b + (c - 1) * sp[i];
			en[i] = b + 1;
			sp[i] = -sp[i];
			rev[nrev] = a;
			cnt[nrev++] = c;
		} else {
			st[i] = en[i] = 0;
			sp[i] = 1;
		}
		ax[i] = a;
	}
	for (i = 0; i < ns; i++)
		if (sp[i] < 0)
			return 0;	/* symbolic: left to shape inference */
	ir_node_set_input(n, 1, ints_const(g, st, ns));
	ir_node_set_input(n, 2, ints_const(g, en, ns));
	if (n->num_inputs < 4)
		ir_node_add_input(n, NULL);
	ir_node_set_input(n, 3, ints_const(g, ax, ns));
	ir_node_set_input(n, 4, ints_const(g, sp, ns));
	for (i = 0; i < 4; i++)
		if (!n->inputs[1 + i])
			return -ENOMEM;
	for (i = 0; i < nrev; i++) {
		int64_t *idx = malloc((size_t)cnt[i] * sizeof(*idx));
		struct ir_tensor *it;
		struct ir_node *gn;

		if (!idx)
			return -ENOMEM;
		for (int64_t j = 0; j < cnt[i]; j++)
			idx[j] = cnt[i] - 1 - j;
		it = ints_const(g, idx, (int)cnt[i]);
		free(idx);
		gn = it ? append_after(g, n, IR_OP_GATHER, "reverse", it) : NULL;
		if (!gn || ir_attr_set_int(gn, "axis", rev[i]))
			return -ENOMEM;
	}
	return 1;
}

/* Unsqueeze/Squeeze of @x at axis 2 (axes as input from opset 13). */
static struct ir_node *squeeze_h(struct ir_graph *g, const struct ir_node *n,
				 enum ir_op op, struct ir_tensor *x,
				 struct ir_tensor *out, const char *suffix)
{
	static const int64_t two = 2;
	struct ir_tensor *ins[2] = { x, NULL };
	struct ir_node *u;
	char name[300];

	if (n->opset >= 13) {
		ins[1] = ints_const(g, &two, 1);
		if (!ins[1])
			return NULL;
	}
	if (!out)
		out = ir_tensor_new(g, NULL, x->dtype, NULL);
	snprintf(name, sizeof(name), "%.250s/%s", n->name, suffix);
	u = out ? ir_node_new(g, op, name, ins[1] ? 2 : 1, ins, 1, &out)
		: NULL;
	if (!u)
		return NULL;
	u->opset = n->opset;
	if (!ins[1] && ir_attr_set_ints(u, "axes", &two, 1))
		return NULL;
	return u;
}

/* A per-spatial-dim attribute of a 1-D op as the 2-D one (H = 1). */
static int widen_attr(struct ir_node *n, const char *name, int64_t h,
		      bool pads)
{
	const int64_t *v;
	int64_t w[4];

	if (ir_attr_ints(n, name, &v) < 0 || !ir_attr_find(n, name))
		return 0;
	if (pads) {
		if (ir_attr_ints(n, name, &v) != 2)
			return -EINVAL;
		w[0] = 0;
		w[1] = v[0];
		w[2] = 0;
		w[3] = v[1];
		return ir_attr_set_ints(n, name, w, 4);
	}
	if (ir_attr_ints(n, name, &v) != 1)
		return -EINVAL;
	w[0] = h;
	w[1] = v[0];
	return ir_attr_set_ints(n, name, w, 2);
}

/*
 * 1-D Conv and pooling (rank-3 input [N, C, L]) run as the 2-D op with
 * H = 1: the input (and a Conv's weight) gain a dim 1 at axis 2, the
 * attributes gain their H entry (kernel 1, stride 1, dilation 1, pads 0)
 * and the output loses it again. Unsqueeze and Squeeze are views.
 */
static int legalize_1d(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out = n->outputs[0], *w;
	struct ir_node *u;

	if (!x->shape_known || x->shape.rank != 3)
		return 0;
	if (n->op == IR_OP_CONV) {
		w = ir_in(n, 1);
		if (!w || !w->shape_known || w->shape.rank != 3)
			return 0;
		u = squeeze_h(g, n, IR_OP_UNSQUEEZE, w, NULL, "weight_2d");
		if (!u)
			return -ENOMEM;
		ir_node_set_input(n, 1, u->outputs[0]);
	}
	if (widen_attr(n, "kernel_shape", 1, false) ||
	    widen_attr(n, "strides", 1, false) ||
	    widen_attr(n, "dilations", 1, false) ||
	    widen_attr(n, "pads", 0, true))
		return ir_error(g, "node '%s' (%s): attributes do not fit a "
				"1-D input", n->name, ir_op_name(n->op));
	u = squeeze_h(g, n, IR_OP_UNSQUEEZE, x, NULL, "input_2d");
	if (!u)
		return -ENOMEM;
	ir_node_set_input(n, 0, u->outputs[0]);
	/* the node writes a 4-D tensor that a Squeeze turns into @out */
	w = ir_tensor_new(g, NULL, out->dtype, NULL);
	if (!w)
		return -ENOMEM;
	ir_node_set_output(n, 0, w);
	return squeeze_h(g, n, IR_OP_SQUEEZE, w, out, "output_1d") ? 1
								   : -ENOMEM;
}

/*
 * Pad with negative pads crops: a Slice removes the negative part first,
 * then the Pad pads the cropped tensor by the positive part (ONNX
 * Runtime's order; it matters for reflect and edge). Needs static dims on
 * the cropped axes.
 */
static int legalize_pad(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = &n->inputs[0]->shape;
	int64_t p[2 * IR_MAX_RANK], st[IR_MAX_RANK], en[IR_MAX_RANK];
	int64_t ax[IR_MAX_RANK];
	int np, r = x->rank, nc = 0, i;
	struct ir_tensor *ins[4], *t;
	struct ir_node *sl;
	char name[300];

	if (!n->inputs[0]->shape_known || ir_in(n, 3))
		return 0;	/* Pad-18 axes: left to shape inference */
	np = shape_node_ints(n, n->opset >= 11 ? 1 : -1,
			     n->opset >= 11 ? NULL : "pads", p,
			     2 * IR_MAX_RANK);
	if (np != 2 * r)
		return 0;
	for (i = 0; i < r; i++) {
		if (p[i] >= 0 && p[i + r] >= 0)
			continue;
		if (IR_DIM_IS_SYM(x->dim[i]))
			return 0;
		ax[nc] = i;
		st[nc] = p[i] < 0 ? -p[i] : 0;
		en[nc] = x->dim[i] - (p[i + r] < 0 ? -p[i + r] : 0);
		if (en[nc] < st[nc])
			en[nc] = st[nc];
		nc++;
		if (p[i] < 0)
			p[i] = 0;
		if (p[i + r] < 0)
			p[i + r] = 0;
	}
	if (!nc)
		return 0;
	t = ir_tensor_new(g, NULL, n->inputs[0]->dtype, NULL);
	if (!t)
		return -ENOMEM;
	ins[0] = n->inputs[0];
	snprintf(name, sizeof(name), "%.250s/crop", n->name);
	if (n->opset >= 10) {
		ins[1] = ints_const(g, st, nc);
		ins[2] = ints_const(g, en, nc);
		ins[3] = ints_const(g, ax, nc);
		if (!ins[1] || !ins[2] || !ins[3])
			return -ENOMEM;
		sl = ir_node_new(g, IR_OP_SLICE, name, 4, ins, 1, &t);
	} else {
		sl = ir_node_new(g, IR_OP_SLICE, name, 1, ins, 1, &t);
		if (sl && (ir_attr_set_ints(sl, "starts", st, nc) ||
			   ir_attr_set_ints(sl, "ends", en, nc) ||
			   ir_attr_set_ints(sl, "axes", ax, nc)))
			return -ENOMEM;
	}
	if (!sl)
		return -ENOMEM;
	sl->opset = n->opset;
	ir_node_set_input(n, 0, t);
	if (n->opset >= 11) {
		struct ir_tensor *pt = ints_const(g, p, 2 * r);

		if (!pt)
			return -ENOMEM;
		ir_node_set_input(n, 1, pt);
		return 1;
	}
	return ir_attr_set_ints(n, "pads", p, 2 * r) ? -ENOMEM : 1;
}

/*
 * Nearest Resize with a coordinate transformation the device does not
 * have (tf_half_pixel_for_nn: x_in = (x_out + 0.5) / scale) is a gather
 * per resized axis, its indices computed here in double as the ONNX
 * reference does (scale: the given f32 scale, or out / in with sizes),
 * rounded by nearest_mode and clamped to [0, in - 1]; an axis of scale 1
 * that keeps its extent is not resized (ONNX Runtime's reading).
 */
static int legalize_resize(struct ir_graph *g, struct ir_node *n)
{
	const char *ct = ir_attr_str(n, "coordinate_transformation_mode",
				     "half_pixel");
	const char *nm = ir_attr_str(n, "nearest_mode", "round_prefer_floor");
	static const char *const drop[] = {
		"mode", "coordinate_transformation_mode", "nearest_mode",
		"cubic_coeff_a", "exclude_outside", "extrapolation_value",
		"antialias", "axes", "keep_aspect_ratio_policy",
	};
	struct ir_tensor *x = n->inputs[0], *sc = ir_in(n, 2);
	struct ir_tensor *idx[IR_MAX_RANK];
	int64_t ax[IR_MAX_RANK];
	int na = 0, r, d, ret;

	if (strcmp(ct, "tf_half_pixel_for_nn") ||
	    strcmp(ir_attr_str(n, "mode", "nearest"), "nearest") ||
	    !x->shape_known || !ir_shape_is_static(&x->shape) ||
	    ir_attr_find(n, "axes"))
		return 0;
	ret = shape_infer_node(g, n);	/* the output shape */
	if (ret)
		return ret;
	r = x->shape.rank;
	for (d = 0; d < r; d++) {
		int64_t in = x->shape.dim[d], out = n->outputs[0]->shape.dim[d];
		double scale = ir_in(n, 3) || !sc ? (in ? (double)out / in : 1)
					    : (double)(float)ir_const_get_f(sc, d);
		int64_t *v;
		bool same = out == in;

		/*
		 * An axis that is not resized (same extent, scale 1) is
		 * left alone, as ONNX Runtime does: the formula would shift
		 * it by one element ((x + 0.5) / 1 rounds up).
		 */
		if (same && scale == 1.0)
			continue;
		v = malloc((size_t)(out ? out : 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (int64_t i = 0; i < out; i++) {
			double xo = ((double)i + 0.5) / scale, f = floor(xo);
			int64_t k;

			if (!strcmp(nm, "floor"))
				k = (int64_t)f;
			else if (!strcmp(nm, "ceil"))
				k = (int64_t)ceil(xo);
			else if (xo - f == 0.5)
				k = (int64_t)f + !strcmp(nm, "round_prefer_ceil");
			else
				k = (int64_t)floor(xo + 0.5);
			v[i] = k < 0 ? 0 : k > in - 1 ? in - 1 : k;
			same = same && v[i] == i;
		}
		idx[na] = same ? NULL : ints_const(g, v, (int)out);
		free(v);
		if (!same && !idx[na])
			return -ENOMEM;
		if (!same)
			ax[na++] = d;
	}
	for (size_t k = 0; k < sizeof(drop) / sizeof(drop[0]); k++)
		ir_attr_remove(n, drop[k]);
	ir_node_truncate_inputs(n, 1);
	if (!na) {
		n->op = IR_OP_IDENTITY;
		return 1;
	}
	n->op = IR_OP_GATHER;
	if (ir_node_add_input(n, idx[0]) || ir_attr_set_int(n, "axis", ax[0]))
		return -ENOMEM;
	for (int k = 1; k < na; k++) {
		struct ir_node *gn = append_after(g, n, IR_OP_GATHER, "resize",
						  idx[k]);

		if (!gn || ir_attr_set_int(gn, "axis", ax[k]))
			return -ENOMEM;
	}
	return 1;
}

/* A reduction of @op over @axis, dims kept. */
static struct ir_tensor *mk_reduce(struct lz_builder *b, enum ir_op op,
				   struct ir_tensor *x, int64_t axis)
{
	struct ir_tensor *t = lz_unary(b, op, x, NULL);

	if (!t || ir_attr_set_ints(t->producer, "axes", &axis, 1) ||
	    ir_attr_set_int(t->producer, "keepdims", 1))
		return NULL;
	return t;
}

/* Reshape/Expand of @x to the static shape @s. */
static struct ir_tensor *mk_shape(struct lz_builder *b, enum ir_op op,
				  struct ir_tensor *x,
				  const struct ir_shape *s,
				  struct ir_tensor *out)
{
	return lz_binary(b, op, x, ints_const(b->g, s->dim, s->rank), out);
}

static bool dt_in(enum ir_dtype dt, unsigned int mask)
{
	return (unsigned int)dt < 32 && (mask >> dt) & 1;
}

#define DT_F	(1u << IR_F32)
#define DT_INT	((1u << IR_I8) | (1u << IR_U8) | (1u << IR_I32) | \
		 (1u << IR_I64))

static int bad_dtype(struct ir_graph *g, const struct ir_node *n,
		     enum ir_dtype dt)
{
	return ir_error(g, "node '%s' (%s): dtype %s is not supported",
			n->name, ir_op_name(n->op), ir_dtype_name(dt));
}

/* Sign: Where(x > 0, 1, Where(x < 0, -1, x)): 0 and NaN pass. */
static int legalize_sign(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *t = x;
	enum ir_dtype dt = x->dtype;
	struct lz_builder b;

	if (!dt_in(dt, DT_F | DT_INT))
		return bad_dtype(g, n, dt);
	out = lz_take(&b, g, n);
	if (dt != IR_U8)
		t = lz_where(&b, lz_binary(&b, IR_OP_LESS, x, scalar_of(g, dt, 0),
				     NULL), scalar_of(g, dt, -1), x, NULL);
	t = lz_where(&b, lz_binary(&b, IR_OP_GREATER, x, scalar_of(g, dt, 0), NULL),
		     scalar_of(g, dt, 1), t, out);
	return t ? 1 : -ENOMEM;
}

/*
 * Round, half to even: f = floor(x), d = x - f (exact); up when d > 0.5
 * or d == 0.5 and f is odd (f - 2 floor(f / 2) == 1, exact). Inf gives d
 * NaN (never up), NaN stays NaN.
 */
static int legalize_round(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *f, *d, *h, *odd, *up;
	struct lz_builder b;

	if (x->dtype != IR_F32)
		return bad_dtype(g, n, x->dtype);
	out = lz_take(&b, g, n);
	f = lz_unary(&b, IR_OP_FLOOR, x, NULL);
	d = lz_binary(&b, IR_OP_SUB, x, f, NULL);
	h = lz_unary(&b, IR_OP_FLOOR, lz_binary(&b, IR_OP_MUL, f,
				     ir_const_scalar_f32(g, NULL, 0.5f), NULL),
		NULL);
	odd = lz_binary(&b, IR_OP_SUB, f, lz_binary(&b, IR_OP_ADD, h, h, NULL), NULL);
	odd = lz_binary(&b, IR_OP_EQUAL, odd, ir_const_scalar_f32(g, NULL, 1), NULL);
	up = lz_binary(&b, IR_OP_AND, odd,
		 lz_binary(&b, IR_OP_EQUAL, d, ir_const_scalar_f32(g, NULL, 0.5f),
		     NULL), NULL);
	up = lz_binary(&b, IR_OP_OR, up,
		 lz_binary(&b, IR_OP_GREATER, d, ir_const_scalar_f32(g, NULL, 0.5f),
		     NULL), NULL);
	return lz_where(&b, up, lz_binary(&b, IR_OP_ADD, f,
				    ir_const_scalar_f32(g, NULL, 1), NULL),
			f, out) ? 1 : -ENOMEM;
}

/*
 * Mod. Integers: r = a - (a / b) * b with the device's truncating
 * division (C's %, which is fmod=1, also under wrap-around); fmod=0 then
 * adds b where r != 0 and r's sign differs from b's. Floats (fmod=1
 * only, as ONNX requires): r = a - trunc(a / b) * b.
 */
static int legalize_mod(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *a = n->inputs[0], *c = n->inputs[1], *out, *q, *r;
	bool fmod = ir_attr_int(n, "fmod", 0) != 0;
	enum ir_dtype dt = a->dtype;
	struct ir_tensor *z, *fix, *half = NULL;
	struct lz_builder b;

	if (c->dtype != dt || !dt_in(dt, DT_F | DT_INT | (1u << IR_F16)))
		return bad_dtype(g, n, dt);
	if ((dt == IR_F32 || dt == IR_F16) && !fmod)
		return ir_error(g, "node '%s' (Mod): fmod=0 on floats is not "
				"supported (ONNX requires fmod=1)", n->name);
	out = lz_take(&b, g, n);
	if (dt == IR_F16) {
		/*
		 * f16 through the f32 path: the remainder of two halves is
		 * itself a half, and with 13 more mantissa bits the f32
		 * steps (trunc of the quotient, its product) stay exact
		 * further than the f32 path's own inputs do
		 */
		half = out;
		a = lz_cast(&b, a, IR_F32, 1, NULL);
		c = lz_cast(&b, c, IR_F32, 1, NULL);
		out = ir_tensor_new(g, NULL, IR_F32, NULL);
		dt = IR_F32;
		if (!out)
			return -ENOMEM;
	}
	z = scalar_of(g, dt, 0);
	q = lz_binary(&b, IR_OP_DIV, a, c, NULL);
	if (dt == IR_F32)
		q = lz_where(&b, lz_binary(&b, IR_OP_LESS, q, z, NULL),
			     lz_unary(&b, IR_OP_CEIL, q, NULL),
			     lz_unary(&b, IR_OP_FLOOR, q, NULL), NULL);
	if (fmod || dt == IR_U8) {
		r = lz_binary(&b, IR_OP_SUB, a,
			      lz_binary(&b, IR_OP_MUL, q, c, NULL), out);
		if (half)
			r = lz_cast(&b, r, IR_F16, 10, half);
		return r ? 1 : -ENOMEM;
	}
	r = lz_binary(&b, IR_OP_SUB, a, lz_binary(&b, IR_OP_MUL, q, c, NULL), NULL);
	fix = lz_binary(&b, IR_OP_XOR, lz_binary(&b, IR_OP_LESS, r, z, NULL),
		  lz_binary(&b, IR_OP_LESS, c, z, NULL), NULL);
	fix = lz_binary(&b, IR_OP_AND, fix,
		  lz_unary(&b, IR_OP_NOT, lz_binary(&b, IR_OP_EQUAL, r, z, NULL), NULL),
		  NULL);
	return lz_where(&b, fix, lz_binary(&b, IR_OP_ADD, r, c, NULL), r, out)
		? 1 : -ENOMEM;
}

/* IsNaN: x != x. IsInf: x == +inf (detect_positive), x == -inf. */
static int legalize_isnan_isinf(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *p = NULL, *m = NULL;
	bool pos = ir_attr_int(n, "detect_positive", 1) != 0;
	bool neg = ir_attr_int(n, "detect_negative", 1) != 0;
	bool isnan_op = n->op == IR_OP_IS_NAN;
	struct lz_builder b;

	if (x->dtype != IR_F32)
		return bad_dtype(g, n, x->dtype);
	out = lz_take(&b, g, n);
	if (isnan_op)
		return lz_unary(&b, IR_OP_NOT, lz_binary(&b, IR_OP_EQUAL, x, x, NULL),
			   out) ? 1 : -ENOMEM;
	if (!pos && !neg)	/* nothing is detected: x < x is all false */
		return lz_binary(&b, IR_OP_LESS, x, x, out) ? 1 : -ENOMEM;
	if (pos)
		p = lz_binary(&b, IR_OP_EQUAL, x,
			ir_const_scalar_f32(g, NULL, INFINITY),
			neg ? NULL : out);
	if (neg)
		m = lz_binary(&b, IR_OP_EQUAL, x,
			ir_const_scalar_f32(g, NULL, -INFINITY),
			pos ? NULL : out);
	if (pos && neg)
		return lz_binary(&b, IR_OP_OR, p, m, out) ? 1 : -ENOMEM;
	return p || m ? 1 : -ENOMEM;
}

/* Celu: Where(x < 0, alpha * Elu(x / alpha), x) (Elu with alpha 1). */
static int legalize_celu(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *e;
	float alpha = ir_attr_float(n, "alpha", 1.0f);
	struct lz_builder b;

	if (x->dtype != IR_F32)
		return bad_dtype(g, n, x->dtype);
	if (!(alpha != 0 && isfinite(alpha)))
		return ir_error(g, "node '%s' (Celu): alpha must be finite and "
				"non-zero", n->name);
	out = lz_take(&b, g, n);
	e = lz_unary(&b, IR_OP_ELU, lz_binary(&b, IR_OP_DIV, x,
				   ir_const_scalar_f32(g, NULL, alpha), NULL),
		NULL);
	if (!e || ir_attr_set_float(e->producer, "alpha", 1.0f))
		return -ENOMEM;
	e = lz_binary(&b, IR_OP_MUL, e, ir_const_scalar_f32(g, NULL, alpha), NULL);
	return lz_where(&b, lz_binary(&b, IR_OP_LESS, x, scalar_of(g, IR_F32, 0),
				NULL), e, x, out) ? 1 : -ENOMEM;
}

/* Shrink: Where(x < -l, x + bias, Where(x > l, x - bias, 0)). */
static int legalize_shrink(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *hi;
	float l = ir_attr_float(n, "lambd", 0.5f);
	float bias = ir_attr_float(n, "bias", 0.0f);
	enum ir_dtype dt = x->dtype;
	struct lz_builder b;

	if (!dt_in(dt, DT_F | DT_INT))
		return bad_dtype(g, n, dt);
	if (dt != IR_F32 && (l != floorf(l) || bias != floorf(bias) ||
			     fabsf(l) > 1e9f || fabsf(bias) > 1e9f ||
			     (dt == IR_U8 && (l < 0 || bias < 0))))
		return ir_error(g, "node '%s' (Shrink): lambd and bias must be "
				"integers of the input's range on %s", n->name,
				ir_dtype_name(dt));
	out = lz_take(&b, g, n);
	hi = lz_where(&b, lz_binary(&b, IR_OP_GREATER, x, scalar_of(g, dt, l), NULL),
		      lz_binary(&b, IR_OP_SUB, x, scalar_of(g, dt, bias), NULL),
		      scalar_of(g, dt, 0), dt == IR_U8 ? out : NULL);
	if (dt == IR_U8)	/* x < -lambd never holds */
		return hi ? 1 : -ENOMEM;
	return lz_where(&b, lz_binary(&b, IR_OP_LESS, x, scalar_of(g, dt, -l), NULL),
			lz_binary(&b, IR_OP_ADD, x, scalar_of(g, dt, bias), NULL),
			hi, out) ? 1 : -ENOMEM;
}

/* [0, 1, .., cnt-1] as @dt along axis @axis of a rank @rank constant. */
static struct ir_tensor *iota(struct ir_graph *g, enum ir_dtype dt,
			      int64_t cnt, int rank, int axis)
{
	struct ir_shape s = { .rank = rank };
	size_t es = dt == IR_I64 ? 8 : 4;
	struct ir_tensor *t;
	char *buf;
	int64_t i;

	for (i = 0; i < rank; i++)
		s.dim[i] = 1;
	s.dim[axis] = cnt;
	buf = malloc((size_t)cnt * es + 1);
	if (!buf)
		return NULL;
	for (i = 0; i < cnt; i++)
		if (dt == IR_I64)
			((int64_t *)buf)[i] = i;
		else
			((float *)buf)[i] = (float)i;
	t = ir_const_new(g, NULL, dt, &s, buf, (size_t)cnt * es);
	free(buf);
	return t;
}

/*
 * Hardmax: 1 at the first maximum along the axis. m = ReduceMax, the
 * first index is ReduceMin(Where(x == m, iota, N)), the output
 * Where(iota == first, 1, 0). Before opset 13 the input is coerced to 2-D
 * [prod(d[:axis]), prod(d[axis:])] (Reshapes around it).
 */
static int legalize_hardmax(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *io, *m, *t, *fin;
	const struct ir_shape *xs = &x->shape;
	int64_t axis = ir_attr_int(n, "axis", n->opset >= 13 ? -1 : 1);
	int r = xs->rank;
	bool coerce = n->opset < 13;
	struct ir_shape s2 = { .rank = 2, .dim = { 1, 1 } }, orig = *xs;
	struct lz_builder b;
	int i;

	if (x->dtype != IR_F32)
		return bad_dtype(g, n, x->dtype);
	if (!ir_shape_is_static(xs))
		return ir_error(g, "node '%s' (Hardmax): needs a static input "
				"shape", n->name);
	if (axis < 0)
		axis += r;
	if (axis < 0 || axis >= (r ? r : 1) + coerce || (!coerce && !r))
		return ir_error(g, "node '%s' (Hardmax): axis out of range",
				n->name);
	if (coerce) {
		for (i = 0; i < r; i++)
			s2.dim[i >= axis] *= xs->dim[i];
		if (s2.dim[1] > 1 << 24)
			return ir_error(g, "node '%s' (Hardmax): axis too long",
					n->name);
	} else if (xs->dim[axis] > 1 << 24) {
		return ir_error(g, "node '%s' (Hardmax): axis too long",
				n->name);
	}
	out = lz_take(&b, g, n);
	if (coerce) {
		x = mk_shape(&b, IR_OP_RESHAPE, x, &s2, NULL);
		xs = &s2;
		axis = 1;
		r = 2;
	}
	io = iota(g, IR_F32, xs->dim[axis], r, (int)axis);
	m = mk_reduce(&b, IR_OP_REDUCE_MAX, x, axis);
	t = lz_where(&b, lz_binary(&b, IR_OP_EQUAL, x, m, NULL), io,
		     ir_const_scalar_f32(g, NULL, (float)xs->dim[axis]), NULL);
	t = mk_reduce(&b, IR_OP_REDUCE_MIN, t, axis);
	fin = coerce ? NULL : out;
	t = lz_where(&b, lz_binary(&b, IR_OP_EQUAL, io, t, NULL),
		     ir_const_scalar_f32(g, NULL, 1),
		     ir_const_scalar_f32(g, NULL, 0), fin);
	if (t && coerce)
		t = mk_shape(&b, IR_OP_RESHAPE, t, &orig, out);
	return t ? 1 : -ENOMEM;
}

/*
 * Tile with constant repeats, one axis at a time: an axis of extent 1 is
 * expanded; any other is given a new axis of extent 1 in front of it
 * (Reshape), expanded to the repeat count and merged back (Reshape).
 */
static int legalize_tile(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *rt = n->inputs[1], *out, *t;
	struct ir_shape s = x->shape, u;
	int64_t rep[IR_MAX_RANK], total;
	int r = s.rank, i, j, last = -1;
	struct lz_builder b;

	if (!rt->data)
		return ir_error(g, "node '%s' (Tile): repeats computed at "
				"run time are not supported (repeats must be a "
				"constant)", n->name);
	if (!ir_shape_is_static(&s))
		return ir_error(g, "node '%s' (Tile): needs a static input "
				"shape", n->name);
	if (ir_tensor_numel(rt) != r || rt->shape.rank != 1)
		return ir_error(g, "node '%s' (Tile): repeats must have one "
				"entry per input axis", n->name);
	total = ir_shape_numel(&s);
	for (i = 0; i < r; i++) {
		rep[i] = ir_const_get_i(rt, i);
		if (rep[i] < 0)
			return ir_error(g, "node '%s' (Tile): negative "
					"repeats", n->name);
		if (rep[i] != 1)
			last = i;
		if (__builtin_mul_overflow(total, rep[i], &total) ||
		    total > ((int64_t)1 << 40))
			return ir_error(g, "node '%s' (Tile): output too "
					"large", n->name);
	}
	out = lz_take(&b, g, n);
	if (last < 0)
		return lz_unary(&b, IR_OP_IDENTITY, x, out) ? 1 : -ENOMEM;
	if (r + 1 > IR_MAX_RANK)
		return ir_error(g, "node '%s' (Tile): rank %d is too large",
				b.base, r);
	t = x;
	for (i = 0; i < r && t; i++) {
		struct ir_tensor *o = i == last ? out : NULL;

		if (rep[i] == 1)
			continue;
		if (s.dim[i] == 1 || rep[i] == 0) {
			s.dim[i] *= rep[i];
			t = mk_shape(&b, IR_OP_EXPAND, t, &s, o);
			continue;
		}
		u.rank = r + 1;
		for (j = 0; j < r; j++)
			u.dim[j + (j >= i)] = s.dim[j];
		u.dim[i] = 1;
		t = mk_shape(&b, IR_OP_RESHAPE, t, &u, NULL);
		u.dim[i] = rep[i];
		t = mk_shape(&b, IR_OP_EXPAND, t, &u, NULL);
		s.dim[i] *= rep[i];
		t = mk_shape(&b, IR_OP_RESHAPE, t, &s, o);
	}
	return t ? 1 : -ENOMEM;
}

/*
 * OneHot with a constant depth: indices (cast to i64, negative ones +
 * depth) gain the one-hot axis and are compared with a constant
 * [0 .. depth-1] along it; Where picks values[1] (on) or values[0] (off).
 */
static int legalize_one_hot(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *ind = n->inputs[0], *dep = n->inputs[1];
	struct ir_tensor *val = n->inputs[2], *out, *t, *on, *off, *dc;
	int64_t axis = ir_attr_int(n, "axis", -1), depth, zero = 0, one = 1;
	int r = ind->shape.rank;
	struct lz_builder b;

	if (!dep->data || ir_tensor_numel(dep) != 1)
		return ir_error(g, "node '%s' (OneHot): a depth computed at "
				"run time is not supported (depth must be a "
				"constant of one element)", n->name);
	depth = ir_f64_to_i64(ir_const_get_f(dep, 0));
	if (depth < 1 || depth > (1 << 24))
		return ir_error(g, "node '%s' (OneHot): depth %lld is not "
				"supported", n->name, (long long)depth);
	if (ir_tensor_numel(val) != 2 || val->shape.rank != 1)
		return ir_error(g, "node '%s' (OneHot): values must be "
				"[off, on]", n->name);
	if (axis < 0)
		axis += r + 1;
	if (axis < 0 || axis > r || r + 1 > IR_MAX_RANK)
		return ir_error(g, "node '%s' (OneHot): axis out of range",
				n->name);
	if (!dt_in(ind->dtype, DT_F | DT_INT) ||
	    !dt_in(val->dtype, DT_F | DT_INT))
		return bad_dtype(g, n, ind->dtype);
	out = lz_take(&b, g, n);
	t = ind;
	if (ind->dtype != IR_I64) {
		t = lz_node(&b, IR_OP_CAST, 1, &ind, IR_I64, NULL);
		if (!t || ir_attr_set_int(t->producer, "to", 7))
			return -ENOMEM;
	}
	dc = scalar_of(g, IR_I64, (double)depth);
	t = lz_where(&b, lz_binary(&b, IR_OP_LESS, t, scalar_of(g, IR_I64, 0),
			     NULL), lz_binary(&b, IR_OP_ADD, t, dc, NULL), t, NULL);
	t = lz_binary(&b, IR_OP_UNSQUEEZE, t, ints_const(g, &axis, 1), NULL);
	t = lz_binary(&b, IR_OP_EQUAL, t, iota(g, IR_I64, depth, r + 1, (int)axis),
		NULL);
	{
		struct ir_tensor *sl[4] = { val, ints_const(g, &one, 1),
					    NULL, ints_const(g, &zero, 1) };
		int64_t two = 2;

		sl[2] = ints_const(g, &two, 1);
		on = lz_node(&b, IR_OP_SLICE, 4, sl, val->dtype, NULL);
		sl[1] = ints_const(g, &zero, 1);
		sl[2] = ints_const(g, &one, 1);
		off = lz_node(&b, IR_OP_SLICE, 4, sl, val->dtype, NULL);
	}
	return lz_where(&b, t, on, off, out) ? 1 : -ENOMEM;
}

/*
 * Sinh and Cosh from Exp: cosh = (e^x + e^-x) / 2; sinh = (e^x - e^-x) /
 * 2 for |x| >= 0.5 (at most a few ulps lost there) and its Taylor series
 * to x^11 below (error < 1e-10 relative), where the difference cancels.
 */
static int legalize_sinh_cosh(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *e, *em, *t, *x2, *p;
	bool sinh_op = n->op == IR_OP_SINH;
	struct lz_builder b;
	int k;

	if (x->dtype != IR_F32)
		return bad_dtype(g, n, x->dtype);
	out = lz_take(&b, g, n);
	e = lz_unary(&b, IR_OP_EXP, x, NULL);
	em = lz_unary(&b, IR_OP_EXP, lz_unary(&b, IR_OP_NEG, x, NULL), NULL);
	t = lz_binary(&b, sinh_op ? IR_OP_SUB : IR_OP_ADD, e, em, NULL);
	t = lz_binary(&b, IR_OP_MUL, t, ir_const_scalar_f32(g, NULL, 0.5f),
		sinh_op ? NULL : out);
	if (!sinh_op)
		return t ? 1 : -ENOMEM;
	/* x (1 + x2/3! (1 + x2/(4*5) (1 + x2/(6*7) (...)))) by Horner */
	x2 = lz_binary(&b, IR_OP_MUL, x, x, NULL);
	p = ir_const_scalar_f32(g, NULL, 1);
	for (k = 10; k >= 2; k -= 2) {
		p = lz_binary(&b, IR_OP_MUL, p, x2, NULL);
		p = lz_binary(&b, IR_OP_MUL, p, ir_const_scalar_f32(
				g, NULL, 1.0f / (float)(k * (k + 1))), NULL);
		p = lz_binary(&b, IR_OP_ADD, p, ir_const_scalar_f32(g, NULL, 1),
			NULL);
	}
	p = lz_binary(&b, IR_OP_MUL, p, x, NULL);
	return lz_where(&b, lz_binary(&b, IR_OP_LESS, lz_unary(&b, IR_OP_ABS, x, NULL),
				ir_const_scalar_f32(g, NULL, 0.5f), NULL),
			p, t, out) ? 1 : -ENOMEM;
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

	if (n->op == IR_OP_CUSTOM)
		return plugin_decompose_node(g, n);
	if (n->op == IR_OP_IF || n->op == IR_OP_LOOP || n->op == IR_OP_SCAN)
		return shape_legalize_control(g, n);
	if (n->op == IR_OP_DFT || n->op == IR_OP_STFT ||
	    n->op == IR_OP_MEL_WEIGHT_MATRIX)
		return shape_legalize_dft(g, n);
	if (ir_node_is_random(n) && n->op != IR_OP_RANDOM_TASK)
		return shape_legalize_random(g, n);
	drop_unused_optional_outputs(n);
	/* malformed nodes are left to shape inference to report */
	if (n->op == IR_OP_POW || n->op == IR_OP_CAST_LIKE ||
	    n->op == IR_OP_MOD || n->op == IR_OP_TILE ||
	    n->op == IR_OP_BIT_SHIFT ||
	    n->op == IR_OP_CONV_TRANSPOSE)
		need = 2;
	if (n->op == IR_OP_RNN || n->op == IR_OP_LSTM || n->op == IR_OP_GRU ||
	    n->op == IR_OP_INSTANCE_NORM || n->op == IR_OP_SCATTER_ND ||
	    n->op == IR_OP_SCATTER_ELEMENTS || n->op == IR_OP_SCATTER)
		need = 3;
	if (n->op == IR_OP_GATHER_ELEMENTS || n->op == IR_OP_GATHER_ND ||
	    n->op == IR_OP_CUM_SUM || n->op == IR_OP_COMPRESS ||
	    n->op == IR_OP_REVERSE_SEQUENCE || n->op == IR_OP_MAX_UNPOOL)
		need = 2;
	if (n->op == IR_OP_ONE_HOT)
		need = 3;
	if (n->op == IR_OP_NON_MAX_SUPPRESSION)
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
	case IR_OP_SLICE: return legalize_slice(g, n);
	case IR_OP_RESIZE: return legalize_resize(g, n);
	case IR_OP_PAD: return legalize_pad(g, n);
	case IR_OP_SIGN: return legalize_sign(g, n);
	case IR_OP_ROUND: return legalize_round(g, n);
	case IR_OP_MOD: return legalize_mod(g, n);
	case IR_OP_IS_NAN: case IR_OP_IS_INF:
		return legalize_isnan_isinf(g, n);
	case IR_OP_CELU: return legalize_celu(g, n);
	case IR_OP_SHRINK: return legalize_shrink(g, n);
	case IR_OP_HARDMAX: return legalize_hardmax(g, n);
	case IR_OP_TILE: return legalize_tile(g, n);
	case IR_OP_ONE_HOT: return legalize_one_hot(g, n);
	case IR_OP_SINH: case IR_OP_COSH: return legalize_sinh_cosh(g, n);
	case IR_OP_BIT_SHIFT: return shape_legalize_bitshift(g, n);
	case IR_OP_TFIDF_VECTORIZER: return shape_legalize_tfidf(g, n);
	case IR_OP_CONV_TRANSPOSE:
		if (n->inputs[0]->shape_known && n->inputs[0]->shape.rank == 5)
			return shape_legalize_conv3d(g, n);
		return shape_legalize_conv_transpose(g, n);
	case IR_OP_RNN: case IR_OP_LSTM: case IR_OP_GRU:
		return shape_legalize_rnn(g, n);
	case IR_OP_DEPTH_TO_SPACE: case IR_OP_SPACE_TO_DEPTH:
	case IR_OP_INSTANCE_NORM: case IR_OP_MVN: case IR_OP_LRN:
	case IR_OP_ARG_MAX: case IR_OP_ARG_MIN: case IR_OP_GATHER_ELEMENTS:
	case IR_OP_GATHER_ND: case IR_OP_CUM_SUM:
		return shape_legalize_more(g, n);
	case IR_OP_TOPK: return shape_legalize_topk(g, n);
	case IR_OP_QLINEAR_CONV: case IR_OP_QLINEAR_MATMUL:
		return shape_legalize_qlinear(g, n);
	case IR_OP_EINSUM: return shape_legalize_einsum(g, n);
	case IR_OP_DET: return shape_legalize_det(g, n);
	case IR_OP_MATMUL_INTEGER: case IR_OP_CONV_INTEGER:
	case IR_OP_DYNAMIC_QUANTIZE_LINEAR:
		return shape_legalize_integer(g, n);
	case IR_OP_NON_ZERO: case IR_OP_NON_MAX_SUPPRESSION: case IR_OP_UNIQUE:
		return shape_legalize_count(g, n);
	case IR_OP_SCATTER_ND: case IR_OP_SCATTER_ELEMENTS: case IR_OP_SCATTER:
		return shape_legalize_scatter(g, n);
	case IR_OP_EYE_LIKE: case IR_OP_HANN_WINDOW: case IR_OP_HAMMING_WINDOW:
	case IR_OP_BLACKMAN_WINDOW: case IR_OP_UPSAMPLE: case IR_OP_COMPRESS:
	case IR_OP_REVERSE_SEQUENCE: case IR_OP_MAX_UNPOOL:
		return shape_legalize_gen(g, n);
	case IR_OP_MAX_POOL:
		if (n->num_outputs > 1 && n->outputs[1] &&
		    (n->outputs[1]->num_uses || n->outputs[1]->is_output))
			return shape_legalize_maxpool_indices(g, n);
		/* fall through */
	case IR_OP_AVERAGE_POOL:
	case IR_OP_GLOBAL_AVERAGE_POOL: case IR_OP_GLOBAL_MAX_POOL:
		if (n->inputs[0]->shape_known && n->inputs[0]->shape.rank == 5)
			return shape_legalize_pool3d(g, n);
		return legalize_1d(g, n);
	case IR_OP_CONV:
		if (n->inputs[0]->shape_known && n->inputs[0]->shape.rank == 5)
			return shape_legalize_conv3d(g, n);
		return legalize_1d(g, n);
	default: return 0;
	}
}
