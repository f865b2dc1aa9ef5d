/* SPDX-License-Identifier: MIT */
/*
 * npurt.h - the public API of libnpurt, the NPU runtime.
 *
 * The one header an inference service includes; link with
 * `pkg-config --libs libnpurt`. Reference: Documentation/runtime.rst.
 *
 * Conventions (libbpf-like):
 *  - every function is named npurt_<object>_<verb> and returns an
 *    npurt_status (NPURT_OK = 0) unless documented otherwise;
 *  - handles are opaque pointers created by *_create / *_open / *_load /
 *    *_alloc and released by the matching *_destroy / *_close / *_unload /
 *    *_free, which accept NULL;
 *  - on failure the calling thread's last error (npurt_last_error()) holds
 *    the code, a reason naming what was found and what was expected, and
 *    what to do about it; a success does not clear it;
 *  - device faults are sticky on the stream that ran the failing work: every
 *    later call on that stream returns NPURT_ERR_DEVICE_FAULT, with the
 *    model, task index and op in the reason, until npurt_stream_clear_error();
 *  - NPURT_LAUNCH_BLOCKING=1 in the environment makes every submission
 *    synchronous (errors then surface at the call that caused them);
 *    NPURT_LOG=1 logs API calls to stderr.
 *
 * Thread safety is stated on each function as one of:
 *  [MT-safe]   any thread, any time, concurrently with any call on other
 *              handles and with MT-safe calls on the same handle;
 *  [handle]    concurrent calls on *different* handles are safe; calls on
 *              the same handle must be serialised by the caller;
 *  [exclusive] no other call may be in progress on the handle, and the
 *              handle must not be used afterwards (destroy/unload/close).
 */
#ifndef NPURT_H
#define NPURT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPURT_VERSION_MAJOR	1
#define NPURT_VERSION_MINOR	5
#define NPURT_VERSION_PATCH	0
#define NPURT_VERSION \
	((NPURT_VERSION_MAJOR << 16) | (NPURT_VERSION_MINOR << 8) | \
	 NPURT_VERSION_PATCH)

/* ---------------------------------------------------------------------- */
/* Status and errors                                                        */
/* ---------------------------------------------------------------------- */

typedef enum npurt_status {
	NPURT_OK = 0,
	NPURT_ERR_INVALID = 1,		/* bad argument or state */
	NPURT_ERR_NOMEM = 2,		/* host memory exhausted */
	NPURT_ERR_DEVICE_NOMEM = 3,	/* device memory exhausted */
	NPURT_ERR_NO_DEVICE = 4,	/* no such device, or it failed */
	NPURT_ERR_NOT_INITIALIZED = 5,	/* npurt_init() not called */
	NPURT_ERR_BAD_MODEL = 6,	/* the .om file is malformed */
	NPURT_ERR_INCOMPATIBLE = 7,	/* model not for this device/runtime */
	NPURT_ERR_SHAPE = 8,		/* I/O shape, dtype or size mismatch */
	NPURT_ERR_DEVICE_FAULT = 9,	/* device fault (sticky on the stream) */
	NPURT_ERR_TIMEOUT = 10,
	NPURT_ERR_NOT_READY = 11,	/* query: work still pending */
	NPURT_ERR_NOT_FOUND = 12,	/* no I/O, variant or file of that name */
	NPURT_ERR_IO = 13,		/* file read/write failed */
	NPURT_ERR_UNSUPPORTED = 14,
	NPURT_ERR_INTERNAL = 15,	/* a bug: please report it */
	NPURT_ERR_NO_RESOURCE = 16,	/* device queues or semaphores used up */
} npurt_status;

/**
 * struct npurt_error - the calling thread's last error
 * @code: the status of the call that failed
 * @reason: what was found and what was expected
 * @action: what to do about it
 * @function: the API function that failed
 */
typedef struct npurt_error {
	npurt_status code;
	char reason[384];
	char action[192];
	char function[48];
} npurt_error;

/* [MT-safe] The thread's last error (never NULL; code 0 if none). */
const npurt_error *npurt_last_error(void);
/* [MT-safe] Forgets the thread's last error. */
void npurt_clear_error(void);
/* [MT-safe] A constant string naming @status ("NPURT_ERR_SHAPE"). */
const char *npurt_status_str(npurt_status status);
/* [MT-safe] The runtime's NPURT_VERSION (for checks against the header). */
uint32_t npurt_version(void);

/* ---------------------------------------------------------------------- */
/* Library and devices                                                      */
/* ---------------------------------------------------------------------- */

typedef struct npurt_device npurt_device;
typedef struct npurt_context npurt_context;
typedef struct npurt_stream npurt_stream;
typedef struct npurt_event npurt_event;
typedef struct npurt_mem npurt_mem;
typedef struct npurt_model npurt_model;
typedef struct npurt_exec npurt_exec;

/*
 * [MT-safe] Initialises the library (reference counted: each call needs a
 * matching npurt_finalize()). @flags must be 0.
 */
npurt_status npurt_init(uint32_t flags);
/* [exclusive] Drops one reference; the last one closes every device. */
npurt_status npurt_finalize(void);

/**
 * struct npurt_device_info - what a device is
 * @name: "sim" (in-process device) or the node's path
 * @is_kernel: 1 for a kernel device node
 * @model: DRM_NPU_MODEL_* (0x910)
 * @uapi_version, @features: DRM_NPU_UAPI_VERSION and DRM_NPU_FEATURE_* bits
 * @num_cores, @num_queues, @num_semaphores: hardware resources
 * @vram_size: device memory bytes
 * @numa_node: the host NUMA node the device is attached to, -1 if unknown
 */
typedef struct npurt_device_info {
	char name[64];
	int is_kernel;
	uint32_t model;
	uint32_t uapi_version;
	uint64_t features;
	uint32_t num_cores;
	uint32_t num_queues;
	uint32_t num_semaphores;
	uint64_t vram_size;
	int numa_node;
} npurt_device_info;

/*
 * [MT-safe] Number of devices: every npu_drv node, or the in-process
 * devices when there is none ($NPU_SIM_DEVICES of them, default 1: "sim",
 * "sim:1", ...). $NPU_DEVICE, when set, names the only one, except
 * NPU_DEVICE=sim: every in-process device.
 */
npurt_status npurt_device_count(uint32_t *count);
/* [MT-safe] Opens device @index (< count); devices are shared, refcounted. */
npurt_status npurt_device_open(uint32_t index, npurt_device **dev);
/*
 * [MT-safe] Opens a device by spec: NULL/"" automatic, "sim" the
 * in-process device, or a device node path.
 */
