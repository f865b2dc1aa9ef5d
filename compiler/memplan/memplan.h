/* SPDX-License-Identifier: MIT */
/*
 * memplan.h - static memory planning (offset assignment) for the compiler.
 *
 * The problem: buffers, each live on a half-open interval [lower, upper) of
 * a schedule, needing `size` bytes at an offset that is a multiple of
 * `align`. Two buffers "conflict" when their lifetimes intersect, or when
 * the problem says explicitly that they may be live at the same time (two
 * tensors of different streams not ordered by a semaphore edge). A plan
 * gives every buffer an offset such that no two conflicting buffers overlap
 * in space; its arena is the largest offset + size.
 *
 * A buffer's footprint is its size rounded up to its alignment, so that the
 * buffer above it stays aligned too; the lower bound and every planner work
 * on footprints.
 *
 * mp_plan() always computes the lower bound (the largest sum of footprints
 * live at one instant) and the no-reuse size (the sum of all footprints),
 * then runs a portfolio of planners and keeps the smallest plan:
 *   - greedy-size:      largest first, each into the best-fitting gap;
 *   - greedy-conflicts: most conflicting bytes (then longest lifetime)
 *                       first, each into the lowest gap;
 *   - hill-climb:       perturbs the placement order and replays it,
 *                       keeping any order that is no worse;
 *   - exact:            branch and bound over canonical solutions with
 *                       section inference and dominance pruning (after
 *                       google/minimalloc), within a time budget; it proves
 *                       a plan optimal when it finds one at the lower bound
 *                       or exhausts the search below the incumbent.
 * Every plan that mp_plan() returns has passed mp_verify(), an independent
 * checker that recomputes conflicts from scratch.
 */
#ifndef NPUC_MEMPLAN_H
#define NPUC_MEMPLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/**
 * struct mp_buffer - one buffer of a planning problem
 * @lower: first schedule step at which the buffer is live
 * @upper: first step at which it is dead again (upper >= lower; a buffer
 *         with upper == lower is never live and conflicts with nothing)
 * @size: bytes
 * @align: required offset alignment in bytes (0 or 1: none)
 */
struct mp_buffer {
	int64_t lower;
	int64_t upper;
	int64_t size;
	int64_t align;
};

/**
 * struct mp_problem - a planning problem
 * @num_buffers: entries in @buffers
 * @buffers: the buffers
 * @num_pairs: entries in @pairs
 * @pairs: extra conflicts: buffer index pairs that may be live at the same
 *         time whatever their intervals say (unordered cross-stream tensors)
 */
struct mp_problem {
	size_t num_buffers;
	const struct mp_buffer *buffers;
	size_t num_pairs;
	const uint32_t (*pairs)[2];
};

enum mp_planner_id {
	MP_GREEDY_SIZE = 0,
	MP_GREEDY_CONFLICTS,
	MP_HILL_CLIMB,
	MP_EXACT,
	MP_NUM_PLANNERS
};

/* Bits of mp_options.planners. */
#define MP_PLANNER_BIT(id)	(1u << (id))
#define MP_ALL_PLANNERS		((1u << MP_NUM_PLANNERS) - 1)

/**
 * struct mp_options - how mp_plan() searches
 * @planners: mask of MP_PLANNER_BIT()s to run; 0 means all
 * @budget_ms: wall-clock budget for the whole portfolio (0: 1000 ms); the
 *             greedy planners always run, the others stop at the budget
 * @capacity: target arena (0: none). When set, the exact search first tries
 *            to fit the capacity, then minimises below it.
 * @seed: seed of the hill climber's random moves (0: a fixed default)
 */
struct mp_options {
	unsigned int planners;
	unsigned int budget_ms;
	int64_t capacity;
	uint64_t seed;
};

/**
 * struct mp_planner_result - what one planner of the portfolio achieved
 * @ran: the planner ran
 * @arena: its arena in bytes (-1: it found no plan, e.g. exact search out
 *         of time before improving on the incumbent)
 * @ms: its wall-clock time
 * @optimal: exact only: the search proved @arena optimal
 * @nodes: exact only: search nodes visited
 */
struct mp_planner_result {
	bool ran;
	int64_t arena;
	double ms;
	bool optimal;
	uint64_t nodes;
};

/**
 * struct mp_result - the outcome of mp_plan()
 * @lower_bound: largest sum of footprints live at one instant
 * @no_reuse: sum of all footprints (every buffer its own memory)
 * @arena: the arena of the plan kept (the smallest)
 * @best: the planner that found it
 * @optimal: @arena is proven optimal (equals the lower bound, or the exact
 *           search exhausted everything below it)
 * @ms: wall-clock time of the whole portfolio
 * @fit_ms: when a capacity was given, the time at which a plan first fitted
 *          it (-1: never)
 * @planner: per planner figures
 */
struct mp_result {
	int64_t lower_bound;
	int64_t no_reuse;
	int64_t arena;
	enum mp_planner_id best;
	bool optimal;
	double ms;
	double fit_ms;
	struct mp_planner_result planner[MP_NUM_PLANNERS];
};

/**
 * mp_plan() - plan a problem with the portfolio and keep the smallest plan
 * @p: the problem
 * @opt: options (NULL: defaults)
 * @offsets: out, one offset per buffer
 * @res: out, figures
 * @err: out, a message on failure (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0, -EINVAL for a malformed problem (negative size, upper < lower,
 * alignment not a power of two, pair index out of range), -ENOMEM, or
 * -EFAULT if a planner produced a plan that the verifier rejected (a bug;
 * @err says which buffers).
 */
