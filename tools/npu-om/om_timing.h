/* SPDX-License-Identifier: MIT */
/* om_timing.h - npu-om's modeled-time view (om_timing.c). */
#ifndef NPU_OM_TIMING_H
#define NPU_OM_TIMING_H

#include "npu_timing.h"

struct om_model;

/**
 * struct om_timing_opts - what npu-om --timing shows
 * @params: the modeled device
 * @text: print each variant's summary
 * @tasks: and each task's modeled start and end
 * @json: path of a JSON report ("-": stdout), or NULL
 * @trace: path of a Chrome trace of the modeled schedule, or NULL
 */
struct om_timing_opts {
	struct npu_timing_params params;
	int text;
	int tasks;
	const char *json;
	const char *trace;
};

/* Returns 0, or 1 after printing why the model could not be modeled. */
int om_timing_show(const struct om_model *m, const struct om_timing_opts *o);

#endif /* NPU_OM_TIMING_H */