npurt_status npurt_device_open_spec(const char *spec, npurt_device **dev);
/* [exclusive] Drops the reference of npurt_device_open*(). */
npurt_status npurt_device_close(npurt_device *dev);
/* [MT-safe] */
npurt_status npurt_device_get_info(npurt_device *dev, npurt_device_info *info);

/* ---------------------------------------------------------------------- */
/* Contexts                                                                 */
/* ---------------------------------------------------------------------- */

/*
 * [MT-safe] A context owns device memory, streams, events and models; it is
 * a DRM file of its own (its own handle space and memory quota). Several
 * contexts on one device run concurrently. @flags must be 0.
 */
npurt_status npurt_context_create(npurt_device *dev, uint32_t flags,
				  npurt_context **ctx);
/* [exclusive] Waits for the context's work, then frees everything in it. */
npurt_status npurt_context_destroy(npurt_context *ctx);
/* [MT-safe] Waits for all work of all streams of the context. */
npurt_status npurt_context_synchronize(npurt_context *ctx);

/* ---------------------------------------------------------------------- */
/* Streams and events                                                       */
/* ---------------------------------------------------------------------- */

typedef enum npurt_priority {
	NPURT_PRIORITY_LOW = 0,
	NPURT_PRIORITY_NORMAL = 1,
	NPURT_PRIORITY_HIGH = 2,
} npurt_priority;

/*
 * [MT-safe] A stream is an in-order queue of device work (a hardware queue
 * of the given priority). Work of different streams runs concurrently.
 */
npurt_status npurt_stream_create(npurt_context *ctx, npurt_priority priority,
				 npurt_stream **stream);
/* [exclusive] Waits for the stream's work, then destroys it. */
npurt_status npurt_stream_destroy(npurt_stream *stream);
/*
 * [MT-safe] Waits until all work submitted to @stream is done. Returns its
 * sticky fault if it has one.
 */
npurt_status npurt_stream_synchronize(npurt_stream *stream);
/* [MT-safe] NPURT_OK when idle, NPURT_ERR_NOT_READY while work is pending. */
npurt_status npurt_stream_query(npurt_stream *stream);
/* [MT-safe] Clears the stream's sticky fault (the device queue was reset). */
npurt_status npurt_stream_clear_error(npurt_stream *stream);

/* [MT-safe] An event marks a point in a stream's work. @flags must be 0. */
npurt_status npurt_event_create(npurt_context *ctx, uint32_t flags,
				npurt_event **event);
/* [exclusive] */
npurt_status npurt_event_destroy(npurt_event *event);
/* [handle] Captures the work submitted to @stream so far (device-timed). */
npurt_status npurt_event_record(npurt_event *event, npurt_stream *stream);
/* [MT-safe] Work submitted to @stream after this waits for @event. */
npurt_status npurt_stream_wait_event(npurt_stream *stream,
				     npurt_event *event);
/* [MT-safe] Waits until the event's work is done. */
npurt_status npurt_event_synchronize(npurt_event *event);
/* [MT-safe] NPURT_OK when reached, NPURT_ERR_NOT_READY otherwise. */
npurt_status npurt_event_query(npurt_event *event);
/*
 * [MT-safe] Device time between two reached events, in milliseconds
 * (from the device's timestamps, not the host's).
 */
npurt_status npurt_event_elapsed_time(npurt_event *start, npurt_event *end,
				      double *ms);

/* ---------------------------------------------------------------------- */
/* Memory                                                                   */
/* ---------------------------------------------------------------------- */

/*
 * [MT-safe] Allocates @size bytes of device memory through the context's
 * caching allocator. A block from npurt_mem_alloc() can be bound to a model
 * input or output without a copy.
 */
npurt_status npurt_mem_alloc(npurt_context *ctx, size_t size, npurt_mem **mem);
/* [exclusive] Returns the block to the cache (after its pending work). */
npurt_status npurt_mem_free(npurt_mem *mem);
/* [MT-safe] Usable bytes of the block. */
size_t npurt_mem_size(const npurt_mem *mem);

/*
 * [MT-safe] Page-locked host memory placed on the device's NUMA node
 * (libnuma) when the system has NUMA; regular pages otherwise.
 */
npurt_status npurt_host_alloc(npurt_context *ctx, size_t size, void **ptr);
/* [exclusive] Frees memory from npurt_host_alloc(). */
npurt_status npurt_host_free(npurt_context *ctx, void *ptr);

/* [MT-safe] Synchronous copies (wait for the memory's pending work first). */
npurt_status npurt_memcpy_h2d(npurt_mem *dst, size_t dst_offset,
			      const void *src, size_t size);
npurt_status npurt_memcpy_d2h(void *dst, npurt_mem *src, size_t src_offset,
			      size_t size);
npurt_status npurt_memcpy_d2d(npurt_mem *dst, size_t dst_offset,
			      npurt_mem *src, size_t src_offset, size_t size);
npurt_status npurt_memset(npurt_mem *dst, size_t offset, int value,
			  size_t size);

/*
 * [MT-safe] Stream-ordered copies: they run after the stream's earlier
 * work and before its later work; the call returns at once. Host memory
 * must stay valid (and, for d2h, unread) until the stream has reached the
 * copy. d2d runs on the device.
 */
npurt_status npurt_memcpy_h2d_async(npurt_mem *dst, size_t dst_offset,
				    const void *src, size_t size,
				    npurt_stream *stream);
npurt_status npurt_memcpy_d2h_async(void *dst, npurt_mem *src,
				    size_t src_offset, size_t size,
				    npurt_stream *stream);
npurt_status npurt_memcpy_d2d_async(npurt_mem *dst, size_t dst_offset,
				    npurt_mem *src, size_t src_offset,
				    size_t size, npurt_stream *stream);

/**
 * struct npurt_mem_stats - device memory figures of a context
 * Names follow torch.cuda.memory_stats(): allocated = handed to the user,
 * reserved = held by the caching allocator from the device; device_* come
 * from the device (whole device, and this context's file).
 */
typedef struct npurt_mem_stats {
	uint64_t allocated_bytes_current;
	uint64_t allocated_bytes_peak;
	uint64_t reserved_bytes_current;
	uint64_t reserved_bytes_peak;
	uint64_t num_allocs;
	uint64_t num_frees;
	uint64_t num_alloc_retries;
	uint64_t num_ooms;
	uint64_t model_bytes;		/* weights + workspaces + I/O staging */
	uint64_t device_total;
	uint64_t device_used;
	uint64_t device_largest_free;
	uint64_t device_peak_used;
	uint64_t device_compactions;
	uint64_t context_used;		/* bytes held by this context's file */
} npurt_mem_stats;

