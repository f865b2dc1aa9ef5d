/* SPDX-License-Identifier: MIT */
/*
 * npu_fuzz.h - the structure-aware fuzzer of PROGRAM_CREATE + SUBMIT.
 *
 * A fuzz input is not a task descriptor: it is a stream of choices that
 * npu_fuzz_decode() turns into one to three task descriptors, each built
 * from a per-opcode template (operands whose shapes fit together, so that
 * the validator accepts many of them) out of adversarial dimensions (0, 1,
 * 2^31, 2^32 - k, ...), strides (contiguous computed in 32 bits so that
 * they wrap, 0, huge), layouts (NC1HWC0 with C0 16/32 and C1 computed the
 * naive 32-bit way), dtypes and params, followed by a few raw mutations of
 * any field. The bytes left over fill the buffers.
 *
 * npu_fuzz_exec() registers the program and, when it is accepted, runs it
 * once on buffers of exactly its slots' needs, and classifies what
 * happened. The libFuzzer target (npu_fuzz_target.c) and the corpus
 * replayer (npu_fuzz_replay.c, also in the VM against the kernel module)
 * share both. Documentation/fuzzing.rst.
 */
#ifndef NPU_FUZZ_H
#define NPU_FUZZ_H

#include "../npu_test.h"

#define NPU_FUZZ_MAX_TASKS	3
/*
 * Opcode bytes from NPU_FUZZ_EXTRA_BYTE on pick the opcodes added after
 * ATTENTION, in the order of npu_fuzz_extra_ops[] (append only, so that a
 * corpus entry keeps its meaning); bytes below keep the mapping b % 19.
 */
#define NPU_FUZZ_EXTRA_BYTE	247
extern const uint8_t npu_fuzz_extra_ops[];
extern const uint32_t npu_fuzz_num_extra_ops;

/**
 * struct npu_fuzz_prog - a decoded fuzz input
 * @tasks: the task descriptors
 * @num_tasks: 1..NPU_FUZZ_MAX_TASKS
 * @fill: bytes to write into the buffers (cyclically), may be empty
 * @fill_len: their number
 */
struct npu_fuzz_prog {
	struct drm_npu_task tasks[NPU_FUZZ_MAX_TASKS];
	uint32_t num_tasks;
	const uint8_t *fill;
	size_t fill_len;
};

/**
 * npu_fuzz_decode() - turn a fuzz input into task descriptors
 * @data: the input
 * @size: its bytes (any; an exhausted input reads as zeros)
 * @p: out
 */
void npu_fuzz_decode(const uint8_t *data, size_t size,
		     struct npu_fuzz_prog *p);

/* What one input did. */
enum npu_fuzz_result {
	NPU_FUZZ_REFUSED,	/* PROGRAM_CREATE: EINVAL */
	NPU_FUZZ_TOO_BIG,	/* accepted; a slot needs more than the limit */
	NPU_FUZZ_RAN,		/* accepted, ran to completion */
	NPU_FUZZ_FAULTED,	/* accepted, ran to a fault record */
	NPU_FUZZ_FINDING,	/* a contract violation: see @why */
	NPU_FUZZ_RESULTS
};

/**
 * struct npu_fuzz_limits - how one input may run
 * @max_need: largest slot need (bytes) that is run; larger is TOO_BIG
 * @job_ms: a job not retired after this long is a finding
 * @max_elems: 0, or the largest element count of an operand that is run
 *             (larger is TOO_BIG): keeps a campaign off tasks that are
 *             merely huge, to look for other bugs while the cost of a
 *             work unit is unbounded
 * @budget_ms: the device's job budget set for the run (0: unknown)
 * @unit_ms: how long past @budget_ms a job may take to stop: about one
 *           work unit, as kernels check the abort flag inside long loops
 */
struct npu_fuzz_limits {
	uint64_t max_need;
	uint64_t job_ms;
	uint64_t max_elems;
	uint64_t budget_ms;
	uint64_t unit_ms;
};

/**
 * npu_fuzz_exec() - register a decoded input and run it once if accepted
 * @d: the device
 * @queue: a queue of @d
 * @p: the decoded input
 * @lim: limits
 * @why: out, a one-line description of a finding
 * @why_len: its size
 *
 * Findings: PROGRAM_CREATE or SUBMIT failing with anything but the
 * documented refusals, a fault record of reason WATCHDOG (a work unit ran
 * past the watchdog period), a BUDGET fault record more than
 * @lim->unit_ms after the job budget (a unit that does not stop when
 * aborted), a job still running after @lim->job_ms. A crash, sanitizer report or guard-page fault ends the
 * process instead.
 *
 * Return: enum npu_fuzz_result.
 */
enum npu_fuzz_result npu_fuzz_exec(struct npu_dev *d, uint32_t queue,
				   const struct npu_fuzz_prog *p,
				   const struct npu_fuzz_limits *lim,
				   char *why, size_t why_len);

/**
 * npu_fuzz_describe() - one line per task: opcode and operand shapes
 * @p: a decoded input
 * @out: where to write (NUL-terminated)
 * @len: its size
 */
void npu_fuzz_describe(const struct npu_fuzz_prog *p, char *out, size_t len);

#endif /* NPU_FUZZ_H */
