// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_pool_compact.c - compaction: open a hole by moving the fewest bytes.
 *
 * Two families of plans are costed, both in O(n) over address order, and
 * the cheaper one that works is carried out:
 *
 * - Evict (drm_mm's eviction scanner): a window of the requested size
 *   slides over address order; its cost is the bytes of the ranges that
 *   overlap it; a pinned range breaks the window. The cheapest windows are
 *   tried in turn: every range overlapping the window must find a place in
 *   a hole outside it (best fit, largest range first, simulated on the
 *   side). Cost: the bytes of the evicted ranges.
 * - Slide: a run of consecutive holes whose sizes add up to the request;
 *   the ranges between the first and the last hole slide down so that the
 *   holes merge behind them. Cost: the bytes of those ranges. A pinned
 *   range breaks the run. Always possible when total free >= request and
 *   no pinned range is in the way.
 *
 * Whatever a plan moves goes through the move callbacks one range at a
 * time (quiesce, copy, moved, resume), so only the users of a moved range
 * ever pause. A range that is busy when the compaction starts (the busy
 * callback: a device task is using it) counts as pinned for the plans; one
 * that becomes busy later makes quiesce refuse and stays where it is. So a
 * compaction never waits for a running task, however long it runs. When
 * the chosen plan could not open the hole (a refused quiesce, alignment
 * padding), a full compaction is the last resort.
 */
#include "npu_pool_internal.h"

/* Move @n to @dest, which lies in a hole once @n has left its place. */
static int move_node(struct npu_pool *pool, struct npu_pool_node *n,
		     u64 dest, u64 *moved)
{
	const struct npu_pool_move_ops *ops = pool->ops;
	struct npu_pool_node *h;
	u64 old = n->start, t0 = npu_time_ns(), dt;

	if (ops->quiesce && ops->quiesce(pool->dev, n))
		return -EBUSY;
	npu_pool_unplace(pool, n);
	h = npu_pool_hole_at(pool, dest);
	if (!h || dest + n->size > npu_pool_hole_end(h) ||
	    (dest & (n->align - 1))) {
		/* A planning bug: put it back where it was, loudly. */
		npu_err("pool: bad move of %llu bytes to %llu\n",
			(unsigned long long)n->size,
			(unsigned long long)dest);
		npu_pool_place(pool, npu_pool_hole_at(pool, old), n, old);
		if (ops->resume)
			ops->resume(pool->dev, n);
		return -EINVAL;
	}
	if (ops->copy)
		ops->copy(pool->dev, dest, old, n->size);
	npu_pool_place(pool, h, n, dest);
	n->moves++;
	if (ops->moved)
		ops->moved(pool->dev, n, old);
	if (ops->resume)
		ops->resume(pool->dev, n);

	dt = npu_time_ns() - t0;
	pool->pause_ns += dt;
	if (dt > pool->max_pause_ns)
		pool->max_pause_ns = dt;
	pool->bytes_moved += n->size;
	pool->nodes_moved++;
	if (moved)
		*moved += n->size;
	return 0;
}

/* Ask the device, once per compaction, which ranges are busy right now. */
static void mark_busy(struct npu_pool *pool)
{
	struct npu_pool_node *n;

	for (n = pool->head.next; n != &pool->head; n = n->next)
		n->stay = !npu_pool_is_pinned(n) && pool->ops->busy &&
			  pool->ops->busy(pool->dev, n);
}

/* Slide the unpinned ranges after @from up to @last (inclusive) down. */
static void slide_down(struct npu_pool *pool, struct npu_pool_node *from,
		       struct npu_pool_node *last, u64 *moved)
{
	struct npu_pool_node *n = from->next, *next;
	bool done = false;

	while (!done && n != &pool->head) {
		u64 dest;

		next = n->next;
		done = n == last;
		if (npu_pool_is_fixed(n)) {
			n = next;
			continue;
		}
		dest = npu_align_up(npu_pool_hole_start(n->prev), n->align);
		if (dest < n->start)
			move_node(pool, n, dest, moved);
		n = next;
	}
}

/**
 * npu_pool_compact_all - slide every unpinned range as low as it goes
 * @pool: the pool
 * @moved: out (added to), may be NULL
 */
int npu_pool_compact_all(struct npu_pool *pool, u64 *moved)
{
	if (pool->compacting)
		return -EBUSY;
	pool->compacting = true;
	pool->compactions++;
	mark_busy(pool);
	if (pool->head.next != &pool->head)
		slide_down(pool, &pool->head, pool->head.prev, moved);
	pool->compacting = false;
	return 0;
}

struct slide_plan {
	struct npu_pool_node *first;	/* owner of the first hole */
	struct npu_pool_node *last;	/* last range to slide */
	u64 cost;
	bool found;
};

/* Cheapest run of holes holding @need bytes: two pointers, O(n). */
static void plan_slide(struct npu_pool *pool, u64 need, struct slide_plan *p)
{
	struct npu_pool_node *n = &pool->head, *l = NULL;
	u64 free = 0, cost = 0;

	p->found = false;
	p->first = NULL;
	p->last = NULL;
	p->cost = 0;
	do {
		if (npu_pool_is_fixed(n))
			l = NULL;
		else if (l)
			cost += n->size;
		if (n->hole_size) {
			if (!l) {
				l = n;
				free = 0;
				cost = 0;
			}
			free += n->hole_size;
			while (l != n && free - l->hole_size >= need) {
				struct npu_pool_node *m = l->next;

				free -= l->hole_size;
				while (!m->hole_size) {
					cost -= m->size;
					m = m->next;
				}
				cost -= m->size;
				l = m;
			}
			if (free >= need && (!p->found || cost < p->cost)) {
				p->found = true;
				p->first = l;
				p->last = n;
				p->cost = cost;
			}
		}
		n = n->next;
	} while (n != &pool->head);
}

#define EVICT_CANDIDATES	6

struct window {
	u64 start;
	u64 cost;
	struct npu_pool_node *first;	/* first range overlapping it */
	u32 count;			/* ranges overlapping it */
};

struct window_set {
	struct window w[EVICT_CANDIDATES];
	u32 n;
	u64 limit;			/* windows must cost less than this */
};

static u64 set_bound(const struct window_set *s)
{
	if (s->n < EVICT_CANDIDATES)
		return s->limit;
	return s->w[s->n - 1].cost;
}

static void set_offer(struct window_set *s, const struct window *w)
{
	u32 i;

	if (w->cost >= set_bound(s))
		return;
	for (i = 0; i < s->n; i++)
		if (s->w[i].start == w->start)
			return;
	if (s->n < EVICT_CANDIDATES)
		s->n++;
	for (i = s->n - 1; i > 0 && s->w[i - 1].cost > w->cost; i--)
		s->w[i] = s->w[i - 1];
	s->w[i] = *w;
}

/*
 * Cost the window [ws, ws + size): bytes of the ranges overlapping it,
 * starting the walk at @n (no range before @n overlaps). Gives up past
 * @bound or on a pinned range.
 */
static bool cost_window(struct npu_pool *pool, struct npu_pool_node *n,
			u64 ws, u64 size, u64 bound, struct window *w)
{
	u64 we = ws + size;

	w->start = ws;
	w->cost = 0;
	w->first = NULL;
	w->count = 0;
	for (; n != &pool->head && n->start < we; n = n->next) {
		if (n->start + n->size <= ws)
			continue;
		if (npu_pool_is_fixed(n))
			return false;
		if (!w->first)
			w->first = n;
		w->count++;
		w->cost += n->size;
		if (w->cost >= bound)
			return false;
	}
	return w->cost > 0;
}

/* The cheapest windows starting at a hole's start or ending at its end. */
static void scan_windows(struct npu_pool *pool, u64 size, u64 align,
			 struct window_set *s)
{
	struct npu_pool_node *n = &pool->head;
	struct window w;

	do {
		u64 ws = npu_align_up(npu_pool_hole_start(n), align);
		u64 he = npu_pool_hole_end(n);
		struct npu_pool_node *m;

		if (ws + size <= pool->total &&
		    cost_window(pool, n->next, ws, size, set_bound(s), &w))
			set_offer(s, &w);
		if (he >= size) {
			ws = (he - size) & ~(align - 1);
			/* walk back to the first range that may overlap */
			m = n;
			while (m != &pool->head && m->prev != &pool->head &&
			       npu_pool_hole_start(m->prev) > ws)
				m = m->prev;
			if (m == &pool->head)
				m = m->next;
			if (cost_window(pool, m, ws, size, set_bound(s), &w))
				set_offer(s, &w);
		}
		n = n->next;
	} while (n != &pool->head);
}

struct frag {
	u64 start, end;
};

struct evict_sim {
	struct npu_pool_node **victims;	/* largest first */
	u64 *dest;
	struct npu_pool_node **touched;	/* holes used up or cut by the window */
	struct frag *frags;		/* free pieces of touched holes */
	u32 nvictims, ntouched, nfrags, cap;
};

static bool sim_touched(const struct evict_sim *sim,
			const struct npu_pool_node *h)
{
	u32 i;

	for (i = 0; i < sim->ntouched; i++)
		if (sim->touched[i] == h)
			return true;
	return false;
}

static void sim_add_frag(struct evict_sim *sim, u64 start, u64 end)
{
	if (end > start) {
		sim->frags[sim->nfrags].start = start;
		sim->frags[sim->nfrags].end = end;
		sim->nfrags++;
	}
}

/* Smallest untouched hole taking the range, in the size tree. */
static struct npu_pool_node *sim_tree_fit(struct npu_pool *pool,
					  struct evict_sim *sim,
					  const struct npu_pool_node *v,
					  u64 *where)
{
	struct npu_rb *rb = pool->by_size.root, *lb = NULL;

	while (rb) {
		struct npu_pool_node *h =
			npu_rb_entry(rb, struct npu_pool_node, rb_hole_size);

		if (h->hole_size >= v->size) {
			lb = rb;
			rb = rb->left;
		} else {
			rb = rb->right;
		}
	}
	for (; lb; lb = npu_rb_next(lb)) {
		struct npu_pool_node *h =
			npu_rb_entry(lb, struct npu_pool_node, rb_hole_size);
		u64 s = npu_align_up(npu_pool_hole_start(h), v->align);

		if (sim_touched(sim, h))
			continue;
		if (s + v->size <= npu_pool_hole_end(h)) {
			*where = s;
			return h;
		}
	}
	return NULL;
}

/* Best fit for every victim outside the window; false if one has none. */
static bool sim_place_all(struct npu_pool *pool, struct evict_sim *sim)
{
	u32 i, j;

	for (i = 0; i < sim->nvictims; i++) {
		struct npu_pool_node *v = sim->victims[i], *h;
		u64 tw = 0, best_len = ~0ull, fw = 0;
		int bf = -1;

		for (j = 0; j < sim->nfrags; j++) {
			struct frag *f = &sim->frags[j];
			u64 s = npu_align_up(f->start, v->align);

			if (s + v->size <= f->end &&
			    f->end - f->start < best_len) {
				best_len = f->end - f->start;
				bf = j;
				fw = s;
			}
		}
		h = sim_tree_fit(pool, sim, v, &tw);
		if (h && (bf < 0 || h->hole_size < best_len)) {
			sim->touched[sim->ntouched++] = h;
			sim_add_frag(sim, npu_pool_hole_start(h), tw);
			sim_add_frag(sim, tw + v->size, npu_pool_hole_end(h));
			sim->dest[i] = tw;
		} else if (bf >= 0) {
			struct frag f = sim->frags[bf];

			sim->frags[bf] = sim->frags[--sim->nfrags];
			sim_add_frag(sim, f.start, fw);
			sim_add_frag(sim, fw + v->size, f.end);
			sim->dest[i] = fw;
		} else {
			return false;
		}
	}
	return true;
}

static void sim_free(struct evict_sim *sim)
{
	npu_free(sim->victims);
	npu_free(sim->dest);
	npu_free(sim->touched);
	npu_free(sim->frags);
}

static int sim_init(struct evict_sim *sim, u32 nvictims)
{
	u32 cap = 2 * nvictims + 4;

	sim->victims = npu_zalloc(sizeof(*sim->victims) * nvictims);
	sim->dest = npu_zalloc(sizeof(*sim->dest) * nvictims);
	sim->touched = npu_zalloc(sizeof(*sim->touched) * cap);
	sim->frags = npu_zalloc(sizeof(*sim->frags) * 2 * cap);
	sim->cap = cap;
	sim->nvictims = 0;
	sim->ntouched = 0;
	sim->nfrags = 0;
	if (!sim->victims || !sim->dest || !sim->touched || !sim->frags) {
		sim_free(sim);
		return -ENOMEM;
	}
	return 0;
}

/* Plan the eviction of window @w; on success @sim holds victims/dests. */
static bool plan_evict(struct npu_pool *pool, const struct window *w,
		       u64 size, struct evict_sim *sim)
{
	u64 ws = w->start, we = w->start + size;
	struct npu_pool_node *n, *h;
	u32 i, j;

	if (sim_init(sim, w->count))
		return false;
	for (n = w->first, i = 0; i < w->count; n = n->next, i++) {
		struct npu_pool_node *v = n;

		/* insertion sort, largest first: windows hold few ranges */
		for (j = sim->nvictims; j > 0 &&
		     sim->victims[j - 1]->size < v->size; j--)
			sim->victims[j] = sim->victims[j - 1];
		sim->victims[j] = v;
		sim->nvictims++;
	}
	/* Holes overlapping the window are off limits but for their rims. */
	for (h = w->first->prev, i = 0; i <= w->count; h = h->next, i++) {
		u64 hs = npu_pool_hole_start(h), he = npu_pool_hole_end(h);

		if (!h->hole_size || he <= ws || hs >= we)
			continue;
		sim->touched[sim->ntouched++] = h;
		sim_add_frag(sim, hs, ws < hs ? hs : ws);
		sim_add_frag(sim, we > he ? he : we, he);
	}
	if (sim_place_all(pool, sim))
		return true;
	sim_free(sim);
	return false;
}

/**
 * npu_pool_open_hole - make room for @size bytes at @align, fewest bytes
 * moved; runs the compaction without allocating
 * @pool: the pool
 * @size: bytes (multiple of the granule)
 * @align: power of two >= granule
 * @moved: out (set), may be NULL
 */
int npu_pool_open_hole(struct npu_pool *pool, u64 size, u64 align,
		       u64 *moved)
{
	struct slide_plan slide;
	struct window_set ws = { .n = 0 };
	struct evict_sim sim;
	bool evict = false;
	u64 where, local = 0;
	u32 i;

	if (pool->compacting)
		return -EBUSY;
	pool->compacting = true;
	pool->compactions++;
	mark_busy(pool);

	plan_slide(pool, size + align - pool->granule, &slide);
	ws.limit = slide.found ? slide.cost : ~0ull;
	scan_windows(pool, size, align, &ws);
	for (i = 0; i < ws.n && !evict; i++)
		evict = plan_evict(pool, &ws.w[i], size, &sim);

	if (evict) {
		for (i = 0; i < sim.nvictims; i++)
			move_node(pool, sim.victims[i], sim.dest[i], &local);
		sim_free(&sim);
	} else if (slide.found) {
		slide_down(pool, slide.first, slide.last, &local);
	}
	if (!npu_pool_best_fit(pool, size, align, &where)) {
		/* Last resort: everything down; counts as the same run. */
		if (pool->head.next != &pool->head)
			slide_down(pool, &pool->head, pool->head.prev, &local);
	}
	pool->compacting = false;
	if (moved)
		*moved = local;
	if (!npu_pool_best_fit(pool, size, align, &where)) {
		pool->compact_failures++;
		return -ENOMEM;
	}
	return 0;
}
