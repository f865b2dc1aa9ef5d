/* SPDX-License-Identifier: MIT */
/*
 * onnx_import.h - ONNX model -> IR graph.
 *
 * Parses a ModelProto with protobuf-c (C generated at build time from
 * Debian's /usr/include/onnx/onnx.proto), and builds an IR graph: graph
 * inputs with their symbolic dims (dim_param), initializers as constants
 * (raw, typed or external data), Constant nodes as constants, and one IR node
 * per ONNX node with its typed attributes and the opset of its domain.
 *
 * Never crashes on bad input: a malformed file, an unsupported op, dtype or
 * opset, or an external-data path that leaves the model's directory give an
 * error message naming the node, the op and the opset.
 */
#ifndef NPUC_ONNX_IMPORT_H
#define NPUC_ONNX_IMPORT_H

#include <stddef.h>

#include "../ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Opsets of the default domain the importer accepts. Below opset 7 only
 * the ops whose definition did not change up to opset 7 are accepted
 * (element-wise activations, pooling, Conv, ...); the others (binary ops
 * with the old 'broadcast' attribute, BatchNormalization's 'spatial', ...)
 * are refused with a request to re-export.
 */
#define ONNX_IMPORT_MIN_OPSET	1
#define ONNX_IMPORT_LEGACY_OPSET 7
/*
 * 19..21 add types (float8, int4, strings) and modes (Pad 'wrap', Resize
 * 'half_pixel_symmetric', QuantizeLinear 'output_dtype') that the
 * importer and the ops' own checks refuse by name, and opset 21's blocked
 * DequantizeLinear that the weight-only pass takes (quantization.rst).
 */
#define ONNX_IMPORT_MAX_OPSET	21

struct onnx_import_opts {
	/*
	 * Optional input shape overrides, "name:1,3,224,224;name2:4,seq":
	 * a number fixes a dim, a word names a symbol. NULL keeps the model's.
	 */
	const char *input_shapes;
	/* Refuse external data files larger than this (0 = 4 GiB). */
	size_t max_external_bytes;
	/*
	 * Initializers of ONNX_MAP_MIN_BYTES or more stored as raw
	 * f32/f16/i8/u8/i32/i64 are not copied out of the model
	 * (onnx_lift.h): the tensors point into it (ir_tensor.data_mapped,
	 * unaligned, read-only). onnx_import_file() gives the graph its
	 * mapping of the file; onnx_import_buffer()'s caller keeps @data
	 * alive and unchanged until the graph is freed or materialized.
	 * Whoever sets this calls onnx_import_materialize() (or
	 * onnx_import_materialize_except_weights()) before shape inference
	 * and the passes; until then only hashes read the bytes: the
	 * compiler driver, whose cache key is all a cache hit needs of the
	 * weights.
	 */
	bool map_weights;
	size_t map_min_bytes;	/* 0: ONNX_MAP_MIN_BYTES (tests lower it) */
};

#define ONNX_MAP_MIN_BYTES	4096

/**
 * onnx_import_materialize() - copy mapped constants into owned memory
 * @g: a graph onnx_import_file() made with map_weights
 *
 * Every data_mapped tensor gets aligned memory of its own, and the file's
 * mapping is released. Return: 0 or -ENOMEM (the graph stays valid, some
 * tensors still mapped).
 */
int onnx_import_materialize(struct ir_graph *g);

/**
 * onnx_import_materialize_except_weights() - the same, but for weights
 * @g: a graph onnx_import_file() made with map_weights
 *
 * Like onnx_import_materialize(), except that an f32 constant whose
 * every use is the weight (input 1) of a Conv with a 4-D weight or of a
 * Gemm or MatMul with a 2-D one stays in the file's mapping (and the
 * mapping with the graph): the passes read those through
 * ir_tensor_own(), ir_const_get_f() or as bytes, and when what they
 * derive from them is found in the partition cache they never copy them.
 * Return: 0 or -ENOMEM, as onnx_import_materialize().
 */
int onnx_import_materialize_except_weights(struct ir_graph *g);

/**
 * onnx_import_file() - import a .onnx file
 * @path: the model; external data files are looked up next to it
 * @opts: may be NULL
 * @out: the new graph on success (free with ir_graph_free())
 * @err: message buffer, @errlen bytes
 *
 * Return: 0, -ENOENT/-EIO (file), -EINVAL (malformed), -ENOTSUP
 * (unsupported op/dtype/opset) or -ENOMEM.
 */
int onnx_import_file(const char *path, const struct onnx_import_opts *opts,
		     struct ir_graph **out, char *err, size_t errlen);

/* The same from memory; @base_dir resolves external data (NULL: refused). */
/*
 * Narrow the storage types (double, bfloat16, int16, uint16, uint32,
 * uint64) to their compute types (onnx_storage.c); @out_dt: the dtype the
 * model declares for each graph output (NULL: none), storage-typed
 * outputs are cast back to it. 0 or -ENOMEM.
 */
int onnx_narrow_storage(struct ir_graph *g, const enum ir_dtype *out_dt);

int onnx_import_buffer(const void *data, size_t len, const char *base_dir,
		       const struct onnx_import_opts *opts,
		       struct ir_graph **out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* NPUC_ONNX_IMPORT_H */
