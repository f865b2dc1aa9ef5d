// SPDX-License-Identifier: MIT
/*
 * npu_sim.c - the in-process home of the device core: VRAM in a memfd,
 * buffer mappings that follow compaction, the ioctl entry with drm_ioctl()'s
 * struct-size rules, and the device's lifetime (see npu_sim.h).
 */
#include "npu_sim.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../../kernel/npu_drv/core/npu_core.h"
#include "npu_sim_guard.h"

#define NPU_SIM_CORES_MAX_DEFAULT	4
/* How long an idle core polls before it sleeps (npu_device_params) */
#define NPU_SIM_PARK_SPIN_US		50u

struct npu_sim_map {
	struct npu_sim_map *next;
	void *addr;
	size_t len;
	u64 bo_off;			/* offset of the mapping in the BO */
	struct npu_bo *bo;		/* a reference */
};

/*
 * PRIME in-process: an exported buffer is a small memfd whose inode names
 * the buffer's core mmap offset (offsets are never reused). Import finds
 * the buffer by that offset, so a stale fd finds nothing (ENOENT) instead
 * of a freed buffer. The fd does not keep the buffer alive: a handle or a
 * mapping must (the kernel's dma-buf would).
 */
struct npu_sim_prime {
	struct npu_sim_prime *next;
	dev_t st_dev;
	ino_t st_ino;
	u64 mmap_offset;
};

struct npu_sim_dev {
	unsigned int index;		/* NPU_SIM_DEVICES: 0..N-1 */
	struct npu_sim_prime *primes;	/* prime_lock */
	pthread_mutex_t prime_lock;
	int memfd;
	void *vram;
	u64 vram_size;
	struct npu_device *core;
	unsigned int opens;
	pthread_mutex_t map_lock;	/* maps; inside the core's pool_lock */
	struct npu_sim_map *maps;
	struct npu_sim_guard guard;	/* NPU_SIM_GUARD=1: task views */
};

struct npu_sim_file {
	struct npu_file *core;
	struct npu_sim_dev *sd;
};

/*
 * The devices of this process: all NPU_SIM_DEVICES of them are created by
 * the first open of any and destroyed by the last close of any, so that a
 * buffer one device imported from another (peer access) never outlives
 * its owner's VRAM.
 */
static pthread_mutex_t npu_sim_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npu_sim_dev *npu_sims[NPU_SIM_MAX_DEVICES];
static unsigned int npu_sim_count;	/* devices created */
static unsigned int npu_sim_opens;	/* files open, all devices */

/*
 * "User" memory is this process's own. A bad pointer must give EFAULT as in
 * the kernel, not a crash inside the device: process_vm_readv/writev on
 * ourselves checks the range. Where it is not allowed (seccomp), fall back
 * to memcpy, which trusts the caller.
 */
static int sim_vm_usable = -1;	/* -1 unknown, 0 no, 1 yes */

static bool sim_vm_ok(void)
{
	if (__atomic_load_n(&sim_vm_usable, __ATOMIC_RELAXED) < 0) {
		char a = 1, b = 0;
		struct iovec l = { &b, 1 }, r = { &a, 1 };
		int ok = process_vm_readv(getpid(), &l, 1, &r, 1, 0) == 1;

		__atomic_store_n(&sim_vm_usable, ok, __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&sim_vm_usable, __ATOMIC_RELAXED) == 1;
}

static int sim_copy_from_user(void *home, void *dst, u64 uptr, size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)(uintptr_t)uptr, len };

	if (!len)
		return 0;
	if (!uptr)
		return -EFAULT;
	if (!sim_vm_ok()) {
		memcpy(dst, (const void *)(uintptr_t)uptr, len);
		return 0;
	}
	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)len ?
		0 : -EFAULT;
}

static int sim_copy_to_user(void *home, u64 uptr, const void *src, size_t len)
{
	struct iovec l = { (void *)src, len }, r = { (void *)(uintptr_t)uptr, len };

	if (!len)
		return 0;
	if (!uptr)
		return -EFAULT;
	if (!sim_vm_ok()) {
		memcpy((void *)(uintptr_t)uptr, src, len);
		return 0;
	}
	return process_vm_writev(getpid(), &l, 1, &r, 1, 0) == (ssize_t)len ?
		0 : -EFAULT;
}

