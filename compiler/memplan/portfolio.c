// SPDX-License-Identifier: MIT
/*
 * portfolio.c - run the planners, verify each plan, keep the smallest.
 *
 * Order: the two greedy planners (cheap, usually good), the hill climber
 * from the better of them, then the exact search on what is left of the
 * budget. The exact search first probes the capacity target if one is set
 * and not yet met, then the lower bound (on DNN schedules it is usually
 * attainable), then bisects between the lower bound and the incumbent.
 * Any plan at the lower bound ends the portfolio early: it is optimal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_internal.h"

static const char *const planner_names[MP_NUM_PLANNERS] = {
	[MP_GREEDY_SIZE] = "greedy-size",
	[MP_GREEDY_CONFLICTS] = "greedy-conflicts",
	[MP_HILL_CLIMB] = "hill-climb",
	[MP_EXACT] = "exact",
};

const char *mp_planner_name(enum mp_planner_id id)
{
	return (unsigned int)id < MP_NUM_PLANNERS ? planner_names[id] : "?";
}

struct portfolio {
	const struct mp_problem *p;
	const struct mp_ctx *c;
	struct mp_result *res;
	int64_t *best;		/* offsets of the incumbent */
	int64_t best_arena;
	char *err;
	size_t errlen;
	uint64_t t0;
	int64_t capacity;
};

static double ms_since(uint64_t t0)
{
	return (double)(mp_now_ns() - t0) / 1e6;
}

static int64_t arena_of(const struct mp_ctx *c, const int64_t *off)
{
	int64_t a = 0;

	for (size_t b = 0; b < c->n; b++)
		if (c->fp[b] > 0 && c->hi[b] > c->lo[b] && off[b] + c->fp[b] > a)
			a = off[b] + c->fp[b];
	return a;
}

/* Verify a planner's plan and make it the incumbent if it is smaller. */
static int offer(struct portfolio *pf, enum mp_planner_id id,
		 const int64_t *off)
{
	int64_t arena = arena_of(pf->c, off);
	char why[256];

	if (mp_verify(pf->p, off, arena, why, sizeof(why))) {
		snprintf(pf->err, pf->errlen, "planner %s made an invalid plan: %s",
			 mp_planner_name(id), why);
		return -EFAULT;
	}
	if (pf->res->planner[id].arena < 0 || arena < pf->res->planner[id].arena)
		pf->res->planner[id].arena = arena;
	if (pf->capacity > 0 && arena <= pf->capacity && pf->res->fit_ms < 0)
		pf->res->fit_ms = ms_since(pf->t0);
	if (arena < pf->best_arena) {
		pf->best_arena = arena;
		pf->res->best = id;
		memcpy(pf->best, off, pf->c->n * sizeof(*off));
	}
	return 0;
}

/* Exact search: target capacity first, then the lower bound, then bisect. */
static int run_exact(struct portfolio *pf, const struct mp_options *o,
		     uint64_t deadline, int64_t *tmp)
{
	struct mp_planner_result *pr = &pf->res->planner[MP_EXACT];
	int64_t lo = pf->c->lower_bound;
	bool tried_target = false, tried_lb = false;
	int ret;

	while (lo < pf->best_arena) {
		int64_t probe;
		enum mp_search_status st;

		if (o->capacity > 0 && !tried_target &&
		    pf->best_arena > o->capacity && o->capacity >= lo) {
			probe = o->capacity;
			tried_target = true;
		} else if (!tried_lb) {
			probe = lo;
			tried_lb = true;
		} else {
			probe = lo + (pf->best_arena - 1 - lo) / 2;
		}
		st = mp_exact_fit(pf->c, probe, deadline, tmp, &pr->nodes);
		if (st == MP_TIMEOUT)
			return 0;
		if (st == MP_INFEASIBLE) {
			lo = probe + 1;
			continue;
		}
		ret = offer(pf, MP_EXACT, tmp);
		if (ret)
			return ret;
	}
	pr->optimal = true;
	return 0;
}

/*
 * Every buffer its own bytes, largest alignment first: footprints are
 * multiples of their (power of two) alignment, so no padding is needed and
 * the arena is exactly the no-reuse figure.
 */
static void no_reuse_plan(const struct mp_ctx *c, int64_t *off)
{
	int64_t at = 0;

	for (int64_t a = INT64_C(1) << 56; a >= 1; a >>= 1)
		for (size_t b = 0; b < c->n; b++) {
			if (c->align[b] != a)
				continue;
			off[b] = at;
			if (c->fp[b] > 0 && c->hi[b] > c->lo[b])
				at += c->fp[b];
		}
}

