// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * device.c - the emulated NPU as a whole: creation from the home's
 * parameters, its threads, test modes, DEVICE_INFO and the ioctl table.
 */
#include "npu_core_priv.h"

#define NPU_MAX_CORES		64
#define NPU_MAX_QUEUES		64
#define NPU_MAX_SEMAPHORES	4096
#define NPU_WATCHDOG_MIN_MS	10
#define NPU_WATCHDOG_MAX_MS	3600000

static bool npu_budget_ok(u64 ms)
{
	return ms == 0 ||
	       (ms >= NPU_WATCHDOG_MIN_MS && ms <= NPU_JOB_BUDGET_MAX_MS);
}

static int npu_check_params(const struct npu_device_params *p)
{
	if (!p->vram || p->vram_size < (1ull << 20) ||
	    p->vram_size % NPU_POOL_PAGE)
		return -EINVAL;
	if (!p->num_cores || p->num_cores > NPU_MAX_CORES ||
	    !p->num_queues || p->num_queues > NPU_MAX_QUEUES ||
	    !p->num_semaphores || p->num_semaphores > NPU_MAX_SEMAPHORES)
		return -EINVAL;
	if (p->watchdog_ms < NPU_WATCHDOG_MIN_MS ||
	    p->watchdog_ms > NPU_WATCHDOG_MAX_MS)
		return -EINVAL;
	if (!npu_budget_ok(p->job_budget_ms))
		return -EINVAL;
	if (p->isa > NPU_ISA_AVX512 || p->park_spin_us > NPU_PARK_SPIN_MAX_US)
		return -EINVAL;
	if (!p->ops || !p->ops->copy_from_user || !p->ops->copy_to_user ||
	    !p->ops->bo_publish != !p->ops->bo_lookup ||
	    !p->ops->task_map != !p->ops->task_unmap)
		return -EINVAL;
	return 0;
}

static void npu_core_free(struct npu_device *dev)
{
	u32 i;

	if (dev->pool)
		npu_pool_destroy(dev->pool);
	for (i = 0; dev->cores && i < dev->num_cores; i++)
		npu_vfree(dev->cores[i].ub);
	npu_free(dev->cores);
	npu_free(dev->hwq_users);
	npu_free(dev->ready);
	npu_free(dev->sem_waiters);
	npu_free(dev->sem_values);
	npu_free(dev->sem_used);
	npu_waitq_destroy(&dev->done_wq);
	npu_waitq_destroy(&dev->wd_wq);
	npu_waitq_destroy(&dev->mem_wq);
	npu_mutex_destroy(&dev->pool_lock);
	npu_mutex_destroy(&dev->lock);
	npu_mutex_destroy(&dev->mem_lock);
	npu_mutex_destroy(&dev->bos_lock);
	npu_free(dev);
}

static void npu_core_stop(struct npu_device *dev, u32 started_cores,
			  bool watchdog)
{
	u32 i;

	npu_mutex_lock(&dev->lock);
	NPU_WRITE_ONCE(dev->stopping, true);
	npu_waitq_wake_all(&dev->wd_wq);
	for (i = 0; i < dev->num_cores; i++) {
		npu_waitq_wake_all(&dev->cores[i].wq);
		npu_waitq_wake_all(&dev->cores[i].park_wq);
	}
	npu_mutex_unlock(&dev->lock);
	for (i = 0; i < started_cores; i++)
		npu_thread_join(&dev->cores[i].thread);
	if (watchdog)
		npu_thread_join(&dev->watchdog);
	for (i = 0; i < dev->num_cores; i++) {
		npu_waitq_destroy(&dev->cores[i].wq);
		npu_waitq_destroy(&dev->cores[i].park_wq);
	}
	/* Jobs a core left unfinished when it stopped: cancel them. */
	npu_mutex_lock(&dev->lock);
	while (!npu_list_empty(&dev->queues)) {
		struct npu_queue *q = npu_container_of(dev->queues.next,
						       struct npu_queue, link);

		q->running = false;
		q->closing = true;
		npu_queue_cancel_all(dev, q);
		if (q->listed) {	/* not closed by its file: unlist anyway */
			npu_list_del(&q->link);
			q->listed = false;
		}
	}
	npu_mutex_unlock(&dev->lock);
	npu_reap(dev);
}

