// SPDX-License-Identifier: MIT
/*
 * legalize_conv3d.c - 3-D Conv and ConvTranspose as 2-D ones over the
 * depth folded into the batch, one per kernel depth.
 *
 *   Conv:  y[n, :, od] = sum_kd conv2d(x[n, :, od sd + kd dd - pd0], W_kd)
 *
 * x (depth-padded) is transposed to [N, D, C, H, W]; for each kd a strided
 * Slice of the depth axis takes the D_out planes that tap kd reads, folded
 * into the batch ([N D_out, C, H, W]), and one 2-D Conv with W[:, :, kd]
 * gives [N D_out, O, H_out, W_out]; the KD results are added, unfolded and
 * transposed back to [N, O, D_out, H_out, W_out].
 *
 *   ConvTranspose: input plane id, tap kd lands on output depth
 *   id sd + kd dd - pd0
 *
 * for each kd one 2-D ConvTranspose of every plane ([N D, C, H, W], W[:, :,
 * kd]) is spread along the depth with sd - 1 zero planes between planes
 * (PAD of a [N, D, 1, F] view), shifted by kd dd (PAD), the KD results
 * added, the depth cropped by the pads, the bias added once.
 *
 * KD 2-D convolutions of a D_out (D) times larger batch do the multiply-
 * adds of the 3-D one; the weights must be constants (each kd's slice is
 * one). Every 2-D node is then legalized as usual.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

/* Bound of strides, dilations and pads: dim x attribute stays in 2^62. */
#define C3_MAX_ATTR	65536

struct c3 {
	struct ir_graph *g;
	struct ir_node *n;
	struct lz_builder b;
	int64_t st[3], dl[3], pads[6], op[3], grp;
	int64_t x[5], w[5];		/* input and weight dims */
};

static int c3_err(struct c3 *c, const char *msg)
{
	return ir_error(c->g, "node '%s' (%s, 3-D): %s", c->n->name,
			ir_op_name(c->n->op), msg);
}

/* Attribute @name of @cnt entries, or @def for each when absent. */
static int c3_ints(const struct ir_node *n, const char *name, int cnt,
		   int64_t def, int64_t *v)
{
	const int64_t *a;
	int k = ir_attr_ints(n, name, &a);

	if (!k) {
		for (int i = 0; i < cnt; i++)
			v[i] = def;
		return 0;
	}
	if (k != cnt)
		return -EINVAL;
	memcpy(v, a, (size_t)cnt * sizeof(*v));
	return 0;
}

/* W[:, :, kd] as a constant [w0, w1, KH, KW]. */
static struct ir_tensor *c3_wslice(struct c3 *c, const struct ir_tensor *w,
				   int64_t kd)
{
	int64_t d0 = c->w[0], d1 = c->w[1], kdn = c->w[2], hw = c->w[3] * c->w[4];
	struct ir_shape s = { .rank = 4, .dim = { d0, d1, c->w[3], c->w[4] } };
	size_t cnt = (size_t)(d0 * d1 * hw);
	float *v = malloc(cnt * sizeof(*v) + 1);
	struct ir_tensor *t;

	if (!v)
		return NULL;
	for (int64_t i = 0; i < d0 * d1; i++)
		for (int64_t j = 0; j < hw; j++)
			v[i * hw + j] = (float)ir_const_get_f(
				w, (i * kdn + kd) * hw + j);
	t = ir_const_new(c->g, NULL, IR_F32, &s, v, cnt * sizeof(*v));
	free(v);
	return t;
}

/* A 2-D Conv or ConvTranspose of @x with @w, the H and W attributes. */
static struct ir_tensor *c3_conv2d(struct c3 *c, enum ir_op op,
				   struct ir_tensor *x, struct ir_tensor *w)
{
	int64_t st[2] = { c->st[1], c->st[2] }, dl[2] = { c->dl[1], c->dl[2] };
	int64_t pads[4] = { c->pads[1], c->pads[2], c->pads[4], c->pads[5] };
	int64_t op2[2] = { c->op[1], c->op[2] };
	struct ir_tensor *ins[2] = { x, w }, *y;
	struct ir_node *n;

