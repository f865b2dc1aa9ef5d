// SPDX-License-Identifier: MIT
/*
 * legalize_rnn.c - ONNX RNN, LSTM and GRU onto the device's RNN task.
 *
 * Per direction d (forward, reverse, or both for bidirectional):
 *
 *   xg    = MatMul(X, W[d]^T) + bias     [T, B, G*H], one product for all
 *           steps; bias = Wb + Rb (GRU: Wb only for the h gate)
 *   state = npu.Rnn(xg, R[d], h0[d], c0[d] | Rbh[d])   [T, B, S, H]
 *           (DRM_NPU_OP_RNN: the whole sequence in one task, the hidden
 *           state never leaves the device between steps)
 *   Y     = Concat_d(Transpose(state[:, :, 0:1, :]))   [T, D, B, H]
 *   Y_h   = Concat_d(state[last step, :, 0, :])         [D, B, H]
 *   Y_c   = Concat_d(state[last step, :, 1, :])         [D, B, H] (LSTM)
 *
 * W, R and B must be constants (the gate weights are rearranged here);
 * initial_h, initial_c and P (LSTM peepholes) may be computed; layout = 1
 * (batch first) transposes X and the initial states in and the outputs
 * out. Refused with a message: sequence_lens other than all T,
 * non-default activations, input_forget.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

/* The recurrent decomposition's nodes are all f32. */
static struct ir_tensor *rn(struct lz_builder *b, enum ir_op op, int nin,
			    struct ir_tensor **ins, struct ir_tensor *out)
{
	return lz_node(b, op, nin, ins, IR_F32, out);
}

static struct ir_tensor *f32c(struct ir_graph *g, int rank,
			      const int64_t *dims, const float *v)
{
	struct ir_shape sh = ir_shape_make(rank, dims);
	int64_t n = ir_shape_numel(&sh);

	return ir_const_new(g, NULL, IR_F32, &sh, v, (size_t)n * 4);
}

static int rerr(struct ir_graph *g, const struct ir_node *n,
		const char *what)
{
	return ir_error(g, "node '%s' (%s): %s", n->name, ir_op_name(n->op),
			what);
}

static bool same_ci(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return !*a && !*b;
}

/*
 * The activations attribute, if any, names ONNX's defaults (the importer
 * keeps a list of strings as one string, the entries joined by ',').
 */