/* [MT-safe] */
npurt_status npurt_mem_get_stats(npurt_context *ctx, npurt_mem_stats *stats);
/* [MT-safe] Returns the cached, unused blocks to the device. */
npurt_status npurt_mem_empty_cache(npurt_context *ctx);

/*
 * [MT-safe] Caps the device memory the context's caching allocator may
 * reserve at @fraction (0 < fraction <= 1) of the device's total, as
 * torch.cuda.set_per_process_memory_fraction(); an allocation beyond it
 * fails with NPURT_ERR_DEVICE_NOMEM naming the fraction. (since 1.3)
 */
npurt_status npurt_mem_set_fraction(npurt_context *ctx, double fraction);
/*
 * [MT-safe] Resets the "peak" figures of the context's allocator to the
 * current ones, as torch.cuda.reset_peak_memory_stats(). (since 1.3)
 */
npurt_status npurt_mem_reset_peak_stats(npurt_context *ctx);
/*
 * [MT-safe] Calls @fn for every statistic of the context's caching
 * allocator, with PyTorch's memory_stats() key names and order
 * ("allocated_bytes.all.current", "reserved_bytes.large_pool.peak",
 * "num_alloc_retries", ...), then the bytes the runtime copied between
 * host and device memory in the context ("host_to_device_bytes",
 * "device_to_host_bytes": memcpy calls and model I/O staging; since 1.5),
 * under the context's lock (@fn must not call the runtime); stops when
 * @fn returns nonzero. (since 1.3)
 */
npurt_status npurt_mem_foreach_stat(npurt_context *ctx,
				    int (*fn)(void *arg, const char *key,
					      int64_t value),
				    void *arg);

/* ---------------------------------------------------------------------- */
/* Models                                                                   */
/* ---------------------------------------------------------------------- */

typedef enum npurt_dtype {
	NPURT_DTYPE_F32 = 1,
	NPURT_DTYPE_F16 = 2,
	NPURT_DTYPE_I8 = 3,
	NPURT_DTYPE_U8 = 4,
	NPURT_DTYPE_I32 = 5,
	NPURT_DTYPE_I64 = 6,
	NPURT_DTYPE_BOOL = 7,
	/* storage types (uapi 1.8): graph inputs and outputs, not compute */
	NPURT_DTYPE_F64 = 9,
	NPURT_DTYPE_BF16 = 10,	/* bfloat16 bits (.npy files: uint16) */
	NPURT_DTYPE_I16 = 11,
	NPURT_DTYPE_U16 = 12,
	NPURT_DTYPE_U32 = 13,
	NPURT_DTYPE_U64 = 14,
} npurt_dtype;

#define NPURT_MAX_RANK		6
#define NPURT_DIM_DYNAMIC	UINT64_MAX

/**
 * struct npurt_tensor_desc - a model input or output
 * @name: its name (valid while the model is loaded)
 * @dtype, @rank, @dims: element type and shape; in the generic description
 *                       a symbolic dim is NPURT_DIM_DYNAMIC
 * @dim_names: the symbol of each symbolic dim, else NULL
 * @layout: "ND", "NCHW", "NHWC" or "NC1HWC0"
 * @size: bytes of a dense buffer of this shape (0 if dynamic)
 */
typedef struct npurt_tensor_desc {
	const char *name;
	npurt_dtype dtype;
	uint32_t rank;
	uint64_t dims[NPURT_MAX_RANK];
	const char *dim_names[NPURT_MAX_RANK];
	const char *layout;
	size_t size;
} npurt_tensor_desc;

/**
 * struct npurt_model_info - what a loaded model is
 * @name: the model's name
 * @num_inputs, @num_outputs, @num_variants, @num_streams (largest variant)
 * @current_variant: the variant execute uses
 * @weights_bytes, @workspace_bytes (of the current variant)
 * @load_ns: time the load took
 */
typedef struct npurt_model_info {
	const char *name;
	uint32_t num_inputs;
	uint32_t num_outputs;
	uint32_t num_variants;
	uint32_t num_streams;
	uint32_t current_variant;
	uint64_t weights_bytes;
	uint64_t workspace_bytes;
	uint64_t load_ns;
} npurt_model_info;

/*
 * [MT-safe] Loads a model: validates the file, checks it targets this
 * device, uploads the weights once, registers each stream's program once
 * per variant and allocates the workspace from the memory plan.
 */
npurt_status npurt_model_load_file(npurt_context *ctx, const char *path,
				   npurt_model **model);
npurt_status npurt_model_load_memory(npurt_context *ctx, const void *data,
				     size_t size, npurt_model **model);
/* [exclusive] Waits for the model's executions, then frees it. */
npurt_status npurt_model_unload(npurt_model *model);

/* [MT-safe] */
npurt_status npurt_model_get_info(npurt_model *model, npurt_model_info *info);

/**
 * struct npurt_model_placement - how a loaded model's streams run here
 * @num_streams: streams the compiler gave the model (largest variant)
 * @num_queues: device queues the runtime runs them on. Fewer than
 *     @num_streams when the device (or this process's share of it) had too
 *     few queues or semaphores at load: the streams are then merged onto
 *     the queues in an order that honours every cross-stream wait
 *     (serialised: correct, less parallel). Documentation/runtime.rst.
 * @num_semaphores: device semaphores the model holds (its own and the
 *     runtime's per-model ones, not the context's)
 * @shared_semaphores: 1 when the model's semaphores are folded onto one
 *     (all streams on one queue: their waits are met by queue order)
 * @reason: why fewer queues ("" when the model runs as compiled)
 * (since 1.1)
 */
typedef struct npurt_model_placement {
	uint32_t num_streams;
	uint32_t num_queues;
	uint32_t num_semaphores;
	uint32_t shared_semaphores;
	char reason[256];
} npurt_model_placement;

/* [MT-safe] (since 1.1) */
npurt_status npurt_model_get_placement(npurt_model *model,
				       npurt_model_placement *placement);
/*
 * [MT-safe] Describes input/output @index as the current variant sees it
 * (@generic != 0: the variant-independent description). An output whose
 * extent the data decides (NonZero, NonMaxSuppression) has the bound's
 * size; after an execution its dims give the extent the device wrote
 * (Documentation/runtime.rst, "Outputs of data-dependent shape").
 */
