// SPDX-License-Identifier: MIT
/*
 * smi_proc.c - which processes use which NPU, and how much, from the DRM
 * usage statistics in /proc/<pid>/fdinfo/<fd> (drm-driver, drm-client-id,
 * drm-total-vram, drm-engine-npu; Documentation/driver.rst). A file shared
 * by several descriptors of one process (dup, SCM_RIGHTS) has one client
 * id and is counted once for that process.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "smi.h"

#define SMI_MAX_CLIENTS	64

struct fdinfo {
	char driver[32];
	uint64_t client_id;
	uint64_t total_vram;
	uint64_t engine_ns;
};

static uint64_t parse_size(const char *v)
{
	char *end;
	uint64_t n = strtoull(v, &end, 10);

	while (*end == ' ' || *end == '\t')
		end++;
	if (!strncmp(end, "KiB", 3))
		n <<= 10;
	else if (!strncmp(end, "MiB", 3))
		n <<= 20;
	return n;
}

static int read_fdinfo(const char *pid, const char *fd, struct fdinfo *fi)
{
	char path[300], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	memset(fi, 0, sizeof(*fi));
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = 0;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = 0;
		if (!strcmp(line, "drm-driver"))
			snprintf(fi->driver, sizeof(fi->driver), "%s", v);
		else if (!strcmp(line, "drm-client-id"))
			fi->client_id = strtoull(v, NULL, 10);
		else if (!strcmp(line, "drm-total-vram"))
			fi->total_vram = parse_size(v);
		else if (!strcmp(line, "drm-engine-npu"))
			fi->engine_ns = strtoull(v, NULL, 10);
	}
	fclose(f);
	return strcmp(fi->driver, "npu_drv") ? -1 : 0;
}

static int device_of(const struct smi_device *devs, int ndev, dev_t rdev)
{
	int i;

	for (i = 0; i < ndev; i++)
		if (strcmp(devs[i].node, "in-process") &&
		    devs[i].minor == minor(rdev))
			return devs[i].index;
	return -1;
}

static void read_comm(const char *pid, char *buf, size_t len)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	buf[0] = 0;
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

/* Adds the npu_drv files of process @pid to @procs. */
static int scan_pid(const char *pid, const struct smi_device *devs, int ndev,
		    struct smi_proc *procs, int n, int max)
{
	uint64_t seen[SMI_MAX_CLIENTS];
	int nseen = 0, first = n;
	char path[300];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	if (!d)
		return n;
	while ((de = readdir(d))) {
		struct fdinfo fi;
		struct stat st;
		int dev, i;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, de->d_name);
		if (stat(path, &st) || !S_ISCHR(st.st_mode))
			continue;
		dev = device_of(devs, ndev, st.st_rdev);
		if (dev < 0 || read_fdinfo(pid, de->d_name, &fi))
			continue;
		for (i = 0; i < nseen && seen[i] != fi.client_id; i++)
			;
		if (i < nseen)
			continue;
		if (nseen < SMI_MAX_CLIENTS)
			seen[nseen++] = fi.client_id;
		for (i = first; i < n && procs[i].device != dev; i++)
			;
		if (i == n) {
			if (n == max)
				continue;
			memset(&procs[n], 0, sizeof(procs[n]));
			procs[n].pid = (pid_t)atoi(pid);
			procs[n].device = dev;
			read_comm(pid, procs[n].comm, sizeof(procs[n].comm));
			n++;
		}
		procs[i].clients++;
		procs[i].vram += fi.total_vram;
		procs[i].engine_ns += fi.engine_ns;
	}
	closedir(d);
	return n;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct smi_proc *x = a, *y = b;

	if (x->device != y->device)
		return x->device - y->device;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/**
 * smi_find_procs() - processes with files open on the given devices
 * @devs: kernel devices
 * @ndev: how many
 * @procs: out, by device then pid
 * @max: capacity of @procs
 *
 * Processes of other users are visible only to root (fdinfo permissions).
 *
 * Return: how many entries were filled.
 */
int smi_find_procs(const struct smi_device *devs, int ndev,
		   struct smi_proc *procs, int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (isdigit((unsigned char)de->d_name[0]))
			n = scan_pid(de->d_name, devs, ndev, procs, n, max);
	}
	closedir(d);
	qsort(procs, (size_t)n, sizeof(*procs), cmp_proc);
	return n;
}
