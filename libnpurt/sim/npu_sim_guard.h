/* SPDX-License-Identifier: MIT */
/*
 * npu_sim_guard.h - the guard-page mode of the in-process device.
 *
 * With NPU_SIM_GUARD=1 in the environment when the device is created, the
 * op kernels no longer reach VRAM through the device's one linear mapping.
 * For every compute task the home builds a private view: a PROT_NONE
 * reservation in which each buffer bound to the task's operands is mapped
 * (MAP_SHARED from the VRAM memfd, so the bytes are VRAM's) between two
 * inaccessible guard regions of NPU_SIM_GUARD_MB MiB (default 1024). The
 * rest of VRAM - other buffers, free space, other files' data - is not in
 * the view at all. An access outside the task's own buffers therefore
 * faults (SIGSEGV) instead of reading or writing a neighbour silently. The
 * view is unmapped when the task ends.
 *
 * Each task has its own view, so tasks running on other AI cores at the
 * same time cannot open a window for each other. The device's own accesses
 * to VRAM (zeroing a new buffer, compaction's copies, profile records) still
 * use the linear mapping: the mode checks the op kernels and the validator
 * that admits their tasks, not the core's bookkeeping.
 *
 * When the process has no SIGSEGV handler of its own (no sanitizer), a
 * handler is installed that names the faulting view, operand buffer and
 * distance before the process dies with the default action. Under ASan the
 * sanitizer reports the fault (with the kernel's stack) instead.
 *
 * Costs a few mmap() calls per task: a test mode (the fuzzer, the uapi
 * suite's guard run), never the default.
 */
#ifndef NPU_SIM_GUARD_H
#define NPU_SIM_GUARD_H

#include "../../kernel/npu_drv/core/npu_core.h"

/**
 * struct npu_sim_guard - guard mode of one in-process device
 * @memfd: the VRAM memfd
 * @guard: bytes of each guard region (page multiple)
 */
struct npu_sim_guard {
	int memfd;
	u64 guard;
};

/**
 * npu_sim_guard_setup() - read NPU_SIM_GUARD and NPU_SIM_GUARD_MB
 * @g: filled in (memfd left to the caller)
 * @on: out, whether guard mode is on
 *
 * Return: 0, or -EINVAL for a malformed value (with a message).
 */
int npu_sim_guard_setup(struct npu_sim_guard *g, bool *on);

/**
 * npu_sim_guard_map() - npu_home_ops.task_map of guard mode
 * @g: the device's guard mode
 * @m: the task's buffers; base[] filled in
 *
 * Return: 0 or -errno (mmap failed).
 */
int npu_sim_guard_map(struct npu_sim_guard *g, struct npu_task_map *m);

/**
 * npu_sim_guard_unmap() - npu_home_ops.task_unmap of guard mode
 * @g: the device's guard mode
 * @m: what npu_sim_guard_map() set up
 */
void npu_sim_guard_unmap(struct npu_sim_guard *g, struct npu_task_map *m);

#endif /* NPU_SIM_GUARD_H */
