// SPDX-License-Identifier: GPL-2.0
/*
 * vm_util.c - helpers of the in-VM driver tests. Raw ioctls on purpose:
 * these tests check the kernel module itself, below any library.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "vm_util.h"

static int failures;

void tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		failures++;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int tap_failures(void)
{
	return failures;
}

static bool vm_is_npu_node(const char *name)
{
	char link[512], target[512];
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/class/drm/%s/device/driver", name);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = 0;
	return strcmp(strrchr(target, '/') ? strrchr(target, '/') + 1 : target,
		      "npu_drv") == 0;
}

const char *vm_node_path(void)
{
	static char path[300];
	const char *env = getenv("NPU_DEVICE");
	struct dirent *de;
	DIR *d;

	if (env && *env && strcmp(env, "sim"))
		return env;
	d = opendir("/sys/class/drm");
	if (!d)
		return NULL;
	path[0] = 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "renderD", 7) ||
		    !vm_is_npu_node(de->d_name))
			continue;
		if (!path[0] || strcmp(de->d_name, path + 9) < 0)
			snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
	}
	closedir(d);
	return path[0] ? path : NULL;
}

int vm_open(void)
{
	const char *p = vm_node_path();
	int fd;

	if (!p) {
		fprintf(stderr, "npu_vmtest: no npu_drv render node\n");
		return -1;
	}
	fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "npu_vmtest: open %s: %s\n", p, strerror(errno));
	return fd;
}

int vm_ioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r == -1 && (errno == EINTR || errno == EAGAIN));
	return r == -1 ? -errno : 0;
}

uint64_t vm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t vm_deadline(uint64_t ms)
{
	return vm_now_ns() + ms * 1000000ull;
}

int vm_bo_create(int fd, uint64_t size, uint32_t *handle)
{
	struct drm_npu_bo_create a = { .size = size };
	int r = vm_ioctl(fd, DRM_IOCTL_NPU_BO_CREATE, &a);

	*handle = r ? 0 : a.handle;
	return r;
}

int vm_bo_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return vm_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

void *vm_bo_map(int fd, uint32_t handle, uint64_t size)
{
	struct drm_npu_bo_mmap_offset m = { .handle = handle };
	void *p;

	if (vm_ioctl(fd, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &m))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)m.offset);
	return p == MAP_FAILED ? NULL : p;
}

int vm_mem_stats(int fd, struct drm_npu_mem_stats *st)
{
	memset(st, 0, sizeof(*st));
	return vm_ioctl(fd, DRM_IOCTL_NPU_MEM_STATS, st);
}

int vm_queue_create(int fd, uint32_t *handle)
{
	struct drm_npu_queue_create q = { .priority = DRM_NPU_PRIORITY_NORMAL };
	int r = vm_ioctl(fd, DRM_IOCTL_NPU_QUEUE_CREATE, &q);

	*handle = r ? 0 : q.handle;
	return r;
}

int vm_copy_program(int fd, uint32_t n, uint32_t *handle)
{
	struct drm_npu_task t;
	struct drm_npu_program_create p;
	int i, r;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_COPY;
	t.num_operands = 2;
	for (i = 0; i < 2; i++) {
		t.operands[i].slot = (uint16_t)i;
		t.operands[i].dtype = DRM_NPU_DTYPE_F32;
		t.operands[i].rank = 1;
		t.operands[i].shape[0] = n;
		t.operands[i].strides[0] = 1;
	}
	memset(&p, 0, sizeof(p));
	p.tasks_ptr = (uint64_t)(uintptr_t)&t;
	p.num_tasks = 1;
	p.task_size = sizeof(t);
	r = vm_ioctl(fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &p);
	*handle = r ? 0 : p.handle;
	return r;
}

int vm_submit(int fd, uint32_t queue, uint32_t program, const uint32_t *bos,
	      uint32_t num_bos, uint64_t *fence)
{
	struct drm_npu_submit s;
	int r;

	memset(&s, 0, sizeof(s));
	s.queue = queue;
	s.program = program;
	s.bos_ptr = (uint64_t)(uintptr_t)bos;
	s.num_bos = num_bos;
	r = vm_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s);
	if (fence)
		*fence = r ? 0 : s.fence;
	return r;
}

int vm_wait(int fd, uint32_t queue, uint64_t fence, uint64_t ms)
{
	struct drm_npu_wait_fence w = {
		.queue = queue,
		.fence = fence,
		.timeout_ns = (int64_t)vm_deadline(ms),
	};

	return vm_ioctl(fd, DRM_IOCTL_NPU_WAIT_FENCE, &w);
}

int vm_knob(const char *knob, uint64_t val)
{
	const char *node = vm_node_path();
	char path[512];
	struct stat st;
	FILE *f;
	int r;

	if (!node || stat(node, &st))
		return -ENODEV;
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/npu/%s",
		 minor(st.st_rdev), knob);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	r = fprintf(f, "%llu\n", (unsigned long long)val) < 0 ? -EIO : 0;
	if (fclose(f) && !r)
		r = -errno;
	return r;
}

static int vm_fdinfo_line(pid_t pid, int fd, const char *key, char *val,
			  size_t len)
{
	char path[128], line[512];
	size_t klen = strlen(key);
	int found = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v;

		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		v = line + klen + 1;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = 0;
		snprintf(val, len, "%s", v);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

int vm_fdinfo_str(pid_t pid, int fd, const char *key, char *buf, size_t len)
{
	return vm_fdinfo_line(pid, fd, key, buf, len);
}

int vm_fdinfo_u64(pid_t pid, int fd, const char *key, uint64_t *val)
{
	char buf[128], *end;
	unsigned long long v;
	int r = vm_fdinfo_line(pid, fd, key, buf, sizeof(buf));

	if (r)
		return r;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	end += strspn(end, " ");
	if (!strcmp(end, "KiB"))
		v <<= 10;
	else if (!strcmp(end, "MiB"))
		v <<= 20;
	else if (*end && strcmp(end, "ns"))
		return -EINVAL;
	*val = v;
	return 0;
}
