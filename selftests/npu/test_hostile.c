// SPDX-License-Identifier: MIT
/*
 * test_hostile.c - an unprivileged user's crafted descriptors (issue 11).
 *
 * The attacks that broke the device contract, through the real ioctls, in
 * both homes (the in-process device here, the kernel module in the VM):
 * a 32-bit C1 = ceil(C / C0) that wrapped to 0 let TRANSDATA, CONV2D and
 * BATCHNORM pair an empty NC1HWC0 operand (strides never checked) with a
 * 2^32 - 15 channel tensor, reading another file's buffer; an element
 * bound that wrapped 2^65 to 0; units too big to ever be aborted. Each is
 * refused at PROGRAM_CREATE, naming the task and the operand. POOL2D's
 * 32-bit plane count (a divide error, or writes past the buffers) and
 * MATMUL's endless column loop are valid but enormous tasks now: they end
 * as BUDGET fault records. The secret another open file keeps in VRAM
 * stays where it is throughout.
 */
#include "npu_test.h"

#include <string.h>

#define F32	DRM_NPU_DTYPE_F32
#define NC1	DRM_NPU_LAYOUT_NC1HWC0

static const uint32_t zero[DRM_NPU_MAX_RANK];

/* An operand with explicit strides (zero strides reach any shape). */
static struct drm_npu_operand view(uint16_t slot, uint8_t layout,
				   uint32_t rank, const uint32_t *shape,
				   const uint32_t *strides)
{
	struct drm_npu_operand o;

	memset(&o, 0, sizeof(o));
	o.slot = slot;
	o.dtype = F32;
	o.layout = layout;
	o.rank = (uint8_t)rank;
	memcpy(o.shape, shape, rank * sizeof(*shape));
	memcpy(o.strides, strides, rank * sizeof(*strides));
	return o;
}

static void expect_refused(const struct drm_npu_task *t, uint32_t operand,
			   const char *what)
{
	struct drm_npu_program_create c;
	int err;

	memset(&c, 0, sizeof(c));
	c.tasks_ptr = (uintptr_t)t;
	c.num_tasks = 1;
	c.task_size = sizeof(*t);
	err = t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c);
	if (!err)
		t_prog_destroy(T.d, c.handle);
	tap_ok(err == -EINVAL && c.error_task == 0 &&
	       c.error_operand == operand,
	       "hostile: %s -> EINVAL, task 0 operand %d (got %d, %d, %d)",
	       what, (int)operand, err, (int)c.error_task,
	       (int)c.error_operand);
}

/* C = 2^32 - 15: C1 = ceil(C / 16) wrapped to 0 in 32 bits. */
static void c1_wrap(void)
{
	uint32_t nchw[4] = { 1, 0xfffffff1u, 1, 1 };
	uint32_t nc1[5] = { 1, 0, 1, 1, 16 }, c[1] = { 0xfffffff1u };
	uint32_t w[4] = { 1, 0xfffffff1u, 1, 1 }, one4[4] = { 1, 1, 1, 1 };
	struct drm_npu_task t;
	int i;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_TRANSDATA;
	t.num_operands = 2;
	t.operands[0] = view(0, NC1, 5, nc1, zero);
	t.operands[1] = view(1, DRM_NPU_LAYOUT_NCHW, 4, nchw, zero);
	expect_refused(&t, 1, "TRANSDATA NC1HWC0 (C1 = 0) -> 2^32 - 15 channels");

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_CONV2D;
	t.num_operands = 3;
	t.params.conv2d.groups = 1;
	t.params.conv2d.stride_h = t.params.conv2d.stride_w = 1;
	t.params.conv2d.dilation_h = t.params.conv2d.dilation_w = 1;
	t.operands[0] = view(0, NC1, 5, nc1, zero);
	t.operands[1] = view(1, DRM_NPU_LAYOUT_ND, 4, w, zero);
	t.operands[2] = view(2, DRM_NPU_LAYOUT_NCHW, 4, one4, zero);
	expect_refused(&t, 0, "CONV2D with an NC1HWC0 input of C1 = 0");

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_BATCHNORM;
	t.num_operands = 6;
	t.operands[0] = view(0, NC1, 5, nc1, zero);
	for (i = 1; i <= 4; i++)
		t.operands[i] = view((uint16_t)i, DRM_NPU_LAYOUT_ND, 1, c, zero);
	t.operands[5] = view(5, NC1, 5, nc1, zero);
	expect_refused(&t, 0, "BATCHNORM over NC1HWC0 with C1 = 0");
}

/* 2^20 * 2^20 * 2^24 * 2 elements: the 64-bit product wrapped to 0. */
static void count_wrap(void)
{
	uint32_t s[4] = { 1u << 20, 1u << 20, 1u << 24, 2 };
	uint32_t hidden[4] = { 0, 0xffffffffu, 0xffffffffu, 0xffffffffu };
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_COPY;
	t.num_operands = 2;
	t.operands[0] = view(0, DRM_NPU_LAYOUT_ND, 4, s, zero);
	t.operands[1] = view(1, DRM_NPU_LAYOUT_ND, 4, s, zero);
	expect_refused(&t, 0, "COPY of 2^65 elements (wraps to 0)");
	t.operands[0] = view(0, DRM_NPU_LAYOUT_ND, 4, hidden, zero);
	t.operands[1] = view(1, DRM_NPU_LAYOUT_ND, 4, hidden, zero);
	expect_refused(&t, 0, "COPY whose zero dim hides a 2^96 product");
}

