/* SPDX-License-Identifier: MIT */
/*
 * om_format.h - the on-disk structures of a compiled model (.om) file.
 *
 * Byte-level specification: Documentation/om-format.rst. In short:
 *
 *   +--------------------+  offset 0
 *   | struct om_header   |  128 bytes, magic, versions, target, checksum
 *   +--------------------+  header.section_table_offset (8-aligned)
 *   | struct om_section  |  header.num_sections entries of 32 bytes
 *   | ...                |
 *   +--------------------+  each section at an offset aligned to 64
 *   | section payloads   |  (the WEIGHTS section to 4096, so it can be
 *   | ...                |   mapped or uploaded page by page)
 *   +--------------------+  header.file_size
 *
 * All integers are little-endian; every structure has a fixed size, natural
 * alignment and explicit padding; every pad and reserved field is zero (the
 * reader refuses non-zero ones so that they can gain meaning later). Strings
 * are stored once in the STRINGS section and referenced by their byte offset
 * in it (offset 0 is the empty string). The CRC32C checksum covers the whole
 * file with the checksum field taken as zero.
 *
 * Compatibility: a reader accepts a file whose format_major equals its own
 * and whose format_minor is any; a newer minor may add section types, which
 * carry OM_SECF_OPTIONAL when an older reader may ignore them. A section type
 * the reader does not know and that is not optional refuses the file.
 */
#ifndef NPU_OM_FORMAT_H
#define NPU_OM_FORMAT_H

#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .om library reads its little-endian structures in place"
#endif

#define OM_MAGIC		"\x89NPUOM\r\n"	/* 8 bytes, no NUL */
#define OM_MAGIC_SIZE		8
#define OM_FORMAT_MAJOR		1
#define OM_FORMAT_MINOR		3	/* 1: provenance; 2: host tasks; 3: counts */

#define OM_CHECKSUM_CRC32C	1

#define OM_MAX_RANK		6	/* == DRM_NPU_MAX_RANK */
#define OM_DIM_DYNAMIC		UINT64_MAX	/* a symbolic dimension */
#define OM_NO_STRING		0	/* string offset of "" */
#define OM_NO_TASK		UINT32_MAX

#define OM_SECTION_ALIGN	64
#define OM_WEIGHTS_ALIGN	4096	/* file offset of the WEIGHTS section */
#define OM_WEIGHT_ALIGN_MIN	64	/* each weight inside the blob */

/* Version numbers (compiler, runtime): major << 16 | minor << 8 | patch. */
#define OM_VERSION(maj, min, pat) \
	(((uint32_t)(maj) << 16) | ((uint32_t)(min) << 8) | (uint32_t)(pat))

/* Slot convention of every program (Documentation/om-format.rst). */
#define OM_SLOT_WEIGHTS		0
#define OM_SLOT_WORKSPACE	1
#define OM_SLOT_IO_BASE		2	/* input i: 2 + i; output j: 2 + ni + j */

/**
 * struct om_header - the first 128 bytes of a file
 * @magic: OM_MAGIC
 * @format_major, @format_minor: OM_FORMAT_MAJOR / OM_FORMAT_MINOR of writer
 * @header_size: sizeof(struct om_header)
 * @file_size: total bytes of the file
 * @checksum_kind: OM_CHECKSUM_CRC32C
 * @checksum: CRC32C of the whole file with this field zero
 * @compiler_version: OM_VERSION() of the compiler that wrote it
 * @min_runtime_version: OM_VERSION() of the oldest runtime that can run it
 * @target_model: DRM_NPU_MODEL_* the programs are built for
 * @target_uapi_version: DRM_NPU_UAPI_VERSION the tasks follow
 * @target_features: DRM_NPU_FEATURE_* bits the device must have
 * @section_table_offset: file offset of the section table (8-aligned)
 * @num_sections: entries in the section table (1..OM_MAX_SECTIONS)
 * @section_entry_size: sizeof(struct om_section)
 * @task_size: sizeof(struct drm_npu_task) of the writer
 * @flags: must be zero
 * @reserved: must be zero
 */
struct om_header {
	uint8_t magic[OM_MAGIC_SIZE];
	uint16_t format_major;
	uint16_t format_minor;
	uint32_t header_size;
	uint64_t file_size;
	uint32_t checksum_kind;
	uint32_t checksum;
	uint32_t compiler_version;
	uint32_t min_runtime_version;
	uint32_t target_model;
	uint32_t target_uapi_version;
	uint64_t target_features;
	uint64_t section_table_offset;
	uint32_t num_sections;
	uint32_t section_entry_size;
	uint32_t task_size;
	uint32_t flags;
	uint8_t reserved[48];
};

#define OM_MAX_SECTIONS		64

