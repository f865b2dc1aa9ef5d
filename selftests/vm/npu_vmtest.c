// SPDX-License-Identifier: GPL-2.0
/*
 * npu_vmtest - driver-level tests of npu_drv that run inside the VM
 * (vm-tests.sh calls one subcommand at a time; each prints TAP lines
 * without numbers and exits non-zero on a failure).
 *
 *   basic      a COPY job end to end through mmap'ed buffers
 *   isolation  two processes: neither can use the other's handles or
 *              mappings; all VRAM returns after both close
 *   kill       a process killed in the middle of submissions: its memory
 *              returns and the device keeps working
 *   watchdog   an injected hang is recovered by the watchdog
 *   fdinfo     /proc/<pid>/fdinfo/<fd> DRM keys against the memory held
 *   compact    compaction moves a mapped buffer: the mapping refaults
 *              to the new place and keeps its contents
 *   syncobj    DRM_NPU_SUBMIT_SYNCOBJ: a timeline point per submission,
 *              signalled when the job retires, with an error on a fault
 *   mmap       mapping edge cases: MAP_PRIVATE refused, larger than the
 *              buffer refused, two mappings of one buffer, a mapping that
 *              outlives the handle and the file
 *   fuzz N     N ioctls with random arguments (half of them starting from
 *              valid handles): no crash, no leak, the device still works
 *   stress SEC four threads on one file for SEC seconds: jobs, buffers
 *              created, mapped, written and closed, forced compactions with
 *              debugfs reads, fdinfo and sysfs reads; then no leak and the
 *              data of every job is right
 *   compact-race  a thread keeps writing through mappings while
 *              compaction moves the buffers again and again: no write may
 *              be lost (mappings must be shot down before the copy)
 *   hangkill [nowait]
 *              (test_mode=hang) a process killed while its jobs hang: the
 *              watchdog recovers them and its memory returns (nowait: do
 *              not wait, so that the module is unloaded meanwhile)
 *   testmode   the module's test_mode parameter: instant jobs complete
 *              without computing, hang jobs end by the watchdog, fault jobs
 *              fault with an injected fault
 *   busy SEC   keep the device busy with jobs for SEC seconds
 *   hold MB    allocate and map MB MiB, then wait for stdin to close
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sync_file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm_util.h"

#define MIB	(1024ull * 1024ull)

static uint64_t vram_used(void)
{
	struct drm_npu_mem_stats st;
	int fd = vm_open();
	uint64_t used = ~0ull;

	if (fd >= 0 && !vm_mem_stats(fd, &st))
		used = st.vram_used;
	if (fd >= 0)
		close(fd);
	return used;
}

/* Jobs in flight retire asynchronously: poll until VRAM is back. */
static bool vram_returns_to(uint64_t baseline, uint64_t ms)
{
	uint64_t end = vm_deadline(ms);

	while (vm_now_ns() < end) {
		if (vram_used() == baseline)
			return true;
		usleep(20000);
	}
	tap_diag("vram_used %llu, expected %llu",
		 (unsigned long long)vram_used(),
		 (unsigned long long)baseline);
	return false;
}

/* One COPY job of @n floats through mapped buffers; 0 if the copy is right. */
static int run_copy(int fd, uint32_t n)
{
	uint64_t bytes = (uint64_t)n * 4, fence;
	uint32_t bos[2], q, prog;
	float *in, *out;
	int r, i;

	if ((r = vm_bo_create(fd, bytes, &bos[0])) ||
	    (r = vm_bo_create(fd, bytes, &bos[1])))
		return r;
	in = vm_bo_map(fd, bos[0], bytes);
	out = vm_bo_map(fd, bos[1], bytes);
	if (!in || !out)
		return -EFAULT;
	for (i = 0; i < (int)n; i++)
		in[i] = (float)i * 0.5f;
	if ((r = vm_queue_create(fd, &q)) || (r = vm_copy_program(fd, n, &prog)))
		return r;
	r = vm_submit(fd, q, prog, bos, 2, &fence);
	if (!r)
		r = vm_wait(fd, q, fence, 20000);
	for (i = 0; !r && i < (int)n; i++)
		if (out[i] != (float)i * 0.5f)
			r = -EBADMSG;
	munmap(in, bytes);
	munmap(out, bytes);
	return r;
}

static int t_basic(void)
{
	int fd = vm_open();
	struct drm_npu_device_info info;
	int r;

	tap_ok(fd >= 0, "open %s", vm_node_path() ? vm_node_path() : "(none)");
	if (fd < 0)
		return 1;
	memset(&info, 0, sizeof(info));
	r = vm_ioctl(fd, DRM_IOCTL_NPU_DEVICE_INFO, &info);
	tap_ok(!r && info.uapi_version == DRM_NPU_UAPI_VERSION,
	       "DEVICE_INFO: uapi %#x, %u cores, %u queues, %llu MiB",
	       info.uapi_version, info.num_cores, info.num_queues,
	       (unsigned long long)(info.vram_size / MIB));
	r = run_copy(fd, 65536);
	tap_ok(!r, "COPY job of 256 KiB through mmap'ed buffers (%d)", r);
	close(fd);
	return tap_failures() != 0;
}

