// SPDX-License-Identifier: MIT
/*
 * shape_infer.c - dtype and shape rules of every supported op.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"
#include "plugin/plugin_ir.h"

#define SVAL_MAX	64	/* longest integer tensor tracked as a value */

static int node_err(struct ir_graph *g, const struct ir_node *n,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int node_err(struct ir_graph *g, const struct ir_node *n,
		    const char *fmt, ...)
{
	char msg[IR_ERR_LEN - 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ir_error(g, "node '%s' (%s, opset %d): %s", n->name,
			ir_op_name(n->op), n->opset, msg);
}

static const char *sstr(struct ir_graph *g, const struct ir_shape *s,
			char *buf)
{
	return ir_shape_str(g, s, buf, 128);
}

int shape_axis(int64_t axis, int rank)
{
	if (axis < 0)
		axis += rank;
	return axis < 0 || axis >= rank ? -1 : (int)axis;
}

static int64_t sval_of_dim(int64_t d)
{
	return IR_DIM_IS_SYM(d) ? IR_SVAL_SYM(IR_DIM_SYM_ID(d)) : d;
}

static int64_t dim_of_sval(int64_t v)
{
	return IR_SVAL_IS_SYM(v) ? IR_DIM_SYM(IR_SVAL_SYM_ID(v)) : v;
}

/* A shape value used as a dim: symbolic, or a plain value >= 0. */
static bool sval_is_dim(int64_t v)
{
	return IR_SVAL_IS_SYM(v) || (v >= 0 && v < ((int64_t)1 << 40));
}

int shape_node_ints(const struct ir_node *n, int input, const char *attr,
		    int64_t *out, int max)
{
	const struct ir_tensor *t = input >= 0 ? ir_in(n, input) : NULL;
	const int64_t *v;
	int64_t cnt, i;

	if (t) {
		if (t->data) {
			cnt = ir_tensor_numel(t);
			if (cnt < 0 || cnt > max)
				return -EAGAIN;
			for (i = 0; i < cnt; i++)
				out[i] = ir_const_get_i(t, i);
			return (int)cnt;
		}
		if (t->sval) {
			if (t->sval_len > max)
				return -EAGAIN;
			memcpy(out, t->sval, (size_t)t->sval_len * 8);
			return t->sval_len;
		}
		return -EAGAIN;
	}
	if (attr) {
		cnt = ir_attr_ints(n, attr, &v);
		if (ir_attr_find(n, attr)) {
			if (cnt > max)
				return -EAGAIN;
			memcpy(out, v, (size_t)cnt * 8);
			return (int)cnt;
		}
	}
	return -ENOENT;
}

/* --- output helpers ------------------------------------------------------- */

static void set_out(struct ir_node *n, int i, enum ir_dtype dt,
		    const struct ir_shape *s)
{
	struct ir_tensor *t = i < n->num_outputs ? n->outputs[i] : NULL;

	if (!t)
		return;
	t->dtype = dt;
	t->shape = *s;
	t->shape_known = true;
}

static int set_sval(struct ir_tensor *t, const int64_t *v, int len)
{
	if (!t)
		return 0;
	free(t->sval);
	t->sval = NULL;
	t->sval_len = 0;
	if (len < 0 || len > SVAL_MAX)
		return 0;
	t->sval = malloc((size_t)(len ? len : 1) * 8);
	if (!t->sval)
		return -ENOMEM;
	if (len)
		memcpy(t->sval, v, (size_t)len * 8);
	t->sval_len = len;
	return 0;
}

/* The value of a small integer input (constant or tracked), or -1. */
static int in_value(const struct ir_node *n, int i, int64_t *v)
{
	const struct ir_tensor *t = ir_in(n, i);

	if (!t || (t->dtype != IR_I64 && t->dtype != IR_I32))
		return -1;
	return shape_node_ints(n, i, NULL, v, SVAL_MAX) < 0 ? -1 :
	       shape_node_ints(n, i, NULL, v, SVAL_MAX);
}

static const struct ir_shape *in_shape(const struct ir_node *n, int i)
{
	return &n->inputs[i]->shape;
}

/* --- broadcasting --------------------------------------------------------- */

int shape_broadcast(struct ir_graph *g, const struct ir_node *n,
		    const struct ir_shape *a, const struct ir_shape *b,
		    struct ir_shape *out)
{
	struct ir_shape r = { 0 };
	char b1[128], b2[128];
	int i;

	r.rank = a->rank > b->rank ? a->rank : b->rank;
	for (i = 0; i < r.rank; i++) {
		int ia = i - (r.rank - a->rank), ib = i - (r.rank - b->rank);
		int64_t da = ia >= 0 ? a->dim[ia] : 1;
		int64_t db = ib >= 0 ? b->dim[ib] : 1;

		if (da == db || db == 1)
			r.dim[i] = da;
		else if (da == 1)
			r.dim[i] = db;
		else if (IR_DIM_IS_SYM(da) && !IR_DIM_IS_SYM(db))
			r.dim[i] = db;	/* the symbol must equal db */
		else if (IR_DIM_IS_SYM(db) && !IR_DIM_IS_SYM(da))
			r.dim[i] = da;
		else
			return node_err(g, n, "shapes %s and %s do not "
					"broadcast (dim %d: %s vs %s)",
					sstr(g, a, b1), sstr(g, b, b2), i,
					IR_DIM_IS_SYM(da) ? ir_sym_name(g, da)
							  : "static",
					IR_DIM_IS_SYM(db) ? ir_sym_name(g, db)
							  : "static");
	}
	*out = r;
	return 0;
}

/* --- per-op rules --------------------------------------------------------- */

static int infer_elementwise(struct ir_graph *g, struct ir_node *n)
{
	struct ir_shape s = *in_shape(n, 0);
	enum ir_dtype dt = n->inputs[0]->dtype;
	int i, err, first = 0;
	char b1[128], b2[128];

	if (n->op == IR_OP_WHERE) {
		dt = n->inputs[1]->dtype;
		first = 0;
		if (ir_attr_int(n, IR_ATTR_IF_SELECT, 0) &&
		    (!ir_shape_equal(in_shape(n, 1), in_shape(n, 2)) ||
		     dt != n->inputs[2]->dtype))
			return node_err(g, n, "an If whose condition is known "
					"only at run time runs both branches "
					"and selects: branches that give an "
					"output different shapes or types are "
					"not supported (they give %s %s and "
					"%s %s)",
					sstr(g, in_shape(n, 1), b1),
					ir_dtype_name(dt),
					sstr(g, in_shape(n, 2), b2),
					ir_dtype_name(n->inputs[2]->dtype));
	}
	for (i = first + 1; i < n->num_inputs; i++) {
		if (!n->inputs[i])
			continue;
		if (n->has_residual && i == n->num_inputs - 1)
			break;
		if (n->op == IR_OP_PRELU || n->op == IR_OP_POW ||
		    n->op == IR_OP_WHERE)
			;	/* mixed dtypes allowed */
		else if (n->inputs[i]->dtype != dt)
			return node_err(g, n, "input dtypes differ: %s vs %s",
					ir_dtype_name(dt),
					ir_dtype_name(n->inputs[i]->dtype));
		err = shape_broadcast(g, n, &s, in_shape(n, i), &s);
		if (err)
			return err;
	}
	if (n->op == IR_OP_EQUAL || n->op == IR_OP_LESS ||
	    n->op == IR_OP_GREATER || n->op == IR_OP_GREATER_OR_EQUAL ||
	    n->op == IR_OP_LESS_OR_EQUAL)
		dt = IR_BOOL;
	if ((n->op == IR_OP_AND || n->op == IR_OP_OR || n->op == IR_OP_XOR) &&
	    dt != IR_BOOL)
		return node_err(g, n, "operands must be bool, not %s",
				ir_dtype_name(dt));
	set_out(n, 0, dt, &s);
	return 0;
}

/* Integer arithmetic on tracked shape values (Add/Sub/Mul/Div/...). */
static void sval_binary(struct ir_graph *g, struct ir_node *n)
{
	int64_t a[SVAL_MAX], b[SVAL_MAX], r[SVAL_MAX];
	int la = in_value(n, 0, a), lb = in_value(n, 1, b), i, len;

	if (n->num_inputs != 2 || la < 0 || lb < 0 || !n->outputs[0] ||
	    (la != lb && la != 1 && lb != 1))
		return;
	len = la > lb ? la : lb;
	for (i = 0; i < len; i++) {
		int64_t x = dim_of_sval(a[la == 1 ? 0 : i]);
		int64_t y = dim_of_sval(b[lb == 1 ? 0 : i]);
		/* plain integers here may be negative: not dims, not symbols */
		int64_t xv = a[la == 1 ? 0 : i], yv = b[lb == 1 ? 0 : i];
		bool sym = IR_SVAL_IS_SYM(xv) || IR_SVAL_IS_SYM(yv);

		/* with a symbol, the other operand must be a dim too */
		if (sym && (!sval_is_dim(xv) || !sval_is_dim(yv)))
			return;

		switch (n->op) {
		case IR_OP_ADD:
			if (sym)
				r[i] = sval_of_dim(shape_dim_add(g, x, y));
			else if (__builtin_add_overflow(xv, yv, &r[i]))
				return;
			break;
		case IR_OP_SUB:
			if (sym || __builtin_sub_overflow(xv, yv, &r[i]))
				return;
			break;
		case IR_OP_MUL:
			if (sym)
				r[i] = sval_of_dim(shape_dim_mul(g, x, y));
			else if (__builtin_mul_overflow(xv, yv, &r[i]))
				return;
			break;
		case IR_OP_DIV:
			if (sym) {
				int64_t q;

				if (shape_dim_div(g, x, y, &q))
					return;
				r[i] = sval_of_dim(q);
			} else {
				if (!yv || (xv == INT64_MIN && yv == -1))
					return;
				r[i] = xv / yv;
			}
			break;
		default:
			return;
		}
	}
	set_sval(n->outputs[0], r, len);
}

static int infer_unary(struct ir_graph *g, struct ir_node *n)
{
	enum ir_dtype dt = n->inputs[0]->dtype;

	if (n->op == IR_OP_NOT)
		dt = IR_BOOL;
	set_out(n, 0, dt, in_shape(n, 0));
	/* Dropout's optional mask output */
	if (n->op == IR_OP_DROPOUT && n->num_outputs > 1)
		set_out(n, 1, IR_BOOL, in_shape(n, 0));
	if ((n->op == IR_OP_IDENTITY || n->op == IR_OP_DROPOUT) &&
	    n->inputs[0]->sval && n->outputs[0])
		return set_sval(n->outputs[0], n->inputs[0]->sval,
				n->inputs[0]->sval_len);
	if ((n->op == IR_OP_NEG || n->op == IR_OP_ABS) && n->inputs[0]->sval &&
	    n->outputs[0]) {
		int64_t v[SVAL_MAX];
		int i, len = n->inputs[0]->sval_len;

		for (i = 0; i < len; i++) {
			v[i] = n->inputs[0]->sval[i];
			if (IR_SVAL_IS_SYM(v[i])) {
				if (n->op == IR_OP_NEG)
					return 0;
				continue;	/* dims are >= 0 */
			}
			v[i] = n->op == IR_OP_NEG ? -v[i] : v[i] < 0 ? -v[i]
								      : v[i];
		}
		return set_sval(n->outputs[0], v, len);
	}
	return 0;
}

static int infer_cast(struct ir_graph *g, struct ir_node *n)
{
	int64_t to = ir_attr_int(n, "to", 0);
	enum ir_dtype dt = ir_dtype_from_onnx(to);

	if (dt == IR_DTYPE_INVALID)
		return node_err(g, n, "cast to ONNX type %lld is not "
				"supported", (long long)to);
	set_out(n, 0, dt, in_shape(n, 0));
	if (n->inputs[0]->sval && (dt == IR_I64 || dt == IR_I32))
		return set_sval(n->outputs[0], n->inputs[0]->sval,
				n->inputs[0]->sval_len);
	return 0;
}

/* Output size of one spatial dim of a conv/pool window. */
static int64_t window_out(int64_t in, int64_t k, int64_t s, int64_t d,
			  int64_t pb, int64_t pe, bool ceil_mode)
{
	int64_t eff = (k - 1) * d + 1, span = in + pb + pe - eff;

	/* ceil mode: ceil(span / s) + 1 is still 1 while -s < span < 0 */
	if (span < 0)
		return ceil_mode && span > -s && in > 0 ? 1 : -1;
	return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

/* Resolve pads for auto_pad SAME_UPPER/SAME_LOWER/VALID (2-D). */
static int window_pads(struct ir_graph *g, struct ir_node *n,
		       const struct ir_shape *x, const int64_t *k,
		       const int64_t *s, const int64_t *d, int64_t *pads)
{
	const char *ap = ir_attr_str(n, "auto_pad", "NOTSET");
	int64_t p[8];
	int i, np;

	if (!strcmp(ap, "NOTSET")) {
		np = shape_node_ints(n, -1, "pads", p, 8);
		if (np == -ENOENT) {
			memset(pads, 0, 4 * sizeof(*pads));
			return 0;
		}
		if (np != 4)
			return node_err(g, n, "pads has %d entries, a 2-D "
					"window needs 4", np);
		for (i = 0; i < 4; i++)
			if (p[i] < 0 || p[i] > (1 << 24))
				return node_err(g, n, "pad %lld out of range",
						(long long)p[i]);
		memcpy(pads, p, 4 * sizeof(*pads));
		return 0;
	}
	if (!strcmp(ap, "VALID")) {
		memset(pads, 0, 4 * sizeof(*pads));
		return 0;
	}
	for (i = 0; i < 2; i++) {
		int64_t in = x->dim[2 + i], out, total;

		if (IR_DIM_IS_SYM(in))
			return node_err(g, n, "auto_pad %s needs a static "
					"spatial size", ap);
		out = (in + s[i] - 1) / s[i];
		total = (out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - in;
		if (total < 0)
			total = 0;
		if (!strcmp(ap, "SAME_LOWER")) {
			pads[i] = total - total / 2;
			pads[2 + i] = total / 2;
		} else {
			pads[i] = total / 2;
			pads[2 + i] = total - total / 2;
		}
	}
	/* record the explicit pads so emission needs no auto_pad logic */
	ir_attr_set_ints(n, "pads", pads, 4);
	ir_attr_set_str(n, "auto_pad", "NOTSET");
	return 0;
}

static int window_attrs(struct ir_graph *g, struct ir_node *n,
			const struct ir_shape *x, int64_t *k, int64_t *s,
			int64_t *d, int64_t *pads)
{
	int64_t v[4];
	int i, c;

	c = shape_node_ints(n, -1, "strides", v, 4);
	for (i = 0; i < 2; i++)
		s[i] = c == 2 ? v[i] : 1;
	c = shape_node_ints(n, -1, "dilations", v, 4);
	for (i = 0; i < 2; i++)
		d[i] = c == 2 ? v[i] : 1;
	for (i = 0; i < 2; i++)
		if (s[i] < 1 || d[i] < 1 || k[i] < 1 || s[i] > (1 << 24) ||
		    d[i] > (1 << 24) || k[i] > (1 << 24))
			return node_err(g, n, "kernel, strides and dilations "
					"must be in 1..2^24");
	return window_pads(g, n, x, k, s, d, pads);
}

static int infer_conv(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0), *w;
	int64_t k[2], s[2], d[2], pads[4], groups;
	struct ir_shape o = { .rank = 4 };
	char b1[128], b2[128];
	int i;

	if (!ir_in(n, 1))
		return node_err(g, n, "needs a weight input");
	w = in_shape(n, 1);
	if (x->rank != 4 || w->rank != 4)
		return node_err(g, n, "only 2-D convolutions are supported "
				"(input %s, weight %s)", sstr(g, x, b1),
				sstr(g, w, b2));
	if (!ir_shape_is_static(w))
		return node_err(g, n, "weight shape %s must be static",
				sstr(g, w, b1));
	groups = ir_attr_int(n, "group", 1);
	if (groups < 1 || w->dim[0] % groups ||
	    (!IR_DIM_IS_SYM(x->dim[1]) && x->dim[1] != w->dim[1] * groups))
		return node_err(g, n, "input %s and weight %s do not agree "
				"with group=%lld", sstr(g, x, b1),
				sstr(g, w, b2), (long long)groups);
	k[0] = w->dim[2];
	k[1] = w->dim[3];
	if (window_attrs(g, n, x, k, s, d, pads))
		return -EINVAL;
	o.dim[0] = x->dim[0];
	o.dim[1] = w->dim[0];
	for (i = 0; i < 2; i++) {
		int64_t in = x->dim[2 + i];

		if (IR_DIM_IS_SYM(in))
			return node_err(g, n, "spatial dims must be static "
					"(input %s)", sstr(g, x, b1));
		o.dim[2 + i] = window_out(in, k[i], s[i], d[i], pads[i],
					  pads[2 + i], false);
		if (o.dim[2 + i] < 1)
			return node_err(g, n, "window larger than the padded "
					"input %s", sstr(g, x, b1));
	}
	if (ir_in(n, 2) && (in_shape(n, 2)->rank != 1 ||
			    in_shape(n, 2)->dim[0] != w->dim[0]))
		return node_err(g, n, "bias %s does not match %lld output "
				"channels", sstr(g, in_shape(n, 2), b1),
				(long long)w->dim[0]);
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_pool(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	struct ir_shape o = *x;
	int64_t k[4], s[2], d[2], pads[4];
	bool ceil_mode = ir_attr_int(n, "ceil_mode", 0) != 0;
	char b1[128];
	int i;

	if (x->rank != 4)
		return node_err(g, n, "only 2-D pooling over NCHW is "
				"supported (input %s)", sstr(g, x, b1));
	if (n->op == IR_OP_GLOBAL_AVERAGE_POOL ||
	    n->op == IR_OP_GLOBAL_MAX_POOL) {
		o.dim[2] = o.dim[3] = 1;
		set_out(n, 0, n->inputs[0]->dtype, &o);
		return 0;
	}
	if (shape_node_ints(n, -1, "kernel_shape", k, 4) != 2)
		return node_err(g, n, "kernel_shape must have 2 entries");
	if (n->op == IR_OP_MAX_POOL && n->num_outputs > 1 && n->outputs[1] &&
	    (n->outputs[1]->num_uses || n->outputs[1]->is_output))
		return node_err(g, n, "the Indices output is not supported");
	if (window_attrs(g, n, x, k, s, d, pads))
		return -EINVAL;
	for (i = 0; i < 2; i++) {
		if (IR_DIM_IS_SYM(x->dim[2 + i]))
			return node_err(g, n, "spatial dims must be static "
					"(input %s)", sstr(g, x, b1));
		o.dim[2 + i] = window_out(x->dim[2 + i], k[i], s[i], d[i],
					  pads[i], pads[2 + i], ceil_mode);
		/* ceil mode: the last window must start inside the input */
		if (ceil_mode && (o.dim[2 + i] - 1) * s[i] >=
		    x->dim[2 + i] + pads[i])
			o.dim[2 + i]--;
		if (o.dim[2 + i] < 1)
			return node_err(g, n, "window larger than the padded "
					"input %s", sstr(g, x, b1));
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_batchnorm(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	char b1[128], b2[128];
	int i;

	if (n->num_inputs != 5)
		return node_err(g, n, "needs 5 inputs (X, scale, B, mean, "
				"var)");
	if (x->rank < 2)
		return node_err(g, n, "input %s needs a channel dim",
				sstr(g, x, b1));
	for (i = 1; i < 5; i++) {
		const struct ir_shape *p = in_shape(n, i);

		if (p->rank != 1 || (!IR_DIM_IS_SYM(x->dim[1]) &&
				     p->dim[0] != x->dim[1]))
			return node_err(g, n, "parameter %d shape %s does not "
					"match input %s", i, sstr(g, p, b1),
					sstr(g, x, b2));
	}
	for (i = 1; i < n->num_outputs; i++)
		if (n->outputs[i] && (n->outputs[i]->num_uses ||
				      n->outputs[i]->is_output))
			return node_err(g, n, "training-mode outputs (running "
					"mean/var) are not supported; export "
					"the model in eval mode");
	set_out(n, 0, n->inputs[0]->dtype, x);
	return 0;
}

static int infer_gemm(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *a = in_shape(n, 0), *b = in_shape(n, 1);
	bool ta = ir_attr_int(n, "transA", 0), tb = ir_attr_int(n, "transB", 0);
	struct ir_shape o = { .rank = 2 };
	char b1[128], b2[128];
	int64_t ka, kb;

	if (a->rank != 2 || b->rank != 2)
		return node_err(g, n, "A %s and B %s must be 2-D",
				sstr(g, a, b1), sstr(g, b, b2));
	ka = a->dim[ta ? 0 : 1];
	kb = b->dim[tb ? 1 : 0];
	if (ka != kb && !IR_DIM_IS_SYM(ka) && !IR_DIM_IS_SYM(kb))
		return node_err(g, n, "inner dims differ: A %s%s, B %s%s",
				sstr(g, a, b1), ta ? "^T" : "",
				sstr(g, b, b2), tb ? "^T" : "");
	o.dim[0] = a->dim[ta ? 1 : 0];
	o.dim[1] = b->dim[tb ? 0 : 1];
	if (ir_in(n, 2)) {
		struct ir_shape r;

		if (shape_broadcast(g, n, &o, in_shape(n, 2), &r))
			return -EINVAL;
		if (!ir_shape_equal(&r, &o))
			return node_err(g, n, "bias %s does not broadcast to "
					"%s", sstr(g, in_shape(n, 2), b1),
					sstr(g, &o, b2));
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_matmul(struct ir_graph *g, struct ir_node *n)
{
	struct ir_shape a = *in_shape(n, 0), b = *in_shape(n, 1), ba, bb, bo;
	struct ir_shape o;
	char b1[128], b2[128];
	bool va = a.rank == 1, vb = b.rank == 1;
	int64_t ka, kb;
	int i;

	if (!a.rank || !b.rank)
		return node_err(g, n, "scalar operands are not allowed");
	if (va) {	/* [K] -> [1, K] */
		a.rank = 2;
		a.dim[1] = a.dim[0];
		a.dim[0] = 1;
	}
	if (vb) {	/* [K] -> [K, 1] */
		b.rank = 2;
		b.dim[1] = 1;
	}
	ka = a.dim[a.rank - 1];
	kb = b.dim[b.rank - 2];
	if (ka != kb && !IR_DIM_IS_SYM(ka) && !IR_DIM_IS_SYM(kb))
		return node_err(g, n, "inner dims differ: %s x %s",
				sstr(g, in_shape(n, 0), b1),
				sstr(g, in_shape(n, 1), b2));
	ba = a;
	ba.rank -= 2;
	bb = b;
	bb.rank -= 2;
	if (shape_broadcast(g, n, &ba, &bb, &bo))
		return -EINVAL;
	o = bo;
	if (!va)
		o.dim[o.rank++] = a.dim[a.rank - 2];
	if (!vb)
		o.dim[o.rank++] = b.dim[b.rank - 1];
	if (o.rank > IR_MAX_RANK)
		return node_err(g, n, "rank too large");
	for (i = o.rank; i < IR_MAX_RANK; i++)
		o.dim[i] = 0;
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_softmax(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int64_t axis = ir_attr_int(n, "axis", n->opset >= 13 ? -1 : 1);

	if (shape_axis(axis, x->rank) < 0)
		return node_err(g, n, "axis %lld out of range for rank %d",
				(long long)axis, x->rank);
	set_out(n, 0, n->inputs[0]->dtype, x);
	return 0;
}

/* Reduce ops: axes from the attribute or (ReduceSum >= 13, all >= 18) input. */
static int infer_reduce(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	bool keep = ir_attr_int(n, "keepdims", 1) != 0;
	bool noop = ir_attr_int(n, "noop_with_empty_axes", 0) != 0;
	int64_t axes[IR_MAX_RANK];
	bool red[IR_MAX_RANK] = { false };
	struct ir_shape o = { 0 };
	int na, i;

	na = shape_node_ints(n, 1, "axes", axes, IR_MAX_RANK);
	if (na == -EAGAIN)
		return node_err(g, n, "axes must be known at compile time");
	if (na <= 0) {
		if (noop) {
			set_out(n, 0, n->inputs[0]->dtype, x);
			return 0;
		}
		for (i = 0; i < x->rank; i++)
			red[i] = true;
	}
	for (i = 0; i < na; i++) {
		int a = shape_axis(axes[i], x->rank);

		if (a < 0)
			return node_err(g, n, "axis %lld out of range for "
					"rank %d", (long long)axes[i], x->rank);
		red[a] = true;
	}
	for (i = 0; i < x->rank; i++) {
		if (!red[i])
			o.dim[o.rank++] = x->dim[i];
		else if (keep)
			o.dim[o.rank++] = 1;
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_reshape(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int64_t v[IR_MAX_RANK + 1], total, known = 1;
	struct ir_shape o = { 0 };
	bool allowzero = ir_attr_int(n, "allowzero", 0) != 0;
	char b1[128], b2[128];
	int nv, i, infer = -1;

	nv = shape_node_ints(n, 1, n->opset < 5 ? "shape" : NULL, v,
			     IR_MAX_RANK + 1);
	if (nv == -EAGAIN || nv == -ENOENT)
		return node_err(g, n, "target shape of input %s is not known "
				"at compile time", sstr(g, x, b1));
	if (nv > IR_MAX_RANK)
		return node_err(g, n, "target rank %d too large", nv);
	o.rank = nv;
	for (i = 0; i < nv; i++) {
		int64_t d = v[i];

		if (IR_SVAL_IS_SYM(d)) {
			d = dim_of_sval(d);
		} else if (d == 0 && !allowzero) {
			if (i >= x->rank)
				return node_err(g, n, "0 at dim %d copies a "
						"dim input %s does not have",
						i, sstr(g, x, b1));
			d = x->dim[i];
		} else if (d == -1) {
			if (infer >= 0)
				return node_err(g, n, "more than one -1 in "
						"the target shape");
			infer = i;
			continue;
		} else if (d < 0) {
			return node_err(g, n, "invalid target dim %lld",
					(long long)d);
		}
		o.dim[i] = d;
		known = shape_dim_mul(g, known, d);
	}
	total = shape_prod(g, x, 0, x->rank);
	if (infer >= 0) {
		if (shape_dim_div(g, total, known, &o.dim[infer]))
			return node_err(g, n, "cannot resolve -1: input %s "
					"does not divide into target %s",
					sstr(g, x, b1), sstr(g, &o, b2));
	} else if (total != known && !IR_DIM_IS_SYM(total) &&
		   !IR_DIM_IS_SYM(known)) {
		return node_err(g, n, "input %s and target %s hold different "
				"numbers of elements", sstr(g, x, b1),
				sstr(g, &o, b2));
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	if (n->inputs[0]->sval)
		return set_sval(n->outputs[0], n->inputs[0]->sval,
				n->inputs[0]->sval_len);
	return 0;
}

static int infer_flatten(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int64_t axis = ir_attr_int(n, "axis", 1);
	struct ir_shape o = { .rank = 2 };

	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis > x->rank)
		return node_err(g, n, "axis %lld out of range for rank %d",
				(long long)ir_attr_int(n, "axis", 1), x->rank);
	o.dim[0] = shape_prod(g, x, 0, (int)axis);
	o.dim[1] = shape_prod(g, x, (int)axis, x->rank);
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_squeeze(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int64_t axes[IR_MAX_RANK];
	bool drop[IR_MAX_RANK] = { false };
	struct ir_shape o = { 0 };
	char b1[128];
	int na, i;

	na = shape_node_ints(n, 1, "axes", axes, IR_MAX_RANK);
	if (na == -EAGAIN)
		return node_err(g, n, "axes must be known at compile time");
	for (i = 0; i < na; i++) {
		int a = shape_axis(axes[i], x->rank);

		if (a < 0 || (x->dim[a] != 1 && !IR_DIM_IS_SYM(x->dim[a])))
			return node_err(g, n, "cannot squeeze axis %lld of %s",
					(long long)axes[i], sstr(g, x, b1));
		drop[a] = true;
	}
	for (i = 0; i < x->rank; i++)
		if (!(na > 0 ? drop[i] : x->dim[i] == 1))
			o.dim[o.rank++] = x->dim[i];
	set_out(n, 0, n->inputs[0]->dtype, &o);
	if (n->inputs[0]->sval)
		return set_sval(n->outputs[0], n->inputs[0]->sval,
				n->inputs[0]->sval_len);
	return 0;
}

static int infer_unsqueeze(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int64_t axes[IR_MAX_RANK];
	bool ins[IR_MAX_RANK] = { false };
	struct ir_shape o = { 0 };
	int na, i, j = 0;

	na = shape_node_ints(n, 1, "axes", axes, IR_MAX_RANK);
	if (na <= 0)
		return node_err(g, n, "axes must be given and known at "
				"compile time");
	o.rank = x->rank + na;
	if (o.rank > IR_MAX_RANK)
		return node_err(g, n, "result rank %d too large", o.rank);
	for (i = 0; i < na; i++) {
		int a = shape_axis(axes[i], o.rank);

		if (a < 0 || ins[a])
			return node_err(g, n, "axis %lld invalid or repeated",
					(long long)axes[i]);
		ins[a] = true;
	}
	for (i = 0; i < o.rank; i++)
		o.dim[i] = ins[i] ? 1 : x->dim[j++];
	set_out(n, 0, n->inputs[0]->dtype, &o);
	if (n->inputs[0]->sval)
		return set_sval(n->outputs[0], n->inputs[0]->sval,
				n->inputs[0]->sval_len);
	return 0;
}

static int infer_transpose(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int64_t perm[IR_MAX_RANK];
	bool seen[IR_MAX_RANK] = { false };
	struct ir_shape o = { .rank = x->rank };
	int np, i;

	np = shape_node_ints(n, -1, "perm", perm, IR_MAX_RANK);
	if (np == -ENOENT) {
		for (i = 0; i < x->rank; i++)
			perm[i] = x->rank - 1 - i;
		np = x->rank;
	}
	if (np != x->rank)
		return node_err(g, n, "perm has %d entries for rank %d", np,
				x->rank);
	for (i = 0; i < np; i++) {
		if (perm[i] < 0 || perm[i] >= x->rank || seen[perm[i]])
			return node_err(g, n, "perm is not a permutation");
		seen[perm[i]] = true;
		o.dim[i] = x->dim[perm[i]];
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_concat(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int axis = shape_axis(ir_attr_int(n, "axis", 0), x->rank);
	int64_t vals[SVAL_MAX], v[SVAL_MAX];
	struct ir_shape o = *x;
	char b1[128], b2[128];
	int i, d, len = 0, l;
	bool have_val = true;

	if (axis < 0)
		return node_err(g, n, "axis %lld out of range for rank %d",
				(long long)ir_attr_int(n, "axis", 0), x->rank);
	for (i = 1; i < n->num_inputs; i++) {
		const struct ir_shape *y = in_shape(n, i);

		if (y->rank != x->rank)
			return node_err(g, n, "input %d %s has another rank "
					"than input 0 %s", i, sstr(g, y, b1),
					sstr(g, x, b2));
		for (d = 0; d < x->rank; d++)
			if (d != axis && y->dim[d] != x->dim[d] &&
			    !IR_DIM_IS_SYM(y->dim[d]) &&
			    !IR_DIM_IS_SYM(x->dim[d]))
				return node_err(g, n, "input %d %s and input "
						"0 %s differ outside axis %d",
						i, sstr(g, y, b1),
						sstr(g, x, b2), axis);
		o.dim[axis] = shape_dim_add(g, o.dim[axis], y->dim[axis]);
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	/* shape arithmetic: concatenate known values */
	for (i = 0; i < n->num_inputs && have_val; i++) {
		l = in_value(n, i, v);
		if (l < 0 || len + l > SVAL_MAX)
			have_val = false;
		else
			memcpy(vals + len, v, (size_t)l * 8), len += l;
	}
	if (have_val && x->rank == 1)
		return set_sval(n->outputs[0], vals, len);
	return 0;
}

static int infer_split(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int axis = shape_axis(ir_attr_int(n, "axis", 0), x->rank);
	int64_t sp[64], sum = 0;
	int ns, i;

	if (axis < 0)
		return node_err(g, n, "axis out of range for rank %d",
				x->rank);
	ns = shape_node_ints(n, 1, "split", sp, 64);
	if (ns == -EAGAIN)
		return node_err(g, n, "split sizes must be known at compile "
				"time");
	if (ns < 0) {
		int64_t d = x->dim[axis], k = n->num_outputs;

		if (IR_DIM_IS_SYM(d))
			return node_err(g, n, "cannot split a symbolic dim "
					"evenly");
		ns = (int)k;
		for (i = 0; i < k; i++)	/* opset 18: last chunk smaller */
			sp[i] = (d + k - 1) / k;
		sp[k - 1] = d - (k - 1) * ((d + k - 1) / k);
	}
	if (ns != n->num_outputs)
		return node_err(g, n, "%d split sizes for %d outputs", ns,
				n->num_outputs);
	for (i = 0; i < ns; i++) {
		struct ir_shape o = *x;

		if (sp[i] < 0)
			return node_err(g, n, "negative split size");
		o.dim[axis] = sp[i];
		sum += sp[i];
		set_out(n, i, n->inputs[0]->dtype, &o);
	}
	if (!IR_DIM_IS_SYM(x->dim[axis]) && sum != x->dim[axis])
		return node_err(g, n, "split sizes sum to %lld, dim %d is "
				"%lld", (long long)sum, axis,
				(long long)x->dim[axis]);
	/* record explicit sizes for emission */
	return ir_attr_set_ints(n, "npu_split", sp, ns);
}

/* Clamp Slice start/end the ONNX way; writes start and count. */
int64_t shape_slice_dim(int64_t dim, int64_t st, int64_t en, int64_t step,
			int64_t *start)
{
	int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;

	/* beyond the dim a larger step changes nothing: avoid overflow */
	if (step > ((int64_t)1 << 48))
		step = (int64_t)1 << 48;
	if (step < -((int64_t)1 << 48))
		step = -((int64_t)1 << 48);
	if (st < -((int64_t)1 << 48))
		st = -((int64_t)1 << 48);
	if (en < -((int64_t)1 << 48))
		en = -((int64_t)1 << 48);

	if (st < 0)
		st += dim;
	if (en < 0)
		en += dim;
	st = st < lo ? lo : st > hi ? hi : st;
	en = en < lo ? lo : en > hi ? hi : en;
	*start = st;
	if (step > 0)
		return en > st ? (en - st + step - 1) / step : 0;
	return st > en ? (st - en - step - 1) / -step : 0;
}

static int infer_slice(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int64_t st[IR_MAX_RANK], en[IR_MAX_RANK], ax[IR_MAX_RANK];
	int64_t sp[IR_MAX_RANK], begin[IR_MAX_RANK], steps[IR_MAX_RANK];
	struct ir_shape o = *x;
	int ns, ne, na, nsp, i;
	bool old = n->opset < 10;

	ns = shape_node_ints(n, old ? -1 : 1, old ? "starts" : NULL, st,
			     IR_MAX_RANK);
	ne = shape_node_ints(n, old ? -1 : 2, old ? "ends" : NULL, en,
			     IR_MAX_RANK);
	na = shape_node_ints(n, old ? -1 : 3, old ? "axes" : NULL, ax,
			     IR_MAX_RANK);
	nsp = old ? -ENOENT : shape_node_ints(n, 4, NULL, sp, IR_MAX_RANK);
	if (ns < 0 || ne < 0 || ns != ne || na == -EAGAIN || nsp == -EAGAIN)
		return node_err(g, n, "starts/ends/axes/steps must be known "
				"at compile time and agree in length");
	if (na < 0)
		for (na = 0; na < ns; na++)
			ax[na] = na;
	if (nsp < 0)
		for (nsp = 0; nsp < ns; nsp++)
			sp[nsp] = 1;
	if (na != ns || nsp != ns)
		return node_err(g, n, "starts/ends/axes/steps lengths differ");
	for (i = 0; i < x->rank; i++) {
		begin[i] = 0;
		steps[i] = 1;
	}
	for (i = 0; i < ns; i++) {
		int a = shape_axis(ax[i], x->rank);

		if (a < 0 || !sp[i])
			return node_err(g, n, "axis %lld or step %lld invalid",
					(long long)ax[i], (long long)sp[i]);
		/* a bound that is a symbolic dim (x[:, :seq]) has no value
		 * until a gear binds it; read as an integer it would be
		 * clamped to 0 and folded into every shape computed from
		 * it */
		if (IR_SVAL_IS_SYM(st[i]) || IR_SVAL_IS_SYM(en[i]) ||
		    IR_SVAL_IS_SYM(sp[i]))
			return node_err(g, n, "slice bounds on axis %d depend "
					"on symbolic dims: give the shape "
					"(gear or --input-shape)", a);
		if (IR_DIM_IS_SYM(x->dim[a])) {
			/* a full slice keeps a symbolic dim */
			if (st[i] == 0 && en[i] >= INT32_MAX && sp[i] == 1)
				continue;
			return node_err(g, n, "slicing symbolic dim %d "
					"(%s) needs a static size", a,
					ir_sym_name(g, x->dim[a]));
		}
		o.dim[a] = shape_slice_dim(x->dim[a], st[i], en[i], sp[i],
				     &begin[a]);
		steps[a] = sp[i];
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	/* explicit begin/step per dim for emission */
	ir_attr_set_ints(n, "npu_begin", begin, x->rank);
	ir_attr_set_ints(n, "npu_step", steps, x->rank);
	/* shape arithmetic on 1-D values */
	if (x->rank == 1 && n->inputs[0]->sval && steps[0] == 1 &&
	    !IR_DIM_IS_SYM(o.dim[0]))
		return set_sval(n->outputs[0], n->inputs[0]->sval + begin[0],
				(int)o.dim[0]);
	return 0;
}

static int infer_gather(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0), *ix = in_shape(n, 1);
	int axis = shape_axis(ir_attr_int(n, "axis", 0), x->rank);
	struct ir_shape o = { 0 };
	int64_t idx[SVAL_MAX];
	int i, ni;

	if (axis < 0)
		return node_err(g, n, "axis out of range for rank %d",
				x->rank);
	if (n->inputs[1]->dtype != IR_I64 && n->inputs[1]->dtype != IR_I32)
		return node_err(g, n, "indices must be i32 or i64");
	if (x->rank + ix->rank - 1 > IR_MAX_RANK)
		return node_err(g, n, "result rank too large");
	for (i = 0; i < axis; i++)
		o.dim[o.rank++] = x->dim[i];
	for (i = 0; i < ix->rank; i++)
		o.dim[o.rank++] = ix->dim[i];
	for (i = axis + 1; i < x->rank; i++)
		o.dim[o.rank++] = x->dim[i];
	set_out(n, 0, n->inputs[0]->dtype, &o);
	/* Shape -> Gather: pick tracked values */
	if (x->rank == 1 && n->inputs[0]->sval &&
	    (ni = in_value(n, 1, idx)) >= 0) {
		int64_t r[SVAL_MAX];

		for (i = 0; i < ni; i++) {
			int64_t k = idx[i] < 0 ? idx[i] + n->inputs[0]->sval_len
					       : idx[i];

			if (k < 0 || k >= n->inputs[0]->sval_len)
				return node_err(g, n, "index %lld out of "
						"range", (long long)idx[i]);
			r[i] = n->inputs[0]->sval[k];
		}
		return set_sval(n->outputs[0], r, ni);
	}
	return 0;
}

static int infer_expand(struct ir_graph *g, struct ir_node *n)
{
	int64_t v[IR_MAX_RANK];
	struct ir_shape t = { 0 }, o;
	int nv, i;

	nv = shape_node_ints(n, 1, NULL, v, IR_MAX_RANK);
	if (nv < 0)
		return node_err(g, n, "target shape not known at compile "
				"time");
	t.rank = nv;
	for (i = 0; i < nv; i++) {
		if (!sval_is_dim(v[i]))
			return node_err(g, n, "target dim %d is %lld", i,
					(long long)v[i]);
		t.dim[i] = dim_of_sval(v[i]);
	}
	if (shape_broadcast(g, n, in_shape(n, 0), &t, &o))
		return -EINVAL;
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_shape_op(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int64_t st = ir_attr_int(n, "start", 0), en = ir_attr_int(n, "end",
								   x->rank);
	struct ir_shape o = { .rank = 1 };
	int64_t v[IR_MAX_RANK];
	int i, len = 0;

	if (st < 0)
		st += x->rank;
	if (en < 0)
		en += x->rank;
	st = st < 0 ? 0 : st > x->rank ? x->rank : st;
	en = en < 0 ? 0 : en > x->rank ? x->rank : en;
	for (i = (int)st; i < en; i++)
		v[len++] = sval_of_dim(x->dim[i]);
	o.dim[0] = len;
	set_out(n, 0, IR_I64, &o);
	return set_sval(n->outputs[0], v, len);
}

static int infer_constant_of_shape(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_attr *a = ir_attr_find(n, "value");
	int64_t v[IR_MAX_RANK];
	struct ir_shape o = { 0 };
	int nv, i;

	nv = shape_node_ints(n, 0, NULL, v, IR_MAX_RANK);
	if (nv < 0)
		return node_err(g, n, "shape input not known at compile time");
	o.rank = nv;
	for (i = 0; i < nv; i++) {
		if (!sval_is_dim(v[i]))
			return node_err(g, n, "dim %d is %lld", i,
					(long long)v[i]);
		o.dim[i] = dim_of_sval(v[i]);
	}
	set_out(n, 0, a && a->t ? a->t->dtype : IR_F32, &o);
	/* an integer fill of a small static shape is a shape value */
	if (a && a->t && a->t->data && (a->t->dtype == IR_I64 ||
	    a->t->dtype == IR_I32) && ir_shape_is_static(&o) &&
	    ir_shape_numel(&o) <= SVAL_MAX && o.rank <= 1) {
		int64_t fill[SVAL_MAX], k, cnt = ir_shape_numel(&o);

		for (k = 0; k < cnt; k++)
			fill[k] = ir_const_get_i(a->t, 0);
		return set_sval(n->outputs[0], fill, (int)cnt);
	}
	return 0;
}

static int infer_range(struct ir_graph *g, struct ir_node *n)
{
	struct ir_shape o = { .rank = 1 };
	double s, l, d;
	int i;

	for (i = 0; i < 3; i++)
		if (!ir_tensor_is_const(ir_in(n, i)))
			return node_err(g, n, "start/limit/delta must be "
					"constants");
	s = ir_const_get_f(n->inputs[0], 0);
	l = ir_const_get_f(n->inputs[1], 0);
	d = ir_const_get_f(n->inputs[2], 0);
	if (d == 0)
		return node_err(g, n, "delta is 0");
	{
		double cnt = ceil((l - s) / d);

		if (!(cnt < (double)((int64_t)1 << 40)))
			return node_err(g, n, "%g elements", cnt);
		o.dim[0] = cnt > 0 ? (int64_t)cnt : 0;
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_pad(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	int64_t p[2 * IR_MAX_RANK];
	struct ir_shape o = *x;
	int np, i;

	np = shape_node_ints(n, n->opset >= 11 ? 1 : -1,
			     n->opset >= 11 ? NULL : "pads", p,
			     2 * IR_MAX_RANK);
	if (np != 2 * x->rank)
		return node_err(g, n, "pads must be known and have %d entries",
				2 * x->rank);
	for (i = 0; i < x->rank; i++) {
		if (p[i] < 0 || p[i + x->rank] < 0)
			return node_err(g, n, "negative pads (cropping) are "
					"not supported");
		if (IR_DIM_IS_SYM(x->dim[i])) {
			if (p[i] || p[i + x->rank])
				return node_err(g, n, "padding symbolic dim "
						"%d", i);
			continue;
		}
		o.dim[i] = x->dim[i] + p[i] + p[i + x->rank];
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_resize(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	struct ir_shape o = *x;
	const struct ir_tensor *sc = ir_in(n, 2), *sz = ir_in(n, 3);
	int64_t v[IR_MAX_RANK];
	int i, nv;

	if (n->opset < 11)
		return node_err(g, n, "Resize before opset 11 is not "
				"supported");
	if (sz && (nv = shape_node_ints(n, 3, NULL, v, IR_MAX_RANK)) >= 0) {
		if (nv != x->rank)
			return node_err(g, n, "sizes has %d entries for rank "
					"%d", nv, x->rank);
		for (i = 0; i < nv; i++) {
			if (!sval_is_dim(v[i]))
				return node_err(g, n, "size %d is %lld", i,
						(long long)v[i]);
			o.dim[i] = dim_of_sval(v[i]);
		}
	} else if (sc && sc->data && ir_tensor_numel(sc) == x->rank) {
		for (i = 0; i < x->rank; i++) {
			if (IR_DIM_IS_SYM(x->dim[i]))
				return node_err(g, n, "scaling symbolic dims");
			double d = (double)x->dim[i] * ir_const_get_f(sc, i);

			if (!(d >= 0 && d < (double)((int64_t)1 << 40)))
				return node_err(g, n, "scale %d gives size "
						"%g", i, d);
			o.dim[i] = (int64_t)d;
		}
	} else {
		return node_err(g, n, "scales or sizes must be constants");
	}
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

/*
 * GridSample (opset 16: 4-D): X [N, C, H, W], grid [N, Ho, Wo, 2] ->
 * [N, C, Ho, Wo]; the grid's dtype is X's.
 */
static int infer_grid_sample(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0), *gr = in_shape(n, 1);
	struct ir_shape o = *x;

	if (x->rank != 4 || gr->rank != 4)
		return node_err(g, n, "only 4-D X [N, C, H, W] and grid [N, Ho, "
				"Wo, 2] are supported (X rank %d, grid rank %d)",
				x->rank, gr->rank);
	if (gr->dim[3] != 2 || (x->dim[0] != gr->dim[0] &&
				!IR_DIM_IS_SYM(x->dim[0]) &&
				!IR_DIM_IS_SYM(gr->dim[0])))
		return node_err(g, n, "grid must be [N, Ho, Wo, 2] for X's N");
	if (n->inputs[1]->dtype != n->inputs[0]->dtype)
		return node_err(g, n, "grid's dtype must be X's");
	if (x->dim[2] == 0 || x->dim[3] == 0)
		return node_err(g, n, "cannot sample an empty image");
	o.dim[2] = gr->dim[1];
	o.dim[3] = gr->dim[2];
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

/*
 * RoiAlign: X [N, C, H, W], rois [R, 4] (X's dtype), batch_indices [R]
 * int64 -> [R, C, output_height, output_width].
 */
static int infer_roi_align(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0), *r = in_shape(n, 1);
	const struct ir_shape *b = in_shape(n, 2);
	int64_t oh = ir_attr_int(n, "output_height", 1);
	int64_t ow = ir_attr_int(n, "output_width", 1);
	struct ir_shape o = { .rank = 4 };

	if (x->rank != 4 || r->rank != 2 || r->dim[1] != 4 || b->rank != 1)
		return node_err(g, n, "needs X [N, C, H, W], rois [R, 4] and "
				"batch_indices [R] (ranks %d, %d, %d)", x->rank,
				r->rank, b->rank);
	if (n->inputs[1]->dtype != n->inputs[0]->dtype ||
	    (n->inputs[2]->dtype != IR_I64 && n->inputs[2]->dtype != IR_I32))
		return node_err(g, n, "rois must have X's dtype and "
				"batch_indices be int64");
	if (!IR_DIM_IS_SYM(b->dim[0]) && !IR_DIM_IS_SYM(r->dim[0]) &&
	    b->dim[0] != r->dim[0])
		return node_err(g, n, "%lld batch indices for %lld rois",
				(long long)b->dim[0], (long long)r->dim[0]);
	if (oh < 1 || ow < 1 || oh > INT32_MAX || ow > INT32_MAX)
		return node_err(g, n, "output_height %lld, output_width %lld: "
				"give 1 to 2^31 - 1", (long long)oh,
				(long long)ow);
	o.dim[0] = r->dim[0];
	o.dim[1] = x->dim[1];
	o.dim[2] = oh;
	o.dim[3] = ow;
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

/* npu.Random (legalize_random.c): f32 of its input's or its shape. */
static int infer_random_task(struct ir_graph *g, struct ir_node *n)
{
	struct ir_shape o = { .rank = 0 };
	const int64_t *dims;
	int nd, i;

	if (n->num_inputs) {
		o = *in_shape(n, 0);
	} else {
		nd = ir_attr_ints(n, "shape", &dims);
		if (nd > IR_MAX_RANK)
			return node_err(g, n, "rank %d above %d", nd,
					IR_MAX_RANK);
		o.rank = nd;
		for (i = 0; i < nd; i++)
			o.dim[i] = dims[i];
	}
	set_out(n, 0, IR_F32, &o);
	return 0;
}

static int infer_attention(struct ir_graph *g, struct ir_node *n)
{
	struct ir_shape o = *in_shape(n, 0);

	o.dim[o.rank - 1] = in_shape(n, 2)->dim[in_shape(n, 2)->rank - 1];
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

/*
 * npu.QConv (x, w, [bias], mult) has Conv's geometry; npu.QMatMul (a,
 * b [N, K], [bias], mult) gives a's shape with N last. Their output
 * dtype is the QuantizeLinear's they replaced (attribute "ydt").
 */
static int infer_qconv(struct ir_graph *g, struct ir_node *n)
{
	enum ir_dtype yt = (enum ir_dtype)ir_attr_int(n, "ydt", IR_I8);
	int ret = infer_conv(g, n);

	if (!ret)
		n->outputs[0]->dtype = yt;
	return ret;
}

static int infer_qmatmul(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *a = in_shape(n, 0), *b;
	struct ir_shape o;

	if (!ir_in(n, 1))
		return node_err(g, n, "needs a weight input");
	b = in_shape(n, 1);
	if (a->rank < 2 || b->rank != 2 || a->dim[a->rank - 1] != b->dim[1])
		return node_err(g, n, "a must be [..., K] and b [N, K]");
	o = *a;
	o.dim[o.rank - 1] = b->dim[0];
	set_out(n, 0, (enum ir_dtype)ir_attr_int(n, "ydt", IR_I8), &o);
	return 0;
}

/*
 * npu.MatMulWQ (pass_weight_only()): a [.., M, K], w, scales, [bias];
 * out [.., M, N] in a's dtype, N from the "n" attribute (packed int4
 * weights have ceil(N / 2) byte columns).
 */
static int infer_matmul_wq(struct ir_graph *g, struct ir_node *n)
{
	struct ir_shape o = *in_shape(n, 0);

	if (o.rank < 1)
		return node_err(g, n, "a needs rank >= 1");
	o.dim[o.rank - 1] = ir_attr_int(n, "n", 0);
	set_out(n, 0, n->inputs[0]->dtype, &o);
	return 0;
}

static int infer_quant(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	const struct ir_tensor *s = ir_in(n, 1), *z = ir_in(n, 2);
	int64_t axis = ir_attr_int(n, "axis", 1);
	enum ir_dtype dt = IR_F32;

	if (s && s->shape_known && z && z->shape_known &&
	    ir_tensor_numel(s) == 1 && ir_tensor_numel(z) > 1)
		return node_err(g, n, "%lld zero points but one scale (give "
				"a scale per channel)",
				(long long)ir_tensor_numel(z));
	/* a per-channel scale runs along an axis of x, its length */
	if (s && s->shape_known && s->shape.rank == 1 &&
	    s->shape.dim[0] != 1) {
		if (axis < 0)
			axis += x->rank;
		if (axis < 0 || axis >= x->rank)
			return node_err(g, n, "per-channel axis %lld out of "
					"range for rank %d",
					(long long)ir_attr_int(n, "axis", 1),
					x->rank);
		if (!IR_DIM_IS_SYM(x->dim[axis]) &&
		    !IR_DIM_IS_SYM(s->shape.dim[0]) &&
		    s->shape.dim[0] != x->dim[axis])
			return node_err(g, n, "%lld scales for dim %lld of "
					"extent %lld",
					(long long)s->shape.dim[0],
					(long long)axis, (long long)x->dim[axis]);
		if (z && z->shape_known && ir_tensor_numel(z) != 1 &&
		    ir_tensor_numel(z) != s->shape.dim[0])
			return node_err(g, n, "zero points and scales differ "
					"in length");
	}

	if (n->op == IR_OP_QUANTIZE_LINEAR)
		dt = ir_in(n, 2) ? n->inputs[2]->dtype : IR_U8;
	set_out(n, 0, dt, in_shape(n, 0));
	return 0;
}

/* npu.Aipp (compiler/passes/aipp.c): u8 image -> f32 [N, C, H', W']. */
static int infer_aipp(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_shape *x = in_shape(n, 0);
	const int64_t *crop, *pads;
	int64_t fmt = ir_attr_int(n, "format", -1), d[4];
	bool csc = ir_attr_int(n, "flags", 0) & 1;
	struct ir_shape o;

	if (ir_attr_ints(n, "crop", &crop) != 4 ||
	    ir_attr_ints(n, "pads", &pads) != 4 || fmt < 0 || fmt > 5 ||
	    x->rank < 3 || n->inputs[0]->dtype != IR_U8)
		return node_err(g, n, "malformed npu.Aipp (u8 image, format, "
				"crop and pads attributes)");
	d[0] = x->dim[0];
	d[1] = fmt == 5 && !csc ? 1 : 3;
	d[2] = crop[3] + pads[0] + pads[2];
	d[3] = crop[2] + pads[1] + pads[3];
	o = ir_shape_make(4, d);
	set_out(n, 0, IR_F32, &o);
	return 0;
}

static int infer_dispatch(struct ir_graph *g, struct ir_node *n)
{
	switch (n->op) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
		if (infer_elementwise(g, n))
			return -EINVAL;
		sval_binary(g, n);
		return 0;
	case IR_OP_POW: case IR_OP_MAX: case IR_OP_MIN: case IR_OP_PRELU:
	case IR_OP_EQUAL: case IR_OP_LESS: case IR_OP_GREATER:
	case IR_OP_WHERE: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR:
	case IR_OP_GREATER_OR_EQUAL: case IR_OP_LESS_OR_EQUAL: case IR_OP_SUM:
		return infer_elementwise(g, n);
	case IR_OP_SIZE: {
		struct ir_shape o = { 0 };
		int64_t v = shape_prod(g, in_shape(n, 0), 0,
				       in_shape(n, 0)->rank);

		set_out(n, 0, IR_I64, &o);
		v = sval_of_dim(v);
		return set_sval(n->outputs[0], &v, 1);
	}
	case IR_OP_IDENTITY: case IR_OP_DROPOUT: case IR_OP_RELU:
	case IR_OP_SIGMOID: case IR_OP_TANH: case IR_OP_EXP: case IR_OP_SQRT:
	case IR_OP_CLIP: case IR_OP_LEAKY_RELU: case IR_OP_HARD_SIGMOID:
	case IR_OP_HARD_SWISH: case IR_OP_ERF: case IR_OP_NEG: case IR_OP_ABS:
	case IR_OP_LOG: case IR_OP_RECIPROCAL: case IR_OP_ELU:
	case IR_OP_SOFTPLUS: case IR_OP_FLOOR: case IR_OP_CEIL: case IR_OP_NOT:
	case IR_OP_ACTIVATION: case IR_OP_GELU: case IR_OP_LAYER_NORM:
	case IR_OP_TRANSDATA: case IR_OP_SIN: case IR_OP_COS: case IR_OP_TAN:
	case IR_OP_ASIN: case IR_OP_ACOS: case IR_OP_ATAN: case IR_OP_ASINH:
	case IR_OP_ACOSH: case IR_OP_ATANH:
		return infer_unary(g, n);
	case IR_OP_CAST: return infer_cast(g, n);
	case IR_OP_CONV: return infer_conv(g, n);
	case IR_OP_MAX_POOL: case IR_OP_AVERAGE_POOL:
	case IR_OP_GLOBAL_AVERAGE_POOL: case IR_OP_GLOBAL_MAX_POOL:
		return infer_pool(g, n);
	case IR_OP_BATCH_NORM: return infer_batchnorm(g, n);
	case IR_OP_GEMM: return infer_gemm(g, n);
	case IR_OP_MATMUL: return infer_matmul(g, n);
	case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX: return infer_softmax(g, n);
	case IR_OP_REDUCE_SUM: case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_MAX:
	case IR_OP_REDUCE_MIN: case IR_OP_REDUCE_PROD:
	case IR_OP_REDUCE_SUM_SQUARE:
		return infer_reduce(g, n);
	case IR_OP_RESHAPE: return infer_reshape(g, n);
	case IR_OP_FLATTEN: return infer_flatten(g, n);
	case IR_OP_SQUEEZE: return infer_squeeze(g, n);
	case IR_OP_UNSQUEEZE: return infer_unsqueeze(g, n);
	case IR_OP_TRANSPOSE: return infer_transpose(g, n);
	case IR_OP_CONCAT: return infer_concat(g, n);
	case IR_OP_SPLIT: return infer_split(g, n);
	case IR_OP_SLICE: return infer_slice(g, n);
	case IR_OP_GATHER: return infer_gather(g, n);
	case IR_OP_EXPAND: return infer_expand(g, n);
	case IR_OP_SHAPE: return infer_shape_op(g, n);
	case IR_OP_CONSTANT_OF_SHAPE: return infer_constant_of_shape(g, n);
	case IR_OP_RANGE: return infer_range(g, n);
	case IR_OP_PAD: return infer_pad(g, n);
	case IR_OP_RESIZE: return infer_resize(g, n);
	case IR_OP_GRID_SAMPLE: return infer_grid_sample(g, n);
	case IR_OP_ROI_ALIGN: return infer_roi_align(g, n);
	case IR_OP_RANDOM_TASK: return infer_random_task(g, n);
	case IR_OP_ATTENTION: return infer_attention(g, n);
	case IR_OP_AIPP: return infer_aipp(g, n);
	case IR_OP_RNN_TASK: return shape_infer_rnn_task(g, n);
	case IR_OP_TOPK_TASK: return shape_infer_topk_task(g, n);
	case IR_OP_NONZERO_TASK: case IR_OP_NMS_TASK: case IR_OP_UNIQUE_TASK:
		return shape_infer_count_task(g, n);
	case IR_OP_SCATTER_TASK: return shape_infer_scatter_task(g, n);
	case IR_OP_MATMUL_WQ: return infer_matmul_wq(g, n);
	case IR_OP_QUANTIZE_LINEAR: case IR_OP_DEQUANTIZE_LINEAR:
		return infer_quant(g, n);
	case IR_OP_QCONV: return infer_qconv(g, n);
	case IR_OP_QMATMUL: return infer_qmatmul(g, n);
	case IR_OP_QADD:
		if (!ir_shape_equal(in_shape(n, 0), in_shape(n, 1)))
			return node_err(g, n, "int8 add needs equal shapes");
		set_out(n, 0, (enum ir_dtype)ir_attr_int(n, "ydt", IR_I8),
			in_shape(n, 0));
		return 0;
	case IR_OP_CUSTOM:
		return plugin_infer_node(g, n);
	default:
		return node_err(g, n, "no shape rule for this op");
	}
}

/* Ops whose every input is an operand (no optional slots). */
static bool variadic(enum ir_op op)
{
	return op == IR_OP_CONCAT || op == IR_OP_MAX || op == IR_OP_MIN ||
	       op == IR_OP_SUM || op == IR_OP_MEAN;
}

/* Minimum number of inputs each op reads unconditionally. */
static int min_inputs(enum ir_op op)
{
	switch (op) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
	case IR_OP_POW: case IR_OP_PRELU: case IR_OP_EQUAL: case IR_OP_LESS:
	case IR_OP_GREATER: case IR_OP_CONV: case IR_OP_MATMUL:
	case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR:
	case IR_OP_GREATER_OR_EQUAL: case IR_OP_LESS_OR_EQUAL:
	case IR_OP_CAST_LIKE:
	case IR_OP_GEMM: case IR_OP_GATHER: case IR_OP_EXPAND:
	case IR_OP_QUANTIZE_LINEAR: case IR_OP_DEQUANTIZE_LINEAR:
		return 2;
	case IR_OP_WHERE: case IR_OP_RANGE: case IR_OP_ATTENTION:
	case IR_OP_RNN_TASK: case IR_OP_SCATTER_TASK:
	case IR_OP_MATMUL_WQ:
		return 3;
	case IR_OP_QCONV: case IR_OP_QMATMUL: case IR_OP_QADD:
		return 2;	/* x, w; bias may be absent, mult follows */
	case IR_OP_BATCH_NORM: return 5;
	case IR_OP_LAYER_NORM: return 2;
	case IR_OP_CUSTOM: return 0;	/* the plugin's bounds, at import */
	case IR_OP_RANDOM_TASK: return 0;	/* Bernoulli's p, or none */
	default: return 1;
	}
}

int shape_infer_node(struct ir_graph *g, struct ir_node *n)
{
	char b1[128];
	int i;

	if (n->num_inputs < min_inputs(n->op))
		return node_err(g, n, "needs at least %d inputs, has %d",
				min_inputs(n->op), n->num_inputs);

	if (n->num_outputs < 1 || (!n->outputs[0] && n->op != IR_OP_CUSTOM))
		return node_err(g, n, "has no output");
	for (i = 0; i < n->num_inputs; i++)
		if (!n->inputs[i] && (i < min_inputs(n->op) ||
				      variadic(n->op)))
			return node_err(g, n, "required input %d is missing",
					i);
	for (i = 0; i < n->num_inputs; i++) {
		const struct ir_tensor *t = n->inputs[i];

		if (!t)
			continue;
		if (!t->shape_known || t->dtype == IR_DTYPE_INVALID)
			return node_err(g, n, "input %d '%s' has no known "
					"shape or type", i, t->name);
	}
	for (i = 0; i < n->num_outputs; i++)
		if (n->outputs[i] && n->outputs[i]->sval) {
			free(n->outputs[i]->sval);
			n->outputs[i]->sval = NULL;
			n->outputs[i]->sval_len = 0;
		}
	if (infer_dispatch(g, n))
		return -EINVAL;
	for (i = 0; i < n->num_outputs; i++) {
		struct ir_tensor *t = n->outputs[i];

		if (t && t->shape_known && t->shape.rank > IR_MAX_RANK)
			return node_err(g, n, "output %s rank too large",
					sstr(g, &t->shape, b1));
	}
	return 0;
}

/* A small integer constant carries its value for shape arithmetic. */
static int const_sval(struct ir_tensor *t)
{
	int64_t v[SVAL_MAX], k, nel = ir_tensor_numel(t);

	if (!t->data || (t->dtype != IR_I64 && t->dtype != IR_I32) ||
	    t->shape.rank > 1 || nel > SVAL_MAX)
		return 0;
	for (k = 0; k < nel; k++)
		v[k] = ir_const_get_i(t, k);
	return set_sval(t, v, (int)nel);
}

/* Decompositions (and while-loop steps) one shape inference applies. */
#define SHAPE_MAX_REWRITES	1000

int shape_infer(struct ir_graph *g)
{
	int i, err, restarts = 0;

restart:
	err = ir_graph_toposort(g);
	if (err)
		return err;
	/* constants carry their values for shape arithmetic */
	for (i = 0; i < g->num_tensors; i++)
		if (const_sval(g->tensors[i]))
			return -ENOMEM;
	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];
		struct ir_tensor *outs[16];
		int j, nout, ready = 1;

		for (j = 0; j < n->num_inputs; j++)
			if (n->inputs[j] && !n->inputs[j]->shape_known)
				ready = 0;
		if (ready && restarts < SHAPE_MAX_REWRITES) {
			err = shape_legalize_node(g, n);
			if (err < 0)
				return err;
			if (err > 0) {
				restarts++;
				goto restart;
			}
		} else if (ready && (n->op == IR_OP_LOOP ||
				     n->op == IR_OP_IF || n->op == IR_OP_SCAN)) {
			return node_err(g, n, "the graph was rewritten %d times "
					"(a while loop peels one step at a time): "
					"more steps are not supported",
					SHAPE_MAX_REWRITES);
		}
		err = shape_infer_node(g, n);
		if (err)
			return err;
		/* a parameter subgraph becomes constants before its
		 * consumers (Pad, Expand, Reshape, ...) need the values */
		nout = n->num_outputs < 16 ? n->num_outputs : 16;
		for (j = 0; j < nout; j++)
			outs[j] = n->outputs[j];
		err = shape_fold_node(g, n);
		if (err < 0)
			return err;
		if (err > 0) {
			for (j = 0; j < nout; j++)
				if (outs[j] && const_sval(outs[j]))
					return -ENOMEM;
			i--;
		}
	}
	shape_propagate_counts(g);
	return 0;
}
