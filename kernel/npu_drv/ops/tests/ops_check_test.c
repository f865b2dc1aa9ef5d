// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_check_test.c - npu_op_check(): a valid task of every opcode passes,
 * and each malformed variant is refused with -EINVAL naming the right
 * operand (or ~0u when the fault is not in an operand).
 */
#include <errno.h>
#include <string.h>
#include "ops_testlib.h"

#define NB	(~0u)
#define F32	DRM_NPU_DTYPE_F32

static struct drm_npu_task T;

static void op(u32 i, u32 dt, u32 rank, const u32 *shape)
{
	tl_opnd(&T.operands[i], (u16)i, dt, rank, shape, NULL);
}

static void expect_ok(const char *what)
{
	u32 bad = 123;
	int ret = npu_op_check(&T, &bad);

	tap_ok(ret == 0, "accepts %s (ret %d, operand %d)", what, ret, (int)bad);
}

static void expect_bad(u32 operand, const char *what)
{
	u32 bad = 123;
	int ret = npu_op_check(&T, &bad);

	tap_ok(ret == -EINVAL && bad == operand,
	       "rejects %s (ret %d, operand %d, want %d)", what, ret, (int)bad,
	       (int)operand);
}

static const u32 s23[2] = { 2, 3 }, s13[2] = { 1, 3 }, s3[1] = { 3 };

static void base_binary(void);

static void base_copy(void)
{
	tl_task(&T, DRM_NPU_OP_COPY, 2);
	op(0, F32, 2, s23);
	op(1, DRM_NPU_DTYPE_F16, 2, s23);
}

static void generic(void)
{
	tl_task(&T, DRM_NPU_OP_NOP, 0);
	expect_ok("NOP");
	T.params.raw[5] = 1;
	expect_bad(NB, "NOP with params");
	tl_task(&T, DRM_NPU_OP_NOP, 1);
	op(0, F32, 2, s23);
	expect_bad(NB, "NOP with an operand");
	tl_task(&T, DRM_NPU_OP_SEM_SIGNAL, 0);
	T.params.sem.value = 7;
	expect_ok("SEM_SIGNAL");
	T.params.sem.pad = 1;
	expect_bad(NB, "SEM_SIGNAL pad non-zero");
	tl_task(&T, 99, 0);
	expect_bad(NB, "unknown opcode");
	base_copy();
	expect_ok("COPY f32 -> f16");
	T.flags = 1;
	expect_bad(NB, "task flags");
	base_copy();
	T.reserved = 1;
	expect_bad(NB, "task reserved");
	base_copy();
	T.pad[1] = 1;
	expect_bad(NB, "task pad");
	base_copy();
	T.num_operands = 3;
	expect_bad(NB, "COPY with 3 operands");
	base_copy();
	T.operands[0].dtype = 0;
	expect_bad(0, "dtype INVALID");
	base_copy();
	T.operands[1].dtype = DRM_NPU_DTYPE_COUNT;
	expect_bad(1, "dtype past the enum");
	base_copy();
	T.operands[0].layout = DRM_NPU_LAYOUT_COUNT;
	expect_bad(0, "unknown layout");
	base_copy();
	T.operands[0].rank = 7;
	expect_bad(0, "rank 7");
	base_copy();
	T.operands[1].flags = 1;
	expect_bad(1, "operand flags");
	base_copy();
	T.operands[1].pad = 1;
	expect_bad(1, "operand pad");
	base_copy();
	T.operands[0].shape[3] = 4;
	expect_bad(0, "shape past rank");
	base_copy();
	T.operands[0].strides[2] = 4;
	expect_bad(0, "stride past rank");
	base_copy();
	op(0, F32, 6, (const u32[]){ 1u << 20, 1u << 20, 2, 1, 1, 1 });
	op(1, F32, 6, (const u32[]){ 1u << 20, 1u << 20, 2, 1, 1, 1 });
	memset(T.operands[0].strides, 0, sizeof(T.operands[0].strides));
	expect_bad(0, "2^41 elements through 0 strides");
	base_copy();
	T.operands[0].offset = 2;
	expect_bad(0, "misaligned offset");
	base_copy();
	T.operands[3].slot = 1;
	expect_bad(3, "unused operand not zero");
	base_copy();
	T.params.raw[0] = 1;
	expect_bad(NB, "COPY params not zero");
	base_copy();
	op(0, F32, 2, (const u32[]){ 2, 4 });
	expect_bad(0, "COPY shapes that do not broadcast");
	base_copy();
	op(0, F32, 1, s3);
	expect_ok("COPY broadcasting [3] to [2,3] (Expand)");
	base_copy();
	op(0, F32, 5, (const u32[]){ 1, 1, 2, 2, 8 });
	T.operands[0].layout = DRM_NPU_LAYOUT_NC1HWC0;
	expect_bad(0, "NC1HWC0 with C0 8 for f32");
	/* uapi 1.8's storage types: COPY only */
	for (u32 dt = DRM_NPU_DTYPE_F64; dt < DRM_NPU_DTYPE_COUNT; dt++) {
		base_copy();
		op(0, dt, 2, s23);
		expect_ok("COPY from a storage type");
		base_binary();
		op(1, dt, 2, s13);
		expect_bad(1, "BINARY with a storage-typed operand");
	}
}