npurt_status npurt_model_get_input(npurt_model *model, uint32_t index,
				   int generic, npurt_tensor_desc *desc);
npurt_status npurt_model_get_output(npurt_model *model, uint32_t index,
				    int generic, npurt_tensor_desc *desc);
/* [MT-safe] Index of the input or output named @name (NOT_FOUND if none). */
npurt_status npurt_model_find_input(npurt_model *model, const char *name,
				    uint32_t *index);
npurt_status npurt_model_find_output(npurt_model *model, const char *name,
				     uint32_t *index);

/* [MT-safe] Name of variant @index ("batch=4"). */
npurt_status npurt_model_variant_name(npurt_model *model, uint32_t index,
				      const char **name);
/*
 * [handle] Selects the shape variant later executions use, by index or by
 * the inputs' shapes (@shapes[i] has the rank of input i). A variant
 * selection does not affect executions already submitted.
 */
npurt_status npurt_model_select_variant(npurt_model *model, uint32_t index);
npurt_status npurt_model_select_shapes(npurt_model *model,
				       const uint64_t *const *shapes);
/*
 * [MT-safe] (since 1.4) With @enable, npurt_model_select_shapes() of a
 * shape that no gear has exactly selects the smallest gear whose every
 * input dim is at least the shape's (before compiling on demand, for a
 * model loaded from ONNX); npurt_model_execute() then pads each input
 * with zeros to the gear and crops each output along its dims named by
 * a padded symbol, and get_input/_output describe the requested shape.
 * Host I/O and npurt_model_execute() only. Documentation/online.rst.
 */
npurt_status npurt_model_set_pad_to_gear(npurt_model *model, int enable);

/**
 * struct npurt_io - one input or output buffer of an execution
 * @mem: a device block (zero copy when it holds the whole tensor at
 *       @offset 0; copied on the device otherwise), or NULL
 * @host: host memory (copied to/from the device), used when @mem is NULL
 * @offset: byte offset in @mem
 * @size: bytes available at @host / in @mem from @offset; must be at least
 *        the tensor's size in the selected variant
 */
typedef struct npurt_io {
	npurt_mem *mem;
	void *host;
	size_t offset;
	size_t size;
} npurt_io;

/*
 * [MT-safe] Runs the model once, synchronously, in the selected variant.
 * Calls from several threads run at once (since 1.4): each takes an
 * execution context from the model's pool (its own workspace, I/O
 * staging, semaphores and stream; the weights are the model's, loaded
 * once), the model itself first, more created on demand up to
 * npurt_model_set_max_executions() (default: the device's AI cores, or
 * $NPURT_MODEL_EXECUTIONS), else the call waits for one to be free.
 * Executions are serialised for a model loaded from ONNX, a dumping or a
 * profiling one. Documentation/runtime.rst ("Concurrent executions").
 */
npurt_status npurt_model_execute(npurt_model *model, const npurt_io *inputs,
				 uint32_t num_inputs, const npurt_io *outputs,
				 uint32_t num_outputs);
/*
 * [MT-safe] Submits one execution on @stream and returns: stream 0 of the
 * model runs on @stream's queue, its other streams on the model's own
 * queues, joined back into @stream. Host buffers are read when the stream
 * reaches the execution and written before it is complete; keep them valid
 * until npurt_stream_synchronize().
 */
npurt_status npurt_model_execute_async(npurt_model *model,
				       const npurt_io *inputs,
				       uint32_t num_inputs,
				       const npurt_io *outputs,
				       uint32_t num_outputs,
				       npurt_stream *stream);

/* ---------------------------------------------------------------------- */
/* Execution contexts: concurrent executions of one model (since 1.4)       */
/* ---------------------------------------------------------------------- */

/*
 * [MT-safe] Sets how many executions of @model npurt_model_execute() runs
 * at once (1 <= @max <= 64; 1: one after the other, as before 1.4). Each
 * beyond the first costs one workspace, the I/O staging buffers, a
 * device queue per model stream and a few semaphores; when the device
 * runs out of any, the pool stays at the contexts it has.
 */
npurt_status npurt_model_set_max_executions(npurt_model *model,
					    uint32_t max);
/*
 * [MT-safe] The execution contexts npurt_model_execute() has created
 * (*@contexts, the model itself included) and may use (*@max). Either
 * pointer may be NULL.
 */
npurt_status npurt_model_get_executions(npurt_model *model,
					uint32_t *contexts, uint32_t *max);

/*
 * [MT-safe] Creates an execution context of @model for the caller: its
 * own workspace, I/O staging, semaphores, queues, registered programs,
 * stream and selected variant (initially the model's), sharing the
 * model's weights and file. Executions of different contexts run at once
 * and never wait for each other; a server keeps one per worker thread.
 * NPURT_ERR_UNSUPPORTED for a model loaded from ONNX. A context lives
 * until npurt_exec_destroy() or the model's unload.
 */
npurt_status npurt_exec_create(npurt_model *model, npurt_exec **exec);
/* [exclusive] Waits for the context's executions, then frees it. */
npurt_status npurt_exec_destroy(npurt_exec *exec);
/*
 * [handle] npurt_model_execute() and npurt_model_execute_async() on the
 * context (the synchronous one on the context's own stream).
 */
npurt_status npurt_exec_run(npurt_exec *exec, const npurt_io *inputs,
			    uint32_t num_inputs, const npurt_io *outputs,
			    uint32_t num_outputs);
npurt_status npurt_exec_run_async(npurt_exec *exec, const npurt_io *inputs,
				  uint32_t num_inputs,
				  const npurt_io *outputs,
				  uint32_t num_outputs, npurt_stream *stream);
/*
 * [handle] The variant of the context's later executions, by index or by
 * the inputs' shapes (as npurt_model_select_variant/_shapes); the
 * model's and other contexts' selections are not affected.
 */
npurt_status npurt_exec_select_variant(npurt_exec *exec, uint32_t index);
npurt_status npurt_exec_select_shapes(npurt_exec *exec,
				      const uint64_t *const *shapes);
/*
 * [handle] Input/output @index in the context's selected variant: after a
 * run, the shape its outputs were written with.
 */
npurt_status npurt_exec_get_input(npurt_exec *exec, uint32_t index,
				  npurt_tensor_desc *desc);
npurt_status npurt_exec_get_output(npurt_exec *exec, uint32_t index,
				   npurt_tensor_desc *desc);

