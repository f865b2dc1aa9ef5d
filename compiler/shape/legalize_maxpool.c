// SPDX-License-Identifier: MIT
/*
 * legalize_maxpool.c - MaxPool's Indices output (SegNet-style models feed
 * it to MaxUnpool): the values stay one MaxPool, and the indices of each
 * window's first maximum come from the window's taps:
 *
 *   Xp = Pad(X, -inf); for each tap k = (i, j) of the window:
 *     Xk = Slice(Xp) at the tap, [N, C, OH, OW];
 *     Ck = Where(Xk == Y, Ik, BIG), Ik the tap's flat input index;
 *   Indices = Min(C0, .., CK-1) + ((n C + c) H W)
 *
 * The taps run in row-major window order and their flat indices grow in
 * it, so the minimum is the first maximum (as ONNX and PyTorch take it);
 * storage_order 1 gives column-major indices (w H + h). 2-D, f32, static
 * shapes, explicit pads (auto_pad NOTSET).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

#define MP_MAX_TAPS	64

struct mp_geom {
	int64_t n, c, h, w, oh, ow;
	int64_t k[2], s[2], d[2], pads[4];
	bool col_major;
};

static int64_t mp_ints(const struct ir_node *n, const char *name, int i,
		       int64_t def)
{
	const int64_t *v;
	int cnt = ir_attr_ints(n, name, &v);

	return cnt > i ? v[i] : def;
}

/* The pooled extent along dim @i (2: height, 3: width) as MaxPool's. */
static int64_t mp_out(const struct mp_geom *m, int i, int64_t in,
		      bool ceil_mode)
{
	int64_t span = (m->k[i] - 1) * m->d[i] + 1;
	int64_t num = in + m->pads[i] + m->pads[2 + i] - span, o;

	if (num < 0)
		return 0;
	o = (ceil_mode ? (num + m->s[i] - 1) / m->s[i] : num / m->s[i]) + 1;
	if (ceil_mode && (o - 1) * m->s[i] >= in + m->pads[i])
		o--;
	return o;
}

static int mp_geom_of(struct ir_graph *g, const struct ir_node *n,
		      struct mp_geom *m)
{
	const struct ir_tensor *x = n->inputs[0];
	bool ceil_mode = ir_attr_int(n, "ceil_mode", 0) != 0;

	if (x->shape.rank != 4 || !ir_shape_is_static(&x->shape) ||
	    x->dtype != IR_F32 ||
	    strcmp(ir_attr_str(n, "auto_pad", "NOTSET"), "NOTSET"))
		return ir_error(g, "node '%s' (MaxPool): the Indices output is "
				"supported for 2-D f32 pooling of a static "
				"shape with explicit pads", n->name);
	m->n = x->shape.dim[0];
	m->c = x->shape.dim[1];
	m->h = x->shape.dim[2];
	m->w = x->shape.dim[3];
	for (int i = 0; i < 2; i++) {
		m->k[i] = mp_ints(n, "kernel_shape", i, 0);
		m->s[i] = mp_ints(n, "strides", i, 1);
		m->d[i] = mp_ints(n, "dilations", i, 1);
	}
	for (int i = 0; i < 4; i++)
		m->pads[i] = mp_ints(n, "pads", i, 0);
	if (m->k[0] < 1 || m->k[1] < 1 || m->k[0] * m->k[1] > MP_MAX_TAPS ||
	    m->s[0] < 1 || m->s[1] < 1 || m->d[0] < 1 || m->d[1] < 1 ||
	    m->pads[0] < 0 || m->pads[1] < 0 || m->pads[2] < 0 ||
	    m->pads[3] < 0)
		return ir_error(g, "node '%s' (MaxPool): the Indices output "
				"takes windows of 1 to %d taps, strides and "
				"dilations >= 1, pads >= 0", n->name,
				MP_MAX_TAPS);
	m->oh = mp_out(m, 0, m->h, ceil_mode);
	m->ow = mp_out(m, 1, m->w, ceil_mode);
	m->col_major = ir_attr_int(n, "storage_order", 0) != 0;
	return m->oh < 1 || m->ow < 1 ?
	       ir_error(g, "node '%s' (MaxPool): window larger than the "
			"padded input", n->name) : 0;
}

/* Tap (i, j)'s flat input index per output position, INT64_MAX outside. */
static struct ir_tensor *mp_tap_index(struct ir_graph *g,
				      const struct mp_geom *m, int64_t i,
				      int64_t j)
{
	struct ir_shape s = { .rank = 4, .dim = { 1, 1, m->oh, m->ow } };
	int64_t *v = malloc((size_t)(m->oh * m->ow) * sizeof(*v));
	struct ir_tensor *t;

	if (!v)
		return NULL;
	for (int64_t y = 0; y < m->oh; y++)
		for (int64_t x = 0; x < m->ow; x++) {
			int64_t h = y * m->s[0] + i * m->d[0] - m->pads[0];
			int64_t w = x * m->s[1] + j * m->d[1] - m->pads[1];
			bool in = h >= 0 && h < m->h && w >= 0 && w < m->w;

			v[y * m->ow + x] = !in ? INT64_MAX : m->col_major ?
					   w * m->h + h : h * m->w + w;
		}
	t = ir_const_new(g, NULL, IR_I64, &s, v,
			 (size_t)(m->oh * m->ow) * sizeof(*v));
	free(v);
	return t;
}

