/* SPDX-License-Identifier: MIT */
/*
 * npuc.h - libnpuc, the NPU graph compiler as a library.
 *
 * ONNX (a file, bytes in memory, or one operator described here) in, a
 * .om model (bytes) and a compile report out. The npuc tool is a thin
 * command line over this API; libnpurt loads the library on demand
 * (dlopen "libnpuc.so.1") for single-op mode and online compilation, so a
 * service that only runs .om files never needs it.
 *
 * Versioning: libnpuc.so.1, symbols versioned in libnpuc.map; structures
 * passed in carry their size in their first field, so a later release can
 * append fields. Thread safety: every call is independent (no global
 * state beyond the on-disk compile cache, which takes file locks).
 * Documentation/npuc.rst ("The library").
 */
#ifndef NPUC_LIB_H
#define NPUC_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPUC_LIB_SONAME	"libnpuc.so.1"

/**
 * struct npuc_compile_options - what npuc's command line sets
 * @size: sizeof(struct npuc_compile_options) (0 is taken as the current)
 * @input_shapes: "name:1,3,224,224;name2:batch,128" or NULL
 * @dynamic_batch: "1,2,4,8" (one gear per batch) or NULL
 * @dynamic_dims: "v,v;v,v" (one gear per group) or NULL
 * @input_format: "NCHW", "NHWC", "ND" or NULL
 * @opt_level: 0..3 (npuc_options_init() sets 2)
 * @disable_passes: "name,name" or NULL
 * @use_cache: 1: the compile cache in @cache_dir (NULL: $NPU_CACHE_DIR,
 *             $XDG_CACHE_HOME/npu, ~/.cache/npu); 0: none
 * @cache_dir: see @use_cache
 * @max_streams: 0: by the -O level
 * @target: target profile name (NULL: the default, "sim910")
 * @plan_budget_ms: memory planner time budget (0: by the -O level)
 * @dump_ir_after: pass name or "all" (dumps to @dump_file), or NULL
 * @dump_file: where dumps go (NULL: stderr)
 * @target_device: compile for this device as its DEVICE_INFO reports it
 *                 ("sim", a /dev node, "auto"); excludes @target
 * @symbol_default: > 0: symbolic input dims that neither @input_shapes
 *                 nor a gear fixes take this value, in one gear named
 *                 after them ("batch=1,seq=1"); 0: they are an error
 *                 (fields past an older caller's @size keep 0)
 * @insert_op_conf: the text of an AIPP config (ATC's insert_op_conf,
 *                 Documentation/media.rst) or NULL: the input it names
 *                 becomes a u8 image and an AIPP task is inserted
 * @plugins: operator plugins to load, "a.so:b.so" (npuc_plugin.h), or
 *           NULL; those of $NPUC_PLUGIN_PATH are loaded as well
 * @no_host_engine: 1: refuse nodes that would run on the host engine
 *                  (plugin host kernels), naming them; 0: place them there
 * @precision: "must_keep_origin_dtype" (NULL: the default),
 *             "allow_mix_precision" or "force_fp16" (ATC's precision_mode,
 *             Documentation/quantization.rst)
 * @keep_dtype: "OpType,node_name,..." kept in their dtype under
 *              force_fp16, or NULL
 */
struct npuc_compile_options {
	size_t size;
	const char *input_shapes;
	const char *dynamic_batch;
	const char *dynamic_dims;
	const char *input_format;
	int opt_level;
	const char *disable_passes;
	int use_cache;
	const char *cache_dir;
	uint32_t max_streams;
	const char *target;
	uint32_t plan_budget_ms;
	const char *dump_ir_after;
	FILE *dump_file;
	const char *target_device;
	int64_t symbol_default;
	const char *insert_op_conf;
	const char *plugins;
	int no_host_engine;
	const char *precision;
	const char *keep_dtype;
};

/* Defaults: -O2, the cache on, the default target. */
void npuc_options_init(struct npuc_compile_options *o);