static int t_isolation(void)
{
	uint64_t baseline = vram_used();
	int fd = vm_open(), pfd[2], status;
	uint32_t h;
	uint8_t *p;
	pid_t pid;
	struct drm_npu_bo_mmap_offset mo = { 0 };

	if (fd < 0 || vm_bo_create(fd, MIB, &h) || !(p = vm_bo_map(fd, h, MIB))) {
		tap_ok(false, "parent creates and maps a 1 MiB buffer");
		return 1;
	}
	memset(p, 0xa5, MIB);
	mo.handle = h;
	vm_ioctl(fd, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &mo);
	if (pipe(pfd))
		return 1;
	pid = fork();
	if (pid == 0) {
		int cfd = vm_open(), bad = 0;
		struct drm_npu_bo_info bi = { .handle = h };
		struct drm_npu_bo_mmap_offset cmo = { .handle = h };
		uint32_t mine;
		uint8_t *cp;
		void *m;

		close(fd);	/* the parent's file, inherited: not ours */
		if (vm_ioctl(cfd, DRM_IOCTL_NPU_BO_INFO, &bi) != -ENOENT)
			bad |= 1;
		if (vm_ioctl(cfd, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &cmo) != -ENOENT)
			bad |= 2;
		m = mmap(NULL, MIB, PROT_READ, MAP_SHARED, cfd,
			 (off_t)mo.offset);
		if (m != MAP_FAILED)
			bad |= 4;
		if (vm_bo_close(cfd, h) == 0)
			bad |= 8;
		if (vm_bo_create(cfd, MIB, &mine) ||
		    !(cp = vm_bo_map(cfd, mine, MIB)) || cp[0] || cp[MIB - 1])
			bad |= 16;
		_exit(bad);
	}
	close(pfd[0]);
	close(pfd[1]);
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && !(WEXITSTATUS(status) & 1),
	       "other process: BO_INFO on our handle is -ENOENT");
	tap_ok(WIFEXITED(status) && !(WEXITSTATUS(status) & 2),
	       "other process: BO_MMAP_OFFSET on our handle is -ENOENT");
	tap_ok(WIFEXITED(status) && !(WEXITSTATUS(status) & 4),
	       "other process: mmap of our buffer's offset is refused");
	tap_ok(WIFEXITED(status) && !(WEXITSTATUS(status) & 8),
	       "other process: GEM_CLOSE of our handle fails");
	tap_ok(WIFEXITED(status) && !(WEXITSTATUS(status) & 16),
	       "other process: its own new buffer is zeroed");
	tap_ok(p[0] == 0xa5 && p[MIB - 1] == 0xa5,
	       "our buffer is intact after the other process");
	munmap(p, MIB);
	close(fd);
	tap_ok(vram_returns_to(baseline, 5000),
	       "all VRAM returns after both processes close (%llu bytes)",
	       (unsigned long long)baseline);
	return tap_failures() != 0;
}

static int t_kill(void)
{
	uint64_t baseline = vram_used();
	int pfd[2], status, fd, r;
	char c = 0;
	pid_t pid;

	if (pipe(pfd))
		return 1;
	pid = fork();
	if (pid == 0) {
		uint32_t bos[2], q, prog, n = 256 * 1024;
		int cfd = vm_open(), i;

		close(pfd[0]);
		if (cfd < 0 || vm_bo_create(cfd, n * 4, &bos[0]) ||
		    vm_bo_create(cfd, n * 4, &bos[1]) ||
		    vm_queue_create(cfd, &q) || vm_copy_program(cfd, n, &prog))
			_exit(1);
		for (i = 0; i < 100000; i++) {
			if (vm_submit(cfd, q, prog, bos, 2, NULL))
				_exit(2);
			if (i == 20 && write(pfd[1], "r", 1) != 1)
				_exit(3);
		}
		_exit(0);
	}
	close(pfd[1]);
	r = read(pfd[0], &c, 1);
	close(pfd[0]);
	tap_ok(r == 1, "child is submitting jobs");
	usleep(100000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	tap_ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	       "child killed in the middle of its submissions");
	tap_ok(vram_returns_to(baseline, 30000),
	       "its VRAM returns once its jobs retire or are cancelled");
	fd = vm_open();
	r = run_copy(fd, 1024);
	tap_ok(!r, "the device still runs jobs afterwards (%d)", r);
	close(fd);
	tap_ok(vram_returns_to(baseline, 5000), "VRAM back to baseline");
	return tap_failures() != 0;
}

static int t_watchdog(void)
{
	uint32_t bos[2], q, prog;
	struct drm_npu_queue_query qq;
	uint64_t fence;
	int fd = vm_open(), r;

	r = vm_knob("watchdog_ms", 200);
	if (r) {
		tap_ok(true, "watchdog # SKIP no debugfs knob (%d)", r);
		return 0;
	}
	if (fd < 0 || vm_bo_create(fd, 4096, &bos[0]) ||
	    vm_bo_create(fd, 4096, &bos[1]) || vm_queue_create(fd, &q) ||
	    vm_copy_program(fd, 1024, &prog))
		return 1;
	tap_ok(!vm_knob("hang", 1), "debugfs: inject a hang into the next task");
	r = vm_submit(fd, q, prog, bos, 2, &fence);
	if (!r)
		r = vm_wait(fd, q, fence, 20000);
	tap_ok(r == -EIO, "hung job ends with -EIO (got %d)", r);
	memset(&qq, 0, sizeof(qq));
	qq.handle = q;
	r = vm_ioctl(fd, DRM_IOCTL_NPU_QUEUE_QUERY, &qq);
	tap_ok(!r && qq.fault_reason == DRM_NPU_FAULT_WATCHDOG &&
	       qq.fault_fence == fence, "fault record names the watchdog");
	r = vm_submit(fd, q, prog, bos, 2, &fence);
	if (!r)
		r = vm_wait(fd, q, fence, 20000);
	tap_ok(!r, "the queue runs the next job after recovery (%d)", r);
	vm_knob("watchdog_ms", 2000);
	close(fd);
	return tap_failures() != 0;
}

