// SPDX-License-Identifier: MIT
/*
 * be_tlsf.c - clean-room TLSF, Two-Level Segregated Fit (Masmano, Ripoll,
 * Crespo, Real: "TLSF: a new dynamic memory allocator for real-time
 * systems", ECRTS 2004). Free blocks sit in lists indexed by a first level
 * (floor log2 of the size) and a second level (SLI bits below it); two
 * bitmap levels find a non-empty list in O(1). A request is rounded up to
 * the next list boundary (good fit), so every block of the list found
 * fits; the remainder is split off; freed blocks merge with free physical
 * neighbours at once.
 */
#include <stdlib.h>

#include "bench_alloc.h"

#define SLI		5
#define SL_COUNT	(1 << SLI)
#define FL_COUNT	48

struct tblk {
	uint64_t start, size;
	bool free;
	struct tblk *prev_phys, *next_phys;
	struct tblk *prev_free, *next_free;
};

struct tlsf {
	uint64_t fl_bitmap;
	uint32_t sl_bitmap[FL_COUNT];
	struct tblk *lists[FL_COUNT][SL_COUNT];
	struct tblk *first;
	struct tblk **by_id;
	uint64_t capacity, used, peak_end;
};

static int fls64(uint64_t x)
{
	return 63 - __builtin_clzll(x);
}

static void mapping_insert(uint64_t size, int *fl, int *sl)
{
	*fl = fls64(size);
	*sl = (int)((size >> (*fl - SLI)) ^ (1ull << SLI));
}

/* Round up so that any block of the resulting list is large enough. */
static void mapping_search(uint64_t size, int *fl, int *sl)
{
	size += (1ull << (fls64(size) - SLI)) - 1;
	mapping_insert(size, fl, sl);
}

static void insert_free(struct tlsf *t, struct tblk *b)
{
	int fl, sl;

	mapping_insert(b->size, &fl, &sl);
	b->free = true;
	b->prev_free = NULL;
	b->next_free = t->lists[fl][sl];
	if (b->next_free)
		b->next_free->prev_free = b;
	t->lists[fl][sl] = b;
	t->fl_bitmap |= 1ull << fl;
	t->sl_bitmap[fl] |= 1u << sl;
}

static void remove_free(struct tlsf *t, struct tblk *b)
{
	int fl, sl;

	mapping_insert(b->size, &fl, &sl);
	if (b->prev_free)
		b->prev_free->next_free = b->next_free;
	else
		t->lists[fl][sl] = b->next_free;
	if (b->next_free)
		b->next_free->prev_free = b->prev_free;
	if (!t->lists[fl][sl]) {
		t->sl_bitmap[fl] &= ~(1u << sl);
		if (!t->sl_bitmap[fl])
			t->fl_bitmap &= ~(1ull << fl);
	}
	b->free = false;
}

static struct tblk *find_suitable(struct tlsf *t, int fl, int sl)
{
	uint32_t sl_map;
	uint64_t fl_map;

	if (fl >= FL_COUNT)
		return NULL;
	sl_map = t->sl_bitmap[fl] & (~0u << sl);
	if (!sl_map) {
		fl_map = fl + 1 < 64 ? t->fl_bitmap & (~0ull << (fl + 1)) : 0;
		if (!fl_map)
			return NULL;
		fl = __builtin_ctzll(fl_map);
		sl_map = t->sl_bitmap[fl];
	}
	sl = __builtin_ctz(sl_map);
	return t->lists[fl][sl];
}

static void *tlsf_create(uint64_t capacity, uint32_t nids)
{
	struct tlsf *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->capacity = capacity / BENCH_GRANULE * BENCH_GRANULE;
	t->by_id = calloc(nids ? nids : 1, sizeof(*t->by_id));
	t->first = calloc(1, sizeof(*t->first));
	if (!t->by_id || !t->first || t->capacity < BENCH_GRANULE) {
		free(t->by_id);
		free(t->first);
		free(t);
		return NULL;
	}
	t->first->size = t->capacity;
	insert_free(t, t->first);
	return t;
}

static void tlsf_destroy(void *p)
{
	struct tlsf *t = p;
	struct tblk *b, *n;

	for (b = t->first; b; b = n) {
		n = b->next_phys;
		free(b);
	}
	free(t->by_id);
	free(t);
}

static int tlsf_alloc(void *p, uint32_t id, uint64_t size, uint32_t stream)
{
	struct tlsf *t = p;
	struct tblk *b;
	int fl, sl;

	size = bench_round(size);
	mapping_search(size, &fl, &sl);
	b = find_suitable(t, fl, sl);
	if (!b)
		return -1;
	remove_free(t, b);
	if (b->size - size >= BENCH_GRANULE) {
		struct tblk *r = calloc(1, sizeof(*r));

		if (r) {
			r->start = b->start + size;
			r->size = b->size - size;
			r->prev_phys = b;
			r->next_phys = b->next_phys;
			if (b->next_phys)
				b->next_phys->prev_phys = r;
			b->next_phys = r;
			b->size = size;
			insert_free(t, r);
		}
	}
	t->by_id[id] = b;
	t->used += b->size;
	if (b->start + b->size > t->peak_end)
		t->peak_end = b->start + b->size;
	return 0;
}

static void absorb_next(struct tblk *b)
{
	struct tblk *n = b->next_phys;

	b->size += n->size;
	b->next_phys = n->next_phys;
	if (n->next_phys)
		n->next_phys->prev_phys = b;
	free(n);
}

static void tlsf_free(void *p, uint32_t id)
{
	struct tlsf *t = p;
	struct tblk *b = t->by_id[id];

	t->by_id[id] = NULL;
	t->used -= b->size;
	if (b->next_phys && b->next_phys->free) {
		remove_free(t, b->next_phys);
		absorb_next(b);
	}
	if (b->prev_phys && b->prev_phys->free) {
		struct tblk *pb = b->prev_phys;

		remove_free(t, pb);
		absorb_next(pb);
		b = pb;
	}
	insert_free(t, b);
}

static void tlsf_sync(void *p)
{
}

static void tlsf_free_space(void *p, uint64_t *free_b, uint64_t *largest)
{
	struct tlsf *t = p;
	struct tblk *b;

	*free_b = t->capacity - t->used;
	*largest = 0;
	for (b = t->first; b; b = b->next_phys)
		if (b->free && b->size > *largest)
			*largest = b->size;
}

static uint32_t tlsf_unusable(void *p, uint64_t size)
{
	struct tlsf *t = p;
	struct tblk *b;
	uint64_t small = 0, all = 0;

	for (b = t->first; b; b = b->next_phys) {
		if (!b->free)
			continue;
		all += b->size;
		if (b->size < size)
			small += b->size;
	}
	return all ? (uint32_t)(small * 1000000ull / all) : 0;
}

static void tlsf_figures(void *p, struct backend_figures *f)
{
	struct tlsf *t = p;

	f->peak_reserved = t->peak_end;
}

const struct backend be_tlsf = {
	.name = "tlsf",
	.what = "two-level segregated fit (SLI 5), good fit, immediate coalescing",
	.create = tlsf_create, .destroy = tlsf_destroy,
	.alloc = tlsf_alloc, .free = tlsf_free, .sync = tlsf_sync,
	.free_space = tlsf_free_space, .unusable_ppm = tlsf_unusable,
	.figures = tlsf_figures,
};
