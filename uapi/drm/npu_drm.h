/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * npu_drm.h - the ioctl ABI of the emulated Ascend-like NPU (npu_drv).
 *
 * This header is the one contract of the stack: the compiler emits the task
 * descriptors defined here, the runtime issues these ioctls, and both homes
 * of the device core (the npu_drv kernel module and libnpurt's in-process
 * device) enforce them identically.
 *
 * Rules (Documentation/process/botching-up-ioctls.rst):
 *  - every struct is naturally aligned, padded explicitly, and the same size
 *    on 32- and 64-bit userspace (selftests/npu/uapi_layout.sh checks:
 *    no implicit padding, fixed-size types only);
 *  - user pointers are __u64;
 *  - every pad and reserved field must be zero, every unknown flag bit is
 *    rejected with -EINVAL, so they can be given meaning later;
 *  - timeouts are absolute CLOCK_MONOTONIC nanoseconds (__s64) so that an
 *    interrupted and restarted ioctl does not extend its deadline;
 *  - userspace never sees a device address: task operands name a slot and an
 *    offset, slots are bound to buffer objects at submission.
 *
 * See Documentation/uapi.rst for the full reference and errno list.
 */
#ifndef _UAPI_NPU_DRM_H_
#define _UAPI_NPU_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_NPU_UAPI_MAJOR		1
#define DRM_NPU_UAPI_MINOR		9	/* history: uapi.rst */
#define DRM_NPU_UAPI_VERSION \
	((DRM_NPU_UAPI_MAJOR << 16) | DRM_NPU_UAPI_MINOR)

/* Device model identifiers reported by DRM_IOCTL_NPU_DEVICE_INFO. */
#define DRM_NPU_MODEL_SIM910		0x910	/* the emulated NPU */

/* Feature bits (drm_npu_device_info.features). */
#define DRM_NPU_FEATURE_FP32		(1ULL << 0)
#define DRM_NPU_FEATURE_INT8		(1ULL << 1)
#define DRM_NPU_FEATURE_NC1HWC0		(1ULL << 2)
#define DRM_NPU_FEATURE_COMPACTION	(1ULL << 3)
#define DRM_NPU_FEATURE_TIMELINE_SEM	(1ULL << 4)
#define DRM_NPU_FEATURE_ATTENTION	(1ULL << 5)
#define DRM_NPU_FEATURE_MEDIA		(1ULL << 8)	/* uapi 1.2: opcodes 50..52 */
#define DRM_NPU_FEATURE_MATMUL_WQ	(1ULL << 9)	/* MATMUL_WQ, I4 */

/* ---------------------------------------------------------------------- */
/* Task descriptors                                                         */
/* ---------------------------------------------------------------------- */

#define DRM_NPU_MAX_RANK		6
#define DRM_NPU_MAX_OPERANDS		6
#define DRM_NPU_MAX_SLOTS		256
#define DRM_NPU_MAX_TASKS		(1u << 20)

/* Element types (drm_npu_operand.dtype). */
enum drm_npu_dtype {
	DRM_NPU_DTYPE_INVALID = 0,
	DRM_NPU_DTYPE_F32 = 1,
	DRM_NPU_DTYPE_F16 = 2,
	DRM_NPU_DTYPE_I8 = 3,
	DRM_NPU_DTYPE_U8 = 4,
	DRM_NPU_DTYPE_I32 = 5,
	DRM_NPU_DTYPE_I64 = 6,
	DRM_NPU_DTYPE_BOOL = 7,		/* one byte, 0 or 1 */
	/*
	 * Signed 4-bit, two per byte: element e of a view lies in byte
	 * offset + e / 2, the low nibble for even e (ONNX INT4 packing).
	 * Strides count elements (nibbles); a view's extent is
	 * ceil((1 + sum((shape[i] - 1) * strides[i])) / 2) bytes. Only
	 * MATMUL_WQ's weights take it.
	 */
	DRM_NPU_DTYPE_I4 = 8,
	/*
	 * uapi 1.8: storage types. Only COPY reads and writes them (a
	 * conversion to or from a compute type: F64 and BF16 from and to
	 * F32/F16, the integers from and to I32/I64 with wrap-around); any
	 * other opcode refuses them.
	 */
	DRM_NPU_DTYPE_F64 = 9,
	DRM_NPU_DTYPE_BF16 = 10,	/* bfloat16: the top half of an F32 */
	DRM_NPU_DTYPE_I16 = 11,
	DRM_NPU_DTYPE_U16 = 12,
	DRM_NPU_DTYPE_U32 = 13,
	DRM_NPU_DTYPE_U64 = 14,
	DRM_NPU_DTYPE_COUNT
};

/* Memory layouts (drm_npu_operand.layout); informative except for TRANSDATA. */
enum drm_npu_layout {
	DRM_NPU_LAYOUT_ND = 0,
	DRM_NPU_LAYOUT_NCHW = 1,
	DRM_NPU_LAYOUT_NHWC = 2,
	DRM_NPU_LAYOUT_NC1HWC0 = 3,	/* rank 5: N, C1, H, W, C0 */
	DRM_NPU_LAYOUT_COUNT
};

/**
 * struct drm_npu_operand - one tensor view used by a task
 * @slot: index into the submission's buffer bindings (< program num_slots)
 * @dtype: enum drm_npu_dtype
 * @layout: enum drm_npu_layout
 * @rank: number of valid entries in @shape and @strides (0 = scalar)
 * @flags: must be zero
 * @offset: byte offset of element [0,...,0] inside the slot's buffer
 * @shape: extent of each dimension, outermost first
 * @strides: distance in *elements* between neighbours of each dimension;
 *           0 broadcasts the dimension
 *
 * The bytes a view touches are [offset, offset + extent) with
 * extent = (1 + sum((shape[i] - 1) * strides[i])) * element size, or 0 if
 * any shape[i] is 0. The validator computes this with overflow checks.
 */
struct drm_npu_operand {
	__u16 slot;
	__u8 dtype;
	__u8 layout;
	__u8 rank;
	__u8 flags;
	__u16 pad;
	__u64 offset;
	__u32 shape[DRM_NPU_MAX_RANK];
	__u32 strides[DRM_NPU_MAX_RANK];
};

