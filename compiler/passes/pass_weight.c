// SPDX-License-Identifier: MIT
/*
 * pass_weight.c - constant Conv weights stored with the output channel
 * innermost ([C][KH][KW][O]).
 *
 * The device's convolution computes 16 output channels of a pixel at a
 * time from one contiguous row of weights per tap (Documentation/ops.rst,
 * "Product kernels"); with the weights in the ONNX order [O][C][KH][KW]
 * it would gather them. The operand stays a 4-D [O][C][KH][KW] view, with
 * the strides of the new order, so the task means the same; only the
 * bytes in the .om move. The pass runs last: nothing after it reads the
 * constant's data as row-major.
 */
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "om_bigbuf.h"
#include "passes.h"

/*
 * dst[c * rows + r] = src[r * cols + c], in 32 x 32 tiles: element by
 * element, every store of a large weight missed the cache (a seventh of
 * resnet50's compile time). The same values in the same places. The
 * source is read by memcpy(): a weight still mapped from the model file is aligned
 * to nothing (a plain load on x86).
 */
static void transpose_f32(float *dst, const void *src_bytes, int64_t rows,
			  int64_t cols)
{
	const char *src_b = src_bytes;

	for (int64_t r0 = 0; r0 < rows; r0 += 32)
		for (int64_t c0 = 0; c0 < cols; c0 += 32) {
			int64_t r1 = r0 + 32 < rows ? r0 + 32 : rows;
			int64_t c1 = c0 + 32 < cols ? c0 + 32 : cols;

			for (int64_t r = r0; r < r1; r++)
				for (int64_t c = c0; c < c1; c++)
					memcpy(&dst[c * rows + r],
					       src_b + (size_t)(r * cols + c) *
					       sizeof(float), sizeof(float));
		}
}

/*
 * @t's [rows][cols] f32 data transposed, by @what (derive.h): the bytes
 * kept under the key are used where the cache holds them (borrowed,
 * read-only: nothing after this pass writes a weight); else the
 * transpose goes to a new buffer, which replaces the old data.
 */
static int transpose_const(struct ir_graph *g, struct ir_tensor *t,
			   int64_t rows, int64_t cols, const char *what)
{
	struct derive d;
	bool memo = derive_begin(&d, g, what);
	float *nd;

	if (memo) {
		const void *kept;

		derive_tensor(&d, t);
		kept = derive_borrow(&d, t, t->nbytes);
		if (kept) {
			ir_tensor_borrow_data(t, kept, t->nbytes);
			return 0;
		}
	}
	nd = om_bigbuf_alloc(t->nbytes);
	if (!nd)
		return ir_error(g, "out of memory");
	transpose_f32(nd, t->data, rows, cols);
	if (memo)
		derive_keep(&d, t, nd, t->nbytes);
	ir_tensor_adopt_data(t, nd, t->nbytes);
	return 0;
}

/* Every use of @w is a Conv's weight input. */
static bool only_conv_weight(const struct ir_tensor *w)
{
	int i;

	if (w->is_output || !w->num_uses)
		return false;
	for (i = 0; i < w->num_uses; i++)
		if (w->uses[i].node->op != IR_OP_CONV ||
		    w->uses[i].index != 1)
			return false;
	return true;
}

int pass_conv_weight_olast(struct ir_graph *g, struct pass_stats *st)
{
	int i;

	for (i = 0; i < g->num_tensors; i++) {
		struct ir_tensor *w = g->tensors[i];
		int64_t O, CK;
		int err;

		if (!w || !w->data || w->w_olast || w->dtype != IR_F32 ||
		    w->shape.rank != 4 || w->layout == IR_LAYOUT_NC1HWC0 ||
		    !only_conv_weight(w))
			continue;
		O = w->shape.dim[0];
		CK = w->shape.dim[1] * w->shape.dim[2] * w->shape.dim[3];
		/* depthwise and narrow convs keep their order (ops.rst) */
		if (O < 16 || w->shape.dim[1] < 2 ||
		    w->nbytes != (size_t)(O * CK) * sizeof(float))
			continue;
		err = transpose_const(g, w, O, CK, "conv-weight-olast/1");
		if (err)
			return err;
		w->w_olast = true;
		st->rewritten++;
	}
	return 0;
}

/* Every use of @b is input 1 of a Gemm with transB = 1. */
static bool only_gemm_bt(const struct ir_tensor *b)
{
	int i;

	if (b->is_output || !b->num_uses)
		return false;
	for (i = 0; i < b->num_uses; i++)
		if (b->uses[i].node->op != IR_OP_GEMM ||
		    b->uses[i].index != 1 ||
		    !ir_attr_int(b->uses[i].node, "transB", 0))
			return false;
	return true;
}

/*
 * Gemm(transB = 1) with a constant F32 B [N, K] read only by such Gemms:
 * B is stored transposed ([K, N]) and transB cleared, so that MATMUL reads
 * rows of B as contiguous vectors (Documentation/ops.rst, "Product
 * kernels") instead of taking the 4x8 tiles. The same product, in the
 * same order of terms.
 */
int pass_gemm_weight_kn(struct ir_graph *g, struct pass_stats *st)
{
	int i, j, err;

	for (i = 0; i < g->num_tensors; i++) {
		struct ir_tensor *b = g->tensors[i];
		int64_t n, k;

		if (!b || !b->data || b->dtype != IR_F32 || b->shape.rank != 2 ||
		    !only_gemm_bt(b))
			continue;
		n = b->shape.dim[0];
		k = b->shape.dim[1];
		if (b->nbytes != (size_t)(n * k) * sizeof(float))
			continue;
		err = transpose_const(g, b, n, k, "gemm-weight-kn/1");
		if (err)
			return err;
		b->shape.dim[0] = k;
		b->shape.dim[1] = n;
		for (j = 0; j < b->num_uses; j++) {
			err = ir_attr_set_int(b->uses[j].node, "transB", 0);
			if (err)
				return ir_error(g, "out of memory");
			st->rewritten++;
		}
	}
	return 0;
}
