// SPDX-License-Identifier: MIT
/*
 * device.c - library init/finalize and device enumeration.
 *
 * Devices are probed once at the first npurt_init(): every npu_drv node
 * (/dev/accel/accel*, /dev/dri/renderD*), or the in-process devices
 * (NPU_SIM_DEVICES of them) when there is none; $NPU_DEVICE names the only
 * device when set, except "sim", which means every in-process device.
 */
#include <dirent.h>
#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "rt_internal.h"

#define RT_MAX_DEVICES	16

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
static int lib_refs;
static npurt_device *devices[RT_MAX_DEVICES];
static uint32_t num_devices;

npurt_status rt_check_init(const char *func)
{
	int refs;

	pthread_mutex_lock(&lib_lock);
	refs = lib_refs;
	pthread_mutex_unlock(&lib_lock);
	if (!refs)
		return rt_fail(NPURT_ERR_NOT_INITIALIZED, func,
			       "call npurt_init() first",
			       "the library is not initialised");
	return NPURT_OK;
}

/* NUMA node of a DRM node from sysfs; -1 when unknown. */
static int node_numa(const char *path)
{
	char sys[256];
	struct stat st;
	FILE *f;
	int node = -1;

	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return -1;
	snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u/device/numa_node",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(sys, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	return node;
}

static int probe(const char *spec, npurt_device **out)
{
	struct drm_npu_device_info di;
	npurt_device *d;
	struct npu_dev *nd;
	int ret;

	ret = npu_dev_open(spec, &nd);
	if (ret)
		return ret;
	memset(&di, 0, sizeof(di));
	ret = npu_dev_ioctl(nd, DRM_IOCTL_NPU_DEVICE_INFO, &di);
	if (ret) {
		npu_dev_close(nd);
		return ret;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		npu_dev_close(nd);
		return -ENOMEM;
	}
	snprintf(d->spec, sizeof(d->spec), "%s", spec);
	snprintf(d->info.name, sizeof(d->info.name), "%s", npu_dev_name(nd));
	d->info.is_kernel = npu_dev_is_kernel(nd);
	d->info.model = di.model;
	d->info.uapi_version = di.uapi_version;
	d->info.features = di.features;
	d->info.num_cores = di.num_cores;
	d->info.num_queues = di.num_queues;
	d->info.num_semaphores = di.num_semaphores;
	d->info.vram_size = di.vram_size;
	if (d->info.is_kernel)
		d->info.numa_node = node_numa(spec);
	else	/* the in-process device lives where this process runs */
		d->info.numa_node = numa_available() >= 0 ?
			numa_node_of_cpu(sched_getcpu()) : -1;
	npu_dev_close(nd);
	*out = d;
	return 0;
}

static void scan_dir(const char *dir, const char *prefix)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		char path[512];
		npurt_device *d;

		if (!strncmp(ents[i]->d_name, prefix, strlen(prefix)) &&
		    num_devices < RT_MAX_DEVICES) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 ents[i]->d_name);
			if (!probe(path, &d))
				devices[num_devices++] = d;
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* The in-process devices: "sim", "sim:1", ... (NPU_SIM_DEVICES). */
static int enumerate_sim(void)
{
	int n = npu_dev_sim_count();
	npurt_device *d;
	int ret;

	if (n < 0)
		return n;
	for (int i = 0; i < n && num_devices < RT_MAX_DEVICES; i++) {
		char spec[16];

		if (i)
			snprintf(spec, sizeof(spec), "sim:%d", i);
		else
			snprintf(spec, sizeof(spec), "sim");
		ret = probe(spec, &d);
		if (ret)
			return ret;
		devices[num_devices++] = d;
	}
	return 0;
}

static int enumerate(void)
{
	const char *env = getenv("NPU_DEVICE");
	npurt_device *d;
	int ret;

	if (env && !strcmp(env, "sim"))
		return enumerate_sim();
	if (env && *env) {
		ret = probe(env, &d);
		if (ret)
			return ret;
		devices[num_devices++] = d;
		return 0;
	}
	scan_dir("/dev/accel", "accel");
	scan_dir("/dev/dri", "renderD");
	if (num_devices)
		return 0;
	return enumerate_sim();
}