/* Section types (struct om_section.type). */
enum om_section_type {
	OM_SEC_NONE = 0,
	OM_SEC_STRINGS = 1,	/* NUL-terminated strings, first byte 0 */
	OM_SEC_MODEL = 2,	/* one struct om_model_desc */
	OM_SEC_TENSORS = 3,	/* struct om_tensor_desc[] */
	OM_SEC_VARIANTS = 4,	/* struct om_variant_desc[] */
	OM_SEC_PROGRAMS = 5,	/* struct om_program_desc[] */
	OM_SEC_TASKS = 6,	/* struct drm_npu_task[] */
	OM_SEC_WEIGHTS = 7,	/* raw bytes, slot 0 of every program */
	OM_SEC_PLANS = 8,	/* struct om_plan_desc[], one per variant */
	OM_SEC_PLACEMENTS = 9,	/* struct om_placement_desc[] */
	OM_SEC_SEMAPHORES = 10,	/* struct om_sem_desc[] */
	OM_SEC_DEBUG = 11,	/* struct om_task_debug[], parallel to TASKS */
	/* format 1.1: provenance (all optional, written together) */
	OM_SEC_ORIGINS = 12,	/* struct om_task_origin[], parallel to TASKS */
	OM_SEC_ORIGIN_NAMES = 13, /* uint32_t string offsets: ONNX node names */
	OM_SEC_DEBUG_TENSORS = 14, /* struct om_debug_tensor[], by task */
	/* format 1.2: host tasks (written together; never optional) */
	OM_SEC_HOST_TASKS = 15,	/* struct om_host_task[] */
	OM_SEC_HOST_OPERANDS = 16, /* struct om_host_operand[] */
	/* format 1.3: outputs of data-dependent extent (never optional) */
	OM_SEC_COUNTS = 17,	/* struct om_count_desc[] */
	OM_SEC_COUNT
};

/* Section flags. */
#define OM_SECF_OPTIONAL	(1u << 0)	/* an unknown type may be skipped */

/**
 * struct om_section - one entry of the partition table
 * @type: enum om_section_type (each type at most once)
 * @flags: OM_SECF_*
 * @offset: file offset of the payload (OM_SECTION_ALIGN aligned; WEIGHTS:
 *          OM_WEIGHTS_ALIGN)
 * @size: payload bytes (== count * entry_size for arrays)
 * @count: number of entries (bytes for STRINGS and WEIGHTS)
 * @entry_size: size of one entry (1 for STRINGS and WEIGHTS)
 */
struct om_section {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t size;
	uint32_t count;
	uint32_t entry_size;
};

/**
 * struct om_model_desc - the OM_SEC_MODEL payload
 * @name: string offset of the model's name
 * @num_inputs, @num_outputs: model I/O (slots 2.. per the slot convention)
 * @num_variants: shape variants (>= 1); plan i belongs to variant i
 * @default_variant: the variant execute uses when none is selected
 * @num_semaphores: semaphores the programs' SEM tasks address
 * @max_streams: the largest num_programs of any variant (queues needed)
 * @flags: OM_MODELF_*
 * @weights_size: bytes of the WEIGHTS section
 */
struct om_model_desc {
	uint32_t name;
	uint32_t num_inputs;
	uint32_t num_outputs;
	uint32_t num_variants;
	uint32_t default_variant;
	uint32_t num_semaphores;
	uint32_t max_streams;
	uint32_t flags;
	uint64_t weights_size;
	uint64_t reserved[3];
};

#define OM_MODELF_DYNAMIC	(1u << 0)	/* some I/O dim is symbolic */

/* struct om_tensor_desc.kind */
enum om_io_kind {
	OM_IO_INPUT = 0,
	OM_IO_OUTPUT = 1,
};

/**
 * struct om_tensor_desc - one model input or output
 * @name: string offset
 * @dtype: enum drm_npu_dtype
 * @layout: enum drm_npu_layout
 * @rank: valid entries of @dims (0..OM_MAX_RANK)
 * @kind: enum om_io_kind
 * @slot: its slot in every program (2 + i, or 2 + num_inputs + j)
 * @index: i or j
 * @flags: must be zero
 * @dims: extents, outermost first; OM_DIM_DYNAMIC only in the generic
 *        (variant-independent) descriptors
 * @dim_names: string offsets of symbolic dimension names (0 when fixed)
 * @size_bytes: bytes of a dense buffer of this shape (0 if dynamic)
 *
 * TENSORS holds the generic descriptors first (inputs, then outputs), then
 * for each variant the same list with concrete dims at variant.first_tensor.
 */
