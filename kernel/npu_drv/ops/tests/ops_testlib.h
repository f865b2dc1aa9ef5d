/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ops_testlib.h - helpers for the op kernel unit tests: TAP output, task
 * and operand builders, running a task whole or in random chunks, random
 * data and error measures. Test code only (uses libc and libm).
 */
#ifndef OPS_TESTLIB_H
#define OPS_TESTLIB_H

#include <stdarg.h>
#include <stdint.h>
#include "npu_ops.h"

/* TAP */
void tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int tap_done(void);	/* prints the plan, returns the exit status */

/* Deterministic pseudo-random numbers. */
void tl_seed(uint64_t s);
uint64_t tl_rand(void);
float tl_uniform(float lo, float hi);
void tl_fill(float *p, size_t n, float lo, float hi);

/* Operand: dense row-major strides when @strides is NULL. */
void tl_opnd(struct drm_npu_operand *o, u16 slot, u32 dtype, u32 rank,
	     const u32 *shape, const u32 *strides);
void tl_task(struct drm_npu_task *t, u32 opcode, u32 num_operands);
u64 tl_numel(const struct drm_npu_operand *o);

/* Check, then run units in one go: returns npu_op_check's or run's value. */
int tl_run(const struct drm_npu_task *t, void **data);
/* enum npu_isa level tl_run() and tl_run_chunked() ask for (0: auto). */
extern u32 tl_isa;
/*
 * Run in random chunks of 1..7 units (after a successful check), every
 * other chunk without the unified buffer; every other call starts with it,
 * so that a task of one chunk runs both ways over a test's calls.
 */
int tl_run_chunked(const struct drm_npu_task *t, void **data);

/* Largest |got - ref| / max(|ref|, floor) over n values. */
double tl_max_rel(const float *got, const double *ref, size_t n,
		  double floor);

/* Root mean square of a reference: the floor for near-zero outputs. */
double tl_rms(const double *ref, size_t n);

u32 tl_f2u(float f);

#endif /* OPS_TESTLIB_H */
