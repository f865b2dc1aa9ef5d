// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_ops_geom.c - integer helpers shared by the checks and the kernels:
 * element sizes, broadcasting, index arithmetic, convolution geometry and
 * the work-unit count of every opcode. No float types here.
 */

/*
 * The module builds every ops/ object with SSE enabled, but this file runs
 * outside kernel_fpu_begin() (program validation, work-unit counts): keep
 * GCC from using vector registers even for memset/memcpy expansions.
 */
#if defined(__KERNEL__) && defined(__x86_64__)
#pragma GCC target("general-regs-only")
#endif

#include "npu_ops_internal.h"
#include "npu_qkern.h"

u32 npu_dtype_size(u32 dtype)
{
	switch (dtype) {
	case DRM_NPU_DTYPE_F32:
	case DRM_NPU_DTYPE_I32:
	case DRM_NPU_DTYPE_U32:
		return 4;
	case DRM_NPU_DTYPE_F16:
	case DRM_NPU_DTYPE_BF16:
	case DRM_NPU_DTYPE_I16:
	case DRM_NPU_DTYPE_U16:
		return 2;
	case DRM_NPU_DTYPE_I8:
	case DRM_NPU_DTYPE_U8:
	case DRM_NPU_DTYPE_BOOL:
		return 1;
	case DRM_NPU_DTYPE_I64:
	case DRM_NPU_DTYPE_F64:
	case DRM_NPU_DTYPE_U64:
		return 8;
	default:
		return 0;
	}
}

int npu_operand_end(const struct drm_npu_operand *op, u64 *end)
{
	u64 elems = 0, esize, bytes;
	u32 i;

	if (op->flags || op->pad || op->rank > DRM_NPU_MAX_RANK ||
	    op->layout >= DRM_NPU_LAYOUT_COUNT || op->slot >= DRM_NPU_MAX_SLOTS)
		return -EINVAL;
	esize = npu_dtype_size(op->dtype);
	if (op->dtype == DRM_NPU_DTYPE_I4)
		esize = 1;	/* nibbles: halved below */
	if (!esize)
		return -EINVAL;
	for (i = op->rank; i < DRM_NPU_MAX_RANK; i++)
		if (op->shape[i] || op->strides[i])
			return -EINVAL;
	for (i = 0; i < op->rank; i++) {
		u64 step;

		if (op->shape[i] == 0) {
			*end = op->offset;	/* empty view touches nothing */
			return 0;
		}
		if (check_mul_overflow((u64)(op->shape[i] - 1),
				       (u64)op->strides[i], &step) ||
		    check_add_overflow(elems, step, &elems))
			return -EINVAL;
	}
	/* elems is now the index of the last element; +1 for its count */
	if (check_add_overflow(elems, (u64)1, &elems))
		return -EINVAL;
	if (op->dtype == DRM_NPU_DTYPE_I4)
		elems = elems / 2 + (elems & 1);	/* two per byte */
	if (check_mul_overflow(elems, esize, &bytes) ||
	    check_add_overflow(op->offset, bytes, end))
		return -EINVAL;
	return 0;
}

void npu_bcast_strides(const struct drm_npu_operand *in,
		       const struct drm_npu_operand *out, u64 st[DRM_NPU_MAX_RANK])
{
	u32 lead = out->rank - in->rank, i;

	for (i = 0; i < DRM_NPU_MAX_RANK; i++)
		st[i] = 0;
	for (i = 0; i < in->rank; i++)
		if (in->shape[i] != 1)
			st[lead + i] = in->strides[i];
}

void npu_unravel(u64 idx, const u32 *shape, u32 n, u32 *coord)
{
	while (n--) {
		u32 s = shape[n];

		coord[n] = s ? (u32)(idx % s) : 0;
		idx = s ? idx / s : 0;
	}
}

/* An activation plane is dense when its rows follow each other. */
static int plane_dense(const struct drm_npu_operand *o, u32 w)
{
	return o->strides[2] == (u64)w * o->strides[3];
}

/*
 * Output rows per unit: one, except for the pixel-major product (weights
 * O-innermost, not depthwise) and 16-channel depthwise blocks on rows
 * shorter than NPU_CONV_UNIT_PIX, which take as many whole rows as fit
 * that many pixels and the cost bound. A core's unified buffer then
 * holds the sums of all the unit's tiles, and each block of weights is
 * loaded (gathered, for depthwise) once for all of them.
 */
static void conv_geom_rows(struct npu_conv_geom *g,
			   const struct drm_npu_operand *wt, u64 taps)
{
	u64 r = 1, per_row;

	per_row = npu_mul_sat(npu_mul_sat(g->ow, g->ocb), taps);
	if (((wt->strides[0] == 1 && !(g->cg == 1 && g->og == 1)) ||
	     g->dwblk) && !g->flat && g->ow && g->ow < NPU_CONV_UNIT_PIX) {
		r = NPU_CONV_UNIT_PIX / g->ow;
		if (r > g->oh)
			r = g->oh;
		if (per_row && r > NPU_MAX_UNIT_COST / per_row)
			r = NPU_MAX_UNIT_COST / per_row;
		if (!r)
			r = 1;
	}
	g->rows = (u32)r;
	g->rb = ((u64)g->oh + r - 1) / r;
}

