// SPDX-License-Identifier: MIT
/*
 * npurt_alloc.c - the caching allocator: block pools, splitting and
 * merging, stream-ordered reuse, the retry chain. See npurt_alloc.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npurt_alloc_internal.h"
#include "npurt_alloc_stats.h"

#define MiB	(1024ull * 1024ull)

static uint64_t round_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

static struct blk *rb_blk(struct npu_rb *rb)
{
	return npu_rb_entry(rb, struct blk, rb);
}

/* Free-tree order: stream key, size, segment creation, offset. */
static bool blk_less(const struct blk *a, const struct blk *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->pub.size != b->pub.size)
		return a->pub.size < b->pub.size;
	if (a->seg->id != b->seg->id)
		return a->seg->id < b->seg->id;
	return a->pub.offset < b->pub.offset;
}

static bool whole_segment(const struct blk *b)
{
	return b->pub.offset == 0 && b->pub.size == b->seg->size;
}

static void tree_insert(struct npurt_alloc *a, struct blk *b)
{
	struct npu_rb_root *root = &a->free_tree[b->seg->pool];
	struct npu_rb **link = &root->root, *parent = NULL;

	while (*link) {
		parent = *link;
		link = blk_less(b, rb_blk(parent)) ?
			&parent->left : &parent->right;
	}
	npu_rb_link(&b->rb, parent, link);
	npu_rb_insert_fixup(root, &b->rb);
	b->in_tree = true;
	if (!whole_segment(b)) {
		stat_add(a->inactive_split, b->seg->pool, 1);
		stat_add(a->inactive_split_bytes, b->seg->pool,
			 (int64_t)b->pub.size);
	}
}

static void tree_remove(struct npurt_alloc *a, struct blk *b)
{
	npu_rb_erase(&a->free_tree[b->seg->pool], &b->rb);
	b->in_tree = false;
	if (!whole_segment(b)) {
		stat_add(a->inactive_split, b->seg->pool, -1);
		stat_add(a->inactive_split_bytes, b->seg->pool,
			 -(int64_t)b->pub.size);
	}
}

static void list_add(struct blist *l, struct blk *b)
{
	b->lnext = NULL;
	b->lprev = l->tail;
	if (l->tail)
		l->tail->lnext = b;
	else
		l->head = b;
	l->tail = b;
}

static void list_del(struct blist *l, struct blk *b)
{
	if (b->lprev)
		b->lprev->lnext = b->lnext;
	else
		l->head = b->lnext;
	if (b->lnext)
		b->lnext->lprev = b->lprev;
	else
		l->tail = b->lprev;
	b->lprev = b->lnext = NULL;
}

static void release_event(struct npurt_alloc *a, uint64_t ev)
{
	if (ev && a->be.event_release)
		a->be.event_release(a->be.ctx, ev);
}

/* Drop @b's free-state bookkeeping (tree, fenced list, event). */
static void unfree(struct npurt_alloc *a, struct blk *b)
{
	if (b->in_tree)
		tree_remove(a, b);
	if (b->key != ALLOC_ANY_STREAM && b->event)
		list_del(&a->fenced, b);
	release_event(a, b->event);
	b->event = 0;
}

/* Absorb free neighbour @n (after @b in the segment) into @b. */
static void absorb_next(struct npurt_alloc *a, struct blk *b, struct blk *n)
{
	unfree(a, n);
	b->pub.size += n->pub.size;
	b->next = n->next;
	if (n->next)
		n->next->prev = b;
	free(n);
}

static bool mergeable(const struct blk *n, uint64_t key)
{
	return n && !n->allocated && !n->pending && n->key == key;
}

/*
 * Make @b (not allocated, not in the tree) a free block keyed to @key with
 * @event, merged with free neighbours of the same key (the newest event
 * orders them all: work on one stream completes in order). A block usable
 * by any stream is not merged into one of a single stream, so that other
 * streams keep it; the two merge once the event completes.
 */