/* (n C + c) H W per plane: the indices count over the whole input. */
static struct ir_tensor *mp_plane_offset(struct ir_graph *g,
					 const struct mp_geom *m)
{
	struct ir_shape s = { .rank = 4, .dim = { m->n, m->c, 1, 1 } };
	int64_t *v = malloc((size_t)(m->n * m->c) * sizeof(*v));
	struct ir_tensor *t;

	if (!v)
		return NULL;
	for (int64_t p = 0; p < m->n * m->c; p++)
		v[p] = p * m->h * m->w;
	t = ir_const_new(g, NULL, IR_I64, &s, v,
			 (size_t)(m->n * m->c) * sizeof(*v));
	free(v);
	return t;
}

/* Xp's tap (i, j): [N, C, OH, OW]. */
static struct ir_tensor *mp_tap(struct lz_builder *b, struct ir_tensor *xp,
				const struct mp_geom *m, int64_t i, int64_t j)
{
	int64_t st[2] = { i * m->d[0], j * m->d[1] };
	int64_t en[2] = { st[0] + (m->oh - 1) * m->s[0] + 1,
			  st[1] + (m->ow - 1) * m->s[1] + 1 };
	int64_t axes[2] = { 2, 3 };
	struct ir_tensor *si[5] = {
		xp, lz_i64(b->g, st, 2), lz_i64(b->g, en, 2),
		lz_i64(b->g, axes, 2), lz_i64(b->g, m->s, 2),
	};

	return lz_node(b, IR_OP_SLICE, 5, si, IR_F32, NULL);
}

int shape_legalize_maxpool_indices(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *y = n->outputs[0];
	struct ir_tensor *idx = n->outputs[1], *xp, *pads, *ninf, *big;
	struct ir_tensor *c[MP_MAX_TAPS], *ins[3];
	int64_t pv[8], k = 0;
	struct lz_builder b;
	struct mp_geom m;
	struct ir_node *p;
	float minus_inf = -INFINITY;
	int ret = mp_geom_of(g, n, &m);

	if (ret)
		return ret;
	/* the values: MaxPool itself, one output */
	b.g = g;
	b.k = 0;
	snprintf(b.base, sizeof(b.base), "%.250s", n->name);
	ir_node_set_output(n, 0, NULL);
	ir_node_set_output(n, 1, NULL);
	p = ir_node_new(g, IR_OP_MAX_POOL, b.base, 1, &x, 1, &y);
	if (!p || lz_copy_attrs(p, n) ||
	    ir_attr_set_int(p, "storage_order", 0))
		return -ENOMEM;
	p->opset = n->opset;
	ir_node_remove(g, n);
	/* -inf padding, with room for a ceil-mode window past the end */
	memset(pv, 0, sizeof(pv));
	pv[2] = m.pads[0];
	pv[3] = m.pads[1];
	pv[6] = (m.oh - 1) * m.s[0] + (m.k[0] - 1) * m.d[0] + 1 - m.h -
		m.pads[0];
	pv[7] = (m.ow - 1) * m.s[1] + (m.k[1] - 1) * m.d[1] + 1 - m.w -
		m.pads[1];
	pv[6] = pv[6] > 0 ? pv[6] : 0;
	pv[7] = pv[7] > 0 ? pv[7] : 0;
	pads = lz_i64(g, pv, 8);
	ninf = ir_const_new(g, NULL, IR_F32, &(struct ir_shape){ .rank = 0 },
			    &minus_inf, sizeof(minus_inf));
	big = ir_const_new(g, NULL, IR_I64, &(struct ir_shape){ .rank = 0 },
			   &(int64_t){ INT64_MAX }, sizeof(int64_t));
	ins[0] = x;
	ins[1] = pads;
	ins[2] = ninf;
	xp = lz_node(&b, IR_OP_PAD, 3, ins, IR_F32, NULL);
	if (!xp || !big)
		return -ENOMEM;
	for (int64_t i = 0; i < m.k[0]; i++)
		for (int64_t j = 0; j < m.k[1]; j++, k++) {
			struct ir_tensor *eq = lz_binary(&b, IR_OP_EQUAL,
							 mp_tap(&b, xp, &m, i,
								j), y, NULL);

			c[k] = lz_where(&b, eq, mp_tap_index(g, &m, i, j), big,
					NULL);
			if (!c[k])
				return -ENOMEM;
		}
	if (k > 1)
		c[0] = lz_node(&b, IR_OP_MIN, (int)k, c, IR_I64, NULL);
	return lz_binary(&b, IR_OP_ADD, c[0], mp_plane_offset(g, &m), idx) ?
	       1 : -ENOMEM;
}
