// SPDX-License-Identifier: MIT
/*
 * exact.c - branch and bound: is there a plan within a capacity?
 *
 * The search follows the ideas published with google/minimalloc
 * (Moffitt, "MiniMalloc", ASPLOS 2023), written afresh here in C:
 *
 *  - Canonical solutions only. Any plan can be pushed down until every
 *    buffer rests at offset 0 or on a buffer it conflicts with; so a buffer
 *    is only ever placed at its "minimum offset" (the top of the placed
 *    buffers it conflicts with, aligned), and buffers are placed in
 *    non-decreasing (offset, preorder index) order, which removes the
 *    permutations of one plan.
 *  - Dominance: a buffer is not placed at or above the lowest top that some
 *    other unplaced buffer could reach, since that buffer would then fit
 *    underneath and the plan is not canonical.
 *  - Inference per section (a maximal set of buffers live together): the
 *    floor of the section (the top of its placed buffers, and at least the
 *    smallest minimum offset of its unplaced ones, and at least the offset
 *    being placed, since placement is monotonic) plus the footprints still
 *    unplaced in it must fit in the capacity.
 *  - A buffer placed with nothing unplaced above it ("hatless") whose
 *    subtree failed makes its siblings fail too: stop there.
 *  - Several static preorders (width/area/total) tried round robin with a
 *    node limit that doubles, so one unlucky order does not eat the budget.
 *
 * Cross-stream conflicts that are not time overlaps take part through the
 * conflict graph (minimum offsets); the section inference uses only the
 * time overlaps, which keeps it a valid (if weaker) bound.
 */
#include <stdlib.h>
#include <string.h>

#include "mp_internal.h"

enum { BB_NOTFOUND, BB_FOUND, BB_ABORT };

struct undo {
	uint32_t idx;
	int64_t old;
};

struct undo_log {
	struct undo *u;
	size_t n, cap;
	bool oom;
};

struct ent {
	int64_t off;
	uint32_t rank;		/* position in the part's preorder */
	uint32_t buf;
};

/* Static preorders: W = lifetime width, A = area, T = section total. */
struct pre_key {
	int64_t w, a, t;
	uint32_t b;
};

struct bb {
	const struct mp_ctx *c;
	int64_t cap;
	int64_t *off, *minoff, *floor, *total;
	const char *rule;	/* preorder of this run */
	struct pre_key *keys;	/* scratch for solve_parts() */
	struct undo_log mlog, flog;
	int32_t *cut;		/* unplaced buffers across boundary s|s+1 */
	/*
	 * Unplaced members of section x: umem[mem_at[x] .. + ucount[x]);
	 * slot[bmem_at[b] + x - sec_lo[b]] is b's index in that array.
	 */
	uint32_t *umem, *ucount, *slot, *bmem_at;
	bool decompose;		/* no explicit pairs: parts are independent */
	size_t nlive;
	uint64_t nodes, node_limit, deadline;
	bool timeout;
	int64_t *out;
};

static void log_push(struct undo_log *l, uint32_t idx, int64_t old)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		void *p = realloc(l->u, cap * sizeof(*l->u));

		if (!p) {
			l->oom = true;
			return;
		}
		l->u = p;
		l->cap = cap;
	}
	l->u[l->n].idx = idx;
	l->u[l->n].old = old;
	l->n++;
}

static bool is_live(const struct mp_ctx *c, size_t b)
{
	return c->fp[b] > 0 && c->hi[b] > c->lo[b];
}

static void umem_remove(struct bb *s, uint32_t b, uint32_t x)
{
	const struct mp_ctx *c = s->c;
	uint32_t *sb = &s->slot[s->bmem_at[b] + x - c->sec_lo[b]];
	uint32_t last = c->mem_at[x] + --s->ucount[x];
	uint32_t y = s->umem[last];

	s->umem[*sb] = y;
	s->slot[s->bmem_at[y] + x - c->sec_lo[y]] = *sb;
	s->umem[last] = b;
	*sb = last;
}