/* ---------------------------------------------------------------------- */
/* Profiling                                                                */
/* ---------------------------------------------------------------------- */

/**
 * struct npurt_task_record - one device task of a profiled execution
 * @start_ns, @end_ns: CLOCK_MONOTONIC device timestamps
 * @model_stream: the model's stream index that ran it
 * @task: index within that stream's program
 * @core, @hw_queue: where it ran
 * @status: 0 or a device fault reason
 * @op, @node: from the model's debug info ("" when absent)
 */
typedef struct npurt_task_record {
	uint64_t start_ns;
	uint64_t end_ns;
	uint32_t model_stream;
	uint32_t task;
	uint32_t core;
	uint32_t hw_queue;
	uint32_t status;
	const char *op;
	const char *node;
} npurt_task_record;

/*
 * [handle] Turns per-task device profiling on (1) or off (0) for later
 * executions of @model; each execution's records replace the previous.
 */
npurt_status npurt_model_set_profiling(npurt_model *model, int enable);
/*
 * [handle] Copies up to @max records of the last completed profiled
 * execution into @records and sets *count to the number available.
 */
npurt_status npurt_model_get_profile(npurt_model *model,
				     npurt_task_record *records, uint32_t max,
				     uint32_t *count);

/* ---------------------------------------------------------------------- */
/* Operator plugins: host kernels (since 1.4)                               */
/* ---------------------------------------------------------------------- */

/*
 * [MT-safe] Loads an operator plugin (npuc_plugin.h) into the process for
 * the host tasks of models loaded afterwards. A model whose host tasks
 * name a plugin that is not loaded searches $NPUC_PLUGIN_PATH first, then
 * fails to load with NPURT_ERR_UNSUPPORTED naming the node, the op and the
 * plugin; a plugin of another digest than the model was compiled with
 * gives NPURT_ERR_INCOMPATIBLE naming both. A host kernel that fails (an
 * error return, a write outside its outputs) fails its execution like a
 * device fault: NPURT_ERR_DEVICE_FAULT, sticky on the stream, naming the
 * node, the op and the plugin. Documentation/plugins.rst. (since 1.4)
 */
npurt_status npurt_plugin_load(const char *path);

/* ---------------------------------------------------------------------- */
/* Online compilation: single operators, ONNX models (since 1.2)            */
/* ---------------------------------------------------------------------- */

/*
 * Both need the compiler library, libnpuc.so.1, which the runtime loads on
 * the first call that needs it (dlopen; $NPURT_NPUC_LIB names another
 * file): a service that only runs .om files never loads it. Without it
 * these calls fail with NPURT_ERR_UNSUPPORTED naming the library.
 * Documentation/runtime.rst ("Online compilation").
 */

/**
 * struct npurt_cache_stats - a cache of compiled models (op or shape cache)
 * @hits: lookups that found a compiled entry (no compilation)
 * @misses: lookups that compiled (and loaded) a new entry
 * @evictions: entries dropped, least recently used first, to stay within
 *             @capacity (or to make room on the device)
 * @entries, @capacity: entries held now, and at most
 * @compile_ns: time spent in libnpuc on misses, all together
 * @load_ns: time spent loading what the misses compiled
 * @last_compile_ns: the last miss's compile time
 * @device_bytes: device memory the entries hold (weights, workspaces,
 *                staging)
 */
typedef struct npurt_cache_stats {
	uint64_t hits;
	uint64_t misses;
	uint64_t evictions;
	uint32_t entries;
	uint32_t capacity;
	uint64_t compile_ns;
	uint64_t load_ns;
	uint64_t last_compile_ns;
	uint64_t device_bytes;
} npurt_cache_stats;

typedef enum npurt_attr_type {
	NPURT_ATTR_INT = 0,
	NPURT_ATTR_FLOAT = 1,
	NPURT_ATTR_STRING = 2,
	NPURT_ATTR_INTS = 3,
	NPURT_ATTR_FLOATS = 4,
} npurt_attr_type;

/**
 * struct npurt_op_attr - one ONNX attribute of an operator
 * @name: the ONNX attribute name ("strides")
 * @type: which of @i, @f, @s, @ints / @floats (with @n entries) holds it
 */
typedef struct npurt_op_attr {
	const char *name;
	npurt_attr_type type;
	int64_t i;
	float f;
	const char *s;
	const int64_t *ints;
	const float *floats;
	uint32_t n;
} npurt_op_attr;

/**
 * struct npurt_op_tensor - one input or output of a single operator
 * @dtype, @rank, @dims: element type and static shape; for an output they
 *     are written by npurt_op_execute() (the inferred shape)
 * @layout: "ND" (NULL), "NCHW" or "NHWC" (inputs)
 * @mem, @offset: the device buffer holding the tensor at @offset
 * @data, @data_size: an input whose contents are part of the operator
 *     (a Reshape's shape, a Pad's pads): compiled in and part of the op
 *     cache key; @mem is then not used. NULL for a runtime input.
 */
typedef struct npurt_op_tensor {
	npurt_dtype dtype;
	uint32_t rank;
	uint64_t dims[NPURT_MAX_RANK];
	const char *layout;
	npurt_mem *mem;
	size_t offset;
	const void *data;
	size_t data_size;
} npurt_op_tensor;

/*
 * [MT-safe] Runs one ONNX operator (@op_type as ONNX names it, default
 * domain, opset 17) with @attrs on device buffers, in order on @stream,
 * like ACL's aclopExecute. The first call for a given (op, attributes,
 * input dtypes/shapes/layouts, constant inputs) compiles the operator
 * with libnpuc into the context's op cache; later calls with the same key
 * are cache hits that compile nothing. @outputs[i].mem must hold the
 * output's bytes; its dtype, rank and dims are filled in. Errors of the
 * compiler come back as NPURT_ERR_UNSUPPORTED or NPURT_ERR_SHAPE with the
 * compiler's message.
 */
npurt_status npurt_op_execute(const char *op_type, const npurt_op_attr *attrs,
			      uint32_t num_attrs,
			      const npurt_op_tensor *inputs,
			      uint32_t num_inputs, npurt_op_tensor *outputs,
			      uint32_t num_outputs, npurt_stream *stream);
/* [MT-safe] The op cache of @ctx (zeros before the first op). */
npurt_status npurt_op_cache_get_stats(npurt_context *ctx,
				      npurt_cache_stats *stats);
/*
 * [MT-safe] Sets the op cache's capacity (entries, >= 1; default 64 or
 * $NPURT_OP_CACHE_SIZE), evicting the least recently used beyond it.
 */
