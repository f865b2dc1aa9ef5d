// SPDX-License-Identifier: MIT
/*
 * legalize_pool3d.c - 3-D pooling (input [N, C, D, H, W]) as two 2-D
 * pools, which the device has:
 *
 *   [N, C*D, H, W]  --pool (kh, kw)-->  [N, C*D, OH, OW]
 *   [N, C, D, OH*OW] --pool (kd, 1)-->  [N, C, OD, OH*OW]  -> [N, C, OD, OH, OW]
 *
 * Exact for max (a max of maxes) and for average in both count modes:
 * every window is a box, so its count (with or without the pads, clipped
 * by ceil_mode the same way) is the product of the per-axis counts and an
 * average of averages divides by that product. Pads, strides, dilations,
 * ceil_mode and auto_pad are per axis, so each pass takes its axes' share
 * (SAME pads of a kernel-1 axis are 0). Global pools reshape to
 * [N, C, D*H*W, 1]. MaxPool's Indices output stays 2-D only.
 */
#include <errno.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

#define P3_MAX	(1 << 20)

struct p3_attrs {
	int64_t k[3], s[3], d[3], pads[6];
	const char *auto_pad;
	int64_t ceil_mode, include_pad;
};

static int p3_ints(const struct ir_node *n, const char *name, int64_t *out,
		   int want, int64_t def)
{
	const int64_t *v;
	int cnt = ir_attr_ints(n, name, &v), i;

	if (!ir_attr_find(n, name)) {
		for (i = 0; i < want; i++)
			out[i] = def;
		return 0;
	}
	if (cnt != want)
		return -EINVAL;
	for (i = 0; i < want; i++)
		out[i] = v[i];
	return 0;
}

/* The output extent of one axis, as shape inference computes it. */
static int64_t p3_out(const struct p3_attrs *a, int i, int64_t in)
{
	int64_t eff = (a->k[i] - 1) * a->d[i] + 1, s = a->s[i], span, o;

	if (!strncmp(a->auto_pad, "SAME", 4))
		return (in + s - 1) / s;
	span = in + a->pads[i] + a->pads[3 + i] - eff;
	if (span < 0)
		return a->ceil_mode && span > -s ? 1 : -1;
	o = (a->ceil_mode ? (span + s - 1) / s : span / s) + 1;
	if (a->ceil_mode && (o - 1) * s >= in + a->pads[i])
		o--;
	return o;
}

/* One 2-D pass of @n's op over @x with the attributes of axes @i, @j. */
static struct ir_tensor *p3_pass(struct lz_builder *b, const struct ir_node *n,
				 const struct p3_attrs *a, struct ir_tensor *x,
				 int i, int j)
{
	int64_t k[2] = { a->k[i], j < 0 ? 1 : a->k[j] };
	int64_t s[2] = { a->s[i], j < 0 ? 1 : a->s[j] };
	int64_t d[2] = { a->d[i], j < 0 ? 1 : a->d[j] };
	int64_t p[4] = { a->pads[i], j < 0 ? 0 : a->pads[j],
			 a->pads[3 + i], j < 0 ? 0 : a->pads[3 + j] };
	struct ir_tensor *t = lz_node(b, n->op, 1, &x, x ? x->dtype : 0, NULL);
	struct ir_node *u = t ? t->producer : NULL;

	if (!u || ir_attr_set_ints(u, "kernel_shape", k, 2) ||
	    ir_attr_set_ints(u, "strides", s, 2) ||
	    ((d[0] != 1 || d[1] != 1) &&
	     ir_attr_set_ints(u, "dilations", d, 2)) ||
	    ir_attr_set_str(u, "auto_pad", a->auto_pad) ||
	    ir_attr_set_int(u, "ceil_mode", a->ceil_mode) ||
	    (n->op == IR_OP_AVERAGE_POOL &&
	     ir_attr_set_int(u, "count_include_pad", a->include_pad)))
		return NULL;
	if (strncmp(a->auto_pad, "SAME", 4) &&
	    ir_attr_set_ints(u, "pads", p, 4))
		return NULL;
	u->opset = n->opset;
	return t;
}

