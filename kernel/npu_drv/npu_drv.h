/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu_drv.h - private definitions of the npu_drv kernel module: the DRM
 * device, the per-file state and the buffer object that wrap the portable
 * device core (core/npu_core.h) in its kernel home.
 */
#ifndef NPU_DRV_H
#define NPU_DRV_H

#include <linux/platform_device.h>
#include <linux/workqueue.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>

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
 * @test_mode: NPU_TEST_MODE_* (module parameter "test_mode")
 * @watchdog_ms: job watchdog period
 */
struct npu_params {
	u32 vram_mb;
	u32 cores;
	u32 queues;
	u32 test_mode;
	u32 watchdog_ms;
};

enum npu_test_mode {
	NPU_TEST_MODE_NONE = 0,
	NPU_TEST_MODE_INSTANT,	/* jobs complete without executing */
	NPU_TEST_MODE_HANG,	/* jobs never complete: the watchdog fires */
	NPU_TEST_MODE_FAULT,	/* every job faults with an injected fault */
};

struct npu_core_device;

/**
 * struct npu_device - one emulated NPU, a DRM device
 * @drm: the DRM device (render node on 6.1, accel node with DRM_ACCEL)
 * @pdev: the platform device it was probed on
 * @params: load-time configuration
 * @core: the portable device core (hardware model, pool, queues)
 * @vram: device memory, vmalloc'ed, @vram_size bytes
 * @vram_size: bytes
 * @irq_wq: ordered workqueue that plays the interrupt handler
 * @debugfs: the device's debugfs directory
 * @client_ids: source of drm-client-id values
 * @busy_ns: accumulated time at least one AI core was busy (sysfs)
 */
struct npu_device {
	struct drm_device drm;
	struct platform_device *pdev;
	struct npu_params params;
	struct npu_core_device *core;
	void *vram;
	u64 vram_size;
	struct workqueue_struct *irq_wq;
	struct dentry *debugfs;
	atomic64_t client_ids;
	atomic64_t busy_ns;
};

static inline struct npu_device *to_npu_dev(struct drm_device *drm)
{
	return container_of(drm, struct npu_device, drm);
}

/**
 * struct npu_file - per-open-file state
 * @ndev: the device
 * @client_id: unique id of this client (fdinfo drm-client-id)
 * @core_file: the core's per-file handle tables (programs, queues, sems)
 */
struct npu_file {
	struct npu_device *ndev;
	u64 client_id;
	struct npu_core_file *core_file;
};

extern struct kmem_cache *npu_file_cache;

#endif /* NPU_DRV_H */
