// SPDX-License-Identifier: MIT
/*
 * test_bounded.c - one file cannot stall the device or another file:
 * compaction does not wait for a running task, the scheduler loses no
 * wake-up (run with one AI core too: run_one_core.sh) and its pick does not
 * grow with the number of queues.
 */
#include "npu_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS	1000000ull

/*
 * One COPY task of 2^@log2 f32 elements, reading and writing a single
 * element (stride 0): slot 0 -> slot 1, each 4 bytes. Valid, and as long
 * as the caller wants (2^32 elements: seconds of one AI core).
 */
static struct drm_npu_task long_copy(uint32_t log2)
{
	uint32_t shape[2] = { 1u << (log2 / 2), 1u << (log2 - log2 / 2) };
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_COPY;
	t.num_operands = 2;
	t.operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, 2, shape);
	t.operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_F32, 2, shape);
	t.operands[0].strides[0] = t.operands[0].strides[1] = 0;
	t.operands[1].strides[0] = t.operands[1].strides[1] = 0;
	return t;
}

struct long_job {
	struct npu_dev *d;
	uint32_t q, prog, bos[2];
	uint64_t fence;
};

/* Start a long COPY on a file of its own; 0 or -errno. */
static int long_job_start(struct long_job *j, uint32_t log2)
{
	struct drm_npu_task t = long_copy(log2);
	int err;

	memset(j, 0, sizeof(*j));
	err = t_open_again(&j->d);
	if (err)
		return err;
	j->q = t_queue(j->d, 0);
	j->bos[0] = t_bo(j->d, 4096);
	j->bos[1] = t_bo(j->d, 4096);
	if (!j->q || !j->bos[0] || !j->bos[1])
		return -ENOMEM;
	err = t_prog(j->d, &t, 1, &j->prog);
	if (!err)
		err = t_submit(j->d, j->q, j->prog, j->bos, 2, &j->fence);
	return err;
}

static bool long_job_done(struct long_job *j)
{
	struct drm_npu_queue_query qq;

	t_query(j->d, j->q, &qq);
	return qq.completed >= j->fence;
}

/* Wait until the job's buffer is busy and its task had time to start. */
static void long_job_wait_running(struct long_job *j)
{
	struct timespec ts = { 0, 50 * 1000000 };

	nanosleep(&ts, NULL);
}

/* ---- the job budget and aborting a running job ---- */

/*
 * A COPY of 2^40 elements (hours of one AI core) under a 300 ms job budget
 * becomes a fault record with reason BUDGET within the budget and a chunk.
 */
static void test_job_budget(void)
{
	struct drm_npu_queue_query qq;
	struct long_job j;
	uint64_t old = T.info.job_budget_ms, t0, ns;
	int err;

	if (t_control("job_budget_ms", 300)) {
		tap_ok(false, "job budget: knob job_budget_ms");
		return;
	}
	t0 = t_now();
	err = long_job_start(&j, 40);
	if (!err)
		err = t_wait(j.d, j.q, j.fence, 20000);
	ns = t_now() - t0;
	t_query(j.d, j.q, &qq);
	tap_diag("a 2^40-element COPY under a 300 ms budget ended after %.0f ms: %s, reason %u, task %u",
		 ns / 1e6, strerror(-err), qq.fault_reason, qq.fault_task);
	tap_ok(err == -EIO && qq.fault_reason == DRM_NPU_FAULT_BUDGET &&
	       qq.fault_fence == j.fence && qq.fault_task == 0,
	       "job budget: a 2^40-element task becomes a BUDGET fault record");
	tap_ok(ns < 3000 * MS,
	       "job budget: ... within the budget (%.0f ms, budget 300 ms, bound 3 s)",
	       ns / 1e6);
	npu_dev_close(j.d);
	t_control("job_budget_ms", old);
}