/* Compaction moved @bo: re-point each of its mappings at the new place. */
static void sim_bo_moved(void *home, struct npu_bo *bo, u64 old_start)
{
	struct npu_sim_dev *sd = home;
	struct npu_sim_map *m;
	u64 start = npu_bo_vram_offset(bo);

	pthread_mutex_lock(&sd->map_lock);
	for (m = sd->maps; m; m = m->next) {
		void *p;

		if (m->bo != bo)
			continue;
		p = mmap(m->addr, m->len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, sd->memfd,
			 (off_t)(start + m->bo_off));
		if (p == MAP_FAILED)
			npu_err("sim: cannot remap a moved buffer at %p: %s\n",
				m->addr, strerror(errno));
	}
	pthread_mutex_unlock(&sd->map_lock);
}

static int sim_task_map(void *home, struct npu_task_map *m)
{
	struct npu_sim_dev *sd = home;

	return npu_sim_guard_map(&sd->guard, m);
}

static void sim_task_unmap(void *home, struct npu_task_map *m)
{
	struct npu_sim_dev *sd = home;

	npu_sim_guard_unmap(&sd->guard, m);
}

static const struct npu_home_ops npu_sim_ops = {
	.copy_from_user = sim_copy_from_user,
	.copy_to_user = sim_copy_to_user,
	.bo_moved = sim_bo_moved,
};

/* The same with a private view of its buffers per task (npu_sim_guard.h). */
static const struct npu_home_ops npu_sim_guard_ops = {
	.copy_from_user = sim_copy_from_user,
	.copy_to_user = sim_copy_to_user,
	.bo_moved = sim_bo_moved,
	.task_map = sim_task_map,
	.task_unmap = sim_task_unmap,
};

static int sim_env_u32(const char *name, u32 def, u32 min, u32 max, u32 *out)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	*out = def;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		npu_err("sim: %s=%s is not a number in [%u, %u]; unset it or fix it\n",
			name, s, min, max);
		return -EINVAL;
	}
	*out = (u32)v;
	return 0;
}

/* The CPUs this process may run on (its affinity mask). */
static u32 sim_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return NPU_SIM_CORES_MAX_DEFAULT;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : (u32)n;
}

/*
 * AI cores by default: 4, but no more than the CPUs this process may run
 * on (e.g. under taskset): core threads beyond the CPUs only take turns
 * on them, and every hand-off between them then waits for a time slice
 * (squeezenet1_1 on 2 CPUs: 7.9 ms with 4 cores, 5.7 with 2).
 */
static u32 sim_default_cores(void)
{
	u32 n = sim_cpus();

	return n < NPU_SIM_CORES_MAX_DEFAULT ? n : NPU_SIM_CORES_MAX_DEFAULT;
}

static void sim_dev_free(struct npu_sim_dev *sd)
{
	while (sd->primes) {
		struct npu_sim_prime *p = sd->primes;

		sd->primes = p->next;
		free(p);
	}
	pthread_mutex_destroy(&sd->prime_lock);
	if (sd->vram && sd->vram != MAP_FAILED)
		munmap(sd->vram, sd->vram_size);
	if (sd->memfd >= 0)
		close(sd->memfd);
	pthread_mutex_destroy(&sd->map_lock);
	free(sd);
}

