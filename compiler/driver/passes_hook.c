// SPDX-License-Identifier: MIT
/*
 * passes_hook.c - runs the pass manager for one gear and keeps a summary
 * (as text: the report is stored in the cache, so it holds no pointers).
 */
#include <stdio.h>
#include <string.h>

#include "driver/passes_hook.h"
#include "passes/pass_manager.h"

int npuc_run_passes(struct ir_graph *g, const struct npuc_options *o,
		    struct npuc_report *rep, char *err, size_t errlen)
{
	struct pm_opts po = {
		.opt_level = o->opt_level,
		.disable = o->disable_passes,
		.dump_after = o->dump_ir_after,
		.dump_format = PM_DUMP_TEXT,
		.dump_file = o->dump_file,
	};
	struct pm_report pr;
	int ret;

	if (o->disable_passes) {
		ret = pm_check_names(o->disable_passes, err, errlen);
		if (ret)
			return ret;
	}
	if (o->dump_ir_after && strcmp(o->dump_ir_after, "all")) {
		ret = pm_check_names(o->dump_ir_after, err, errlen);
		if (ret)
			return ret;
	}
	memset(&pr, 0, sizeof(pr));
	ret = pm_run(g, &po, &pr);
	if (ret) {
		snprintf(err, errlen, "passes: %s", ir_graph_error(g));
		return ret;
	}
	if (rep->nodes_after)
		return 0;	/* the first gear's summary stands */
	rep->nodes_before = (uint32_t)pr.nodes_before;
	rep->nodes_after = (uint32_t)pr.nodes_after;
	rep->passes[0] = '\0';
	rep->num_passes = 0;
	for (int i = 0; i < pr.num; i++) {
		const struct pm_entry *e = &pr.e[i];
		size_t at = strlen(rep->passes);

		if (!e->enabled || !e->runs)
			continue;
		rep->num_passes++;
		snprintf(rep->passes + at, sizeof(rep->passes) - at,
			 "%s%s:%d/%d/%d/%d", at ? " " : "", e->name,
			 e->st.removed, e->st.fused, e->st.folded,
			 e->st.rewritten);
	}
	return 0;
}
