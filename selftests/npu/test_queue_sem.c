// SPDX-License-Identifier: MIT
/*
 * test_queue_sem.c - QUEUE_CREATE/DESTROY/QUERY and the semaphore ioctls.
 */
#include "npu_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>

static void test_queues(void)
{
	struct drm_npu_queue_create c;
	struct drm_npu_queue_destroy d;
	struct drm_npu_queue_query q;
	struct npu_dev *d2;

	memset(&c, 0, sizeof(c));
	c.priority = DRM_NPU_PRIORITY_HIGH;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_CREATE, &c), 0,
		"QUEUE_CREATE: high priority");
	tap_ok(c.hw_queue < T.info.num_queues,
	       "QUEUE_CREATE: maps to hardware queue %u of %u", c.hw_queue,
	       T.info.num_queues);
	t_query(T.d, c.handle, &q);
	tap_ok(q.submitted == 0 && q.completed == 0 && q.num_faults == 0 &&
	       q.fault_reason == DRM_NPU_FAULT_NONE,
	       "QUEUE_QUERY: a new queue is empty and has no faults");
	memset(&q, 0, sizeof(q));
	q.handle = c.handle;
	q.flags = 2;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_QUERY, &q), -EINVAL,
		"QUEUE_QUERY: unknown flag -> EINVAL");
	q.flags = 0;
	q.reserved = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_QUERY, &q), -EINVAL,
		"QUEUE_QUERY: non-zero reserved -> EINVAL");
	q.reserved = 0;
	q.handle = 999;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_QUERY, &q), -ENOENT,
		"QUEUE_QUERY: unknown handle -> ENOENT");
	if (t_open_again(&d2) == 0) {
		q.handle = c.handle;
		tap_err(t_ioctl(d2, DRM_IOCTL_NPU_QUEUE_QUERY, &q), -ENOENT,
			"QUEUE_QUERY: another open's handle -> ENOENT");
		memset(&d, 0, sizeof(d));
		d.handle = c.handle;
		tap_err(t_ioctl(d2, DRM_IOCTL_NPU_QUEUE_DESTROY, &d), -ENOENT,
			"QUEUE_DESTROY: another open's handle -> ENOENT");
		npu_dev_close(d2);
	} else {
		tap_skip("cannot open twice", "QUEUE_QUERY: another open's handle");
		tap_skip("cannot open twice", "QUEUE_DESTROY: another open's handle");
	}
	memset(&d, 0, sizeof(d));
	d.handle = c.handle;
	d.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_DESTROY, &d), -EINVAL,
		"QUEUE_DESTROY: non-zero pad -> EINVAL");
	d.pad = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_DESTROY, &d), 0,
		"QUEUE_DESTROY: succeeds");
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_DESTROY, &d), -ENOENT,
		"QUEUE_DESTROY: twice -> ENOENT");

	memset(&c, 0, sizeof(c));
	c.priority = 3;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_CREATE, &c), -EINVAL,
		"QUEUE_CREATE: unknown priority -> EINVAL");
	c.priority = 0;
	c.flags = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_CREATE, &c), -EINVAL,
		"QUEUE_CREATE: unknown flag -> EINVAL");
}

struct signaller {
	struct npu_dev *d;
	uint32_t sem;
	uint64_t value;
};

static void *signal_later(void *arg)
{
	struct signaller *s = arg;
	struct drm_npu_sem_signal sig = { .handle = s->sem, .value = s->value };
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	t_ioctl(s->d, DRM_IOCTL_NPU_SEM_SIGNAL, &sig);
	return NULL;
}

