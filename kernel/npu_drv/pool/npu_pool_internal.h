/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_pool_internal.h - what the pool's own files share (not an API).
 *
 * Layout (as drm_mm): allocated ranges are on a circular list in address
 * order, headed by a sentinel of size 0 at offset 0; each node owns the hole
 * that follows it, up to the next node's start (or the end of the pool).
 * Holes of non-zero size are in two trees: by (size, address) for best fit
 * and by address, augmented with the largest hole of each subtree.
 */
#ifndef NPU_POOL_INTERNAL_H
#define NPU_POOL_INTERNAL_H

#include "npu_pool.h"

struct npu_pool {
	u64 total;
	u64 granule;
	const struct npu_pool_move_ops *ops;
	void *dev;

	struct npu_pool_node head;		/* sentinel, start 0, size 0 */
	struct npu_rb_root by_size;
	struct npu_rb_root by_addr;

	u64 used;
	u64 peak_used;
	u64 peak_extent;
	u64 num_nodes;
	u64 num_holes;
	u64 num_pinned;

	u64 compactions;
	u64 auto_compactions;
	u64 compact_failures;
	u64 bytes_moved;
	u64 nodes_moved;
	u64 pause_ns;
	u64 max_pause_ns;
	u64 alloc_failures;
	u64 quota_failures;

	bool auto_compact;
	bool compacting;			/* no re-entry from callbacks */
	u32 threshold_ppm;
};

static inline u64 npu_pool_hole_start(const struct npu_pool_node *n)
{
	return n->start + n->size;
}

static inline u64 npu_pool_hole_end(const struct npu_pool_node *n)
{
	return n->start + n->size + n->hole_size;
}

static inline bool npu_pool_is_pinned(const struct npu_pool_node *n)
{
	return n->flags & NPU_POOL_PINNED;
}

/* Not moved by this compaction: pinned, or busy when it started. */
static inline bool npu_pool_is_fixed(const struct npu_pool_node *n)
{
	return npu_pool_is_pinned(n) || n->stay;
}

/* Hole bookkeeping (npu_pool.c). */
void npu_pool_hole_add(struct npu_pool *pool, struct npu_pool_node *n);
void npu_pool_hole_del(struct npu_pool *pool, struct npu_pool_node *n);
struct npu_pool_node *npu_pool_hole_at(struct npu_pool *pool, u64 addr);
struct npu_pool_node *npu_pool_best_fit(struct npu_pool *pool, u64 size,
					u64 align, u64 *where);
void npu_pool_place(struct npu_pool *pool, struct npu_pool_node *hole,
		    struct npu_pool_node *node, u64 start);
void npu_pool_unplace(struct npu_pool *pool, struct npu_pool_node *node);
u64 npu_pool_extent(const struct npu_pool *pool);

/* Compaction (npu_pool_compact.c). */
int npu_pool_open_hole(struct npu_pool *pool, u64 size, u64 align,
		       u64 *moved);
int npu_pool_compact_all(struct npu_pool *pool, u64 *moved);

#endif /* NPU_POOL_INTERNAL_H */
