/* SPDX-License-Identifier: MIT */
/*
 * npuc_tap.h - the TAP producer the compiler's C unit tests share: ok()
 * numbers and prints each result; main() prints the plan from test_no last
 * and exits non-zero when failures is.
 */
#ifndef NPUC_TAP_H
#define NPUC_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int test_no, failures;

static void ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures += !cond;
}

#endif /* NPUC_TAP_H */
