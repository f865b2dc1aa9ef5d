// SPDX-License-Identifier: MIT
/*
 * test_submit.c - SUBMIT and WAIT_FENCE: the good path, every rejected
 * input, and handles closed while a job is in flight.
 */
#include "npu_test.h"

#include <string.h>

struct fixture {
	uint32_t q, prog, sem, bo[2];
	float *map[2];
};

static bool setup(struct fixture *f)
{
	struct drm_npu_task t[2];

	memset(f, 0, sizeof(*f));
	t[0] = t_copy(0, 0, 1, 0, 256);
	t[1] = t_sem_task(DRM_NPU_OP_SEM_SIGNAL, 0, 1);
	f->q = t_queue(T.d, DRM_NPU_PRIORITY_NORMAL);
	f->sem = t_sem(T.d, 0);
	f->bo[0] = t_bo(T.d, 4096);
	f->bo[1] = t_bo(T.d, 4096);
	f->map[0] = t_map(T.d, f->bo[0], 4096);
	f->map[1] = t_map(T.d, f->bo[1], 4096);
	return f->q && f->sem && f->bo[0] && f->bo[1] && f->map[0] &&
	       f->map[1] && t_prog(T.d, t, 2, &f->prog) == 0;
}

static void teardown(struct fixture *f)
{
	t_unmap(T.d, f->map[0], 4096);
	t_unmap(T.d, f->map[1], 4096);
	t_close_bo(T.d, f->bo[0]);
	t_close_bo(T.d, f->bo[1]);
	t_prog_destroy(T.d, f->prog);
	t_sem_destroy(T.d, f->sem);
	t_queue_destroy(T.d, f->q);
}

static void base(struct drm_npu_submit *s, struct fixture *f,
		 struct drm_npu_sem_point *bind)
{
	memset(s, 0, sizeof(*s));
	memset(bind, 0, sizeof(*bind));
	bind->handle = f->sem;
	s->queue = f->q;
	s->program = f->prog;
	s->bos_ptr = (uintptr_t)f->bo;
	s->num_bos = 2;
	s->sem_bindings_ptr = (uintptr_t)bind;
	s->num_sem_bindings = 1;
}

static void test_good(struct fixture *f)
{
	struct drm_npu_submit s;
	struct drm_npu_sem_point bind;
	struct drm_npu_sem_query sq;
	struct drm_npu_queue_query qq;
	bool ok = true;
	int i, err;

	for (i = 0; i < 256; i++)
		f->map[0][i] = (float)i * 0.5f - 3.0f;
	base(&s, f, &bind);
	bind.value = 100;
	err = t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s);
	tap_err(err, 0, "SUBMIT: COPY + SEM_SIGNAL program");
	tap_ok(s.fence == 1, "SUBMIT: the first fence point of a queue is 1");
	tap_err(t_wait(T.d, f->q, s.fence, 10000), 0, "WAIT_FENCE: job completes");
	for (i = 0; i < 256; i++)
		ok &= f->map[1][i] == (float)i * 0.5f - 3.0f;
	tap_ok(ok, "SUBMIT: the COPY task copied 256 floats");
	memset(&sq, 0, sizeof(sq));
	sq.handle = f->sem;
	t_ioctl(T.d, DRM_IOCTL_NPU_SEM_QUERY, &sq);
	tap_ok(sq.value == 101,
	       "SUBMIT: SEM_SIGNAL task set binding base + value (got %llu)",
	       (unsigned long long)sq.value);
	t_query(T.d, f->q, &qq);
	tap_ok(qq.submitted == 1 && qq.completed == 1 && qq.num_faults == 0,
	       "QUEUE_QUERY: submitted and completed follow the job");

	/* task range: only the COPY, twice with the same program */
	base(&s, f, &bind);
	s.num_tasks = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), 0,
		"SUBMIT: task range [0, 1)");
	tap_err(t_wait(T.d, f->q, s.fence, 10000), 0,
		"WAIT_FENCE: range job completes");
	tap_ok(s.fence == 2, "SUBMIT: fence points grow by one per job");
}

