// SPDX-License-Identifier: MIT
/*
 * ir_types.c - names and sizes of IR dtypes, layouts, ops and activations.
 */
#include <string.h>

#include "ir.h"

size_t ir_dtype_size(enum ir_dtype dt)
{
	switch (dt) {
	case IR_F32: case IR_I32: case IR_U32: return 4;
	case IR_F16: case IR_BF16: case IR_I16: case IR_U16: return 2;
	case IR_I8: case IR_U8: case IR_BOOL: return 1;
	case IR_I64: case IR_F64: case IR_U64: return 8;
	default: return 0;
	}
}

/* ONNX TensorProto.DataType by IR dtype. */
static const int ir_onnx_types[IR_DTYPE_COUNT] = {
	[IR_F32] = 1, [IR_U8] = 2, [IR_I8] = 3, [IR_I32] = 6, [IR_I64] = 7,
	[IR_BOOL] = 9, [IR_F16] = 10, [IR_F64] = 11, [IR_BF16] = 16,
	[IR_I16] = 5, [IR_U16] = 4, [IR_U32] = 12, [IR_U64] = 13,
};

int ir_dtype_to_onnx(enum ir_dtype dt)
{
	return (unsigned int)dt < IR_DTYPE_COUNT ? ir_onnx_types[dt] : 0;
}

enum ir_dtype ir_dtype_from_onnx(int64_t onnx_type)
{
	for (int dt = 1; dt < IR_DTYPE_COUNT; dt++)
		if (ir_onnx_types[dt] && ir_onnx_types[dt] == onnx_type)
			return (enum ir_dtype)dt;
	return IR_DTYPE_INVALID;
}

enum ir_dtype ir_dtype_compute(enum ir_dtype dt)
{
	switch (dt) {
	case IR_F64: case IR_BF16: return IR_F32;
	case IR_I16: case IR_U16: return IR_I32;
	case IR_U32: case IR_U64: return IR_I64;
	default: return dt;
	}
}