static uint64_t fdinfo_or(pid_t pid, int fd, const char *key, uint64_t dflt)
{
	uint64_t v;

	return vm_fdinfo_u64(pid, fd, key, &v) ? dflt : v;
}

static int t_hangkill(bool wait)
{
	uint64_t baseline = vram_used();
	int pfd[2], status, r;
	char c = 0;
	pid_t pid;

	if (pipe(pfd))
		return 1;
	pid = fork();
	if (pid == 0) {
		uint32_t bos[2], q, prog;
		int cfd = vm_open(), i;

		close(pfd[0]);
		if (cfd < 0 || vm_bo_create(cfd, 4096, &bos[0]) ||
		    vm_bo_create(cfd, 4096, &bos[1]) ||
		    vm_queue_create(cfd, &q) || vm_copy_program(cfd, 1024, &prog))
			_exit(1);
		for (i = 0; i < 8; i++)
			if (vm_submit(cfd, q, prog, bos, 2, NULL))
				_exit(2);
		if (write(pfd[1], "s", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	r = read(pfd[0], &c, 1);
	close(pfd[0]);
	tap_ok(r == 1, "child submitted 8 jobs that hang");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	tap_ok(WIFSIGNALED(status), "child killed while its jobs hang");
	if (!wait)
		return tap_failures() != 0;
	tap_ok(vram_returns_to(baseline, 30000),
	       "its VRAM returns once the watchdog has ended the running job");
	return tap_failures() != 0;
}

static int t_fdinfo(void)
{
	static const uint64_t sizes[] = { MIB, 64 * 1024, 4096, 3 * MIB };
	uint64_t sum = 0, total, resident, id1 = 0, id2 = 0, engine;
	struct drm_npu_mem_stats st;
	uint32_t h[4];
	char drv[64] = "";
	int fd = vm_open(), fd2 = vm_open(), i, pfd[2], status, r;
	pid_t pid;

	if (fd < 0 || fd2 < 0)
		return 1;
	for (i = 0; i < 4; i++) {
		if (vm_bo_create(fd, sizes[i], &h[i]))
			return 1;
		sum += sizes[i];
	}
	vm_fdinfo_str(getpid(), fd, "drm-driver", drv, sizeof(drv));
	tap_ok(!strcmp(drv, "npu_drv"), "drm-driver: %s", drv);
	vm_fdinfo_u64(getpid(), fd, "drm-client-id", &id1);
	vm_fdinfo_u64(getpid(), fd2, "drm-client-id", &id2);
	tap_ok(id1 && id2 && id1 != id2, "drm-client-id unique per open (%llu, %llu)",
	       (unsigned long long)id1, (unsigned long long)id2);
	total = fdinfo_or(getpid(), fd, "drm-total-vram", 0);
	resident = fdinfo_or(getpid(), fd, "drm-resident-vram", 0);
	tap_ok(total == sum, "drm-total-vram %llu = buffers held %llu",
	       (unsigned long long)total, (unsigned long long)sum);
	tap_ok(resident == sum, "drm-resident-vram %llu = buffers held",
	       (unsigned long long)resident);
	vm_mem_stats(fd, &st);
	tap_ok(st.file_used == sum, "MEM_STATS file_used %llu agrees",
	       (unsigned long long)st.file_used);
	tap_ok(fdinfo_or(getpid(), fd2, "drm-total-vram", 1) == 0,
	       "second open holds nothing: drm-total-vram 0");
	vm_bo_close(fd, h[3]);
	sum -= sizes[3];
	tap_ok(fdinfo_or(getpid(), fd, "drm-total-vram", 0) == sum,
	       "after GEM_CLOSE drm-total-vram drops to %llu",
	       (unsigned long long)sum);
	r = run_copy(fd2, 16384);
	engine = fdinfo_or(getpid(), fd2, "drm-engine-npu", 0);
	tap_ok(!r && engine > 0, "drm-engine-npu counts after a job (%llu ns)",
	       (unsigned long long)engine);

	tap_ok(fdinfo_or(getpid(), fd2, "drm-engine-capacity-npu", 0) > 0,
	       "drm-engine-capacity-npu: %llu AI cores",
	       (unsigned long long)fdinfo_or(getpid(), fd2,
					     "drm-engine-capacity-npu", 0));

	/* A buffer shared through PRIME counts in both files, as shared. */
	{
		struct drm_prime_handle ex = { .handle = h[0], .flags = DRM_CLOEXEC };
		struct drm_prime_handle im = { 0 };
		uint64_t total2 = fdinfo_or(getpid(), fd2, "drm-total-vram", 0);

		r = vm_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ex);
		im.fd = ex.fd;
		if (!r)
			r = vm_ioctl(fd2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im);
		tap_ok(!r && fdinfo_or(getpid(), fd, "drm-shared-vram", 0) == sizes[0] &&
		       fdinfo_or(getpid(), fd2, "drm-shared-vram", 0) == sizes[0] &&
		       fdinfo_or(getpid(), fd2, "drm-total-vram", 0) == total2 + sizes[0],
		       "a PRIME-shared buffer counts in drm-shared-vram of both files (%d)", r);
		if (!r)
			vm_bo_close(fd2, im.handle);
		if (ex.fd > 0)
			close(ex.fd);
	}

	/* Another process reads our fdinfo, as a monitoring tool does. */
	if (pipe(pfd))
		return 1;
	pid = fork();
	if (pid == 0) {
		pid_t parent = getppid();

		_exit(fdinfo_or(parent, fd, "drm-total-vram", 0) == sum ? 0 : 1);
	}
	close(pfd[0]);
	close(pfd[1]);
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "another process reads the same drm-total-vram from /proc/<pid>/fdinfo");
	close(fd);
	close(fd2);
	return tap_failures() != 0;
}

static int t_compact(void)
{
	enum { N = 8 };
	uint32_t h[N];
	struct drm_npu_compact c;
	struct drm_npu_bo_info bi;
	uint64_t bytes = 2 * MIB;
	uint32_t *p;
	int fd = vm_open(), i, r, good = 1;

	if (fd < 0)
		return 1;
	for (i = 0; i < N; i++)
		if (vm_bo_create(fd, bytes, &h[i]))
			return 1;
	p = vm_bo_map(fd, h[N - 1], bytes);
	if (!p)
		return 1;
	for (i = 0; i < (int)(bytes / 4); i++)
		p[i] = 0x9e3779b9u * (uint32_t)i;
	for (i = 0; i < N - 1; i += 2)
		vm_bo_close(fd, h[i]);
	memset(&c, 0, sizeof(c));
	r = vm_ioctl(fd, DRM_IOCTL_NPU_COMPACT, &c);
	tap_ok(!r && c.bytes_moved > 0, "COMPACT moved %llu bytes (%d)",
	       (unsigned long long)c.bytes_moved, r);
	memset(&bi, 0, sizeof(bi));
	bi.handle = h[N - 1];
	r = vm_ioctl(fd, DRM_IOCTL_NPU_BO_INFO, &bi);
	tap_ok(!r && bi.moves > 0, "the mapped buffer was moved (%llu moves)",
	       (unsigned long long)bi.moves);
	for (i = 0; i < (int)(bytes / 4); i++)
		if (p[i] != 0x9e3779b9u * (uint32_t)i)
			good = 0;
	tap_ok(good, "its old mapping refaults to the new place, contents intact");
	p[0] = 0x12345678;
	r = vm_ioctl(fd, DRM_IOCTL_NPU_COMPACT, &c);
	tap_ok(p[0] == 0x12345678, "writes through the mapping land in VRAM");
	munmap(p, bytes);
	close(fd);
	return tap_failures() != 0;
}

/*
 * Status of timeline point @point of @syncobj exported as a sync_file: of
 * the npu_drv fence inside it (1 signalled, 0 active, < 0 its error), or
 * -1000 and below when the export itself failed.
 */
static int sync_file_status(int fd, uint32_t syncobj, uint64_t point)
{
	struct drm_syncobj_create c = { 0 };
	struct drm_syncobj_transfer t = { 0 };
	struct drm_syncobj_handle h = { 0 };
	struct sync_fence_info fences[8];
	struct sync_file_info info;
	int r = -1004;
	uint32_t i;

	if (vm_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c))
		return -1000;
	t.src_handle = syncobj;
	t.src_point = point;
	t.dst_handle = c.handle;
	if (vm_ioctl(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &t))
		return -1001;
	h.handle = c.handle;
	h.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE;
	if (vm_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h))
		return -1002;
	memset(&info, 0, sizeof(info));
	memset(fences, 0, sizeof(fences));
	info.num_fences = 8;
	info.sync_fence_info = (uint64_t)(uintptr_t)fences;
	if (ioctl(h.fd, SYNC_IOC_FILE_INFO, &info))
		r = -1003;
	for (i = 0; r == -1004 && i < info.num_fences && i < 8; i++)
		if (!strcmp(fences[i].driver_name, "npu_drv"))
			r = fences[i].status;
	close(h.fd);
	return r;
}

