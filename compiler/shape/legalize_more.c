// SPDX-License-Identifier: MIT
/*
 * legalize_more.c - more ONNX ops of issue 18 as decompositions onto ops
 * the device runs (Documentation/compiler-ir.rst lists each one's form):
 *
 *  - DepthToSpace, SpaceToDepth: Reshape, Transpose (one COPY), Reshape;
 *  - InstanceNormalization: LayerNormalization over the spatial dims of
 *    [N, C, S] (the device's LAYERNORM), then the per-channel scale and
 *    bias;
 *  - MeanVarianceNormalization: ONNX's own function body;
 *  - LRN: the square summed over the channel window by an AveragePool
 *    with count_include_pad on [N, 1, C, H*W];
 *  - ArgMax, ArgMin: ReduceMax/Min, then the first (or last) index where
 *    the input equals it, as a ReduceMin (ReduceMax) over an iota;
 *  - GatherElements, GatherND: one Gather on the flattened data with the
 *    flat index computed in int64; an index outside its axis becomes an
 *    index past the end, which the device's GATHER refuses at run time
 *    (DRM_NPU_FAULT_BAD_INDEX) as ONNX Runtime refuses it;
 *  - CumSum: log2(n) shifted adds (Pad + Slice + Add; Hillis-Steele), so
 *    integers are exact and floats differ from a sequential sum only by
 *    rounding.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

static struct ir_tensor *i64s(struct ir_graph *g, int64_t v)
{
	struct ir_shape sh = { 0 };

	return ir_const_new(g, NULL, IR_I64, &sh, &v, 8);
}

static struct ir_tensor *f32s(struct ir_graph *g, float v)
{
	return ir_const_scalar_f32(g, NULL, v);
}

#define ONNX_INT64	7
#define ONNX_FLOAT	1

static int lerr(struct ir_graph *g, const struct ir_node *n, const char *w)
{
	return ir_error(g, "node '%s' (%s): %s", n->name, ir_op_name(n->op),
			w);
}

static int64_t norm_axis(int64_t a, int r)
{
	return a < 0 ? a + r : a;
}

/* --- DepthToSpace, SpaceToDepth ------------------------------------------ */

static int legalize_d2s_s2d(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *t;
	const struct ir_shape *s = &x->shape;
	int64_t bs = ir_attr_int(n, "blocksize", 0), d6[6], p[6], d4[4];
	bool d2s = n->op == IR_OP_DEPTH_TO_SPACE;
	bool crd = d2s && !strcmp(ir_attr_str(n, "mode", "DCR"), "CRD");
	int64_t nn, c, h, w;
	struct lz_builder b;

	if (s->rank != 4 || !ir_shape_is_static(s))
		return lerr(g, n, "needs a static 4-D input");
	nn = s->dim[0];
	c = s->dim[1];
	h = s->dim[2];
	w = s->dim[3];
	if (bs < 1 || bs > 4096 ||
	    (d2s ? c % (bs * bs) : h % bs || w % bs))
		return lerr(g, n, "blocksize does not divide the input");
	out = lz_take(&b, g, n);
	if (d2s) {
		int64_t cc = c / (bs * bs);
		int64_t dcr[6] = { nn, bs, bs, cc, h, w };
		int64_t crdv[6] = { nn, cc, bs, bs, h, w };
		int64_t pd[6] = { 0, 3, 4, 1, 5, 2 }, pc[6] = { 0, 1, 4, 2, 5, 3 };

		memcpy(d6, crd ? crdv : dcr, sizeof(d6));
		memcpy(p, crd ? pc : pd, sizeof(p));
		d4[0] = nn;
		d4[1] = cc;
		d4[2] = h * bs;
		d4[3] = w * bs;
	} else {
		int64_t v[6] = { nn, c, h / bs, bs, w / bs, bs };
		int64_t pv[6] = { 0, 3, 5, 1, 2, 4 };

		memcpy(d6, v, sizeof(d6));
		memcpy(p, pv, sizeof(p));
		d4[0] = nn;
		d4[1] = c * bs * bs;
		d4[2] = h / bs;
		d4[3] = w / bs;
	}
	t = lz_reshape(&b, x, d6, 6, NULL);
	t = lz_transpose(&b, t, p, 6, NULL);
	return lz_reshape(&b, t, d4, 4, out) ? 1 : -ENOMEM;
}

