// SPDX-License-Identifier: MIT
/*
 * test_random.c - RANDOM (uapi 1.9) through the ioctls: uniform values
 * equal, bit for bit, a Philox4x32-10 written here from the uapi's
 * description (so npu_drv.ko's kernel_fpu build and the in-process device
 * agree with the contract, not only with each other), a program without
 * PER_JOB draws the same values every job and one with it new ones,
 * normal moments, and Bernoulli's certain cases; run against the
 * in-process device and, in the VM, against npu_drv.ko.
 */
#include "npu_test.h"

#include <math.h>
#include <string.h>

#define ROWS	1000
#define COLS	70		/* 70,000 values: two work units */

/* Philox4x32-10 of counter (i, i >> 32, 0, 0): the uapi's generator. */
static uint32_t philox_w0(uint64_t key, uint64_t i, uint32_t *w1)
{
	uint32_t c[4] = { (uint32_t)i, (uint32_t)(i >> 32), 0, 0 };
	uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);

	for (int r = 0; r < 10; r++) {
		uint64_t p0 = (uint64_t)0xd2511f53u * c[0];
		uint64_t p1 = (uint64_t)0xcd9e8d57u * c[2];
		uint32_t n[4] = { (uint32_t)(p1 >> 32) ^ c[1] ^ k0, (uint32_t)p1,
				  (uint32_t)(p0 >> 32) ^ c[3] ^ k1,
				  (uint32_t)p0 };

		memcpy(c, n, sizeof(c));
		k0 += 0x9e3779b9u;
		k1 += 0xbb67ae85u;
	}
	if (w1)
		*w1 = c[1];
	return c[0];
}

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static struct drm_npu_task random_task(uint32_t dist, uint64_t seed,
				       float a, float b, uint32_t flags)
{
	uint32_t shape[2] = { ROWS, COLS };
	struct drm_npu_task t;
	uint32_t n = dist == DRM_NPU_RANDOM_BERNOULLI ? 2 : 1;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_RANDOM;
	t.num_operands = n;
	t.params.random.dist = dist;
	t.params.random.flags = flags;
	t.params.random.seed_lo = (uint32_t)seed;
	t.params.random.seed_hi = (uint32_t)(seed >> 32);
	t.params.random.a = f2u(a);
	t.params.random.b = f2u(b);
	for (uint32_t i = 0; i < n; i++)
		t.operands[i] = t_opnd((uint16_t)i, 0, DRM_NPU_DTYPE_F32, 2,
				       shape);
	return t;
}

static void test_uniform(struct t_cbuf *b)
{
	struct drm_npu_task t = random_task(DRM_NPU_RANDOM_UNIFORM,
					    0x0123456789abcdefull, -1, 2, 0);
	const float *y = b[0].p;
	uint64_t bad = 0;
	int err = t_run_tasks(&t, 1, b, 1);

	for (uint64_t i = 0; i < ROWS * COLS && !err; i++) {
		double u = (double)(philox_w0(0x0123456789abcdefull, i, NULL) >>
				    8) * (1.0 / 16777216.0);

		bad += f2u(y[i]) != f2u((float)(-1.0 + 3.0 * u));
	}
	tap_ok(!err && !bad,
	       "RANDOM UNIFORM [-1, 2) over 70,000 values: the bits of the uapi's Philox4x32-10 (%llu differ)",
	       (unsigned long long)bad);
}

static void test_per_job(struct t_cbuf *b)
{
	static float first[ROWS * COLS];
	struct drm_npu_task t = random_task(DRM_NPU_RANDOM_UNIFORM, 7, 0, 1,
					    0);
	int err = t_run_tasks(&t, 1, b, 1), same, other;

	memcpy(first, b[0].p, sizeof(first));
	err = err ? err : t_run_tasks(&t, 1, b, 1);
	same = !memcmp(first, b[0].p, sizeof(first));
	t.params.random.flags = DRM_NPU_RANDOM_PER_JOB;
	err = err ? err : t_run_tasks(&t, 1, b, 1);
	memcpy(first, b[0].p, sizeof(first));
	err = err ? err : t_run_tasks(&t, 1, b, 1);
	other = memcmp(first, b[0].p, sizeof(first)) != 0;
	tap_ok(!err && same && other,
	       "RANDOM: two jobs draw the same values, with PER_JOB different ones");
}

static void test_normal(struct t_cbuf *b)
{
	struct drm_npu_task t = random_task(DRM_NPU_RANDOM_NORMAL, 3, 1, 2,
					    0);
	const float *y = b[0].p;
	double s = 0, s2 = 0, mean, sd;
	int err = t_run_tasks(&t, 1, b, 1);

	for (uint64_t i = 0; i < ROWS * COLS; i++)
		s += y[i];
	mean = s / (ROWS * COLS);
	for (uint64_t i = 0; i < ROWS * COLS; i++)
		s2 += (y[i] - mean) * (y[i] - mean);
	sd = sqrt(s2 / (ROWS * COLS - 1));
	tap_ok(!err && fabs(mean - 1) < 0.04 && fabs(sd - 2) < 0.03,
	       "RANDOM NORMAL mean 1 scale 2: mean %.4f, sd %.4f", mean, sd);
}

static void test_bernoulli(struct t_cbuf *b)
{
	struct drm_npu_task t = random_task(DRM_NPU_RANDOM_BERNOULLI, 5, 0, 0,
					    0);
	float *p = b[0].p;
	const float *y = b[1].p;
	uint64_t bad = 0, ones = 0;
	int err;

	for (uint64_t i = 0; i < ROWS * COLS; i++)
		p[i] = i % 3 == 0 ? 0.0f : i % 3 == 1 ? 1.0f : 0.5f;
	t.params.random.a = 0;
	t.params.random.b = 0;
	err = t_run_tasks(&t, 1, b, 2);
	for (uint64_t i = 0; i < ROWS * COLS && !err; i++) {
		if (i % 3 == 2)
			ones += y[i] == 1.0f;
		else
			bad += y[i] != (float)(i % 3);
	}
	tap_ok(!err && !bad && fabs(ones / (ROWS * COLS / 3.0) - 0.5) < 0.02,
	       "RANDOM BERNOULLI: p 0 gives 0, p 1 gives 1, p 0.5 %.4f ones",
	       ones / (ROWS * COLS / 3.0));
}

void test_random(void)
{
	struct t_cbuf b[2] = { 0 };

	if (!t_cbuf_new(&b[0], ROWS * COLS * 4) ||
	    !t_cbuf_new(&b[1], ROWS * COLS * 4)) {
		tap_ok(false, "RANDOM: buffers");
		t_cbufs_free(b, 2);
		return;
	}
	test_uniform(b);
	test_per_job(b);
	test_normal(b);
	test_bernoulli(b);
	t_cbufs_free(b, 2);
}