npurt_status npurt_op_cache_set_capacity(npurt_context *ctx,
					 uint32_t capacity);

/* ---------------------------------------------------------------------- */
/* Several devices: peer memory, device tasks, host functions (1.4)         */
/* ---------------------------------------------------------------------- */

/*
 * [MT-safe] Shareable device memory: a pinned buffer of its own (outside
 * the caching allocator, never moved by compaction) that other devices of
 * this host may import with npurt_mem_import_peer(). Mapped for the host
 * like any block; freed with npurt_mem_free().
 */
npurt_status npurt_mem_alloc_shareable(npurt_context *ctx, size_t size,
				       npurt_mem **mem);
/*
 * [MT-safe] Peer access: a block of @ctx that is @peer's memory (shareable
 * memory of a context on another device, or the same one). Tasks and
 * npurt_memcpy_d2d*() on @ctx's streams then read and write @peer's VRAM
 * directly, device to device, with no host copy. It has no host mapping
 * (host copies to or from it fail: copy through @peer's context). Free it
 * with npurt_mem_free() before @peer. Devices: npu_drv nodes of this host
 * (PRIME/dma-buf) or in-process devices of this process.
 */
npurt_status npurt_mem_import_peer(npurt_context *ctx, npurt_mem *peer,
				   npurt_mem **mem);
/*
 * [MT-safe] Runs @num_tasks device tasks (struct drm_npu_task of
 * <drm/npu_drm.h>, validated by the device) in order on @stream: operand
 * slot i is @mems[i], its offset relative to the block's start. What
 * libraries above the runtime (libnpucl) build their device work from,
 * like a kernel launch.
 */
npurt_status npurt_launch_tasks(npurt_stream *stream, const void *tasks,
				uint32_t num_tasks, npurt_mem *const *mems,
				uint32_t num_mems);
/*
 * A host function in stream order: returns 0, or a negative errno that
 * becomes the stream's sticky fault.
 */
typedef int (*npurt_host_fn)(void *user);
/*
 * [MT-safe] Runs @fn(@user) on the stream's host worker once the work
 * queued before it is done; the work queued after it waits for @fn to
 * return (cudaLaunchHostFunc). @fn may use other streams and devices,
 * not @stream itself.
 */
npurt_status npurt_launch_host_func(npurt_stream *stream, npurt_host_fn fn,
				    void *user);

typedef enum npurt_mem_strategy {
	/* each compiled shape allocates its own workspace, freed when the
	 * shape is evicted */
	NPURT_MEM_DYNAMIC = 0,
	/* one workspace, for the largest declared shape, allocated at load;
	 * every shape runs in it (executions of the model are ordered) */
	NPURT_MEM_PREALLOCATED = 1,
} npurt_mem_strategy;

/**
 * struct npurt_onnx_options - how a model is compiled from ONNX
 * @size: sizeof(npurt_onnx_options) (npurt_onnx_options_init sets it)
 * @input_shapes: shapes compiled at load ("input_ids:1,128"), words for
 *     dims left symbolic, or NULL
 * @dynamic_dims, @dynamic_batch: gears compiled at load (npuc's
 *     --dynamic-dims / --dynamic-batch); without any, a model with
 *     symbolic dims gets one gear with every symbol at 1
 * @shape_cache_size: shapes compiled on demand that stay loaded (LRU;
 *     0: 100 or $NPURT_SHAPE_CACHE_SIZE)
 * @mem_strategy: NPURT_MEM_DYNAMIC or NPURT_MEM_PREALLOCATED
 * @max_shapes: the largest shape ("input_ids:1,512") the preallocated
 *     workspace is sized for (required with NPURT_MEM_PREALLOCATED); a
 *     shape whose workspace is larger is refused
 * @opt_level: -O level (npurt_onnx_options_init sets 2)
 * @max_streams: 0: by the -O level
 * @use_compile_cache: 1: libnpuc's on-disk compile cache ($NPU_CACHE_DIR
 *     or @cache_dir); 0 (default): compile in memory only
 * @cache_dir: see @use_compile_cache
 */
typedef struct npurt_onnx_options {
	size_t size;
	const char *input_shapes;
	const char *dynamic_dims;
	const char *dynamic_batch;
	uint32_t shape_cache_size;
	npurt_mem_strategy mem_strategy;
	const char *max_shapes;
	int opt_level;
	uint32_t max_streams;
	int use_compile_cache;
	const char *cache_dir;
} npurt_onnx_options;

/* [MT-safe] Defaults: -O2, dynamic memory, the default cache size. */
void npurt_onnx_options_init(npurt_onnx_options *o);
/*
 * [MT-safe] Compiles an ONNX model online and loads it (@opts NULL: the
 * defaults). The model is an ordinary npurt_model; in addition,
 * npurt_model_select_shapes() accepts any input shape: a gear compiled at
 * load is selected directly, another shape is compiled on demand into the
 * model's shape cache (LRU), and a shape met again is a hit that compiles
 * nothing. While such a shape is selected, get_info reports
 * current_variant == num_variants, named by npurt_model_variant_name().
 */
npurt_status npurt_model_load_onnx(npurt_context *ctx, const char *path,
				   const npurt_onnx_options *opts,
				   npurt_model **model);
npurt_status npurt_model_load_onnx_memory(npurt_context *ctx,
					  const void *data, size_t size,
					  const npurt_onnx_options *opts,
					  npurt_model **model);
/*
 * [MT-safe] The shape cache of a model loaded from ONNX (NPURT_ERR_INVALID
 * for a .om model).
 */
npurt_status npurt_model_get_shape_cache_stats(npurt_model *model,
					       npurt_cache_stats *stats);

/* ---------------------------------------------------------------------- */
/* Dumps: the ONNX tensors of an execution, task by task                   */
/* ---------------------------------------------------------------------- */

/**
 * struct npurt_dump_tensor - one ONNX tensor of a dumped execution
 * @task: global task index in the .om (npu-om --tasks numbers per stream:
 *        @model_stream, @stream_task)
 * @model_stream, @stream_task: the stream and its program's task index
 * @op, @node: the task's debug info (op type and compiled node name)
 * @nodes, @num_nodes: the ONNX nodes the task was made from
 * @name: the ONNX tensor name
 * @dtype, @rank, @dims: the ONNX shape
 * @stored_layout: how the device stored it ("NC1HWC0", "ND", ...); @data
 *                 is always converted back to the ONNX layout (row-major)
 * @data, @size: the values (valid during the callback; NULL in select)
 * @device_ns: the task's device time when profiling is on, else 0
 * @num_inputs: input operands of the task completing it (at most 6), each
 *              named by @input_names: an ONNX tensor dumped earlier, a
 *              model input, "(weights)" or "" when unknown
 */
