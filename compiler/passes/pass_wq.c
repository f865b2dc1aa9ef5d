// SPDX-License-Identifier: MIT
/*
 * pass_wq.c - weight-only quantization: DequantizeLinear(int8/int4
 * constant) -> MatMul/Gemm becomes one npu.MatMulWQ (the device's
 * MATMUL_WQ, Documentation/ops.rst) with the weights kept as integers:
 * int8 as I8 [K, N] (a quarter of f32), int4 packed two a byte as
 * U8 [K, ceil(N / 2)] (an eighth), plus F32 scales [G, N].
 *
 * Matched: a MatMul whose B, or a Gemm (transA 0, alpha 1, beta 1, C
 * absent, an F32 [N] or a constant F16 [N]) whose B (either transB), is
 * the output of a DequantizeLinear whose x is an INT8 (or INT4)
 * initializer, whose scale is a constant F32 or F16 (F16 models; widened
 * exactly) and whose zero point is absent or all zero
 * (symmetric); the scale is per tensor, per output channel, or blocked
 * along K (opset 21 block_size, ONNX's w4a16 form). Anything else is
 * left to the DequantizeLinear's own lowering (or refused there, for a
 * block_size it cannot run). The pass runs before constant folding, which
 * would otherwise expand the weights to f32.
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

struct wq_map {
	int64_t k, n;		/* the product's K and N */
	bool trans;		/* x is [N, K] (Gemm transB = 1) */
	int64_t gs, g;		/* group size along K, groups */
	int kind;		/* 0 per tensor, 1 per channel, 2 blocked */
	int64_t bs;		/* block_size */
};

/* Index of x's element (k, n). */
static int64_t wq_xi(const struct wq_map *m, int64_t k, int64_t n)
{
	return m->trans ? n * m->k + k : k * m->n + n;
}

/* Index of the scale of (k, n). */
static int64_t wq_si(const struct wq_map *m, int64_t k, int64_t n)
{
	switch (m->kind) {
	case 0:
		return 0;
	case 1:
		return n;
	default:	/* blocked along K: [K / bs, N], or [N, K / bs] */
		return m->trans ? n * m->g + k / m->bs : (k / m->bs) * m->n + n;
	}
}

/* Work out the scale's form; false when it is none of ours. */
static bool wq_scale_form(const struct ir_node *dq, const struct ir_tensor *x,
			  const struct ir_tensor *s, struct wq_map *m)
{
	int64_t axis = ir_attr_int(dq, "axis", 1);
	int64_t bs = ir_attr_int(dq, "block_size", 0);
	int kaxis = m->trans ? 1 : 0, naxis = 1 - kaxis;

	if (axis < 0)
		axis += 2;
	if (ir_tensor_numel(s) == 1 && !bs) {
		m->kind = 0;
		m->gs = m->k ? m->k : 1;
		m->g = 1;
		return true;
	}
	if (!bs && s->shape.rank == 1 && axis == naxis &&
	    s->shape.dim[0] == m->n) {
		m->kind = 1;
		m->gs = m->k ? m->k : 1;
		m->g = 1;
		return true;
	}
	if (bs > 0 && s->shape.rank == 2 && axis == kaxis &&
	    s->shape.dim[naxis] == m->n &&
	    s->shape.dim[kaxis] == (m->k + bs - 1) / bs) {
		m->kind = 2;
		m->bs = bs;
		m->gs = bs;
		m->g = s->shape.dim[kaxis];
		return true;
	}
	(void)x;
	return false;
}

static bool all_zero(const struct ir_tensor *z)
{
	int64_t i, n = ir_tensor_numel(z);

	for (i = 0; i < n; i++)
		if (ir_const_get_i(z, i))
			return false;
	return true;
}

/* Build the weights, scales and node for product @mm over @dq. */
static int wq_rewrite(struct ir_graph *g, struct ir_node *mm,
		      struct ir_node *dq, const struct wq_map *m,
		      struct pass_stats *st)
{
	const struct ir_tensor *x = dq->inputs[0], *s = dq->inputs[1];
	const int8_t *xv = x->data;
	bool w4 = x->int4;
	int64_t rb = w4 ? (m->n + 1) / 2 : m->n, k, n;
	size_t wbytes = (size_t)(m->k * rb), sn = (size_t)(m->g * m->n);
	uint8_t *wd = calloc(1, wbytes ? wbytes : 1);
	float *sd = malloc(sn ? sn * sizeof(float) : 1);
	struct ir_tensor *ins[4], *wt, *stn, *out = mm->outputs[0];
	struct ir_shape ws = ir_shape_make(2, (int64_t[]){ m->k, rb });
	struct ir_shape ss = ir_shape_make(2, (int64_t[]){ m->g, m->n });
	struct ir_node *wq;
	char name[256];
	int err = 0;