/* --- InstanceNormalization, MeanVarianceNormalization, LRN --------------- */

static int legalize_instance_norm(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *sc = n->inputs[1];
	struct ir_tensor *bi = n->inputs[2], *out, *t, *ones, *ins[2];
	const struct ir_shape *s = &x->shape;
	float eps = ir_attr_float(n, "epsilon", 1e-5f);
	int64_t d3[3], cs[IR_MAX_RANK], sp = 1, i;
	struct ir_shape os = { 0 };
	float *one;
	struct lz_builder b;

	if (x->dtype != IR_F32)
		return lerr(g, n, "dtype is not supported (f32 only)");
	if (s->rank < 3 || !ir_shape_is_static(s))
		return lerr(g, n, "needs a static input of rank >= 3");
	for (i = 2; i < s->rank; i++)
		sp *= s->dim[i];
	if (sp < 1 || sp > (1 << 24))
		return lerr(g, n, "spatial size is not supported");
	d3[0] = s->dim[0];
	d3[1] = s->dim[1];
	d3[2] = sp;
	one = malloc((size_t)sp * 4);
	if (!one)
		return -ENOMEM;
	for (i = 0; i < sp; i++)
		one[i] = 1.0f;
	os.rank = 1;
	os.dim[0] = sp;
	ones = ir_const_new(g, NULL, IR_F32, &os, one, (size_t)sp * 4);
	free(one);
	out = lz_take(&b, g, n);
	t = lz_reshape(&b, x, d3, 3, NULL);
	ins[0] = t;
	ins[1] = ones;
	t = lz_node(&b, IR_OP_LAYER_NORM, 2, ins, IR_F32, NULL);
	if (!t || ir_attr_set_int(t->producer, "axis", 2) ||
	    ir_attr_set_float(t->producer, "epsilon", eps))
		return -ENOMEM;
	t->producer->opset = 17;
	/* scale and bias per channel: [C] -> [C, 1] */
	cs[0] = s->dim[1];
	cs[1] = 1;
	t = lz_binary(&b, IR_OP_MUL, t, lz_reshape(&b, sc, cs, 2, NULL), NULL);
	t = lz_binary(&b, IR_OP_ADD, t, lz_reshape(&b, bi, cs, 2, NULL), NULL);
	return lz_reshape(&b, t, s->dim, s->rank, out) ? 1 : -ENOMEM;
}

/* ONNX's function body: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9). */
static int legalize_mvn(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *m, *m2, *v;
	int64_t axes[IR_MAX_RANK] = { 0, 2, 3 }, na = 3;
	const struct ir_attr *a = ir_attr_find(n, "axes");
	int r = x->shape.rank, i;
	struct lz_builder b;

	if (x->dtype != IR_F32)
		return lerr(g, n, "dtype is not supported (f32 only)");
	if (a) {
		if (a->type != IR_ATTR_INTS || a->n < 1 || a->n > r)
			return lerr(g, n, "bad axes");
		na = a->n;
		for (i = 0; i < na; i++)
			axes[i] = norm_axis(a->ints[i], r);
	}
	for (i = 0; i < na; i++)
		if (axes[i] < 0 || axes[i] >= r)
			return lerr(g, n, "axes out of range");
	out = lz_take(&b, g, n);
	m = lz_reduce(&b, IR_OP_REDUCE_MEAN, x, axes, (int)na, 1, NULL);
	m2 = lz_reduce(&b, IR_OP_REDUCE_MEAN, lz_binary(&b, IR_OP_MUL, x, x, NULL),
		    axes, (int)na, 1, NULL);
	v = lz_binary(&b, IR_OP_SUB, m2, lz_binary(&b, IR_OP_MUL, m, m, NULL), NULL);
	v = lz_binary(&b, IR_OP_ADD, lz_unary(&b, IR_OP_SQRT, v, NULL),
		f32s(g, 1e-9f), NULL);
	return lz_binary(&b, IR_OP_DIV, lz_binary(&b, IR_OP_SUB, x, m, NULL), v, out) ?
	       1 : -ENOMEM;
}

