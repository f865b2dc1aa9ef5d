// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_testlib.c - see ops_testlib.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ops_testlib.h"

static int tap_n, tap_fail;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_fail++;
	fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}

void tl_seed(uint64_t s)
{
	const char *isa = getenv("NPU_ISA");

	/* NPU_ISA=1 runs a test at the baseline level, and so on */
	if (isa)
		tl_isa = (u32)atoi(isa);
	rng = s ? s : 1;
}

uint64_t tl_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

float tl_uniform(float lo, float hi)
{
	return lo + (hi - lo) * (float)((tl_rand() >> 40) / 16777216.0);
}

void tl_fill(float *p, size_t n, float lo, float hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = tl_uniform(lo, hi);
}

void tl_opnd(struct drm_npu_operand *o, u16 slot, u32 dtype, u32 rank,
	     const u32 *shape, const u32 *strides)
{
	u32 i, st = 1;

	memset(o, 0, sizeof(*o));
	o->slot = slot;
	o->dtype = (u8)dtype;
	o->rank = (u8)rank;
	for (i = rank; i-- > 0;) {
		o->shape[i] = shape[i];
		o->strides[i] = strides ? strides[i] : st;
		st *= shape[i];
	}
}

void tl_task(struct drm_npu_task *t, u32 opcode, u32 num_operands)
{
	memset(t, 0, sizeof(*t));
	t->opcode = (u16)opcode;
	t->num_operands = (u8)num_operands;
}

u64 tl_numel(const struct drm_npu_operand *o)
{
	u64 n = 1;
	u32 i;

	for (i = 0; i < o->rank; i++)
		n *= o->shape[i];
	return n;
}

u32 tl_isa;

/* The unified buffer of the tests' one core (struct npu_op_args.ub). */
static _Alignas(64) unsigned char tl_ub[NPU_UB_BYTES];

static void fill_args(struct npu_op_args *a, const struct drm_npu_task *t,
		      void **data)
{
	u32 i;

	memset(a, 0, sizeof(*a));
	a->task = t;
	a->isa = tl_isa;
	a->ub = tl_ub;
	for (i = 0; i < t->num_operands; i++)
		a->data[i] = data[i];
}

int tl_run(const struct drm_npu_task *t, void **data)
{
	struct npu_op_args a;
	u32 bad;
	int ret = npu_op_check(t, &bad);

	if (ret) {
		tap_diag("npu_op_check: %d (operand %d)", ret, (int)bad);
		return ret;
	}
	fill_args(&a, t, data);
	return npu_op_run(&a, 0, npu_op_work_units(t));
}

int tl_run_chunked(const struct drm_npu_task *t, void **data)
{
	static bool ub_first;
	struct npu_op_args a;
	u64 n = npu_op_work_units(t), b = 0, e;
	int ret;

	fill_args(&a, t, data);
	/*
	 * Calls alternate whether their first chunk has the buffer, so that
	 * a task of one chunk runs both ways over a test's calls.
	 */
	ub_first = !ub_first;
	a.ub = ub_first ? NULL : tl_ub;
	while (b < n) {
		e = b + 1 + tl_rand() % 7;
		if (e > n)
			e = n;
		/* every other chunk without a unified buffer: the same bits */
		a.ub = a.ub ? NULL : tl_ub;
		ret = npu_op_run(&a, b, e);
		if (ret)
			return ret;
		b = e;
	}
	return 0;
}

double tl_max_rel(const float *got, const double *ref, size_t n, double floor)
{
	double worst = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double den = fabs(ref[i]) > floor ? fabs(ref[i]) : floor;
		double e = fabs((double)got[i] - ref[i]) / den;

		if (isnan(got[i]) != isnan(ref[i]))
			return INFINITY;
		if (!isnan(ref[i]) && e > worst)
			worst = e;
	}
	return worst;
}

u32 tl_f2u(float f)
{
	u32 u;

	memcpy(&u, &f, 4);
	return u;
}

double tl_rms(const double *ref, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += ref[i] * ref[i];
	return n ? sqrt(s / (double)n) : 1.0;
}
