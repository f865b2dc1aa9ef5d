// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_nms.c - NMS: greedy non-maximum suppression per batch and class
 * (ONNX NonMaxSuppression), an output whose extent the data decides.
 *
 * For batch b and class c the boxes of score above the threshold are
 * visited in descending score, equal scores in index order; a box is
 * kept unless its IoU with a box kept before it exceeds iou_threshold,
 * until max_per_class are kept. Kept boxes are written as rows (b, c,
 * box) to out, packed in (b, c, order of keeping) order; the rest of out
 * is zeroed and count receives the rows written.
 *
 * No scratch memory: the next box in score order is found by a scan for
 * the best box that comes after the last one visited (the order is total:
 * score, then index), so a (b, c) pair costs N scans of N boxes plus an
 * IoU against each kept box: N * (N + max_per_class). Corners are taken
 * as given in either order ([y1, x1, y2, x2], min and max per axis), or
 * from [xc, yc, w, h] with DRM_NPU_NMS_CENTER_BOX. A NaN score is never
 * above the threshold, nor best. One work unit: rows are packed across
 * pairs.
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

static void nms_load(const struct drm_npu_operand *bo, const float *bd,
		     u64 b, u64 i, bool center, struct nms_box *x)
{
	u64 off = b * bo->strides[0] + i * bo->strides[1];
	u64 s = bo->strides[2];
	float v0 = bd[off], v1 = bd[off + s];
	float v2 = bd[off + 2 * s], v3 = bd[off + 3 * s];

	if (center) {
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

/* Is (score s, index i) before (t, j) in the visiting order? */
static bool nms_before(float s, u64 i, float t, u64 j)
{
	return s > t || (s == t && i < j);
}

struct nms_pair {
	const struct drm_npu_operand *bo, *so;
	const float *bd, *sd;
	u64 b, c, n;
	bool center, has_thr;
	float iou, thr;
};

static float nms_score(const struct nms_pair *q, u64 i)
{
	return q->sd[q->b * q->so->strides[0] + q->c * q->so->strides[1] +
		     i * q->so->strides[2]];
}

/* The box after (last_s, last) in visiting order, or q->n if none. */
static u64 nms_next(const struct nms_pair *q, bool first, float last_s,
		    u64 last)
{
	u64 best = q->n, i;
	float bs = 0.0f;

	for (i = 0; i < q->n; i++) {
		float s = nms_score(q, i);

		if (s != s || (q->has_thr && !(s > q->thr)))
			continue;
		if (!first && !nms_before(last_s, last, s, i))
			continue;
		if (best == q->n || nms_before(s, i, bs, best)) {
			best = i;
			bs = s;
		}
	}
	return best;
}

/* Rows of pair @q from out row @row on; returns the rows written. */
static u64 nms_pair_run(const struct nms_pair *q, u64 max_keep, s64 *out,
			u64 row)
{
	u64 kept = 0, at = 0, k;
	float at_s = 0.0f;
	bool first = true;

	while (kept < max_keep) {
		struct nms_box cand, prev;
		bool keep = true;

		at = nms_next(q, first, at_s, at);
		if (at == q->n)
			break;
		at_s = nms_score(q, at);
		first = false;
		nms_load(q->bo, q->bd, q->b, at, q->center, &cand);
		for (k = 0; k < kept && keep; k++) {
			/*
			 * Read back from out, which userspace maps: a racing
			 * writer must not steer the load outside the boxes.
			 */
			u64 j = (u64)out[(row + k) * 3 + 2];

			if (j >= q->n)
				continue;
			nms_load(q->bo, q->bd, q->b, j, q->center, &prev);
			keep = !nms_suppresses(&prev, &cand, q->iou);
		}
		if (!keep)
			continue;
		out[(row + kept) * 3] = (s64)q->b;
		out[(row + kept) * 3 + 1] = (s64)q->c;
		out[(row + kept) * 3 + 2] = (s64)at;
		kept++;
	}
	return kept;
}

int npu_run_nms(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_nms_params *p = &t->params.nms;
	const struct drm_npu_operand *o = npu_opnd(t, 2);
	s64 *out = args->data[2], *count = args->data[3];
	struct nms_pair q;
	u64 rows = 0, batches, classes;

	if (begin > 0 || end < 1)
		return 0;
	q.bo = npu_opnd(t, 0);
	q.so = npu_opnd(t, 1);
	q.bd = args->data[0];
	q.sd = args->data[1];
	q.n = q.so->shape[2];
	q.center = p->flags & DRM_NPU_NMS_CENTER_BOX;
	q.has_thr = p->flags & DRM_NPU_NMS_HAS_SCORE_THRESHOLD;
	q.iou = npu_u2f(p->iou_threshold);
	q.thr = npu_u2f(p->score_threshold);
	batches = q.so->shape[0];
	classes = q.so->shape[1];
	memset(out, 0, npu_numel(o) * sizeof(*out));
	for (q.b = 0; q.b < batches; q.b++)
		for (q.c = 0; q.c < classes; q.c++)
			rows += nms_pair_run(&q, p->max_per_class, out, rows);
	*count = (s64)rows;
	return 0;
}
