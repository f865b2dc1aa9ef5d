// SPDX-License-Identifier: MIT
/*
 * test_program.c - PROGRAM_CREATE (the validator) and PROGRAM_DESTROY.
 */
#include "npu_test.h"

#include <stdlib.h>
#include <string.h>

/* Register @n tasks; return the errno and the refused task/operand. */
static int create(const struct drm_npu_task *t, uint32_t n,
		  struct drm_npu_program_create *c)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->tasks_ptr = (uintptr_t)t;
	c->num_tasks = n;
	c->task_size = sizeof(*t);
	err = t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, c);
	if (!err)
		t_prog_destroy(T.d, c->handle);
	return err;
}

/* Expect task @task of a 2-task program (good, @bad) to be refused. */
static void refused(const struct drm_npu_task *bad, uint32_t operand,
		    const char *what)
{
	struct drm_npu_task t[2];
	struct drm_npu_program_create c;
	int err;

	t[0] = t_copy(0, 0, 1, 0, 16);
	t[1] = *bad;
	err = create(t, 2, &c);
	tap_ok(err == -EINVAL && c.error_task == 1 &&
	       c.error_operand == operand,
	       "PROGRAM_CREATE: %s -> EINVAL naming task 1 operand %d", what,
	       (int)operand);
	if (err != -EINVAL || c.error_task != 1 || c.error_operand != operand)
		tap_diag("  got %d, task %d, operand %d", err,
			 (int)c.error_task, (int)c.error_operand);
}

static void test_good(void)
{
	struct drm_npu_task t[3];
	struct drm_npu_program_create c;
	uint64_t sizes[4] = { 0, 0, 0, 7 };
	int err;

	t[0] = t_copy(0, 0, 1, 64, 16);		/* slot 1 needs 128 */
	t[1] = t_copy(1, 64, 2, 4096, 100);	/* slot 2 needs 4496 */
	t[2] = t_sem_task(DRM_NPU_OP_SEM_SIGNAL, 3, 1);
	memset(&c, 0, sizeof(c));
	c.tasks_ptr = (uintptr_t)t;
	c.num_tasks = 3;
	c.task_size = sizeof(t[0]);
	c.slot_sizes_ptr = (uintptr_t)sizes;
	c.max_slot_sizes = 4;
	err = t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c);
	tap_err(err, 0, "PROGRAM_CREATE: three tasks");
	tap_ok(!err && c.num_slots == 3 && sizes[0] == 64 &&
	       sizes[1] == 464 && sizes[2] == 4496 && sizes[3] == 7,
	       "PROGRAM_CREATE: num_slots and each slot's byte need (%llu %llu %llu)",
	       (unsigned long long)sizes[0], (unsigned long long)sizes[1],
	       (unsigned long long)sizes[2]);
	if (!err) {
		struct drm_npu_program_destroy d = { .handle = c.handle };

		d.pad = 1;
		tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_DESTROY, &d),
			-EINVAL, "PROGRAM_DESTROY: non-zero pad -> EINVAL");
		d.pad = 0;
		tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_DESTROY, &d), 0,
			"PROGRAM_DESTROY: succeeds");
		tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_DESTROY, &d),
			-ENOENT, "PROGRAM_DESTROY: twice -> ENOENT");
	}
}

static void test_struct_fields(void)
{
	struct drm_npu_task t = t_copy(0, 0, 1, 0, 4);
	struct drm_npu_program_create c;
	struct npu_dev *d2;
	int err;

	memset(&c, 0, sizeof(c));
	c.tasks_ptr = (uintptr_t)&t;
	c.num_tasks = 1;
	c.task_size = sizeof(t);
	c.flags = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c), -EINVAL,
		"PROGRAM_CREATE: unknown flag -> EINVAL");
	c.flags = 0;
	c.reserved = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c), -EINVAL,
		"PROGRAM_CREATE: non-zero reserved -> EINVAL");
	c.reserved = 0;
	c.task_size = sizeof(t) - 8;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c), -EINVAL,
		"PROGRAM_CREATE: wrong task_size -> EINVAL");
	c.task_size = sizeof(t);
	c.num_tasks = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c), -EINVAL,
		"PROGRAM_CREATE: zero tasks -> EINVAL");
	c.num_tasks = DRM_NPU_MAX_TASKS + 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c), -E2BIG,
		"PROGRAM_CREATE: more than DRM_NPU_MAX_TASKS -> E2BIG");
	c.num_tasks = 1;
	c.max_slot_sizes = 2;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c), -EINVAL,
		"PROGRAM_CREATE: max_slot_sizes without a pointer -> EINVAL");
	c.max_slot_sizes = DRM_NPU_MAX_SLOTS + 1;
	c.slot_sizes_ptr = (uintptr_t)&t;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c), -EINVAL,
		"PROGRAM_CREATE: max_slot_sizes > DRM_NPU_MAX_SLOTS -> EINVAL");
	c.max_slot_sizes = 0;
	c.slot_sizes_ptr = 0;
	if (t_bad_ptr()) {
		c.tasks_ptr = (uintptr_t)t_bad_ptr();
		tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c), -EFAULT,
			"PROGRAM_CREATE: unreadable tasks -> EFAULT");
		c.tasks_ptr = (uintptr_t)&t;
		c.slot_sizes_ptr = (uintptr_t)t_bad_ptr();
		c.max_slot_sizes = 2;
		tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c), -EFAULT,
			"PROGRAM_CREATE: unwritable slot sizes -> EFAULT");
		c.slot_sizes_ptr = 0;
		c.max_slot_sizes = 0;
	} else {
		tap_skip("no safe bad pointer", "PROGRAM_CREATE: unreadable tasks -> EFAULT");
		tap_skip("no safe bad pointer", "PROGRAM_CREATE: unwritable slot sizes -> EFAULT");
	}
	c.tasks_ptr = 0;
	err = t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c);
	tap_ok(err == -EINVAL || err == -EFAULT,
	       "PROGRAM_CREATE: NULL tasks pointer -> EINVAL/EFAULT (%d)", err);

	c.tasks_ptr = (uintptr_t)&t;
	if (t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c) == 0 &&
	    t_open_again(&d2) == 0) {
		struct drm_npu_program_destroy d = { .handle = c.handle };

		tap_err(t_ioctl(d2, DRM_IOCTL_NPU_PROGRAM_DESTROY, &d), -ENOENT,
			"PROGRAM_DESTROY: another open's handle -> ENOENT");
		npu_dev_close(d2);
		t_prog_destroy(T.d, c.handle);
	} else {
		tap_skip("setup failed", "PROGRAM_DESTROY: another open's handle");
	}
}

