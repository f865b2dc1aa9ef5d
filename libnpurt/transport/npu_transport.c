// SPDX-License-Identifier: MIT
/*
 * npu_transport.c - one small interface over the two kinds of NPU device:
 * a kernel node of the npu_drv driver (through libdrm) and the in-process
 * device (libnpurt/sim). See npu_transport.h.
 */
#include "npu_transport.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

#include "../sim/npu_sim.h"

#define NPU_DRIVER_NAME		"npu_drv"

struct npu_dev {
	int fd;				/* kernel node, or -1 */
	struct npu_sim_file *sim;	/* in-process, or NULL */
	char name[256];
};

/* Is @fd a node of the npu_drv driver? */
static int npu_fd_is_npu(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	int ok;

	if (!v)
		return 0;
	ok = v->name && strcmp(v->name, NPU_DRIVER_NAME) == 0;
	drmFreeVersion(v);
	return ok;
}

static int npu_open_node(const char *path, struct npu_dev *d)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (!npu_fd_is_npu(fd)) {
		close(fd);
		return -ENODEV;
	}
	d->fd = fd;
	snprintf(d->name, sizeof(d->name), "%s", path);
	return 0;
}

static int npu_open_sim(struct npu_dev *d, unsigned int index)
{
	int err = npu_sim_open(index, &d->sim);

	if (!err && index)
		snprintf(d->name, sizeof(d->name), "sim:%u", index);
	else if (!err)
		snprintf(d->name, sizeof(d->name), "sim");
	return err;
}

/* "sim" (device 0) or "sim:N"; -1 if @spec names no in-process device. */
static int npu_sim_index(const char *spec)
{
	char *end;
	unsigned long v;

	if (strcmp(spec, "sim") == 0)
		return 0;
	if (strncmp(spec, "sim:", 4) || !spec[4] || spec[4] == '-')
		return -1;
	v = strtoul(spec + 4, &end, 10);
	if (*end || v >= NPU_SIM_MAX_DEVICES)
		return -1;
	return (int)v;
}

int npu_dev_sim_count(void)
{
	return npu_sim_num_devices();
}

/* The first accel or render node whose driver is npu_drv. */
static int npu_open_auto(struct npu_dev *d)
{
	static const char *const patterns[] = {
		"/dev/accel/accel*", "/dev/dri/renderD*",
	};
	size_t i, j;

	for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		glob_t g;

		if (glob(patterns[i], 0, NULL, &g))
			continue;
		for (j = 0; j < g.gl_pathc; j++) {
			if (npu_open_node(g.gl_pathv[j], d) == 0) {
				globfree(&g);
				return 0;
			}
		}
		globfree(&g);
	}
	return npu_open_sim(d, 0);
}

int npu_dev_open(const char *spec, struct npu_dev **out)
{
	struct npu_dev *d;
	int err;

	if (!out)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->fd = -1;
	if (!spec || !*spec)
		spec = getenv("NPU_DEVICE");
	if (!spec || !*spec || strcmp(spec, "auto") == 0)
		err = npu_open_auto(d);
	else if (npu_sim_index(spec) >= 0)
		err = npu_open_sim(d, (unsigned int)npu_sim_index(spec));
	else if (strncmp(spec, "sim:", 4) == 0)
		err = -ENODEV;
	else
		err = npu_open_node(spec, d);
	if (err) {
		free(d);
		return err;
	}
	*out = d;
	return 0;
}

int npu_dev_ioctl(struct npu_dev *d, unsigned long req, void *arg)
{
	if (d->sim)
		return npu_sim_ioctl(d->sim, req, arg);
	if (drmIoctl(d->fd, req, arg))
		return -errno;
	return 0;
}

void *npu_dev_mmap(struct npu_dev *d, uint64_t offset, size_t len)
{
	void *p;

	if (d->sim)
		return npu_sim_mmap(d->sim, offset, len);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd,
		 (off_t)offset);
	return p == MAP_FAILED ? NULL : p;
}

int npu_dev_munmap(struct npu_dev *d, void *p, size_t len)
{
	if (d->sim)
		return npu_sim_munmap(d->sim, p, len);
	return munmap(p, len) ? -errno : 0;
}

/*
 * Kernel node: the knob is a debugfs file of the device,
 * <debugfs>/dri/<minor>/npu/<knob>, found through the "name" file of each
 * DRM debugfs directory (it starts with the driver name).
 */
static int npu_debugfs_write(const char *knob, uint64_t val)
{
	glob_t g;
	size_t i;
	int err = -EOPNOTSUPP;

	if (strchr(knob, '/'))
		return -EINVAL;
	if (glob("/sys/kernel/debug/dri/*/name", 0, NULL, &g))
		return access("/sys/kernel/debug/dri", R_OK) ? -EACCES :
			-EOPNOTSUPP;
	for (i = 0; i < g.gl_pathc; i++) {
		char buf[128], path[512];
		FILE *f = fopen(g.gl_pathv[i], "r");
		size_t n;

		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		if (strncmp(buf, NPU_DRIVER_NAME, strlen(NPU_DRIVER_NAME)))
			continue;
		snprintf(path, sizeof(path), "%.*s/npu/%s",
			 (int)(strlen(g.gl_pathv[i]) - strlen("/name")),
			 g.gl_pathv[i], knob);
		f = fopen(path, "w");
		if (!f) {
			err = errno == ENOENT ? -EINVAL : -errno;
			continue;
		}
		if (fprintf(f, "%llu\n", (unsigned long long)val) < 0)
			err = -EIO;
		else
			err = 0;
		if (fclose(f) && !err)
			err = errno ? -errno : -EIO;
		break;
	}
	globfree(&g);
	return err;
}

int npu_dev_test_control(struct npu_dev *d, const char *knob, uint64_t val)
{
	if (!knob)
		return -EINVAL;
	if (d->sim)
		return npu_sim_test_control(d->sim, knob, val);
	return npu_debugfs_write(knob, val);
}

int npu_dev_is_kernel(struct npu_dev *d)
{
	return d->sim == NULL;
}

const char *npu_dev_name(struct npu_dev *d)
{
	return d->name;
}

int npu_dev_fd(struct npu_dev *d)
{
	return d->fd;
}

void npu_dev_close(struct npu_dev *d)
{
	if (!d)
		return;
	if (d->sim)
		npu_sim_close(d->sim);
	else
		close(d->fd);
	free(d);
}
