// SPDX-License-Identifier: MIT
/*
 * test_sched.c - the scheduler seen through the uapi: order within a
 * queue, overlap across queues, semaphore ordering, fault records, the
 * watchdog, test modes and waits that serve.
 */
#include "npu_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROF_SIZE	(64 * 1024)

/* A one-queue COPY chain: task k copies region k to region k+1. */
static void test_order_in_queue(void)
{
	enum { N = 64, E = 64 };
	struct drm_npu_task t[N];
	uint32_t q = t_queue(T.d, 0), bo = t_bo(T.d, (N + 1) * E * 4), prog;
	uint32_t x = t_bo(T.d, 4096), y = t_bo(T.d, 4096), z = t_bo(T.d, 4096);
	uint32_t xy[2] = { x, y }, yz[2] = { y, z };
	float *p = t_map(T.d, bo, (N + 1) * E * 4);
	float *px = t_map(T.d, x, 4096), *pz = t_map(T.d, z, 4096);
	uint64_t fence, f2;
	bool ok = true;
	int k, i;

	if (!q || !p || !px || !pz)
		goto out;
	for (k = 0; k < N; k++)
		t[k] = t_copy(0, (uint64_t)k * E * 4, 0,
			      (uint64_t)(k + 1) * E * 4, E);
	for (i = 0; i < E; i++)
		p[i] = (float)(i * 7 + 1);
	if (t_prog(T.d, t, N, &prog) == 0) {
		tap_err(t_submit(T.d, q, prog, &bo, 1, &fence), 0,
			"order: submit a 64-task dependent COPY chain");
		tap_err(t_wait(T.d, q, fence, 20000), 0, "order: chain completes");
		for (i = 0; i < E; i++)
			ok &= p[N * E + i] == (float)(i * 7 + 1);
		tap_ok(ok, "order: tasks of one job ran in order (the value reached the end of the chain)");
		t_prog_destroy(T.d, prog);
	}

	/* two jobs: x -> y, then y -> z; the second must see the first */
	t[0] = t_copy(0, 0, 1, 0, 1024);
	if (t_prog(T.d, t, 1, &prog) == 0) {
		t_control("slow_us", 20000);
		for (i = 0; i < 1024; i++)
			px[i] = (float)i + 0.25f;
		t_submit(T.d, q, prog, xy, 2, &fence);
		t_submit(T.d, q, prog, yz, 2, &f2);
		tap_err(t_wait(T.d, q, f2, 20000), 0, "order: two dependent jobs complete");
		ok = true;
		for (i = 0; i < 1024; i++)
			ok &= pz[i] == (float)i + 0.25f;
		tap_ok(ok, "order: jobs of one queue ran in submission order");
		t_control("slow_us", 0);
		t_prog_destroy(T.d, prog);
	}
out:
	t_unmap(T.d, p, (N + 1) * E * 4);
	t_unmap(T.d, px, 4096);
	t_unmap(T.d, pz, 4096);
	t_close_bo(T.d, bo);
	t_close_bo(T.d, x);
	t_close_bo(T.d, y);
	t_close_bo(T.d, z);
	t_queue_destroy(T.d, q);
}

static int submit_prof(uint32_t q, uint32_t prog, const uint32_t *bos,
		       uint32_t nbos, uint32_t prof, uint64_t off,
		       const struct drm_npu_sem_point *waits, uint32_t nwaits,
		       const struct drm_npu_sem_point *sigs, uint32_t nsigs,
		       const struct drm_npu_sem_point *binds, uint32_t nbinds,
		       uint64_t *fence)
{
	struct drm_npu_submit s;
	int err;

	memset(&s, 0, sizeof(s));
	s.queue = q;
	s.program = prog;
	s.bos_ptr = (uintptr_t)bos;
	s.num_bos = nbos;
	s.flags = DRM_NPU_SUBMIT_PROFILE;
	s.profile_bo = prof;
	s.profile_offset = off;
	s.waits_ptr = (uintptr_t)waits;
	s.num_waits = nwaits;
	s.signals_ptr = (uintptr_t)sigs;
	s.num_signals = nsigs;
	s.sem_bindings_ptr = (uintptr_t)binds;
	s.num_sem_bindings = nbinds;
	err = t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s);
	*fence = s.fence;
	return err;
}

/*
 * Two queues on two hardware queues: their tasks overlap in time. Each
 * copies into a buffer of its own (the same destination from both would be
 * the test's own data race: queues are not ordered).
 */
