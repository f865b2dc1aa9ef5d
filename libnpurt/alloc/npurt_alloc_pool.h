/* SPDX-License-Identifier: MIT */
/*
 * npurt_alloc_pool.h - a caching-allocator backend over a bare npu_pool
 * (no device): segments are pool ranges, compaction is the pool's, events
 * are tokens that complete when npurt_pool_backend_complete() says so.
 * Used by the allocation benchmark and the allocator's tests.
 */
#ifndef NPURT_ALLOC_POOL_H
#define NPURT_ALLOC_POOL_H

#include "npurt_alloc.h"
#include "pool/npu_pool.h"

struct npurt_pool_backend {
	struct npu_pool *pool;
	uint64_t next_event;		/* tokens handed out: 1, 2, ... */
	uint64_t completed;		/* events <= this have completed */
	uint64_t live_segments;
};

/* Fill @be with callbacks over @pool; @pb must outlive the allocator. */
void npurt_pool_backend_init(struct npurt_pool_backend *pb,
			     struct npu_pool *pool,
			     struct npurt_alloc_backend *be);
/* Every event recorded so far has completed. */
void npurt_pool_backend_complete(struct npurt_pool_backend *pb);

#endif /* NPURT_ALLOC_POOL_H */