const char *ir_dtype_name(enum ir_dtype dt)
{
	static const char *const names[IR_DTYPE_COUNT] = {
		"invalid", "f32", "f16", "i8", "u8", "i32", "i64", "bool",
		NULL, "f64", "bf16", "i16", "u16", "u32", "u64",
	};

	return (unsigned int)dt < IR_DTYPE_COUNT && names[dt] ? names[dt] :
	       "invalid";
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

/*
 * Most inputs each op's ONNX schema allows (opset 17/18: the optional ones
 * counted); -1 when variadic, or made by a pass. A model with more is
 * invalid, not a model to compile by ignoring the rest.
 */
int ir_op_max_inputs(enum ir_op op)
{
	switch (op) {
	case IR_OP_CONSTANT: case IR_OP_RANDOM_UNIFORM:
	case IR_OP_RANDOM_NORMAL:
		return 0;
	case IR_OP_IDENTITY: case IR_OP_RELU: case IR_OP_SIGMOID:
	case IR_OP_TANH: case IR_OP_EXP: case IR_OP_SQRT:
	case IR_OP_LEAKY_RELU: case IR_OP_HARD_SIGMOID: case IR_OP_HARD_SWISH:
	case IR_OP_ERF: case IR_OP_NEG: case IR_OP_ABS: case IR_OP_LOG:
	case IR_OP_RECIPROCAL: case IR_OP_ELU: case IR_OP_SOFTPLUS:
	case IR_OP_FLOOR: case IR_OP_CEIL: case IR_OP_NOT:
	case IR_OP_MAX_POOL: case IR_OP_AVERAGE_POOL:
	case IR_OP_GLOBAL_AVERAGE_POOL: case IR_OP_GLOBAL_MAX_POOL:
	case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX: case IR_OP_FLATTEN:
	case IR_OP_TRANSPOSE: case IR_OP_SHAPE: case IR_OP_CONSTANT_OF_SHAPE:
	case IR_OP_CAST: case IR_OP_SIZE: case IR_OP_SELU: case IR_OP_SOFTSIGN:
	case IR_OP_THRESHOLDED_RELU: case IR_OP_SIGN: case IR_OP_ROUND:
	case IR_OP_IS_NAN: case IR_OP_IS_INF: case IR_OP_CELU:
	case IR_OP_SHRINK: case IR_OP_HARDMAX: case IR_OP_SINH:
	case IR_OP_COSH: case IR_OP_DEPTH_TO_SPACE: case IR_OP_SPACE_TO_DEPTH:
	case IR_OP_MVN: case IR_OP_LRN: case IR_OP_ARG_MAX: case IR_OP_ARG_MIN:
	case IR_OP_SIN: case IR_OP_COS: case IR_OP_TAN: case IR_OP_ASIN:
	case IR_OP_ACOS: case IR_OP_ATAN: case IR_OP_ASINH: case IR_OP_ACOSH:
	case IR_OP_ATANH: case IR_OP_EYE_LIKE: case IR_OP_HANN_WINDOW:
	case IR_OP_HAMMING_WINDOW: case IR_OP_BLACKMAN_WINDOW:
	case IR_OP_NON_ZERO: case IR_OP_UNIQUE: case IR_OP_TFIDF_VECTORIZER:
	case IR_OP_RANDOM_UNIFORM_LIKE: case IR_OP_RANDOM_NORMAL_LIKE:
	case IR_OP_BERNOULLI:
		return 1;
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
	case IR_OP_POW: case IR_OP_PRELU: case IR_OP_EQUAL: case IR_OP_LESS:
	case IR_OP_GREATER: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR:
	case IR_OP_GREATER_OR_EQUAL: case IR_OP_LESS_OR_EQUAL:
	case IR_OP_CAST_LIKE: case IR_OP_MATMUL: case IR_OP_GATHER:
	case IR_OP_EXPAND: case IR_OP_RESHAPE: case IR_OP_SQUEEZE:
	case IR_OP_UNSQUEEZE: case IR_OP_SPLIT: case IR_OP_TRILU:
	case IR_OP_REDUCE_SUM: case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_MAX:
	case IR_OP_REDUCE_MIN: case IR_OP_REDUCE_PROD:
	case IR_OP_REDUCE_SUM_SQUARE: case IR_OP_REDUCE_L1:
	case IR_OP_REDUCE_L2: case IR_OP_REDUCE_LOG_SUM:
	case IR_OP_REDUCE_LOG_SUM_EXP: case IR_OP_MOD: case IR_OP_TILE:
	case IR_OP_GATHER_ELEMENTS: case IR_OP_GATHER_ND: case IR_OP_CUM_SUM:
	case IR_OP_TOPK: case IR_OP_UPSAMPLE: case IR_OP_COMPRESS:
	case IR_OP_GRID_SAMPLE:
	case IR_OP_REVERSE_SEQUENCE: case IR_OP_BIT_SHIFT:
		return 2;
	case IR_OP_CONV: case IR_OP_GEMM: case IR_OP_CLIP: case IR_OP_WHERE:
	case IR_OP_RANGE: case IR_OP_QUANTIZE_LINEAR:
	case IR_OP_DEQUANTIZE_LINEAR: case IR_OP_DROPOUT: case IR_OP_ONE_HOT:
	case IR_OP_CONV_TRANSPOSE: case IR_OP_INSTANCE_NORM:
	case IR_OP_SCATTER_ND: case IR_OP_SCATTER_ELEMENTS: case IR_OP_SCATTER:
	case IR_OP_MAX_UNPOOL: case IR_OP_ROI_ALIGN: case IR_OP_DFT:
		return 3;
	case IR_OP_PAD: case IR_OP_RESIZE: case IR_OP_STFT:
		return 4;
	case IR_OP_SLICE: case IR_OP_BATCH_NORM: case IR_OP_NON_MAX_SUPPRESSION:
	case IR_OP_MEL_WEIGHT_MATRIX:
		return 5;
	case IR_OP_RNN: case IR_OP_GRU:
		return 6;
	case IR_OP_LSTM:
		return 8;
	default:
		return -1;
	}
}
