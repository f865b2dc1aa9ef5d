// SPDX-License-Identifier: MIT
/*
 * streams.c - stream assignment, cross-stream edges, pruning by vector
 * clocks (see streams.h for the rules).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streams.h"

struct preds {
	uint32_t *at;	/* CSR over nodes */
	uint32_t *p;
};

static int build_preds(size_t n, const struct st_edge *e, size_t ne,
		       struct preds *pr)
{
	uint32_t *fill;

	pr->at = calloc(n + 1, sizeof(*pr->at));
	pr->p = malloc((ne + 1) * sizeof(*pr->p));
	fill = calloc(n + 1, sizeof(*fill));
	if (!pr->at || !pr->p || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ne; i++)
		pr->at[e[i].to + 1]++;
	for (size_t v = 0; v < n; v++)
		pr->at[v + 1] += pr->at[v];
	/* Keep the callers' order of each node's edges (its input order). */
	for (size_t i = 0; i < ne; i++) {
		uint32_t v = e[i].to, k, dup = 0;

		for (k = pr->at[v]; k < pr->at[v] + fill[v]; k++)
			if (pr->p[k] == e[i].from)
				dup = 1;
		if (!dup)
			pr->p[pr->at[v] + fill[v]++] = e[i].from;
	}
	/* Compact away duplicate slots. */
	{
		uint32_t w = 0;

		for (size_t v = 0; v < n; v++) {
			uint32_t s = pr->at[v];

			pr->at[v] = w;
			for (uint32_t k = 0; k < fill[v]; k++)
				pr->p[w++] = pr->p[s + k];
		}
		pr->at[n] = w;
	}
	free(fill);
	return 0;
}

static int by_from_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y) - (x > y);
}

