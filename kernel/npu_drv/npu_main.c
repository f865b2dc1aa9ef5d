// SPDX-License-Identifier: GPL-2.0
/*
 * npu_main.c - module entry, parameters and DRM registration of the emulated
 * NPU. Each instance is a platform device of our own ("npu_drv.N") bound to
 * the platform driver below, as netdevsim and vgem create theirs: the
 * device is software, the driver model around it is the real one.
 */
#include <linux/module.h>
#include <linux/mod_devicetable.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#if IS_ENABLED(CONFIG_DRM_ACCEL)
#include <drm/drm_accel.h>
#endif

#include "npu_drv.h"

atomic_long_t npu_os_live_allocs = ATOMIC_LONG_INIT(0);

static unsigned int vram_mb = 64;
module_param(vram_mb, uint, 0444);
MODULE_PARM_DESC(vram_mb, "Device memory per device in MiB (1..1024, default 64)");

static unsigned int cores = 4;
module_param(cores, uint, 0444);
MODULE_PARM_DESC(cores, "AI cores per device (1..64, default 4)");

static unsigned int isa;
module_param(isa, uint, 0444);
MODULE_PARM_DESC(isa, "ISA level of the op kernels: 0 the CPU's best (default), 1 baseline, 2 AVX2+FMA, 3 AVX-512");

static unsigned int queues = 8;
module_param(queues, uint, 0444);
MODULE_PARM_DESC(queues, "Hardware queues per device (1..64, default 8)");

static unsigned int num_devices = 1;
module_param(num_devices, uint, 0444);
MODULE_PARM_DESC(num_devices, "Number of emulated NPUs to create (1..8, default 1)");

static char *test_mode = "none";
module_param(test_mode, charp, 0444);
MODULE_PARM_DESC(test_mode, "Test mode: none, instant (jobs complete at once), hang (jobs never complete), fault (jobs fault)");

static unsigned int watchdog_ms = 2000;
module_param(watchdog_ms, uint, 0444);
MODULE_PARM_DESC(watchdog_ms, "Job watchdog period in ms (10..600000, default 2000)");

static unsigned int job_budget_ms = NPU_JOB_BUDGET_DEFAULT_MS;
module_param(job_budget_ms, uint, 0444);
MODULE_PARM_DESC(job_budget_ms, "AI-core time one job may use in ms before it faults (0 = no budget, or 10..86400000; default 60000)");

static unsigned int file_queues = NPU_FILE_QUEUES_DEFAULT;
module_param(file_queues, uint, 0444);
MODULE_PARM_DESC(file_queues, "Queues one open file may hold (1..1048576, default 1024)");

static unsigned int file_sems;
module_param(file_sems, uint, 0444);
MODULE_PARM_DESC(file_sems, "Semaphores one open file may hold (0 = a quarter of the device's 1024, or 1..1024)");

static unsigned int file_programs = NPU_FILE_PROGRAMS_DEFAULT;
module_param(file_programs, uint, 0444);
MODULE_PARM_DESC(file_programs, "Programs one open file may hold (1..1048576, default 4096)");

static unsigned int file_program_mb = NPU_FILE_PROGRAM_BYTES_DEFAULT >> 20;
module_param(file_program_mb, uint, 0444);
MODULE_PARM_DESC(file_program_mb, "MiB of programs one open file may hold (1..65536, default 256)");

static unsigned int file_vram_pct = NPU_FILE_VRAM_DEFAULT_PCT;
module_param(file_vram_pct, uint, 0444);
MODULE_PARM_DESC(file_vram_pct, "Percent of VRAM one open file may hold in buffers (1..100, default 75; 100 = no quota)");

#define NPU_MAX_DEVICES	8
#define NPU_NUM_SEMAPHORES	1024

static struct platform_device *npu_pdevs[NPU_MAX_DEVICES];
static atomic64_t npu_client_ids = ATOMIC64_INIT(0);

/*
 * Our own slab caches: with slub_debug, destroying one at unload reports
 * every object still allocated, which the VM harness treats as a leak.
 */
