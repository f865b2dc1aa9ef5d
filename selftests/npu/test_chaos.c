// SPDX-License-Identifier: MIT
/*
 * test_chaos.c - several opens on several threads doing everything at once:
 * buffers created, mapped, copied by jobs and closed mid-flight, queues and
 * semaphores coming and going, compaction moving buffers under running
 * jobs. Each thread checks the data of every job it waits for; the device
 * must neither crash nor corrupt anything (run it under ASan/TSan too).
 */
#include "npu_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CHAOS_THREADS	3
#define CHAOS_ROUNDS	150

static pthread_rwlock_t cpu_vs_compaction = PTHREAD_RWLOCK_INITIALIZER;

struct chaos {
	pthread_t th;
	unsigned int seed;
	int errors;
	int jobs;
	int compactions;
};

static uint32_t chaos_rand(struct chaos *c)
{
	c->seed = c->seed * 1103515245u + 12345u;
	return c->seed >> 8;
}

static void chaos_round(struct chaos *c, struct npu_dev *d, uint32_t q)
{
	uint32_t n = 256 + chaos_rand(c) % 8192, bytes = n * 4, prog;
	uint32_t bos[2] = { t_bo(d, bytes), t_bo(d, bytes) };
	struct drm_npu_task t = t_copy(0, 0, 1, 0, n);
	float *a = t_map(d, bos[0], bytes), *b = NULL;
	uint64_t fence;
	uint32_t i, salt = chaos_rand(c);
	bool early_close = chaos_rand(c) % 3 == 0;
	int err;

	if (!bos[0] || !bos[1] || !a) {
		c->errors++;
		goto out;
	}
	pthread_rwlock_rdlock(&cpu_vs_compaction);
	for (i = 0; i < n; i++)
		a[i] = (float)((i ^ salt) & 0xffff);
	pthread_rwlock_unlock(&cpu_vs_compaction);
	if (t_prog(d, &t, 1, &prog)) {
		c->errors++;
		goto out;
	}
	err = t_submit(d, q, prog, bos, 2, &fence);
	t_prog_destroy(d, prog);	/* the job keeps the program */
	if (err) {
		c->errors++;
		goto out;
	}
	if (early_close) {		/* the job keeps the source too */
		t_unmap(d, a, bytes);
		a = NULL;
		t_close_bo(d, bos[0]);
		bos[0] = 0;
	}
	if (chaos_rand(c) % 4 == 0) {
		struct drm_npu_compact cp = { 0 };

		pthread_rwlock_wrlock(&cpu_vs_compaction);
		if (t_ioctl(d, DRM_IOCTL_NPU_COMPACT, &cp) == 0)
			c->compactions++;
		pthread_rwlock_unlock(&cpu_vs_compaction);
	}
	err = t_wait(d, q, fence, 30000);
	if (err) {
		c->errors++;
		goto out;
	}
	c->jobs++;
	b = t_map(d, bos[1], bytes);
	pthread_rwlock_rdlock(&cpu_vs_compaction);
	for (i = 0; b && i < n; i++) {
		if (b[i] != (float)((i ^ salt) & 0xffff)) {
			c->errors++;
			break;
		}
	}
	pthread_rwlock_unlock(&cpu_vs_compaction);
out:
	t_unmap(d, a, bytes);
	t_unmap(d, b, bytes);
	t_close_bo(d, bos[0]);
	t_close_bo(d, bos[1]);
}

static void *chaos_thread(void *arg)
{
	struct chaos *c = arg;
	struct npu_dev *d;
	uint32_t q = 0;
	int r;

	if (t_open_again(&d)) {
		c->errors++;
		return NULL;
	}
	for (r = 0; r < CHAOS_ROUNDS; r++) {
		if (!q || chaos_rand(c) % 16 == 0) {
			t_queue_destroy(d, q);
			q = t_queue(d, chaos_rand(c) % 3);
		}
		chaos_round(c, d, q);
	}
	/* leave a job in flight and close everything */
	chaos_round(c, d, q);
	npu_dev_close(d);
	return NULL;
}

void test_chaos(void)
{
	struct chaos c[CHAOS_THREADS];
	int i, errors = 0, jobs = 0, compactions = 0;

	memset(c, 0, sizeof(c));
	for (i = 0; i < CHAOS_THREADS; i++) {
		c[i].seed = 1234u + (unsigned int)i * 7919u;
		pthread_create(&c[i].th, NULL, chaos_thread, &c[i]);
	}
	for (i = 0; i < CHAOS_THREADS; i++) {
		pthread_join(c[i].th, NULL);
		errors += c[i].errors;
		jobs += c[i].jobs;
		compactions += c[i].compactions;
	}
	tap_diag("chaos: %d jobs checked, %d compactions", jobs, compactions);
	tap_ok(errors == 0 && jobs == CHAOS_THREADS * (CHAOS_ROUNDS + 1),
	       "chaos: %d threads with their own opens: jobs, closes and compaction at once, data intact (%d errors)",
	       CHAOS_THREADS, errors);
}
