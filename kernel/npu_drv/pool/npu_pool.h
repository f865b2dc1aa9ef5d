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
 * Free ranges ("holes") are kept in two red-black trees, by size (best fit
 * in O(log n)) and by address (augmented with the largest hole of each
 * subtree, for lowest-address fit in O(log n)); allocated ranges are kept in
 * address order on a list, each owning the hole that follows it (the
 * drm_mm layout). Allocation and free never allocate memory themselves.
 *
 * Compaction picks the fewest bytes to move that open the needed hole (a
 * sliding window over address order, as drm_mm's eviction scanner), see
 * Documentation/memory-pool.rst.
 *
 * Locking: the pool has no lock of its own; the caller serialises all calls
 * (the device's memory lock). The move callbacks run under that lock.
 */
#ifndef NPU_POOL_H
#define NPU_POOL_H

#include "../npu_os.h"
#include "npu_rbtree.h"

#define NPU_POOL_PAGE		4096ull	/* default allocation granule */

/* npu_pool_alloc() flags */
#define NPU_POOL_PINNED		BIT(0)	/* never moved */

struct npu_pool_account;

/**
 * struct npu_pool_node - one allocated range, embedded in its owner
 * @start: byte offset in VRAM (changes when compaction moves the range)
 * @size: bytes (multiple of the pool's granule, NPU_POOL_PAGE by default)
 * @flags: NPU_POOL_* given at allocation
 * @owner: opaque, passed back to the callbacks (e.g. the buffer object)
 * @moves: times compaction has moved this range
 * @priv: unused, kept for source compatibility
 *
 * The members below @priv belong to the pool: do not touch them. The node
 * must stay at the same address while allocated; it may be reused after
 * npu_pool_free().
 */
struct npu_pool_node {
	u64 start;
	u64 size;
	u32 flags;
	u32 pad;
	void *owner;
	u64 moves;
	void *priv;

	/* private to the pool */
	struct npu_pool_node *prev, *next;	/* address order, circular */
	struct npu_rb rb_hole_size;		/* hole after this node, by size */
	struct npu_rb rb_hole_addr;		/* ... and by address */
	u64 hole_size;				/* bytes free after this node */
	u64 subtree_max_hole;			/* augment of rb_hole_addr */
	u64 align;				/* honoured by moves as well */
	struct npu_pool_account *account;
	bool allocated;
	bool stay;				/* busy: this compaction skips it */
};

/**
 * struct npu_pool_move_ops - how the device helps compaction
 * @quiesce: keep new jobs that use @node from dispatching until @resume;
 *           non-zero refuses the move (e.g. a task is using @node: the
 *           device core refuses rather than wait for it).
 * @copy: move @size bytes inside VRAM from @src to @dst (ranges may overlap:
 *        memmove semantics)
 * @moved: @node now lives at node->start (was @old_start): update address
 *         tables and shoot down CPU mappings so they refault
 * @resume: let jobs that use @node dispatch again
 * @busy: optional; true if @node cannot be moved now without waiting (a
 *        device task is using it). Asked once per node when a compaction
 *        starts: the planners then treat a busy node as pinned, so that a
 *        compaction never sleeps on a running task.
 *
 * Any member may be NULL (e.g. a pool without real memory behind it, as in
 * the allocation benchmark). For each moved node the pool calls, in order,
 * quiesce, copy, moved, resume; nothing else is quiesced. A node that
 * became busy after the compaction started makes @quiesce refuse (non-zero)
 * instead of waiting; the pool leaves it where it is.
 */
struct npu_pool_move_ops {
	bool (*busy)(void *dev, struct npu_pool_node *node);
	int (*quiesce)(void *dev, struct npu_pool_node *node);
	void (*copy)(void *dev, u64 dst, u64 src, u64 size);
	void (*moved)(void *dev, struct npu_pool_node *node, u64 old_start);
	void (*resume)(void *dev, struct npu_pool_node *node);
};

/**
 * struct npu_pool_stats - figures of Documentation/memory-pool.rst
 * Fragmentation figures are in parts per million (no floats in the core).
 *
 * "Reserved", for the pool, is the extent: the end of the highest allocated
 * range. It is the VRAM a pool of exactly that size would have needed for
 * the same placement, so 1 - peak used / peak extent measures how much
 * address space the placement policy wasted at its worst moment
 * (utilisation fragmentation, as in the literature on allocators).
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
	/* additions (v2) */
	u64 granule;
	u64 extent;			/* end of the highest allocated range */
	u64 peak_extent;
	u32 utilisation_frag_ppm;	/* 1 - peak used / peak extent */
	u32 pad2;
	u64 nodes_moved;		/* individual range moves */
	u64 max_pause_ns;		/* longest single quiesce..resume */
	u64 compact_failures;		/* compactions that could not help */
	u64 auto_compactions;		/* triggered by a failed allocation */
	u64 num_pinned;
	u64 quota_failures;
};

/**
 * struct npu_pool_account - per-owner (e.g. per open file) usage and quota
 * @quota: bytes this owner may hold at most, 0 = unlimited
 * @used: bytes held now; @peak: most ever held; @failures: refused for quota
 * Initialise with npu_pool_account_init(); the caller owns the memory and
 * must keep it alive while any node charged to it is allocated.
 */
struct npu_pool_account {
	u64 quota;
	u64 used;
	u64 peak;
	u64 failures;
};

/**
 * struct npu_pool_params - npu_pool_create_params() arguments
 * @size: VRAM bytes managed (rounded down to @granule)
 * @granule: allocation unit, a power of two >= 64; 0 = NPU_POOL_PAGE
 * @ops, @dev: move callbacks and their first argument
 * @compact_threshold_ppm: when non-zero, a free that leaves the
 *     largest-free ratio above this threshold (and at least 2 free ranges)
 *     runs a full compaction; 0 = only on failure and on demand
 */
struct npu_pool_params {
	u64 size;
	u64 granule;
	const struct npu_pool_move_ops *ops;
	void *dev;
	u32 compact_threshold_ppm;
	u32 pad;
};

struct npu_pool;

struct npu_pool *npu_pool_create(u64 size, const struct npu_pool_move_ops *ops,
				 void *dev);
struct npu_pool *npu_pool_create_params(const struct npu_pool_params *p);
void npu_pool_destroy(struct npu_pool *pool);

/*
 * Returns 0 or -ENOMEM (no room even after compaction), -EINVAL (size 0,
 * alignment not a power of two, node already allocated). When the request
 * fails although total free is large enough and auto-compaction is enabled
 * (the default), the pool compacts and retries.
 */
int npu_pool_alloc(struct npu_pool *pool, struct npu_pool_node *node,
		   u64 size, u64 align, u32 flags, void *owner);
/* As npu_pool_alloc(), charged to @acct (may be NULL); -EDQUOT past quota. */
int npu_pool_alloc_account(struct npu_pool *pool, struct npu_pool_node *node,
			   u64 size, u64 align, u32 flags, void *owner,
			   struct npu_pool_account *acct);
void npu_pool_free(struct npu_pool *pool, struct npu_pool_node *node);

/*
 * Open a hole of @min_hole bytes moving the fewest bytes (0: compact all:
 * slide every unpinned range down). Returns 0 (also when the hole already
 * existed) or -ENOMEM when no placement of the unpinned ranges opens it.
 * @bytes_moved (may be NULL) receives the bytes this call moved.
 */
int npu_pool_compact(struct npu_pool *pool, u64 min_hole, u64 *bytes_moved);
void npu_pool_set_auto_compact(struct npu_pool *pool, bool enable);
void npu_pool_set_compact_threshold(struct npu_pool *pool, u32 ppm);

void npu_pool_get_stats(struct npu_pool *pool, struct npu_pool_stats *st);
void npu_pool_reset_peaks(struct npu_pool *pool);
/* Unusable-free index at @size, in ppm: share of free bytes in ranges < size. */
u32 npu_pool_unusable_free_ppm(struct npu_pool *pool, u64 size);
u64 npu_pool_largest_free(struct npu_pool *pool);

void npu_pool_account_init(struct npu_pool_account *acct, u64 quota);

/*
 * Visit every range in address order, allocated (@node set) and free
 * (@node NULL), e.g. for a debugfs pool map. Stops early when @fn returns
 * non-zero and returns that value.
 */
int npu_pool_for_each(struct npu_pool *pool,
		      int (*fn)(void *arg, u64 start, u64 size,
				const struct npu_pool_node *node),
		      void *arg);

/*
 * Check every invariant (ranges ordered, disjoint, inside the pool; holes
 * exact and coalesced; both trees consistent with the list; counters equal
 * a recount). Returns NULL when sound, else what is broken. O(n).
 */
const char *npu_pool_check(struct npu_pool *pool);

#endif /* NPU_POOL_H */
