// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_pool.c - VRAM pool: best-fit allocation over indexed holes, free with
 * coalescing, accounting and statistics. Compaction is in npu_pool_compact.c.
 * See npu_pool.h and Documentation/memory-pool.rst.
 */
#include "npu_pool_internal.h"

#define size_node(rb)	npu_rb_entry(rb, struct npu_pool_node, rb_hole_size)
#define addr_node(rb)	npu_rb_entry(rb, struct npu_pool_node, rb_hole_addr)

/* Largest hole in the address subtree under @rb (augmented value). */
static void addr_augment(struct npu_rb *rb)
{
	struct npu_pool_node *n = addr_node(rb);
	u64 m = n->hole_size;

	if (rb->left && addr_node(rb->left)->subtree_max_hole > m)
		m = addr_node(rb->left)->subtree_max_hole;
	if (rb->right && addr_node(rb->right)->subtree_max_hole > m)
		m = addr_node(rb->right)->subtree_max_hole;
	n->subtree_max_hole = m;
}

/* Order of the size tree: hole size, then address (lowest first). */
static bool size_less(const struct npu_pool_node *a,
		      const struct npu_pool_node *b)
{
	if (a->hole_size != b->hole_size)
		return a->hole_size < b->hole_size;
	return npu_pool_hole_start(a) < npu_pool_hole_start(b);
}

/**
 * npu_pool_hole_add - index the hole that follows @n (no-op when empty)
 * @pool: the pool
 * @n: the owning node, hole_size already set
 */
void npu_pool_hole_add(struct npu_pool *pool, struct npu_pool_node *n)
{
	struct npu_rb **link, *parent = NULL;
	u64 start = npu_pool_hole_start(n);

	if (!n->hole_size)
		return;
	link = &pool->by_size.root;
	while (*link) {
		parent = *link;
		link = size_less(n, size_node(parent)) ?
			&parent->left : &parent->right;
	}
	npu_rb_link(&n->rb_hole_size, parent, link);
	npu_rb_insert_fixup(&pool->by_size, &n->rb_hole_size);

	parent = NULL;
	link = &pool->by_addr.root;
	while (*link) {
		parent = *link;
		link = start < npu_pool_hole_start(addr_node(parent)) ?
			&parent->left : &parent->right;
	}
	n->subtree_max_hole = n->hole_size;
	npu_rb_link(&n->rb_hole_addr, parent, link);
	npu_rb_insert_fixup(&pool->by_addr, &n->rb_hole_addr);
	pool->num_holes++;
}

/**
 * npu_pool_hole_del - drop the hole that follows @n from the indexes
 * @pool: the pool
 * @n: the owning node (its hole_size must be what it was when added)
 */
void npu_pool_hole_del(struct npu_pool *pool, struct npu_pool_node *n)
{
	if (!n->hole_size)
		return;
	npu_rb_erase(&pool->by_size, &n->rb_hole_size);
	npu_rb_erase(&pool->by_addr, &n->rb_hole_addr);
	pool->num_holes--;
}

/**
 * npu_pool_hole_at - the node owning the hole that contains @addr
 * @pool: the pool
 * @addr: a VRAM offset
 *
 * Returns NULL when @addr is not free.
 */
struct npu_pool_node *npu_pool_hole_at(struct npu_pool *pool, u64 addr)
{
	struct npu_rb *rb = pool->by_addr.root;
	struct npu_pool_node *best = NULL;

	while (rb) {
		struct npu_pool_node *n = addr_node(rb);

		if (npu_pool_hole_start(n) <= addr) {
			best = n;
			rb = rb->right;
		} else {
			rb = rb->left;
		}
	}
	if (best && addr < npu_pool_hole_end(best))
		return best;
	return NULL;
}

static bool hole_fits(const struct npu_pool_node *h, u64 size, u64 align,
		      u64 *where)
{
	u64 start = npu_align_up(npu_pool_hole_start(h), align);

	if (start + size > npu_pool_hole_end(h) ||
	    start < npu_pool_hole_start(h))
		return false;
	*where = start;
	return true;
}