static void base_binary(void)
{
	tl_task(&T, DRM_NPU_OP_BINARY, 3);
	op(0, F32, 2, s23);
	op(1, F32, 2, s13);
	op(2, F32, 2, s23);
	T.params.binary.kind = DRM_NPU_BINARY_ADD;
}

static void binary_unary(void)
{
	base_binary();
	expect_ok("BINARY add with broadcasting");
	T.params.binary.kind = DRM_NPU_BINARY_COUNT;
	expect_bad(NB, "BINARY unknown kind");
	base_binary();
	T.params.binary.pad = 1;
	expect_bad(NB, "BINARY pad");
	base_binary();
	T.params.binary.act.kind = DRM_NPU_ACT_COUNT;
	expect_bad(NB, "unknown activation");
	base_binary();
	T.params.binary.act.kind = DRM_NPU_ACT_RELU;
	T.params.binary.act.alpha = 1;
	expect_bad(NB, "RELU with alpha");
	base_binary();
	T.params.binary.act.kind = DRM_NPU_ACT_CLIP;
	T.params.binary.act.alpha = tl_f2u(0.0f);
	T.params.binary.act.beta = tl_f2u(6.0f);
	expect_ok("BINARY with fused CLIP(0, 6)");
	base_binary();
	T.operands[1].dtype = DRM_NPU_DTYPE_F16;
	expect_bad(1, "BINARY a/b dtypes differ");
	base_binary();
	T.params.binary.kind = DRM_NPU_BINARY_LESS;
	expect_bad(2, "comparison writing F32");
	T.operands[2].dtype = DRM_NPU_DTYPE_BOOL;
	expect_ok("comparison writing BOOL");
	base_binary();
	T.operands[0].dtype = T.operands[1].dtype = T.operands[2].dtype =
		DRM_NPU_DTYPE_BOOL;
	expect_bad(0, "BOOL ADD");
	base_binary();
	T.operands[0].dtype = T.operands[1].dtype = T.operands[2].dtype =
		DRM_NPU_DTYPE_I64;
	expect_ok("I64 ADD");
	T.params.binary.act.kind = DRM_NPU_ACT_RELU;
	expect_bad(NB, "fused activation on integers");
	base_binary();
	op(1, F32, 2, (const u32[]){ 2, 2 });
	expect_bad(1, "BINARY b does not broadcast");
	base_binary();
	op(0, F32, 3, (const u32[]){ 1, 2, 3 });
	expect_bad(0, "BINARY input rank above the output's");

	tl_task(&T, DRM_NPU_OP_UNARY, 2);
	op(0, F32, 2, s23);
	op(1, F32, 2, s23);
	T.params.unary.kind = DRM_NPU_ACT_GELU;
	expect_ok("UNARY GELU");
	T.params.unary.kind = DRM_NPU_ACT_NOT;
	expect_bad(0, "NOT on F32");
	T.params.unary.kind = DRM_NPU_ACT_LOG;
	T.operands[0].dtype = T.operands[1].dtype = DRM_NPU_DTYPE_I32;
	expect_bad(0, "LOG on I32");
	T.params.unary.kind = DRM_NPU_ACT_ABS;
	expect_ok("ABS on I32");
	T.operands[1].dtype = DRM_NPU_DTYPE_I64;
	expect_bad(1, "UNARY changing dtype");
	T.operands[1].dtype = DRM_NPU_DTYPE_I32;
	T.params.unary.pad = 3;
	expect_bad(NB, "activation pad");
}

