// SPDX-License-Identifier: MIT
/*
 * legalize_gen.c - small ONNX ops whose result is generated from
 * constants, or that are another op under an old name:
 *
 *  - EyeLike: a constant of the input's static shape (ones on diagonal k);
 *  - HannWindow, HammingWindow, BlackmanWindow (constant size): the
 *    window's formula on a constant iota with Cos (the device's MATH), so
 *    constant folding computes it with the device's own cosine;
 *  - Upsample (opset 7-9): Resize with the asymmetric transform (and
 *    floor rounding for nearest), which is what Upsample defines;
 *  - Compress with a constant condition: a Gather of the selected indices
 *    (a computed condition gives a data-dependent shape: refused);
 *  - ReverseSequence (constant lengths): GatherElements along time;
 *  - MaxUnpool: ScatterElements of the values into flattened zeros.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

static int gerr(struct ir_graph *g, const struct ir_node *n, const char *w)
{
	return ir_error(g, "node '%s' (%s): %s", n->name, ir_op_name(n->op),
			w);
}

/* ONNX TensorProto data types -> IR dtypes (0 if not a device dtype). */
static enum ir_dtype onnx_dt(int64_t t)
{
	switch (t) {
	case 1: return IR_F32;
	case 2: return IR_U8;
	case 3: return IR_I8;
	case 6: return IR_I32;
	case 7: return IR_I64;
	case 9: return IR_BOOL;
	case 10: return IR_F16;
	default: return IR_DTYPE_INVALID;
	}
}

static int legalize_eye_like(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_tensor *x = n->inputs[0];
	enum ir_dtype dt = ir_attr_find(n, "dtype") ?
			   onnx_dt(ir_attr_int(n, "dtype", 1)) : x->dtype;
	int64_t k = ir_attr_int(n, "k", 0), r, c, i, j;
	size_t es = ir_dtype_size(dt), nb;
	struct ir_tensor *t, *out;
	struct lz_builder b;
	char *v;

	if (x->shape.rank != 2 || !ir_shape_is_static(&x->shape))
		return gerr(g, n, "needs a static 2-D input");
	if (!dt || dt == IR_F16)
		return gerr(g, n, "dtype is not supported");
	r = x->shape.dim[0];
	c = x->shape.dim[1];
	if (r * c > (1 << 24))
		return gerr(g, n, "output too large");
	nb = (size_t)(r * c) * es;
	v = calloc(1, nb ? nb : 1);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < r; i++) {
		j = i + k;
		if (j < 0 || j >= c)
			continue;
		switch (dt) {
		case IR_F32: ((float *)v)[i * c + j] = 1.0f; break;
		case IR_I32: ((int32_t *)v)[i * c + j] = 1; break;
		case IR_I64: ((int64_t *)v)[i * c + j] = 1; break;
		default: ((uint8_t *)v)[i * c + j] = 1; break;
		}
	}
	t = ir_const_new(g, NULL, dt, &x->shape, v, nb);
	free(v);
	out = lz_take(&b, g, n);
	return lz_node(&b, IR_OP_IDENTITY, 1, &t, dt, out) ? 1 : -ENOMEM;
}