struct kmem_cache *npu_file_cache;
struct kmem_cache *npu_gem_cache;
struct kmem_cache *npu_queue_cache;
struct kmem_cache *npu_fence_cache;

static int npu_parse_test_mode(const char *s, u32 *mode)
{
	static const char * const names[] = {
		[NPU_TEST_MODE_NONE] = "none",
		[NPU_TEST_MODE_INSTANT] = "instant",
		[NPU_TEST_MODE_HANG] = "hang",
		[NPU_TEST_MODE_FAULT] = "fault",
	};
	int i = sysfs_match_string(names, s);

	if (i < 0)
		return i;
	*mode = i;
	return 0;
}

/* Checks the module parameters once, with a message that says what to fix. */
static int npu_check_params(struct npu_params *p)
{
	if (vram_mb < 1 || vram_mb > 1024) {
		pr_err("npu_drv: vram_mb=%u out of range: use 1..1024\n", vram_mb);
		return -EINVAL;
	}
	if (cores < 1 || cores > 64) {
		pr_err("npu_drv: cores=%u out of range: use 1..64\n", cores);
		return -EINVAL;
	}
	if (queues < 1 || queues > 64) {
		pr_err("npu_drv: queues=%u out of range: use 1..64\n", queues);
		return -EINVAL;
	}
	if (num_devices < 1 || num_devices > NPU_MAX_DEVICES) {
		pr_err("npu_drv: num_devices=%u out of range: use 1..%d\n",
		       num_devices, NPU_MAX_DEVICES);
		return -EINVAL;
	}
	if (watchdog_ms < 10 || watchdog_ms > 600000) {
		pr_err("npu_drv: watchdog_ms=%u out of range: use 10..600000\n",
		       watchdog_ms);
		return -EINVAL;
	}
	if (job_budget_ms && (job_budget_ms < 10 ||
			      job_budget_ms > NPU_JOB_BUDGET_MAX_MS)) {
		pr_err("npu_drv: job_budget_ms=%u out of range: use 0 (no budget) or 10..%llu\n",
		       job_budget_ms, NPU_JOB_BUDGET_MAX_MS);
		return -EINVAL;
	}
	if (file_queues < 1 || file_queues > NPU_FILE_QUEUES_MAX ||
	    file_sems > NPU_NUM_SEMAPHORES ||
	    file_programs < 1 || file_programs > NPU_FILE_PROGRAMS_MAX ||
	    file_program_mb < 1 || file_program_mb > 65536 ||
	    file_vram_pct < 1 || file_vram_pct > 100) {
		pr_err("npu_drv: a per-file limit is out of range: file_queues 1..%u, file_sems 0..%u, file_programs 1..%u, file_program_mb 1..65536, file_vram_pct 1..100\n",
		       NPU_FILE_QUEUES_MAX, NPU_NUM_SEMAPHORES,
		       NPU_FILE_PROGRAMS_MAX);
		return -EINVAL;
	}
	if (npu_parse_test_mode(test_mode ? test_mode : "none", &p->test_mode)) {
		pr_err("npu_drv: test_mode=%s unknown: use none, instant, hang or fault\n",
		       test_mode);
		return -EINVAL;
	}
	p->vram_mb = vram_mb;
	p->cores = cores;
	p->queues = queues;
	p->watchdog_ms = watchdog_ms;
	p->job_budget_ms = job_budget_ms;
	p->file_queues = file_queues;
	p->file_sems = file_sems;
	p->file_programs = file_programs;
	p->file_program_mb = file_program_mb;
	p->file_vram_pct = file_vram_pct;
	return 0;
}