	y = lz_node(&c->b, op, 2, ins, IR_F32, NULL);
	if (!y)
		return NULL;
	n = y->producer;
	if (ir_attr_set_ints(n, "strides", st, 2) ||
	    ir_attr_set_ints(n, "dilations", dl, 2) ||
	    ir_attr_set_ints(n, "pads", pads, 4) ||
	    ir_attr_set_int(n, "group", c->grp) ||
	    (op == IR_OP_CONV_TRANSPOSE &&
	     ir_attr_set_ints(n, "output_padding", op2, 2)))
		return NULL;
	return y;
}

static struct ir_tensor *c3_slice(struct c3 *c, struct ir_tensor *x,
				  int64_t axis, int64_t from, int64_t to,
				  int64_t step)
{
	struct ir_tensor *si[5] = {
		x, lz_i64(c->g, &from, 1), lz_i64(c->g, &to, 1),
		lz_i64(c->g, &axis, 1), lz_i64(c->g, &step, 1),
	};

	return lz_node(&c->b, IR_OP_SLICE, 5, si, IR_F32, NULL);
}

static const int64_t c3_swap[5] = { 0, 2, 1, 3, 4 };	/* C <-> D */

/* Do the output [N, O, D, H, W] (and the folded views) fit 2^62? */
static int c3_out_fits(struct c3 *c, int64_t o, int64_t dout, int64_t ho,
		       int64_t wo)
{
	int64_t v = c->x[0], d = c->x[2] > dout ? c->x[2] : dout;

	if (__builtin_mul_overflow(v, d, &v) ||
	    __builtin_mul_overflow(v, o > c->x[1] ? o : c->x[1], &v) ||
	    __builtin_mul_overflow(v, ho > c->x[3] ? ho : c->x[3], &v) ||
	    __builtin_mul_overflow(v, wo > c->x[4] ? wo : c->x[4], &v) ||
	    v > ((int64_t)1 << 62))
		return c3_err(c, "the output would pass 2^62 elements");
	return 0;
}

/* @acc [N D_out, ...] unfolded to @dims [N, D_out, O, H, W], back to
 * [N, O, D_out, H, W], plus the bias: the output. */
static int c3_finish(struct c3 *c, struct ir_tensor *acc, const int64_t *dims,
		     struct ir_tensor *bias, struct ir_tensor *out)
{
	struct ir_tensor *t = lz_reshape(&c->b, acc, dims, 5, NULL);

	t = lz_transpose(&c->b, t, c3_swap, 5, bias ? NULL : out);
	if (t && bias) {
		int64_t bs[5] = { 1, dims[2], 1, 1, 1 };

		t = lz_binary(&c->b, IR_OP_ADD, t,
			      lz_reshape(&c->b, bias, bs, 5, NULL), out);
	}
	return t ? 1 : -ENOMEM;
}

static int c3_conv(struct c3 *c, struct ir_tensor *x, struct ir_tensor *w,
		   struct ir_tensor *bias, struct ir_tensor *out)
{
	int64_t n = c->x[0], d = c->x[2], kd = c->w[2], o = c->w[0];
	int64_t dp = d + c->pads[0] + c->pads[3], dout, ho, wo;
	int64_t pads[10] = { 0 };
	struct ir_tensor *acc = NULL, *t;

