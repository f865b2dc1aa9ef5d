/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_ops_internal.h - shared between the op kernels' files (integer only).
 *
 * The checks and the work-unit counts (npu_ops_check.c, npu_ops_units.c,
 * npu_ops_geom.c) never touch float types, so the kernel module may call
 * them outside kernel_fpu_begin()/kernel_fpu_end(). The kernels themselves
 * (op_*.c, npu_math.c) are float code.
 */
#ifndef NPU_OPS_INTERNAL_H
#define NPU_OPS_INTERNAL_H

#include "npu_ops.h"

#define NPU_C0_BYTES_1	32	/* NC1HWC0 C0 for 1-byte types */
#define NPU_C0_DEFAULT	16	/* NC1HWC0 C0 for 2- and 4-byte types */

/* Output rows per MATMUL unit; output channels per CONV2D unit. */
#define NPU_MM_MR	16
#define NPU_CONV_OCB	16
/* Flattened 1x1 convolutions: output pixels per work unit. */
#define NPU_CONV_FLAT_PIX	64
/*
 * Pixels a CONV2D unit of the pixel-major product aims at: rows shorter
 * than this go several to a unit, so that on small feature maps a block
 * of weights serves the tiles of several rows (npu_conv_geom()).
 */
#define NPU_CONV_UNIT_PIX	64

/*
 * The arithmetic discipline of the op kernels (Documentation/security.rst):
 *
 * - An operand holds at most NPU_MAX_ELEMS elements, and so does the
 *   product of any subset of its non-zero dims: every count derived from
 *   shapes fits in 64 bits with room to spare, and a 0 in one dim never
 *   hides an overflowing product of the others.
 * - Counts, products and indices derived from user dims are u64; loops
 *   over a user dim count in u64.
 * - One work unit costs at most NPU_MAX_UNIT_COST element operations
 *   (npu_op_unit_cost()), so a core returns to the scheduler, which can
 *   abort it, within milliseconds. Rows longer than NPU_ROW_SEG elements
 *   are split into segments; tasks whose smallest unit would still cost
 *   more are refused by npu_op_check().
 * - A kernel indexes an operand only with coordinates below that
 *   operand's own shape (a broadcast dim only with 0), so it touches only
 *   the bytes [offset, end) that the validator computed from the shape and
 *   strides. Each check_*() in npu_ops_check.c says why that holds.
 */
#define NPU_MAX_ELEMS		BIT_ULL(40)
/* Image height/width limit of IMG_CSC, IMG_RESIZE and AIPP. */
#define NPU_IMG_MAX_DIM		65536u
#define NPU_MAX_UNIT_COST	BIT_ULL(27)
#define NPU_ROW_SEG		BIT(16)
/* MATMUL: multiply-adds one unit aims for when it splits the columns. */
#define NPU_MM_UNIT_TARGET	BIT_ULL(22)

static inline const struct drm_npu_operand *
npu_opnd(const struct drm_npu_task *t, u32 i)
{
	return &t->operands[i];
}

/* Product of shape[from, to); 0 if any extent is 0. */
static inline u64 npu_dims_prod(const struct drm_npu_operand *o, u32 from,
				u32 to)
{
	u64 n = 1;
	u32 i;

	for (i = from; i < to; i++)
		n *= o->shape[i];
	return n;
}

/* a * b, or U64_MAX when that overflows: for costs compared with a cap. */
static inline u64 npu_mul_sat(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? ~0ull : r;
}

/* a + b, or U64_MAX: a saturated product plus a term must stay saturated. */
static inline u64 npu_add_sat(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? ~0ull : r;
}

static inline u64 npu_numel(const struct drm_npu_operand *o)
{
	return npu_dims_prod(o, 0, o->rank);
}

/* Number of rows (all dimensions but the last); 1 for a scalar. */
static inline u64 npu_rows(const struct drm_npu_operand *o)
{
	if (o->rank == 0)
		return 1;
	return npu_dims_prod(o, 0, o->rank - 1);
}

static inline u32 npu_last_dim(const struct drm_npu_operand *o)
{
	return o->rank ? o->shape[o->rank - 1] : 1;
}

/* C0 of the NC1HWC0 layout for a dtype: 32 for 1-byte types, else 16. */
/* uapi 1.8's storage types: only COPY reads and writes them. */
static inline bool npu_dt_storage(u32 dtype)
{
	return dtype >= DRM_NPU_DTYPE_F64 && dtype < DRM_NPU_DTYPE_COUNT;
}

static inline u32 npu_c0_of(u32 dtype)
{
	return npu_dtype_size(dtype) == 1 ? NPU_C0_BYTES_1 : NPU_C0_DEFAULT;
}