/*
 * LRN: y = x / (bias + alpha / size * sum over the window of x^2)^beta,
 * the window [c - floor((size-1)/2), c + ceil((size-1)/2)] of channels.
 */
static int legalize_lrn(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *t;
	const struct ir_shape *s = &x->shape;
	int64_t size = ir_attr_int(n, "size", 0), sp = 1, d4[4], k[2], pads[4];
	float alpha = ir_attr_float(n, "alpha", 1e-4f);
	float beta = ir_attr_float(n, "beta", 0.75f);
	float bias = ir_attr_float(n, "bias", 1.0f);
	int i;
	struct lz_builder b;

	if (x->dtype != IR_F32)
		return lerr(g, n, "dtype is not supported (f32 only)");
	if (s->rank < 3 || !ir_shape_is_static(s))
		return lerr(g, n, "needs a static input of rank >= 3");
	if (size < 1 || size > 4096)
		return lerr(g, n, "size out of range");
	for (i = 2; i < s->rank; i++)
		sp *= s->dim[i];
	d4[0] = s->dim[0];
	d4[1] = 1;
	d4[2] = s->dim[1];
	d4[3] = sp;
	k[0] = size;
	k[1] = 1;
	pads[0] = (size - 1) / 2;
	pads[1] = 0;
	pads[2] = size - 1 - (size - 1) / 2;
	pads[3] = 0;
	out = lz_take(&b, g, n);
	t = lz_reshape(&b, lz_binary(&b, IR_OP_MUL, x, x, NULL), d4, 4, NULL);
	t = lz_unary(&b, IR_OP_AVERAGE_POOL, t, NULL);
	if (!t || ir_attr_set_ints(t->producer, "kernel_shape", k, 2) ||
	    ir_attr_set_ints(t->producer, "pads", pads, 4) ||
	    ir_attr_set_int(t->producer, "count_include_pad", 1))
		return -ENOMEM;
	t = lz_reshape(&b, t, s->dim, s->rank, NULL);
	/* alpha / size * sum = alpha * mean */
	t = lz_binary(&b, IR_OP_ADD, lz_binary(&b, IR_OP_MUL, t, f32s(g, alpha), NULL),
		f32s(g, bias), NULL);
	t = lz_binary(&b, IR_OP_POW, t, f32s(g, beta), NULL);
	return lz_binary(&b, IR_OP_DIV, x, t, out) ? 1 : -ENOMEM;
}

/* --- ArgMax, ArgMin ------------------------------------------------------- */

/* A float constant 0 .. n-1 along @axis of a rank-@r shape of 1s. */
static struct ir_tensor *iota_f(struct ir_graph *g, int64_t cnt, int r,
				int axis)
{
	struct ir_shape s = { .rank = r };
	struct ir_tensor *t;
	float *v;
	int64_t i;

	for (i = 0; i < r; i++)
		s.dim[i] = 1;
	s.dim[axis] = cnt;
	v = malloc((size_t)(cnt ? cnt : 1) * 4);
	if (!v)
		return NULL;
	for (i = 0; i < cnt; i++)
		v[i] = (float)i;
	t = ir_const_new(g, NULL, IR_F32, &s, v, (size_t)cnt * 4);
	free(v);
	return t;
}

static int legalize_arg(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *m, *t, *io;
	bool amax = n->op == IR_OP_ARG_MAX;
	int r = x->shape.rank;
	int64_t axis = norm_axis(ir_attr_int(n, "axis", 0), r);
	bool keep = ir_attr_int(n, "keepdims", 1) != 0;
	bool last = ir_attr_int(n, "select_last_index", 0) != 0;
	int64_t cnt;
	struct lz_builder b;

	if (x->dtype != IR_F32 && x->dtype != IR_I32 && x->dtype != IR_I64)
		return lerr(g, n, "dtype is not supported (f32, i32, i64)");
	if (axis < 0 || axis >= r || !ir_shape_is_static(&x->shape))
		return lerr(g, n, "axis out of range or shape not static");
	cnt = x->shape.dim[axis];
	if (cnt < 1 || cnt > (1 << 24))
		return lerr(g, n, "the axis must hold 1 .. 2^24 elements");
	io = iota_f(g, cnt, r, (int)axis);
	if (!io)
		return -ENOMEM;
	out = lz_take(&b, g, n);
	m = lz_reduce(&b, amax ? IR_OP_REDUCE_MAX : IR_OP_REDUCE_MIN, x, &axis,
		   1, 1, NULL);
	/* the first (last) index where x equals the extreme */
	t = lz_where(&b, lz_binary(&b, IR_OP_EQUAL, x, m, NULL), io,
		     f32s(g, last ? -1.0f : (float)cnt), NULL);
	t = lz_reduce(&b, last ? IR_OP_REDUCE_MAX : IR_OP_REDUCE_MIN, t, &axis,
		   1, keep, NULL);
	if (!t)
		return -ENOMEM;
	t = lz_node(&b, IR_OP_CAST, 1, &t, IR_I64, out);
	if (!t || ir_attr_set_int(t->producer, "to", ONNX_INT64))
		return -ENOMEM;
	return 1;
}

