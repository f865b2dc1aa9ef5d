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

u32 npu_dtype_size(u32 dtype)
{
	switch (dtype) {
	case DRM_NPU_DTYPE_F32:
	case DRM_NPU_DTYPE_I32:
		return 4;
	case DRM_NPU_DTYPE_F16:
		return 2;
	case DRM_NPU_DTYPE_I8:
	case DRM_NPU_DTYPE_U8:
	case DRM_NPU_DTYPE_BOOL:
		return 1;
	case DRM_NPU_DTYPE_I64:
		return 8;
	default:
		return 0;
	}
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

void npu_conv_geom(const struct drm_npu_task *t, struct npu_conv_geom *g)
{
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
	g->c = g->cg * g->groups;
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
	g->ob = (g->og + NPU_CONV_OCB - 1) / NPU_CONV_OCB;
	g->wdense = wt->strides[3] == 1 && wt->strides[2] == g->kw &&
		    wt->strides[1] == (u64)g->kh * g->kw;
	g->flat = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 &&
		  !p->pad_top && !p->pad_left && !p->pad_bottom &&
		  !p->pad_right && plane_dense(in, g->w) &&
		  plane_dense(out, g->ow);
	if (g->flat) {
		u64 pix = (u64)g->oh * g->ow;

		g->flat_units = (pix + NPU_CONV_FLAT_PIX - 1) / NPU_CONV_FLAT_PIX;
	}
}

static u64 conv_units(const struct drm_npu_task *t)
{
	struct npu_conv_geom g;
	u64 per_plane;

	npu_conv_geom(t, &g);
	per_plane = g.flat ? g.flat_units : g.oh;
	if (!g.ow)
		return 0;
	return (u64)g.n * g.groups * g.ob * per_plane;
}

static u64 matmul_units(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);
	u64 batch = npu_dims_prod(out, 0, out->rank - 2);
	u32 m = out->shape[out->rank - 2], n = out->shape[out->rank - 1];

	if (!n)
		return 0;
	return batch * ((m + NPU_MM_MR - 1) / NPU_MM_MR);
}

static u64 pool_units(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *out = npu_opnd(t, 1);
	u64 planes = (u64)out->shape[0] * out->shape[1];

	if (npu_is_nc1hwc0(out))
		planes *= out->shape[4];
	if (!out->shape[3])
		return 0;
	return planes * out->shape[2];
}

/* Elementwise-style ops: one unit per row of the output. */
static u64 row_units(const struct drm_npu_operand *out)
{
	if (!npu_numel(out))
		return 0;
	return npu_rows(out);
}

u64 npu_op_work_units(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *last;

	if (!t->num_operands)
		return 0;
	last = npu_opnd(t, t->num_operands - 1);
	switch (t->opcode) {
	case DRM_NPU_OP_COPY:
	case DRM_NPU_OP_BINARY:
	case DRM_NPU_OP_UNARY:
	case DRM_NPU_OP_WHERE:
	case DRM_NPU_OP_PAD:
	case DRM_NPU_OP_RESIZE:
	case DRM_NPU_OP_TRANSDATA:
	case DRM_NPU_OP_BATCHNORM:
		return row_units(last);
	case DRM_NPU_OP_QUANTIZE:
	case DRM_NPU_OP_DEQUANTIZE:
		return row_units(npu_opnd(t, 1));
	case DRM_NPU_OP_MATMUL:
		return matmul_units(t);
	case DRM_NPU_OP_CONV2D:
		return conv_units(t);
	case DRM_NPU_OP_POOL2D:
		return pool_units(t);
	case DRM_NPU_OP_SOFTMAX: {
		u32 len = last->shape[t->params.softmax.axis];

		return len ? npu_numel(last) / len : 0;
	}
	case DRM_NPU_OP_REDUCE:
		return npu_numel(last);	/* empty input: the identity */
	case DRM_NPU_OP_LAYERNORM:
		if (!npu_numel(last))
			return 0;
		return npu_dims_prod(last, 0, t->params.norm.axis);
	case DRM_NPU_OP_GATHER: {
		u32 q = npu_opnd(t, 1)->rank;

		if (!npu_numel(last))
			return 0;
		return npu_dims_prod(last, 0, t->params.gather.axis + q);
	}
	case DRM_NPU_OP_ATTENTION:
		if (!npu_numel(last))
			return 0;
		return npu_dims_prod(last, 0, last->rank - 1);
	default:
		return 0;
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
}

void npu_row_offsets(const struct npu_rows *r, u64 row, u64 *offs)
{
	u32 coord[DRM_NPU_MAX_RANK] = { 0 }, i, outer;

	outer = r->rank ? r->rank - 1 : 0;
	npu_unravel(row, r->out->shape, outer, coord);
	for (i = 0; i < r->n; i++)
		offs[i] = npu_offset(coord, r->st[i], outer);
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