	if (!wd || !sd) {
		free(wd);
		free(sd);
		return ir_error(g, "out of memory");
	}
	for (k = 0; k < m->k; k++)
		for (n = 0; n < m->n; n++) {
			int8_t v = xv[wq_xi(m, k, n)];

			if (!w4)
				wd[k * rb + n] = (uint8_t)v;
			else
				wd[k * rb + n / 2] |= (uint8_t)((v & 15) <<
								(4 * (n & 1)));
		}
	for (k = 0; k < m->g; k++)
		for (n = 0; n < m->n; n++)
			sd[k * m->n + n] = (float)ir_const_get_f(s,
				wq_si(m, k * m->gs, n));
	snprintf(name, sizeof(name), "%s.wq", x->name);
	wt = ir_const_new(g, name, w4 ? IR_U8 : IR_I8, &ws, wd, wbytes);
	snprintf(name, sizeof(name), "%s.wq_scale", x->name);
	stn = ir_const_new(g, name, IR_F32, &ss, sd, sn * sizeof(float));
	free(wd);
	free(sd);
	if (!wt || !stn)
		return ir_error(g, "out of memory");
	ins[0] = mm->inputs[0];
	ins[1] = wt;
	ins[2] = stn;
	ins[3] = mm->op == IR_OP_GEMM ? ir_in(mm, 2) : NULL;
	if (ins[3] && ins[3]->dtype == IR_F16) {
		/* the device's bias is F32: widen an F16 constant (exact) */
		struct ir_tensor *c = ins[3];
		float *bd = malloc((size_t)m->n * sizeof(float) + 1);

		if (!bd)
			return ir_error(g, "out of memory");
		for (n = 0; n < m->n; n++)
			bd[n] = (float)ir_const_get_f(c, n);
		snprintf(name, sizeof(name), "%s.f32", c->name);
		ins[3] = ir_const_new(g, name, IR_F32, &c->shape, bd,
				      (size_t)m->n * sizeof(float));
		free(bd);
		if (!ins[3])
			return ir_error(g, "out of memory");
	}
	snprintf(name, sizeof(name), "%s", mm->name ? mm->name : "wq");
	wq = ir_node_new(g, IR_OP_MATMUL_WQ, name, ins[3] ? 4 : 3, ins, 0,
			 NULL);
	if (!wq)
		return ir_error(g, "out of memory");
	err = ir_attr_set_int(wq, "bits", w4 ? 4 : 8);
	err = err ? err : ir_attr_set_int(wq, "n", m->n);
	err = err ? err : ir_attr_set_int(wq, "group_size", m->gs);
	err = err ? err : ir_node_add_origins(wq, mm);
	err = err ? err : ir_node_add_origins(wq, dq);
	if (err)
		return ir_error(g, "out of memory");
	wq->act = mm->act;
	ir_node_remove(g, mm);
	wq->num_outputs = 1;
	if (ir_node_set_output(wq, 0, out))
		return ir_error(g, "out of memory");
	st->fused++;
	return 0;
}

int pass_weight_only(struct ir_graph *g, struct pass_stats *st)
{
	int i, err;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *mm = g->nodes[i], *dq;
		const struct ir_tensor *a, *b, *x, *s, *z, *c;
		struct wq_map m = { 0 };

		if (!mm || (mm->op != IR_OP_MATMUL && mm->op != IR_OP_GEMM) ||
		    mm->has_residual)
			continue;
		a = ir_in(mm, 0);
		b = ir_in(mm, 1);
		c = mm->op == IR_OP_GEMM ? ir_in(mm, 2) : NULL;
		if (!a || !b || !b->producer ||
		    b->producer->op != IR_OP_DEQUANTIZE_LINEAR)
			continue;
		dq = b->producer;
		x = ir_in(dq, 0);
		s = ir_in(dq, 1);
		z = ir_in(dq, 2);
		if (!x || !x->data || x->dtype != IR_I8 || x->shape.rank != 2 ||
		    !s || !s->data || (s->dtype != IR_F32 &&
				       s->dtype != IR_F16) ||
		    (z && (!z->data || !all_zero(z))))
			continue;
		if ((a->dtype != IR_F32 && a->dtype != IR_F16) ||
		    a->shape.rank < 2 || !ir_shape_is_static(&a->shape))
			continue;
		/* quantized activations: an int8 QDQ product (qdq-fuse's) */
		if (a->producer &&
		    a->producer->op == IR_OP_DEQUANTIZE_LINEAR)
			continue;
		if (mm->op == IR_OP_GEMM) {
			if (ir_attr_int(mm, "transA", 0) ||
			    ir_attr_float(mm, "alpha", 1.0f) != 1.0f ||
			    (c && ir_attr_float(mm, "beta", 1.0f) != 1.0f))
				continue;
			m.trans = ir_attr_int(mm, "transB", 0) != 0;
		}
		m.k = x->shape.dim[m.trans ? 1 : 0];
		m.n = x->shape.dim[m.trans ? 0 : 1];
		if (a->shape.dim[a->shape.rank - 1] != m.k)
			continue;
		if (c && (!c->shape_known || c->shape.rank != 1 ||
			  c->shape.dim[0] != m.n || (c->dtype != IR_F32 &&
			  (c->dtype != IR_F16 || !c->data))))
			continue;
		if (!wq_scale_form(dq, x, s, &m))
			continue;
		err = wq_rewrite(g, mm, dq, &m, st);
		if (err)
			return err;
		i--;	/* mm left g->nodes: the next node moved to i */
	}
	return 0;
}
