// SPDX-License-Identifier: MIT
/*
 * alloc_caching_test - the caching allocator on a bare pool: rounding,
 * pools and segment sizes, splitting, stream-ordered reuse, record_stream,
 * the retry chain (cache release, compaction, exact size), OOM reports,
 * the memory fraction, PyTorch stats keys, and a seeded random run whose
 * figures are checked against a recount.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npurt_alloc.h"
#include "npurt_alloc_pool.h"

#define MiB (1024ull * 1024ull)

static int tap_n, tap_bad;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tap_bad += !cond;
}

struct env {
	struct npu_pool *pool;
	struct npurt_pool_backend pb;
	struct npurt_alloc_backend be;
	struct npurt_alloc *a;
};

static void env_init(struct env *e, uint64_t device, uint32_t flags)
{
	struct npu_pool_params p = { .size = device, .granule = 512 };
	struct npurt_alloc_config cfg = { .flags = flags };

	e->pool = npu_pool_create_params(&p);
	npurt_pool_backend_init(&e->pb, e->pool, &e->be);
	e->a = npurt_alloc_create(&e->be, &cfg);
}

static void env_fini(struct env *e)
{
	npurt_alloc_destroy(e->a);
	npu_pool_destroy(e->pool);
}

static int64_t st(struct env *e, const char *key)
{
	int64_t v = -12345;

	if (npurt_alloc_stat(e->a, key, &v))
		fprintf(stderr, "no key %s\n", key);
	return v;
}

static void test_rounding_and_pools(void)
{
	struct env e;
	struct npurt_block *b1, *b2, *b3, *b4;

	env_init(&e, 256 * MiB, 0);
	npurt_alloc_malloc(e.a, 1000, 0, &b1);
	npurt_alloc_malloc(e.a, 1, 0, &b2);
	ok(b1->size == 1024 && b2->size == 512 && b1->seg == b2->seg &&
	   b2->offset == 1024 && st(&e, "reserved_bytes.small_pool.current") == (int64_t)(2 * MiB) &&
	   st(&e, "num_device_alloc") == 1,
	   "small requests round to 512 and share one 2 MiB segment");
	npurt_alloc_malloc(e.a, 12 * MiB + 1, 0, &b4);
	npurt_alloc_malloc(e.a, 5 * MiB, 0, &b3);
	ok(st(&e, "segment.large_pool.current") == 2 &&
	   st(&e, "reserved_bytes.large_pool.current") == (int64_t)(20 * MiB + 14 * MiB),
	   "large: a 20 MiB segment below 10 MiB, else rounded to 2 MiB");
	ok(st(&e, "inactive_split_bytes.all.current") ==
	   (int64_t)(2 * MiB - 1536 + 2 * MiB - 512 + 15 * MiB) &&
	   b4->size == 12 * MiB + 512,
	   "split remainders are counted as inactive_split (%" PRId64 ")",
	   st(&e, "inactive_split_bytes.all.current"));
	{
		struct npurt_block *b5;

		npurt_alloc_malloc(e.a, 14 * MiB + MiB / 2, 0, &b5);
		ok(b5->size == 15 * MiB && b5->seg == b3->seg &&
		   st(&e, "segment.large_pool.current") == 2,
		   "a large remainder of <= 1 MiB is not split off");
		npurt_alloc_free(e.a, b5);
	}
	npurt_alloc_free(e.a, b1);
	npurt_alloc_malloc(e.a, 700, 0, &b1);
	ok(b1->offset == 0 && b1->size == 1024,
	   "a freed block is reused by its own stream at once");
	ok(st(&e, "allocated_bytes.all.current") ==
	   (int64_t)(1024 + 512 + 5 * MiB + 12 * MiB + 512) &&
	   st(&e, "requested_bytes.all.current") ==
	   (int64_t)(700 + 1 + 5 * MiB + 12 * MiB + 1) &&
	   st(&e, "allocation.all.current") == 4 &&
	   st(&e, "allocation.all.allocated") == 6 &&
	   st(&e, "allocation.all.freed") == 2,
	   "allocated/requested bytes and allocation counts");
	npurt_alloc_free(e.a, b1);
	npurt_alloc_free(e.a, b2);
	npurt_alloc_free(e.a, b3);
	npurt_alloc_free(e.a, b4);
	npurt_alloc_synchronize(e.a);
	npurt_alloc_empty_cache(e.a);
	ok(st(&e, "reserved_bytes.all.current") == 0 &&
	   st(&e, "num_device_free") == 3 &&
	   st(&e, "reserved_bytes.all.peak") == (int64_t)(36 * MiB) &&
	   st(&e, "inactive_split_bytes.all.current") == 0 &&
	   e.pb.live_segments == 0,
	   "empty_cache returns every segment; peaks remain");
	env_fini(&e);
}

static void test_streams(void)
{
	struct env e;
	struct npurt_block *a1, *b1, *c1, *d1;
	uint64_t off;

	env_init(&e, 256 * MiB, 0);
	npurt_alloc_malloc(e.a, 4096, 1, &a1);
	off = a1->offset;
	npurt_alloc_free(e.a, a1);
	npurt_alloc_malloc(e.a, 4096, 2, &b1);
	ok(b1->offset != off || b1->seg != a1->seg,
	   "a block freed on stream 1 is not reused by stream 2 before its event");
	npurt_pool_backend_complete(&e.pb);
	npurt_alloc_malloc(e.a, 4096, 2, &c1);
	ok(c1->offset == off && c1 == a1,
	   "after the event completes, stream 2 reuses it");
	npurt_alloc_record_stream(e.a, c1, 3);
	npurt_alloc_free(e.a, c1);
	ok(st(&e, "active_bytes.all.current") == 8192 &&
	   st(&e, "allocated_bytes.all.current") == 4096,
	   "record_stream: the freed block stays active until stream 3 is done");
	npurt_alloc_malloc(e.a, 4096, 2, &d1);
	ok(d1->offset != off, "and even its own stream cannot take it yet");
	npurt_alloc_free(e.a, d1);
	npurt_alloc_synchronize(e.a);
	ok(st(&e, "active_bytes.all.current") == 4096 &&
	   st(&e, "num_sync_all_streams") == 1,
	   "synchronize completes every event");
	{
		int64_t segs = st(&e, "num_device_alloc");

		npurt_alloc_malloc(e.a, 4096, 5, &d1);
		ok(st(&e, "num_device_alloc") == segs,
		   "after synchronize a new stream reuses cached blocks");
	}
	npurt_alloc_free(e.a, d1);
	npurt_alloc_free(e.a, b1);
	env_fini(&e);

	/* a backend without events: cross-stream frees wait for synchronize */
	{
		struct npu_pool_params p = { .size = 64 * MiB, .granule = 512 };

		e.pool = npu_pool_create_params(&p);
		npurt_pool_backend_init(&e.pb, e.pool, &e.be);
		e.be.event_record = NULL;
		e.be.event_query = NULL;
		e.a = npurt_alloc_create(&e.be, NULL);
	}
	npurt_alloc_malloc(e.a, 4096, 1, &a1);
	npurt_alloc_record_stream(e.a, a1, 2);
	off = a1->offset;
	npurt_alloc_free(e.a, a1);
	npurt_alloc_malloc(e.a, 4096, 1, &b1);
	{
		int held = b1->offset != off &&
			   st(&e, "active_bytes.all.current") == 8192;

		npurt_alloc_free(e.a, b1);
		npurt_alloc_synchronize(e.a);
		ok(held && st(&e, "active_bytes.all.current") == 0,
		   "without events, a block used on another stream waits for synchronize");
	}
	env_fini(&e);
}

