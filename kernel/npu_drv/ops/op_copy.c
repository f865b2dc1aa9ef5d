// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_copy.c - COPY (strided copy with broadcasting and dtype conversion:
 * the device side of Cast, Transpose, Slice, Expand, Concat pieces,
 * Reshape of non-contiguous views) and WHERE.
 *
 * Conversions follow ONNX Cast / PyTorch .to(): float -> int truncates
 * toward zero (saturating, NaN -> 0, where C leaves it undefined),
 * int -> int wraps, f32 -> f16 rounds to nearest even, anything -> BOOL is
 * x != 0, BOOL -> anything is 0 or 1.
 */
#include "npu_ops_float.h"

static s64 sat_lo(u32 dt)
{
	switch (dt) {
	case DRM_NPU_DTYPE_I8:
		return -128;
	case DRM_NPU_DTYPE_I32:
		return -0x7fffffffll - 1;
	case DRM_NPU_DTYPE_I64:
		return -0x7fffffffffffffffll - 1;
	default:
		return 0;
	}
}

static s64 sat_hi(u32 dt)
{
	switch (dt) {
	case DRM_NPU_DTYPE_I8:
		return 127;
	case DRM_NPU_DTYPE_U8:
		return 255;
	case DRM_NPU_DTYPE_I32:
		return 0x7fffffffll;
	case DRM_NPU_DTYPE_BOOL:
		return 1;
	default:
		return 0x7fffffffffffffffll;
	}
}

static void convert(u32 sdt, const void *src, u64 si, u32 ddt, void *dst,
		    u64 di)
{
	if (npu_dt_is_float(sdt)) {
		float f = npu_ld_f(sdt, src, si);

		if (npu_dt_is_float(ddt))
			npu_st_f(ddt, dst, di, f);
		else if (ddt == DRM_NPU_DTYPE_BOOL)
			((u8 *)dst)[di] = f != 0;
		else
			npu_st_i(ddt, dst, di, npu_f2i_sat(f, sat_lo(ddt),
							   sat_hi(ddt)));
		return;
	}
	if (npu_dt_is_float(ddt))
		npu_st_f(ddt, dst, di, (float)npu_ld_i(sdt, src, si));
	else
		npu_st_i(ddt, dst, di, npu_ld_i(sdt, src, si));
}

static void copy_same(u32 es, const u8 *src, u64 sst, u8 *dst, u64 dst_st,
		      u64 n)
{
	u64 i;

	if (sst == 1 && dst_st == 1) {
		memmove(dst, src, (size_t)n * es);
		return;
	}
	switch (es) {
	case 1:
		for (i = 0; i < n; i++)
			dst[i * dst_st] = src[i * sst];
		break;
	case 2:
		for (i = 0; i < n; i++)
			((u16 *)dst)[i * dst_st] = ((const u16 *)src)[i * sst];
		break;
	case 4:
		for (i = 0; i < n; i++)
			((u32 *)dst)[i * dst_st] = ((const u32 *)src)[i * sst];
		break;
	default:
		for (i = 0; i < n; i++)
			((u64 *)dst)[i * dst_st] = ((const u64 *)src)[i * sst];
	}
}

int npu_run_copy(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *ops[2] = { npu_opnd(t, 0), npu_opnd(t, 1) };
	u32 sdt = ops[0]->dtype, ddt = ops[1]->dtype;
	u32 ses = npu_dtype_size(sdt), des = npu_dtype_size(ddt);
	struct npu_rows r;
	struct npu_seg sg;
	u64 u, i, offs[2];

	npu_rows_begin(&r, ops, 2);
	for (u = begin; u < end; u++) {
		npu_row_offsets(&r, u, &sg, offs);
		if (sdt == ddt) {
			copy_same(ses, (const u8 *)args->data[0] + offs[0] * ses,
				  r.inner[0], (u8 *)args->data[1] + offs[1] * des,
				  r.inner[1], sg.len);
			continue;
		}
		for (i = 0; i < sg.len; i++)
			convert(sdt, args->data[0], offs[0] + i * r.inner[0],
				ddt, args->data[1], offs[1] + i * r.inner[1]);
	}
	return 0;
}

int npu_run_where(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *ops[4] = {
		npu_opnd(t, 0), npu_opnd(t, 1), npu_opnd(t, 2), npu_opnd(t, 3)
	};
	u32 es = npu_dtype_size(ops[3]->dtype);
	const u8 *cond = args->data[0];
	struct npu_rows r;
	struct npu_seg sg;
	u64 u, i, offs[4];

	npu_rows_begin(&r, ops, 4);
	for (u = begin; u < end; u++) {
		npu_row_offsets(&r, u, &sg, offs);
		for (i = 0; i < sg.len; i++) {
			int k = cond[offs[0] + i * r.inner[0]] ? 1 : 2;

			memcpy((u8 *)args->data[3] +
			       (offs[3] + i * r.inner[3]) * es,
			       (const u8 *)args->data[k] +
			       (offs[k] + i * r.inner[k]) * es, es);
		}
	}
	return 0;
}
