// SPDX-License-Identifier: MIT
/*
 * legalize_dft.c - ONNX DFT and STFT as matrix products, MelWeightMatrix
 * as a constant.
 *
 * A DFT of length L is a product with the L x K matrices
 * C[n, k] = cos(2 pi k n / L) and S[n, k] = sign sin(2 pi k n / L)
 * (sign -1 forward, +1 inverse; both scaled by 1 / L for the inverse),
 * K = L, or L / 2 + 1 for a one-sided transform of a real signal:
 *
 *   Re = re C - im S,  Im = im C + re S        (MatMul, Sub, Add)
 *
 * the cube cores' MatMul at its full rate, where an FFT would be a chain of
 * small strided tasks. The signal axis is moved last (Transpose) and back;
 * the real and imaginary parts are Gathers of the last dim and are stacked
 * again with Unsqueeze + Concat. The cosines and sines are computed from
 * the reduced angle k n mod L in double and rounded once, exact (0, +-1)
 * at quarter turns, so a component that is zero in exact arithmetic comes
 * out 0. The products cost L K multiply-adds per output row: L and K are
 * bounded (DFT_MAX_MATRIX) where an FFT would be the right tool.
 *
 * STFT frames the signal with one Gather of a constant [frames, length]
 * index (frame f starts at f * frame_step), multiplies by the window and
 * runs the same DFT on the last axis. MelWeightMatrix has only constant
 * inputs: its matrix is computed here as ONNX's reference does.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

/* Largest L * K of a DFT matrix (two f32 constants of 16 MiB each). */
#define DFT_MAX_MATRIX	(1 << 22)

static int dft_err(struct ir_graph *g, const struct ir_node *n,
		   const char *msg)
{
	return ir_error(g, "node '%s' (%s): %s", n->name, ir_op_name(n->op),
			msg);
}

/* A constant integer scalar input, or -1 with an error recorded. */
static int dft_const(struct ir_graph *g, const struct ir_node *n, int i,
		     const char *what, int64_t *v)
{
	const struct ir_tensor *t = ir_in(n, i);
	char msg[200];

	if (t && t->data && ir_tensor_numel(t) == 1) {
		*v = ir_const_get_i(t, 0);
		return 0;
	}
	snprintf(msg, sizeof(msg), "%s known only at run time is not "
		 "supported: it must be known at compile time (a constant)",
		 what);
	return dft_err(g, n, msg);
}

/* cos and sin of 2 pi k n / L from the reduced angle. */
static void dft_cs(int64_t k, int64_t n, int64_t len, float *c, float *s)
{
	static const float qc[4] = { 1, 0, -1, 0 }, qs[4] = { 0, 1, 0, -1 };
	int64_t m = (k % len) * (n % len) % len;
	double a;

	if ((4 * m) % len == 0) {
		*c = qc[4 * m / len];
		*s = qs[4 * m / len];
		return;
	}
	a = 2.0 * M_PI * (double)m / (double)len;
	*c = (float)cos(a);
	*s = (float)sin(a);
}

/* The [L, K] matrices C and S (see the top of the file). */
static int dft_matrices(struct ir_graph *g, int64_t len, int64_t k_out,
			bool inverse, struct ir_tensor **cm,
			struct ir_tensor **sm)
{
	struct ir_shape s = { .rank = 2, .dim = { len, k_out } };
	size_t cnt = (size_t)(len * k_out);
	float *cv = malloc(cnt * sizeof(float)), *sv = malloc(cnt * sizeof(float));
	float scale = inverse ? 1.0f / (float)len : 1.0f;
	float sign = inverse ? scale : -scale;

	if (!cv || !sv) {
		free(cv);
		free(sv);
		return -ENOMEM;
	}
	for (int64_t n = 0; n < len; n++)
		for (int64_t k = 0; k < k_out; k++) {
			float c, sn;

			dft_cs(k, n, len, &c, &sn);
			cv[n * k_out + k] = c * scale;
			sv[n * k_out + k] = sn * sign;
		}
	*cm = ir_const_new(g, NULL, IR_F32, &s, cv, cnt * sizeof(float));
	*sm = ir_const_new(g, NULL, IR_F32, &s, sv, cnt * sizeof(float));
	free(cv);
	free(sv);
	return *cm && *sm ? 0 : -ENOMEM;
}

/* Gather(@x, @idx scalar, axis @axis). */
static struct ir_tensor *dft_part(struct lz_builder *b, struct ir_tensor *x,
				  int64_t idx, int axis)
{
	struct ir_tensor *ins[2] = {
		x, ir_const_new(b->g, NULL, IR_I64, &(struct ir_shape){ 0 },
				&idx, sizeof(idx)),
	}, *r;

	r = lz_node(b, IR_OP_GATHER, 2, ins, x->dtype, NULL);
	if (r && ir_attr_set_int(r->producer, "axis", axis))
		return NULL;
	return r;
}

