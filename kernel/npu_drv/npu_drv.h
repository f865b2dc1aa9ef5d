/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu_drv.h - private definitions of the npu_drv kernel module: the DRM
 * device, the per-file state and the GEM object that wrap the portable
 * device core (core/npu_core.h) in its kernel home.
 */
#ifndef NPU_DRV_H
#define NPU_DRV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>

#include "core/npu_core.h"

#define NPU_DRV_NAME		"npu_drv"
#define NPU_DRV_DESC		"Emulated Ascend-like NPU"
#define NPU_DRV_DATE		"20261129"
#define NPU_DRV_MAJOR		1
#define NPU_DRV_MINOR		0

/**
 * struct npu_params - load-time configuration of one device instance
 * @vram_mb: size of the device memory (vmalloc'ed), MiB
 * @cores: AI cores
 * @queues: hardware queues
 * @test_mode: enum npu_test_mode (module parameter "test_mode")
 * @watchdog_ms: job watchdog period
 * @job_budget_ms: AI-core time one job may use, 0 = no budget
 * @file_queues: queues per open file
 * @file_sems: semaphores per open file, 0 = the core's default
 * @file_programs: programs per open file
 * @file_program_mb: MiB of programs per open file
 * @file_vram_pct: percent of VRAM per open file
 */
struct npu_params {
	u32 vram_mb;
	u32 cores;
	u32 queues;
	u32 test_mode;
	u32 watchdog_ms;
	u32 job_budget_ms;
	u32 file_queues;
	u32 file_sems;
	u32 file_programs;
	u32 file_program_mb;
	u32 file_vram_pct;
	u32 index;		/* instance number N of "npu_drv.N" */
};

enum npu_test_mode {
	NPU_TEST_MODE_NONE = 0,
	NPU_TEST_MODE_INSTANT,	/* jobs complete without computing */
	NPU_TEST_MODE_HANG,	/* jobs never complete: the watchdog fires */
	NPU_TEST_MODE_FAULT,	/* every job faults with an injected fault */
};

#define NPU_NUM_KNOBS		13

/**
 * struct npu_knob - one test-mode knob file in debugfs
 * @ndev: the device
 * @name: the core's knob name (npu_core_test_control())
 */
struct npu_knob {
	struct npu_drm_device *ndev;
	const char *name;
};

/**
 * struct npu_drm_device - one emulated NPU, a DRM device
 * @drm: the DRM device (render node on 6.1, accel node with DRM_ACCEL)
 * @pdev: the platform device it was probed on
 * @params: load-time configuration
 * @core: the portable device core (hardware model, pool, queues)
 * @kfile: the driver's own core file, for device-wide queries (sysfs,
 *         debugfs, forced compaction)
 * @vram: device memory, vmalloc'ed, @vram_size bytes
 * @vram_size: bytes
 * @irq_wq: ordered workqueue that plays the interrupt's bottom half
 * @irq_work: signals the syncobj points of retired jobs
 * @files_lock: protects @files and what the bottom half reads of them
 * @files: open files (struct npu_drm_file.link)
 * @fence_lock: lock of the dma_fences of syncobj points
 * @jobs_done: jobs retired, per status (0 = ok, else fault reason)
 * @knobs: debugfs test-mode knobs
 * @compact_lock: protects @last_compact
 * @last_compact: arguments and results of the last compaction forced
 *                through debugfs
 * @last_compact_ret: its return value
 */
struct npu_drm_device {
	struct drm_device drm;
	struct platform_device *pdev;
	struct npu_params params;
	struct npu_device *core;
	struct npu_file *kfile;
	void *vram;
	u64 vram_size;
	struct workqueue_struct *irq_wq;
	struct work_struct irq_work;
	struct mutex files_lock;	/* @files, files' @queues and @fences */
	struct list_head files;
	spinlock_t fence_lock;		/* the syncobj points' dma_fences */
	atomic64_t jobs_done[8];
	struct npu_knob knobs[NPU_NUM_KNOBS];
	struct mutex compact_lock;	/* @last_compact, @last_compact_ret */
	struct drm_npu_compact last_compact;
	int last_compact_ret;
};

static inline struct npu_drm_device *to_npu_dev(struct drm_device *drm)
{
	return container_of(drm, struct npu_drm_device, drm);
}

/**
 * struct npu_drm_queue - what the home remembers of one queue of a file
 * @hw_queue: the hardware queue it maps to
 * @fence_context: dma_fence context of its jobs' syncobj points
 */
