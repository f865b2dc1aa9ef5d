// SPDX-License-Identifier: MIT
/*
 * greedy.c - the greedy planners: an order of buffers replayed into the
 * gaps left by the already placed buffers each one conflicts with.
 */
#include <stdlib.h>
#include <string.h>

#include "mp_internal.h"

static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Offset for buffer b given the placed neighbours' spans in iv[0..k). */
static int64_t fit_one(const struct mp_ctx *c, uint32_t b, int64_t (*iv)[2],
		       size_t k, enum mp_fit fit)
{
	int64_t cur = 0, best = -1, best_gap = INT64_MAX;
	int64_t need = c->fp[b], a = c->align[b];

	qsort(iv, k, sizeof(*iv), cmp_pair);
	for (size_t i = 0; i < k; i++) {
		int64_t at = mp_align_up(cur, a);

		if (at + need <= iv[i][0]) {
			int64_t gap = iv[i][0] - cur;

			if (fit == MP_FIRST_FIT)
				return at;
			if (gap < best_gap) {
				best_gap = gap;
				best = at;
			}
		}
		if (iv[i][1] > cur)
			cur = iv[i][1];
	}
	return best >= 0 ? best : mp_align_up(cur, a);
}

int64_t mp_replay(const struct mp_ctx *c, const uint32_t *order,
		  enum mp_fit fit, int64_t *off, int64_t (*scratch)[2])
{
	int64_t arena = 0;

	for (size_t i = 0; i < c->n; i++)
		off[i] = -1;
	for (size_t i = 0; i < c->n; i++) {
		uint32_t b = order[i];
		size_t k = 0;

		for (uint32_t j = c->adj_at[b]; j < c->adj_at[b + 1]; j++) {
			uint32_t o = c->adj[j];

			if (off[o] < 0)
				continue;
			scratch[k][0] = off[o];
			scratch[k][1] = off[o] + c->fp[o];
			k++;
		}
		off[b] = fit_one(c, b, scratch, k, fit);
		if (off[b] + c->fp[b] > arena)
			arena = off[b] + c->fp[b];
	}
	return arena;
}

static const struct mp_ctx *sort_ctx;
static const int64_t *sort_weight;

/* Larger weight first, then longer lifetime, then larger footprint. */
static int by_weight(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct mp_ctx *c = sort_ctx;
	int64_t wa = sort_weight[a], wb = sort_weight[b];
	int64_t la = c->hi[a] - c->lo[a], lb = c->hi[b] - c->lo[b];

	if (wa != wb)
		return wa < wb ? 1 : -1;
	if (la != lb)
		return la < lb ? 1 : -1;
	if (c->fp[a] != c->fp[b])
		return c->fp[a] < c->fp[b] ? 1 : -1;
	return (a > b) - (a < b);
}

static int64_t greedy_by(const struct mp_ctx *c, const int64_t *weight,
			 enum mp_fit fit, int64_t *off)
{
	uint32_t *order = malloc((c->n + 1) * sizeof(*order));
	int64_t (*scratch)[2] = malloc((c->n + 1) * sizeof(*scratch));
	int64_t arena = -1;

	if (order && scratch) {
		for (size_t i = 0; i < c->n; i++)
			order[i] = (uint32_t)i;
		sort_ctx = c;
		sort_weight = weight;
		qsort(order, c->n, sizeof(*order), by_weight);
		arena = mp_replay(c, order, fit, off, scratch);
	}
	free(order);
	free(scratch);
	return arena;
}

/* Largest footprint first, each into the tightest gap that holds it. */
int64_t mp_greedy_size(const struct mp_ctx *c, int64_t *off)
{
	return greedy_by(c, c->fp, MP_BEST_FIT, off);
}

/*
 * The buffers that conflict with the most bytes are the hardest to place:
 * place them first (ties: longest lifetime), each as low as it fits.
 */
int64_t mp_greedy_conflicts(const struct mp_ctx *c, int64_t *off)
{
	int64_t *w = calloc(c->n + 1, sizeof(*w));
	int64_t arena;

	if (!w)
		return -1;
	for (size_t b = 0; b < c->n; b++) {
		w[b] = c->fp[b];
		for (uint32_t j = c->adj_at[b]; j < c->adj_at[b + 1]; j++)
			w[b] += c->fp[c->adj[j]];
	}
	arena = greedy_by(c, w, MP_FIRST_FIT, off);
	free(w);
	return arena;
}
