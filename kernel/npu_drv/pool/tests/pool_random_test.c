// SPDX-License-Identifier: MIT
/*
 * pool_random_test - seeded random allocate/free/compact sequences on a pool
 * backed by a host byte array. After every operation: the pool's invariants
 * (npu_pool_check), the callbacks' discipline, pinned ranges in place, the
 * quota accounts equal a recount; after every move and periodically: the
 * pattern of every live buffer.
 */
#include "pool_test_util.h"

#define MAX_LIVE	512

struct buf {
	struct npu_pool_node node;
	u64 id;
	u64 pinned_at;
	int live;
	int acct;
};

struct run {
	const char *name;
	u64 seed;
	u64 pool_size;
	u64 granule;
	int ops;
	int pinned_pct;		/* share of pinned allocations */
	int big_align;		/* also ask for alignments above the granule */
	int quota;		/* charge two accounts with quotas */
	u32 threshold_ppm;
};

struct result {
	const char *broken;
	int pattern_bad;
	int pinned_moved;
	int quota_bad;
	int edquot;
	int fail_with_room;	/* -ENOMEM although free >= request */
	int failures;
	u64 moved;
	u64 compactions;
};

static struct buf bufs[MAX_LIVE];

static int check_all_patterns(struct fake_vram *v)
{
	int i;

	for (i = 0; i < MAX_LIVE; i++)
		if (bufs[i].live &&
		    !pattern_check(v, bufs[i].node.start, bufs[i].node.size,
				   bufs[i].id))
			return 0;
	return 1;
}

static void check_state(struct npu_pool *pool, struct fake_vram *v,
			struct npu_pool_account *acc, const struct run *r,
			struct result *res)
{
	u64 used[2] = { 0, 0 };
	const char *why;
	int i;

	why = npu_pool_check(pool);
	if (why && !res->broken)
		res->broken = why;
	if (v->bad && !res->broken)
		res->broken = "move callbacks called out of order";
	for (i = 0; i < MAX_LIVE; i++) {
		if (!bufs[i].live)
			continue;
		if ((bufs[i].node.flags & NPU_POOL_PINNED) &&
		    bufs[i].node.start != bufs[i].pinned_at)
			res->pinned_moved++;
		if (bufs[i].acct >= 0)
			used[bufs[i].acct] += bufs[i].node.size;
	}
	if (r->quota) {
		for (i = 0; i < 2; i++)
			if (used[i] != acc[i].used || acc[i].used > acc[i].quota)
				res->quota_bad++;
	}
}

static void do_alloc(struct npu_pool *pool, struct fake_vram *v,
		     struct npu_pool_account *acc, const struct run *r,
		     u64 *rng, u64 *next_id, struct result *res)
{
	struct npu_pool_stats st;
	struct buf *b = NULL;
	u64 size, align = 0, free_before, moved_before;
	u32 flags = 0;
	int i, ret, a = -1;

	for (i = 0; i < MAX_LIVE; i++)
		if (!bufs[i].live) {
			b = &bufs[i];
			break;
		}
	if (!b)
		return;
	/* mostly small, sometimes large: the mix that fragments */
	if (rng_range(rng, 0, 9) < 8)
		size = rng_range(rng, 1, 8 * r->granule);
	else
		size = rng_range(rng, 8 * r->granule, r->pool_size / 8);
	if (r->big_align && rng_range(rng, 0, 3) == 0)
		align = r->granule << rng_range(rng, 1, 4);
	if ((int)rng_range(rng, 0, 99) < r->pinned_pct)
		flags |= NPU_POOL_PINNED;
	if (r->quota)
		a = (int)rng_range(rng, 0, 1);

	npu_pool_get_stats(pool, &st);
	free_before = st.free;
	moved_before = st.bytes_moved;
	ret = npu_pool_alloc_account(pool, &b->node, size, align, flags, NULL,
				     a >= 0 ? &acc[a] : NULL);
	if (ret == -EDQUOT) {
		res->edquot++;
		if (acc[a].used + npu_align_up(size, r->granule) <=
		    acc[a].quota)
			res->quota_bad++;
		return;
	}
	if (ret) {
		res->failures++;
		if (ret == -ENOMEM && !r->pinned_pct && !r->big_align &&
		    free_before >= npu_align_up(size, r->granule))
			res->fail_with_room++;
		return;
	}
	npu_pool_get_stats(pool, &st);
	if (st.bytes_moved != moved_before && !check_all_patterns(v))
		res->pattern_bad++;
	b->live = 1;
	b->acct = a;
	b->id = (*next_id)++;
	b->pinned_at = b->node.start;
	pattern_fill(v, b->node.start, b->node.size, b->id);
}