static void test_parallel(void)
{
	struct drm_npu_task t = t_copy(0, 0, 1, 0, 1024);
	struct drm_npu_queue_create c1 = { 0 }, c2 = { 0 };
	struct drm_npu_task_profile *rec;
	uint32_t bos[2], bos2[2], prof, prog;
	uint64_t f1, f2;
	bool overlap;

	if (T.info.num_cores < 2 || T.info.num_queues < 2) {
		tap_skip("needs 2 AI cores and 2 queues", "parallel: two queues overlap");
		return;
	}
	if (t_control("slow_us", 100000)) {
		tap_skip("no slow_us test mode", "parallel: two queues overlap");
		return;
	}
	t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_CREATE, &c1);
	t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_CREATE, &c2);
	bos[0] = t_bo(T.d, 4096);
	bos[1] = t_bo(T.d, 4096);
	bos2[0] = bos[0];
	bos2[1] = t_bo(T.d, 4096);
	prof = t_bo(T.d, PROF_SIZE);
	rec = t_map(T.d, prof, PROF_SIZE);
	if (!rec || t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "parallel: setup");
		goto out;
	}
	tap_ok(c1.hw_queue != c2.hw_queue,
	       "parallel: two queues get different hardware queues (%u, %u)",
	       c1.hw_queue, c2.hw_queue);
	submit_prof(c1.handle, prog, bos, 2, prof, 0, NULL, 0, NULL, 0, NULL,
		    0, &f1);
	submit_prof(c2.handle, prog, bos2, 2, prof, 64, NULL, 0, NULL, 0, NULL,
		    0, &f2);
	tap_err(t_wait(T.d, c1.handle, f1, 20000) |
		t_wait(T.d, c2.handle, f2, 20000), 0,
		"parallel: both jobs complete");
	overlap = rec[0].start_ns < rec[2].end_ns &&
		  rec[2].start_ns < rec[0].end_ns;
	tap_diag("queue 1 ran [%llu, %llu] on core %u, queue 2 [%llu, %llu] on core %u (ns, relative)",
		 0ull, (unsigned long long)(rec[0].end_ns - rec[0].start_ns),
		 rec[0].core,
		 (unsigned long long)(rec[2].start_ns - rec[0].start_ns),
		 (unsigned long long)(rec[2].end_ns - rec[0].start_ns),
		 rec[2].core);
	tap_ok(overlap && rec[0].core != rec[2].core &&
	       rec[0].hw_queue == c1.hw_queue && rec[2].hw_queue == c2.hw_queue,
	       "parallel: the profile records overlap in time on two AI cores");
	t_prog_destroy(T.d, prog);
out:
	t_control("slow_us", 0);
	t_unmap(T.d, rec, PROF_SIZE);
	t_close_bo(T.d, bos[0]);
	t_close_bo(T.d, bos[1]);
	t_close_bo(T.d, bos2[1]);
	t_close_bo(T.d, prof);
	t_queue_destroy(T.d, c1.handle);
	t_queue_destroy(T.d, c2.handle);
}

/*
 * Queue A: COPY src -> X, SEM_SIGNAL. Queue B: SEM_WAIT, COPY X -> Y.
 * B is submitted first; Y must still be src, and B's copy must start after
 * A's ended. Then the same with job-level wait/signal points.
 */
