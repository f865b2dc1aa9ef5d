// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * submit.c - DRM_IOCTL_NPU_SUBMIT and DRM_IOCTL_NPU_WAIT_FENCE.
 *
 * Submission checks every field, resolves every handle of the calling file
 * to a referenced object, compares each bound buffer with its slot's need,
 * and appends the job to its queue with the next fence point. The job keeps
 * its references until it retires, so handles may be closed at any time.
 */
#include "npu_core_priv.h"

void npu_job_free(struct npu_job *job)
{
	u32 i;

	for (i = 0; i < job->num_bos; i++)
		npu_bo_put(job->bos[i]);
	for (i = 0; i < job->num_waits; i++)
		npu_sem_put(job->waits[i].sem);
	for (i = 0; i < job->num_signals; i++)
		npu_sem_put(job->signals[i].sem);
	for (i = 0; i < job->num_bindings; i++)
		npu_sem_put(job->bindings[i].sem);
	npu_bo_put(job->profile_bo);
	npu_program_put(job->prog);
	npu_queue_put(job->queue);
	npu_free(job->bos);
	npu_free(job->waits);
	npu_free(job->signals);
	npu_free(job->bindings);
	npu_free(job);
}

/* Copy in and resolve @n semaphore points; the job owns what was resolved. */
static int npu_get_sem_points(struct npu_file *f, u64 uptr, u32 n,
			      struct npu_sem_pt **out, u32 *count)
{
	struct npu_device *dev = f->dev;
	struct drm_npu_sem_point *pts;
	struct npu_sem_pt *res;
	u32 i;
	int err;

	if (n == 0)
		return 0;
	if (n > DRM_NPU_MAX_SEM_POINTS || !uptr)
		return -EINVAL;
	/* heap, not stack: the kernel home has small stacks */
	pts = npu_zalloc(n * sizeof(*pts));
	res = npu_zalloc(n * sizeof(*res));
	if (!pts || !res) {
		npu_free(pts);
		npu_free(res);
		return -ENOMEM;
	}
	*out = res;
	err = dev->ops.copy_from_user(dev->home_dev, pts, uptr,
				      n * sizeof(*pts));
	for (i = 0; !err && i < n; i++)
		if (pts[i].pad)
			err = -EINVAL;
	for (i = 0; !err && i < n; i++) {
		res[i].sem = npu_file_sem(f, pts[i].handle);
		if (!res[i].sem)
			err = -ENOENT;
		else
			*count = i + 1;
		res[i].value = pts[i].value;
	}
	npu_free(pts);
	return err;
}

static int npu_submit_check(const struct drm_npu_submit *a)
{
	if (a->reserved || (a->flags & ~DRM_NPU_SUBMIT_FLAGS))
		return -EINVAL;
	if (!(a->flags & DRM_NPU_SUBMIT_PROFILE) &&
	    (a->profile_bo || a->profile_offset))
		return -EINVAL;
	if (a->num_bos > DRM_NPU_MAX_SLOTS || (a->num_bos && !a->bos_ptr) ||
	    a->num_waits > DRM_NPU_MAX_SEM_POINTS ||
	    a->num_signals > DRM_NPU_MAX_SEM_POINTS ||
	    a->num_sem_bindings > DRM_NPU_MAX_SEM_POINTS)
		return -EINVAL;
	return 0;
}

static int npu_submit_bos(struct npu_file *f, struct drm_npu_submit *a,
			  struct npu_job *job)
{
	struct npu_device *dev = f->dev;
	u32 *handles, i;
	int err;

	if (a->num_bos != job->prog->num_slots)
		return -EINVAL;
	job->distinct_bos = true;
	if (!a->num_bos)
		return 0;
	handles = npu_zalloc(a->num_bos * sizeof(u32));
	job->bos = npu_zalloc(a->num_bos * sizeof(*job->bos));
	if (!handles || !job->bos) {
		npu_free(handles);
		return -ENOMEM;
	}
	err = dev->ops.copy_from_user(dev->home_dev, handles, a->bos_ptr,
				      a->num_bos * sizeof(u32));
	for (i = 0; !err && i < a->num_bos; i++) {
		job->bos[i] = npu_core_file_bo_lookup(f, handles[i]);
		if (!job->bos[i]) {
			err = -ENOENT;
			break;
		}
		job->num_bos = i + 1;
		if (job->bos[i]->size < job->prog->slot_need[i])
			err = -ENOSPC;
	}
	npu_free(handles);
	/* two slots on one buffer: npu_job_task_shareable() compares ranges */
	job->distinct_bos = true;
	for (i = 0; !err && i < job->num_bos; i++) {
		u32 j;

		for (j = i + 1; j < job->num_bos; j++)
			if (job->bos[i] == job->bos[j])
				job->distinct_bos = false;
	}
	return err;
}

/**
 * npu_job_task_shareable() - may task @ti of @job run on several cores?
 * @job: a submitted job
 * @ti: task index in the job's program
 *
 * The program decided it slot by slot (npu_task_shareable(): the output
 * overlaps no other operand of its slot). Slots bound to one buffer
 * object compare the bound byte ranges too: offsets of such slots are in
 * one buffer's coordinates, so disjoint ranges cannot race (npu-run binds
 * its inputs and outputs in one allocator segment, so most jobs bind one
 * buffer to several slots).
 */
