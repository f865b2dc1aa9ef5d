// SPDX-License-Identifier: MIT
/*
 * legalize_bitshift.c - ONNX BitShift (unsigned integers) as a product or
 * a quotient by a power of two:
 *
 *   x << y = x * 2^y,  x >> y = x / 2^y,  0 where y is not in [0, w)
 *
 * 2^y is a Gather from a constant table of the compute type's w powers
 * (w = 8 for uint8; uint16 computes in int32, uint32 and uint64 in int64,
 * onnx_storage.c). The product wraps in the compute type and at the
 * output's cast to the narrow type, which leaves the bits a shift in the
 * narrow type gives; the quotient of a non-negative value is its floor.
 * uint64 values of 2^63 and more shift right as negative int64 (see
 * Documentation/compiler-ir.rst, "Storage types").
 */
#include <errno.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

static struct ir_tensor *bs_scalar(struct ir_graph *g, enum ir_dtype dt,
				   int64_t v)
{
	struct ir_shape s = { 0 };
	int32_t v32 = (int32_t)v;
	uint8_t v8 = (uint8_t)v;

	if (dt == IR_U8)
		return ir_const_new(g, NULL, dt, &s, &v8, 1);
	if (dt == IR_I32)
		return ir_const_new(g, NULL, dt, &s, &v32, 4);
	return ir_const_new(g, NULL, dt, &s, &v, 8);
}

int shape_legalize_bitshift(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = ir_in(n, 0), *y = ir_in(n, 1), *out, *idx, *p;
	struct ir_tensor *ins[3], *bad;
	const char *dir = ir_attr_str(n, "direction", "");
	enum ir_dtype dt;
	struct ir_shape s;
	struct lz_builder b;
	uint8_t t8[8];
	int32_t t32[32];
	int64_t t64[64];
	int w;

	if (!x || !y || n->num_outputs != 1)
		return 0;	/* malformed: left to shape inference */
	dt = x->dtype;
	if (y->dtype != dt || (dt != IR_U8 && dt != IR_I32 && dt != IR_I64) ||
	    (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT")))
		return ir_error(g, "node '%s' (BitShift): unsigned integer "
				"inputs of one type and direction LEFT or "
				"RIGHT are supported", n->name);
	w = dt == IR_U8 ? 8 : dt == IR_I32 ? 32 : 64;
	for (int i = 0; i < w; i++) {
		if (i < 8)
			t8[i] = (uint8_t)(1u << i);
		if (i < 32)
			t32[i] = (int32_t)(uint32_t)(1u << i);
		t64[i] = (int64_t)((uint64_t)1 << i);
	}
	s = (struct ir_shape){ .rank = 1, .dim = { w } };
	out = lz_take(&b, g, n);
	ins[0] = ir_const_new(g, NULL, dt, &s, dt == IR_U8 ? (void *)t8 :
			      dt == IR_I32 ? (void *)t32 : (void *)t64,
			      (size_t)w * ir_dtype_size(dt));
	/* the index clamped into the table, the out-of-range shifts zeroed */
	idx = lz_binary(&b, IR_OP_MIN, y, bs_scalar(g, dt, w - 1), NULL);
	if (dt != IR_U8)
		idx = lz_binary(&b, IR_OP_MAX, idx, bs_scalar(g, dt, 0), NULL);
	else	/* Gather's indices are I32 or I64 */
		idx = idx ? lz_cast(&b, idx, IR_I32, 6, NULL) : NULL;
	ins[1] = idx;
	p = lz_node(&b, IR_OP_GATHER, 2, ins, dt, NULL);
	if (!p || ir_attr_set_int(p->producer, "axis", 0))
		return -ENOMEM;
	p = lz_binary(&b, strcmp(dir, "LEFT") ? IR_OP_DIV : IR_OP_MUL, x, p,
		      NULL);
	bad = lz_binary(&b, IR_OP_GREATER, y, bs_scalar(g, dt, w - 1), NULL);
	if (dt != IR_U8)
		bad = lz_binary(&b, IR_OP_OR, bad, lz_binary(
			&b, IR_OP_LESS, y, bs_scalar(g, dt, 0), NULL), NULL);
	return lz_where(&b, bad, bs_scalar(g, dt, 0), p, out) ? 1 : -ENOMEM;
}
