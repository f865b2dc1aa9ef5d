/* SPDX-License-Identifier: MIT */
/*
 * rt_internal.h - libnpurt's internal structures (not installed).
 *
 * Locking order: model lock -> context lock -> stream lock. The transport
 * is thread safe; the caching allocator is not (the context lock guards
 * it). No lock is held while waiting on the device except a model's
 * exec lock, which serialises executions that share a workspace.
 */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <drm/npu_drm.h>

#include "npurt.h"
#include "npu_transport.h"
#include "npurt_alloc.h"
#include "om.h"

#define NPURT_API __attribute__((visibility("default")))

/* ---- errors (error.c) ---- */
npurt_status rt_fail(npurt_status code, const char *func, const char *action,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define RT_FAIL(code, action, ...) \
	rt_fail(code, __func__, action, __VA_ARGS__)
/* Maps an ioctl's -errno to a status with a reason. */
npurt_status rt_fail_errno(const char *func, int err, const char *what);
#define RT_ERRNO(err, what) rt_fail_errno(__func__, err, what)
/*
 * Creating a queue or semaphore failed: NPURT_ERR_NO_RESOURCE naming
 * @res ("semaphores", "queues") with @asked/@got and the device's @total
 * (ENOSPC, EDQUOT, ENOMEM), else as rt_fail_errno().
 */
npurt_status rt_fail_resource(const char *func, int err, const char *res,
			      uint32_t asked, uint32_t got, uint32_t total,
			      const char *what);
bool rt_launch_blocking(void);
void rt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
npurt_status rt_check_init(const char *func);
uint64_t rt_now_ns(void);
/* Absolute CLOCK_MONOTONIC deadline @ms from now. */
int64_t rt_deadline_ms(uint64_t ms);

/* ---- devices (device.c) ---- */
struct npurt_device {
	char spec[256];
	npurt_device_info info;
	int refs;
};

/* ---- contexts (context.c) ---- */
struct rt_seg {
	uint32_t handle;
	uint64_t size;
	uint8_t *map;
};

struct npurt_context {
	npurt_device *dev;
	struct npu_dev *nd;
	pthread_mutex_t lock;		/* allocator, segs, lists */
	struct npurt_alloc *alloc;
	struct rt_seg *segs;
	uint32_t num_segs, cap_segs;
	uint32_t nop_prog;		/* one NOP task: events, joins */
	npurt_stream *sync_stream;	/* synchronous work */
	npurt_stream **streams;
	uint32_t num_streams, cap_streams;
	npurt_model **models;
	uint32_t num_models, cap_models;
	/* Live streams by id: the allocator names streams by id, and may
	 * ask about one after it is gone. */
	npurt_stream **live;
	uint32_t num_live, cap_live;
	uint64_t next_stream_id;
	uint64_t model_bytes;
	uint64_t num_allocs, num_frees;
	struct rt_op_cache *op_cache;	/* single-op mode (op_exec.c) */
	/* bytes the runtime copied between host and device memory (memcpy
	 * calls, model I/O staging), atomics: rt_count_copy() */
	uint64_t h2d_bytes, d2h_bytes;
};

/*
 * Counts a host copy of @bytes into (@to_device) or out of device memory;
 * npurt_mem_foreach_stat() reports the totals ("host_to_device_bytes",
 * "device_to_host_bytes"), so a caller can see what crossed.
 */
static inline void rt_count_copy(npurt_context *ctx, bool to_device,
				 uint64_t bytes)
{
	__atomic_fetch_add(to_device ? &ctx->h2d_bytes : &ctx->d2h_bytes,
			   bytes, __ATOMIC_RELAXED);
}

/* Creates a buffer object and maps it; 0 or -errno. */
int rt_bo_create(npurt_context *ctx, uint64_t size, uint32_t *handle,
		 void **map);
void rt_bo_destroy(npurt_context *ctx, uint32_t handle, void *map,
		   uint64_t size);
/*
 * Creating a buffer object of @size bytes failed with @err: out of device
 * memory (ENOSPC, ENOMEM, E2BIG larger than the VRAM, EDQUOT over the
 * per-file share) is NPURT_ERR_DEVICE_NOMEM naming @size, the device's
 * total, free and largest free range and what to do; else rt_fail_errno().
 */
npurt_status rt_fail_bo(npurt_context *ctx, const char *func, int err,
			uint64_t size, const char *what);
/* CPU address of byte 0 of segment @handle (context lock held). */
uint8_t *rt_seg_map(npurt_context *ctx, uint32_t handle, uint64_t *size);
int rt_bo_wait(npurt_context *ctx, uint32_t handle);

/* Remembers / forgets an object for npurt_context_destroy (lock held). */
int rt_ctx_track(void *arrp, uint32_t *num, uint32_t *cap, void *obj);
void rt_ctx_untrack(void **arr, uint32_t *num, void *obj);

/* ---- streams (stream.c) ---- */
#define RT_MAX_JOBS	256

struct rt_job {
	uint32_t queue;
	uint64_t fence;
	const npurt_model *model;	/* for fault messages, may be NULL */
	uint32_t model_stream;
	uint32_t variant;
	uint64_t exec;			/* model execution number */
};

struct rt_host_op {
	struct rt_host_op *next;
	uint64_t seq;			/* stream timeline value it sets */
	uint32_t extra_sem;		/* 0 or a semaphore to wait for too */
	uint64_t extra_value;
	void *dst;
	const void *src;
	size_t size;
	int fill;			/* >= 0: memset value instead */
	uint32_t post_sem;		/* 0 or a semaphore to set after */
	uint64_t post_value;
	npurt_host_fn fn;		/* npurt_launch_host_func: instead */
	void *user;
};

struct npurt_stream {
	npurt_context *ctx;
	uint64_t id;			/* allocator stream id, never 0 */
	uint32_t queue, hw_queue;
	uint32_t sem;			/* the stream's timeline */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t seq;			/* last value handed out */
	struct drm_npu_sem_point waits[DRM_NPU_MAX_SEM_POINTS / 2];
	uint32_t num_waits;		/* from npurt_stream_wait_event */
	struct rt_job jobs[RT_MAX_JOBS];
	uint32_t job_head, job_count;
	npurt_status fault;		/* sticky */
	char fault_reason[384];
	/* host-side copies run in stream order by a worker thread */
	struct rt_host_op *ops_head, *ops_tail;
	pthread_t worker;
	bool worker_running, worker_stop;
	int host_error;
};

/**
 * struct rt_submit - one device job on a stream (rt_stream_submit)
 * @queue: 0 = the stream's queue, else another queue (model aux streams)
 * @waits/@signals: extra points besides the stream timeline's
 * @timeline: whether the job takes the next stream timeline value (waits
 *            for the previous, sets its own)
 */
struct rt_submit {
	uint32_t queue;
	uint32_t program;
	uint32_t *bos;
	uint32_t num_bos;
	struct drm_npu_sem_point waits[DRM_NPU_MAX_SEM_POINTS];
	uint32_t num_waits;
	struct drm_npu_sem_point signals[DRM_NPU_MAX_SEM_POINTS];
	uint32_t num_signals;
	struct drm_npu_sem_point *bindings;
	uint32_t num_bindings;
	uint32_t profile_bo;
	uint64_t profile_offset;
	uint32_t first_task, num_tasks;	/* range; 0, 0: the whole program */
	bool timeline;
	bool take_event_waits;
	const npurt_model *model;
	uint32_t model_stream;
	uint32_t variant;
	uint64_t exec;
};

npurt_status rt_stream_create(npurt_context *ctx, npurt_priority prio,
			      npurt_stream **out);
void rt_stream_free(npurt_stream *s);
void rt_stream_forget_model(npurt_stream *s, const npurt_model *m);
/* The live stream with allocator id @id, or NULL (context lock held). */
npurt_stream *rt_stream_by_id(npurt_context *ctx, uint64_t id);
/*
 * Block until semaphore @sem reaches @value: SEM_WAIT with a 1 s deadline,
 * again on each timeout. 0, or the ioctl's -errno.
 */
int rt_sem_wait(npurt_context *ctx, uint32_t sem, uint64_t value);
/* Stream lock held by the caller. Fills *seq with the timeline value. */
npurt_status rt_stream_submit_locked(npurt_stream *s, struct rt_submit *j,
				     uint64_t *seq);
/* Queues a host op after the stream's work; stream lock held. */
npurt_status rt_stream_host_op_locked(npurt_stream *s, struct rt_host_op *op);
npurt_status rt_stream_sync(npurt_stream *s, const char *func);
npurt_status rt_stream_check_fault(npurt_stream *s, const char *func);

/* ---- memory (mem.c) ---- */
struct npurt_mem {
	npurt_context *ctx;
	struct npurt_block *block;	/* the allocator's, or &own */
	/*
	 * Shareable memory (a pinned buffer object of its own, outside the
	 * caching allocator) and peer imports (a handle to another device's
	 * shareable memory, not mappable here): peer.c.
	 */
	bool dedicated;
	bool peer;
	struct npurt_block own;
};

/* The allocator's stream tracking, for the blocks that are its own. */
static inline void rt_mem_record_stream(npurt_context *ctx,
					const npurt_mem *m, uint64_t stream)
{
	if (!m->dedicated)
		npurt_alloc_record_stream(ctx->alloc, m->block, stream);
}
/* peer.c: frees shareable and peer memory (context lock not held). */
void rt_mem_free_dedicated(npurt_mem *m);
npurt_status rt_alloc_init(npurt_context *ctx);
/* CPU address of a block's byte 0 (context lock held). */
uint8_t *rt_mem_ptr(const npurt_mem *m);

/* ---- models (model.c, model_exec.c) ---- */
#define RT_MAX_STREAMS	DRM_NPU_MAX_SEM_POINTS
#define RT_PROG_CACHE	16
#define RT_MAX_POOL	64		/* execution contexts of a model */

struct rt_progset {
	uint64_t *io_offsets;		/* per I/O slot offset patch */
	uint32_t handles[RT_MAX_STREAMS];
	uint32_t num_slots[RT_MAX_STREAMS];
	uint64_t *slot_need[RT_MAX_STREAMS];
	uint64_t last_use;
};

/* A task range of one model stream, run on one lane (queue) of the model. */
struct rt_piece {
	uint32_t stream, first, count, lane;
};

struct rt_variant {
	struct rt_progset sets[RT_PROG_CACHE];
	uint32_t num_sets;
	uint32_t num_streams;
	/* With fewer lanes than streams: the merged order (model.c). */
	struct rt_piece *pieces;
	uint32_t num_pieces;
};

struct npurt_model {
	npurt_context *ctx;
	struct om_model *om;
	char name[128];
	pthread_mutex_t lock;		/* serialises executions */
	uint32_t nin, nout, nio;
	uint32_t weights_bo;
	uint64_t weights_size;
	uint64_t weights_digest[2];	/* XXH3-128, when weights_digested */
	bool weights_digested;
	uint32_t workspace_bo;
	uint64_t workspace_size;	/* max over variants */
	uint32_t *stage_bo;		/* per I/O: host I/O staging */
	uint8_t **stage_map;
	uint64_t *stage_size;
	uint32_t num_sems;
	uint32_t sems[DRM_NPU_MAX_SEM_POINTS];
	uint32_t done_sem;		/* value = executions completed */
	uint32_t aux_sem[RT_MAX_STREAMS];	/* per lane > 0 */
	uint32_t aux_queue[RT_MAX_STREAMS];
	uint32_t max_streams;
	uint32_t num_lanes;		/* queues the streams run on */
	uint32_t shared_sem;		/* != 0: every model semaphore's */
	uint32_t held_sems;		/* device semaphores held */
	char placement_reason[256];
	uint64_t exec_count;
	struct rt_variant *variants;
	uint32_t num_variants;
	uint32_t current_variant;
	uint64_t use_counter;
	bool profiling;
	uint32_t profile_bo[RT_MAX_STREAMS];
	uint8_t *profile_map[RT_MAX_STREAMS];
	uint64_t profile_size[RT_MAX_STREAMS];
	uint32_t profiled_variant;
	bool profile_valid;
	uint64_t load_ns;
	uint64_t bytes;
	npurt_stream *stream;		/* npurt_model_execute's own stream,
					 * created on its first use */
	bool internal;			/* a cache's: not in ctx->models */
	bool ws_borrowed;		/* workspace_bo is not the model's */
	struct rt_online *online;	/* loaded from ONNX (shape_cache.c) */
	struct rt_dump *dump;		/* npurt_model_set_dump, or NULL */
	struct rt_pad *pad;		/* npurt_model_set_pad_to_gear */
	uint8_t *workspace_map;		/* mapped for dumps, host tasks and
					 * data-dependent output extents */
	struct rt_host_engine *host;	/* host tasks (host_engine.c) */
	/*
	 * Execution contexts (model_pool.c): a context is a model of its own
	 * (workspace, staging, semaphores, queues, programs, stream) that
	 * borrows its parent's .om and weights. @pool serves
	 * npurt_model_execute() (the model itself is its first member),
	 * @execs are the user's (npurt_exec_create).
	 */
	npurt_model *parent;		/* set in an execution context */
	bool om_borrowed, weights_borrowed;
	pthread_mutex_t pool_lock;	/* @pool*, @self_busy, @execs */
	pthread_cond_t pool_cond;
	npurt_model *pool[RT_MAX_POOL];
	bool pool_busy[RT_MAX_POOL];
	uint32_t pool_count;		/* contexts besides the model */
	uint32_t pool_max;		/* executions at once, model included */
	bool pool_growing, self_busy;
	struct npurt_exec *execs;
};

struct npurt_exec {
	npurt_model *parent;
	npurt_model *m;
	struct npurt_exec *next;
};

/* Maps the model's workspace once (m->workspace_map); 0 or -errno. */
int rt_map_workspace(npurt_model *m);

/* ---- host tasks (host_engine.c) ---- */
npurt_status rt_host_engine_init(npurt_model *m, const char *func);
void rt_host_engine_free(npurt_model *m);
npurt_status rt_host_engine_queue(npurt_model *m, uint32_t v, uint64_t exec,
				  const npurt_io *in, const npurt_io *out,
				  npurt_stream *s, const char *func);
void rt_host_engine_cancel(npurt_model *m, uint64_t exec);
/*
 * Whether model semaphore @i is a host task's in variant @v: schedules
 * computed ahead (merged lanes, dumps) take its SEM_SIGNAL(i, k) as
 * reaching k + 1, the value the host sets.
 */
bool rt_model_is_host_sem(const npurt_model *m, uint32_t v, uint32_t i);
uint32_t rt_host_engine_profile(npurt_model *m, uint32_t v, uint64_t exec,
				npurt_task_record *r, uint32_t max,
				uint32_t model_stream);

/**
 * struct rt_load_opts - how an internal model is loaded (rt_model_load)
 * @internal: owned by a cache (op or shape cache), not tracked in the
 *            context's models (unload it with rt_model_unload)
 * @workspace_bo, @workspace_cap: a workspace to use instead of the
 *            model's own (the preallocated strategy); 0: allocate
 * @digest_weights: keep an XXH3-128 digest of the weights (the base of a
 *            shape cache, whose shapes may then share them)
 * @share_weights: a loaded model (the shape cache's base) whose weights
 *            this model borrows when its own are the same bytes (size and
 *            digest equal); it must outlive this model
 */
struct rt_load_opts {
	bool internal;
	uint32_t workspace_bo;
	uint64_t workspace_cap;
	uint32_t weights_bo;		/* borrowed weights (model_pool.c) */
	uint64_t weights_size;
	bool digest_weights;
	const struct npurt_model *share_weights;
};

npurt_status rt_model_load(npurt_context *ctx, const void *data, size_t size,
			   const struct rt_load_opts *lo, npurt_model **out,
			   const char *func);
npurt_status rt_model_unload(npurt_model *m);
/*
 * An execution context of @p (model_pool.c): its own workspace, staging,
 * semaphores, queues, programs and stream; @p's .om and weights.
 */
npurt_status rt_model_clone(npurt_model *p, npurt_model **out,
			    const char *func);
/* Unloads @m's execution contexts (npurt_model_unload, first). */
void rt_model_pool_free(npurt_model *m);
/* The model executions and descriptions act on: a cached shape's or @m. */
npurt_model *rt_model_target(npurt_model *m);

/* ---- libnpuc, loaded on demand (npuc_dl.c) ---- */
struct npuc_compile_options;
struct npuc_op_attr;
struct npuc_op_tensor;
struct npuc_result;

struct rt_npuc {
	void (*options_init)(struct npuc_compile_options *o);
	int (*compile_memory)(const void *onnx, size_t size, const char *name,
			      const char *base_dir,
			      const struct npuc_compile_options *o,
			      struct npuc_result **out, char *err,
			      size_t errlen);
	int (*compile_op)(const char *op_type,
			  const struct npuc_op_attr *attrs, int num_attrs,
			  const struct npuc_op_tensor *inputs, int num_inputs,
			  int num_outputs,
			  const struct npuc_compile_options *o,
			  struct npuc_result **out, char *err, size_t errlen);
	const void *(*result_model)(const struct npuc_result *r,
				    size_t *size);
	double (*result_time_ms)(const struct npuc_result *r, int which);
	void (*result_free)(struct npuc_result *r);
};

/*
 * libnpuc.so.1 (or $NPURT_NPUC_LIB), loaded on the first call that needs
 * it; NULL with NPURT_ERR_UNSUPPORTED naming the library when it cannot
 * be loaded (tried again on the next call).
 */
const struct rt_npuc *rt_npuc_get(const char *func);

/* ---- LRU caches of compiled models (rt_cache.c) ---- */
struct rt_centry {
	struct rt_centry *prev, *next;	/* most recently used first */
	uint64_t hash;
	void *key;
	size_t key_len;
	npurt_model *model;
	char name[96];			/* for variant names and logs */
};

struct rt_cache {
	struct rt_centry *head, *tail;
	uint32_t count, capacity;
	uint64_t hits, misses, evictions;
	uint64_t compile_ns, load_ns, last_compile_ns;
};

uint64_t rt_hash(const void *data, size_t len);
/* The entry of @key, made the most recently used (a hit), or NULL. */
struct rt_centry *rt_cache_find(struct rt_cache *c, const void *key,
				size_t len);
/*
 * Adds @model under @key as the most recently used entry, evicting (and
 * unloading) the least recently used ones beyond the capacity.
 */
npurt_status rt_cache_insert(struct rt_cache *c, const void *key, size_t len,
			     npurt_model *model, const char *name,
			     struct rt_centry **out, const char *func);
/* Evicts the least recently used entry (false when empty). */
bool rt_cache_evict_lru(struct rt_cache *c);
void rt_cache_clear(struct rt_cache *c);
void rt_cache_stats(const struct rt_cache *c, npurt_cache_stats *st);
uint64_t rt_cache_bytes(const struct rt_cache *c);

/* ---- single-op mode (op_exec.c), online models (shape_cache.c) ---- */
void rt_op_cache_destroy(npurt_context *ctx);
void rt_online_free(struct rt_online *o);
/* select_shapes of a model loaded from ONNX: a gear, a hit or a compile */
/* ---- padding a shape up to a gear (pad_gear.c) ---- */
typedef npurt_status (*rt_exec_fn)(npurt_model *m, uint32_t variant,
				   const npurt_io *in, uint32_t nin,
				   const npurt_io *out, uint32_t nout,
				   const char *func);
/* NPURT_ERR_NOT_FOUND (no error set): padding is off or no gear covers */
npurt_status rt_pad_select(npurt_model *m, const uint64_t *const *shapes,
			   const char *func);
void rt_pad_clear(npurt_model *m);
bool rt_pad_active(npurt_model *m);
void rt_pad_describe(npurt_model *m, bool input, uint32_t index,
		     npurt_tensor_desc *desc);
npurt_status rt_pad_execute(npurt_model *m, const npurt_io *in,
			    uint32_t nin, const npurt_io *out, uint32_t nout,
			    rt_exec_fn run, const char *func);
void rt_pad_free(npurt_model *m);

npurt_status rt_online_select(npurt_model *m, const uint64_t *const *shapes,
			      const char *func);
npurt_status rt_online_select_variant(npurt_model *m, uint32_t index);
/* An execution of a model loaded from ONNX, on the shape selected. */
npurt_status rt_online_execute(npurt_model *m, const npurt_io *in,
			       uint32_t nin, const npurt_io *out,
			       uint32_t nout, npurt_stream *s,
			       const char *func);
npurt_status rt_model_execute(npurt_model *m, const npurt_io *in,
			      uint32_t nin, const npurt_io *out, uint32_t nout,
			      npurt_stream *s, const char *func);
/* The same, on @m's own programs (no shape forwarding). */
npurt_status rt_model_execute_plain(npurt_model *m, const npurt_io *in,
				    uint32_t nin, const npurt_io *out,
				    uint32_t nout, npurt_stream *s,
				    const char *func);
/* Name of the cached shape in use ("input_ids:1,17") or NULL. */
const char *rt_online_active_name(const npurt_model *m);

/* ---- dumps (dump.c) ---- */
void rt_dump_free(npurt_model *m);
/*
 * A dumping execution @n of variant @v (model lock held): synchronous on
 * @s, the programs in pieces, the selected tensors handed to the callback.
 */
npurt_status rt_dump_execute(npurt_model *m, uint32_t v, uint64_t n,
			     struct rt_progset *ps, uint32_t *bos,
			     struct drm_npu_sem_point *bind,
			     const npurt_io *in, const npurt_io *out,
			     npurt_stream *s, const char *func);

/* Fault message for a job of @m (no lock needed: immutable data). */
void rt_model_describe_fault(const npurt_model *m, uint32_t variant_hint,
			     uint32_t model_stream, uint32_t task,
			     char *buf, size_t len);
const char *rt_fault_reason_str(uint32_t reason);

#endif
