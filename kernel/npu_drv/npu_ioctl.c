// SPDX-License-Identifier: GPL-2.0
/*
 * npu_ioctl.c - the DRM ioctl table: every DRM_IOCTL_NPU_* goes to the
 * core's handler of the same name with the struct DRM has already copied
 * in (and copies back out afterwards, whatever the result, so that error
 * details such as error_task reach userspace). The home only adds what it
 * keeps itself: the queue -> hardware-queue map (debugfs) and the syncobj
 * points of submissions.
 */
#include <linux/compat.h>
#include <linux/dma-fence.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>

#include "npu_drv.h"

static struct npu_file *npu_core_file_of(struct drm_file *file)
{
	return ((struct npu_drm_file *)file->driver_priv)->core_file;
}

/* Plain forwarders: npu_drm_<name>() calls npu_ioctl_<name>(). */
#define NPU_FORWARD(name, type)						\
static int npu_drm_##name(struct drm_device *drm, void *data,		\
			  struct drm_file *file)			\
{									\
	return npu_ioctl_##name(npu_core_file_of(file),			\
				(struct drm_npu_##type *)data);		\
}

NPU_FORWARD(device_info, device_info)
NPU_FORWARD(bo_create, bo_create)
NPU_FORWARD(bo_mmap_offset, bo_mmap_offset)
NPU_FORWARD(bo_info, bo_info)
NPU_FORWARD(bo_wait, bo_wait)
NPU_FORWARD(program_create, program_create)
NPU_FORWARD(program_destroy, program_destroy)
NPU_FORWARD(queue_query, queue_query)
NPU_FORWARD(sem_create, sem_create)
NPU_FORWARD(sem_destroy, sem_destroy)
NPU_FORWARD(sem_signal, sem_signal)
NPU_FORWARD(sem_wait, sem_wait)
NPU_FORWARD(sem_query, sem_query)
NPU_FORWARD(wait_fence, wait_fence)
NPU_FORWARD(mem_stats, mem_stats)
NPU_FORWARD(compact, compact)

static int npu_drm_queue_create(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct npu_drm_file *nfile = file->driver_priv;
	struct drm_npu_queue_create *args = data;
	struct npu_drm_queue *q;
	int ret;

	q = kmem_cache_zalloc(npu_queue_cache, GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	mutex_lock(&nfile->queue_lock);
	ret = npu_ioctl_queue_create(nfile->core_file, args);
	if (!ret) {
		struct drm_npu_queue_destroy undo = { .handle = args->handle };

		q->hw_queue = args->hw_queue;
		q->fence_context = dma_fence_context_alloc(1);
		mutex_lock(&nfile->ndev->files_lock);
		ret = xa_err(xa_store(&nfile->queues, args->handle, q,
				      GFP_KERNEL));
		mutex_unlock(&nfile->ndev->files_lock);
		if (ret)
			npu_ioctl_queue_destroy(nfile->core_file, &undo);
	}
	mutex_unlock(&nfile->queue_lock);
	if (ret)
		kmem_cache_free(npu_queue_cache, q);
	return ret;
}

/*
 * The bottom half learns how a job with a syncobj point ended by asking
 * the core about the point's queue; once the queue is destroyed it can
 * only call the job cancelled. So before the core destroys the queue, make
 * the queue's jobs retire (a destroy aborts them: npu_core_queue_abort(),
 * which keeps the queue) and signal their points with their real status
 * here, if any point of this queue is still pending: a job that completed
 * before the destroy keeps its success.
 */
static void npu_queue_retire_points(struct npu_drm_file *nfile, u32 handle)
{
	struct drm_npu_queue_query qq = { .handle = handle };
	struct drm_npu_wait_fence w = { .queue = handle,
					.timeout_ns = S64_MAX };
	bool pending;

	mutex_lock(&nfile->ndev->files_lock);
	pending = npu_fence_pending(nfile, handle);
	mutex_unlock(&nfile->ndev->files_lock);
	if (!pending || npu_core_queue_abort(nfile->core_file, handle) ||
	    npu_ioctl_queue_query(nfile->core_file, &qq) || !qq.submitted)
		return;
	w.fence = qq.submitted;
	/* 0 or -EIO: retired; else (a signal) the destroy fails as well. */
	npu_ioctl_wait_fence(nfile->core_file, &w);
	mutex_lock(&nfile->ndev->files_lock);
	npu_fence_poll(nfile);
	mutex_unlock(&nfile->ndev->files_lock);
}

static int npu_drm_queue_destroy(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct npu_drm_file *nfile = file->driver_priv;
	struct drm_npu_queue_destroy *args = data;
	struct npu_drm_queue *q = NULL;
	int ret;

	mutex_lock(&nfile->queue_lock);
	if (!args->pad)
		npu_queue_retire_points(nfile, args->handle);
	ret = npu_ioctl_queue_destroy(nfile->core_file, args);
	if (!ret) {
		mutex_lock(&nfile->ndev->files_lock);
		q = xa_erase(&nfile->queues, args->handle);
		mutex_unlock(&nfile->ndev->files_lock);
	}
	mutex_unlock(&nfile->queue_lock);
	if (q)
		kmem_cache_free(npu_queue_cache, q);
	return ret;
}

static int npu_drm_submit(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct npu_drm_file *nfile = file->driver_priv;
	struct drm_npu_submit *args = data;
	bool syncobj = args->flags & DRM_NPU_SUBMIT_SYNCOBJ;
	struct npu_syncobj_point sp;
	u64 reserved = args->reserved;
	int ret;

	/*
	 * The syncobj point is the home's business: the core sees the
	 * submission without it, and everything the point needs is
	 * allocated first so that attaching it cannot fail afterwards.
	 */
	if (syncobj) {
		if (upper_32_bits(reserved))
			return -EINVAL;
		ret = npu_fence_prepare(file, lower_32_bits(reserved), &sp);
		if (ret)
			return ret;
		args->flags &= ~DRM_NPU_SUBMIT_SYNCOBJ;
		args->reserved = 0;
	}
	ret = npu_ioctl_submit(nfile->core_file, args);
	if (syncobj) {
		args->flags |= DRM_NPU_SUBMIT_SYNCOBJ;
		args->reserved = reserved;
	}
	if (ret) {
		if (syncobj)
			npu_fence_abort(&sp);
		return ret;
	}
	if (syncobj)
		npu_fence_attach(nfile, args->queue, args->fence, &sp);
	return 0;
}

#define NPU_IOCTL(NAME, fn) \
	DRM_IOCTL_DEF_DRV(NPU_##NAME, npu_drm_##fn, DRM_RENDER_ALLOW)

const struct drm_ioctl_desc npu_ioctls[] = {
	NPU_IOCTL(DEVICE_INFO, device_info),
	NPU_IOCTL(BO_CREATE, bo_create),
	NPU_IOCTL(BO_MMAP_OFFSET, bo_mmap_offset),
	NPU_IOCTL(BO_INFO, bo_info),
	NPU_IOCTL(BO_WAIT, bo_wait),
	NPU_IOCTL(PROGRAM_CREATE, program_create),
	NPU_IOCTL(PROGRAM_DESTROY, program_destroy),
	NPU_IOCTL(QUEUE_CREATE, queue_create),
	NPU_IOCTL(QUEUE_DESTROY, queue_destroy),
	NPU_IOCTL(QUEUE_QUERY, queue_query),
	NPU_IOCTL(SEM_CREATE, sem_create),
	NPU_IOCTL(SEM_DESTROY, sem_destroy),
	NPU_IOCTL(SEM_SIGNAL, sem_signal),
	NPU_IOCTL(SEM_WAIT, sem_wait),
	NPU_IOCTL(SEM_QUERY, sem_query),
	NPU_IOCTL(SUBMIT, submit),
	NPU_IOCTL(WAIT_FENCE, wait_fence),
	NPU_IOCTL(MEM_STATS, mem_stats),
	NPU_IOCTL(COMPACT, compact),
};

const int npu_num_ioctls = ARRAY_SIZE(npu_ioctls);
static_assert(ARRAY_SIZE(npu_ioctls) == DRM_NPU_NUM_IOCTLS);

/*
 * The fields of DRM's own ioctls that DRM (on 6.1) does not check but the
 * in-process device does: GEM_CLOSE's pad, PRIME_FD_TO_HANDLE's flags
 * (import takes none; export's are checked by DRM).
 */
static int npu_check_drm_ioctl(unsigned int cmd, void __user *uptr)
{
	if (cmd == DRM_IOCTL_GEM_CLOSE) {
		struct drm_gem_close args;

		if (copy_from_user(&args, uptr, sizeof(args)))
			return -EFAULT;
		if (args.pad)
			return -EINVAL;
	} else if (cmd == DRM_IOCTL_PRIME_FD_TO_HANDLE) {
		struct drm_prime_handle args;

		if (copy_from_user(&args, uptr, sizeof(args)))
			return -EFAULT;
		if (args.flags)
			return -EINVAL;
	}
	return 0;
}

/**
 * npu_unlocked_ioctl() - file_operations.unlocked_ioctl of the device file
 * @f: the device file
 * @cmd: ioctl number
 * @arg: user pointer
 *
 * DRM_IOCTL_GEM_CLOSE and DRM_IOCTL_PRIME_FD_TO_HANDLE are DRM's own
 * ioctls and (on 6.1) ignore their pad and flags fields; the uapi promises
 * that every pad must be zero and every unknown flag is refused, so that
 * they can be given meaning later, and the in-process device refuses both.
 * Check them here, as the in-process device does, then let DRM dispatch.
 *
 * Return: as drm_ioctl().
 */
long npu_unlocked_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	int ret = npu_check_drm_ioctl(cmd, (void __user *)arg);

	return ret ? ret : drm_ioctl(f, cmd, arg);
}

#ifdef CONFIG_COMPAT
/**
 * npu_compat_ioctl() - the 32-bit twin of npu_unlocked_ioctl()
 * @f: the device file
 * @cmd: ioctl number
 * @arg: user pointer
 *
 * Return: as drm_compat_ioctl().
 */
long npu_compat_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	int ret = npu_check_drm_ioctl(cmd, compat_ptr(arg));

	return ret ? ret : drm_compat_ioctl(f, cmd, arg);
}
#endif