NPURT_API npurt_status npurt_init(uint32_t flags)
{
	npurt_status st = NPURT_OK;
	int ret;

	if (flags)
		return RT_FAIL(NPURT_ERR_INVALID, "pass 0",
			       "flags 0x%x; no flags are defined", flags);
	pthread_mutex_lock(&lib_lock);
	if (lib_refs == 0) {
		ret = enumerate();
		if (ret) {
			st = RT_FAIL(NPURT_ERR_NO_DEVICE,
				     "check NPU_DEVICE (\"sim\" or a node path) "
				     "and that npu_drv is loaded",
				     "no NPU could be opened: %s",
				     strerror(-ret));
			pthread_mutex_unlock(&lib_lock);
			return st;
		}
	}
	lib_refs++;
	pthread_mutex_unlock(&lib_lock);
	rt_log("init: %u device(s)", num_devices);
	return st;
}

NPURT_API npurt_status npurt_finalize(void)
{
	pthread_mutex_lock(&lib_lock);
	if (!lib_refs) {
		pthread_mutex_unlock(&lib_lock);
		return RT_FAIL(NPURT_ERR_NOT_INITIALIZED,
			       "call npurt_finalize once per npurt_init",
			       "the library is not initialised");
	}
	if (--lib_refs == 0) {
		for (uint32_t i = 0; i < num_devices; i++)
			if (devices[i]->refs == 0) {
				free(devices[i]);
				devices[i] = NULL;
			}
		num_devices = 0;
	}
	pthread_mutex_unlock(&lib_lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_device_count(uint32_t *count)
{
	npurt_status st = rt_check_init(__func__);

	if (st)
		return st;
	if (!count)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a pointer",
			       "count is NULL");
	pthread_mutex_lock(&lib_lock);
	*count = num_devices;
	pthread_mutex_unlock(&lib_lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_device_open(uint32_t index, npurt_device **dev)
{
	npurt_status st = rt_check_init(__func__);

	if (st)
		return st;
	if (!dev)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a pointer",
			       "dev is NULL");
	pthread_mutex_lock(&lib_lock);
	if (index >= num_devices) {
		uint32_t n = num_devices;

		pthread_mutex_unlock(&lib_lock);
		return RT_FAIL(NPURT_ERR_NO_DEVICE,
			       "use an index below npurt_device_count()",
			       "device %u; there are %u", index, n);
	}
	devices[index]->refs++;
	*dev = devices[index];
	pthread_mutex_unlock(&lib_lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_device_open_spec(const char *spec,
					      npurt_device **dev)
{
	npurt_status st = rt_check_init(__func__);
	npurt_device *d;
	int ret;

	if (st)
		return st;
	if (!dev)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a pointer",
			       "dev is NULL");
	if (!spec || !*spec)
		return npurt_device_open(0, dev);
	pthread_mutex_lock(&lib_lock);
	for (uint32_t i = 0; i < num_devices; i++)
		if (!strcmp(devices[i]->spec, spec)) {
			devices[i]->refs++;
			*dev = devices[i];
			pthread_mutex_unlock(&lib_lock);
			return NPURT_OK;
		}
	if (num_devices >= RT_MAX_DEVICES) {
		pthread_mutex_unlock(&lib_lock);
		return RT_FAIL(NPURT_ERR_NO_DEVICE, "close unused devices",
			       "too many devices open (%d)", RT_MAX_DEVICES);
	}
	ret = probe(spec, &d);
	if (ret) {
		pthread_mutex_unlock(&lib_lock);
		return RT_FAIL(NPURT_ERR_NO_DEVICE,
			       "use \"sim\" or the path of an npu_drv node",
			       "cannot open device \"%s\": %s", spec,
			       strerror(-ret));
	}
	d->refs = 1;
	devices[num_devices++] = d;
	*dev = d;
	pthread_mutex_unlock(&lib_lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_device_close(npurt_device *dev)
{
	if (!dev)
		return NPURT_OK;
	pthread_mutex_lock(&lib_lock);
	if (dev->refs > 0)
		dev->refs--;
	pthread_mutex_unlock(&lib_lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_device_get_info(npurt_device *dev,
					     npurt_device_info *info)
{
	if (!dev || !info)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a device and a struct",
			       "dev or info is NULL");
	*info = dev->info;
	return NPURT_OK;
}
