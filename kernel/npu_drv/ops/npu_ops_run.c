// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_ops_run.c - npu_op_run(): dispatch a checked task's work units to
 * its kernel. Runs inside a kernel FPU section in the kernel home.
 */
#include "npu_ops_internal.h"

typedef int (*npu_run_fn)(const struct npu_op_args *a, u64 b, u64 e);

static const npu_run_fn npu_run_table[DRM_NPU_OP_COUNT] = {
	[DRM_NPU_OP_COPY] = npu_run_copy,
	[DRM_NPU_OP_BINARY] = npu_run_binary,
	[DRM_NPU_OP_UNARY] = npu_run_unary,
	[DRM_NPU_OP_MATMUL] = npu_run_matmul,
	[DRM_NPU_OP_CONV2D] = npu_run_conv2d,
	[DRM_NPU_OP_POOL2D] = npu_run_pool2d,
	[DRM_NPU_OP_SOFTMAX] = npu_run_softmax,
	[DRM_NPU_OP_REDUCE] = npu_run_reduce,
	[DRM_NPU_OP_LAYERNORM] = npu_run_layernorm,
	[DRM_NPU_OP_BATCHNORM] = npu_run_batchnorm,
	[DRM_NPU_OP_GATHER] = npu_run_gather,
	[DRM_NPU_OP_WHERE] = npu_run_where,
	[DRM_NPU_OP_PAD] = npu_run_pad,
	[DRM_NPU_OP_RESIZE] = npu_run_resize,
	[DRM_NPU_OP_TRANSDATA] = npu_run_transdata,
	[DRM_NPU_OP_QUANTIZE] = npu_run_quantize,
	[DRM_NPU_OP_DEQUANTIZE] = npu_run_dequantize,
	[DRM_NPU_OP_ATTENTION] = npu_run_attention,
	[DRM_NPU_OP_QCONV2D] = npu_run_qconv2d,
	[DRM_NPU_OP_QMATMUL] = npu_run_qmatmul,
	[DRM_NPU_OP_QADD] = npu_run_qadd,
	[DRM_NPU_OP_IMG_CSC] = npu_run_img_csc,
	[DRM_NPU_OP_IMG_RESIZE] = npu_run_img_resize,
	[DRM_NPU_OP_AIPP] = npu_run_aipp,
	[DRM_NPU_OP_RNN] = npu_run_rnn,
	[DRM_NPU_OP_TOPK] = npu_run_topk,
	[DRM_NPU_OP_GRID_SAMPLE] = npu_run_grid_sample,
	[DRM_NPU_OP_ROI_ALIGN] = npu_run_roi_align,
	[DRM_NPU_OP_RANDOM] = npu_run_random,
	[DRM_NPU_OP_SCATTER] = npu_run_scatter,
	[DRM_NPU_OP_MATH] = npu_run_math,
	[DRM_NPU_OP_NONZERO] = npu_run_nonzero,
	[DRM_NPU_OP_NMS] = npu_run_nms,
	[DRM_NPU_OP_PACK_ROWS] = npu_run_pack_rows,
	[DRM_NPU_OP_UNIQUE] = npu_run_unique,
	[DRM_NPU_OP_MATMUL_WQ] = npu_run_matmul_wq,
};

int npu_op_run(const struct npu_op_args *args, u64 begin, u64 end)
{
	u32 op = args->task->opcode;
	u64 units;

	if (op >= DRM_NPU_OP_COUNT)
		return DRM_NPU_FAULT_BAD_OPCODE;
	if (!npu_run_table[op] || begin >= end)
		return 0;		/* NOP, SEM_*: the scheduler's business */
	units = npu_op_work_units(args->task);
	if (end > units)
		end = units;
	if (begin >= end)
		return 0;
	return npu_run_table[op](args, begin, end);
}
