// SPDX-License-Identifier: MIT
/*
 * test_memplan - the planner portfolio and the verifier on random problems
 * and on hand-made problems whose optimum is known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan.h"
#include "tests/npuc_tap.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int plan(const struct mp_problem *p, unsigned int planners,
		unsigned int budget, int64_t *off, struct mp_result *r)
{
	struct mp_options o = { .planners = planners, .budget_ms = budget };
	char err[256] = "";
	int ret = mp_plan(p, &o, off, r, err, sizeof(err));

	if (ret)
		printf("# mp_plan: %d %s\n", ret, err);
	return ret;
}

/* Random problems: every planner alone and the portfolio give valid plans
 * no smaller than the lower bound. */
static void test_random(void)
{
	for (int round = 0; round < 40; round++) {
		size_t n = 1 + rnd() % 60;
		struct mp_buffer *b = calloc(n, sizeof(*b));
		uint32_t (*pairs)[2] = calloc(8, sizeof(*pairs));
		int64_t *off = calloc(n, sizeof(*off));
		struct mp_problem p = { n, b, 0, pairs };
		bool good = true;

		for (size_t i = 0; i < n; i++) {
			b[i].lower = rnd() % 50;
			b[i].upper = b[i].lower + rnd() % 20;
			b[i].size = rnd() % 5000;
			b[i].align = round % 2 ? 64 : 1 << (rnd() % 4);
		}
		if (round % 3 == 0)
			for (size_t k = 0; k < 8; k++) {
				pairs[k][0] = rnd() % n;
				pairs[k][1] = rnd() % n;
				p.num_pairs++;
			}
		for (unsigned int pl = 0; pl <= MP_NUM_PLANNERS; pl++) {
			unsigned int mask = pl < MP_NUM_PLANNERS ?
					    MP_PLANNER_BIT(pl) : 0;
			struct mp_result r = { 0 };
			char err[256];

			if (plan(&p, mask, 50, off, &r) ||
			    mp_verify(&p, off, r.arena, err, sizeof(err)) ||
			    r.arena < r.lower_bound || r.arena > r.no_reuse) {
				good = false;
				printf("# round %d planner %u arena %lld lb %lld\n",
				       round, pl, (long long)r.arena,
				       (long long)r.lower_bound);
			}
		}
		ok(good, "random problem %d (%zu buffers, %zu pairs): every planner's plan verifies and is >= the lower bound",
		   round, n, p.num_pairs);
		free(b);
		free(pairs);
		free(off);
	}
}

/* A perfect packing that greedy-by-size misses: the exact search finds it. */
static void test_known_optimum(void)
{
	/*
	 * Capacity 4: a [0,2) size 2, b [1,3) size 2, c [2,4) size 2,
	 * d [0,1) 2, e [3,4) 2. Optimum 4 = lower bound.
	 */
	static const struct mp_buffer b[] = {
		{ 0, 2, 2, 1 }, { 1, 3, 2, 1 }, { 2, 4, 2, 1 },
		{ 0, 1, 2, 1 }, { 3, 4, 2, 1 },
	};
	struct mp_problem p = { 5, b, 0, NULL };
	int64_t off[5];
	struct mp_result r = { 0 };

	ok(!plan(&p, 0, 1000, off, &r) && r.arena == 4 && r.optimal,
	   "chain of overlapping pairs packs into the lower bound 4 (got %lld)",
	   (long long)r.arena);

	/* Classic case: lower bound 3 is not attainable, optimum is 4 (a
	 * cycle of three pairwise-conflicting-in-turn buffers of size 2
	 * with a size 1 buffer live throughout an odd cycle). */
	static const struct mp_buffer c5[] = {
		{ 0, 2, 1, 1 }, { 1, 3, 1, 1 }, { 2, 4, 1, 1 }, { 3, 5, 1, 1 },
		{ 4, 6, 1, 1 },
	};
	static const uint32_t cyc[][2] = { { 0, 4 } };
	struct mp_problem q = { 5, c5, 1, cyc };
	int64_t off5[5];

	/* Five unit buffers conflicting in a 5-cycle need 3 colours. */
	ok(!plan(&q, 0, 1000, off5, &r) && r.arena == 3 && r.lower_bound == 2 &&
	   r.optimal,
	   "odd cycle of conflicts (one cross-stream pair): lower bound 2, proven optimum 3 (got %lld)",
	   (long long)r.arena);

	/* Alignment: 3 buffers of 10 bytes, 64-aligned, all live together. */
	static const struct mp_buffer al[] = {
		{ 0, 5, 10, 64 }, { 0, 5, 10, 64 }, { 0, 5, 100, 64 },
	};
	struct mp_problem pa = { 3, al, 0, NULL };
	int64_t offa[3];

	ok(!plan(&pa, 0, 1000, offa, &r) && r.arena == 256 &&
	   offa[0] % 64 == 0 && offa[1] % 64 == 0 && offa[2] % 64 == 0,
	   "alignment: footprints 64+64+128 -> arena 256, offsets aligned (got %lld)",
	   (long long)r.arena);

	/* Disjoint lifetimes share everything. */
	static const struct mp_buffer dj[] = {
		{ 0, 1, 100, 1 }, { 1, 2, 200, 1 }, { 2, 3, 50, 1 },
	};
	struct mp_problem pd = { 3, dj, 0, NULL };
	int64_t offd[3];

	ok(!plan(&pd, 0, 1000, offd, &r) && r.arena == 200 && r.no_reuse == 350,
	   "disjoint lifetimes: arena 200, no reuse 350");

	/* Empty problem and zero-size / zero-length buffers. */
	static const struct mp_buffer z[] = {
		{ 0, 0, 100, 1 }, { 0, 5, 0, 1 }, { 0, 5, 8, 1 },
	};
	struct mp_problem pz = { 3, z, 0, NULL };
	int64_t offz[3];

	ok(!plan(&pz, 0, 100, offz, &r) && r.arena == 8,
	   "dead buffers take no space (arena 8)");
	struct mp_problem pe = { 0, NULL, 0, NULL };

	ok(!plan(&pe, 0, 100, offz, &r) && r.arena == 0, "empty problem");
}

