// SPDX-License-Identifier: GPL-2.0
/*
 * npu_home.c - the kernel home's hooks for the device core, and its
 * "interrupt" path.
 *
 * The core calls job_done from its scheduler thread whenever a job retires
 * (completed, faulted or cancelled). Like a hard interrupt handler, the hook
 * only records the event and queues the bottom half on an ordered
 * workqueue; the bottom half updates the activity accounting behind
 * fdinfo's drm-engine-npu and sysfs busy_ns: a file is busy while it has an
 * unretired job, the device while any file is.
 */
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "npu_drv.h"

static int npu_home_copy_from_user(void *home_dev, void *dst, u64 uptr,
				   size_t len)
{
	return copy_from_user(dst, u64_to_user_ptr(uptr), len) ? -EFAULT : 0;
}

static int npu_home_copy_to_user(void *home_dev, u64 uptr, const void *src,
				 size_t len)
{
	return copy_to_user(u64_to_user_ptr(uptr), src, len) ? -EFAULT : 0;
}

/* home_file is the struct drm_file, or NULL for the driver's own file. */
static int npu_home_bo_publish(void *home_file, struct npu_bo *bo, u32 *handle)
{
	if (!home_file)
		return -EOPNOTSUPP;
	return npu_gem_publish(home_file, bo, handle);
}

static struct npu_bo *npu_home_bo_lookup(void *home_file, u32 handle)
{
	if (!home_file)
		return NULL;
	return npu_gem_lookup_bo(home_file, handle);
}

static int npu_home_bo_mmap_offset(void *home_file, struct npu_bo *bo,
				   u64 *offset)
{
	*offset = npu_gem_mmap_offset(bo);
	return *offset ? 0 : -ENOENT;
}

/*
 * Compaction: mappings are shot down before the copy (bo_unmap); faults
 * wait on the pool lock until the move is done. bo_moved zaps once more,
 * which costs nothing when nothing was mapped meanwhile.
 */
static void npu_home_bo_unmap(void *home_dev, struct npu_bo *bo)
{
	npu_gem_unmap(home_dev, bo);
}

static void npu_home_bo_moved(void *home_dev, struct npu_bo *bo, u64 old_start)
{
	npu_gem_unmap(home_dev, bo);
}

static void npu_home_job_done(void *home_dev, u32 hw_queue, u64 fence,
			      u32 status)
{
	struct npu_drm_device *ndev = home_dev;

	atomic64_inc(&ndev->jobs_done[min_t(u32, status,
					    ARRAY_SIZE(ndev->jobs_done) - 1)]);
	queue_work(ndev->irq_wq, &ndev->irq_work);
}

const struct npu_home_ops npu_kernel_home_ops = {
	.copy_from_user = npu_home_copy_from_user,
	.copy_to_user = npu_home_copy_to_user,
	.bo_publish = npu_home_bo_publish,
	.bo_lookup = npu_home_bo_lookup,
	.bo_mmap_offset = npu_home_bo_mmap_offset,
	.bo_moved = npu_home_bo_moved,
	.bo_unmap = npu_home_bo_unmap,
	.job_done = npu_home_job_done,
};

/* Whether a queue of @nfile still has an unretired job. files_lock held. */
static bool npu_file_pending(struct npu_drm_file *nfile)
{
	struct npu_drm_queue *q;
	unsigned long handle;

	xa_for_each(&nfile->queues, handle, q) {
		struct drm_npu_queue_query query = { .handle = handle };

		if (!q->last_fence)
			continue;
		/* -ENOENT: destroyed, and destroy waits for its jobs. */
		if (!npu_ioctl_queue_query(nfile->core_file, &query) &&
		    query.completed < q->last_fence)
			return true;
	}
	return false;
}

static void npu_file_set_idle(struct npu_drm_file *nfile, u64 now)
{
	struct npu_drm_device *ndev = nfile->ndev;

	lockdep_assert_held(&ndev->files_lock);
	if (!nfile->active)
		return;
	nfile->active = false;
	nfile->engine_ns += now - nfile->busy_since;
	if (--ndev->active_files == 0)
		ndev->busy_ns += now - ndev->busy_since;
}

/**
 * npu_irq_work() - bottom half of the job-done "interrupt"
 * @work: the device's irq_work
 *
 * Signals the syncobj points of retired jobs and marks idle every busy
 * file whose queues have all retired their jobs.
 */
void npu_irq_work(struct work_struct *work)
{
	struct npu_drm_device *ndev =
		container_of(work, struct npu_drm_device, irq_work);
	struct npu_drm_file *nfile;

	mutex_lock(&ndev->files_lock);
	list_for_each_entry(nfile, &ndev->files, link) {
		if (!list_empty(&nfile->fences))
			npu_fence_poll(nfile);
		if (nfile->active && !npu_file_pending(nfile))
			npu_file_set_idle(nfile, ktime_get_ns());
	}
	mutex_unlock(&ndev->files_lock);
}

/**
 * npu_file_submitted() - account a successful submission
 * @nfile: the submitting file
 * @queue: its queue handle
 * @fence: the job's fence point
 */
void npu_file_submitted(struct npu_drm_file *nfile, u32 queue, u64 fence)
{
	struct npu_drm_device *ndev = nfile->ndev;
	struct npu_drm_queue *q;
	u64 now = ktime_get_ns();

	mutex_lock(&ndev->files_lock);
	q = xa_load(&nfile->queues, queue);
	if (q && fence > q->last_fence)
		q->last_fence = fence;
	if (!nfile->active) {
		nfile->active = true;
		nfile->busy_since = now;
		if (ndev->active_files++ == 0)
			ndev->busy_since = now;
	}
	mutex_unlock(&ndev->files_lock);
	/* The job may have retired already: let the bottom half look. */
	queue_work(ndev->irq_wq, &ndev->irq_work);
}

/**
 * npu_file_retire_all() - take a closing file off the device's books
 * @nfile: the file; its activity period (if any) ends now
 */
void npu_file_retire_all(struct npu_drm_file *nfile)
{
	struct npu_drm_device *ndev = nfile->ndev;

	mutex_lock(&ndev->files_lock);
	list_del_init(&nfile->link);
	npu_file_set_idle(nfile, ktime_get_ns());
	mutex_unlock(&ndev->files_lock);
}

/**
 * npu_file_engine_ns() - time @nfile has had unretired jobs, in ns
 * @nfile: the file
 *
 * Return: the total including the current busy period.
 */
u64 npu_file_engine_ns(struct npu_drm_file *nfile)
{
	struct npu_drm_device *ndev = nfile->ndev;
	u64 ns;

	mutex_lock(&ndev->files_lock);
	ns = nfile->engine_ns;
	if (nfile->active)
		ns += ktime_get_ns() - nfile->busy_since;
	mutex_unlock(&ndev->files_lock);
	return ns;
}

/**
 * npu_device_busy_ns() - time the device has had unretired jobs, in ns
 * @ndev: the device
 *
 * Return: the total including the current busy period.
 */
u64 npu_device_busy_ns(struct npu_drm_device *ndev)
{
	u64 ns;

	mutex_lock(&ndev->files_lock);
	ns = ndev->busy_ns;
	if (ndev->active_files)
		ns += ktime_get_ns() - ndev->busy_since;
	mutex_unlock(&ndev->files_lock);
	return ns;
}