static void test_retry_chain(void)
{
	struct env e;
	struct npurt_block *s[8], *big;
	struct npu_pool_node ext[16];
	int i, ret;

	/* cached small segments must go for a large request to fit */
	env_init(&e, 16 * MiB, 0);
	for (i = 0; i < 8; i++)
		npurt_alloc_malloc(e.a, MiB, 0, &s[i]);
	for (i = 0; i < 8; i++)
		npurt_alloc_free(e.a, s[i]);
	ret = npurt_alloc_malloc(e.a, 6 * MiB, 0, &big);
	ok(ret == 0 && st(&e, "num_alloc_retries") == 1 &&
	   st(&e, "reserved_bytes.small_pool.current") == 0 &&
	   big->size == 6 * MiB,
	   "retry: cached segments released, then an exact 6 MiB segment (20 MiB does not fit)");
	npurt_alloc_free(e.a, big);
	env_fini(&e);

	/* a fragmented device: compaction opens the hole */
	env_init(&e, 16 * MiB, 0);
	memset(ext, 0, sizeof(ext));
	for (i = 0; i < 16; i++)
		npu_pool_alloc(e.pool, &ext[i], MiB, 0, 0, NULL);
	for (i = 0; i < 16; i += 2)
		npu_pool_free(e.pool, &ext[i]);
	ret = npurt_alloc_malloc(e.a, 4 * MiB, 0, &big);
	{
		struct npu_pool_stats ps;

		npu_pool_get_stats(e.pool, &ps);
		ok(ret == 0 && ps.compactions >= 1 && ps.bytes_moved > 0,
		   "on a fragmented device the retry chain compacts (%" PRIu64 " bytes moved)",
		   ps.bytes_moved);
	}
	npurt_alloc_free(e.a, big);
	npurt_alloc_empty_cache(e.a);
	for (i = 1; i < 16; i += 2)
		npu_pool_free(e.pool, &ext[i]);
	env_fini(&e);

	/* without compaction the same request fails */
	env_init(&e, 16 * MiB, NPURT_ALLOC_NO_COMPACT);
	npu_pool_set_auto_compact(e.pool, false);
	memset(ext, 0, sizeof(ext));
	for (i = 0; i < 16; i++)
		npu_pool_alloc(e.pool, &ext[i], MiB, 0, 0, NULL);
	for (i = 0; i < 16; i += 2)
		npu_pool_free(e.pool, &ext[i]);
	ret = npurt_alloc_malloc(e.a, 4 * MiB, 0, &big);
	ok(ret == -ENOMEM && st(&e, "num_ooms") == 1 &&
	   strstr(npurt_alloc_last_error(e.a), "largest free range 1.00 MiB") &&
	   strstr(npurt_alloc_last_error(e.a), "8.00 MiB free"),
	   "without compaction: OOM that names free and largest free: %s",
	   npurt_alloc_last_error(e.a));
	for (i = 1; i < 16; i += 2)
		npu_pool_free(e.pool, &ext[i]);
	env_fini(&e);
}

