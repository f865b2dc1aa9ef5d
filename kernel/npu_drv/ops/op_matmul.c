// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_matmul.c - MATMUL: out[b] = act(alpha * A[b] x B[b] + beta * bias),
 * batched over the leading dimensions with numpy broadcasting (size-1 or
 * 0-stride batch dims), A/B optionally transposed, bias broadcast to out.
 * This is ONNX MatMul and Gemm. alpha is used as given: a Gemm/MatMul
 * lowering sets it to 1.0f (0x3f800000).
 *
 * Work unit: NPU_MM_MR (16) rows of one batch's output (of all batches
 * at once when they fold into one product, npu_mm_fold()) times a block of
 * npu_mm_cols() columns (all of them unless K is large), in tiles of
 * 16 x 8 (four 4x8 register tiles sharing one B panel).
 */
#include "npu_ops_float.h"
#include "npu_gemm.h"
#include "npu_kern.h"

/*
 * Packing a TRANS_B operand pays for products of at least this many rows
 * (per batch, or in all when batches fold): 1 x 2048 x 1000 ran at 3.2
 * GFLOP/s through the 4x8 tiles and 2.1 packed.
 */
#define MM_T_MIN_ROWS	4

struct mm_ctx {
	const struct drm_npu_operand *a, *b, *bias, *out;
	u64 ast[DRM_NPU_MAX_RANK], bst[DRM_NPU_MAX_RANK];
	u64 biasst[DRM_NPU_MAX_RANK];
	u64 sam, sak, sbk, sbn;
	u64 m, n, cols, mb, nb, bmb;	/* bmb: batches x row blocks */
	u32 k, r;
	float alpha, beta;
	struct npu_act act;
	/*
	 * The activation the F32 stores apply: act, or none when GELU runs
	 * over whole output rows after the unit's tiles (late_gelu).
	 */
	struct npu_act store_act;
	bool late_gelu;
	/* mm_store()'s vector path: clamp kind (-1: none), its bounds */
	int epi;
	float epi_lo, epi_hi;
	const struct npu_kern *kern;	/* NULL: the 4x8 tiles only */
	bool packb;			/* B's rows are not contiguous */
	u64 osm, osn, bsm, bsn;		/* row/column strides: out, bias */
	bool fold;			/* batches folded into rows */
	u32 dt;				/* F32, or F16 (mm_unit16()) */
};

/*
 * The level's 16-column store (npu_kern's epi16) applies when alpha and
 * beta are 1, the bias (if any) is one row of contiguous columns and the
 * output columns are contiguous, for no activation, RELU and CLIP: the
 * operations of mm_store()'s loop, so the same bits.
 */
static void mm_epi_init(struct mm_ctx *c)
{
	c->epi = npu_act_clamp(&c->store_act, &c->epi_lo, &c->epi_hi);
	if (!c->kern || c->alpha != 1.0f || c->osn != 1 ||
	    (c->bias && (c->beta != 1.0f || c->bsn != 1 || c->bsm)))
		c->epi = -1;
}

