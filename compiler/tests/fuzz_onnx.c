// SPDX-License-Identifier: MIT
/*
 * fuzz_onnx.c - libFuzzer target for the ONNX importer (make fuzz-onnx).
 *
 * Every input must import or fail with a message, never crash, leak or
 * read out of bounds; what imports must verify, and shape inference and
 * the whole pass pipeline (constant folding runs the op kernels) on it
 * must not crash either; what the passes accept must still verify.
 * An import with the weights left in the input (onnx_lift.c, map_weights)
 * must succeed or fail with the plain one and give the same constants.
 * Seeds: compiler/tests/corpus/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_import.h"
#include "passes/pass_manager.h"
#include "shape/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The lifted import of @data agrees with the plain import @g (or none). */
static void check_lifted(const uint8_t *data, size_t size,
			 const struct ir_graph *g)
{
	/* every raw initializer lifted: the fuzzer's inputs are small */
	struct onnx_import_opts o = { .map_weights = true,
				      .map_min_bytes = 1 };
	struct ir_graph *m = NULL;
	char err[512];

	if (onnx_import_buffer(data, size, NULL, &o, &m, err, sizeof(err))) {
		if (g || m)
			abort();
		return;
	}
	if (!g || m->num_tensors != g->num_tensors)
		abort();
	for (int i = 0; i < m->num_tensors; i++) {
		const struct ir_tensor *a = m->tensors[i];
		const struct ir_tensor *b = g->tensors[i];

		if (a->nbytes != b->nbytes || !a->data != !b->data ||
		    (a->data && memcmp(a->data, b->data, a->nbytes)))
			abort();
	}
	ir_graph_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ir_graph *g = NULL;
	char err[512];

	/* no base dir: external data is refused, the fuzzer reads no files */
	if (onnx_import_buffer(data, size, NULL, NULL, &g, err, sizeof(err))) {
		if (!err[0] || g)
			abort();
		check_lifted(data, size, NULL);
		return 0;
	}
	check_lifted(data, size, g);
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
