// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_pool_check.c - walking the pool: the map for debugfs and the
 * invariant checker used by the tests (and worth calling from a debug
 * build after every operation).
 */
#include "npu_pool_internal.h"

/**
 * npu_pool_for_each - visit ranges and holes in address order
 * @pool: the pool
 * @fn: called with (arg, start, size, node or NULL for a hole)
 * @arg: passed through
 */
int npu_pool_for_each(struct npu_pool *pool,
		      int (*fn)(void *arg, u64 start, u64 size,
				const struct npu_pool_node *node),
		      void *arg)
{
	struct npu_pool_node *n = &pool->head;
	int ret;

	do {
		if (n != &pool->head) {
			ret = fn(arg, n->start, n->size, n);
			if (ret)
				return ret;
		}
		if (n->hole_size) {
			ret = fn(arg, npu_pool_hole_start(n), n->hole_size,
				 NULL);
			if (ret)
				return ret;
		}
		n = n->next;
	} while (n != &pool->head);
	return 0;
}

static const char *check_trees(struct npu_pool *pool, u64 holes)
{
	struct npu_rb *rb;
	u64 count = 0, prev_start = 0;
	const struct npu_pool_node *prev = NULL;

	if (npu_rb_validate(&pool->by_size) < 0)
		return "size tree breaks the red-black rules";
	if (npu_rb_validate(&pool->by_addr) < 0)
		return "address tree breaks the red-black rules";
	for (rb = npu_rb_first(&pool->by_size); rb; rb = npu_rb_next(rb)) {
		const struct npu_pool_node *h =
			npu_rb_entry(rb, struct npu_pool_node, rb_hole_size);

		if (!h->hole_size)
			return "empty hole in the size tree";
		if (prev && (prev->hole_size > h->hole_size ||
			     (prev->hole_size == h->hole_size &&
			      npu_pool_hole_start(prev) >=
			      npu_pool_hole_start(h))))
			return "size tree out of order";
		prev = h;
		count++;
	}
	if (count != holes)
		return "size tree does not hold every hole";
	count = 0;
	for (rb = npu_rb_first(&pool->by_addr); rb; rb = npu_rb_next(rb)) {
		const struct npu_pool_node *h =
			npu_rb_entry(rb, struct npu_pool_node, rb_hole_addr);
		u64 m = h->hole_size;
		const struct npu_pool_node *c;

		if (count && npu_pool_hole_start(h) <= prev_start)
			return "address tree out of order";
		prev_start = npu_pool_hole_start(h);
		if (rb->left) {
			c = npu_rb_entry(rb->left, struct npu_pool_node,
					 rb_hole_addr);
			if (c->subtree_max_hole > m)
				m = c->subtree_max_hole;
		}
		if (rb->right) {
			c = npu_rb_entry(rb->right, struct npu_pool_node,
					 rb_hole_addr);
			if (c->subtree_max_hole > m)
				m = c->subtree_max_hole;
		}
		if (m != h->subtree_max_hole)
			return "address tree's largest-hole summary is stale";
		count++;
	}
	if (count != holes)
		return "address tree does not hold every hole";
	return NULL;
}

/**
 * npu_pool_check - verify every invariant of the pool
 * @pool: the pool
 *
 * Returns NULL when sound, else a sentence saying what is broken.
 */
const char *npu_pool_check(struct npu_pool *pool)
{
	const struct npu_pool_node *n = &pool->head;
	u64 pos = 0, used = 0, nodes = 0, holes = 0, pinned = 0;

	if (pool->head.start || pool->head.size)
		return "sentinel moved";
	do {
		const struct npu_pool_node *next = n->next;

		if (next->prev != n)
			return "list links broken";
		if (n != &pool->head) {
			if (!n->allocated)
				return "free node on the list";
			if (n->start != pos)
				return "range does not start where the hole before it ends";
			if (!n->size || n->size & (pool->granule - 1))
				return "range size not a multiple of the granule";
			if (n->start & (n->align - 1))
				return "range not aligned as requested";
			used += n->size;
			nodes++;
			if (npu_pool_is_pinned(n))
				pinned++;
		}
		pos = n->start + n->size;
		if (pos > pool->total)
			return "range beyond the end of the pool";
		if (n->hole_size) {
			holes++;
			if (next != &pool->head &&
			    n->hole_size + pos != next->start)
				return "hole does not reach the next range";
		} else if (next != &pool->head && next->start != pos) {
			return "gap without a hole";
		}
		pos += n->hole_size;
		n = next;
	} while (n != &pool->head);
	if (pos != pool->total)
		return "holes and ranges do not cover the pool";
	if (used != pool->used)
		return "used bytes differ from a recount";
	if (nodes != pool->num_nodes)
		return "range count differs from a recount";
	if (pinned != pool->num_pinned)
		return "pinned count differs from a recount";
	if (holes != pool->num_holes)
		return "hole count differs from a recount";
	if (pool->peak_used < pool->used)
		return "peak below current use";
	if (pool->peak_extent < npu_pool_extent(pool))
		return "peak extent below current extent";
	return check_trees(pool, holes);
}
