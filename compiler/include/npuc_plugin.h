/* SPDX-License-Identifier: MIT */
/*
 * npuc_plugin.h - operators the NPU stack does not know, brought by a
 * plugin: a shared object that npuc (compile time) and libnpurt (run time)
 * load into the calling process.
 *
 * A plugin exports one symbol, npuc_plugin_entry() (NPUC_PLUGIN_ENTRY),
 * returning a static description: its name and version, and a table of
 * operators keyed by (ONNX domain, op type, opset range). Each operator
 * gives
 *
 *  - an attribute schema (names, types, which are required): npuc refuses
 *    a node whose attributes do not follow it, naming the attribute;
 *  - a shape and dtype inference function (required): the compiler cannot
 *    infer the outputs of an op it has never seen. Symbolic dims (negative
 *    values, see NPUC_DIM_IS_SYMBOL) may be copied to outputs as they are;
 *  - and at least one of
 *      * a decomposition into ONNX operators npuc knows: a graph rewrite
 *        during shape inference, before any optimisation pass, so fusion,
 *        layout and memory planning see the ops it made; or
 *      * a host kernel: a C function over dense host tensors. The node is
 *        placed on the host engine: the .om gets a HOST task naming the
 *        plugin (name, version and digest) and the op, libnpurt runs it on
 *        a host worker between device tasks.
 *    When both are given the decomposition is used.
 *
 * Nothing in this header needs linking against libnpuc or libnpurt: the
 * compiler and the runtime hand the plugin what it needs through the
 * structures below (the attribute reader, the graph builder).
 *
 * ABI and stability (Documentation/plugins.rst): NPUC_PLUGIN_ABI_VERSION
 * changes only when a structure below changes incompatibly; a loader
 * refuses a plugin of another ABI version with a message naming both.
 * Structures the plugin fills carry their size in @struct_size, so fields
 * may be appended within one ABI version. A plugin runs in the process
 * that loads it (the compiler, the inference service), never in the kernel.
 */
#ifndef NPUC_PLUGIN_H
#define NPUC_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPUC_PLUGIN_ABI_VERSION	1
#define NPUC_PLUGIN_ENTRY	"npuc_plugin_entry"
#define NPUC_PLUGIN_MAX_RANK	6	/* as a device tensor's */
#define NPUC_PLUGIN_MAX_IO	16	/* inputs or outputs of one node */

/* A negative dimension is a symbol (e.g. "batch"): copy it, never compute. */
#define NPUC_DIM_IS_SYMBOL(d)	((d) < 0)

/** enum npuc_dtype - element types (the values of enum drm_npu_dtype) */
enum npuc_dtype {
	NPUC_DT_INVALID = 0,
	NPUC_DT_F32 = 1,
	NPUC_DT_F16 = 2,
	NPUC_DT_I8 = 3,
	NPUC_DT_U8 = 4,
	NPUC_DT_I32 = 5,
	NPUC_DT_I64 = 6,
	NPUC_DT_BOOL = 7,
};

/** enum npuc_attr_type - attribute types of the schema */
enum npuc_attr_type {
	NPUC_ATTR_INT = 0,
	NPUC_ATTR_FLOAT = 1,
	NPUC_ATTR_STRING = 2,
	NPUC_ATTR_INTS = 3,
	NPUC_ATTR_FLOATS = 4,
};

/**
 * struct npuc_attr_schema - one attribute an operator accepts
 * @name: its ONNX name
 * @type: enum npuc_attr_type
 * @required: 1: a node without it is refused; 0: optional
 */
struct npuc_attr_schema {
	const char *name;
	int type;
	int required;
};

/**
 * struct npuc_tensor_type - dtype and shape of one input or output
 * @dtype: enum npuc_dtype
 * @rank: valid entries of @dims
 * @dims: extents, outermost first; NPUC_DIM_IS_SYMBOL() for symbols
 */
struct npuc_tensor_type {
	int dtype;
	int rank;
	int64_t dims[NPUC_PLUGIN_MAX_RANK];
};

/**
 * struct npuc_attrs - read-only access to a node's attributes
 * @ctx: pass back to the functions
 * @get_int: the INT attribute @name, or @def when absent
 * @get_float: the FLOAT attribute @name, or @def
 * @get_string: the STRING attribute @name, or @def
 * @get_ints: the INTS attribute @name: its count (0 when absent), *@out
 *            valid during the call
 * @get_floats: the same for FLOATS
 */
struct npuc_attrs {
	const void *ctx;
	int64_t (*get_int)(const void *ctx, const char *name, int64_t def);
	float (*get_float)(const void *ctx, const char *name, float def);
	const char *(*get_string)(const void *ctx, const char *name,
				  const char *def);
	int (*get_ints)(const void *ctx, const char *name,
			const int64_t **out);
	int (*get_floats)(const void *ctx, const char *name,
			  const float **out);
};

/**
 * struct npuc_infer_ctx - what shape inference sees of a node
 * @node_name: the node's name (for messages)
 * @attrs: its attributes
 * @num_inputs, @inputs: input types (an absent optional input has
 *                        dtype NPUC_DT_INVALID)
 * @num_outputs, @outputs: to fill: every output's dtype, rank and dims
 * @input_data: per input, its values when it is a constant, else NULL
 *              (dense, row-major, in its dtype)
 * @err, @errlen: a message on failure (name the input and what is wrong)
 */
struct npuc_infer_ctx {
	const char *node_name;
	const struct npuc_attrs *attrs;
	int num_inputs;
	const struct npuc_tensor_type *inputs;
	int num_outputs;
	struct npuc_tensor_type *outputs;
	const void *const *input_data;
	char *err;
	size_t errlen;
};

