// SPDX-License-Identifier: MIT
/*
 * legalize_topk.c - ONNX TopK onto the device's TOPK task.
 *
 * npu.TopK(X) writes the int64 indices of the k best elements of every
 * line along the axis, best first, equal values in index order (what ONNX
 * asks of sorted = 1; sorted = 0 allows any order, so this one serves);
 * the values are GatherElements(X, indices) (legalize_more.c: one GATHER
 * on the flattened X). K must be a constant (the output shape depends on
 * it).
 */
#include <errno.h>
#include <string.h>

#include "shape_internal.h"

int shape_legalize_topk(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *kt = ir_in(n, 1);
	struct ir_tensor *vals = n->outputs[0];
	struct ir_tensor *idx = n->num_outputs > 1 ? n->outputs[1] : NULL;
	int r = x->shape.rank;
	int64_t axis = ir_attr_int(n, "axis", -1), k;
	bool largest = ir_attr_int(n, "largest", 1) != 0;
	bool vals_used = vals && (vals->num_uses || vals->is_output);
	struct ir_tensor *ins[2];
	struct ir_node *t;
	char name[300];

	if (n->opset < 10) {
		k = ir_attr_int(n, "k", -1);
	} else {
		if (!kt || !kt->data || ir_tensor_numel(kt) != 1)
			return ir_error(g, "node '%s' (TopK): a K computed at "
					"run time is not supported (K must be a "
					"constant)", n->name);
		k = ir_const_get_i(kt, 0);
	}
	if (axis < 0)
		axis += r;
	if (axis < 0 || axis >= r || !ir_shape_is_static(&x->shape))
		return ir_error(g, "node '%s' (TopK): axis out of range or a "
				"shape that is not static", n->name);
	if (x->dtype != IR_F32 && x->dtype != IR_I32 && x->dtype != IR_I64)
		return ir_error(g, "node '%s' (TopK): dtype %s is not "
				"supported (f32, i32, i64)", n->name,
				ir_dtype_name(x->dtype));
	if (k < 1 || k > x->shape.dim[axis])
		return ir_error(g, "node '%s' (TopK): k = %lld is not "
				"supported (1 .. the axis' extent %lld)",
				n->name, (long long)k,
				(long long)x->shape.dim[axis]);
	ir_node_set_output(n, 0, NULL);
	if (idx)
		ir_node_set_output(n, 1, NULL);
	if (!idx) {
		idx = ir_tensor_new(g, NULL, IR_I64, NULL);
		if (!idx)
			return -ENOMEM;
	}
	snprintf(name, sizeof(name), "%.250s/topk", n->name);
	ins[0] = x;
	ir_node_remove(g, n);
	t = ir_node_new(g, IR_OP_TOPK_TASK, name, 1, ins, 1, &idx);
	if (!t || ir_attr_set_int(t, "axis", axis) ||
	    ir_attr_set_int(t, "k", k) ||
	    ir_attr_set_int(t, "largest", largest))
		return -ENOMEM;
	if (!vals_used)
		return 1;
	snprintf(name, sizeof(name), "%.250s/values", t->name);
	ins[0] = x;
	ins[1] = idx;
	t = ir_node_new(g, IR_OP_GATHER_ELEMENTS, name, 2, ins, 1, &vals);
	if (!t || ir_attr_set_int(t, "axis", axis))
		return -ENOMEM;
	t->opset = 13;
	return 1;
}

/* npu.TopK: X's shape with k along the axis, int64. */
int shape_infer_topk_task(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_tensor *x = n->inputs[0];
	struct ir_tensor *o = n->outputs[0];
	int64_t axis = ir_attr_int(n, "axis", 0);

	if (axis < 0 || axis >= x->shape.rank)
		return ir_error(g, "node '%s' (npu.TopK): axis out of range",
				n->name);
	o->dtype = IR_I64;
	o->shape = x->shape;
	o->shape.dim[axis] = ir_attr_int(n, "k", 1);
	o->shape_known = true;
	return 0;
}
