// SPDX-License-Identifier: MIT
/*
 * ir_types.c - names and sizes of IR dtypes, layouts, ops and activations.
 */
#include <string.h>

#include "ir.h"

size_t ir_dtype_size(enum ir_dtype dt)
{
	switch (dt) {
	case IR_F32: case IR_I32: return 4;
	case IR_F16: return 2;
	case IR_I8: case IR_U8: case IR_BOOL: return 1;
	case IR_I64: return 8;
	default: return 0;
	}
}

const char *ir_dtype_name(enum ir_dtype dt)
{
	static const char *const names[IR_DTYPE_COUNT] = {
		"invalid", "f32", "f16", "i8", "u8", "i32", "i64", "bool",
	};

	return (unsigned int)dt < IR_DTYPE_COUNT ? names[dt] : "invalid";
}

const char *ir_layout_name(enum ir_layout l)
{
	static const char *const names[IR_LAYOUT_COUNT] = {
		"ND", "NCHW", "NHWC", "NC1HWC0",
	};

	return (unsigned int)l < IR_LAYOUT_COUNT ? names[l] : "?";
}

static const char *const ir_op_names[IR_OP_COUNT] = {
	[IR_OP_INVALID] = "invalid",
#define IR_OP_NAME(e, s) [IR_OP_##e] = s,
	IR_OPS(IR_OP_NAME)
#undef IR_OP_NAME
};

const char *ir_op_name(enum ir_op op)
{
	return (unsigned int)op < IR_OP_COUNT ? ir_op_names[op] : "invalid";
}

enum ir_op ir_op_from_name(const char *s)
{
	int i;

	/* Ops made by passes (npu.*) are not importable. */
	for (i = 1; i < IR_OP_COUNT; i++)
		if (strncmp(ir_op_names[i], "npu.", 4) &&
		    !strcmp(ir_op_names[i], s))
			return (enum ir_op)i;
	return IR_OP_INVALID;
}

const char *ir_act_name(enum ir_act_kind k)
{
	static const char *const names[IR_ACT_COUNT] = {
		"none", "relu", "sigmoid", "tanh", "gelu", "exp", "sqrt",
		"clip", "leaky_relu", "hardsigmoid", "hardswish", "erf", "neg",
		"abs", "log", "reciprocal", "gelu_tanh", "silu", "elu",
		"softplus", "floor", "ceil", "not",
	};

	return (unsigned int)k < IR_ACT_COUNT ? names[k] : "?";
}