static void test_sem_order(void)
{
	struct drm_npu_task ta[2], tb[2];
	struct drm_npu_task_profile *rec;
	struct drm_npu_sem_point bind, pt;
	uint32_t qa = t_queue(T.d, 0), qb = t_queue(T.d, 0);
	uint32_t src = t_bo(T.d, 4096), x = t_bo(T.d, 4096), y = t_bo(T.d, 4096);
	uint32_t prof = t_bo(T.d, PROF_SIZE), sem = t_sem(T.d, 0);
	uint32_t pa, pb, pc, a_bos[2] = { src, x }, b_bos[2] = { x, y };
	float *ps = t_map(T.d, src, 4096), *py = t_map(T.d, y, 4096);
	uint64_t fa, fb;
	bool ok = true;
	int i;

	rec = t_map(T.d, prof, PROF_SIZE);
	ta[0] = t_copy(0, 0, 1, 0, 1024);
	ta[1] = t_sem_task(DRM_NPU_OP_SEM_SIGNAL, 0, 1);
	tb[0] = t_sem_task(DRM_NPU_OP_SEM_WAIT, 0, 1);
	tb[1] = t_copy(0, 0, 1, 0, 1024);
	if (!rec || !ps || !py || !sem || t_prog(T.d, ta, 2, &pa) ||
	    t_prog(T.d, tb, 2, &pb) || t_prog(T.d, ta, 1, &pc)) {
		tap_ok(false, "semaphore order: setup");
		goto out;
	}
	for (i = 0; i < 1024; i++)
		ps[i] = (float)(3 * i) - 0.5f;
	t_control("slow_us", 30000);
	memset(&bind, 0, sizeof(bind));
	bind.handle = sem;
	bind.value = 0;
	tap_err(submit_prof(qb, pb, b_bos, 2, prof, 0, NULL, 0, NULL, 0, &bind,
			    1, &fb), 0, "semaphore order: queue B (SEM_WAIT, COPY) submitted first");
	tap_err(submit_prof(qa, pa, a_bos, 2, prof, 64, NULL, 0, NULL, 0,
			    &bind, 1, &fa), 0,
		"semaphore order: queue A (COPY, SEM_SIGNAL) submitted second");
	tap_err(t_wait(T.d, qb, fb, 20000), 0, "semaphore order: B completes");
	for (i = 0; i < 1024; i++)
		ok &= py[i] == (float)(3 * i) - 0.5f;
	tap_ok(ok, "semaphore order: B's copy read what A's copy wrote");
	tap_ok(rec[1].start_ns >= rec[2].end_ns,
	       "semaphore order: B's COPY started after A's COPY ended (profile)");

	/* job-level: B waits for point 5, A's job signals 5 when it ends */
	memset(py, 0, 4096);
	memset(&pt, 0, sizeof(pt));
	pt.handle = sem;
	pt.value = 5;
	tap_err(submit_prof(qb, pc, b_bos, 2, prof, 256, &pt, 1, NULL, 0, NULL,
			    0, &fb), 0, "semaphore order: job waiting for point 5");
	tap_err(submit_prof(qa, pc, a_bos, 2, prof, 512, NULL, 0, &pt, 1, NULL,
			    0, &fa), 0, "semaphore order: job signalling point 5");
	tap_err(t_wait(T.d, qb, fb, 20000), 0, "semaphore order: waiting job completes");
	ok = true;
	for (i = 0; i < 1024; i++)
		ok &= py[i] == (float)(3 * i) - 0.5f;
	tap_ok(ok && rec[8].start_ns >= rec[16].end_ns,
	       "semaphore order: the waiting job ran after the signalling job");
	t_prog_destroy(T.d, pa);
	t_prog_destroy(T.d, pb);
	t_prog_destroy(T.d, pc);
out:
	t_control("slow_us", 0);
	t_unmap(T.d, rec, PROF_SIZE);
	t_unmap(T.d, ps, 4096);
	t_unmap(T.d, py, 4096);
	t_close_bo(T.d, src);
	t_close_bo(T.d, x);
	t_close_bo(T.d, y);
	t_close_bo(T.d, prof);
	t_sem_destroy(T.d, sem);
	t_queue_destroy(T.d, qa);
	t_queue_destroy(T.d, qb);
}

/* Injected fault: the job fails, the one behind it is cancelled. */
static void test_fault(void)
{
	struct drm_npu_task t[2] = { t_copy(0, 0, 1, 0, 64),
				     t_copy(1, 0, 0, 0, 64) };
	struct drm_npu_sem_point pt = { 0 };
	struct drm_npu_sem_signal sig = { 0 };
	struct drm_npu_queue_query qq;
	uint32_t q = t_queue(T.d, 0), gate = t_sem(T.d, 0), prof;
	uint32_t bos[2] = { t_bo(T.d, 4096), t_bo(T.d, 4096) }, prog;
	struct drm_npu_task_profile *rec;
	uint64_t f1, f2, f3;

	prof = t_bo(T.d, PROF_SIZE);
	rec = t_map(T.d, prof, PROF_SIZE);
	if (!rec || t_prog(T.d, t, 2, &prog)) {
		tap_ok(false, "fault: setup");
		goto out;
	}
	if (t_control("fault", 1)) {
		tap_skip("no fault test mode", "fault: injected fault");
		goto out_prog;
	}
	pt.handle = gate;
	pt.value = 1;
	submit_prof(q, prog, bos, 2, prof, 0, &pt, 1, NULL, 0, NULL, 0, &f1);
	t_submit(T.d, q, prog, bos, 2, &f2);
	sig.handle = gate;
	sig.value = 1;
	t_ioctl(T.d, DRM_IOCTL_NPU_SEM_SIGNAL, &sig);
	tap_err(t_wait(T.d, q, f1, 20000), -EIO, "fault: the faulting job's fence -> EIO");
	tap_err(t_wait(T.d, q, f2, 20000), -EIO, "fault: the job queued behind it is cancelled -> EIO");
	t_query(T.d, q, &qq);
	tap_ok(qq.num_faults == 1 && qq.fault_reason == DRM_NPU_FAULT_INJECTED &&
	       qq.fault_fence == f1 && qq.fault_task == 0 &&
	       qq.completed == f2,
	       "fault: record names reason INJECTED, fence %llu, task 0 (got reason %u fence %llu task %u)",
	       (unsigned long long)f1, qq.fault_reason,
	       (unsigned long long)qq.fault_fence, qq.fault_task);
	tap_ok(rec[0].status == DRM_NPU_FAULT_INJECTED,
	       "fault: the profile record of the task carries the fault");
	tap_err(t_submit(T.d, q, prog, bos, 2, &f3), 0, "fault: the queue accepts new work");
	tap_err(t_wait(T.d, q, f3, 20000), 0, "fault: and runs it");
	memset(&qq, 0, sizeof(qq));
	qq.handle = q;
	qq.flags = DRM_NPU_QUEUE_QUERY_CLEAR_FAULT;
	t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_QUERY, &qq);
	t_query(T.d, q, &qq);
	tap_ok(qq.fault_reason == DRM_NPU_FAULT_NONE && qq.num_faults == 1,
	       "fault: CLEAR_FAULT clears the record, keeps the count");