void npu_conv_geom(const struct drm_npu_task *t, struct npu_conv_geom *g)
{
	u64 taps;
	const struct drm_npu_conv2d_params *p = &t->params.conv2d;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *wt = npu_opnd(t, 1);
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);

	memset(g, 0, sizeof(*g));
	g->in_c0 = npu_is_nc1hwc0(in) ? (int)in->shape[4] : 0;
	g->out_c0 = npu_is_nc1hwc0(out) ? (int)out->shape[4] : 0;
	g->n = in->shape[0];
	g->h = in->shape[2];
	g->w = in->shape[3];
	g->o = wt->shape[0];
	g->groups = p->groups;
	g->cg = wt->shape[1];
	g->c = g->cg * g->groups;	/* checked: no wrap */
	g->og = g->o / g->groups;
	g->kh = wt->shape[2];
	g->kw = wt->shape[3];
	g->oh = out->shape[2];
	g->ow = out->shape[3];
	g->sh = p->stride_h;
	g->sw = p->stride_w;
	g->dh = p->dilation_h;
	g->dw = p->dilation_w;
	g->pt = p->pad_top;
	g->pl = p->pad_left;
	g->wdense = wt->strides[3] == 1 && wt->strides[2] == g->kw &&
		    wt->strides[1] == (u64)g->kh * g->kw;
	/* a flattened plane must still index in 32 bits */
	g->flat = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 &&
		  !p->pad_top && !p->pad_left && !p->pad_bottom &&
		  !p->pad_right && plane_dense(in, g->w) &&
		  plane_dense(out, g->ow) &&
		  (u64)g->h * g->w <= 0xffffffffull &&
		  (u64)g->oh * g->ow <= 0xffffffffull;
	/*
	 * Depthwise on NC1HWC0 operands whose 16 channels are contiguous: a
	 * unit computes an output row of a whole 16-channel block (the
	 * channels are the vector lanes), not of one channel.
	 */
	if (g->cg == 1 && g->og == 1 && !g->flat &&
	    g->in_c0 == NPU_C0_DEFAULT && g->out_c0 == NPU_C0_DEFAULT &&
	    in->strides[4] == 1 && out->strides[4] == 1)
		g->dwblk = NPU_C0_DEFAULT;
	if (g->flat) {
		u64 pix = (u64)g->oh * g->ow;

		g->flat_units = (pix + NPU_CONV_FLAT_PIX - 1) / NPU_CONV_FLAT_PIX;
	}
	/*
	 * Weights stored O-innermost (npuc's order): 64 (or, for groups of
	 * 32 to 63, 32) output channels per unit, so that the product kernels
	 * run their wide tiles (more sums
	 * per loaded weight row, and independent sums even for an edge
	 * pixel; Documentation/ops.rst), while a unit stays within the cost
	 * bound.
	 */
	g->ocb = NPU_CONV_OCB;
	taps = npu_mul_sat(g->cg, (u64)g->kh * g->kw);
	if (wt->strides[0] == 1 && g->og >= 64 &&
	    !(g->cg == 1 && g->og == 1) &&
	    npu_mul_sat(npu_mul_sat(64, g->flat ? NPU_CONV_FLAT_PIX : g->ow),
			taps) <= NPU_MAX_UNIT_COST)
		g->ocb = 64;
	else if (wt->strides[0] == 1 && g->og >= 32 &&
		 npu_mul_sat(npu_mul_sat(32, g->flat ? NPU_CONV_FLAT_PIX :
					 g->ow), taps) <= NPU_MAX_UNIT_COST)
		g->ocb = 32;	/* 32 to 63 channels: the 32-channel tile */
	g->ob = (u32)(((u64)g->og + g->ocb - 1) / g->ocb);
	conv_geom_rows(g, wt, taps);
}

static u64 conv_units(const struct drm_npu_task *t)
{
	struct npu_conv_geom g;

	npu_conv_geom(t, &g);
	if (g.dwblk)
		return (u64)g.n * ((g.groups + g.dwblk - 1) / g.dwblk) * g.rb;
	return (u64)g.n * g.groups * g.ob * (g.flat ? g.flat_units : g.rb);
}

/*
 * Element operations of one CONV2D unit: its pixels x channels x taps
 * (16 channels: a block of output channels, or a depthwise block).
 */
static u64 conv_unit_cost(const struct drm_npu_task *t)
{
	struct npu_conv_geom g;
	u64 taps, pix;

	npu_conv_geom(t, &g);
	taps = (u64)g.cg * g.kh * g.kw;		/* weight dims: <= 2^40 */
	pix = g.flat ? NPU_CONV_FLAT_PIX : (u64)g.ow * g.rows;
	return npu_mul_sat(npu_mul_sat(pix, g.ocb), taps);
}

