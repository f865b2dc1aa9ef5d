/* SPDX-License-Identifier: MIT */
/*
 * om.h - the one reader/writer of compiled model (.om) files, shared by the
 * compiler (npuc writes) and the runtime (libnpurt reads).
 * Library: $(BUILD)/lib/libnpuom.a. Format: om_format.h and
 * Documentation/om-format.rst.
 *
 * Errors: every function returns 0 or a negative errno (-EINVAL for a bad
 * argument or a malformed file, -ENOMEM, -EIO, -ENOENT, ...). The writer keeps
 * a message for its last failure (om_writer_error()); the reader fills the
 * caller's buffer of OM_ERR_MAX bytes with a message naming what it found
 * and what it expected.
 *
 * Thread safety: a writer is used by one thread at a time. A reader's
 * struct om_model is immutable after om_open_*() and may be shared by any
 * number of threads.
 *
 * Writer usage (a static model with one variant):
 *
 *	struct om_writer *w = om_writer_create();
 *	om_writer_set_name(w, "mlp");
 *	om_writer_set_target(w, DRM_NPU_MODEL_SIM910, DRM_NPU_FEATURE_FP32);
 *	om_writer_add_io(w, OM_IO_INPUT, &in_info, NULL);
 *	om_writer_add_io(w, OM_IO_OUTPUT, &out_info, NULL);
 *	om_writer_add_weights(w, bytes, size, 64, &offset);   (slot 0 offset)
 *	v = om_writer_add_variant(w, NULL);                   (variant 0)
 *	om_writer_set_plan(w, v, workspace_size, lower_bound);
 *	om_writer_add_program(w, v, 0, tasks, n, debug);      (stream 0)
 *	om_writer_write_file(w, "mlp.om");
 *	om_writer_destroy(w);
 *
 * A dynamic model declares symbolic dims in the generic I/O (OM_DIM_DYNAMIC
 * with a dim name) and adds one variant per gear, giving each its concrete
 * I/O shapes with om_writer_set_variant_shape(), its plan and its programs.
 */
#ifndef NPU_OM_H
#define NPU_OM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/npu_drm.h>

#include "om_format.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OM_ERR_MAX		256

/*
 * Device objects libnpurt creates to run one model of S streams and M model
 * semaphores in its own context (context.c, model.c, stream.c): the
 * context's sync stream (a queue and a semaphore), the model's internal
 * stream (a queue and a semaphore), the model's "done" semaphore and, per
 * stream past the first, a queue and a join semaphore. So a model needs
 * M + S + OM_RT_SEMS_FIXED semaphores and S + OM_RT_QUEUES_FIXED queues
 * (S + 1 and S + 2 counting the context). The compiler sizes models with
 * these figures (compiler/driver/target.c), the runtime reports its needs
 * with them: keep them in step with the runtime.
 */
#define OM_RT_SEMS_FIXED	2	/* context sync stream, model stream... */
#define OM_RT_SEMS_PER_STREAM	1	/* ...done, and one join per stream */
#define OM_RT_QUEUES_FIXED	1	/* context sync stream */
#define OM_RT_QUEUES_PER_STREAM	1	/* model stream 0: its internal one */

/** struct om_tensor_info - a model input or output, as the writer takes it */
struct om_tensor_info {
	const char *name;		/* unique among the model's I/O */
	uint32_t dtype;			/* enum drm_npu_dtype */
	uint32_t layout;		/* enum drm_npu_layout */
	uint32_t rank;			/* 0..OM_MAX_RANK */
	uint64_t dims[OM_MAX_RANK];	/* OM_DIM_DYNAMIC for a symbolic dim */
	const char *dim_names[OM_MAX_RANK]; /* its symbol ("batch"), or NULL */
};

/** struct om_debug_info - per-task debug info given to the writer */
struct om_debug_info {
	const char *op;			/* op type, e.g. "Gemm"; may be NULL */
	const char *node;		/* graph node name; may be NULL */
	uint32_t node_index;		/* UINT32_MAX when none */
};

/** struct om_tensor_origin_info - an ONNX tensor as the writer takes it */
struct om_tensor_origin_info {
	const char *name;		/* the ONNX tensor (value) name */
	uint32_t task;			/* global index of the task completing it */
	uint32_t slot;			/* its buffer */
	uint64_t offset;		/* byte offset in the buffer */
	uint32_t dtype;			/* enum drm_npu_dtype */
	uint32_t layout;		/* stored layout (NC1HWC0: rank 4) */
	uint32_t rank;
	uint64_t dims[OM_MAX_RANK];	/* ONNX (logical) shape */
};

