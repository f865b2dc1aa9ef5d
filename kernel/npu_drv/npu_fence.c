// SPDX-License-Identifier: GPL-2.0
/*
 * npu_fence.c - a DRM timeline syncobj point per submission
 * (DRM_NPU_SUBMIT_SYNCOBJ), so that standard DRM synchronisation -
 * DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, sync_file export, other drivers'
 * waits - works on NPU jobs.
 *
 * Each job with the flag gets a dma_fence whose context is its queue's and
 * whose seqno is the job's fence point; it is added to the syncobj's
 * timeline at that point. The job-done bottom half asks the core about each
 * pending fence (a WAIT_FENCE with a deadline already past) and signals the
 * ones that have retired, with -EIO when the job faulted or was cancelled.
 */
#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <drm/drm_syncobj.h>

#include "npu_drv.h"

/**
 * struct npu_job_fence - the dma_fence of one submission
 * @base: the fence (seqno = the job's fence point)
 * @link: on the file's list of pending fences (files_lock)
 * @queue: the file's queue handle
 */
struct npu_job_fence {
	struct dma_fence base;
	struct list_head link;
	u32 queue;
};

const size_t npu_job_fence_size = sizeof(struct npu_job_fence);

static const char *npu_fence_driver_name(struct dma_fence *f)
{
	return NPU_DRV_NAME;
}

static const char *npu_fence_timeline_name(struct dma_fence *f)
{
	return "npu-queue";
}

static void npu_fence_free_rcu(struct rcu_head *rcu)
{
	struct dma_fence *f = container_of(rcu, struct dma_fence, rcu);

	kmem_cache_free(npu_fence_cache,
			container_of(f, struct npu_job_fence, base));
	/* Taken in npu_fence_prepare(): these ops live in the module. */
	module_put(THIS_MODULE);
}

static void npu_fence_release(struct dma_fence *f)
{
	call_rcu(&f->rcu, npu_fence_free_rcu);
}

static const struct dma_fence_ops npu_fence_ops = {
	.get_driver_name = npu_fence_driver_name,
	.get_timeline_name = npu_fence_timeline_name,
	.release = npu_fence_release,
};

/**
 * npu_fence_prepare() - everything a syncobj point needs, before submitting
 * @file: the submitting file
 * @handle: its syncobj handle
 * @sp: out
 *
 * Return: 0, -ENOENT (no such syncobj), -ENOMEM.
 */
int npu_fence_prepare(struct drm_file *file, u32 handle,
		      struct npu_syncobj_point *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->syncobj = drm_syncobj_find(file, handle);
	if (!sp->syncobj)
		return -ENOENT;
	sp->chain = dma_fence_chain_alloc();
	sp->fence = kmem_cache_zalloc(npu_fence_cache, GFP_KERNEL);
	if (!sp->chain || !sp->fence) {
		if (sp->fence)
			kmem_cache_free(npu_fence_cache, sp->fence);
		dma_fence_chain_free(sp->chain);
		drm_syncobj_put(sp->syncobj);
		return -ENOMEM;
	}
	/* Dropped when the fence is freed: its ops live in the module. */
	__module_get(THIS_MODULE);
	return 0;
}

/**
 * npu_fence_abort() - undo npu_fence_prepare() after a failed submission
 * @sp: the prepared point
 */
void npu_fence_abort(struct npu_syncobj_point *sp)
{
	kmem_cache_free(npu_fence_cache, sp->fence);
	module_put(THIS_MODULE);
	dma_fence_chain_free(sp->chain);
	drm_syncobj_put(sp->syncobj);
	memset(sp, 0, sizeof(*sp));
}

/**
 * npu_fence_attach() - add the point of a successful submission
 * @nfile: the submitting file
 * @queue: its queue handle
 * @seqno: the job's fence point (also the timeline point)
 * @sp: from npu_fence_prepare(); consumed
 */
void npu_fence_attach(struct npu_drm_file *nfile, u32 queue, u64 seqno,
		      struct npu_syncobj_point *sp)
{
	struct npu_drm_device *ndev = nfile->ndev;
	struct npu_job_fence *jf = sp->fence;
	struct npu_drm_queue *q;
	u64 context;

	mutex_lock(&ndev->files_lock);
	q = xa_load(&nfile->queues, queue);
	context = q ? q->fence_context : dma_fence_context_alloc(1);
	jf->queue = queue;
	dma_fence_init(&jf->base, &npu_fence_ops, &ndev->fence_lock, context,
		       seqno);
	dma_fence_get(&jf->base);	/* the pending list's reference */
	list_add_tail(&jf->link, &nfile->fences);
	mutex_unlock(&ndev->files_lock);

	drm_syncobj_add_point(sp->syncobj, sp->chain, &jf->base, seqno);
	dma_fence_put(&jf->base);
	drm_syncobj_put(sp->syncobj);
	memset(sp, 0, sizeof(*sp));
	/* The job may have retired already. */
	queue_work(ndev->irq_wq, &ndev->irq_work);
}

static void npu_fence_signal(struct npu_job_fence *jf, int error)
{
	list_del(&jf->link);
	if (error)
		dma_fence_set_error(&jf->base, error);
	dma_fence_signal(&jf->base);
	dma_fence_put(&jf->base);
}

/**
 * npu_fence_poll() - signal the pending fences of @nfile whose jobs retired
 * @nfile: an open file; files_lock held
 */
void npu_fence_poll(struct npu_drm_file *nfile)
{
	struct npu_job_fence *jf, *tmp;

	lockdep_assert_held(&nfile->ndev->files_lock);
	list_for_each_entry_safe(jf, tmp, &nfile->fences, link) {
		struct drm_npu_wait_fence w = {
			.queue = jf->queue,
			.fence = jf->base.seqno,
			.timeout_ns = 0,	/* already past: do not sleep */
		};
		int r = npu_ioctl_wait_fence(nfile->core_file, &w);

		if (r == -ETIME)
			continue;
		/* -EIO: faulted or cancelled; -ENOENT: queue destroyed. */
		npu_fence_signal(jf, r == -ENOENT ? -ECANCELED : r);
	}
}

/**
 * npu_fence_pending() - whether a syncobj point of a queue is pending
 * @nfile: an open file; files_lock held
 * @queue: its queue handle
 *
 * Return: true if a fence of a job on @queue has not been signalled yet.
 */
bool npu_fence_pending(struct npu_drm_file *nfile, u32 queue)
{
	struct npu_job_fence *jf;

	lockdep_assert_held(&nfile->ndev->files_lock);
	list_for_each_entry(jf, &nfile->fences, link)
		if (jf->queue == queue)
			return true;
	return false;
}

/**
 * npu_fence_flush() - signal every fence of a file being closed
 * @nfile: the file, off the device's list, its core file closed
 *
 * Jobs not started were cancelled by the close; a running one may still
 * finish, but nothing of the file is left to observe it.
 */
void npu_fence_flush(struct npu_drm_file *nfile)
{
	struct npu_job_fence *jf, *tmp;

	list_for_each_entry_safe(jf, tmp, &nfile->fences, link)
		npu_fence_signal(jf, -ECANCELED);
}