/*
 * MATMUL columns per unit: a multiple of 8 (the register tile) sized so
 * that NPU_MM_MR rows x columns x K stays near NPU_MM_UNIT_TARGET, and at
 * least one tile. Splitting columns never changes a result: every output
 * element sums its K products in order, whichever unit computes it.
 */
u64 npu_mm_cols(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *a = npu_opnd(t, 0);
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);
	u64 n = out->shape[out->rank - 1], k, tiles, cols;

	k = (t->params.matmul.flags & DRM_NPU_MATMUL_TRANS_A) ?
	    a->shape[a->rank - 2] : a->shape[a->rank - 1];
	tiles = NPU_MM_UNIT_TARGET / (NPU_MM_MR * 8 * (k ? k : 1));
	/* whole tiles of the widest product kernel (32 columns) */
	if (tiles >= 4)
		tiles &= ~3ull;
	if (!tiles)
		tiles = 1;
	cols = tiles * 8 >= n ? (n ? n : 1) : tiles * 8;
	/*
	 * An F32 B: a block whose K rows fit a core's unified buffer, where
	 * op_matmul.c packs it once for the units of every row block (a B of
	 * a large row stride otherwise thrashes the cache's sets: 768 x 3072
	 * ran at a quarter of the FMA peak; a TRANS_B one is packed into rows
	 * for the product kernel: 128 x 768 x 768 went from 12 to 140
	 * GFLOP/s).
	 */
	if (out->dtype == DRM_NPU_DTYPE_F32 && k &&
	    k * 32 <= NPU_UB_BYTES / sizeof(float)) {
		u64 cap = (NPU_UB_BYTES / sizeof(float) / k) & ~31ull;

		if (cols > cap)
			cols = cap;
	}
	return cols;
}

/*
 * Do rows over dims [0, r) of sizes @sz with strides @st follow each other
 * at one stride? *rs gets it (1 when there is at most one row).
 */
static bool rows_uniform(const u32 *sz, const u64 *st, u32 r, u64 *rs)
{
	u64 next = 0;
	bool any = false;
	u32 i;

	*rs = 1;
	for (i = r; i-- > 0;) {
		if (sz[i] == 1)
			continue;
		if (!any) {
			*rs = st[i];
			any = true;
		} else if (st[i] != next) {
			return false;
		}
		/* overflow-free: a stride times a size stays in an extent */
		next = st[i] * sz[i];
	}
	return true;
}

bool npu_mm_fold(const struct drm_npu_task *t, struct npu_mm_fold *f)
{
	const struct drm_npu_matmul_params *p = &t->params.matmul;
	const struct drm_npu_operand *a = npu_opnd(t, 0), *b = npu_opnd(t, 1);
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);
	bool bias = p->flags & DRM_NPU_MATMUL_HAS_BIAS;
	u64 ast[DRM_NPU_MAX_RANK], bst[DRM_NPU_MAX_RANK];
	u64 ost[DRM_NPU_MAX_RANK];
	u32 r = out->rank, i;

	if (r < 3 || npu_dims_prod(out, 0, r - 2) < 2)
		return false;
	npu_bcast_strides(a, out, ast);
	npu_bcast_strides(b, out, bst);
	for (i = 0; i < r - 2; i++)
		if (bst[i])
			return false;
	if (bias) {
		npu_bcast_strides(npu_opnd(t, 2), out, bst);
		for (i = 0; i < r - 1; i++)
			if (bst[i] && !(i == r - 2 && out->shape[i] == 1))
				return false;
	}
	/* the row dim of A: rows of A, or its columns when transposed */
	ast[r - 2] = (p->flags & DRM_NPU_MATMUL_TRANS_A) ?
		     a->strides[a->rank - 1] : a->strides[a->rank - 2];
	for (i = 0; i < r - 1; i++)
		ost[i] = out->strides[i];
	if (!rows_uniform(out->shape, ast, r - 1, &f->a_rs) ||
	    !rows_uniform(out->shape, ost, r - 1, &f->o_rs))
		return false;
	f->rows = npu_dims_prod(out, 0, r - 1);
	return true;
}

static u64 matmul_units(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);
	u64 batch = npu_dims_prod(out, 0, out->rank - 2);
	struct npu_mm_fold f;
	u64 m = out->shape[out->rank - 2], n = out->shape[out->rank - 1];
	u64 cols = npu_mm_cols(t);

	if (npu_mm_fold(t, &f)) {
		batch = 1;
		m = f.rows;
	}
	return batch * ((m + NPU_MM_MR - 1) / NPU_MM_MR) *
	       ((n + cols - 1) / cols);
}

/*
 * MATMUL_WQ columns per unit: a multiple of 32 (the widest kernel) sized
 * so that NPU_MM_MR rows x columns x K stays near NPU_MM_UNIT_TARGET.
 */
u64 npu_wq_cols(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *a = npu_opnd(t, 0);
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);
	u64 n = out->shape[out->rank - 1], k = a->shape[a->rank - 1], cols;

	cols = NPU_MM_UNIT_TARGET / (NPU_MM_MR * (k ? k : 1)) & ~31ull;
	if (!cols)
		cols = 32;
	if (cols >= n)
		return n ? n : 1;
	return cols;
}