static void mm_init(struct mm_ctx *c, const struct drm_npu_task *t, u32 isa)
{
	const struct drm_npu_matmul_params *p = &t->params.matmul;
	int bias = !!(p->flags & DRM_NPU_MATMUL_HAS_BIAS);
	struct npu_mm_fold fold;
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
	c->osm = c->out->strides[c->r - 2];
	c->osn = c->out->strides[c->r - 1];
	c->bsm = bias ? c->biasst[c->r - 2] : 0;
	c->bsn = bias ? c->biasst[c->r - 1] : 0;
	/* batches of rows that follow each other: one product (geom) */
	c->fold = npu_mm_fold(t, &fold);
	if (c->fold) {
		c->m = fold.rows;
		c->sam = fold.a_rs;
		c->osm = fold.o_rs;
		c->bsm = 0;
	}
	c->mb = (c->m + NPU_MM_MR - 1) / NPU_MM_MR;
	c->bmb = (c->fold ? 1 : npu_dims_prod(c->out, 0, c->r - 2)) * c->mb;
	c->cols = npu_mm_cols(t);
	c->nb = (c->n + c->cols - 1) / c->cols;
	c->alpha = npu_u2f(p->alpha);
	c->beta = npu_u2f(p->beta);
	npu_act_init(&c->act, &p->act);
	/*
	 * The product kernels read rows of B as contiguous vectors: a B
	 * whose rows are not (TRANS_B: Gemm's transB, A x B^T of two
	 * activations) is packed into rows first (mm_panel_get(),
	 * mm_fast_t()), so that every F32 product of K > 0 runs the level's
	 * kernel: one path, one set of bits, whatever the chunking.
	 */
	c->dt = c->a->dtype;
	c->packb = c->sbn != 1;
	c->kern = c->k && c->dt == DRM_NPU_DTYPE_F32 ? npu_kern_get(isa) :
		  NULL;
	/* a product of few rows reads B once: packing would cost as much */
	if (c->packb && c->m < MM_T_MIN_ROWS)
		c->kern = NULL;
	c->act.kern = npu_kern_get(isa);
	/*
	 * GELU over the unit's whole output rows once its tiles are stored
	 * (contiguous columns): long rows for the level's GELU loop instead
	 * of one call per tile row; elementwise, so the same bits.
	 */
	c->store_act = c->act;
	c->late_gelu = c->act.kind == DRM_NPU_ACT_GELU && c->osn == 1;
	if (c->late_gelu)
		c->store_act.kind = DRM_NPU_ACT_NONE;
	mm_epi_init(c);
}

/* k values per packed B panel: 32 x 8 floats = 1 KiB of stack. */
#define MM_KB	32

/*
 * acc[sb] = rows i0 + 4 sb .. of A times columns n0 .. n0 + nr - 1 of B.
 * A row-contiguous B is read in place; otherwise (TRANS_B, a column
 * tail) panels of MM_KB x 8 are packed once and shared by the 4 row
 * blocks. Either way each sum runs over k in order.
 */
static noinline void
mm_tiles(const struct mm_ctx *c, const float *a, u32 mr, const float *b,
	 u32 nr, float acc[4][4][8])
{
	u32 nsb = (mr + 3) / 4, sb, kb, kk, k, j;
	float panel[MM_KB][8];

	if (c->sbn == 1 && nr == 8) {
		for (sb = 0; sb < nsb; sb++)
			npu_gemm_tile(a + (u64)sb * 4 * c->sam, c->sam, c->sak,
				      mr - sb * 4 < 4 ? mr - sb * 4 : 4, b,
				      c->sbk, 1, 8, c->k, acc[sb]);
		return;
	}
	if (!c->k) {
		memset(acc, 0, sizeof(float) * 4 * 4 * 8);
		return;
	}
	for (kb = 0; kb < c->k; kb += kk) {
		kk = c->k - kb < MM_KB ? c->k - kb : MM_KB;
		for (k = 0; k < kk; k++)
			for (j = 0; j < 8; j++)
				panel[k][j] = b[(u64)(kb + k) * c->sbk +
					       (u64)(j < nr ? j : nr - 1) * c->sbn];
		for (sb = 0; sb < nsb; sb++) {
			const float *ab = a + (u64)sb * 4 * c->sam +
					  (u64)kb * c->sak;
			u32 m4 = mr - sb * 4 < 4 ? mr - sb * 4 : 4;

			if (kb)
				npu_gemm_tile_acc(ab, c->sam, c->sak, m4,
						  &panel[0][0], 8, 1, 8, kk,
						  acc[sb]);
			else
				npu_gemm_tile(ab, c->sam, c->sak, m4,
					      &panel[0][0], 8, 1, 8, kk, acc[sb]);
		}
	}
}

/*
 * Scale, bias, activation and store of rows i0 + i (i < mr) and columns
 * n0 + j (j < nr) of the output from acc (@ld floats per row).
 */
