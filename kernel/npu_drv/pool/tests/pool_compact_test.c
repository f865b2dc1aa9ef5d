// SPDX-License-Identifier: MIT
/*
 * pool_compact_test - compaction on laid-out pools: the fewest bytes are
 * moved, overlapping slides keep data, pinned ranges block but never move,
 * refused quiesces fail cleanly, and the statistics have the values
 * Documentation/memory-pool.rst defines.
 */
#include "pool_test_util.h"

#define PG	4096ull
#define MAXN	256

static struct npu_pool_node nodes[MAXN];
static int live[MAXN];

static struct npu_pool *make(struct fake_vram *v, u64 pages)
{
	struct npu_pool_params p = {
		.size = pages * PG, .granule = PG, .ops = &fv_ops, .dev = v,
	};

	memset(v, 0, sizeof(*v));
	v->size = pages * PG;
	v->mem = calloc(1, v->size);
	memset(nodes, 0, sizeof(nodes));
	memset(live, 0, sizeof(live));
	return npu_pool_create_params(&p);
}

static void unmake(struct npu_pool *pool, struct fake_vram *v)
{
	int i;

	for (i = 0; i < MAXN; i++)
		if (live[i])
			npu_pool_free(pool, &nodes[i]);
	npu_pool_destroy(pool);
	free(v->mem);
}

/* Fill with @n one-page ranges (ids = index), optionally pinning some. */
static void fill_pages(struct npu_pool *pool, struct fake_vram *v, int n,
		       const char *pins)
{
	int i;

	for (i = 0; i < n; i++) {
		u32 fl = pins && pins[i] == 'P' ? NPU_POOL_PINNED : 0;

		if (npu_pool_alloc(pool, &nodes[i], PG, 0, fl, NULL) == 0) {
			live[i] = 1;
			pattern_fill(v, nodes[i].start, PG, (u64)i);
		}
	}
}

static void free_idx(struct npu_pool *pool, int i)
{
	npu_pool_free(pool, &nodes[i]);
	live[i] = 0;
}

static int all_patterns(struct fake_vram *v)
{
	int i;

	for (i = 0; i < MAXN; i++)
		if (live[i] && !pattern_check(v, nodes[i].start, nodes[i].size,
					      (u64)i))
			return 0;
	return 1;
}

/* Lower bound: any plan must move every range overlapping the new hole. */
static u64 lower_bound(struct npu_pool *pool, u64 pages, u64 want)
{
	u64 best = ~0ull, ws;
	int i;

	for (ws = 0; ws + want <= pages * PG; ws += PG) {
		u64 cost = 0;
		int ok = 1;

		for (i = 0; i < MAXN; i++) {
			if (!live[i] || nodes[i].start >= ws + want ||
			    nodes[i].start + nodes[i].size <= ws)
				continue;
			if (nodes[i].flags & NPU_POOL_PINNED)
				ok = 0;
			cost += nodes[i].size;
		}
		if (ok && cost < best)
			best = cost;
	}
	(void)pool;
	return best;
}

static void test_fewest_bytes(void)
{
	struct fake_vram v;
	struct npu_pool *pool = make(&v, 64);
	struct npu_pool_node big = { 0 };
	u64 moved = 0;
	int i, ret;

	fill_pages(pool, &v, 64, NULL);
	for (i = 0; i < 32; i += 2)
		free_idx(pool, i);		/* 16 scattered one-page holes */
	for (i = 40; i < 48; i++)
		if (i != 44)
			free_idx(pool, i);	/* 7 pages with one blocker */
	npu_pool_set_auto_compact(pool, false);
	ret = npu_pool_alloc(pool, &big, 8 * PG, 0, 0, NULL);
	tap_ok(ret == -ENOMEM, "without auto-compaction, 8 pages fail with 23 free (%d)", ret);
	ret = npu_pool_compact(pool, 8 * PG, &moved);
	tap_ok(ret == 0 && moved == PG,
	       "opening 8 pages evicts the single blocker: %llu bytes moved (fewest possible: 4096)",
	       (unsigned long long)moved);
	ret = npu_pool_alloc(pool, &big, 8 * PG, 0, 0, NULL);
	tap_ok(ret == 0 && big.start == 40 * PG,
	       "the allocation then lands in the opened hole");
	tap_ok(all_patterns(&v) && !v.bad && nodes[44].moves == 1 &&
	       v.quiesced == 1 && v.resumed == 1,
	       "only the moved range was quiesced, its bytes followed it");
	tap_ok(!npu_pool_check(pool), "invariants hold");
	npu_pool_free(pool, &big);
	unmake(pool, &v);
}