static void test_bad_input(void)
{
	static const struct mp_buffer bad[] = { { 5, 2, 10, 1 } };
	static const struct mp_buffer bal[] = { { 0, 2, 10, 3 } };
	static const uint32_t pr[][2] = { { 0, 7 } };
	struct mp_problem p = { 1, bad, 0, NULL };
	int64_t off[1];
	struct mp_result r = { 0 };
	char err[256] = "";

	ok(mp_plan(&p, NULL, off, &r, err, sizeof(err)) < 0 &&
	   strstr(err, "lower <= upper"), "upper < lower rejected: %s", err);
	p.buffers = bal;
	ok(mp_plan(&p, NULL, off, &r, err, sizeof(err)) < 0 &&
	   strstr(err, "power of two"), "alignment 3 rejected: %s", err);
	p.buffers = &bad[0];
	p.buffers = (const struct mp_buffer[]){ { 0, 1, 1, 1 } };
	p.num_pairs = 1;
	p.pairs = pr;
	ok(mp_plan(&p, NULL, off, &r, err, sizeof(err)) < 0 &&
	   strstr(err, "pair"), "pair out of range rejected: %s", err);
}

static void test_verifier(void)
{
	static const struct mp_buffer b[] = {
		{ 0, 4, 10, 1 }, { 3, 6, 10, 1 }, { 6, 9, 10, 8 },
	};
	static const uint32_t pr[][2] = { { 0, 2 } };
	struct mp_problem p = { 3, b, 0, NULL };
	char err[256];

	ok(!mp_verify(&p, (int64_t[]){ 0, 10, 0 }, 20, err, sizeof(err)),
	   "verifier accepts a valid plan");
	ok(mp_verify(&p, (int64_t[]){ 0, 5, 0 }, 20, err, sizeof(err)) &&
	   strstr(err, "lifetimes intersect"),
	   "verifier rejects overlapping live buffers: %s", err);
	ok(mp_verify(&p, (int64_t[]){ 0, 10, 4 }, 20, err, sizeof(err)) &&
	   strstr(err, "multiple of 8"), "verifier rejects misalignment: %s",
	   err);
	ok(mp_verify(&p, (int64_t[]){ 0, 10, 0 }, 15, err, sizeof(err)) &&
	   strstr(err, "beyond the arena"), "verifier rejects a short arena: %s",
	   err);
	p.num_pairs = 1;
	p.pairs = pr;
	ok(mp_verify(&p, (int64_t[]){ 0, 10, 0 }, 20, err, sizeof(err)) &&
	   strstr(err, "different streams"),
	   "verifier honours cross-stream pairs: %s", err);
	ok(!mp_verify(&p, (int64_t[]){ 0, 10, 16 }, 26, err, sizeof(err)),
	   "verifier accepts the pair placed apart");
}

/* Access helpers for the task-level checker. */
#define RD(t, v, sp, b, e, vw)	{ t, v, sp, false, b, e, vw }
#define WR(t, v, sp, b, e, vw)	{ t, v, sp, true, b, e, vw }