/* Closing a file, or destroying a queue, aborts the task it runs. */
static void test_close_aborts(void)
{
	struct drm_npu_queue_destroy qd;
	struct long_job j;
	uint64_t t0, close_ns, destroy_ns = 0;
	uint32_t q2;
	int err, err2;

	err = long_job_start(&j, 40);
	if (!err) {
		long_job_wait_running(&j);
		err = long_job_done(&j) ? -EBUSY : 0;
	}
	t0 = t_now();
	npu_dev_close(j.d);
	close_ns = t_now() - t0;
	tap_diag("closing a file with a running 2^40-element task took %.3f ms",
		 close_ns / 1e6);
	tap_ok(!err && close_ns < 500 * MS,
	       "closing a file aborts its running task (close took %.1f ms < 500 ms)",
	       close_ns / 1e6);

	err2 = long_job_start(&j, 40);
	q2 = j.q;
	if (!err2) {
		long_job_wait_running(&j);
		memset(&qd, 0, sizeof(qd));
		qd.handle = q2;
		t0 = t_now();
		err2 = t_ioctl(j.d, DRM_IOCTL_NPU_QUEUE_DESTROY, &qd);
		destroy_ns = t_now() - t0;
	}
	tap_ok(!err2 && destroy_ns < 500 * MS,
	       "QUEUE_DESTROY aborts the queue's running task (%.1f ms < 500 ms)",
	       destroy_ns / 1e6);
	npu_dev_close(j.d);
}

/* ---- compaction does not wait for a running task ---- */

struct timed_ioctl {
	struct npu_dev *d;
	unsigned long req;
	void *arg;
	int err;
	uint64_t ns;
};

static void *timed_ioctl_thread(void *arg)
{
	struct timed_ioctl *ti = arg;
	uint64_t t0 = t_now();

	ti->err = t_ioctl(ti->d, ti->req, ti->arg);
	ti->ns = t_now() - t0;
	return NULL;
}

/*
 * A file runs a COPY of 2^32 elements (seconds) on a buffer that sits
 * above a hole; another file asks for a full compaction, which would move
 * that buffer, and a third creates a buffer and reads the memory
 * statistics meanwhile. None of them may wait for the task.
 */
static void test_compact_no_wait(void)
{
	struct drm_npu_compact c;
	struct drm_npu_bo_create bc;
	struct drm_npu_mem_stats ms;
	struct timed_ioctl ct;
	struct long_job j;
	struct npu_dev *d3 = NULL;
	uint32_t pad;
	uint64_t t0, create_ns, stats_ns;
	pthread_t th;
	bool running;
	int err;

	/* a hole below the long job's buffers, so compaction wants them */
	pad = t_bo(T.d, 1 << 20);
	err = long_job_start(&j, 32);
	t_close_bo(T.d, pad);
	if (err || t_open_again(&d3)) {
		tap_ok(false, "compaction during a long task: setup (%s)",
		       strerror(-err));
		goto out;
	}
	long_job_wait_running(&j);

	memset(&c, 0, sizeof(c));
	ct = (struct timed_ioctl){ T.d, DRM_IOCTL_NPU_COMPACT, &c, 0, 0 };
	pthread_create(&th, NULL, timed_ioctl_thread, &ct);
	{
		struct timespec ts = { 0, 5 * 1000000 };

		nanosleep(&ts, NULL);	/* let the compaction start first */
	}
	memset(&bc, 0, sizeof(bc));
	bc.size = 64 << 10;
	t0 = t_now();
	err = t_ioctl(d3, DRM_IOCTL_NPU_BO_CREATE, &bc);
	create_ns = t_now() - t0;
	memset(&ms, 0, sizeof(ms));
	t0 = t_now();
	t_ioctl(d3, DRM_IOCTL_NPU_MEM_STATS, &ms);
	stats_ns = t_now() - t0;
	pthread_join(th, NULL);
	running = !long_job_done(&j);
	tap_diag("during a long task: COMPACT %.3f ms (moved %llu bytes), another file's BO_CREATE %.3f ms, MEM_STATS %.3f ms",
		 ct.ns / 1e6, (unsigned long long)c.bytes_moved,
		 create_ns / 1e6, stats_ns / 1e6);
	tap_ok(ct.err == 0 && ct.ns < 200 * MS,
	       "COMPACT while another file's task runs returns at once (%.1f ms < 200 ms)",
	       ct.ns / 1e6);
	tap_ok(err == 0 && create_ns < 200 * MS && stats_ns < 200 * MS,
	       "BO_CREATE and MEM_STATS of a third file during that compaction return at once (%.1f, %.1f ms < 200 ms)",
	       create_ns / 1e6, stats_ns / 1e6);
	tap_ok(running, "... while the long task was still running");
out:
	npu_dev_close(d3);
	npu_dev_close(j.d);
}