static void base_mm(int bias)
{
	tl_task(&T, DRM_NPU_OP_MATMUL, 3 + bias);
	op(0, F32, 3, (const u32[]){ 4, 5, 6 });
	op(1, F32, 2, (const u32[]){ 6, 7 });
	if (bias)
		op(2, F32, 1, (const u32[]){ 7 });
	op(2 + bias, F32, 3, (const u32[]){ 4, 5, 7 });
	T.params.matmul.alpha = tl_f2u(1.0f);
	T.params.matmul.flags = bias ? DRM_NPU_MATMUL_HAS_BIAS : 0;
	T.params.matmul.beta = bias ? tl_f2u(1.0f) : 0;
}

static void matmul(void)
{
	base_mm(0);
	expect_ok("MATMUL [4,5,6] x [6,7]");
	base_mm(1);
	expect_ok("MATMUL with bias");
	base_mm(0);
	T.params.matmul.flags = 1u << 5;
	expect_bad(NB, "MATMUL unknown flag");
	base_mm(0);
	T.params.matmul.flags = DRM_NPU_MATMUL_HAS_BIAS;
	expect_bad(NB, "HAS_BIAS with 3 operands");
	base_mm(0);
	T.params.matmul.beta = tl_f2u(1.0f);
	expect_bad(NB, "beta without bias");
	base_mm(0);
	op(1, F32, 2, (const u32[]){ 5, 7 });
	expect_bad(1, "inner dims differ");
	base_mm(0);
	T.params.matmul.flags = DRM_NPU_MATMUL_TRANS_B;
	expect_bad(1, "TRANS_B makes inner dims differ");
	base_mm(0);
	op(2, F32, 3, (const u32[]){ 4, 5, 8 });
	expect_bad(2, "out N wrong");
	base_mm(0);
	op(0, F32, 3, (const u32[]){ 3, 5, 6 });
	expect_bad(0, "batch dims do not broadcast");
	base_mm(0);
	T.operands[1].dtype = DRM_NPU_DTYPE_F16;
	expect_bad(1, "MATMUL F16 operand");
	base_mm(1);
	op(2, F32, 1, (const u32[]){ 6 });
	expect_bad(2, "bias does not broadcast");
	base_mm(0);
	T.params.matmul.pad = 1;
	expect_bad(NB, "MATMUL pad");
}

static void base_conv(void)
{
	struct drm_npu_conv2d_params *p = &T.params.conv2d;

	tl_task(&T, DRM_NPU_OP_CONV2D, 4);
	op(0, F32, 4, (const u32[]){ 1, 4, 7, 7 });
	op(1, F32, 4, (const u32[]){ 6, 2, 3, 3 });
	op(2, F32, 1, (const u32[]){ 6 });
	op(3, F32, 4, (const u32[]){ 1, 6, 4, 4 });
	p->flags = DRM_NPU_CONV_HAS_BIAS;
	p->groups = 2;
	p->stride_h = p->stride_w = 2;
	p->dilation_h = p->dilation_w = 1;
	p->pad_top = p->pad_left = p->pad_bottom = p->pad_right = 1;
}

