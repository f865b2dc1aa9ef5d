// SPDX-License-Identifier: MIT
/*
 * rt_cache.c - LRU caches of compiled models: the op cache of single-op
 * mode (op_exec.c) and the shape cache of models loaded from ONNX
 * (shape_cache.c).
 *
 * An entry is a key (bytes, compared in full; the hash only skips
 * mismatches) and a loaded internal model. A list in recency order (most
 * recently used first) gives the LRU victim at its tail. Capacities are
 * small (tens to hundreds), so lookups walk the list. The caller
 * serialises calls on one cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

/* FNV-1a, 64-bit. */
uint64_t rt_hash(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void unlink_entry(struct rt_cache *c, struct rt_centry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NULL;
}

static void push_front(struct rt_cache *c, struct rt_centry *e)
{
	e->prev = NULL;
	e->next = c->head;
	if (c->head)
		c->head->prev = e;
	c->head = e;
	if (!c->tail)
		c->tail = e;
}

struct rt_centry *rt_cache_find(struct rt_cache *c, const void *key,
				size_t len)
{
	uint64_t h = rt_hash(key, len);

	for (struct rt_centry *e = c->head; e; e = e->next) {
		if (e->hash != h || e->key_len != len ||
		    memcmp(e->key, key, len))
			continue;
		if (e != c->head) {
			unlink_entry(c, e);
			push_front(c, e);
		}
		c->hits++;
		return e;
	}
	return NULL;
}

static void drop(struct rt_cache *c, struct rt_centry *e)
{
	unlink_entry(c, e);
	c->count--;
	rt_model_unload(e->model);
	free(e->key);
	free(e);
}

bool rt_cache_evict_lru(struct rt_cache *c)
{
	if (!c->tail)
		return false;
	rt_log("cache %p: evicting \"%s\"", (void *)c, c->tail->name);
	drop(c, c->tail);
	c->evictions++;
	return true;
}

npurt_status rt_cache_insert(struct rt_cache *c, const void *key, size_t len,
			     npurt_model *model, const char *name,
			     struct rt_centry **out, const char *func)
{
	struct rt_centry *e = calloc(1, sizeof(*e));

	if (e)
		e->key = malloc(len ? len : 1);
	if (!e || !e->key) {
		free(e);
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory for a cache entry");
	}
	memcpy(e->key, key, len);
	e->key_len = len;
	e->hash = rt_hash(key, len);
	e->model = model;
	snprintf(e->name, sizeof(e->name), "%s", name);
	while (c->count >= c->capacity && rt_cache_evict_lru(c))
		;
	push_front(c, e);
	c->count++;
	*out = e;
	return NPURT_OK;
}

void rt_cache_clear(struct rt_cache *c)
{
	while (c->head)
		drop(c, c->head);
}

void rt_cache_stats(const struct rt_cache *c, npurt_cache_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->hits = c->hits;
	st->misses = c->misses;
	st->evictions = c->evictions;
	st->entries = c->count;
	st->capacity = c->capacity;
	st->compile_ns = c->compile_ns;
	st->load_ns = c->load_ns;
	st->last_compile_ns = c->last_compile_ns;
	st->device_bytes = rt_cache_bytes(c);
}

uint64_t rt_cache_bytes(const struct rt_cache *c)
{
	uint64_t b = 0;

	for (const struct rt_centry *e = c->head; e; e = e->next)
		b += e->model->bytes;
	return b;
}