	dout = (dp - c->dl[0] * (kd - 1) - 1) / c->st[0] + 1;
	ho = (c->x[3] + c->pads[1] + c->pads[4] - c->dl[1] * (c->w[3] - 1) - 1) /
	     c->st[1] + 1;
	wo = (c->x[4] + c->pads[2] + c->pads[5] - c->dl[2] * (c->w[4] - 1) - 1) /
	     c->st[2] + 1;
	if (dout < 1 || ho < 1 || wo < 1)
		return c3_err(c, "the output would be empty");
	if (c3_out_fits(c, o, dout, ho, wo))
		return -EINVAL;
	if (c->pads[0] || c->pads[3]) {
		pads[2] = c->pads[0];
		pads[7] = c->pads[3];
		x = lz_binary(&c->b, IR_OP_PAD, x, lz_i64(c->g, pads, 10), NULL);
	}
	x = lz_transpose(&c->b, x, c3_swap, 5, NULL);
	for (int64_t k = 0; k < kd && x; k++) {
		int64_t from = k * c->dl[0];
		int64_t fold[4] = { n * dout, c->x[1], c->x[3], c->x[4] };

		t = c3_slice(c, x, 1, from, from + (dout - 1) * c->st[0] + 1,
			     c->st[0]);
		t = lz_reshape(&c->b, t, fold, 4, NULL);
		t = t ? c3_conv2d(c, IR_OP_CONV, t, c3_wslice(c, w, k)) : NULL;
		acc = acc && t ? lz_binary(&c->b, IR_OP_ADD, acc, t, NULL) : t;
		if (!acc)
			return -ENOMEM;
	}
	return c3_finish(c, acc, (const int64_t[5]){ n, dout, o, ho, wo },
			 bias, out);
}

/* @z [N, D, F] spread to depth id sd + off, [N, full, F]. */
static struct ir_tensor *c3_spread(struct c3 *c, struct ir_tensor *z,
				   int64_t f, int64_t off, int64_t full)
{
	int64_t n = c->x[0], d = c->x[2], sd = c->st[0], len = d * sd;
	int64_t v4[4] = { n, d, 1, f }, v3[3] = { n, len, f }, p[8] = { 0 };
	int64_t p3[6] = { 0 };

	if (sd > 1) {
		z = lz_reshape(&c->b, z, v4, 4, NULL);
		p[6] = sd - 1;
		z = lz_binary(&c->b, IR_OP_PAD, z, lz_i64(c->g, p, 8), NULL);
		z = lz_reshape(&c->b, z, v3, 3, NULL);
	}
	p3[1] = off;
	p3[4] = full - off - len > 0 ? full - off - len : 0;
	if (p3[1] || p3[4])
		z = lz_binary(&c->b, IR_OP_PAD, z, lz_i64(c->g, p3, 6), NULL);
	if (off + len > full)
		z = c3_slice(c, z, 1, 0, full, 1);
	return z;
}

static int c3_convt(struct c3 *c, struct ir_tensor *x, struct ir_tensor *w,
		    struct ir_tensor *bias, struct ir_tensor *out)
{
	int64_t n = c->x[0], d = c->x[2], kd = c->w[2], o = c->w[1] * c->grp;
	int64_t full, dout, ho, wo, f;
	int64_t fold[4] = { n * d, c->x[1], c->x[3], c->x[4] };
	struct ir_tensor *acc = NULL, *t;

	full = (d - 1) * c->st[0] + (kd - 1) * c->dl[0] + 1 + c->op[0];
	dout = full - c->pads[0] - c->pads[3];
	ho = (c->x[3] - 1) * c->st[1] + (c->w[3] - 1) * c->dl[1] + 1 +
	     c->op[1] - c->pads[1] - c->pads[4];
	wo = (c->x[4] - 1) * c->st[2] + (c->w[4] - 1) * c->dl[2] + 1 +
	     c->op[2] - c->pads[2] - c->pads[5];
	if (dout < 1 || ho < 1 || wo < 1)
		return c3_err(c, "the output would be empty");
	if (c3_out_fits(c, o, full, ho, wo))	/* full >= dout */
		return -EINVAL;
	f = o * ho * wo;
	x = lz_transpose(&c->b, x, c3_swap, 5, NULL);
	x = lz_reshape(&c->b, x, fold, 4, NULL);
	for (int64_t k = 0; k < kd && x; k++) {
		int64_t flat[3] = { n, d, f };

		t = c3_conv2d(c, IR_OP_CONV_TRANSPOSE, x, c3_wslice(c, w, k));
		t = lz_reshape(&c->b, t, flat, 3, NULL);
		t = t ? c3_spread(c, t, f, k * c->dl[0], full) : NULL;
		acc = acc && t ? lz_binary(&c->b, IR_OP_ADD, acc, t, NULL) : t;
		if (!acc)
			return -ENOMEM;
	}
	if (c->pads[0] || c->pads[3])
		acc = c3_slice(c, acc, 1, c->pads[0], c->pads[0] + dout, 1);
	return c3_finish(c, acc, (const int64_t[5]){ n, dout, o, ho, wo },
			 bias, out);
}

