// SPDX-License-Identifier: MIT
/*
 * npu_test_util.c - TAP output and device helpers of the uapi selftests.
 */
#include "npu_test.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

struct tdev T;
static int tap_n, tap_fail, tap_skipped;

static void tap_line(bool ok, const char *directive, const char *fmt,
		     va_list ap)
{
	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	vprintf(fmt, ap);
	if (directive)
		printf(" # %s", directive);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_fail++;
}

void tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(ok, NULL, fmt, ap);
	va_end(ap);
}

void tap_skip(const char *why, const char *fmt, ...)
{
	char d[256];
	va_list ap;

	snprintf(d, sizeof(d), "SKIP %s", why);
	tap_skipped++;
	va_start(ap, fmt);
	tap_line(true, d, fmt, ap);
	va_end(ap);
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

void tap_err(int got, int want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(got == want, NULL, fmt, ap);
	va_end(ap);
	if (got != want)
		tap_diag("  got %d (%s), expected %d (%s)", got,
			 got ? strerror(-got) : "success", want,
			 want ? strerror(-want) : "success");
}

int tap_count(void)
{
	return tap_n;
}

int tap_failures(void)
{
	return tap_fail;
}

int tap_skips(void)
{
	return tap_skipped;
}

int t_ioctl(struct npu_dev *d, unsigned long req, void *arg)
{
	return npu_dev_ioctl(d, req, arg);
}

int t_open_again(struct npu_dev **out)
{
	return npu_dev_open(T.spec, out);
}

uint64_t t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int64_t t_in_ms(uint64_t ms)
{
	return (int64_t)(t_now() + ms * 1000000ull);
}

int64_t t_past(void)
{
	return 1;	/* 1 ns after boot: always in the past */
}

void *t_bad_ptr(void)
{
	static void *bad;
	char a = 1, b = 0;
	struct iovec l = { &b, 1 }, r = { &a, 1 };

	/* in-process, EFAULT relies on process_vm_readv (seccomp may deny) */
	if (!npu_dev_is_kernel(T.d) &&
	    process_vm_readv(getpid(), &l, 1, &r, 1, 0) != 1)
		return NULL;
	if (!bad) {
		bad = mmap(NULL, 1 << 20, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (bad == MAP_FAILED)
			bad = NULL;
	}
	return bad;
}

uint32_t t_bo(struct npu_dev *d, uint64_t size)
{
	struct drm_npu_bo_create c = { .size = size };
	int err = t_ioctl(d, DRM_IOCTL_NPU_BO_CREATE, &c);

	if (err) {
		tap_diag("BO_CREATE of %llu bytes failed: %s",
			 (unsigned long long)size, strerror(-err));
		return 0;
	}
	return c.handle;
}

void *t_map(struct npu_dev *d, uint32_t handle, uint64_t size)
{
	struct drm_npu_bo_mmap_offset m = { .handle = handle };
	void *p;
	int err = t_ioctl(d, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &m);

	if (err) {
		tap_diag("BO_MMAP_OFFSET failed: %s", strerror(-err));
		return NULL;
	}
	p = npu_dev_mmap(d, m.offset, size);
	if (!p)
		tap_diag("mmap of a buffer failed: %s", strerror(errno));
	return p;
}

void t_unmap(struct npu_dev *d, void *p, uint64_t size)
{
	if (p)
		npu_dev_munmap(d, p, size);
}

void t_close_bo(struct npu_dev *d, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	if (handle)
		t_ioctl(d, DRM_IOCTL_GEM_CLOSE, &c);
}

uint32_t t_queue(struct npu_dev *d, uint32_t priority)
{
	struct drm_npu_queue_create c = { .priority = priority };
	int err = t_ioctl(d, DRM_IOCTL_NPU_QUEUE_CREATE, &c);

	if (err) {
		tap_diag("QUEUE_CREATE failed: %s", strerror(-err));
		return 0;
	}
	return c.handle;
}

void t_queue_destroy(struct npu_dev *d, uint32_t handle)
{
	struct drm_npu_queue_destroy c = { .handle = handle };

	if (handle)
		t_ioctl(d, DRM_IOCTL_NPU_QUEUE_DESTROY, &c);
}

uint32_t t_sem(struct npu_dev *d, uint64_t initial)
{
	struct drm_npu_sem_create c = { .initial_value = initial };
	int err = t_ioctl(d, DRM_IOCTL_NPU_SEM_CREATE, &c);

	if (err) {
		tap_diag("SEM_CREATE failed: %s", strerror(-err));
		return 0;
	}
	return c.handle;
}

void t_sem_destroy(struct npu_dev *d, uint32_t handle)
{
	struct drm_npu_sem_destroy c = { .handle = handle };

	if (handle)
		t_ioctl(d, DRM_IOCTL_NPU_SEM_DESTROY, &c);
}

void t_prog_destroy(struct npu_dev *d, uint32_t handle)
{
	struct drm_npu_program_destroy c = { .handle = handle };

	if (handle)
		t_ioctl(d, DRM_IOCTL_NPU_PROGRAM_DESTROY, &c);
}

int t_prog(struct npu_dev *d, const struct drm_npu_task *tasks, uint32_t n,
	   uint32_t *handle)
{
	struct drm_npu_program_create c = {
		.tasks_ptr = (uintptr_t)tasks,
		.num_tasks = n,
		.task_size = sizeof(struct drm_npu_task),
	};
	int err = t_ioctl(d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c);

	if (!err)
		*handle = c.handle;
	else
		tap_diag("PROGRAM_CREATE: %s (task %d operand %d)",
			 strerror(-err), (int)c.error_task,
			 (int)c.error_operand);
	return err;
}

int t_submit(struct npu_dev *d, uint32_t queue, uint32_t prog,
	     const uint32_t *bos, uint32_t num_bos, uint64_t *fence)
{
	struct drm_npu_submit s = {
		.queue = queue,
		.program = prog,
		.bos_ptr = (uintptr_t)bos,
		.num_bos = num_bos,
	};
	int err = t_ioctl(d, DRM_IOCTL_NPU_SUBMIT, &s);

	if (!err && fence)
		*fence = s.fence;
	return err;
}

int t_wait(struct npu_dev *d, uint32_t queue, uint64_t fence, uint64_t ms)
{
	struct drm_npu_wait_fence w = {
		.queue = queue,
		.fence = fence,
		.timeout_ns = t_in_ms(ms),
	};

	return t_ioctl(d, DRM_IOCTL_NPU_WAIT_FENCE, &w);
}

int t_control(const char *knob, uint64_t val)
{
	return npu_dev_test_control(T.d, knob, val);
}

int t_run_program(struct npu_dev *d, uint32_t queue, uint32_t prog,
		  const uint64_t *need, uint32_t nslots, uint64_t ms,
		  void (*fill)(void *p, uint64_t size, uint32_t slot,
			       void *arg),
		  void *arg)
{
	uint32_t bos[DRM_NPU_MAX_SLOTS] = { 0 }, i;
	uint64_t fence;
	int err = 0;

	if (nslots > DRM_NPU_MAX_SLOTS)
		return -EINVAL;
	for (i = 0; i < nslots && !err; i++) {
		uint64_t size = need[i] ? need[i] : 4096;
		void *p;

		bos[i] = t_bo(d, size);
		if (!bos[i]) {
			err = -ENOMEM;
			break;
		}
		if (!fill)
			continue;
		size = (size + 4095) & ~4095ull;
		p = t_map(d, bos[i], size);
		if (!p) {
			err = -ENOMEM;
			break;
		}
		fill(p, size, i, arg);
		t_unmap(d, p, size);
	}
	if (!err)
		err = t_submit(d, queue, prog, bos, nslots, &fence);
	if (!err)
		err = t_wait(d, queue, fence, ms);
	for (i = 0; i < nslots; i++)
		t_close_bo(d, bos[i]);
	return err;
}

void t_query(struct npu_dev *d, uint32_t queue, struct drm_npu_queue_query *q)
{
	memset(q, 0, sizeof(*q));
	q->handle = queue;
	if (t_ioctl(d, DRM_IOCTL_NPU_QUEUE_QUERY, q))
		tap_diag("QUEUE_QUERY failed");
}

struct drm_npu_operand t_opnd(uint16_t slot, uint64_t offset, uint8_t dtype,
			      uint32_t rank, const uint32_t *shape)
{
	struct drm_npu_operand o;
	uint32_t stride = 1;
	int i;

	memset(&o, 0, sizeof(o));
	o.slot = slot;
	o.offset = offset;
	o.dtype = dtype;
	o.rank = (uint8_t)rank;
	for (i = (int)rank - 1; i >= 0; i--) {
		o.shape[i] = shape[i];
		o.strides[i] = stride;
		stride *= shape[i];
	}
	return o;
}

struct drm_npu_task t_copy(uint16_t src_slot, uint64_t src_off,
			   uint16_t dst_slot, uint64_t dst_off, uint32_t n)
{
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_COPY;
	t.num_operands = 2;
	t.operands[0] = t_opnd(src_slot, src_off, DRM_NPU_DTYPE_F32, 1, &n);
	t.operands[1] = t_opnd(dst_slot, dst_off, DRM_NPU_DTYPE_F32, 1, &n);
	return t;
}

struct drm_npu_task t_sem_task(uint16_t opcode, uint32_t index,
			       uint64_t value)
{
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = opcode;
	t.params.sem.index = index;
	t.params.sem.value = value;
	return t;
}

bool t_cbuf_new(struct t_cbuf *b, uint64_t bytes)
{
	b->size = (bytes + 4095) & ~4095ull;
	b->bo = t_bo(T.d, b->size);
	b->p = b->bo ? t_map(T.d, b->bo, b->size) : NULL;
	if (b->p)
		memset(b->p, 0x5a, b->size);
	return b->p != NULL;
}

void t_cbufs_free(struct t_cbuf *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (b[i].bo) {
			t_unmap(T.d, b[i].p, b[i].size);
			t_close_bo(T.d, b[i].bo);
		}
}

int t_run_tasks(const struct drm_npu_task *t, uint32_t n,
		struct t_cbuf *bufs, uint32_t nb)
{
	uint32_t q = t_queue(T.d, 0), prog, bos[DRM_NPU_MAX_OPERANDS];
	uint64_t fence;
	int err;

	for (uint32_t i = 0; i < nb; i++)
		bos[i] = bufs[i].bo;
	err = t_prog(T.d, t, n, &prog);
	if (!err) {
		err = t_submit(T.d, q, prog, bos, nb, &fence);
		if (!err)
			err = t_wait(T.d, q, fence, 60000);
		t_prog_destroy(T.d, prog);
	}
	t_queue_destroy(T.d, q);
	return err;
}