static u64 matmul_wq_units(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);
	u64 rows = npu_rows(out), n = out->shape[out->rank - 1];
	u64 cols = npu_wq_cols(t);

	return (rows + NPU_MM_MR - 1) / NPU_MM_MR * ((n + cols - 1) / cols);
}

bool npu_pool_blocked(const struct drm_npu_task *t)
{
	return t->params.pool2d.kind < DRM_NPU_POOL_GLOBAL_AVG &&
	       npu_is_nc1hwc0(npu_opnd(t, 0)) &&
	       npu_is_nc1hwc0(npu_opnd(t, 1));
}

static u64 pool_units(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *out = npu_opnd(t, 1);

	/* windows over NC1HWC0: one unit per row of a whole C0 block */
	if (npu_pool_blocked(t))
		return npu_numel(out) / ((u64)out->shape[3] * out->shape[4]);

	/* N x C (or C1 x C0) planes x output rows: a sub-product of out */
	return npu_numel(out) / out->shape[3];
}

/* QCONV2D: one unit per (image, block of 16 output channels, output row). */
static u64 qconv_units(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *w = npu_opnd(t, 1);
	const struct drm_npu_operand *o = npu_opnd(t, t->num_operands - 1);

	return (u64)o->shape[0] * (((u64)w->shape[0] + NPU_Q_OCB - 1) /
				   NPU_Q_OCB) * o->shape[2];
}

/* QCONV2D: 16 channels x output row x taps (packed: all C1 * 32). */
static u64 qconv_unit_cost(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *w = npu_opnd(t, 1);
	const struct drm_npu_operand *o = npu_opnd(t, t->num_operands - 1);
	u64 taps = npu_mul_sat((u64)w->shape[2] * w->shape[3], w->shape[1]);

	if (npu_is_nc1hwc0(w))
		taps = npu_mul_sat(taps, w->shape[4]);
	return npu_mul_sat(npu_mul_sat(NPU_Q_OCB, o->shape[3]), taps + 1);
}

void npu_qmm_geom(const struct drm_npu_task *t, struct npu_qmm_geom *g)
{
	const struct drm_npu_operand *a = npu_opnd(t, 0);
	const struct drm_npu_operand *o = npu_opnd(t, t->num_operands - 1);

	g->k = a->shape[a->rank - 1];
	g->n = o->shape[o->rank - 1];
	g->m = o->shape[o->rank - 2];
	g->rows = npu_dims_prod(o, 0, o->rank - 1);
	g->rpu = npu_mul_sat(npu_mul_sat(NPU_Q_MM_ROWS, g->n), (u64)g->k + 1) <=
		 NPU_MAX_UNIT_COST ? NPU_Q_MM_ROWS : 1;
}

static u64 qmm_units(const struct drm_npu_task *t)
{
	struct npu_qmm_geom g;

	npu_qmm_geom(t, &g);
	return (g.rows + g.rpu - 1) / g.rpu;
}

static u64 qmm_unit_cost(const struct drm_npu_task *t)
{
	struct npu_qmm_geom g;

	npu_qmm_geom(t, &g);
	return npu_mul_sat(npu_mul_sat(g.rpu, g.n), (u64)g.k + 1);
}

/* Elementwise-style ops: one unit per segment of a row of the output. */
static u64 row_units(const struct drm_npu_operand *out)
{
	return npu_rows(out) * npu_row_segs(npu_last_dim(out));
}

u32 npu_op_output(const struct drm_npu_task *t)
{
	/* QUANTIZE/DEQUANTIZE: per-channel scales come after the output */
	if (t->opcode == DRM_NPU_OP_QUANTIZE ||
	    t->opcode == DRM_NPU_OP_DEQUANTIZE)
		return 1;
	return t->num_operands ? t->num_operands - 1 : 0;
}

bool npu_op_writes(const struct drm_npu_task *t, u32 k)
{
	switch (t->opcode) {
	case DRM_NPU_OP_NONZERO:
	case DRM_NPU_OP_PACK_ROWS:
	case DRM_NPU_OP_UNIQUE:
		return k >= 1;
	case DRM_NPU_OP_NMS:
		return k >= 2;
	default:
		return k == npu_op_output(t);
	}
}

