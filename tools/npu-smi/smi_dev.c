// SPDX-License-Identifier: MIT
/*
 * smi_dev.c - finds npu_drv devices and reads their figures.
 *
 * Kernel devices are found through sysfs: every /sys/class/drm/renderD*
 * (and /sys/class/accel/accel*) whose device is bound to the driver
 * "npu_drv"; their figures are the device's sysfs attributes, so npu-smi
 * opens no device file and never shows up as a client itself. The
 * in-process device (--device sim) is asked through the transport.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "drm/npu_drm.h"
#include "npu_transport.h"
#include "smi.h"

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static uint64_t read_u64(const char *dir, const char *attr)
{
	char path[1024], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (read_line(path, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 0);
}

static bool driver_is_npu(const char *class_dir, const char *node)
{
	char link[1024], target[512];
	ssize_t n;
	const char *base;

	snprintf(link, sizeof(link), "%s/%s/device/driver", class_dir, node);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = 0;
	base = strrchr(target, '/');
	return strcmp(base ? base + 1 : target, "npu_drv") == 0;
}

/* sysfs directory of the device behind @dev's node. */
static void device_dir(const struct smi_device *dev, char *buf, size_t len)
{
	const char *node = strrchr(dev->node, '/');
	const char *cls = strstr(dev->node, "/accel/") ? "accel" : "drm";

	snprintf(buf, len, "/sys/class/%s/%s/device", cls, node ? node + 1 : "");
}

/**
 * smi_refresh_device() - re-read the figures of a kernel device
 * @dev: a device found by smi_find_devices()
 *
 * Return: 0, or -ENODEV when it is gone.
 */