static int legalize_window(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *sz = n->inputs[0], *out, *t, *io, *c1, *c2;
	bool periodic = ir_attr_int(n, "periodic", 1) != 0;
	enum ir_dtype dt = onnx_dt(ir_attr_int(n, "output_datatype", 1));
	struct ir_shape s = { .rank = 1 };
	int64_t size, i;
	double den, tw;
	float *v;
	struct lz_builder b;

	if (!sz->data || ir_tensor_numel(sz) != 1)
		return gerr(g, n, "a size computed at run time is not supported "
			    "(size must be a constant)");
	if (!dt || dt == IR_BOOL || dt == IR_F16)
		return gerr(g, n, "output_datatype is not supported");
	size = ir_const_get_i(sz, 0);
	if (size < 1 || size > (1 << 24))
		return gerr(g, n, "size is not supported (1 .. 2^24)");
	den = periodic ? (double)size : (double)(size - 1);
	tw = den > 0 ? 2 * M_PI / den : 0;
	s.dim[0] = size;
	v = malloc((size_t)size * 4);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		v[i] = (float)i;
	io = ir_const_new(g, NULL, IR_F32, &s, v, (size_t)size * 4);
	free(v);
	out = lz_take(&b, g, n);
	t = lz_binary(&b, IR_OP_MUL, io, ir_const_scalar_f32(g, NULL, (float)tw),
		NULL);
	c1 = lz_node(&b, IR_OP_COS, 1, &t, IR_F32, NULL);
	if (n->op == IR_OP_HANN_WINDOW) {
		t = lz_binary(&b, IR_OP_SUB, ir_const_scalar_f32(g, NULL, 0.5f),
			lz_binary(&b, IR_OP_MUL, c1,
			    ir_const_scalar_f32(g, NULL, 0.5f), NULL), NULL);
	} else if (n->op == IR_OP_HAMMING_WINDOW) {
		t = lz_binary(&b, IR_OP_SUB,
			ir_const_scalar_f32(g, NULL, (float)(25.0 / 46.0)),
			lz_binary(&b, IR_OP_MUL, c1, ir_const_scalar_f32(
				g, NULL, (float)(21.0 / 46.0)), NULL), NULL);
	} else {
		t = lz_binary(&b, IR_OP_MUL, t, ir_const_scalar_f32(g, NULL, 2.0f),
			NULL);
		c2 = lz_node(&b, IR_OP_COS, 1, &t, IR_F32, NULL);
		t = lz_binary(&b, IR_OP_SUB, ir_const_scalar_f32(g, NULL, 0.42f),
			lz_binary(&b, IR_OP_MUL, c1,
			    ir_const_scalar_f32(g, NULL, 0.5f), NULL), NULL);
		t = lz_binary(&b, IR_OP_ADD, t, lz_binary(&b, IR_OP_MUL, c2,
			ir_const_scalar_f32(g, NULL, 0.08f), NULL), NULL);
	}
	if (!t)
		return -ENOMEM;
	if (dt == IR_F32)
		return lz_node(&b, IR_OP_IDENTITY, 1, &t, IR_F32, out) ? 1 : -ENOMEM;
	t = lz_node(&b, IR_OP_CAST, 1, &t, dt, out);
	if (!t || ir_attr_set_int(t->producer, "to",
				  ir_attr_int(n, "output_datatype", 1)))
		return -ENOMEM;
	return 1;
}

static int legalize_upsample(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *sc = ir_in(n, 1), *out, *t;
	const char *mode = ir_attr_str(n, "mode", "nearest");
	struct ir_tensor *ins[3];
	struct lz_builder b;

	if (n->opset >= 10)
		return ir_error(g, "node '%s' (Upsample): Upsample at opset %d "
				"is not supported (ONNX removed it at opset 10: "
				"Resize replaces it)", n->name, n->opset);
	if (!sc) {		/* opset 7: scales as an attribute */
		const float *f;
		int cnt = ir_attr_floats(n, "scales", &f);
		struct ir_shape s = { .rank = 1, .dim = { cnt } };

		if (cnt < 1)
			return gerr(g, n, "needs scales");
		sc = ir_const_new(g, NULL, IR_F32, &s, f, (size_t)cnt * 4);
		if (!sc)
			return -ENOMEM;
	}
	if (strcmp(mode, "nearest") && strcmp(mode, "linear"))
		return gerr(g, n, "mode is not supported (nearest, linear)");
	out = lz_take(&b, g, n);
	ins[0] = x;
	ins[1] = NULL;
	ins[2] = sc;
	t = lz_node(&b, IR_OP_RESIZE, 3, ins, x->dtype, out);
	if (!t || ir_attr_set_str(t->producer, "mode", mode) ||
	    ir_attr_set_str(t->producer, "coordinate_transformation_mode",
			    "asymmetric") ||
	    ir_attr_set_str(t->producer, "nearest_mode", "floor"))
		return -ENOMEM;
	return 1;
}