/* Opcodes (drm_npu_task.opcode). Operand order is given per opcode. */
enum drm_npu_opcode {
	DRM_NPU_OP_NOP = 0,
	DRM_NPU_OP_COPY = 1,		/* in, out: strided copy, converts dtype */
	DRM_NPU_OP_BINARY = 2,		/* a, b, out: broadcast by strides */
	DRM_NPU_OP_UNARY = 3,		/* in, out */
	DRM_NPU_OP_MATMUL = 4,		/* a, b, [bias], out: batched by rank */
	DRM_NPU_OP_CONV2D = 5,		/* in NCHW, weight OIHW, [bias], out */
	DRM_NPU_OP_POOL2D = 6,		/* in, out */
	DRM_NPU_OP_SOFTMAX = 7,		/* in, out */
	DRM_NPU_OP_REDUCE = 8,		/* in, out (reduced dims have shape 1) */
	DRM_NPU_OP_LAYERNORM = 9,	/* in, scale, [bias], out */
	DRM_NPU_OP_BATCHNORM = 10,	/* in, scale, bias, mean, var, out */
	DRM_NPU_OP_GATHER = 11,		/* data, indices (i32/i64), out */
	DRM_NPU_OP_WHERE = 12,		/* cond (bool), x, y, out */
	DRM_NPU_OP_PAD = 13,		/* in, out */
	DRM_NPU_OP_RESIZE = 14,		/* in, out */
	DRM_NPU_OP_TRANSDATA = 15,	/* in, out: NCHW <-> NC1HWC0 */
	DRM_NPU_OP_QUANTIZE = 16,	/* in f32, out i8/u8 */
	DRM_NPU_OP_DEQUANTIZE = 17,	/* in i8/u8/i32, out f32 */
	DRM_NPU_OP_ATTENTION = 18,	/* q, k, v, [mask], out */
	DRM_NPU_OP_SEM_SIGNAL = 19,	/* no operands */
	DRM_NPU_OP_SEM_WAIT = 20,	/* no operands */
	/* uapi 1.2: int8 ops (Documentation/quantization.rst) */
	DRM_NPU_OP_QCONV2D = 21,	/* in, weight, [bias], [mult], out */
	DRM_NPU_OP_QMATMUL = 22,	/* a, b, [bias], [mult], out */
	DRM_NPU_OP_QADD = 23,		/* a, b, out: int8 add */
	/* uapi 1.3: weight-only product */
	DRM_NPU_OP_MATMUL_WQ = 26,	/* a, w (I8/I4), scales, [bias], out */
	/* uapi 1.3: the model families of detection, recurrent, decoding */
	DRM_NPU_OP_RNN = 30,		/* xg, r, h0, [c0 | rbh], state (1.3) */
	DRM_NPU_OP_TOPK = 31,		/* in, indices (I64) (1.3) */
	DRM_NPU_OP_SCATTER = 32,	/* indices, updates, out (1.3) */
	DRM_NPU_OP_MATH = 33,		/* in, out: trigonometric (1.3) */
	/* uapi 1.5: outputs of data-dependent extent (and a count) */
	DRM_NPU_OP_NONZERO = 36,	/* in, out (I64), count (I64) */
	DRM_NPU_OP_NMS = 37,		/* boxes, scores, scratch, out, counts */
	DRM_NPU_OP_PACK_ROWS = 38,	/* counts, data (I64), count (I64) */
	DRM_NPU_OP_UNIQUE = 39,		/* in, perm, y, indices, counts, count */
	/* uapi 1.6: sampling at computed coordinates */
	DRM_NPU_OP_GRID_SAMPLE = 40,	/* in, grid, out (F32) */
	DRM_NPU_OP_ROI_ALIGN = 41,	/* in, rois, batch (I32/I64), out */
	/* uapi 1.9: random numbers */
	DRM_NPU_OP_RANDOM = 42,		/* [p (BERNOULLI)], out (F32) */
	/* uapi 1.2: the media unit (DVPP) and AIPP */
	DRM_NPU_OP_IMG_CSC = 50,	/* in, [uv], out u8: colour conversion */
	DRM_NPU_OP_IMG_RESIZE = 51,	/* in u8, out u8: resize + border */
	DRM_NPU_OP_AIPP = 52,		/* in, [uv], out f32: preprocessing */
	DRM_NPU_OP_COUNT
};

/* BINARY kinds. */
enum drm_npu_binary_kind {
	DRM_NPU_BINARY_ADD = 0,
	DRM_NPU_BINARY_SUB = 1,
	DRM_NPU_BINARY_MUL = 2,
	DRM_NPU_BINARY_DIV = 3,
	DRM_NPU_BINARY_MAX = 4,
	DRM_NPU_BINARY_MIN = 5,
	DRM_NPU_BINARY_POW = 6,
	DRM_NPU_BINARY_PRELU = 7,	/* a >= 0 ? a : a * b */
	DRM_NPU_BINARY_EQUAL = 8,	/* comparisons write BOOL */
	DRM_NPU_BINARY_LESS = 9,
	DRM_NPU_BINARY_GREATER = 10,
	DRM_NPU_BINARY_COUNT
};

/*
 * Activations: UNARY kinds, and the fused activation of MATMUL, CONV2D and
 * BINARY. alpha/beta are fp32 bit patterns in the params (no float types in
 * the uapi, so that kernel code never handles them outside the op kernels).
 */
enum drm_npu_act {
	DRM_NPU_ACT_NONE = 0,		/* identity */
	DRM_NPU_ACT_RELU = 1,
	DRM_NPU_ACT_SIGMOID = 2,
	DRM_NPU_ACT_TANH = 3,
	DRM_NPU_ACT_GELU = 4,		/* exact (erf) form */
	DRM_NPU_ACT_EXP = 5,
	DRM_NPU_ACT_SQRT = 6,
	DRM_NPU_ACT_CLIP = 7,		/* min(max(x, alpha), beta); relu6 = 0, 6 */
	DRM_NPU_ACT_LEAKY_RELU = 8,	/* x >= 0 ? x : alpha * x */
	DRM_NPU_ACT_HARDSIGMOID = 9,	/* max(0, min(1, alpha * x + beta)) */
	DRM_NPU_ACT_HARDSWISH = 10,
	DRM_NPU_ACT_ERF = 11,
	DRM_NPU_ACT_NEG = 12,
	DRM_NPU_ACT_ABS = 13,
	DRM_NPU_ACT_LOG = 14,
	DRM_NPU_ACT_RECIPROCAL = 15,
	DRM_NPU_ACT_GELU_TANH = 16,	/* tanh approximation */
	DRM_NPU_ACT_SILU = 17,
	DRM_NPU_ACT_ELU = 18,		/* x >= 0 ? x : alpha * (exp(x) - 1) */
	DRM_NPU_ACT_SOFTPLUS = 19,
	DRM_NPU_ACT_FLOOR = 20,
	DRM_NPU_ACT_CEIL = 21,
	DRM_NPU_ACT_NOT = 22,		/* bool */
	DRM_NPU_ACT_COUNT
};

struct drm_npu_act_params {
	__u32 kind;			/* enum drm_npu_act */
	__u32 alpha;			/* fp32 bits */
	__u32 beta;			/* fp32 bits */
	__u32 pad;
};

struct drm_npu_binary_params {
	__u32 kind;			/* enum drm_npu_binary_kind */
	__u32 pad;
	struct drm_npu_act_params act;	/* applied to the result */
};

struct drm_npu_matmul_params {
	__u32 flags;			/* DRM_NPU_MATMUL_* */
	__u32 alpha;			/* fp32 bits: out = alpha*A*B + beta*bias */
	__u32 beta;			/* fp32 bits */
	__u32 pad;
	struct drm_npu_act_params act;
};

#define DRM_NPU_MATMUL_TRANS_A		(1u << 0)
#define DRM_NPU_MATMUL_TRANS_B		(1u << 1)
#define DRM_NPU_MATMUL_HAS_BIAS		(1u << 2)

/*
 * MATMUL_WQ: weight-only quantized product (w8a16 / w4a16),
 *   out[.., m, n] = act(sum_k a[.., m, k] * (w[k, n] * s[k / gs, n])
 *                       + bias[n])
 * a F32 or F16 [.., M, K]; w I8 or I4 [K, N]; s F32 [G, N] with
 * G = ceil(K / gs); bias F32 [N]; out a's dtype, [.., M, N]. The
 * dequantized weights exist only in the kernel's registers and panels.
 */
struct drm_npu_matmul_wq_params {
	__u32 flags;			/* DRM_NPU_MATMUL_HAS_BIAS only */
	__u32 group_size;		/* gs: k values per scale row, >= 1 */
	__u32 pad[2];
	struct drm_npu_act_params act;
};

struct drm_npu_conv2d_params {
	__u32 flags;			/* DRM_NPU_CONV_HAS_* */
	__u32 groups;			/* >= 1; groups == C == O is depthwise */
	__u32 stride_h, stride_w;	/* >= 1 */
	__u32 dilation_h, dilation_w;	/* >= 1 */
	__u32 pad_top, pad_left, pad_bottom, pad_right;
	__u32 pad[2];
	struct drm_npu_act_params act;
};

#define DRM_NPU_CONV_HAS_BIAS		(1u << 0)
/*
 * uapi 1.7: a residual operand after the bias, added before the
 * activation: out = act(conv + bias + residual). Same shape, dtype,
 * layout and strides as out.
 */
#define DRM_NPU_CONV_HAS_RESIDUAL	(1u << 1)

enum drm_npu_pool_kind {
	DRM_NPU_POOL_MAX = 0,
	DRM_NPU_POOL_AVG = 1,
	DRM_NPU_POOL_GLOBAL_AVG = 2,
	DRM_NPU_POOL_GLOBAL_MAX = 3,
	DRM_NPU_POOL_COUNT
};

