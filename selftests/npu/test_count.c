// SPDX-License-Identifier: MIT
/*
 * test_count.c - the ops of data-dependent extent through the ioctls:
 * NONZERO, and NMS + PACK_ROWS as one two-task program (the pairs of NMS
 * spread over the AI cores), against references written here; run against
 * the in-process device and, in the VM, against npu_drv.ko.
 */
#include "npu_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng = 18;

static float urand(float lo, float hi)
{
	rng = rng * 1664525u + 1013904223u;
	return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

static void test_nonzero(void)
{
	uint32_t in[2] = { 4, 37 }, out[2] = { 2, 148 }, one[1] = { 1 };
	struct t_cbuf b[3] = { 0 };
	struct drm_npu_task t;
	uint64_t n = 0, k = 0, bad = 0;
	int64_t *o, cnt;
	float *x;
	int err;

	if (!t_cbuf_new(&b[0], 148 * 4) || !t_cbuf_new(&b[1], 296 * 8) ||
	    !t_cbuf_new(&b[2], 8)) {
		tap_ok(false, "NONZERO: buffers");
		goto out;
	}
	x = b[0].p;
	for (uint32_t i = 0; i < 148; i++) {
		x[i] = urand(0, 1) < 0.4f ? 0.0f : urand(-1, 1);
		n += x[i] != 0.0f;
	}
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_NONZERO;
	t.num_operands = 3;
	t.operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, 2, in);
	t.operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_I64, 2, out);
	t.operands[2] = t_opnd(2, 0, DRM_NPU_DTYPE_I64, 1, one);
	err = t_run_tasks(&t, 1, b, 3);
	if (err) {
		tap_err(err, 0, "NONZERO [4, 37]: runs");
		goto out;
	}
	o = b[1].p;
	memcpy(&cnt, b[2].p, 8);
	for (uint32_t i = 0; i < 148 && cnt == (int64_t)n; i++) {
		if (x[i] == 0.0f)
			continue;
		bad += o[k] != i / 37 || o[n + k] != i % 37;
		k++;
	}
	for (uint64_t i = 2 * n; i < 296 && cnt == (int64_t)n; i++)
		bad += o[i] != 0;
	tap_ok(cnt == (int64_t)n && !bad,
	       "NONZERO [4, 37]: %lld of %llu coordinates packed, the rest zeroed",
	       (long long)cnt, (unsigned long long)n);
out:
	t_cbufs_free(b, 3);
}

static double iou(const float *a, const float *b)
{
	double ih = fmin(a[2], b[2]) - fmax(a[0], b[0]);
	double iw = fmin(a[3], b[3]) - fmax(a[1], b[1]);
	double aa = ((double)a[2] - a[0]) * ((double)a[3] - a[1]);
	double ab = ((double)b[2] - b[0]) * ((double)b[3] - b[1]);

	if (ih <= 0 || iw <= 0)
		return 0;
	return ih * iw / (aa + ab - ih * iw);
}

/* Reference rows (0, c, box) of greedy NMS; boxes [N, 4], y0 < y1. */
static uint32_t nms_ref(const float *bx, const float *sc, uint32_t c_n,
			uint32_t n, uint32_t keep, float thr, int64_t *rows)
{
	uint32_t r = 0, *kept = calloc(n, sizeof(*kept));
	bool *done = calloc(n, sizeof(*done));

	for (uint32_t c = 0; c < c_n && kept && done; c++) {
		uint32_t nk = 0;

		memset(done, 0, n * sizeof(*done));
		while (nk < keep) {
			int64_t best = -1;
			bool ok = true;

			for (uint32_t i = 0; i < n; i++)
				if (!done[i] && (best < 0 ||
						 sc[c * n + i] > sc[c * n + best]))
					best = i;
			if (best < 0)
				break;
			done[best] = true;
			for (uint32_t k = 0; k < nk && ok; k++)
				ok = iou(bx + kept[k] * 4, bx + best * 4) <= thr;
			if (!ok)
				continue;
			kept[nk++] = (uint32_t)best;
			rows[r * 3] = 0;
			rows[r * 3 + 1] = c;
			rows[r * 3 + 2] = best;
			r++;
		}
	}
	free(kept);
	free(done);
	return r;
}