typedef struct npurt_dump_tensor {
	uint32_t task;
	uint32_t model_stream;
	uint32_t stream_task;
	const char *op;
	const char *node;
	const char *const *nodes;
	uint32_t num_nodes;
	const char *name;
	npurt_dtype dtype;
	uint32_t rank;
	uint64_t dims[NPURT_MAX_RANK];
	const char *stored_layout;
	const void *data;
	size_t size;
	uint64_t device_ns;
	uint32_t num_inputs;
	const char *input_names[6];
} npurt_dump_tensor;

/* Selects a tensor to dump (nonzero) at npurt_model_set_dump() time. */
typedef int (*npurt_dump_select_fn)(void *user, const npurt_dump_tensor *t);
/* Receives a dumped tensor; a nonzero return stops the dump (the
 * execution still completes). */
typedef int (*npurt_dump_fn)(void *user, const npurt_dump_tensor *t);

/**
 * struct npurt_dump_config - what npurt_model_set_dump() dumps
 * @select: NULL (every recorded tensor) or a filter
 * @fn: called for each selected tensor when its task has run, on the
 *      thread that executes the model, in execution order
 * @user: passed to both
 */
typedef struct npurt_dump_config {
	npurt_dump_select_fn select;
	npurt_dump_fn fn;
	void *user;
} npurt_dump_config;

/*
 * [handle] Dumps the ONNX tensors of later executions of @model (NULL
 * config: off). Needs a model compiled with provenance (.om format 1.1,
 * NPURT_ERR_NOT_FOUND otherwise). A dumping execution runs the programs in
 * pieces that end after each selected tensor's task: the device finishes
 * the piece and signals the stream's semaphore, the host copies the tensor
 * out, then the next piece is submitted - so the memory plan cannot reuse
 * the bytes before they are copied, whatever the streams. The model's
 * streams run one after the other (in an order that meets every
 * semaphore wait) and executions are synchronous. Documentation/
 * diagnosis.rst.
 */
npurt_status npurt_model_set_dump(npurt_model *model,
				  const npurt_dump_config *config);

/* ---------------------------------------------------------------------- */
/* Images: decode, the media unit (LIBNPURT_1.4, Documentation/media.rst)   */
/* ---------------------------------------------------------------------- */

/* Pixel formats (the device's enum drm_npu_img_format). */
typedef enum npurt_pixel_format {
	NPURT_PIXEL_NV12 = 0,		/* Y plane, then UV (U, V) plane */
	NPURT_PIXEL_NV21 = 1,		/* Y plane, then VU plane */
	NPURT_PIXEL_RGB888 = 2,
	NPURT_PIXEL_BGR888 = 3,
	NPURT_PIXEL_XRGB8888 = 4,	/* bytes B, G, R, X (DRM XR24) */
	NPURT_PIXEL_YUV400 = 5,
} npurt_pixel_format;

/**
 * struct npurt_image - an image in device memory
 * @mem: the block (owned when made by npurt_image_alloc()/decode)
 * @offset: byte of pixel (0, 0)
 * @width, @height: pixels
 * @format: enum npurt_pixel_format
 * @stride: bytes from one row to the next (plane 0)
 * @uv_offset: NV12/NV21: byte of the UV plane (rows of @stride bytes,
 *             ceil(height / 2) of them)
 */
typedef struct npurt_image {
	npurt_mem *mem;
	size_t offset;
	uint32_t width, height;
	uint32_t format;
	uint32_t stride;
	size_t uv_offset;
} npurt_image;

/* Default decode pixel limit (64 Mpixels): decompression bombs. */
#define NPURT_DECODE_MAX_PIXELS_DEFAULT	(64ull << 20)

/**
 * struct npurt_decode_options - npurt_image_decode*() options
 * @max_pixels: refuse images declaring more pixels (0: the default)
 * @flags: must be 0
 */
typedef struct npurt_decode_options {
	uint64_t max_pixels;
	uint32_t flags;
	uint32_t reserved;
} npurt_decode_options;

/*
 * [MT-safe] Decodes a JPEG (libjpeg-turbo) or PNG (libpng) in memory into a
 * new RGB888 image in device memory. @name names the data in errors (a
 * file name; may be NULL). A corrupt or truncated file (libjpeg's warnings
 * count), an unknown format or an image above the pixel limit fails with
 * NPURT_ERR_INVALID (corrupt, unknown format) or NPURT_ERR_UNSUPPORTED
 * (above the limit), the reason naming the file and what is wrong; the
 * process never exits or aborts. Free with npurt_image_free().
 */
npurt_status npurt_image_decode(npurt_context *ctx, const void *data,
				size_t size, const char *name,
				const npurt_decode_options *options,
				npurt_image *image);
/* [MT-safe] The same on a file (NPURT_ERR_IO if it cannot be read). */
npurt_status npurt_image_decode_file(npurt_context *ctx, const char *path,
				     const npurt_decode_options *options,
				     npurt_image *image);
/* [MT-safe] A new image of @width x @height in @format, dense rows. */
npurt_status npurt_image_alloc(npurt_context *ctx, uint32_t width,
			       uint32_t height, npurt_pixel_format format,
			       npurt_image *image);
/* [exclusive] Frees the image's block; NULL or an empty image is a no-op. */
npurt_status npurt_image_free(npurt_image *image);

typedef enum npurt_resize_mode {
	NPURT_RESIZE_NEAREST = 0,
	NPURT_RESIZE_BILINEAR = 1,	/* half-pixel: OpenCV INTER_LINEAR */
} npurt_resize_mode;

/**
 * struct npurt_resize_options - what npurt_image_resize() does
 * @mode: enum npurt_resize_mode
 * @crop_x, @crop_y, @crop_w, @crop_h: source window (w or h 0: whole image)
 * @pad_top, @pad_left, @pad_bottom, @pad_right: border inside @dst
 * @border: border value per channel
 */
typedef struct npurt_resize_options {
	uint32_t mode;
	uint32_t crop_x, crop_y, crop_w, crop_h;
	uint32_t pad_top, pad_left, pad_bottom, pad_right;
	uint8_t border[4];
} npurt_resize_options;

