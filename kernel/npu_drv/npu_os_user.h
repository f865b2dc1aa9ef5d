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
#include <sys/random.h>

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
/* The kernel's spellings of two function attributes (compiler_types.h). */
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#ifndef noinline
#define noinline	__attribute__((__noinline__))
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

#define BIT(n)				(1ul << (n))
#define BIT_ULL(n)			(1ull << (n))
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

static inline u64 npu_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

/* 64 random bits (getrandom(); the clock and the address if it fails). */
static inline u64 npu_random_u64(void)
{
	u64 v;

	if (getrandom(&v, sizeof(v), 0) == (ssize_t)sizeof(v))
		return v;
	return npu_time_ns() ^ (u64)(uintptr_t)&v;
}

/* Logging goes to stderr; npu_dbg only when NPU_DEBUG is set at build time. */
#define npu_err(fmt, ...)	fprintf(stderr, "npu: error: " fmt, ##__VA_ARGS__)
#define npu_warn(fmt, ...)	fprintf(stderr, "npu: warning: " fmt, ##__VA_ARGS__)
#define npu_info(fmt, ...)	fprintf(stderr, "npu: " fmt, ##__VA_ARGS__)
/*
 * A request refused by a per-file limit: rate-limited as the kernel's
 * pr_info_ratelimited() (10 a 5 s interval). The runtime retries such
 * requests (fewer queues, a shape cache evicting), and reports its own
 * error when it gives up.
 */
#define npu_limit_info(fmt, ...) \
	do { \
		if (npu_ratelimit()) \
			npu_info(fmt, ##__VA_ARGS__); \
	} while (0)
#ifdef NPU_DEBUG
#define npu_dbg(fmt, ...)	fprintf(stderr, "npu: debug: " fmt, ##__VA_ARGS__)
#else
#define npu_dbg(fmt, ...)	do { } while (0)
#endif

/*
 * Synchronisation
 * ===============
 *
 * The device core uses only the primitives below. Each name has an obvious
 * kernel counterpart, which npu_os_kernel.h provides with the same
 * signature and semantics:
 *
 *   struct npu_mutex            struct mutex
 *     npu_mutex_init(m)           mutex_init()
 *     npu_mutex_destroy(m)        mutex_destroy()
 *     npu_mutex_lock(m)           mutex_lock()
 *     npu_mutex_unlock(m)         mutex_unlock()
 *
 *   struct npu_waitq            wait_queue_head_t (+ the mutex the waiter
 *                               holds, like a condition variable)
 *     npu_waitq_init(wq)          init_waitqueue_head()
 *     npu_waitq_destroy(wq)       nothing
 *     npu_waitq_wake_all(wq)      wake_up_all()
 *     npu_waitq_wait(wq, m, deadline_ns)
 *         Called with @m held; atomically releases @m, sleeps until woken
 *         or until CLOCK_MONOTONIC reaches @deadline_ns (NPU_NO_DEADLINE:
 *         never), re-acquires @m. Returns 0 when woken (possibly
 *         spuriously: callers always re-check their condition in a loop),
 *         -ETIME when the deadline has passed. Uninterruptible.
 *         Kernel: prepare_to_wait(TASK_UNINTERRUPTIBLE); mutex_unlock();
 *         schedule_timeout(); finish_wait(); mutex_lock().
 *     npu_waitq_wait_interruptible(wq, m, deadline_ns)
 *         The same, for waits on behalf of an ioctl: the kernel sleeps
 *         TASK_INTERRUPTIBLE and returns -ERESTARTSYS on a signal (the
 *         absolute deadline makes the restarted ioctl correct). In
 *         userspace it is npu_waitq_wait().
 *
 *   struct npu_thread           struct task_struct * (kthread)
 *     npu_thread_create(t, fn, arg, name)   kthread_run() + get_task_struct
 *         Starts fn(arg) on its own thread. Returns 0 or -errno.
 *     npu_thread_join(t)          kthread_stop() + put_task_struct()
 *         Waits until fn has returned. The core stops its threads with its
 *         own flag and a wake-up; thread functions never test
 *         kthread_should_stop() and return only after that flag is set.
 *
 *   struct npu_ref              refcount_t
 *     npu_ref_init(r)             refcount_set(r, 1)
 *     npu_ref_get(r)              refcount_inc()
 *     npu_ref_put(r)              refcount_dec_and_test(): true at zero
 *
 *   NPU_READ_ONCE(x) / NPU_WRITE_ONCE(x, v)   READ_ONCE() / WRITE_ONCE():
 *         lock-free flags polled by running op kernels (abort requests)
 *         and by idle cores (npu_core_park()).
 *   npu_cpu_relax()                   cpu_relax(): the PAUSE of a poll loop
 *
 *   npu_fpu_begin() / npu_fpu_end()   kernel_fpu_begin() / kernel_fpu_end()
 *         bracket every call of the op kernels (npu_op_run()); no sleeping,
 *         locking or allocation in between. No-ops in userspace.
 *   npu_yield()                       cond_resched()
 *         called between two chunks of an op's work units so a long task
 *         does not monopolise a CPU. sched_yield() would only slow the
 *         userspace home down, so it is a no-op there as well.
 */
#include <pthread.h>

#define NPU_NO_DEADLINE		(~0ull)

/* true for the first 10 calls of each 5 s interval (npu_limit_info) */
static inline bool npu_ratelimit(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static u64 begin;
	static unsigned int n;
	u64 now = npu_time_ns();
	bool ok;

	pthread_mutex_lock(&lock);
	if (!begin || now - begin >= 5000000000ull) {
		begin = now;
		n = 0;
	}
	ok = n++ < 10;
	pthread_mutex_unlock(&lock);
	return ok;
}

struct npu_mutex {
	pthread_mutex_t m;
};

static inline void npu_mutex_init(struct npu_mutex *m)
{
	pthread_mutexattr_t a;

	/*
	 * Adaptive: a contended lock spins a little before it sleeps, as the
	 * kernel's mutex does while the owner runs. The device lock is held
	 * for short bookkeeping only; a sleep costs a wake-up of microseconds.
	 */
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&m->m, &a);
	pthread_mutexattr_destroy(&a);
}

