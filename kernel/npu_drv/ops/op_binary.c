// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_binary.c - BINARY tasks: out = act(a OP b) with numpy broadcasting
 * (size-1 dims or 0 strides). Float kinds follow IEEE and PyTorch: MAX/MIN
 * propagate NaN, comparisons with NaN are false. Integer kinds wrap on
 * overflow; division truncates toward zero and x / 0 gives 0 (no trap).
 * BOOL supports MAX (or), MIN (and) and EQUAL (xnor).
 */
#include "npu_ops_float.h"
#include "npu_kern.h"

#define BIN_CHUNK	128

static void float_op(u32 kind, float *a, const float *b, u32 n)
{
	u32 j;

	switch (kind) {
	case DRM_NPU_BINARY_ADD:
		for (j = 0; j < n; j++)
			a[j] = a[j] + b[j];
		break;
	case DRM_NPU_BINARY_SUB:
		for (j = 0; j < n; j++)
			a[j] = a[j] - b[j];
		break;
	case DRM_NPU_BINARY_MUL:
		for (j = 0; j < n; j++)
			a[j] = a[j] * b[j];
		break;
	case DRM_NPU_BINARY_DIV:
		for (j = 0; j < n; j++)
			a[j] = a[j] / b[j];
		break;
	case DRM_NPU_BINARY_MAX:
		for (j = 0; j < n; j++)
			a[j] = (a[j] != a[j] || a[j] > b[j]) ? a[j] : b[j];
		break;
	case DRM_NPU_BINARY_MIN:
		for (j = 0; j < n; j++)
			a[j] = (a[j] != a[j] || a[j] < b[j]) ? a[j] : b[j];
		break;
	case DRM_NPU_BINARY_POW:
		for (j = 0; j < n; j++)
			a[j] = npu_powf(a[j], b[j]);
		break;
	case DRM_NPU_BINARY_PRELU:
		for (j = 0; j < n; j++)
			a[j] = a[j] >= 0 ? a[j] : a[j] * b[j];
		break;
	case DRM_NPU_BINARY_EQUAL:
		for (j = 0; j < n; j++)
			a[j] = a[j] == b[j];
		break;
	case DRM_NPU_BINARY_LESS:
		for (j = 0; j < n; j++)
			a[j] = a[j] < b[j];
		break;
	case DRM_NPU_BINARY_GREATER:
		for (j = 0; j < n; j++)
			a[j] = a[j] > b[j];
		break;
	}
}

static s64 ipow(s64 a, s64 b)
{
	u64 r = 1, base = (u64)a;

	if (b < 0)
		return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
	while (b) {
		if (b & 1)
			r *= base;
		base *= base;
		b >>= 1;
	}
	return (s64)r;
}

static s64 int_op(u32 kind, s64 a, s64 b)
{
	switch (kind) {
	case DRM_NPU_BINARY_ADD:
		return (s64)((u64)a + (u64)b);
	case DRM_NPU_BINARY_SUB:
		return (s64)((u64)a - (u64)b);
	case DRM_NPU_BINARY_MUL:
		return (s64)((u64)a * (u64)b);
	case DRM_NPU_BINARY_DIV:
		if (!b)
			return 0;
		if (b == -1)
			return (s64)(0 - (u64)a);
		return a / b;
	case DRM_NPU_BINARY_MAX:
		return a > b ? a : b;
	case DRM_NPU_BINARY_MIN:
		return a < b ? a : b;
	case DRM_NPU_BINARY_POW:
		return ipow(a, b);
	case DRM_NPU_BINARY_PRELU:
		return a >= 0 ? a : (s64)((u64)a * (u64)b);
	case DRM_NPU_BINARY_EQUAL:
		return a == b;
	case DRM_NPU_BINARY_LESS:
		return a < b;
	default:
		return a > b;
	}
}

static void int_row(const struct npu_op_args *args, const struct npu_rows *r,
		    const u64 *offs, u64 len, u32 kind)
{
	u32 dt = npu_opnd(args->task, 0)->dtype;
	u32 odt = npu_opnd(args->task, 2)->dtype;
	u64 i;

	for (i = 0; i < len; i++) {
		s64 a = npu_ld_i(dt, args->data[0], offs[0] + i * r->inner[0]);
		s64 b = npu_ld_i(dt, args->data[1], offs[1] + i * r->inner[1]);

		npu_st_i(odt, args->data[2], offs[2] + i * r->inner[2],
			 int_op(kind, a, b));
	}
}

/*
 * F32 operands: elements [i, i + n) of the row, a contiguous run copied
 * at once (the values npu_ld_f() gives, without a call per element).
 */
static void f32_load(const struct npu_op_args *args, const struct npu_rows *r,
		     const u64 *offs, u64 i, u32 n, float *a, float *b)
{
	const float *x[2] = { args->data[0], args->data[1] };
	float *d[2] = { a, b };
	u32 k, j;

	for (k = 0; k < 2; k++) {
		const float *p = x[k] + offs[k] + i * r->inner[k];

		if (r->inner[k] == 1) {
			memcpy(d[k], p, n * sizeof(float));
			continue;
		}
		for (j = 0; j < n; j++)
			d[k][j] = p[(u64)j * r->inner[k]];
	}
}

static void float_row(const struct npu_op_args *args, const struct npu_rows *r,
		      const u64 *offs, u64 len, u32 kind,
		      const struct npu_act *act)
{
	u32 dt = npu_opnd(args->task, 0)->dtype;
	u32 odt = npu_opnd(args->task, 2)->dtype;
	float a[BIN_CHUNK], b[BIN_CHUNK];
	u64 i, j;
	u32 n;

	for (i = 0; i < len; i += n) {
		n = len - i < BIN_CHUNK ? (u32)(len - i) : BIN_CHUNK;
		if (dt == DRM_NPU_DTYPE_F32)
			f32_load(args, r, offs, i, n, a, b);
		else
			for (j = 0; j < n; j++) {
				a[j] = npu_ld_f(dt, args->data[0],
						offs[0] + (i + j) * r->inner[0]);
				b[j] = npu_ld_f(dt, args->data[1],
						offs[1] + (i + j) * r->inner[1]);
			}
		float_op(kind, a, b, n);
		if (odt == DRM_NPU_DTYPE_BOOL) {
			for (j = 0; j < n; j++)
				((u8 *)args->data[2])[offs[2] + (i + j) *
						      r->inner[2]] = a[j] != 0;
			continue;
		}
		npu_act_row(act, a, n);
		if (odt == DRM_NPU_DTYPE_F32 && r->inner[2] == 1) {
			memcpy((float *)args->data[2] + offs[2] + i, a,
			       n * sizeof(float));
			continue;
		}
		for (j = 0; j < n; j++)
			npu_st_f(odt, args->data[2], offs[2] + (i + j) * r->inner[2],
				 a[j]);
	}
}

int npu_run_binary(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *ops[3] = {
		npu_opnd(t, 0), npu_opnd(t, 1), npu_opnd(t, 2)
	};
	int is_float = npu_dt_is_float(ops[0]->dtype);
	struct npu_rows r;
	struct npu_seg sg;
	struct npu_act act;
	u64 u, offs[3];

	npu_act_init(&act, &t->params.binary.act);
	act.kern = npu_kern_get(args->isa);
	npu_rows_begin(&r, ops, 3);
	for (u = begin; u < end; u++) {
		npu_row_offsets(&r, u, &sg, offs);
		if (is_float)
			float_row(args, &r, offs, sg.len, t->params.binary.kind,
				  &act);
		else
			int_row(args, &r, offs, sg.len, t->params.binary.kind);
	}
	return 0;
}
