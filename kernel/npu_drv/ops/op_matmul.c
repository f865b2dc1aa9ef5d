// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_matmul.c - MATMUL: out[b] = act(alpha * A[b] x B[b] + beta * bias),
 * batched over the leading dimensions with numpy broadcasting (size-1 or
 * 0-stride batch dims), A/B optionally transposed, bias broadcast to out.
 * This is ONNX MatMul and Gemm. alpha is used as given: a Gemm/MatMul
 * lowering sets it to 1.0f (0x3f800000).
 *
 * Work unit: NPU_MM_MR (4) rows of one batch's output, all columns.
 */
#include "npu_ops_float.h"
#include "npu_gemm.h"

struct mm_ctx {
	const struct drm_npu_operand *a, *b, *bias, *out;
	u64 ast[DRM_NPU_MAX_RANK], bst[DRM_NPU_MAX_RANK];
	u64 biasst[DRM_NPU_MAX_RANK];
	u64 sam, sak, sbk, sbn;
	u32 m, n, k, r, mb;
	float alpha, beta;
	struct npu_act act;
};

static void mm_init(struct mm_ctx *c, const struct drm_npu_task *t)
{
	const struct drm_npu_matmul_params *p = &t->params.matmul;
	int bias = !!(p->flags & DRM_NPU_MATMUL_HAS_BIAS);
	u32 ra, rb;

	c->a = npu_opnd(t, 0);
	c->b = npu_opnd(t, 1);
	c->bias = bias ? npu_opnd(t, 2) : NULL;
	c->out = npu_opnd(t, 2 + bias);
	c->r = c->out->rank;
	ra = c->a->rank;
	rb = c->b->rank;
	npu_bcast_strides(c->a, c->out, c->ast);
	npu_bcast_strides(c->b, c->out, c->bst);
	if (bias)
		npu_bcast_strides(c->bias, c->out, c->biasst);
	c->sam = c->a->strides[ra - 2];
	c->sak = c->a->strides[ra - 1];
	if (p->flags & DRM_NPU_MATMUL_TRANS_A) {
		c->sam = c->a->strides[ra - 1];
		c->sak = c->a->strides[ra - 2];
	}
	c->sbk = c->b->strides[rb - 2];
	c->sbn = c->b->strides[rb - 1];
	if (p->flags & DRM_NPU_MATMUL_TRANS_B) {
		c->sbk = c->b->strides[rb - 1];
		c->sbn = c->b->strides[rb - 2];
	}
	c->m = c->out->shape[c->r - 2];
	c->n = c->out->shape[c->r - 1];
	c->k = (p->flags & DRM_NPU_MATMUL_TRANS_A) ? c->a->shape[ra - 2] :
						    c->a->shape[ra - 1];
	c->mb = (c->m + NPU_MM_MR - 1) / NPU_MM_MR;
	c->alpha = npu_u2f(p->alpha);
	c->beta = npu_u2f(p->beta);
	npu_act_init(&c->act, &p->act);
}

static void mm_unit(const struct mm_ctx *c, const struct npu_op_args *args,
		    u64 unit)
{
	u32 coord[DRM_NPU_MAX_RANK] = { 0 };
	u32 batch_rank = c->r - 2, mr, nr, i, j, n0;
	u64 bi = unit / c->mb, i0 = (unit % c->mb) * NPU_MM_MR;
	const float *a, *b, *bias = NULL;
	float *out = args->data[c->bias ? 3 : 2];
	u64 aoff, boff, ooff, biasoff = 0;
	float acc[NPU_GEMM_MR][NPU_GEMM_NR], row[NPU_GEMM_NR];

	npu_unravel(bi, c->out->shape, batch_rank, coord);
	aoff = npu_offset(coord, c->ast, batch_rank);
	boff = npu_offset(coord, c->bst, batch_rank);
	ooff = npu_offset32(coord, c->out->strides, batch_rank);
	if (c->bias) {
		bias = args->data[2];
		biasoff = npu_offset(coord, c->biasst, batch_rank);
	}
	a = (const float *)args->data[0] + aoff + i0 * c->sam;
	b = (const float *)args->data[1] + boff;
	mr = c->m - i0 < NPU_MM_MR ? (u32)(c->m - i0) : NPU_MM_MR;
	for (n0 = 0; n0 < c->n; n0 += NPU_GEMM_NR) {
		nr = c->n - n0 < NPU_GEMM_NR ? c->n - n0 : NPU_GEMM_NR;
		npu_gemm_tile(a, c->sam, c->sak, mr, b + n0 * c->sbn, c->sbk,
			      c->sbn, nr, c->k, acc);
		for (i = 0; i < mr; i++) {
			u64 oi = ooff + (i0 + i) * c->out->strides[c->r - 2];
			u64 bsi = biasoff + (i0 + i) * c->biasst[c->r - 2];

			for (j = 0; j < nr; j++) {
				row[j] = c->alpha * acc[i][j];
				if (bias)
					row[j] += c->beta *
						  bias[bsi + (n0 + j) *
						       c->biasst[c->r - 1]];
			}
			npu_act_row(&c->act, row, nr);
			for (j = 0; j < nr; j++)
				out[oi + (n0 + j) * c->out->strides[c->r - 1]] =
					row[j];
		}
	}
}

int npu_run_matmul(const struct npu_op_args *args, u64 begin, u64 end)
{
	struct mm_ctx c;
	u64 u;

	mm_init(&c, args->task);
	for (u = begin; u < end; u++)
		mm_unit(&c, args, u);
	return 0;
}
