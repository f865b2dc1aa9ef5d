// SPDX-License-Identifier: MIT
/*
 * fuzz_onnx.c - libFuzzer target for the ONNX importer (make fuzz-onnx).
 *
 * Every input must import or fail with a message, never crash, leak or
 * read out of bounds; what imports must verify, and shape inference on it
 * must not crash either. Seeds: compiler/tests/corpus/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "onnx/onnx_import.h"
#include "shape/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ir_graph *g = NULL;
	char err[512];

	/* no base dir: external data is refused, the fuzzer reads no files */
	if (onnx_import_buffer(data, size, NULL, NULL, &g, err, sizeof(err))) {
		if (!err[0] || g)
			abort();
		return 0;
	}
	if (ir_verify(g))
		abort();
	shape_infer(g);
	ir_graph_free(g);
	return 0;
}