static bool default_acts(const struct ir_node *n, int dirs)
{
	static const char *const lstm[] = { "Sigmoid", "Tanh", "Tanh" };
	static const char *const gru[] = { "Sigmoid", "Tanh" };
	static const char *const rnn[] = { "Tanh" };
	const struct ir_attr *a = ir_attr_find(n, "activations");
	const char *const *want = n->op == IR_OP_LSTM ? lstm :
				  n->op == IR_OP_GRU ? gru : rnn;
	int per = n->op == IR_OP_LSTM ? 3 : n->op == IR_OP_GRU ? 2 : 1, k = 0;
	char buf[256], *tok, *save = NULL;

	if (!a)
		return true;
	if (a->type != IR_ATTR_STRING || !a->s ||
	    strlen(a->s) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", a->s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save), k++)
		if (k >= per * dirs || !same_ci(tok, want[k % per]))
			return false;
	/* ONNX lists one set per direction; one set for both is lenient */
	return k == per * dirs || k == per;
}

/* Transpose of @x by @perm (into @out if given). */
static struct ir_tensor *perm_of(struct lz_builder *b, struct ir_tensor *x,
				 const int64_t *perm, int n,
				 struct ir_tensor *out)
{
	struct ir_tensor *t = rn(b, IR_OP_TRANSPOSE, 1, &x, out);

	if (t && ir_attr_set_ints(t->producer, "perm", perm, n))
		return NULL;
	return t;
}

/* initial_h/initial_c: absent, or [D, B, H] ([B, D, H] batch first). */
static bool state_shape_ok(const struct ir_tensor *t, int layout, int dirs,
			   int64_t bs, int64_t hid)
{
	if (!t)
		return true;
	return t->shape.rank == 3 && t->shape.dim[layout ? 1 : 0] == dirs &&
	       t->shape.dim[layout ? 0 : 1] == bs && t->shape.dim[2] == hid;
}

/* The peepholes [3H] of direction @d of P [D, 3H]. */
static struct ir_tensor *peep_of(struct lz_builder *b, struct ir_tensor *p, int d)
{
	int64_t dd = d;
	struct ir_shape s = { 0 };
	struct ir_tensor *ins[2] = { p, NULL }, *t;

	ins[1] = ir_const_new(b->g, NULL, IR_I64, &s, &dd, 8);
	t = rn(b, IR_OP_GATHER, 2, ins, NULL);
	if (t && ir_attr_set_int(t->producer, "axis", 0))
		return NULL;
	return t;
}

/* A constant, all zero (or absent). */
static bool const_zero(const struct ir_tensor *t)
{
	int64_t i, n;

	if (!t)
		return true;
	if (!t->data)
		return false;
	n = ir_tensor_numel(t);
	for (i = 0; i < n; i++)
		if (ir_const_get_f(t, i) != 0)
			return false;
	return true;
}

/* initial state [B, H] of direction @d: a slice of @t, or zeros. */
static struct ir_tensor *init_state(struct lz_builder *b, struct ir_tensor *t,
				    int d, int64_t bs, int64_t hid)
{
	int64_t dims[2] = { bs, hid };

	if (!t) {
		float *z = calloc((size_t)(bs * hid), 4);
		struct ir_tensor *c;

		if (!z)
			return NULL;
		c = f32c(b->g, 2, dims, z);
		free(z);
		return c;
	}
	{
		int64_t dd = d;
		struct ir_tensor *ins[2] = { t, NULL };
		struct ir_shape s = { 0 };

		ins[1] = ir_const_new(b->g, NULL, IR_I64, &s, &dd, 8);
		t = rn(b, IR_OP_GATHER, 2, ins, NULL);
		if (t && ir_attr_set_int(t->producer, "axis", 0))
			return NULL;
		return t;
	}
}

int shape_legalize_rnn(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *w = ir_in(n, 1), *r = ir_in(n, 2);
	struct ir_tensor *bias = ir_in(n, 3), *sl = ir_in(n, 4);
	struct ir_tensor *ih = ir_in(n, 5), *ic = ir_in(n, 6), *pp = ir_in(n, 7);
	struct ir_tensor *yo = n->outputs[0];
	struct ir_tensor *yho = n->num_outputs > 1 ? n->outputs[1] : NULL;
	struct ir_tensor *yco = n->num_outputs > 2 ? n->outputs[2] : NULL;
	struct ir_tensor *ys[2] = { 0 }, *yh[2] = { 0 }, *yc[2] = { 0 };
	const char *dir = ir_attr_str(n, "direction", "forward");
	int cell = n->op == IR_OP_LSTM ? 1 : n->op == IR_OP_GRU ? 2 : 0;
	int gates = cell == 1 ? 4 : cell == 2 ? 3 : 1, dirs, d;
	int lbr = (int)ir_attr_int(n, "linear_before_reset", 0);
	float clip = ir_attr_float(n, "clip", 0);
	int64_t tl, bs, in_sz, hid, gh, i, j;
	struct lz_builder b = { .g = g };
	bool y_used, yh_used, yc_used;
	int layout = (int)ir_attr_int(n, "layout", 0);
	struct ir_tensor *fin[3] = { 0 };

	if (!x->shape_known || !w || !r || !w->shape_known || !r->shape_known)
		return 0;
	if (x->dtype != IR_F32)
		return rerr(g, n, "dtype is not supported (f32 only)");
	if (!strcmp(dir, "forward") || !strcmp(dir, "reverse"))
		dirs = 1;
	else if (!strcmp(dir, "bidirectional"))
		dirs = 2;
	else
		return rerr(g, n, "unknown direction");
	if (!default_acts(n, dirs) || ir_attr_find(n, "activation_alpha") ||
	    ir_attr_find(n, "activation_beta"))
		return rerr(g, n, "activations other than the defaults are "
			    "not supported");
	if (ir_attr_int(n, "input_forget", 0))
		return rerr(g, n, "input_forget = 1 is not supported");
	if (cell != 1 && (ic || pp))
		return rerr(g, n, "too many inputs");
	if (!(clip >= 0) || clip > 3e38f)
		return rerr(g, n, "clip must be a finite value >= 0");
	if (!w->data || !r->data || (bias && !bias->data))
		return rerr(g, n, "W, R and B computed at run time are not "
			    "supported (they must be constants)");
	if (x->shape.rank != 3 || !ir_shape_is_static(&x->shape))
		return rerr(g, n, "needs a static input [seq, batch, size]");
	tl = x->shape.dim[layout ? 1 : 0];
	bs = x->shape.dim[layout ? 0 : 1];
	in_sz = x->shape.dim[2];
	hid = r->shape.rank == 3 ? r->shape.dim[2] : -1;
	if (ir_attr_find(n, "hidden_size") &&
	    ir_attr_int(n, "hidden_size", 0) != hid)
		return rerr(g, n, "hidden_size differs from R");
	gh = gates * hid;
	if (hid < 1 || w->shape.rank != 3 || w->shape.dim[0] != dirs ||
	    w->shape.dim[1] != gh || w->shape.dim[2] != in_sz ||
	    r->shape.dim[0] != dirs || r->shape.dim[1] != gh ||
	    (bias && (bias->shape.rank != 2 || bias->shape.dim[0] != dirs ||
		      bias->shape.dim[1] != 2 * gh)))
		return rerr(g, n, "W, R or B do not match the input and "
			    "hidden size");
	if (gh > (1 << 20) || in_sz > (1 << 24) || tl < 1 || bs < 1)
		return rerr(g, n, "sizes are not supported (hidden size up "
			    "to 2^20/G, at least one step and batch row)");
	if (sl) {
		if (!sl->data)
			return rerr(g, n, "sequence_lens computed at run time "
				    "are not supported");
		for (i = 0; i < ir_tensor_numel(sl); i++)
			if (ir_const_get_i(sl, i) != tl)
				return rerr(g, n, "sequence_lens shorter than "
					    "the sequence are not supported");
	}
	if (!state_shape_ok(ih, layout, dirs, bs, hid) ||
	    !state_shape_ok(ic, layout, dirs, bs, hid))
		return rerr(g, n, "initial_h/initial_c must be [D, B, H] "
			    "([B, D, H] with layout = 1)");
	if (pp && (pp->shape.rank != 2 || pp->shape.dim[0] != dirs ||
		   pp->shape.dim[1] != 3 * hid))
		return rerr(g, n, "P must be [D, 3H]");
	if (const_zero(pp))
		pp = NULL;
	y_used = yo && (yo->num_uses || yo->is_output);
	yh_used = yho && (yho->num_uses || yho->is_output);
	yc_used = yco && (yco->num_uses || yco->is_output);
	snprintf(b.base, sizeof(b.base), "%.250s", n->name);
	ir_node_remove(g, n);
	if (layout) {
		/* batch first: [B, T, I] in, [B, T, D, H] and [B, D, H] out */
		int64_t p102[3] = { 1, 0, 2 };

		x = perm_of(&b, x, p102, 3, NULL);
		ih = ih ? perm_of(&b, ih, p102, 3, NULL) : NULL;
		ic = ic ? perm_of(&b, ic, p102, 3, NULL) : NULL;
		for (i = 0; i < 3; i++) {
			struct ir_tensor **o = i == 0 ? &yo : i == 1 ? &yho :
					       &yco;

			fin[i] = *o;
			if (*o && (*o)->num_uses + (*o)->is_output) {
				*o = ir_tensor_new(g, NULL, IR_F32, NULL);
				if (!*o)
					return -ENOMEM;
			}
		}
		if (!x)
			return -ENOMEM;
	}
	for (d = 0; d < dirs; d++) {
		bool rev = !strcmp(dir, "reverse") || d == 1;
		int64_t wd[2] = { in_sz, gh }, rd[2] = { gh, hid }, hd = hid;
		int64_t lt = rev ? 0 : tl - 1;
		float *wt = malloc((size_t)(in_sz * gh) * 4);
		float *rw = malloc((size_t)(gh * hid) * 4);
		float *bv = calloc((size_t)gh, 4), *rbh = calloc((size_t)hid, 4);
		struct ir_tensor *ins[5], *xg, *st, *t;
		struct ir_node *rnode;

		if (!wt || !rw || !bv || !rbh) {
			free(wt), free(rw), free(bv), free(rbh);
			return -ENOMEM;
		}
		for (i = 0; i < gh; i++)
			for (j = 0; j < in_sz; j++)
				wt[j * gh + i] = (float)ir_const_get_f(
					w, (d * gh + i) * in_sz + j);
		for (i = 0; i < gh * hid; i++)
			rw[i] = (float)ir_const_get_f(r, d * gh * hid + i);
		for (i = 0; bias && i < gh; i++) {
			float wb = (float)ir_const_get_f(bias, d * 2 * gh + i);
			float rbv = (float)ir_const_get_f(bias,
							 d * 2 * gh + gh + i);

			if (cell == 2 && i >= 2 * hid) {
				bv[i] = wb;
				rbh[i - 2 * hid] = rbv;
			} else {
				bv[i] = wb + rbv;
			}
		}
		ins[0] = x;
		ins[1] = f32c(g, 2, wd, wt);
		xg = rn(&b, IR_OP_MATMUL, 2, ins, NULL);
		ins[0] = xg;
		ins[1] = f32c(g, 1, &gh, bv);
		xg = rn(&b, IR_OP_ADD, 2, ins, NULL);
		ins[0] = xg;
		ins[1] = f32c(g, 2, rd, rw);
		ins[2] = init_state(&b, ih, d, bs, hid);
		ins[3] = cell == 1 ? init_state(&b, ic, d, bs, hid) :
			 cell == 2 ? f32c(g, 1, &hd, rbh) : NULL;
		ins[4] = pp ? peep_of(&b, pp, d) : NULL;
		free(wt), free(rw), free(bv), free(rbh);
		st = rn(&b, IR_OP_RNN_TASK, pp ? 5 : cell ? 4 : 3, ins, NULL);
		if (!st)
			return -ENOMEM;
		rnode = st->producer;
		if (ir_attr_set_int(rnode, "cell", cell) ||
		    ir_attr_set_int(rnode, "reverse", rev) ||
		    ir_attr_set_int(rnode, "linear_before_reset",
				    cell == 2 && lbr) ||
		    ir_attr_set_float(rnode, "clip", clip))
			return -ENOMEM;
		if (y_used) {
			int64_t s0 = 0, e1 = 1, ax = 2, perm[4] = { 0, 2, 1, 3 };
			struct ir_tensor *si[4] = { st, lz_i64(g, &s0, 1),
						    lz_i64(g, &e1, 1),
						    lz_i64(g, &ax, 1) };

			t = rn(&b, IR_OP_SLICE, 4, si, NULL);
			t = rn(&b, IR_OP_TRANSPOSE, 1, &t,
			       dirs == 1 ? yo : NULL);
			if (!t || ir_attr_set_ints(t->producer, "perm", perm,
						   4))
				return -ENOMEM;
			ys[d] = t;
		}
		for (int k = 0; k < 2; k++) {
			int64_t s0[2] = { lt, k }, e1[2] = { lt + 1, k + 1 };
			int64_t ax[2] = { 0, 2 }, sh[3] = { 1, bs, hid };
			struct ir_tensor *si[4], *o;

			if (!(k ? yc_used : yh_used))
				continue;
			si[0] = st;
			si[1] = lz_i64(g, s0, 2);
			si[2] = lz_i64(g, e1, 2);
			si[3] = lz_i64(g, ax, 2);
			o = dirs == 1 ? (k ? yco : yho) : NULL;
			t = rn(&b, IR_OP_SLICE, 4, si, NULL);
			si[0] = t;
			si[1] = lz_i64(g, sh, 3);
			t = rn(&b, IR_OP_RESHAPE, 2, si, o);
			if (!t)
				return -ENOMEM;
			(k ? yc : yh)[d] = t;
		}
	}
	if (dirs == 2) {
		struct ir_tensor *outs[3] = { yo, yho, yco };
		struct ir_tensor **parts[3] = { ys, yh, yc };

		for (int k = 0; k < 3; k++) {
			struct ir_tensor *t;

			if (!parts[k][0])
				continue;
			t = rn(&b, IR_OP_CONCAT, 2, parts[k], outs[k]);
			if (!t || ir_attr_set_int(t->producer, "axis",
						  k ? 0 : 1))
				return -ENOMEM;
		}
	}
	if (layout) {
		static const int64_t p2013[4] = { 2, 0, 1, 3 };
		static const int64_t p102[3] = { 1, 0, 2 };
		struct ir_tensor *mid[3] = { yo, yho, yco };

		for (i = 0; i < 3; i++)
			if (fin[i] && mid[i] && mid[i] != fin[i] &&
			    !perm_of(&b, mid[i], i ? p102 : p2013, i ? 3 : 4,
				     fin[i]))
				return -ENOMEM;
	}
	return 1;
}

/* npu.Rnn: state [T, B, S, H] from xg [T, B, G*H] and R [G*H, H]. */
int shape_infer_rnn_task(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_tensor *xg = n->inputs[0], *r = n->inputs[1];
	int64_t cell = ir_attr_int(n, "cell", 0);
	int64_t lbr = ir_attr_int(n, "linear_before_reset", 0);
	struct ir_tensor *o = n->outputs[0];

	if (xg->shape.rank != 3 || r->shape.rank != 2)
		return ir_error(g, "node '%s' (npu.Rnn): xg must be 3-D and "
				"R 2-D", n->name);
	o->dtype = IR_F32;
	o->shape.rank = 4;
	o->shape.dim[0] = xg->shape.dim[0];
	o->shape.dim[1] = xg->shape.dim[1];
	o->shape.dim[2] = cell == 1 || (cell == 2 && !lbr) ? 2 : 1;
	o->shape.dim[3] = r->shape.dim[1];
	o->shape_known = true;
	return 0;
}