static inline void npu_mutex_destroy(struct npu_mutex *m)
{
	pthread_mutex_destroy(&m->m);
}

static inline void npu_mutex_lock(struct npu_mutex *m)
{
	pthread_mutex_lock(&m->m);
}

static inline void npu_mutex_unlock(struct npu_mutex *m)
{
	pthread_mutex_unlock(&m->m);
}

struct npu_waitq {
	pthread_cond_t c;
};

static inline void npu_waitq_init(struct npu_waitq *wq)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&wq->c, &a);
	pthread_condattr_destroy(&a);
}

static inline void npu_waitq_destroy(struct npu_waitq *wq)
{
	pthread_cond_destroy(&wq->c);
}

static inline void npu_waitq_wake_all(struct npu_waitq *wq)
{
	pthread_cond_broadcast(&wq->c);
}

static inline int npu_waitq_wait(struct npu_waitq *wq, struct npu_mutex *m,
				 u64 deadline_ns)
{
	struct timespec ts;

	if (deadline_ns == NPU_NO_DEADLINE) {
		pthread_cond_wait(&wq->c, &m->m);
		return 0;
	}
	if (npu_time_ns() >= deadline_ns)
		return -ETIME;
	ts.tv_sec = (time_t)(deadline_ns / 1000000000ull);
	ts.tv_nsec = (long)(deadline_ns % 1000000000ull);
	if (pthread_cond_timedwait(&wq->c, &m->m, &ts) == ETIMEDOUT)
		return -ETIME;
	return 0;
}

#define npu_waitq_wait_interruptible(wq, m, deadline_ns) \
	npu_waitq_wait(wq, m, deadline_ns)

struct npu_thread {
	pthread_t t;
	int (*fn)(void *arg);
	void *arg;
};

static inline void *npu_thread_trampoline_(void *p)
{
	struct npu_thread *t = (struct npu_thread *)p;

	t->fn(t->arg);
	return NULL;
}

static inline int npu_thread_create(struct npu_thread *t, int (*fn)(void *),
				    void *arg, const char *name)
{
	int err;

	t->fn = fn;
	t->arg = arg;
	err = pthread_create(&t->t, NULL, npu_thread_trampoline_, t);
	if (err)
		return -err;
	if (name) {
		char n[16];

		snprintf(n, sizeof(n), "%s", name);
		pthread_setname_np(t->t, n);
	}
	return 0;
}

static inline void npu_thread_join(struct npu_thread *t)
{
	pthread_join(t->t, NULL);
}

struct npu_ref {
	unsigned int count;
};

static inline void npu_ref_init(struct npu_ref *r)
{
	__atomic_store_n(&r->count, 1, __ATOMIC_RELAXED);
}

static inline void npu_ref_get(struct npu_ref *r)
{
	__atomic_add_fetch(&r->count, 1, __ATOMIC_RELAXED);
}

static inline bool npu_ref_put(struct npu_ref *r)
{
	return __atomic_sub_fetch(&r->count, 1, __ATOMIC_ACQ_REL) == 0;
}

#define NPU_READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define NPU_WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#if defined(__x86_64__) || defined(__i386__)
#define npu_cpu_relax()		__builtin_ia32_pause()
#else
#define npu_cpu_relax()		__atomic_signal_fence(__ATOMIC_SEQ_CST)
#endif

#define npu_fpu_begin()		do { } while (0)
#define npu_fpu_end()		do { } while (0)
#define npu_yield()		do { } while (0)

#endif /* NPU_OS_USER_H */