static int sim_dev_create(unsigned int index, struct npu_sim_dev **out)
{
	struct npu_device_params p;
	struct npu_sim_dev *sd;
	struct npu_sim_guard guard;
	bool guarded;
	u32 vram_mb, budget_ms, corrupt_op, serve, cpus = sim_cpus();
	int err = 0;

	memset(&p, 0, sizeof(p));
	err |= sim_env_u32("NPU_SIM_VRAM_MB", 512, 1, 1u << 20, &vram_mb);
	err |= sim_env_u32("NPU_SIM_CORES", sim_default_cores(), 1, 64,
			   &p.num_cores);
	/* waiting threads run ready tasks as idle cores (npu_serve()) */
	err |= sim_env_u32("NPU_SIM_SERVE_WAITS", 1, 0, 1, &serve);
	p.serve_waits = serve;
	/*
	 * Idle cores poll before they sleep when each has a CPU to itself
	 * (with more cores than CPUs a poll would take a CPU from a core
	 * that computes).
	 */
	err |= sim_env_u32("NPU_SIM_PARK_SPIN_US",
			   p.num_cores > 1 && p.num_cores <= cpus ?
			   NPU_SIM_PARK_SPIN_US : 0,
			   0, NPU_PARK_SPIN_MAX_US, &p.park_spin_us);
	/* the op kernels' ISA level: 0 = this CPU's best, 1 = baseline */
	err |= sim_env_u32("NPU_SIM_ISA", 0, 0, 3, &p.isa);
	err |= sim_env_u32("NPU_SIM_QUEUES", 8, 1, 64, &p.num_queues);
	err |= sim_env_u32("NPU_SIM_SEMS", 256, 1, 4096, &p.num_semaphores);
	err |= sim_env_u32("NPU_SIM_WATCHDOG_MS", 2000, 10, 3600000,
			   &p.watchdog_ms);
	err |= sim_env_u32("NPU_SIM_JOB_BUDGET_MS", NPU_JOB_BUDGET_DEFAULT_MS,
			   0, NPU_JOB_BUDGET_MAX_MS, &budget_ms);
	p.job_budget_ms = budget_ms;
	/* test mode "corrupt_op" from the start (npu_core.h) */
	err |= sim_env_u32("NPU_SIM_CORRUPT_OP", 0, 0, DRM_NPU_OP_COUNT,
			   &corrupt_op);
	memset(&guard, 0, sizeof(guard));
	err |= npu_sim_guard_setup(&guard, &guarded);
	if (err)
		return -EINVAL;
	sd = calloc(1, sizeof(*sd));
	if (!sd)
		return -ENOMEM;
	sd->index = index;
	pthread_mutex_init(&sd->map_lock, NULL);
	pthread_mutex_init(&sd->prime_lock, NULL);
	sd->vram_size = (u64)vram_mb << 20;
	sd->memfd = memfd_create("npu-vram", MFD_CLOEXEC);
	if (sd->memfd < 0 || ftruncate(sd->memfd, (off_t)sd->vram_size)) {
		err = -errno;
		goto fail;
	}
	sd->vram = mmap(NULL, sd->vram_size, PROT_READ | PROT_WRITE,
			MAP_SHARED, sd->memfd, 0);
	if (sd->vram == MAP_FAILED) {
		err = -errno;
		goto fail;
	}
	p.vram = sd->vram;
	p.vram_size = sd->vram_size;
	sd->guard = guard;
	sd->guard.memfd = sd->memfd;
	p.ops = guarded ? &npu_sim_guard_ops : &npu_sim_ops;
	p.home_dev = sd;
	err = npu_core_create(&p, &sd->core);
	if (err)
		goto fail;
	if (corrupt_op)
		npu_core_test_control(sd->core, "corrupt_op", corrupt_op);
	*out = sd;
	return 0;
fail:
	sim_dev_free(sd);
	return err;
}

int npu_sim_num_devices(void)
{
	u32 n;

	if (sim_env_u32("NPU_SIM_DEVICES", 1, 1, NPU_SIM_MAX_DEVICES, &n))
		return -EINVAL;
	if (n > 1 && getenv("NPU_SIM_GUARD") &&
	    strcmp(getenv("NPU_SIM_GUARD"), "0")) {
		npu_err("sim: NPU_SIM_GUARD=1 works with one device; unset NPU_SIM_DEVICES\n");
		return -EINVAL;
	}
	return (int)n;
}

/* Last close: mappings still alive keep references; drop them first. */
static void sim_dev_destroy(struct npu_sim_dev *sd)
{
	struct npu_sim_map *m;

	pthread_mutex_lock(&sd->map_lock);
	m = sd->maps;
	sd->maps = NULL;
	pthread_mutex_unlock(&sd->map_lock);
	while (m) {
		struct npu_sim_map *next = m->next;

		munmap(m->addr, m->len);
		npu_bo_put(m->bo);
		free(m);
		m = next;
	}
	npu_core_destroy(sd->core);
	sim_dev_free(sd);
}

/*
 * Destroys every device (npu_sim_lock held, no file open). Buffers that a
 * device imported from a peer hold references across devices: every
 * device's files and mappings are gone first, then the cores, then VRAM.
 */
static void sim_destroy_all(void)
{
	unsigned int i;

	for (i = npu_sim_count; i-- > 0;) {
		sim_dev_destroy(npu_sims[i]);
		npu_sims[i] = NULL;
	}
	npu_sim_count = 0;
}