/*
 * The transform of the last axis of @re (+ i @im; @im NULL for a real
 * signal) into [..., K, 2], written to @out (NULL: a new tensor).
 */
static struct ir_tensor *dft_last_axis(struct lz_builder *b,
				       struct ir_tensor *re,
				       struct ir_tensor *im, int64_t len,
				       int64_t k_out, bool inverse,
				       struct ir_tensor *out)
{
	struct ir_tensor *cm, *sm, *pr, *pi, *parts[2], *axis;
	int64_t last = -1;

	if (dft_matrices(b->g, len, k_out, inverse, &cm, &sm))
		return NULL;
	pr = lz_binary(b, IR_OP_MATMUL, re, cm, NULL);
	pi = lz_binary(b, IR_OP_MATMUL, re, sm, NULL);
	if (im) {
		pr = lz_binary(b, IR_OP_SUB, pr,
			       lz_binary(b, IR_OP_MATMUL, im, sm, NULL), NULL);
		pi = lz_binary(b, IR_OP_ADD, pi,
			       lz_binary(b, IR_OP_MATMUL, im, cm, NULL), NULL);
	}
	axis = lz_i64(b->g, &last, 1);
	if (!pr || !pi || !axis)
		return NULL;
	parts[0] = lz_binary(b, IR_OP_UNSQUEEZE, pr, axis, NULL);
	parts[1] = lz_binary(b, IR_OP_UNSQUEEZE, pi, axis, NULL);
	if (!parts[0] || !parts[1])
		return NULL;
	out = lz_node(b, IR_OP_CONCAT, 2, parts, IR_F32, out);
	if (out && ir_attr_set_int(out->producer, "axis", -1))
		return NULL;
	return out;
}

/* @x cut or zero-padded to @len along @axis. */
static struct ir_tensor *dft_fit(struct lz_builder *b, struct ir_tensor *x,
				 int axis, int64_t len)
{
	int r = x->shape.rank;
	int64_t have = x->shape.dim[axis], zero = 0, ax = axis, pads[16];
	struct ir_tensor *ins[4];

	if (have == len)
		return x;
	if (have > len) {
		ins[0] = x;
		ins[1] = lz_i64(b->g, &zero, 1);
		ins[2] = lz_i64(b->g, &len, 1);
		ins[3] = lz_i64(b->g, &ax, 1);
		return lz_node(b, IR_OP_SLICE, 4, ins, x->dtype, NULL);
	}
	memset(pads, 0, sizeof(pads));
	pads[r + axis] = len - have;
	return lz_binary(b, IR_OP_PAD, x, lz_i64(b->g, pads, 2 * r), NULL);
}

static int dft_check_size(struct ir_graph *g, const struct ir_node *n,
			  int64_t len, int64_t k_out)
{
	char msg[200];

	if (len >= 1 && k_out >= 1 && len <= DFT_MAX_MATRIX / k_out)
		return 0;
	snprintf(msg, sizeof(msg), "a transform of length %lld is not "
		 "supported (npuc multiplies by an L x K matrix, L K at most "
		 "%d)", (long long)len, DFT_MAX_MATRIX);
	return dft_err(g, n, msg);
}

/* Moves dim @a of a rank-@r tensor last (@back: the inverse move). */
static void dft_perm(int r, int a, bool back, int64_t *perm)
{
	int64_t inv[IR_MAX_RANK];
	int i, k = 0;

	for (i = 0; i < r; i++)
		if (i != a)
			perm[k++] = i;
	perm[r - 1] = a;
	if (!back)
		return;
	for (i = 0; i < r; i++)
		inv[perm[i]] = i;
	memcpy(perm, inv, (size_t)r * sizeof(*perm));
}

