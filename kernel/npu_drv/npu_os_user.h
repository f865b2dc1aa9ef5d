/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_os_user.h - userspace home of the portable device core (libnpurt's
 * in-process device, the compiler's host evaluation, unit tests).
 * See npu_os.h for the contract.
 */
#ifndef NPU_OS_USER_H
#define NPU_OS_USER_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef ETIME
#define ETIME 62
#endif

static inline void *npu_zalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

static inline void npu_free(void *p)
{
	free(p);
}

static inline void *npu_vzalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

static inline void npu_vfree(void *p)
{
	free(p);
}

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

static inline u64 npu_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

/* Logging goes to stderr; npu_dbg only when NPU_DEBUG is set at build time. */
#define npu_err(fmt, ...)	fprintf(stderr, "npu: error: " fmt, ##__VA_ARGS__)
#define npu_warn(fmt, ...)	fprintf(stderr, "npu: warning: " fmt, ##__VA_ARGS__)
#define npu_info(fmt, ...)	fprintf(stderr, "npu: " fmt, ##__VA_ARGS__)
#ifdef NPU_DEBUG
#define npu_dbg(fmt, ...)	fprintf(stderr, "npu: debug: " fmt, ##__VA_ARGS__)
#else
#define npu_dbg(fmt, ...)	do { } while (0)
#endif

/*
 * Synchronisation: to be provided by the in-process device (mutex, condition
 * wait with absolute deadline, threads). Defined below this line.
 */

#endif /* NPU_OS_USER_H */