struct om_tensor_desc {
	uint32_t name;
	uint8_t dtype;
	uint8_t layout;
	uint8_t rank;
	uint8_t kind;
	uint16_t slot;
	uint16_t index;
	uint32_t flags;
	uint64_t dims[OM_MAX_RANK];
	uint32_t dim_names[OM_MAX_RANK];
	uint64_t size_bytes;
};

/**
 * struct om_count_desc - an output whose extent the data decides
 * @variant, @output: which variant's output (at most one entry each)
 * @dim: the dim of data-dependent extent; the output descriptor's dims[dim]
 *       is its bound (the buffer holds that much)
 * @flags: must be zero
 * @offset: workspace byte offset (8-aligned, inside the variant's plan) of
 *          the int64 the device writes the extent to; the data is packed
 *          as a dense tensor of that extent at the start of the buffer
 */
struct om_count_desc {
	uint32_t variant;
	uint32_t output;
	uint32_t dim;
	uint32_t flags;
	uint64_t offset;
};

/**
 * struct om_variant_desc - a shape variant (one gear of a dynamic model)
 * @name: string offset (e.g. "batch=4")
 * @first_tensor: index in TENSORS of its num_inputs + num_outputs descs
 * @first_program: index in PROGRAMS of its stream 0 program
 * @num_programs: its streams (>= 1); program k runs on stream k
 * @flags: must be zero
 */
struct om_variant_desc {
	uint32_t name;
	uint32_t first_tensor;
	uint32_t first_program;
	uint32_t num_programs;
	uint32_t flags;
	uint32_t pad;
	uint64_t reserved;
};

/**
 * struct om_program_desc - the tasks one stream runs for one variant
 * @variant, @stream: owner (checked against the variant's range)
 * @first_task, @num_tasks: range in TASKS (num_tasks >= 1)
 */
struct om_program_desc {
	uint32_t variant;
	uint32_t stream;
	uint32_t first_task;
	uint32_t num_tasks;
	uint32_t flags;
	uint32_t pad;
	uint64_t reserved;
};

/**
 * struct om_plan_desc - the memory plan of one variant
 * @workspace_size: bytes of the slot 1 buffer
 * @lower_bound: the planner's lower bound (peak live bytes), informative
 * @first_placement, @num_placements: range in PLACEMENTS
 */
struct om_plan_desc {
	uint64_t workspace_size;
	uint64_t lower_bound;
	uint32_t first_placement;
	uint32_t num_placements;
	uint32_t flags;
	uint32_t pad;
};

/**
 * struct om_placement_desc - where the plan put one intermediate tensor
 * @name: string offset
 * @flags: must be zero
 * @offset, @size: byte range inside the workspace
 * @first_task, @last_task: global TASKS indices of its definition and last
 *                          use (OM_NO_TASK when unknown), informative
 */
struct om_placement_desc {
	uint32_t name;
	uint32_t flags;
	uint64_t offset;
	uint64_t size;
	uint32_t first_task;
	uint32_t last_task;
};

/**
 * struct om_sem_desc - one model semaphore
 * @name: string offset (may be 0)
 * @flags: must be zero
 * @increment: per-execution advance of its base value; every SEM task on it
 *             uses a value in 1..increment
 */
struct om_sem_desc {
	uint32_t name;
	uint32_t flags;
	uint64_t increment;
};

/**
 * struct om_task_debug - debug info of the task with the same TASKS index
 * @op: string offset of the op type (e.g. "Conv")
 * @node: string offset of the graph node's name
 * @node_index: index of the node in the compiled graph, or UINT32_MAX
 * @flags: must be zero
 */
struct om_task_debug {
	uint32_t op;
	uint32_t node;
	uint32_t node_index;
	uint32_t flags;
};

/**
 * struct om_task_origin - provenance of the task with the same TASKS index
 * @first_node, @num_nodes: range in ORIGIN_NAMES: the names of the ONNX
 *                          nodes the task was made from, in graph order (a
 *                          fused Conv+BatchNormalization+Relu names all
 *                          three; none for tasks the compiler made)
 * @first_tensor, @num_tensors: range in DEBUG_TENSORS: the ONNX tensors
 *                              complete when this task has run
 */
struct om_task_origin {
	uint32_t first_node;
	uint32_t num_nodes;
	uint32_t first_tensor;
	uint32_t num_tensors;
};

/**
 * struct om_debug_tensor - where an ONNX tensor lives once a task has run
 * @name: string offset of the ONNX tensor (value) name
 * @task: global TASKS index of the task that completes it
 * @slot: slot of its buffer (workspace, an output, ...)
 * @dtype: enum drm_npu_dtype
 * @layout: enum drm_npu_layout of the stored bytes; NC1HWC0 (rank 4
 *          only) stores [N, ceil(C / C0), H, W, C0], C0 = 16 (32 for 1-byte
 *          types), the padding channels zero
 * @rank: entries of @dims
 * @pad: zero
 * @offset: byte offset in the slot's buffer
 * @size_bytes: stored bytes (om_storage_bytes() of the above)
 * @dims: the ONNX (logical) shape, outermost first (NCHW for NC1HWC0)
 * @reserved: zero
 *
 * Entries are ordered by @task. The bytes are valid from the end of @task
 * until a later task overwrites them (memory reuse, in-place ops): a dump
 * copies them out before the next task of the program runs.
 */