u64 npu_op_work_units(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *last;

	if (!t->num_operands)
		return 0;
	last = npu_opnd(t, npu_op_output(t));
	/* an empty output: nothing to compute, whatever the inputs */
	if (!npu_numel(last))
		return 0;
	switch (t->opcode) {
	case DRM_NPU_OP_RESIZE:
		return npu_rows(last) * npu_row_segs_n(npu_last_dim(last),
						       npu_resize_seg(t));
	case DRM_NPU_OP_COPY:
	case DRM_NPU_OP_BINARY:
	case DRM_NPU_OP_UNARY:
	case DRM_NPU_OP_WHERE:
	case DRM_NPU_OP_PAD:
	case DRM_NPU_OP_TRANSDATA:
	case DRM_NPU_OP_BATCHNORM:
	case DRM_NPU_OP_QUANTIZE:
	case DRM_NPU_OP_DEQUANTIZE:
	case DRM_NPU_OP_QADD:
	case DRM_NPU_OP_MATH:
		return row_units(last);
	case DRM_NPU_OP_GRID_SAMPLE:
		return npu_rows(last) * npu_row_segs_n(npu_last_dim(last),
						       npu_grid_sample_seg(t));
	case DRM_NPU_OP_MATMUL:
		return matmul_units(t);
	case DRM_NPU_OP_MATMUL_WQ:
		return matmul_wq_units(t);
	case DRM_NPU_OP_CONV2D:
		return conv_units(t);
	case DRM_NPU_OP_POOL2D:
		return pool_units(t);
	case DRM_NPU_OP_SOFTMAX:
		return npu_numel(last) / last->shape[t->params.softmax.axis];
	case DRM_NPU_OP_REDUCE:
		return npu_numel(last);	/* empty input: the identity */
	case DRM_NPU_OP_LAYERNORM:
		return npu_dims_prod(last, 0, t->params.norm.axis);
	case DRM_NPU_OP_GATHER:
		return npu_dims_prod(last, 0, t->params.gather.axis +
				     npu_opnd(t, 1)->rank);
	case DRM_NPU_OP_ATTENTION:
		return npu_dims_prod(last, 0, last->rank - 1);
	case DRM_NPU_OP_QCONV2D:
		return qconv_units(t);
	case DRM_NPU_OP_QMATMUL:
		return qmm_units(t);
	case DRM_NPU_OP_IMG_CSC:
	case DRM_NPU_OP_IMG_RESIZE:
		return npu_dims_prod(last, 0, 2);	/* N x OH rows */
	case DRM_NPU_OP_AIPP:
		return (u64)last->shape[0] * last->shape[2];
	case DRM_NPU_OP_RNN:
		return last->shape[1];	/* a batch row over all steps */
	case DRM_NPU_OP_RANDOM:		/* a segment of out */
		return npu_numel(last) / NPU_ROW_SEG +
		       !!(npu_numel(last) % NPU_ROW_SEG);
	case DRM_NPU_OP_ROI_ALIGN:	/* an output row (r, c, ph) */
		return npu_dims_prod(last, 0, 3);
	case DRM_NPU_OP_TOPK:		/* a line along the axis */
		return npu_numel(last) / last->shape[t->params.topk.axis];
	case DRM_NPU_OP_SCATTER:	/* all of it, in order */
		return npu_numel(npu_opnd(t, 1)) ? 1 : 0;
	case DRM_NPU_OP_NONZERO:	/* the count is written even if 0 */
	case DRM_NPU_OP_PACK_ROWS:
	case DRM_NPU_OP_UNIQUE:
		return 1;
	case DRM_NPU_OP_NMS:		/* a (batch, class) pair each */
		return npu_dims_prod(npu_opnd(t, 1), 0, 2);
	default:
		return 0;
	}
}

bool npu_resize_dim_plain(const struct drm_npu_task *t, u32 d)
{
	const struct drm_npu_resize_params *p = &t->params.resize;
	u32 in = npu_opnd(t, 0)->shape[d], out = npu_opnd(t, 1)->shape[d];

	return in == out && (!p->scale[d] || p->scale[d] == 0x3f800000u) &&
	       !(p->coord == DRM_NPU_RESIZE_PYTORCH_HALF_PIXEL && out == 1) &&
	       p->coord != DRM_NPU_RESIZE_TF_CROP_AND_RESIZE;
}

/*
 * RESIZE per output element: the index per dim, and for linear and cubic
 * each tap of the k interpolated dims (2^k or 4^k) a weight product and
 * an offset over them.
 */
static u64 resize_elem_cost(const struct drm_npu_task *t)
{
	u32 r = npu_opnd(t, 0)->rank, d, k = 0;
	u64 taps = 1;

	if (t->params.resize.mode == DRM_NPU_RESIZE_NEAREST)
		return r + 1;
	for (d = 0; d < r; d++)
		if (!npu_resize_dim_plain(t, d)) {
			taps *= t->params.resize.mode == DRM_NPU_RESIZE_CUBIC ?
				4 : 2;
			k++;
		}
	return taps * (k + 1) + r + 1;
}

u64 npu_grid_sample_elem_cost(const struct drm_npu_task *t)
{
	const struct drm_npu_grid_sample_params *p = &t->params.grid_sample;
	u64 taps = p->mode == DRM_NPU_GRID_SAMPLE_BICUBIC ? 16 :
		   p->mode == DRM_NPU_GRID_SAMPLE_BILINEAR ? 4 : 1;

	/* each tap padded (a reflection: divisions, floors) and loaded */
	return taps * (p->padding == DRM_NPU_GRID_SAMPLE_REFLECTION ? 64 : 32) +
	       64;
}

u32 npu_grid_sample_seg(const struct drm_npu_task *t)
{
	u64 seg = NPU_MAX_UNIT_COST / npu_grid_sample_elem_cost(t);

	return seg > NPU_ROW_SEG ? NPU_ROW_SEG : (u32)seg;
}

