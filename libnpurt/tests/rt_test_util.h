/* SPDX-License-Identifier: MIT */
/* rt_test_util.h - helpers of the runtime's end-to-end tests. */
#ifndef RT_TEST_UTIL_H
#define RT_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/*
 * The directory a test generates its data in: argv[1], else the program's
 * path with ".d" appended. Returns 0, or -1 (no /proc/self/exe).
 */
static inline int rt_test_dir(int argc, char **argv, char *dir, size_t len)
{
	ssize_t n;

	if (argc > 1) {
		snprintf(dir, len, "%s", argv[1]);
		return 0;
	}
	n = readlink("/proc/self/exe", dir, len - 3);
	if (n <= 0)
		return -1;
	memcpy(dir + n, ".d", 3);
	return 0;
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
