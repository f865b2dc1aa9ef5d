/* SPDX-License-Identifier: MIT */
/* rt_test_util.h - helpers of the runtime's end-to-end tests. */
#ifndef RT_TEST_UTIL_H
#define RT_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "npurt.h"
#include "npu_transport.h"

/* Largest |a - b| / (atol + rtol * |b|); <= 1 means within tolerance. */
static inline double rt_max_err(const float *a, const float *b, size_t n,
				double atol, double rtol)
{
	double worst = 0.0;

	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - (double)b[i]);
		double lim = atol + rtol * fabs((double)b[i]);

		if (d / lim > worst || d != d)
			worst = d != d ? 1e9 : d / lim;
	}
	return worst;
}

static inline const char *rt_err(void)
{
	return npurt_last_error()->reason;
}

/* Sets a test mode of the device the runtime uses (in-process or node). */
static inline int rt_test_knob(const char *knob, uint64_t val)
{
	struct npu_dev *d;
	int ret = npu_dev_open(NULL, &d);

	if (ret)
		return ret;
	ret = npu_dev_test_control(d, knob, val);
	npu_dev_close(d);
	return ret;
}

#endif