static int t_syncobj(void)
{
	uint32_t bos[2], q, prog, n = 65536;
	struct drm_syncobj_create sc = { 0 };
	struct drm_syncobj_timeline_wait w;
	struct drm_syncobj_timeline_array qa;
	struct drm_npu_submit s;
	uint64_t point = 0;
	float *in, *out;
	int fd = vm_open(), r, i, good = 1;

	if (fd < 0 || vm_bo_create(fd, n * 4, &bos[0]) ||
	    vm_bo_create(fd, n * 4, &bos[1]) || vm_queue_create(fd, &q) ||
	    vm_copy_program(fd, n, &prog) ||
	    !(in = vm_bo_map(fd, bos[0], n * 4)) ||
	    !(out = vm_bo_map(fd, bos[1], n * 4)))
		return 1;
	for (i = 0; i < (int)n; i++)
		in[i] = (float)i;
	r = vm_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc);
	tap_ok(!r, "DRM_IOCTL_SYNCOBJ_CREATE on the node (%d)", r);

	memset(&s, 0, sizeof(s));
	s.queue = q;
	s.program = prog;
	s.bos_ptr = (uint64_t)(uintptr_t)bos;
	s.num_bos = 2;
	s.flags = DRM_NPU_SUBMIT_SYNCOBJ;
	s.reserved = sc.handle;
	r = vm_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s);
	tap_ok(!r && s.fence > 0, "SUBMIT with a syncobj point (fence %llu)",
	       (unsigned long long)s.fence);
	memset(&w, 0, sizeof(w));
	w.handles = (uint64_t)(uintptr_t)&sc.handle;
	w.points = (uint64_t)(uintptr_t)&s.fence;
	w.count_handles = 1;
	w.timeout_nsec = (int64_t)vm_deadline(20000);
	w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	r = vm_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
	tap_ok(!r, "SYNCOBJ_TIMELINE_WAIT on the job's point (%d)", r);
	for (i = 0; i < (int)n; i++)
		if (out[i] != (float)i)
			good = 0;
	tap_ok(good, "the job's output is complete when the point signals");
	memset(&qa, 0, sizeof(qa));
	qa.handles = (uint64_t)(uintptr_t)&sc.handle;
	qa.points = (uint64_t)(uintptr_t)&point;
	qa.count_handles = 1;
	r = vm_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &qa);
	tap_ok(!r && point == s.fence, "SYNCOBJ_QUERY: timeline at %llu",
	       (unsigned long long)point);
	r = sync_file_status(fd, sc.handle, s.fence);
	tap_ok(r == 1, "exported as a sync_file: an npu_drv fence, signalled (%d)", r);

	s.reserved = sc.handle | (1ull << 32);
	r = vm_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s);
	tap_ok(r == -EINVAL, "high bits in the syncobj handle: -EINVAL (%d)", r);
	s.reserved = 9999;
	r = vm_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s);
	tap_ok(r == -ENOENT, "unknown syncobj handle: -ENOENT (%d)", r);
	s.flags = 0;
	s.reserved = sc.handle;
	r = vm_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s);
	tap_ok(r == -EINVAL, "reserved set without the flag: -EINVAL (%d)", r);

	if (!vm_knob("fault", 1)) {
		s.flags = DRM_NPU_SUBMIT_SYNCOBJ;
		s.reserved = sc.handle;
		r = vm_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s);
		w.points = (uint64_t)(uintptr_t)&s.fence;
		if (!r)
			r = vm_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
		tap_ok(!r, "a faulting job's point signals too (%d)", r);
		r = sync_file_status(fd, sc.handle, s.fence);
		tap_ok(r == -EIO, "... with the error -EIO (%d)", r);
	}

	/*
	 * A job that completed keeps its status when its queue is destroyed
	 * at once, before the bottom half has seen it retire.
	 */
	{
		int k, bad = 0, last = 1;

		for (k = 0; k < 32; k++) {
			struct drm_syncobj_create sk = { 0 };
			struct drm_npu_queue_destroy qd = { 0 };
			uint32_t q2;

			if (vm_queue_create(fd, &q2) ||
			    vm_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sk)) {
				bad++;
				break;
			}
			s.queue = q2;
			s.flags = DRM_NPU_SUBMIT_SYNCOBJ;
			s.reserved = sk.handle;
			r = vm_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s);
			if (!r)
				r = vm_wait(fd, q2, s.fence, 20000);
			qd.handle = q2;
			if (!r)
				r = vm_ioctl(fd, DRM_IOCTL_NPU_QUEUE_DESTROY, &qd);
			if (!r)
				r = sync_file_status(fd, sk.handle, s.fence);
			if (r != 1) {
				bad++;
				last = r;
			}
		}
		tap_ok(!bad, "queue destroyed right after its job: the point "
		       "signals without error (%d of 32 wrong, last %d)",
		       bad, last);
	}
	close(fd);
	return tap_failures() != 0;
}

