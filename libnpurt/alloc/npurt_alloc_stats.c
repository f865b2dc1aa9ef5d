// SPDX-License-Identifier: MIT
/*
 * npurt_alloc_stats.c - memory_stats under PyTorch's key names, sorted as
 * torch.cuda.memory_stats() returns them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "npurt_alloc_stats.h"

static const char *const kinds[STAT_KINDS] = {
	"all", "small_pool", "large_pool",
};
static const char *const fields[4] = {
	"allocated", "current", "freed", "peak",
};

static int64_t field(const struct stat *s, int f)
{
	switch (f) {
	case 0: return s->allocated;
	case 1: return s->current;
	case 2: return s->freed;
	default: return s->peak;
	}
}

/* Pooled stats (all/small_pool/large_pool), alphabetical. */
static const struct {
	const char *name;
	size_t off;
} pooled[] = {
	{ "active", offsetof(struct npurt_alloc, active) },
	{ "active_bytes", offsetof(struct npurt_alloc, active_bytes) },
	{ "allocated_bytes", offsetof(struct npurt_alloc, allocated_bytes) },
	{ "allocation", offsetof(struct npurt_alloc, allocation) },
	{ "inactive_split", offsetof(struct npurt_alloc, inactive_split) },
	{ "inactive_split_bytes",
	  offsetof(struct npurt_alloc, inactive_split_bytes) },
};

static const struct {
	const char *name;
	size_t off;
} pooled_tail[] = {
	{ "requested_bytes", offsetof(struct npurt_alloc, requested_bytes) },
	{ "reserved_bytes", offsetof(struct npurt_alloc, reserved_bytes) },
	{ "segment", offsetof(struct npurt_alloc, segment) },
};

static int emit_pooled(struct npurt_alloc *a, const char *name, size_t off,
		       int (*fn)(void *, const char *, int64_t), void *arg)
{
	const struct stat *s = (const struct stat *)((const char *)a + off);
	char key[96];
	int k, f, ret;

	/* torch sorts keys: "all" < "large_pool" < "small_pool" */
	static const int order[STAT_KINDS] = { STAT_ALL, STAT_LARGE,
					       STAT_SMALL };

	for (k = 0; k < STAT_KINDS; k++)
		for (f = 0; f < 4; f++) {
			snprintf(key, sizeof(key), "%s.%s.%s", name,
				 kinds[order[k]], fields[f]);
			ret = fn(arg, key, field(&s[order[k]], f));
			if (ret)
				return ret;
		}
	return 0;
}

static int emit_single(const char *name, const struct stat *s,
		       int (*fn)(void *, const char *, int64_t), void *arg)
{
	char key[96];
	int f, ret;

	for (f = 0; f < 4; f++) {
		snprintf(key, sizeof(key), "%s.%s", name, fields[f]);
		ret = fn(arg, key, field(s, f));
		if (ret)
			return ret;
	}
	return 0;
}

int npurt_alloc_memory_stats(struct npurt_alloc *a,
			     int (*fn)(void *arg, const char *key,
				       int64_t value),
			     void *arg)
{
	int64_t msz = a->cfg.max_split_size == UINT64_MAX ? -1 :
		(int64_t)a->cfg.max_split_size;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(pooled) / sizeof(pooled[0]); i++)
		if ((ret = emit_pooled(a, pooled[i].name, pooled[i].off, fn,
				       arg)))
			return ret;
	if ((ret = fn(arg, "max_split_size", msz)) ||
	    (ret = fn(arg, "num_alloc_retries", a->num_alloc_retries)) ||
	    (ret = fn(arg, "num_device_alloc", a->num_device_alloc)) ||
	    (ret = fn(arg, "num_device_free", a->num_device_free)) ||
	    (ret = fn(arg, "num_ooms", a->num_ooms)) ||
	    (ret = fn(arg, "num_sync_all_streams", a->num_sync_all_streams)))
		return ret;
	if ((ret = emit_single("oversize_allocations",
			       &a->oversize_allocations, fn, arg)) ||
	    (ret = emit_single("oversize_segments", &a->oversize_segments,
			       fn, arg)))
		return ret;
	for (i = 0; i < sizeof(pooled_tail) / sizeof(pooled_tail[0]); i++)
		if ((ret = emit_pooled(a, pooled_tail[i].name,
				       pooled_tail[i].off, fn, arg)))
			return ret;
	return 0;
}

struct lookup {
	const char *key;
	int64_t value;
};

static int lookup_cb(void *arg, const char *key, int64_t value)
{
	struct lookup *l = arg;

	if (strcmp(key, l->key))
		return 0;
	l->value = value;
	return 1;
}

int npurt_alloc_stat(struct npurt_alloc *a, const char *key, int64_t *value)
{
	struct lookup l = { key, 0 };

	if (!key || npurt_alloc_memory_stats(a, lookup_cb, &l) != 1)
		return -ENOENT;
	*value = l.value;
	return 0;
}

static void reset_peaks(struct stat *s, int n)
{
	for (int i = 0; i < n; i++)
		s[i].peak = s[i].current;
}

static void reset_accum(struct stat *s, int n)
{
	for (int i = 0; i < n; i++)
		s[i].allocated = s[i].freed = 0;
}

#define EACH_POOLED(a, fn) do { \
	fn((a)->allocation, STAT_KINDS); fn((a)->segment, STAT_KINDS); \
	fn((a)->active, STAT_KINDS); fn((a)->inactive_split, STAT_KINDS); \
	fn((a)->allocated_bytes, STAT_KINDS); \
	fn((a)->reserved_bytes, STAT_KINDS); \
	fn((a)->active_bytes, STAT_KINDS); \
	fn((a)->inactive_split_bytes, STAT_KINDS); \
	fn((a)->requested_bytes, STAT_KINDS); \
	fn(&(a)->oversize_allocations, 1); \
	fn(&(a)->oversize_segments, 1); \
} while (0)

void npurt_alloc_reset_peak_stats(struct npurt_alloc *a)
{
	EACH_POOLED(a, reset_peaks);
}

void npurt_alloc_reset_accumulated_stats(struct npurt_alloc *a)
{
	EACH_POOLED(a, reset_accum);
	a->num_alloc_retries = a->num_ooms = a->num_sync_all_streams = 0;
	a->num_device_alloc = a->num_device_free = 0;
}