struct drm_npu_pool2d_params {
	__u32 kind;			/* enum drm_npu_pool_kind */
	__u32 flags;			/* DRM_NPU_POOL_COUNT_INCLUDE_PAD */
	__u32 kernel_h, kernel_w;
	__u32 stride_h, stride_w;
	__u32 dilation_h, dilation_w;
	__u32 pad_top, pad_left, pad_bottom, pad_right;
};

#define DRM_NPU_POOL_COUNT_INCLUDE_PAD	(1u << 0)

struct drm_npu_softmax_params {
	__u32 axis;			/* < rank of the operands */
	__u32 flags;			/* DRM_NPU_SOFTMAX_LOG */
};

#define DRM_NPU_SOFTMAX_LOG		(1u << 0)

enum drm_npu_reduce_kind {
	DRM_NPU_REDUCE_SUM = 0,
	DRM_NPU_REDUCE_MEAN = 1,
	DRM_NPU_REDUCE_MAX = 2,
	DRM_NPU_REDUCE_MIN = 3,
	DRM_NPU_REDUCE_PROD = 4,
	DRM_NPU_REDUCE_SUM_SQUARE = 5,
	DRM_NPU_REDUCE_COUNT
};

struct drm_npu_reduce_params {
	__u32 kind;			/* enum drm_npu_reduce_kind */
	__u32 axes;			/* bit mask of reduced dimensions */
};

struct drm_npu_norm_params {
	__u32 axis;			/* LAYERNORM: first normalised dim */
	__u32 epsilon;			/* fp32 bits */
	__u32 flags;			/* LAYERNORM: DRM_NPU_NORM_HAS_BIAS */
	__u32 pad;
};

#define DRM_NPU_NORM_HAS_BIAS		(1u << 0)

struct drm_npu_gather_params {
	__u32 axis;
	__u32 pad;
};

enum drm_npu_pad_mode {
	DRM_NPU_PAD_CONSTANT = 0,
	DRM_NPU_PAD_REFLECT = 1,
	DRM_NPU_PAD_EDGE = 2,
	DRM_NPU_PAD_MODE_COUNT
};

struct drm_npu_pad_params {
	__u32 mode;			/* enum drm_npu_pad_mode */
	__u32 value;			/* fp32 bits, constant mode */
	__u32 before[DRM_NPU_MAX_RANK];	/* out = in padded by before/after */
};

enum drm_npu_resize_mode {
	DRM_NPU_RESIZE_NEAREST = 0,
	DRM_NPU_RESIZE_LINEAR = 1,
	DRM_NPU_RESIZE_CUBIC = 2,	/* uapi 1.6 */
	DRM_NPU_RESIZE_MODE_COUNT
};

enum drm_npu_resize_coord {
	DRM_NPU_RESIZE_HALF_PIXEL = 0,
	DRM_NPU_RESIZE_ASYMMETRIC = 1,
	DRM_NPU_RESIZE_ALIGN_CORNERS = 2,
	DRM_NPU_RESIZE_PYTORCH_HALF_PIXEL = 3,
	DRM_NPU_RESIZE_TF_CROP_AND_RESIZE = 4,	/* uapi 1.6: roi, extrapolation */
	DRM_NPU_RESIZE_COORD_COUNT
};

enum drm_npu_resize_nearest {
	DRM_NPU_RESIZE_ROUND_PREFER_FLOOR = 0,
	DRM_NPU_RESIZE_ROUND_PREFER_CEIL = 1,
	DRM_NPU_RESIZE_FLOOR = 2,
	DRM_NPU_RESIZE_CEIL = 3,
	DRM_NPU_RESIZE_NEAREST_COUNT
};

/* CUBIC: taps outside the input get weight 0, the rest renormalised */
#define DRM_NPU_RESIZE_EXCLUDE_OUTSIDE	(1u << 0)

struct drm_npu_resize_params {
	__u32 mode;			/* enum drm_npu_resize_mode */
	__u32 coord;			/* enum drm_npu_resize_coord */
	__u32 nearest;			/* enum drm_npu_resize_nearest */
	__u32 pad;
	__u32 scale[DRM_NPU_MAX_RANK];	/* fp32 bits; 0 = out/in */
	__u32 cubic_a;			/* fp32 bits, CUBIC (ONNX -0.75) */
	__u32 flags;			/* DRM_NPU_RESIZE_*, CUBIC */
	/* TF_CROP_AND_RESIZE (fp32 bits): the crop, normalised, per dim */
	__u32 roi_start[DRM_NPU_MAX_RANK];
	__u32 roi_end[DRM_NPU_MAX_RANK];
	__u32 extrapolation;		/* the value outside the input */
};

struct drm_npu_quant_params {
	__u32 scale;			/* fp32 bits */
	__s32 zero_point;
	__u32 axis;			/* per-channel axis if PER_CHANNEL */
	__u32 flags;			/* DRM_NPU_QUANT_PER_CHANNEL: scale from operand 2 */
};

#define DRM_NPU_QUANT_PER_CHANNEL	(1u << 0)

struct drm_npu_attention_params {
	__u32 scale;			/* fp32 bits applied to Q*K^T */
	__u32 flags;			/* DRM_NPU_ATTN_HAS_MASK */
};

#define DRM_NPU_ATTN_HAS_MASK		(1u << 0)

/**
 * struct drm_npu_requant - the requantization of an int8 op (uapi 1.2)
 * @a_zero: zero point of the input (QCONV2D) or of A (QMATMUL)
 * @b_zero: zero point of the weight (QCONV2D) or of B (QMATMUL)
 * @y_zero: zero point of the output
 * @scale: fp32 bits of the multiplier M = fl(fl(sa * sb) / sy), finite and
 *         positive; 0 with DRM_NPU_Q_PER_CHANNEL (then operand "mult"
 *         holds one f32 M per output channel)
 * @y_min: smallest output value, >= the output dtype's minimum
 * @y_max: largest output value, <= its maximum: a fused ReLU or Clip is
 *         folded into [y_min, y_max]
 *
 * acc = sum((a - a_zero) * (b - b_zero)) + bias, in 32-bit two's
 * complement (wrapping); out = min(max(rne(acc * M) + y_zero, y_min),
 * y_max), where acc * M is one IEEE double multiplication (of two exact
 * conversions) and rne rounds half to even: ONNX QLinearConv and
 * QLinearMatMul. A NaN product gives y_max.
 */
struct drm_npu_requant {
	__s32 a_zero;
	__s32 b_zero;
	__s32 y_zero;
	__u32 scale;
	__s32 y_min;
	__s32 y_max;
};

/* QCONV2D, QMATMUL flags */
#define DRM_NPU_Q_HAS_BIAS		(1u << 0)	/* I32 [O] or [N] */
#define DRM_NPU_Q_PER_CHANNEL		(1u << 1)	/* F32 mult [O] or [N] */
#define DRM_NPU_Q_TRANS_B		(1u << 2)	/* QMATMUL: b is [N, K] */

/**
 * struct drm_npu_qadd_params - DRM_NPU_OP_QADD (uapi 1.2)
 * @a_scale, @b_scale, @y_scale: fp32 bits, finite and positive
 * @a_zero, @b_zero, @y_zero: zero points, inside their operand's range
 * @y_min, @y_max: output clamp (a fused ReLU), as drm_npu_requant's
 *
 * a, b and out are I8/U8 of one shape (any strides and layout, the same
 * layout): out = min(max(rne(((a - a_zero) * a_scale + (b - b_zero) *
 * b_scale) / y_scale) + y_zero, y_min), y_max), each step one fp32
 * operation: DequantizeLinear, Add, QuantizeLinear as ONNX computes them.
 */
struct drm_npu_qadd_params {
	__u32 a_scale;
	__u32 b_scale;
	__u32 y_scale;
	__s32 a_zero;
	__s32 b_zero;
	__s32 y_zero;
	__s32 y_min;
	__s32 y_max;
};