static int legalize_dft(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *re, *im = NULL, *out;
	int r = x->shape.rank, a;
	int64_t axis = ir_attr_int(n, "axis", 1), len, k_out, c;
	bool inverse = ir_attr_int(n, "inverse", 0);
	bool onesided = ir_attr_int(n, "onesided", 0);
	int64_t perm[IR_MAX_RANK];
	struct lz_builder b;

	if (n->opset >= 20 && ir_in(n, 2) &&
	    dft_const(g, n, 2, "an axis", &axis))
		return -EINVAL;
	if (n->opset >= 20 && !ir_in(n, 2))
		axis = -2;
	if (r < 2 || !ir_shape_is_static(&x->shape) || x->dtype != IR_F32)
		return dft_err(g, n, "a static f32 input of rank 2 or more is "
			       "supported");
	c = x->shape.dim[r - 1];
	a = (int)(axis < 0 ? axis + r : axis);
	if ((c != 1 && c != 2) || a < 0 || a > r - 2)
		return dft_err(g, n, "the last dim must be 1 (real) or 2 "
			       "(complex) and the axis another dim; other "
			       "forms are not supported");
	len = x->shape.dim[a];
	if (ir_in(n, 1) && dft_const(g, n, 1, "a dft_length", &len))
		return -EINVAL;
	if (onesided && inverse)
		return dft_err(g, n, "a one-sided inverse transform is not "
			       "supported");
	k_out = onesided ? len / 2 + 1 : len;
	if (dft_check_size(g, n, len, k_out))
		return -EINVAL;
	out = lz_take(&b, g, n);
	x = dft_fit(&b, x, a, len);
	re = x ? dft_part(&b, x, 0, r - 1) : NULL;
	if (c == 2)
		im = x ? dft_part(&b, x, 1, r - 1) : NULL;
	if (!re || (c == 2 && !im))
		return -ENOMEM;
	if (a == r - 2)
		return dft_last_axis(&b, re, im, len, k_out, inverse, out) ?
		       1 : -ENOMEM;
	dft_perm(r - 1, a, false, perm);
	re = lz_transpose(&b, re, perm, r - 1, NULL);
	if (im)
		im = lz_transpose(&b, im, perm, r - 1, NULL);
	re = dft_last_axis(&b, re, im, len, k_out, inverse, NULL);
	if (!re)
		return -ENOMEM;
	/* [..., K, 2]: K back to @a, the pair stays last */
	dft_perm(r - 1, a, true, perm);
	perm[r - 1] = r - 1;
	return lz_transpose(&b, re, perm, r, out) ? 1 : -ENOMEM;
}