static void test_bad_tasks(void)
{
	struct drm_npu_task b;
	uint32_t big = 0xffffffffu;

	b = t_copy(0, 0, 1, 0, 16);
	b.opcode = DRM_NPU_OP_COUNT;
	refused(&b, ~0u, "unknown opcode");
	b = t_copy(0, 0, 1, 0, 16);
	b.flags = 1;
	refused(&b, ~0u, "task flags");
	b = t_copy(0, 0, 1, 0, 16);
	b.pad[1] = 1;
	refused(&b, ~0u, "task pad");
	b = t_copy(0, 0, 1, 0, 16);
	b.reserved = 1;
	refused(&b, ~0u, "task reserved");
	b = t_copy(0, 0, 1, 0, 16);
	b.params.raw[100] = 1;
	refused(&b, ~0u, "non-zero unused params");
	b = t_copy(0, 0, 1, 0, 16);
	b.num_operands = 7;
	refused(&b, ~0u, "7 operands");
	b = t_copy(0, 0, 1, 0, 16);
	b.operands[1].dtype = DRM_NPU_DTYPE_COUNT;
	refused(&b, 1, "unknown dtype");
	b = t_copy(0, 0, 1, 0, 16);
	b.operands[0].rank = 7;
	refused(&b, 0, "rank 7");
	b = t_copy(0, 0, 1, 0, 16);
	b.operands[1].flags = 1;
	refused(&b, 1, "operand flags");
	b = t_copy(0, 0, 1, 0, 16);
	b.operands[0].pad = 1;
	refused(&b, 0, "operand pad");
	b = t_copy(0, 0, 1, 0, 16);
	b.operands[1].shape[3] = 2;
	refused(&b, 1, "shape past rank");
	b = t_copy(0, 0, 1, 0, 16);
	b.operands[1].layout = DRM_NPU_LAYOUT_COUNT;
	refused(&b, 1, "unknown layout");
	b = t_copy(0, 0, 1, 0, 16);
	b.operands[3].slot = 1;
	refused(&b, 3, "non-zero unused operand");
	b = t_copy(0, 0, DRM_NPU_MAX_SLOTS, 0, 16);
	refused(&b, 1, "slot >= DRM_NPU_MAX_SLOTS");
	b = t_copy(0, 0, 1, 0xfffffffffffffff0ull, 16);
	refused(&b, 1, "offset + extent overflows 64 bits");
	b = t_copy(0, 0, 1, 0, big);
	b.operands[0].rank = 4;
	b.operands[1].rank = 4;
	for (int i = 0; i < 4; i++) {
		b.operands[0].shape[i] = big;
		b.operands[0].strides[i] = big;
		b.operands[1].shape[i] = big;
		b.operands[1].strides[i] = big;
	}
	refused(&b, 0, "extent of (2^32-1)^2 * 4 elements overflows");
	b = t_copy(0, 0, 1, 0, 16);
	b.operands[1].shape[0] = 15;
	refused(&b, 0, "COPY shapes do not broadcast");
	b = t_sem_task(DRM_NPU_OP_SEM_WAIT, 0, 1);
	b.num_operands = 1;
	b.operands[0] = t_copy(0, 0, 1, 0, 4).operands[0];
	refused(&b, ~0u, "SEM_WAIT with an operand");
	b = t_sem_task(DRM_NPU_OP_SEM_SIGNAL, DRM_NPU_MAX_SEM_POINTS, 1);
	refused(&b, ~0u, "SEM_SIGNAL index >= DRM_NPU_MAX_SEM_POINTS");
	b = t_sem_task(DRM_NPU_OP_SEM_SIGNAL, 0, 1);
	b.params.sem.pad = 1;
	refused(&b, ~0u, "SEM_SIGNAL pad");
}

void test_program(void)
{
	test_good();
	test_struct_fields();
	test_bad_tasks();
}