static void mm_store(const struct mm_ctx *c, float *out, u64 ooff,
		     const float *bias, u64 biasoff, u64 i0, u32 mr, u64 n0,
		     u32 nr, const float *acc, u32 ld)
{
	u64 ocs = c->osn;
	float row[NPU_KERN_MAX_NR];
	u32 i, j;

	if (c->epi >= 0 && nr % 16 == 0) {
		/*
		 * alpha 1, beta 1, a bias row shared by all rows, contiguous
		 * output columns: 16 columns at a time through the level's
		 * store (1 * x is x exactly: the bits of the loop below).
		 */
		for (j = 0; j < nr; j += 16)
			c->kern->epi16(out + ooff + i0 * c->osm + n0 + j,
				       c->osm, acc + j, ld, mr,
				       bias ? bias + biasoff + n0 + j : NULL,
				       NULL, 16, (u32)c->epi, c->epi_lo,
				       c->epi_hi);
		return;
	}

	for (i = 0; i < mr; i++) {
		u64 oi = ooff + (i0 + i) * c->osm;
		u64 bsi = biasoff + (i0 + i) * c->bsm;

		for (j = 0; j < nr; j++) {
			row[j] = c->alpha * acc[i * ld + j];
			if (bias)
				row[j] += c->beta * bias[bsi + (n0 + j) *
							 c->bsn];
		}
		npu_act_row(&c->store_act, row, nr);
		for (j = 0; j < nr; j++)
			out[oi + (n0 + j) * ocs] = row[j];
	}
}

/* Units of a column block a chunk must run to pack their panel. */
#define MM_PANEL_MIN_REUSE	4

/*
 * The unified buffer's copy of B's columns [n0, n1) (all K rows, n1 - n0
 * floats a row), made once per chunk and column block: the units of a
 * column block follow each other (mm_unit()), so every row block reads it.
 */
struct mm_panel {
	const float *b;		/* the batch's B it was packed from */
	u64 n0, n1;
};

/*
 * Rows [k0, k0 + kk) of B's columns [n0, n0 + w) into @dst as kk rows of
 * w contiguous floats: B read down its columns (k contiguous for
 * TRANS_B), written across the rows.
 */
static void mm_pack_cols(const struct mm_ctx *c, const float *b, u64 n0,
			 u64 w, u64 k0, u64 kk, float *dst)
{
	u64 j, q;

	for (j = 0; j < w; j++) {
		const float *col = b + (n0 + j) * c->sbn + k0 * c->sbk;

		for (q = 0; q < kk; q++)
			dst[q * w + j] = col[q * c->sbk];
	}
}

static const float *mm_panel_get(const struct mm_ctx *c, const float *b,
				 u64 n0, u64 n1, u64 reuse, void *ub,
				 struct mm_panel *p)
{
	u64 w = n1 - n0, kk;

	if (!ub || !c->kern || w * c->k > NPU_UB_BYTES / sizeof(float))
		return NULL;
	if (p->b != b || p->n0 != n0 || p->n1 != n1) {
		/*
		 * A copy of contiguous rows pays for itself over several row
		 * blocks only; strided ones are packed whatever the reuse.
		 */
		if (reuse < MM_PANEL_MIN_REUSE && !c->packb)
			return NULL;
		if (c->packb)
			mm_pack_cols(c, b, n0, w, 0, c->k, ub);
		else
			for (kk = 0; kk < c->k; kk++)
				memcpy((float *)ub + kk * w,
				       b + kk * c->sbk + n0,
				       w * sizeof(float));
		p->b = b;
		p->n0 = n0;
		p->n1 = n1;
	}
	return ub;
}

/* The tile of mm_fast()/mm_fast_t(): sums into @acc, B rows @sbk apart. */
static void mm_tile_setup(const struct mm_ctx *c, struct npu_tile *t,
			  float *acc, u64 sbk)
{
	memset(t, 0, sizeof(*t));
	t->sam = c->sam;
	t->ldc = c->kern->mm_nr;
	t->c = acc;
	t->n[0] = 1;
	t->n[1] = 1;
	t->n[2] = 1;
	t->n[3] = c->k;
	t->sa[3] = c->sak;
	t->sb[3] = sbk;
}

/*
 * The first column of the tile at column @j0 of [.., @n1): j0, or a last
 * narrow tile moved left to end at n1 (*@skip: its columns computed again).
 */