static inline int npu_is_nc1hwc0(const struct drm_npu_operand *o)
{
	return o->layout == DRM_NPU_LAYOUT_NC1HWC0;
}

/*
 * Strides of @in as seen from the index space of @out (numpy broadcasting,
 * aligned to the right): a size-1 or missing dimension gets stride 0.
 */
void npu_bcast_strides(const struct drm_npu_operand *in,
		       const struct drm_npu_operand *out, u64 st[DRM_NPU_MAX_RANK]);

/* Split a linear index over shape[0, n) into coordinates (row-major). */
void npu_unravel(u64 idx, const u32 *shape, u32 n, u32 *coord);

/* Element offset sum(coord[i] * st[i]) over n dimensions. */
static inline u64 npu_offset(const u32 *coord, const u64 *st, u32 n)
{
	u64 off = 0;
	u32 i;

	for (i = 0; i < n; i++)
		off += (u64)coord[i] * st[i];
	return off;
}

/*
 * Elementwise iteration: the unit is a row of the output (all dims but the
 * last). npu_rows_begin() sets up broadcast strides of @n inputs; then
 * npu_row_offsets() gives each operand's element offset of a row's start.
 * Operand 0..n-1 are inputs, the output comes last in @ops.
 */
struct npu_rows {
	u32 n, rank, len;
	u64 st[DRM_NPU_MAX_OPERANDS][DRM_NPU_MAX_RANK];
	u64 inner[DRM_NPU_MAX_OPERANDS];	/* stride along the last dim */
	/* rows of every operand one stride apart: offset = row * rs */
	bool uniform;
	u64 rs[DRM_NPU_MAX_OPERANDS];
	const struct drm_npu_operand *out;
};

/*
 * A row-wise work unit: segment [start, start + len) of output row @row.
 * Rows of up to NPU_ROW_SEG elements are one segment (one unit per row).
 */
struct npu_seg {
	u64 row;
	u32 start, len;
};

/* Segments of @seg elements of a row of @len (1: empty or scalar row). */
static inline u64 npu_row_segs_n(u32 len, u32 seg)
{
	return len ? ((u64)len + seg - 1) / seg : 1;
}

static inline u64 npu_row_segs(u32 len)
{
	return npu_row_segs_n(len, NPU_ROW_SEG);
}

/* Unit @unit of row-wise work over rows of @len, @seg elements a unit. */
static inline void npu_seg_of_n(u64 unit, u32 len, u32 seg, struct npu_seg *s)
{
	u64 segs = npu_row_segs_n(len, seg), k = unit % segs;

	s->row = unit / segs;
	s->start = (u32)(k * seg);
	s->len = len - s->start < seg ? len - s->start : seg;
}

static inline void npu_seg_of(u64 unit, u32 len, struct npu_seg *s)
{
	npu_seg_of_n(unit, len, NPU_ROW_SEG, s);
}

void npu_rows_begin(struct npu_rows *r, const struct drm_npu_operand *const *ops,
		    u32 n);
/* Element offsets of each operand at the first element of unit @unit. */
void npu_row_offsets(const struct npu_rows *r, u64 unit, struct npu_seg *s,
		     u64 *offs);

/* Copy an nd-dimensional block of @es-byte elements between strided views. */
void npu_copy_block(u8 *dst, const u64 *dst_st, const u8 *src,
		    const u64 *src_st, const u32 *shape, u32 nd, u32 es);

/* The same with an operand's own (u32) strides. */
static inline u64 npu_offset32(const u32 *coord, const u32 *st, u32 n)
{
	u64 off = 0;
	u32 i;

	for (i = 0; i < n; i++)
		off += (u64)coord[i] * st[i];
	return off;
}

/* Convolution geometry, derived from a checked CONV2D task. */
struct npu_conv_geom {
	u32 n, c, h, w;		/* input */
	u32 o, oh, ow;		/* output */
	u32 kh, kw, groups, cg, og;
	u32 sh, sw, dh, dw, pt, pl;
	u32 ocb;		/* output channels per unit: 16, or 64 */
	u32 ob;			/* blocks of ocb channels per group */
	u32 rows;		/* output rows per unit (not flat, not dwblk) */
	u64 rb;			/* blocks of rows: ceil(oh / rows) */
	int wdense;		/* weight taps (c, kh, kw) dense per o */
	int flat;		/* 1x1/s1/p0 on dense planes: one pixel row */
	u64 flat_units;		/* pixel chunks per plane when flat */
	int in_c0, out_c0;	/* C0 when the operand is NC1HWC0, else 0 */
	u32 dwblk;		/* depthwise NC1HWC0: 16 channels per unit */
};