static int t_testmode(void)
{
	uint32_t bos[2], q, prog, n = 1024;
	struct drm_npu_queue_query qq;
	char mode[32] = "";
	uint64_t fence;
	float *in, *out;
	int fd = vm_open(), r;
	FILE *f = fopen("/sys/module/npu_drv/parameters/test_mode", "r");

	if (!f || !fgets(mode, sizeof(mode), f) || fd < 0)
		return 1;
	fclose(f);
	mode[strcspn(mode, "\n")] = 0;
	if (vm_bo_create(fd, n * 4, &bos[0]) || vm_bo_create(fd, n * 4, &bos[1]) ||
	    vm_queue_create(fd, &q) || vm_copy_program(fd, n, &prog) ||
	    !(in = vm_bo_map(fd, bos[0], n * 4)) ||
	    !(out = vm_bo_map(fd, bos[1], n * 4)))
		return 1;
	in[0] = 42.0f;
	r = vm_submit(fd, q, prog, bos, 2, &fence);
	if (!r)
		r = vm_wait(fd, q, fence, 30000);
	memset(&qq, 0, sizeof(qq));
	qq.handle = q;
	vm_ioctl(fd, DRM_IOCTL_NPU_QUEUE_QUERY, &qq);
	if (!strcmp(mode, "instant"))
		tap_ok(!r && out[0] == 0.0f,
		       "test_mode=instant: job completes without computing (%d)", r);
	else if (!strcmp(mode, "fault"))
		tap_ok(r == -EIO && qq.fault_reason == DRM_NPU_FAULT_INJECTED,
		       "test_mode=fault: job faults, reason INJECTED (%d, %u)",
		       r, qq.fault_reason);
	else if (!strcmp(mode, "hang"))
		tap_ok(r == -EIO && qq.fault_reason == DRM_NPU_FAULT_WATCHDOG,
		       "test_mode=hang: the watchdog ends the job (%d, %u)",
		       r, qq.fault_reason);
	else
		tap_ok(!r && out[0] == 42.0f, "test_mode=%s: job computes (%d)",
		       mode, r);
	close(fd);
	return tap_failures() != 0;
}

/* Keeps one job outstanding at all times for @sec seconds. */
static int t_busy(const char *sec)
{
	uint64_t end = vm_deadline(strtoull(sec, NULL, 0) * 1000);
	uint32_t bos[2], q, prog, n = 256 * 1024;
	uint64_t fence;
	int fd = vm_open();

	if (fd < 0 || vm_bo_create(fd, n * 4, &bos[0]) ||
	    vm_bo_create(fd, n * 4, &bos[1]) || vm_queue_create(fd, &q) ||
	    vm_copy_program(fd, n, &prog))
		return 1;
	while (vm_now_ns() < end) {
		if (vm_submit(fd, q, prog, bos, 2, &fence) ||
		    vm_wait(fd, q, fence, 20000))
			return 1;
	}
	close(fd);
	return 0;
}