static void make_free(struct npurt_alloc *a, struct blk *b, uint64_t key,
		      uint64_t event)
{
	struct blk *p;

	b->key = key;
	b->event = 0;
	if (mergeable(b->next, key))
		absorb_next(a, b, b->next);
	p = b->prev;
	if (mergeable(p, key)) {
		unfree(a, p);
		p->key = key;
		p->pub.size += b->pub.size;
		p->next = b->next;
		if (b->next)
			b->next->prev = p;
		free(b);
		b = p;
	}
	b->event = event;
	if (key != ALLOC_ANY_STREAM && event)
		list_add(&a->fenced, b);
	tree_insert(a, b);
}

static int pool_of(const struct npurt_alloc *a, uint64_t rounded)
{
	return rounded <= a->cfg.small_size ? POOL_SMALL : POOL_LARGE;
}

/* Smallest free block of @pool keyed @key with size >= @size. */
static struct blk *find_key(struct npurt_alloc *a, int pool, uint64_t key,
			    uint64_t size)
{
	struct npu_rb *rb = a->free_tree[pool].root, *lb = NULL;

	while (rb) {
		struct blk *b = rb_blk(rb);

		if (b->key > key || (b->key == key && b->pub.size >= size)) {
			lb = rb;
			rb = rb->left;
		} else {
			rb = rb->right;
		}
	}
	if (!lb || rb_blk(lb)->key != key)
		return NULL;
	return rb_blk(lb);
}

/* PyTorch's rules for blocks above max_split_size. */
static bool size_acceptable(const struct npurt_alloc *a, uint64_t want,
			    const struct blk *b)
{
	uint64_t msz = a->cfg.max_split_size;

	if (want < msz && b->pub.size >= msz)
		return false;
	if (want >= msz && b->pub.size >= want + a->cfg.large_segment)
		return false;
	return true;
}

static struct blk *find_free(struct npurt_alloc *a, int pool,
			     uint64_t stream, uint64_t size)
{
	struct blk *own = find_key(a, pool, stream, size);
	struct blk *any = find_key(a, pool, ALLOC_ANY_STREAM, size);
	struct blk *b;

	if (own && !size_acceptable(a, size, own))
		own = NULL;
	if (any && !size_acceptable(a, size, any))
		any = NULL;
	if (own && any)
		b = any->pub.size < own->pub.size ? any : own;
	else
		b = own ? own : any;
	return b;
}

/*
 * A pending block whose other streams are done: off the pending list, its
 * per-stream events dropped, no longer counted active. The caller frees it.
 */
static void settle_pending(struct npurt_alloc *a, struct blk *b)
{
	uint32_t i;

	list_del(&a->pending, b);
	for (i = 0; i < b->nevents; i++)
		release_event(a, b->events[i]);
	free(b->events);
	b->events = NULL;
	b->nevents = 0;
	b->pending = false;
	stat_add(a->active, b->seg->pool, -1);
	stat_add(a->active_bytes, b->seg->pool, -(int64_t)b->pub.size);
}

/*
 * Fenced blocks whose event completed become usable by any stream; pending
 * blocks whose other streams are done become free. Oldest first; gives up
 * after @budget events still running (0: look at all), since later ones
 * are most likely running too: that bounds the work on every malloc.
 */
static void process_events(struct npurt_alloc *a, uint32_t budget)
{
	struct blk *b, *next;
	uint32_t running = 0;

	for (b = a->pending.head; b; b = next) {
		uint32_t i, done = 0;

		next = b->lnext;
		for (i = 0; i < b->nevents; i++)
			if (a->be.event_query(a->be.ctx, b->events[i]) > 0)
				done++;
		if (!b->events || done < b->nevents) {
			if (budget && ++running >= budget)
				break;
			continue;
		}
		settle_pending(a, b);
		make_free(a, b, b->pub.stream,
			  a->be.event_record ?
			  a->be.event_record(a->be.ctx, b->pub.stream) : 0);
	}
	running = 0;
	for (b = a->fenced.head; b; b = next) {
		next = b->lnext;
		if (!a->be.event_query ||
		    a->be.event_query(a->be.ctx, b->event) <= 0) {
			if (budget && ++running >= budget)
				break;
			continue;
		}
		/* merging with blocks of any stream leaves the list intact */
		list_del(&a->fenced, b);
		tree_remove(a, b);
		release_event(a, b->event);
		b->event = 0;
		make_free(a, b, ALLOC_ANY_STREAM, 0);
	}
}