/* The first hole of the size tree with hole_size >= @size, or NULL. */
static struct npu_rb *size_lower_bound(struct npu_pool *pool, u64 size)
{
	struct npu_rb *rb = pool->by_size.root, *lb = NULL;

	while (rb) {
		if (size_node(rb)->hole_size >= size) {
			lb = rb;
			rb = rb->left;
		} else {
			rb = rb->right;
		}
	}
	return lb;
}

/* Misaligned holes looked at before jumping to a size that always fits. */
#define BEST_FIT_PROBES	8

/**
 * npu_pool_best_fit - the smallest hole that takes @size at @align
 * @pool: the pool
 * @size: bytes, a multiple of the granule
 * @align: power of two >= granule
 * @where: out, the aligned start inside the hole
 *
 * O(log n): a lower bound in the size tree, then a few successors while
 * the alignment padding does not fit; past those, a hole of
 * size + align - granule bytes fits at any start, so a second lower bound
 * ends the search (possibly missing a lucky smaller hole in between).
 */
struct npu_pool_node *npu_pool_best_fit(struct npu_pool *pool, u64 size,
					u64 align, u64 *where)
{
	struct npu_rb *lb = size_lower_bound(pool, size);
	int probes = 0;

	for (; lb; lb = npu_rb_next(lb)) {
		if (hole_fits(size_node(lb), size, align, where))
			return size_node(lb);
		if (++probes == BEST_FIT_PROBES) {
			lb = size_lower_bound(pool, size + align - pool->granule);
			if (lb && hole_fits(size_node(lb), size, align, where))
				return size_node(lb);
			return NULL;
		}
	}
	return NULL;
}

u64 npu_pool_extent(const struct npu_pool *pool)
{
	const struct npu_pool_node *last = pool->head.prev;

	return last == &pool->head ? 0 : last->start + last->size;
}

static void note_extent(struct npu_pool *pool)
{
	u64 e = npu_pool_extent(pool);

	if (e > pool->peak_extent)
		pool->peak_extent = e;
}

/**
 * npu_pool_place - put @node at @start inside the hole owned by @hole
 * @pool: the pool
 * @hole: owner of a hole containing [start, start + node->size)
 * @node: node with size set, not on the list
 * @start: where it goes
 */
void npu_pool_place(struct npu_pool *pool, struct npu_pool_node *hole,
		    struct npu_pool_node *node, u64 start)
{
	u64 end = npu_pool_hole_end(hole);

	npu_pool_hole_del(pool, hole);
	hole->hole_size = start - npu_pool_hole_start(hole);
	npu_pool_hole_add(pool, hole);

	node->start = start;
	node->prev = hole;
	node->next = hole->next;
	hole->next->prev = node;
	hole->next = node;
	node->hole_size = end - (start + node->size);
	npu_pool_hole_add(pool, node);
	note_extent(pool);
}

/**
 * npu_pool_unplace - take @node off the list; its range joins the hole of
 * the node before it (coalescing with its own hole)
 * @pool: the pool
 * @node: a placed node
 */
void npu_pool_unplace(struct npu_pool *pool, struct npu_pool_node *node)
{
	struct npu_pool_node *prev = node->prev;

	npu_pool_hole_del(pool, prev);
	npu_pool_hole_del(pool, node);
	prev->hole_size += node->size + node->hole_size;
	prev->next = node->next;
	node->next->prev = prev;
	node->prev = NULL;
	node->next = NULL;
	node->hole_size = 0;
	npu_pool_hole_add(pool, prev);
}

/**
 * npu_pool_create_params - make a pool
 * @p: size, granule, move callbacks, compaction threshold
 *
 * Returns NULL on a bad parameter (logged) or when out of memory.
 */
struct npu_pool *npu_pool_create_params(const struct npu_pool_params *p)
{
	static const struct npu_pool_move_ops no_ops;
	struct npu_pool *pool;
	u64 granule = p->granule ? p->granule : NPU_POOL_PAGE;

