// SPDX-License-Identifier: GPL-2.0
/*
 * npu_main.c - module entry, parameters and DRM registration of the emulated
 * NPU. Each instance is a platform device of our own ("npu_drv.N") bound to
 * the platform driver below, as netdevsim and vgem create theirs: the
 * device is software, the driver model around it is the real one.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>

#include "npu_drv.h"

atomic_long_t npu_os_live_allocs = ATOMIC_LONG_INIT(0);

static unsigned int vram_mb = 64;
module_param(vram_mb, uint, 0444);
MODULE_PARM_DESC(vram_mb, "Device memory per device in MiB (1..1024, default 64)");

static unsigned int cores = 4;
module_param(cores, uint, 0444);
MODULE_PARM_DESC(cores, "AI cores per device (1..64, default 4)");

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

#define NPU_MAX_DEVICES	8

static struct platform_device *npu_pdevs[NPU_MAX_DEVICES];
struct kmem_cache *npu_file_cache;

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
	if (npu_parse_test_mode(test_mode ? test_mode : "none", &p->test_mode)) {
		pr_err("npu_drv: test_mode=%s unknown: use none, instant, hang or fault\n",
		       test_mode);
		return -EINVAL;
	}
	p->vram_mb = vram_mb;
	p->cores = cores;
	p->queues = queues;
	p->watchdog_ms = watchdog_ms;
	return 0;
}

static int npu_open(struct drm_device *drm, struct drm_file *file)
{
	struct npu_device *ndev = to_npu_dev(drm);
	struct npu_file *nfile;

	nfile = kmem_cache_zalloc(npu_file_cache, GFP_KERNEL);
	if (!nfile)
		return -ENOMEM;
	nfile->ndev = ndev;
	nfile->client_id = atomic64_inc_return(&ndev->client_ids);
	file->driver_priv = nfile;
	return 0;
}

static void npu_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct npu_file *nfile = file->driver_priv;

	kmem_cache_free(npu_file_cache, nfile);
	file->driver_priv = NULL;
}

DEFINE_DRM_GEM_FOPS(npu_fops);

static const struct drm_driver npu_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER,
	.open = npu_open,
	.postclose = npu_postclose,
	.fops = &npu_fops,
	.name = NPU_DRV_NAME,
	.desc = NPU_DRV_DESC,
	.date = NPU_DRV_DATE,
	.major = NPU_DRV_MAJOR,
	.minor = NPU_DRV_MINOR,
};

static int npu_probe(struct platform_device *pdev)
{
	struct npu_params *params = dev_get_platdata(&pdev->dev);
	struct npu_device *ndev;
	int ret;

	ndev = devm_drm_dev_alloc(&pdev->dev, &npu_drm_driver,
				  struct npu_device, drm);
	if (IS_ERR(ndev))
		return PTR_ERR(ndev);
	ndev->pdev = pdev;
	ndev->params = *params;
	platform_set_drvdata(pdev, ndev);

	ret = drm_dev_register(&ndev->drm, 0);
	if (ret)
		return ret;
	drm_info(&ndev->drm, "emulated NPU: %u MiB VRAM, %u AI cores, %u queues\n",
		 params->vram_mb, params->cores, params->queues);
	return 0;
}

static int npu_remove(struct platform_device *pdev)
{
	struct npu_device *ndev = platform_get_drvdata(pdev);

	drm_dev_unregister(&ndev->drm);
	return 0;
}

static struct platform_driver npu_platform_driver = {
	.probe = npu_probe,
	.remove = npu_remove,
	.driver = {
		.name = NPU_DRV_NAME,
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

static int __init npu_init(void)
{
	struct npu_params params = {};
	unsigned int i;
	int ret;

	ret = npu_check_params(&params);
	if (ret)
		return ret;

	npu_file_cache = KMEM_CACHE(npu_file, 0);
	if (!npu_file_cache)
		return -ENOMEM;

	ret = platform_driver_register(&npu_platform_driver);
	if (ret)
		goto err_caches;

	for (i = 0; i < num_devices; i++) {
		struct platform_device *pdev;

		pdev = platform_device_register_data(NULL, NPU_DRV_NAME, i,
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
	kmem_cache_destroy(npu_file_cache);
	return ret;
}

static void __exit npu_exit(void)
{
	long live;

	npu_destroy_devices();
	platform_driver_unregister(&npu_platform_driver);
	kmem_cache_destroy(npu_file_cache);

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
