/* SPDX-License-Identifier: MIT */
/* npurt_alloc_stats.h - counters of the caching allocator (not an API). */
#ifndef NPURT_ALLOC_STATS_H
#define NPURT_ALLOC_STATS_H

#include "npurt_alloc_internal.h"

/*
 * Add @delta to the "all" counter of @s and, when @pool >= 0, to that
 * pool's; moves peak, and allocated (for increments) or freed (decrements).
 */
static inline void stat_one(struct stat *s, int64_t delta)
{
	s->current += delta;
	if (delta > 0)
		s->allocated += delta;
	else
		s->freed -= delta;
	if (s->current > s->peak)
		s->peak = s->current;
}

static inline void stat_add(struct stat *s, int pool, int64_t delta)
{
	stat_one(&s[STAT_ALL], delta);
	if (pool >= 0)
		stat_one(&s[1 + pool], delta);
}

#endif /* NPURT_ALLOC_STATS_H */