out_prog:
	t_control("fault", 0);
	t_prog_destroy(T.d, prog);
out:
	t_unmap(T.d, rec, PROF_SIZE);
	t_close_bo(T.d, bos[0]);
	t_close_bo(T.d, bos[1]);
	t_close_bo(T.d, prof);
	t_sem_destroy(T.d, gate);
	t_queue_destroy(T.d, q);
}


/* The dispatch-time range check (test mode fault_range) names the operand. */
static void test_fault_range(void)
{
	struct drm_npu_task t = t_copy(0, 64, 1, 0, 64);
	struct drm_npu_queue_query qq;
	uint32_t q = t_queue(T.d, 0), prog;
	uint32_t bos[2] = { t_bo(T.d, 4096), t_bo(T.d, 4096) };
	uint64_t f;

	if (t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "fault: out-of-range setup");
		goto out;
	}
	if (t_control("fault_range", 1)) {
		tap_skip("no fault_range test mode", "fault: out of range at dispatch");
		goto out_prog;
	}
	t_submit(T.d, q, prog, bos, 2, &f);
	tap_err(t_wait(T.d, q, f, 20000), -EIO,
		"fault: an operand outside its buffer at dispatch -> EIO");
	t_query(T.d, q, &qq);
	tap_ok(qq.fault_reason == DRM_NPU_FAULT_OUT_OF_RANGE &&
	       qq.fault_operand == 0 && qq.fault_task == 0 && qq.fault_fence == f,
	       "fault: record reason OUT_OF_RANGE, task 0, operand 0 (got %u, %u, %u)",
	       qq.fault_reason, qq.fault_task, qq.fault_operand);
	tap_err(t_submit(T.d, q, prog, bos, 2, &f) | t_wait(T.d, q, f, 20000), 0,
		"fault: the queue runs the next job");
out_prog:
	t_control("fault_range", 0);
	t_prog_destroy(T.d, prog);
out:
	t_close_bo(T.d, bos[0]);
	t_close_bo(T.d, bos[1]);
	t_queue_destroy(T.d, q);
}

/* A data-dependent fault: GATHER with an index out of range. */
static void test_gather_fault(void)
{
	struct drm_npu_task t;
	struct drm_npu_queue_query qq;
	uint32_t n8 = 8, n2 = 2, prog, q = t_queue(T.d, 0);
	uint32_t bos[3] = { t_bo(T.d, 4096), t_bo(T.d, 4096), t_bo(T.d, 4096) };
	int32_t *ix = t_map(T.d, bos[1], 4096);
	uint64_t f;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_GATHER;
	t.num_operands = 3;
	t.operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, 1, &n8);
	t.operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_I32, 1, &n2);
	t.operands[2] = t_opnd(2, 0, DRM_NPU_DTYPE_F32, 1, &n2);
	if (!ix || t_prog(T.d, &t, 1, &prog)) {
		tap_skip("GATHER not available", "fault: gather index out of range");
		goto out;
	}
	ix[0] = 1;
	ix[1] = 1000;
	t_submit(T.d, q, prog, bos, 3, &f);
	tap_err(t_wait(T.d, q, f, 20000), -EIO, "fault: gather with index 1000 of 8 -> EIO");
	t_query(T.d, q, &qq);
	tap_ok(qq.fault_reason == DRM_NPU_FAULT_BAD_INDEX && qq.fault_fence == f,
	       "fault: record reason BAD_INDEX (got %u)", qq.fault_reason);
	t_prog_destroy(T.d, prog);