static void do_free(struct npu_pool *pool, u64 *rng)
{
	int i, start = (int)rng_range(rng, 0, MAX_LIVE - 1);

	for (i = 0; i < MAX_LIVE; i++) {
		struct buf *b = &bufs[(start + i) % MAX_LIVE];

		if (b->live) {
			npu_pool_free(pool, &b->node);
			b->live = 0;
			return;
		}
	}
}

static struct result one_run(const struct run *r)
{
	struct npu_pool_account acc[2];
	struct npu_pool_params p = {
		.size = r->pool_size, .granule = r->granule, .ops = &fv_ops,
		.compact_threshold_ppm = r->threshold_ppm,
	};
	struct fake_vram v = { .size = r->pool_size };
	struct npu_pool_stats st;
	struct result res = { 0 };
	struct npu_pool *pool;
	u64 rng = r->seed, next_id = 1;
	int op;

	memset(bufs, 0, sizeof(bufs));
	v.mem = calloc(1, r->pool_size);
	p.dev = &v;
	pool = npu_pool_create_params(&p);
	if (!pool || !v.mem) {
		res.broken = "could not create the pool";
		free(v.mem);
		return res;
	}
	npu_pool_account_init(&acc[0], r->pool_size / 3);
	npu_pool_account_init(&acc[1], r->pool_size / 2);

	for (op = 0; op < r->ops; op++) {
		u64 k = rng_range(&rng, 0, 99), moved = 0;

		if (k < 55) {
			do_alloc(pool, &v, acc, r, &rng, &next_id, &res);
		} else if (k < 97) {
			do_free(pool, &rng);
		} else {
			u64 hole = k == 99 ? 0 :
				rng_range(&rng, 1, r->pool_size / 2);
			int ret = npu_pool_compact(pool, hole, &moved);

			if (ret && ret != -ENOMEM)
				res.broken = "compaction returned an odd error";
			if (!check_all_patterns(&v))
				res.pattern_bad++;
		}
		check_state(pool, &v, acc, r, &res);
		if (op % 64 == 0 && !check_all_patterns(&v))
			res.pattern_bad++;
		if (res.broken)
			break;
	}
	if (!check_all_patterns(&v))
		res.pattern_bad++;
	npu_pool_get_stats(pool, &st);
	res.moved = st.bytes_moved;
	res.compactions = st.compactions;
	for (op = 0; op < MAX_LIVE; op++)
		if (bufs[op].live)
			npu_pool_free(pool, &bufs[op].node);
	if (npu_pool_check(pool) && !res.broken)
		res.broken = npu_pool_check(pool);
	npu_pool_get_stats(pool, &st);
	if ((st.used || st.num_free_ranges != 1 ||
	     st.largest_free != st.total) && !res.broken)
		res.broken = "pool not whole again after freeing everything";
	npu_pool_destroy(pool);
	free(v.mem);
	return res;
}

static const struct run runs[] = {
	{ "pages, no pins", 1, 4 << 20, 4096, 3000, 0, 0, 0, 0 },
	{ "pages, no pins, seed 2", 2, 4 << 20, 4096, 3000, 0, 0, 0, 0 },
	{ "512-byte granule", 3, 1 << 20, 512, 3000, 0, 0, 0, 0 },
	{ "pinned ranges", 4, 4 << 20, 4096, 3000, 10, 0, 0, 0 },
	{ "large alignments", 5, 4 << 20, 4096, 3000, 0, 1, 0, 0 },
	{ "pins, alignments, quotas", 6, 4 << 20, 4096, 3000, 5, 1, 1, 0 },
	{ "threshold compaction", 7, 2 << 20, 4096, 2000, 3, 0, 0, 300000 },
};

int main(void)
{
	size_t i;

	tap_plan((int)NPU_ARRAY_SIZE(runs) * 5);
	for (i = 0; i < NPU_ARRAY_SIZE(runs); i++) {
		const struct run *r = &runs[i];
		struct result res = one_run(r);

		tap_ok(!res.broken, "%s: invariants hold after every operation%s%s",
		       r->name, res.broken ? ": " : "",
		       res.broken ? res.broken : "");
		tap_ok(!res.pattern_bad,
		       "%s: every live buffer keeps its bytes (%llu bytes moved in %llu compactions)",
		       r->name, (unsigned long long)res.moved,
		       (unsigned long long)res.compactions);
		tap_ok(!res.pinned_moved, "%s: pinned ranges never move",
		       r->name);
		tap_ok(!res.quota_bad && (!r->quota || res.edquot),
		       "%s: quota accounts match and are enforced (%d refusals)",
		       r->name, res.edquot);
		tap_ok(!res.fail_with_room,
		       "%s: no failure while total free >= request (%d failures, all without room or blocked by pins/alignment)",
		       r->name, res.failures);
	}
	return tap_done();
}
