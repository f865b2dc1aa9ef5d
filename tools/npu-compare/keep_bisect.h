/* SPDX-License-Identifier: MIT */
/* keep_bisect.h - npu-compare --bisect: a keep-list search (keep_bisect.c). */
#ifndef NPU_COMPARE_KEEP_BISECT_H
#define NPU_COMPARE_KEEP_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#include <drm/npu_drm.h>

#define KB_DTYPE_F32	DRM_NPU_DTYPE_F32
#define KB_DTYPE_F16	DRM_NPU_DTYPE_F16

/**
 * struct kb_opts - what to search
 * @model: the ONNX model (compiled by each trial)
 * @workdir: the trials' .om, outputs, keep-list and log
 * @input_dir: the inputs, as npu-run --input-dir reads them
 * @input_shapes: npuc --input-shape, or NULL
 * @precision: npuc --precision of the compile to repair (force_fp16)
 * @target_cos: the lowest output cosine that passes
 * @keep_out: the keep-list file to write
 * @max_trials: a bound on compiles and runs
 */
struct kb_opts {
	const char *model;
	const char *workdir;
	const char *input_dir;
	const char *input_shapes;
	const char *precision;
	double target_cos;
	const char *keep_out;
	int max_trials;
};

/* A graph output's reference values, in the order of the graph outputs. */
struct kb_output {
	const double *ref;
	size_t n;
};

/*
 * Searches a keep-list among @cand (ONNX node names, topological order)
 * and writes it to @o->keep_out. Return: 0 found, 1 not reachable even
 * with every candidate in f32, 2 a trial or the file failed.
 */
int kb_run(const struct kb_opts *o, char *const *cand, size_t n,
	   const struct kb_output *outs, int nout);

#endif /* NPU_COMPARE_KEEP_BISECT_H */
