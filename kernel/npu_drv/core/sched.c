// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * sched.c - the task scheduler (the device's firmware) and the AI cores.
 *
 * Each AI core is a worker thread. The scheduler keeps every queue that may
 * make progress on a run queue: a FIFO per hardware queue and priority
 * (dev->ready). A queue whose head job waits for a semaphore sits on that
 * semaphore's wait list instead, sorted by the value it waits for, and an
 * empty queue is on no list. A queue enters a run queue when a job is
 * submitted to it while it is idle, when its task on a core ends and it
 * has more work, and when a semaphore reaches the value it waits for
 * (npu_sem_update(), whoever moves the semaphore: the host's SEM_SIGNAL, a
 * job's signals, a SEM_SIGNAL task).
 *
 * An idle core takes dev->lock and picks: the highest priority with a ready
 * queue on a hardware queue that is not busy, and among those heads the one
 * that became ready first (so queues take turns, as the hardware does). It
 * advances that queue as far as it goes without a core (job-level waits,
 * SEM_WAIT and SEM_SIGNAL tasks, retiring finished jobs); if the next task
 * is a compute task, it runs it with no lock held, otherwise the queue goes
 * to a wait list or idles and the core picks again. The pick costs
 * O(hardware queues x priorities), whatever the number of queues; idle and
 * waiting queues cost nothing. A semaphore moved during a pick puts its
 * waiters on the run queues that the same pick then looks at, so no
 * wake-up is lost: a core only sleeps when no run queue of a free hardware
 * queue holds anything.
 *
 * Tasks of a queue run in order, one at a time; queues sharing a hardware
 * queue take turns task by task; different hardware queues run in parallel
 * on different cores.
 *
 * Faults: a failing task fails its job (a fault record on the queue) and
 * cancels every job queued behind it on that queue; the queue is then empty
 * and usable again. The semaphores the failed and cancelled jobs would have
 * signalled are signalled anyway, so that no other queue waits forever; the
 * error is reported on the faulting queue.
 */
#include "npu_core_priv.h"

/* Target time of one chunk of work units between two yields. */
#define NPU_CHUNK_NS		1000000ull

/*
 * Wake the parked AI cores (dev->lock held): new work may be ready. A core
 * lent to a waiter (npu_serve()) is left asleep; the waiter runs as it. A
 * core woken for work the device made ready (a task done, a semaphore
 * moved) is on its way and no longer lent; one woken for a host's
 * submission (@lendable) can still be: the submitting thread is about to
 * wait and may run the job itself before the core's thread is up.
 */
static void npu_kick_cores(struct npu_device *dev, bool lendable)
{
	u32 i;

	for (i = 0; i < dev->num_cores; i++) {
		struct npu_core_unit *c = &dev->cores[i];

		if (c->parked && !c->lent) {
			NPU_WRITE_ONCE(c->kicks, c->kicks + 1);
			NPU_WRITE_ONCE(c->parked, lendable);
			npu_waitq_wake_all(&c->park_wq);
		}
	}
}

/* Take @q off whatever list it is on (dev->lock held). */
static void npu_rq_detach(struct npu_device *dev, struct npu_queue *q)
{
	u32 i = q->hw * NPU_NUM_PRIO + q->priority;

	if (q->state == NPU_Q_IDLE)
		return;
	npu_list_del(&q->rlink);
	if (q->state == NPU_Q_READY && npu_list_empty(&dev->ready[i]))
		dev->ready_mask[q->priority] &= ~(1ull << q->hw);
	q->state = NPU_Q_IDLE;
}

/* Put @q at the tail of its run queue; the caller wakes the cores. */
static void npu_rq_enqueue(struct npu_device *dev, struct npu_queue *q)
{
	u32 i = q->hw * NPU_NUM_PRIO + q->priority;

	npu_rq_detach(dev, q);
	npu_list_add_tail(&q->rlink, &dev->ready[i]);
	dev->ready_mask[q->priority] |= 1ull << q->hw;
	q->ready_seq = ++dev->ready_seq;
	q->state = NPU_Q_READY;
	dev->kick++;
}

/* Put @q at the tail of its run queue and wake the idle cores. */
static void npu_rq_ready(struct npu_device *dev, struct npu_queue *q)
{
	npu_rq_enqueue(dev, q);
	npu_kick_cores(dev, false);
}

/*
 * @q's head job waits until semaphore @hw reaches @value (not yet there):
 * park it on the semaphore's list, kept sorted by value. Waits mostly come
 * in increasing order, so the walk from the tail is short.
 */
static void npu_rq_wait(struct npu_device *dev, struct npu_queue *q, u32 hw,
			u64 value)
{
	struct npu_list *head = &dev->sem_waiters[hw], *pos = head->prev;

	npu_rq_detach(dev, q);
	while (pos != head &&
	       npu_container_of(pos, struct npu_queue, rlink)->wait_value >
	       value)
		pos = pos->prev;
	npu_list_add_tail(&q->rlink, pos->next);
	q->wait_sem = hw;
	q->wait_value = value;
	q->state = NPU_Q_WAITING;
}

/**
 * npu_queue_submitted() - a job was appended to @q (dev->lock held)
 * @dev: the device
 * @q: the queue
 *
 * An idle queue becomes ready; a waiting, ready or running one is already
 * where its head job puts it.
 */
void npu_queue_submitted(struct npu_device *dev, struct npu_queue *q)
{
	dev->kick++;
	if (!q->running && q->state == NPU_Q_IDLE) {
		npu_rq_enqueue(dev, q);
		npu_kick_cores(dev, true);
	}
}

/**
 * npu_sem_update() - a hardware semaphore moves forward (dev->lock held)
 * @dev: the device
 * @hw: hardware semaphore index
 * @value: the new value; nothing happens unless it is above the current one
 *
 * The queues waiting for a value up to @value become ready, and host
 * waiters wake.
 */
void npu_sem_update(struct npu_device *dev, u32 hw, u64 value)
{
	struct npu_list *head = &dev->sem_waiters[hw];

	if (value <= dev->sem_values[hw])
		return;
	dev->sem_values[hw] = value;
	while (!npu_list_empty(head)) {
		struct npu_queue *q = npu_container_of(head->next,
						       struct npu_queue, rlink);

		if (q->wait_value > value)
			break;
		npu_rq_ready(dev, q);
	}
	dev->kick++;
	npu_waitq_wake_all(&dev->done_wq);
	npu_kick_cores(dev, false);
}

static void npu_queue_maybe_unlist(struct npu_device *dev, struct npu_queue *q)
{
	if (q->closing && q->listed && npu_list_empty(&q->jobs)) {
		npu_rq_detach(dev, q);
		npu_list_del(&q->link);
		q->listed = false;
		dev->hwq_users[q->hw]--;
	}
}

static void npu_sem_set(struct npu_device *dev, struct npu_sem *sem, u64 value)
{
	npu_sem_update(dev, sem->hw, value);
}

/* Signal what a job would still have signalled (fault or cancel path). */
static void npu_job_signal_rest(struct npu_device *dev, struct npu_job *job)
{
	u32 t;

	for (t = job->next; t < job->end; t++) {
		const struct drm_npu_task *task = &job->prog->tasks[t];
		const struct drm_npu_sem_params *sp = &task->params.sem;

		if (task->opcode != DRM_NPU_OP_SEM_SIGNAL)
			continue;
		npu_sem_set(dev, job->bindings[sp->index].sem,
			    job->bindings[sp->index].value + sp->value);
	}
}

static void npu_record_failed(struct npu_queue *q, u64 first, u64 last)
{
	if (q->num_failed &&
	    q->failed[q->num_failed - 1].last + 1 >= first) {
		q->failed[q->num_failed - 1].last = last;
		return;
	}
	if (q->num_failed == NPU_FAILED_RANGES) {
		/* Forget the oldest; documented limit of the fault history. */
		memmove(&q->failed[0], &q->failed[1],
			sizeof(q->failed[0]) * (NPU_FAILED_RANGES - 1));
		q->num_failed--;
	}
	q->failed[q->num_failed].first = first;
	q->failed[q->num_failed].last = last;
	q->num_failed++;
}

/**
 * npu_job_retire() - a job is done; under dev->lock
 * @dev: the device
 * @job: the head job of its queue (not running)
 * @status: 0 or enum drm_npu_fault_reason
 *
 * The job moves to dev->reap; npu_reap() frees it without locks held.
 */
void npu_job_retire(struct npu_device *dev, struct npu_job *job, u32 status)
{
	struct npu_queue *q = job->queue;
	u32 i;

	job->status = status;
	if (status) {
		npu_job_signal_rest(dev, job);
		npu_record_failed(q, job->fence, job->fence);
	}
	for (i = 0; i < job->num_signals; i++)
		npu_sem_set(dev, job->signals[i].sem, job->signals[i].value);
	for (i = 0; i < job->num_bos; i++)
		if (job->bos[i]->dev == dev)
			job->bos[i]->busy--;
	if (job->profile_bo)
		job->profile_bo->busy--;
	npu_list_del(&job->link);
	npu_list_add_tail(&job->link, &dev->reap);
	q->unreaped++;
	if (job->fence > q->completed)
		q->completed = job->fence;
	npu_queue_maybe_unlist(dev, q);
	npu_waitq_wake_all(&dev->done_wq);
}

/**
 * npu_queue_cancel_all() - retire every job of a queue that is not running
 * @dev: the device (dev->lock held)
 * @q: the queue
 */
void npu_queue_cancel_all(struct npu_device *dev, struct npu_queue *q)
{
	struct npu_list *pos, *tmp;

	npu_list_for_each_safe(pos, tmp, &q->jobs) {
		struct npu_job *job = npu_container_of(pos, struct npu_job,
						       link);

		if (q->running && pos == q->jobs.next)
			continue;	/* its core retires it */
		npu_job_retire(dev, job, DRM_NPU_FAULT_CANCELLED);
	}
	if (!q->running && npu_list_empty(&q->jobs))
		npu_rq_detach(dev, q);	/* nothing left to wait or run for */
	npu_queue_maybe_unlist(dev, q);
}

/**
 * npu_queue_fail() - a task of @job failed: record, fail, cancel the rest
 * @dev: the device (dev->lock held)
 * @q: the queue, not running any more
 * @job: its head job
 * @reason: enum drm_npu_fault_reason
 * @task: program task index
 * @operand: operand index or ~0u
 */
void npu_queue_fail(struct npu_device *dev, struct npu_queue *q,
		    struct npu_job *job, u32 reason, u32 task, u32 operand)
{
	q->num_faults++;
	q->fault_reason = reason;
	q->fault_fence = job->fence;
	q->fault_task = task;
	q->fault_operand = operand;
	npu_job_retire(dev, job, reason);
	npu_queue_cancel_all(dev, q);
}

/**
 * npu_reap() - free retired jobs and tell the home; no lock held
 * @dev: the device
 */
void npu_reap(struct npu_device *dev)
{
	struct npu_list list, *pos, *tmp;

	npu_list_init(&list);
	npu_mutex_lock(&dev->lock);
	if (!npu_list_empty(&dev->reap)) {
		list.next = dev->reap.next;
		list.prev = dev->reap.prev;
		list.next->prev = &list;
		list.prev->next = &list;
		npu_list_init(&dev->reap);
	}
	npu_mutex_unlock(&dev->lock);
	npu_list_for_each_safe(pos, tmp, &list) {
		struct npu_job *job = npu_container_of(pos, struct npu_job,
						       link);

		struct npu_queue *q = job->queue;

		if (dev->ops.job_done)
			dev->ops.job_done(dev->home_dev, q->hw, job->fence,
					  job->status);
		npu_ref_get(&q->ref);	/* the job's reference goes below */
		npu_job_free(job);
		npu_mutex_lock(&dev->lock);
		q->unreaped--;
		npu_waitq_wake_all(&dev->done_wq);
		npu_mutex_unlock(&dev->lock);
		npu_queue_put(q);
	}
}

/* Wait (mem_lock held) until @bo is not held by compaction. */
static void npu_wait_unheld(struct npu_device *dev, struct npu_bo *bo)
{
	while (bo->hold)
		npu_waitq_wait(&dev->mem_wq, &dev->mem_lock, NPU_NO_DEADLINE);
}

static void npu_fill_profile(struct drm_npu_task_profile *rec,
			     const struct npu_job *job, u32 task, u64 start,
			     u64 end, u32 core, u32 status)
{
	rec->start_ns = start;
	rec->end_ns = end;
	rec->task = task;
	rec->core = core;
	rec->hw_queue = job->queue->hw;
	rec->status = status;
}

static void npu_put_profile(struct npu_device *dev, const struct npu_job *job,
			    u32 task, const struct drm_npu_task_profile *rec)
{
	struct npu_bo *bo = job->profile_bo;

	memcpy(dev->vram + bo->node.start + job->profile_offset +
	       (u64)(task - job->first) * sizeof(*rec), rec, sizeof(*rec));
}

/**
 * npu_write_profile() - write a task's profile record if the job asked
 * @dev: the device
 * @job: the job
 * @task: program task index
 * @start: CLOCK_MONOTONIC ns
 * @end: CLOCK_MONOTONIC ns
 * @core: AI core
 * @status: 0 or fault reason
 *
 * Waits while compaction holds the profile buffer: call without dev->lock.
 */
void npu_write_profile(struct npu_device *dev, struct npu_job *job, u32 task,
		       u64 start, u64 end, u32 core, u32 status)
{
	struct drm_npu_task_profile rec;

	if (!job->profile_bo)
		return;
	npu_fill_profile(&rec, job, task, start, end, core, status);
	npu_mutex_lock(&dev->mem_lock);
	npu_wait_unheld(dev, job->profile_bo);
	npu_put_profile(dev, job, task, &rec);
	npu_mutex_unlock(&dev->mem_lock);
}

/*
 * The same under dev->lock, which must not wait for compaction (it may be
 * waiting for a hung task that only the watchdog, under dev->lock, can
 * release): false if the buffer is held; the caller retries later.
 */
static bool npu_try_write_profile(struct npu_device *dev, struct npu_job *job,
				  u32 task, u32 core)
{
	struct drm_npu_task_profile rec;
	bool done = false;
	u64 now = npu_time_ns();

	if (!job->profile_bo)
		return true;
	npu_fill_profile(&rec, job, task, now, now, core, 0);
	npu_mutex_lock(&dev->mem_lock);
	if (!job->profile_bo->hold) {
		npu_put_profile(dev, job, task, &rec);
		done = true;
	}
	npu_mutex_unlock(&dev->mem_lock);
	return done;
}

/* What advancing a queue without a core came to. */
enum npu_adv {
	NPU_ADV_IDLE,		/* no job left (or the queue is closing) */
	NPU_ADV_RUN,		/* the next task is a compute task */
	NPU_ADV_WAIT,		/* a semaphore has not reached a value yet */
	NPU_ADV_RETRY,		/* a held profile buffer: try again shortly */
};

/* The first job-level wait of @job not met yet, or false. */
static bool npu_job_unmet(struct npu_device *dev, const struct npu_job *job,
			  u32 *hw, u64 *value)
{
	u32 i;

	for (i = 0; i < job->num_waits; i++) {
		*hw = job->waits[i].sem->hw;
		*value = job->waits[i].value;
		if (dev->sem_values[*hw] < *value)
			return true;
	}
	return false;
}

/*
 * Advance @q as far as possible without a core (dev->lock held, @q on no
 * list and not running). On NPU_ADV_WAIT, *@hw and *@value name the
 * semaphore and the value the head job waits for.
 */
static enum npu_adv npu_queue_advance(struct npu_device *dev,
				      struct npu_queue *q, u32 core, u32 *hw,
				      u64 *value)
{
	while (!npu_list_empty(&q->jobs)) {
		struct npu_job *job = npu_container_of(q->jobs.next,
						       struct npu_job, link);
		const struct drm_npu_task *task;
		const struct drm_npu_sem_params *sp;

		if (q->closing) {
			npu_queue_cancel_all(dev, q);
			return NPU_ADV_IDLE;
		}
		if (!job->started) {
			if (npu_job_unmet(dev, job, hw, value))
				return NPU_ADV_WAIT;
			job->started = true;
		}
		if (job->next == job->end) {
			npu_job_retire(dev, job, 0);
			continue;
		}
		task = &job->prog->tasks[job->next];
		sp = &task->params.sem;
		if (task->opcode != DRM_NPU_OP_SEM_WAIT &&
		    task->opcode != DRM_NPU_OP_SEM_SIGNAL)
			return NPU_ADV_RUN;
		if (task->opcode == DRM_NPU_OP_SEM_WAIT) {
			*hw = job->bindings[sp->index].sem->hw;
			*value = job->bindings[sp->index].value + sp->value;
			if (dev->sem_values[*hw] < *value)
				return NPU_ADV_WAIT;
		}
		if (!npu_try_write_profile(dev, job, job->next, core))
			return NPU_ADV_RETRY;
		if (task->opcode == DRM_NPU_OP_SEM_SIGNAL)
			npu_sem_set(dev, job->bindings[sp->index].sem,
				    job->bindings[sp->index].value + sp->value);
		job->next++;
	}
	return NPU_ADV_IDLE;
}

/*
 * The ready queue to serve next (dev->lock held): highest priority first,
 * then the head that became ready first among the run queues of hardware
 * queues that are not busy. O(hardware queues x priorities).
 */
static struct npu_queue *npu_rq_best(struct npu_device *dev)
{
	u32 p;

	for (p = NPU_NUM_PRIO; p-- > 0;) {
		u64 m = dev->ready_mask[p] & ~dev->hwq_busy;
		struct npu_queue *best = NULL;

		while (m) {
			u32 hw = (u32)__builtin_ctzll(m);
			struct npu_list *l = &dev->ready[hw * NPU_NUM_PRIO + p];
			struct npu_queue *q = npu_container_of(l->next,
							       struct npu_queue,
							       rlink);

			m &= m - 1;
			if (!best || q->ready_seq < best->ready_seq)
				best = q;
		}
		if (best)
			return best;
	}
	return NULL;
}

/*
 * Take ready queue @q off its run queue and advance it (dev->lock held):
 * true if its next compute task runs now on @core, else @q is parked where
 * its head job puts it.
 */
static bool npu_take(struct npu_device *dev, struct npu_queue *q, u32 core)
{
	u64 value = 0;
	u32 hw = 0;

	npu_rq_detach(dev, q);
	switch (npu_queue_advance(dev, q, core, &hw, &value)) {
	case NPU_ADV_RUN:
		return true;
	case NPU_ADV_WAIT:
		npu_rq_wait(dev, q, hw, value);
		break;
	case NPU_ADV_RETRY:
		npu_list_add_tail(&q->rlink, &dev->retry);
		q->state = NPU_Q_RETRY;
		break;
	case NPU_ADV_IDLE:
		break;
	}
	return false;
}

/*
 * Pick the queue whose next compute task runs now (dev->lock held). Sets
 * *@retry if a queue waits for a profile buffer that compaction holds.
 */
static struct npu_queue *npu_pick(struct npu_device *dev, u32 core,
				  bool *retry)
{
	struct npu_queue *q;

	while (!npu_list_empty(&dev->retry))
		npu_rq_ready(dev, npu_container_of(dev->retry.next,
						   struct npu_queue, rlink));
	while ((q = npu_rq_best(dev)))
		if (npu_take(dev, q, core))
			return q;
	*retry = !npu_list_empty(&dev->retry);
	return NULL;
}

/* Injected test behaviour of one dispatched task. */
enum npu_inject { NPU_INJ_NONE, NPU_INJ_HANG, NPU_INJ_FAULT, NPU_INJ_RANGE };

/* Sleep on the core until @deadline or an abort (dev->lock held). */
static u32 npu_core_sleep(struct npu_core_unit *c, u64 deadline)
{
	struct npu_device *dev = c->dev;

	while (!c->abort && !dev->stopping) {
		if (npu_waitq_wait(&c->wq, &dev->lock, deadline) == -ETIME)
			break;
	}
	if (dev->stopping && !c->abort)
		return DRM_NPU_FAULT_CANCELLED;
	return c->abort;
}

static void npu_release(struct npu_device *dev, struct npu_job *job,
			const struct drm_npu_task *task,
			struct npu_task_map *map);

/*
 * Resolve operands to host addresses and mark their buffers running. With
 * a task_map hook (a test home's guard mode) the home says where each
 * buffer is; @map is then set up and npu_release() undoes it.
 */
static u32 npu_resolve(struct npu_device *dev, struct npu_job *job,
		       const struct drm_npu_task *task, u32 ti,
		       struct npu_op_args *args, u32 *bad_operand,
		       bool shrink_first, struct npu_task_map *map)
{
	const u64 *ends = &job->prog->op_end[(u64)ti * DRM_NPU_MAX_OPERANDS];
	u32 i;

	npu_mutex_lock(&dev->mem_lock);
	for (i = 0; i < task->num_operands; i++) {
		struct npu_bo *bo = job->bos[task->operands[i].slot];

		/* a peer's buffer is pinned: never held, never moved */
		if (bo->dev == dev && bo->hold) {
			npu_wait_unheld(dev, bo);
			i = (u32)-1;	/* something may have moved: restart */
			continue;
		}
	}
	for (i = 0; i < task->num_operands; i++) {
		struct npu_bo *bo = job->bos[task->operands[i].slot];

		/*
		 * Defence in depth: submission checked this already. Test mode
		 * fault_range makes operand 0's window empty to exercise it.
		 */
		if (ends[i] > ((shrink_first && i == 0) ? 0 : bo->size)) {
			npu_mutex_unlock(&dev->mem_lock);
			*bad_operand = i;
			return DRM_NPU_FAULT_OUT_OF_RANGE;
		}
	}
	for (i = 0; i < task->num_operands; i++) {
		struct npu_bo *bo = job->bos[task->operands[i].slot];

		/*
		 * A buffer of a peer device (imported through PRIME, pinned
		 * there) is read and written in its own device's VRAM: the
		 * device-to-device path, with no host copy in between.
		 */
		args->data[i] = bo->dev->vram + bo->node.start +
				task->operands[i].offset;
		map->start[i] = bo->node.start;
		map->size[i] = bo->size;
		if (bo->dev == dev)
			bo->running++;
	}
	map->num = task->num_operands;
	npu_mutex_unlock(&dev->mem_lock);
	if (!dev->ops.task_map)
		return 0;
	/* running buffers do not move: the home maps them unlocked */
	if (dev->ops.task_map(dev->home_dev, map)) {
		map->num = 0;	/* nothing for task_unmap */
		npu_release(dev, job, task, map);
		return DRM_NPU_FAULT_OUT_OF_RANGE;
	}
	for (i = 0; i < task->num_operands; i++)
		args->data[i] = (u8 *)map->base[i] + task->operands[i].offset;
	return 0;
}

static void npu_release(struct npu_device *dev, struct npu_job *job,
			const struct drm_npu_task *task,
			struct npu_task_map *map)
{
	u32 i;

	if (dev->ops.task_unmap && map->num)
		dev->ops.task_unmap(dev->home_dev, map);
	npu_mutex_lock(&dev->mem_lock);
	for (i = 0; i < task->num_operands; i++) {
		struct npu_bo *bo = job->bos[task->operands[i].slot];

		if (bo->dev == dev)
			bo->running--;
	}
	npu_waitq_wake_all(&dev->mem_wq);
	npu_mutex_unlock(&dev->mem_lock);
}

/*
 * Claim the next chunk of @run (owned by core @owner). A helper (@kick not
 * NULL) stops as soon as new work may be ready elsewhere, so that helping
 * never delays another queue's task.
 */
static bool npu_claim(struct npu_core_unit *owner, struct npu_run *run,
		      u64 chunk, const u64 *kick, u64 *begin, u64 *end)
{
	struct npu_device *dev = owner->dev;
	bool ok;

	npu_mutex_lock(&dev->lock);
	ok = !run->status && !owner->abort && !dev->stopping &&
	     run->next < run->last && (!kick || *kick == dev->kick);
	if (ok) {
		u64 left = run->last - run->next;
		u64 share = left / (2ull * dev->num_cores);

		/*
		 * Shared: claim at most a share of what is left, so that the
		 * cores run out of work together instead of one waiting for
		 * another's last large chunk.
		 */
		if (run->shareable && share < chunk)
			chunk = share ? share : 1;
		if (chunk > left)
			chunk = left;
		/*
		 * The owner walks the units forwards, helpers backwards from
		 * the end: a helper keeps to the same end of consecutive tasks
		 * (the last rows, the last channel blocks), whose inputs it
		 * wrote itself in the task before.
		 */
		if (kick) {
			*end = run->last;
			*begin = run->last - chunk;
			run->last = *begin;
		} else {
			*begin = run->next;
			*end = run->next + chunk;
			run->next = *end;
		}
	}
	npu_mutex_unlock(&dev->lock);
	return ok;
}

/*
 * Run chunks of about NPU_CHUNK_NS on core @self until none is left,
 * beating the owner's watchdog heart. Any chunking gives the same bits
 * (npu_ops.h), so the cores sharing a task cannot change its result; each
 * runs with its own unified buffer.
 */
static void npu_run_chunks(struct npu_core_unit *self,
			   struct npu_core_unit *owner, struct npu_run *run,
			   const u64 *kick)
{
	struct npu_device *dev = owner->dev;
	u64 chunk = 1, begin, end;
	struct npu_op_args args = run->args;

	args.ub = self->ub;
	while (npu_claim(owner, run, chunk, kick, &begin, &end)) {
		u64 t0 = npu_time_ns(), dt;
		int r;

		npu_fpu_begin();
		r = npu_op_run(&args, begin, end);
		npu_fpu_end();
		if (r) {
			npu_mutex_lock(&dev->lock);
			if (!run->status)
				run->status = (u32)r;
			npu_mutex_unlock(&dev->lock);
			return;
		}
		dt = npu_time_ns() - t0;
		if (dt < NPU_CHUNK_NS / 2 && chunk < (1ull << 40))
			chunk *= 2;
		else if (dt > NPU_CHUNK_NS * 2 && chunk > 1)
			chunk /= 2;
		NPU_WRITE_ONCE(owner->beat_ns, npu_time_ns());
		npu_yield();
	}
}

/*
 * Wait until the cores that help with @run have finished their chunks
 * (dev->lock held on entry and on return). A helper's last chunk ends
 * within microseconds of the owner's: poll for it first, as an idle core
 * polls for work (npu_core_park()), before sleeping.
 */
static void npu_wait_helpers(struct npu_core_unit *c, struct npu_run *run)
{
	struct npu_device *dev = c->dev;
	u64 end;

	if (run->helpers && dev->park_spin_ns) {
		npu_mutex_unlock(&dev->lock);
		end = npu_time_ns() + dev->park_spin_ns;
		while (NPU_READ_ONCE(run->helpers) && npu_time_ns() < end)
			npu_cpu_relax();
		npu_mutex_lock(&dev->lock);
	}
	while (run->helpers)
		npu_waitq_wait(&c->wq, &dev->lock, NPU_NO_DEADLINE);
}

/*
 * Run a task's work units on core @c. Idle cores may help (npu_help()):
 * like a kernel launched over several AI cores (Ascend's block_dim), a task
 * spreads over the cores that have nothing else to do.
 */
static u32 npu_compute(struct npu_core_unit *c, const struct npu_op_args *a,
		       bool shareable)
{
	struct npu_device *dev = c->dev;
	struct npu_run run;
	u32 st;

	memset(&run, 0, sizeof(run));
	run.args = *a;
	run.units = npu_op_work_units(a->task);
	run.last = run.units;
	run.shareable = shareable && run.units > 1;
	npu_mutex_lock(&dev->lock);
	c->run = &run;
	if (run.shareable)
		npu_kick_cores(dev, false);
	npu_mutex_unlock(&dev->lock);

	npu_run_chunks(c, c, &run, NULL);

	npu_mutex_lock(&dev->lock);
	c->run = NULL;
	npu_wait_helpers(c, &run);
	st = run.status ? run.status : c->abort;
	if (!st && run.next < run.last)
		st = DRM_NPU_FAULT_CANCELLED;	/* device stopping */
	npu_mutex_unlock(&dev->lock);
	return st;
}

/*
 * An idle core helps another core's task (dev->lock held, and held again
 * on return). Returns false if no task has work left to share.
 */
static bool npu_help(struct npu_core_unit *self)
{
	struct npu_device *dev = self->dev;
	struct npu_core_unit *owner = NULL;
	struct npu_run *run;
	u64 kick = dev->kick;
	u32 i;

	for (i = 0; i < dev->num_cores && !owner; i++) {
		struct npu_core_unit *o = &dev->cores[i];

		if (o != self && o->run && o->run->shareable &&
		    !o->run->status && !o->abort &&
		    o->run->next < o->run->last)
			owner = o;
	}
	if (!owner)
		return false;
	run = owner->run;
	NPU_WRITE_ONCE(run->helpers, run->helpers + 1);
	npu_mutex_unlock(&dev->lock);
	npu_run_chunks(self, owner, run, &kick);
	npu_mutex_lock(&dev->lock);
	NPU_WRITE_ONCE(run->helpers, run->helpers - 1);
	if (!run->helpers)
		npu_waitq_wake_all(&owner->wq);
	return true;
}

/*
 * The "corrupt_op" test mode: flip one bit of every element of the task's
 * output - the lowest exponent bit of f32 and f16, the
 * lowest bit of the integer types. Integer code: it runs outside the FPU
 * section, in the module too.
 */
static void npu_corrupt_output(const struct npu_op_args *a)
{
	const struct drm_npu_task *t = a->task;
	const struct drm_npu_operand *o;
	u64 idx[DRM_NPU_MAX_RANK] = { 0 };
	u32 esize, bit, k, out;
	u8 *base;

	/* the operand the task writes: QUANTIZE and DEQUANTIZE write 1 */
	out = t->opcode == DRM_NPU_OP_QUANTIZE ||
	      t->opcode == DRM_NPU_OP_DEQUANTIZE ? 1 : t->num_operands - 1;
	if (!t->num_operands || out >= t->num_operands || !a->data[out])
		return;
	o = &t->operands[out];
	base = a->data[out];
	esize = npu_dtype_size(o->dtype);
	bit = o->dtype == DRM_NPU_DTYPE_F32 ? 23 :
	      o->dtype == DRM_NPU_DTYPE_F16 ? 10 : 0;
	if (!esize || bit / 8 >= esize)
		return;
	for (k = 0; k < o->rank; k++)
		if (!o->shape[k] || (!o->strides[k] && o->shape[k] > 1))
			return;	/* empty, or broadcast: leave it */
	for (;;) {
		u64 off = 0;

		for (k = 0; k < o->rank; k++)
			off += idx[k] * o->strides[k];
		base[off * esize + bit / 8] ^= (u8)(1u << (bit % 8));
		for (k = o->rank; k > 0; k--) {
			if (++idx[k - 1] < o->shape[k - 1])
				break;
			idx[k - 1] = 0;
		}
		if (!k)
			return;
	}
}

/* Execute task @ti of @job on core @c; no lock held on entry and exit. */
static u32 npu_execute(struct npu_core_unit *c, struct npu_job *job, u32 ti,
		       enum npu_inject inj, bool instant, u64 slow_us,
		       u32 corrupt_op, u32 *bad_operand)
{
	struct npu_device *dev = c->dev;
	const struct drm_npu_task *task = &job->prog->tasks[ti];
	struct npu_op_args args;
	struct npu_task_map map;
	u32 st = 0;

	*bad_operand = ~0u;
	if (inj == NPU_INJ_FAULT)
		return DRM_NPU_FAULT_INJECTED;
	if (inj == NPU_INJ_HANG) {
		npu_mutex_lock(&dev->lock);
		st = npu_core_sleep(c, NPU_NO_DEADLINE);
		npu_mutex_unlock(&dev->lock);
		return st;
	}
	if (!instant) {
		memset(&args, 0, sizeof(args));
		memset(&map, 0, sizeof(map));
		args.task = task;
		args.isa = dev->isa;
		args.job_key = job->key;
		st = npu_resolve(dev, job, task, ti, &args, bad_operand,
				 inj == NPU_INJ_RANGE, &map);
		if (st)
			return st;
		st = npu_compute(c, &args,
				 npu_job_task_shareable(job, ti));
		if (!st && corrupt_op == (u32)task->opcode + 1)
			npu_corrupt_output(&args);
		npu_release(dev, job, task, &map);
		if (st)
			return st;
	}
	if (slow_us) {
		npu_mutex_lock(&dev->lock);
		st = npu_core_sleep(c, c->start_ns + slow_us * 1000ull);
		npu_mutex_unlock(&dev->lock);
	}
	return st;
}

static void npu_dispatch_one(struct npu_core_unit *c, struct npu_queue *q)
{
	struct npu_device *dev = c->dev;
	struct npu_job *job = npu_container_of(q->jobs.next, struct npu_job,
					       link);
	enum npu_inject inj = NPU_INJ_NONE;
	bool instant = dev->test_instant;
	u64 slow_us = dev->test_slow_us, end;
	u32 corrupt_op = dev->test_corrupt_op;
	u64 budget = dev->job_budget_ms * 1000000ull;
	u32 ti = job->next, st, bad = ~0u;
	bool over = budget && job->run_ns >= budget;

	if (dev->test_fault) {
		dev->test_fault--;
		inj = NPU_INJ_FAULT;
	} else if (dev->test_fault_range && job->prog->tasks[ti].num_operands) {
		dev->test_fault_range--;
		inj = NPU_INJ_RANGE;
	} else if (dev->test_hang) {
		dev->test_hang--;
		inj = NPU_INJ_HANG;
	}
	q->running = true;
	dev->hwq_busy |= 1ull << q->hw;
	c->job = job;
	c->task = ti;
	c->start_ns = npu_time_ns();
	NPU_WRITE_ONCE(c->beat_ns, c->start_ns);
	NPU_WRITE_ONCE(c->abort, 0);
	/* the watchdog must wake in time for this job's budget */
	if (budget && !over &&
	    c->start_ns + (budget - job->run_ns) < dev->wd_next)
		npu_waitq_wake_all(&dev->wd_wq);
	npu_mutex_unlock(&dev->lock);

	if (over)	/* its earlier tasks used the budget up */
		st = DRM_NPU_FAULT_BUDGET;
	else
		st = npu_execute(c, job, ti, inj, instant, slow_us,
				 corrupt_op, &bad);
	end = npu_time_ns();
	npu_write_profile(dev, job, ti, c->start_ns, end, c->index, st);

	npu_mutex_lock(&dev->lock);
	q->acct->busy_ns += end - c->start_ns;
	dev->busy_ns += end - c->start_ns;
	job->run_ns += end - c->start_ns;
	c->job = NULL;
	q->running = false;
	dev->hwq_busy &= ~(1ull << q->hw);
	if (st) {
		npu_queue_fail(dev, q, job, st, ti, bad);
	} else {
		job->next++;
		if (job->next == job->end)
			npu_job_retire(dev, job, 0);
	}
	if (!npu_list_empty(&q->jobs))
		npu_rq_ready(dev, q);	/* behind the queues that waited */
	/* the hardware queue is free: its other queues may run */
	dev->kick++;
	npu_kick_cores(dev, false);
}

/*
 * Time a core kicked for a host's submission leaves the submitting thread
 * to borrow it (npu_serve()) before it looks for the work itself: a thread
 * woken from sleep took about as long, and a job its submitter runs needs
 * no hand-off.
 */
#define NPU_LEND_GRACE_NS	20000ull

/*
 * Poll for a kick for up to dev->park_spin_ns (dev->lock held on entry and
 * on return, dropped meanwhile; c->parked set, so kickers and lenders see
 * an idle core). Returns true if the core was kicked: its caller looks for
 * work instead of sleeping. A kick made while the lock is dropped either
 * clears c->parked or bumps c->kicks, so none is lost.
 */
static bool npu_core_poll(struct npu_core_unit *c)
{
	struct npu_device *dev = c->dev;
	u64 kicks = c->kicks, now = npu_time_ns(), seen = 0;
	u64 end = now + dev->park_spin_ns;

	npu_mutex_unlock(&dev->lock);
	while (now < end && NPU_READ_ONCE(c->parked) &&
	       !NPU_READ_ONCE(c->lent) && !NPU_READ_ONCE(dev->stopping)) {
		if (NPU_READ_ONCE(c->kicks) != kicks) {
			if (!seen)
				seen = now;
			else if (now - seen >= NPU_LEND_GRACE_NS)
				break;
		}
		npu_cpu_relax();
		now = npu_time_ns();
	}
	npu_mutex_lock(&dev->lock);
	return !c->lent && (!c->parked || c->kicks != kicks || dev->stopping);
}

/*
 * Sleep until work may be ready (dev->lock held); lendable meanwhile. An
 * idle core polls first where its home lets it (npu_core_poll()).
 */
static void npu_core_park(struct npu_core_unit *c, u64 deadline)
{
	NPU_WRITE_ONCE(c->parked, true);
	if (!c->dev->park_spin_ns || c->lent || !npu_core_poll(c))
		npu_waitq_wait(&c->park_wq, &c->dev->lock, deadline);
	NPU_WRITE_ONCE(c->parked, false);
}

static void npu_reap_unlocked(struct npu_device *dev)
{
	npu_mutex_unlock(&dev->lock);
	npu_reap(dev);
	npu_mutex_lock(&dev->lock);
}

/* Whether a core that looked now would find something to do. */
static bool npu_work_pending(struct npu_device *dev)
{
	u32 p, i;

	if (!npu_list_empty(&dev->retry) || !npu_list_empty(&dev->reap))
		return true;
	for (p = 0; p < NPU_NUM_PRIO; p++)
		if (dev->ready_mask[p] & ~dev->hwq_busy)
			return true;
	for (i = 0; i < dev->num_cores; i++) {
		struct npu_run *run = dev->cores[i].run;

		if (run && run->shareable && run->next < run->last)
			return true;
	}
	return false;
}

/*
 * The waiter's next task (dev->lock held): the head of @want when it is
 * the queue the device serves next, else none: the waiter leaves other
 * queues to the core threads (in a multi-stream model they are the other
 * streams, which a core thread runs alongside the waiter's).
 */
static struct npu_queue *npu_serve_pick(struct npu_device *dev, u32 core,
					struct npu_queue *want)
{
	if (want->state != NPU_Q_READY || npu_rq_best(dev) != want)
		return NULL;
	return npu_take(dev, want, core) ? want : NULL;
}

/**
 * npu_serve() - run ready tasks on a waiter's thread until its wait is over
 * @dev: the device; its lock is held on entry and on return
 * @want: the queue whose fence the waiter waits for
 * @count: the counter the waiter waits for (npu_wait_count())
 * @target: the value it waits for
 * @deadline: the wait's deadline; no task starts after it
 *
 * A thread waiting for a fence borrows an AI core whose thread is parked
 * and runs, as that core, the tasks of @want, or shares of other cores'
 * tasks, one at a time, until *@count
 * reaches @target or nothing can run. The core's own thread stays parked
 * while it is lent, so no more threads compute than there are AI cores. A
 * single-stream job submitted and waited for by one thread thus runs on
 * that thread from its first task to its last, with no hand-off to a core
 * thread and back (tens of microseconds when the core thread sleeps on
 * another CPU); the core threads still run everything no thread waits
 * for, and help with the waiter's tasks as with any other. A wait may end
 * later than its deadline by the rest of the task it was running (its
 * caller serves only with NPU_SERVE_MIN_WAIT_NS or more left).
 *
 * Return: true if it ran something (the caller checks its counter again),
 * false if no core was free or nothing could run.
 */
bool npu_serve(struct npu_device *dev, struct npu_queue *want,
	       const u64 *count, u64 target, u64 deadline)
{
	struct npu_core_unit *c = NULL;
	bool ran = false;
	u32 i;

	for (i = 0; i < dev->num_cores && !c; i++)
		if (dev->cores[i].parked && !dev->cores[i].lent)
			c = &dev->cores[i];
	/* an injected hang or slow task models the device: waiters sleep */
	if (!c || dev->test_hang || dev->test_slow_us)
		return false;
	NPU_WRITE_ONCE(c->lent, true);
	while (*count < target && !dev->stopping &&
	       npu_time_ns() < deadline) {
		struct npu_queue *q = npu_serve_pick(dev, c->index, want);

		if (q)
			npu_dispatch_one(c, q);	/* returns with dev->lock held */
		else if (!npu_help(c))
			break;
		ran = true;
		if (!npu_list_empty(&dev->reap))
			npu_reap_unlocked(dev);
	}
	NPU_WRITE_ONCE(c->lent, false);
	/* kicks passed its thread by while it was lent */
	if (c->parked && npu_work_pending(dev)) {
		NPU_WRITE_ONCE(c->parked, false);
		npu_waitq_wake_all(&c->park_wq);
	}
	return ran;
}

/**
 * npu_core_worker() - the thread of one AI core
 * @arg: its struct npu_core_unit
 *
 * Return: 0 when the device stops.
 */
int npu_core_worker(void *arg)
{
	struct npu_core_unit *c = arg;
	struct npu_device *dev = c->dev;
	struct npu_queue *q;

	npu_mutex_lock(&dev->lock);
	while (!dev->stopping) {
		bool retry = false;

		if (c->lent) {		/* a waiter runs as this core */
			npu_core_park(c, NPU_NO_DEADLINE);
			continue;
		}
		q = npu_pick(dev, c->index, &retry);
		if (!q) {
			if (!npu_list_empty(&dev->reap)) {
				npu_reap_unlocked(dev);
				continue;
			}
			if (npu_help(c))
				continue;
			/* a held profile buffer: look again in a moment */
			npu_core_park(c, retry ? npu_time_ns() + NPU_CHUNK_NS :
						 NPU_NO_DEADLINE);
			continue;
		}
		npu_dispatch_one(c, q);	/* returns with dev->lock held */
		if (!npu_list_empty(&dev->reap))
			npu_reap_unlocked(dev);
	}
	npu_mutex_unlock(&dev->lock);
	return 0;
}

/**
 * npu_watchdog_thread() - fails tasks that stopped making progress and jobs
 *                         that ran past their budget
 * @arg: the device
 *
 * An AI core beats at every chunk of work units it completes. The watchdog
 * checks four times per period; a task whose core has not beaten for a whole
 * period is hung and is aborted with DRM_NPU_FAULT_WATCHDOG (a hung core is
 * released at once), so the fault is recorded within 1.25 periods. A long
 * task that keeps completing chunks is not hung: on a loaded host (or under
 * sanitizers) big convolutions may take longer than the period.
 *
 * The job budget bounds the AI-core time of a whole job (the sum of its
 * tasks' run times; waiting for semaphores or for a core does not count):
 * the watchdog also wakes when the running job's budget ends and aborts it
 * with DRM_NPU_FAULT_BUDGET. Abort flags are read between chunks of work
 * units, so a job stops within a chunk (about a millisecond) of its budget.
 *
 * Return: 0 when the device stops.
 */
int npu_watchdog_thread(void *arg)
{
	struct npu_device *dev = arg;
	u32 i;

	npu_mutex_lock(&dev->lock);
	while (!dev->stopping) {
		u64 period = (u64)dev->watchdog_ms * 1000000ull;
		u64 budget = dev->job_budget_ms * 1000000ull;
		u64 now = npu_time_ns(), next = now + period / 4;

		for (i = 0; i < dev->num_cores; i++) {
			struct npu_core_unit *c = &dev->cores[i];

			u64 beat = NPU_READ_ONCE(c->beat_ns), used;

			if (!c->job || c->abort)
				continue;
			if (now > beat && now - beat > period) {
				npu_warn("core %u: task %u of fence %llu made no progress for the %u ms watchdog period\n",
					 i, c->task,
					 (unsigned long long)c->job->fence,
					 dev->watchdog_ms);
				NPU_WRITE_ONCE(c->abort,
					       (u32)DRM_NPU_FAULT_WATCHDOG);
				npu_waitq_wake_all(&c->wq);
				continue;
			}
			if (!budget)
				continue;
			used = c->job->run_ns + (now - c->start_ns);
			if (used >= budget) {
				npu_info("core %u: job of fence %llu stopped at task %u: it used the %llu ms job budget\n",
					 i, (unsigned long long)c->job->fence,
					 c->task,
					 (unsigned long long)dev->job_budget_ms);
				NPU_WRITE_ONCE(c->abort,
					       (u32)DRM_NPU_FAULT_BUDGET);
				npu_waitq_wake_all(&c->wq);
			} else if (now + (budget - used) < next) {
				next = now + (budget - used);
			}
		}
		dev->wd_next = next;
		npu_waitq_wait(&dev->wd_wq, &dev->lock, next);
	}
	npu_mutex_unlock(&dev->lock);
	return 0;
}