	if (!npu_is_pow2(granule) || granule < 64) {
		npu_err("pool: granule %llu is not a power of two >= 64\n",
			(unsigned long long)granule);
		return NULL;
	}
	if (p->size < granule) {
		npu_err("pool: size %llu is below one granule (%llu)\n",
			(unsigned long long)p->size,
			(unsigned long long)granule);
		return NULL;
	}
	pool = npu_zalloc(sizeof(*pool));
	if (!pool)
		return NULL;
	pool->granule = granule;
	pool->total = p->size & ~(granule - 1);
	pool->ops = p->ops ? p->ops : &no_ops;
	pool->dev = p->dev;
	pool->by_addr.augment = addr_augment;
	pool->head.prev = &pool->head;
	pool->head.next = &pool->head;
	pool->head.flags = NPU_POOL_PINNED;
	pool->head.align = granule;
	pool->head.hole_size = pool->total;
	pool->auto_compact = true;
	pool->threshold_ppm = p->compact_threshold_ppm;
	npu_pool_hole_add(pool, &pool->head);
	return pool;
}

/**
 * npu_pool_create - make a pool of @size bytes with the default granule
 * @size: VRAM bytes
 * @ops: move callbacks (may be NULL)
 * @dev: their first argument
 */
struct npu_pool *npu_pool_create(u64 size, const struct npu_pool_move_ops *ops,
				 void *dev)
{
	struct npu_pool_params p = {
		.size = size, .ops = ops, .dev = dev,
	};

	return npu_pool_create_params(&p);
}

/**
 * npu_pool_destroy - free the pool; nodes still allocated are leaked to
 * their owners (logged), never touched again
 * @pool: the pool, or NULL
 */
void npu_pool_destroy(struct npu_pool *pool)
{
	if (!pool)
		return;
	if (pool->num_nodes)
		npu_warn("pool: destroyed with %llu ranges still allocated\n",
			 (unsigned long long)pool->num_nodes);
	npu_free(pool);
}

/**
 * npu_pool_account_init - an empty account
 * @acct: the account
 * @quota: bytes it may hold, 0 = unlimited
 */
void npu_pool_account_init(struct npu_pool_account *acct, u64 quota)
{
	acct->quota = quota;
	acct->used = 0;
	acct->peak = 0;
	acct->failures = 0;
}

static int check_request(struct npu_pool *pool, struct npu_pool_node *node,
			 u64 *size, u64 *align, u32 flags)
{
	if (!node || !*size) {
		npu_dbg("pool: allocation of 0 bytes or without a node\n");
		return -EINVAL;
	}
	if (node->allocated) {
		npu_warn("pool: node already allocated at %llu\n",
			 (unsigned long long)node->start);
		return -EINVAL;
	}
	if (flags & ~NPU_POOL_PINNED) {
		npu_dbg("pool: unknown flags %#x\n", flags);
		return -EINVAL;
	}
	if (*align && !npu_is_pow2(*align)) {
		npu_dbg("pool: alignment %llu is not a power of two\n",
			(unsigned long long)*align);
		return -EINVAL;
	}
	if (*align < pool->granule)
		*align = pool->granule;
	if (*size > pool->total || *align > pool->total)
		return -ENOMEM;
	*size = npu_align_up(*size, pool->granule);
	return 0;
}

/**
 * npu_pool_alloc_account - allocate a range, charged to @acct
 * @pool: the pool
 * @node: the caller's node (not allocated)
 * @size: bytes (rounded up to the granule)
 * @align: power of two, 0 = granule
 * @flags: NPU_POOL_*
 * @owner: opaque, kept in node->owner
 * @acct: quota account or NULL
 *
 * Best fit; on failure with enough total free and auto-compaction on, the
 * pool compacts (fewest bytes moved) and retries.
 * Returns 0, -EINVAL, -EDQUOT (over @acct's quota) or -ENOMEM.
 */