/* A unit that cannot be split and could never be aborted in time. */
static void unit_cap(void)
{
	uint32_t row[2] = { 1, 1u << 30 };
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_SOFTMAX;
	t.num_operands = 2;
	t.params.softmax.axis = 1;
	t.operands[0] = view(0, DRM_NPU_LAYOUT_ND, 2, row, zero);
	t.operands[1] = view(1, DRM_NPU_LAYOUT_ND, 2, row, zero);
	expect_refused(&t, ~0u, "SOFTMAX over 2^30 elements (unit cost)");
}

/*
 * Submit @t (its @n operands on slots 0..n-1, 4 KiB buffers each: zero
 * strides make the shapes as large as the attack wants) under a 300 ms
 * job budget. These tasks are valid but enormous: the job must end as a
 * BUDGET fault record within about the budget, not as a divide error, a
 * write past the buffers or a core that never comes back.
 */
static void over_budget(const struct drm_npu_task *t, uint32_t n,
			const char *what)
{
	uint64_t old = T.info.job_budget_ms, fence = 0, t0, ms;
	struct drm_npu_queue_query qq;
	uint32_t bos[DRM_NPU_MAX_OPERANDS] = { 0 }, q, prog = 0, i;
	int err;

	if (t_control("job_budget_ms", 300)) {
		tap_ok(false, "hostile: %s: knob job_budget_ms", what);
		return;
	}
	q = t_queue(T.d, 0);
	for (i = 0; i < n; i++)
		bos[i] = t_bo(T.d, 4096);
	t0 = t_now();
	err = t_prog(T.d, t, 1, &prog);
	if (!err)
		err = t_submit(T.d, q, prog, bos, n, &fence);
	if (!err)
		err = t_wait(T.d, q, fence, 20000);
	ms = (t_now() - t0) / 1000000;
	memset(&qq, 0, sizeof(qq));
	t_query(T.d, q, &qq);
	tap_ok(err == -EIO && qq.fault_reason == DRM_NPU_FAULT_BUDGET &&
	       ms < 3000,
	       "hostile: %s: a BUDGET fault after %llu ms (budget 300, got %d, reason %u)",
	       what, (unsigned long long)ms, err, qq.fault_reason);
	if (prog)
		t_prog_destroy(T.d, prog);
	for (i = 0; i < n; i++)
		if (bos[i])
			t_close_bo(T.d, bos[i]);
	t_queue_destroy(T.d, q);
	t_control("job_budget_ms", old);
}

/*
 * POOL2D over NC1HWC0 with C1 * C0 = 2^32 + 16 planes: in 32 bits the
 * count was 16, the image index ran past N = 1 through a batch stride the
 * extent never counted, and the kernel wrote into other buffers, then past
 * VRAM. With C1 * C0 = 2^32 it was 0: a divide error.
 */
static void pool_planes(void)
{
	uint32_t shape[5] = { 1, (1u << 28) + 1, 1, 1, 16 };
	uint32_t st[5] = { 1u << 30, 0, 0, 0, 0 };
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_POOL2D;
	t.num_operands = 2;
	t.params.pool2d.kind = DRM_NPU_POOL_GLOBAL_MAX;
	t.operands[0] = view(0, NC1, 5, shape, st);
	t.operands[1] = view(1, NC1, 5, shape, st);
	over_budget(&t, 2, "POOL2D with 2^32 + 16 NC1HWC0 planes, N = 1");
	shape[1] = 1u << 28;
	t.operands[0] = view(0, NC1, 5, shape, st);
	t.operands[1] = view(1, NC1, 5, shape, st);
	over_budget(&t, 2, "POOL2D with 2^32 NC1HWC0 planes");
}

/* MATMUL with N = 2^32 - 7 columns: the u32 column loop never ended. */
static void matmul_wide(void)
{
	uint32_t a[2] = { 1, 1 }, b[2] = { 1, 0xfffffff9u };
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_MATMUL;
	t.num_operands = 3;
	t.params.matmul.alpha = 0x3f800000u;
	t.operands[0] = view(0, DRM_NPU_LAYOUT_ND, 2, a, zero);
	t.operands[1] = view(1, DRM_NPU_LAYOUT_ND, 2, b, zero);
	t.operands[2] = view(2, DRM_NPU_LAYOUT_ND, 2, b, zero);
	over_budget(&t, 3, "MATMUL with N = 2^32 - 7");
}

/*
 * Another open of the device keeps a secret in VRAM while the attacks
 * above run: it is still there, unchanged, afterwards.
 */
void test_hostile(void)
{
	static const char secret[] = "another file's secret, 0123456789";
	struct npu_dev *victim = NULL;
	uint32_t bo = 0;
	char *p = NULL;

	if (!t_open_again(&victim)) {
		bo = t_bo(victim, 4096);
		p = bo ? t_map(victim, bo, 4096) : NULL;
		if (p)
			memcpy(p, secret, sizeof(secret));
	}
	c1_wrap();
	count_wrap();
	unit_cap();
	pool_planes();
	matmul_wide();
	tap_ok(p && !memcmp(p, secret, sizeof(secret)),
	       "hostile: another file's buffer is unchanged");
	if (p)
		t_unmap(victim, p, 4096);
	if (bo)
		t_close_bo(victim, bo);
	if (victim)
		npu_dev_close(victim);
}
