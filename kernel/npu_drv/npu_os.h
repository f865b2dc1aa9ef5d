/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_os.h - the only header the portable device core includes.
 *
 * The device core (hardware model, pool, validator, op kernels) compiles in
 * two homes: the npu_drv kernel module and libnpurt's in-process device.
 * Everything that differs between them - integer types, errno values,
 * memory allocation, locking, sleeping, threads, time, logging - is provided
 * by exactly one of the two headers below, with identical names and
 * semantics. No file of the portable core includes a libc or kernel header
 * directly.
 *
 * Contract (both homes):
 *   types     u8 u16 u32 u64 s8 s16 s32 s64 bool size_t uintptr_t, NULL,
 *             true/false, and the linux/errno.h names (EINVAL, ENOMEM, ...)
 *   memory    npu_zalloc(size) / npu_free(p)   small, zeroed, may sleep
 *             npu_vzalloc(size) / npu_vfree(p) large, zeroed, may sleep
 *             memcpy memset memmove memcmp strlen
 *   overflow  check_add_overflow(a, b, &d) check_mul_overflow(a, b, &d)
 *   time      npu_time_ns(): CLOCK_MONOTONIC nanoseconds
 *   log       npu_err(fmt, ...) npu_warn(...) npu_info(...) npu_dbg(...)
 *   sync      see the "Synchronisation" section of the home headers
 */
#ifndef NPU_OS_H
#define NPU_OS_H

#ifdef __KERNEL__
#include "npu_os_kernel.h"
#else
#include "npu_os_user.h"
#endif

#define NPU_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* @x rounded up to a multiple of @a, a power of two. */
static inline u64 npu_align_up(u64 x, u64 a)
{
	return (x + (a - 1)) & ~(a - 1);
}

static inline int npu_is_pow2(u64 x)
{
	return x && !(x & (x - 1));
}

#endif /* NPU_OS_H */
