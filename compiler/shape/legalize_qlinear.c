// SPDX-License-Identifier: MIT
/*
 * legalize_qlinear.c - the QOperator form of quantized models (ONNX
 * QLinearConv and QLinearMatMul, as ONNX Runtime's quantizer writes with
 * QuantFormat.QOperator) into the QDQ form that the qdq-fuse pass turns
 * into the device's int8 tasks (passes/pass_quant.c):
 *
 *   QLinearConv(x, sx, zx, w, sw, zw, sy, zy, [B]) ->
 *     QuantizeLinear(Conv(DequantizeLinear(x, sx, zx),
 *                         DequantizeLinear(w, sw, zw),
 *                         [DequantizeLinear(B, sx * sw, 0)]), sy, zy)
 *   QLinearMatMul(a, sa, za, b, sb, zb, sy, zy) ->
 *     QuantizeLinear(MatMul(DequantizeLinear(a, sa, za),
 *                           DequantizeLinear(b, sb, zb)), sy, zy)
 *
 * Per-channel weight scales (a 1-D sw of O entries, sb of N) dequantize
 * along the output channel (axis 0 of w, the last axis of b). The fused
 * task computes exactly what QLinearConv/QLinearMatMul define (integer
 * sums, one rounding); the Conv is marked so that qdq-fuse takes it even
 * when it has too few input channels for the int8 kernel to be the faster
 * (pass_quant.c leaves such a first layer of a QDQ model in float).
 * Parameters that are not constants are refused (DequantizeLinear and
 * QuantizeLinear take constant scales and zero points).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

/*
 * DequantizeLinear(q, s, z) along @axis (what a 1-D @s runs along; a
 * scalar one ignores it; @s may be a Mul whose shape is not known yet).
 */
static struct ir_tensor *dequant(struct lz_builder *b, struct ir_tensor *q,
				 struct ir_tensor *s, struct ir_tensor *z,
				 int64_t axis)
{
	struct ir_tensor *ins[3] = { q, s, z }, *y;

	if (!s)
		return NULL;
	y = lz_node(b, IR_OP_DEQUANTIZE_LINEAR, z ? 3 : 2, ins, IR_F32, NULL);
	if (y && ir_attr_set_int(y->producer, "axis", axis))
		return NULL;
	return y;
}

/*
 * The bias' scale sx * sw (float32 products, as ONNX defines it): a
 * constant when both are (qdq-fuse folds only constant parameters), else
 * a Mul.
 */
static struct ir_tensor *bias_scale(struct lz_builder *b,
				    struct ir_tensor *sx, struct ir_tensor *sw)
{
	int64_t n = ir_tensor_numel(sw);
	struct ir_shape s = sw->shape;
	struct ir_tensor *t;
	float *v;

	if (!sx->data || !sw->data || ir_tensor_numel(sx) != 1 || n < 1 ||
	    sx->dtype != IR_F32 || sw->dtype != IR_F32)
		return lz_binary(b, IR_OP_MUL, sx, sw, NULL);
	v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return NULL;
	for (int64_t i = 0; i < n; i++)
		v[i] = (float)ir_const_get_f(sx, 0) *
		       (float)ir_const_get_f(sw, i);
	t = ir_const_new(b->g, NULL, IR_F32, &s, v, (size_t)n * sizeof(*v));
	free(v);
	return t;
}

/*
 * A scalar scale beside a per-channel zero point (which QLinearConv and
 * QLinearMatMul allow, DequantizeLinear does not): the scale repeated
 * for each channel. NULL with @err set when it is not a constant.
 */
static struct ir_tensor *scale_like(struct lz_builder *b, struct ir_tensor *s,
				    const struct ir_tensor *z, int *err)
{
	int64_t n = z ? ir_tensor_numel(z) : 1;
	struct ir_shape sh = { .rank = 1, .dim = { n } };
	struct ir_tensor *t;
	float *v;

	if (n <= 1 || ir_tensor_numel(s) != 1)
		return s;
	if (!s->data) {
		*err = -ENOTSUP;
		return NULL;
	}
	v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return NULL;
	for (int64_t i = 0; i < n; i++)
		v[i] = (float)ir_const_get_f(s, 0);
	t = ir_const_new(b->g, NULL, IR_F32, &sh, v, (size_t)n * sizeof(*v));
	free(v);
	return t;
}

