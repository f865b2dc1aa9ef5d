/* SPDX-License-Identifier: MIT */
/*
 * npurt_alloc.h - the runtime's caching device-memory allocator.
 *
 * Modelled on PyTorch's CUDACachingAllocator, above an abstract backend so
 * that the same code runs on the real device (segments are buffer objects,
 * through the transport) and on a bare npu_pool in the allocation
 * benchmark. Library: $(BUILD)/lib/libnpurtalloc.a; link
 * $(BUILD)/lib/libnpupool.a after it (the allocator's free-block index is
 * the pool's red-black tree). npurt_alloc_pool.h: a backend over a bare pool.
 *
 * Policy (defaults; see Documentation/memory-pool.rst):
 * - Requests are rounded up to 512 bytes. Requests <= 1 MiB come from the
 *   small pool, carved out of 2 MiB segments; larger ones from the large
 *   pool: 20 MiB segments for requests < 10 MiB, else the request rounded up
 *   to 2 MiB.
 * - A free block is split when the remainder is >= 512 bytes (small pool)
 *   or > 1 MiB (large pool), unless the request is max_split_size or more;
 *   cached blocks of max_split_size or more serve only requests of that
 *   class (at most 20 MiB smaller).
 *   Freed blocks merge with free neighbours of the same segment.
 * - Stream-ordered reuse: a block freed on stream S is reused at once by
 *   stream S (work on S is ordered). Another stream may reuse it only after
 *   an event recorded on S at the free has completed (backend event_record /
 *   event_query), or after npurt_alloc_synchronize(). Streams a block was
 *   used on besides its own (npurt_alloc_record_stream) hold the block
 *   "active" until their events complete.
 * - On a miss: process completed events, allocate a segment; if that fails
 *   (num_alloc_retries++): free cached segments that would serve the
 *   request, retry; free every cached segment, retry; ask the backend to
 *   compact (open a hole of the segment size), retry; try a segment of
 *   exactly the rounded request; then out of memory (num_ooms++), with a
 *   message naming the request, allocated, reserved, largest free.
 * - A per-process memory fraction caps reserved bytes at fraction x device
 *   total (as torch.cuda.set_per_process_memory_fraction).
 *
 * Not thread-safe: the caller serialises (the runtime's context lock).
 */
#ifndef NPURT_ALLOC_H
#define NPURT_ALLOC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the backend knows about the device, for fraction and OOM reports. */
struct npurt_alloc_device_info {
	uint64_t total;			/* device memory bytes */
	uint64_t free;			/* free bytes now */
	uint64_t largest_free;		/* largest contiguous free range */
};

/**
 * struct npurt_alloc_backend - where segments come from
 * @ctx: first argument of every callback
 * @seg_alloc: reserve @size bytes of device memory; *@seg receives an
 *             opaque handle (e.g. a GEM handle), *@addr a device address or
 *             0 (reporting only). Returns 0 or a negative errno (-ENOMEM
 *             when the device is full: the allocator then runs its retry
 *             chain).
 * @seg_free: release a segment
 * @compact: optional; ask the device to open a free range of @min_hole
 *           bytes (0: compact all). Returns 0 or a negative errno.
 * @query: optional; fill @info. Without it the fraction cannot be applied
 *         and OOM reports say "unknown".
 * @event_record: optional; record an event on @stream now, return a
 *                non-zero token. Without events, cross-stream reuse waits
 *                for npurt_alloc_synchronize().
 * @event_query: 1 when the event has completed, 0 if not yet
 * @event_release: forget a token
 */
struct npurt_alloc_backend {
	void *ctx;
	int (*seg_alloc)(void *ctx, uint64_t size, uint64_t *seg,
			 uint64_t *addr);
	void (*seg_free)(void *ctx, uint64_t seg);
	int (*compact)(void *ctx, uint64_t min_hole);
	int (*query)(void *ctx, struct npurt_alloc_device_info *info);
	uint64_t (*event_record)(void *ctx, uint64_t stream);
	int (*event_query)(void *ctx, uint64_t event);
	void (*event_release)(void *ctx, uint64_t event);
};

