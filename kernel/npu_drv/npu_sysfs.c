// SPDX-License-Identifier: GPL-2.0
/*
 * npu_sysfs.c - device-wide figures as attributes of the platform device
 * (/sys/class/drm/renderD<N>/device/...), one value per file:
 *
 *   vram_total vram_used vram_free largest_free peak_used   bytes
 *   num_bos free_ranges compactions bytes_moved alloc_failures
 *   pause_ns                 time compaction held dispatch back
 *   fragmentation_ppm        largest-free ratio, 1 - largest free / free
 *   busy_ns                  AI-core time spent on tasks, summed over the
 *                            cores (utilisation = delta / (time * cores))
 *   jobs_completed jobs_faulted
 *   cores queues
 *   uapi_version             major.minor of the ioctl ABI
 *   model                    device model, 0x910
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "npu_drv.h"

static int npu_sysfs_stats(struct device *dev, struct drm_npu_mem_stats *st)
{
	struct npu_drm_device *ndev = dev_get_drvdata(dev);

	memset(st, 0, sizeof(*st));
	if (!ndev || !ndev->kfile)
		return -ENODEV;
	return npu_ioctl_mem_stats(ndev->kfile, st);
}

#define NPU_STAT_ATTR(name, field)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct drm_npu_mem_stats st;					\
	int ret = npu_sysfs_stats(dev, &st);				\
									\
	return ret ? ret : sysfs_emit(buf, "%llu\n", st.field);		\
}									\
static DEVICE_ATTR_RO(name)

NPU_STAT_ATTR(vram_total, vram_total);
NPU_STAT_ATTR(vram_used, vram_used);
NPU_STAT_ATTR(vram_free, vram_free);
NPU_STAT_ATTR(largest_free, largest_free);
NPU_STAT_ATTR(peak_used, peak_used);
NPU_STAT_ATTR(num_bos, num_bos);
NPU_STAT_ATTR(free_ranges, num_free_ranges);
NPU_STAT_ATTR(compactions, compactions);
NPU_STAT_ATTR(bytes_moved, bytes_moved);
NPU_STAT_ATTR(pause_ns, pause_ns);
NPU_STAT_ATTR(alloc_failures, alloc_failures);

/**
 * npu_fragmentation_ppm() - largest-free ratio in parts per million
 * @st: pool statistics
 *
 * Return: 1 - largest free / total free, 0 when nothing is free.
 */
static u64 npu_fragmentation_ppm(const struct drm_npu_mem_stats *st)
{
	if (!st->vram_free)
		return 0;
	return 1000000 - div64_u64(st->largest_free * 1000000, st->vram_free);
}

static ssize_t fragmentation_ppm_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct drm_npu_mem_stats st;
	int ret = npu_sysfs_stats(dev, &st);

	return ret ? ret : sysfs_emit(buf, "%llu\n", npu_fragmentation_ppm(&st));
}
static DEVICE_ATTR_RO(fragmentation_ppm);

static ssize_t busy_ns_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct npu_drm_device *ndev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%llu\n", npu_core_busy_ns(ndev->core));
}
static DEVICE_ATTR_RO(busy_ns);

static ssize_t jobs_completed_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct npu_drm_device *ndev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ndev->jobs_done[0]));
}
static DEVICE_ATTR_RO(jobs_completed);

static ssize_t jobs_faulted_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct npu_drm_device *ndev = dev_get_drvdata(dev);
	s64 n = 0;
	int i;

	for (i = 1; i < ARRAY_SIZE(ndev->jobs_done); i++)
		n += atomic64_read(&ndev->jobs_done[i]);
	return sysfs_emit(buf, "%lld\n", n);
}
static DEVICE_ATTR_RO(jobs_faulted);

#define NPU_PARAM_ATTR(name, expr)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct npu_drm_device *ndev = dev_get_drvdata(dev);		\
									\
	return sysfs_emit(buf, "%u\n", (u32)(expr));			\
}									\
static DEVICE_ATTR_RO(name)

NPU_PARAM_ATTR(cores, ndev->params.cores);
NPU_PARAM_ATTR(queues, ndev->params.queues);
static ssize_t uapi_version_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u.%u\n", DRM_NPU_UAPI_MAJOR, DRM_NPU_UAPI_MINOR);
}
static DEVICE_ATTR_RO(uapi_version);

static ssize_t model_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "0x%x\n", DRM_NPU_MODEL_SIM910);
}
static DEVICE_ATTR_RO(model);

static struct attribute *npu_dev_attrs[] = {
	&dev_attr_vram_total.attr,
	&dev_attr_vram_used.attr,
	&dev_attr_vram_free.attr,
	&dev_attr_largest_free.attr,
	&dev_attr_peak_used.attr,
	&dev_attr_num_bos.attr,
	&dev_attr_free_ranges.attr,
	&dev_attr_compactions.attr,
	&dev_attr_bytes_moved.attr,
	&dev_attr_pause_ns.attr,
	&dev_attr_alloc_failures.attr,
	&dev_attr_fragmentation_ppm.attr,
	&dev_attr_busy_ns.attr,
	&dev_attr_jobs_completed.attr,
	&dev_attr_jobs_faulted.attr,
	&dev_attr_cores.attr,
	&dev_attr_queues.attr,
	&dev_attr_uapi_version.attr,
	&dev_attr_model.attr,
	NULL
};

static const struct attribute_group npu_dev_group = {
	.attrs = npu_dev_attrs,
};

const struct attribute_group *npu_dev_groups[] = {
	&npu_dev_group,
	NULL
};