/**
 * struct drm_npu_qconv2d_params - DRM_NPU_OP_QCONV2D (uapi 1.2)
 *
 * The geometry is CONV2D's. Input and output are I8 or U8, NCHW or
 * NC1HWC0 (C0 = 32); the weight is I8 or U8, OIHW (rank 4, any strides)
 * or packed NC1HWC0 ([O, C1, KH, KW, 32], groups 1, with an NC1HWC0
 * input of the same C1: the sum then runs over all C1 * 32 channels, the
 * padding channels included, which npuc fills with zero weights).
 */
struct drm_npu_qconv2d_params {
	__u32 flags;			/* DRM_NPU_Q_HAS_BIAS, _PER_CHANNEL */
	__u32 groups;
	__u32 stride_h, stride_w;
	__u32 dilation_h, dilation_w;
	__u32 pad_top, pad_left, pad_bottom, pad_right;
	__u32 pad[2];
	struct drm_npu_requant q;
};

/**
 * struct drm_npu_qmatmul_params - DRM_NPU_OP_QMATMUL (uapi 1.2)
 *
 * a [..., M, K] and out [..., M, N] (same leading dims) I8/U8; b I8/U8,
 * rank 2: [K, N], or [N, K] with DRM_NPU_Q_TRANS_B.
 */
struct drm_npu_qmatmul_params {
	__u32 flags;		/* DRM_NPU_Q_HAS_BIAS, _PER_CHANNEL, _TRANS_B */
	__u32 pad;
	struct drm_npu_requant q;
};

/*
 * RNN (uapi 1.3): a recurrent layer over all its time steps in one task,
 * one direction. xg [T, B, G*H] holds the input projections X W^T plus
 * the biases that add to them (per step, in time order), r [G*H, H] the
 * recurrence weights (ONNX R of one direction), h0 [B, H] the initial
 * hidden state; LSTM adds c0 [B, H] (initial cell), GRU rbh [H] (the
 * recurrence bias of the h gate, Rbh); an LSTM with PEEPHOLE adds p [3H]
 * (ONNX P: i, o, f) before state. state [T, B, S, H] receives per
 * step the hidden state (s = 0) and, with S = 2, the LSTM cell (s = 1) or
 * the GRU's r (.) h_prev (s = 1, linear_before_reset = 0 only). Gates in
 * ONNX order: LSTM i, o, f, c; GRU z, r, h; activations ONNX's defaults.
 */
enum drm_npu_rnn_cell {
	DRM_NPU_RNN_TANH = 0,		/* G = 1, S = 1: xg, r, h0, state */
	DRM_NPU_RNN_LSTM = 1,		/* G = 4, S = 2: xg, r, h0, c0, [p], state */
	DRM_NPU_RNN_GRU = 2,		/* G = 3, S = 1 + !LBR: xg, r, h0, rbh, state */
	DRM_NPU_RNN_CELL_COUNT
};

#define DRM_NPU_RNN_REVERSE		(1u << 0)	/* t = T-1 .. 0 */
#define DRM_NPU_RNN_LINEAR_BEFORE_RESET	(1u << 1)	/* GRU only */
#define DRM_NPU_RNN_PEEPHOLE		(1u << 2)	/* LSTM: p [3H] */

struct drm_npu_rnn_params {
	__u32 cell;			/* enum drm_npu_rnn_cell */
	__u32 flags;			/* DRM_NPU_RNN_* */
	__u32 clip;			/* fp32 bits: 0 = none, else > 0 finite */
	__u32 pad;
};

/*
 * TOPK (uapi 1.3): the indices (I64) of the k largest (or smallest)
 * elements of every line of @in along @axis, best first; equal values in
 * index order. out has in's shape with k along the axis. The values are
 * a GATHER away.
 */
#define DRM_NPU_TOPK_LARGEST		(1u << 0)

struct drm_npu_topk_params {
	__u32 axis;			/* < rank */
	__u32 k;			/* == out shape[axis] <= in shape[axis] */
	__u32 flags;			/* DRM_NPU_TOPK_LARGEST */
	__u32 pad;
};

/*
 * SCATTER (uapi 1.3): out (holding the data, copied there before) receives
 * updates at the positions indices give, in order (ONNX ScatterND with
 * ELEMENTS clear, ScatterElements with it set), optionally reduced with
 * what is there. An index outside its axis is DRM_NPU_FAULT_BAD_INDEX.
 */
enum drm_npu_scatter_reduce {
	DRM_NPU_SCATTER_NONE = 0,	/* any dtype */
	DRM_NPU_SCATTER_ADD = 1,	/* the others: F32, I32, I64 */
	DRM_NPU_SCATTER_MUL = 2,
	DRM_NPU_SCATTER_MAX = 3,
	DRM_NPU_SCATTER_MIN = 4,
	DRM_NPU_SCATTER_REDUCE_COUNT
};

#define DRM_NPU_SCATTER_ELEMENTS	(1u << 0)

struct drm_npu_scatter_params {
	__u32 flags;			/* DRM_NPU_SCATTER_ELEMENTS */
	__u32 axis;			/* ELEMENTS: < rank; else 0 */
	__u32 reduce;			/* enum drm_npu_scatter_reduce */
	__u32 pad;
};

/*
 * MATH (uapi 1.3): elementwise functions beyond the activations, F32, in
 * broadcast to out as for UNARY; evaluated in double, so within one ulp of
 * the float result for arguments below 2^20 (sin, cos, tan).
 */
enum drm_npu_math_kind {
	DRM_NPU_MATH_SIN = 0,
	DRM_NPU_MATH_COS = 1,
	DRM_NPU_MATH_TAN = 2,
	DRM_NPU_MATH_ASIN = 3,
	DRM_NPU_MATH_ACOS = 4,
	DRM_NPU_MATH_ATAN = 5,
	DRM_NPU_MATH_ASINH = 6,
	DRM_NPU_MATH_ACOSH = 7,
	DRM_NPU_MATH_ATANH = 8,
	DRM_NPU_MATH_KIND_COUNT
};

struct drm_npu_math_params {
	__u32 kind;			/* enum drm_npu_math_kind */
	__u32 pad;
};

/*
 * Data-dependent extents (uapi 1.5): NONZERO and PACK_ROWS write as many
 * rows as the data gives, packed at the start of out (whose shape is the
 * bound), zero the rest, and write the number of rows to count (I64, one
 * element).
 *
 * NONZERO: in (any dtype, dense), out I64 [rank(in), bound] with bound ==
 * the elements of in; row d of the n nonzero elements' coordinates is
 * written at out + d * n (so the first rank(in) * n elements are the
 * packed [rank(in), n] result). No params (all zero). One work unit.
 *
 * NMS: boxes F32 [B, N, 4], scores F32 [B, C, N], scratch I32 [B * C, N],
 * out I64 [B * C * keep, 3] with keep == min(N, max_per_class), counts I64
 * [B * C]; one work unit per (batch, class) pair p = b * C + c. For each
 * pair, the boxes of score above score_threshold (with
 * HAS_SCORE_THRESHOLD; a NaN score never) in descending score (equal
 * scores: lower index first), each kept unless its IoU with a box kept
 * before exceeds iou_threshold, at most keep; rows (batch, class, box)
 * at out rows [p * keep, p * keep + counts[p]). Scratch holds the pair's
 * candidates. N <= 2^31 - 1.
 *
 * PACK_ROWS: counts I64 [P], data I64 [P, K, W], count I64 [1]: the first
 * counts[p] (clamped to [0, K]) rows of each group p are moved, in order,
 * to the front of data, the rest zeroed; count receives the rows. NMS's
 * out viewed as [B * C, keep, 3] packs into ONNX's [rows, 3]. No params.
 */
/*
 * UNIQUE: in [O, A, I] (F32, F16, I8, U8, I32, I64), perm I64 [2, A]
 * (work: row 0 the sorted slice order, row 1 the output slice of each, a
 * SCATTER of row 1 at row 0 gives ONNX's inverse_indices), y [O, A, I]
 * of in's dtype, indices I64 [A], counts I64 [A], count I64 [1]: the U
 * distinct slices along dim 1 packed as a dense [O, U, I] at y's start,
 * ascending (SORTED) or by first occurrence, their first index and
 * number of occurrences; the rest zeroed. All but in dense. One unit.
 */
