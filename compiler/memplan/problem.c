// SPDX-License-Identifier: MIT
/*
 * problem.c - validate a planning problem and prepare what the planners
 * share: footprints, the conflict graph and the sections.
 *
 * Sections are the maximal cliques of the interval graph: the set of buffers
 * live just before some buffer dies, kept only when a buffer was born since
 * the previous such instant (otherwise it is a subset of that one). Every
 * buffer lives in a contiguous range of sections, and the largest section
 * total is the lower bound.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mp_internal.h"

uint64_t mp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int check_problem(const struct mp_problem *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < p->num_buffers; i++) {
		const struct mp_buffer *b = &p->buffers[i];

		if (b->size < 0 || b->upper < b->lower || b->lower < 0) {
			snprintf(err, errlen,
				 "buffer %zu: need 0 <= lower <= upper and size >= 0 (got [%lld, %lld) size %lld)",
				 i, (long long)b->lower, (long long)b->upper,
				 (long long)b->size);
			return -EINVAL;
		}
		if (b->align < 0 || (b->align > 1 && (b->align & (b->align - 1)))) {
			snprintf(err, errlen,
				 "buffer %zu: alignment %lld is not a power of two",
				 i, (long long)b->align);
			return -EINVAL;
		}
		if (b->size > (INT64_C(1) << 56)) {
			snprintf(err, errlen, "buffer %zu: size %lld too large",
				 i, (long long)b->size);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < p->num_pairs; i++) {
		if (p->pairs[i][0] >= p->num_buffers ||
		    p->pairs[i][1] >= p->num_buffers) {
			snprintf(err, errlen,
				 "conflict pair %zu names buffer %u/%u but there are only %zu buffers",
				 i, p->pairs[i][0], p->pairs[i][1],
				 p->num_buffers);
			return -EINVAL;
		}
	}
	return 0;
}

static bool is_dead(const struct mp_ctx *c, size_t b)
{
	return c->fp[b] == 0 || c->hi[b] == c->lo[b];
}

static const int64_t *sort_key;

static int by_key(const void *a, const void *b)
{
	int64_t x = sort_key[*(const uint32_t *)a];
	int64_t y = sort_key[*(const uint32_t *)b];

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

struct edge_list {
	uint32_t (*e)[2];
	size_t n, cap;
};

static int edge_add(struct edge_list *l, uint32_t a, uint32_t b)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		void *p = realloc(l->e, cap * sizeof(*l->e));

		if (!p)
			return -ENOMEM;
		l->e = p;
		l->cap = cap;
	}
	l->e[l->n][0] = a;
	l->e[l->n][1] = b;
	l->n++;
	return 0;
}

/* Time conflicts by a sweep over buffers sorted by birth, plus the pairs. */
static int build_conflicts(struct mp_ctx *c, const struct mp_problem *p)
{
	struct edge_list el = { 0 };
	uint32_t *order = malloc((c->n + 1) * sizeof(*order));
	uint32_t *active = malloc((c->n + 1) * sizeof(*active));
	size_t nact = 0;
	int ret = -ENOMEM;

	if (!order || !active)
		goto out;
	for (size_t i = 0; i < c->n; i++)
		order[i] = (uint32_t)i;
	sort_key = c->lo;
	qsort(order, c->n, sizeof(*order), by_key);
	for (size_t k = 0; k < c->n; k++) {
		uint32_t b = order[k];
		size_t keep = 0;

		if (is_dead(c, b))
			continue;
		for (size_t j = 0; j < nact; j++) {
			uint32_t a = active[j];

			if (c->hi[a] <= c->lo[b])
				continue;	/* died before b was born */
			active[keep++] = a;
			if (edge_add(&el, a, b) || edge_add(&el, b, a))
				goto out;
		}
		nact = keep;
		active[nact++] = b;
	}
	for (size_t i = 0; i < p->num_pairs; i++) {
		uint32_t a = p->pairs[i][0], b = p->pairs[i][1];

		if (a == b || is_dead(c, a) || is_dead(c, b))
			continue;
		c->num_pairs++;
		if (edge_add(&el, a, b) || edge_add(&el, b, a))
			goto out;
	}
	c->adj_at = calloc(c->n + 1, sizeof(*c->adj_at));
	c->adj = malloc((el.n + 1) * sizeof(*c->adj));
	if (!c->adj_at || !c->adj)
		goto out;
	for (size_t i = 0; i < el.n; i++)
		c->adj_at[el.e[i][0] + 1]++;
	for (size_t i = 0; i < c->n; i++)
		c->adj_at[i + 1] += c->adj_at[i];
	{
		uint32_t *fill = calloc(c->n + 1, sizeof(*fill));

		if (!fill)
			goto out;
		for (size_t i = 0; i < el.n; i++) {
			uint32_t a = el.e[i][0];

			c->adj[c->adj_at[a] + fill[a]++] = el.e[i][1];
		}
		free(fill);
	}
	/* Sort and deduplicate each list (pairs may repeat time conflicts). */
	{
		uint32_t w = 0;

		for (size_t b = 0; b < c->n; b++) {
			uint32_t s = c->adj_at[b], e = c->adj_at[b + 1];

			qsort(c->adj + s, e - s, sizeof(*c->adj), cmp_u32);
			c->adj_at[b] = w;
			for (uint32_t i = s; i < e; i++)
				if (i == s || c->adj[i] != c->adj[i - 1])
					c->adj[w++] = c->adj[i];
		}
		c->adj_at[c->n] = w;
	}
	ret = 0;
out:
	free(el.e);
	free(order);
	free(active);
	return ret;
}