static int legalize_compress(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *cd = n->inputs[1], *out, *t;
	const struct ir_attr *ax = ir_attr_find(n, "axis");
	int64_t axis = ax ? ax->i : 0, len, cnt = 0, i, total;
	struct ir_shape s = { .rank = 1 };
	struct ir_tensor *ins[2];
	int64_t *idx;
	struct lz_builder b;

	if (!cd->data)
		return gerr(g, n, "a condition computed at run time is not "
			    "supported (the output shape would depend on it): "
			    "the condition must be a constant");
	if (!ir_shape_is_static(&x->shape))
		return gerr(g, n, "needs a static input shape");
	if (axis < 0)
		axis += x->shape.rank;
	if (ax && (axis < 0 || axis >= x->shape.rank))
		return gerr(g, n, "axis out of range");
	total = ir_shape_numel(&x->shape);
	len = ax ? x->shape.dim[axis] : total;
	if (ir_tensor_numel(cd) < len)
		len = ir_tensor_numel(cd);
	idx = malloc((size_t)(len ? len : 1) * 8);
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < len; i++)
		if (ir_const_get_i(cd, i))
			idx[cnt++] = i;
	s.dim[0] = cnt;
	ins[1] = ir_const_new(g, NULL, IR_I64, &s, idx, (size_t)cnt * 8);
	free(idx);
	out = lz_take(&b, g, n);
	ins[0] = x;
	if (!ax) {		/* flattened */
		struct ir_shape f = { .rank = 1, .dim = { total } };

		ins[0] = lz_binary(&b, IR_OP_RESHAPE, x, ir_const_new(
			g, NULL, IR_I64, &(struct ir_shape){ .rank = 1,
			.dim = { 1 } }, &f.dim[0], 8), NULL);
	}
	t = lz_node(&b, IR_OP_GATHER, 2, ins, x->dtype, out);
	if (!t || ir_attr_set_int(t->producer, "axis", axis))
		return -ENOMEM;
	return 1;
}

/*
 * ReverseSequence with constant sequence_lens: GatherElements along the
 * time axis with the constant index t < len[b] ? len[b] - 1 - t : t.
 */
static int legalize_reverse_sequence(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *sl = n->inputs[1], *out, *t;
	const struct ir_shape *s = &x->shape;
	int64_t ba = ir_attr_int(n, "batch_axis", 1);
	int64_t ta = ir_attr_int(n, "time_axis", 0), total, e, *iv;
	struct ir_tensor *ins[2];
	struct lz_builder b;
	int r = s->rank, d;

	if (!sl->data)
		return gerr(g, n, "sequence_lens computed at run time are not "
			    "supported (sequence_lens must be a constant)");
	if (r < 2 || !ir_shape_is_static(s) || ba == ta || ba < 0 ||
	    ta < 0 || ba > 1 || ta > 1 ||
	    ir_tensor_numel(sl) != s->dim[ba])
		return gerr(g, n, "needs a static input, batch/time axes 0 and "
			    "1, one length per batch entry");
	total = ir_shape_numel(s);
	if (total > (1 << 24))
		return gerr(g, n, "input too large");
	iv = malloc((size_t)(total ? total : 1) * 8);
	if (!iv)
		return -ENOMEM;
	for (e = 0; e < total; e++) {
		int64_t rem = e, c[IR_MAX_RANK], len;

		for (d = r - 1; d >= 0; d--) {
			c[d] = rem % s->dim[d];
			rem /= s->dim[d];
		}
		len = ir_const_get_i(sl, c[ba]);
		if (len > s->dim[ta])
			len = s->dim[ta];
		iv[e] = c[ta] < len ? len - 1 - c[ta] : c[ta];
	}
	ins[1] = ir_const_new(g, NULL, IR_I64, s, iv, (size_t)total * 8);
	free(iv);
	out = lz_take(&b, g, n);
	ins[0] = x;
	t = lz_node(&b, IR_OP_GATHER_ELEMENTS, 2, ins, x->dtype, out);
	if (!t || ir_attr_set_int(t->producer, "axis", ta))
		return -ENOMEM;
	return 1;
}

/*
 * MaxUnpool: the values scattered at their flat indices (over the whole
 * output, as ONNX defines them) into zeros: ScatterElements on the
 * flattened output (the device's SCATTER).
 */
