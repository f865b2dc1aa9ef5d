// SPDX-License-Identifier: MIT
/*
 * legalize_integer.c - the integer quantization ops of ONNX Runtime's
 * dynamic quantization, in float arithmetic where that is exact:
 *
 *   MatMulInteger(A, B, [za], [zb]), ConvInteger(X, W, [zx], [zw]):
 *     Cast<int32>(MatMul / Conv(Cast<f32>(A) - za, Cast<f32>(B) - zb))
 *   exact while every int32 sum fits the 24-bit mantissa: K (the summed
 *   length, C kh kw for a convolution) times 255 x 255 (a u8 less its
 *   zero point, an i8) at most 2^24, so K <= 258; longer sums are refused
 *   (an integer product would be needed);
 *   DynamicQuantizeLinear(x): ONNX's own function body, with its final
 *   QuantizeLinear by a computed scale written as
 *   Cast<u8>(Clip(Round(x / scale) + zero_point, 0, 255)).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

#define ONNX_F32	1
#define ONNX_U8		2
#define ONNX_I32	6

static struct ir_tensor *cast_to(struct lz_builder *b, struct ir_tensor *x,
				 enum ir_dtype dt, int onnx)
{
	struct ir_tensor *t = x ? lz_node(b, IR_OP_CAST, 1, &x, dt, NULL) :
				  NULL;

	if (t && ir_attr_set_int(t->producer, "to", onnx))
		return NULL;
	return t;
}

/* f32(q) - f32(z), the zero point per channel along @axis when 1-D. */
static struct ir_tensor *centred(struct lz_builder *b, struct ir_tensor *q,
				 struct ir_tensor *z, int axis)
{
	struct ir_tensor *f = cast_to(b, q, IR_F32, ONNX_F32), *zf;
	int64_t shape[IR_MAX_RANK];

	if (!z)
		return f;
	zf = cast_to(b, z, IR_F32, ONNX_F32);
	if (z->shape.rank == 1 && z->shape.dim[0] > 1 && axis >= 0) {
		for (int d = 0; d < q->shape.rank; d++)
			shape[d] = d == axis ? z->shape.dim[0] : 1;
		zf = lz_reshape(b, zf, shape, q->shape.rank, NULL);
	}
	return lz_binary(b, IR_OP_SUB, f, zf, NULL);
}

static bool q8(const struct ir_tensor *t)
{
	return t && (t->dtype == IR_U8 || t->dtype == IR_I8);
}

static int legalize_mm_conv_integer(struct ir_graph *g, struct ir_node *n)
{
	bool conv = n->op == IR_OP_CONV_INTEGER;
	struct ir_tensor *a = n->inputs[0], *w = ir_in(n, 1), *out, *ins[2];
	struct lz_builder b;
	int64_t k = 1;

	if (!q8(a) || !q8(w) || !ir_shape_is_static(&a->shape) ||
	    !ir_shape_is_static(&w->shape) || w->shape.rank < (conv ? 3 : 1))
		return ir_error(g, "node '%s' (%s): int8/uint8 operands of "
				"static shapes are supported", n->name,
				ir_op_name(n->op));
	if (conv)
		for (int d = 1; d < w->shape.rank; d++)
			k *= w->shape.dim[d];
	else
		k = w->shape.rank == 1 ? w->shape.dim[0] :
		    w->shape.dim[w->shape.rank - 2];
	if (k > 258)
		return ir_error(g, "node '%s' (%s): sums of %lld products are "
				"not supported (at most 258: the device sums "
				"integers exactly in f32 up to 2^24)", n->name,
				ir_op_name(n->op), (long long)k);
	b.g = g;
	b.k = 0;
	snprintf(b.base, sizeof(b.base), "%.250s", n->name);
	ins[0] = centred(&b, a, ir_in(n, 2), conv ? -1 : a->shape.rank - 2);
	ins[1] = centred(&b, w, ir_in(n, 3), conv ? 0 : w->shape.rank - 1);
	if (!ins[0] || !ins[1])
		return -ENOMEM;
	ins[0] = lz_node(&b, conv ? IR_OP_CONV : IR_OP_MATMUL, 2, ins, IR_F32,
			 NULL);
	if (!ins[0] || (conv && lz_copy_attrs(ins[0]->producer, n)))
		return -ENOMEM;
	out = n->outputs[0];
	ir_node_remove(g, n);
	ins[0] = lz_node(&b, IR_OP_CAST, 1, ins, IR_I32, out);
	return ins[0] && !ir_attr_set_int(ins[0]->producer, "to", ONNX_I32) ?
	       1 : -ENOMEM;
}

