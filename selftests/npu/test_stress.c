// SPDX-License-Identifier: MIT
/*
 * test_stress.c - the device under concurrency: buffers moved by compaction
 * between the tasks of a running job, and several threads submitting on
 * their own queues at once.
 */
#include "npu_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * A 64-task COPY chain runs over buffer B while the host frees the buffer in
 * front of B and compacts, again and again: B moves between tasks, and the
 * chain must still carry its value to the end.
 */
static void test_move_under_job(void)
{
	enum { N = 64, E = 256, SZ = (N + 1) * E * 4 };
	struct drm_npu_task *t = calloc(N, sizeof(*t));
	struct drm_npu_bo_info bi;
	struct drm_npu_compact c;
	uint32_t q = t_queue(T.d, 0), front = t_bo(T.d, 1 << 20);
	uint32_t bo = t_bo(T.d, SZ), prog, round = 0;
	float *p = t_map(T.d, bo, SZ);
	uint64_t fence, moved = 0;
	struct drm_npu_queue_query qq;
	bool ok = true;
	int k, i;

	if (!t || !q || !front || !p) {
		tap_ok(false, "move under job: setup");
		goto out;
	}
	for (k = 0; k < N; k++)
		t[k] = t_copy(0, (uint64_t)k * E * 4, 0,
			      (uint64_t)(k + 1) * E * 4, E);
	for (i = 0; i < E; i++)
		p[i] = (float)i - 100.0f;
	if (t_prog(T.d, t, N, &prog)) {
		tap_ok(false, "move under job: program");
		goto out;
	}
	t_control("slow_us", 3000);
	t_submit(T.d, q, prog, &bo, 1, &fence);
	/*
	 * Open a hole in front of B and let compaction close it. Compaction
	 * skips a buffer a task is using at that moment (it never waits for a
	 * running task), so ask again until B has moved between two tasks.
	 */
	t_close_bo(T.d, front);
	front = 0;
	do {
		memset(&c, 0, sizeof(c));
		t_ioctl(T.d, DRM_IOCTL_NPU_COMPACT, &c);
		moved += c.bytes_moved;
		t_query(T.d, q, &qq);
		memset(&bi, 0, sizeof(bi));
		bi.handle = bo;
		t_ioctl(T.d, DRM_IOCTL_NPU_BO_INFO, &bi);
		round = qq.completed < fence;	/* the job still runs */
		if (!bi.moves && round)
			nanosleep(&(struct timespec){ 0, 200000 }, NULL);
	} while (!bi.moves && round);
	tap_err(t_wait(T.d, q, fence, 30000), 0,
		"move under job: the chain completes (compaction moved %llu bytes%s)",
		(unsigned long long)moved, round ? " while it ran" : "");
	t_control("slow_us", 0);
	for (i = 0; i < E; i++)
		ok &= p[N * E + i] == (float)i - 100.0f;
	memset(&bi, 0, sizeof(bi));
	bi.handle = bo;
	t_ioctl(T.d, DRM_IOCTL_NPU_BO_INFO, &bi);
	tap_diag("the chain's buffer moved %llu times while the job ran",
		 (unsigned long long)bi.moves);
	tap_ok(ok && bi.moves >= 1, "move under job: the buffer moved, the value reached the end of the chain and reads back through the moved mapping");
	t_prog_destroy(T.d, prog);
out:
	t_unmap(T.d, p, SZ);
	t_close_bo(T.d, bo);
	t_close_bo(T.d, front);
	t_queue_destroy(T.d, q);
	free(t);
}

struct submitter {
	pthread_t th;
	uint32_t prog, bos[2];
	int errors;
};

static void *submit_many(void *arg)
{
	struct submitter *s = arg;
	uint32_t q = t_queue(T.d, 0);
	uint64_t fence = 0;
	int i;

	if (!q) {
		s->errors++;
		return NULL;
	}
	for (i = 0; i < 50; i++)
		if (t_submit(T.d, q, s->prog, s->bos, 2, &fence))
			s->errors++;
	if (t_wait(T.d, q, fence, 60000))
		s->errors++;
	t_queue_destroy(T.d, q);
	return NULL;
}