static u64 mm_tile_start(u64 j0, u64 n1, u32 nr, u32 *skip)
{
	*skip = 0;
	if (n1 - j0 >= nr)
		return j0;
	*skip = (u32)(j0 - (n1 - nr));
	return n1 - nr;
}

/*
 * Columns [n0, n1) of the unit's rows through the ISA level's kernel, in
 * tiles of mm_mr x mm_nr. A last narrow tile is moved left to end at n1
 * (its columns are computed again with the same bits and stored once).
 * @b is B's column @bc0 at row 0, rows @sbk apart (B itself with bc0 = 0,
 * or a packed panel). Returns the first column left to the 4x8 tiles (n1
 * when none).
 */
static noinline u64
mm_fast(const struct mm_ctx *c, const float *a, const float *b, u64 bc0,
	u64 sbk, float *out, u64 ooff, const float *bias, u64 biasoff, u64 i0,
	u32 mr, u64 n0, u64 n1)
{
	const struct npu_kern *k = c->kern;
	float acc[NPU_KERN_MM_TILE];
	struct npu_tile t;
	u64 j0, start;
	u32 r0, rows, skip;

	if (n1 - n0 < k->mm_nr)
		return n0;
	mm_tile_setup(c, &t, acc, sbk);
	for (j0 = n0; j0 < n1; j0 += k->mm_nr) {
		start = mm_tile_start(j0, n1, k->mm_nr, &skip);
		for (r0 = 0; r0 < mr; r0 += rows) {
			rows = mr - r0 < k->mm_mr ? mr - r0 : k->mm_mr;
			t.a = a + (u64)r0 * c->sam;
			t.b = b + (start - bc0);
			t.mr = rows;
			k->mm(&t);
			mm_store(c, out, ooff, bias, biasoff, i0 + r0, rows,
				 start + skip, k->mm_nr - skip, acc + skip,
				 k->mm_nr);
		}
	}
	return n1;
}

/* Floats of the stack panel of mm_fast_t(): 4 k rows of AVX-512's 32. */
#define MM_T_STACK	128

/*
 * mm_fast() for a B with strided rows and no panel of all K rows of the
 * unit's columns (the unified buffer too small, or none): each tile's
 * columns packed into @tp (@cap floats: the unified buffer, or a few k
 * rows on the stack for the buffer-less callers such as the compiler's
 * constant folding) a block of k rows at a time, the tile continuing its
 * sums over the blocks (floats in memory between calls: the same bits as
 * one pass over a whole packed panel).
 */
static noinline u64
mm_fast_t(const struct mm_ctx *c, const float *a, const float *b,
	  float *tp, u64 cap, float *out, u64 ooff, const float *bias,
	  u64 biasoff, u64 i0, u32 mr, u64 n0, u64 n1)
{
	const struct npu_kern *k = c->kern;
	u64 kc = cap / k->mm_nr, j0, start, kb, kk;
	float acc[NPU_KERN_MM_TILE];
	struct npu_tile t;
	u32 r0, rows, skip;

	if (n1 - n0 < k->mm_nr)
		return n0;
	mm_tile_setup(c, &t, acc, k->mm_nr);
	t.b = tp;
	for (j0 = n0; j0 < n1; j0 += k->mm_nr) {
		start = mm_tile_start(j0, n1, k->mm_nr, &skip);
		for (r0 = 0; r0 < mr; r0 += rows) {
			rows = mr - r0 < k->mm_mr ? mr - r0 : k->mm_mr;
			t.mr = rows;
			for (kb = 0; kb < c->k; kb += kk) {
				kk = c->k - kb < kc ? c->k - kb : kc;
				mm_pack_cols(c, b, start, k->mm_nr, kb, kk, tp);
				t.a = a + (u64)r0 * c->sam + kb * c->sak;
				t.n[3] = kk;
				t.accum = kb > 0;
				k->mm(&t);
			}
			mm_store(c, out, ooff, bias, biasoff, i0 + r0, rows,
				 start + skip, k->mm_nr - skip, acc + skip,
				 k->mm_nr);
		}
	}
	return n1;
}

/*
 * mm_fast_t() in the unified buffer when there is one (the panel it held
 * is overwritten: forget it), else on @tp.
 */
