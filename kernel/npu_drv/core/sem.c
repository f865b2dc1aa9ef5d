// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * sem.c - stream semaphores: each handle owns one of the device's S
 * hardware semaphores, a 64-bit timeline counter that only grows. The host
 * signals and waits through these ioctls; the device through job-level
 * waits/signals and SEM_WAIT/SEM_SIGNAL tasks (sched.c).
 */
#include "npu_core_priv.h"

void npu_sem_put(struct npu_sem *sem)
{
	struct npu_device *dev;

	if (!sem || !npu_ref_put(&sem->ref))
		return;
	dev = sem->dev;
	npu_mutex_lock(&dev->lock);
	dev->sem_used[sem->hw] = false;
	npu_mutex_unlock(&dev->lock);
	npu_free(sem);
}

int npu_ioctl_sem_create(struct npu_file *f, struct drm_npu_sem_create *args)
{
	struct npu_device *dev = f->dev;
	struct npu_sem *sem;
	u32 i, handle;
	int err;

	if (args->flags)
		return -EINVAL;
	npu_mutex_lock(&f->lock);
	err = npu_file_limit(f, "file_sems", f->sems.count, 1, f->lim.sems);
	npu_mutex_unlock(&f->lock);
	if (err)
		return err;
	sem = npu_zalloc(sizeof(*sem));
	if (!sem)
		return -ENOMEM;
	npu_ref_init(&sem->ref);
	sem->dev = dev;
	npu_mutex_lock(&dev->lock);
	for (i = 0; i < dev->num_semaphores && dev->sem_used[i]; i++)
		;
	if (i == dev->num_semaphores) {
		npu_mutex_unlock(&dev->lock);
		npu_free(sem);
		return -ENOSPC;
	}
	dev->sem_used[i] = true;
	dev->sem_values[i] = args->initial_value;
	sem->hw = i;
	npu_mutex_unlock(&dev->lock);

	npu_mutex_lock(&f->lock);
	/* again: a concurrent create of this file may have taken the last */
	err = npu_file_limit(f, "file_sems", f->sems.count, 1, f->lim.sems);
	if (!err)
		err = npu_handles_alloc(&f->sems, sem, &handle);
	npu_mutex_unlock(&f->lock);
	if (err) {
		npu_sem_put(sem);
		return err;
	}
	args->handle = handle;
	return 0;
}

int npu_ioctl_sem_destroy(struct npu_file *f, struct drm_npu_sem_destroy *args)
{
	struct npu_sem *sem;

	if (args->pad)
		return -EINVAL;
	npu_mutex_lock(&f->lock);
	sem = npu_handles_remove(&f->sems, args->handle);
	npu_mutex_unlock(&f->lock);
	if (!sem)
		return -ENOENT;
	npu_sem_put(sem);
	return 0;
}

int npu_ioctl_sem_signal(struct npu_file *f, struct drm_npu_sem_signal *args)
{
	struct npu_device *dev = f->dev;
	struct npu_sem *sem;
	int err = 0;

	if (args->pad)
		return -EINVAL;
	sem = npu_file_sem(f, args->handle);
	if (!sem)
		return -ENOENT;
	npu_mutex_lock(&dev->lock);
	if (args->value <= dev->sem_values[sem->hw])
		err = -EINVAL;
	else
		npu_sem_update(dev, sem->hw, args->value);
	npu_mutex_unlock(&dev->lock);
	npu_sem_put(sem);
	return err;
}

int npu_ioctl_sem_wait(struct npu_file *f, struct drm_npu_sem_wait *args)
{
	struct npu_device *dev = f->dev;
	struct npu_sem *sem;
	u64 deadline;
	int err;

	if (args->flags)
		return -EINVAL;
	err = npu_deadline(args->timeout_ns, &deadline);
	if (err)
		return err;
	sem = npu_file_sem(f, args->handle);
	if (!sem)
		return -ENOENT;
	npu_mutex_lock(&dev->lock);
	err = npu_wait_count(dev, NULL, &dev->sem_values[sem->hw],
			     args->value, deadline);
	npu_mutex_unlock(&dev->lock);
	npu_sem_put(sem);
	return err;
}

int npu_ioctl_sem_query(struct npu_file *f, struct drm_npu_sem_query *args)
{
	struct npu_device *dev = f->dev;
	struct npu_sem *sem;

	if (args->pad)
		return -EINVAL;
	sem = npu_file_sem(f, args->handle);
	if (!sem)
		return -ENOENT;
	npu_mutex_lock(&dev->lock);
	args->value = dev->sem_values[sem->hw];
	npu_mutex_unlock(&dev->lock);
	npu_sem_put(sem);
	return 0;
}
