// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_trig_test.c - MATH (sin ... atanh) against libm: at most 1 ulp from
 * libm's double result rounded to float, over uniform, small and large
 * arguments; domain edges, NaN and infinities as C99 gives them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"

#define N	20000

static const char *const names[DRM_NPU_MATH_KIND_COUNT] = {
	"sin", "cos", "tan", "asin", "acos", "atan", "asinh", "acosh", "atanh",
};

static double ref(u32 k, double x)
{
	switch (k) {
	case DRM_NPU_MATH_SIN: return sin(x);
	case DRM_NPU_MATH_COS: return cos(x);
	case DRM_NPU_MATH_TAN: return tan(x);
	case DRM_NPU_MATH_ASIN: return asin(x);
	case DRM_NPU_MATH_ACOS: return acos(x);
	case DRM_NPU_MATH_ATAN: return atan(x);
	case DRM_NPU_MATH_ASINH: return asinh(x);
	case DRM_NPU_MATH_ACOSH: return acosh(x);
	default: return atanh(x);
	}
}

static int64_t ulps(float a, float b)
{
	int32_t ia, ib;

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : INT32_MAX;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	if (ia < 0)
		ia = INT32_MIN - ia;
	if (ib < 0)
		ib = INT32_MIN - ib;
	return llabs((int64_t)ia - ib);
}

/* Arguments for kind @k: its natural range, tiny values, edges. */
static void args_for(u32 k, float *x)
{
	static const float edge[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f,
				      1e-30f, 3e7f, INFINITY, -INFINITY,
				      NAN, 3.14159265f, 1.5707964f,
				      1048575.5f };
	float lo = -10, hi = 10;
	size_t i, ne = sizeof(edge) / sizeof(edge[0]);

	if (k == DRM_NPU_MATH_ASIN || k == DRM_NPU_MATH_ACOS ||
	    k == DRM_NPU_MATH_ATANH) {
		lo = -1;
		hi = 1;
	} else if (k == DRM_NPU_MATH_ACOSH) {
		lo = 1;
		hi = 50;
	} else if (k <= DRM_NPU_MATH_TAN) {
		lo = -1000;
		hi = 1000;
	} else {
		x[7] = 1e30f;	/* large: every inverse function is exact */
	}
	for (i = 0; i < N; i++) {
		if (i < ne)
			x[i] = edge[i];
		else if (i % 4 == 0)	/* small magnitudes */
			x[i] = tl_uniform(lo, hi) * powf(2.0f, -(float)(i % 40));
		else if (i % 4 == 1 && k != DRM_NPU_MATH_ACOSH)
			x[i] = tl_uniform(lo / 1000, hi / 1000);
		else
			x[i] = tl_uniform(lo, hi);
		if (k == DRM_NPU_MATH_ACOSH && i >= ne)
			x[i] = 1 + fabsf(x[i] - 1);
	}
}

int main(void)
{
	static float x[N], y[N];
	struct drm_npu_task t;
	u32 shape[1] = { N }, k;
	void *data[2] = { x, y };

	tl_seed(18);
	for (k = 0; k < DRM_NPU_MATH_KIND_COUNT; k++) {
		int64_t worst = 0;
		size_t i, at = 0;
		int ret;

		args_for(k, x);
		tl_task(&t, DRM_NPU_OP_MATH, 2);
		tl_opnd(&t.operands[0], 0, DRM_NPU_DTYPE_F32, 1, shape, NULL);
		tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 1, shape, NULL);
		t.params.math.kind = k;
		ret = tl_run_chunked(&t, data);
		for (i = 0; i < N; i++) {
			int64_t u = ulps(y[i], (float)ref(k, x[i]));

			if (u > worst) {
				worst = u;
				at = i;
			}
		}
		tap_ok(ret == 0 && worst <= 1,
		       "MATH %s: at most 1 ulp from libm (worst %lld at x = %.9g)",
		       names[k], (long long)worst, (double)x[at]);
	}
	/* far beyond 2^30 sin and cos are only promised to stay in [-1, 1] */
	for (k = 0; k < N; k++)
		x[k] = tl_uniform(-1.0f, 1.0f) * 3e38f;
	t.params.math.kind = DRM_NPU_MATH_SIN;
	{
		int ok = tl_run(&t, data) == 0;

		for (k = 0; k < N; k++)
			ok &= fabsf(y[k]) <= 1;
		tap_ok(ok, "MATH sin of huge arguments stays in [-1, 1]");
	}
	tl_task(&t, DRM_NPU_OP_MATH, 2);
	tl_opnd(&t.operands[0], 0, DRM_NPU_DTYPE_F32, 1, shape, NULL);
	tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 1, shape, NULL);
	t.params.math.kind = DRM_NPU_MATH_KIND_COUNT;
	tap_ok(tl_run(&t, data) == -EINVAL, "MATH with an unknown kind: refused");
	return tap_done();
}