static u64 mm_fast_t_unit(const struct mm_ctx *c, void *ub,
			  struct mm_panel *panel, const float *a,
			  const float *b, float *tp, float *out, u64 ooff,
			  const float *bias, u64 biasoff, u64 i0, u32 mr,
			  u64 n0, u64 n1)
{
	if (!ub)
		return mm_fast_t(c, a, b, tp, MM_T_STACK, out, ooff, bias,
				 biasoff, i0, mr, n0, n1);
	panel->b = NULL;
	return mm_fast_t(c, a, b, ub, NPU_UB_BYTES / sizeof(float), out, ooff,
			 bias, biasoff, i0, mr, n0, n1);
}

static void mm_unit(const struct mm_ctx *c, const struct npu_op_args *args,
		    u64 unit, u64 reuse, struct mm_panel *panel)
{
	u32 coord[DRM_NPU_MAX_RANK] = { 0 };
	u32 batch_rank = c->r - 2, mr, nr, i, j;
	/*
	 * Column blocks outermost: the units that follow each other share a
	 * panel of B (it stays in the cache) and walk the rows.
	 */
	u64 cb = unit / c->bmb, bm = unit % c->bmb, bi = bm / c->mb;
	u64 i0 = (bm % c->mb) * NPU_MM_MR;
	u64 n0, nstart, n1 = (cb + 1) * c->cols;
	const float *a, *b, *bias = NULL;
	float *out = args->data[c->bias ? 3 : 2];
	u64 aoff, boff, ooff, biasoff = 0;
	float acc[4][4][8], row[8], tp[MM_T_STACK];

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
	if (n1 > c->n)
		n1 = c->n;
	n0 = cb * c->cols;
	nstart = n0;
	if (c->kern) {
		const float *pb = mm_panel_get(c, b, n0, n1, reuse, args->ub,
					       panel);

		if (pb)
			n0 = mm_fast(c, a, pb, n0, n1 - n0, out, ooff, bias,
				     biasoff, i0, mr, n0, n1);
		else if (!c->packb)
			n0 = mm_fast(c, a, b, 0, c->sbk, out, ooff, bias,
				     biasoff, i0, mr, n0, n1);
		else
			n0 = mm_fast_t_unit(c, args->ub, panel, a, b, tp, out,
					    ooff, bias, biasoff, i0, mr, n0,
					    n1);
	}
	for (; n0 < n1; n0 += 8) {
		nr = n1 - n0 < 8 ? (u32)(n1 - n0) : 8;
		mm_tiles(c, a, mr, b + n0 * c->sbn, nr, acc);
		for (i = 0; i < mr; i++) {
			u64 oi = ooff + (i0 + i) * c->osm;
			u64 bsi = biasoff + (i0 + i) * c->bsm;

			for (j = 0; j < nr; j++) {
				row[j] = c->alpha * acc[i / 4][i % 4][j];
				if (bias)
					row[j] += c->beta *
						  bias[bsi + (n0 + j) *
						       c->bsn];
			}
			npu_act_row(&c->store_act, row, nr);
			for (j = 0; j < nr; j++)
				out[oi + (n0 + j) * c->osn] =
					row[j];
		}
	}
	for (i = 0; c->late_gelu && i < mr && nstart < n1; i++)
		c->act.kern->gelu_row(out + ooff + (i0 + i) * c->osm + nstart,
				(u32)(n1 - nstart));
}

/* k values per packed block of an F16 product (stack: 512 + 256 B). */
#define MM16_KB	8

/*
 * An F16 MATMUL (every operand F16): the unit of mm_unit(), with A and B
 * widened exactly to f32 in blocks of MM16_KB k values and the 4x8 tiles
 * continuing their sums in k order (npu_gemm_tile_acc()), alpha, beta,
 * bias and activation in f32, the result rounded to F16 once. The same
 * bits at every ISA level (npu_gemm.c rounds product and sum apart).
 */
