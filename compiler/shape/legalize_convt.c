// SPDX-License-Identifier: MIT
/*
 * legalize_convt.c - ConvTranspose (1-D and 2-D) as a Conv over the
 * zero-stuffed input.
 *
 * A transposed convolution with stride s, dilation d, kernel k and pads
 * (pb, pe) equals a stride-1 convolution with the kernel flipped in space
 * and its two channel axes swapped per group, over the input with s - 1
 * zeros between neighbours, padded by d * (k - 1) - pb before and
 * d * (k - 1) - pe + output_padding after (a negative pad crops). The
 * zeros are stuffed by the device's PAD: the input [N, C, H, W] is viewed
 * as [N, C, H, 1, W, 1], padded to [N, C, H, s, W, s] and viewed as
 * [N, C, H*s, W*s] (the s - 1 trailing zeros of each axis are taken off
 * the after-pad). The flipped kernel is a constant made here, so the
 * weight must be a constant (as in every exported model).
 *
 * Cost: the convolution multiplies the stuffed zeros too, s^2 times the
 * multiply-adds of a direct transposed convolution (4x for the stride-2
 * upsampling of a UNet); the PAD task writes s^2 times the input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"

struct ct {
	struct ir_graph *g;
	const char *base;
	int k;
};

static struct ir_tensor *ct_node(struct ct *c, enum ir_op op, int nin,
				 struct ir_tensor **ins, struct ir_tensor *out)
{
	char name[300];
	struct ir_node *n;
	int i;

	for (i = 0; i < nin; i++)
		if (!ins[i])
			return NULL;
	if (!out)
		out = ir_tensor_new(c->g, NULL, ins[0]->dtype, NULL);
	if (!out)
		return NULL;
	snprintf(name, sizeof(name), "%.250s/%s_%d", c->base, ir_op_name(op),
		 c->k++);
	n = ir_node_new(c->g, op, name, nin, ins, 1, &out);
	if (!n)
		return NULL;
	n->opset = 13;
	return out;
}

static struct ir_tensor *i64s(struct ir_graph *g, const int64_t *v, int n)
{
	struct ir_shape sh = { .rank = 1, .dim = { n } };

	return ir_const_new(g, NULL, IR_I64, &sh, v, (size_t)n * 8);
}

static int ct_err(struct ir_graph *g, const struct ir_node *n,
		  const char *what)
{
	return ir_error(g, "node '%s' (ConvTranspose): %s", n->name, what);
}

/* Attribute @name with @nsp entries, or @def for each when absent. */
static int ct_ints(const struct ir_node *n, const char *name, int nsp,
		   int64_t def, int64_t *v)
{
	const struct ir_attr *a = ir_attr_find(n, name);
	int i;

	if (!a) {
		for (i = 0; i < nsp; i++)
			v[i] = def;
		return 0;
	}
	if (a->type != IR_ATTR_INTS || a->n != nsp)
		return -EINVAL;
	memcpy(v, a->ints, (size_t)nsp * sizeof(*v));
	return 0;
}

/* The flipped, channel-swapped kernel [M, C/g, k...] of W [C, M/g, k...]. */
static struct ir_tensor *flip_weight(struct ir_graph *g,
				     const struct ir_tensor *w, int64_t grp)
{
	const struct ir_shape *s = &w->shape;
	int64_t cin = s->dim[0], mg = s->dim[1], cg = cin / grp;
	int64_t kh = s->dim[2], kw = s->rank == 4 ? s->dim[3] : 1;
	int64_t kk = kh * kw, total = cin * mg * kk, gi, m, ci, i, j;
	struct ir_shape os = *s;
	struct ir_tensor *t;
	float *dst;

	os.dim[0] = mg * grp;
	os.dim[1] = cg;
	dst = malloc((size_t)(total ? total : 1) * sizeof(float));
	if (!dst)
		return NULL;
	for (gi = 0; gi < grp; gi++)
		for (m = 0; m < mg; m++)
			for (ci = 0; ci < cg; ci++)
				for (i = 0; i < kh; i++)
					for (j = 0; j < kw; j++) {
						int64_t src = (((gi * cg + ci) *
							mg + m) * kh +
							(kh - 1 - i)) * kw +
							(kw - 1 - j);
						int64_t d = (((gi * mg + m) *
							cg + ci) * kh + i) *
							kw + j;

						dst[d] = (float)ir_const_get_f(
							w, src);
					}
	t = ir_const_new(g, NULL, IR_F32, &os, dst,
			 (size_t)total * sizeof(float));
	free(dst);
	return t;
}

