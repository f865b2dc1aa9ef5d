/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_os_kernel.h - kernel home of the portable device core (npu_drv.ko).
 * See npu_os.h for the contract; npu_os_user.h is the userspace twin and
 * every name below has the same meaning there.
 *
 * Only this header (and the kernel-only glue files next to it) include
 * kernel headers; the portable core reaches the kernel through it.
 */
#ifndef NPU_OS_KERNEL_H
#define NPU_OS_KERNEL_H

#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/vmalloc.h>

/*
 * Allocation accounting: every npu_zalloc/npu_vzalloc not yet freed is
 * counted, and module unload reports a leak when the count is not zero
 * (the VM harness fails on that report). Defined in npu_main.c.
 */
extern atomic_long_t npu_os_live_allocs;

static inline void *npu_zalloc(size_t size)
{
	void *p = kzalloc(size ? size : 1, GFP_KERNEL);

	if (p)
		atomic_long_inc(&npu_os_live_allocs);
	return p;
}

static inline void npu_free(void *p)
{
	if (!p)
		return;
	atomic_long_dec(&npu_os_live_allocs);
	kfree(p);
}

/* Large tables (task lists, handle arrays): kvzalloc picks kmalloc or vmalloc. */
static inline void *npu_vzalloc(size_t size)
{
	void *p = kvzalloc(size ? size : 1, GFP_KERNEL);

	if (p)
		atomic_long_inc(&npu_os_live_allocs);
	return p;
}

static inline void npu_vfree(void *p)
{
	if (!p)
		return;
	atomic_long_dec(&npu_os_live_allocs);
	kvfree(p);
}

/* check_add_overflow() and check_mul_overflow() come from linux/overflow.h. */

static inline u64 npu_time_ns(void)
{
	return ktime_get_ns();
}

#define npu_err(fmt, ...)	pr_err("npu: " fmt, ##__VA_ARGS__)
#define npu_warn(fmt, ...)	pr_warn("npu: " fmt, ##__VA_ARGS__)
#define npu_info(fmt, ...)	pr_info("npu: " fmt, ##__VA_ARGS__)
#define npu_dbg(fmt, ...)	pr_debug("npu: " fmt, ##__VA_ARGS__)

/*
 * Synchronisation: mirrors the section of npu_os_user.h with the same
 * title. Defined below this line.
 */

#endif /* NPU_OS_KERNEL_H */