static noinline void mm_unit16(const struct mm_ctx *c,
			       const struct npu_op_args *args, u64 unit)
{
	u32 coord[DRM_NPU_MAX_RANK] = { 0 };
	u32 batch_rank = c->r - 2, mr, nr, i, j, q, kk, sb, nsb;
	u64 cb = unit / c->bmb, bm = unit % c->bmb, bi = bm / c->mb;
	u64 i0 = (bm % c->mb) * NPU_MM_MR, n0, n1 = (cb + 1) * c->cols, kb;
	u64 aoff, boff, ooff, biasoff = 0;
	float apk[NPU_MM_MR][MM16_KB], panel[MM16_KB][8];
	float acc[4][4][8], row[8];
	const void *a = args->data[0], *b = args->data[1];
	const void *bias = c->bias ? args->data[2] : NULL;
	void *out = args->data[c->bias ? 3 : 2];

	npu_unravel(bi, c->out->shape, batch_rank, coord);
	aoff = npu_offset(coord, c->ast, batch_rank) + i0 * c->sam;
	boff = npu_offset(coord, c->bst, batch_rank);
	ooff = npu_offset32(coord, c->out->strides, batch_rank);
	if (bias)
		biasoff = npu_offset(coord, c->biasst, batch_rank);
	mr = c->m - i0 < NPU_MM_MR ? (u32)(c->m - i0) : NPU_MM_MR;
	nsb = (mr + 3) / 4;
	if (n1 > c->n)
		n1 = c->n;
	for (n0 = cb * c->cols; n0 < n1; n0 += 8) {
		nr = n1 - n0 < 8 ? (u32)(n1 - n0) : 8;
		if (!c->k)
			memset(acc, 0, sizeof(acc));
		for (kb = 0; kb < c->k; kb += kk) {
			kk = c->k - kb < MM16_KB ? (u32)(c->k - kb) : MM16_KB;
			for (i = 0; i < mr; i++)
				for (q = 0; q < kk; q++)
					apk[i][q] = npu_ld_f(c->dt, a, aoff +
						i * c->sam + (kb + q) * c->sak);
			for (q = 0; q < kk; q++)
				for (j = 0; j < 8; j++)
					panel[q][j] = npu_ld_f(c->dt, b, boff +
						(kb + q) * c->sbk +
						(n0 + (j < nr ? j : nr - 1)) *
						c->sbn);
			for (sb = 0; sb < nsb; sb++) {
				u32 m4 = mr - sb * 4 < 4 ? mr - sb * 4 : 4;

				if (kb)
					npu_gemm_tile_acc(apk[sb * 4], MM16_KB,
							  1, m4, &panel[0][0],
							  8, 1, 8, kk,
							  acc[sb]);
				else
					npu_gemm_tile(apk[sb * 4], MM16_KB, 1,
						      m4, &panel[0][0], 8, 1,
						      8, kk, acc[sb]);
			}
		}
		for (i = 0; i < mr; i++) {
			u64 oi = ooff + (i0 + i) * c->osm;
			u64 bsi = biasoff + (i0 + i) * c->bsm;

			for (j = 0; j < nr; j++) {
				row[j] = c->alpha * acc[i / 4][i % 4][j];
				if (bias)
					row[j] += c->beta *
						  npu_ld_f(c->dt, bias, bsi +
							   (n0 + j) * c->bsn);
			}
			npu_act_row(&c->act, row, nr);
			for (j = 0; j < nr; j++)
				npu_st_f(c->dt, out, oi + (n0 + j) * c->osn,
					 row[j]);
		}
	}
}

/* Units of @u's column block from @u on, up to the chunk's end @end. */
static u64 mm_block_left(const struct mm_ctx *c, u64 u, u64 end)
{
	u64 block_end = (u / c->bmb + 1) * c->bmb;

	return (end < block_end ? end : block_end) - u;
}

int npu_run_matmul(const struct npu_op_args *args, u64 begin, u64 end)
{
	struct mm_panel panel = { 0 };	/* nothing packed in this chunk */
	struct mm_ctx c;
	u64 u;

	mm_init(&c, args->task, args->isa);
	for (u = begin; u < end; u++) {
		if (c.dt == DRM_NPU_DTYPE_F16)
			mm_unit16(&c, args, u);
		else
			mm_unit(&c, args, u, mm_block_left(&c, u, end),
				&panel);
	}
	return 0;
}
