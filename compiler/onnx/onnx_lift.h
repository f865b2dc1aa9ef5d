/* SPDX-License-Identifier: MIT */
/*
 * onnx_lift.h - take the large initializer payloads out of an ONNX file's
 * protobuf before it is unpacked.
 *
 * protobuf-c copies every bytes field it unpacks: for a model of 100 MB of
 * weights that is 100 MB of fresh memory written before the compiler has
 * looked at a single node, and a compile served by the cache needs none of
 * it (only a digest of the bytes). onnx_lift() walks the wire format of
 * ModelProto.graph.initializer[*].raw_data and writes a copy of the model
 * without the raw_data fields of at least @min_bytes, listing where each
 * one lies in the file; the importer points those initializers into the
 * file's mapping instead (onnx_import.h, map_weights).
 *
 * Only what the walk fully understands is lifted: a wire type it does not
 * know, a length past the end, a repeated graph field (protobuf would merge
 * them) or a tensor with two raw_data fields lift nothing, and the caller
 * unpacks the original bytes, whose errors protobuf-c reports as before.
 */
#ifndef NPUC_ONNX_LIFT_H
#define NPUC_ONNX_LIFT_H

#include <stddef.h>

struct onnx_lifted {
	size_t index;		/* of the initializer in the model's graph */
	size_t offset;		/* of its raw_data bytes in the file */
	size_t len;		/* bytes */
};

struct onnx_lift {
	void *pb;		/* the model without the lifted payloads */
	size_t pb_len;
	struct onnx_lifted *v;	/* by initializer index, ascending */
	size_t n;
};

/**
 * onnx_lift() - copy a model without its large initializer payloads
 * @buf: the serialized ModelProto (the mapped file)
 * @len: its bytes
 * @min_bytes: lift raw_data fields of at least this many bytes
 * @out: filled on success; out->n == 0 (and out->pb NULL) when nothing
 *       was lifted
 *
 * Return: 0, or -ENOMEM.
 */
int onnx_lift(const void *buf, size_t len, size_t min_bytes,
	      struct onnx_lift *out);

void onnx_lift_free(struct onnx_lift *l);

#endif /* NPUC_ONNX_LIFT_H */