/* --- GatherElements, GatherND --------------------------------------------- */

/* idx (i64) + dim where negative; an index outside [0, dim) -> @bad. */
static struct ir_tensor *checked_index(struct lz_builder *b, struct ir_tensor *idx,
				       struct ir_tensor *dim, int64_t bad)
{
	struct ir_graph *g = b->g;
	struct ir_tensor *t, *ok;

	t = lz_where(b, lz_binary(b, IR_OP_LESS, idx, i64s(g, 0), NULL),
		     lz_binary(b, IR_OP_ADD, idx, dim, NULL), idx, NULL);
	ok = lz_binary(b, IR_OP_AND,
		 lz_binary(b, IR_OP_GREATER_OR_EQUAL, t, i64s(g, 0), NULL),
		 lz_binary(b, IR_OP_LESS, t, dim, NULL), NULL);
	return lz_where(b, ok, t, i64s(g, bad), NULL);
}

static int legalize_gather_elements(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *ix = n->inputs[1], *out, *t;
	const struct ir_shape *xs = &x->shape, *is = &ix->shape;
	int r = xs->rank, i;
	int64_t axis = norm_axis(ir_attr_int(n, "axis", 0), r);
	int64_t st[IR_MAX_RANK], total = 1, cnt, k, flat;
	struct ir_tensor *base;
	int64_t *bv;
	struct lz_builder b;

	if (ix->dtype != IR_I64 && ix->dtype != IR_I32)
		return lerr(g, n, "indices must be int32 or int64");
	if (axis < 0 || axis >= r || is->rank != r ||
	    !ir_shape_is_static(xs) || !ir_shape_is_static(is))
		return lerr(g, n, "needs static shapes of one rank and an "
			    "axis in range");
	for (i = r - 1; i >= 0; i--) {
		st[i] = total;
		total *= xs->dim[i];
		if (i != axis && is->dim[i] > xs->dim[i])
			return lerr(g, n, "indices larger than the data "
				    "outside the axis");
	}
	cnt = ir_shape_numel(is);
	if (total < 1 || total > ((int64_t)1 << 40) || cnt > (1 << 26))
		return lerr(g, n, "sizes are not supported");
	/* the flat offset of every coordinate but the axis: a constant */
	bv = malloc((size_t)(cnt ? cnt : 1) * 8);
	if (!bv)
		return -ENOMEM;
	for (k = 0; k < cnt; k++) {
		int64_t rem = k;

		flat = 0;
		for (i = r - 1; i >= 0; i--) {
			int64_t c = rem % is->dim[i];

			rem /= is->dim[i];
			if (i != axis)
				flat += c * st[i];
		}
		bv[k] = flat;
	}
	base = ir_const_new(g, NULL, IR_I64, is, bv, (size_t)cnt * 8);
	free(bv);
	if (!base)
		return -ENOMEM;
	out = lz_take(&b, g, n);
	t = lz_cast(&b, ix, IR_I64, ONNX_INT64, NULL);
	t = checked_index(&b, t, i64s(g, xs->dim[axis]), total);
	t = lz_binary(&b, IR_OP_ADD, lz_binary(&b, IR_OP_MUL, t, i64s(g, st[axis]), NULL),
		base, NULL);
	{
		struct ir_tensor *ins[2] = { lz_reshape(&b, x, &total, 1, NULL),
					     t };

		t = lz_node(&b, IR_OP_GATHER, 2, ins, x->dtype, out);
	}
	if (!t || ir_attr_set_int(t->producer, "axis", 0))
		return -ENOMEM;
	return 1;
}