int mp_plan(const struct mp_problem *p, const struct mp_options *opt,
	    int64_t *offsets, struct mp_result *res, char *err, size_t errlen)
{
	struct mp_options o = opt ? *opt : (struct mp_options){ 0 };
	uint64_t t0 = mp_now_ns(), deadline, t;
	struct portfolio pf = { .p = p, .res = res, .err = err,
				.errlen = errlen };
	struct mp_ctx c;
	int64_t *tmp;
	char dummy[8];
	int ret;

	if (!err) {
		pf.err = dummy;
		pf.errlen = sizeof(dummy);
	}
	memset(res, 0, sizeof(*res));
	res->fit_ms = -1;
	pf.t0 = t0;
	pf.capacity = o.capacity;
	for (int i = 0; i < MP_NUM_PLANNERS; i++)
		res->planner[i].arena = -1;
	if (!o.planners)
		o.planners = MP_ALL_PLANNERS;
	if (!o.budget_ms)
		o.budget_ms = 1000;
	deadline = t0 + (uint64_t)o.budget_ms * 1000000ull;
	ret = mp_ctx_init(&c, p, pf.err, pf.errlen);
	if (ret)
		return ret;
	pf.c = &c;
	res->lower_bound = c.lower_bound;
	res->no_reuse = c.no_reuse;
	tmp = malloc((c.n + 1) * sizeof(*tmp));
	pf.best = offsets;
	if (!tmp) {
		mp_ctx_free(&c);
		snprintf(pf.err, pf.errlen, "out of memory");
		return -ENOMEM;
	}
	/* The incumbent before any planner: no reuse at all. */
	no_reuse_plan(&c, offsets);
	pf.best_arena = arena_of(&c, offsets);
	res->best = MP_NUM_PLANNERS;

	static int64_t (*const greedy[2])(const struct mp_ctx *, int64_t *) = {
		mp_greedy_size, mp_greedy_conflicts
	};
	for (int g = 0; g < 2 && !ret; g++) {
		enum mp_planner_id id = g ? MP_GREEDY_CONFLICTS : MP_GREEDY_SIZE;

		if (!(o.planners & MP_PLANNER_BIT(id)))
			continue;
		t = mp_now_ns();
		res->planner[id].ran = true;
		if (greedy[g](&c, tmp) < 0)
			ret = -ENOMEM;
		else
			ret = offer(&pf, id, tmp);
		res->planner[id].ms = ms_since(t);
	}
	if (!ret && (o.planners & MP_PLANNER_BIT(MP_HILL_CLIMB)) &&
	    pf.best_arena > c.lower_bound) {
		/*
		 * A tenth of what is left when the exact search follows: it
		 * is the exact search that closes the last gaps on hard
		 * problems, the climber only improves the incumbent.
		 */
		uint64_t now = mp_now_ns(), hc_deadline = deadline;

		if ((o.planners & MP_PLANNER_BIT(MP_EXACT)) && now < deadline)
			hc_deadline = now + (deadline - now) / 10;
		res->planner[MP_HILL_CLIMB].ran = true;
		memcpy(tmp, offsets, c.n * sizeof(*tmp));
		mp_hill_climb(&c, tmp, pf.best_arena, o.seed, hc_deadline);
		ret = offer(&pf, MP_HILL_CLIMB, tmp);
		res->planner[MP_HILL_CLIMB].ms = ms_since(now);
	}
	if (!ret && (o.planners & MP_PLANNER_BIT(MP_EXACT)) &&
	    pf.best_arena > c.lower_bound) {
		t = mp_now_ns();
		res->planner[MP_EXACT].ran = true;
		ret = run_exact(&pf, &o, deadline, tmp);
		res->planner[MP_EXACT].ms = ms_since(t);
	}
	if (!ret && mp_verify(p, offsets, pf.best_arena, pf.err, pf.errlen))
		ret = -EFAULT;
	res->arena = pf.best_arena;
	res->optimal = pf.best_arena == c.lower_bound ||
		       res->planner[MP_EXACT].optimal;
	if (res->best == MP_NUM_PLANNERS)
		res->best = MP_GREEDY_SIZE;	/* no planner ran: trivial plan */
	res->ms = ms_since(t0);
	free(tmp);
	mp_ctx_free(&c);
	return ret;
}
