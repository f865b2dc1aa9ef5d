// SPDX-License-Identifier: MIT
/*
 * fuzz_onnx.c - libFuzzer target for the ONNX importer (make fuzz-onnx).
 *
 * Every input must import or fail with a message, never crash, leak or
 * read out of bounds; what imports must verify, and shape inference and
 * the whole pass pipeline (constant folding runs the op kernels) on it
 * must not crash either; what the passes accept must still verify.
 * An import with the weights left in the input (onnx_lift.c, map_weights)
 * must succeed or fail with the plain one and give the same constants;
 * the passes run on it, its product weights still in the input.
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

/*
 * The lifted import of @data agrees with the plain import @g (or none);
 * returns it (NULL when none).
 */
static struct ir_graph *check_lifted(const uint8_t *data, size_t size,
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
		return NULL;
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
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ir_graph *g = NULL, *m;
	char err[512];

	/* no base dir: external data is refused, the fuzzer reads no files */
	if (onnx_import_buffer(data, size, NULL, NULL, &g, err, sizeof(err))) {
		if (!err[0] || g)
			abort();
		check_lifted(data, size, NULL);
		return 0;
	}
	m = check_lifted(data, size, g);
	ir_graph_free(g);
	/*
	 * The pipeline runs as the compiler driver runs it on a miss: the
	 * weights of convolutions and products still in the input, at
	 * whatever offsets it puts them (UBSan: a typed read of one that
	 * skipped ir_tensor_own() is a misaligned load), the rest copied.
	 */
	if (onnx_import_materialize_except_weights(m) || ir_verify(m))
		abort();
	if (shape_infer(m) == 0) {
		struct pm_opts o = { .opt_level = 2, .verify = true };
		struct pm_report r;

		if (pm_run(m, &o, &r) == 0 && ir_verify(m))
			abort();
	}
	ir_graph_free(m);
	return 0;
}