static void test_auto_and_slide(void)
{
	struct fake_vram v;
	struct npu_pool *pool = make(&v, 32);
	struct npu_pool_node big = { 0 }, b4 = { 0 };
	struct npu_pool_stats st;
	int i, ret;

	/*
	 * [hole 1][4-page range][hole 1][pinned to the end]: the only way is
	 * to slide the 4-page range down by one page, over itself.
	 */
	fill_pages(pool, &v, 1, NULL);
	ret = npu_pool_alloc(pool, &b4, 4 * PG, 0, 0, NULL);
	pattern_fill(&v, b4.start, 4 * PG, 1000);
	for (i = 1; i < 28; i++) {
		if (npu_pool_alloc(pool, &nodes[i], PG, 0,
				   i > 1 ? NPU_POOL_PINNED : 0, NULL) == 0) {
			live[i] = 1;
			pattern_fill(&v, nodes[i].start, PG, (u64)i);
		}
	}
	free_idx(pool, 0);
	free_idx(pool, 1);		/* holes: page 0 and page 5 */
	ret = npu_pool_alloc(pool, &big, 2 * PG, 0, 0, NULL);
	npu_pool_get_stats(pool, &st);
	tap_ok(ret == 0 && st.auto_compactions == 1 && st.bytes_moved == 4 * PG,
	       "auto-compaction slides the 4-page range by one page (moved %llu)",
	       (unsigned long long)st.bytes_moved);
	tap_ok(b4.start == 0 && pattern_check(&v, b4.start, 4 * PG, 1000) &&
	       all_patterns(&v) && !v.bad,
	       "overlapping move keeps the bytes (memmove semantics)");
	npu_pool_free(pool, &big);
	npu_pool_free(pool, &b4);
	unmake(pool, &v);
}

static void test_pinned(void)
{
	struct fake_vram v;
	struct npu_pool *pool = make(&v, 16);
	struct npu_pool_node big = { 0 };
	u64 moved = 0, pinned_at[16];
	int i, ret;

	/* every other page pinned; the free pages between cannot merge */
	fill_pages(pool, &v, 16, "P.P.P.P.P.P.P.P.");
	for (i = 0; i < 16; i++)
		pinned_at[i] = nodes[i].start;
	for (i = 1; i < 16; i += 2)
		free_idx(pool, i);
	ret = npu_pool_alloc(pool, &big, 2 * PG, 0, 0, NULL);
	tap_ok(ret == -ENOMEM, "pinned ranges between holes: 2 pages refused with 8 free");
	ret = npu_pool_compact(pool, 0, &moved);
	for (i = 0; i < 16; i += 2)
		if (nodes[i].start != pinned_at[i])
			ret = -1;
	tap_ok(ret == 0 && moved == 0 && all_patterns(&v) && !v.bad,
	       "full compaction leaves pinned ranges where they are");
	unmake(pool, &v);
}

static void test_refused_quiesce(void)
{
	struct fake_vram v;
	struct npu_pool *pool = make(&v, 16);
	struct npu_pool_node big = { 0 };
	int i, ret;

	fill_pages(pool, &v, 16, NULL);
	for (i = 0; i < 16; i += 2)
		free_idx(pool, i);
	v.refuse_quiesce = 1000;
	ret = npu_pool_alloc(pool, &big, 4 * PG, 0, 0, NULL);
	tap_ok(ret == -ENOMEM && all_patterns(&v) && !npu_pool_check(pool),
	       "when every quiesce is refused, the allocation fails cleanly");
	v.refuse_quiesce = 0;
	ret = npu_pool_alloc(pool, &big, 4 * PG, 0, 0, NULL);
	tap_ok(ret == 0 && all_patterns(&v) && !npu_pool_check(pool),
	       "and succeeds once the device lets ranges move");
	npu_pool_free(pool, &big);
	unmake(pool, &v);
}

static void test_random_lower_bound(void)
{
	u64 rng = 99, pages = 48;
	int round, optimal = 0, within = 1, ok = 1, tried = 0;

	for (round = 0; round < 200; round++) {
		struct fake_vram v;
		struct npu_pool *pool = make(&v, pages);
		u64 want, lb, moved = 0, free_b;
		struct npu_pool_stats st;
		int i;

		for (i = 0; i < MAXN && i < 40; i++) {
			u64 sz = rng_range(&rng, 1, 3) * PG;

			if (npu_pool_alloc(pool, &nodes[i], sz, 0,
					   rng_range(&rng, 0, 19) ? 0 :
					   NPU_POOL_PINNED, NULL) == 0) {
				live[i] = 1;
				pattern_fill(&v, nodes[i].start, sz, (u64)i);
			}
		}
		for (i = 0; i < 40; i++)
			if (live[i] && rng_range(&rng, 0, 1))
				free_idx(pool, i);
		npu_pool_get_stats(pool, &st);
		free_b = st.free;
		want = rng_range(&rng, 2, 10) * PG;
		if (st.largest_free >= want || free_b < want) {
			unmake(pool, &v);
			continue;
		}
		lb = lower_bound(pool, pages, want);
		if (npu_pool_compact(pool, want, &moved) == 0) {
			tried++;
			npu_pool_get_stats(pool, &st);
			if (st.largest_free < want)
				ok = 0;
			if (moved < lb)
				within = 0;
			if (moved == lb)
				optimal++;
		} else if (lb != ~0ull && st.num_pinned == 0) {
			ok = 0;
		}
		if (!all_patterns(&v) || v.bad || npu_pool_check(pool))
			ok = 0;
		unmake(pool, &v);
	}
	tap_ok(ok, "random layouts: compaction opens the hole whenever no pin blocks it, data intact");
	tap_ok(within && tried > 50,
	       "moved bytes never below the window lower bound; optimal in %d of %d",
	       optimal, tried);
}