static void test_rejects(struct fixture *f)
{
	struct drm_npu_submit s;
	struct drm_npu_sem_point bind, pts[DRM_NPU_MAX_SEM_POINTS + 1];
	uint32_t small = t_bo(T.d, 512), bos[2];
	struct npu_dev *d2;

	base(&s, f, &bind);
	s.reserved = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: non-zero reserved -> EINVAL");
	base(&s, f, &bind);
	s.flags = 1u << 5;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: unknown flag -> EINVAL");
	base(&s, f, &bind);
	s.profile_bo = f->bo[0];
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: profile_bo without DRM_NPU_SUBMIT_PROFILE -> EINVAL");
	base(&s, f, &bind);
	s.queue = 4242;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -ENOENT,
		"SUBMIT: unknown queue -> ENOENT");
	base(&s, f, &bind);
	s.program = 4242;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -ENOENT,
		"SUBMIT: unknown program -> ENOENT");
	base(&s, f, &bind);
	s.num_bos = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: num_bos != program num_slots -> EINVAL");
	base(&s, f, &bind);
	s.num_bos = DRM_NPU_MAX_SLOTS + 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: num_bos > DRM_NPU_MAX_SLOTS -> EINVAL");
	base(&s, f, &bind);
	bos[0] = f->bo[0];
	bos[1] = 0xabcd;
	s.bos_ptr = (uintptr_t)bos;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -ENOENT,
		"SUBMIT: unknown buffer handle -> ENOENT");
	bos[1] = small;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), 0,
		"SUBMIT: a 512-byte request gives a 4 KiB buffer, large enough");
	base(&s, f, &bind);
	s.first_task = 2;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: first_task past the program -> EINVAL");
	base(&s, f, &bind);
	s.first_task = 1;
	s.num_tasks = 0xffffffffu;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: task range overflowing the program -> EINVAL");
	base(&s, f, &bind);
	s.num_sem_bindings = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: fewer semaphore bindings than the program uses -> EINVAL");
	base(&s, f, &bind);
	s.num_waits = DRM_NPU_MAX_SEM_POINTS + 1;
	s.waits_ptr = (uintptr_t)pts;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: more than DRM_NPU_MAX_SEM_POINTS waits -> EINVAL");
	base(&s, f, &bind);
	s.num_waits = 1;
	s.waits_ptr = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: waits without a pointer -> EINVAL");
	base(&s, f, &bind);
	s.bos_ptr = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: buffers without a pointer -> EINVAL");
	if (t_bad_ptr()) {
		base(&s, f, &bind);
		s.bos_ptr = (uintptr_t)t_bad_ptr();
		tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EFAULT,
			"SUBMIT: unreadable buffer list -> EFAULT");
		base(&s, f, &bind);
		s.sem_bindings_ptr = (uintptr_t)t_bad_ptr();
		tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EFAULT,
			"SUBMIT: unreadable semaphore bindings -> EFAULT");
	} else {
		tap_skip("no safe bad pointer", "SUBMIT: unreadable buffer list -> EFAULT");
		tap_skip("no safe bad pointer", "SUBMIT: unreadable semaphore bindings -> EFAULT");
	}
	base(&s, f, &bind);
	bind.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: semaphore point with non-zero pad -> EINVAL");
	base(&s, f, &bind);
	memset(pts, 0, sizeof(pts));
	pts[0].handle = 999;
	s.signals_ptr = (uintptr_t)pts;
	s.num_signals = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -ENOENT,
		"SUBMIT: unknown semaphore handle -> ENOENT");
	base(&s, f, &bind);
	s.flags = DRM_NPU_SUBMIT_PROFILE;
	s.profile_bo = small;
	s.profile_offset = 4096 - 32;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -ENOSPC,
		"SUBMIT: profile records do not fit the buffer -> ENOSPC");
	s.profile_offset = 4;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -EINVAL,
		"SUBMIT: profile offset not 8-byte aligned -> EINVAL");
	s.profile_offset = 0;
	s.profile_bo = 31337;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), -ENOENT,
		"SUBMIT: unknown profile buffer -> ENOENT");

	if (t_open_again(&d2) == 0) {
		base(&s, f, &bind);
		tap_err(t_ioctl(d2, DRM_IOCTL_NPU_SUBMIT, &s), -ENOENT,
			"SUBMIT: another open's queue/program/buffers -> ENOENT");
		npu_dev_close(d2);
	} else {
		tap_skip("cannot open twice", "SUBMIT: another open's handles");
	}
	t_close_bo(T.d, small);
}

static void test_too_small(struct fixture *f)
{
	struct drm_npu_task t = t_copy(0, 0, 1, 4000, 256);	/* needs 5024 */
	uint32_t prog, fence_q = f->q;
	uint64_t fence;

	if (t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "SUBMIT: buffer smaller than its slot -> ENOSPC");
		return;
	}
	tap_err(t_submit(T.d, fence_q, prog, f->bo, 2, &fence), -ENOSPC,
		"SUBMIT: buffer smaller than its slot's need -> ENOSPC");
	t_prog_destroy(T.d, prog);
}