static int legalize_max_unpool(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *ix = n->inputs[1], *out, *t, *z;
	struct ir_tensor *os = ir_in(n, 2), *ins[3];
	const struct ir_shape *s = &x->shape;
	const int64_t *ks, *st, *pads;
	struct ir_shape o = *s, want;
	int64_t total, one = 1, nx;
	bool padded;
	int nk, ns, np, i, sp = s->rank - 2;
	struct lz_builder b;

	if (s->rank < 3 || !ir_shape_is_static(s) || x->dtype != IR_F32)
		return gerr(g, n, "needs a static f32 input");
	nk = ir_attr_ints(n, "kernel_shape", &ks);
	ns = ir_attr_ints(n, "strides", &st);
	np = ir_attr_ints(n, "pads", &pads);
	if (nk != sp || (ns > 0 && ns != sp) || (np > 0 && np != 2 * sp))
		return gerr(g, n, "kernel_shape, strides or pads do not fit");
	/* the indices address this default shape (ONNX's reference) */
	for (i = 0; i < sp; i++)
		o.dim[2 + i] = (s->dim[2 + i] - 1) * (ns > 0 ? st[i] : 1) +
			       ks[i] - (np > 0 ? pads[i] + pads[i + sp] : 0);
	want = o;
	if (os) {
		if (!os->data || ir_tensor_numel(os) != s->rank)
			return gerr(g, n, "output_shape must be a constant");
		for (i = 0; i < s->rank; i++) {
			want.dim[i] = ir_const_get_i(os, i);
			if (want.dim[i] < o.dim[i])
				return gerr(g, n, "output_shape smaller than "
					    "the default one is not supported");
		}
	}
	total = ir_shape_numel(&o);
	nx = ir_shape_numel(s);
	if (total < 1 || total > ((int64_t)1 << 32) || nx > (1 << 22))
		return gerr(g, n, "sizes are not supported");
	out = lz_take(&b, g, n);
	{
		struct ir_shape zs = { .rank = 1, .dim = { total } };
		struct ir_shape fs = { .rank = 1, .dim = { nx } };
		struct ir_shape ss = { .rank = 1, .dim = { 1 } };
		float zero = 0;

		z = lz_binary(&b, IR_OP_EXPAND, ir_const_new(g, NULL, IR_F32, &ss,
						       &zero, 4),
			ir_const_new(g, NULL, IR_I64, &ss, &zs.dim[0], 8),
			NULL);
		ins[0] = z;
		ins[1] = lz_binary(&b, IR_OP_RESHAPE, ix, ir_const_new(
			g, NULL, IR_I64, &ss, &fs.dim[0], 8), NULL);
		ins[2] = lz_binary(&b, IR_OP_RESHAPE, x, ir_const_new(
			g, NULL, IR_I64, &ss, &fs.dim[0], 8), NULL);
	}
	(void)one;
	t = lz_node(&b, IR_OP_SCATTER_ELEMENTS, 3, ins, IR_F32, NULL);
	if (!t || ir_attr_set_int(t->producer, "axis", 0))
		return -ENOMEM;
	padded = !ir_shape_equal(&o, &want);
	t = lz_binary(&b, IR_OP_RESHAPE, t, ir_const_new(
		g, NULL, IR_I64, &(struct ir_shape){ .rank = 1,
		.dim = { o.rank } }, o.dim, (size_t)o.rank * 8),
		padded ? NULL : out);
	if (padded) {		/* output_shape: zeros after the default */
		int64_t pv[2 * IR_MAX_RANK] = { 0 };

		for (i = 0; i < o.rank; i++)
			pv[o.rank + i] = want.dim[i] - o.dim[i];
		t = lz_binary(&b, IR_OP_PAD, t, ir_const_new(
			g, NULL, IR_I64, &(struct ir_shape){ .rank = 1,
			.dim = { 2 * o.rank } }, pv, (size_t)o.rank * 16),
			out);
	}
	return t ? 1 : -ENOMEM;
}

int shape_legalize_gen(struct ir_graph *g, struct ir_node *n)
{
	switch (n->op) {
	case IR_OP_EYE_LIKE: return legalize_eye_like(g, n);
	case IR_OP_HANN_WINDOW: case IR_OP_HAMMING_WINDOW:
	case IR_OP_BLACKMAN_WINDOW:
		return legalize_window(g, n);
	case IR_OP_UPSAMPLE: return legalize_upsample(g, n);
	case IR_OP_COMPRESS: return legalize_compress(g, n);
	case IR_OP_REVERSE_SEQUENCE: return legalize_reverse_sequence(g, n);
	case IR_OP_MAX_UNPOOL: return legalize_max_unpool(g, n);
	default: return 0;
	}
}