bool npu_job_task_shareable(const struct npu_job *job, u32 ti)
{
	const struct drm_npu_task *t = &job->prog->tasks[ti];
	const u64 *ends = &job->prog->op_end[(u64)ti * DRM_NPU_MAX_OPERANDS];
	u32 o, i;

	if (!job->prog->shareable[ti])
		return false;
	if (job->distinct_bos)
		return true;
	for (o = 0; o < t->num_operands; o++) {
		const struct drm_npu_operand *out = &t->operands[o];

		if (!npu_op_writes(t, o))
			continue;
		for (i = 0; i < t->num_operands; i++) {
			const struct drm_npu_operand *in = &t->operands[i];

			if (i == o || in->slot == out->slot ||
			    job->bos[in->slot] != job->bos[out->slot])
				continue;	/* checked with the program */
			if (ends[i] <= out->offset || ends[o] <= in->offset ||
			    ends[i] == in->offset || ends[o] == out->offset)
				continue;	/* disjoint or empty */
			return false;
		}
	}
	return true;
}

static int npu_submit_profile(struct npu_file *f, struct drm_npu_submit *a,
			      struct npu_job *job)
{
	u64 bytes, end;

	if (!(a->flags & DRM_NPU_SUBMIT_PROFILE))
		return 0;
	if (a->profile_offset % 8)
		return -EINVAL;
	job->profile_bo = npu_core_file_bo_lookup(f, a->profile_bo);
	if (!job->profile_bo)
		return -ENOENT;
	if (job->profile_bo->dev != f->dev)
		return -EINVAL;		/* a peer's buffer: the device's own */
	job->profile_offset = a->profile_offset;
	bytes = (u64)(job->end - job->first) *
		sizeof(struct drm_npu_task_profile);
	if (check_add_overflow(a->profile_offset, bytes, &end) ||
	    end > job->profile_bo->size)
		return -ENOSPC;
	return 0;
}

int npu_ioctl_submit(struct npu_file *f, struct drm_npu_submit *a)
{
	struct npu_device *dev = f->dev;
	struct npu_job *job;
	u64 end;
	u32 i;
	int err;

	err = npu_submit_check(a);
	if (err)
		return err;
	job = npu_zalloc(sizeof(*job));
	if (!job)
		return -ENOMEM;
	npu_list_init(&job->link);
	job->queue = npu_file_queue(f, a->queue);
	job->prog = npu_file_program(f, a->program);
	if (!job->queue || !job->prog) {
		err = -ENOENT;
		goto fail;
	}
	end = (u64)a->first_task + (a->num_tasks ? a->num_tasks :
			job->prog->num_tasks - (u64)a->first_task);
	if (a->first_task >= job->prog->num_tasks ||
	    end > job->prog->num_tasks) {
		err = -EINVAL;
		goto fail;
	}
	job->first = a->first_task;
	job->next = a->first_task;
	job->end = (u32)end;
	err = npu_submit_bos(f, a, job);
	if (!err)
		err = npu_get_sem_points(f, a->waits_ptr, a->num_waits,
					 &job->waits, &job->num_waits);
	if (!err)
		err = npu_get_sem_points(f, a->signals_ptr, a->num_signals,
					 &job->signals, &job->num_signals);
	if (!err)
		err = npu_get_sem_points(f, a->sem_bindings_ptr,
					 a->num_sem_bindings, &job->bindings,
					 &job->num_bindings);
	if (!err && a->num_sem_bindings < job->prog->num_sem_indices)
		err = -EINVAL;
	if (!err)
		err = npu_submit_profile(f, a, job);
	if (err)
		goto fail;

	npu_mutex_lock(&dev->lock);
	if (job->queue->closing) {
		npu_mutex_unlock(&dev->lock);
		err = -ENOENT;
		goto fail;
	}
	job->fence = ++job->queue->submitted;
	job->key = f->job_key_base + ++f->jobs_submitted;
	for (i = 0; i < job->num_bos; i++)
		if (job->bos[i]->dev == dev)	/* peers: npu_bo_is_peer() */
			job->bos[i]->busy++;
	if (job->profile_bo)
		job->profile_bo->busy++;
	npu_list_add_tail(&job->link, &job->queue->jobs);
	a->fence = job->fence;
	npu_queue_submitted(dev, job->queue);
	npu_mutex_unlock(&dev->lock);
	return 0;
fail:
	npu_job_free(job);
	return err;
}

static bool npu_fence_failed(const struct npu_queue *q, u64 fence)
{
	u32 i;

	for (i = 0; i < q->num_failed; i++)
		if (fence >= q->failed[i].first && fence <= q->failed[i].last)
			return true;
	return false;
}

int npu_ioctl_wait_fence(struct npu_file *f, struct drm_npu_wait_fence *args)
{
	struct npu_device *dev = f->dev;
	struct npu_queue *q;
	u64 deadline;
	int err;

	if (args->flags)
		return -EINVAL;
	err = npu_deadline(args->timeout_ns, &deadline);
	if (err)
		return err;
	q = npu_file_queue(f, args->queue);
	if (!q)
		return -ENOENT;
	npu_mutex_lock(&dev->lock);
	if (args->fence > q->submitted) {
		err = -EINVAL;
		goto out;
	}
	err = npu_wait_count(dev, q, &q->completed, args->fence, deadline);
	if (!err && npu_fence_failed(q, args->fence))
		err = -EIO;
out:
	npu_mutex_unlock(&dev->lock);
	npu_queue_put(q);
	return err;
}