/* npurt_alloc_config.flags */
#define NPURT_ALLOC_NO_COMPACT		(1u << 0) /* skip the compaction retry */
#define NPURT_ALLOC_NO_EXACT_RETRY	(1u << 1) /* skip the exact-size retry */

/**
 * struct npurt_alloc_config - zero fields take the defaults in brackets
 * @min_block: rounding of every request [512]
 * @small_size: largest small-pool request [1 MiB]
 * @small_segment: small-pool segment size [2 MiB]
 * @large_segment: segment for large requests below @min_large_alloc [20 MiB]
 * @min_large_alloc: from here a segment is the request rounded [10 MiB]
 * @round_large: rounding of such segments [2 MiB]
 * @max_split_size: oversize threshold, as PyTorch's [unlimited]
 * @flags: NPURT_ALLOC_*
 */
struct npurt_alloc_config {
	uint64_t min_block;
	uint64_t small_size;
	uint64_t small_segment;
	uint64_t large_segment;
	uint64_t min_large_alloc;
	uint64_t round_large;
	uint64_t max_split_size;
	uint32_t flags;
	uint32_t pad;
};

/**
 * struct npurt_block - an allocation (read-only for the caller)
 * @seg: the segment's backend handle (bind this buffer object)
 * @seg_addr: the segment's device address as the backend reported it
 * @offset: byte offset of the block inside the segment
 * @size: bytes reserved for it (the rounded request, or more when the
 *        remainder was too small to split)
 * @requested: bytes asked for
 * @stream: stream it was allocated on
 */
struct npurt_block {
	uint64_t seg;
	uint64_t seg_addr;
	uint64_t offset;
	uint64_t size;
	uint64_t requested;
	uint64_t stream;
};

struct npurt_alloc;

/* Returns NULL when out of host memory or on a bad config (see errno). */
struct npurt_alloc *npurt_alloc_create(const struct npurt_alloc_backend *be,
				       const struct npurt_alloc_config *cfg);
/* Releases every cached segment; live blocks are reported and released. */
void npurt_alloc_destroy(struct npurt_alloc *a);

/*
 * 0 and *out, or -EINVAL (size 0), -ENOMEM (out of memory after the retry
 * chain: npurt_alloc_last_error() says why, with the figures).
 */
int npurt_alloc_malloc(struct npurt_alloc *a, uint64_t size, uint64_t stream,
		       struct npurt_block **out);
/* Returns the block to the cache (not to the device). NULL is a no-op. */
void npurt_alloc_free(struct npurt_alloc *a, struct npurt_block *b);
/* The block is (also) used by work on @stream: ordered at free. */
void npurt_alloc_record_stream(struct npurt_alloc *a, struct npurt_block *b,
			       uint64_t stream);
/* Every recorded event is complete (the device was synchronised). */
void npurt_alloc_synchronize(struct npurt_alloc *a);
/* Release every fully free cached segment to the device. */
void npurt_alloc_empty_cache(struct npurt_alloc *a);
/* 0 < fraction <= 1 of the device total; -EINVAL otherwise. */
int npurt_alloc_set_memory_fraction(struct npurt_alloc *a, double fraction);

/*
 * memory_stats with PyTorch's key names, in PyTorch's order, e.g.
 * "allocated_bytes.all.current", "reserved_bytes.large_pool.peak",
 * "active_bytes.all.freed", "num_alloc_retries", "num_ooms",
 * "num_device_alloc", "num_device_free", "num_sync_all_streams".
 * Calls @fn for each key; stops when it returns non-zero.
 */
int npurt_alloc_memory_stats(struct npurt_alloc *a,
			     int (*fn)(void *arg, const char *key,
				       int64_t value),
			     void *arg);
/* One key; 0 and *value, or -ENOENT for an unknown key. */
int npurt_alloc_stat(struct npurt_alloc *a, const char *key, int64_t *value);
void npurt_alloc_reset_peak_stats(struct npurt_alloc *a);
void npurt_alloc_reset_accumulated_stats(struct npurt_alloc *a);

/* The last error's message ("" if none), valid until the next call. */
const char *npurt_alloc_last_error(struct npurt_alloc *a);

#ifdef __cplusplus
}
#endif

#endif /* NPURT_ALLOC_H */
