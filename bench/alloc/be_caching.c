// SPDX-License-Identifier: MIT
/*
 * be_caching.c - the runtime's caching allocator on a pool of the given
 * capacity, in two configurations: ours (pool with compaction, retry chain
 * with compaction and exact-size segments) and PyTorch's policy (the same
 * allocator with compaction and the exact-size retry off, on a device that
 * never compacts): the PyTorch-caching-allocator-like baseline.
 */
#include <stdlib.h>

#include "bench_alloc.h"
#include "npurt_alloc.h"
#include "npurt_alloc_pool.h"

struct caching_be {
	struct npu_pool *pool;
	struct npurt_pool_backend pb;
	struct npurt_alloc_backend be;
	struct npurt_alloc *a;
	struct npurt_block **blocks;
	uint64_t capacity;
};

static void *caching_create(uint64_t capacity, uint32_t nids, bool ours)
{
	struct npurt_alloc_config cfg = {
		.flags = ours ? 0 :
			NPURT_ALLOC_NO_COMPACT | NPURT_ALLOC_NO_EXACT_RETRY,
	};
	struct caching_be *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->capacity = capacity;
	b->pool = bench_pool_create(capacity, ours);
	b->blocks = calloc(nids ? nids : 1, sizeof(*b->blocks));
	if (!b->pool || !b->blocks)
		goto fail;
	npurt_pool_backend_init(&b->pb, b->pool, &b->be);
	b->a = npurt_alloc_create(&b->be, &cfg);
	if (b->a)
		return b;
fail:
	npu_pool_destroy(b->pool);
	free(b->blocks);
	free(b);
	return NULL;
}

static void *create_ours(uint64_t capacity, uint32_t nids)
{
	return caching_create(capacity, nids, true);
}

static void *create_torch(uint64_t capacity, uint32_t nids)
{
	return caching_create(capacity, nids, false);
}

static void caching_destroy(void *p)
{
	struct caching_be *b = p;

	npurt_alloc_destroy(b->a);	/* releases every segment */
	npu_pool_destroy(b->pool);
	free(b->blocks);
	free(b);
}

static int caching_alloc(void *p, uint32_t id, uint64_t size,
			 uint32_t stream)
{
	struct caching_be *b = p;

	return npurt_alloc_malloc(b->a, size, stream, &b->blocks[id]);
}

static void caching_free(void *p, uint32_t id)
{
	struct caching_be *b = p;

	npurt_alloc_free(b->a, b->blocks[id]);
	b->blocks[id] = NULL;
}

static void caching_sync(void *p)
{
	struct caching_be *b = p;

	npurt_pool_backend_complete(&b->pb);
	npurt_alloc_synchronize(b->a);
}

static int64_t stat(struct caching_be *b, const char *key)
{
	int64_t v = 0;

	npurt_alloc_stat(b->a, key, &v);
	return v;
}

/*
 * Free for a request: device free plus what the cache holds unallocated;
 * largest: the larger of the device's largest range and the largest
 * cached block is not tracked, so the device's is reported.
 */
static void caching_free_space(void *p, uint64_t *free, uint64_t *largest)
{
	struct caching_be *b = p;
	struct npu_pool_stats st;

	npu_pool_get_stats(b->pool, &st);
	*free = b->capacity - (uint64_t)stat(b, "allocated_bytes.all.current");
	*largest = st.largest_free;
}

static uint32_t caching_unusable(void *p, uint64_t size)
{
	struct caching_be *b = p;

	return npu_pool_unusable_free_ppm(b->pool, size);
}

static void caching_figures(void *p, struct backend_figures *f)
{
	struct caching_be *b = p;

	bench_pool_figures(b->pool, f);
	/* segments the cache reserved, not the pool's extent */
	f->peak_reserved = (uint64_t)stat(b, "reserved_bytes.all.peak");
}

const struct backend be_caching_pool = {
	.name = "caching+pool",
	.what = "our caching allocator on our pool (retry chain with compaction)",
	.ours = true,
	.create = create_ours, .destroy = caching_destroy,
	.alloc = caching_alloc, .free = caching_free, .sync = caching_sync,
	.free_space = caching_free_space, .unusable_ppm = caching_unusable,
	.figures = caching_figures,
};

const struct backend be_pytorch_like = {
	.name = "pytorch-like",
	.what = "PyTorch caching-allocator policy, device without compaction",
	.create = create_torch, .destroy = caching_destroy,
	.alloc = caching_alloc, .free = caching_free, .sync = caching_sync,
	.free_space = caching_free_space, .unusable_ppm = caching_unusable,
	.figures = caching_figures,
};