static void test_nms(void)
{
	enum { C = 6, N = 300, KEEP = 300 };
	uint32_t bs[3] = { 1, N, 4 }, ss[3] = { 1, C, N }, ws[2] = { C, N };
	uint32_t os[2] = { C * KEEP, 3 }, ps[1] = { C }, one[1] = { 1 };
	uint32_t ds[3] = { C, KEEP, 3 }, r;
	struct drm_npu_task t[2];
	struct t_cbuf b[6] = { 0 };
	int64_t *ref = calloc(C * KEEP * 3, sizeof(*ref)), cnt;
	float *bx, *sc;
	bool tail = true;
	int err;

	if (!ref || !t_cbuf_new(&b[0], N * 16) || !t_cbuf_new(&b[1], C * N * 4) ||
	    !t_cbuf_new(&b[2], C * N * 4) || !t_cbuf_new(&b[3], C * KEEP * 24) ||
	    !t_cbuf_new(&b[4], C * 8) || !t_cbuf_new(&b[5], 8)) {
		tap_ok(false, "NMS: buffers");
		goto out;
	}
	bx = b[0].p;
	sc = b[1].p;
	for (uint32_t i = 0; i < N; i++) {
		float y = urand(0, 100), x = urand(0, 100);

		bx[i * 4] = y;
		bx[i * 4 + 1] = x;
		bx[i * 4 + 2] = y + urand(10, 40);
		bx[i * 4 + 3] = x + urand(10, 40);
	}
	for (uint32_t i = 0; i < C * N; i++)
		sc[i] = urand(0, 1);
	memset(t, 0, sizeof(t));
	t[0].opcode = DRM_NPU_OP_NMS;
	t[0].num_operands = 5;
	t[0].params.nms.max_per_class = KEEP;
	t[0].params.nms.iou_threshold = 0x3ee66666u;	/* 0.45f */
	t[0].operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, 3, bs);
	t[0].operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_F32, 3, ss);
	t[0].operands[2] = t_opnd(2, 0, DRM_NPU_DTYPE_I32, 2, ws);
	t[0].operands[3] = t_opnd(3, 0, DRM_NPU_DTYPE_I64, 2, os);
	t[0].operands[4] = t_opnd(4, 0, DRM_NPU_DTYPE_I64, 1, ps);
	t[1].opcode = DRM_NPU_OP_PACK_ROWS;
	t[1].num_operands = 3;
	t[1].operands[0] = t_opnd(4, 0, DRM_NPU_DTYPE_I64, 1, ps);
	t[1].operands[1] = t_opnd(3, 0, DRM_NPU_DTYPE_I64, 3, ds);
	t[1].operands[2] = t_opnd(5, 0, DRM_NPU_DTYPE_I64, 1, one);
	err = t_run_tasks(t, 2, b, 6);
	if (err) {
		tap_err(err, 0, "NMS + PACK_ROWS: runs");
		goto out;
	}
	r = nms_ref(bx, sc, C, N, KEEP, 0.45f, ref);
	memcpy(&cnt, b[5].p, 8);
	for (uint32_t i = r * 3; i < C * KEEP * 3; i++)
		tail &= ((int64_t *)b[3].p)[i] == 0;
	tap_ok(cnt == r && !memcmp(b[3].p, ref, r * 24) && tail,
	       "NMS (6 classes x 300 boxes, all may stay) + PACK_ROWS: %lld rows as the reference's %u, the rest zeroed",
	       (long long)cnt, r);
out:
	free(ref);
	t_cbufs_free(b, 6);
}

void test_count(void)
{
	test_nonzero();
	test_nms();
}
