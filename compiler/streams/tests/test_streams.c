// SPDX-License-Identifier: MIT
/*
 * test_streams - stream assignment and semaphore pruning on synthetic DAGs.
 */
#include <errno.h>
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

/*
 * The semaphore rule, checked independently of the allocator: a wait for
 * value x on semaphore k is released by any signal on k of value >= x, so
 * every such signal's node must run after the edge's source (or be it).
 */
static bool sems_sound(const struct st_result *r)
{
	for (size_t e = 0; e < r->num_sync; e++) {
		uint32_t u = r->sync[e].from;

		if (r->sem[e] >= r->num_sems || r->sem_value[e] < 1 ||
		    r->sig_sem[u] != r->sem[e] ||
		    r->sig_value[u] != r->sem_value[e])
			return false;
		for (uint32_t w = 0; w < r->num_nodes; w++)
			if (w != u && r->sig_sem[w] == r->sem[e] &&
			    r->sig_value[w] >= r->sem_value[e] &&
			    !st_happens_before(r, u, w))
				return false;
	}
	return true;
}

/*
 * Run the streams as the device does, one step at a time in a random
 * order: per stream its nodes in order, each preceded by its waits
 * (released when the semaphore's value is >= the wanted one) and followed
 * by its signal (value = max(value, v)). Every dependency must have its
 * source finished before its target starts; no run may deadlock.
 */
static bool device_run_ok(const struct st_result *r, const struct st_edge *e,
			  size_t ne, uint64_t *seed)
{
	uint32_t ns = r->num_streams, n = (uint32_t)r->num_nodes;
	uint32_t *next = calloc(ns, sizeof(*next));	/* node index in list */
	uint32_t *list = malloc((n + 1) * sizeof(*list));
	uint32_t *at = calloc(ns + 1, sizeof(*at));
	uint32_t *wait_done = calloc(n + 1, sizeof(*wait_done));
	uint64_t *val = calloc(r->num_sems + 1, sizeof(*val));
	int64_t *fin = malloc((n + 1) * sizeof(*fin));
	int64_t *start = malloc((n + 1) * sizeof(*start));
	int64_t clock = 0;
	uint32_t done = 0;
	bool good = true;

	for (uint32_t v = 0; v < n; v++)
		at[r->stream[v] + 1]++;
	for (uint32_t s = 0; s < ns; s++)
		at[s + 1] += at[s];
	for (uint32_t s = 0; s < ns; s++)
		next[s] = 0;
	for (uint32_t v = 0; v < n; v++)	/* node order = program order */
		list[at[r->stream[v]] + r->pos[v]] = v;
	for (uint32_t v = 0; v < n; v++)
		fin[v] = start[v] = -1;
	while (done < n && good) {
		uint32_t ready[1024], nr = 0;

		for (uint32_t s = 0; s < ns && nr < 1024; s++) {
			uint32_t v, k;

			if (next[s] == at[s + 1] - at[s])
				continue;
			v = list[at[s] + next[s]];
			for (k = 0; k < r->num_sync; k++)
				if (r->sync[k].to == v &&
				    val[r->sem[k]] < r->sem_value[k])
					break;
			if (k == r->num_sync)
				ready[nr++] = s;
		}
		if (!nr) {
			good = false;	/* deadlock */
			break;
		}
		*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
		{
			uint32_t s = ready[(*seed >> 33) % nr];
			uint32_t v = list[at[s] + next[s]];

			start[v] = clock++;
			fin[v] = clock++;
			if (r->sig_sem[v] != UINT32_MAX &&
			    val[r->sig_sem[v]] < r->sig_value[v])
				val[r->sig_sem[v]] = r->sig_value[v];
			next[s]++;
			done++;
		}
	}
	for (size_t i = 0; i < ne && good; i++)
		good = fin[e[i].from] >= 0 && fin[e[i].from] < start[e[i].to];
	free(next);
	free(list);
	free(at);
	free(wait_done);
	free(val);
	free(fin);
	free(start);
	return good;
}

/* Fan-out to @b branches of two nodes each, joined by one node. */
static struct st_edge *branches(uint32_t b, size_t *n, size_t *ne)
{
	struct st_edge *e = malloc((3 * b + 1) * sizeof(*e));

	*ne = 0;
	for (uint32_t i = 0; i < b; i++) {
		e[(*ne)++] = (struct st_edge){ 0, 1 + 2 * i };
		e[(*ne)++] = (struct st_edge){ 1 + 2 * i, 2 + 2 * i };
		e[(*ne)++] = (struct st_edge){ 2 + 2 * i, 1 + 2 * b };
	}
	*n = 2 + 2 * b;
	return e;
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