static uint64_t segment_size(const struct npurt_alloc *a, uint64_t rounded)
{
	if (rounded <= a->cfg.small_size)
		return a->cfg.small_segment;
	if (rounded < a->cfg.min_large_alloc)
		return a->cfg.large_segment;
	return round_up(rounded, a->cfg.round_large);
}

static uint64_t reserved(const struct npurt_alloc *a)
{
	return (uint64_t)a->reserved_bytes[STAT_ALL].current;
}

static bool within_fraction(struct npurt_alloc *a, uint64_t size)
{
	struct npurt_alloc_device_info info;

	if (a->fraction <= 0 || !a->be.query ||
	    a->be.query(a->be.ctx, &info))
		return true;
	return (double)(reserved(a) + size) <=
	       a->fraction * (double)info.total;
}

/* A new segment of @size as one free block usable by any stream. */
static struct blk *new_segment(struct npurt_alloc *a, int pool, uint64_t size)
{
	struct seg *s;
	struct blk *b;
	uint64_t handle = 0, addr = 0;

	if (!within_fraction(a, size))
		return NULL;
	s = calloc(1, sizeof(*s));
	b = calloc(1, sizeof(*b));
	if (!s || !b || a->be.seg_alloc(a->be.ctx, size, &handle, &addr)) {
		free(s);
		free(b);
		return NULL;
	}
	s->id = a->next_seg_id++;
	s->handle = handle;
	s->addr = addr;
	s->size = size;
	s->pool = pool;
	s->first = b;
	s->next = a->segs;
	if (a->segs)
		a->segs->prev = s;
	a->segs = s;
	b->seg = s;
	b->pub.seg = handle;
	b->pub.seg_addr = addr;
	b->pub.size = size;
	b->key = ALLOC_ANY_STREAM;
	a->num_device_alloc++;
	stat_add(a->segment, pool, 1);
	stat_add(a->reserved_bytes, pool, (int64_t)size);
	if (size >= a->cfg.max_split_size)
		stat_add(&a->oversize_segments, -1, 1);
	tree_insert(a, b);
	return b;
}

static void release_segment(struct npurt_alloc *a, struct seg *s)
{
	struct blk *b = s->first;

	unfree(a, b);
	if (s->prev)
		s->prev->next = s->next;
	else
		a->segs = s->next;
	if (s->next)
		s->next->prev = s->prev;
	a->be.seg_free(a->be.ctx, s->handle);
	a->num_device_free++;
	stat_add(a->segment, s->pool, -1);
	stat_add(a->reserved_bytes, s->pool, -(int64_t)s->size);
	if (s->size >= a->cfg.max_split_size)
		stat_add(&a->oversize_segments, -1, -1);
	free(b);
	free(s);
}

static bool segment_idle(const struct seg *s)
{
	const struct blk *b = s->first;

	return !b->allocated && !b->pending && whole_segment(b);
}

/* Release idle segments of @pool (-1: all) of at least @min bytes. */
static uint64_t release_cached(struct npurt_alloc *a, int pool, uint64_t min)
{
	struct seg *s, *next;
	uint64_t freed = 0;

	for (s = a->segs; s; s = next) {
		next = s->next;
		if ((pool < 0 || s->pool == pool) && s->size >= min &&
		    segment_idle(s)) {
			freed += s->size;
			release_segment(a, s);
		}
	}
	return freed;
}

