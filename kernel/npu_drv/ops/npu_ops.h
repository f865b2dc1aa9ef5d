/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_ops.h - the op kernels of the emulated NPU (portable core).
 *
 * The same kernels run the device's tasks (kernel module and in-process
 * device) and evaluate constants and the reference interpreter in the
 * compiler, so that all of them agree bit for bit. They carry their own math
 * (no libm) and never allocate.
 *
 * Floating point: only files under ops/ touch float types; the kernel module
 * builds them with hard-float flags and calls them between kernel_fpu_begin()
 * and kernel_fpu_end(). Nothing of type float crosses this interface.
 * npu_op_check(), npu_op_work_units() and npu_dtype_size() are integer code
 * (no vector registers even in the FPU-flagged module build) and may be
 * called outside an FPU section; npu_op_run() must be called inside one.
 *
 * Operand order, dtypes, params and semantics of every opcode, the work
 * unit of each, and the accuracy of the math: Documentation/ops.rst.
 */
#ifndef NPU_OPS_H
#define NPU_OPS_H

#include "../npu_os.h"
#include <drm/npu_drm.h>

/*
 * ISA levels of the product kernels (MATMUL, CONV2D). Results may differ
 * in the last bits between levels, never between the two homes at one
 * level. NPU_ISA_AUTO is the best level this CPU and OS support.
 */
enum npu_isa {
	NPU_ISA_AUTO = 0,
	NPU_ISA_BASELINE = 1,	/* SSE2 on x86-64, no FMA: every CPU */
	NPU_ISA_AVX2 = 2,	/* AVX2 + FMA */
	NPU_ISA_AVX512 = 3,	/* AVX-512F */
};

/**
 * struct npu_op_args - a task with its operands resolved to host memory
 * @task: the validated task descriptor
 * @data: address of element [0, ..., 0] of each operand (slot base + offset)
 * @isa: enum npu_isa, the level to run at: 0 (auto) on the device; the
 *       compiler's folding and interpreter ask for NPU_ISA_BASELINE so that
 *       a .om does not depend on the CPU it was compiled on. A level above
 *       the CPU's runs at the CPU's best.
 * @ub: the running core's unified buffer (NPU_UB_BYTES of scratch that
 *      belongs to the core, as an AI core's local buffer does), or NULL.
 *      A kernel may keep partial sums there to reuse what it loaded
 *      (CONV2D: every tile of a unit shares each block of weights); the
 *      result has the same bits with or without it.
 * @job_key: a number each job has for itself (a random number drawn when
 *           its file was opened plus the count of jobs the file submitted,
 *           so that two jobs or files draw apart and no file's draws tell
 *           another's; 0 in the compiler): RANDOM's PER_JOB draws mix it
 *           into their key.
 */
struct npu_op_args {
	const struct drm_npu_task *task;
	void *data[DRM_NPU_MAX_OPERANDS];
	u32 isa;
	void *ub;
	u64 job_key;
};

/**
 * npu_philox4x32() - Philox4x32-10 (Salmon et al., SC 2011), RANDOM's
 *                    generator
 * @key: the two key words
 * @ctr: the four counter words
 * @out: the block: four 32-bit words
 */
void npu_philox4x32(const u32 key[2], const u32 ctr[4], u32 out[4]);

/* Bytes of a core's unified buffer (struct npu_op_args.ub), 16-aligned. */
#define NPU_UB_BYTES	(128u * 1024u)

/**
 * npu_op_isa_best() - the best enum npu_isa level this CPU and OS run
 *
 * Integer code, callable outside an FPU section.
 */
u32 npu_op_isa_best(void);

/**
 * npu_op_check() - check a task's opcode, params and operand shapes
 * @task: task descriptor (operand extents are checked by the validator)
 * @bad_operand: out, operand index at fault, or ~0u when not operand related
 *
 * Return: 0, or -EINVAL when the task is malformed (unknown opcode or kind,
 * non-zero reserved bytes, shapes that do not fit together).
 */
int npu_op_check(const struct drm_npu_task *task, u32 *bad_operand);

/**
 * npu_op_check_why() - npu_op_check() that also says what was wrong
 * @task: task descriptor
 * @bad_operand: out, as for npu_op_check()
 * @why: out on failure, a static sentence naming the rule broken
 *
 * The .om loader uses it to refuse a hostile model file with the same
 * rules, and the same words, as the device.
 *
 * Return: as npu_op_check().
 */
int npu_op_check_why(const struct drm_npu_task *task, u32 *bad_operand,
		     const char **why);

/**
 * npu_operand_end() - end of the bytes an operand's view touches
 * @op: operand descriptor
 * @end: out, offset + extent, or offset for an empty view
 *
 * extent = (1 + sum((shape[i] - 1) * strides[i])) * element size, computed
 * with overflow checks: the bound of every access the kernels make.
 *
 * Return: 0, or -EINVAL when malformed or when the arithmetic overflows.
 */
int npu_operand_end(const struct drm_npu_operand *op, u64 *end);

/**
 * npu_op_work_units() - number of independent chunks a task splits into
 * @task: a task that passed npu_op_check()
 *
 * Executing units [0, n) in any chunking gives the same result bit for bit;
 * the kernel home runs a bounded chunk per FPU section and yields between.
 */
u64 npu_op_work_units(const struct drm_npu_task *task);

/**
 * npu_op_output() - index of the operand a task writes
 * @task: a task that passed npu_op_check()
 *
 * Return: the last operand, except for QUANTIZE/DEQUANTIZE (operand 1:
 * their per-channel scales and zero points follow it).
 */
u32 npu_op_output(const struct drm_npu_task *task);

/**
 * npu_op_writes() - does a task write operand @k?
 * @task: a task that passed npu_op_check()
 * @k: an operand index below task->num_operands
 *
 * Return: true for npu_op_output(), and for the further operands the
 * ops of data-dependent extent write: NONZERO's out (1), NMS's scratch,
 * out and counts (2..4), PACK_ROWS's data (1, read and written in place).
 */
bool npu_op_writes(const struct drm_npu_task *task, u32 k);

/**
 * npu_op_unit_cost() - element operations of the costliest work unit
 * @task: a task that passed npu_op_check()
 *
 * npu_op_check() refuses tasks above NPU_MAX_UNIT_COST (2^27), so one unit
 * runs for milliseconds and the scheduler can abort a job between units.
 */
u64 npu_op_unit_cost(const struct drm_npu_task *task);

/**
 * npu_op_run() - execute work units [@begin, @end) of a task
 * Return: 0, or an enum drm_npu_fault_reason (> 0) for a data-dependent
 * fault such as a gather index out of range.
 */
int npu_op_run(const struct npu_op_args *args, u64 begin, u64 end);

/* Element size in bytes of an enum drm_npu_dtype, 0 if invalid. */
u32 npu_dtype_size(u32 dtype);

/*
 * Do @a and @b view elements alike: the same dtype, layout, rank, shape
 * and strides (offsets and slots aside)? Integer code.
 */
static inline bool npu_opnd_same_view(const struct drm_npu_operand *a,
				      const struct drm_npu_operand *b)
{
	u32 i;

	if (a->dtype != b->dtype || a->layout != b->layout ||
	    a->rank != b->rank)
		return false;
	for (i = 0; i < a->rank && i < DRM_NPU_MAX_RANK; i++)
		if (a->shape[i] != b->shape[i] || a->strides[i] != b->strides[i])
			return false;
	return true;
}

#endif /* NPU_OPS_H */