/*
 * The values of a decomposition: 0 .. num_inputs - 1 are the node's inputs
 * (a negative value is an absent input); new ones come from the builder.
 */
typedef int npuc_value;

/**
 * struct npuc_attr_value - an attribute of a node the builder makes
 * @name: ONNX attribute name
 * @type: enum npuc_attr_type
 * @i, @f, @s: INT, FLOAT, STRING values
 * @ints, @floats, @n: INTS, FLOATS values and their count
 */
struct npuc_attr_value {
	const char *name;
	int type;
	int64_t i;
	float f;
	const char *s;
	const int64_t *ints;
	const float *floats;
	int n;
};

/**
 * struct npuc_builder - builds a node's decomposition into known ONNX ops
 * @ctx: pass back to the functions
 * @node_name: the node being replaced (new nodes are named after it)
 * @num_inputs, @inputs: its input types (shapes are known here)
 * @num_outputs: outputs the decomposition must set
 * @attrs: its attributes
 * @node: add an ONNX node of the default domain (@op_type must be one npuc
 *        knows, at the model's opset); its @num_outputs outputs are new
 *        values written to @outputs. 0 or a negative errno.
 * @constant: a new constant value (@dtype, @rank, @dims, @data dense and
 *            row-major); returns it, or a negative errno
 * @set_output: output @index of the node is @value (each one exactly once)
 * @err, @errlen: a message on failure
 */
struct npuc_builder {
	void *ctx;
	const char *node_name;
	int num_inputs;
	const struct npuc_tensor_type *inputs;
	int num_outputs;
	const struct npuc_attrs *attrs;
	int (*node)(void *ctx, const char *op_type, const npuc_value *inputs,
		    int num_inputs, npuc_value *outputs, int num_outputs,
		    const struct npuc_attr_value *attrs, int num_attrs);
	npuc_value (*constant)(void *ctx, int dtype, int rank,
			       const int64_t *dims, const void *data);
	int (*set_output)(void *ctx, int index, npuc_value value);
	char *err;
	size_t errlen;
};

/**
 * struct npuc_host_tensor - one dense host tensor of a host kernel call
 * @dtype: enum npuc_dtype
 * @rank: valid entries of @dims
 * @dims: extents (all static at run time)
 * @data: row-major data (inputs: read only); NULL when absent
 * @bytes: the size of @data; a kernel never writes past an output's @bytes
 */
struct npuc_host_tensor {
	int dtype;
	int rank;
	int64_t dims[NPUC_PLUGIN_MAX_RANK];
	void *data;
	size_t bytes;
};

/**
 * struct npuc_host_call - one run of a host kernel
 * @node_name: the node (for messages)
 * @attrs: the node's attributes
 * @num_inputs, @inputs: input tensors
 * @num_outputs, @outputs: output tensors, their shapes as the inference
 *                         function gave them, their bytes zeroed
 * @err, @errlen: a message when the kernel returns an error
 */
struct npuc_host_call {
	const char *node_name;
	const struct npuc_attrs *attrs;
	int num_inputs;
	const struct npuc_host_tensor *inputs;
	int num_outputs;
	struct npuc_host_tensor *outputs;
	char *err;
	size_t errlen;
};

/**
 * struct npuc_plugin_op - one operator of a plugin
 * @struct_size: sizeof(struct npuc_plugin_op)
 * @domain: ONNX domain ("com.example"; "" is the default domain, for ops
 *          npuc does not know there)
 * @op_type: ONNX op type
 * @opset_min, @opset_max: the domain's opset versions it serves (0, 0: any)
 * @min_inputs, @max_inputs, @min_outputs, @max_outputs: arity bounds
 * @attrs, @num_attrs: the attribute schema; an attribute of the node that
 *                     is not in it is refused
 * @infer: shape and dtype inference; 0 or a negative errno (message in
 *         ctx->err). The compiler runs it; a .om stores what it inferred
 *         and the runtime sizes and checks the kernel's outputs by that.
 * @decompose: the rewrite into known ops, or NULL
 * @host_kernel: the host kernel, or NULL; 0 or a negative errno (message
 *               in call->err). It must be reentrant: calls for different
 *               models or streams may run at once.
 */
struct npuc_plugin_op {
	size_t struct_size;
	const char *domain;
	const char *op_type;
	int opset_min, opset_max;
	int min_inputs, max_inputs;
	int min_outputs, max_outputs;
	const struct npuc_attr_schema *attrs;
	int num_attrs;
	int (*infer)(struct npuc_infer_ctx *ctx);
	int (*decompose)(struct npuc_builder *b);
	int (*host_kernel)(struct npuc_host_call *call);
};

/**
 * struct npuc_plugin - what npuc_plugin_entry() returns
 * @struct_size: sizeof(struct npuc_plugin)
 * @abi_version: NPUC_PLUGIN_ABI_VERSION the plugin was built against
 * @name: unique plugin name ("example-ops"); a .om names it
 * @version: the plugin's own version ("1.2.0"); a .om records it
 * @ops, @num_ops: its operators
 */
struct npuc_plugin {
	size_t struct_size;
	int abi_version;
	const char *name;
	const char *version;
	const struct npuc_plugin_op *ops;
	int num_ops;
};

/* The one symbol a plugin exports. */
typedef const struct npuc_plugin *(*npuc_plugin_entry_fn)(void);
const struct npuc_plugin *npuc_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif /* NPUC_PLUGIN_H */