static int sim_create_all(void)
{
	int n = npu_sim_num_devices();
	int err;

	if (n < 0)
		return n;
	for (npu_sim_count = 0; npu_sim_count < (unsigned int)n;
	     npu_sim_count++) {
		err = sim_dev_create(npu_sim_count, &npu_sims[npu_sim_count]);
		if (err) {
			sim_destroy_all();
			return err;
		}
	}
	return 0;
}

int npu_sim_open(unsigned int index, struct npu_sim_file **out)
{
	struct npu_sim_file *f;
	int err = 0;

	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	pthread_mutex_lock(&npu_sim_lock);
	if (!npu_sim_opens)
		err = sim_create_all();
	if (!err && index >= npu_sim_count)
		err = -ENODEV;
	if (!err) {
		f->sd = npu_sims[index];
		err = npu_core_file_open(f->sd->core, f, &f->core);
		if (!err)
			npu_sim_opens++;
	}
	if (err && !npu_sim_opens && npu_sim_count)
		sim_destroy_all();
	pthread_mutex_unlock(&npu_sim_lock);
	if (err) {
		free(f);
		return err;
	}
	*out = f;
	return 0;
}

void npu_sim_close(struct npu_sim_file *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&npu_sim_lock);
	npu_core_file_close(f->core);
	if (--npu_sim_opens == 0)
		sim_destroy_all();
	pthread_mutex_unlock(&npu_sim_lock);
	free(f);
}

static int sim_gem_close(struct npu_sim_file *f, void *arg)
{
	struct drm_gem_close *gc = arg;

	if (gc->pad)
		return -EINVAL;
	return npu_core_gem_close(f->core, gc->handle);
}

static int sim_prime_export(struct npu_sim_file *f, void *arg)
{
	struct drm_prime_handle *ph = arg;
	struct npu_sim_dev *sd = f->sd;
	struct npu_sim_prime *p;
	struct npu_bo *bo;
	struct stat st;
	int fd;

	if (ph->flags & ~(u32)(DRM_CLOEXEC | DRM_RDWR))
		return -EINVAL;
	bo = npu_core_file_bo_lookup(f->core, ph->handle);
	if (!bo)
		return -ENOENT;
	p = calloc(1, sizeof(*p));
	fd = memfd_create("npu-prime", (ph->flags & DRM_CLOEXEC) ?
			  MFD_CLOEXEC : 0);
	if (!p || fd < 0 || fstat(fd, &st)) {
		int err = fd < 0 ? -errno : -ENOMEM;

		if (fd >= 0)
			close(fd);
		free(p);
		npu_bo_put(bo);
		return err;
	}
	p->st_dev = st.st_dev;
	p->st_ino = st.st_ino;
	p->mmap_offset = npu_bo_mmap_offset(bo);
	npu_bo_put(bo);
	pthread_mutex_lock(&sd->prime_lock);
	p->next = sd->primes;
	sd->primes = p;
	pthread_mutex_unlock(&sd->prime_lock);
	ph->fd = fd;
	return 0;
}

/*
 * Import finds the fd among the exports of every device of the process: a
 * buffer of another device (a peer) is then used by this one's tasks in
 * its owner's VRAM (npu_core_bo_peer_check(): pinned buffers only), the
 * in-process equivalent of the kernel's PRIME peer import.
 */
static int sim_prime_import(struct npu_sim_file *f, void *arg)
{
	struct drm_prime_handle *ph = arg;
	struct npu_sim_prime *p = NULL;
	struct npu_bo *bo = NULL;
	struct stat st;
	unsigned int i;
	u32 handle;
	int err;

	if (ph->flags)
		return -EINVAL;
	if (fstat(ph->fd, &st))
		return -EBADF;
	/* the devices stay while @f is open: no npu_sim_lock needed */
	for (i = 0; i < npu_sim_count && !p; i++) {
		struct npu_sim_dev *sd = npu_sims[i];

		pthread_mutex_lock(&sd->prime_lock);
		for (p = sd->primes; p; p = p->next)
			if (p->st_dev == st.st_dev && p->st_ino == st.st_ino)
				break;
		if (p)
			bo = npu_core_bo_find_mmap(sd->core, p->mmap_offset);
		pthread_mutex_unlock(&sd->prime_lock);
	}
	if (!p)
		return -EINVAL;		/* not an NPU buffer fd */
	if (!bo)
		return -ENOENT;		/* the buffer is gone */
	err = npu_core_file_bo_import(f->core, bo, &handle);
	npu_bo_put(bo);
	if (!err)
		ph->handle = handle;
	return err;
}