/* Place b at o; returns true if nothing unplaced conflicts with it. */
static bool place(struct bb *s, uint32_t b, int64_t o)
{
	const struct mp_ctx *c = s->c;
	int64_t top = o + c->fp[b];
	bool hatless = true;

	uint32_t hull_lo = UINT32_MAX, hull_hi = 0;

	s->off[b] = o;
	for (uint32_t j = c->adj_at[b]; j < c->adj_at[b + 1]; j++) {
		uint32_t x = c->adj[j];
		int64_t h;

		if (s->off[x] >= 0)
			continue;
		hatless = false;
		h = mp_align_up(top, c->align[x]);
		if (s->minoff[x] >= h)
			continue;
		log_push(&s->mlog, x, s->minoff[x]);
		s->minoff[x] = h;
		/* The floor bound below holds for any section: recompute it
		 * on the hull of the changed buffers' sections. */
		if (c->sec_lo[x] < hull_lo)
			hull_lo = c->sec_lo[x];
		if (c->sec_hi[x] > hull_hi)
			hull_hi = c->sec_hi[x];
	}
	for (uint32_t x = c->sec_lo[b]; x < c->sec_hi[b]; x++) {
		log_push(&s->flog, x, s->floor[x]);
		s->floor[x] = top;
		s->total[x] -= c->fp[b];
		umem_remove(s, b, x);
	}
	/*
	 * A section's floor is at least its lowest unplaced minimum offset.
	 * Most sections keep a member at or below the floor: stop at it.
	 */
	for (uint32_t x = hull_lo; x < hull_hi; x++) {
		int64_t m = INT64_MAX, f = s->floor[x];

		for (uint32_t k = c->mem_at[x]; k < c->mem_at[x] + s->ucount[x];
		     k++) {
			uint32_t y = s->umem[k];

			if (s->minoff[y] >= m)
				continue;
			m = s->minoff[y];
			if (m <= f)
				break;
		}
		if (m != INT64_MAX && f < m) {
			log_push(&s->flog, x, f);
			s->floor[x] = m;
		}
	}
	return hatless;
}

static void unplace(struct bb *s, uint32_t b, size_t mmark, size_t fmark)
{
	const struct mp_ctx *c = s->c;

	while (s->flog.n > fmark) {
		struct undo *u = &s->flog.u[--s->flog.n];

		s->floor[u->idx] = u->old;
	}
	for (uint32_t x = c->sec_lo[b]; x < c->sec_hi[b]; x++) {
		s->total[x] += c->fp[b];
		s->ucount[x]++;		/* b is the last one removed: at the end */
	}
	while (s->mlog.n > mmark) {
		struct undo *u = &s->mlog.u[--s->mlog.n];

		s->minoff[u->idx] = u->old;
	}
	s->off[b] = -1;
}

static bool check(const struct bb *s, uint32_t lo, uint32_t hi, int64_t o)
{
	for (size_t x = lo; x < hi; x++) {
		int64_t f = s->floor[x] > o ? s->floor[x] : o;

		if (f + s->total[x] > s->cap)
			return false;
	}
	return true;
}

static int solve_parts(struct bb *s, uint32_t lo, uint32_t hi);

/* Cuts: b's boundaries lose an unplaced crossing; did one reach zero? */
static bool cut_down(struct bb *s, uint32_t b)
{
	bool zero = false;

	for (uint32_t x = s->c->sec_lo[b]; x + 1 < s->c->sec_hi[b]; x++)
		zero |= --s->cut[x] == 0;
	return zero;
}

static void cut_up(struct bb *s, uint32_t b)
{
	for (uint32_t x = s->c->sec_lo[b]; x + 1 < s->c->sec_hi[b]; x++)
		s->cut[x]++;
}