out:
	t_unmap(T.d, ix, 4096);
	t_close_bo(T.d, bos[0]);
	t_close_bo(T.d, bos[1]);
	t_close_bo(T.d, bos[2]);
	t_queue_destroy(T.d, q);
}

/* Injected hang: the watchdog turns it into a fault, the queue recovers. */
static void test_watchdog(void)
{
	struct drm_npu_task t = t_copy(0, 0, 1, 0, 64);
	struct drm_npu_queue_query qq;
	uint32_t q = t_queue(T.d, 0), prog;
	uint32_t bos[2] = { t_bo(T.d, 4096), t_bo(T.d, 4096) };
	uint64_t f, t0, dt;

	if (t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "watchdog: setup");
		goto out;
	}
	if (t_control("watchdog_ms", 100) || t_control("hang", 1)) {
		tap_skip("no hang/watchdog_ms test mode", "watchdog: hang recovered");
		goto out_prog;
	}
	if (!npu_dev_is_kernel(T.d))
		fprintf(stderr, "npu_uapi_test: injecting a hang, the watchdog warning below is expected\n");
	t0 = t_now();
	t_submit(T.d, q, prog, bos, 2, &f);
	tap_err(t_wait(T.d, q, f, 20000), -EIO, "watchdog: a hung job fails -> EIO");
	dt = t_now() - t0;
	tap_diag("the hang was recovered after %llu ms (watchdog 100 ms)",
		 (unsigned long long)(dt / 1000000));
	t_query(T.d, q, &qq);
	tap_ok(qq.fault_reason == DRM_NPU_FAULT_WATCHDOG && qq.fault_fence == f &&
	       qq.fault_task == 0,
	       "watchdog: fault record reason WATCHDOG, task 0 (got %u)",
	       qq.fault_reason);
	tap_err(t_submit(T.d, q, prog, bos, 2, &f), 0, "watchdog: the queue accepts new work");
	tap_err(t_wait(T.d, q, f, 20000), 0, "watchdog: and completes it");
out_prog:
	t_control("hang", 0);
	t_control("watchdog_ms", T.watchdog_ms);
	t_prog_destroy(T.d, prog);
out:
	t_close_bo(T.d, bos[0]);
	t_close_bo(T.d, bos[1]);
	t_queue_destroy(T.d, q);
}

static void test_instant(void)
{
	struct drm_npu_task t = t_copy(0, 0, 1, 0, 64);
	uint32_t q = t_queue(T.d, 0), prog;
	uint32_t bos[2] = { t_bo(T.d, 4096), t_bo(T.d, 4096) };
	float *a = t_map(T.d, bos[0], 4096), *b = t_map(T.d, bos[1], 4096);
	uint64_t f;

	if (!a || !b || t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "instant: setup");
		goto out;
	}
	if (t_control("instant", 1)) {
		tap_skip("no instant test mode", "instant: jobs complete without computing");
	} else {
		a[0] = 1.0f;
		t_submit(T.d, q, prog, bos, 2, &f);
		tap_ok(t_wait(T.d, q, f, 20000) == 0 && b[0] == 0.0f,
		       "instant: the job completes without computing");
		t_control("instant", 0);
	}
	tap_ok(t_control("no_such_knob", 1) == -EINVAL ||
	       npu_dev_is_kernel(T.d),
	       "test control: an unknown knob -> EINVAL");
	t_prog_destroy(T.d, prog);
out:
	t_unmap(T.d, a, 4096);
	t_unmap(T.d, b, 4096);
	t_close_bo(T.d, bos[0]);
	t_close_bo(T.d, bos[1]);
	t_queue_destroy(T.d, q);
}

/*
 * "corrupt_op": every element of the output of the chosen opcode's tasks
 * gets the lowest exponent bit flipped (f32: doubled or halved), other
 * opcodes are untouched; 0 turns it off.
 */