u32 npu_resize_seg(const struct drm_npu_task *t)
{
	u64 seg = NPU_MAX_UNIT_COST / resize_elem_cost(t);

	return seg < 1 ? 1 : seg > NPU_ROW_SEG ? NPU_ROW_SEG : (u32)seg;
}

/* Per element of a row: 1 for most ops. */
static u64 row_elem_cost(const struct drm_npu_task *t)
{
	if (t->opcode == DRM_NPU_OP_MATH)	/* series of up to 25 terms */
		return 64;
	if (t->opcode == DRM_NPU_OP_GRID_SAMPLE)
		return npu_grid_sample_elem_cost(t);
	return 1;
}

static u64 pool_unit_cost(const struct drm_npu_task *t)
{
	const struct drm_npu_pool2d_params *p = &t->params.pool2d;
	const struct drm_npu_operand *in = npu_opnd(t, 0);

	/* an empty plane is not walked at all (global_plane()) */
	if (p->kind >= DRM_NPU_POOL_GLOBAL_AVG)
		return in->shape[2] && in->shape[3] ?
		       npu_mul_sat(in->shape[2], in->shape[3]) : 1;
	return npu_mul_sat(npu_mul_sat(npu_opnd(t, 1)->shape[3],
				       npu_pool_blocked(t) ?
				       npu_opnd(t, 1)->shape[4] : 1),
			   npu_mul_sat(p->kernel_h, p->kernel_w));
}

/*
 * One query row: Sk scores of D products, Sk rows of V of Dv each, and the
 * output row itself (cleared and scaled: 2 Dv), which costs Dv even when
 * Sk is 0 (a fuzz finding: Sk = 0, Dv = 2^30 was counted as free).
 */
static u64 attention_unit_cost(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *q = npu_opnd(t, 0), *k = npu_opnd(t, 1);
	const struct drm_npu_operand *o = npu_opnd(t, t->num_operands - 1);
	u64 sk = k->shape[k->rank - 2], dv = o->shape[o->rank - 1];

	return npu_add_sat(npu_mul_sat(sk, (u64)q->shape[q->rank - 1] + dv + 1),
			   2 * dv + 1);
}

/*
 * One batch row of an RNN: per step G*H dot products of H, and a few
 * operations per hidden unit (gates, cell, output).
 */
static u64 rnn_unit_cost(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *st = npu_opnd(t, t->num_operands - 1);
	u64 hid = st->shape[3], gh = npu_opnd(t, 1)->shape[0], step;

	step = npu_add_sat(npu_mul_sat(gh, hid + 1), 8 * hid + 1);
	return npu_add_sat(npu_mul_sat(st->shape[0], step), 1);
}

/*
 * NMS, one (batch, class): the heap built (~2 compares a box) and popped
 * (~2 log2 N compares a box), each compare two scores loaded from far
 * apart (a strided score row misses the cache: ~8 operations each,
 * measured), and an IoU (~16 operations) of each candidate with up to
 * keep kept boxes.
 */
static u64 nms_unit_cost(const struct drm_npu_task *t)
{
	u64 n = npu_opnd(t, 1)->shape[2], lg = 1, keep;

	keep = n < t->params.nms.max_per_class ? n : t->params.nms.max_per_class;
	while (lg < 32 && (1ull << lg) < n)
		lg++;
	return npu_add_sat(npu_mul_sat(n, 16 * lg + 16 + 16 * keep), 1);
}

/*
 * UNIQUE: two heap sorts of A slices (~4 log2 A compares each, a slice
 * compare O * I element loads of ~4 operations), the run walks (2 A
 * compares) and the copies and zero fills.
 */
static u64 unique_unit_cost(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *in = npu_opnd(t, 0);
	u64 a = in->shape[1], slice = (u64)in->shape[0] * in->shape[2];
	u64 lg = 1;

	while (lg < 32 && (1ull << lg) < a)
		lg++;
	return npu_add_sat(npu_mul_sat(npu_mul_sat(a, 8 * lg + 4),
				       npu_add_sat(npu_mul_sat(slice, 4), 2)),
			   npu_add_sat(npu_numel(in), 1));
}

/* Element operations of the costliest unit of a checked task. */
u64 npu_roi_align_grid_max(const struct drm_npu_task *t, u32 dim)
{
	u64 extent = npu_opnd(t, 0)->shape[dim];
	u64 bins = npu_opnd(t, 3)->shape[dim];

	if (t->params.roi_align.sampling_ratio)
		return t->params.roi_align.sampling_ratio;
	if (!bins || !extent)
		return 1;
	return (2 * extent + bins - 1) / bins;
}

/*
 * ROI_ALIGN: a row's bins, each its samples: four corner loads that may
 * each miss the cache on a strided image, their weights and a sum (32).
 */
static u64 roi_align_unit_cost(const struct drm_npu_task *t)
{
	u64 g = npu_mul_sat(npu_roi_align_grid_max(t, 2),
			    npu_roi_align_grid_max(t, 3));

	return npu_mul_sat(npu_opnd(t, 3)->shape[3],
			   npu_add_sat(npu_mul_sat(g, 32), 1));
}

