// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_chunk_test.c - chunking invariance for every computing opcode:
 * running all work units at once and running them in random chunks must
 * give the same bytes (the contract of npu_op_work_units()/npu_op_run()).
 * Also: the tasks documented as in-place capable give the same bytes when
 * their output is their input. The value checks live in the other tests;
 * this one only compares runs.
 */
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"

#define F32	DRM_NPU_DTYPE_F32
#define BUF	(64 * 1024)

static struct drm_npu_task T;
static u8 *buf[DRM_NPU_MAX_OPERANDS];

static void op(u32 i, u32 dt, u32 rank, const u32 *shape)
{
	tl_opnd(&T.operands[i], (u16)i, dt, rank, shape, NULL);
}

/* Fill the inputs with small random values of their dtype. */
static void fill_inputs(u32 out)
{
	u32 i, k;

	for (i = 0; i < T.num_operands; i++) {
		const struct drm_npu_operand *o = &T.operands[i];
		u64 n = tl_numel(o);

		if (i == out)
			continue;
		for (k = 0; k < n; k++) {
			switch (o->dtype) {
			case DRM_NPU_DTYPE_F32:
				((float *)buf[i])[k] = tl_uniform(-2, 2);
				break;
			case DRM_NPU_DTYPE_I64:
				((int64_t *)buf[i])[k] = (int64_t)(tl_rand() % 5);
				break;
			case DRM_NPU_DTYPE_I32:
				((int32_t *)buf[i])[k] = (int32_t)(tl_rand() % 5);
				break;
			case DRM_NPU_DTYPE_BOOL:
				buf[i][k] = tl_rand() & 1;
				break;
			default:
				buf[i][k] = (u8)tl_rand();
			}
		}
	}
}

static void same_bits(const char *what, u32 out)
{
	u64 bytes = tl_numel(&T.operands[out]) *
		    npu_dtype_size(T.operands[out].dtype);
	u8 *first = malloc(bytes ? bytes : 1);
	void *data[DRM_NPU_MAX_OPERANDS];
	int ok, i;

	for (i = 0; i < DRM_NPU_MAX_OPERANDS; i++)
		data[i] = buf[i];
	fill_inputs(out);
	memset(buf[out], 0xa5, BUF);
	ok = tl_run(&T, data) == 0;
	memcpy(first, buf[out], bytes);
	for (i = 0; i < 3 && ok; i++) {
		memset(buf[out], 0x5a, BUF);
		ok = tl_run_chunked(&T, data) == 0 &&
		     !memcmp(first, buf[out], bytes);
	}
	tap_ok(ok, "%s: %llu units, chunked runs give the same bytes", what,
	       (unsigned long long)npu_op_work_units(&T));
	free(first);
}

/* Tasks documented as in-place capable give the out-of-place bytes. */
static void in_place(void)
{
	static const u32 ops_[] = { DRM_NPU_OP_BINARY, DRM_NPU_OP_UNARY,
				    DRM_NPU_OP_SOFTMAX, DRM_NPU_OP_LAYERNORM };
	enum { N = 7 * 300 };
	static float x[N], y[N], z[N], sc[300];
	u32 k, i;

	for (k = 0; k < sizeof(ops_) / sizeof(ops_[0]); k++) {
		void *data[4];
		int ok;

		for (i = 0; i < N; i++)
			x[i] = tl_uniform(-3, 3);
		for (i = 0; i < 300; i++)
			sc[i] = tl_uniform(0.5f, 1.5f);
		memcpy(z, x, sizeof(x));
		tl_task(&T, ops_[k], 2);
		op(0, F32, 2, (const u32[]){ 7, 300 });
		op(1, F32, 2, (const u32[]){ 7, 300 });
		data[0] = x;
		data[1] = y;
		if (ops_[k] == DRM_NPU_OP_BINARY) {
			T.num_operands = 3;
			op(1, F32, 1, (const u32[]){ 300 });
			op(2, F32, 2, (const u32[]){ 7, 300 });
			T.params.binary.kind = DRM_NPU_BINARY_DIV;
			T.params.binary.act.kind = DRM_NPU_ACT_TANH;
			data[1] = sc;
			data[2] = y;
		} else if (ops_[k] == DRM_NPU_OP_UNARY) {
			T.params.unary.kind = DRM_NPU_ACT_SOFTPLUS;
		} else if (ops_[k] == DRM_NPU_OP_SOFTMAX) {
			T.params.softmax.axis = 1;
		} else {
			T.num_operands = 3;
			op(1, F32, 1, (const u32[]){ 300 });
			op(2, F32, 2, (const u32[]){ 7, 300 });
			T.params.norm.axis = 1;
			T.params.norm.epsilon = tl_f2u(1e-5f);
			data[1] = sc;
			data[2] = y;
		}
		ok = tl_run(&T, data) == 0;
		data[T.num_operands - 1] = z;
		data[0] = z;
		ok &= tl_run(&T, data) == 0 && !memcmp(y, z, sizeof(y));
		tap_ok(ok, "opcode %u in place gives the out-of-place bytes",
		       ops_[k]);
	}
}

