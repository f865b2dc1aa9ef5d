// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_nms.c - NMS: greedy non-maximum suppression of one (batch, class)
 * pair per work unit (ONNX NonMaxSuppression), and PACK_ROWS, which packs
 * the pairs' rows into the one list ONNX returns.
 *
 * NMS, unit p = b * C + c: the boxes of score above the threshold (with
 * DRM_NPU_NMS_HAS_SCORE_THRESHOLD; never a NaN score) go into a heap in
 * row p of scratch, best on top: higher score first, equal scores lower
 * index first. Popped in that order, a box is kept unless its IoU with a
 * box kept before exceeds iou_threshold, until keep = min(N,
 * max_per_class) are kept. Kept boxes are rows (b, c, box) of the pair's
 * region of out, rows [p * keep, (p + 1) * keep); counts[p] receives how
 * many. Building the heap is O(N), each pop O(log N), each candidate an
 * IoU against at most keep boxes: a pair costs about N * (keep + log N),
 * and pairs run on as many cores as the device has.
 *
 * Corners are taken as given in either order ([y1, x1, y2, x2], min and
 * max per axis), or from [xc, yc, w, h] with DRM_NPU_NMS_CENTER_BOX.
 *
 * Scratch and out are device memory that userspace maps and another task
 * could write meanwhile: every index read back from them is checked
 * against N before it addresses boxes or scores, so a racing writer
 * changes the answer, never the memory touched.
 *
 * PACK_ROWS (one unit): data [P, K, W] holds counts[p] rows at the start
 * of each group p; they are moved, in order, to the front of data, the
 * rest is zeroed and total receives the rows kept. A count outside
 * [0, K] is clamped.
 */
#include "npu_ops_float.h"

struct nms_box {
	float y0, x0, y1, x1;
};

static float nms_min(float a, float b)
{
	return a < b ? a : b;
}

static float nms_max(float a, float b)
{
	return a > b ? a : b;
}

struct nms_pair {
	const struct drm_npu_operand *bo, *so;
	const float *bd, *sd;
	s32 *heap;		/* row p of scratch */
	s64 *rows;		/* the pair's region of out */
	u64 b, c, n;
	bool center, has_thr;
	float iou, thr;
};

static void nms_load(const struct nms_pair *q, u64 i, struct nms_box *x)
{
	u64 off = q->b * q->bo->strides[0] + i * q->bo->strides[1];
	u64 s = q->bo->strides[2];
	float v0 = q->bd[off], v1 = q->bd[off + s];
	float v2 = q->bd[off + 2 * s], v3 = q->bd[off + 3 * s];

	if (q->center) {
		/* [xc, yc, w, h] */
		x->x0 = v0 - v2 / 2.0f;
		x->x1 = v0 + v2 / 2.0f;
		x->y0 = v1 - v3 / 2.0f;
		x->y1 = v1 + v3 / 2.0f;
		return;
	}
	x->y0 = nms_min(v0, v2);
	x->y1 = nms_max(v0, v2);
	x->x0 = nms_min(v1, v3);
	x->x1 = nms_max(v1, v3);
}

/* Does box a overlap box b by more than @thr (intersection over union)? */
static bool nms_suppresses(const struct nms_box *a, const struct nms_box *b,
			   float thr)
{
	float area_a = (a->y1 - a->y0) * (a->x1 - a->x0);
	float area_b = (b->y1 - b->y0) * (b->x1 - b->x0);
	float ih = nms_min(a->y1, b->y1) - nms_max(a->y0, b->y0);
	float iw = nms_min(a->x1, b->x1) - nms_max(a->x0, b->x0);
	float inter, uni;

	if (!(area_a > 0.0f) || !(area_b > 0.0f) || !(ih > 0.0f) ||
	    !(iw > 0.0f))
		return false;
	inter = ih * iw;
	uni = area_a + area_b - inter;
	return uni > 0.0f && inter / uni > thr;
}

static float nms_score(const struct nms_pair *q, u64 i)
{
	return q->sd[q->b * q->so->strides[0] + q->c * q->so->strides[1] +
		     i * q->so->strides[2]];
}

/* Heap slot @k as a box index below N (see the comment at the top). */
static u64 nms_slot(const struct nms_pair *q, u64 k)
{
	u64 i = (u32)q->heap[k];

	return i < q->n ? i : 0;
}

