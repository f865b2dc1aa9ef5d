// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * file.c - one open of the device: handle tables and their lookups. Every
 * lookup returns a new reference, taken under the file lock, so a concurrent
 * destroy of the same handle cannot free the object under the caller.
 */
#include "npu_core_priv.h"

int npu_core_file_open(struct npu_device *dev, void *home_file,
		       struct npu_file **out)
{
	struct npu_file *f = npu_zalloc(sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->acct = npu_zalloc(sizeof(*f->acct));
	if (!f->acct) {
		npu_free(f);
		return -ENOMEM;
	}
	npu_ref_init(&f->acct->ref);
	npu_mutex_lock(&dev->lock);
	f->lim = dev->limits;
	f->acct->quota = f->lim.vram;
	npu_mutex_unlock(&dev->lock);
	f->dev = dev;
	f->home_file = home_file;
	f->job_key_base = npu_random_u64();
	npu_mutex_init(&f->lock);
	*out = f;
	return 0;
}

void npu_core_file_close(struct npu_file *f)
{
	u32 i;

	for (i = 0; i < f->queues.cap; i++)
		if (f->queues.objs[i])
			npu_queue_close(f->queues.objs[i]);
	for (i = 0; i < f->programs.cap; i++)
		if (f->programs.objs[i])
			npu_program_put(f->programs.objs[i]);
	for (i = 0; i < f->sems.cap; i++)
		if (f->sems.objs[i])
			npu_sem_put(f->sems.objs[i]);
	for (i = 0; i < f->bos.cap; i++)
		if (f->bos.objs[i])
			npu_bo_put(f->bos.objs[i]);
	npu_handles_fini(&f->queues);
	npu_handles_fini(&f->programs);
	npu_handles_fini(&f->sems);
	npu_handles_fini(&f->bos);
	if (npu_ref_put(&f->acct->ref))
		npu_free(f->acct);
	npu_mutex_destroy(&f->lock);
	npu_free(f);
}

int npu_core_gem_close(struct npu_file *f, u32 handle)
{
	struct npu_bo *bo;

	npu_mutex_lock(&f->lock);
	bo = npu_handles_remove(&f->bos, handle);
	npu_mutex_unlock(&f->lock);
	if (!bo)
		return -EINVAL;
	npu_bo_put(bo);
	return 0;
}

struct npu_bo *npu_core_file_bo_lookup(struct npu_file *f, u32 handle)
{
	struct npu_bo *bo;

	if (f->dev->ops.bo_lookup)
		return f->dev->ops.bo_lookup(f->home_file, handle);
	npu_mutex_lock(&f->lock);
	bo = npu_handles_find(&f->bos, handle);
	if (bo)
		npu_bo_get(bo);
	npu_mutex_unlock(&f->lock);
	return bo;
}

int npu_core_file_bo_import(struct npu_file *f, struct npu_bo *bo,
			    u32 *handle)
{
	int err = 0;
	u32 i;

	err = npu_core_bo_peer_check(f->dev, bo);
	if (err)
		return err;
	npu_mutex_lock(&f->lock);
	for (i = 0; i < f->bos.cap; i++) {
		if (f->bos.objs[i] == bo) {
			*handle = i + 1;	/* one handle per buffer, as DRM */
			goto out;
		}
	}
	npu_bo_get(bo);
	err = npu_handles_alloc(&f->bos, bo, handle);
	if (err)
		npu_bo_put(bo);
out:
	npu_mutex_unlock(&f->lock);
	return err;
}

bool npu_core_file_has_bo(struct npu_file *f, struct npu_bo *bo)
{
	bool found = false;
	u32 i;

	npu_mutex_lock(&f->lock);
	for (i = 0; i < f->bos.cap && !found; i++)
		found = f->bos.objs[i] == bo;
	npu_mutex_unlock(&f->lock);
	return found;
}

struct npu_queue *npu_file_queue(struct npu_file *f, u32 handle)
{
	struct npu_queue *q;

	npu_mutex_lock(&f->lock);
	q = npu_handles_find(&f->queues, handle);
	if (q)
		npu_ref_get(&q->ref);
	npu_mutex_unlock(&f->lock);
	return q;
}

struct npu_sem *npu_file_sem(struct npu_file *f, u32 handle)
{
	struct npu_sem *s;

	npu_mutex_lock(&f->lock);
	s = npu_handles_find(&f->sems, handle);
	if (s)
		npu_ref_get(&s->ref);
	npu_mutex_unlock(&f->lock);
	return s;
}

struct npu_program *npu_file_program(struct npu_file *f, u32 handle)
{
	struct npu_program *p;

