// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_random_test.c - RANDOM (uapi 1.9): Philox4x32-10 against the known
 * answers of its authors' Random123 suite, the values independent of how
 * the units are split, a seed that gives the same values and PER_JOB
 * keys that do not, the distributions (moments and a Kolmogorov-Smirnov
 * distance over 2^20 values, Bernoulli's frequency per probability and
 * its p <= 0, p >= 1 and NaN cases), and the descriptors the checker
 * refuses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"

#define F32	DRM_NPU_DTYPE_F32
#define N	(1u << 20)

static struct drm_npu_task T;

static int check(void)
{
	u32 bad;

	return npu_op_check(&T, &bad);
}

static void kat(void)
{
	/* Random123 kat_vectors: philox4x32 10 rounds */
	static const u32 v[3][10] = {
		{ 0, 0, 0, 0, 0, 0,
		  0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 },
		{ ~0u, ~0u, ~0u, ~0u, ~0u, ~0u,
		  0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
		{ 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344,
		  0xa4093822, 0x299f31d0,
		  0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 },
	};
	int i, ok = 1;

	for (i = 0; i < 3; i++) {
		u32 out[4];

		npu_philox4x32(&v[i][4], v[i], out);
		ok &= !memcmp(out, &v[i][6], sizeof(out));
	}
	tap_ok(ok, "Philox4x32-10 gives Random123's three known answers");
}

static void task(u32 dist, u64 seed, float a, float b, u32 rank,
		 const u32 *shape)
{
	tl_task(&T, DRM_NPU_OP_RANDOM, dist == DRM_NPU_RANDOM_BERNOULLI ? 2 : 1);
	T.params.random.dist = dist;
	T.params.random.seed_lo = (u32)seed;
	T.params.random.seed_hi = (u32)(seed >> 32);
	T.params.random.a = tl_f2u(a);
	T.params.random.b = tl_f2u(b);
	tl_opnd(&T.operands[0], 0, F32, rank, shape, NULL);
	if (dist == DRM_NPU_RANDOM_BERNOULLI)
		tl_opnd(&T.operands[1], 1, F32, rank, shape, NULL);
}

static int cmp_f(const void *x, const void *y)
{
	float a = *(const float *)x, b = *(const float *)y;

	return a < b ? -1 : a > b;
}

/* sup |F_n(x) - F(x)| over the sorted sample */
static double ks(float *x, u32 n, double (*cdf)(double))
{
	double d = 0;
	u32 i;

	qsort(x, n, sizeof(*x), cmp_f);
	for (i = 0; i < n; i++) {
		double f = cdf(x[i]);

		d = fmax(d, fmax(fabs(f - (double)i / n),
				 fabs((double)(i + 1) / n - f)));
	}
	return d;
}

static double cdf_uniform(double x)	/* on [-2, 3) */
{
	return x < -2 ? 0 : x > 3 ? 1 : (x + 2) / 5;
}

static double cdf_normal(double x)	/* mean 1, scale 2 */
{
	return 0.5 * erfc(-(x - 1) / 2 / sqrt(2));
}

static void moments(const float *x, u32 n, double *mean, double *var)
{
	double s = 0, s2 = 0;
	u32 i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		s2 += (x[i] - *mean) * (x[i] - *mean);
	*var = s2 / (n - 1);
}

static void distributions(void)
{
	float *x = malloc(N * sizeof(*x)), *y = malloc(N * sizeof(*y));
	void *data[1] = { x };
	u32 shape[2] = { 1024, N / 1024 }, i;
	double mean, var, d;
	int ok;

	/* KS: the 1% critical distance is 1.63 / sqrt(n) = 0.0016 */
	task(DRM_NPU_RANDOM_UNIFORM, 7, -2, 3, 2, shape);
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < N; i++)
		ok &= x[i] >= -2 && x[i] < 3;
	moments(x, N, &mean, &var);
	d = ks(x, N, cdf_uniform);
	tap_ok(ok && fabs(mean - 0.5) < 0.01 && fabs(var - 25.0 / 12) < 0.02 &&
	       d < 0.0016, "UNIFORM [-2, 3): mean %.4f var %.4f (2.0833), KS %.5f",
	       mean, var, d);

	task(DRM_NPU_RANDOM_NORMAL, 7, 1, 2, 2, shape);
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < N; i++)
		ok &= isfinite(x[i]);
	moments(x, N, &mean, &var);
	d = ks(x, N, cdf_normal);
	tap_ok(ok && fabs(mean - 1) < 0.01 && fabs(var - 4) < 0.04 &&
	       d < 0.0016, "NORMAL mean 1 scale 2: mean %.4f var %.4f, KS %.5f",
	       mean, var, d);

	/* Bernoulli: 16 probabilities, 2^16 draws each (3 sigma < 0.006) */
	{
		void *bd[2] = { y, x };
		double worst = 0;

		for (i = 0; i < N; i++)
			y[i] = (float)(i % 16) / 15;
		task(DRM_NPU_RANDOM_BERNOULLI, 9, 0, 0, 2, shape);
		ok = tl_run(&T, bd) == 0;
		for (u32 k = 0; k < 16; k++) {
			u32 ones = 0;

			for (i = k; i < N; i += 16) {
				ok &= x[i] == 0 || x[i] == 1;
				ones += x[i] == 1;
			}
			worst = fmax(worst, fabs(ones / (N / 16.0) - k / 15.0));
			if (k == 0 || k == 15)
				ok &= ones == (k ? N / 16 : 0);
		}
		y[0] = NAN;
		y[1] = -3;
		y[2] = 7;
		ok &= tl_run(&T, bd) == 0 && x[0] == 0 && x[1] == 0 &&
		      x[2] == 1;
		tap_ok(ok && worst < 0.006,
		       "BERNOULLI: 0/1 only, frequency within %.4f of p over 16 probabilities; p 0, NaN, < 0 give 0, p 1, > 1 give 1",
		       worst);
	}
	free(x);
	free(y);
}