static int legalize_stft(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *win = ir_in(n, 2), *out, *re;
	struct ir_tensor *im, *ins[2], *part[2] = { NULL, NULL };
	bool onesided = ir_attr_int(n, "onesided", 1);
	int64_t step, len, frames, k_out, *idx;
	struct ir_shape is;
	struct lz_builder b;

	if (x->shape.rank != 3 || !ir_shape_is_static(&x->shape) ||
	    x->dtype != IR_F32 || (x->shape.dim[2] != 1 &&
				   x->shape.dim[2] != 2))
		return dft_err(g, n, "a static f32 signal [batch, length, 1 "
			       "or 2] is supported");
	if (dft_const(g, n, 1, "a frame_step", &step))
		return -EINVAL;
	if (ir_in(n, 3)) {
		if (dft_const(g, n, 3, "a frame_length", &len))
			return -EINVAL;
	} else if (win && win->shape.rank == 1 &&
		   !IR_DIM_IS_SYM(win->shape.dim[0])) {
		len = win->shape.dim[0];
	} else {
		return dft_err(g, n, "needs a frame_length or a 1-D window of "
			       "static length");
	}
	if (win && (win->shape.rank != 1 || win->shape.dim[0] != len ||
		    win->dtype != IR_F32))
		return dft_err(g, n, "the window must be f32, 1-D, of "
			       "frame_length");
	if (step < 1 || len < 1 || len > x->shape.dim[1])
		return dft_err(g, n, "frame_step and frame_length must be "
			       "positive, frame_length at most the signal's");
	frames = (x->shape.dim[1] - len) / step + 1;
	k_out = onesided ? len / 2 + 1 : len;
	if (dft_check_size(g, n, len, k_out) ||
	    dft_check_size(g, n, frames, len))
		return -EINVAL;
	idx = malloc((size_t)(frames * len) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (int64_t f = 0; f < frames; f++)
		for (int64_t j = 0; j < len; j++)
			idx[f * len + j] = f * step + j;
	is = (struct ir_shape){ .rank = 2, .dim = { frames, len } };
	out = lz_take(&b, g, n);
	ins[1] = ir_const_new(g, NULL, IR_I64, &is, idx,
			      (size_t)(frames * len) * sizeof(*idx));
	free(idx);
	for (int p = 0; p < x->shape.dim[2]; p++) {
		ins[0] = dft_part(&b, x, p, 2);
		part[p] = lz_node(&b, IR_OP_GATHER, 2, ins, IR_F32, NULL);
		if (!part[p] || ir_attr_set_int(part[p]->producer, "axis", 1))
			return -ENOMEM;
		if (win)
			part[p] = lz_binary(&b, IR_OP_MUL, part[p], win, NULL);
		if (!part[p])
			return -ENOMEM;
	}
	re = part[0];
	im = x->shape.dim[2] == 2 ? part[1] : NULL;
	return dft_last_axis(&b, re, im, len, k_out, false, out) ? 1 : -ENOMEM;
}

/* ONNX's reference of MelWeightMatrix, into @w [dft_length / 2 + 1, mel]. */
static void mel_matrix(int64_t mel, int64_t dft, int64_t rate, float lo,
		       float hi, double *w)
{
	int64_t bins = dft / 2 + 1, *fb = calloc((size_t)mel + 2, 8);
	float lo_mel = 2595.0f * log10f(1.0f + lo / 700.0f);
	float hi_mel = 2595.0f * log10f(1.0f + hi / 700.0f);
	float step = (hi_mel - lo_mel) / (float)(mel + 2);

	if (!fb)
		return;
	for (int64_t i = 0; i < mel + 2; i++) {
		double f = (double)i * step + lo_mel;

		f = 700.0 * (pow(10.0, f / 2595.0) - 1.0);
		fb[i] = (int64_t)floor((double)(dft + 1) * f / (double)rate);
	}
	for (int64_t i = 0; i < mel; i++) {
		int64_t l = fb[i], c = fb[i + 1], h = fb[i + 2];

		if (c == l && c >= 0 && c < bins)
			w[c * mel + i] = 1.0;
		for (int64_t j = l; c > l && j <= c; j++)
			if (j >= 0 && j < bins)
				w[j * mel + i] = (double)(j - l) /
						 (double)(c - l);
		for (int64_t j = c; h > c && j < h; j++)
			if (j >= 0 && j < bins)
				w[j * mel + i] = (double)(h - j) /
						 (double)(h - c);
	}
	free(fb);
}

static int legalize_mel(struct ir_graph *g, struct ir_node *n)
{
	int64_t mel, dft, rate, bins, cnt;
	struct ir_tensor *t, *out;
	struct lz_builder b;
	struct ir_shape s;
	float *v;
	double *w;

	if (dft_const(g, n, 0, "num_mel_bins", &mel) ||
	    dft_const(g, n, 1, "a dft_length", &dft) ||
	    dft_const(g, n, 2, "a sample_rate", &rate))
		return -EINVAL;
	if (!ir_in(n, 3) || !ir_in(n, 4) || !n->inputs[3]->data ||
	    !n->inputs[4]->data)
		return dft_err(g, n, "edge frequencies known only at run time "
			       "are not supported: they must be known at "
			       "compile time (constants)");
	if (ir_attr_int(n, "output_datatype", 1) != 1)
		return dft_err(g, n, "an output_datatype other than float is "
			       "not supported");
	if (mel < 1 || dft < 1 || rate < 1 || mel > 65536 || dft > 65536 ||
	    (dft / 2 + 1) * mel > DFT_MAX_MATRIX)
		return dft_err(g, n, "num_mel_bins, dft_length and sample_rate "
			       "must be positive, (dft_length / 2 + 1) x "
			       "num_mel_bins at most 2^22 (give smaller ones)");
	bins = dft / 2 + 1;
	cnt = bins * mel;
	w = calloc((size_t)cnt, sizeof(*w));
	v = malloc((size_t)cnt * sizeof(*v));
	if (!w || !v) {
		free(w);
		free(v);
		return -ENOMEM;
	}
	mel_matrix(mel, dft, rate, (float)ir_const_get_f(n->inputs[3], 0),
		   (float)ir_const_get_f(n->inputs[4], 0), w);
	for (int64_t i = 0; i < cnt; i++)
		v[i] = (float)w[i];
	s = (struct ir_shape){ .rank = 2, .dim = { bins, mel } };
	t = ir_const_new(g, NULL, IR_F32, &s, v, (size_t)cnt * sizeof(*v));
	free(w);
	free(v);
	if (!t)
		return -ENOMEM;
	out = lz_take(&b, g, n);
	return lz_unary(&b, IR_OP_IDENTITY, t, out) ? 1 : -ENOMEM;
}

int shape_legalize_dft(struct ir_graph *g, struct ir_node *n)
{
	if (n->num_outputs < 1 || !n->outputs[0] || n->num_inputs < 1 ||
	    !n->inputs[0])
		return 0;	/* malformed: left to shape inference */
	switch (n->op) {
	case IR_OP_DFT: return legalize_dft(g, n);
	case IR_OP_STFT: return legalize_stft(g, n);
	case IR_OP_MEL_WEIGHT_MATRIX: return legalize_mel(g, n);
	default: return 0;
	}
}