/* Carve @size (rounded) for @stream out of free block @b. */
static struct blk *take(struct npurt_alloc *a, struct blk *b, uint64_t size,
			uint64_t requested, uint64_t stream)
{
	uint64_t rest = b->pub.size - size, key = b->key, ev = b->event;
	int pool = b->seg->pool;
	/* PyTorch's should_split: a request of max_split_size or more
	 * keeps its whole block. */
	bool split = pool == POOL_SMALL ? rest >= a->cfg.min_block :
			size < a->cfg.max_split_size && rest > a->cfg.small_size;
	struct blk *r = NULL;

	tree_remove(a, b);
	if (key != ALLOC_ANY_STREAM && ev)
		list_del(&a->fenced, b);
	b->event = 0;
	if (split)
		r = calloc(1, sizeof(*r));
	if (r) {
		r->seg = b->seg;
		r->pub.seg = b->pub.seg;
		r->pub.seg_addr = b->pub.seg_addr;
		r->pub.offset = b->pub.offset + size;
		r->pub.size = rest;
		r->prev = b;
		r->next = b->next;
		if (b->next)
			b->next->prev = r;
		b->next = r;
		b->pub.size = size;
		/* the remainder keeps the key and the fence it had */
		r->key = key;
		r->event = ev;
		if (key != ALLOC_ANY_STREAM && ev)
			list_add(&a->fenced, r);
		tree_insert(a, r);
	} else {
		release_event(a, ev);
	}
	b->allocated = true;
	b->pub.requested = requested;
	b->pub.stream = stream;
	b->key = stream;
	stat_add(a->allocation, pool, 1);
	stat_add(a->allocated_bytes, pool, (int64_t)b->pub.size);
	stat_add(a->active, pool, 1);
	stat_add(a->active_bytes, pool, (int64_t)b->pub.size);
	stat_add(a->requested_bytes, pool, (int64_t)requested);
	if (b->pub.size >= a->cfg.max_split_size)
		stat_add(&a->oversize_allocations, -1, 1);
	return b;
}

static void format_size(char *buf, size_t len, uint64_t v)
{
	if (v >= 1024 * MiB)
		snprintf(buf, len, "%.2f GiB", (double)v / (1024.0 * MiB));
	else if (v >= MiB)
		snprintf(buf, len, "%.2f MiB", (double)v / MiB);
	else
		snprintf(buf, len, "%.2f KiB", (double)v / 1024.0);
}

static void report_oom(struct npurt_alloc *a, uint64_t size, uint64_t stream)
{
	struct npurt_alloc_device_info info = { 0, 0, 0 };
	char req[32], al[32], rs[32], ca[32], tot[32], fr[32], lf[32];
	bool known = a->be.query && !a->be.query(a->be.ctx, &info);
	uint64_t alloc = (uint64_t)a->allocated_bytes[STAT_ALL].current;

	format_size(req, sizeof(req), size);
	format_size(al, sizeof(al), alloc);
	format_size(rs, sizeof(rs), reserved(a));
	format_size(ca, sizeof(ca), reserved(a) - alloc);
	format_size(tot, sizeof(tot), info.total);
	format_size(fr, sizeof(fr), info.free);
	format_size(lf, sizeof(lf), info.largest_free);
	if (known)
		snprintf(a->error, sizeof(a->error),
			 "NPU out of memory: tried to allocate %s on stream %" PRIu64
			 ". Device: %s total, %s free, largest free range %s. "
			 "This process: %s allocated, %s reserved by the caching allocator (%s cached)%s. "
			 "Free unused tensors, lower the batch size%s.",
			 req, stream, tot, fr, lf, al, rs, ca,
			 a->fraction > 0 ?
			 ", capped by the per-process memory fraction" : "",
			 a->fraction > 0 ? " or raise the memory fraction" : "");
	else
		snprintf(a->error, sizeof(a->error),
			 "NPU out of memory: tried to allocate %s on stream %" PRIu64
			 ". This process: %s allocated, %s reserved by the caching allocator (%s cached); "
			 "the device's free memory is unknown. Free unused tensors or lower the batch size.",
			 req, stream, al, rs, ca);
}

/* The retry chain after the caches missed. */
static struct blk *grow(struct npurt_alloc *a, int pool, uint64_t rounded)
{
	uint64_t seg = segment_size(a, rounded);
	struct blk *b = new_segment(a, pool, seg);

