/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_pool.h - the device memory (VRAM) pool, portable core.
 *
 * Buffer objects occupy contiguous ranges of VRAM. The pool hands out ranges
 * (best fit, alignment honoured), keeps statistics, and compacts: it moves
 * unpinned ranges to open a hole, through callbacks that let the device
 * quiesce users of a range, copy its bytes and tell the owner where it went
 * (so that CPU mappings are shot down and refault at the new place).
 *
 * Locking: the pool has no lock of its own; the caller serialises all calls
 * (the device's memory lock). The move callbacks run under that lock.
 */
#ifndef NPU_POOL_H
#define NPU_POOL_H

#include "../npu_os.h"

#define NPU_POOL_PAGE		4096ull	/* allocation granule */

/* npu_pool_alloc() flags */
#define NPU_POOL_PINNED		(1u << 0)	/* never moved */

/**
 * struct npu_pool_node - one allocated range, embedded in its owner
 * @start: byte offset in VRAM (changes when compaction moves the range)
 * @size: bytes (multiple of NPU_POOL_PAGE)
 * @flags: NPU_POOL_* given at allocation
 * @owner: opaque, passed back to the callbacks (e.g. the buffer object)
 * @moves: times compaction has moved this range
 * @priv: reserved for the pool's own bookkeeping
 */
struct npu_pool_node {
	u64 start;
	u64 size;
	u32 flags;
	u32 pad;
	void *owner;
	u64 moves;
	void *priv;
};

/**
 * struct npu_pool_move_ops - how the device helps compaction
 * @quiesce: wait until no job uses @node and keep new jobs that use it from
 *           dispatching until @resume; may sleep. Non-zero refuses the move.
 * @copy: move @size bytes inside VRAM from @src to @dst (ranges may overlap)
 * @moved: @node now lives at node->start (was @old_start): update address
 *         tables and shoot down CPU mappings so they refault
 * @resume: let jobs that use @node dispatch again
 */
struct npu_pool_move_ops {
	int (*quiesce)(void *dev, struct npu_pool_node *node);
	void (*copy)(void *dev, u64 dst, u64 src, u64 size);
	void (*moved)(void *dev, struct npu_pool_node *node, u64 old_start);
	void (*resume)(void *dev, struct npu_pool_node *node);
};

/**
 * struct npu_pool_stats - figures of Documentation/memory-pool.rst
 * Fragmentation figures are in parts per million (no floats in the core).
 */
struct npu_pool_stats {
	u64 total;
	u64 used;
	u64 free;
	u64 largest_free;
	u64 peak_used;
	u64 num_nodes;
	u64 num_free_ranges;
	u64 compactions;
	u64 bytes_moved;
	u64 pause_ns;
	u64 alloc_failures;
	u32 largest_free_ratio_ppm;	/* 1 - largest free / total free */
	u32 pad;
};

struct npu_pool;

struct npu_pool *npu_pool_create(u64 size, const struct npu_pool_move_ops *ops,
				 void *dev);
void npu_pool_destroy(struct npu_pool *pool);

/*
 * Returns 0 or -ENOMEM. When the request fails although total free is large
 * enough and auto-compaction is enabled, the pool compacts and retries.
 */
int npu_pool_alloc(struct npu_pool *pool, struct npu_pool_node *node,
		   u64 size, u64 align, u32 flags, void *owner);
void npu_pool_free(struct npu_pool *pool, struct npu_pool_node *node);

/* Open a hole of @min_hole bytes moving the fewest bytes (0: compact all). */
int npu_pool_compact(struct npu_pool *pool, u64 min_hole, u64 *bytes_moved);
void npu_pool_set_auto_compact(struct npu_pool *pool, bool enable);

void npu_pool_get_stats(struct npu_pool *pool, struct npu_pool_stats *st);
/* Unusable-free index at @size, in ppm: share of free bytes in ranges < size. */
u32 npu_pool_unusable_free_ppm(struct npu_pool *pool, u64 size);

#endif /* NPU_POOL_H */