struct npu_drm_queue {
	u32 hw_queue;
	u64 fence_context;
};

/**
 * struct npu_drm_file - per-open-file state
 * @ndev: the device
 * @drm_file: the DRM file
 * @core_file: the core's handle tables (programs, queues, semaphores)
 * @client_id: unique id of this client (fdinfo drm-client-id)
 * @link: on ndev->files (files_lock)
 * @queue_lock: serialises queue create/destroy of this file, so that a
 *              handle the core reuses is tracked once
 * @queues: queue handle -> struct npu_drm_queue (files_lock)
 * @fences: pending syncobj points, struct npu_job_fence (files_lock)
 */
struct npu_drm_file {
	struct npu_drm_device *ndev;
	struct drm_file *drm_file;
	struct npu_file *core_file;
	u64 client_id;
	struct list_head link;
	struct mutex queue_lock;	/* queue create/destroy of this file */
	struct xarray queues;
	struct list_head fences;
};

/**
 * struct npu_gem_object - a GEM object wrapping a core buffer object
 * @base: the GEM object (size, mmap offset, handles, refcount)
 * @bo: the core's buffer object; the GEM object holds one reference
 */
struct npu_gem_object {
	struct drm_gem_object base;
	struct npu_bo *bo;
	bool peer;		/* imported from another npu_drv device */
};

static inline struct npu_gem_object *to_npu_gem(struct drm_gem_object *obj)
{
	return container_of(obj, struct npu_gem_object, base);
}

/* npu_main.c */
extern struct kmem_cache *npu_file_cache;
extern struct kmem_cache *npu_gem_cache;
extern struct kmem_cache *npu_queue_cache;
extern struct kmem_cache *npu_fence_cache;

/* npu_home.c: the struct npu_home_ops of the kernel home */
extern const struct npu_home_ops npu_kernel_home_ops;
void npu_irq_work(struct work_struct *work);
void npu_file_forget(struct npu_drm_file *nfile);

/* npu_gem.c */
int npu_gem_publish(struct drm_file *file, struct npu_bo *bo, u32 *handle);
struct npu_bo *npu_gem_lookup_bo(struct drm_file *file, u32 handle);
u64 npu_gem_mmap_offset(struct npu_bo *bo);
void npu_gem_unmap(struct npu_drm_device *ndev, struct npu_bo *bo);
struct drm_gem_object *npu_gem_prime_import(struct drm_device *drm,
					    struct dma_buf *dma_buf);

/**
 * struct npu_gem_usage - VRAM held through the handles of one file
 * @total: all its buffer objects
 * @shared: those another file has a handle to as well
 * @active: those an unretired job uses
 */
struct npu_gem_usage {
	u64 total;
	u64 shared;
	u64 active;
};

void npu_gem_file_usage(struct drm_file *file, struct npu_gem_usage *usage);

/* npu_fence.c: syncobj points (DRM_NPU_SUBMIT_SYNCOBJ) */
struct npu_job_fence;
struct drm_syncobj;
struct dma_fence_chain;

/**
 * struct npu_syncobj_point - what a syncobj point needs, allocated before
 * the submission so that attaching it cannot fail afterwards
 * @syncobj: the target syncobj (a reference)
 * @chain: its new timeline node
 * @fence: the job's fence
 */
struct npu_syncobj_point {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	struct npu_job_fence *fence;
};

int npu_fence_prepare(struct drm_file *file, u32 handle,
		      struct npu_syncobj_point *sp);
void npu_fence_abort(struct npu_syncobj_point *sp);
void npu_fence_attach(struct npu_drm_file *nfile, u32 queue, u64 seqno,
		      struct npu_syncobj_point *sp);
void npu_fence_poll(struct npu_drm_file *nfile);
bool npu_fence_pending(struct npu_drm_file *nfile, u32 queue);
void npu_fence_flush(struct npu_drm_file *nfile);
extern const size_t npu_job_fence_size;

/* npu_ioctl.c */
extern const struct drm_ioctl_desc npu_ioctls[];
extern const int npu_num_ioctls;
long npu_unlocked_ioctl(struct file *f, unsigned int cmd, unsigned long arg);
long npu_compat_ioctl(struct file *f, unsigned int cmd, unsigned long arg);

/* npu_fdinfo.c */
void npu_show_fdinfo(struct seq_file *m, struct file *f);

/* npu_sysfs.c */
extern const struct attribute_group *npu_dev_groups[];

/* npu_debugfs.c */
void npu_debugfs_init(struct npu_drm_device *ndev);

#endif /* NPU_DRV_H */