static int npu_open(struct drm_device *drm, struct drm_file *file)
{
	struct npu_drm_device *ndev = to_npu_dev(drm);
	struct npu_drm_file *nfile;
	int ret;

	nfile = kmem_cache_zalloc(npu_file_cache, GFP_KERNEL);
	if (!nfile)
		return -ENOMEM;
	nfile->ndev = ndev;
	nfile->drm_file = file;
	nfile->client_id = atomic64_inc_return(&npu_client_ids);
	mutex_init(&nfile->queue_lock);
	xa_init(&nfile->queues);
	INIT_LIST_HEAD(&nfile->fences);
	ret = npu_core_file_open(ndev->core, file, &nfile->core_file);
	if (ret) {
		kmem_cache_free(npu_file_cache, nfile);
		return ret;
	}
	file->driver_priv = nfile;

	mutex_lock(&ndev->files_lock);
	list_add_tail(&nfile->link, &ndev->files);
	mutex_unlock(&ndev->files_lock);
	return 0;
}

/*
 * DRM has released the file's GEM handles already; jobs still in flight
 * keep the buffers they use. The core cancels what has not started.
 */
static void npu_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct npu_drm_file *nfile = file->driver_priv;
	struct npu_drm_queue *q;
	unsigned long handle;

	npu_file_forget(nfile);
	/*
	 * The bottom half no longer sees this file: points of jobs that
	 * retired before the close get their status now, while the core
	 * still knows it; the flush cancels only the others.
	 */
	mutex_lock(&nfile->ndev->files_lock);
	npu_fence_poll(nfile);
	mutex_unlock(&nfile->ndev->files_lock);
	npu_core_file_close(nfile->core_file);
	npu_fence_flush(nfile);
	xa_for_each(&nfile->queues, handle, q)
		kmem_cache_free(npu_queue_cache, q);
	xa_destroy(&nfile->queues);
	mutex_destroy(&nfile->queue_lock);
	kmem_cache_free(npu_file_cache, nfile);
	file->driver_priv = NULL;
}

static const struct file_operations npu_fops = {
	.owner = THIS_MODULE,
#if IS_ENABLED(CONFIG_DRM_ACCEL)
	.open = accel_open,
#else
	.open = drm_open,
#endif
	.release = drm_release,
	.unlocked_ioctl = npu_unlocked_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl = npu_compat_ioctl,
#endif
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
	.show_fdinfo = npu_show_fdinfo,
};

/*
 * A compute-only device: an accel node (/dev/accel/accelN) where the
 * kernel has the accel subsystem (6.2+), a render node (/dev/dri/renderDN)
 * before that. Either way no modesetting and no legacy node features.
 */
static const struct drm_driver npu_drm_driver = {
#if IS_ENABLED(CONFIG_DRM_ACCEL)
	.driver_features = DRIVER_GEM | DRIVER_COMPUTE_ACCEL |
			   DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,
#else
	.driver_features = DRIVER_GEM | DRIVER_RENDER |
			   DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,
#endif
	.open = npu_open,
	.postclose = npu_postclose,
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
	/* The default from 6.6 on. */
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
#endif
	.gem_prime_import = npu_gem_prime_import,
	.ioctls = npu_ioctls,
	.num_ioctls = DRM_NPU_NUM_IOCTLS,
	.fops = &npu_fops,
	.name = NPU_DRV_NAME,
	.desc = NPU_DRV_DESC,
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
	.date = NPU_DRV_DATE,
#endif
	.major = NPU_DRV_MAJOR,
	.minor = NPU_DRV_MINOR,
};

/* Test modes given at load time, through the core's knobs. */
static int npu_apply_test_mode(struct npu_drm_device *ndev)
{
	switch (ndev->params.test_mode) {
	case NPU_TEST_MODE_INSTANT:
		return npu_core_test_control(ndev->core, "instant", 1);
	case NPU_TEST_MODE_HANG:
		return npu_core_test_control(ndev->core, "hang", U32_MAX);
	case NPU_TEST_MODE_FAULT:
		return npu_core_test_control(ndev->core, "fault", U32_MAX);
	default:
		return 0;
	}
}

/* drmm action: runs when the last reference to the DRM device is gone. */
static void npu_device_fini(struct drm_device *drm, void *arg)
{
	struct npu_drm_device *ndev = arg;

	if (ndev->kfile)
		npu_core_file_close(ndev->kfile);
	if (ndev->core)
		npu_core_destroy(ndev->core);
	if (ndev->irq_wq)
		destroy_workqueue(ndev->irq_wq);
	vfree(ndev->vram);
	mutex_destroy(&ndev->files_lock);
	mutex_destroy(&ndev->compact_lock);
}

