// SPDX-License-Identifier: MIT
/*
 * om_util.c - names and sizes of dtypes, layouts, opcodes and features,
 * shape arithmetic shared by the reader, the writer and the tools.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "om_internal.h"

static const struct {
	const char *name;
	const char *alias;
	uint32_t size;
} dtypes[DRM_NPU_DTYPE_COUNT] = {
	[DRM_NPU_DTYPE_INVALID] = { "invalid", NULL, 0 },
	[DRM_NPU_DTYPE_F32] = { "float32", "f32", 4 },
	[DRM_NPU_DTYPE_F16] = { "float16", "f16", 2 },
	[DRM_NPU_DTYPE_I8] = { "int8", "i8", 1 },
	[DRM_NPU_DTYPE_U8] = { "uint8", "u8", 1 },
	[DRM_NPU_DTYPE_I32] = { "int32", "i32", 4 },
	[DRM_NPU_DTYPE_I64] = { "int64", "i64", 8 },
	[DRM_NPU_DTYPE_BOOL] = { "bool", "b8", 1 },
	/* packed, task operands only (MATMUL_WQ weights): no whole size */
	[DRM_NPU_DTYPE_I4] = { "int4", "i4", 0 },
	/* storage types (uapi 1.8) */
	[DRM_NPU_DTYPE_F64] = { "float64", "f64", 8 },
	[DRM_NPU_DTYPE_BF16] = { "bfloat16", "bf16", 2 },
	[DRM_NPU_DTYPE_I16] = { "int16", "i16", 2 },
	[DRM_NPU_DTYPE_U16] = { "uint16", "u16", 2 },
	[DRM_NPU_DTYPE_U32] = { "uint32", "u32", 4 },
	[DRM_NPU_DTYPE_U64] = { "uint64", "u64", 8 },
};

uint32_t om_dtype_size(uint32_t dtype)
{
	return dtype < DRM_NPU_DTYPE_COUNT ? dtypes[dtype].size : 0;
}

const char *om_dtype_name(uint32_t dtype)
{
	return dtype < DRM_NPU_DTYPE_COUNT && dtype ? dtypes[dtype].name :
						      "invalid";
}

uint32_t om_dtype_from_name(const char *name)
{
	for (uint32_t i = 1; i < DRM_NPU_DTYPE_COUNT; i++)
		if (dtypes[i].name && dtypes[i].size &&
		    (!strcasecmp(name, dtypes[i].name) ||
		     !strcasecmp(name, dtypes[i].alias)))
			return i;
	return 0;
}

const char *om_layout_name(uint32_t layout)
{
	static const char *const names[] = { "ND", "NCHW", "NHWC", "NC1HWC0" };

	return layout < DRM_NPU_LAYOUT_COUNT ? names[layout] : "invalid";
}

const char *om_opcode_name(uint32_t opcode)
{
	static const char *const names[DRM_NPU_OP_COUNT] = {
		"NOP", "COPY", "BINARY", "UNARY", "MATMUL", "CONV2D",
		"POOL2D", "SOFTMAX", "REDUCE", "LAYERNORM", "BATCHNORM",
		"GATHER", "WHERE", "PAD", "RESIZE", "TRANSDATA", "QUANTIZE",
		"DEQUANTIZE", "ATTENTION", "SEM_SIGNAL", "SEM_WAIT",
		"QCONV2D", "QMATMUL", "QADD",
		[DRM_NPU_OP_MATMUL_WQ] = "MATMUL_WQ",
		[DRM_NPU_OP_RNN] = "RNN", [DRM_NPU_OP_TOPK] = "TOPK",
		[DRM_NPU_OP_SCATTER] = "SCATTER", [DRM_NPU_OP_MATH] = "MATH",
		[DRM_NPU_OP_NONZERO] = "NONZERO", [DRM_NPU_OP_NMS] = "NMS",
		[DRM_NPU_OP_PACK_ROWS] = "PACK_ROWS",
		[DRM_NPU_OP_UNIQUE] = "UNIQUE",
		[DRM_NPU_OP_GRID_SAMPLE] = "GRID_SAMPLE",
		[DRM_NPU_OP_ROI_ALIGN] = "ROI_ALIGN",
		[DRM_NPU_OP_RANDOM] = "RANDOM",
		[DRM_NPU_OP_IMG_CSC] = "IMG_CSC",
		[DRM_NPU_OP_IMG_RESIZE] = "IMG_RESIZE",
		[DRM_NPU_OP_AIPP] = "AIPP",
	};

	/* the opcode space has gaps */
	return opcode < DRM_NPU_OP_COUNT && names[opcode] ? names[opcode] :
	       "invalid";
}