static int t_mmap(void)
{
	uint64_t bytes = 64 * 1024;
	struct drm_npu_bo_mmap_offset mo;
	uint32_t h, *p, *w;
	void *m;
	int fd = vm_open(), i, r;

	if (fd < 0 || vm_bo_create(fd, bytes, &h))
		return 1;
	memset(&mo, 0, sizeof(mo));
	mo.handle = h;
	if (vm_ioctl(fd, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &mo))
		return 1;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 (off_t)mo.offset);
	tap_ok(m == MAP_FAILED && errno == EINVAL,
	       "MAP_PRIVATE (copy-on-write) mapping refused with EINVAL");
	m = mmap(NULL, bytes * 2, PROT_READ, MAP_SHARED, fd, (off_t)mo.offset);
	tap_ok(m == MAP_FAILED, "mapping larger than the buffer refused");
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)mo.offset);
	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < (int)(bytes / 4); i++)
		p[i] = (uint32_t)i;
	w = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, (off_t)mo.offset);
	tap_ok(w != MAP_FAILED && w[0] == 0 && w[2047] == 2047,
	       "a second, shorter mapping sees the same words");
	if (w != MAP_FAILED)
		munmap(w, 8192);
	r = vm_bo_close(fd, h);
	close(fd);
	for (i = 0; i < (int)(bytes / 4) && p[i] == (uint32_t)i; i++)
		p[i] = ~(uint32_t)i;
	tap_ok(!r && i == (int)(bytes / 4),
	       "a mapping outlives its handle and its file");
	munmap(p, bytes);
	return tap_failures() != 0;
}

static uint64_t fuzz_state = 0x9e3779b97f4a7c15ull;

static uint64_t fuzz_rand(void)
{
	/* xorshift64*: reproducible from the fixed seed. */
	fuzz_state ^= fuzz_state >> 12;
	fuzz_state ^= fuzz_state << 25;
	fuzz_state ^= fuzz_state >> 27;
	return fuzz_state * 0x2545f4914f6cdd1dull;
}

/* A value that is often small or a valid-looking handle, sometimes wild. */
static uint64_t fuzz_value(void)
{
	switch (fuzz_rand() % 4) {
	case 0:
		return fuzz_rand() % 4;
	case 1:
		return fuzz_rand() % 64;
	case 2:
		return 4096ull << (fuzz_rand() % 12);
	default:
		return fuzz_rand();
	}
}

static int t_fuzz(const char *count)
{
	static const unsigned long reqs[] = {
		DRM_IOCTL_NPU_DEVICE_INFO, DRM_IOCTL_NPU_BO_CREATE,
		DRM_IOCTL_NPU_BO_MMAP_OFFSET, DRM_IOCTL_NPU_BO_INFO,
		DRM_IOCTL_NPU_BO_WAIT, DRM_IOCTL_NPU_PROGRAM_CREATE,
		DRM_IOCTL_NPU_PROGRAM_DESTROY, DRM_IOCTL_NPU_QUEUE_CREATE,
		DRM_IOCTL_NPU_QUEUE_DESTROY, DRM_IOCTL_NPU_QUEUE_QUERY,
		DRM_IOCTL_NPU_SEM_CREATE, DRM_IOCTL_NPU_SEM_DESTROY,
		DRM_IOCTL_NPU_SEM_SIGNAL, DRM_IOCTL_NPU_SEM_WAIT,
		DRM_IOCTL_NPU_SEM_QUERY, DRM_IOCTL_NPU_SUBMIT,
		DRM_IOCTL_NPU_WAIT_FENCE, DRM_IOCTL_NPU_MEM_STATS,
		DRM_IOCTL_NPU_COMPACT, DRM_IOCTL_GEM_CLOSE,
		DRM_IOCTL_PRIME_HANDLE_TO_FD, DRM_IOCTL_SYNCOBJ_CREATE,
	};
	uint64_t baseline = vram_used(), n = strtoull(count, NULL, 0), i;
	uint64_t buf[64];
	unsigned int ok = 0;
	int fd = vm_open(), r;

	if (fd < 0)
		return 1;
	for (i = 0; i < n; i++) {
		unsigned long req = reqs[fuzz_rand() % (sizeof(reqs) / sizeof(reqs[0]))];
		struct drm_npu_submit *sub = (void *)buf;
		size_t w;

		for (w = 0; w < sizeof(buf) / 8; w++)
			buf[w] = fuzz_rand() % 2 ? fuzz_value() : 0;
		/* Waits get a deadline already past: the fuzzer must not sleep. */
		if (req == DRM_IOCTL_NPU_BO_WAIT)
			buf[1] = 0;
		if (req == DRM_IOCTL_NPU_WAIT_FENCE || req == DRM_IOCTL_NPU_SEM_WAIT)
			buf[2] = 0;
		if (req == DRM_IOCTL_NPU_SUBMIT && fuzz_rand() % 2) {
			/* Plausible pointers into our own memory. */
			sub->bos_ptr = (uint64_t)(uintptr_t)&buf[40];
			sub->waits_ptr = sub->signals_ptr = 0;
			sub->num_waits = sub->num_signals = 0;
			sub->sem_bindings_ptr = 0;
			sub->num_sem_bindings = 0;
			sub->num_bos %= 8;
		}
		if (req == DRM_IOCTL_NPU_QUEUE_DESTROY) {
			/* Destroy waits for jobs; only queues we know are idle. */
			struct drm_npu_queue_query q = { .handle = (uint32_t)buf[0] };

			if (vm_ioctl(fd, DRM_IOCTL_NPU_QUEUE_QUERY, &q) ||
			    q.submitted != q.completed)
				continue;
		}
		r = vm_ioctl(fd, req, buf);
		if (!r)
			ok++;
		if (!r && req == DRM_IOCTL_PRIME_HANDLE_TO_FD)
			close((int)((struct drm_prime_handle *)buf)->fd);
	}
	tap_diag("%u of %llu random ioctls succeeded", ok,
		 (unsigned long long)n);
	close(fd);
	tap_ok(vram_returns_to(baseline, 30000),
	       "after %llu random ioctls and close, VRAM is back",
	       (unsigned long long)n);
	fd = vm_open();
	r = run_copy(fd, 4096);
	tap_ok(!r, "the device still runs jobs (%d)", r);
	close(fd);
	return tap_failures() != 0;
}