static void conv(void)
{
	base_conv();
	expect_ok("CONV2D groups 2, stride 2, pad 1");
	T.params.conv2d.groups = 0;
	expect_bad(NB, "groups 0");
	base_conv();
	T.params.conv2d.stride_w = 0;
	expect_bad(NB, "stride 0");
	base_conv();
	T.params.conv2d.dilation_h = 0;
	expect_bad(NB, "dilation 0");
	base_conv();
	T.params.conv2d.groups = 4;
	expect_bad(1, "O not divisible by groups");
	base_conv();
	T.params.conv2d.groups = 3;
	expect_bad(0, "C != I * groups");
	base_conv();
	op(3, F32, 4, (const u32[]){ 1, 6, 3, 4 });
	expect_bad(3, "output H inconsistent with stride/pad");
	base_conv();
	op(1, F32, 3, (const u32[]){ 6, 2, 3 });
	expect_bad(1, "weight rank 3");
	base_conv();
	op(2, F32, 1, (const u32[]){ 5 });
	expect_bad(2, "bias length");
	base_conv();
	T.params.conv2d.pad[1] = 1;
	expect_bad(NB, "CONV2D pad[] words");
	base_conv();
	T.params.conv2d.flags = 0;
	expect_bad(NB, "4 operands without HAS_BIAS");
	base_conv();
	op(0, F32, 5, (const u32[]){ 1, 1, 7, 7, 16 });
	T.operands[0].layout = DRM_NPU_LAYOUT_NC1HWC0;
	expect_ok("NC1HWC0 input");
	op(0, F32, 5, (const u32[]){ 1, 2, 7, 7, 16 });
	T.operands[0].layout = DRM_NPU_LAYOUT_NC1HWC0;
	expect_bad(0, "NC1HWC0 input with C1 != ceil(C/16)");
	base_conv();
	T.operands[0].layout = DRM_NPU_LAYOUT_NHWC;
	expect_bad(0, "NHWC layout input");
	base_conv();
	op(1, F32, 4, (const u32[]){ 6, 2, 10, 3 });
	expect_bad(3, "kernel larger than the padded input");
	/* HAS_RESIDUAL (uapi 1.7): the output's view, before the output */
	base_conv();
	T.num_operands = 5;
	T.params.conv2d.flags |= DRM_NPU_CONV_HAS_RESIDUAL;
	op(3, F32, 4, (const u32[]){ 1, 6, 4, 4 });
	op(4, F32, 4, (const u32[]){ 1, 6, 4, 4 });
	expect_ok("CONV2D with a residual");
	T.operands[3].strides[2] = 5;
	expect_bad(3, "residual strides differ from the output's");
	op(3, F32, 4, (const u32[]){ 1, 6, 1, 4 });
	expect_bad(3, "residual broadcast (shape differs)");
	op(3, F32, 4, (const u32[]){ 1, 6, 4, 4 });
	T.operands[3].layout = DRM_NPU_LAYOUT_NCHW;
	T.operands[4].layout = DRM_NPU_LAYOUT_ND;
	expect_bad(3, "residual layout differs");
	base_conv();
	T.params.conv2d.flags |= DRM_NPU_CONV_HAS_RESIDUAL;
	expect_bad(NB, "HAS_RESIDUAL with 4 operands");
	base_conv();
	T.params.conv2d.flags |= 1u << 2;
	expect_bad(NB, "unknown CONV2D flag bit 2");
}

static void base_pool(u32 kind)
{
	struct drm_npu_pool2d_params *p = &T.params.pool2d;

	tl_task(&T, DRM_NPU_OP_POOL2D, 2);
	op(0, F32, 4, (const u32[]){ 1, 3, 7, 7 });
	op(1, F32, 4, (const u32[]){ 1, 3, 4, 4 });
	p->kind = kind;
	p->kernel_h = p->kernel_w = 3;
	p->stride_h = p->stride_w = 2;
	p->dilation_h = p->dilation_w = 1;
	p->pad_top = p->pad_left = p->pad_bottom = p->pad_right = 1;
}

