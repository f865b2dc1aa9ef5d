/* SPDX-License-Identifier: MIT */
/*
 * cache.h - the compile cache: compiled models keyed by what determines
 * them.
 *
 * Key: XXH3-128 over the canonical graph (ops, attributes, shapes, dtypes,
 * names, the wiring by position), the weights'
 * bytes, the options that change the output, the compiler version and the
 * target. An entry is one file <dir>/<32 hex digits>.npuc: a header (magic,
 * version, key, payload sizes, CRC32C of the payload) then the .om bytes
 * and an opaque blob (the compile report).
 *
 * Directory: $NPU_CACHE_DIR, else $XDG_CACHE_HOME/npu, else ~/.cache/npu.
 * Writes are atomic (temporary file in the directory, then rename; no
 * fsync: a torn entry fails its CRC on lookup and is replaced);
 * concurrent compiles of one key serialise on flock() of <key>.lock so the
 * second one finds the first one's entry; reads verify the header, the key
 * and the checksum, and a damaged entry is deleted and reported as such
 * (the caller recompiles, never trusting it). After each store the
 * directory is trimmed to $NPU_CACHE_MAX_BYTES (default 1 GiB) by removing
 * the least recently used entries (a hit refreshes an entry's mtime),
 * the partition cache's (*.npup, partition.h) with them.
 */
#ifndef NPUC_CACHE_H
#define NPUC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XXH_STATIC_LINKING_ONLY	/* XXH3_state_t on the stack */
#include <xxhash.h>

struct cache_key {
	uint64_t h[2];
};

/* Incremental hashing of everything that makes the key (XXH3-128). */
struct cache_hasher {
	XXH3_state_t st;
};

void cache_hash_init(struct cache_hasher *h);
void cache_hash_bytes(struct cache_hasher *h, const void *p, size_t n);
void cache_hash_u64(struct cache_hasher *h, uint64_t v);
void cache_hash_str(struct cache_hasher *h, const char *s);
struct cache_key cache_hash_final(const struct cache_hasher *h);
void cache_key_hex(const struct cache_key *k, char out[33]);

struct ir_graph;
struct ir_node;
/*
 * The canonical form of @g (graph_hash.c): ops, attributes and subgraphs,
 * types, shapes, constants' bytes, wiring by position; names only with
 * @names. Uses the tensors' priv (cleared before and after).
 */
void cache_hash_graph(struct cache_hasher *h, struct ir_graph *g, bool names);
struct ir_attr;
/* One attribute of such a walk (@next numbers the tensors met, in priv). */
void cache_hash_attr(struct cache_hasher *h, const struct ir_attr *a,
		     int *next, bool names);
/* What a node computes besides its operands: op, opset, fused act. */
void cache_hash_node_op(struct cache_hasher *h, const struct ir_node *n);
/* One node of such a walk. */
void cache_hash_node(struct cache_hasher *h, const struct ir_node *n,
		     int *next, bool names);

/* The cache directory (created on demand); NULL-terminated in @out. */
int cache_dir(char *out, size_t len);

enum cache_status {
	CACHE_MISS = 0,
	CACHE_HIT,
	CACHE_CORRUPT,		/* an entry was there, failed checks, removed */
};

struct cache_handle {
	char dir[4096];
	char key_hex[33];
	struct cache_key key;
	int lock_fd;
};

/*
 * cache_open() - take the key's lock (blocking) in @dir (NULL: default dir)
 * Return: 0 or -errno (the caller then compiles without the cache).
 */
int cache_open(struct cache_handle *c, const char *dir,
	       const struct cache_key *key);

/*
 * cache_lookup() - map and verify the entry
 * @om, @om_size: the model bytes on CACHE_HIT: the entry's read-only
 *	mapping, given back with cache_om_release(@om, *@om_map)
 * @blob, @blob_size: the stored blob (malloc'ed) on CACHE_HIT
 */
enum cache_status cache_lookup(struct cache_handle *c, void **om,
			       size_t *om_size, size_t *om_map, void **blob,
			       size_t *blob_size);

/* Where the model lies in an entry (its header's size). */
#define CACHE_OM_OFFSET	64

/*
 * cache_om_release() - give back a model: a hit's mapping (@om_map, the
 * length cache_lookup() gave) or, for @om_map 0, malloc()'ed bytes
 */
void cache_om_release(void *om, size_t om_map);

/* cache_store() - write the entry atomically, then trim the directory. */
int cache_store(struct cache_handle *c, const void *om, size_t om_size,
		const void *blob, size_t blob_size);

/* cache_close() - release the lock. */
void cache_close(struct cache_handle *c);

/* Path of the key's entry file (for tests that damage it). */
void cache_entry_path(const struct cache_handle *c, char *out, size_t len);

#endif /* NPUC_CACHE_H */
