// SPDX-License-Identifier: MIT
/*
 * verify.c - the independent checker of memory plans.
 *
 * Deliberately shares nothing with the planners (no prepared context, no
 * footprints): it works from the problem as given, finds the pairs of
 * buffers whose lifetimes intersect by its own sweep, adds the explicit
 * pairs, and checks that the byte ranges [offset, offset + size) of every
 * such pair are disjoint, that offsets are aligned and that the claimed
 * arena holds every buffer.
 */
#include <stdio.h>
#include <stdlib.h>

#include "memplan.h"

static const struct mp_buffer *vb;

static int by_lower(const void *pa, const void *pb)
{
	const struct mp_buffer *a = &vb[*(const size_t *)pa];
	const struct mp_buffer *b = &vb[*(const size_t *)pb];

	return (a->lower > b->lower) - (a->lower < b->lower);
}

static bool live(const struct mp_buffer *b)
{
	return b->size > 0 && b->upper > b->lower;
}

static bool space_overlap(const struct mp_buffer *a, int64_t oa,
			  const struct mp_buffer *b, int64_t ob)
{
	return oa < ob + b->size && ob < oa + a->size;
}

static int report(char *err, size_t errlen, const struct mp_problem *p,
		  const int64_t *off, size_t i, size_t j, const char *why)
{
	const struct mp_buffer *a = &p->buffers[i], *b = &p->buffers[j];

	if (err)
		snprintf(err, errlen,
			 "buffers %zu [%lld,%lld) at %lld+%lld and %zu [%lld,%lld) at %lld+%lld overlap in space (%s)",
			 i, (long long)a->lower, (long long)a->upper,
			 (long long)off[i], (long long)a->size, j,
			 (long long)b->lower, (long long)b->upper,
			 (long long)off[j], (long long)b->size, why);
	return -1;
}

int mp_verify(const struct mp_problem *p, const int64_t *offsets,
	      int64_t arena, char *err, size_t errlen)
{
	size_t n = p->num_buffers;
	size_t *order;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		const struct mp_buffer *b = &p->buffers[i];
		int64_t a = b->align > 1 ? b->align : 1;

		if (offsets[i] < 0 || offsets[i] % a) {
			if (err)
				snprintf(err, errlen,
					 "buffer %zu: offset %lld is negative or not a multiple of %lld",
					 i, (long long)offsets[i], (long long)a);
			return -1;
		}
		if (live(b) && offsets[i] + b->size > arena) {
			if (err)
				snprintf(err, errlen,
					 "buffer %zu ends at %lld, beyond the arena of %lld bytes",
					 i, (long long)(offsets[i] + b->size),
					 (long long)arena);
			return -1;
		}
	}
	for (size_t k = 0; k < p->num_pairs; k++) {
		size_t i = p->pairs[k][0], j = p->pairs[k][1];

		if (i >= n || j >= n) {
			if (err)
				snprintf(err, errlen, "pair %zu out of range", k);
			return -1;
		}
		if (i != j && live(&p->buffers[i]) && live(&p->buffers[j]) &&
		    space_overlap(&p->buffers[i], offsets[i], &p->buffers[j],
				  offsets[j]))
			return report(err, errlen, p, offsets, i, j,
				      "they may be live together on different streams");
	}
	order = malloc((n + 1) * sizeof(*order));
	if (!order) {
		if (err)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	vb = p->buffers;
	qsort(order, n, sizeof(*order), by_lower);
	/* Every pair whose lifetimes intersect: for each buffer, those born
	 * after it and before it dies. */
	for (size_t x = 0; x < n && !ret; x++) {
		const struct mp_buffer *a = &p->buffers[order[x]];

		if (!live(a))
			continue;
		for (size_t y = x + 1; y < n; y++) {
			const struct mp_buffer *b = &p->buffers[order[y]];

			if (b->lower >= a->upper)
				break;
			if (!live(b))
				continue;
			if (space_overlap(a, offsets[order[x]], b,
					  offsets[order[y]])) {
				ret = report(err, errlen, p, offsets, order[x],
					     order[y], "their lifetimes intersect");
				break;
			}
		}
	}
	free(order);
	return ret;
}
