// SPDX-License-Identifier: MIT
/*
 * test_streams - stream assignment and semaphore pruning on synthetic DAGs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streams.h"
#include "tests/npuc_tap.h"

static struct st_result assign(size_t n, const struct st_edge *e, size_t ne,
			       uint32_t q)
{
	struct st_options o = { .max_streams = q };
	struct st_result r;
	char err[128];

	if (st_assign(n, e, ne, &o, &r, err, sizeof(err)))
		printf("# %s\n", err);
	return r;
}

static bool has_sync(const struct st_result *r, uint32_t a, uint32_t b)
{
	for (size_t i = 0; i < r->num_sync; i++)
		if (r->sync[i].from == a && r->sync[i].to == b)
			return true;
	return false;
}

int main(void)
{
	/* x -> {a1 -> a2, b1 -> b2} -> add */
	static const struct st_edge two[] = {
		{ 0, 1 }, { 1, 2 }, { 0, 3 }, { 3, 4 }, { 2, 5 }, { 4, 5 },
	};
	struct st_result r = assign(6, two, 6, 4);

	ok(r.num_streams == 2, "two-branch DAG: 2 streams (got %u)",
	   r.num_streams);
	ok(r.num_sync == 2 && has_sync(&r, 0, 3) && has_sync(&r, 4, 5),
	   "two-branch DAG: exactly 2 semaphores, fork 0->3 and join 4->5 (got %zu)",
	   r.num_sync);
	ok(r.stream[1] == r.stream[0] && r.stream[2] == r.stream[0] &&
	   r.stream[5] == r.stream[0] && r.stream[3] != r.stream[0] &&
	   r.stream[4] == r.stream[3], "branches on separate streams");
	st_result_free(&r);

	r = assign(6, two, 6, 1);
	ok(r.num_streams == 1 && r.num_sync == 0 && r.num_cross == 0,
	   "one queue: one stream, no semaphores");
	st_result_free(&r);

	/* Redundant: 0 -> 3 and 0 -> 4 with 3, 4 on one stream. */
	static const struct st_edge red[] = {
		{ 0, 1 }, { 0, 2 }, { 2, 3 }, { 0, 3 }, { 1, 3 },
	};
	r = assign(4, red, 5, 4);
	ok(r.num_streams == 2 && r.num_cross == 3 && r.num_sync == 2 &&
	   has_sync(&r, 0, 2) && has_sync(&r, 1, 3) && !has_sync(&r, 0, 3),
	   "fork/join with a transitively implied edge: %zu cross edges, %zu kept",
	   r.num_cross, r.num_sync);
	st_result_free(&r);

	/* Three waits into one node where one implies the others. */
	static const struct st_edge imp[] = {
		{ 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 }, { 0, 4 }, { 1, 4 },
		{ 2, 4 }, { 3, 4 },
	};
	r = assign(5, imp, 8, 3);
	{
		bool hb = true;

		for (size_t i = 0; i < 8; i++)
			hb = hb && st_happens_before(&r, imp[i].from, imp[i].to);
		ok(hb && r.num_sync < r.num_cross,
		   "implied waits pruned (%zu cross, %zu kept), all edges still ordered",
		   r.num_cross, r.num_sync);
	}
	st_result_free(&r);

	/* Three parallel branches on two queues. */
	static const struct st_edge three[] = {
		{ 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 4 }, { 2, 4 }, { 3, 4 },
	};
	r = assign(5, three, 6, 2);
	ok(r.num_streams == 2, "three branches, two queues: 2 streams");
	st_result_free(&r);

	/* Random DAGs: every dependency is ordered after pruning. */
	uint64_t seed = 12345;
	bool all = true;

	for (int round = 0; round < 50; round++) {
		size_t n = 2 + round * 3, ne = 0;
		struct st_edge *e = malloc(n * 3 * sizeof(*e));

		for (size_t v = 1; v < n; v++)
			for (int k = 0; k < 3; k++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				if ((seed >> 33) % 3 == 0)
					continue;
				e[ne].from = (uint32_t)((seed >> 40) % v);
				e[ne].to = (uint32_t)v;
				ne++;
			}
		r = assign(n, e, ne, 1 + round % 4);
		for (size_t i = 0; i < ne; i++)
			all = all && st_happens_before(&r, e[i].from, e[i].to);
		all = all && r.num_streams <= 1 + (uint32_t)round % 4;
		st_result_free(&r);
		free(e);
	}
	ok(all, "random DAGs: every edge happens-before after pruning, streams within the queue count");

	char err[128];
	struct st_edge bad = { 3, 1 };

	ok(st_assign(4, &bad, 1, NULL, &r, err, sizeof(err)) < 0 &&
	   strstr(err, "forward"), "backward edge rejected: %s", err);
	printf("1..%d\n", test_no);
	return failures ? 1 : 0;
}