/* ---- no lost wake-up: chains of semaphores across many streams ---- */

/*
 * NS streams; in each round stream i waits for stream i + 1 (SEM_WAIT task
 * or job-level wait), runs a NOP and signals its own semaphore (SEM_SIGNAL
 * task or job-level signal); the last stream waits for nothing. In the
 * rounds with tasks, every stream then waits for stream 0, the end of the
 * chain, so a stream that has signalled neither retires a job nor has a
 * compute task: nothing but the signal itself can wake a core for the
 * stream it unblocked. Queues are created and submitted in order 0..NS-1,
 * so a scheduler that scans them in that order sees stream i blocked
 * before stream i + 1 signals it. With one AI core that is where a lost
 * wake-up hangs the round.
 */
static void test_sem_chains(void)
{
	enum { NS = 8, ROUNDS = 300 };
	struct drm_npu_task tw[4], tl[3], nop;
	uint32_t q[NS], s[NS], pw = 0, pl = 0, pn = 0;
	struct drm_npu_sem_point b[3], w, sg;
	uint64_t fence[NS], t0, worst = 0;
	int i, r, hung = -1, err = 0;

	memset(q, 0, sizeof(q));
	memset(s, 0, sizeof(s));
	memset(&nop, 0, sizeof(nop));
	nop.opcode = DRM_NPU_OP_NOP;
	tw[0] = t_sem_task(DRM_NPU_OP_SEM_WAIT, 0, 0);
	tw[1] = nop;
	tw[2] = t_sem_task(DRM_NPU_OP_SEM_SIGNAL, 1, 0);
	tw[3] = t_sem_task(DRM_NPU_OP_SEM_WAIT, 2, 0);
	tl[0] = nop;
	tl[1] = t_sem_task(DRM_NPU_OP_SEM_SIGNAL, 0, 0);
	tl[2] = t_sem_task(DRM_NPU_OP_SEM_WAIT, 1, 0);
	for (i = 0; i < NS; i++) {
		q[i] = t_queue(T.d, 1);
		s[i] = t_sem(T.d, 0);
	}
	err = t_prog(T.d, tw, 4, &pw);
	if (!err)
		err = t_prog(T.d, tl, 3, &pl);
	if (!err)
		err = t_prog(T.d, &nop, 1, &pn);
	for (i = 0; i < NS && !err; i++)
		if (!q[i] || !s[i])
			err = -ENOMEM;
	if (err) {
		tap_ok(false, "semaphore chains: setup (%s)", strerror(-err));
		goto out;
	}
	for (r = 1; r <= ROUNDS && hung < 0 && !err; r++) {
		bool tasks = r % 2;	/* odd rounds: SEM tasks; even: job level */

		t0 = t_now();
		for (i = 0; i < NS && !err; i++) {
			struct drm_npu_submit sb;
			bool last = i == NS - 1;

			memset(&sb, 0, sizeof(sb));
			sb.queue = q[i];
			if (tasks && last) {
				b[0] = (struct drm_npu_sem_point){ s[i], 0, r };
				b[1] = (struct drm_npu_sem_point){ s[0], 0, r };
				sb.program = pl;
				sb.sem_bindings_ptr = (uintptr_t)b;
				sb.num_sem_bindings = 2;
			} else if (tasks) {
				b[0] = (struct drm_npu_sem_point){
					s[i + 1], 0, r };
				b[1] = (struct drm_npu_sem_point){ s[i], 0, r };
				b[2] = (struct drm_npu_sem_point){ s[0], 0, r };
				sb.program = pw;
				sb.sem_bindings_ptr = (uintptr_t)b;
				sb.num_sem_bindings = 3;
			} else {
				w = (struct drm_npu_sem_point){
					last ? 0 : s[i + 1], 0, r };
				sg = (struct drm_npu_sem_point){ s[i], 0, r };
				sb.program = pn;
				sb.waits_ptr = (uintptr_t)&w;
				sb.num_waits = last ? 0 : 1;
				sb.signals_ptr = (uintptr_t)&sg;
				sb.num_signals = 1;
			}
			err = t_ioctl(T.d, DRM_IOCTL_NPU_SUBMIT, &sb);
			fence[i] = sb.fence;
		}
		for (i = 0; i < NS && !err && hung < 0; i++)
			if (t_wait(T.d, q[i], fence[i], 5000))
				hung = r;
		if (t_now() - t0 > worst)
			worst = t_now() - t0;
	}
	tap_diag("semaphore chains: %d rounds of %d streams, slowest round %.3f ms",
		 r - 1, NS, worst / 1e6);
	tap_ok(!err && hung < 0,
	       "semaphore chains over %d streams: %d rounds complete, no lost wake-up%s",
	       NS, ROUNDS, hung < 0 ? "" : " (a round hung)");
	if (hung >= 0)
		tap_diag("round %d hung for 5 s", hung);
out:
	/* unblock anything still waiting, then tear down */
	for (i = 0; i < NS; i++) {
		struct drm_npu_sem_signal sig = { .handle = s[i],
						  .value = ~0ull >> 1 };

		if (s[i])
			t_ioctl(T.d, DRM_IOCTL_NPU_SEM_SIGNAL, &sig);
	}
	for (i = 0; i < NS; i++) {
		t_queue_destroy(T.d, q[i]);
		t_sem_destroy(T.d, s[i]);
	}
	t_prog_destroy(T.d, pw);
	t_prog_destroy(T.d, pl);
	t_prog_destroy(T.d, pn);
}

