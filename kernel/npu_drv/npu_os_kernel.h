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
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/processor.h>
#include <linux/random.h>
#include <linux/printk.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/fpu/api.h>

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

/*
 * Large tables (task lists, handle arrays): kvzalloc picks kmalloc or
 * vmalloc. Their size is chosen by userspace (a program's task list), so
 * they are charged to the caller's memory cgroup.
 */
static inline void *npu_vzalloc(size_t size)
{
	void *p = kvzalloc(size ? size : 1, GFP_KERNEL_ACCOUNT);

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

static inline u64 npu_random_u64(void)
{
	return get_random_u64();
}

#define npu_err(fmt, ...)	pr_err("npu: " fmt, ##__VA_ARGS__)
#define npu_warn(fmt, ...)	pr_warn("npu: " fmt, ##__VA_ARGS__)
#define npu_info(fmt, ...)	pr_info("npu: " fmt, ##__VA_ARGS__)
#define npu_limit_info(fmt, ...) \
	pr_info_ratelimited("npu: " fmt, ##__VA_ARGS__)
#define npu_dbg(fmt, ...)	pr_debug("npu: " fmt, ##__VA_ARGS__)

/*
 * Synchronisation: the kernel counterparts of the section of npu_os_user.h
 * with the same title (see there for the contract of each name).
 */
#define NPU_NO_DEADLINE		(~0ull)

struct npu_mutex {
	struct mutex m;	/* the lock behind npu_mutex_lock() */
};

/* A macro, so that lockdep (where enabled) gets one class per call site. */
#define npu_mutex_init(mx)	mutex_init(&(mx)->m)
#define npu_mutex_destroy(mx)	mutex_destroy(&(mx)->m)
#define npu_mutex_lock(mx)	mutex_lock(&(mx)->m)
#define npu_mutex_unlock(mx)	mutex_unlock(&(mx)->m)

struct npu_waitq {
	wait_queue_head_t wq;
};

static inline void npu_waitq_init(struct npu_waitq *wq)
{
	init_waitqueue_head(&wq->wq);
}

static inline void npu_waitq_destroy(struct npu_waitq *wq)
{
}

static inline void npu_waitq_wake_all(struct npu_waitq *wq)
{
	wake_up_all(&wq->wq);
}

/* Jiffies until @deadline_ns, clamped to what schedule_timeout() accepts. */
static inline long npu_deadline_jiffies(u64 deadline_ns)
{
	u64 now = ktime_get_ns();
	u64 j;

	if (deadline_ns == NPU_NO_DEADLINE)
		return MAX_SCHEDULE_TIMEOUT;
	j = nsecs_to_jiffies64(deadline_ns - now) + 1;
	return j >= MAX_SCHEDULE_TIMEOUT ? MAX_SCHEDULE_TIMEOUT - 1 : (long)j;
}

/*
 * Condition-variable wait. @state is TASK_IDLE for the core's own waits
 * (uninterruptible, but neither counted in the load average nor reported by
 * the hung-task detector while an AI core idles for minutes) or
 * TASK_INTERRUPTIBLE for waits on behalf of an ioctl.
 */
static inline int npu_waitq_wait_state_(struct npu_waitq *wq,
					struct npu_mutex *m, u64 deadline_ns,
					unsigned int state)
{
	DEFINE_WAIT(wait);
	int ret = 0;

	if (deadline_ns != NPU_NO_DEADLINE && ktime_get_ns() >= deadline_ns)
		return -ETIME;
	prepare_to_wait(&wq->wq, &wait, state);
	mutex_unlock(&m->m);
	if (state == TASK_INTERRUPTIBLE && signal_pending(current))
		ret = -ERESTARTSYS;
	else
		schedule_timeout(npu_deadline_jiffies(deadline_ns));
	finish_wait(&wq->wq, &wait);
	mutex_lock(&m->m);
	if (!ret && state == TASK_INTERRUPTIBLE && signal_pending(current))
		ret = -ERESTARTSYS;
	if (!ret && deadline_ns != NPU_NO_DEADLINE &&
	    ktime_get_ns() >= deadline_ns)
		ret = -ETIME;
	return ret;
}

static inline int npu_waitq_wait(struct npu_waitq *wq, struct npu_mutex *m,
				 u64 deadline_ns)
{
	return npu_waitq_wait_state_(wq, m, deadline_ns, TASK_IDLE);
}

static inline int npu_waitq_wait_interruptible(struct npu_waitq *wq,
					       struct npu_mutex *m,
					       u64 deadline_ns)
{
	return npu_waitq_wait_state_(wq, m, deadline_ns, TASK_INTERRUPTIBLE);
}

struct npu_thread {
	struct task_struct *task;
};

static inline int npu_thread_create(struct npu_thread *t, int (*fn)(void *),
				    void *arg, const char *name)
{
	struct task_struct *task;

	task = kthread_run(fn, arg, "%s", name ? name : "npu");
	if (IS_ERR(task))
		return PTR_ERR(task);
	/* Keeps the task_struct valid even if fn returns before the join. */
	get_task_struct(task);
	t->task = task;
	return 0;
}

static inline void npu_thread_join(struct npu_thread *t)
{
	kthread_stop(t->task);
	put_task_struct(t->task);
	t->task = NULL;
}

struct npu_ref {
	refcount_t r;
};

static inline void npu_ref_init(struct npu_ref *r)
{
	refcount_set(&r->r, 1);
}

static inline void npu_ref_get(struct npu_ref *r)
{
	refcount_inc(&r->r);
}

static inline bool npu_ref_put(struct npu_ref *r)
{
	return refcount_dec_and_test(&r->r);
}

#define NPU_READ_ONCE(x)	READ_ONCE(x)
#define NPU_WRITE_ONCE(x, v)	WRITE_ONCE(x, v)
#define npu_cpu_relax()		cpu_relax()

/*
 * The op kernels (ops/, built with hard-float flags) run only between these
 * two, in bounded chunks, with npu_yield() between chunks.
 */
#define npu_fpu_begin()		kernel_fpu_begin()
#define npu_fpu_end()		kernel_fpu_end()
#define npu_yield()		cond_resched()

#endif /* NPU_OS_KERNEL_H */