/*
 * The flat row of each index tuple's batch: with batch_dims @nb, tuple
 * [b_0 .. b_{nb-1}, i ...] reads from batch (b_0 .. b_{nb-1}), whose rows
 * start at its flat batch number times @lead.  A constant of the indices'
 * shape less the last dim.
 */
static struct ir_tensor *gather_nd_base(struct ir_graph *g,
					const struct ir_shape *is, int nb,
					int64_t lead)
{
	struct ir_shape bs = { .rank = is->rank - 1 };
	int64_t cnt = 1, k, inner = 1, *bv;
	struct ir_tensor *t;
	int i;

	for (i = 0; i < bs.rank; i++) {
		bs.dim[i] = is->dim[i];
		cnt *= is->dim[i];
		if (i >= nb)
			inner *= is->dim[i];
	}
	bv = malloc((size_t)(cnt ? cnt : 1) * 8);
	if (!bv)
		return NULL;
	for (k = 0; k < cnt; k++)
		bv[k] = (k / inner) * lead;
	t = ir_const_new(g, NULL, IR_I64, &bs, bv, (size_t)cnt * 8);
	free(bv);
	return t;
}

static int legalize_gather_nd(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *ix = n->inputs[1], *out, *t;
	const struct ir_shape *xs = &x->shape, *is = &ix->shape;
	int64_t kk, st[IR_MAX_RANK], lead = 1, nbatch = 1, d[IR_MAX_RANK];
	int64_t nb = ir_attr_int(n, "batch_dims", 0);
	int i, q = is->rank;
	struct lz_builder b;

	if (ix->dtype != IR_I64 && ix->dtype != IR_I32)
		return lerr(g, n, "indices must be int64 or int32");
	if (q < 1 || !ir_shape_is_static(xs) || !ir_shape_is_static(is))
		return lerr(g, n, "needs static shapes");
	if (nb < 0 || nb >= q || nb >= xs->rank)
		return lerr(g, n, "batch_dims must be below the ranks of data "
			    "and indices");
	for (i = 0; i < nb; i++) {
		if (xs->dim[i] != is->dim[i])
			return lerr(g, n, "the batch dims of data and indices "
				    "differ");
		nbatch *= xs->dim[i];
	}
	kk = is->dim[q - 1];
	if (kk < 1 || kk > xs->rank - nb)
		return lerr(g, n, "indices' last dim must be 1 .. data rank "
			    "less batch_dims");
	for (i = (int)(nb + kk) - 1; i >= nb; i--) {
		st[i] = lead;
		lead *= xs->dim[i];
	}
	if (lead < 1 || nbatch < 1)
		return lerr(g, n, "empty data");
	if (ir_shape_numel(is) > (1 << 26))
		return lerr(g, n, "sizes are not supported");
	out = lz_take(&b, g, n);
	/* flat = sum_j checked(indices[..., j]) * stride_j (+ the batch's) */
	t = NULL;
	for (i = 0; i < kk; i++) {
		int64_t s0 = i, e0 = i + 1, ax = q - 1;
		struct ir_tensor *si[4] = { lz_cast(&b, ix, IR_I64, ONNX_INT64, NULL),
					    lz_i64(g, &s0, 1),
					    lz_i64(g, &e0, 1),
					    lz_i64(g, &ax, 1) }, *c;

		c = lz_node(&b, IR_OP_SLICE, 4, si, IR_I64, NULL);
		/* a bad index of any batch stays past the whole table */
		c = checked_index(&b, c, i64s(g, xs->dim[nb + i]),
				  nbatch * lead);
		c = lz_binary(&b, IR_OP_MUL, c, i64s(g, st[nb + i]), NULL);
		t = t ? lz_binary(&b, IR_OP_ADD, t, c, NULL) : c;
	}
	/* drop the last dim of 1: [..., 1] -> [...] */
	for (i = 0; i < q - 1; i++)
		d[i] = is->dim[i];
	t = q > 1 ? lz_reshape(&b, t, d, q - 1, NULL) :
		    lz_reshape(&b, t, NULL, 0, NULL);
	if (nb)
		t = lz_binary(&b, IR_OP_ADD, t, gather_nd_base(g, is, (int)nb,
							       lead), NULL);
	d[0] = nbatch * lead;
	for (i = (int)(nb + kk); i < xs->rank; i++)
		d[1 + i - nb - kk] = xs->dim[i];
	{
		struct ir_tensor *ins[2] = {
			lz_reshape(&b, x, d, 1 + xs->rank - (int)(nb + kk),
				   NULL), t };

		t = lz_node(&b, IR_OP_GATHER, 2, ins, x->dtype, out);
	}
	if (!t || ir_attr_set_int(t->producer, "axis", 0))
		return -ENOMEM;
	return 1;
}