int shape_legalize_conv3d(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *w = ir_in(n, 1), *b = ir_in(n, 2);
	bool convt = n->op == IR_OP_CONV_TRANSPOSE;
	struct c3 c = { .g = g, .n = n };
	struct ir_tensor *out;

	if (!w || !ir_shape_is_static(&x->shape) || x->dtype != IR_F32 ||
	    !w->shape_known || w->shape.rank != 5 || n->num_outputs != 1)
		return c3_err(&c, "a static f32 input and a 5-D weight are "
			      "supported");
	if (!w->data)
		return c3_err(&c, "the weight must be a constant (known at "
			      "compile time)");
	for (int i = 0; i < 5; i++) {
		c.x[i] = x->shape.dim[i];
		c.w[i] = w->shape.dim[i];
	}
	c.grp = ir_attr_int(n, "group", 1);
	if (c3_ints(n, "strides", 3, 1, c.st) ||
	    c3_ints(n, "dilations", 3, 1, c.dl) ||
	    c3_ints(n, "pads", 6, 0, c.pads) ||
	    c3_ints(n, "output_padding", 3, 0, c.op))
		return c3_err(&c, "strides, dilations and output_padding need "
			      "3 entries, pads 6");
	for (int i = 0; i < 3; i++)
		if (c.st[i] < 1 || c.dl[i] < 1 || c.pads[i] < 0 ||
		    c.pads[i + 3] < 0 || c.op[i] < 0 || c.op[i] >= c.st[i] ||
		    c.st[i] > C3_MAX_ATTR || c.dl[i] > C3_MAX_ATTR ||
		    c.pads[i] > C3_MAX_ATTR || c.pads[i + 3] > C3_MAX_ATTR)
			return c3_err(&c, "strides and dilations must be 1 to "
				      "65536, pads 0 to 65536, output_padding "
				      "below the stride");
	if (!strcmp(ir_attr_str(n, "auto_pad", "NOTSET"), "VALID"))
		memset(c.pads, 0, sizeof(c.pads));
	else if (strcmp(ir_attr_str(n, "auto_pad", "NOTSET"), "NOTSET"))
		return c3_err(&c, "auto_pad SAME_UPPER/SAME_LOWER is not "
			      "supported in 3-D (give the pads)");
	if (ir_attr_find(n, "output_shape"))
		return c3_err(&c, "output_shape is not supported in 3-D (give "
			      "the pads)");
	if (c.grp < 1 || (convt ? c.w[0] != c.x[1] || c.x[1] % c.grp :
			  c.w[1] * c.grp != c.x[1] || c.w[0] % c.grp))
		return c3_err(&c, "the weight's channels do not match the "
			      "input's and the group");
	if (b && (b->shape.rank != 1 ||
		  b->shape.dim[0] != (convt ? c.w[1] * c.grp : c.w[0])))
		return c3_err(&c, "the bias must be [output channels]");
	out = lz_take(&c.b, g, n);
	return convt ? c3_convt(&c, x, w, b, out) : c3_conv(&c, x, w, b, out);
}