const char *om_section_type_name(uint32_t type)
{
	static const char *const names[OM_SEC_COUNT] = {
		"NONE", "STRINGS", "MODEL", "TENSORS", "VARIANTS",
		"PROGRAMS", "TASKS", "WEIGHTS", "PLANS", "PLACEMENTS",
		"SEMAPHORES", "DEBUG", "ORIGINS", "ORIGIN_NAMES",
		"DEBUG_TENSORS", "HOST_TASKS", "HOST_OPERANDS", "COUNTS",
	};

	return type < OM_SEC_COUNT ? names[type] : "unknown";
}

void om_features_str(uint64_t features, char *buf, size_t len)
{
	static const char *const names[] = {
		"FP32", "INT8", "NC1HWC0", "COMPACTION", "TIMELINE_SEM",
		"ATTENTION",
	};
	size_t used = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (unsigned int i = 0; i < 64; i++) {
		char tmp[16];
		const char *n;
		int w;

		if (!(features & (1ull << i)))
			continue;
		if (i < sizeof(names) / sizeof(names[0])) {
			n = names[i];
		} else {
			snprintf(tmp, sizeof(tmp), "bit%u", i);
			n = tmp;
		}
		w = snprintf(buf + used, len - used, "%s%s", used ? "+" : "",
			     n);
		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
	}
	if (!used)
		snprintf(buf, len, "none");
}

uint64_t om_shape_bytes(uint32_t dtype, uint32_t rank, const uint64_t *dims,
			int *ok)
{
	uint64_t n = om_dtype_size(dtype);

	if (ok)
		*ok = n != 0 && rank <= OM_MAX_RANK;
	if (!n || rank > OM_MAX_RANK)
		return 0;
	for (uint32_t i = 0; i < rank; i++) {
		if (dims[i] == OM_DIM_DYNAMIC)
			return 0;
		if (__builtin_mul_overflow(n, dims[i], &n)) {
			if (ok)
				*ok = 0;
			return 0;
		}
	}
	return n;
}

uint32_t om_c0(uint32_t dtype)
{
	return om_dtype_size(dtype) == 1 ? 32 : 16;
}

uint64_t om_storage_bytes(uint32_t dtype, uint32_t layout, uint32_t rank,
			  const uint64_t *dims, int *ok)
{
	uint64_t d[OM_MAX_RANK], c0 = om_c0(dtype);

	if (layout != DRM_NPU_LAYOUT_NC1HWC0)
		return om_shape_bytes(dtype, rank, dims, ok);
	if (rank != 4 || dims[1] == OM_DIM_DYNAMIC ||
	    dims[1] > UINT64_MAX - c0) {
		if (ok)
			*ok = 0;
		return 0;
	}
	/* [N, C1, H, W, C0] */
	d[0] = dims[0];
	d[1] = (dims[1] + c0 - 1) / c0;
	d[2] = dims[2];
	d[3] = dims[3];
	d[4] = c0;
	return om_shape_bytes(dtype, 5, d, ok);
}

bool om_name_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

void om_seterr(char *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err, OM_ERR_MAX, fmt, ap);
	va_end(ap);
}