/* ---- per-file limits ---- */

enum lim_kind { LIM_QUEUES, LIM_SEMS, LIM_PROGRAMS, LIM_PROG_BYTES };

/* Create one object of @kind in @d; 0 or -errno. */
static int lim_make(struct npu_dev *d, enum lim_kind kind, uint32_t ntasks)
{
	struct drm_npu_queue_create qc = { .priority = 1 };
	struct drm_npu_sem_create sc = { 0 };
	struct drm_npu_task *t;
	uint32_t h, i;
	int err;

	switch (kind) {
	case LIM_QUEUES:
		return t_ioctl(d, DRM_IOCTL_NPU_QUEUE_CREATE, &qc);
	case LIM_SEMS:
		return t_ioctl(d, DRM_IOCTL_NPU_SEM_CREATE, &sc);
	default:
		t = calloc(ntasks, sizeof(*t));
		if (!t)
			return -ENOMEM;
		for (i = 0; i < ntasks; i++)
			t[i].opcode = DRM_NPU_OP_NOP;
		err = t_prog(d, t, ntasks, &h);
		free(t);
		return err;
	}
}

/*
 * With the limit set to @limit for new files, a new file makes @count
 * objects (of @ntasks tasks for programs), the next one fails with EDQUOT,
 * and another file can still make one. DEVICE_INFO reports the limit.
 * @count 0: make programs until refused; what was made must hold between
 * half the limit and the limit in task bytes.
 */