static void test_corrupt_op(void)
{
	struct drm_npu_task t = t_copy(0, 0, 1, 0, 64);
	uint32_t q = t_queue(T.d, 0), prog;
	uint32_t bos[2] = { t_bo(T.d, 4096), t_bo(T.d, 4096) };
	uint32_t *a = t_map(T.d, bos[0], 4096), *b = t_map(T.d, bos[1], 4096);
	bool flipped = true, other = true;
	uint64_t f;
	int i;

	if (!a || !b || t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "corrupt_op: setup");
		goto out;
	}
	for (i = 0; i < 64; i++) {
		float v = (float)(i + 1) * 0.75f;

		memcpy(&a[i], &v, 4);
	}
	if (t_control("corrupt_op", DRM_NPU_OP_COPY + 1)) {
		tap_skip("no corrupt_op test mode", "corrupt_op: COPY outputs");
		goto destroy;
	}
	t_submit(T.d, q, prog, bos, 2, &f);
	t_wait(T.d, q, f, 20000);
	for (i = 0; i < 64; i++)
		flipped &= b[i] == (a[i] ^ (1u << 23));
	t_control("corrupt_op", DRM_NPU_OP_BINARY + 1);
	memset(b, 0, 4096);
	t_submit(T.d, q, prog, bos, 2, &f);
	t_wait(T.d, q, f, 20000);
	for (i = 0; i < 64; i++)
		other &= b[i] == a[i];
	t_control("corrupt_op", 0);
	memset(b, 0, 4096);
	t_submit(T.d, q, prog, bos, 2, &f);
	tap_ok(t_wait(T.d, q, f, 20000) == 0 && flipped && other &&
	       !memcmp(a, b, 64 * 4),
	       "corrupt_op: COPY's outputs have the exponent bit flipped, "
	       "another opcode's setting leaves COPY exact, 0 turns it off");
	tap_ok(t_control("corrupt_op", DRM_NPU_OP_COUNT + 1) == -EINVAL ||
	       npu_dev_is_kernel(T.d),
	       "corrupt_op: an opcode beyond the table -> EINVAL");
destroy:
	t_prog_destroy(T.d, prog);
out:
	t_unmap(T.d, a, 4096);
	t_unmap(T.d, b, 4096);
	t_close_bo(T.d, bos[0]);
	t_close_bo(T.d, bos[1]);
	t_queue_destroy(T.d, q);
}

/*
 * More queues than hardware queues: two command queues share one hardware
 * queue. A job blocked on a semaphore must not block the other queue on
 * the same hardware queue, which signals that semaphore.
 */
static void test_shared_hw_queue(void)
{
	struct drm_npu_task t = t_copy(0, 0, 1, 0, 64);
	struct drm_npu_queue_create *qs;
	struct drm_npu_sem_point pt = { 0 };
	struct drm_npu_submit s;
	uint32_t n = T.info.num_queues + 1, i, a = 0, b = 0, prog, sem;
	uint32_t bos[2] = { t_bo(T.d, 4096), t_bo(T.d, 4096) };
	uint64_t fa = 0, fb = 0;
	bool found = false;

	qs = calloc(n, sizeof(*qs));
	sem = t_sem(T.d, 0);
	if (!qs || !sem || t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "shared hardware queue: setup");
		goto out;
	}
	for (i = 0; i < n; i++)
		t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_CREATE, &qs[i]);
	for (a = 0; a < n && !found; a++)
		for (b = a + 1; b < n && !found; b++)
			found = qs[a].hw_queue == qs[b].hw_queue;
	a--, b--;
	tap_ok(found, "shared hardware queue: %u queues on %u hardware queues share one",
	       n, T.info.num_queues);
	if (!found)
		goto out_prog;
	pt.handle = sem;
	pt.value = 1;
	memset(&s, 0, sizeof(s));
	s.queue = qs[a].handle;
	s.program = prog;
	s.bos_ptr = (uintptr_t)bos;
	s.num_bos = 2;
	s.waits_ptr = (uintptr_t)&pt;
	s.num_waits = 1;
	t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s);
	fa = s.fence;
	s.queue = qs[b].handle;
	s.waits_ptr = 0;
	s.num_waits = 0;
	s.signals_ptr = (uintptr_t)&pt;
	s.num_signals = 1;
	t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &s);
	fb = s.fence;
	tap_err(t_wait(T.d, qs[b].handle, fb, 20000) |
		t_wait(T.d, qs[a].handle, fa, 20000), 0,
		"shared hardware queue: a blocked queue does not block its neighbour");
out_prog:
	t_prog_destroy(T.d, prog);
	for (i = 0; qs && i < n; i++)
		t_queue_destroy(T.d, qs[i].handle);
out:
	free(qs);
	t_sem_destroy(T.d, sem);
	t_close_bo(T.d, bos[0]);
	t_close_bo(T.d, bos[1]);
}


/*
 * Priority: K fillers (NORMAL), one HIGH and one LOW job become ready at the
 * same moment (one semaphore releases them all) on a device with K AI
 * cores. The K free cores take HIGH and K - 1 fillers; LOW must wait for a
 * core to come free. Each job copies into a buffer of its own.
 */
