// SPDX-License-Identifier: MIT
/*
 * hillclimb.c - improve a plan by perturbing the placement order and
 * replaying it first-fit.
 *
 * Any plan is reproduced (or improved) by replaying its buffers in order of
 * offset, so the climber works on orders: it moves a buffer that touches
 * the top of the arena to an earlier place (so that it is placed before the
 * buffers that pushed it up), or swaps two buffers, replays, and keeps the
 * new order when the arena is no larger (accepting equal arenas lets it walk
 * across plateaus).
 */
#include <stdlib.h>
#include <string.h>

#include "mp_internal.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static const int64_t *order_off;

static int by_offset(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (order_off[a] != order_off[b])
		return order_off[a] < order_off[b] ? -1 : 1;
	return (a > b) - (a < b);
}

/* Move order[from] to position to (< from), shifting the rest up. */
static void move_earlier(uint32_t *order, size_t from, size_t to)
{
	uint32_t v = order[from];

	memmove(order + to + 1, order + to, (from - to) * sizeof(*order));
	order[to] = v;
}

int64_t mp_hill_climb(const struct mp_ctx *c, int64_t *off, int64_t arena,
		      uint64_t seed, uint64_t deadline_ns)
{
	size_t n = c->n;
	uint32_t *order = malloc((n + 1) * sizeof(*order));
	uint32_t *trial = malloc((n + 1) * sizeof(*trial));
	int64_t *toff = malloc((n + 1) * sizeof(*toff));
	int64_t (*scratch)[2] = malloc((n + 1) * sizeof(*scratch));
	uint64_t rng = seed ? seed : 0x9E3779B97F4A7C15ull;
	int64_t cur;
	unsigned long iter = 0;

	if (!order || !trial || !toff || !scratch || n < 2)
		goto out;
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	order_off = off;
	qsort(order, n, sizeof(*order), by_offset);
	cur = mp_replay(c, order, MP_FIRST_FIT, toff, scratch);
	if (cur < arena) {
		arena = cur;
		memcpy(off, toff, n * sizeof(*off));
	}
	cur = arena;
	while (cur > c->lower_bound) {
		if ((iter++ & 15) == 0 && mp_now_ns() >= deadline_ns)
			break;
		memcpy(trial, order, n * sizeof(*order));
		if (rng_next(&rng) & 1) {
			/* a buffer at the top goes earlier */
			size_t pos = 0, seen = 0;

			for (size_t i = 0; i < n; i++) {
				uint32_t b = trial[i];

				if (off[b] + c->fp[b] == cur &&
				    rng_next(&rng) % ++seen == 0)
					pos = i;
			}
			if (pos == 0)
				continue;
			move_earlier(trial, pos, rng_next(&rng) % pos);
		} else {
			size_t i = rng_next(&rng) % n, j = rng_next(&rng) % n;
			uint32_t t = trial[i];

			trial[i] = trial[j];
			trial[j] = t;
		}
		int64_t a = mp_replay(c, trial, MP_FIRST_FIT, toff, scratch);

		if (a <= cur) {
			memcpy(order, trial, n * sizeof(*order));
			memcpy(off, toff, n * sizeof(*off));
			cur = a;
		}
	}
	arena = cur;
out:
	free(order);
	free(trial);
	free(toff);
	free(scratch);
	return arena;
}
