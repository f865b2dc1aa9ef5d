// SPDX-License-Identifier: MIT
/*
 * be_pool.c - our VRAM pool as a benchmark backend, with and without
 * compaction. No bytes are copied (there is no VRAM behind the benchmark);
 * the pool still accounts bytes moved and the time spent per move.
 */
#include <stdlib.h>

#include "bench_alloc.h"
#include "pool/npu_pool.h"

struct pool_be {
	struct npu_pool *pool;
	struct npu_pool_node *nodes;
	uint8_t *live;
	uint32_t nids;
};

struct npu_pool *bench_pool_create(uint64_t capacity, bool compact)
{
	struct npu_pool_params p = {
		.size = capacity, .granule = BENCH_GRANULE,
	};
	struct npu_pool *pool = npu_pool_create_params(&p);

	if (pool)
		npu_pool_set_auto_compact(pool, compact);
	return pool;
}

void bench_pool_figures(struct npu_pool *pool, struct backend_figures *f)
{
	struct npu_pool_stats st;

	npu_pool_get_stats(pool, &st);
	f->moved_bytes = st.bytes_moved;
	f->compactions = st.compactions;
	f->pause_ns = st.pause_ns;
	f->max_pause_ns = st.max_pause_ns;
	f->pauses = st.nodes_moved;
	f->peak_reserved = st.peak_extent;
}

static void *pool_create(uint64_t capacity, uint32_t nids, bool compact)
{
	struct pool_be *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->pool = bench_pool_create(capacity, compact);
	b->nodes = calloc(nids ? nids : 1, sizeof(*b->nodes));
	b->live = calloc(nids ? nids : 1, 1);
	b->nids = nids;
	if (!b->pool || !b->nodes || !b->live) {
		npu_pool_destroy(b->pool);
		free(b->nodes);
		free(b->live);
		free(b);
		return NULL;
	}
	return b;
}

static void *create_compact(uint64_t capacity, uint32_t nids)
{
	return pool_create(capacity, nids, true);
}

static void *create_nocompact(uint64_t capacity, uint32_t nids)
{
	return pool_create(capacity, nids, false);
}

static void pool_destroy(void *p)
{
	struct pool_be *b = p;
	uint32_t i;

	/* a failed replay leaves ranges behind */
	for (i = 0; i < b->nids; i++)
		if (b->live[i])
			npu_pool_free(b->pool, &b->nodes[i]);
	npu_pool_destroy(b->pool);
	free(b->nodes);
	free(b->live);
	free(b);
}

static int pool_alloc(void *p, uint32_t id, uint64_t size, uint32_t stream)
{
	struct pool_be *b = p;
	int ret = npu_pool_alloc(b->pool, &b->nodes[id], size, 0, 0, NULL);

	b->live[id] = !ret;
	return ret;
}

static void pool_free(void *p, uint32_t id)
{
	struct pool_be *b = p;

	npu_pool_free(b->pool, &b->nodes[id]);
	b->live[id] = 0;
}

static void pool_sync(void *p)
{
}

static void pool_free_space(void *p, uint64_t *free, uint64_t *largest)
{
	struct pool_be *b = p;
	struct npu_pool_stats st;

	npu_pool_get_stats(b->pool, &st);
	*free = st.free;
	*largest = st.largest_free;
}

static uint32_t pool_unusable(void *p, uint64_t size)
{
	struct pool_be *b = p;

	return npu_pool_unusable_free_ppm(b->pool, size);
}

static void pool_figures(void *p, struct backend_figures *f)
{
	struct pool_be *b = p;

	bench_pool_figures(b->pool, f);
}

const struct backend be_pool_compact = {
	.name = "pool+compact",
	.what = "our VRAM pool: best fit, fewest-bytes compaction on failure",
	.ours = true,
	.create = create_compact, .destroy = pool_destroy,
	.alloc = pool_alloc, .free = pool_free, .sync = pool_sync,
	.free_space = pool_free_space, .unusable_ppm = pool_unusable,
	.figures = pool_figures,
};

const struct backend be_pool_nocompact = {
	.name = "pool",
	.what = "our VRAM pool: best fit, compaction off",
	.create = create_nocompact, .destroy = pool_destroy,
	.alloc = pool_alloc, .free = pool_free, .sync = pool_sync,
	.free_space = pool_free_space, .unusable_ppm = pool_unusable,
	.figures = pool_figures,
};