/* A compiled model and its report. */
typedef struct npuc_result npuc_result;

/*
 * Compile an ONNX file / ONNX bytes (@name names the model in the report,
 * @base_dir resolves external data, NULL refuses it). 0 with *@out set, or
 * a negative errno with a message in @err that names what was wrong.
 */
int npuc_compile(const char *path, const struct npuc_compile_options *o,
		 npuc_result **out, char *err, size_t errlen);
int npuc_compile_memory(const void *onnx, size_t size, const char *name,
			const char *base_dir,
			const struct npuc_compile_options *o,
			npuc_result **out, char *err, size_t errlen);

/* Element types: the values of npurt_dtype / the uapi's. */
enum npuc_dtype {
	NPUC_F32 = 1, NPUC_F16 = 2, NPUC_I8 = 3, NPUC_U8 = 4,
	NPUC_I32 = 5, NPUC_I64 = 6, NPUC_BOOL = 7,
};

/**
 * struct npuc_op_tensor - one input of a single operator
 * @dtype: enum npuc_dtype
 * @rank, @dims: static shape (rank <= 8)
 * @layout: "ND" (NULL), "NCHW", "NHWC"
 * @data: constant contents (baked into the compiled op, e.g. a Reshape's
 *        shape), or NULL for a runtime input; @data_size its bytes
 */
struct npuc_op_tensor {
	int dtype;
	int rank;
	const int64_t *dims;
	const char *layout;
	const void *data;
	size_t data_size;
};

enum npuc_attr_type {
	NPUC_ATTR_INT, NPUC_ATTR_FLOAT, NPUC_ATTR_STRING,
	NPUC_ATTR_INTS, NPUC_ATTR_FLOATS,
};

/* One ONNX attribute: @i, @f, @s or @ints/@floats with @n entries. */
struct npuc_op_attr {
	const char *name;
	int type;
	int64_t i;
	float f;
	const char *s;
	const int64_t *ints;
	const float *floats;
	int n;
};

/*
 * Compile one ONNX operator (@op_type as ONNX names it, default domain,
 * opset 17) into a model whose inputs are the non-constant @inputs, in
 * order ("in0", "in1", ...), and whose outputs are the op's @num_outputs
 * results ("out0", ...), their shapes inferred.
 */
int npuc_compile_op(const char *op_type, const struct npuc_op_attr *attrs,
		    int num_attrs, const struct npuc_op_tensor *inputs,
		    int num_inputs, int num_outputs,
		    const struct npuc_compile_options *o, npuc_result **out,
		    char *err, size_t errlen);

/*
 * The .om bytes (owned by the result, read-only: a cache hit hands out the
 * entry's read-only mapping, valid until npuc_result_free()).
 */
const void *npuc_result_model(const npuc_result *r, size_t *size);
/* Milliseconds: import, compile (passes to .om) and total. */
double npuc_result_time_ms(const npuc_result *r, int which);
#define NPUC_TIME_IMPORT	0
#define NPUC_TIME_COMPILE	1
#define NPUC_TIME_TOTAL		2
/* "hit", "miss", "off" */
const char *npuc_result_cache(const npuc_result *r);
/* Nodes before and after the passes (first gear). */
void npuc_result_nodes(const npuc_result *r, uint32_t *before,
		       uint32_t *after);
/* The report as npuc --report prints it / as JSON (npuc --report-json). */
void npuc_result_print(const npuc_result *r, FILE *f);
void npuc_result_print_json(const npuc_result *r, FILE *f);
void npuc_result_free(npuc_result *r);

/* "1.0.0" */
const char *npuc_version(void);
/* Target profile names, comma-separated. */
const char *npuc_targets(void);

/*
 * The ONNX operators the importer takes (default domain), one table of
 * names to @f (npuc --list-ops); the passes with the -O level that enables
 * them (npuc --list-passes, the names of disable_passes/dump_ir_after).
 */
void npuc_print_ops(FILE *f);
void npuc_print_passes(FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* NPUC_LIB_H */
