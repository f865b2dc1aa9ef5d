/* SPDX-License-Identifier: MIT */
/*
 * bench_alloc.h - the allocation-trace benchmark: traces and the backends
 * that replay them (ours and the clean-room baselines).
 */
#ifndef BENCH_ALLOC_H
#define BENCH_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#define BENCH_GRANULE	512ull	/* every backend's allocation unit */

enum trace_op_kind { OP_ALLOC, OP_FREE, OP_SYNC };

struct trace_op {
	uint8_t kind;
	uint32_t stream;
	uint32_t id;		/* dense: index into the backend's handles */
	uint64_t size;
};

struct trace {
	char name[64];
	struct trace_op *ops;
	uint32_t nops, nids;
	uint64_t peak_live;	/* granule-rounded live bytes at peak */
	uint64_t peak_requested;
	uint64_t median_size;	/* median request, for the unusable index */
	uint32_t allocs;
};

/* Read a trace file; 0, or -1 with a message on stderr naming the line. */
int trace_load(const char *path, struct trace *t);
void trace_free(struct trace *t);

/* Figures a backend reports after (or during) a replay. */
struct backend_figures {
	uint64_t moved_bytes;
	uint64_t compactions;
	uint64_t pause_ns;
	uint64_t max_pause_ns;
	uint64_t pauses;		/* ranges moved: one pause each */
	uint64_t peak_reserved;	/* extent high-water mark, or segments */
};

struct backend {
	const char *name;
	const char *what;
	bool ours;
	void *(*create)(uint64_t capacity, uint32_t nids);
	void (*destroy)(void *b);
	int (*alloc)(void *b, uint32_t id, uint64_t size, uint32_t stream);
	void (*free)(void *b, uint32_t id);
	void (*sync)(void *b);
	/* free bytes a request could use in principle, and the largest */
	void (*free_space)(void *b, uint64_t *free, uint64_t *largest);
	/* share of free bytes in pieces smaller than @size, ppm */
	uint32_t (*unusable_ppm)(void *b, uint64_t size);
	void (*figures)(void *b, struct backend_figures *f);
};

extern const struct backend be_pool_compact, be_pool_nocompact,
	be_caching_pool, be_pytorch_like, be_first_fit, be_buddy, be_tlsf;

struct npu_pool;

/*
 * The pool every pool-backed backend replays on: @capacity bytes at the
 * benchmark's granule, compacting on failure or not; NULL on no memory.
 */
struct npu_pool *bench_pool_create(uint64_t capacity, bool compact);

/* The pool's compaction figures; peak_reserved: the extent's high mark. */
void bench_pool_figures(struct npu_pool *pool, struct backend_figures *f);

static inline uint64_t bench_round(uint64_t size)
{
	return (size + BENCH_GRANULE - 1) & ~(BENCH_GRANULE - 1);
}

#endif /* BENCH_ALLOC_H */
