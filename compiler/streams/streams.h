/* SPDX-License-Identifier: MIT */
/*
 * streams.h - stream assignment and cross-stream synchronisation.
 *
 * Input: a DAG of nodes numbered in a topological order (0..n-1) with its
 * data-dependency edges (from < to). Output: a stream per node (at most the
 * device's queue count), each stream running its nodes in increasing
 * number, and the cross-stream edges that need a semaphore signal/wait pair
 * after the redundant ones (already implied through program order and other
 * kept pairs) are pruned.
 *
 * Assignment: a node continues the stream of a predecessor that is the
 * last node of its stream (a chain goes on); otherwise it opens a new stream
 * while the queue count allows, so independent branches run in parallel;
 * beyond that it joins the stream whose last node it already depends on
 * (no extra wait), else the stream idle the longest.
 *
 * Pruning uses vector clocks: clock[v][s] is the last position of stream s
 * known to finish before v starts. An edge u -> v is redundant when
 * clock[v][stream(u)] >= pos(u); incoming edges are considered latest
 * source first, so one kept wait covers the earlier ones.
 */
#ifndef NPUC_STREAMS_H
#define NPUC_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct st_edge {
	uint32_t from, to;
};

struct st_options {
	uint32_t max_streams;	/* >= 1; 0 means 1 */
};

/**
 * struct st_result - a stream assignment
 * @num_nodes: nodes of the DAG
 * @num_streams: streams used (1..max_streams)
 * @stream: per node, its stream
 * @pos: per node, its position in its stream's program (0, 1, ...)
 * @num_cross: dependency edges between different streams
 * @num_sync: cross edges that keep a semaphore signal/wait pair
 * @sync: those edges, sorted by (to, from)
 * @clock: vector clocks, num_nodes x num_streams (see above)
 */
struct st_result {
	size_t num_nodes;
	uint32_t num_streams;
	uint32_t *stream;
	uint32_t *pos;
	size_t num_cross;
	size_t num_sync;
	struct st_edge *sync;
	int32_t *clock;
};

/**
 * st_assign() - assign streams and find the semaphore edges
 * @n: nodes
 * @edges: dependencies; each must have from < to < n (duplicates allowed)
 * @num_edges: entries of @edges
 * @opt: options (NULL: one stream)
 * @out: result; free with st_result_free()
 * @err: message on failure, @errlen bytes
 *
 * Return: 0, -EINVAL for an edge that is not forward or out of range,
 * -ENOMEM.
 */
int st_assign(size_t n, const struct st_edge *edges, size_t num_edges,
	      const struct st_options *opt, struct st_result *out,
	      char *err, size_t errlen);
void st_result_free(struct st_result *r);

/*
 * st_happens_before() - does node @a finish before node @b starts, by
 * program order and the kept semaphore pairs? (false for a == b)
 */
bool st_happens_before(const struct st_result *r, uint32_t a, uint32_t b);

#endif /* NPUC_STREAMS_H */