static void test_wait_fence(struct fixture *f)
{
	struct drm_npu_wait_fence w;
	struct drm_npu_queue_query qq;
	struct npu_dev *d2;

	t_query(T.d, f->q, &qq);
	memset(&w, 0, sizeof(w));
	w.queue = f->q;
	w.fence = qq.submitted;
	w.timeout_ns = t_past();
	tap_err(t_wait(T.d, f->q, qq.submitted, 10000), 0,
		"WAIT_FENCE: last fence completes");
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_WAIT_FENCE, &w), 0,
		"WAIT_FENCE: completed fence, deadline in the past -> 0");
	w.fence = qq.submitted + 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_WAIT_FENCE, &w), -EINVAL,
		"WAIT_FENCE: fence never handed out -> EINVAL");
	w.fence = 1;
	w.flags = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_WAIT_FENCE, &w), -EINVAL,
		"WAIT_FENCE: unknown flag -> EINVAL");
	w.flags = 0;
	w.timeout_ns = -1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_WAIT_FENCE, &w), -EINVAL,
		"WAIT_FENCE: negative timeout -> EINVAL");
	w.timeout_ns = t_past();
	w.queue = 5555;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_WAIT_FENCE, &w), -ENOENT,
		"WAIT_FENCE: unknown queue -> ENOENT");
	if (t_open_again(&d2) == 0) {
		w.queue = f->q;
		tap_err(t_ioctl(d2, DRM_IOCTL_NPU_WAIT_FENCE, &w), -ENOENT,
			"WAIT_FENCE: another open's queue -> ENOENT");
		npu_dev_close(d2);
	} else {
		tap_skip("cannot open twice", "WAIT_FENCE: another open's queue");
	}
}

/* A job waiting on a semaphore: past deadlines and busy buffers. */
static void test_pending(struct fixture *f)
{
	struct drm_npu_submit s;
	struct drm_npu_sem_point bind, wait;
	struct drm_npu_sem_signal sig;
	struct drm_npu_bo_info bi;
	struct drm_npu_bo_wait bw;
	struct drm_npu_wait_fence w;
	uint32_t gate = t_sem(T.d, 0);

	base(&s, f, &bind);
	memset(&wait, 0, sizeof(wait));
	wait.handle = gate;
	wait.value = 1;
	s.waits_ptr = (uintptr_t)&wait;
	s.num_waits = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s), 0,
		"SUBMIT: a job that waits for a semaphore");
	memset(&w, 0, sizeof(w));
	w.queue = f->q;
	w.fence = s.fence;
	w.timeout_ns = t_past();
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_WAIT_FENCE, &w), -ETIME,
		"WAIT_FENCE: pending job, deadline in the past -> ETIME");
	w.timeout_ns = t_in_ms(30);
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_WAIT_FENCE, &w), -ETIME,
		"WAIT_FENCE: pending job, 30 ms deadline -> ETIME");
	memset(&bi, 0, sizeof(bi));
	bi.handle = f->bo[1];
	t_ioctl(T.d, DRM_IOCTL_NPU_BO_INFO, &bi);
	tap_ok(bi.busy == 1, "BO_INFO: a buffer of a pending job is busy");
	memset(&bw, 0, sizeof(bw));
	bw.handle = f->bo[1];
	bw.timeout_ns = t_past();
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_WAIT, &bw), -ETIME,
		"BO_WAIT: busy buffer, deadline in the past -> ETIME");

	/* close every handle the job uses but the queue: it still runs */
	t_unmap(T.d, f->map[0], 4096);
	t_unmap(T.d, f->map[1], 4096);
	f->map[0] = f->map[1] = NULL;
	t_close_bo(T.d, f->bo[0]);
	t_close_bo(T.d, f->bo[1]);
	t_prog_destroy(T.d, f->prog);
	t_sem_destroy(T.d, f->sem);
	f->bo[0] = f->bo[1] = f->prog = f->sem = 0;
	memset(&sig, 0, sizeof(sig));
	sig.handle = gate;
	sig.value = 1;
	t_ioctl(T.d, DRM_IOCTL_NPU_SEM_SIGNAL, &sig);
	tap_err(t_wait(T.d, f->q, s.fence, 10000), 0,
		"WAIT_FENCE: a job whose buffers, program and semaphores were closed completes");
	t_sem_destroy(T.d, gate);
}

void test_submit(void)
{
	struct fixture f;

	if (!setup(&f)) {
		tap_ok(false, "SUBMIT: fixture (queue, semaphore, buffers, program)");
		teardown(&f);
		return;
	}
	test_good(&f);
	test_rejects(&f);
	test_too_small(&f);
	test_wait_fence(&f);
	test_pending(&f);
	teardown(&f);
}