#define DRM_NPU_UNIQUE_SORTED		(1u << 0)

struct drm_npu_unique_params {
	__u32 flags;
	__u32 pad;
};

/*
 * GRID_SAMPLE (uapi 1.6, ONNX GridSample, torch grid_sample): out[n, c,
 * h, w] samples in[n, c] at grid[n, h, w] = (x, y) in [-1, 1] over the
 * width and the height, unnormalised to pixels by ALIGN_CORNERS (the
 * corner pixels' centres at +-1) or not (their outer edges).
 */
enum drm_npu_grid_sample_mode {
	DRM_NPU_GRID_SAMPLE_BILINEAR = 0,
	DRM_NPU_GRID_SAMPLE_NEAREST = 1,	/* rounds half to even */
	DRM_NPU_GRID_SAMPLE_BICUBIC = 2,	/* A = -0.75 */
	DRM_NPU_GRID_SAMPLE_MODE_COUNT
};

enum drm_npu_grid_sample_padding {
	DRM_NPU_GRID_SAMPLE_ZEROS = 0,		/* outside reads 0 */
	DRM_NPU_GRID_SAMPLE_BORDER = 1,		/* clamped to the edge */
	DRM_NPU_GRID_SAMPLE_REFLECTION = 2,	/* mirrored at the border */
	DRM_NPU_GRID_SAMPLE_PADDING_COUNT
};

#define DRM_NPU_GRID_SAMPLE_ALIGN_CORNERS	(1u << 0)

struct drm_npu_grid_sample_params {
	__u32 mode;			/* enum drm_npu_grid_sample_mode */
	__u32 padding;			/* enum drm_npu_grid_sample_padding */
	__u32 flags;			/* DRM_NPU_GRID_SAMPLE_ALIGN_CORNERS */
	__u32 pad;
};

/*
 * ROI_ALIGN (uapi 1.6, ONNX RoiAlign): out[r, c] pools in[batch[r], c]
 * over box rois[r] = (x1, y1, x2, y2) times spatial_scale, split into
 * out's H x W bins, each the average (or ONNX Runtime's max) of a grid
 * of bilinear samples: sampling_ratio per side, or ceil(box / bins) when
 * 0, at most twice the image's. A batch index outside in's N faults the
 * job (DRM_NPU_FAULT_BAD_INDEX).
 */
enum drm_npu_roi_align_mode {
	DRM_NPU_ROI_ALIGN_AVG = 0,
	DRM_NPU_ROI_ALIGN_MAX = 1,
	DRM_NPU_ROI_ALIGN_MODE_COUNT
};

/* half_pixel: boxes shifted by -0.5 pixel, not widened to 1 (opset 16) */
#define DRM_NPU_ROI_ALIGN_HALF_PIXEL	(1u << 0)

struct drm_npu_roi_align_params {
	__u32 mode;			/* enum drm_npu_roi_align_mode */
	__u32 flags;			/* DRM_NPU_ROI_ALIGN_HALF_PIXEL */
	__u32 spatial_scale;		/* fp32 bits, finite */
	__u32 sampling_ratio;		/* samples per bin side; 0: adaptive */
};

/*
 * RANDOM (uapi 1.9; ONNX RandomUniform[Like], RandomNormal[Like],
 * Bernoulli): fills out (F32) from Philox4x32-10, a counter-based
 * generator: element i of out (its row-major index) is drawn from the
 * block of counter (i, i >> 32, 0, 0) under key (seed_lo, seed_hi), so
 * the values do not depend on how the work is split. u = (w0 >> 8) *
 * 2^-24 in [0, 1) from the block's first word w0.
 *   UNIFORM    a + (b - a) * u (a = low, b = high)
 *   NORMAL     a + b * z (a = mean, b = scale), z = sqrt(-2 ln u1)
 *              cos(2 pi u2) with u1 = ((w0 >> 8) + 1) * 2^-24 in (0, 1]
 *              and u2 from w1 (Box-Muller, in double)
 *   BERNOULLI  1 if u < p[i] else 0, p F32 of out's shape (a and b 0):
 *              p >= 1 always gives 1, p <= 0 (and NaN) 0
 * PER_JOB mixes a number of the job's into the key (a random number drawn
 * when its file was opened plus the file's count of jobs): each run of a
 * program draws new values (ONNX's random ops without a seed); without it
 * a program draws the same values every run.
 */
enum drm_npu_random_dist {
	DRM_NPU_RANDOM_UNIFORM = 0,
	DRM_NPU_RANDOM_NORMAL = 1,
	DRM_NPU_RANDOM_BERNOULLI = 2,
	DRM_NPU_RANDOM_DIST_COUNT
};

#define DRM_NPU_RANDOM_PER_JOB		(1u << 0)

struct drm_npu_random_params {
	__u32 dist;			/* enum drm_npu_random_dist */
	__u32 flags;			/* DRM_NPU_RANDOM_PER_JOB */
	__u32 seed_lo;
	__u32 seed_hi;
	__u32 a;			/* fp32 bits, finite: low or mean */
	__u32 b;			/* fp32 bits, finite: high or scale */
};

#define DRM_NPU_NMS_CENTER_BOX		(1u << 0)	/* [xc, yc, w, h] */
#define DRM_NPU_NMS_HAS_SCORE_THRESHOLD	(1u << 1)

struct drm_npu_nms_params {
	__u32 flags;
	__u32 max_per_class;		/* >= 1 */
	__u32 iou_threshold;		/* fp32 bits, in [0, 1] */
	__u32 score_threshold;		/* fp32 bits */
};

/*
 * Semaphore tasks address the submission's semaphore bindings by index; the
 * effective value is binding.value + task value, so one registered program
 * can run many times against a growing timeline.
 */
struct drm_npu_sem_params {
	__u32 index;			/* < submit num_sem_bindings */
	__u32 pad;
	__u64 value;
};

/*
 * Images (IMG_CSC, IMG_RESIZE, AIPP): u8 pixels, rows of pixels, a batch of
 * images outermost. Packed formats are one operand [N, H, W, C]; YUV420SP
 * is a Y operand [N, H, W] and a UV operand [N, ceil(H/2), ceil(W/2), 2]
 * (the chroma of pixel (y, x) is UV[y / 2][x / 2]); YUV400 is [N, H, W].
 * A crop is a view: the operand's offset and shape select the window.
 */
enum drm_npu_img_format {
	DRM_NPU_IMG_NV12 = 0,		/* YUV420SP, UV bytes U, V */
	DRM_NPU_IMG_NV21 = 1,		/* YUV420SP, UV bytes V, U */
	DRM_NPU_IMG_RGB888 = 2,		/* bytes R, G, B */
	DRM_NPU_IMG_BGR888 = 3,		/* bytes B, G, R */
	DRM_NPU_IMG_XRGB8888 = 4,	/* DRM fourcc XR24: bytes B, G, R, X */
	DRM_NPU_IMG_YUV400 = 5,		/* Y only */
	DRM_NPU_IMG_FORMAT_COUNT
};

/* IMG_CSC YUV matrices (Documentation/media.rst gives the Q8 entries). */
enum drm_npu_csc_matrix {
	DRM_NPU_CSC_BT601_FULL = 0,	/* JFIF / JPEG */
	DRM_NPU_CSC_BT601_NARROW = 1,	/* Y 16..235 */
	DRM_NPU_CSC_BT709_NARROW = 2,
	DRM_NPU_CSC_MATRIX_COUNT
};

/**
 * struct drm_npu_img_csc_params - IMG_CSC: any format to RGB888/BGR888
 * @in_format: enum drm_npu_img_format of operand 0 (and 1)
 * @out_format: DRM_NPU_IMG_RGB888 or DRM_NPU_IMG_BGR888: out [N, H, W, 3]
 * @matrix: enum drm_npu_csc_matrix, for YUV inputs (0 otherwise)
 * @pad: zero
 */
struct drm_npu_img_csc_params {
	__u32 in_format;
	__u32 out_format;
	__u32 matrix;
	__u32 pad;
};