int smi_refresh_device(struct smi_device *dev)
{
	char dir[512], path[1024];

	if (!strcmp(dev->node, "in-process"))
		return 0;
	device_dir(dev, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/vram_total", dir);
	if (access(path, R_OK))
		return -ENODEV;
	dev->cores = (uint32_t)read_u64(dir, "cores");
	dev->queues = (uint32_t)read_u64(dir, "queues");
	dev->model = (uint32_t)read_u64(dir, "model");
	dev->vram_total = read_u64(dir, "vram_total");
	dev->vram_used = read_u64(dir, "vram_used");
	dev->vram_free = read_u64(dir, "vram_free");
	dev->largest_free = read_u64(dir, "largest_free");
	dev->peak_used = read_u64(dir, "peak_used");
	dev->num_bos = read_u64(dir, "num_bos");
	dev->free_ranges = read_u64(dir, "free_ranges");
	dev->compactions = read_u64(dir, "compactions");
	dev->bytes_moved = read_u64(dir, "bytes_moved");
	dev->pause_ns = read_u64(dir, "pause_ns");
	dev->alloc_failures = read_u64(dir, "alloc_failures");
	dev->fragmentation_ppm = read_u64(dir, "fragmentation_ppm");
	dev->busy_ns = read_u64(dir, "busy_ns");
	dev->jobs_completed = read_u64(dir, "jobs_completed");
	dev->jobs_faulted = read_u64(dir, "jobs_faulted");
	snprintf(path, sizeof(path), "%s/uapi_version", dir);
	if (read_line(path, dev->uapi_version, sizeof(dev->uapi_version)))
		snprintf(dev->uapi_version, sizeof(dev->uapi_version), "?");
	return 0;
}

static int cmp_dev(const void *a, const void *b)
{
	const struct smi_device *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int scan_class(const char *cls, const char *prefix,
		      struct smi_device *devs, int n, int max)
{
	char class_dir[64];
	struct dirent *de;
	DIR *d;

	snprintf(class_dir, sizeof(class_dir), "/sys/class/%s", cls);
	d = opendir(class_dir);
	if (!d)
		return n;
	while ((de = readdir(d)) && n < max) {
		struct smi_device *dev = &devs[n];
		char link[1024], target[512], *base;
		struct stat st;
		ssize_t len;

		if (strncmp(de->d_name, prefix, strlen(prefix)) ||
		    !driver_is_npu(class_dir, de->d_name))
			continue;
		memset(dev, 0, sizeof(*dev));
		snprintf(dev->node, sizeof(dev->node), "/dev/%s/%.40s",
			 strcmp(cls, "drm") ? "accel" : "dri", de->d_name);
		if (!stat(dev->node, &st))
			dev->minor = minor(st.st_rdev);
		snprintf(link, sizeof(link), "%s/%s/device", class_dir,
			 de->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = 0;
		base = strrchr(target, '/');
		snprintf(dev->name, sizeof(dev->name), "%.60s",
			 base ? base + 1 : de->d_name);
		snprintf(dev->driver, sizeof(dev->driver), "npu_drv");
		if (read_line("/sys/module/npu_drv/version", dev->driver_version,
			      sizeof(dev->driver_version)))
			snprintf(dev->driver_version, sizeof(dev->driver_version),
				 "?");
		dev->util_pct = -1;
		if (!smi_refresh_device(dev))
			n++;
	}
	closedir(d);
	return n;
}

/**
 * smi_find_devices() - the npu_drv devices of this machine, by name
 * @devs: out
 * @max: capacity of @devs
 *
 * Return: how many were found.
 */
int smi_find_devices(struct smi_device *devs, int max)
{
	int n = 0, i;

	n = scan_class("drm", "renderD", devs, n, max);
	n = scan_class("accel", "accel", devs, n, max);
	qsort(devs, (size_t)n, sizeof(*devs), cmp_dev);
	for (i = 0; i < n; i++)
		devs[i].index = i;
	return n;
}

/**
 * smi_sim_device() - describe a fresh in-process device (--device sim)
 * @index: which of the NPU_SIM_DEVICES devices ("sim", "sim:1", ...)
 * @dev: out
 *
 * Return: 0 or -errno from the transport.
 */
int smi_sim_device(unsigned int index, struct smi_device *dev)
{
	struct drm_npu_device_info info;
	struct drm_npu_mem_stats st;
	struct npu_dev *d;
	char spec[16];
	int r;

	snprintf(spec, sizeof(spec), index ? "sim:%u" : "sim", index);
	r = npu_dev_open(spec, &d);
	if (r)
		return r;
	memset(&info, 0, sizeof(info));
	memset(&st, 0, sizeof(st));
	r = npu_dev_ioctl(d, DRM_IOCTL_NPU_DEVICE_INFO, &info);
	if (!r)
		r = npu_dev_ioctl(d, DRM_IOCTL_NPU_MEM_STATS, &st);
	if (!r) {
		memset(dev, 0, sizeof(*dev));
		snprintf(dev->name, sizeof(dev->name), "%s", npu_dev_name(d));
		snprintf(dev->node, sizeof(dev->node), "in-process");
		snprintf(dev->driver, sizeof(dev->driver), "sim");
		snprintf(dev->driver_version, sizeof(dev->driver_version), "-");
		snprintf(dev->uapi_version, sizeof(dev->uapi_version), "%u.%u",
			 info.uapi_version >> 16, info.uapi_version & 0xffff);
		dev->model = info.model;
		dev->cores = info.num_cores;
		dev->queues = info.num_queues;
		dev->vram_total = st.vram_total;
		dev->vram_used = st.vram_used;
		dev->vram_free = st.vram_free;
		dev->largest_free = st.largest_free;
		dev->peak_used = st.peak_used;
		dev->num_bos = st.num_bos;
		dev->free_ranges = st.num_free_ranges;
		dev->compactions = st.compactions;
		dev->bytes_moved = st.bytes_moved;
		dev->pause_ns = st.pause_ns;
		dev->alloc_failures = st.alloc_failures;
		dev->util_pct = -1;
		dev->index = (int)index;
	}
	npu_dev_close(d);
	return r;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * smi_sample_utilisation() - busy share of each device over a window
 * @devs: devices (refreshed on return)
 * @n: how many
 * @window_ms: length of the sample window
 *
 * Utilisation: the share of the AI cores' capacity spent on tasks during
 * the window, from sysfs busy_ns (AI-core time summed over the cores):
 * delta busy_ns / (window * cores).
 */
void smi_sample_utilisation(struct smi_device *devs, int n,
			    unsigned int window_ms)
{
	uint64_t before[SMI_MAX_DEVICES], t0, t1;
	int i;

	t0 = now_ns();
	for (i = 0; i < n && i < SMI_MAX_DEVICES; i++)
		before[i] = devs[i].busy_ns;
	usleep(window_ms * 1000u);
	t1 = now_ns();
	for (i = 0; i < n && i < SMI_MAX_DEVICES; i++) {
		if (!strcmp(devs[i].node, "in-process") ||
		    smi_refresh_device(&devs[i]))
			continue;
		devs[i].util_pct = t1 > t0 && devs[i].cores ?
			100.0 * (double)(devs[i].busy_ns - before[i]) /
			((double)(t1 - t0) * devs[i].cores) : 0;
		if (devs[i].util_pct > 100.0)
			devs[i].util_pct = 100.0;
	}
}