int npu_pool_alloc_account(struct npu_pool *pool, struct npu_pool_node *node,
			   u64 size, u64 align, u32 flags, void *owner,
			   struct npu_pool_account *acct)
{
	struct npu_pool_node *hole;
	u64 where;
	int ret;

	ret = check_request(pool, node, &size, &align, flags);
	if (ret) {
		if (ret == -ENOMEM)
			pool->alloc_failures++;
		return ret;
	}
	if (acct && acct->quota && acct->used + size > acct->quota) {
		acct->failures++;
		pool->quota_failures++;
		return -EDQUOT;
	}

	hole = npu_pool_best_fit(pool, size, align, &where);
	if (!hole && pool->auto_compact && !pool->compacting &&
	    pool->total - pool->used >= size) {
		pool->auto_compactions++;
		if (!npu_pool_open_hole(pool, size, align, NULL))
			hole = npu_pool_best_fit(pool, size, align, &where);
	}
	if (!hole) {
		pool->alloc_failures++;
		return -ENOMEM;
	}

	node->size = size;
	node->align = align;
	node->flags = flags;
	node->owner = owner;
	node->moves = 0;
	node->account = acct;
	node->allocated = true;
	npu_pool_place(pool, hole, node, where);

	pool->used += size;
	pool->num_nodes++;
	if (flags & NPU_POOL_PINNED)
		pool->num_pinned++;
	if (pool->used > pool->peak_used)
		pool->peak_used = pool->used;
	if (acct) {
		acct->used += size;
		if (acct->used > acct->peak)
			acct->peak = acct->used;
	}
	return 0;
}

/**
 * npu_pool_alloc - allocate a range without quota accounting
 * @pool: the pool
 * @node: the caller's node (zeroed, or freed before)
 * @size: bytes
 * @align: power of two, 0 = granule
 * @flags: NPU_POOL_*
 * @owner: opaque, kept in node->owner
 *
 * See npu_pool_alloc_account().
 */
int npu_pool_alloc(struct npu_pool *pool, struct npu_pool_node *node,
		   u64 size, u64 align, u32 flags, void *owner)
{
	return npu_pool_alloc_account(pool, node, size, align, flags, owner,
				      NULL);
}

/* 1 - part / whole, in parts per million. */
static u32 ratio_ppm(u64 part, u64 whole)
{
	if (!whole || part >= whole)
		return 0;
	/* Keep part * 1e6 inside 64 bits (pools up to 16 TiB are exact). */
	while (whole > (1ull << 44)) {
		whole >>= 1;
		part >>= 1;
	}
	return (u32)(1000000ull - part * 1000000ull / whole);
}

/**
 * npu_pool_free - release a range; its space coalesces with free neighbours
 * @pool: the pool
 * @node: an allocated node (anything else is logged and ignored)
 */
void npu_pool_free(struct npu_pool *pool, struct npu_pool_node *node)
{
	if (!node || !node->allocated) {
		npu_warn("pool: free of a range that is not allocated\n");
		return;
	}
	npu_pool_unplace(pool, node);
	node->allocated = false;
	pool->used -= node->size;
	pool->num_nodes--;
	if (node->flags & NPU_POOL_PINNED)
		pool->num_pinned--;
	if (node->account) {
		node->account->used -= node->size;
		node->account = NULL;
	}

	if (pool->threshold_ppm && !pool->compacting && pool->num_holes >= 2) {
		u64 free = pool->total - pool->used;

		if (ratio_ppm(npu_pool_largest_free(pool), free) >
		    pool->threshold_ppm)
			npu_pool_compact_all(pool, NULL);
	}
}

/**
 * npu_pool_compact - open a hole of @min_hole bytes, moving the fewest bytes
 * @pool: the pool
 * @min_hole: bytes; 0 slides every unpinned range down (full compaction)
 * @bytes_moved: out, may be NULL
 */