static void test_limit(const char *knob, enum lim_kind kind, uint64_t limit,
		       uint64_t restore, uint32_t ntasks, uint32_t count)
{
	struct drm_npu_device_info di;
	struct npu_dev *d2 = NULL, *d3 = NULL;
	uint64_t reported = 0;
	uint32_t i;
	int err = 0, over, other;

	if (t_control(knob, limit)) {
		tap_ok(false, "per-file limit %s: knob", knob);
		return;
	}
	if (t_open_again(&d2) || t_open_again(&d3)) {
		tap_ok(false, "per-file limit %s: open", knob);
		goto out;
	}
	memset(&di, 0, sizeof(di));
	t_ioctl(d2, DRM_IOCTL_NPU_DEVICE_INFO, &di);
	reported = kind == LIM_QUEUES ? di.file_queues :
		   kind == LIM_SEMS ? di.file_semaphores :
		   kind == LIM_PROGRAMS ? di.file_programs :
		   di.file_program_bytes;
	if (!count) {
		uint64_t each = (uint64_t)ntasks * sizeof(struct drm_npu_task);

		for (i = 0; i < 10000 && !err; i++)
			err = lim_make(d2, kind, ntasks);
		count = i - 1;
		over = err;
		err = !(count * each <= limit && 2 * (count + 1) * each > limit);
		tap_diag("%u programs of %u tasks (%llu task bytes each) fit %llu bytes",
			 count, ntasks, (unsigned long long)each,
			 (unsigned long long)limit);
	} else {
		for (i = 0; i < count && !err; i++)
			err = lim_make(d2, kind, ntasks);
		over = lim_make(d2, kind, ntasks);
	}
	other = lim_make(d3, kind, ntasks);
	tap_ok(reported == limit && !err && over == -EDQUOT && !other,
	       "per-file limit %s=%llu: DEVICE_INFO reports it, %u made, the next -> EDQUOT (%s), another file is not affected",
	       knob, (unsigned long long)limit, count, strerror(-over));
out:
	npu_dev_close(d2);
	npu_dev_close(d3);
	t_control(knob, restore);
}

static void test_limits(void)
{
	struct drm_npu_bo_create c;
	struct npu_dev *d2 = NULL, *d3 = NULL;
	uint64_t q = T.info.file_vram_quota;
	int over = 0, fits = 0;

	tap_ok(T.info.file_queues && T.info.file_semaphores &&
	       T.info.file_semaphores <= T.info.num_semaphores &&
	       T.info.file_programs && T.info.file_program_bytes &&
	       q && q < T.info.vram_size && T.info.job_budget_ms,
	       "DEVICE_INFO reports the limits: %u queues, %u of %u semaphores, %u programs of %llu bytes, %llu of %llu bytes of VRAM per file; job budget %llu ms",
	       T.info.file_queues, T.info.file_semaphores,
	       T.info.num_semaphores, T.info.file_programs,
	       (unsigned long long)T.info.file_program_bytes,
	       (unsigned long long)q, (unsigned long long)T.info.vram_size,
	       (unsigned long long)T.info.job_budget_ms);
	test_limit("file_queues", LIM_QUEUES, 5, T.info.file_queues, 0, 5);
	test_limit("file_sems", LIM_SEMS, 3, T.info.file_semaphores, 0, 3);
	test_limit("file_programs", LIM_PROGRAMS, 4, T.info.file_programs,
		   1, 4);
	test_limit("file_program_bytes", LIM_PROG_BYTES, 8 << 20,
		   T.info.file_program_bytes, 1000, 0);

	/* the default VRAM quota: one file cannot take all VRAM */
	if (!q || t_open_again(&d2) || t_open_again(&d3)) {
		tap_ok(false, "default VRAM quota: setup");
		goto out;
	}
	memset(&c, 0, sizeof(c));
	c.size = q + 4096;
	over = t_ioctl(d2, DRM_IOCTL_NPU_BO_CREATE, &c);
	memset(&c, 0, sizeof(c));
	c.size = (T.info.vram_size - q) / 2;
	fits = t_ioctl(d3, DRM_IOCTL_NPU_BO_CREATE, &c);
	tap_ok(over == -EDQUOT && fits == 0,
	       "default VRAM quota (%llu of %llu MiB): more -> EDQUOT (%d), the rest stays for other files (%d)",
	       (unsigned long long)(q >> 20),
	       (unsigned long long)(T.info.vram_size >> 20), over, fits);
out:
	npu_dev_close(d2);
	npu_dev_close(d3);
}