enum drm_npu_img_resize_mode {
	DRM_NPU_IMG_NEAREST = 0,	/* src = floor(dst * in / out) */
	DRM_NPU_IMG_BILINEAR = 1,	/* half-pixel, OpenCV INTER_LINEAR */
	DRM_NPU_IMG_RESIZE_MODE_COUNT
};

/**
 * struct drm_npu_img_resize_params - IMG_RESIZE: in [N, H, W, C] (C 1..4,
 * the crop window is the view) scaled into out [N, OH, OW, C] less a
 * border of @pad_* pixels filled with @border
 */
struct drm_npu_img_resize_params {
	__u32 mode;			/* enum drm_npu_img_resize_mode */
	__u32 pad_top, pad_left, pad_bottom, pad_right;
	__u8 border[4];			/* per channel */
	__u32 reserved[2];		/* zero */
};

#define DRM_NPU_AIPP_CSC		(1u << 0)	/* apply the matrix */
#define DRM_NPU_AIPP_RBUV_SWAP		(1u << 1)	/* R<->B or U<->V first */
/*
 * Dynamic AIPP: the CSC/swap/normalisation parameters come from an extra
 * operand (U8 [DRM_NPU_AIPP_DYN_SIZE], before the output) holding a
 * struct drm_npu_aipp_dyn, read when the task runs: one registered
 * program, parameters per execution. The task's own matrix, biases, mean,
 * min, var_reci and pad_value must then be zero, CSC and RBUV_SWAP unset;
 * not with YUV400. A struct with unknown flags, reserved bits or a mean
 * above 255 stops the queue with DRM_NPU_FAULT_BAD_PARAMS.
 */
#define DRM_NPU_AIPP_DYNAMIC		(1u << 2)
#define DRM_NPU_AIPP_FLAGS		(DRM_NPU_AIPP_CSC | DRM_NPU_AIPP_RBUV_SWAP | \
					 DRM_NPU_AIPP_DYNAMIC)

/**
 * struct drm_npu_aipp_params - AIPP: u8 image to the first layer's f32
 * @in_format: enum drm_npu_img_format
 * @flags: DRM_NPU_AIPP_*
 * @pad_top, @pad_left, @pad_bottom, @pad_right: border around the image
 * @matrix: Q8 CSC matrix, row c gives output channel c (with CSC only)
 * @input_bias, @output_bias: out_c = clamp((sum M[c][k] (in_k -
 *                 input_bias_k) + 128) >> 8 + output_bias_c, 0, 255)
 * @mean: per channel, u8 range
 * @min: per channel, fp32 bits
 * @var_reci: per channel, fp32 bits: y = (x - mean - min) * var_reci
 * @pad_value: fp32 bits written in the border
 * @reserved: zero
 *
 * Operands: in, [uv], out f32 [N, C, OH, OW] (NCHW) or [N, 1, OH, OW, 16]
 * (NC1HWC0) with C = 3 (1 for YUV400 without CSC), OH = H + pad_top +
 * pad_bottom, OW = W + pad_left + pad_right.
 */
struct drm_npu_aipp_params {
	__u32 in_format;
	__u32 flags;
	__u32 pad_top, pad_left, pad_bottom, pad_right;
	__s16 matrix[9];
	__u8 input_bias[3];
	__u8 output_bias[3];
	__u16 mean[4];
	__u32 min[4];
	__u32 var_reci[4];
	__u32 pad_value;
	__u32 reserved;
};

/**
 * struct drm_npu_aipp_dyn - dynamic AIPP parameters (operand data, little
 * endian), the fields of struct drm_npu_aipp_params that do not change a
 * shape
 * @flags: DRM_NPU_AIPP_CSC | DRM_NPU_AIPP_RBUV_SWAP
 */
struct drm_npu_aipp_dyn {
	__u32 flags;
	__s16 matrix[9];
	__u8 input_bias[3];
	__u8 output_bias[3];
	__u16 mean[4];
	__u32 min[4];
	__u32 var_reci[4];
	__u32 pad_value;
	__u32 reserved;
};

#define DRM_NPU_AIPP_DYN_SIZE		76

#define DRM_NPU_TASK_PARAMS_SIZE	112

/**
 * struct drm_npu_task - one fixed-size (512 byte) device task
 * @opcode: enum drm_npu_opcode
 * @flags: must be zero
 * @num_operands: operands used, in the order the opcode documents
 * @pad: must be zero
 * @reserved: must be zero
 * @params: per-opcode parameters; unused bytes must be zero
 * @operands: tensor views
 */
struct drm_npu_task {
	__u16 opcode;
	__u16 flags;
	__u8 num_operands;
	__u8 pad[3];
	__u64 reserved;
	union {
		__u8 raw[DRM_NPU_TASK_PARAMS_SIZE];
		struct drm_npu_act_params unary;
		struct drm_npu_binary_params binary;
		struct drm_npu_matmul_params matmul;
		struct drm_npu_matmul_wq_params matmul_wq;
		struct drm_npu_conv2d_params conv2d;
		struct drm_npu_pool2d_params pool2d;
		struct drm_npu_softmax_params softmax;
		struct drm_npu_reduce_params reduce;
		struct drm_npu_norm_params norm;
		struct drm_npu_gather_params gather;
		struct drm_npu_pad_params padding;
		struct drm_npu_resize_params resize;
		struct drm_npu_quant_params quant;
		struct drm_npu_attention_params attention;
		struct drm_npu_sem_params sem;
		struct drm_npu_qconv2d_params qconv2d;
		struct drm_npu_qmatmul_params qmatmul;
		struct drm_npu_qadd_params qadd;
		struct drm_npu_img_csc_params img_csc;
		struct drm_npu_img_resize_params img_resize;
		struct drm_npu_aipp_params aipp;
		struct drm_npu_rnn_params rnn;
		struct drm_npu_topk_params topk;
		struct drm_npu_scatter_params scatter;
		struct drm_npu_math_params math;
		struct drm_npu_nms_params nms;
		struct drm_npu_unique_params unique;
		struct drm_npu_grid_sample_params grid_sample;
		struct drm_npu_roi_align_params roi_align;
		struct drm_npu_random_params random;
	} params;
	struct drm_npu_operand operands[DRM_NPU_MAX_OPERANDS];
};

/* ---------------------------------------------------------------------- */
/* ioctls                                                                   */
/* ---------------------------------------------------------------------- */

/**
 * struct drm_npu_device_info - DRM_IOCTL_NPU_DEVICE_INFO (out only)
 */
struct drm_npu_device_info {
	__u32 model;			/* DRM_NPU_MODEL_* */
	__u32 uapi_version;		/* DRM_NPU_UAPI_VERSION of the driver */
	__u32 num_cores;		/* AI cores */
	__u32 num_queues;		/* hardware queues */
	__u32 num_semaphores;		/* hardware semaphores */
	__u32 max_tasks;		/* per program */
	__u64 vram_size;		/* bytes */
	__u64 features;			/* DRM_NPU_FEATURE_* */
	__u64 watchdog_ms;		/* job watchdog period */
	__u64 reserved[4];		/* must be zero on input */
	/*
	 * uapi 1.1: the job budget and the calling file's limits (a driver
	 * of uapi 1.0 leaves them 0: not reported). A request past a limit
	 * fails with EDQUOT.
	 */
	__u64 job_budget_ms;		/* AI-core time per job, 0 = none */
	__u64 file_vram_quota;		/* bytes of VRAM, 0 = none */
	__u64 file_program_bytes;	/* bytes of registered programs */
	__u32 file_queues;		/* queues */
	__u32 file_semaphores;		/* semaphores */
	__u32 file_programs;		/* programs */
	__u32 pad;			/* zero */
};

/* Buffer object flags. */
#define DRM_NPU_BO_PINNED		(1u << 0)	/* never moved by compaction */
#define DRM_NPU_BO_FLAGS		(DRM_NPU_BO_PINNED)

