/* SPDX-License-Identifier: MIT */
/*
 * lower.h - lowering of an optimised, static-shaped IR graph to per-stream
 * device programs, written as one variant of a .om model.
 *
 * Steps (lower.c):
 *  1. storage: every tensor gets a "root" whose bytes it uses. Views
 *     (emit_view_source()) share their source's root; an elementwise node
 *     whose input dies at it, with the output's shape, dtype and layout,
 *     writes in place into that input's root. Roots are constants (slot 0,
 *     the deduplicated weights), graph inputs (slot 2 + i), graph outputs
 *     (slot 2 + num_inputs + j) or workspace tensors (slot 1).
 *  2. streams: the nodes that emit tasks form a DAG (data dependencies,
 *     plus write-after-read edges for in-place writes); streams.h assigns
 *     streams and keeps the semaphore edges.
 *  3. memory: workspace roots live from their first write to their last
 *     access (node order); two roots of different streams not ordered by
 *     the semaphores "may overlap"; memplan.h plans the workspace.
 *  4. tasks: emit.h builds each node's tasks with the placement; SEM_WAIT
 *     before a node for each kept incoming edge, SEM_SIGNAL after the
 *     source node; a COPY where an output must be a copy (an output that
 *     is an input, a constant or another output); debug info per task.
 */
#ifndef NPUC_LOWER_H
#define NPUC_LOWER_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"
#include "memplan/memplan.h"

struct om_writer;

struct lower_options {
	uint32_t max_streams;		/* device queues to use (>= 1) */
	/* Semaphore budget (streams.h st_options): 0 = none. */
	uint32_t max_semaphores;
	uint32_t sems_per_stream;
	uint32_t sems_fixed;
	bool inplace;			/* in-place elementwise ops */
	/*
	 * A Conv, MatMul or Gemm of at least this many multiply-adds fills
	 * the device's cores by itself: it never opens a stream of its own
	 * (streams.h st_options.fills). 0: every node may.
	 */
	uint64_t fill_macs;
	unsigned int plan_budget_ms;	/* memory planner budget */
	unsigned int planners;		/* MP_PLANNER_BIT mask, 0 = all */
};

struct lower_report {
	uint32_t num_nodes;		/* nodes of the graph */
	uint32_t num_views;		/* nodes lowered to aliases */
	uint32_t num_inplace;		/* elementwise nodes made in place */
	uint32_t num_copies;		/* output copies added */
	uint32_t num_streams;
	uint32_t tasks_per_stream[64];
	uint32_t num_tasks;
	uint32_t num_cross_edges;	/* cross-stream dependencies */
	uint32_t num_sync_pairs;	/* kept signal/wait pairs */
	uint32_t num_semaphores;	/* device semaphores they use */
	uint32_t num_host_tasks;	/* nodes on the host engine */
	uint32_t streams_asked;		/* before the budget reduced them */
	bool streams_cut;		/* the semaphore budget reduced them */
	uint32_t semaphore_budget_used;	/* with the runtime's (streams.h) */
	uint32_t num_workspace_tensors;
	uint32_t num_may_overlap;	/* cross-stream may-overlap pairs */
	uint64_t weights_bytes;		/* weights referenced (before dedup) */
	struct mp_result plan;
};

/**
 * lower_graph() - lower @g into variant @variant of @w
 * @g: graph with static shapes (after shape inference and passes); its
 *     inputs and outputs must already be declared to @w in graph order
 * @opt: options
 * @w: the model being written (weights are shared by all variants)
 * @variant: the variant index from om_writer_add_variant()
 * @rep: out, figures for the report
 * @err: message on failure, @errlen bytes
 *
 * Return: 0, or a negative errno with @err naming the node and op.
 */
int lower_graph(struct ir_graph *g, const struct lower_options *opt,
		struct om_writer *w, uint32_t variant, struct lower_report *rep,
		char *err, size_t errlen);

#endif /* NPUC_LOWER_H */