/* The first index in [lo, hi) of sorted @t whose value is > @v, else hi. */
static size_t first_above(const int64_t *t, size_t lo, size_t hi, int64_t v)
{
	while (lo < hi) {
		size_t m = (lo + hi) / 2;

		if (t[m] > v)
			hi = m;
		else
			lo = m + 1;
	}
	return lo;
}

static int build_sections(struct mp_ctx *c)
{
	int64_t *his = malloc((c->n + 1) * sizeof(*his));
	int64_t *los = malloc((c->n + 1) * sizeof(*los));
	int64_t *t = NULL;
	size_t nh = 0, nl = 0, ns = 0, li = 0;
	int ret = -ENOMEM;

	if (!his || !los)
		goto out;
	for (size_t b = 0; b < c->n; b++) {
		if (is_dead(c, b))
			continue;
		his[nh++] = c->hi[b];
		los[nl++] = c->lo[b];
	}
	qsort(his, nh, sizeof(*his), cmp_i64);
	qsort(los, nl, sizeof(*los), cmp_i64);
	t = malloc((nh + 1) * sizeof(*t));
	if (!t)
		goto out;
	/* Keep an instant h if some buffer was born since the previous one. */
	for (size_t k = 0; k < nh; k++) {
		int64_t h = his[k];

		if (k > 0 && h == his[k - 1])
			continue;
		if (li < nl && los[li] < h) {
			t[ns++] = h;
			while (li < nl && los[li] < h)
				li++;
		}
	}
	c->num_sections = ns;
	c->sec_lo = calloc(c->n + 1, sizeof(*c->sec_lo));
	c->sec_hi = calloc(c->n + 1, sizeof(*c->sec_hi));
	c->mem_at = calloc(ns + 1, sizeof(*c->mem_at));
	c->sec_total = calloc(ns + 1, sizeof(*c->sec_total));
	if (!c->sec_lo || !c->sec_hi || !c->mem_at || !c->sec_total)
		goto out;
	for (size_t b = 0; b < c->n; b++) {
		size_t lo;

		if (is_dead(c, b))
			continue;
		/* first section with t > lo[b]; hi[b] >= lo[b]: search on */
		lo = first_above(t, 0, ns, c->lo[b]);
		c->sec_lo[b] = (uint32_t)lo;
		c->sec_hi[b] = (uint32_t)first_above(t, lo, ns, c->hi[b]);
		for (uint32_t s = c->sec_lo[b]; s < c->sec_hi[b]; s++) {
			c->mem_at[s + 1]++;
			c->sec_total[s] += c->fp[b];
		}
	}
	for (size_t s = 0; s < ns; s++)
		c->mem_at[s + 1] += c->mem_at[s];
	c->mem = malloc((c->mem_at[ns] + 1) * sizeof(*c->mem));
	if (!c->mem)
		goto out;
	{
		uint32_t *fill = calloc(ns + 1, sizeof(*fill));

		if (!fill)
			goto out;
		for (size_t b = 0; b < c->n; b++)
			for (uint32_t s = c->sec_lo[b]; s < c->sec_hi[b]; s++)
				c->mem[c->mem_at[s] + fill[s]++] = (uint32_t)b;
		free(fill);
	}
	c->lower_bound = 0;
	for (size_t s = 0; s < ns; s++)
		if (c->sec_total[s] > c->lower_bound)
			c->lower_bound = c->sec_total[s];
	ret = 0;
out:
	free(his);
	free(los);
	free(t);
	return ret;
}

static bool adjacent(const struct mp_ctx *c, uint32_t a, uint32_t b)
{
	uint32_t lo = c->adj_at[a], hi = c->adj_at[a + 1];

	while (lo < hi) {
		uint32_t m = (lo + hi) / 2;

		if (c->adj[m] == b)
			return true;
		if (c->adj[m] < b)
			lo = m + 1;
		else
			hi = m;
	}
	return false;
}

