// SPDX-License-Identifier: MIT
/*
 * be_first_fit.c - clean-room first fit (Knuth, TAOCP vol. 1, 2.5): one
 * address-ordered list of ranges, used and free; an allocation takes the
 * lowest free range that is large enough and splits it; a free coalesces
 * with free neighbours.
 */
#include <stdlib.h>

#include "bench_alloc.h"

struct ff_range {
	uint64_t start, size;
	bool used;
	struct ff_range *prev, *next;
};

struct ff {
	struct ff_range *head;
	struct ff_range **by_id;
	uint64_t capacity, used, peak_end;
	uint32_t nids;
};

static void *ff_create(uint64_t capacity, uint32_t nids)
{
	struct ff *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->capacity = capacity / BENCH_GRANULE * BENCH_GRANULE;
	f->nids = nids;
	f->by_id = calloc(nids ? nids : 1, sizeof(*f->by_id));
	f->head = calloc(1, sizeof(*f->head));
	if (!f->by_id || !f->head) {
		free(f->by_id);
		free(f->head);
		free(f);
		return NULL;
	}
	f->head->size = f->capacity;
	return f;
}

static void ff_destroy(void *p)
{
	struct ff *f = p;
	struct ff_range *r, *n;

	for (r = f->head; r; r = n) {
		n = r->next;
		free(r);
	}
	free(f->by_id);
	free(f);
}

static int ff_alloc(void *p, uint32_t id, uint64_t size, uint32_t stream)
{
	struct ff *f = p;
	struct ff_range *r;

	size = bench_round(size);
	for (r = f->head; r; r = r->next) {
		if (r->used || r->size < size)
			continue;
		if (r->size > size) {
			struct ff_range *rest = calloc(1, sizeof(*rest));

			if (!rest)
				return -1;
			rest->start = r->start + size;
			rest->size = r->size - size;
			rest->prev = r;
			rest->next = r->next;
			if (r->next)
				r->next->prev = rest;
			r->next = rest;
			r->size = size;
		}
		r->used = true;
		f->by_id[id] = r;
		f->used += size;
		if (r->start + size > f->peak_end)
			f->peak_end = r->start + size;
		return 0;
	}
	return -1;
}

static void ff_absorb_next(struct ff_range *r)
{
	struct ff_range *n = r->next;

	r->size += n->size;
	r->next = n->next;
	if (n->next)
		n->next->prev = r;
	free(n);
}

static void ff_free(void *p, uint32_t id)
{
	struct ff *f = p;
	struct ff_range *r = f->by_id[id];

	f->by_id[id] = NULL;
	r->used = false;
	f->used -= r->size;
	if (r->next && !r->next->used)
		ff_absorb_next(r);
	if (r->prev && !r->prev->used)
		ff_absorb_next(r->prev);
}

static void ff_sync(void *p)
{
}

static void ff_free_space(void *p, uint64_t *free_b, uint64_t *largest)
{
	struct ff *f = p;
	struct ff_range *r;

	*free_b = f->capacity - f->used;
	*largest = 0;
	for (r = f->head; r; r = r->next)
		if (!r->used && r->size > *largest)
			*largest = r->size;
}

static uint32_t ff_unusable(void *p, uint64_t size)
{
	struct ff *f = p;
	struct ff_range *r;
	uint64_t small = 0, all = 0;

	for (r = f->head; r; r = r->next) {
		if (r->used)
			continue;
		all += r->size;
		if (r->size < size)
			small += r->size;
	}
	return all ? (uint32_t)(small * 1000000ull / all) : 0;
}

static void ff_figures(void *p, struct backend_figures *fig)
{
	struct ff *f = p;

	fig->peak_reserved = f->peak_end;
}

const struct backend be_first_fit = {
	.name = "first-fit",
	.what = "first fit over an address-ordered list, coalescing",
	.create = ff_create, .destroy = ff_destroy,
	.alloc = ff_alloc, .free = ff_free, .sync = ff_sync,
	.free_space = ff_free_space, .unusable_ppm = ff_unusable,
	.figures = ff_figures,
};