static bool q8(const struct ir_tensor *t)
{
	return t && (t->dtype == IR_I8 || t->dtype == IR_U8);
}

int shape_legalize_qlinear(struct ir_graph *g, struct ir_node *n)
{
	bool conv = n->op == IR_OP_QLINEAR_CONV;
	struct ir_tensor *in[9] = { NULL }, *dx, *dw, *db = NULL, *y, *out;
	struct ir_tensor *ins[3];
	struct lz_builder b;
	int64_t axis, ra;
	int err = 0;

	for (int i = 0; i < n->num_inputs && i < 9; i++)
		in[i] = ir_in(n, i);
	if (!q8(in[0]) || !q8(in[3]) || !in[1] || !in[4] || !in[6] ||
	    in[1]->dtype != IR_F32 || in[4]->dtype != IR_F32 ||
	    in[6]->dtype != IR_F32 || (in[7] && !q8(in[7])))
		return ir_error(g, "node '%s' (%s): x and w of int8 or uint8, "
				"f32 scales and the zero points of their "
				"types are supported", n->name,
				ir_op_name(n->op));
	if (in[4]->shape.rank > 1 || in[1]->shape.rank > 1 ||
	    in[6]->shape.rank > 1)
		return ir_error(g, "node '%s' (%s): scales must be scalars or "
				"1-D (per output channel)", n->name,
				ir_op_name(n->op));
	if (conv && in[8] && in[8]->dtype != IR_I32)
		return ir_error(g, "node '%s' (QLinearConv): the bias must be "
				"int32", n->name);
	if (conv && (ir_tensor_numel(in[1]) != 1 ||
		     ir_tensor_numel(in[6]) != 1))
		return ir_error(g, "node '%s' (QLinearConv): x_scale and "
				"y_scale must be scalars", n->name);
	/* a per-row a_scale and y_scale run along a's (and y's) rows */
	ra = conv ? 1 : in[0]->shape.rank - 2;
	axis = conv ? 0 : in[3]->shape.rank - 1;
	/* built beside @n (its attributes are read), which goes last */
	b.g = g;
	b.k = 0;
	snprintf(b.base, sizeof(b.base), "%.250s", n->name);
	out = n->outputs[0];
	dx = dequant(&b, in[0], scale_like(&b, in[1], in[2], &err), in[2],
		     ra);
	dw = dequant(&b, in[3], scale_like(&b, in[4], in[5], &err), in[5],
		     axis);
	if (err)
		return ir_error(g, "node '%s' (%s): a scalar scale beside "
				"zero points per channel must be a constant",
				n->name, ir_op_name(n->op));
	/* the bias: scale sx * sw, zero point 0, as ONNX defines it */
	if (conv && in[8])
		db = dequant(&b, in[8], bias_scale(&b, in[1], in[4]), NULL, 0);
	ins[0] = dx;
	ins[1] = dw;
	ins[2] = db;
	y = lz_node(&b, conv ? IR_OP_CONV : IR_OP_MATMUL, db ? 3 : 2, ins,
		    IR_F32, NULL);
	if (!y || (conv && in[8] && !db))
		return -ENOMEM;
	if (conv && (lz_copy_attrs(y->producer, n) ||
		     ir_attr_set_int(y->producer, "npu_qlinear", 1)))
		return -ENOMEM;
	ir_node_remove(g, n);
	ins[0] = y;
	ins[1] = scale_like(&b, in[6], in[7], &err);
	ins[2] = in[7];
	if (err)
		return ir_error(g, "node '%s' (%s): a scalar y_scale beside "
				"zero points per row must be a constant",
				n->name, ir_op_name(n->op));
	y = ins[1] ? lz_node(&b, IR_OP_QUANTIZE_LINEAR, in[7] ? 3 : 2, ins,
			     in[7] ? in[7]->dtype : IR_U8, out) : NULL;
	return y && !ir_attr_set_int(y->producer, "axis", ra) ? 1 : -ENOMEM;
}