/* ---------------------------------------------------------------------- */
/* Writer                                                                   */
/* ---------------------------------------------------------------------- */

struct om_writer;

/* Creates an empty model targeting DRM_NPU_MODEL_SIM910, no features. */
struct om_writer *om_writer_create(void);
void om_writer_destroy(struct om_writer *w);

/* Message of the last failed call (never NULL; "" if none). */
const char *om_writer_error(const struct om_writer *w);

int om_writer_set_name(struct om_writer *w, const char *name);
int om_writer_set_target(struct om_writer *w, uint32_t device_model,
			 uint64_t features);
/* OM_VERSION(maj, min, patch) values. */
int om_writer_set_compiler_version(struct om_writer *w, uint32_t version);
int om_writer_set_min_runtime_version(struct om_writer *w, uint32_t version);

/*
 * Declares the next model input (kind OM_IO_INPUT) or output; its index is
 * returned in *index and its slot follows the convention. All inputs must
 * be declared before the first output.
 */
int om_writer_add_io(struct om_writer *w, enum om_io_kind kind,
		     const struct om_tensor_info *info, uint32_t *index);

/*
 * Appends @size bytes to the weights blob at an offset aligned to @align
 * (a power of two; at least OM_WEIGHT_ALIGN_MIN is used) and returns it in
 * *offset. Identical contents added before (same bytes, compatible
 * alignment) are not stored twice: their offset is returned.
 */
int om_writer_add_weights(struct om_writer *w, const void *data,
			  uint64_t size, uint64_t align, uint64_t *offset);

/*
 * Declares the model's semaphores: @count of them, semaphore k advancing by
 * increments[k] per execution (>= the largest SEM task value on it).
 * increments NULL: derive each from the programs' SEM tasks at serialize.
 */
int om_writer_set_semaphores(struct om_writer *w, uint32_t count,
			     const uint64_t *increments);

/*
 * Adds a shape variant and returns its index (>= 0) or a negative errno.
 * @name may be NULL ("default", or "name=value,..." of its symbolic dims).
 * Without symbolic dims a variant's I/O shapes are the generic ones.
 */
int om_writer_add_variant(struct om_writer *w, const char *name);
int om_writer_set_default_variant(struct om_writer *w, uint32_t variant);

/* Concrete shape of I/O @index of @kind in @variant (rank as declared). */
int om_writer_set_variant_shape(struct om_writer *w, uint32_t variant,
				enum om_io_kind kind, uint32_t index,
				const uint64_t *dims);

/* Memory plan of a variant: workspace bytes (slot 1) and its lower bound. */
int om_writer_set_plan(struct om_writer *w, uint32_t variant,
		       uint64_t workspace_size, uint64_t lower_bound);
/*
 * Output @output of @variant has data-dependent extent along @dim: the
 * device writes it as an int64 at workspace byte @offset (format 1.3).
 * Add in (variant, output) order.
 */
int om_writer_add_count(struct om_writer *w, uint32_t variant,
			uint32_t output, uint32_t dim, uint64_t offset);
/* Records where a tensor lives in the workspace (informative, checked). */
int om_writer_add_placement(struct om_writer *w, uint32_t variant,
			    const char *name, uint64_t offset, uint64_t size,
			    uint32_t first_task, uint32_t last_task);

/*
 * Sets the program of stream @stream of @variant (streams numbered from 0,
 * without gaps at serialize time). @tasks is copied. @debug is NULL or an
 * array of @num_tasks entries. Task indices in placements are global: the
 * first task of the program gets om_writer_num_tasks() before this call.
 */
int om_writer_add_program(struct om_writer *w, uint32_t variant,
			  uint32_t stream, const struct drm_npu_task *tasks,
			  uint32_t num_tasks,
			  const struct om_debug_info *debug);
uint32_t om_writer_num_tasks(const struct om_writer *w);

/*
 * Provenance (sections ORIGINS, ORIGIN_NAMES, DEBUG_TENSORS): the ONNX
 * nodes global task @task was made from (replacing earlier ones), and an
 * ONNX tensor complete after a task. Both refer to tasks already added.
 */
int om_writer_set_task_origin(struct om_writer *w, uint32_t task,
			      const char *const *nodes, uint32_t num_nodes);
int om_writer_add_tensor_origin(struct om_writer *w,
				const struct om_tensor_origin_info *info);

/**
 * struct om_host_task_info - a host task as the writer takes it (strings
 * are copied; see struct om_host_task)
 */
struct om_host_task_info {
	uint32_t variant, stream, signal_task, sem;
	const char *op, *domain, *node;
	const char *plugin, *plugin_version, *plugin_digest;
	const char *attrs;
	uint32_t num_inputs, num_outputs;
};

