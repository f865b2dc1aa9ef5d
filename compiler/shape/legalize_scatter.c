// SPDX-License-Identifier: MIT
/*
 * legalize_scatter.c - ONNX ScatterND, ScatterElements and Scatter (its
 * opset 9-10 name) onto npu.Scatter: the data copied into the output, then
 * the device's SCATTER task writes the updates there in order (emit.c).
 * When the data dies at the node, memory planning gives the output its
 * buffer and the copy is a copy onto itself: a KV-cache update then costs
 * the updates only.
 */
#include <errno.h>
#include <string.h>

#include "shape_internal.h"

static int serr(struct ir_graph *g, const struct ir_node *n, const char *w)
{
	return ir_error(g, "node '%s' (%s): %s", n->name, ir_op_name(n->op),
			w);
}

int shape_legalize_scatter(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *ix = ir_in(n, 1);
	struct ir_tensor *up = ir_in(n, 2), *out = n->outputs[0], *ins[3];
	static const char *const reds[] = { "none", "add", "mul", "max",
					    "min" };
	const char *rs = ir_attr_str(n, "reduction", "none");
	bool el = n->op != IR_OP_SCATTER_ND;
	int r = x->shape.rank, red = -1, i;
	int64_t axis = ir_attr_int(n, "axis", 0), numel;
	struct ir_node *t;
	char name[300];

	if (!ix || !up)
		return serr(g, n, "needs data, indices and updates");
	if (n->op == IR_OP_SCATTER && n->opset >= 11)
		return ir_error(g, "node '%s' (Scatter): Scatter at opset %d is "
				"not supported (ONNX removed it at opset 11: "
				"ScatterElements replaces it)", n->name,
				n->opset);
	for (i = 0; i < 5; i++)
		if (!strcmp(rs, reds[i]))
			red = i;
	if (red < 0)
		return serr(g, n, "unknown reduction");
	if (red && x->dtype != IR_F32 && x->dtype != IR_I32 &&
	    x->dtype != IR_I64)
		return serr(g, n, "a reduction on this dtype is not supported "
			    "(f32, i32, i64)");
	if (ix->dtype != IR_I64 && ix->dtype != IR_I32)
		return serr(g, n, "indices must be int32 or int64");
	if (up->dtype != x->dtype)
		return serr(g, n, "updates and data dtypes differ");
	if (!ir_shape_is_static(&x->shape) || !ir_shape_is_static(&ix->shape) ||
	    !ir_shape_is_static(&up->shape))
		return serr(g, n, "needs static shapes");
	if (el) {
		if (axis < 0)
			axis += r;
		if (axis < 0 || axis >= r || ix->shape.rank != r ||
		    !ir_shape_equal(&ix->shape, &up->shape))
			return serr(g, n, "indices and updates must have one "
				    "shape of the data's rank, axis in range");
		for (i = 0; i < r; i++)
			if (i != axis && ix->shape.dim[i] > x->shape.dim[i])
				return serr(g, n, "indices larger than the "
					    "data off the axis");
	} else {
		int q = ix->shape.rank;
		int64_t k = q ? ix->shape.dim[q - 1] : 0;

		axis = 0;
		if (q < 1 || k < 1 || k > r || up->shape.rank != q - 1 + r - k)
			return serr(g, n, "updates must have the shape "
				    "indices[:-1] + data[k:]");
		for (i = 0; i < q - 1; i++)
			if (up->shape.dim[i] != ix->shape.dim[i])
				return serr(g, n, "updates must have the shape "
					    "indices[:-1] + data[k:]");
		for (i = (int)k; i < r; i++)
			if (up->shape.dim[q - 1 + i - k] != x->shape.dim[i])
				return serr(g, n, "updates must have the shape "
					    "indices[:-1] + data[k:]");
	}
	numel = ir_shape_numel(&up->shape);
	if (numel > (1 << 22))
		return serr(g, n, "more than 2^22 updates in one node are not "
			    "supported");
	snprintf(name, sizeof(name), "%.250s", n->name);
	ins[0] = x;
	ins[1] = ix;
	ins[2] = up;
	ir_node_remove(g, n);
	t = ir_node_new(g, IR_OP_SCATTER_TASK, name, 3, ins, 1, &out);
	if (!t || ir_attr_set_int(t, "elements", el) ||
	    ir_attr_set_int(t, "axis", axis) ||
	    ir_attr_set_int(t, "reduce", red))
		return -ENOMEM;
	return 1;
}

/* npu.Scatter: the data's shape and dtype. */
int shape_infer_scatter_task(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *o = n->outputs[0];

	(void)g;
	o->dtype = n->inputs[0]->dtype;
	o->shape = n->inputs[0]->shape;
	o->shape_known = true;
	return 0;
}