static int search(struct bb *s, uint32_t lo, uint32_t hi,
		  const struct ent *ord, size_t nord, int64_t last_off,
		  uint32_t last_rank)
{
	const struct mp_ctx *c = s->c;
	struct ent *cur;
	size_t k = 0;
	int64_t min_height = INT64_MAX;
	int ret = BB_NOTFOUND;

	if (++s->nodes > s->node_limit)
		return BB_ABORT;
	if ((s->nodes & 255) == 0 && mp_now_ns() >= s->deadline) {
		s->timeout = true;
		return BB_ABORT;
	}
	if (s->mlog.oom || s->flog.oom)
		return BB_ABORT;
	cur = malloc((nord + 1) * sizeof(*cur));
	if (!cur) {
		s->mlog.oom = true;
		return BB_ABORT;
	}
	/* Order by minimum offset, then preorder (insertion: nearly sorted). */
	for (size_t i = 0; i < nord; i++) {
		uint32_t b = ord[i].buf;
		struct ent e = { s->minoff[b], ord[i].rank, b };
		size_t j = k++;

		if (s->off[b] >= 0) {
			k--;
			continue;
		}
		while (j > 0 && (cur[j - 1].off > e.off ||
				 (cur[j - 1].off == e.off &&
				  cur[j - 1].rank > e.rank))) {
			cur[j] = cur[j - 1];
			j--;
		}
		cur[j] = e;
		if (e.off + c->fp[b] < min_height)
			min_height = e.off + c->fp[b];
	}
	if (k == 0) {
		/* This part is done: record what is placed (other parts, solved
		 * before or after, record theirs). */
		for (size_t b = 0; b < c->n; b++)
			if (s->off[b] >= 0)
				s->out[b] = s->off[b];
		free(cur);
		return BB_FOUND;
	}
	for (size_t i = 0; i < k; i++) {
		int64_t o = cur[i].off;
		uint32_t p = cur[i].rank, b = cur[i].buf;
		size_t mmark = s->mlog.n, fmark = s->flog.n;
		bool hatless;
		int r = BB_NOTFOUND;

		if (o < last_off || (o == last_off && p < last_rank))
			continue;	/* not canonical */
		if (o >= min_height)
			break;		/* dominated (the list is sorted) */
		if (o + c->fp[b] > s->cap)
			continue;
		hatless = place(s, b, o);
		if (check(s, lo, hi, o)) {
			/* Once nothing unplaced crosses a boundary, the two sides
			 * are independent: solve them one after the other, so a
			 * failure on one side never retries the other. */
			if (cut_down(s, b) && s->decompose)
				r = solve_parts(s, lo, hi);
			else
				r = search(s, lo, hi, cur, k, o, p);
			cut_up(s, b);
		}
		unplace(s, b, mmark, fmark);
		if (r != BB_NOTFOUND) {
			ret = r;
			break;
		}
		if (hatless)
			break;
	}
	free(cur);
	return ret;
}


static const char *pre_rule;

static int by_rule(const void *pa, const void *pb)
{
	const struct pre_key *x = pa, *y = pb;

	for (const char *r = pre_rule; *r; r++) {
		int64_t u = *r == 'W' ? x->w : *r == 'A' ? x->a : x->t;
		int64_t v = *r == 'W' ? y->w : *r == 'A' ? y->a : y->t;

		if (u != v)
			return u > v ? -1 : 1;
	}
	return (x->b > y->b) - (x->b < y->b);
}

/* Split [lo, hi) at boundaries no unplaced buffer crosses; solve each. */
static int solve_parts(struct bb *s, uint32_t lo, uint32_t hi)
{
	const struct mp_ctx *c = s->c;
	struct ent *ord = malloc((s->nlive + 1) * sizeof(*ord));
	uint32_t start = lo;
	int ret = BB_FOUND;

	if (!ord) {
		s->mlog.oom = true;
		return BB_ABORT;
	}
	/* Record what is placed now: a part may turn out to be empty. */
	for (size_t b = 0; b < c->n; b++)
		if (s->off[b] >= 0)
			s->out[b] = s->off[b];
	for (uint32_t x = lo; x < hi && ret == BB_FOUND; x++) {
		uint32_t end = x + 1;
		size_t k = 0;

		if (end < hi && (s->cut[x] != 0 || !s->decompose))
			continue;
		/*
		 * Part [start, end): its unplaced buffers in the run's preorder,
		 * T taken from the sections' totals now (what is still to place
		 * there), as minimalloc does for each sub-problem.
		 */
		for (size_t b = 0; b < c->n; b++) {
			struct pre_key *pk = &s->keys[k];
			int64_t t = 0;

			if (s->off[b] >= 0 || c->sec_lo[b] < start ||
			    c->sec_lo[b] >= end)
				continue;
			for (uint32_t y = c->sec_lo[b]; y < c->sec_hi[b]; y++)
				if (s->total[y] > t)
					t = s->total[y];
			pk->w = c->hi[b] - c->lo[b];
			pk->a = pk->w * c->fp[b];
			pk->t = t;
			pk->b = (uint32_t)b;
			k++;
		}
		pre_rule = s->rule;
		qsort(s->keys, k, sizeof(*s->keys), by_rule);
		for (size_t i = 0; i < k; i++) {
			ord[i].off = 0;
			ord[i].rank = (uint32_t)i;
			ord[i].buf = s->keys[i].b;
		}
		if (k)
			ret = search(s, start, end, ord, k, 0, 0);
		start = end;
	}
	free(ord);
	return ret;
}

