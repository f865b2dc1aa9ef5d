/* SPDX-License-Identifier: MIT */
/* passes_hook.h - the driver's call into the pass manager. */
#ifndef NPUC_PASSES_HOOK_H
#define NPUC_PASSES_HOOK_H

#include "driver/npuc.h"

/* Run the -O level's passes on @g; a summary goes into @rep (first gear). */
int npuc_run_passes(struct ir_graph *g, const struct npuc_options *o,
		    struct npuc_report *rep, char *err, size_t errlen);

#endif