	/*
	 * Nodes that fill the device never open a stream: the two-branch DAG
	 * with branch b's first node marked runs on one stream (b1 after
	 * the stream's tail a2, b2 continuing b1's chain, no semaphore);
	 * with only b2 marked, b2 follows b1 on the stream b1 opened.
	 */
	{
		static const uint8_t fill_b1[6] = { 0, 0, 0, 1, 0, 0 };
		static const uint8_t fill_b2[6] = { 0, 0, 0, 0, 1, 0 };
		struct st_options o = { .max_streams = 4, .fills = fill_b1 };
		char err[128];
		bool hb = true;

		st_assign(6, two, 6, &o, &r, err, sizeof(err));
		for (size_t i = 0; i < 6; i++)
			hb = hb && st_happens_before(&r, two[i].from, two[i].to);
		ok(r.num_streams == 1 && r.num_sync == 0 && hb,
		   "a filling node joins its input's stream: %u stream(s), "
		   "%zu signal/wait pairs", r.num_streams, r.num_sync);
		st_result_free(&r);
		o.fills = fill_b2;
		st_assign(6, two, 6, &o, &r, err, sizeof(err));
		ok(r.num_streams == 2 && r.stream[4] == r.stream[3] &&
		   r.num_sync == 2,
		   "a filling node that continues its input's chain stays "
		   "there (%u streams, %zu pairs)", r.num_streams, r.num_sync);
		st_result_free(&r);
	}

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

	/* Semaphore reuse: forty branches, every stream count 1..16. */
	{
		size_t n, ne;
		struct st_edge *e = branches(40, &n, &ne);
		bool sound = true, few = true, runs = true;
		uint32_t most = 0;

		for (uint32_t q = 1; q <= 16; q++) {
			r = assign(n, e, ne, q);
			sound = sound && sems_sound(&r);
			few = few && r.num_sems <= r.num_streams;
			for (int k = 0; k < 20; k++)
				runs = runs && device_run_ok(&r, e, ne, &seed);
			if (r.num_sems > most)
				most = r.num_sems;
			st_result_free(&r);
		}
		ok(sound, "40 branches, 1..16 streams: every wait is released only by signals of nodes after its source");
		ok(few, "40 branches: semaphores never exceed streams (at most %u)",
		   most);
		ok(runs, "40 branches: random device interleavings keep every dependency, no deadlock");
		free(e);
	}

	/* Ping-pong between two streams: one semaphore carries it all. */
	{
		/* 0 -> {1, 2}; 1 -> 3; 2 -> 3 -> 4; 2 -> 5; 4 -> 6; 5 -> 6 */
		static const struct st_edge pp[] = {
			{ 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 }, { 3, 4 },
			{ 2, 5 }, { 4, 6 }, { 5, 6 },
		};

		r = assign(7, pp, 8, 2);
		ok(r.num_streams == 2 && r.num_sync >= 2 &&
		   r.num_sems < r.num_sync && sems_sound(&r) &&
		   device_run_ok(&r, pp, 8, &seed),
		   "signals ordered across streams share a semaphore (%zu pairs on %u)",
		   r.num_sync, r.num_sems);
		st_result_free(&r);
	}

	/* Random DAGs: sound reuse and correct device runs. */
	{
		bool sound = true, runs = true;
		size_t pairs = 0, sems = 0;

		for (int round = 0; round < 60; round++) {
			size_t n = 3 + round * 2, ne = 0;
			struct st_edge *e = malloc(n * 3 * sizeof(*e));

			for (size_t v = 1; v < n; v++)
				for (int k = 0; k < 3; k++) {
					seed = seed * 6364136223846793005ull +
					       1442695040888963407ull;
					if ((seed >> 33) % 2 == 0)
						continue;
					e[ne].from = (uint32_t)((seed >> 40) % v);
					e[ne].to = (uint32_t)v;
					ne++;
				}
			r = assign(n, e, ne, 1 + round % 8);
			sound = sound && sems_sound(&r);
			for (int k = 0; k < 5; k++)
				runs = runs && device_run_ok(&r, e, ne, &seed);
			pairs += r.num_sync;
			sems += r.num_sems;
			st_result_free(&r);
			free(e);
		}
		ok(sound && runs,
		   "random DAGs: reuse is sound and device runs keep every dependency (%zu pairs on %zu semaphores)",
		   pairs, sems);
	}

	/* A budget of 8 semaphores (runtime: 2 + 1 per stream). */
	{
		size_t n, ne;
		struct st_edge *e = branches(40, &n, &ne);
		struct st_options o = { .max_streams = 16, .max_semaphores = 8,
					.sems_per_stream = 1, .sems_fixed = 2 };
		char msg[256];
		int ret = st_assign(n, e, ne, &o, &r, msg, sizeof(msg));

		ok(!ret && r.budget_total <= 8 && r.num_streams >= 2 &&
		   r.num_streams < 16 && r.streams_asked == 16 &&
		   sems_sound(&r) && device_run_ok(&r, e, ne, &seed),
		   "budget 8: streams reduced from 16 to %u, %u semaphores in all",
		   r.num_streams, r.budget_total);
		st_result_free(&r);
		o.max_semaphores = 2;
		ret = st_assign(n, e, ne, &o, &r, msg, sizeof(msg));
		ok(ret == -ENOSPC && strstr(msg, "semaphores") &&
		   strstr(msg, "3") && strstr(msg, "2"),
		   "budget 2 < one stream's 3: -ENOSPC naming the numbers: %s",
		   msg);
		free(e);
	}

	char err[128];
	struct st_edge bad = { 3, 1 };

	ok(st_assign(4, &bad, 1, NULL, &r, err, sizeof(err)) < 0 &&
	   strstr(err, "forward"), "backward edge rejected: %s", err);
	printf("1..%d\n", test_no);
	return failures ? 1 : 0;
}