static void pool_softmax_reduce(void)
{
	base_pool(DRM_NPU_POOL_MAX);
	expect_ok("POOL2D max 3x3/2 pad 1");
	op(1, F32, 4, (const u32[]){ 1, 3, 5, 4 });
	expect_bad(1, "pool output H neither floor nor ceil");
	base_pool(DRM_NPU_POOL_COUNT);
	expect_bad(NB, "pool unknown kind");
	base_pool(DRM_NPU_POOL_MAX);
	T.params.pool2d.flags = DRM_NPU_POOL_COUNT_INCLUDE_PAD;
	expect_bad(NB, "COUNT_INCLUDE_PAD on MAX");
	base_pool(DRM_NPU_POOL_AVG);
	T.params.pool2d.kernel_w = 0;
	expect_bad(1, "kernel 0");
	base_pool(DRM_NPU_POOL_AVG);
	T.params.pool2d.pad_left = 3;
	expect_bad(1, "pad >= kernel");
	/* ceil mode: a 3x3/2 window over 3x2, one output (ONNX, ORT) */
	base_pool(DRM_NPU_POOL_AVG);
	op(0, F32, 4, (const u32[]){ 1, 3, 3, 2 });
	op(1, F32, 4, (const u32[]){ 1, 3, 1, 1 });
	T.params.pool2d.pad_top = T.params.pool2d.pad_left = 0;
	T.params.pool2d.pad_bottom = T.params.pool2d.pad_right = 0;
	expect_ok("ceil-mode window wider than the input by less than a stride");
	op(1, F32, 4, (const u32[]){ 1, 3, 1, 2 });
	expect_bad(1, "... with two outputs");
	T.params.pool2d.stride_w = 1;
	op(1, F32, 4, (const u32[]){ 1, 3, 1, 1 });
	expect_bad(1, "... wider by a whole stride");
	base_pool(DRM_NPU_POOL_GLOBAL_AVG);
	expect_bad(NB, "global pool with window params");
	tl_task(&T, DRM_NPU_OP_POOL2D, 2);
	op(0, F32, 4, (const u32[]){ 1, 3, 7, 7 });
	op(1, F32, 4, (const u32[]){ 1, 3, 1, 1 });
	T.params.pool2d.kind = DRM_NPU_POOL_GLOBAL_AVG;
	expect_ok("global average pool");
	op(1, F32, 4, (const u32[]){ 1, 2, 1, 1 });
	expect_bad(1, "pool changing C");

	tl_task(&T, DRM_NPU_OP_SOFTMAX, 2);
	op(0, F32, 2, s23);
	op(1, F32, 2, s23);
	T.params.softmax.axis = 1;
	expect_ok("SOFTMAX axis 1");
	T.params.softmax.axis = 2;
	expect_bad(NB, "softmax axis = rank");
	T.params.softmax.axis = 1;
	T.params.softmax.flags = 2;
	expect_bad(NB, "softmax unknown flag");
	T.params.softmax.flags = 0;
	op(1, F32, 2, s13);
	expect_bad(1, "softmax shape change");

	tl_task(&T, DRM_NPU_OP_REDUCE, 2);
	op(0, F32, 2, s23);
	op(1, F32, 2, (const u32[]){ 2, 1 });
	T.params.reduce.kind = DRM_NPU_REDUCE_MEAN;
	T.params.reduce.axes = 2;
	expect_ok("REDUCE mean over dim 1");
	T.params.reduce.axes = 4;
	expect_bad(NB, "reduce axes past rank");
	T.params.reduce.axes = 1;
	expect_bad(1, "reduce output shape wrong");
	T.params.reduce.axes = 2;
	T.params.reduce.kind = DRM_NPU_REDUCE_COUNT;
	expect_bad(NB, "reduce unknown kind");
	T.params.reduce.kind = 0;
	T.operands[0].dtype = T.operands[1].dtype = DRM_NPU_DTYPE_U8;
	expect_bad(0, "reduce U8");
}

static void norms(void)
{
	tl_task(&T, DRM_NPU_OP_LAYERNORM, 4);
	op(0, F32, 3, (const u32[]){ 2, 5, 8 });
	op(1, F32, 1, (const u32[]){ 8 });
	op(2, F32, 1, (const u32[]){ 8 });
	op(3, F32, 3, (const u32[]){ 2, 5, 8 });
	T.params.norm.axis = 2;
	T.params.norm.flags = DRM_NPU_NORM_HAS_BIAS;
	T.params.norm.epsilon = tl_f2u(1e-5f);
	expect_ok("LAYERNORM last axis with bias");
	T.params.norm.epsilon = tl_f2u(-1e-5f);
	expect_bad(NB, "negative epsilon");
	T.params.norm.epsilon = 0x7fc00000;
	expect_bad(NB, "NaN epsilon");
	T.params.norm.epsilon = tl_f2u(1e-5f);
	op(1, F32, 1, (const u32[]){ 5 });
	expect_bad(1, "scale not broadcastable to normalised dims");
	op(1, F32, 1, (const u32[]){ 8 });
	T.params.norm.axis = 3;
	expect_bad(NB, "layernorm axis = rank");

	tl_task(&T, DRM_NPU_OP_BATCHNORM, 6);
	op(0, F32, 4, (const u32[]){ 1, 3, 2, 2 });
	op(1, F32, 1, s3);
	op(2, F32, 1, s3);
	op(3, F32, 1, s3);
	op(4, F32, 1, s3);
	op(5, F32, 4, (const u32[]){ 1, 3, 2, 2 });
	T.params.norm.epsilon = tl_f2u(1e-5f);
	expect_ok("BATCHNORM");
	op(4, F32, 1, (const u32[]){ 4 });
	expect_bad(4, "batchnorm var length");
	op(4, F32, 1, s3);
	T.params.norm.axis = 1;
	expect_bad(NB, "batchnorm axis param must be zero");
}