/* Same values whole, in random chunks, and on the other ISA levels. */
static void splits(void)
{
	static float a[100003], b[100003];
	u32 shape[1] = { 100003 }, dist;
	void *da[1] = { a }, *db[1] = { b };
	int ok = 1;

	for (dist = 0; dist < 2; dist++) {
		task(dist, 0x123456789abcdefull, -1, 1, 1, shape);
		ok &= tl_run(&T, da) == 0 && tl_run_chunked(&T, db) == 0 &&
		      !memcmp(a, b, sizeof(a));
	}
	tap_ok(ok, "UNIFORM and NORMAL: the same bits whole and in random chunks of units");
}

static void keys(void)
{
	static float a[4096], b[4096];
	u32 shape[1] = { 4096 }, bad;
	struct npu_op_args x = { .task = &T }, y = { .task = &T };
	int same_seed, other_seed, same_job, other_job;

	task(DRM_NPU_RANDOM_UNIFORM, 1, 0, 1, 1, shape);
	x.data[0] = a;
	y.data[0] = b;
	npu_op_check(&T, &bad);
	npu_op_run(&x, 0, npu_op_work_units(&T));
	npu_op_run(&y, 0, npu_op_work_units(&T));
	same_seed = !memcmp(a, b, sizeof(a));
	T.params.random.seed_lo = 2;
	npu_op_run(&y, 0, npu_op_work_units(&T));
	other_seed = memcmp(a, b, sizeof(a)) != 0;
	T.params.random.flags = DRM_NPU_RANDOM_PER_JOB;
	x.job_key = 5;
	y.job_key = 5;
	npu_op_run(&x, 0, npu_op_work_units(&T));
	npu_op_run(&y, 0, npu_op_work_units(&T));
	same_job = !memcmp(a, b, sizeof(a));
	y.job_key = 6;
	npu_op_run(&y, 0, npu_op_work_units(&T));
	other_job = memcmp(a, b, sizeof(a)) != 0;
	tap_ok(same_seed && other_seed,
	       "a seed gives the same values every run, another seed others");
	tap_ok(same_job && other_job,
	       "PER_JOB: one job key the same values, the next job's others");
}

static void refusals(void)
{
	u32 shape[2] = { 4, 5 }, st[2] = { 10, 1 };

	task(DRM_NPU_RANDOM_UNIFORM, 0, 0, 1, 2, shape);
	tap_ok(check() == 0, "RANDOM: a dense F32 out is accepted");
	T.params.random.dist = DRM_NPU_RANDOM_DIST_COUNT;
	tap_ok(check() == -EINVAL, "RANDOM: unknown dist refused");
	task(DRM_NPU_RANDOM_UNIFORM, 0, 0, 1, 2, shape);
	T.params.random.flags = 2;
	tap_ok(check() == -EINVAL, "RANDOM: unknown flag refused");
	task(DRM_NPU_RANDOM_NORMAL, 0, 0, INFINITY, 2, shape);
	tap_ok(check() == -EINVAL, "RANDOM: an infinite scale refused");
	task(DRM_NPU_RANDOM_UNIFORM, 0, NAN, 1, 2, shape);
	tap_ok(check() == -EINVAL, "RANDOM: a NaN low refused");
	task(DRM_NPU_RANDOM_BERNOULLI, 0, 0, 0, 2, shape);
	T.params.random.a = tl_f2u(0.5f);
	tap_ok(check() == -EINVAL, "RANDOM: BERNOULLI with a != 0 refused");
	task(DRM_NPU_RANDOM_UNIFORM, 0, 0, 1, 2, shape);
	tl_opnd(&T.operands[0], 0, F32, 2, shape, st);
	tap_ok(check() == -EINVAL, "RANDOM: a strided out refused (the kernel writes it flat)");
	task(DRM_NPU_RANDOM_UNIFORM, 0, 0, 1, 2, shape);
	T.operands[0].dtype = DRM_NPU_DTYPE_I32;
	tap_ok(check() == -EINVAL, "RANDOM: an I32 out refused");
	task(DRM_NPU_RANDOM_UNIFORM, 0, 0, 1, 2, shape);
	T.num_operands = 2;
	tl_opnd(&T.operands[1], 1, F32, 2, shape, NULL);
	tap_ok(check() == -EINVAL, "RANDOM: UNIFORM with a p operand refused");
	task(DRM_NPU_RANDOM_BERNOULLI, 0, 0, 0, 2, shape);
	T.operands[0].shape[1] = 4;
	tl_opnd(&T.operands[0], 0, F32, 2, (const u32[]){ 4, 4 }, NULL);
	tap_ok(check() == -EINVAL, "RANDOM: BERNOULLI p of another shape refused");
	task(DRM_NPU_RANDOM_UNIFORM, 0, 0, 1, 2, shape);
	T.params.raw[sizeof(struct drm_npu_random_params)] = 1;
	tap_ok(check() == -EINVAL, "RANDOM: non-zero unused params refused");
}

int main(void)
{
	kat();
	distributions();
	splits();
	keys();
	refusals();
	return tap_done();
}