u64 npu_op_unit_cost(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *in, *last;
	u64 k;

	if (!t->num_operands || !npu_op_work_units(t))
		return 0;
	in = npu_opnd(t, 0);
	last = npu_opnd(t, t->num_operands - 1);
	switch (t->opcode) {
	case DRM_NPU_OP_MATMUL:
		k = (t->params.matmul.flags & DRM_NPU_MATMUL_TRANS_A) ?
		    in->shape[in->rank - 2] : in->shape[in->rank - 1];
		return npu_mul_sat(npu_mul_sat(NPU_MM_MR, npu_mm_cols(t)),
				   k + 1);
	case DRM_NPU_OP_MATMUL_WQ:
		/* the products, and the dequantization of each weight */
		k = in->shape[in->rank - 1];
		return npu_mul_sat(npu_mul_sat(NPU_MM_MR + 1, npu_wq_cols(t)),
				   k + 1);
	case DRM_NPU_OP_CONV2D:
		return conv_unit_cost(t);
	case DRM_NPU_OP_POOL2D:
		return pool_unit_cost(t);
	case DRM_NPU_OP_SOFTMAX:
		return 3 * (u64)in->shape[t->params.softmax.axis];
	case DRM_NPU_OP_REDUCE:
		/* each element steps the reduced dims' odometer: rank digits */
		return npu_mul_sat(npu_numel(in) / npu_numel(last) + 1,
				   2 * (u64)in->rank + 2);
	case DRM_NPU_OP_LAYERNORM:
		return 3 * npu_dims_prod(in, t->params.norm.axis, in->rank);
	case DRM_NPU_OP_GATHER:
		return npu_dims_prod(in, t->params.gather.axis + 1, in->rank);
	case DRM_NPU_OP_ATTENTION:
		return attention_unit_cost(t);
	case DRM_NPU_OP_QCONV2D:
		return qconv_unit_cost(t);
	case DRM_NPU_OP_QMATMUL:
		return qmm_unit_cost(t);
	case DRM_NPU_OP_IMG_CSC:	/* a row of 3-channel pixels */
		return npu_mul_sat(last->shape[2], 16);
	case DRM_NPU_OP_IMG_RESIZE:	/* 4 taps per value */
		return npu_add_sat(npu_mul_sat(npu_mul_sat(last->shape[2],
							   last->shape[3]), 8), 1);
	case DRM_NPU_OP_AIPP:		/* a row of pixels, 16 outputs each */
		return npu_mul_sat(last->shape[3], 32);
	case DRM_NPU_OP_RNN:
		return rnn_unit_cost(t);
	case DRM_NPU_OP_SCATTER:	/* per update: its coordinates */
		return npu_add_sat(npu_mul_sat(npu_numel(npu_opnd(t, 1)),
					       2 * DRM_NPU_MAX_RANK),
				   npu_add_sat(npu_numel(in), 1));
	case DRM_NPU_OP_NONZERO:	/* two odometer passes, the fill */
		return npu_add_sat(npu_mul_sat(npu_numel(in), 4 * (u64)in->rank + 4),
				   npu_add_sat(npu_numel(npu_opnd(t, 1)), 1));
	case DRM_NPU_OP_NMS:
		return nms_unit_cost(t);
	case DRM_NPU_OP_UNIQUE:
		return unique_unit_cost(t);
	case DRM_NPU_OP_PACK_ROWS:	/* each row moved or zeroed */
		return npu_add_sat(npu_numel(npu_opnd(t, 1)),
				   (u64)in->shape[0] + 1);
	case DRM_NPU_OP_ROI_ALIGN:
		return roi_align_unit_cost(t);
	case DRM_NPU_OP_RANDOM:	/* Philox's 10 rounds; Box-Muller's log/cos */
		return npu_mul_sat(NPU_ROW_SEG, t->params.random.dist ==
				   DRM_NPU_RANDOM_NORMAL ? 512 : 64);
	case DRM_NPU_OP_RESIZE:
		return npu_mul_sat(npu_resize_seg(t), resize_elem_cost(t));
	case DRM_NPU_OP_GRID_SAMPLE:
		return npu_mul_sat(npu_grid_sample_seg(t),
				   npu_grid_sample_elem_cost(t));
	case DRM_NPU_OP_TOPK:	/* n insertions of up to k compares + moves */
		return npu_add_sat(npu_mul_sat(in->shape[t->params.topk.axis],
					       2 * (u64)t->params.topk.k + 2), 1);
	default:
		return npu_mul_sat(NPU_ROW_SEG, row_elem_cost(t));
	}
}

void npu_rows_begin(struct npu_rows *r, const struct drm_npu_operand *const *ops,
		    u32 n)
{
	const struct drm_npu_operand *out = ops[n - 1];
	u32 i;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->out = out;
	r->rank = out->rank;
	r->len = npu_last_dim(out);
	for (i = 0; i < n; i++) {
		npu_bcast_strides(ops[i], out, r->st[i]);
		r->inner[i] = out->rank ? r->st[i][out->rank - 1] : 0;
	}
	/* the same offsets as npu_unravel() + npu_offset(), fewer divisions */
	r->uniform = out->rank > 0;
	for (i = 0; i < n && r->uniform; i++)
		r->uniform = rows_uniform(out->shape, r->st[i], out->rank - 1,
					  &r->rs[i]);
}

