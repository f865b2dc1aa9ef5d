// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_random.c - RANDOM: uniform, normal and Bernoulli values (ONNX
 * RandomUniform[Like], RandomNormal[Like], Bernoulli) from Philox4x32-10,
 * a counter-based generator: element i of out is a pure function of the
 * key and i, so every split of the work units, every core count and both
 * homes give the same values, and a unit needs no state from the one
 * before. Work unit: a segment of NPU_ROW_SEG elements of the (dense)
 * out.
 */
#include "npu_ops_float.h"

#define PHILOX_M0	0xd2511f53u
#define PHILOX_M1	0xcd9e8d57u
#define PHILOX_W0	0x9e3779b9u	/* the key's bumps: golden ratio, */
#define PHILOX_W1	0xbb67ae85u	/* sqrt(3) - 1 */
#define TWO_PI		6.283185307179586

void npu_philox4x32(const u32 key[2], const u32 ctr[4], u32 out[4])
{
	u32 c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
	u32 k0 = key[0], k1 = key[1];
	int r;

	for (r = 0; r < 10; r++) {
		u64 p0 = (u64)PHILOX_M0 * c0, p1 = (u64)PHILOX_M1 * c2;

		c0 = (u32)(p1 >> 32) ^ c1 ^ k0;
		c1 = (u32)p1;
		c2 = (u32)(p0 >> 32) ^ c3 ^ k1;
		c3 = (u32)p0;
		k0 += PHILOX_W0;
		k1 += PHILOX_W1;
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

/* splitmix64's finaliser: the job's key spread over the seed. */
static u64 rnd_mix(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* One value of element @i: the block of counter (i, i >> 32, 0, 0). */
static float rnd_value(const struct drm_npu_random_params *p,
		       const u32 key[2], u64 i, const float *prob)
{
	u32 ctr[4] = { (u32)i, (u32)(i >> 32), 0, 0 }, w[4];
	double u, a = npu_u2f(p->a), b = npu_u2f(p->b), z;

	npu_philox4x32(key, ctr, w);
	u = (double)(w[0] >> 8) * (1.0 / 16777216.0);
	switch (p->dist) {
	case DRM_NPU_RANDOM_UNIFORM:
		return (float)(a + (b - a) * u);
	case DRM_NPU_RANDOM_NORMAL:
		u = (double)((w[0] >> 8) + 1) * (1.0 / 16777216.0);
		z = npu_sqrt_d(-2.0 * npu_log_d(u)) *
		    npu_sin_cos_d(TWO_PI * (double)(w[1] >> 8) *
				  (1.0 / 16777216.0), 1);
		return (float)(a + b * z);
	default:	/* BERNOULLI: NaN compares false */
		return u < (double)prob[i] ? 1.0f : 0.0f;
	}
}

int npu_run_random(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_random_params *p = &t->params.random;
	const struct drm_npu_operand *out = npu_opnd(t, t->num_operands - 1);
	const float *prob = t->num_operands == 2 ? args->data[0] : NULL;
	float *y = args->data[t->num_operands - 1];
	u64 seed = (u64)p->seed_hi << 32 | p->seed_lo, n = npu_numel(out);
	u64 i, last = npu_mul_sat(end, NPU_ROW_SEG);
	u32 key[2];

	if (p->flags & DRM_NPU_RANDOM_PER_JOB)
		seed ^= rnd_mix(args->job_key);
	key[0] = (u32)seed;
	key[1] = (u32)(seed >> 32);
	if (last > n)
		last = n;
	for (i = begin * NPU_ROW_SEG; i < last; i++)
		y[i] = rnd_value(p, key, i, prob);
	return 0;
}