static void test_stats(void)
{
	struct fake_vram v;
	struct npu_pool *pool = make(&v, 16);
	struct npu_pool_stats st;
	u32 unusable;

	fill_pages(pool, &v, 16, NULL);
	free_idx(pool, 1);
	free_idx(pool, 3);
	free_idx(pool, 5);
	free_idx(pool, 8);
	free_idx(pool, 9);
	free_idx(pool, 10);
	free_idx(pool, 11);
	npu_pool_get_stats(pool, &st);
	unusable = npu_pool_unusable_free_ppm(pool, 2 * PG);
	tap_ok(st.used == 9 * PG && st.free == 7 * PG &&
	       st.largest_free == 4 * PG && st.num_free_ranges == 4 &&
	       st.largest_free_ratio_ppm == 428572 && unusable == 428571 &&
	       st.peak_used == 16 * PG && st.peak_extent == 16 * PG &&
	       st.utilisation_frag_ppm == 0 && st.num_nodes == 9,
	       "stats: largest-free ratio %u ppm, unusable at 2 pages %u ppm",
	       st.largest_free_ratio_ppm, unusable);
	npu_pool_reset_peaks(pool);
	npu_pool_get_stats(pool, &st);
	tap_ok(st.peak_used == 9 * PG && st.peak_extent == 16 * PG &&
	       st.utilisation_frag_ppm == 437500,
	       "after reset: utilisation fragmentation 1 - 9/16 = %u ppm",
	       st.utilisation_frag_ppm);
	unmake(pool, &v);
}

static int count_cb(void *arg, u64 start, u64 size,
		    const struct npu_pool_node *n)
{
	u64 *c = arg;

	c[n ? 0 : 1]++;
	c[2] += size;
	return 0;
}

static void test_bad_input_and_quota(void)
{
	struct npu_pool_params bad = { .size = 1 << 20, .granule = 100 };
	struct npu_pool_account acct;
	struct fake_vram v;
	struct npu_pool *pool = make(&v, 16);
	struct npu_pool_node a = { 0 }, b = { 0 };
	u64 c[3] = { 0, 0, 0 };
	int r1, r2, r3, r4;

	tap_ok(npu_pool_create_params(&bad) == NULL,
	       "a granule that is not a power of two is refused");
	r1 = npu_pool_alloc(pool, &a, 0, 0, 0, NULL);
	r2 = npu_pool_alloc(pool, &a, PG, 3, 0, NULL);
	r3 = npu_pool_alloc(pool, &a, 17 * PG, 0, 0, NULL);
	r4 = npu_pool_alloc(pool, &a, PG, 0, 0x80, NULL);
	tap_ok(r1 == -EINVAL && r2 == -EINVAL && r3 == -ENOMEM &&
	       r4 == -EINVAL,
	       "size 0, alignment 3, unknown flags are -EINVAL, beyond the pool -ENOMEM");
	npu_pool_account_init(&acct, 3 * PG);
	r1 = npu_pool_alloc_account(pool, &a, 2 * PG, 0, 0, NULL, &acct);
	r2 = npu_pool_alloc_account(pool, &b, 2 * PG, 0, 0, NULL, &acct);
	r3 = npu_pool_alloc(pool, &a, PG, 0, 0, NULL);
	tap_ok(r1 == 0 && r2 == -EDQUOT && r3 == -EINVAL &&
	       acct.used == 2 * PG && acct.failures == 1,
	       "quota: the second 2 pages exceed 3 pages (-EDQUOT); a live node cannot be allocated twice");
	tap_ok(npu_pool_compact(pool, ~0ull, NULL) == -ENOMEM &&
	       npu_pool_compact(pool, 17 * PG, NULL) == -ENOMEM,
	       "a compaction for a hole larger than the pool is -ENOMEM");
	npu_pool_for_each(pool, count_cb, c);
	tap_ok(c[0] == 1 && c[1] == 1 && c[2] == 16 * PG,
	       "for_each visits one range and one hole covering the pool");
	npu_pool_free(pool, &a);
	npu_pool_free(pool, &a);	/* logged, ignored */
	tap_ok(acct.used == 0 && !npu_pool_check(pool),
	       "free returns the quota; a double free is ignored");
	unmake(pool, &v);
}

int main(void)
{
	tap_plan(21);
	test_fewest_bytes();
	test_auto_and_slide();
	test_pinned();
	test_refused_quiesce();
	test_random_lower_bound();
	test_stats();
	test_bad_input_and_quota();
	return tap_done();
}