static void gather_where_pad(void)
{
	tl_task(&T, DRM_NPU_OP_GATHER, 3);
	op(0, F32, 2, (const u32[]){ 10, 4 });
	op(1, DRM_NPU_DTYPE_I64, 2, s23);
	op(2, F32, 3, (const u32[]){ 2, 3, 4 });
	expect_ok("GATHER axis 0, 2-D indices");
	T.operands[1].dtype = F32;
	expect_bad(1, "float indices");
	T.operands[1].dtype = DRM_NPU_DTYPE_I32;
	op(2, F32, 3, (const u32[]){ 2, 3, 5 });
	expect_bad(2, "gather out shape");
	op(2, F32, 3, (const u32[]){ 2, 3, 4 });
	T.params.gather.axis = 2;
	expect_bad(NB, "gather axis out of range");

	tl_task(&T, DRM_NPU_OP_WHERE, 4);
	op(0, DRM_NPU_DTYPE_BOOL, 2, s13);
	op(1, F32, 2, s23);
	op(2, F32, 0, NULL);
	op(3, F32, 2, s23);
	expect_ok("WHERE with broadcast cond and scalar y");
	T.operands[0].dtype = DRM_NPU_DTYPE_U8;
	expect_bad(0, "where cond not BOOL");
	T.operands[0].dtype = DRM_NPU_DTYPE_BOOL;
	T.operands[2].dtype = DRM_NPU_DTYPE_I32;
	expect_bad(2, "where x/y dtypes differ");

	tl_task(&T, DRM_NPU_OP_PAD, 2);
	op(0, F32, 2, s23);
	op(1, F32, 2, (const u32[]){ 4, 7 });
	T.params.padding.mode = DRM_NPU_PAD_REFLECT;
	T.params.padding.before[0] = 1;
	T.params.padding.before[1] = 2;
	expect_ok("PAD reflect");
	T.params.padding.before[1] = 3;
	expect_bad(0, "reflect pad >= extent");
	T.params.padding.before[1] = 5;
	expect_bad(1, "out smaller than in + before");
	T.params.padding.before[1] = 2;
	T.params.padding.value = 1;
	expect_bad(NB, "value in REFLECT mode");
	T.params.padding.value = 0;
	T.params.padding.before[4] = 1;
	expect_bad(NB, "before[] past rank");
	T.params.padding.before[4] = 0;
	T.params.padding.mode = DRM_NPU_PAD_MODE_COUNT;
	expect_bad(NB, "unknown pad mode");
}