/* --- CumSum --------------------------------------------------------------- */

/*
 * @y moved @k places along @axis (of @len) towards the end, or towards
 * the start when @rev, zeros coming in: Pad + Slice.
 */
static struct ir_tensor *shift(struct lz_builder *b, struct ir_tensor *y, int r,
			       int64_t axis, int64_t len, int64_t k, bool rev)
{
	int64_t pads[2 * IR_MAX_RANK] = { 0 };
	int64_t s0 = rev ? k : 0, e0 = rev ? len + k : len;
	struct ir_tensor *si[4];

	pads[rev ? r + axis : axis] = k;
	si[0] = lz_binary(b, IR_OP_PAD, y, lz_i64(b->g, pads, 2 * r), NULL);
	si[1] = lz_i64(b->g, &s0, 1);
	si[2] = lz_i64(b->g, &e0, 1);
	si[3] = lz_i64(b->g, &axis, 1);
	return y ? lz_node(b, IR_OP_SLICE, 4, si, y->dtype, NULL) : NULL;
}

static int legalize_cumsum(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *ax = n->inputs[1], *out, *t;
	const struct ir_shape *s = &x->shape;
	bool excl = ir_attr_int(n, "exclusive", 0) != 0;
	bool rev = ir_attr_int(n, "reverse", 0) != 0;
	int r = s->rank;
	int64_t axis, len, sh;
	struct lz_builder b;

	if (!ax->data || ir_tensor_numel(ax) != 1)
		return lerr(g, n, "an axis computed at run time is not "
			    "supported (axis must be a constant)");
	if (x->dtype != IR_F32 && x->dtype != IR_I32 && x->dtype != IR_I64)
		return lerr(g, n, "dtype is not supported (f32, i32, i64)");
	axis = norm_axis(ir_const_get_i(ax, 0), r);
	if (axis < 0 || axis >= r || !ir_shape_is_static(s))
		return lerr(g, n, "axis out of range or shape not static");
	len = s->dim[axis];
	out = lz_take(&b, g, n);
	/* exclusive: the inclusive sum of the input shifted by one */
	t = excl ? shift(&b, x, r, axis, len, 1, rev) : x;
	for (sh = 1; t && sh < len; sh *= 2)
		t = lz_binary(&b, IR_OP_ADD, t, shift(&b, t, r, axis, len, sh, rev),
			NULL);
	return lz_unary(&b, IR_OP_IDENTITY, t, out) ? 1 : -ENOMEM;
}

int shape_legalize_more(struct ir_graph *g, struct ir_node *n)
{
	switch (n->op) {
	case IR_OP_DEPTH_TO_SPACE: case IR_OP_SPACE_TO_DEPTH:
		return legalize_d2s_s2d(g, n);
	case IR_OP_INSTANCE_NORM: return legalize_instance_norm(g, n);
	case IR_OP_MVN: return legalize_mvn(g, n);
	case IR_OP_LRN: return legalize_lrn(g, n);
	case IR_OP_ARG_MAX: case IR_OP_ARG_MIN: return legalize_arg(g, n);
	case IR_OP_GATHER_ELEMENTS: return legalize_gather_elements(g, n);
	case IR_OP_GATHER_ND: return legalize_gather_nd(g, n);
	case IR_OP_CUM_SUM: return legalize_cumsum(g, n);
	default: return 0;
	}
}
