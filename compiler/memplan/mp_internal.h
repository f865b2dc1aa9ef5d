/* SPDX-License-Identifier: MIT */
/*
 * mp_internal.h - the prepared form of a planning problem that the planners
 * share: footprints, a conflict graph (adjacency lists) and the "sections"
 * (maximal sets of buffers live at one instant) used for inference.
 */
#ifndef NPUC_MP_INTERNAL_H
#define NPUC_MP_INTERNAL_H

#include "memplan.h"

struct mp_ctx {
	size_t n;
	int64_t *lo, *hi;	/* lifetimes */
	int64_t *fp;		/* footprint: size rounded up to align */
	int64_t *align;		/* >= 1 */
	/* conflict graph, CSR: neighbours of b are adj[adj_at[b]..adj_at[b+1]) */
	uint32_t *adj_at;
	uint32_t *adj;
	size_t num_pairs;	/* explicit pairs between live buffers */
	/* sections: buffer b is live in sections [sec_lo[b], sec_hi[b]) */
	size_t num_sections;
	uint32_t *sec_lo, *sec_hi;
	/* members of section s: mem[mem_at[s]..mem_at[s+1]) */
	uint32_t *mem_at, *mem;
	int64_t *sec_total;	/* sum of footprints per section */
	int64_t lower_bound;
	int64_t no_reuse;
};

int mp_ctx_init(struct mp_ctx *c, const struct mp_problem *p,
		char *err, size_t errlen);
void mp_ctx_free(struct mp_ctx *c);

static inline int64_t mp_align_up(int64_t v, int64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* Placement rules for a replay of an order. */
enum mp_fit { MP_FIRST_FIT, MP_BEST_FIT };

/*
 * mp_replay() - place buffers in @order (a permutation of [0, n)), each at
 * the lowest (first fit) or tightest (best fit) gap among the already placed
 * buffers it conflicts with. Return: the arena; offsets in @off.
 * @scratch: at least n entries (pairs of int64).
 */
int64_t mp_replay(const struct mp_ctx *c, const uint32_t *order,
		  enum mp_fit fit, int64_t *off, int64_t (*scratch)[2]);

int64_t mp_greedy_size(const struct mp_ctx *c, int64_t *off);
int64_t mp_greedy_conflicts(const struct mp_ctx *c, int64_t *off);
/* Improves @off (arena @arena) in place until @deadline_ns; returns arena. */
int64_t mp_hill_climb(const struct mp_ctx *c, int64_t *off, int64_t arena,
		      uint64_t seed, uint64_t deadline_ns);

enum mp_search_status { MP_FOUND, MP_INFEASIBLE, MP_TIMEOUT };
/*
 * mp_exact_fit() - look for a plan within @capacity (branch and bound).
 * Return: MP_FOUND (offsets in @off), MP_INFEASIBLE (proved: no plan
 * fits), or MP_TIMEOUT at @deadline_ns. @nodes accumulates visited nodes.
 */
enum mp_search_status mp_exact_fit(const struct mp_ctx *c, int64_t capacity,
				   uint64_t deadline_ns, int64_t *off,
				   uint64_t *nodes);

uint64_t mp_now_ns(void);

#endif /* NPUC_MP_INTERNAL_H */
