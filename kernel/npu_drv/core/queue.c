// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * queue.c - command queues (streams). Each maps to one of the device's Q
 * hardware queues, the least used one when created; queues sharing a
 * hardware queue take turns task by task, each in its own order. A queue
 * keeps its fence counters and its fault records here; the scheduler
 * (sched.c) runs its jobs.
 */
#include "npu_core_priv.h"

void npu_queue_put(struct npu_queue *q)
{
	if (!q || !npu_ref_put(&q->ref))
		return;
	if (npu_ref_put(&q->acct->ref))
		npu_free(q->acct);
	npu_free(q);
}

/*
 * npu_queue_close() - a queue's handle is gone; drops that reference.
 * Cancel what has not started, abort the task that runs (its core stops at
 * the next chunk of work units, or at once if it sleeps in a test mode) and
 * wait for that: when close returns, the file's jobs are gone and so are
 * their references on buffers, so its VRAM is back in the pool. A task
 * never delays a close by more than a chunk, however long it would run.
 */
/* Cancel what has not started and abort the running task (dev->lock). */
static void npu_queue_abort(struct npu_device *dev, struct npu_queue *q)
{
	u32 i;

	npu_queue_cancel_all(dev, q);
	for (i = 0; q->running && i < dev->num_cores; i++) {
		struct npu_core_unit *c = &dev->cores[i];

		if (c->job && c->job->queue == q && !c->abort) {
			NPU_WRITE_ONCE(c->abort, (u32)DRM_NPU_FAULT_CANCELLED);
			npu_waitq_wake_all(&c->wq);
		}
	}
}

void npu_queue_close(struct npu_queue *q)
{
	struct npu_device *dev = q->dev;

	npu_mutex_lock(&dev->lock);
	q->closing = true;
	npu_queue_abort(dev, q);
	npu_mutex_unlock(&dev->lock);
	npu_reap(dev);
	npu_mutex_lock(&dev->lock);
	while ((!npu_list_empty(&q->jobs) || q->unreaped) && !dev->stopping)
		npu_waitq_wait(&dev->done_wq, &dev->lock, NPU_NO_DEADLINE);
	npu_mutex_unlock(&dev->lock);
	npu_queue_put(q);
}

int npu_ioctl_queue_create(struct npu_file *f,
			   struct drm_npu_queue_create *args)
{
	struct npu_device *dev = f->dev;
	struct npu_queue *q;
	u32 i, best = 0, handle;
	int err;

	if (args->flags || args->priority > DRM_NPU_PRIORITY_HIGH)
		return -EINVAL;
	q = npu_zalloc(sizeof(*q));
	if (!q)
		return -ENOMEM;
	npu_ref_init(&q->ref);
	q->dev = dev;
	q->priority = args->priority;
	q->acct = f->acct;
	npu_ref_get(&f->acct->ref);
	npu_list_init(&q->jobs);
	npu_list_init(&q->link);
	npu_list_init(&q->rlink);
	q->state = NPU_Q_IDLE;

	npu_mutex_lock(&f->lock);
	err = npu_file_limit(f, "file_queues", f->queues.count, 1,
			     f->lim.queues);
	if (!err)
		err = npu_handles_alloc(&f->queues, q, &handle);
	npu_mutex_unlock(&f->lock);
	if (err) {
		npu_queue_put(q);
		return err;
	}
	npu_mutex_lock(&dev->lock);
	for (i = 1; i < dev->num_queues; i++)
		if (dev->hwq_users[i] < dev->hwq_users[best])
			best = i;
	q->hw = best;
	dev->hwq_users[best]++;
	q->listed = true;
	npu_list_add_tail(&q->link, &dev->queues);
	npu_mutex_unlock(&dev->lock);
	args->handle = handle;
	args->hw_queue = q->hw;
	return 0;
}

int npu_core_queue_abort(struct npu_file *f, u32 handle)
{
	struct npu_device *dev = f->dev;
	struct npu_queue *q = npu_file_queue(f, handle);

	if (!q)
		return -ENOENT;
	npu_mutex_lock(&dev->lock);
	npu_queue_abort(dev, q);
	while ((q->running || !npu_list_empty(&q->jobs)) && !dev->stopping) {
		npu_queue_abort(dev, q);	/* and what came meanwhile */
		npu_waitq_wait(&dev->done_wq, &dev->lock, NPU_NO_DEADLINE);
	}
	npu_mutex_unlock(&dev->lock);
	npu_reap(dev);
	npu_queue_put(q);
	return 0;
}

int npu_ioctl_queue_destroy(struct npu_file *f,
			    struct drm_npu_queue_destroy *args)
{
	struct npu_queue *q;

	if (args->pad)
		return -EINVAL;
	/*
	 * As closing the file: pending jobs are cancelled and the running
	 * task aborted, so a destroy never waits for a long task (a runtime
	 * that wants the work done synchronises first, as libnpurt does).
	 */
	npu_mutex_lock(&f->lock);
	q = npu_handles_remove(&f->queues, args->handle);
	npu_mutex_unlock(&f->lock);
	if (!q)
		return -ENOENT;
	npu_queue_close(q);	/* drops the handle's reference */
	return 0;
}

int npu_ioctl_queue_query(struct npu_file *f, struct drm_npu_queue_query *args)
{
	struct npu_device *dev = f->dev;
	struct npu_queue *q;

	if ((args->flags & ~DRM_NPU_QUEUE_QUERY_CLEAR_FAULT) || args->reserved)
		return -EINVAL;
	q = npu_file_queue(f, args->handle);
	if (!q)
		return -ENOENT;
	npu_mutex_lock(&dev->lock);
	args->submitted = q->submitted;
	args->completed = q->completed;
	args->num_faults = q->num_faults;
	args->fault_reason = q->fault_reason;
	args->fault_fence = q->fault_fence;
	args->fault_task = q->fault_task;
	args->fault_operand = q->fault_operand;
	if (args->flags & DRM_NPU_QUEUE_QUERY_CLEAR_FAULT) {
		q->fault_reason = DRM_NPU_FAULT_NONE;
		q->fault_fence = 0;
		q->fault_task = 0;
		q->fault_operand = 0;
	}
	npu_mutex_unlock(&dev->lock);
	npu_queue_put(q);
	return 0;
}