static int vt(const struct mp_task *t, size_t nt, const struct mp_access *a,
	      size_t na, char *err, size_t errlen)
{
	struct mp_task_problem p = { nt, t, na, a };

	err[0] = '\0';
	return mp_verify_tasks(&p, NULL, err, errlen);
}

/*
 * Semaphore reuse: one semaphore carries signals of rising values. A wait
 * for 2 is ordered after the signal to 2, not the one to 1; signals of one
 * semaphore that are not ordered among themselves are refused (a wait for
 * the smaller value could pass on the larger one).
 */
static void test_task_checker_reuse(void)
{
	/* 0: write a, signal s3=1; 1: wait s3>=1, signal s3=2;
	 * 2: wait s3>=2, read a, write b over a */
	static const struct mp_task chain[8] = {
		{ 0, MP_TASK_OP, 0, false, 0 }, { 0, MP_TASK_SIGNAL, 3, false, 1 },
		{ 1, MP_TASK_WAIT, 3, false, 1 }, { 1, MP_TASK_SIGNAL, 3, false, 2 },
		{ 2, MP_TASK_WAIT, 3, false, 2 }, { 2, MP_TASK_OP, 0, false, 0 },
		{ 2, MP_TASK_OP, 0, false, 0 }, { 1, MP_TASK_OP, 0, false, 0 },
	};
	/* the same, but stream 1 signals 2 without waiting for 1 first */
	static const struct mp_task loose[8] = {
		{ 0, MP_TASK_OP, 0, false, 0 }, { 0, MP_TASK_SIGNAL, 3, false, 1 },
		{ 1, MP_TASK_OP, 0, false, 0 }, { 1, MP_TASK_SIGNAL, 3, false, 2 },
		{ 2, MP_TASK_WAIT, 3, false, 2 }, { 2, MP_TASK_OP, 0, false, 0 },
		{ 2, MP_TASK_OP, 0, false, 0 }, { 1, MP_TASK_OP, 0, false, 0 },
	};
	static const struct mp_access acc[] = {
		WR(0, 0, 1, 0, 16, 1), RD(5, 0, 1, 0, 16, 1),
		WR(6, 1, 1, 0, 16, 1),
	};
	char err[400];

	ok(!vt(chain, 8, acc, 3, err, sizeof(err)),
	   "task checker: a wait for 2 is ordered after the chained signals: %s",
	   err);
	ok(vt(loose, 8, acc, 3, err, sizeof(err)) &&
	   strstr(err, "not ordered before the signal to 2"),
	   "task checker refuses unordered signals of one semaphore: %s", err);
}

/*
 * The task-level checker: issue 22's variadic Max (Neg(Max(x, y, Relu(z))),
 * Max folded pairwise into an output that shares Relu's storage) is
 * refused; the same tasks with the output elsewhere, and a plain in-place
 * Relu, are accepted; other overlaps, races and deadlocks are refused.
 */