int mp_plan(const struct mp_problem *p, const struct mp_options *opt,
	    int64_t *offsets, struct mp_result *res, char *err, size_t errlen);

/**
 * mp_lower_bound() - the largest sum of footprints live at one instant
 * Return: the bound in bytes, or -1 for a malformed problem.
 */
int64_t mp_lower_bound(const struct mp_problem *p);

/**
 * mp_verify() - check a plan independently of the planners
 * @p: the problem
 * @offsets: one offset per buffer
 * @arena: claimed arena; every buffer must end at or below it
 * @err: out, what is wrong (may be NULL)
 * @errlen: size of @err
 *
 * Checks alignment, non-negative offsets, the arena, and that no two
 * conflicting buffers (intersecting lifetimes or an extra pair) overlap.
 * Return: 0 if the plan is valid, -1 otherwise.
 */
int mp_verify(const struct mp_problem *p, const int64_t *offsets,
	      int64_t arena, char *err, size_t errlen);

/*
 * Task-level check of a lowered program set: mp_verify_tasks().
 *
 * The buffer-level plan above works on lifetimes measured in whole graph
 * nodes. A node may lower to several tasks (a variadic Max folds pairwise
 * into its output, a residual Add follows a Conv, a Concat is one copy per
 * piece), and the lowering may let an output take an input's storage (in
 * place). Whether the tasks as emitted keep every value intact is checked
 * here, from the tasks alone: which bytes each task reads and writes, which
 * logical value those bytes are meant to hold, and the order the streams
 * and their semaphores impose.
 */
enum mp_task_kind {
	MP_TASK_OP,		/* computes: reads and writes through accesses */
	MP_TASK_SIGNAL,		/* raises semaphore @sem to @value */
	MP_TASK_WAIT,		/* waits until @sem reaches @value */
};

/**
 * struct mp_task - one task of a program set
 * @stream: its stream; the tasks of a stream run in the order they appear
 *          in the task array
 * @kind: see enum mp_task_kind
 * @sem: SIGNAL/WAIT: the semaphore
 * @value: SIGNAL: the value it raises @sem to; WAIT: the value it waits
 *         for (0: satisfied at once). A semaphore may carry a chain of
 *         signals of rising values (semaphore reuse): a wait is ordered
 *         after the signal of the smallest value >= its own, and the
 *         checker proves that each signal of a semaphore happens before
 *         the next larger one, so that no wait can pass early.
 * @inplace_ok: OP: the task may write its output over an input that is the
 *              very same view (the device reads each element before it
 *              writes it); any other overlap of output and input is wrong
 */
struct mp_task {
	uint32_t stream;
	enum mp_task_kind kind;
	uint32_t sem;
	bool inplace_ok;
	uint64_t value;
};

/**
 * struct mp_access - bytes one task reads or writes
 * @task: index into the task array
 * @value: the logical value those bytes hold (a graph tensor; views of a
 *         tensor hold the same value)
 * @space: address space (a slot); different spaces never overlap
 * @write: written (else read)
 * @begin: first byte
 * @end: one past the last byte (@end == @begin: touches nothing)
 * @view: identity of the exact view (offset, shape, strides, dtype): equal
 *        keys name the same elements in the same order
 */
struct mp_access {
	uint32_t task;
	uint32_t value;
	uint32_t space;
	bool write;
	uint64_t begin, end;
	uint64_t view;
};

struct mp_task_problem {
	size_t num_tasks;
	const struct mp_task *tasks;
	size_t num_accesses;
	const struct mp_access *accesses;
};

/**
 * mp_verify_tasks() - prove that no task destroys a value still to be read
 * @p: the tasks and their accesses
 * @bad_task: out on failure, the task at fault (may be NULL)
 * @err: out, what is wrong (may be NULL)
 * @errlen: size of @err
 *
 * Happens-before comes from program order and semaphores only (vector
 * clocks over the streams, computed by running the programs). Then, for
 * every read of a value v by task r and every write of another value by a
 * task x to overlapping bytes of the same space, one of these must hold:
 * r happens before x (the bytes are dead); x happens before every write of
 * v that r may observe (the bytes were reused before v was made); or x is
 * r itself, @inplace_ok, writing the very same view it reads. In
 * particular an output may overwrite an input only if no later task (of
 * the same node or any other) reads that input. Also every read of a value
 * that some task writes must have such a write happen before it, and the
 * programs must not deadlock on their semaphores.
 *
 * Return: 0 if the program set is sound, -1 otherwise (-ENOMEM: no memory).
 */
int mp_verify_tasks(const struct mp_task_problem *p, size_t *bad_task,
		    char *err, size_t errlen);

/* Name of a planner ("greedy-size", ...). */
const char *mp_planner_name(enum mp_planner_id id);

/**
 * struct mp_csv - a problem read from a minimalloc CSV file
 * @buffers: owned array of @problem.num_buffers entries
 * @ids: the id column, per buffer
 * @problem: the problem (no extra pairs; alignment 1)
 */
struct mp_csv {
	struct mp_buffer *buffers;
	int64_t *ids;
	struct mp_problem problem;
};

/**
 * mp_csv_read() - read `id,lower,upper,size` lines (header line optional)
 * Return: 0, -errno on I/O failure or -EINVAL with @err naming the line.
 */
int mp_csv_read(const char *path, struct mp_csv *out, char *err,
		size_t errlen);
void mp_csv_free(struct mp_csv *c);

#endif /* NPUC_MEMPLAN_H */