static void test_priority(void)
{
	uint32_t k = T.info.num_cores, n = k + 2, i, prog, sem, prof;
	struct drm_npu_task t = t_copy(0, 0, 1, 0, 64);
	struct drm_npu_queue_create qc[66];
	struct drm_npu_task_profile *rec;
	struct drm_npu_sem_point pt = { 0 };
	struct drm_npu_sem_signal sig = { 0 };
	uint32_t bos[66][2];
	uint64_t fence[66], first_end = ~0ull;
	bool hw_distinct = true;
	int err = 0;

	if (n > T.info.num_queues || n > 66) {
		tap_skip("needs 2 more hardware queues than AI cores",
			 "priority: HIGH before NORMAL before LOW");
		return;
	}
	bos[0][0] = t_bo(T.d, 4096);
	for (i = 0; i < n; i++) {
		bos[i][0] = bos[0][0];
		bos[i][1] = t_bo(T.d, 4096);
	}
	sem = t_sem(T.d, 0);
	prof = t_bo(T.d, 4096);
	rec = t_map(T.d, prof, 4096);
	if (!sem || !rec || t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "priority: setup");
		goto out;
	}
	if (t_control("slow_us", 30000)) {
		tap_skip("no slow_us test mode", "priority: HIGH before NORMAL before LOW");
		goto out_prog;
	}
	memset(qc, 0, sizeof(qc));
	for (i = 0; i < n; i++) {
		qc[i].priority = i == 0 ? DRM_NPU_PRIORITY_LOW :
				 i == 1 ? DRM_NPU_PRIORITY_HIGH :
					  DRM_NPU_PRIORITY_NORMAL;
		err |= t_ioctl(T.d, DRM_IOCTL_NPU_QUEUE_CREATE, &qc[i]);
	}
	for (i = 1; i < n; i++)
		hw_distinct &= qc[i].hw_queue != qc[0].hw_queue;
	pt.handle = sem;
	pt.value = 1;
	for (i = 0; i < n && !err; i++)
		err = submit_prof(qc[i].handle, prog, bos[i], 2, prof, i * 32,
				  &pt, 1, NULL, 0, NULL, 0, &fence[i]);
	sig.handle = sem;
	sig.value = 1;
	err |= t_ioctl(T.d, DRM_IOCTL_NPU_SEM_SIGNAL, &sig);
	for (i = 0; i < n && !err; i++)
		err = t_wait(T.d, qc[i].handle, fence[i], 20000);
	tap_err(err, 0, "priority: %u jobs released at once on %u AI cores complete",
		n, k);
	for (i = 1; i < n; i++)
		if (rec[i].end_ns < first_end)
			first_end = rec[i].end_ns;
	tap_ok(hw_distinct && rec[1].start_ns <= rec[0].start_ns &&
	       rec[0].start_ns >= first_end,
	       "priority: HIGH ran at once, LOW only after a core came free");
	t_control("slow_us", 0);
	for (i = 0; i < n; i++)
		t_queue_destroy(T.d, qc[i].handle);
out_prog:
	t_prog_destroy(T.d, prog);
out:
	t_unmap(T.d, rec, 4096);
	t_close_bo(T.d, prof);
	t_sem_destroy(T.d, sem);
	t_close_bo(T.d, bos[0][0]);
	for (i = 0; i < n; i++)
		t_close_bo(T.d, bos[i][1]);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A wait with a short timeout on a long task returns -ETIME on time,
 * serving or not: it must not run the task on its thread and return 0
 * once the task is done (one MATMUL of 1024^3, tens of milliseconds or
 * more; the wait gives it 2 ms). In-process only: the VM's module runs
 * under emulation, where the product would take minutes.
 */
static void serve_short_wait(void)
{
	const uint32_t n = 1024, sh[2] = { n, n };
	uint64_t bytes = (uint64_t)n * n * 4, fence = 0;
	uint32_t q = t_queue(T.d, 0), prog = 0, bos[3] = { 0 };
	struct drm_npu_task t;
	int err = 0, i;

	if (npu_dev_is_kernel(T.d)) {
		tap_skip("the module runs in an emulated VM",
			 "serve: a 2 ms wait on a long task times out");
		tap_skip("the module runs in an emulated VM",
			 "serve: the task completes afterwards");
		t_queue_destroy(T.d, q);
		return;
	}
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_MATMUL;
	t.num_operands = 3;
	t.params.matmul.alpha = 0x3f800000u;	/* 1.0f */
	for (i = 0; i < 3; i++) {
		t.operands[i] = t_opnd((uint16_t)i, 0, DRM_NPU_DTYPE_F32, 2, sh);
		bos[i] = t_bo(T.d, bytes);
		err |= !bos[i];
	}
	if (err || !q || t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "serve: short wait setup");
		goto out;
	}
	err = t_submit(T.d, q, prog, bos, 3, &fence);
	err = err ? err : t_wait(T.d, q, fence, 2);
	tap_err(err, -ETIME, "serve: a 2 ms wait on a long task times out");
	tap_err(t_wait(T.d, q, fence, 60000), 0,
		"serve: the task completes afterwards");
