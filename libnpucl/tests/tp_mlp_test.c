// SPDX-License-Identifier: MIT
/*
 * tp_mlp_test.c - a tensor-parallel two-layer MLP over 2 and 4 devices
 * matches the single-device result.
 *
 *   y = relu(x W1) W2,  x [B, D], W1 [D, H], W2 [H, D]
 *
 * Megatron's split: device k holds the column block k of W1 and the row
 * block k of W2 (H / n each), computes y_k = relu(x W1_k) W2_k, and an
 * AllReduce (sum) of the y_k gives y on every device. The MATMUL tasks run
 * through npurt_launch_tasks (the column block is a strided view of W1);
 * the collective is libnpucl's. The sum's order differs from the single
 * device's (partial sums per block), so the check is to a tolerance; the
 * devices' results must agree bit for bit. Prints TAP.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/npu_drm.h>

#include "npucl.h"
#include "npurt.h"

#define B	8
#define D	64
#define H	256

static int tests, fails;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++tests, what);
	if (!cond)
		fails++;
}

static struct drm_npu_operand opnd(uint16_t slot, uint64_t off, uint32_t r0,
				   uint32_t r1, uint32_t stride0)
{
	struct drm_npu_operand o;

	memset(&o, 0, sizeof(o));
	o.slot = slot;
	o.dtype = DRM_NPU_DTYPE_F32;
	o.rank = 2;
	o.shape[0] = r0;
	o.shape[1] = r1;
	o.strides[0] = stride0;
	o.strides[1] = 1;
	o.offset = off;
	return o;
}

/* y = relu(x W1[:, c0:c0+w]) W2[c0:c0+w, :] on @s; slots x W1 W2 h y. */
static npurt_status mlp_part(npurt_stream *s, npurt_mem *const *mems,
			     uint32_t c0, uint32_t w)
{
	struct drm_npu_task t[2];

	memset(t, 0, sizeof(t));
	for (int i = 0; i < 2; i++) {
		t[i].opcode = DRM_NPU_OP_MATMUL;
		t[i].num_operands = 3;
		t[i].params.matmul.alpha = 0x3f800000;	/* 1.0f */
	}
	t[0].params.matmul.act.kind = DRM_NPU_ACT_RELU;
	t[0].operands[0] = opnd(0, 0, B, D, D);
	t[0].operands[1] = opnd(1, (uint64_t)c0 * 4, D, w, H);
	t[0].operands[2] = opnd(3, 0, B, w, w);
	t[1].operands[0] = opnd(3, 0, B, w, w);
	t[1].operands[1] = opnd(2, (uint64_t)c0 * D * 4, w, D, D);
	t[1].operands[2] = opnd(4, 0, B, D, D);
	return npurt_launch_tasks(s, t, 2, mems, 5);
}

static float frand(uint64_t *st)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((int64_t)(*st >> 40) % 2001 - 1000) / 1000.0f;
}

struct dev {
	npurt_device *dev;
	npurt_context *ctx;
	npurt_stream *s;
	npurt_mem *m[5];	/* x W1 W2 h y */
};

static int setup(struct dev *d, uint32_t index, const float *x,
		 const float *w1, const float *w2)
{
	static const size_t sz[5] = { B * D * 4, D * H * 4, H * D * 4,
				      B * H * 4, B * D * 4 };

	if (npurt_device_open(index, &d->dev) ||
	    npurt_context_create(d->dev, 0, &d->ctx) ||
	    npurt_stream_create(d->ctx, NPURT_PRIORITY_NORMAL, &d->s))
		return -1;
	for (int i = 0; i < 5; i++)
		if (npurt_mem_alloc(d->ctx, sz[i], &d->m[i]))
			return -1;
	return npurt_memcpy_h2d(d->m[0], 0, x, sz[0]) ||
	       npurt_memcpy_h2d(d->m[1], 0, w1, sz[1]) ||
	       npurt_memcpy_h2d(d->m[2], 0, w2, sz[2]) ? -1 : 0;
}

static void teardown(struct dev *d)
{
	for (int i = 0; i < 5; i++)
		npurt_mem_free(d->m[i]);
	npurt_stream_destroy(d->s);
	npurt_context_destroy(d->ctx);
	npurt_device_close(d->dev);
}

int main(void)
{
	static float x[B * D], w1[D * H], w2[H * D], ref[B * D], y[4][B * D];
	uint64_t st = 42;
	struct dev one;
	uint32_t ndev = 0;
	char msg[160];

	setenv("NPU_SIM_DEVICES", "4", 0);
	for (int i = 0; i < B * D; i++)
		x[i] = frand(&st);
	for (int i = 0; i < D * H; i++)
		w1[i] = frand(&st) / 8;
	for (int i = 0; i < H * D; i++)
		w2[i] = frand(&st) / 16;
	if (npurt_init(0) || npurt_device_count(&ndev) || ndev < 4) {
		printf("1..0 # SKIP needs 4 devices (NPU_SIM_DEVICES=4)\n");
		return 0;
	}
	/* the single-device reference */
	ok(!setup(&one, 0, x, w1, w2) &&
	   !mlp_part(one.s, one.m, 0, H) &&
	   !npurt_stream_synchronize(one.s) &&
	   !npurt_memcpy_d2h(ref, one.m[4], 0, sizeof(ref)),
	   "single device: relu(x W1) W2");
	teardown(&one);
	for (uint32_t n = 2; n <= 4; n += 2) {
		struct dev d[4];
		npurt_context *ctx[4];
		npucl_comm *comm[4];
		double maxd = 0, maxy = 0;
		int good = 1, same = 1;

		for (uint32_t k = 0; k < n; k++) {
			good &= !setup(&d[k], k, x, w1, w2);
			ctx[k] = d[k].ctx;
		}
		good = good && !npucl_comm_init_all(ctx, n, comm);
		for (uint32_t k = 0; k < n && good; k++)
			good &= !mlp_part(d[k].s, d[k].m, k * (H / n), H / n) &&
				!npucl_allreduce(d[k].m[4], d[k].m[4], B * D,
						 NPURT_DTYPE_F32, NPUCL_SUM,
						 comm[k], d[k].s);
		for (uint32_t k = 0; k < n && good; k++)
			good &= !npurt_stream_synchronize(d[k].s) &&
				!npurt_memcpy_d2h(y[k], d[k].m[4], 0,
						  sizeof(y[k]));
		for (uint32_t k = 1; k < n && good; k++)
			same &= !memcmp(y[0], y[k], sizeof(y[0]));
		for (int i = 0; i < B * D && good; i++) {
			double e = fabs((double)y[0][i] - ref[i]);

			maxd = e > maxd ? e : maxd;
			maxy = fabs(ref[i]) > maxy ? fabs(ref[i]) : maxy;
		}
		snprintf(msg, sizeof(msg), "tensor parallel over %u devices: "
			 "max |y - y_single| = %.3g (|y| up to %.3g)", n, maxd,
			 maxy);
		ok(good && maxy > 0.1 && maxd <= 1e-5 * (1 + maxy), msg);
		snprintf(msg, sizeof(msg), "tensor parallel over %u devices: "
			 "every device's y identical bit for bit", n);
		ok(good && same, msg);
		if (good)
			for (uint32_t k = 0; k < n; k++)
				npucl_comm_destroy(comm[k]);
		for (uint32_t k = 0; k < n; k++)
			teardown(&d[k]);
	}
	npurt_finalize();
	printf("1..%d\n", tests);
	return fails ? 1 : 0;
}
