// SPDX-License-Identifier: MIT
/*
 * npu_fuzz_exec.c - register a decoded fuzz input, run it once when the
 * validator accepts it, classify the outcome (npu_fuzz.h).
 */
#include "npu_fuzz.h"

#include <stdio.h>
#include <string.h>

/* Bytes of each buffer filled from the input; the rest stays zero. */
#define FILL_MAX	(64u << 10)

static void fuzz_fill(void *ptr, uint64_t size, uint32_t slot, void *arg)
{
	const struct npu_fuzz_prog *p = arg;
	uint8_t *b = ptr;
	uint64_t i, n = size < FILL_MAX ? size : FILL_MAX;

	if (!p->fill_len)
		return;
	for (i = 0; i < n; i++)
		b[i] = p->fill[(i + slot * 7) % p->fill_len];
}

/* The queue's fault record, cleared for the next input. */
static void fuzz_fault(struct npu_dev *d, uint32_t queue,
		       struct drm_npu_queue_query *q)
{
	memset(q, 0, sizeof(*q));
	q->handle = queue;
	q->flags = DRM_NPU_QUEUE_QUERY_CLEAR_FAULT;
	if (t_ioctl(d, DRM_IOCTL_NPU_QUEUE_QUERY, q))
		q->fault_reason = ~0u;
}

/* Whether an operand of @p has more than @max elements (0: no limit). */
static int fuzz_huge(const struct npu_fuzz_prog *p, uint64_t max)
{
	uint32_t i, j, d;

	if (!max)
		return 0;
	for (i = 0; i < p->num_tasks; i++)
		for (j = 0; j < p->tasks[i].num_operands &&
			    j < DRM_NPU_MAX_OPERANDS; j++) {
			const struct drm_npu_operand *o =
				&p->tasks[i].operands[j];
			uint64_t n = 1;

			for (d = 0; d < o->rank && d < DRM_NPU_MAX_RANK; d++) {
				if (o->shape[d] && n > max / o->shape[d])
					return 1;
				n *= o->shape[d];
			}
			if (n > max)
				return 1;
		}
	return 0;
}

enum npu_fuzz_result npu_fuzz_exec(struct npu_dev *d, uint32_t queue,
				   const struct npu_fuzz_prog *p,
				   const struct npu_fuzz_limits *lim,
				   char *why, size_t why_len)
{
	struct drm_npu_program_create c;
	struct drm_npu_queue_query q;
	uint64_t need[DRM_NPU_MAX_SLOTS];
	enum npu_fuzz_result res;
	uint64_t t0, ms;
	uint32_t s;
	int err;

	why[0] = 0;
	memset(&c, 0, sizeof(c));
	memset(need, 0, sizeof(need));
	c.tasks_ptr = (uintptr_t)p->tasks;
	c.num_tasks = p->num_tasks;
	c.task_size = sizeof(p->tasks[0]);
	c.slot_sizes_ptr = (uintptr_t)need;
	c.max_slot_sizes = DRM_NPU_MAX_SLOTS;
	err = t_ioctl(d, DRM_IOCTL_NPU_PROGRAM_CREATE, &c);
	if (err == -EINVAL)
		return NPU_FUZZ_REFUSED;
	if (err) {
		snprintf(why, why_len, "PROGRAM_CREATE returned %d (%s)",
			 err, strerror(-err));
		return NPU_FUZZ_FINDING;
	}
	res = NPU_FUZZ_TOO_BIG;
	if (fuzz_huge(p, lim->max_elems))
		goto out;
	for (s = 0; s < c.num_slots; s++)
		if (need[s] > lim->max_need)
			goto out;
	t0 = t_now();
	err = t_run_program(d, queue, c.handle, need, c.num_slots,
			    lim->job_ms, fuzz_fill, (void *)p);
	ms = (t_now() - t0) / 1000000u;
	switch (err) {
	case 0:
		res = NPU_FUZZ_RAN;
		break;
	case -ENOMEM:
	case -ENOSPC:
		res = NPU_FUZZ_TOO_BIG;	/* VRAM or quota: not the input's */
		break;
	case -EIO:
		fuzz_fault(d, queue, &q);
		res = NPU_FUZZ_FAULTED;
		if (q.fault_reason == DRM_NPU_FAULT_WATCHDOG) {
			snprintf(why, why_len,
				 "task %u (opcode %u) made no progress for a watchdog period: one work unit ran past its time budget",
				 q.fault_task, p->tasks[q.fault_task %
						NPU_FUZZ_MAX_TASKS].opcode);
			res = NPU_FUZZ_FINDING;
		} else if (q.fault_reason == DRM_NPU_FAULT_BUDGET &&
			   lim->budget_ms && lim->unit_ms &&
			   ms > lim->budget_ms + lim->unit_ms) {
			snprintf(why, why_len,
				 "task %u (opcode %u) stopped %llu ms after the %llu ms job budget: a work unit does not stop when aborted",
				 q.fault_task, p->tasks[q.fault_task %
						NPU_FUZZ_MAX_TASKS].opcode,
				 (unsigned long long)(ms - lim->budget_ms),
				 (unsigned long long)lim->budget_ms);
			res = NPU_FUZZ_FINDING;
		}
		break;
	case -ETIME:
		snprintf(why, why_len,
			 "job still running after %llu ms (no fault record): the job's cost is unbounded",
			 (unsigned long long)lim->job_ms);
		res = NPU_FUZZ_FINDING;
		break;
	default:
		snprintf(why, why_len, "accepted program: submit/wait returned %d (%s)",
			 err, strerror(-err));
		res = NPU_FUZZ_FINDING;
	}
out:
	t_prog_destroy(d, c.handle);
	return res;
}