void npu_conv_geom(const struct drm_npu_task *t, struct npu_conv_geom *g);

/* MATMUL_WQ output columns per work unit (a multiple of 32, or all N). */
u64 npu_wq_cols(const struct drm_npu_task *t);

/* MATMUL output columns per work unit (a multiple of 8, or all of N). */
u64 npu_mm_cols(const struct drm_npu_task *t);

/*
 * A batched MATMUL whose B and bias are the same for every batch and whose
 * A and output rows follow each other at one stride each across the
 * batch dims is one product of rows = batch * M rows (BERT's projections
 * of [S, 1, D] activations: S batches of one row otherwise).
 */
struct npu_mm_fold {
	u64 rows;		/* batch * M */
	u64 a_rs, o_rs;		/* row strides of A and of the output */
};

bool npu_mm_fold(const struct drm_npu_task *t, struct npu_mm_fold *f);

/*
 * POOL2D windows (not global) over NC1HWC0 input and output: a work unit
 * is an output row of a whole C0 block rather than of one channel.
 */
bool npu_pool_blocked(const struct drm_npu_task *t);

/*
 * int8 ops (op_qlinear.c): QCONV2D units are 16 output channels of one
 * output row; QMATMUL units NPU_Q_MM_ROWS rows of the output, or one row
 * when that many would exceed the unit cost bound.
 */
#define NPU_Q_OCB	16
#define NPU_Q_MM_ROWS	16

struct npu_qmm_geom {
	u32 m, n, k;
	u64 rows;		/* product of out's dims but the last */
	u64 rpu;		/* rows per unit */
};

void npu_qmm_geom(const struct drm_npu_task *t, struct npu_qmm_geom *g);

/* Output size of a pooling/conv window along one axis (floor mode). */
static inline u32 npu_window_out(u32 in, u32 pad, u32 k, u32 s, u32 d)
{
	u64 span = (u64)d * (k - 1) + 1, padded = (u64)in + pad;

	if (padded < span)
		return 0;
	return (u32)((padded - span) / s + 1);
}

/* fp32 bit-pattern tests, integer only. */
static inline int npu_bits_finite(u32 b)
{
	return (b & 0x7f800000u) != 0x7f800000u;
}

static inline int npu_bits_positive_finite(u32 b)
{
	return !(b & 0x80000000u) && npu_bits_finite(b) && (b & 0x7fffffffu);
}

/* Per-opcode entry points (npu_ops_run.c dispatches). */
int npu_run_copy(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_binary(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_unary(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_where(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_matmul(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_conv2d(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_pool2d(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_softmax(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_reduce(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_layernorm(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_batchnorm(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_gather(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_pad(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_resize(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_transdata(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_quantize(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_dequantize(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_attention(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_qconv2d(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_qmatmul(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_qadd(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_img_csc(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_img_resize(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_aipp(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_rnn(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_topk(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_grid_sample(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_roi_align(const struct npu_op_args *a, u64 b, u64 e);
/*
 * RESIZE: whether dim @d is copied, not interpolated (same extent, scale
 * 1, and not pytorch_half_pixel's length-1 special case), and the
 * elements a unit takes (its cost over NPU_MAX_UNIT_COST, at most
 * NPU_ROW_SEG): linear and cubic sum 2^k or 4^k taps of the k other dims.
 */
bool npu_resize_dim_plain(const struct drm_npu_task *t, u32 d);
/* GRID_SAMPLE: an output element's cost, the elements a unit takes. */
u64 npu_grid_sample_elem_cost(const struct drm_npu_task *t);
u32 npu_grid_sample_seg(const struct drm_npu_task *t);
u32 npu_resize_seg(const struct drm_npu_task *t);
/*
 * ROI_ALIGN's samples per bin side at most along in's @dim (2: height,
 * 3: width): sampling_ratio, else ceil(2 extent / bins), at least 1.
 */
u64 npu_roi_align_grid_max(const struct drm_npu_task *t, u32 dim);
int npu_run_scatter(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_math(const struct npu_op_args *a, u64 b, u64 e);
/* sin x (cos x when @cosine) in double, about 1e-16 (op_math.c) */
double npu_sin_cos_d(double x, int cosine);
int npu_run_random(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_nonzero(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_nms(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_pack_rows(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_unique(const struct npu_op_args *a, u64 b, u64 e);
int npu_run_matmul_wq(const struct npu_op_args *a, u64 b, u64 e);

#endif /* NPU_OPS_INTERNAL_H */
