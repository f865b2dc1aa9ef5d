// SPDX-License-Identifier: MIT
/*
 * be_buddy.c - clean-room binary buddy allocator (Knowlton 1965; Knuth,
 * TAOCP vol. 1, 2.5): blocks of 2^k granules, a free list per order, a
 * request takes the smallest free block of sufficient order and splits it
 * in halves; a freed block merges with its buddy (address xor size) while
 * the buddy is free and of the same order. A capacity that is not a power
 * of two is covered by its largest aligned power-of-two blocks.
 */
#include <stdlib.h>

#include "bench_alloc.h"

#define MAX_ORDER 40

struct buddy {
	uint64_t units;			/* capacity in granules */
	int32_t head[MAX_ORDER];	/* free list per order, -1: empty */
	int32_t *next, *prev;		/* per unit: list links */
	int8_t *free_order;		/* per unit: order + 1 of a free block */
	uint32_t *id_unit;
	int8_t *id_order;
	uint64_t used, peak_end;
	int max_order;
};

static void push(struct buddy *b, int64_t u, int k)
{
	b->free_order[u] = (int8_t)(k + 1);
	b->prev[u] = -1;
	b->next[u] = b->head[k];
	if (b->head[k] >= 0)
		b->prev[b->head[k]] = (int32_t)u;
	b->head[k] = (int32_t)u;
}

static void unlink_block(struct buddy *b, int64_t u, int k)
{
	b->free_order[u] = 0;
	if (b->prev[u] >= 0)
		b->next[b->prev[u]] = b->next[u];
	else
		b->head[k] = b->next[u];
	if (b->next[u] >= 0)
		b->prev[b->next[u]] = b->prev[u];
}

static void buddy_destroy(void *p)
{
	struct buddy *b = p;

	free(b->next);
	free(b->prev);
	free(b->free_order);
	free(b->id_unit);
	free(b->id_order);
	free(b);
}

static void *buddy_create(uint64_t capacity, uint32_t nids)
{
	struct buddy *b = calloc(1, sizeof(*b));
	uint64_t u = 0;
	int k;

	if (!b)
		return NULL;
	b->units = capacity / BENCH_GRANULE;
	if (b->units >= (1ull << 31) || !b->units) {
		free(b);
		return NULL;
	}
	b->next = malloc(b->units * sizeof(*b->next));
	b->prev = malloc(b->units * sizeof(*b->prev));
	b->free_order = calloc(b->units, 1);
	b->id_unit = calloc(nids ? nids : 1, sizeof(*b->id_unit));
	b->id_order = calloc(nids ? nids : 1, 1);
	if (!b->next || !b->prev || !b->free_order || !b->id_unit ||
	    !b->id_order) {
		buddy_destroy(b);
		return NULL;
	}
	for (k = 0; k < MAX_ORDER; k++)
		b->head[k] = -1;
	while ((1ull << (b->max_order + 1)) <= b->units)
		b->max_order++;
	/* cover [0, units) with maximal aligned power-of-two blocks */
	while (u < b->units) {
		k = b->max_order;
		while (k > 0 && ((u & ((1ull << k) - 1)) ||
				 u + (1ull << k) > b->units))
			k--;
		push(b, (int64_t)u, k);
		u += 1ull << k;
	}
	return b;
}

static int buddy_alloc(void *p, uint32_t id, uint64_t size, uint32_t stream)
{
	struct buddy *b = p;
	uint64_t need = bench_round(size) / BENCH_GRANULE;
	int k = 0, j;
	int64_t u;

	while ((1ull << k) < need)
		k++;
	for (j = k; j <= b->max_order && b->head[j] < 0; j++)
		;
	if (j > b->max_order)
		return -1;
	u = b->head[j];
	unlink_block(b, u, j);
	while (j > k) {
		j--;
		push(b, u + (int64_t)(1ull << j), j);
	}
	b->id_unit[id] = (uint32_t)u;
	b->id_order[id] = (int8_t)k;
	b->used += (1ull << k) * BENCH_GRANULE;
	if ((u + (int64_t)(1ull << k)) * (int64_t)BENCH_GRANULE >
	    (int64_t)b->peak_end)
		b->peak_end = (uint64_t)(u + (int64_t)(1ull << k)) *
			      BENCH_GRANULE;
	return 0;
}

static void buddy_free(void *p, uint32_t id)
{
	struct buddy *b = p;
	int64_t u = b->id_unit[id];
	int k = b->id_order[id];

	b->used -= (1ull << k) * BENCH_GRANULE;
	while (k < b->max_order) {
		int64_t bud = u ^ (int64_t)(1ull << k);

		if (bud + (int64_t)(1ull << k) > (int64_t)b->units ||
		    b->free_order[bud] != k + 1)
			break;
		unlink_block(b, bud, k);
		if (bud < u)
			u = bud;
		k++;
	}
	push(b, u, k);
}

static void buddy_sync(void *p)
{
}

static void buddy_free_space(void *p, uint64_t *free_b, uint64_t *largest)
{
	struct buddy *b = p;
	int k;

	*free_b = b->units * BENCH_GRANULE - b->used;
	*largest = 0;
	for (k = b->max_order; k >= 0; k--)
		if (b->head[k] >= 0) {
			*largest = (1ull << k) * BENCH_GRANULE;
			break;
		}
}

static uint32_t buddy_unusable(void *p, uint64_t size)
{
	struct buddy *b = p;
	uint64_t small = 0, all = 0;
	int k;

	for (k = 0; k <= b->max_order; k++) {
		uint64_t bytes = (1ull << k) * BENCH_GRANULE, n = 0;
		int32_t u;

		for (u = b->head[k]; u >= 0; u = b->next[u])
			n++;
		all += n * bytes;
		if (bytes < size)
			small += n * bytes;
	}
	return all ? (uint32_t)(small * 1000000ull / all) : 0;
}

static void buddy_figures(void *p, struct backend_figures *f)
{
	struct buddy *b = p;

	f->peak_reserved = b->peak_end;
}

const struct backend be_buddy = {
	.name = "buddy",
	.what = "binary buddy, 512-byte minimum block",
	.create = buddy_create, .destroy = buddy_destroy,
	.alloc = buddy_alloc, .free = buddy_free, .sync = buddy_sync,
	.free_space = buddy_free_space, .unusable_ppm = buddy_unusable,
	.figures = buddy_figures,
};