/* The per-file limits from the parameters, defaults for those left 0. */
static void npu_default_limits(struct npu_device *dev,
			       const struct npu_device_params *p)
{
	struct npu_limits *l = &dev->limits;
	u32 s = p->num_semaphores;

	l->vram = p->file_quota ? p->file_quota :
		  (p->vram_size / 100 * NPU_FILE_VRAM_DEFAULT_PCT &
		   ~(NPU_POOL_PAGE - 1));
	if (l->vram >= p->vram_size)
		l->vram = 0;	/* the whole VRAM: no limit */
	l->queues = p->file_queues ? p->file_queues : NPU_FILE_QUEUES_DEFAULT;
	l->sems = p->file_semaphores ? p->file_semaphores :
		  s / 4 > 16 ? s / 4 : s < 16 ? s : 16;
	if (l->sems > s)
		l->sems = s;
	l->programs = p->file_programs ? p->file_programs :
		      NPU_FILE_PROGRAMS_DEFAULT;
	l->program_bytes = p->file_program_bytes ? p->file_program_bytes :
			   NPU_FILE_PROGRAM_BYTES_DEFAULT;
}

int npu_core_create(const struct npu_device_params *p, struct npu_device **out)
{
	struct npu_device *dev;
	u32 i;
	int err;

	err = npu_check_params(p);
	if (err)
		return err;
	dev = npu_zalloc(sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->ops = *p->ops;
	dev->home_dev = p->home_dev;
	dev->vram = p->vram;
	dev->vram_size = p->vram_size;
	dev->num_cores = p->num_cores;
	dev->num_queues = p->num_queues;
	dev->num_semaphores = p->num_semaphores;
	dev->watchdog_ms = p->watchdog_ms;
	dev->job_budget_ms = p->job_budget_ms;
	dev->isa = p->isa;
	dev->serve_waits = p->serve_waits;
	dev->park_spin_ns = (u64)p->park_spin_us * 1000;
	npu_default_limits(dev, p);
	npu_mutex_init(&dev->pool_lock);
	npu_mutex_init(&dev->lock);
	npu_mutex_init(&dev->mem_lock);
	npu_mutex_init(&dev->bos_lock);
	npu_waitq_init(&dev->done_wq);
	npu_waitq_init(&dev->wd_wq);
	npu_waitq_init(&dev->mem_wq);
	npu_list_init(&dev->bos);
	npu_list_init(&dev->queues);
	npu_list_init(&dev->reap);
	npu_list_init(&dev->retry);
	dev->cores = npu_zalloc(p->num_cores * sizeof(*dev->cores));
	dev->hwq_users = npu_zalloc(p->num_queues * sizeof(u32));
	dev->ready = npu_zalloc(p->num_queues * NPU_NUM_PRIO *
				sizeof(*dev->ready));
	dev->sem_waiters = npu_zalloc(p->num_semaphores *
				      sizeof(*dev->sem_waiters));
	dev->sem_values = npu_zalloc(p->num_semaphores * sizeof(u64));
	dev->sem_used = npu_zalloc(p->num_semaphores * sizeof(bool));
	dev->pool = npu_pool_create(p->vram_size, &npu_bo_move_ops, dev);
	if (!dev->cores || !dev->hwq_users || !dev->ready ||
	    !dev->sem_waiters || !dev->sem_values || !dev->sem_used ||
	    !dev->pool) {
		npu_core_free(dev);
		return -ENOMEM;
	}
	for (i = 0; i < dev->num_cores; i++) {
		dev->cores[i].ub = npu_vzalloc(NPU_UB_BYTES);
		if (!dev->cores[i].ub) {
			npu_core_free(dev);
			return -ENOMEM;
		}
	}
	for (i = 0; i < p->num_queues * NPU_NUM_PRIO; i++)
		npu_list_init(&dev->ready[i]);
	for (i = 0; i < p->num_semaphores; i++)
		npu_list_init(&dev->sem_waiters[i]);
	npu_pool_set_auto_compact(dev->pool, true);
	for (i = 0; i < dev->num_cores; i++) {
		dev->cores[i].dev = dev;
		dev->cores[i].index = i;
		npu_waitq_init(&dev->cores[i].wq);
		npu_waitq_init(&dev->cores[i].park_wq);
	}
	for (i = 0; i < dev->num_cores; i++) {
		err = npu_thread_create(&dev->cores[i].thread, npu_core_worker,
					&dev->cores[i], "npu-core");
		if (err) {
			npu_core_stop(dev, i, false);
			npu_core_free(dev);
			return err;
		}
	}
	err = npu_thread_create(&dev->watchdog, npu_watchdog_thread, dev,
				"npu-watchdog");
	if (err) {
		npu_core_stop(dev, dev->num_cores, false);
		npu_core_free(dev);
		return err;
	}
	*out = dev;
	return 0;
}

void npu_core_destroy(struct npu_device *dev)
{
	if (!dev)
		return;
	npu_core_stop(dev, dev->num_cores, true);
	npu_core_free(dev);
}

static bool npu_streq(const char *a, const char *b)
{
	return strlen(a) == strlen(b) && !memcmp(a, b, strlen(a));
}

int npu_core_test_control(struct npu_device *dev, const char *knob, u64 val)
{
	int err = 0;

	npu_mutex_lock(&dev->lock);
	if (npu_streq(knob, "instant") && val <= 1)
		dev->test_instant = (u32)val;
	else if (npu_streq(knob, "hang"))
		dev->test_hang = val;
	else if (npu_streq(knob, "fault"))
		dev->test_fault = val;
	else if (npu_streq(knob, "fault_range"))
		dev->test_fault_range = val;
	else if (npu_streq(knob, "slow_us") && val <= 60000000ull)
		dev->test_slow_us = val;
	else if (npu_streq(knob, "corrupt_op") && val <= DRM_NPU_OP_COUNT)
		dev->test_corrupt_op = (u32)val;
	else if (npu_streq(knob, "watchdog_ms") &&
		 val >= NPU_WATCHDOG_MIN_MS && val <= NPU_WATCHDOG_MAX_MS)
		dev->watchdog_ms = (u32)val;
	else if (npu_streq(knob, "job_budget_ms") && npu_budget_ok(val))
		dev->job_budget_ms = val;
	else if (npu_streq(knob, "file_quota"))
		dev->limits.vram = val;
	else if (npu_streq(knob, "file_queues") && val >= 1 &&
		 val <= NPU_FILE_QUEUES_MAX)
		dev->limits.queues = (u32)val;
	else if (npu_streq(knob, "file_sems") && val >= 1 &&
		 val <= dev->num_semaphores)
		dev->limits.sems = (u32)val;
	else if (npu_streq(knob, "file_programs") && val >= 1 &&
		 val <= NPU_FILE_PROGRAMS_MAX)
		dev->limits.programs = (u32)val;
	else if (npu_streq(knob, "file_program_bytes") && val >= 1)
		dev->limits.program_bytes = val;
	else
		err = -EINVAL;
	npu_waitq_wake_all(&dev->wd_wq);
	npu_mutex_unlock(&dev->lock);
	return err;
}

int npu_core_test_query(struct npu_device *dev, const char *knob, u64 *val)
{
	int err = 0;

	npu_mutex_lock(&dev->lock);
	if (npu_streq(knob, "instant"))
		*val = dev->test_instant;
	else if (npu_streq(knob, "hang"))
		*val = dev->test_hang;
	else if (npu_streq(knob, "fault"))
		*val = dev->test_fault;
	else if (npu_streq(knob, "fault_range"))
		*val = dev->test_fault_range;
	else if (npu_streq(knob, "slow_us"))
		*val = dev->test_slow_us;
	else if (npu_streq(knob, "corrupt_op"))
		*val = dev->test_corrupt_op;
	else if (npu_streq(knob, "watchdog_ms"))
		*val = dev->watchdog_ms;
	else if (npu_streq(knob, "job_budget_ms"))
		*val = dev->job_budget_ms;
	else if (npu_streq(knob, "file_quota"))
		*val = dev->limits.vram;
	else if (npu_streq(knob, "file_queues"))
		*val = dev->limits.queues;
	else if (npu_streq(knob, "file_sems"))
		*val = dev->limits.sems;
	else if (npu_streq(knob, "file_programs"))
		*val = dev->limits.programs;
	else if (npu_streq(knob, "file_program_bytes"))
		*val = dev->limits.program_bytes;
	else
		err = -EINVAL;
	npu_mutex_unlock(&dev->lock);
	return err;
}

u64 npu_core_busy_ns(struct npu_device *dev)
{
	u64 ns, now = npu_time_ns();
	u32 i;

	npu_mutex_lock(&dev->lock);
	ns = dev->busy_ns;
	for (i = 0; i < dev->num_cores; i++)
		if (dev->cores[i].job)
			ns += now - dev->cores[i].start_ns;
	npu_mutex_unlock(&dev->lock);
	return ns;
}

int npu_ioctl_device_info(struct npu_file *f, struct drm_npu_device_info *args)
{
	struct npu_device *dev = f->dev;

	if (!npu_mem_is_zero(args->reserved, sizeof(args->reserved)))
		return -EINVAL;
	args->model = DRM_NPU_MODEL_SIM910;
	args->uapi_version = DRM_NPU_UAPI_VERSION;
	args->num_cores = dev->num_cores;
	args->num_queues = dev->num_queues;
	args->num_semaphores = dev->num_semaphores;
	args->max_tasks = DRM_NPU_MAX_TASKS;
	args->vram_size = dev->vram_size;
	args->features = DRM_NPU_FEATURE_FP32 | DRM_NPU_FEATURE_INT8 |
			 DRM_NPU_FEATURE_NC1HWC0 | DRM_NPU_FEATURE_COMPACTION |
			 DRM_NPU_FEATURE_TIMELINE_SEM |
			 DRM_NPU_FEATURE_ATTENTION |
			 DRM_NPU_FEATURE_MEDIA |
			 DRM_NPU_FEATURE_MATMUL_WQ;
	npu_mutex_lock(&dev->lock);
	args->watchdog_ms = dev->watchdog_ms;
	args->job_budget_ms = dev->job_budget_ms;
	npu_mutex_unlock(&dev->lock);
	args->file_vram_quota = f->lim.vram;
	args->file_program_bytes = f->lim.program_bytes;
	args->file_queues = f->lim.queues;
	args->file_semaphores = f->lim.sems;
	args->file_programs = f->lim.programs;
	args->pad = 0;
	return 0;
}

typedef int (*npu_ioctl_fn)(struct npu_file *f, void *args);

struct npu_ioctl_desc {
	npu_ioctl_fn fn;
	size_t size;
};

/* Typed entry -> untyped table entry, without casting function pointers. */
#define NPU_IOCTL_WRAP(name) \
	static int npu_wrap_##name(struct npu_file *f, void *args) \
	{ \
		return npu_ioctl_##name(f, (struct drm_npu_##name *)args); \
	}

NPU_IOCTL_WRAP(device_info)
NPU_IOCTL_WRAP(bo_create)
NPU_IOCTL_WRAP(bo_mmap_offset)
NPU_IOCTL_WRAP(bo_info)
NPU_IOCTL_WRAP(bo_wait)
NPU_IOCTL_WRAP(program_create)
NPU_IOCTL_WRAP(program_destroy)
NPU_IOCTL_WRAP(queue_create)
NPU_IOCTL_WRAP(queue_destroy)
NPU_IOCTL_WRAP(queue_query)
NPU_IOCTL_WRAP(sem_create)
NPU_IOCTL_WRAP(sem_destroy)
NPU_IOCTL_WRAP(sem_signal)
NPU_IOCTL_WRAP(sem_wait)
NPU_IOCTL_WRAP(sem_query)
NPU_IOCTL_WRAP(submit)
NPU_IOCTL_WRAP(wait_fence)
NPU_IOCTL_WRAP(mem_stats)
NPU_IOCTL_WRAP(compact)

#define NPU_IOCTL(nr, name) \
	[DRM_NPU_##nr] = { npu_wrap_##name, sizeof(struct drm_npu_##name) }

static const struct npu_ioctl_desc npu_ioctls[DRM_NPU_NUM_IOCTLS] = {
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

int npu_core_ioctl(struct npu_file *f, u32 nr, void *args)
{
	if (nr >= DRM_NPU_NUM_IOCTLS || !npu_ioctls[nr].fn)
		return -EINVAL;
	return npu_ioctls[nr].fn(f, args);
}

size_t npu_core_ioctl_size(u32 nr)
{
	if (nr >= DRM_NPU_NUM_IOCTLS)
		return 0;
	return npu_ioctls[nr].size;
}