/* Does box i come before box j: higher score, or equal and lower index? */
static bool nms_first(const struct nms_pair *q, u64 i, u64 j)
{
	float s = nms_score(q, i), t = nms_score(q, j);

	return s > t || (s == t && i < j);
}

/* Restore the heap of @m slots below slot @k. */
static void nms_sift(const struct nms_pair *q, u64 k, u64 m)
{
	for (;;) {
		u64 best = k, l = 2 * k + 1, r = l + 1;

		if (l < m && nms_first(q, nms_slot(q, l), nms_slot(q, best)))
			best = l;
		if (r < m && nms_first(q, nms_slot(q, r), nms_slot(q, best)))
			best = r;
		s32 v;

		if (best == k)
			return;
		v = q->heap[k];
		q->heap[k] = q->heap[best];
		q->heap[best] = v;
		k = best;
	}
}

/* The candidates of pair @q into its heap; returns how many. */
static u64 nms_heapify(const struct nms_pair *q)
{
	u64 m = 0, i, k;

	for (i = 0; i < q->n; i++) {
		float s = nms_score(q, i);

		if (s != s || (q->has_thr && !(s > q->thr)))
			continue;
		q->heap[m++] = (s32)i;
	}
	for (k = m / 2; k-- > 0;)
		nms_sift(q, k, m);
	return m;
}

/* Is box @at suppressed by one of the @kept rows written so far? */
static bool nms_suppressed(const struct nms_pair *q, u64 at, u64 kept)
{
	struct nms_box cand, prev;
	u64 k;

	nms_load(q, at, &cand);
	for (k = 0; k < kept; k++) {
		u64 j = (u64)q->rows[k * 3 + 2];

		if (j >= q->n)		/* out rewritten meanwhile */
			continue;
		nms_load(q, j, &prev);
		if (nms_suppresses(&prev, &cand, q->iou))
			return true;
	}
	return false;
}

static u64 nms_pair_run(const struct nms_pair *q, u64 keep)
{
	u64 m = nms_heapify(q), kept = 0;

	while (kept < keep && m) {
		u64 at = nms_slot(q, 0);

		q->heap[0] = q->heap[--m];
		nms_sift(q, 0, m);
		if (nms_suppressed(q, at, kept))
			continue;
		q->rows[kept * 3] = (s64)q->b;
		q->rows[kept * 3 + 1] = (s64)q->c;
		q->rows[kept * 3 + 2] = (s64)at;
		kept++;
	}
	return kept;
}

int npu_run_nms(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_nms_params *p = &t->params.nms;
	s32 *scratch = args->data[2];
	s64 *out = args->data[3], *counts = args->data[4];
	struct nms_pair q;
	u64 u, classes, keep;

	q.bo = npu_opnd(t, 0);
	q.so = npu_opnd(t, 1);
	q.bd = args->data[0];
	q.sd = args->data[1];
	q.n = q.so->shape[2];
	q.center = p->flags & DRM_NPU_NMS_CENTER_BOX;
	q.has_thr = p->flags & DRM_NPU_NMS_HAS_SCORE_THRESHOLD;
	q.iou = npu_u2f(p->iou_threshold);
	q.thr = npu_u2f(p->score_threshold);
	classes = q.so->shape[1];
	keep = q.n < p->max_per_class ? q.n : p->max_per_class;
	for (u = begin; u < end; u++) {
		q.b = u / classes;
		q.c = u % classes;
		q.heap = scratch + u * q.n;
		q.rows = out + u * keep * 3;
		counts[u] = (s64)nms_pair_run(&q, keep);
	}
	return 0;
}

int npu_run_pack_rows(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_operand *d = npu_opnd(args->task, 1);
	const s64 *counts = args->data[0];
	s64 *data = args->data[1], *total = args->data[2];
	u64 groups = d->shape[0], k = d->shape[1], w = d->shape[2];
	u64 p, at = 0;

	if (begin > 0 || end < 1)
		return 0;
	for (p = 0; p < groups; p++) {
		s64 c = counts[p];
		u64 rows = c < 0 ? 0 : (u64)c > k ? k : (u64)c;

		if (rows && at != p * k)
			memmove(data + at * w, data + p * k * w,
				rows * w * sizeof(*data));
		at += rows;
	}
	memset(data + at * w, 0, (groups * k - at) * w * sizeof(*data));
	*total = (s64)at;
	return 0;
}
