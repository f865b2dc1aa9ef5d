// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_matmul_wq.c - MATMUL_WQ: the weight-only quantized product of LLM
 * serving (w8a16, w4a16):
 *
 *   out[.., m, n] = act(sum_k a[.., m, k] * (w[k, n] * s[k / gs, n])
 *                       + bias[n])
 *
 * with a and out F32 or F16, w I8 or packed I4 [K, N] (ONNX's blocked
 * DequantizeLinear along K, axis 0 of a MatMul's B) and s F32 [G, N].
 *
 * The weights are never expanded in memory: for each k block of a column
 * tile, a panel of KB x nr floats (1 KiB) is dequantized on the stack,
 * each value one exact int -> float conversion and one rounded multiply,
 * and the ISA level's product kernel (npu_kern.h) adds the panel's terms
 * to its accumulators in k order. So the sums are those of MATMUL over
 * the dequantized weights, f32 throughout; an F16 a is widened exactly
 * (F16C where the level has it) and the result rounded to F16 once, on
 * store.
 *
 * Work unit: NPU_MM_MR (16) rows times npu_wq_cols() columns (a multiple
 * of 32), column blocks outermost so that neighbouring units share a
 * block of w in the cache.
 */
#include "npu_ops_float.h"
#include "npu_kern.h"

#define WQ_PANEL	256	/* floats of a dequantized panel: 1 KiB */
#define WQ_APANEL	128	/* floats of a packed block of a */

struct wq_ctx {
	const struct drm_npu_operand *a, *w, *s, *bias, *out;
	const struct npu_kern *k;
	struct npu_act act;
	u64 n, rows, cols, rb;
	u64 sak, wsk, wsn, ssg, ssn, bsn, osn;
	u32 kdim, gs, r, kb;
};

static void wq_init(struct wq_ctx *c, const struct drm_npu_task *t, u32 isa)
{
	const struct drm_npu_matmul_wq_params *p = &t->params.matmul_wq;
	int bias = !!(p->flags & DRM_NPU_MATMUL_HAS_BIAS);
	u32 kb;

	c->a = npu_opnd(t, 0);
	c->w = npu_opnd(t, 1);
	c->s = npu_opnd(t, 2);
	c->bias = bias ? npu_opnd(t, 3) : NULL;
	c->out = npu_opnd(t, 3 + bias);
	c->k = npu_kern_get(isa);
	c->r = c->out->rank;
	c->kdim = c->a->shape[c->a->rank - 1];
	c->n = c->out->shape[c->r - 1];
	c->rows = npu_rows(c->out);
	c->cols = npu_wq_cols(t);
	c->rb = (c->rows + NPU_MM_MR - 1) / NPU_MM_MR;
	c->gs = p->group_size;
	c->sak = c->a->strides[c->a->rank - 1];
	c->osn = c->out->strides[c->r - 1];
	c->wsk = c->w->strides[0];
	c->wsn = c->w->strides[1];
	c->ssg = c->s->strides[0];
	c->ssn = c->s->strides[1];
	c->bsn = bias ? c->bias->strides[0] : 0;
	/* k values per panel: it and the packed a block fit their arrays */
	kb = WQ_PANEL / c->k->mm_nr;
	if (kb * c->k->mm_mr > WQ_APANEL)
		kb = WQ_APANEL / c->k->mm_mr;
	c->kb = kb;
	npu_act_init(&c->act, &p->act);
	c->act.kern = c->k;
}

/* Weight element @e (an element index of w's view) as an integer. */
static s32 wq_ld(const struct wq_ctx *c, const void *w, u64 e)
{
	u8 b;

	if (c->w->dtype == DRM_NPU_DTYPE_I8)
		return ((const s8 *)w)[e];
	b = ((const u8 *)w)[e >> 1];
	b = (e & 1) ? b >> 4 : b & 15;
	return (s32)b - ((b & 8) << 1);
}

/*
 * panel[q][j] = w[k0 + q, n0 + j] * s[(k0 + q) / gs, n0 + j] for q < kk,
 * j < nc, rows @nr floats apart; 0 for the columns nc..nr-1 of a last,
 * narrow tile.
 */
static void wq_panel(const struct wq_ctx *c, const void *w, const float *s,
		     u64 k0, u32 kk, u64 n0, u32 nc, float *panel, u32 nr)
{
	u32 q, j;

	for (q = 0; q < kk; q++) {
		u64 k = k0 + q, e = k * c->wsk + n0 * c->wsn;
		const float *sr = s + (k / c->gs) * c->ssg + n0 * c->ssn;
		float *y = panel + (u64)q * nr;

		if (c->wsn == 1 && c->ssn == 1 &&
		    c->w->dtype == DRM_NPU_DTYPE_I8) {
			c->k->dq8_row(y, (const s8 *)w + e, sr, nc);
		} else if (c->wsn == 1 && c->ssn == 1 && !(e & 1) &&
			   !(nc & 1)) {
			c->k->dq4_row(y, (const u8 *)w + e / 2, sr, nc);
		} else {
			for (j = 0; j < nc; j++)
				y[j] = (float)wq_ld(c, w, e + j * c->wsn) *
				       sr[j * c->ssn];
		}
		for (j = nc; j < nr; j++)
			y[j] = 0.0f;
	}
}

/* apk[i][q] = a[row i, k0 + q] as float, rows KB floats apart. */
static void wq_pack_a(const struct wq_ctx *c, const void *a, const u64 *aoff,
		      u32 rows, u64 k0, u32 kk, float *apk)
{
	u32 i, q;

	for (i = 0; i < rows; i++) {
		u64 o = aoff[i] + k0 * c->sak;
		float *y = apk + (u64)i * c->kb;

		if (c->a->dtype == DRM_NPU_DTYPE_F16 && c->sak == 1)
			c->k->f16_row(y, (const u16 *)a + o, kk);
		else if (c->sak == 1)
			memcpy(y, (const float *)a + o, kk * sizeof(float));
		else
			for (q = 0; q < kk; q++)
				y[q] = npu_ld_f(c->a->dtype, a,
						o + q * c->sak);
	}
}

/*
 * acc (rows x nr, nr floats apart) = rows of a at @aoff times columns
 * [n0, n0 + nc) of the dequantized w, k blocks in order.
 */
static noinline void wq_block(const struct wq_ctx *c,
			      const struct npu_op_args *args, const u64 *aoff,
			      u32 rows, u64 n0, u32 nc, float *acc)
{
	float panel[WQ_PANEL], apk[WQ_APANEL];
	struct npu_tile t;
	u64 k0;
	u32 kk;

	if (!c->kdim) {
		memset(acc, 0, sizeof(float) * rows * c->k->mm_nr);
		return;
	}
	memset(&t, 0, sizeof(t));
	t.a = apk;
	t.b = panel;
	t.c = acc;
	t.sam = c->kb;
	t.ldc = c->k->mm_nr;
	t.n[0] = 1;
	t.n[1] = 1;
	t.n[2] = 1;
	t.sa[3] = 1;
	t.sb[3] = c->k->mm_nr;
	t.mr = rows;
	for (k0 = 0; k0 < c->kdim; k0 += kk) {
		kk = c->kdim - k0 < c->kb ? (u32)(c->kdim - k0) : c->kb;
		wq_panel(c, args->data[1], args->data[2], k0, kk, n0, nc,
			 panel, c->k->mm_nr);
		wq_pack_a(c, args->data[0], aoff, rows, k0, kk, apk);
		t.n[3] = kk;
		t.accum = k0 != 0;
		c->k->mm(&t);
	}
}

/*
 * Units of at most WQ_GEMV_ROWS rows (decoding: M = 1 to a few): whole
 * rows of the dequantized w, WQ_ROW floats wide, multiply-added into
 * per-row accumulators (fma_row: the tiles' rounding, k in order), so
 * the bits are the tile path's while each weight is dequantized once per
 * unit in long vectorised rows.
 */
#define WQ_GEMV_ROWS	4
#define WQ_ROW		128

static noinline void wq_gemv(const struct wq_ctx *c,
			     const struct npu_op_args *args, const u64 *aoff,
			     const u64 *ooff, u32 rows, u64 n0, u64 n1)
{
	float acc[WQ_ROW], y[WQ_ROW];
	const float *bias = c->bias ? args->data[3] : NULL;
	void *out = args->data[c->bias ? 4 : 3];
	const void *a = args->data[0];
	u32 cw = (WQ_ROW / rows) & ~15u, nc, r, j;
	u64 j0, k;

	for (j0 = n0; j0 < n1; j0 += cw) {
		nc = n1 - j0 < cw ? (u32)(n1 - j0) : cw;
		memset(acc, 0, sizeof(acc));
		for (k = 0; k < c->kdim; k++) {
			wq_panel(c, args->data[1], args->data[2], k, 1, j0, nc,
				 y, nc);
			for (r = 0; r < rows; r++)
				c->k->fma_row(acc + r * cw, y,
					      npu_ld_f(c->a->dtype, a,
						       aoff[r] + k * c->sak),
					      nc);
		}
		for (r = 0; r < rows; r++) {
			float *row = acc + r * cw;

			for (j = 0; j < nc; j++)
				if (bias)
					row[j] += bias[(j0 + j) * c->bsn];
			npu_act_row(&c->act, row, nc);
			for (j = 0; j < nc; j++)
				npu_st_f(c->out->dtype, out,
					 ooff[r] + (j0 + j) * c->osn, row[j]);
		}
	}
}

static void wq_unit(const struct wq_ctx *c, const struct npu_op_args *args,
		    u64 unit)
{
	u32 coord[DRM_NPU_MAX_RANK] = { 0 };
	u64 aoff[NPU_MM_MR], ooff[NPU_MM_MR];
	u64 cb = unit / c->rb, i0 = (unit % c->rb) * NPU_MM_MR;
	u64 n0 = cb * c->cols, n1 = n0 + c->cols, j0;
	const float *bias = c->bias ? args->data[3] : NULL;
	void *out = args->data[c->bias ? 4 : 3];
	u32 nr = c->k->mm_nr, mr, r0, rows, nc, i, j;
	float acc[NPU_KERN_MM_TILE], row[NPU_KERN_MAX_NR];

	if (n1 > c->n)
		n1 = c->n;
	mr = c->rows - i0 < NPU_MM_MR ? (u32)(c->rows - i0) : NPU_MM_MR;
	for (i = 0; i < mr; i++) {
		npu_unravel(i0 + i, c->out->shape, c->r - 1, coord);
		aoff[i] = npu_offset32(coord, c->a->strides, c->r - 1);
		ooff[i] = npu_offset32(coord, c->out->strides, c->r - 1);
	}
	if (mr <= WQ_GEMV_ROWS) {
		wq_gemv(c, args, aoff, ooff, mr, n0, n1);
		return;
	}
	for (j0 = n0; j0 < n1; j0 += nr) {
		nc = n1 - j0 < nr ? (u32)(n1 - j0) : nr;
		for (r0 = 0; r0 < mr; r0 += rows) {
			rows = mr - r0 < c->k->mm_mr ? mr - r0 : c->k->mm_mr;
			wq_block(c, args, aoff + r0, rows, j0, nc, acc);
			for (i = 0; i < rows; i++) {
				for (j = 0; j < nc; j++) {
					row[j] = acc[i * nr + j];
					if (bias)
						row[j] += bias[(j0 + j) *
							       c->bsn];
				}
				npu_act_row(&c->act, row, nc);
				for (j = 0; j < nc; j++)
					npu_st_f(c->out->dtype, out,
						 ooff[r0 + i] +
						 (j0 + j) * c->osn, row[j]);
			}
		}
	}
}

int npu_run_matmul_wq(const struct npu_op_args *args, u64 begin, u64 end)
{
	struct wq_ctx c;
	u64 u;

	wq_init(&c, args->task, args->isa);
	for (u = begin; u < end; u++)
		wq_unit(&c, args, u);
	return 0;
}
