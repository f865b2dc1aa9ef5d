// SPDX-License-Identifier: MIT
/*
 * test_fuzz.c - the validator against mutated task descriptors: valid tasks
 * of several opcodes with random bytes flipped. Every descriptor must be
 * either refused with EINVAL or accepted, and an accepted one must run to
 * completion or to a fault record on buffers of exactly its slots' needs -
 * never crash the device. Deterministic (fixed seed).
 */
#include "npu_test.h"

#include <stdlib.h>
#include <string.h>

#define FUZZ_ROUNDS	20000
#define FUZZ_MAX_NEED	(1u << 20)	/* run accepted tasks up to 1 MiB/slot */
#define F32_ONE		0x3f800000u

static uint32_t fz_state = 0x9e3779b9u;

static uint32_t fz(void)
{
	fz_state ^= fz_state << 13;
	fz_state ^= fz_state >> 17;
	fz_state ^= fz_state << 5;
	return fz_state;
}

/* A few valid seeds: copy, binary add, matmul, conv2d, softmax. */
static struct drm_npu_task seed(uint32_t k)
{
	struct drm_npu_task t;
	uint32_t s2[2] = { 8, 16 }, s4[4] = { 1, 3, 8, 8 }, w4[4] = { 4, 3, 3, 3 };
	uint32_t o4[4] = { 1, 4, 6, 6 }, a2[2] = { 8, 5 }, b2[2] = { 5, 7 };
	uint32_t c2[2] = { 8, 7 };

	memset(&t, 0, sizeof(t));
	switch (k % 5) {
	case 0:
		return t_copy(0, 0, 1, 0, 128);
	case 1:
		t.opcode = DRM_NPU_OP_BINARY;
		t.num_operands = 3;
		t.operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, 2, s2);
		t.operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_F32, 2, s2);
		t.operands[2] = t_opnd(2, 0, DRM_NPU_DTYPE_F32, 2, s2);
		return t;
	case 2:
		t.opcode = DRM_NPU_OP_MATMUL;
		t.num_operands = 3;
		t.params.matmul.alpha = F32_ONE;
		t.operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, 2, a2);
		t.operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_F32, 2, b2);
		t.operands[2] = t_opnd(2, 0, DRM_NPU_DTYPE_F32, 2, c2);
		return t;
	case 3:
		t.opcode = DRM_NPU_OP_CONV2D;
		t.num_operands = 3;
		t.params.conv2d.groups = 1;
		t.params.conv2d.stride_h = t.params.conv2d.stride_w = 1;
		t.params.conv2d.dilation_h = t.params.conv2d.dilation_w = 1;
		t.operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, 4, s4);
		t.operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_F32, 4, w4);
		t.operands[2] = t_opnd(2, 0, DRM_NPU_DTYPE_F32, 4, o4);
		return t;
	default:
		t.opcode = DRM_NPU_OP_SOFTMAX;
		t.num_operands = 2;
		t.params.softmax.axis = 1;
		t.operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, 2, s2);
		t.operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_F32, 2, s2);
		return t;
	}
}

/* Flip a few bytes, mostly in the fields that matter. */
static void mutate(struct drm_npu_task *t)
{
	uint8_t *b = (uint8_t *)t;
	uint32_t n = 1 + fz() % 3, i;

	for (i = 0; i < n; i++) {
		uint32_t r = fz();
		size_t at;

		switch (r % 4) {
		case 0:		/* anywhere */
			at = fz() % sizeof(*t);
			break;
		case 1:		/* params */
			at = offsetof(struct drm_npu_task, params) +
			     fz() % 32;
			break;
		default:	/* shapes, strides, dtype, rank, offset */
			at = offsetof(struct drm_npu_task, operands) +
			     (fz() % 3) * sizeof(struct drm_npu_operand) +
			     fz() % sizeof(struct drm_npu_operand);
			break;
		}
		b[at] = (r >> 8) & 1 ? (uint8_t)(r >> 16) : b[at] ^ (uint8_t)(1u << ((r >> 16) % 8));
	}
}

void test_fuzz(void)
{
	struct drm_npu_program_create c;
	struct drm_npu_task t;
	uint64_t need[DRM_NPU_MAX_SLOTS];
	uint32_t q = t_queue(T.d, 0), i, accepted = 0, ran = 0, faulted = 0;
	uint32_t refused = 0, bad = 0;
	int err;

	for (i = 0; i < FUZZ_ROUNDS; i++) {
		uint32_t s;
		bool small = true;

		t = seed(i);
		mutate(&t);
		memset(&c, 0, sizeof(c));
		c.tasks_ptr = (uintptr_t)&t;
		c.num_tasks = 1;
		c.task_size = sizeof(t);
		c.slot_sizes_ptr = (uintptr_t)need;
		c.max_slot_sizes = DRM_NPU_MAX_SLOTS;
		err = t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c);
		if (err == -EINVAL) {
			refused++;
			continue;
		}
		if (err) {
			bad++;
			tap_diag("round %u: PROGRAM_CREATE returned %d", i, err);
			continue;
		}
		accepted++;
		for (s = 0; s < c.num_slots; s++)
			small &= need[s] <= FUZZ_MAX_NEED;
		if (small && c.num_slots <= DRM_NPU_MAX_OPERANDS) {
			err = t_run_program(T.d, q, c.handle, need,
					    c.num_slots, 60000, NULL, NULL);
			if (err == 0)
				ran++;
			else if (err == -EIO)
				faulted++;
			else {
				bad++;
				tap_diag("round %u: accepted task (opcode %u) submit/wait returned %d",
					 i, t.opcode, err);
			}
		}
		t_prog_destroy(T.d, c.handle);
	}
	tap_diag("fuzz: %u refused, %u accepted, %u of them ran, %u faulted",
		 refused, accepted, ran, faulted);
	tap_ok(bad == 0 && refused > 0 && accepted > 0,
	       "fuzz: %u mutated descriptors refused with EINVAL or run safely",
	       FUZZ_ROUNDS);
	t_queue_destroy(T.d, q);
}