/* A host task and its num_inputs + num_outputs operands (format 1.2). */
int om_writer_add_host_task(struct om_writer *w,
			    const struct om_host_task_info *info,
			    const struct om_host_operand *operands);

/*
 * A hint: the model will hold about @bytes of weights. The writer then
 * makes its weights buffer (which becomes the image) once, with room for
 * the tables, instead of growing and moving it.
 */
int om_writer_reserve_weights(struct om_writer *w, uint64_t bytes);
/*
 * Checks the whole model (as the reader will) and lays out the file.
 * *data is malloc'ed; the caller frees it. The image is made in the
 * writer's weights buffer (the weights move up behind the tables instead
 * of being copied), so a writer serializes once; a second call fails.
 */
int om_writer_serialize(struct om_writer *w, void **data, size_t *size);
/* Serializes and writes atomically (temporary file + rename). */
int om_writer_write_file(struct om_writer *w, const char *path);

/* ---------------------------------------------------------------------- */
/* Reader                                                                   */
/* ---------------------------------------------------------------------- */

struct om_model;

/*
 * Opens a model, validating everything (structure, offsets, counts, index
 * ranges, checksum, strings, tasks' slots and byte extents against their
 * buffers). The bytes are copied; @data need not outlive the call.
 * On failure *out is NULL and @err (OM_ERR_MAX bytes, may be NULL) holds the
 * reason.
 */
int om_open_memory(const void *data, size_t size, struct om_model **out,
		   char *err);
int om_open_file(const char *path, struct om_model **out, char *err);
/*
 * As om_open_memory() with OM_OPEN_* flags. OM_OPEN_SKIP_CHECKSUM checks
 * everything but the checksum (fuzzing the structural checks; tools that
 * show a damaged file); never use it to run a model. OM_OPEN_NO_COPY
 * reads @data in place: the caller keeps it alive and unchanged until
 * om_close() (a model it has just written, e.g.; never a file or shared
 * memory another process can change).
 */
#define OM_OPEN_SKIP_CHECKSUM	(1u << 0)
#define OM_OPEN_NO_COPY		(1u << 1)
int om_open_memory_ex(const void *data, size_t size, unsigned int flags,
		      struct om_model **out, char *err);
void om_close(struct om_model *m);
/*
 * Validate @data in place, as om_open_memory_ex() would, without copying
 * it: only for a buffer nobody else can change during the call (the
 * writer checks what it serialized).
 */
int om_check_memory(const void *data, size_t size, unsigned int flags,
		    char *err);

/* Bytes of the file as validated (for re-serialization or hashing). */
const void *om_bytes(const struct om_model *m, size_t *size);

const struct om_header *om_get_header(const struct om_model *m);
const struct om_model_desc *om_get_model(const struct om_model *m);
const char *om_model_name(const struct om_model *m);
/* String at @offset of the STRINGS section ("" when out of range). */
const char *om_string(const struct om_model *m, uint32_t offset);
uint32_t om_num_sections(const struct om_model *m);
const struct om_section *om_get_section(const struct om_model *m,
					uint32_t index);
const char *om_section_type_name(uint32_t type);

/*
 * Device compatibility: refuses (-ENODEV with @err naming both sides) a
 * model whose target model or feature bits the device lacks, whose uapi
 * major differs, or whose min_runtime_version is above @runtime_version.
 */
int om_check_target(const struct om_model *m, uint32_t device_model,
		    uint64_t device_features, uint32_t device_uapi_version,
		    uint32_t runtime_version, char *err);
/* Names of DRM_NPU_FEATURE_* bits in @features, "+"-separated. */
void om_features_str(uint64_t features, char *buf, size_t len);

/*
 * I/O descriptors. @variant: a variant index, or OM_VARIANT_GENERIC for the
 * variant-independent descriptors (which may have OM_DIM_DYNAMIC dims).
 */
#define OM_VARIANT_GENERIC	UINT32_MAX
const struct om_tensor_desc *om_get_io(const struct om_model *m,
				       uint32_t variant, enum om_io_kind kind,
				       uint32_t index);
/* Index of the I/O named @name (kind in *kind), or -ENOENT. */
int om_find_io(const struct om_model *m, const char *name,
	       enum om_io_kind *kind, uint32_t *index);

const struct om_variant_desc *om_get_variant(const struct om_model *m,
					     uint32_t variant);
/*
 * The count of output @output of @variant when its extent is
 * data-dependent (om_count_desc), else NULL.
 */
uint32_t om_num_counts(const struct om_model *m);
const struct om_count_desc *om_get_count(const struct om_model *m,
					 uint32_t variant, uint32_t output);
