/* SPDX-License-Identifier: MIT */
/*
 * npu_test.h - TAP output and device helpers of the uapi selftests.
 */
#ifndef NPU_TEST_H
#define NPU_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/npu_drm.h>
#include "../../libnpurt/transport/npu_transport.h"

/* ---- TAP ---- */

void tap_ok(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_skip(const char *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ok when @got == @want; otherwise names both errnos. */
void tap_err(int got, int want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tap_count(void);
int tap_failures(void);
int tap_skips(void);

/* ---- the device under test ---- */

struct tdev {
	struct npu_dev *d;
	struct drm_npu_device_info info;
	const char *spec;		/* to open it again */
	uint64_t watchdog_ms;		/* the period the suite runs with */
};

extern struct tdev T;

int t_ioctl(struct npu_dev *d, unsigned long req, void *arg);
int t_open_again(struct npu_dev **out);
uint64_t t_now(void);			/* CLOCK_MONOTONIC ns */
int64_t t_in_ms(uint64_t ms);		/* absolute timeout ms from now */
int64_t t_past(void);			/* an absolute time in the past */
/* An address that faults (PROT_NONE page), or NULL if EFAULT cannot be
 * tested safely on this device. */
void *t_bad_ptr(void);

/* Each returns 0 (and a TAP diagnostic) on failure. */
uint32_t t_bo(struct npu_dev *d, uint64_t size);
void *t_map(struct npu_dev *d, uint32_t handle, uint64_t size);
void t_unmap(struct npu_dev *d, void *p, uint64_t size);
void t_close_bo(struct npu_dev *d, uint32_t handle);
uint32_t t_queue(struct npu_dev *d, uint32_t priority);
void t_queue_destroy(struct npu_dev *d, uint32_t handle);
uint32_t t_sem(struct npu_dev *d, uint64_t initial);
void t_sem_destroy(struct npu_dev *d, uint32_t handle);
void t_prog_destroy(struct npu_dev *d, uint32_t handle);

/* Returns 0 or -errno; @handle set on success. */
int t_prog(struct npu_dev *d, const struct drm_npu_task *tasks, uint32_t n,
	   uint32_t *handle);
int t_submit(struct npu_dev *d, uint32_t queue, uint32_t prog,
	     const uint32_t *bos, uint32_t num_bos, uint64_t *fence);
int t_wait(struct npu_dev *d, uint32_t queue, uint64_t fence, uint64_t ms);
int t_control(const char *knob, uint64_t val);
/*
 * Run a registered program once on buffers of exactly its slots' needs
 * (@need[s] bytes, 4096 where 0): create them, let @fill (if not NULL)
 * write their first bytes, submit on @queue, wait up to @ms, close them.
 * Returns 0 (completed), -EIO (a fault record), -ETIME (still running)
 * or the -errno of BO_CREATE/SUBMIT.
 */
int t_run_program(struct npu_dev *d, uint32_t queue, uint32_t prog,
		  const uint64_t *need, uint32_t nslots, uint64_t ms,
		  void (*fill)(void *p, uint64_t size, uint32_t slot,
			       void *arg),
		  void *arg);
void t_query(struct npu_dev *d, uint32_t queue, struct drm_npu_queue_query *q);

/* A buffer object of at least @bytes, mapped, filled with 0x5a. */
struct t_cbuf {
	uint32_t bo;
	void *p;
	uint64_t size;
};

bool t_cbuf_new(struct t_cbuf *b, uint64_t bytes);
void t_cbufs_free(struct t_cbuf *b, uint32_t n);
/* Run @n tasks as one program on a new queue, slot i bound to bufs[i]. */
int t_run_tasks(const struct drm_npu_task *t, uint32_t n,
		struct t_cbuf *bufs, uint32_t nb);

/* A contiguous operand. */
struct drm_npu_operand t_opnd(uint16_t slot, uint64_t offset, uint8_t dtype,
			      uint32_t rank, const uint32_t *shape);
/* A 1-D f32 copy of @n elements. */
struct drm_npu_task t_copy(uint16_t src_slot, uint64_t src_off,
			   uint16_t dst_slot, uint64_t dst_off, uint32_t n);
struct drm_npu_task t_sem_task(uint16_t opcode, uint32_t index,
			       uint64_t value);

/* Test groups. */
void test_device_bo(void);
void test_program(void);
void test_queue_sem(void);
void test_submit(void);
void test_sched(void);
void test_math(void);
void test_count(void);
void test_random(void);
void test_stress(void);
void test_fuzz(void);
void test_chaos(void);
void test_peer(void);
void test_hostile(void);
void test_bounded(void);
void test_wakeup(void);

#endif /* NPU_TEST_H */