static void test_threads(void)
{
	enum { NT = 4 };
	struct drm_npu_task t = t_copy(0, 0, 1, 0, 4096);
	struct submitter s[NT];
	uint32_t prog;
	float *a[NT], *b[NT];
	bool ok = true;
	int i, j, errors = 0;

	if (t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "threads: program");
		return;
	}
	memset(s, 0, sizeof(s));
	for (i = 0; i < NT; i++) {
		s[i].prog = prog;
		s[i].bos[0] = t_bo(T.d, 16384);
		s[i].bos[1] = t_bo(T.d, 16384);
		a[i] = t_map(T.d, s[i].bos[0], 16384);
		b[i] = t_map(T.d, s[i].bos[1], 16384);
		for (j = 0; a[i] && j < 4096; j++)
			a[i][j] = (float)(i * 10000 + j);
	}
	for (i = 0; i < NT; i++)
		pthread_create(&s[i].th, NULL, submit_many, &s[i]);
	for (i = 0; i < NT; i++) {
		pthread_join(s[i].th, NULL);
		errors += s[i].errors;
	}
	for (i = 0; i < NT; i++)
		for (j = 0; b[i] && j < 4096; j++)
			ok &= b[i][j] == (float)(i * 10000 + j);
	tap_ok(errors == 0 && ok,
	       "threads: 4 threads x 50 jobs on their own queues, all complete with the right data");
	for (i = 0; i < NT; i++) {
		t_unmap(T.d, a[i], 16384);
		t_unmap(T.d, b[i], 16384);
		t_close_bo(T.d, s[i].bos[0]);
		t_close_bo(T.d, s[i].bos[1]);
	}
	t_prog_destroy(T.d, prog);
}

/* Close a whole file while its jobs are queued and running. */
static void test_close_busy_file(void)
{
	struct drm_npu_task t = t_copy(0, 0, 1, 0, 64);
	struct drm_npu_mem_stats before, after;
	struct npu_dev *d2;
	uint32_t q, prog, bos[2];
	int i, err = 0;

	memset(&before, 0, sizeof(before));
	memset(&after, 0, sizeof(after));
	t_ioctl(T.d, DRM_IOCTL_NPU_MEM_STATS, &before);
	if (t_open_again(&d2)) {
		tap_skip("cannot open twice", "close a file with jobs in flight");
		return;
	}
	q = t_queue(d2, 0);
	bos[0] = t_bo(d2, 4096);
	bos[1] = t_bo(d2, 4096);
	t_control("slow_us", 2000);
	if (t_prog(d2, &t, 1, &prog) == 0)
		for (i = 0; i < 20; i++)
			err |= t_submit(d2, q, prog, bos, 2, NULL);
	npu_dev_close(d2);
	t_ioctl(T.d, DRM_IOCTL_NPU_MEM_STATS, &after);
	t_control("slow_us", 0);
	tap_ok(after.vram_used == before.vram_used,
	       "close a file with jobs in flight: its VRAM is back when close returns (%llu -> %llu bytes used)",
	       (unsigned long long)before.vram_used,
	       (unsigned long long)after.vram_used);
	bos[0] = t_bo(T.d, 4096);
	tap_ok(err == 0 && bos[0] != 0,
	       "close a file with 20 jobs in flight: the device carries on");
	t_close_bo(T.d, bos[0]);
}


/* Round trip of an empty job, and back-to-back submissions (figures only). */
static void test_latency(void)
{
	struct drm_npu_task t;
	uint32_t q = t_queue(T.d, 0), prog;
	uint64_t fence = 0, t0, rt, bb;
	int i, err = 0;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_NOP;
	if (!q || t_prog(T.d, &t, 1, &prog)) {
		tap_ok(false, "latency: NOP program");
		t_queue_destroy(T.d, q);
		return;
	}
	t0 = t_now();
	for (i = 0; i < 1000 && !err; i++) {
		err = t_submit(T.d, q, prog, NULL, 0, &fence);
		if (!err)
			err = t_wait(T.d, q, fence, 10000);
	}
	rt = (t_now() - t0) / 1000;
	t0 = t_now();
	for (i = 0; i < 1000 && !err; i++)
		err = t_submit(T.d, q, prog, NULL, 0, &fence);
	if (!err)
		err = t_wait(T.d, q, fence, 60000);
	bb = (t_now() - t0) / 1000;
	tap_diag("empty job: %llu ns submit-to-wait round trip, %llu ns per job back to back",
		 (unsigned long long)rt, (unsigned long long)bb);
	tap_err(err, 0, "latency: 2000 NOP jobs without buffers complete");
	t_prog_destroy(T.d, prog);
	t_queue_destroy(T.d, q);
}

void test_stress(void)
{
	test_move_under_job();
	test_threads();
	test_close_busy_file();
	test_latency();
}