/*
 * The variant whose input shapes equal @shapes (num_inputs arrays of the
 * inputs' ranks), or -ENOENT.
 */
int om_find_variant(const struct om_model *m, const uint64_t *const *shapes);
int om_find_variant_by_name(const struct om_model *m, const char *name);

/* Stream @stream's program of @variant, or NULL. */
const struct om_program_desc *om_get_program(const struct om_model *m,
					     uint32_t variant,
					     uint32_t stream);
/* Tasks [first, first + n) of the TASKS section, or NULL if out of range. */
const struct drm_npu_task *om_get_tasks(const struct om_model *m,
					uint32_t first, uint32_t n);
uint32_t om_num_tasks(const struct om_model *m);
/* Debug info of global task @task, or NULL when the file has none. */
const struct om_task_debug *om_get_task_debug(const struct om_model *m,
					      uint32_t task);

/*
 * Provenance of global task @task: the names of its ONNX nodes (node
 * @i < om_task_num_origins()), and its tensors (*count of them, NULL when
 * none or the file has no provenance: format 1.0 files).
 */
bool om_has_provenance(const struct om_model *m);
uint32_t om_task_num_origins(const struct om_model *m, uint32_t task);
const char *om_task_origin(const struct om_model *m, uint32_t task,
			   uint32_t i);
const struct om_debug_tensor *om_task_tensors(const struct om_model *m,
					      uint32_t task, uint32_t *count);
uint32_t om_num_debug_tensors(const struct om_model *m);
const struct om_debug_tensor *om_get_debug_tensor(const struct om_model *m,
						  uint32_t index);
/* The variant and stream owning global task @task (0 or -ENOENT). */
int om_task_owner(const struct om_model *m, uint32_t task,
		  uint32_t *variant, uint32_t *stream);

const struct om_plan_desc *om_get_plan(const struct om_model *m,
				       uint32_t variant);
const struct om_placement_desc *om_get_placement(const struct om_model *m,
						 uint32_t index);

const void *om_get_weights(const struct om_model *m, uint64_t *size);
/*
 * om_drop_weights() - give the memory of the weights section back to the
 * system once they are on the device (a model keeps its .om for its
 * execution contexts, and its weights were a second copy in host memory:
 * 100 MB for resnet50). om_get_weights() then returns NULL and size 0;
 * everything else reads as before.
 * Return: 0; -EINVAL for bytes the model does not own (OM_OPEN_NO_COPY);
 * -EBUSY when a host task reads the weights (slot OM_SLOT_WEIGHTS).
 */
int om_drop_weights(struct om_model *m);

uint32_t om_num_semaphores(const struct om_model *m);
/* Host tasks (format 1.2): all of them, the @i-th, its operands. */
uint32_t om_num_host_tasks(const struct om_model *m);
const struct om_host_task *om_get_host_task(const struct om_model *m,
					    uint32_t i);
const struct om_host_operand *om_get_host_operands(const struct om_model *m,
						   const struct om_host_task *h);
const struct om_sem_desc *om_get_semaphore(const struct om_model *m,
					   uint32_t index);

/* ---------------------------------------------------------------------- */
/* Helpers                                                                  */
/* ---------------------------------------------------------------------- */

/* CRC32C (Castagnoli), as used for the file checksum. Start with crc = 0. */
uint32_t om_crc32c(uint32_t crc, const void *data, size_t len);
/* Element size of an enum drm_npu_dtype, 0 when invalid. */
uint32_t om_dtype_size(uint32_t dtype);
const char *om_dtype_name(uint32_t dtype);
/* enum drm_npu_dtype of a name ("f32", "float32", "int8", ...), or 0. */
uint32_t om_dtype_from_name(const char *name);
const char *om_layout_name(uint32_t layout);
const char *om_opcode_name(uint32_t opcode);
/* Dense bytes of a shape, 0 when dynamic or on overflow (*ok = 0). */
uint64_t om_shape_bytes(uint32_t dtype, uint32_t rank, const uint64_t *dims,
			int *ok);
/* C0 of NC1HWC0 for a dtype: 32 for 1-byte types, else 16. */
uint32_t om_c0(uint32_t dtype);
/*
 * Stored bytes of a logical shape in @layout (NC1HWC0 of a rank-4 shape
 * pads C to a multiple of C0), 0 and *ok = 0 on overflow or a bad layout.
 */
uint64_t om_storage_bytes(uint32_t dtype, uint32_t layout, uint32_t rank,
			  const uint64_t *dims, int *ok);

#ifdef __cplusplus
}
#endif

#endif /* NPU_OM_H */
