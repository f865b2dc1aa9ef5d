// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_copy.c - COPY (strided copy with broadcasting and dtype conversion:
 * the device side of Cast, Transpose, Slice, Expand, Concat pieces,
 * Reshape of non-contiguous views) and WHERE.
 *
 * Conversions follow ONNX Cast / PyTorch .to(): float -> int truncates
 * toward zero (saturating, NaN -> 0, where C leaves it undefined),
 * int -> int wraps, f32 -> f16 rounds to nearest even, anything -> BOOL is
 * x != 0, BOOL -> anything is 0 or 1. The storage types of uapi 1.8 go
 * through float (F64, BF16: rounded to nearest even, NaN kept quiet) or
 * through s64 (I16, U16, U32, U64; U64 -> float reads it unsigned).
 */
#include "npu_ops_float.h"

static s64 sat_lo(u32 dt)
{
	switch (dt) {
	case DRM_NPU_DTYPE_I8:
		return -128;
	case DRM_NPU_DTYPE_I16:
		return -32768;
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
	case DRM_NPU_DTYPE_I16:
		return 32767;
	case DRM_NPU_DTYPE_U16:
		return 65535;
	case DRM_NPU_DTYPE_I32:
		return 0x7fffffffll;
	case DRM_NPU_DTYPE_U32:
		return 0xffffffffll;
	case DRM_NPU_DTYPE_BOOL:
		return 1;
	default:
		return 0x7fffffffffffffffll;
	}
}

static int is_floatish(u32 dt)
{
	return npu_dt_is_float(dt) || dt == DRM_NPU_DTYPE_F64 ||
	       dt == DRM_NPU_DTYPE_BF16;
}

union npu_f32_bits {
	float f;
	u32 u;
};

static float ld_float(u32 dt, const void *p, u64 i)
{
	union npu_f32_bits b;

	if (dt == DRM_NPU_DTYPE_F64)
		return (float)((const double *)p)[i];
	if (dt != DRM_NPU_DTYPE_BF16)
		return npu_ld_f(dt, p, i);
	b.u = (u32)((const u16 *)p)[i] << 16;
	return b.f;
}

static void st_float(u32 dt, void *p, u64 i, float v)
{
	union npu_f32_bits b = { .f = v };

	if (dt == DRM_NPU_DTYPE_F64) {
		((double *)p)[i] = v;
	} else if (dt != DRM_NPU_DTYPE_BF16) {
		npu_st_f(dt, p, i, v);
	} else if ((b.u & 0x7fffffffu) > 0x7f800000u) {
		((u16 *)p)[i] = (u16)((b.u >> 16) | 0x40);	/* quiet NaN */
	} else {
		b.u += 0x7fffu + ((b.u >> 16) & 1);	/* to nearest even */
		((u16 *)p)[i] = (u16)(b.u >> 16);
	}
}

static s64 ld_int(u32 dt, const void *p, u64 i)
{
	switch (dt) {
	case DRM_NPU_DTYPE_I16:
		return ((const s16 *)p)[i];
	case DRM_NPU_DTYPE_U16:
		return ((const u16 *)p)[i];
	case DRM_NPU_DTYPE_U32:
		return ((const u32 *)p)[i];
	default:	/* U64 as its two's complement bits */
		return npu_ld_i(dt, p, i);
	}
}

static void st_int(u32 dt, void *p, u64 i, s64 v)
{
	switch (dt) {
	case DRM_NPU_DTYPE_I16:
		((s16 *)p)[i] = (s16)(u16)(u64)v;
		break;
	case DRM_NPU_DTYPE_U16:
		((u16 *)p)[i] = (u16)(u64)v;
		break;
	case DRM_NPU_DTYPE_U32:
		((u32 *)p)[i] = (u32)(u64)v;
		break;
	default:
		npu_st_i(dt, p, i, v);
	}
}

static void convert(u32 sdt, const void *src, u64 si, u32 ddt, void *dst,
		    u64 di)
{
	s64 v;

	if (is_floatish(sdt)) {
		float f = ld_float(sdt, src, si);

		if (is_floatish(ddt))
			st_float(ddt, dst, di, f);
		else if (ddt == DRM_NPU_DTYPE_BOOL)
			((u8 *)dst)[di] = f != 0;
		else
			st_int(ddt, dst, di, npu_f2i_sat(f, sat_lo(ddt),
							 sat_hi(ddt)));
		return;
	}
	v = ld_int(sdt, src, si);
	if (!is_floatish(ddt))
		st_int(ddt, dst, di, v);
	else if (sdt == DRM_NPU_DTYPE_U64)
		st_float(ddt, dst, di, (float)(u64)v);
	else
		st_float(ddt, dst, di, (float)v);
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