static void resize_trans_quant_attn(void)
{
	tl_task(&T, DRM_NPU_OP_RESIZE, 2);
	op(0, F32, 4, (const u32[]){ 1, 2, 3, 3 });
	op(1, F32, 4, (const u32[]){ 1, 2, 6, 6 });
	T.params.resize.mode = DRM_NPU_RESIZE_LINEAR;
	expect_ok("RESIZE linear x2");
	T.params.resize.scale[2] = tl_f2u(-2.0f);
	expect_bad(NB, "negative scale");
	T.params.resize.scale[2] = 0;
	T.params.resize.scale[5] = tl_f2u(2.0f);
	expect_bad(NB, "scale past rank");
	T.params.resize.scale[5] = 0;
	T.params.resize.nearest = 1;
	expect_bad(NB, "nearest mode given for LINEAR");
	T.params.resize.nearest = 0;
	T.operands[0].dtype = T.operands[1].dtype = DRM_NPU_DTYPE_I32;
	expect_bad(0, "LINEAR on I32");
	T.params.resize.mode = DRM_NPU_RESIZE_NEAREST;
	expect_ok("NEAREST on I32");
	T.params.resize.coord = DRM_NPU_RESIZE_COORD_COUNT;
	expect_bad(NB, "unknown coordinate transform");
	T.params.resize.coord = 0;
	T.params.resize.cubic_a = tl_f2u(-0.75f);
	expect_bad(NB, "cubic_a given for NEAREST");
	T.params.resize.mode = DRM_NPU_RESIZE_CUBIC;
	expect_bad(0, "CUBIC on I32");
	T.operands[0].dtype = T.operands[1].dtype = DRM_NPU_DTYPE_F32;
	T.params.resize.flags = DRM_NPU_RESIZE_EXCLUDE_OUTSIDE;
	expect_ok("RESIZE cubic exclude_outside");
	T.params.resize.flags = 2;
	expect_bad(NB, "unknown RESIZE flag");
	T.params.resize.flags = 0;
	T.params.resize.cubic_a = 0x7fc00000;
	expect_bad(NB, "cubic_a NaN");
	T.params.resize.cubic_a = 0;
	T.params.resize.mode = DRM_NPU_RESIZE_LINEAR;
	T.params.resize.flags = DRM_NPU_RESIZE_EXCLUDE_OUTSIDE;
	expect_bad(NB, "exclude_outside given for LINEAR");
	T.params.resize.mode = DRM_NPU_RESIZE_MODE_COUNT;
	T.params.resize.flags = 0;
	expect_bad(NB, "unknown RESIZE mode");
	T.params.resize.mode = DRM_NPU_RESIZE_LINEAR;
	T.params.resize.roi_end[2] = tl_f2u(1.0f);
	expect_bad(NB, "a roi without TF_CROP_AND_RESIZE");
	T.params.resize.coord = DRM_NPU_RESIZE_TF_CROP_AND_RESIZE;
	T.params.resize.extrapolation = tl_f2u(-1.0f);
	expect_ok("RESIZE tf_crop_and_resize");
	T.params.resize.roi_start[3] = 0x7f800000u;
	expect_bad(NB, "an infinite roi");

	tl_task(&T, DRM_NPU_OP_GRID_SAMPLE, 3);
	op(0, F32, 4, (const u32[]){ 1, 2, 3, 3 });
	op(1, F32, 4, (const u32[]){ 1, 4, 5, 2 });
	op(2, F32, 4, (const u32[]){ 1, 2, 4, 5 });
	expect_ok("GRID_SAMPLE bilinear");
	T.params.grid_sample.mode = DRM_NPU_GRID_SAMPLE_MODE_COUNT;
	expect_bad(NB, "unknown GRID_SAMPLE mode");
	T.params.grid_sample.mode = 0;
	T.params.grid_sample.flags = 2;
	expect_bad(NB, "unknown GRID_SAMPLE flag");
	T.params.grid_sample.flags = 0;
	T.operands[2].shape[3] = 6;
	expect_bad(2, "GRID_SAMPLE out not grid's Ho x Wo");
	T.operands[2].shape[3] = 5;
	T.operands[1].dtype = DRM_NPU_DTYPE_F16;
	expect_bad(1, "GRID_SAMPLE grid of F16");

	tl_task(&T, DRM_NPU_OP_ROI_ALIGN, 4);
	op(0, F32, 4, (const u32[]){ 2, 3, 8, 8 });
	op(1, F32, 2, (const u32[]){ 5, 4 });
	op(2, DRM_NPU_DTYPE_I64, 1, (const u32[]){ 5 });
	op(3, F32, 4, (const u32[]){ 5, 3, 2, 2 });
	T.params.roi_align.spatial_scale = tl_f2u(0.25f);
	expect_ok("ROI_ALIGN avg");
	T.params.roi_align.mode = DRM_NPU_ROI_ALIGN_MODE_COUNT;
	expect_bad(NB, "unknown ROI_ALIGN mode");
	T.params.roi_align.mode = DRM_NPU_ROI_ALIGN_MAX;
	T.operands[2].dtype = DRM_NPU_DTYPE_F32;
	expect_bad(2, "ROI_ALIGN batch indices of F32");
	T.operands[2].dtype = DRM_NPU_DTYPE_I32;
	expect_ok("ROI_ALIGN max, I32 batch indices");
	T.operands[1].shape[1] = 5;
	expect_bad(1, "ROI_ALIGN rois [R, 5]");
	T.operands[1].shape[1] = 4;
	T.operands[3].shape[1] = 4;
	expect_bad(3, "ROI_ALIGN out channels not in's");

	tl_task(&T, DRM_NPU_OP_TRANSDATA, 2);
	op(0, F32, 4, (const u32[]){ 1, 20, 3, 3 });
	op(1, F32, 5, (const u32[]){ 1, 2, 3, 3, 16 });
	T.operands[1].layout = DRM_NPU_LAYOUT_NC1HWC0;
	expect_ok("TRANSDATA NCHW -> NC1HWC0");
	op(1, F32, 5, (const u32[]){ 1, 3, 3, 3, 16 });
	T.operands[1].layout = DRM_NPU_LAYOUT_NC1HWC0;
	expect_bad(1, "C1 != ceil(C/C0)");
	T.operands[1].layout = 0;
	op(1, F32, 4, (const u32[]){ 1, 20, 3, 3 });
	expect_bad(1, "neither side NC1HWC0");
	op(0, DRM_NPU_DTYPE_I8, 4, (const u32[]){ 1, 20, 3, 3 });
	op(1, DRM_NPU_DTYPE_I8, 5, (const u32[]){ 1, 1, 3, 3, 32 });
	T.operands[1].layout = DRM_NPU_LAYOUT_NC1HWC0;
	expect_ok("TRANSDATA I8 with C0 32");

	tl_task(&T, DRM_NPU_OP_QUANTIZE, 2);
	op(0, F32, 2, s23);
	op(1, DRM_NPU_DTYPE_I8, 2, s23);
	T.params.quant.scale = tl_f2u(0.1f);
	T.params.quant.zero_point = -3;
	expect_ok("QUANTIZE per tensor");
	T.params.quant.zero_point = 200;
	expect_bad(NB, "zero point outside I8");
	T.params.quant.zero_point = 0;
	T.params.quant.scale = 0;
	expect_bad(NB, "scale 0");
	T.params.quant.scale = tl_f2u(0.1f);
	T.operands[1].dtype = F32;
	expect_bad(1, "QUANTIZE to F32");
	T.operands[1].dtype = DRM_NPU_DTYPE_U8;
	T.num_operands = 3;
	op(2, F32, 1, s3);
	T.params.quant.flags = DRM_NPU_QUANT_PER_CHANNEL;
	T.params.quant.scale = 0;
	T.params.quant.axis = 1;
	expect_ok("QUANTIZE per channel");
	T.params.quant.axis = 0;
	expect_bad(2, "per-channel scales of the wrong length");

	tl_task(&T, DRM_NPU_OP_ATTENTION, 5);
	op(0, F32, 3, (const u32[]){ 2, 4, 8 });
	op(1, F32, 3, (const u32[]){ 2, 6, 8 });
	op(2, F32, 3, (const u32[]){ 2, 6, 5 });
	op(3, DRM_NPU_DTYPE_BOOL, 2, (const u32[]){ 1, 6 });
	op(4, F32, 3, (const u32[]){ 2, 4, 5 });
	T.params.attention.scale = tl_f2u(0.35f);
	T.params.attention.flags = DRM_NPU_ATTN_HAS_MASK;
	expect_ok("ATTENTION with a BOOL key mask");
	op(2, F32, 3, (const u32[]){ 2, 7, 5 });
	expect_bad(2, "k/v lengths differ");
	op(2, F32, 3, (const u32[]){ 2, 6, 5 });
	op(1, F32, 3, (const u32[]){ 2, 6, 9 });
	expect_bad(1, "q/k head sizes differ");
	op(1, F32, 3, (const u32[]){ 2, 6, 8 });
	T.params.attention.flags = 0;
	expect_bad(NB, "mask operand without HAS_MASK");
}

int main(void)
{
	generic();
	binary_unary();
	matmul();
	conv();
	pool_softmax_reduce();
	norms();
	gather_where_pad();
	resize_trans_quant_attn();
	return tap_done();
}
