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
 * (no extra wait), else the stream idle the longest. A node marked as
 * filling the device (st_options.fills: its task alone keeps every core
 * busy, its work units shared among them) never opens a stream: beside a
 * parallel branch it would only halve the cores each gets and add a
 * signal/wait pair, so it joins a stream as if the queues were all taken.
 *
 * Pruning uses vector clocks: clock[v][s] is the last position of stream s
 * known to finish before v starts. An edge u -> v is redundant when
 * clock[v][stream(u)] >= pos(u); incoming edges are considered latest
 * source first, so one kept wait covers the earlier ones.
 *
 * Semaphores (GE's event reuse): every node with kept outgoing edges
 * signals once, all its waiters wait for that one signal. A device
 * semaphore only rises (SEM_SIGNAL sets max(value, base + v); SEM_WAIT
 * waits for >= base + v), so one semaphore carries a chain of signals
 * u1, u2, ... with values 1, 2, ... as long as each u(i) happens before
 * u(i+1): a wait for value i is then released only by a signal whose node
 * ran after u(i), so u(i) is done. Signalling nodes are taken in node
 * order; each continues the chain whose last signal happens before it
 * (its own stream's chain first, which always qualifies), else opens a new
 * semaphore. So a model never needs more semaphores than streams, however
 * many cross edges it has.
 *
 * Budget: with st_options.max_semaphores set, the semaphores plus what the
 * runtime adds (sems_fixed + sems_per_stream per stream) must fit; the
 * assignment then uses the most streams, from max_streams down to 1, that
 * fit, instead of failing.
 */
#ifndef NPUC_STREAMS_H
#define NPUC_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct st_edge {
	uint32_t from, to;
};

/**
 * struct st_options - what the target allows
 * @max_streams: >= 1; 0 means 1
 * @max_semaphores: device semaphores one model may use in all, runtime's
 *                  included; 0: no limit
 * @sems_per_stream: semaphores the runtime adds per stream of the model
 * @sems_fixed: semaphores the runtime adds per model
 * @fills: per node, nonzero when its work alone fills the device's cores
 *         (see above); NULL: none does
 */
struct st_options {
	uint32_t max_streams;
	uint32_t max_semaphores;
	uint32_t sems_per_stream;
	uint32_t sems_fixed;
	const uint8_t *fills;
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
 * @num_sems: device semaphores the kept pairs use (after reuse)
 * @sem, @sem_value: per kept pair (index into @sync), its semaphore and
 *                   the value (1, 2, ...) its signal sets and its wait needs
 * @sig_sem, @sig_value: per node, the semaphore it signals after it runs
 *                   and the value, or UINT32_MAX when it signals nothing
 * @sem_uses: per semaphore, the signals on it (its largest value)
 * @streams_asked: max_streams as given (before the budget reduced it)
 * @budget_cut: the semaphore budget took streams away (an assignment with
 *              more of them did not fit)
 * @budget_total: semaphores the model needs with the runtime's, as the
 *                budget counts them
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
	uint32_t num_sems;
	uint32_t *sem;
	uint32_t *sem_value;
	uint32_t *sig_sem;
	uint32_t *sig_value;
	uint32_t *sem_uses;
	uint32_t streams_asked;
	uint32_t budget_total;
	bool budget_cut;
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
 * -ENOSPC when even one stream does not fit the semaphore budget (@err
 * names the numbers), -ENOMEM.
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