	if (b)
		return b;
	a->num_alloc_retries++;
	if (release_cached(a, pool, seg) && (b = new_segment(a, pool, seg)))
		return b;
	if (release_cached(a, -1, 0) && (b = new_segment(a, pool, seg)))
		return b;
	if (a->be.compact && !(a->cfg.flags & NPURT_ALLOC_NO_COMPACT) &&
	    within_fraction(a, seg) && !a->be.compact(a->be.ctx, seg) &&
	    (b = new_segment(a, pool, seg)))
		return b;
	if (a->cfg.flags & NPURT_ALLOC_NO_EXACT_RETRY || seg == rounded)
		return NULL;
	/* A segment of exactly the request wastes nothing: last resort. */
	if ((b = new_segment(a, pool, rounded)))
		return b;
	if (a->be.compact && !(a->cfg.flags & NPURT_ALLOC_NO_COMPACT) &&
	    within_fraction(a, rounded) &&
	    !a->be.compact(a->be.ctx, rounded))
		b = new_segment(a, pool, rounded);
	return b;
}

int npurt_alloc_malloc(struct npurt_alloc *a, uint64_t size, uint64_t stream,
		       struct npurt_block **out)
{
	uint64_t rounded;
	struct blk *b;
	int pool;

	a->error[0] = '\0';
	*out = NULL;
	if (!size || size > UINT64_MAX / 2) {
		snprintf(a->error, sizeof(a->error),
			 "cannot allocate %" PRIu64 " bytes: the size must be between 1 and 2^63",
			 size);
		return -EINVAL;
	}
	if (stream == ALLOC_ANY_STREAM) {
		snprintf(a->error, sizeof(a->error),
			 "stream id %" PRIu64 " is reserved", stream);
		return -EINVAL;
	}
	rounded = round_up(size, a->cfg.min_block);
	pool = pool_of(a, rounded);
	if (a->fenced.head || a->pending.head)
		process_events(a, 4);
	b = find_free(a, pool, stream, rounded);
	if (!b && (a->fenced.head || a->pending.head)) {
		/* on a miss, look at every event */
		process_events(a, 0);
		b = find_free(a, pool, stream, rounded);
	}
	if (!b)
		b = grow(a, pool, rounded);
	if (!b) {
		a->num_ooms++;
		report_oom(a, size, stream);
		return -ENOMEM;
	}
	*out = &take(a, b, rounded, size, stream)->pub;
	return 0;
}

void npurt_alloc_free(struct npurt_alloc *a, struct npurt_block *pub)
{
	struct blk *b = (struct blk *)pub;
	int pool;
	uint32_t i;

	if (!b)
		return;
	if (!b->allocated) {
		snprintf(a->error, sizeof(a->error),
			 "free of a block that is not allocated (double free?)");
		return;
	}
	pool = b->seg->pool;
	b->allocated = false;
	stat_add(a->allocation, pool, -1);
	stat_add(a->allocated_bytes, pool, -(int64_t)b->pub.size);
	stat_add(a->requested_bytes, pool, -(int64_t)b->pub.requested);
	if (b->pub.size >= a->cfg.max_split_size)
		stat_add(&a->oversize_allocations, -1, -1);
	if (b->nstreams) {
		/*
		 * Used on other streams: active until their work is done, i.e.
		 * until events recorded on them now complete; without events
		 * (or without memory for them) until the next synchronize.
		 */
		b->events = a->be.event_record ?
			calloc(b->nstreams, sizeof(*b->events)) : NULL;
		b->nevents = 0;
		for (i = 0; b->events && i < b->nstreams; i++)
			b->events[b->nevents++] = a->be.event_record(
				a->be.ctx, b->streams[i]);
		free(b->streams);
		b->streams = NULL;
		b->nstreams = 0;
		b->pending = true;
		list_add(&a->pending, b);
		return;
	}
	stat_add(a->active, pool, -1);
	stat_add(a->active_bytes, pool, -(int64_t)b->pub.size);
	make_free(a, b, b->pub.stream,
		  a->be.event_record ?
		  a->be.event_record(a->be.ctx, b->pub.stream) : 0);
}