int shape_legalize_conv_transpose(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *w = ir_in(n, 1), *b = ir_in(n, 2);
	struct ir_tensor *out = n->outputs[0], *t, *ins[3];
	int64_t st[2], dl[2], op[2], pads[4], ks[2], osh[2], grp;
	int64_t pb[2], pe[2], inn[2], cpads[4];
	int64_t sl_st[2], sl_en[2], sl_ax[2];
	const char *ap = ir_attr_str(n, "auto_pad", "NOTSET");
	int r = x->shape.rank, nsp = r - 2, i, nsl = 0;
	bool stuff = false, has_os = ir_attr_find(n, "output_shape") != NULL;
	struct ct c = { .g = g, .base = n->name };
	struct ir_node *cv;
	struct ir_shape s6;
	char base[256];

	if (!x->shape_known || !w || !w->shape_known)
		return 0;
	if (r != 3 && r != 4)
		return ct_err(g, n, "only 1-D and 2-D inputs are supported");
	if (x->dtype != IR_F32)
		return ct_err(g, n, "dtype is not supported (f32 only)");
	if (!w->data)
		return ct_err(g, n, "a weight computed at run time is not "
			      "supported (the weight must be a constant)");
	if (!ir_shape_is_static(&x->shape))
		return ct_err(g, n, "needs a static input shape");
	grp = ir_attr_int(n, "group", 1);
	if (w->shape.rank != r || grp < 1 || w->shape.dim[0] != x->shape.dim[1]
	    || w->shape.dim[0] % grp)
		return ct_err(g, n, "weight shape does not match the input");
	if (ct_ints(n, "strides", nsp, 1, st) ||
	    ct_ints(n, "dilations", nsp, 1, dl) ||
	    ct_ints(n, "output_padding", nsp, 0, op) ||
	    ct_ints(n, "kernel_shape", nsp, 0, ks) ||
	    ct_ints(n, "pads", 2 * nsp, 0, pads) ||
	    (has_os && ct_ints(n, "output_shape", nsp, 0, osh)))
		return ct_err(g, n, "attributes do not fit the input rank");
	for (i = 0; i < nsp; i++) {
		int64_t k = w->shape.dim[2 + i], span, full, total, half;

		if (ks[i] && ks[i] != k)
			return ct_err(g, n, "kernel_shape differs from the "
				      "weight");
		if (st[i] < 1 || dl[i] < 1 || op[i] < 0 || k < 1 ||
		    st[i] > 4096 || dl[i] > 4096 || op[i] >= 4096)
			return ct_err(g, n, "strides, dilations or "
				      "output_padding out of range");
		inn[i] = x->shape.dim[2 + i];
		span = dl[i] * (k - 1) + 1;
		full = st[i] * (inn[i] - 1) + op[i] + span;
		pb[i] = pads[i];
		pe[i] = pads[i + nsp];
		if (has_os || strcmp(ap, "NOTSET")) {
			total = has_os ? full - osh[i] :
				full - inn[i] * st[i];
			if (!has_os && strcmp(ap, "SAME_UPPER") &&
			    strcmp(ap, "SAME_LOWER"))
				return ct_err(g, n, "auto_pad VALID with "
					      "pads is not supported");
			/*
			 * ONNX: SAME_UPPER puts the odd pad at the end, the
			 * others at the start; halves round toward -inf (a
			 * negative total, from an output_shape larger than
			 * the natural one, extends the output).
			 */
			half = total >= 0 ? total / 2 : -((-total + 1) / 2);
			if (!strcmp(ap, "SAME_UPPER")) {
				pb[i] = half;
				pe[i] = total - half;
			} else {
				pb[i] = total - half;
				pe[i] = half;
			}
		}
		if (inn[i] < 1 || full - pb[i] - pe[i] < 1)
			return ct_err(g, n, "empty input or output");
		if (st[i] > 1)
			stuff = true;
		/* pads of the stuffed input [in * s]: */
		cpads[i] = dl[i] * (k - 1) - pb[i];
		cpads[i + nsp] = dl[i] * (k - 1) - pe[i] + op[i] -
				 (st[i] - 1);
	}
	if (!strcmp(ap, "VALID") && !has_os) {
		/* VALID: no padding at all */
		for (i = 0; i < nsp; i++) {
			int64_t k = w->shape.dim[2 + i];

			cpads[i] = dl[i] * (k - 1);
			cpads[i + nsp] = dl[i] * (k - 1) + op[i] -
					 (st[i] - 1);
		}
	}
	snprintf(base, sizeof(base), "%.250s", n->name);
	c.base = base;
	ins[0] = flip_weight(g, w, grp);
	if (!ins[0])
		return -ENOMEM;
	w = ins[0];
	ir_node_remove(g, n);
	t = x;
	if (stuff) {
		int64_t p6[12] = { 0 };

		s6.rank = 2 + 2 * nsp;
		s6.dim[0] = x->shape.dim[0];
		s6.dim[1] = x->shape.dim[1];
		for (i = 0; i < nsp; i++) {
			s6.dim[2 + 2 * i] = inn[i];
			s6.dim[3 + 2 * i] = 1;
			p6[s6.rank + 3 + 2 * i] = st[i] - 1;
		}
		ins[0] = t;
		ins[1] = i64s(g, s6.dim, s6.rank);
		t = ct_node(&c, IR_OP_RESHAPE, 2, ins, NULL);
		ins[0] = t;
		ins[1] = i64s(g, p6, 2 * s6.rank);
		t = ct_node(&c, IR_OP_PAD, 2, ins, NULL);
		s6.rank = r;
		for (i = 0; i < nsp; i++)
			s6.dim[2 + i] = inn[i] * st[i];
		ins[0] = t;
		ins[1] = i64s(g, s6.dim, r);
		t = ct_node(&c, IR_OP_RESHAPE, 2, ins, NULL);
	}
	/* negative pads crop the stuffed input */
	for (i = 0; i < nsp; i++) {
		int64_t len = inn[i] * st[i];

		if (cpads[i] >= 0 && cpads[i + nsp] >= 0)
			continue;
		sl_ax[nsl] = 2 + i;
		sl_st[nsl] = cpads[i] < 0 ? -cpads[i] : 0;
		sl_en[nsl] = cpads[i + nsp] < 0 ? len + cpads[i + nsp] : len;
		if (sl_en[nsl] <= sl_st[nsl])
			return ct_err(g, n, "pads crop the whole input");
		if (cpads[i] < 0)
			cpads[i] = 0;
		if (cpads[i + nsp] < 0)
			cpads[i + nsp] = 0;
		nsl++;
	}
	if (nsl) {
		struct ir_tensor *si[4] = { t, i64s(g, sl_st, nsl),
					    i64s(g, sl_en, nsl),
					    i64s(g, sl_ax, nsl) };

		t = ct_node(&c, IR_OP_SLICE, 4, si, NULL);
	}
	ins[0] = t;
	ins[1] = w;
	ins[2] = b;
	t = ct_node(&c, IR_OP_CONV, b ? 3 : 2, ins, out);
	if (!t)
		return -ENOMEM;
	cv = t->producer;
	if (ir_attr_set_int(cv, "group", grp) ||
	    ir_attr_set_ints(cv, "dilations", dl, nsp) ||
	    ir_attr_set_ints(cv, "pads", cpads, 2 * nsp))
		return -ENOMEM;
	return 1;
}