static void test_sems(void)
{
	struct drm_npu_sem_create c;
	struct drm_npu_sem_signal s;
	struct drm_npu_sem_wait w;
	struct drm_npu_sem_query q;
	struct drm_npu_sem_destroy d;
	struct signaller sg;
	struct npu_dev *d2;
	pthread_t th;
	struct npu_dev **files;
	uint32_t *all;
	unsigned int i, made, nfiles, on_first = 0;
	int err;

	memset(&c, 0, sizeof(c));
	c.initial_value = 5;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_CREATE, &c), 0,
		"SEM_CREATE: initial value 5");
	memset(&q, 0, sizeof(q));
	q.handle = c.handle;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_QUERY, &q), 0, "SEM_QUERY: succeeds");
	tap_ok(q.value == 5, "SEM_QUERY: reads the initial value");
	q.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_QUERY, &q), -EINVAL,
		"SEM_QUERY: non-zero pad -> EINVAL");
	q.pad = 0;
	q.handle = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_QUERY, &q), -ENOENT,
		"SEM_QUERY: handle 0 -> ENOENT");

	memset(&s, 0, sizeof(s));
	s.handle = c.handle;
	s.value = 9;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_SIGNAL, &s), 0,
		"SEM_SIGNAL: 5 -> 9");
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_SIGNAL, &s), -EINVAL,
		"SEM_SIGNAL: the same value again -> EINVAL");
	s.value = 3;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_SIGNAL, &s), -EINVAL,
		"SEM_SIGNAL: a smaller value -> EINVAL");
	s.value = 10;
	s.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_SIGNAL, &s), -EINVAL,
		"SEM_SIGNAL: non-zero pad -> EINVAL");
	s.pad = 0;
	s.handle = 12345;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_SIGNAL, &s), -ENOENT,
		"SEM_SIGNAL: unknown handle -> ENOENT");

	memset(&w, 0, sizeof(w));
	w.handle = c.handle;
	w.value = 9;
	w.timeout_ns = t_past();
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_WAIT, &w), 0,
		"SEM_WAIT: reached value, deadline in the past -> 0");
	w.value = 10;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_WAIT, &w), -ETIME,
		"SEM_WAIT: unreached value, deadline in the past -> ETIME");
	w.timeout_ns = -5;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_WAIT, &w), -EINVAL,
		"SEM_WAIT: negative timeout -> EINVAL");
	w.timeout_ns = t_in_ms(10);
	w.flags = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_WAIT, &w), -EINVAL,
		"SEM_WAIT: unknown flag -> EINVAL");
	w.flags = 0;
	w.handle = 777;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_WAIT, &w), -ENOENT,
		"SEM_WAIT: unknown handle -> ENOENT");
	w.handle = c.handle;
	w.value = 11;
	w.timeout_ns = t_in_ms(10000);
	sg.d = T.d;
	sg.sem = c.handle;
	sg.value = 11;
	pthread_create(&th, NULL, signal_later, &sg);
	err = t_ioctl(T.d, DRM_IOCTL_NPU_SEM_WAIT, &w);
	pthread_join(th, NULL);
	tap_err(err, 0, "SEM_WAIT: woken by a SEM_SIGNAL from another thread");

	if (t_open_again(&d2) == 0) {
		w.timeout_ns = t_past();
		tap_err(t_ioctl(d2, DRM_IOCTL_NPU_SEM_WAIT, &w), -ENOENT,
			"SEM_WAIT: another open's handle -> ENOENT");
		npu_dev_close(d2);
	} else {
		tap_skip("cannot open twice", "SEM_WAIT: another open's handle");
	}

	memset(&d, 0, sizeof(d));
	d.handle = c.handle;
	d.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_DESTROY, &d), -EINVAL,
		"SEM_DESTROY: non-zero pad -> EINVAL");
	d.pad = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_DESTROY, &d), 0,
		"SEM_DESTROY: succeeds");
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_DESTROY, &d), -ENOENT,
		"SEM_DESTROY: twice -> ENOENT");
	memset(&c, 0, sizeof(c));
	c.flags = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SEM_CREATE, &c), -EINVAL,
		"SEM_CREATE: unknown flag -> EINVAL");

	/* Exhaust the hardware semaphores. */
	if (T.info.num_semaphores > 4096) {
		tap_skip("too many semaphores to exhaust",
			 "SEM_CREATE: all hardware semaphores in use -> ENOSPC");
		return;
	}
	/*
	 * Over as many files as the per-file limit makes it take (each file
	 * takes what it may; EDQUOT moves on to the next file).
	 */
	all = calloc(T.info.num_semaphores + 1, sizeof(*all));
	files = calloc(T.info.num_semaphores + 2, sizeof(*files));
	files[0] = T.d;
	nfiles = 1;
	err = 0;
	for (made = 0; all && files && made <= T.info.num_semaphores;) {
		memset(&c, 0, sizeof(c));
		err = t_ioctl(files[nfiles - 1], DRM_IOCTL_NPU_SEM_CREATE, &c);
		if (err == -EDQUOT && t_open_again(&files[nfiles]) == 0) {
			nfiles++;
			continue;
		}
		if (err)
			break;
		all[made++] = c.handle;
		on_first += nfiles == 1;
	}
	tap_ok(err == -ENOSPC && made <= T.info.num_semaphores,
	       "SEM_CREATE: all %u hardware semaphores in use -> ENOSPC (%u files)",
	       T.info.num_semaphores, nfiles);
	for (i = 0; all && i < on_first; i++)
		t_sem_destroy(T.d, all[i]);	/* the other files close */
	for (i = 1; files && i < nfiles; i++)
		npu_dev_close(files[i]);
	free(files);
	free(all);
	made = t_sem(T.d, 0);
	tap_ok(made != 0, "SEM_CREATE: a destroyed semaphore is free again");
	t_sem_destroy(T.d, made);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * Signals during a wait: the ioctl is interrupted and restarted (drmIoctl
 * restarts EINTR) with the same absolute deadline, so it still ends with
 * ETIME - never EINTR to the caller, never a wait past the deadline plus
 * the restarts' few microseconds.
 */
static void test_wait_signals(void)
{
	struct sigaction sa, old;
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } }, off = { { 0, 0 },
								     { 0, 0 } };
	struct drm_npu_sem_wait w;
	uint32_t sem = t_sem(T.d, 0);
	uint64_t t0, dt;
	int err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: the wait is interrupted */
	sigaction(SIGALRM, &sa, &old);
	alarms = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	memset(&w, 0, sizeof(w));
	w.handle = sem;
	w.value = 1;
	w.timeout_ns = t_in_ms(200);
	t0 = t_now();
	err = t_ioctl(T.d, DRM_IOCTL_NPU_SEM_WAIT, &w);
	dt = t_now() - t0;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	tap_diag("SEM_WAIT with a 200 ms deadline under %d signals returned after %llu ms",
		 (int)alarms, (unsigned long long)(dt / 1000000));
	tap_err(err, -ETIME,
		"SEM_WAIT: signals during the wait, deadline reached -> ETIME (not EINTR)");
	t_sem_destroy(T.d, sem);
}

void test_queue_sem(void)
{
	test_queues();
	test_sems();
	test_wait_signals();
}