static void test_task_checker(void)
{
	/* one stream: 0 relu z->rz, 1 max x,y->m, 2 max m,rz->m, 3 neg m->o */
	static const struct mp_task one[4] = {
		{ 0, MP_TASK_OP, 0, true, 0 }, { 0, MP_TASK_OP, 0, true, 0 },
		{ 0, MP_TASK_OP, 0, true, 0 }, { 0, MP_TASK_OP, 0, true, 0 },
	};
	/* values: 0 x, 1 y, 2 z, 3 rz, 4 m, 5 o; space 2.. I/O, 1 workspace */
	static const struct mp_access bad[] = {
		RD(0, 2, 4, 0, 16, 1), WR(0, 3, 1, 0, 16, 2),
		RD(1, 0, 2, 0, 16, 3), RD(1, 1, 3, 0, 16, 4),
		WR(1, 4, 1, 0, 16, 2),
		RD(2, 4, 1, 0, 16, 2), RD(2, 3, 1, 0, 16, 2),
		WR(2, 4, 1, 0, 16, 2),
		RD(3, 4, 1, 0, 16, 2), WR(3, 5, 5, 0, 16, 5),
	};
	static const struct mp_access good[] = {
		RD(0, 2, 4, 0, 16, 1), WR(0, 3, 1, 0, 16, 2),
		RD(1, 0, 2, 0, 16, 3), RD(1, 1, 3, 0, 16, 4),
		WR(1, 4, 1, 64, 80, 6),
		RD(2, 4, 1, 64, 80, 6), RD(2, 3, 1, 0, 16, 2),
		WR(2, 4, 1, 64, 80, 6),
		/* neg in place over m: same view */
		RD(3, 4, 1, 64, 80, 6), WR(3, 5, 1, 64, 80, 6),
	};
	/* 0 writes a, 1 reads a writes b over a with another view */
	static const struct mp_access shifted[] = {
		WR(0, 0, 1, 0, 16, 1), RD(1, 0, 1, 0, 16, 1),
		WR(1, 1, 1, 4, 20, 2),
	};
	/* two streams: 0: write a, signal; 1: wait, read a; 2 (stream 1)
	 * writes b over a. With the wait, b is written after the read. */
	static const struct mp_task two[5] = {
		{ 0, MP_TASK_OP, 0, false, 0 }, { 0, MP_TASK_OP, 0, false, 0 },
		{ 0, MP_TASK_SIGNAL, 7, false, 1 }, { 1, MP_TASK_WAIT, 7, false, 1 },
		{ 1, MP_TASK_OP, 0, false, 0 },
	};
	static const struct mp_task racy[5] = {
		{ 0, MP_TASK_OP, 0, false, 0 }, { 0, MP_TASK_OP, 0, false, 0 },
		{ 0, MP_TASK_SIGNAL, 7, false, 1 }, { 1, MP_TASK_OP, 0, false, 0 },
		{ 1, MP_TASK_OP, 0, false, 0 },
	};
	static const struct mp_access cross[] = {
		WR(0, 0, 1, 0, 16, 1), RD(1, 0, 1, 0, 16, 1),
		WR(1, 2, 1, 64, 80, 3),
		WR(4, 1, 1, 0, 16, 1),
	};
	static const struct mp_task dead[2] = {
		{ 0, MP_TASK_WAIT, 1, false, 1 }, { 1, MP_TASK_WAIT, 2, false, 1 },
	};
	static const struct mp_access early[] = {
		RD(0, 0, 1, 0, 16, 1), WR(1, 0, 1, 0, 16, 1),
	};
	char err[400];

	ok(vt(one, 4, bad, sizeof(bad) / sizeof(bad[0]), err, sizeof(err)) &&
	   strstr(err, "task 1 writes value 4") && strstr(err, "task 2 reads"),
	   "task checker refuses a pairwise Max writing over its third input: %s",
	   err);
	ok(!vt(one, 4, good, sizeof(good) / sizeof(good[0]), err, sizeof(err)),
	   "task checker accepts it with the output apart and Neg in place: %s",
	   err);
	ok(vt(one, 2, shifted, 3, err, sizeof(err)) &&
	   strstr(err, "not in place on the same view"),
	   "task checker refuses an output overlapping its input shifted: %s",
	   err);
	ok(!vt(two, 5, cross, 4, err, sizeof(err)),
	   "task checker accepts reuse ordered by a semaphore: %s", err);
	ok(vt(racy, 5, cross, 4, err, sizeof(err)) &&
	   strstr(err, "task 4 writes value 1"),
	   "task checker refuses reuse by an unordered stream: %s", err);
	ok(vt(dead, 2, NULL, 0, err, sizeof(err)) && strstr(err, "deadlock"),
	   "task checker refuses programs that deadlock: %s", err);
	ok(vt(one, 2, early, 2, err, sizeof(err)) &&
	   strstr(err, "before any task"),
	   "task checker refuses a read before the write: %s", err);
	test_task_checker_reuse();
}

/* A larger DNN-like chain with skip connections: the portfolio reaches the
 * lower bound. */
static void test_dnn_like(void)
{
	enum { N = 200 };
	struct mp_buffer b[N];
	int64_t off[N];
	struct mp_result r = { 0 };

	for (int i = 0; i < N; i++) {
		b[i].lower = i;
		b[i].upper = i + 2 + (i % 4 == 0 ? 3 : 0);
		b[i].size = 4096 * (1 + (i * 7) % 13);
		b[i].align = 64;
	}
	struct mp_problem p = { N, b, 0, NULL };

	ok(!plan(&p, 0, 2000, off, &r) && r.arena >= r.lower_bound &&
	   r.arena <= r.lower_bound + r.lower_bound / 50,
	   "DNN-like chain: arena %lld within 2%% of lower bound %lld (no reuse %lld)",
	   (long long)r.arena, (long long)r.lower_bound,
	   (long long)r.no_reuse);
}

int main(void)
{
	test_random();
	test_known_optimum();
	test_bad_input();
	test_verifier();
	test_task_checker();
	test_dnn_like();
	printf("1..%d\n", test_no);
	return failures ? 1 : 0;
}
