/* SPDX-License-Identifier: MIT */
/*
 * npurt_alloc_internal.h - the caching allocator's own types (not an API).
 */
#ifndef NPURT_ALLOC_INTERNAL_H
#define NPURT_ALLOC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "npurt_alloc.h"
#include "pool/npu_rbtree.h"

#define ALLOC_ANY_STREAM	UINT64_MAX	/* free key: any stream may use */

enum { POOL_SMALL = 0, POOL_LARGE = 1, POOL_COUNT = 2 };
enum { STAT_ALL = 0, STAT_SMALL = 1, STAT_LARGE = 2, STAT_KINDS = 3 };

struct stat {
	int64_t current, peak, allocated, freed;
};

struct seg;

/* A block: the public part first, so npurt_block * converts back. */
struct blk {
	struct npurt_block pub;
	struct seg *seg;
	struct blk *prev, *next;	/* address order inside the segment */
	bool allocated;
	bool pending;			/* freed, waiting for other streams */
	bool in_tree;
	uint64_t key;			/* free: the stream that may use it */
	uint64_t event;			/* free: event on its stream, or 0 */
	struct npu_rb rb;		/* pool's free tree */
	struct blk *lprev, *lnext;	/* fenced or pending list */
	uint64_t *streams;		/* record_stream: other streams */
	uint64_t *events;		/* pending: their events */
	uint32_t nstreams, nevents;
};

struct seg {
	uint64_t id;			/* creation order: deterministic ties */
	uint64_t handle, addr, size;
	int pool;
	struct blk *first;
	struct seg *prev, *next;
};

/* FIFO of blocks: oldest first, appended at the tail. */
struct blist {
	struct blk *head, *tail;
};

struct npurt_alloc {
	struct npurt_alloc_backend be;
	struct npurt_alloc_config cfg;
	struct npu_rb_root free_tree[POOL_COUNT];
	struct seg *segs;
	uint64_t next_seg_id;
	struct blist fenced;		/* free, keyed to a stream, event set */
	struct blist pending;		/* freed, record_stream events open */
	double fraction;		/* 0: no cap */

	struct stat allocation[STAT_KINDS], segment[STAT_KINDS],
		    active[STAT_KINDS], inactive_split[STAT_KINDS],
		    allocated_bytes[STAT_KINDS], reserved_bytes[STAT_KINDS],
		    active_bytes[STAT_KINDS], inactive_split_bytes[STAT_KINDS],
		    requested_bytes[STAT_KINDS], oversize_allocations,
		    oversize_segments;
	int64_t num_alloc_retries, num_ooms, num_sync_all_streams,
		num_device_alloc, num_device_free;
	char error[1024];
};

#endif /* NPURT_ALLOC_INTERNAL_H */
