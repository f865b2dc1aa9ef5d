/* SPDX-License-Identifier: MIT */
/*
 * pass_manager.h - the optimisation pipeline of npuc.
 *
 * Named passes run in a documented order (Documentation/compiler-passes.rst):
 * shape inference first, then the simplification and fusion passes
 * repeated until a whole round changes nothing (fixpoint, bounded), then
 * layout assignment. Each pass can be switched off by name
 * (--disable-pass=NAME,NAME, like ATC's fusion switch file), each reports
 * what it changed (nodes removed, fused, folded), and the graph can be
 * dumped (text or Graphviz DOT) after any pass. Between passes the graph's
 * shapes are re-inferred, and it is verified when NPUC_VERIFY=1 or in debug
 * builds.
 */
#ifndef NPUC_PASS_MANAGER_H
#define NPUC_PASS_MANAGER_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one pass changed. */
struct pass_stats {
	int removed;	/* nodes deleted (identity, dead, duplicate) */
	int fused;	/* nodes merged into another node */
	int folded;	/* nodes evaluated at compile time */
	int rewritten;	/* nodes changed in place or inserted */
};

struct pass_info {
	const char *name;
	const char *summary;
	int (*run)(struct ir_graph *g, struct pass_stats *st);
	int min_level;		/* enabled from this -O level on */
	bool in_fixpoint;	/* part of the repeated round */
};

enum pm_dump_format { PM_DUMP_TEXT, PM_DUMP_DOT };

struct pm_opts {
	int opt_level;			/* 0..3; 0 runs shape inference only */
	const char *disable;		/* "name,name" or NULL */
	const char *dump_after;		/* pass name, "all", or NULL */
	enum pm_dump_format dump_format;
	FILE *dump_file;		/* dumps go here (default stderr) */
	bool verify;			/* force ir_verify() between passes */
	int max_rounds;			/* fixpoint bound, 0 = 8 */
};

#define PM_MAX_PASSES	32

struct pm_entry {
	const char *name;
	bool enabled;
	int runs;			/* times run (rounds) */
	struct pass_stats st;		/* summed over rounds */
};

struct pm_report {
	int num;
	struct pm_entry e[PM_MAX_PASSES];
	int rounds;
	int nodes_before, nodes_after;
};

/* The registered passes, in pipeline order. */
const struct pass_info *pm_passes(int *count);

/* 0 if every name in the comma list is a pass; else -EINVAL + message. */
int pm_check_names(const char *list, char *err, size_t len);

/* Run the pipeline. Errors leave a message in the graph. */
int pm_run(struct ir_graph *g, const struct pm_opts *o, struct pm_report *r);

/* "pass  runs removed fused folded rewritten" table. */
void pm_report_print(const struct pm_report *r, FILE *f);
void pm_report_json(const struct pm_report *r, FILE *f);

/* Run one pass by name (tests); shapes are re-inferred afterwards. */
int pm_run_one(struct ir_graph *g, const char *name, struct pass_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* NPUC_PASS_MANAGER_H */