void npurt_alloc_record_stream(struct npurt_alloc *a, struct npurt_block *pub,
			       uint64_t stream)
{
	struct blk *b = (struct blk *)pub;
	uint64_t *n;
	uint32_t i;

	if (!b || !b->allocated || stream == b->pub.stream ||
	    stream == ALLOC_ANY_STREAM)
		return;
	for (i = 0; i < b->nstreams; i++)
		if (b->streams[i] == stream)
			return;
	n = realloc(b->streams, (b->nstreams + 1) * sizeof(*n));
	if (!n)
		return;
	b->streams = n;
	b->streams[b->nstreams++] = stream;
}

void npurt_alloc_synchronize(struct npurt_alloc *a)
{
	struct blk *b;

	a->num_sync_all_streams++;
	while ((b = a->pending.head)) {
		settle_pending(a, b);
		make_free(a, b, ALLOC_ANY_STREAM, 0);
	}
	while ((b = a->fenced.head)) {
		list_del(&a->fenced, b);
		tree_remove(a, b);
		release_event(a, b->event);
		b->event = 0;
		make_free(a, b, ALLOC_ANY_STREAM, 0);
	}
	/* blocks keyed to a stream without an event (no event backend) */
	for (int p = 0; p < POOL_COUNT; p++) {
		struct npu_rb *rb = npu_rb_first(&a->free_tree[p]);

		while (rb) {
			b = rb_blk(rb);
			if (b->key == ALLOC_ANY_STREAM)
				break;		/* the largest key: done */
			tree_remove(a, b);
			make_free(a, b, ALLOC_ANY_STREAM, 0);
			rb = npu_rb_first(&a->free_tree[p]);
		}
	}
}

void npurt_alloc_empty_cache(struct npurt_alloc *a)
{
	if (a->pending.head || a->fenced.head)
		process_events(a, 0);
	release_cached(a, -1, 0);
}

int npurt_alloc_set_memory_fraction(struct npurt_alloc *a, double fraction)
{
	if (!(fraction > 0.0 && fraction <= 1.0)) {
		snprintf(a->error, sizeof(a->error),
			 "memory fraction %g is outside (0, 1]", fraction);
		return -EINVAL;
	}
	a->fraction = fraction;
	return 0;
}

const char *npurt_alloc_last_error(struct npurt_alloc *a)
{
	return a->error;
}

struct npurt_alloc *npurt_alloc_create(const struct npurt_alloc_backend *be,
				       const struct npurt_alloc_config *cfg)
{
	struct npurt_alloc *a;

	if (!be || !be->seg_alloc || !be->seg_free ||
	    (be->event_record && !be->event_query)) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	a->be = *be;
	if (cfg)
		a->cfg = *cfg;
	if (!a->cfg.min_block)
		a->cfg.min_block = 512;
	if (!a->cfg.small_size)
		a->cfg.small_size = 1 * MiB;
	if (!a->cfg.small_segment)
		a->cfg.small_segment = 2 * MiB;
	if (!a->cfg.large_segment)
		a->cfg.large_segment = 20 * MiB;
	if (!a->cfg.min_large_alloc)
		a->cfg.min_large_alloc = 10 * MiB;
	if (!a->cfg.round_large)
		a->cfg.round_large = 2 * MiB;
	if (!a->cfg.max_split_size)
		a->cfg.max_split_size = UINT64_MAX;
	if (a->cfg.small_segment < a->cfg.small_size ||
	    a->cfg.large_segment <= a->cfg.small_size) {
		free(a);
		errno = EINVAL;
		return NULL;
	}
	return a;
}

void npurt_alloc_destroy(struct npurt_alloc *a)
{
	struct seg *s;

	if (!a)
		return;
	while ((s = a->segs)) {
		struct blk *b = s->first, *n;

		for (; b; b = n) {
			n = b->next;
			if (b->in_tree)
				tree_remove(a, b);
			release_event(a, b->event);
			for (uint32_t i = 0; i < b->nevents; i++)
				release_event(a, b->events[i]);
			free(b->events);
			free(b->streams);
			free(b);
		}
		a->segs = s->next;
		a->be.seg_free(a->be.ctx, s->handle);
		free(s);
	}
	free(a);
}