static int p3_global(struct ir_graph *g, struct ir_node *n)
{
	const int64_t *x = n->inputs[0]->shape.dim;
	int64_t flat[4] = { x[0], x[1], x[2] * x[3] * x[4], 1 };
	int64_t o[5] = { x[0], x[1], 1, 1, 1 };
	struct ir_tensor *in = n->inputs[0], *out, *t;
	struct lz_builder b;

	out = lz_take(&b, g, n);
	t = lz_reshape(&b, in, flat, 4, NULL);
	t = lz_node(&b, n->op, 1, &t, in->dtype, NULL);
	return lz_reshape(&b, t, o, 5, out) ? 1 : -ENOMEM;
}

int shape_legalize_pool3d(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *t;
	const int64_t *xd = x->shape.dim;
	int64_t od[3], r1[4], r2[4], r3[5];
	struct p3_attrs a;
	struct lz_builder b;
	int i;

	if (!x->shape_known || x->shape.rank != 5 ||
	    !ir_shape_is_static(&x->shape))
		return 0;	/* shape inference says what is missing */
	if (n->num_outputs > 1 && n->outputs[1] &&
	    (n->outputs[1]->num_uses || n->outputs[1]->is_output))
		return 0;	/* Indices: refused by shape inference */
	if (n->op == IR_OP_GLOBAL_AVERAGE_POOL ||
	    n->op == IR_OP_GLOBAL_MAX_POOL)
		return p3_global(g, n);
	a.auto_pad = ir_attr_str(n, "auto_pad", "NOTSET");
	a.ceil_mode = ir_attr_int(n, "ceil_mode", 0);
	a.include_pad = ir_attr_int(n, "count_include_pad", 0);
	if (p3_ints(n, "kernel_shape", a.k, 3, 0) ||
	    !ir_attr_find(n, "kernel_shape") ||
	    p3_ints(n, "strides", a.s, 3, 1) ||
	    p3_ints(n, "dilations", a.d, 3, 1) ||
	    p3_ints(n, "pads", a.pads, 6, 0))
		return ir_error(g, "node '%s' (%s): kernel_shape, strides, "
				"dilations and pads of a 3-D pool need 3 (pads "
				"6) entries", n->name, ir_op_name(n->op));
	if (!strcmp(a.auto_pad, "VALID"))
		memset(a.pads, 0, sizeof(a.pads));
	for (i = 0; i < 3; i++) {
		/* bounded so that no extent below can overflow */
		if (a.k[i] < 1 || a.s[i] < 1 || a.d[i] < 1 || a.pads[i] < 0 ||
		    a.pads[3 + i] < 0 || a.k[i] > P3_MAX || a.d[i] > P3_MAX ||
		    a.s[i] > P3_MAX || a.pads[i] > P3_MAX ||
		    a.pads[3 + i] > P3_MAX)
			return ir_error(g, "node '%s' (%s): kernel, stride, "
					"dilation must be in [1, %d] and pads "
					"in [0, %d]", n->name,
					ir_op_name(n->op), P3_MAX, P3_MAX);
		od[i] = p3_out(&a, i, xd[2 + i]);
		if (od[i] < 1)
			return ir_error(g, "node '%s' (%s): window larger "
					"than the padded input", n->name,
					ir_op_name(n->op));
	}
	r1[0] = xd[0];
	r1[1] = xd[1] * xd[2];
	r1[2] = xd[3];
	r1[3] = xd[4];
	r2[0] = xd[0];
	r2[1] = xd[1];
	r2[2] = xd[2];
	r2[3] = od[1] * od[2];
	r3[0] = xd[0];
	r3[1] = xd[1];
	for (i = 0; i < 3; i++)
		r3[2 + i] = od[i];
	out = lz_take(&b, g, n);
	t = lz_reshape(&b, x, r1, 4, NULL);
	t = p3_pass(&b, n, &a, t, 1, 2);
	t = lz_reshape(&b, t, r2, 4, NULL);
	t = p3_pass(&b, n, &a, t, 0, -1);
	return lz_reshape(&b, t, r3, 5, out) ? 1 : -ENOMEM;
}