static int npu_device_init(struct npu_drm_device *ndev)
{
	struct npu_device_params cp = {};
	int ret;

	mutex_init(&ndev->files_lock);
	mutex_init(&ndev->compact_lock);
	INIT_LIST_HEAD(&ndev->files);
	spin_lock_init(&ndev->fence_lock);
	INIT_WORK(&ndev->irq_work, npu_irq_work);
	ret = drmm_add_action_or_reset(&ndev->drm, npu_device_fini, ndev);
	if (ret)
		return ret;

	ndev->vram_size = (u64)ndev->params.vram_mb << 20;
	ndev->vram = vzalloc(ndev->vram_size);
	if (!ndev->vram)
		return -ENOMEM;
	ndev->irq_wq = alloc_ordered_workqueue("npu_irq.%u", 0,
					       ndev->params.index);
	if (!ndev->irq_wq)
		return -ENOMEM;

	cp.vram = ndev->vram;
	cp.vram_size = ndev->vram_size;
	cp.num_cores = ndev->params.cores;
	cp.num_queues = ndev->params.queues;
	cp.num_semaphores = NPU_NUM_SEMAPHORES;
	cp.watchdog_ms = ndev->params.watchdog_ms;
	cp.job_budget_ms = ndev->params.job_budget_ms;
	cp.isa = isa;
	cp.file_queues = ndev->params.file_queues;
	cp.file_semaphores = ndev->params.file_sems;
	cp.file_programs = ndev->params.file_programs;
	cp.file_program_bytes = (u64)ndev->params.file_program_mb << 20;
	/* a quota of all VRAM is no quota (the core's rule) */
	cp.file_quota = ndev->vram_size / 100 * ndev->params.file_vram_pct;
	cp.ops = &npu_kernel_home_ops;
	cp.home_dev = ndev;
	ret = npu_core_create(&cp, &ndev->core);
	if (ret) {
		ndev->core = NULL;
		return ret;
	}
	ret = npu_core_file_open(ndev->core, NULL, &ndev->kfile);
	if (ret) {
		ndev->kfile = NULL;
		return ret;
	}
	return npu_apply_test_mode(ndev);
}

static int npu_probe(struct platform_device *pdev)
{
	struct npu_params *params = dev_get_platdata(&pdev->dev);
	struct npu_drm_device *ndev;
	int ret;

	ndev = devm_drm_dev_alloc(&pdev->dev, &npu_drm_driver,
				  struct npu_drm_device, drm);
	if (IS_ERR(ndev))
		return PTR_ERR(ndev);
	ndev->pdev = pdev;
	ndev->params = *params;
	ret = npu_device_init(ndev);
	if (ret)
		return ret;
	platform_set_drvdata(pdev, ndev);

	ret = drm_dev_register(&ndev->drm, 0);
	if (ret)
		return ret;
	npu_debugfs_init(ndev);
	drm_info(&ndev->drm, "emulated NPU: %u MiB VRAM, %u AI cores, %u queues\n",
		 params->vram_mb, params->cores, params->queues);
	return 0;
}

static void npu_unregister(struct platform_device *pdev)
{
	struct npu_drm_device *ndev = platform_get_drvdata(pdev);

	drm_dev_unregister(&ndev->drm);
}

/* The remove callback returns void from 6.11 on. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
static void npu_remove(struct platform_device *pdev)
{
	npu_unregister(pdev);
}
#else
static int npu_remove(struct platform_device *pdev)
{
	npu_unregister(pdev);
	return 0;
}
#endif

/*
 * Each instance has a platform device name of its own, "npu_drv.N" with no
 * separate id, so that its MODALIAS ("platform:npu_drv.N") differs from the
 * other instances'. libdrm's drmGetDevices2() identifies a platform device
 * without a device-tree node by its MODALIAS and folds nodes with equal
 * identities into one device: with one shared name ("npu_drv" plus an id)
 * every instance looked like the same device. The sysfs names stay
 * "npu_drv.N" as before.
 */