/* Largest uapi struct: the kernel-side copy lives on the stack. */
#define SIM_MAX_IOCTL_SIZE	256

int npu_sim_ioctl(struct npu_sim_file *f, unsigned long req, void *arg)
{
	unsigned char kbuf[SIM_MAX_IOCTL_SIZE];
	size_t usize = _IOC_SIZE(req), ksize, n;
	u32 nr = _IOC_NR(req);
	int err;

	if (_IOC_TYPE(req) != DRM_IOCTL_BASE)
		return -ENOTTY;
	if (!arg && usize)
		return -EFAULT;
	if (req == DRM_IOCTL_GEM_CLOSE)
		return sim_gem_close(f, arg);
	if (req == DRM_IOCTL_PRIME_HANDLE_TO_FD)
		return sim_prime_export(f, arg);
	if (req == DRM_IOCTL_PRIME_FD_TO_HANDLE)
		return sim_prime_import(f, arg);
	if (nr < DRM_COMMAND_BASE || nr >= DRM_COMMAND_END)
		return -EINVAL;
	ksize = npu_core_ioctl_size(nr - DRM_COMMAND_BASE);
	if (!ksize || ksize > sizeof(kbuf))
		return -EINVAL;
	/* As drm_ioctl(): copy what both sides know, zero-extend the rest. */
	n = usize < ksize ? usize : ksize;
	memset(kbuf, 0, ksize);
	if (_IOC_DIR(req) & _IOC_WRITE)
		memcpy(kbuf, arg, n);
	err = npu_core_ioctl(f->core, nr - DRM_COMMAND_BASE, kbuf);
	if (_IOC_DIR(req) & _IOC_READ)
		memcpy(arg, kbuf, n);
	return err;
}

void *npu_sim_mmap(struct npu_sim_file *f, uint64_t offset, size_t len)
{
	struct npu_sim_dev *sd = f->sd;
	struct npu_sim_map *m;
	struct npu_bo *bo;
	u64 bo_off, start;
	void *p;

	bo = npu_core_bo_find_mmap(sd->core, offset);
	if (!bo || !len || offset % 4096)
		goto inval;
	if (!npu_core_file_has_bo(f->core, bo)) {
		/* as the kernel: only files with a handle may map it */
		npu_bo_put(bo);
		errno = EACCES;
		return NULL;
	}
	bo_off = offset - npu_bo_mmap_offset(bo);
	if (len > npu_bo_size(bo) - bo_off)
		goto inval;
	m = calloc(1, sizeof(*m));
	if (!m) {
		npu_bo_put(bo);
		errno = ENOMEM;
		return NULL;
	}
	start = npu_core_bo_map_lock(bo);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, sd->memfd,
		 (off_t)(start + bo_off));
	if (p != MAP_FAILED) {
		m->addr = p;
		m->len = len;
		m->bo_off = bo_off;
		m->bo = bo;
		pthread_mutex_lock(&sd->map_lock);
		m->next = sd->maps;
		sd->maps = m;
		pthread_mutex_unlock(&sd->map_lock);
	}
	npu_core_bo_map_unlock(bo);
	if (p == MAP_FAILED) {
		int e = errno;

		free(m);
		npu_bo_put(bo);
		errno = e;
		return NULL;
	}
	return p;
inval:
	npu_bo_put(bo);
	errno = EINVAL;
	return NULL;
}

int npu_sim_munmap(struct npu_sim_file *f, void *p, size_t len)
{
	struct npu_sim_dev *sd = f->sd;
	struct npu_sim_map **pm, *m = NULL;

	pthread_mutex_lock(&sd->map_lock);
	for (pm = &sd->maps; *pm; pm = &(*pm)->next) {
		if ((*pm)->addr == p && (*pm)->len == len) {
			m = *pm;
			*pm = m->next;
			break;
		}
	}
	pthread_mutex_unlock(&sd->map_lock);
	if (!m)
		return -EINVAL;
	munmap(m->addr, m->len);
	npu_bo_put(m->bo);
	free(m);
	return 0;
}

int npu_sim_test_control(struct npu_sim_file *f, const char *knob,
			 uint64_t val)
{
	return npu_core_test_control(f->sd->core, knob, val);
}