/**
 * struct drm_npu_bo_create - DRM_IOCTL_NPU_BO_CREATE
 * @size: bytes, > 0; rounded up to the device page (4 KiB)
 * @alignment: power of two or 0 (device page)
 * @flags: DRM_NPU_BO_*
 * @handle: out, GEM handle (close with DRM_IOCTL_GEM_CLOSE)
 * Contents are zeroed.
 */
struct drm_npu_bo_create {
	__u64 size;
	__u64 alignment;
	__u32 flags;
	__u32 handle;
	__u64 reserved;
};

/** struct drm_npu_bo_mmap_offset - DRM_IOCTL_NPU_BO_MMAP_OFFSET */
struct drm_npu_bo_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;			/* out: pass to mmap() on the device fd */
};

/** struct drm_npu_bo_info - DRM_IOCTL_NPU_BO_INFO */
struct drm_npu_bo_info {
	__u32 handle;
	__u32 flags;			/* out: DRM_NPU_BO_* */
	__u64 size;			/* out */
	__u64 moves;			/* out: times compaction moved it */
	__u32 busy;			/* out: 1 if a job not yet done uses it */
	__u32 pad;
	__u64 reserved;
};

/** struct drm_npu_bo_wait - DRM_IOCTL_NPU_BO_WAIT: until no job uses it */
struct drm_npu_bo_wait {
	__u32 handle;
	__u32 pad;
	__s64 timeout_ns;		/* absolute CLOCK_MONOTONIC */
};

/**
 * struct drm_npu_program_create - DRM_IOCTL_NPU_PROGRAM_CREATE
 * @tasks_ptr: user pointer to @num_tasks struct drm_npu_task
 * @num_tasks: 1..DRM_NPU_MAX_TASKS
 * @task_size: sizeof(struct drm_npu_task), for future growth
 * @flags: must be zero
 * @handle: out
 * @num_slots: out, 1 + the highest slot any operand uses (0 if none)
 * @slot_sizes_ptr: optional user pointer to @max_slot_sizes __u64, receives
 *                  the bytes each slot's binding must provide at least
 * @max_slot_sizes: capacity of @slot_sizes_ptr
 * @error_task: out on -EINVAL: index of the task that was refused
 * @error_operand: out on -EINVAL: its operand, or ~0u if not operand related
 */
struct drm_npu_program_create {
	__u64 tasks_ptr;
	__u32 num_tasks;
	__u32 task_size;
	__u32 flags;
	__u32 handle;
	__u32 num_slots;
	__u32 max_slot_sizes;
	__u64 slot_sizes_ptr;
	__u32 error_task;
	__u32 error_operand;
	__u64 reserved;
};

/** struct drm_npu_program_destroy - DRM_IOCTL_NPU_PROGRAM_DESTROY */
struct drm_npu_program_destroy {
	__u32 handle;
	__u32 pad;
};

#define DRM_NPU_PRIORITY_LOW		0
#define DRM_NPU_PRIORITY_NORMAL		1
#define DRM_NPU_PRIORITY_HIGH		2

/** struct drm_npu_queue_create - DRM_IOCTL_NPU_QUEUE_CREATE */
struct drm_npu_queue_create {
	__u32 priority;			/* DRM_NPU_PRIORITY_* */
	__u32 flags;			/* must be zero */
	__u32 handle;			/* out */
	__u32 hw_queue;			/* out: the hardware queue it maps to */
};

/** struct drm_npu_queue_destroy - DRM_IOCTL_NPU_QUEUE_DESTROY (waits idle) */
struct drm_npu_queue_destroy {
	__u32 handle;
	__u32 pad;
};

/* Fault reasons (drm_npu_fault.reason). */
enum drm_npu_fault_reason {
	DRM_NPU_FAULT_NONE = 0,
	DRM_NPU_FAULT_OUT_OF_RANGE = 1,	/* operand outside its bound buffer */
	DRM_NPU_FAULT_BAD_OPCODE = 2,
	DRM_NPU_FAULT_WATCHDOG = 3,	/* task ran past the watchdog */
	DRM_NPU_FAULT_INJECTED = 4,	/* test mode */
	DRM_NPU_FAULT_BAD_INDEX = 5,	/* gather index out of range */
	DRM_NPU_FAULT_CANCELLED = 6,	/* queued behind a faulting job */
	DRM_NPU_FAULT_BUDGET = 7,	/* job ran past the job budget */
	DRM_NPU_FAULT_BAD_PARAMS = 8,	/* uapi 1.2: dynamic AIPP parameters */
};

/**
 * struct drm_npu_queue_query - DRM_IOCTL_NPU_QUEUE_QUERY
 * Reports progress and the most recent fault; a faulted queue has been
 * reset by the driver and accepts new submissions.
 */
struct drm_npu_queue_query {
	__u32 handle;
	__u32 flags;			/* DRM_NPU_QUEUE_QUERY_CLEAR_FAULT */
	__u64 submitted;		/* out: last fence point handed out */
	__u64 completed;		/* out: last fence point retired */
	__u32 num_faults;		/* out: faults since creation */
	__u32 fault_reason;		/* out: enum drm_npu_fault_reason */
	__u64 fault_fence;		/* out: fence point of the faulting job */
	__u32 fault_task;		/* out: task index within the program */
	__u32 fault_operand;		/* out: operand index, ~0u if none */
	__u64 reserved;
};

#define DRM_NPU_QUEUE_QUERY_CLEAR_FAULT	(1u << 0)

/** struct drm_npu_sem_create - DRM_IOCTL_NPU_SEM_CREATE (64-bit timeline) */
struct drm_npu_sem_create {
	__u64 initial_value;
	__u32 flags;			/* must be zero */
	__u32 handle;			/* out */
};

/** struct drm_npu_sem_destroy - DRM_IOCTL_NPU_SEM_DESTROY */
struct drm_npu_sem_destroy {
	__u32 handle;
	__u32 pad;
};

/**
 * struct drm_npu_sem_signal - DRM_IOCTL_NPU_SEM_SIGNAL
 * @value must be greater than the current value (-EINVAL otherwise).
 */
struct drm_npu_sem_signal {
	__u32 handle;
	__u32 pad;
	__u64 value;
};

/** struct drm_npu_sem_wait - DRM_IOCTL_NPU_SEM_WAIT: until value >= @value */
struct drm_npu_sem_wait {
	__u32 handle;
	__u32 flags;			/* must be zero */
	__u64 value;
	__s64 timeout_ns;		/* absolute CLOCK_MONOTONIC; -ETIME */
};

/** struct drm_npu_sem_query - DRM_IOCTL_NPU_SEM_QUERY */
struct drm_npu_sem_query {
	__u32 handle;
	__u32 pad;
	__u64 value;			/* out */
};

/** struct drm_npu_sem_point - a semaphore and a value, for submit */
struct drm_npu_sem_point {
	__u32 handle;
	__u32 pad;
	__u64 value;
};

/**
 * struct drm_npu_submit - DRM_IOCTL_NPU_SUBMIT
 * @queue: queue handle
 * @program: program handle
 * @first_task, @num_tasks: task range of the program to run (num_tasks 0 =
 *                          to the end)
 * @bos_ptr: user pointer to @num_bos __u32 GEM handles; entry i binds slot i;
 *           @num_bos must equal the program's num_slots and each buffer must
 *           be at least as large as the slot's need (-ENOSPC otherwise)
 * @waits_ptr, @num_waits: struct drm_npu_sem_point the job waits for (value
 *                         >=) before its first task
 * @signals_ptr, @num_signals: struct drm_npu_sem_point set when the job ends
 * @sem_bindings_ptr, @num_sem_bindings: struct drm_npu_sem_point addressed
 *                         by the program's SEM_SIGNAL/SEM_WAIT tasks (value
 *                         is the base added to the task's value)
 * @flags: DRM_NPU_SUBMIT_*
 * @profile_bo, @profile_offset: with DRM_NPU_SUBMIT_PROFILE, where the device
 *                         writes a struct drm_npu_task_profile per task (the
 *                         range must fit in the buffer); must be 0 otherwise
 * @fence: out, the queue's fence point for this job (wait with WAIT_FENCE)
 * @reserved: must be zero; with DRM_NPU_SUBMIT_SYNCOBJ, a syncobj handle
 */