int main(void)
{
	u32 i;

	tl_seed(2024);
	for (i = 0; i < DRM_NPU_MAX_OPERANDS; i++)
		buf[i] = calloc(1, BUF);

	tl_task(&T, DRM_NPU_OP_COPY, 2);
	op(0, F32, 3, (const u32[]){ 5, 6, 7 });
	op(1, DRM_NPU_DTYPE_F16, 3, (const u32[]){ 5, 6, 7 });
	same_bits("COPY f32 -> f16", 1);

	tl_task(&T, DRM_NPU_OP_BINARY, 3);
	op(0, DRM_NPU_DTYPE_I64, 2, (const u32[]){ 9, 1 });
	op(1, DRM_NPU_DTYPE_I64, 1, (const u32[]){ 13 });
	op(2, DRM_NPU_DTYPE_I64, 2, (const u32[]){ 9, 13 });
	T.params.binary.kind = DRM_NPU_BINARY_POW;
	same_bits("BINARY I64 POW", 2);

	tl_task(&T, DRM_NPU_OP_UNARY, 2);
	op(0, F32, 3, (const u32[]){ 4, 9, 17 });
	op(1, F32, 3, (const u32[]){ 4, 9, 17 });
	T.params.unary.kind = DRM_NPU_ACT_GELU;
	same_bits("UNARY GELU", 1);

	tl_task(&T, DRM_NPU_OP_WHERE, 4);
	op(0, DRM_NPU_DTYPE_BOOL, 2, (const u32[]){ 6, 11 });
	op(1, F32, 2, (const u32[]){ 6, 11 });
	op(2, F32, 1, (const u32[]){ 11 });
	op(3, F32, 2, (const u32[]){ 6, 11 });
	same_bits("WHERE", 3);

	tl_task(&T, DRM_NPU_OP_PAD, 2);
	op(0, F32, 3, (const u32[]){ 3, 5, 6 });
	op(1, F32, 3, (const u32[]){ 5, 9, 9 });
	T.params.padding.mode = DRM_NPU_PAD_REFLECT;
	T.params.padding.before[0] = 1;
	T.params.padding.before[1] = 2;
	T.params.padding.before[2] = 1;
	same_bits("PAD reflect", 1);

	tl_task(&T, DRM_NPU_OP_RESIZE, 2);
	op(0, F32, 4, (const u32[]){ 1, 3, 7, 5 });
	op(1, F32, 4, (const u32[]){ 1, 3, 13, 11 });
	T.params.resize.mode = DRM_NPU_RESIZE_LINEAR;
	same_bits("RESIZE bilinear", 1);

	tl_task(&T, DRM_NPU_OP_GATHER, 3);
	op(0, F32, 3, (const u32[]){ 4, 5, 6 });
	op(1, DRM_NPU_DTYPE_I32, 2, (const u32[]){ 3, 2 });
	op(2, F32, 4, (const u32[]){ 4, 3, 2, 6 });
	T.params.gather.axis = 1;
	same_bits("GATHER axis 1", 2);

	tl_task(&T, DRM_NPU_OP_REDUCE, 2);
	op(0, F32, 3, (const u32[]){ 7, 8, 9 });
	op(1, F32, 3, (const u32[]){ 7, 1, 9 });
	T.params.reduce.kind = DRM_NPU_REDUCE_MEAN;
	T.params.reduce.axes = 2;
	same_bits("REDUCE mean", 1);

	tl_task(&T, DRM_NPU_OP_QUANTIZE, 2);
	op(0, F32, 2, (const u32[]){ 10, 12 });
	op(1, DRM_NPU_DTYPE_I8, 2, (const u32[]){ 10, 12 });
	T.params.quant.scale = tl_f2u(0.02f);
	same_bits("QUANTIZE", 1);

	tl_task(&T, DRM_NPU_OP_DEQUANTIZE, 2);
	op(0, DRM_NPU_DTYPE_U8, 2, (const u32[]){ 10, 12 });
	op(1, F32, 2, (const u32[]){ 10, 12 });
	T.params.quant.scale = tl_f2u(0.02f);
	T.params.quant.zero_point = 7;
	same_bits("DEQUANTIZE", 1);

	tl_task(&T, DRM_NPU_OP_TRANSDATA, 2);
	op(0, F32, 4, (const u32[]){ 2, 21, 5, 3 });
	op(1, F32, 5, (const u32[]){ 2, 2, 5, 3, 16 });
	T.operands[1].layout = DRM_NPU_LAYOUT_NC1HWC0;
	same_bits("TRANSDATA", 1);

	tl_task(&T, DRM_NPU_OP_POOL2D, 2);
	op(0, F32, 4, (const u32[]){ 2, 3, 9, 9 });
	op(1, F32, 4, (const u32[]){ 2, 3, 5, 5 });
	T.params.pool2d = (struct drm_npu_pool2d_params){
		DRM_NPU_POOL_AVG, DRM_NPU_POOL_COUNT_INCLUDE_PAD, 3, 3, 2, 2,
		1, 1, 1, 1, 1, 1 };
	same_bits("POOL2D avg", 1);
	in_place();
	return tap_done();
}