struct stress {
	int fd;
	uint64_t end;
	int errors;
	uint64_t ops[4];
};

static void stress_error(struct stress *st, const char *what, int r)
{
	if (__atomic_fetch_add(&st->errors, 1, __ATOMIC_RELAXED) < 5)
		tap_diag("stress: %s failed (%d)", what, r);
}

static void *stress_jobs(void *arg)
{
	struct stress *st = arg;
	uint32_t bos[2], q, prog, n = 16384, i;
	uint64_t fence;
	float *in, *out;
	int r;

	if (vm_bo_create(st->fd, n * 4, &bos[0]) ||
	    vm_bo_create(st->fd, n * 4, &bos[1]) || vm_queue_create(st->fd, &q) ||
	    vm_copy_program(st->fd, n, &prog) ||
	    !(in = vm_bo_map(st->fd, bos[0], n * 4)) ||
	    !(out = vm_bo_map(st->fd, bos[1], n * 4))) {
		stress_error(st, "job setup", -1);
		return NULL;
	}
	while (vm_now_ns() < st->end) {
		float v = (float)(st->ops[0] % 1000);

		for (i = 0; i < n; i++)
			in[i] = v + (float)i;
		r = vm_submit(st->fd, q, prog, bos, 2, &fence);
		if (!r)
			r = vm_wait(st->fd, q, fence, 30000);
		if (r) {
			stress_error(st, "job", r);
			continue;
		}
		for (i = 0; i < n; i++)
			if (out[i] != v + (float)i) {
				stress_error(st, "job output", (int)i);
				break;
			}
		st->ops[0]++;
	}
	/* Mappings hold their buffers: without these the VRAM stays used. */
	munmap(in, n * 4);
	munmap(out, n * 4);
	return NULL;
}

static void *stress_buffers(void *arg)
{
	struct stress *st = arg;
	uint32_t h;
	uint8_t *p;
	uint64_t size;

	while (vm_now_ns() < st->end) {
		size = 4096ull << (st->ops[1] % 8);
		if (vm_bo_create(st->fd, size, &h)) {
			stress_error(st, "create", -1);
			continue;
		}
		p = vm_bo_map(st->fd, h, size);
		if (p) {
			memset(p, 0x5a, size);
			if (p[size - 1] != 0x5a)
				stress_error(st, "buffer contents", -1);
			munmap(p, size);
		} else {
			stress_error(st, "map", -1);
		}
		vm_bo_close(st->fd, h);
		st->ops[1]++;
	}
	return NULL;
}

static void read_file(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fread(buf, 1, sizeof(buf), f) > 0)
		;
	fclose(f);
}

static void *stress_compact(void *arg)
{
	struct stress *st = arg;
	struct drm_npu_compact c;
	char path[128];
	struct stat sb;
	int r;

	if (fstat(st->fd, &sb))
		return NULL;
	while (vm_now_ns() < st->end) {
		memset(&c, 0, sizeof(c));
		r = vm_ioctl(st->fd, DRM_IOCTL_NPU_COMPACT, &c);
		if (r && r != -ENOSPC)
			stress_error(st, "compact", r);
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/npu/pool",
			 minor(sb.st_rdev));
		read_file(path);
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/npu/queues",
			 minor(sb.st_rdev));
		read_file(path);
		st->ops[2]++;
	}
	return NULL;
}

static void *stress_observe(void *arg)
{
	struct stress *st = arg;
	char path[128];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", st->fd);
	while (vm_now_ns() < st->end) {
		read_file(path);
		read_file("/sys/class/drm/renderD128/device/vram_used");
		read_file("/sys/class/drm/renderD128/device/busy_ns");
		st->ops[3]++;
	}
	return NULL;
}

static int t_stress(const char *sec)
{
	void *(*fns[4])(void *) = {
		stress_jobs, stress_buffers, stress_compact, stress_observe,
	};
	uint64_t baseline = vram_used();
	struct stress st;
	pthread_t th[4];
	int i;

	memset(&st, 0, sizeof(st));
	st.fd = vm_open();
	if (st.fd < 0)
		return 1;
	st.end = vm_deadline(strtoull(sec, NULL, 0) * 1000);
	for (i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, fns[i], &st))
			return 1;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	tap_ok(st.errors == 0 && st.ops[0] && st.ops[1] && st.ops[2] &&
	       st.ops[3], "%llu jobs, %llu buffers, %llu compactions, %llu "
	       "observations concurrently, %d errors",
	       (unsigned long long)st.ops[0], (unsigned long long)st.ops[1],
	       (unsigned long long)st.ops[2], (unsigned long long)st.ops[3],
	       st.errors);
	close(st.fd);
	tap_ok(vram_returns_to(baseline, 30000), "VRAM back after the stress");
	return tap_failures() != 0;
}

enum { RACE_BUFS = 16, RACE_WORDS = 16384, RACE_ROUNDS = 8 };