int npu_pool_compact(struct npu_pool *pool, u64 min_hole, u64 *bytes_moved)
{
	if (bytes_moved)
		*bytes_moved = 0;
	if (pool->compacting)
		return -EBUSY;
	if (!min_hole)
		return npu_pool_compact_all(pool, bytes_moved);
	if (min_hole > pool->total)
		return -ENOMEM;
	min_hole = npu_align_up(min_hole, pool->granule);
	if (npu_pool_largest_free(pool) >= min_hole)
		return 0;
	if (pool->total - pool->used < min_hole)
		return -ENOMEM;
	return npu_pool_open_hole(pool, min_hole, pool->granule, bytes_moved);
}

/**
 * npu_pool_set_auto_compact - compact on failed allocations (default on)
 * @pool: the pool
 * @enable: on or off
 */
void npu_pool_set_auto_compact(struct npu_pool *pool, bool enable)
{
	pool->auto_compact = enable;
}

/**
 * npu_pool_set_compact_threshold - full compaction past a fragmentation
 * @pool: the pool
 * @ppm: largest-free ratio above which a free compacts the pool; 0 = never
 */
void npu_pool_set_compact_threshold(struct npu_pool *pool, u32 ppm)
{
	pool->threshold_ppm = ppm;
}

/**
 * npu_pool_largest_free - the largest free range, O(log n)
 * @pool: the pool
 */
u64 npu_pool_largest_free(struct npu_pool *pool)
{
	struct npu_rb *rb = npu_rb_last(&pool->by_size);

	return rb ? size_node(rb)->hole_size : 0;
}

/**
 * npu_pool_unusable_free_ppm - share of free bytes that cannot serve @size
 * @pool: the pool
 * @size: request size in bytes
 *
 * Free bytes in holes smaller than @size over all free bytes, in ppm
 * (Gorman's unusable free space index). O(k log n) for k small holes.
 */
u32 npu_pool_unusable_free_ppm(struct npu_pool *pool, u64 size)
{
	u64 free = pool->total - pool->used, small = 0;
	struct npu_rb *rb;

	if (!free)
		return 0;
	for (rb = npu_rb_first(&pool->by_size); rb; rb = npu_rb_next(rb)) {
		if (size_node(rb)->hole_size >= size)
			break;
		small += size_node(rb)->hole_size;
	}
	return 1000000u - ratio_ppm(small, free);
}

/**
 * npu_pool_get_stats - the figures of struct npu_pool_stats
 * @pool: the pool
 * @st: filled in
 */
void npu_pool_get_stats(struct npu_pool *pool, struct npu_pool_stats *st)
{
	u64 free = pool->total - pool->used;

	memset(st, 0, sizeof(*st));
	st->total = pool->total;
	st->used = pool->used;
	st->free = free;
	st->largest_free = npu_pool_largest_free(pool);
	st->peak_used = pool->peak_used;
	st->num_nodes = pool->num_nodes;
	st->num_free_ranges = pool->num_holes;
	st->compactions = pool->compactions;
	st->bytes_moved = pool->bytes_moved;
	st->pause_ns = pool->pause_ns;
	st->alloc_failures = pool->alloc_failures;
	st->largest_free_ratio_ppm = ratio_ppm(st->largest_free, free);
	st->granule = pool->granule;
	st->extent = npu_pool_extent(pool);
	st->peak_extent = pool->peak_extent;
	st->utilisation_frag_ppm = ratio_ppm(pool->peak_used,
					     pool->peak_extent);
	st->nodes_moved = pool->nodes_moved;
	st->max_pause_ns = pool->max_pause_ns;
	st->compact_failures = pool->compact_failures;
	st->auto_compactions = pool->auto_compactions;
	st->num_pinned = pool->num_pinned;
	st->quota_failures = pool->quota_failures;
}

/**
 * npu_pool_reset_peaks - start peak_used and peak_extent from now
 * @pool: the pool
 */
void npu_pool_reset_peaks(struct npu_pool *pool)
{
	pool->peak_used = pool->used;
	pool->peak_extent = npu_pool_extent(pool);
}