static const struct platform_device_id npu_platform_ids[] = {
	{ "npu_drv.0" }, { "npu_drv.1" }, { "npu_drv.2" }, { "npu_drv.3" },
	{ "npu_drv.4" }, { "npu_drv.5" }, { "npu_drv.6" }, { "npu_drv.7" },
	{ }
};
MODULE_DEVICE_TABLE(platform, npu_platform_ids);

static struct platform_driver npu_platform_driver = {
	.probe = npu_probe,
	.remove = npu_remove,
	.id_table = npu_platform_ids,
	.driver = {
		.name = NPU_DRV_NAME,
		.dev_groups = npu_dev_groups,
		/*
		 * Devices go away only with the module, which cannot be
		 * unloaded while a file is open: no unbind with open files.
		 */
		.suppress_bind_attrs = true,
	},
};

static void npu_destroy_devices(void)
{
	int i;

	for (i = NPU_MAX_DEVICES - 1; i >= 0; i--) {
		if (npu_pdevs[i])
			platform_device_unregister(npu_pdevs[i]);
		npu_pdevs[i] = NULL;
	}
}

static void npu_destroy_caches(void)
{
	/* Fences are freed after an RCU grace period. */
	rcu_barrier();
	kmem_cache_destroy(npu_fence_cache);
	kmem_cache_destroy(npu_queue_cache);
	kmem_cache_destroy(npu_gem_cache);
	kmem_cache_destroy(npu_file_cache);
}

static int __init npu_init(void)
{
	struct npu_params params = {};
	unsigned int i;
	int ret;

	ret = npu_check_params(&params);
	if (ret)
		return ret;

	npu_file_cache = KMEM_CACHE(npu_drm_file, 0);
	npu_gem_cache = KMEM_CACHE(npu_gem_object, 0);
	npu_queue_cache = KMEM_CACHE(npu_drm_queue, 0);
	npu_fence_cache = kmem_cache_create("npu_job_fence", npu_job_fence_size,
					    0, 0, NULL);
	if (!npu_file_cache || !npu_gem_cache || !npu_queue_cache ||
	    !npu_fence_cache) {
		ret = -ENOMEM;
		goto err_caches;
	}

	ret = platform_driver_register(&npu_platform_driver);
	if (ret)
		goto err_caches;

	BUILD_BUG_ON(ARRAY_SIZE(npu_platform_ids) != NPU_MAX_DEVICES + 1);
	for (i = 0; i < num_devices; i++) {
		struct platform_device *pdev;

		params.index = i;
		pdev = platform_device_register_data(NULL,
						     npu_platform_ids[i].name,
						     PLATFORM_DEVID_NONE,
						     &params, sizeof(params));
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto err_devices;
		}
		npu_pdevs[i] = pdev;
		if (!platform_get_drvdata(pdev)) {
			pr_err("npu_drv: device %u failed to probe\n", i);
			ret = -ENODEV;
			goto err_devices;
		}
	}
	return 0;

err_devices:
	npu_destroy_devices();
	platform_driver_unregister(&npu_platform_driver);
err_caches:
	npu_destroy_caches();
	return ret;
}

static void __exit npu_exit(void)
{
	long live;

	npu_destroy_devices();
	platform_driver_unregister(&npu_platform_driver);
	npu_destroy_caches();

	/* The VM harness fails the run on this line. */
	live = atomic_long_read(&npu_os_live_allocs);
	if (live)
		pr_err("npu_drv: leak: %ld core allocations not freed at unload\n",
		       live);
}

module_init(npu_init);
module_exit(npu_exit);

MODULE_DESCRIPTION("DRM driver for an emulated Ascend-like NPU");
MODULE_AUTHOR("The npu project");
MODULE_LICENSE("GPL");
MODULE_VERSION("1.0");