struct drm_npu_submit {
	__u32 queue;
	__u32 program;
	__u32 first_task;
	__u32 num_tasks;
	__u64 bos_ptr;
	__u64 waits_ptr;
	__u64 signals_ptr;
	__u64 sem_bindings_ptr;
	__u32 num_bos;
	__u32 num_waits;
	__u32 num_signals;
	__u32 num_sem_bindings;
	__u32 flags;
	__u32 profile_bo;
	__u64 profile_offset;
	__u64 fence;
	__u64 reserved;
};

#define DRM_NPU_MAX_SEM_POINTS		64
#define DRM_NPU_SUBMIT_PROFILE		(1u << 0)
#define DRM_NPU_SUBMIT_FLAGS		(DRM_NPU_SUBMIT_PROFILE)

/*
 * DRM_NPU_SUBMIT_SYNCOBJ (kernel node only; not in DRM_NPU_SUBMIT_FLAGS,
 * which lists the flags every home accepts): @reserved carries the handle
 * of a DRM syncobj of the calling file (low 32 bits; the high 32 bits must
 * be zero). The driver adds the timeline point @fence to it, signalled when
 * the job retires (with an error if it faulted or was cancelled), so that
 * DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, sync_file export and other drivers can
 * wait for NPU work. Without the flag @reserved must be zero. The
 * in-process device has no syncobjs and refuses the flag with -EINVAL.
 */
#define DRM_NPU_SUBMIT_SYNCOBJ		(1u << 1)

/**
 * struct drm_npu_task_profile - one record per executed task, written by the
 * device at profile_offset + i * sizeof(record) of the submission's
 * profile_bo when DRM_NPU_SUBMIT_PROFILE is set. Timestamps are
 * CLOCK_MONOTONIC nanoseconds, the clock of the host's timeouts.
 */
struct drm_npu_task_profile {
	__u64 start_ns;
	__u64 end_ns;
	__u32 task;			/* index within the program */
	__u32 core;			/* AI core that ran it */
	__u32 hw_queue;
	__u32 status;			/* 0 or enum drm_npu_fault_reason */
};

/**
 * struct drm_npu_wait_fence - DRM_IOCTL_NPU_WAIT_FENCE
 * Returns 0 when the job completed, -EIO if it faulted or was cancelled
 * (see QUEUE_QUERY), -ETIME past the deadline.
 */
struct drm_npu_wait_fence {
	__u32 queue;
	__u32 flags;			/* must be zero */
	__u64 fence;
	__s64 timeout_ns;		/* absolute CLOCK_MONOTONIC */
};

/** struct drm_npu_mem_stats - DRM_IOCTL_NPU_MEM_STATS (out only) */
struct drm_npu_mem_stats {
	__u64 vram_total;
	__u64 vram_used;		/* bytes in live buffer objects */
	__u64 vram_free;
	__u64 largest_free;		/* largest contiguous free range */
	__u64 peak_used;
	__u64 num_bos;
	__u64 num_free_ranges;
	__u64 compactions;
	__u64 bytes_moved;
	__u64 pause_ns;			/* total time dispatch was held */
	__u64 alloc_failures;
	__u64 file_used;		/* bytes held by the calling file */
	__u64 file_quota;		/* 0 = unlimited */
	__u64 reserved[3];		/* must be zero on input */
};

/**
 * struct drm_npu_compact - DRM_IOCTL_NPU_COMPACT
 * @min_hole: open a free range of at least this many bytes, moving the
 *            fewest bytes; 0 compacts the whole pool
 */
struct drm_npu_compact {
	__u64 min_hole;
	__u32 flags;			/* must be zero */
	__u32 pad;
	__u64 bytes_moved;		/* out */
	__u64 largest_free;		/* out, after */
};

#define DRM_NPU_DEVICE_INFO		0x00
#define DRM_NPU_BO_CREATE		0x01
#define DRM_NPU_BO_MMAP_OFFSET		0x02
#define DRM_NPU_BO_INFO			0x03
#define DRM_NPU_BO_WAIT			0x04
#define DRM_NPU_PROGRAM_CREATE		0x05
#define DRM_NPU_PROGRAM_DESTROY		0x06
#define DRM_NPU_QUEUE_CREATE		0x07
#define DRM_NPU_QUEUE_DESTROY		0x08
#define DRM_NPU_QUEUE_QUERY		0x09
#define DRM_NPU_SEM_CREATE		0x0a
#define DRM_NPU_SEM_DESTROY		0x0b
#define DRM_NPU_SEM_SIGNAL		0x0c
#define DRM_NPU_SEM_WAIT		0x0d
#define DRM_NPU_SEM_QUERY		0x0e
#define DRM_NPU_SUBMIT			0x0f
#define DRM_NPU_WAIT_FENCE		0x10
#define DRM_NPU_MEM_STATS		0x11
#define DRM_NPU_COMPACT			0x12
#define DRM_NPU_NUM_IOCTLS		0x13

#define DRM_IOCTL_NPU(dir, nr, type) \
	DRM_##dir(DRM_COMMAND_BASE + DRM_NPU_##nr, struct drm_npu_##type)

#define DRM_IOCTL_NPU_DEVICE_INFO	DRM_IOCTL_NPU(IOWR, DEVICE_INFO, device_info)
#define DRM_IOCTL_NPU_BO_CREATE		DRM_IOCTL_NPU(IOWR, BO_CREATE, bo_create)
#define DRM_IOCTL_NPU_BO_MMAP_OFFSET	DRM_IOCTL_NPU(IOWR, BO_MMAP_OFFSET, bo_mmap_offset)
#define DRM_IOCTL_NPU_BO_INFO		DRM_IOCTL_NPU(IOWR, BO_INFO, bo_info)
#define DRM_IOCTL_NPU_BO_WAIT		DRM_IOCTL_NPU(IOW, BO_WAIT, bo_wait)
#define DRM_IOCTL_NPU_PROGRAM_CREATE	DRM_IOCTL_NPU(IOWR, PROGRAM_CREATE, program_create)
#define DRM_IOCTL_NPU_PROGRAM_DESTROY	DRM_IOCTL_NPU(IOW, PROGRAM_DESTROY, program_destroy)
#define DRM_IOCTL_NPU_QUEUE_CREATE	DRM_IOCTL_NPU(IOWR, QUEUE_CREATE, queue_create)
#define DRM_IOCTL_NPU_QUEUE_DESTROY	DRM_IOCTL_NPU(IOW, QUEUE_DESTROY, queue_destroy)
#define DRM_IOCTL_NPU_QUEUE_QUERY	DRM_IOCTL_NPU(IOWR, QUEUE_QUERY, queue_query)
#define DRM_IOCTL_NPU_SEM_CREATE	DRM_IOCTL_NPU(IOWR, SEM_CREATE, sem_create)
#define DRM_IOCTL_NPU_SEM_DESTROY	DRM_IOCTL_NPU(IOW, SEM_DESTROY, sem_destroy)
#define DRM_IOCTL_NPU_SEM_SIGNAL	DRM_IOCTL_NPU(IOW, SEM_SIGNAL, sem_signal)
#define DRM_IOCTL_NPU_SEM_WAIT		DRM_IOCTL_NPU(IOW, SEM_WAIT, sem_wait)
#define DRM_IOCTL_NPU_SEM_QUERY		DRM_IOCTL_NPU(IOWR, SEM_QUERY, sem_query)
#define DRM_IOCTL_NPU_SUBMIT		DRM_IOCTL_NPU(IOWR, SUBMIT, submit)
#define DRM_IOCTL_NPU_WAIT_FENCE	DRM_IOCTL_NPU(IOW, WAIT_FENCE, wait_fence)
#define DRM_IOCTL_NPU_MEM_STATS		DRM_IOCTL_NPU(IOWR, MEM_STATS, mem_stats)
#define DRM_IOCTL_NPU_COMPACT		DRM_IOCTL_NPU(IOWR, COMPACT, compact)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_NPU_DRM_H_ */