static void test_fraction_and_errors(void)
{
	struct env e;
	struct npurt_block *b;
	int ret;

	env_init(&e, 64 * MiB, 0);
	ok(npurt_alloc_set_memory_fraction(e.a, 1.5) == -EINVAL &&
	   npurt_alloc_set_memory_fraction(e.a, 0.0) == -EINVAL,
	   "fractions outside (0, 1] are refused");
	npurt_alloc_set_memory_fraction(e.a, 0.5);
	ret = npurt_alloc_malloc(e.a, 40 * MiB, 0, &b);
	ok(ret == -ENOMEM && strstr(npurt_alloc_last_error(e.a), "fraction"),
	   "a fraction of 0.5 caps a 64 MiB device at 32 MiB");
	ret = npurt_alloc_malloc(e.a, 30 * MiB, 0, &b);
	ok(ret == 0, "30 MiB fits under the cap");
	npurt_alloc_free(e.a, b);
	ok(npurt_alloc_malloc(e.a, 0, 0, &b) == -EINVAL && !b,
	   "size 0 is -EINVAL");
	ok(npurt_alloc_stat(e.a, "no.such.key", &(int64_t){ 0 }) == -ENOENT,
	   "unknown stats key is -ENOENT");
	env_fini(&e);
}

static void test_max_split_and_resets(void)
{
	struct npu_pool_params p = { .size = 256 * MiB, .granule = 512 };
	struct npurt_alloc_config cfg = { .max_split_size = 8 * MiB };
	struct npurt_block *big, *small;
	struct env e;

	e.pool = npu_pool_create_params(&p);
	npurt_pool_backend_init(&e.pb, e.pool, &e.be);
	e.a = npurt_alloc_create(&e.be, &cfg);
	npurt_alloc_malloc(e.a, 12 * MiB, 0, &big);
	npurt_alloc_free(e.a, big);
	npurt_alloc_malloc(e.a, 4 * MiB, 0, &small);
	ok(small->seg != big->seg && big->size == 12 * MiB &&
	   small->size == 4 * MiB &&
	   st(&e, "oversize_segments.current") == 2 &&
	   st(&e, "oversize_allocations.allocated") == 1 &&
	   st(&e, "max_split_size") == (int64_t)(8 * MiB),
	   "max_split_size: an oversize cached block is not split for a small request");
	npurt_alloc_free(e.a, small);
	npurt_alloc_reset_peak_stats(e.a);
	npurt_alloc_reset_accumulated_stats(e.a);
	ok(st(&e, "allocated_bytes.all.peak") == 0 &&
	   st(&e, "allocated_bytes.all.allocated") == 0 &&
	   st(&e, "num_device_alloc") == 0 &&
	   st(&e, "reserved_bytes.all.peak") ==
	   st(&e, "reserved_bytes.all.current"),
	   "reset_peak_stats and reset_accumulated_stats");
	env_fini(&e);
}