	npu_mutex_lock(&f->lock);
	p = npu_handles_find(&f->programs, handle);
	if (p)
		npu_ref_get(&p->ref);
	npu_mutex_unlock(&f->lock);
	return p;
}

u64 npu_core_file_busy_ns(struct npu_file *f)
{
	struct npu_device *dev = f->dev;
	u64 ns, now = npu_time_ns();
	u32 i;

	npu_mutex_lock(&dev->lock);
	ns = f->acct->busy_ns;
	for (i = 0; i < dev->num_cores; i++) {
		struct npu_job *job = dev->cores[i].job;

		if (job && job->queue->acct == f->acct)
			ns += now - dev->cores[i].start_ns;
	}
	npu_mutex_unlock(&dev->lock);
	return ns;
}

u64 npu_core_file_vram(struct npu_file *f)
{
	u64 used;

	npu_mutex_lock(&f->dev->pool_lock);
	used = f->acct->used;
	npu_mutex_unlock(&f->dev->pool_lock);
	return used;
}

/**
 * npu_file_limit() - check a request against a per-file limit
 * @f: the file
 * @what: the limit's name, as its knob and module parameter
 * @in_use: what the file holds now
 * @asked: what it asks for in addition
 * @limit: the limit
 *
 * Says in the log which limit a refused request hit, with what was asked
 * and what was left (rate limited in the kernel).
 *
 * Return: 0 or -EDQUOT.
 */
int npu_file_limit(struct npu_file *f, const char *what, u64 in_use,
		   u64 asked, u64 limit)
{
	if (in_use <= limit && asked <= limit - in_use)
		return 0;
	npu_limit_info("per-file limit %s: asked for %llu, %llu of %llu left\n",
		       what, (unsigned long long)asked,
		       (unsigned long long)(in_use < limit ? limit - in_use : 0),
		       (unsigned long long)limit);
	return -EDQUOT;
}

/*
 * What a program of @num_tasks tasks costs the file: its tasks and the
 * tables derived from them (extents, shareability), an upper bound known
 * before anything is copied in.
 */
static u64 npu_program_cost(u32 num_tasks)
{
	return (u64)num_tasks * (sizeof(struct drm_npu_task) +
				 DRM_NPU_MAX_OPERANDS * sizeof(u64) + 1) +
	       DRM_NPU_MAX_SLOTS * sizeof(u64) + sizeof(struct npu_program);
}

/**
 * npu_file_program_charge() - count a new program against the file's limits
 * @f: the file
 * @num_tasks: the program's tasks
 * @charge: out, what to give back with npu_file_program_uncharge()
 *
 * Return: 0 or -EDQUOT (programs or program bytes).
 */
int npu_file_program_charge(struct npu_file *f, u32 num_tasks, u64 *charge)
{
	u64 cost = npu_program_cost(num_tasks);
	int err;

	npu_mutex_lock(&f->lock);
	err = npu_file_limit(f, "file_programs", f->num_programs, 1,
			     f->lim.programs);
	if (!err)
		err = npu_file_limit(f, "file_program_bytes",
				     f->program_bytes, cost,
				     f->lim.program_bytes);
	if (!err) {
		f->num_programs++;
		f->program_bytes += cost;
		*charge = cost;
	}
	npu_mutex_unlock(&f->lock);
	return err;
}

/**
 * npu_file_program_uncharge() - a program's handle is gone (or never came)
 * @f: the file
 * @charge: from npu_file_program_charge(); 0 does nothing
 */
void npu_file_program_uncharge(struct npu_file *f, u64 charge)
{
	if (!charge)
		return;
	npu_mutex_lock(&f->lock);
	f->num_programs--;
	f->program_bytes -= charge;
	npu_mutex_unlock(&f->lock);
}

bool npu_mem_is_zero(const void *p, size_t len)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/**
 * npu_deadline() - check an absolute uapi timeout
 * @timeout_ns: absolute CLOCK_MONOTONIC nanoseconds from userspace
 * @deadline: out, for npu_waitq_wait()
 *
 * Return: 0, or -EINVAL for a negative timeout.
 */
int npu_deadline(s64 timeout_ns, u64 *deadline)
{
	if (timeout_ns < 0)
		return -EINVAL;
	*deadline = (u64)timeout_ns;
	return 0;
}

/* Whether a wait until @deadline has time enough left to serve. */
static bool npu_serve_time_left(u64 deadline)
{
	u64 now = npu_time_ns();

	return deadline > now && deadline - now >= NPU_SERVE_MIN_WAIT_NS;
}

/**
 * npu_wait_count() - sleep until a completion counter reaches a value
 * @dev: the device; its lock is held on entry and on return
 * @q: the queue whose completions @count counts, or NULL (a semaphore)
 * @count: a counter the device only advances under @dev->lock
 * @target: the value to wait for
 * @deadline: from npu_deadline(), or NPU_NO_DEADLINE
 *
 * Sleeps on @dev->done_wq, which is woken whenever work retires or a
 * semaphore moves. A wait that times out or is interrupted in the same
 * moment the counter arrives still counts as done. On a device that serves
 * waits, a fence wait (@q) with NPU_SERVE_MIN_WAIT_NS or more left first
 * runs its queue's ready tasks as an idle AI core (npu_serve()), checking
 * the counter between them; it sleeps when there is nothing it can run.
 * A shorter wait, a semaphore's wait and a poll only sleep: a task
 * started on the waiter's thread runs to its end, so a wait that serves
 * can end past its deadline by the rest of that task, never by a task of
 * another queue.
 *
 * Return: 0 once *@count >= @target, else the wait's error.
 */
int npu_wait_count(struct npu_device *dev, struct npu_queue *q,
		   const u64 *count, u64 target, u64 deadline)
{
	int err;

	while (*count < target) {
		if (dev->serve_waits && q && npu_serve_time_left(deadline) &&
		    npu_serve(dev, q, count, target, deadline))
			continue;
		err = npu_waitq_wait_interruptible(&dev->done_wq, &dev->lock,
						   deadline);
		if (err && *count < target)
			return err;
	}
	return 0;
}
