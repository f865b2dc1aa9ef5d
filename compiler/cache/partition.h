/* SPDX-License-Identifier: MIT */
/*
 * partition.h - the partition cache: what a compile derived from a
 * model's constants, kept by partition of the graph, so that the same
 * model with a new head, or another model with the same backbone, reuses
 * it and derives only what changed.
 *
 * Partitions: the imported graph in topological order, cut after each
 * node where a single value is live (a chain's link: the output of a
 * residual block, of a transformer layer) once the partition holds a
 * weight (a constant of PART_WEIGHT_BYTES or more), or after
 * PART_MAX_NODES nodes without such a point. Only partitions that derived
 * something have an entry. Key of a partition: XXH3-128 over the compile's
 * salt (the options, the target and the compiler's build) and its nodes:
 * op, attributes, the types of their outputs, their constants' digests
 * (bytes), their inputs from inside the partition by position and from
 * outside by type. Names are not in it (a model exported again under
 * other names shares its partitions), nor what lies upstream (a partition
 * after a changed layer is found again), nor the values' dims (another
 * batch or sequence length finds the same partitions; a derivation that
 * depends on dims has them in its own key).
 *
 * An entry (<dir>/<32 hex>.npup) holds the constants the passes derived
 * for its nodes (derive.h: weights reordered for the device, folded
 * BatchNormalizations), each under its derivation key with its size, an
 * XXH3-64 of its bytes and what computing it cost. A compile loads the
 * entries of its partitions' keys; a pass about to derive a constant
 * finds it by its derivation key among them, verified, and copies it
 * (Documentation/online.rst, "The partition cache").
 */
#ifndef NPUC_PARTITION_H
#define NPUC_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"

#define PART_MAX_NODES	64
#define PART_WEIGHT_BYTES	16384

struct ir_graph;
struct part_cache;

struct part_stats {
	uint32_t partitions;		/* of the graph */
	uint32_t partitions_found;	/* with an entry in the cache */
	uint32_t partitions_stored;	/* entries written (new or grown) */
	uint32_t nodes;			/* of the imported graph */
	uint32_t nodes_reused;		/* in found partitions, all hits */
	uint32_t derived;		/* constants derived or fetched */
	uint32_t derived_hit;		/* ... fetched from the cache */
	uint64_t bytes_reused;		/* their bytes */
	double saved_ms;		/* their cost when derived - fetching */
	double plan_ms;			/* keys, cuts, loading entries */
	uint32_t corrupt;		/* entries or records failing checks */
};

/*
 * part_cache_open() - partition @g, load the entries found in @dir and
 * set g->derive, so that the passes fetch and keep derived constants.
 * @salt: what else decides a compile (options, target, build)
 * Return: 0, or -errno (out of memory; the caller compiles without it).
 */
int part_cache_open(struct part_cache **out, const char *dir,
		    struct ir_graph *g, const struct cache_key *salt);

/* Write the entries of partitions that were missing or derived more. */
int part_cache_store(struct part_cache *pc);

void part_cache_stats(const struct part_cache *pc, struct part_stats *st);

/* Unmap the entries, drop unstored data (NULL: nothing). */
void part_cache_close(struct part_cache *pc);

#endif /* NPUC_PARTITION_H */
