// SPDX-License-Identifier: GPL-2.0
/*
 * npu_home.c - the kernel home's hooks for the device core, and its
 * "interrupt" path.
 *
 * The core calls job_done from its scheduler thread whenever a job retires
 * (completed, faulted or cancelled). Like a hard interrupt handler, the hook
 * only counts the event and queues the bottom half on an ordered
 * workqueue; the bottom half signals the syncobj points of retired jobs.
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

/**
 * npu_irq_work() - bottom half of the job-done "interrupt"
 * @work: the device's irq_work
 *
 * Signals the syncobj points of the jobs that have retired.
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
	}
	mutex_unlock(&ndev->files_lock);
}

/**
 * npu_file_forget() - take a closing file off the device's list
 * @nfile: the file
 */
void npu_file_forget(struct npu_drm_file *nfile)
{
	struct npu_drm_device *ndev = nfile->ndev;

	mutex_lock(&ndev->files_lock);
	list_del_init(&nfile->link);
	mutex_unlock(&ndev->files_lock);
}