/* ONNX's body of DynamicQuantizeLinear, its QuantizeLinear in f32. */
static int legalize_dynamic_quant(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *o[3], *t[6], *lo, *hi;
	int64_t all[IR_MAX_RANK];
	int r = x->shape.rank;
	struct lz_builder b;

	if (x->dtype != IR_F32)
		return ir_error(g, "node '%s' (DynamicQuantizeLinear): x must "
				"be f32", n->name);
	for (int i = 0; i < 3; i++)
		o[i] = i < n->num_outputs ? n->outputs[i] : NULL;
	for (int d = 0; d < r; d++)
		all[d] = d;
	b.g = g;
	b.k = 0;
	snprintf(b.base, sizeof(b.base), "%.250s", n->name);
	lo = ir_const_scalar_f32(g, NULL, 0.0f);
	hi = ir_const_scalar_f32(g, NULL, 255.0f);
	/* over every element, to a scalar */
	t[0] = lz_binary(&b, IR_OP_MIN, lz_reduce(&b, IR_OP_REDUCE_MIN, x,
						  all, r, 0, NULL), lo, NULL);
	t[1] = lz_binary(&b, IR_OP_MAX, lz_reduce(&b, IR_OP_REDUCE_MAX, x,
						  all, r, 0, NULL), lo, NULL);
	t[2] = lz_binary(&b, IR_OP_DIV, lz_binary(&b, IR_OP_SUB, t[1], t[0],
						  NULL), hi, NULL);	/* scale */
	t[3] = lz_binary(&b, IR_OP_SUB, lo, lz_binary(&b, IR_OP_DIV, t[0],
						      t[2], NULL), NULL);
	{
		struct ir_tensor *c[3] = { t[3], lo, hi };

		t[3] = lz_node(&b, IR_OP_CLIP, 3, c, IR_F32, NULL);
	}
	t[4] = lz_unary(&b, IR_OP_ROUND, t[3], NULL);	/* zero point, f32 */
	if (!t[4])
		return -ENOMEM;
	ir_node_remove(g, n);
	{
		struct ir_tensor *c[3] = {
			lz_binary(&b, IR_OP_ADD, lz_unary(&b, IR_OP_ROUND,
				  lz_binary(&b, IR_OP_DIV, x, t[2], NULL),
				  NULL), t[4], NULL), lo, hi };

		t[5] = lz_node(&b, IR_OP_CLIP, 3, c, IR_F32, NULL);
	}
	if (!t[5] || !lz_node(&b, IR_OP_CAST, 1, &t[5], IR_U8, o[0]) ||
	    ir_attr_set_int(o[0]->producer, "to", ONNX_U8))
		return -ENOMEM;
	if (o[1] && !lz_unary(&b, IR_OP_IDENTITY, t[2], o[1]))
		return -ENOMEM;
	if (o[2] && (!lz_node(&b, IR_OP_CAST, 1, &t[4], IR_U8, o[2]) ||
		     ir_attr_set_int(o[2]->producer, "to", ONNX_U8)))
		return -ENOMEM;
	return 1;
}

int shape_legalize_integer(struct ir_graph *g, struct ir_node *n)
{
	if (n->op == IR_OP_DYNAMIC_QUANTIZE_LINEAR)
		return legalize_dynamic_quant(g, n);
	return legalize_mm_conv_integer(g, n);
}