static int by_to_from(const void *a, const void *b)
{
	const struct st_edge *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

/*
 * Which stream tails are DAG ancestors of v: a backward search over the
 * predecessors from v, never below the oldest tail (an edge goes from a
 * lower to a higher node, so a path from a tail t stays >= t). Replaces a
 * table of ancestor bitsets, n^2 bits, that made stream assignment
 * quadratic in time and memory.
 */
struct anc_search {
	uint32_t *stamp;	/* per node: the v of the last search seen */
	uint32_t *stack;
};

static bool is_ancestor_any(const struct preds *pr, struct anc_search *as,
			    uint32_t v, int64_t lowest, const int64_t *tail,
			    uint32_t num_streams, bool *hit)
{
	uint32_t sp = 0;
	bool any = false;

	as->stack[sp++] = v;
	as->stamp[v] = v;
	while (sp) {
		uint32_t x = as->stack[--sp];

		for (uint32_t k = pr->at[x]; k < pr->at[x + 1]; k++) {
			uint32_t p = pr->p[k];

			if ((int64_t)p < lowest || as->stamp[p] == v)
				continue;
			as->stamp[p] = v;
			for (uint32_t s = 0; s < num_streams; s++)
				if (tail[s] == (int64_t)p) {
					hit[s] = true;
					any = true;
				}
			as->stack[sp++] = p;
		}
	}
	return any;
}

/*
 * The stream for v when it cannot continue a predecessor's chain: a new
 * one while there are queues left and @may_open, else an existing one.
 */
static uint32_t pick_stream(const struct st_result *r, uint32_t max_streams,
			    const int64_t *tail, const struct preds *pr,
			    struct anc_search *as, uint32_t v, bool may_open)
{
	int64_t best_tail = -1, oldest = INT64_MAX, lowest = INT64_MAX;
	uint32_t best = UINT32_MAX, old_s = 0;
	bool hit[1024] = { false };

	if (!r->num_streams ||
	    (r->num_streams < max_streams && may_open))
		return r->num_streams;	/* a new stream */
	for (uint32_t s = 0; s < r->num_streams; s++)
		if (tail[s] >= 0 && tail[s] < lowest)
			lowest = tail[s];
	if (lowest != INT64_MAX)
		is_ancestor_any(pr, as, v, lowest, tail, r->num_streams, hit);
	for (uint32_t s = 0; s < r->num_streams; s++) {
		int64_t t = tail[s];

		if (t >= 0 && hit[s] && t > best_tail) {
			best_tail = t;
			best = s;
		}
		if (t < oldest) {
			oldest = t;
			old_s = s;
		}
	}
	if (best == UINT32_MAX && !may_open) {
		/* a node that fills the device: after its latest input */
		for (uint32_t k = pr->at[v]; k < pr->at[v + 1]; k++)
			if ((int64_t)pr->p[k] > best_tail) {
				best_tail = pr->p[k];
				best = r->stream[pr->p[k]];
			}
	}
	return best != UINT32_MAX ? best : old_s;
}

/* One assignment with at most @max_streams streams (edges checked). */
static int assign_once(size_t n, const struct st_edge *edges,
		       size_t num_edges, uint32_t max_streams,
		       const uint8_t *fills, struct st_result *r, char *err,
		       size_t errlen)
{
	struct preds pr = { 0 };
	struct anc_search as = { NULL, NULL };
	int64_t *tail = NULL;
	uint32_t *cross = NULL;
	int ret = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->num_nodes = n;
	if (max_streams > 1024)
		max_streams = 1024;
	if (build_preds(n, edges, num_edges, &pr))
		goto out;
	as.stamp = malloc((n + 1) * sizeof(*as.stamp));
	as.stack = malloc((n + 1) * sizeof(*as.stack));
	tail = malloc((max_streams + 1) * sizeof(*tail));
	r->stream = calloc(n + 1, sizeof(*r->stream));
	r->pos = calloc(n + 1, sizeof(*r->pos));
	r->sync = malloc((pr.at[n] + 1) * sizeof(*r->sync));
	cross = malloc((pr.at[n] + 1) * sizeof(*cross));
	if (!as.stamp || !as.stack || !tail || !r->stream || !r->pos || !r->sync || !cross)
		goto out;
	for (uint32_t s = 0; s < max_streams; s++)
		tail[s] = -1;
	memset(as.stamp, 0xff, (n + 1) * sizeof(*as.stamp));
	/* The streams, in topological order. */
	for (uint32_t v = 0; v < n; v++) {
		uint32_t s = UINT32_MAX, count;

		for (uint32_t k = pr.at[v]; k < pr.at[v + 1]; k++) {
			uint32_t p = pr.p[k];

			if (s == UINT32_MAX && tail[r->stream[p]] == p)
				s = r->stream[p];
		}
		if (s == UINT32_MAX)
			s = pick_stream(r, max_streams, tail, &pr, &as, v,
					!fills || !fills[v]);
		if (s == r->num_streams)
			r->num_streams++;
		count = 0;
		if (tail[s] >= 0)
			count = r->pos[tail[s]] + 1;
		r->stream[v] = s;
		r->pos[v] = count;
		tail[s] = v;
	}
	if (!r->num_streams)
		r->num_streams = 1;
	r->clock = malloc((n * r->num_streams + 1) * sizeof(*r->clock));
	if (!r->clock)
		goto out;
	/* Vector clocks in topological order; prune implied waits. */
	for (uint32_t s = 0; s < r->num_streams; s++)
		tail[s] = -1;
	for (uint32_t v = 0; v < n; v++) {
		int32_t *cv = r->clock + (size_t)v * r->num_streams;
		uint32_t sv = r->stream[v], nc = 0;

		if (tail[sv] >= 0)
			memcpy(cv, r->clock + (size_t)tail[sv] * r->num_streams,
			       r->num_streams * sizeof(*cv));
		else
			for (uint32_t s = 0; s < r->num_streams; s++)
				cv[s] = -1;
		cv[sv] = (int32_t)r->pos[v] - 1;
		tail[sv] = v;
		for (uint32_t k = pr.at[v]; k < pr.at[v + 1]; k++)
			if (r->stream[pr.p[k]] != sv)
				cross[nc++] = pr.p[k];
		r->num_cross += nc;
		qsort(cross, nc, sizeof(*cross), by_from_desc);
		for (uint32_t k = 0; k < nc; k++) {
			uint32_t u = cross[k], su = r->stream[u];
			const int32_t *cu = r->clock + (size_t)u * r->num_streams;

			if (cv[su] >= (int32_t)r->pos[u])
				continue;	/* implied */
			for (uint32_t s = 0; s < r->num_streams; s++)
				if (cu[s] > cv[s])
					cv[s] = cu[s];
			cv[su] = (int32_t)r->pos[u];
			r->sync[r->num_sync].from = u;
			r->sync[r->num_sync].to = v;
			r->num_sync++;
		}
	}
	qsort(r->sync, r->num_sync, sizeof(*r->sync), by_to_from);
	ret = 0;
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory assigning %zu nodes", n);
	free(pr.at);
	free(pr.p);
	free(as.stamp);
	free(as.stack);
	free(tail);
	free(cross);
	if (ret)
		st_result_free(r);
	return ret;
}

/* Is the last signal of a chain ordered before node v? */
static bool chain_fits(const struct st_result *r, uint32_t tail, uint32_t v)
{
	return st_happens_before(r, tail, v);
}

/* Semaphores for the kept pairs, with reuse (see streams.h). */
static int alloc_sems(struct st_result *r)
{
	size_t n = r->num_nodes;
	uint32_t *tail;		/* per semaphore, its last signalling node */

	r->sem = calloc(r->num_sync + 1, sizeof(*r->sem));
	r->sem_value = calloc(r->num_sync + 1, sizeof(*r->sem_value));
	r->sig_sem = malloc((n + 1) * sizeof(*r->sig_sem));
	r->sig_value = calloc(n + 1, sizeof(*r->sig_value));
	r->sem_uses = calloc(r->num_sync + 1, sizeof(*r->sem_uses));
	tail = calloc(r->num_sync + 1, sizeof(*tail));
	if (!r->sem || !r->sem_value || !r->sig_sem || !r->sig_value ||
	    !r->sem_uses || !tail) {
		free(tail);
		return -ENOMEM;
	}
	for (size_t v = 0; v < n; v++)
		r->sig_sem[v] = UINT32_MAX;
	for (size_t e = 0; e < r->num_sync; e++)
		r->sig_sem[r->sync[e].from] = 0;	/* signals: mark */
	r->num_sems = 0;
	for (uint32_t u = 0; u < n; u++) {
		uint32_t best = UINT32_MAX;

		if (r->sig_sem[u] == UINT32_MAX)
			continue;
		for (uint32_t k = 0; k < r->num_sems; k++) {
			if (!chain_fits(r, tail[k], u))
				continue;
			/* Own stream's chain first, else the latest tail. */
			if (r->stream[tail[k]] == r->stream[u]) {
				best = k;
				break;
			}
			if (best == UINT32_MAX || tail[k] > tail[best])
				best = k;
		}
		if (best == UINT32_MAX)
			best = r->num_sems++;
		tail[best] = u;
		r->sig_sem[u] = best;
		r->sig_value[u] = ++r->sem_uses[best];
	}
	for (size_t e = 0; e < r->num_sync; e++) {
		r->sem[e] = r->sig_sem[r->sync[e].from];
		r->sem_value[e] = r->sig_value[r->sync[e].from];
	}
	free(tail);
	return 0;
}

static uint32_t budget_need(const struct st_options *o,
			    const struct st_result *r)
{
	return r->num_sems + o->sems_fixed +
	       o->sems_per_stream * r->num_streams;
}

int st_assign(size_t n, const struct st_edge *edges, size_t num_edges,
	      const struct st_options *opt, struct st_result *r,
	      char *err, size_t errlen)
{
	struct st_options o = { 1, 0, 0, 0, NULL };
	uint32_t streams;
	bool cut = false;
	int ret;

	if (opt)
		o = *opt;
	streams = o.max_streams ? o.max_streams : 1;
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < num_edges; i++) {
		if (edges[i].from >= edges[i].to || edges[i].to >= n) {
			snprintf(err, errlen,
				 "edge %zu (%u -> %u) is not a forward edge between nodes 0..%zu",
				 i, edges[i].from, edges[i].to, n ? n - 1 : 0);
			return -EINVAL;
		}
	}
	for (;;) {
		ret = assign_once(n, edges, num_edges, streams, o.fills, r, err,
				  errlen);
		if (!ret && alloc_sems(r)) {
			snprintf(err, errlen, "out of memory assigning %zu nodes",
				 n);
			ret = -ENOMEM;
		}
		if (ret) {
			st_result_free(r);
			return ret;
		}
		r->streams_asked = o.max_streams ? o.max_streams : 1;
		r->budget_total = budget_need(&o, r);
		r->budget_cut = cut;
		if (!o.max_semaphores || r->budget_total <= o.max_semaphores)
			return 0;
		/* Fewer streams: fewer runtime semaphores, fewer chains. */
		if (r->num_streams <= 1)
			break;
		streams = r->num_streams - 1;
		cut = true;
		st_result_free(r);
	}
	snprintf(err, errlen,
		 "semaphores: one stream needs %u (%u for the runtime), the target has %u for a model; compile for a larger target (--target) or free semaphores on the device",
		 r->budget_total, r->budget_total - r->num_sems,
		 o.max_semaphores);
	st_result_free(r);
	return -ENOSPC;
}

void st_result_free(struct st_result *r)
{
	free(r->sem);
	free(r->sem_value);
	free(r->sig_sem);
	free(r->sig_value);
	free(r->sem_uses);
	free(r->stream);
	free(r->pos);
	free(r->sync);
	free(r->clock);
	memset(r, 0, sizeof(*r));
}

bool st_happens_before(const struct st_result *r, uint32_t a, uint32_t b)
{
	if (a == b || a >= r->num_nodes || b >= r->num_nodes)
		return false;
	return r->clock[(size_t)b * r->num_streams + r->stream[a]] >=
	       (int32_t)r->pos[a];
}
