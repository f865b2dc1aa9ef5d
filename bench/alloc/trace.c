// SPDX-License-Identifier: MIT
/*
 * trace.c - reading allocation traces:
 *   alloc ID SIZE STREAM | free ID | sync | # comment
 * Ids are remapped to dense indexes; peak live bytes are computed with
 * every request rounded to the common granule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_alloc.h"

struct idmap {
	uint64_t *keys;
	uint32_t *vals;
	uint64_t cap;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Open addressing; key+1 stored so 0 marks an empty slot. */
static uint32_t *idmap_slot(struct idmap *m, uint64_t key, bool insert)
{
	uint64_t i = hash64(key) & (m->cap - 1);

	for (;; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key + 1)
			return &m->vals[i];
		if (!m->keys[i]) {
			if (!insert)
				return NULL;
			m->keys[i] = key + 1;
			return &m->vals[i];
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int fail(const char *path, unsigned line, const char *why)
{
	fprintf(stderr, "alloc-bench: %s:%u: %s\n", path, line, why);
	return -1;
}

int trace_load(const char *path, struct trace *t)
{
	FILE *f = fopen(path, "r");
	char buf[256];
	unsigned line = 0;
	uint32_t cap = 1024;
	struct idmap m = { 0 };
	uint64_t *sizes = NULL, *req = NULL, live = 0, rlive = 0;
	uint8_t *alive = NULL;
	int ret = -1;
	const char *base;

	memset(t, 0, sizeof(*t));
	if (!f) {
		perror(path);
		return -1;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(t->name, sizeof(t->name), "%.*s", (int)strcspn(base, "."),
		 base);
	t->ops = malloc(cap * sizeof(*t->ops));
	m.cap = 1 << 18;
	m.keys = calloc(m.cap, sizeof(*m.keys));
	m.vals = calloc(m.cap, sizeof(*m.vals));
	sizes = calloc(m.cap / 2, sizeof(*sizes));
	req = calloc(m.cap / 2, sizeof(*req));
	alive = calloc(m.cap / 2, 1);
	if (!t->ops || !m.keys || !m.vals || !sizes || !req || !alive)
		goto out;
	while (fgets(buf, sizeof(buf), f)) {
		struct trace_op op = { 0 };
		unsigned long long id, size, stream;
		uint32_t *slot;
		char word[16];

		line++;
		if (buf[0] == '#' || buf[strspn(buf, " \t\r\n")] == '\0')
			continue;
		if (sscanf(buf, "%15s", word) != 1)
			continue;
		if (!strcmp(word, "alloc")) {
			if (sscanf(buf, "alloc %llu %llu %llu", &id, &size,
				   &stream) != 3 || !size ||
			    stream > 1024) {
				fail(path, line, "expected 'alloc ID SIZE STREAM' with SIZE > 0 and STREAM <= 1024");
				goto out;
			}
			if (t->nids >= m.cap / 2) {
				fail(path, line, "more than 131072 allocations: raise the id map in trace.c");
				goto out;
			}
			slot = idmap_slot(&m, id, false);
			if (slot && alive[*slot]) {
				fail(path, line, "id allocated twice (free it first)");
				goto out;
			}
			/* an id freed before may come back: a new dense index */
			slot = idmap_slot(&m, id, true);
			*slot = t->nids++;
			op.kind = OP_ALLOC;
			op.id = *slot;
			op.size = size;
			op.stream = (uint32_t)stream;
			sizes[op.id] = bench_round(size);
			req[op.id] = size;
			alive[op.id] = 1;
			live += sizes[op.id];
			rlive += size;
			if (live > t->peak_live)
				t->peak_live = live;
			if (rlive > t->peak_requested)
				t->peak_requested = rlive;
			t->allocs++;
		} else if (!strcmp(word, "free")) {
			if (sscanf(buf, "free %llu", &id) != 1 ||
			    !(slot = idmap_slot(&m, id, false)) ||
			    !alive[*slot]) {
				fail(path, line, "'free ID' of an id that is not live");
				goto out;
			}
			op.kind = OP_FREE;
			op.id = *slot;
			alive[op.id] = 0;
			live -= sizes[op.id];
			rlive -= req[op.id];
		} else if (!strcmp(word, "sync")) {
			op.kind = OP_SYNC;
		} else {
			fail(path, line, "unknown operation (alloc, free, sync or # comment)");
			goto out;
		}
		if (t->nops == cap) {
			struct trace_op *n = realloc(t->ops, 2 * cap * sizeof(*n));

			if (!n)
				goto out;
			t->ops = n;
			cap *= 2;
		}
		t->ops[t->nops++] = op;
	}
	if (!t->allocs) {
		fail(path, line, "no allocations in the trace");
		goto out;
	}
	{
		uint64_t *all = malloc(t->allocs * sizeof(*all));
		uint32_t i, n = 0;

		if (!all)
			goto out;
		for (i = 0; i < t->nops; i++)
			if (t->ops[i].kind == OP_ALLOC)
				all[n++] = t->ops[i].size;
		qsort(all, n, sizeof(*all), cmp_u64);
		t->median_size = bench_round(all[n / 2]);
		free(all);
	}
	ret = 0;
out:
	fclose(f);
	free(m.keys);
	free(m.vals);
	free(sizes);
	free(req);
	free(alive);
	if (ret)
		trace_free(t);
	return ret;
}

void trace_free(struct trace *t)
{
	free(t->ops);
	t->ops = NULL;
}
