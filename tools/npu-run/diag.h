/* SPDX-License-Identifier: MIT */
/*
 * diag.h - npu-run's diagnosis modes: --dump, --check-overflow and
 * --profile-summary (Documentation/diagnosis.rst).
 */
#ifndef NPU_RUN_DIAG_H
#define NPU_RUN_DIAG_H

#include <stdint.h>
#include <stdio.h>

#include "npurt.h"

#define DIAG_MAX_FILTERS	64

struct diag_opts {
	const char *dump_dir;		/* --dump DIR */
	const char *filters[DIAG_MAX_FILTERS];	/* --dump-filter SPEC */
	int num_filters;
	int check_overflow;		/* --check-overflow */
	long profile_top;		/* --profile-summary[=N]; 0: off */
	const char *profile_json;	/* --profile-summary-json FILE */
	const char *bisect_ref;		/* --bisect REF.onnx */
	double cos_min, ratio_max;	/* --cos-min, --ratio-max (bisect) */
	/* internal (bisect.c): which tensors to dump, print nothing */
	int (*select)(void *arg, const npurt_dump_tensor *t);
	void *select_arg;
	int quiet;
};

/* Checks the filter syntax ("node=GLOB", "op=TYPE", "tensor=GLOB",
 * "task=A-B"); 0 or -1 with a message on stderr. */
int diag_check_filter(const char *spec);
/* Whether any dump mode is on. */
int diag_dumping(const struct diag_opts *d);
/* Arms the dump of the next execution; 0 or an npu-run exit status. */
int diag_dump_begin(npurt_model *m, const struct diag_opts *d,
		    const char *model_path);
/*
 * After that execution: disarms, writes the index, prints the summary.
 * Returns 0, or 1 when --check-overflow found a non-finite tensor.
 */
int diag_dump_end(npurt_model *m, const struct diag_opts *d);

/*
 * Per op type and per node: time, count, share of the device time and,
 * with the model's .om (@om, variant @variant; NULL for a model compiled
 * online), the FLOPs and bytes of its tasks as GFLOP/s and GB/s.
 */
struct om_model;
void diag_profile_summary(const npurt_task_record *r, const long *iter,
			  size_t n, long first_iter, const struct diag_opts *d,
			  const struct om_model *om, uint32_t variant,
			  FILE *out);

/*
 * --bisect REF.onnx (bisect.c): with the inputs on the device (@bin, host
 * copies in @hin), find the first ONNX tensor of @m's execution (in data
 * flow order) that diverges from the reference interpreter on REF.onnx
 * (npu-compare), by bisection over ranges of the recorded tensors, each
 * probe an execution dumping one range. Prints the tensor, its task, op,
 * ONNX nodes and errors, and the tensor before it. Returns 0 (none
 * diverged), 1 (one did) or an npu-run exit status (2 usage, 3 runtime).
 */
int diag_bisect(npurt_model *m, const struct diag_opts *d,
		const npurt_io *bin, const npurt_io *bout, const void *const *hin,
		FILE *out);

#endif