/* ---- the pick does not grow with the number of queues ---- */

/* Median round trip of a NOP job on a queue of @d, in ns. */
static uint64_t nop_latency(struct npu_dev *d, uint32_t q, uint32_t prog)
{
	enum { N = 201 };
	uint64_t ns[N], fence, t0, tmp;
	int i, k;

	for (i = 0; i < N; i++) {
		t0 = t_now();
		if (t_submit(d, q, prog, NULL, 0, &fence) ||
		    t_wait(d, q, fence, 10000))
			return ~0ull;
		ns[i] = t_now() - t0;
	}
	for (i = 1; i < N; i++)		/* insertion sort: N is small */
		for (k = i; k > 0 && ns[k - 1] > ns[k]; k--) {
			tmp = ns[k];
			ns[k] = ns[k - 1];
			ns[k - 1] = tmp;
		}
	return ns[N / 2];
}

/*
 * Another file holds @nq queues, of which some have a job blocked on a
 * semaphore; our NOP job's latency must not grow with them.
 */
static void test_many_queues(void)
{
	uint32_t nq = 100000, nblocked = 1000, made = 0, q, prog = 0, sem = 0;
	uint32_t pw = 0;
	struct drm_npu_task nop, wt[2];
	struct npu_dev *d2 = NULL;
	uint64_t base, many, t0;
	bool lifted = false;
	int err;

	memset(&nop, 0, sizeof(nop));
	nop.opcode = DRM_NPU_OP_NOP;
	q = t_queue(T.d, 1);
	if (!q || t_prog(T.d, &nop, 1, &prog)) {
		tap_ok(false, "many queues: setup");
		goto out;
	}
	base = nop_latency(T.d, q, prog);
	/* lift the per-file queue limit for the other file */
	lifted = t_control("file_queues", nq) == 0;
	if (t_open_again(&d2)) {
		tap_ok(false, "many queues: second open");
		goto out;
	}
	sem = t_sem(d2, 0);
	wt[0] = t_sem_task(DRM_NPU_OP_SEM_WAIT, 0, 1);
	wt[1] = nop;
	err = sem ? t_prog(d2, wt, 2, &pw) : -ENOMEM;
	t0 = t_now();
	for (made = 0; made < nq && !err; made++) {
		struct drm_npu_queue_create qc = { .priority = 1 };
		struct drm_npu_sem_point b = { sem, 0, 0 };
		struct drm_npu_submit sb;

		err = t_ioctl(d2, DRM_IOCTL_NPU_QUEUE_CREATE, &qc);
		if (err || made >= nblocked)
			continue;
		memset(&sb, 0, sizeof(sb));
		sb.queue = qc.handle;
		sb.program = pw;
		sb.sem_bindings_ptr = (uintptr_t)&b;
		sb.num_sem_bindings = 1;
		err = t_ioctl(d2, DRM_IOCTL_NPU_SUBMIT, &sb);
	}
	if (err)
		made--;
	tap_diag("another file made %u queues in %.0f ms (%u with a blocked job)",
		 made, (t_now() - t0) / 1e6, made < nblocked ? made : nblocked);
	many = nop_latency(T.d, q, prog);
	tap_diag("NOP job round trip: %.4f ms alone, %.4f ms beside %u queues of another file",
		 base / 1e6, many / 1e6, made);
	tap_ok(made >= 10000 && many < base + 300000,
	       "the pick does not grow with another file's %u queues (%.4f ms vs %.4f ms alone)",
	       made, many / 1e6, base / 1e6);
out:
	npu_dev_close(d2);
	if (lifted)
		t_control("file_queues", T.info.file_queues);
	t_prog_destroy(T.d, prog);
	t_queue_destroy(T.d, q);
}

void test_bounded(void)
{
	test_job_budget();
	test_close_aborts();
	test_compact_no_wait();
	test_limits();
	test_many_queues();
}

void test_wakeup(void)
{
	test_sem_chains();
}