/*
 * With explicit pairs, buffers of different streams can be live together
 * although their intervals do not say so, and the largest section is no
 * longer the best bound. Any clique of the conflict graph is a bound: grow
 * each section greedily (largest footprint first) by buffers that conflict
 * with every member.
 */
static const int64_t *sec_key;

static int by_sec_total(const void *a, const void *b)
{
	int64_t x = sec_key[*(const uint32_t *)a];
	int64_t y = sec_key[*(const uint32_t *)b];

	return (x < y) - (x > y);	/* descending */
}

/* Sections grown into cliques: the largest ones only, to bound the cost. */
#define MP_CLIQUE_SEEDS	32

static int extend_bound(struct mp_ctx *c)
{
	uint32_t *order, *in, *seeds;
	size_t nseeds;
	int ret = -ENOMEM;

	if (!c->num_pairs)
		return 0;
	order = malloc((c->n + 1) * sizeof(*order));
	in = malloc((c->n + 1) * sizeof(*in));
	seeds = malloc((c->num_sections + 1) * sizeof(*seeds));
	if (!order || !in || !seeds)
		goto out;
	for (size_t i = 0; i < c->n; i++)
		order[i] = (uint32_t)i;
	sort_key = c->fp;
	qsort(order, c->n, sizeof(*order), by_key);	/* ascending */
	for (size_t x = 0; x < c->num_sections; x++)
		seeds[x] = (uint32_t)x;
	sec_key = c->sec_total;
	qsort(seeds, c->num_sections, sizeof(*seeds), by_sec_total);
	nseeds = c->num_sections < MP_CLIQUE_SEEDS ? c->num_sections :
		 MP_CLIQUE_SEEDS;
	for (size_t q = 0; q < nseeds; q++) {
		uint32_t x = seeds[q];
		size_t k = 0;
		int64_t total = c->sec_total[x];

		for (uint32_t m = c->mem_at[x]; m < c->mem_at[x + 1]; m++)
			in[k++] = c->mem[m];
		for (size_t i = c->n; i-- > 0;) {
			uint32_t b = order[i];
			bool all = !is_dead(c, b) &&
				   (c->sec_lo[b] > x || c->sec_hi[b] <= x);

			for (size_t j = 0; j < k && all; j++)
				all = adjacent(c, b, in[j]);
			if (!all)
				continue;
			in[k++] = b;
			total += c->fp[b];
		}
		if (total > c->lower_bound)
			c->lower_bound = total;
	}
	ret = 0;
out:
	free(order);
	free(in);
	free(seeds);
	return ret;
}

int mp_ctx_init(struct mp_ctx *c, const struct mp_problem *p,
		char *err, size_t errlen)
{
	char dummy[8];
	int ret;

	memset(c, 0, sizeof(*c));
	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	ret = check_problem(p, err, errlen);
	if (ret)
		return ret;
	c->n = p->num_buffers;
	c->lo = malloc((c->n + 1) * sizeof(int64_t));
	c->hi = malloc((c->n + 1) * sizeof(int64_t));
	c->fp = malloc((c->n + 1) * sizeof(int64_t));
	c->align = malloc((c->n + 1) * sizeof(int64_t));
	if (!c->lo || !c->hi || !c->fp || !c->align)
		goto nomem;
	for (size_t i = 0; i < c->n; i++) {
		const struct mp_buffer *b = &p->buffers[i];

		c->lo[i] = b->lower;
		c->hi[i] = b->upper;
		c->align[i] = b->align > 1 ? b->align : 1;
		c->fp[i] = mp_align_up(b->size, c->align[i]);
		if (!is_dead(c, i))
			c->no_reuse += c->fp[i];
	}
	if (build_conflicts(c, p) || build_sections(c) || extend_bound(c))
		goto nomem;
	return 0;
nomem:
	mp_ctx_free(c);
	snprintf(err, errlen, "out of memory preparing %zu buffers",
		 p->num_buffers);
	return -ENOMEM;
}

void mp_ctx_free(struct mp_ctx *c)
{
	free(c->lo);
	free(c->hi);
	free(c->fp);
	free(c->align);
	free(c->adj_at);
	free(c->adj);
	free(c->sec_lo);
	free(c->sec_hi);
	free(c->mem_at);
	free(c->mem);
	free(c->sec_total);
	memset(c, 0, sizeof(*c));
}

int64_t mp_lower_bound(const struct mp_problem *p)
{
	struct mp_ctx c;
	int64_t lb;

	if (mp_ctx_init(&c, p, NULL, 0))
		return -1;
	lb = c.lower_bound;
	mp_ctx_free(&c);
	return lb;
}