out:
	t_prog_destroy(T.d, prog);
	for (i = 0; i < 3; i++)
		if (bos[i])
			t_close_bo(T.d, bos[i]);
	t_queue_destroy(T.d, q);
}

/*
 * Waits that serve (npu_serve()): the in-process device runs a job on the
 * thread that waits for it, so that thread's CPU time covers much of the
 * job's AI-core time (the profile's); the kernel module's waits sleep (and
 * so do the in-process device's with NPU_SIM_SERVE_WAITS=0). Either way, a
 * job nobody blocks on (the host only polls) is run by the core threads.
 * A core thread that wakes for the submission may still win the job (about
 * half of the jobs with one core on two CPUs), and another core may help
 * with it, so the served side is counted over many jobs.
 */
static void test_serve_waits(void)
{
	enum { JOBS = 40, E = 1 << 20 };	/* 4 MiB copied per task */
	const char *env = getenv("NPU_SIM_SERVE_WAITS");
	bool serves = !npu_dev_is_kernel(T.d) && !(env && !strcmp(env, "0"));
	struct drm_npu_task t[4];
	uint32_t q = t_queue(T.d, 0), bo = t_bo(T.d, 5ull * E * 4), prog = 0;
	uint32_t prof = t_bo(T.d, PROF_SIZE), served = 0, slept = 0, i;
	struct drm_npu_task_profile *rec = t_map(T.d, prof, PROF_SIZE);
	uint64_t fence = 0, polls = 0;
	int err = 0;

	for (i = 0; i < 4; i++)
		t[i] = t_copy(0, (uint64_t)i * E * 4, 0, (uint64_t)(i + 1) * E * 4,
			      E);
	if (!q || !bo || !rec || t_prog(T.d, t, 4, &prog)) {
		tap_ok(false, "serve: setup");
		goto out;
	}
	for (i = 0; i < JOBS && !err; i++) {
		uint64_t c0, cpu, busy = 0;
		uint32_t k;

		err = submit_prof(q, prog, &bo, 1, prof, 0, NULL, 0, NULL, 0,
				  NULL, 0, &fence);
		c0 = thread_cpu_ns();
		err = err ? err : t_wait(T.d, q, fence, 20000);
		cpu = thread_cpu_ns() - c0;
		for (k = 0; k < 4; k++)
			busy += rec[k].end_ns - rec[k].start_ns;
		if (cpu * 4 >= busy)
			served++;
		else if (cpu * 20 < busy)
			slept++;
	}
	tap_err(err, 0, "serve: %u jobs of 4 COPY tasks complete", JOBS);
	tap_diag("serve: the waiting thread ran much of %u of %u jobs and slept through %u (%s)",
		 served, JOBS, slept, serves ? "waits serve" : "waits sleep");
	if (serves)
		/* about half with one core on two CPUs, most with two */
		tap_ok(served >= 3,
		       "serve: the waiting thread runs the job it waits for (%u of %u)",
		       served, JOBS);
	else
		/*
		 * A job is 4 tasks of ~75 us and the sleeping waiter is woken
		 * as each retires: on a VM where a wake-up and the mutex
		 * hand-off cost ~50 us of the waiter's CPU, one job in 40 or
		 * so crosses the quarter (213 of 305 us measured). Serving
		 * runs most of them (26-31 of 40 with one core).
		 */
		tap_ok(served <= 2,
		       "serve: the waiting thread sleeps (%u of %u served, slept through %u)",
		       served, JOBS, slept);
	/* nobody blocks: the core threads run it */
	err = t_submit(T.d, q, prog, &bo, 1, &fence);
	while (!err && polls < 20000) {
		struct timespec ms = { 0, 1000000 };

		err = t_wait(T.d, q, fence, 0);
		if (err != -ETIME)
			break;
		err = 0;
		nanosleep(&ms, NULL);
		polls++;
	}
	tap_err(err, 0, "serve: a job only polled for completes (%llu polls)",
		(unsigned long long)polls);
	serve_short_wait();
out:
	t_prog_destroy(T.d, prog);
	t_unmap(T.d, rec, PROF_SIZE);
	t_close_bo(T.d, prof);
	t_close_bo(T.d, bo);
	t_queue_destroy(T.d, q);
}

void test_sched(void)
{
	test_order_in_queue();
	test_parallel();
	test_sem_order();
	test_fault();
	test_fault_range();
	test_gather_fault();
	test_watchdog();
	test_instant();
	test_corrupt_op();
	test_shared_hw_queue();
	test_priority();
	test_serve_waits();
}