struct keycount {
	int n;
	int has[6];
};

static int count_keys(void *arg, const char *key, int64_t v)
{
	static const char *const want[6] = {
		"allocated_bytes.all.current", "reserved_bytes.all.peak",
		"active_bytes.all.freed", "num_alloc_retries", "num_ooms",
		"inactive_split_bytes.large_pool.allocated",
	};
	struct keycount *k = arg;

	for (int i = 0; i < 6; i++)
		if (!strcmp(key, want[i]))
			k->has[i] = 1;
	k->n++;
	return 0;
}

static void test_random(void)
{
	enum { N = 400 };
	struct npurt_block *live[N] = { 0 };
	struct env e;
	uint64_t rng = 7, sum = 0, req = 0;
	int i, step, overlap = 0, stats_bad = 0, fails = 0;
	struct keycount kc = { 0 };

	env_init(&e, 1024 * MiB, 0);
	for (step = 0; step < 20000; step++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		i = (int)(rng % N);
		if (live[i]) {
			sum -= live[i]->size;
			req -= live[i]->requested;
			npurt_alloc_free(e.a, live[i]);
			live[i] = NULL;
		} else {
			uint64_t size = (rng >> 20) % 8 ? (rng >> 24) % (64 * 1024) + 1 :
				(rng >> 24) % (8 * MiB) + 1;

			if (npurt_alloc_malloc(e.a, size, (rng >> 50) % 3,
					       &live[i])) {
				fails++;
				continue;
			}
			sum += live[i]->size;
			req += live[i]->requested;
		}
		if (step % 997 == 0)
			npurt_alloc_synchronize(e.a);
		if (step % 3001 == 0)
			npurt_alloc_empty_cache(e.a);
		if (step % 101 == 0) {
			/* no two live blocks of one segment overlap */
			for (int x = 0; x < N; x++)
				for (int y = x + 1; live[x] && y < N; y++)
					if (live[y] && live[x]->seg == live[y]->seg &&
					    live[x]->offset < live[y]->offset + live[y]->size &&
					    live[y]->offset < live[x]->offset + live[x]->size)
						overlap++;
			if (st(&e, "allocated_bytes.all.current") != (int64_t)sum ||
			    st(&e, "requested_bytes.all.current") != (int64_t)req ||
			    st(&e, "allocated_bytes.all.current") >
			    st(&e, "reserved_bytes.all.current") ||
			    st(&e, "reserved_bytes.small_pool.current") +
			    st(&e, "reserved_bytes.large_pool.current") !=
			    st(&e, "reserved_bytes.all.current"))
				stats_bad++;
		}
	}
	ok(!overlap && !fails, "random run on 3 streams: live blocks never overlap, nothing fails");
	ok(!stats_bad, "allocated/requested/reserved bytes match a recount throughout");
	npurt_alloc_memory_stats(e.a, count_keys, &kc);
	ok(kc.n == 6 * 12 + 6 + 8 + 3 * 12 &&
	   kc.has[0] && kc.has[1] && kc.has[2] && kc.has[3] && kc.has[4] && kc.has[5],
	   "memory_stats has PyTorch's %d keys", kc.n);
	for (i = 0; i < N; i++)
		npurt_alloc_free(e.a, live[i]);
	npurt_alloc_synchronize(e.a);
	npurt_alloc_empty_cache(e.a);
	ok(st(&e, "reserved_bytes.all.current") == 0 && e.pb.live_segments == 0 &&
	   st(&e, "active_bytes.all.current") == 0,
	   "everything returns to the device at the end");
	env_fini(&e);
}

int main(void)
{
	printf("1..28\n");
	test_rounding_and_pools();
	test_streams();
	test_retry_chain();
	test_fraction_and_errors();
	test_max_split_and_resets();
	test_random();
	return tap_bad ? 1 : 0;
}