static int run_once(struct bb *s, const char *rule)
{
	const struct mp_ctx *c = s->c;

	s->rule = rule;
	for (size_t b = 0; b < c->n; b++) {
		s->off[b] = is_live(c, b) ? -1 : 0;
		s->minoff[b] = 0;
		s->out[b] = 0;
	}
	for (size_t x = 0; x < c->num_sections; x++) {
		s->floor[x] = 0;
		s->total[x] = c->sec_total[x];
		s->cut[x] = 0;
	}
	for (size_t b = 0; b < c->n; b++)
		if (is_live(c, b))
			for (uint32_t x = c->sec_lo[b]; x + 1 < c->sec_hi[b]; x++)
				s->cut[x]++;
	for (size_t x = 0; x < c->num_sections; x++) {
		s->ucount[x] = c->mem_at[x + 1] - c->mem_at[x];
		for (uint32_t k = c->mem_at[x]; k < c->mem_at[x + 1]; k++) {
			uint32_t b = c->mem[k];

			s->umem[k] = b;
			s->slot[s->bmem_at[b] + x - c->sec_lo[b]] = k;
		}
	}
	s->mlog.n = s->flog.n = 0;
	return solve_parts(s, 0, (uint32_t)c->num_sections);
}

enum mp_search_status mp_exact_fit(const struct mp_ctx *c, int64_t capacity,
				   uint64_t deadline_ns, int64_t *off,
				   uint64_t *nodes)
{
	static const char *const rules[] = { "WAT", "TAW", "TWA" };
	struct bb s = { .c = c, .cap = capacity, .deadline = deadline_ns,
			.out = off };
	size_t n = c->n, ns = c->num_sections, nlive = 0;
	struct pre_key *keys = malloc((n + 1) * sizeof(*keys));
	enum mp_search_status st = MP_TIMEOUT;

	s.off = malloc((n + 1) * sizeof(int64_t));
	s.minoff = malloc((n + 1) * sizeof(int64_t));
	s.floor = malloc((ns + 1) * sizeof(int64_t));
	s.total = malloc((ns + 1) * sizeof(int64_t));
	s.keys = keys;
	s.cut = calloc(ns + 1, sizeof(int32_t));
	s.umem = malloc((c->mem_at[ns] + 1) * sizeof(uint32_t));
	s.slot = malloc((c->mem_at[ns] + 1) * sizeof(uint32_t));
	s.ucount = calloc(ns + 1, sizeof(uint32_t));
	s.bmem_at = calloc(n + 1, sizeof(uint32_t));
	if (s.bmem_at)
		for (size_t b = 0, at = 0; b < n; b++) {
			s.bmem_at[b] = (uint32_t)at;
			at += c->sec_hi[b] - c->sec_lo[b];
		}
	s.decompose = c->num_pairs == 0;
	if (!keys || !s.cut || !s.umem || !s.slot || !s.ucount || !s.bmem_at ||
	    !s.off || !s.minoff || !s.floor || !s.total)
		goto out;
	if (c->lower_bound > capacity) {
		st = MP_INFEASIBLE;
		goto out;
	}
	for (size_t b = 0; b < n; b++)
		nlive += is_live(c, b);
	s.nlive = nlive;
	for (uint64_t limit = nlive + 1; ; limit *= 2) {
		for (size_t r = 0; r < 3; r++) {
			int ret;

			s.node_limit = s.nodes + limit;
			ret = run_once(&s, rules[r]);
			if (ret == BB_FOUND) {
				st = MP_FOUND;
				goto out;
			}
			if (s.timeout || s.mlog.oom || s.flog.oom)
				goto out;
			if (ret == BB_NOTFOUND) {
				st = MP_INFEASIBLE;
				goto out;
			}
		}
	}
out:
	if (nodes)
		*nodes += s.nodes;
	free(keys);
	free(s.cut);
	free(s.umem);
	free(s.slot);
	free(s.ucount);
	free(s.bmem_at);
	free(s.off);
	free(s.minoff);
	free(s.floor);
	free(s.total);
	free(s.mlog.u);
	free(s.flog.u);
	return st;
}