/*
 * [MT-safe] Stream-ordered media-unit tasks. npurt_image_resize(): packed
 * (RGB888, BGR888, XRGB8888) or YUV400 @src, cropped and scaled into
 * @dst (same format) less its border. npurt_image_convert(): any format
 * to RGB888/BGR888 of the same size (@matrix for YUV sources: 0 BT.601
 * full range (JPEG), 1 BT.601 narrow, 2 BT.709 narrow). NULL @stream: the
 * call is synchronous.
 */
npurt_status npurt_image_resize(const npurt_image *src, npurt_image *dst,
				const npurt_resize_options *options,
				npurt_stream *stream);
npurt_status npurt_image_convert(const npurt_image *src, npurt_image *dst,
				 uint32_t matrix, npurt_stream *stream);

/**
 * struct npurt_aipp_params - the parameters of dynamic AIPP for one
 * execution (a model compiled with "aipp_mode : dynamic" has an extra u8
 * input "<image input>_aipp" of NPURT_AIPP_PARAMS_SIZE bytes)
 * @csc: apply @matrix (Q8) with @input_bias and @output_bias
 * @rbuv_swap: swap R/B (RGB formats) or U/V (YUV) first
 * @mean, @min, @var_reci: y = (x - mean - min) * var_reci per channel
 * @padding_value: written in the border
 */
typedef struct npurt_aipp_params {
	int csc;
	int rbuv_swap;
	int16_t matrix[9];
	uint8_t input_bias[3];
	uint8_t output_bias[3];
	uint8_t mean[4];
	float min[4];
	float var_reci[4];
	float padding_value;
} npurt_aipp_params;

#define NPURT_AIPP_PARAMS_SIZE	76

/*
 * [MT-safe] Writes @params as the NPURT_AIPP_PARAMS_SIZE bytes the AIPP
 * task reads (bind them to the "_aipp" input, host or device memory);
 * NPURT_ERR_INVALID if @size is smaller or a float is not finite.
 */
npurt_status npurt_aipp_params_pack(const npurt_aipp_params *params,
				    void *buf, size_t size);

/* ---------------------------------------------------------------------- */
/* Generation: decoder models with a KV cache (LIBNPURT_1.5)                */
/* ---------------------------------------------------------------------- */

/*
 * Receives token @index (0: the first new one) of a generation as soon as
 * it is chosen; a nonzero return stops the generation after it.
 */
typedef int (*npurt_token_fn)(void *user, uint32_t index, int64_t token);

/**
 * struct npurt_generate_options - how npurt_model_generate() decodes
 * @size: sizeof(npurt_generate_options) (npurt_generate_options_init sets
 *     it)
 * @max_new_tokens: tokens to generate at most (>= 1; @tokens holds them)
 * @eos_token_id: stop after this token (< 0: never; -1 by default)
 * @input_ids: the token input (NULL: "input_ids", else the model's only
 *     rank-2 int64 input that is not a cache)
 * @logits: the logits output, f32 [1, seq, vocab] (NULL: "logits", else
 *     output 0)
 * @on_token: called with each token as it is chosen, or NULL
 * @user: passed to @on_token
 */
typedef struct npurt_generate_options {
	size_t size;
	uint32_t max_new_tokens;
	int64_t eos_token_id;
	const char *input_ids;
	const char *logits;
	npurt_token_fn on_token;
	void *user;
} npurt_generate_options;

/**
 * struct npurt_generate_stats - what a generation did
 * @prompt_tokens, @new_tokens: tokens given and generated
 * @prompt_ns: the prompt step (the time to the first new token)
 * @decode_ns: the steps after it, one token each
 * @tokens_per_s: (@new_tokens - 1) / @decode_ns (0 with one new token)
 * @cache_tensors: past/present pairs kept on the device
 * @cache_bytes: device memory of the cache (two blocks per pair, each for
 *     the longest sequence of the generation)
 * @cache_host_bytes: bytes of the cache that crossed between host and
 *     device (0: it stayed on the device)
 * @h2d_bytes, @d2h_bytes: every host copy of the generation, as the
 *     runtime counted it (the token ids, a mask or positions in; one row
 *     of logits per step out)
 * @shapes_compiled: shapes compiled on demand during the generation (a
 *     model loaded from ONNX; a shape met again is a cache hit)
 * @compile_ns: the time those compiles took (within @prompt_ns and
 *     @decode_ns)
 */
typedef struct npurt_generate_stats {
	uint32_t prompt_tokens;
	uint32_t new_tokens;
	uint64_t prompt_ns;
	uint64_t decode_ns;
	double tokens_per_s;
	uint32_t cache_tensors;
	uint64_t cache_bytes;
	uint64_t cache_host_bytes;
	uint64_t h2d_bytes;
	uint64_t d2h_bytes;
	uint32_t shapes_compiled;
	uint64_t compile_ns;
} npurt_generate_stats;

/* [MT-safe] Defaults: eos_token_id -1, the names above. (since 1.5) */
void npurt_generate_options_init(npurt_generate_options *o);
/*
 * [handle] Greedy decoding with a growing KV cache (since 1.5). @model is
 * a decoder exported with its cache as inputs and outputs: each input
 * "past..." (or "past_key_values...") pairs with the output named
 * "present..." (else the remaining inputs with the remaining outputs, in
 * order), of one dynamic sequence dim that grows by the step's tokens
 * (present = concat(past, new)). Inputs "attention_mask" (ones over past
 * and new tokens) and "position_ids" (past length + i) are filled in when
 * the model has them. The first step runs the @prompt_len tokens of
 * @prompt with an empty cache, each later step the token chosen last
 * (argmax of the last row of logits, the first index of the largest).
 * The cache stays in device memory between steps: two blocks per pair,
 * the present written into one while the past is read from the other,
 * bound without a copy. Every step selects its shapes
 * (npurt_model_select_shapes()): a model loaded from ONNX compiles an
 * unseen length on demand, a .om needs a gear of every length. Batch 1.
 * Writes the new tokens to @tokens (room for opts->max_new_tokens), their
 * count to *@num_tokens and, when @stats is not NULL, the figures.
 * Calls on the same model must be serialised by the caller; the model's
 * selected shape afterwards is the last step's. Documentation/runtime.rst
 * ("Generation with a KV cache").
 */
npurt_status npurt_model_generate(npurt_model *model, const int64_t *prompt,
				  uint32_t prompt_len,
				  const npurt_generate_options *opts,
				  int64_t *tokens, uint32_t *num_tokens,
				  npurt_generate_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* NPURT_H */