struct om_debug_tensor {
	uint32_t name;
	uint32_t task;
	uint16_t slot;
	uint8_t dtype;
	uint8_t layout;
	uint8_t rank;
	uint8_t pad[3];
	uint64_t offset;
	uint64_t size_bytes;
	uint64_t dims[OM_MAX_RANK];
	uint64_t reserved[2];
};

/**
 * struct om_host_task - a node run on the host engine (format 1.2)
 * @variant, @stream: the program whose device tasks order it
 * @signal_task: global TASKS index of the SEM_SIGNAL (value 1 on model
 *               semaphore @sem) after which the host runs it; the next task
 *               of that program is a SEM_WAIT for value 2 on @sem, which
 *               the host sets when it is done
 * @sem: model semaphore index, used by this host task only
 * @op, @domain: string offsets: the ONNX op type and domain it runs
 * @node: string offset of the node's name
 * @plugin, @plugin_version, @plugin_digest: string offsets naming the
 *               plugin whose host kernel runs it (the digest: 16 hex digits
 *               of the plugin file's FNV-1a hash)
 * @attrs: string offset of the node's attributes, serialised as
 *         "name=i:5;name=f:0x1.8p+1;name=s:HEX;name=I:1,2;name=F:0x1p+0,..."
 *         (floats in C hex notation, strings hex-encoded), "" for none
 * @first_operand: index in HOST_OPERANDS of its inputs, then its outputs
 * @num_inputs, @num_outputs: operand counts (1..16 outputs)
 * @flags: must be zero
 * @reserved: must be zero
 *
 * Entries are ordered by variant, then by the order the host worker runs
 * them (the compiled graph's topological order).
 */
struct om_host_task {
	uint32_t variant;
	uint32_t stream;
	uint32_t signal_task;
	uint32_t sem;
	uint32_t op;
	uint32_t domain;
	uint32_t node;
	uint32_t plugin;
	uint32_t plugin_version;
	uint32_t plugin_digest;
	uint32_t attrs;
	uint32_t first_operand;
	uint16_t num_inputs;
	uint16_t num_outputs;
	uint32_t flags;
	uint64_t reserved;
};

#define OM_HOSTOP_ABSENT	(1u << 0)	/* an absent optional input */

/**
 * struct om_host_operand - one dense tensor a host task reads or writes
 * @slot: slot of its buffer (weights, workspace, a model input or output)
 * @dtype: enum drm_npu_dtype
 * @rank: valid entries of @dims (0..OM_MAX_RANK)
 * @flags: OM_HOSTOP_*
 * @offset: byte offset in the slot's buffer
 * @size_bytes: its dense row-major bytes (the product of @dims times the
 *              dtype size)
 * @dims: extents, outermost first
 */
struct om_host_operand {
	uint16_t slot;
	uint8_t dtype;
	uint8_t rank;
	uint32_t flags;
	uint64_t offset;
	uint64_t size_bytes;
	uint64_t dims[OM_MAX_RANK];
};

#define OM_STATIC_ASSERT(e) _Static_assert(e, #e)
OM_STATIC_ASSERT(sizeof(struct om_header) == 128);
OM_STATIC_ASSERT(sizeof(struct om_section) == 32);
OM_STATIC_ASSERT(sizeof(struct om_model_desc) == 64);
OM_STATIC_ASSERT(sizeof(struct om_tensor_desc) == 96);
OM_STATIC_ASSERT(sizeof(struct om_variant_desc) == 32);
OM_STATIC_ASSERT(sizeof(struct om_program_desc) == 32);
OM_STATIC_ASSERT(sizeof(struct om_plan_desc) == 32);
OM_STATIC_ASSERT(sizeof(struct om_placement_desc) == 32);
OM_STATIC_ASSERT(sizeof(struct om_sem_desc) == 16);
OM_STATIC_ASSERT(sizeof(struct om_task_debug) == 16);
OM_STATIC_ASSERT(sizeof(struct om_task_origin) == 16);
OM_STATIC_ASSERT(sizeof(struct om_debug_tensor) == 96);
OM_STATIC_ASSERT(sizeof(struct om_host_task) == 64);
OM_STATIC_ASSERT(sizeof(struct om_host_operand) == 72);

#endif /* NPU_OM_FORMAT_H */
