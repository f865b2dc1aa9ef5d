// SPDX-License-Identifier: MIT
/*
 * npurt_alloc_pool.c - caching-allocator backend over a bare npu_pool.
 */
#include <errno.h>
#include <stdlib.h>

#include "npurt_alloc_pool.h"

static int pb_seg_alloc(void *ctx, uint64_t size, uint64_t *seg,
			uint64_t *addr)
{
	struct npurt_pool_backend *pb = ctx;
	struct npu_pool_node *n = calloc(1, sizeof(*n));
	int ret;

	if (!n)
		return -ENOMEM;
	ret = npu_pool_alloc(pb->pool, n, size, 0, 0, NULL);
	if (ret) {
		free(n);
		return ret;
	}
	*seg = (uint64_t)(uintptr_t)n;
	*addr = n->start;
	pb->live_segments++;
	return 0;
}

static void pb_seg_free(void *ctx, uint64_t seg)
{
	struct npurt_pool_backend *pb = ctx;
	struct npu_pool_node *n = (struct npu_pool_node *)(uintptr_t)seg;

	npu_pool_free(pb->pool, n);
	free(n);
	pb->live_segments--;
}

static int pb_compact(void *ctx, uint64_t min_hole)
{
	struct npurt_pool_backend *pb = ctx;

	return npu_pool_compact(pb->pool, min_hole, NULL);
}

static int pb_query(void *ctx, struct npurt_alloc_device_info *info)
{
	struct npurt_pool_backend *pb = ctx;
	struct npu_pool_stats st;

	npu_pool_get_stats(pb->pool, &st);
	info->total = st.total;
	info->free = st.free;
	info->largest_free = st.largest_free;
	return 0;
}

static uint64_t pb_event_record(void *ctx, uint64_t stream)
{
	struct npurt_pool_backend *pb = ctx;

	return ++pb->next_event;
}

static int pb_event_query(void *ctx, uint64_t event)
{
	struct npurt_pool_backend *pb = ctx;

	return event <= pb->completed;
}

void npurt_pool_backend_init(struct npurt_pool_backend *pb,
			     struct npu_pool *pool,
			     struct npurt_alloc_backend *be)
{
	pb->pool = pool;
	pb->next_event = 0;
	pb->completed = 0;
	pb->live_segments = 0;
	be->ctx = pb;
	be->seg_alloc = pb_seg_alloc;
	be->seg_free = pb_seg_free;
	be->compact = pb_compact;
	be->query = pb_query;
	be->event_record = pb_event_record;
	be->event_query = pb_event_query;
	be->event_release = NULL;
}

void npurt_pool_backend_complete(struct npurt_pool_backend *pb)
{
	pb->completed = pb->next_event;
}