struct race {
	uint32_t *map[RACE_BUFS];
	uint32_t *shadow[RACE_BUFS];
	volatile int stop;
	uint64_t writes;
};

/*
 * Sweeps ever new values over the last buffer (the one every compaction
 * of a round moves, last), remembering them in a shadow.
 */
static void *race_writer(void *arg)
{
	struct race *r = arg;
	uint32_t *map = r->map[RACE_BUFS - 1];
	uint32_t *shadow = r->shadow[RACE_BUFS - 1];
	uint32_t v = 1;
	unsigned int w = 0;

	while (!r->stop) {
		map[w] = v;
		shadow[w] = v++;
		w = (w + 1) % RACE_WORDS;
	}
	r->writes += v - 1;
	return NULL;
}

/*
 * One round: [F0][M0][F1][M1]...[F15][M15]; closing F_i and compacting
 * moves every M_j with j >= i, so the buffers move 136 times while the
 * writer thread keeps writing through their mappings. Returns lost writes.
 */
static int race_round(int fd, struct race *r, uint64_t *moved)
{
	uint32_t fill[RACE_BUFS], bufs[RACE_BUFS];
	uint64_t bytes = RACE_WORDS * 4;
	pthread_t th;
	int i, b, lost = 0;

	for (i = 0; i < RACE_BUFS; i++) {
		if (vm_bo_create(fd, bytes, &fill[i]) ||
		    vm_bo_create(fd, bytes, &bufs[i]) ||
		    !(r->map[i] = vm_bo_map(fd, bufs[i], bytes)))
			return -1;
		memset(r->shadow[i], 0, bytes);
	}
	r->stop = 0;
	if (pthread_create(&th, NULL, race_writer, r))
		return -1;
	usleep(5000);
	for (i = 0; i < RACE_BUFS; i++) {
		struct drm_npu_compact c;

		vm_bo_close(fd, fill[i]);
		memset(&c, 0, sizeof(c));
		if (!vm_ioctl(fd, DRM_IOCTL_NPU_COMPACT, &c))
			*moved += c.bytes_moved;
	}
	r->stop = 1;
	pthread_join(th, NULL);
	for (b = 0; b < RACE_BUFS; b++) {
		for (i = 0; i < RACE_WORDS; i++)
			if (r->map[b][i] != r->shadow[b][i])
				lost++;
		munmap(r->map[b], bytes);
		vm_bo_close(fd, bufs[b]);
	}
	return lost;
}

static int t_compact_race(void)
{
	uint64_t moved = 0;
	struct race r;
	int fd = vm_open(), i, lost = 0, n;

	if (fd < 0)
		return 1;
	memset(&r, 0, sizeof(r));
	for (i = 0; i < RACE_BUFS; i++)
		if (!(r.shadow[i] = calloc(RACE_WORDS, 4)))
			return 1;
	for (i = 0; i < RACE_ROUNDS; i++) {
		n = race_round(fd, &r, &moved);
		if (n < 0) {
			tap_ok(false, "set up round %d", i);
			return 1;
		}
		lost += n;
	}
	tap_ok(moved >= RACE_ROUNDS * 136ull * RACE_WORDS * 4,
	       "compaction moved mapped buffers %d times (%llu bytes)",
	       RACE_ROUNDS * 136, (unsigned long long)moved);
	tap_ok(r.writes > 0 && lost == 0,
	       "%llu writes through the mappings meanwhile, %d lost",
	       (unsigned long long)r.writes, lost);
	for (i = 0; i < RACE_BUFS; i++)
		free(r.shadow[i]);
	close(fd);
	return tap_failures() != 0;
}

/* Holds a mapped buffer until stdin reaches EOF (for rmmod/npu-smi tests). */
static int t_hold(const char *mb)
{
	uint64_t bytes = strtoull(mb, NULL, 0) * MIB;
	int fd = vm_open();
	uint32_t h;
	char buf[16];
	uint8_t *p;

	if (fd < 0 || vm_bo_create(fd, bytes, &h) || !(p = vm_bo_map(fd, h, bytes)))
		return 1;
	memset(p, 1, bytes);
	printf("holding %llu bytes\n", (unsigned long long)bytes);
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "basic"))
		return t_basic();
	if (!strcmp(argv[1], "isolation"))
		return t_isolation();
	if (!strcmp(argv[1], "kill"))
		return t_kill();
	if (!strcmp(argv[1], "watchdog"))
		return t_watchdog();
	if (!strcmp(argv[1], "fdinfo"))
		return t_fdinfo();
	if (!strcmp(argv[1], "compact"))
		return t_compact();
	if (!strcmp(argv[1], "stress") && argc == 3)
		return t_stress(argv[2]);
	if (!strcmp(argv[1], "fuzz") && argc == 3)
		return t_fuzz(argv[2]);
	if (!strcmp(argv[1], "mmap"))
		return t_mmap();
	if (!strcmp(argv[1], "compact-race"))
		return t_compact_race();
	if (!strcmp(argv[1], "hangkill"))
		return t_hangkill(argc < 3 || strcmp(argv[2], "nowait"));
	if (!strcmp(argv[1], "syncobj"))
		return t_syncobj();
	if (!strcmp(argv[1], "testmode"))
		return t_testmode();
	if (!strcmp(argv[1], "busy") && argc == 3)
		return t_busy(argv[2]);
	if (!strcmp(argv[1], "hold") && argc == 3)
		return t_hold(argv[2]);
usage:
	fprintf(stderr, "usage: npu_vmtest basic|isolation|kill|hangkill [nowait]|watchdog|fdinfo|compact|mmap|fuzz N|stress SEC|compact-race|syncobj|testmode|busy SEC|hold MB\n");
	return 2;
}
