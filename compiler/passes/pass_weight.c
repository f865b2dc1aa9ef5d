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

#include "passes.h"

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
		int64_t o, k, O, CK;
		float *nd;
		const float *d;

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
		nd = malloc(w->nbytes);
		if (!nd)
			return ir_error(g, "out of memory");
		d = w->data;
		for (o = 0; o < O; o++)
			for (k = 0; k < CK; k++)
				nd[k * O + o] = d[o * CK + k];
		free(w->data);
		w->data = nd;	/* same size, malloc'ed as ir_tensor_set_data() */
		w->w_olast = true;
		st->rewritten++;
	}
	return 0;
}