void npu_row_offsets(const struct npu_rows *r, u64 unit, struct npu_seg *s,
		     u64 *offs)
{
	u32 coord[DRM_NPU_MAX_RANK] = { 0 }, i, outer;

	if (r->len <= NPU_ROW_SEG) {		/* one segment per row */
		s->row = unit;
		s->start = 0;
		s->len = r->len;
	} else {
		npu_seg_of(unit, r->len, s);
	}
	if (r->uniform) {
		for (i = 0; i < r->n; i++)
			offs[i] = s->row * r->rs[i] +
				  (u64)s->start * r->inner[i];
		return;
	}
	outer = r->rank ? r->rank - 1 : 0;
	npu_unravel(s->row, r->out->shape, outer, coord);
	for (i = 0; i < r->n; i++)
		offs[i] = npu_offset(coord, r->st[i], outer) +
			  (u64)s->start * r->inner[i];
}

void npu_copy_block(u8 *dst, const u64 *dst_st, const u8 *src,
		    const u64 *src_st, const u32 *shape, u32 nd, u32 es)
{
	u32 idx[DRM_NPU_MAX_RANK] = { 0 }, d;
	u64 n = 1, i, so = 0, dof = 0;

	for (d = 0; d < nd; d++)
		n *= shape[d];
	for (i = 0; i < n; i++) {
		memcpy(dst + dof * es, src + so * es, es);
		for (d = nd; d-- > 0;) {
			so += src_st[d];
			dof += dst_st[d];
			if (++idx[d] < shape[d])
				break;
			so -= src_st[d] * shape[d];
			dof -= dst_st[d] * shape[d];
			idx[d] = 0;
		}
	}
}

/*
 * The product kernels' ISA level (npu_kern.c). Both homes decide with the
 * same code: CPUID says what the CPU has and XGETBV what the OS saves on a
 * context switch (and so what kernel_fpu_begin() saves in the module), so
 * on one machine the in-process device and the kernel module pick the same
 * level and give the same bits.
 */
#if defined(__x86_64__)
static void npu_cpuid(u32 leaf, u32 sub, u32 r[4])
{
	__asm__ __volatile__("cpuid"
		     : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
		     : "a"(leaf), "c"(sub));
}

static u64 npu_xgetbv0(void)
{
	u32 lo, hi;

	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((u64)hi << 32) | lo;
}

static u32 npu_isa_detect(void)
{
	u32 r[4], max, isa = NPU_ISA_BASELINE;
	u64 xcr0;

	npu_cpuid(0, 0, r);
	max = r[0];
	if (max < 7)
		return isa;
	npu_cpuid(1, 0, r);
	/* OSXSAVE (27), AVX (28), FMA (12), F16C (29) */
	if (!(r[2] & (1u << 27)) || !(r[2] & (1u << 28)) ||
	    !(r[2] & (1u << 12)) || !(r[2] & (1u << 29)))
		return isa;
	xcr0 = npu_xgetbv0();
	if ((xcr0 & 0x6) != 0x6)		/* SSE and AVX state */
		return isa;
	npu_cpuid(7, 0, r);
	if (!(r[1] & (1u << 5)))		/* AVX2 */
		return isa;
	isa = NPU_ISA_AVX2;
	if ((r[1] & (1u << 16)) && (xcr0 & 0xe0) == 0xe0)	/* AVX512F */
		isa = NPU_ISA_AVX512;
	return isa;
}

/* AVX512_VNNI (leaf 7 ECX 11) with AVX512BW (EBX 30) and VL (EBX 31). */
static u32 npu_vnni_detect(void)
{
	u32 r[4];

	if (npu_isa_detect() != NPU_ISA_AVX512)
		return 0;
	npu_cpuid(7, 0, r);
	return (r[2] & (1u << 11)) && (r[1] & (1u << 30)) &&
	       (r[1] & (1u << 31));
}
#else
static u32 npu_isa_detect(void)
{
	return NPU_ISA_BASELINE;
}

static u32 npu_vnni_detect(void)
{
	return 0;
}
#endif

static u32 npu_isa_best;	/* 0 until detected; races store one value */

u32 npu_op_isa_best(void)
{
	u32 isa = NPU_READ_ONCE(npu_isa_best);

	if (!isa) {
		isa = npu_isa_detect();
		NPU_WRITE_ONCE(npu_isa_best, isa);
	}
	return isa;
}

static u32 npu_vnni;	/* 0 unknown, 1 absent, 2 present */

u32 npu_op_has_vnni(void)
{
	u32 v = NPU_READ_ONCE(npu_vnni);

	if (!v) {
		v = npu_vnni_detect() ? 2 : 1;
		NPU_WRITE_ONCE(npu_vnni, v);
	}
	return v == 2;
}
