// SPDX-License-Identifier: MIT
/*
 * fuzz_onnx.c - libFuzzer target for the ONNX importer (make fuzz-onnx).
 *
 * Every input must import or fail with a message, never crash, leak or
 * read out of bounds; what imports must verify, and shape inference and
 * the whole pass pipeline (constant folding runs the op kernels) on it
 * must not crash either; what the passes accept must still verify.
 * Seeds: compiler/tests/corpus/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "onnx/onnx_import.h"
#include "passes/pass_manager.h"
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
	if (shape_infer(g) == 0) {
		struct pm_opts o = { .opt_level = 2, .verify = true };
		struct pm_report r;

		if (pm_run(g, &o, &r) == 0 && ir_verify(g))
			abort();
	}
	ir_graph_free(g);
	return 0;
}
