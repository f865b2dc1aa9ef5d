// SPDX-License-Identifier: MIT
/*
 * legalize_count.c - ops whose output extent the data decides: NonZero
 * and NonMaxSuppression onto the device's NONZERO and NMS tasks.
 *
 * The task writes its rows packed at the start of an output of the
 * largest extent the op can have (the bound: every element of NonZero's
 * input, B * C * min(N, max_output_boxes_per_class) boxes of NMS) and
 * the number of rows to a second output, an int64 count. The data
 * tensor records which dim is counted and by which tensor (ir_tensor.
 * count); lowering keeps the count alive to the end of the program and
 * records its workspace place in the .om (COUNTS section), and the
 * runtime reports the output's shape from it (Documentation/runtime.rst,
 * "Outputs of data-dependent shape").
 *
 * Such an output must be a graph output: an op reading it would need the
 * count as a shape, which a statically planned program does not have
 * (lower.c refuses it with a message). A constant input is folded here
 * instead, and then the shape is known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

/* The node @n is replaced by a constant of @shape (int64 @v). */
static int fold_to(struct ir_graph *g, struct ir_node *n,
		   const struct ir_shape *shape, const int64_t *v)
{
	struct lz_builder b;
	struct ir_tensor *out, *c;
	int64_t cnt = ir_shape_numel(shape), none = 0;

	c = ir_const_new(g, NULL, IR_I64, shape, cnt ? v : &none,
			 (size_t)cnt * sizeof(int64_t));
	if (!c)
		return -ENOMEM;
	out = lz_take(&b, g, n);
	return lz_unary(&b, IR_OP_IDENTITY, c, out) ? 1 : -ENOMEM;
}

/*
 * The task writing @out (data), a new count tensor and @nwork more new
 * tensors the task works in (NMS: its scratch and per-pair counts).
 */
static int count_task(struct ir_graph *g, struct ir_node *n, enum ir_op op,
		      int nin, struct ir_tensor **ins, int dim, int nwork)
{
	struct ir_tensor *out = n->outputs[0], *outs[4];
	char name[300];

	for (int i = 1; i < n->num_outputs; i++)
		if (n->outputs[i])
			ir_node_set_output(n, i, NULL);
	ir_node_set_output(n, 0, NULL);
	outs[0] = out;
	for (int i = 1; i < 2 + nwork; i++) {
		outs[i] = ir_tensor_new(g, NULL, IR_I64, NULL);
		if (!outs[i])
			return -ENOMEM;
	}
	snprintf(name, sizeof(name), "%.250s/%s", n->name,
		 op == IR_OP_NONZERO_TASK ? "nonzero" : "nms");
	ir_node_remove(g, n);
	if (!ir_node_new(g, op, name, nin, ins, 2 + nwork, outs))
		return -ENOMEM;
	out->count = outs[1];
	out->count_dim = dim;
	out->count_zeroed = true;
	return 1;
}

/* NonZero of a constant: its coordinates, row-major. */
static int fold_nonzero(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_tensor *x = n->inputs[0];
	int64_t numel = ir_shape_numel(&x->shape), k = 0, nz = 0;
	int r = x->shape.rank;
	struct ir_shape s = { .rank = 2 };
	int64_t *v;
	int ret;

	for (int64_t e = 0; e < numel; e++)
		nz += ir_const_get_f(x, e) != 0.0;
	v = malloc((size_t)(r * nz + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int64_t e = 0; e < numel; e++) {
		int64_t rem = e;

		if (ir_const_get_f(x, e) == 0.0)
			continue;
		for (int d = r - 1; d >= 0; d--) {
			v[d * nz + k] = rem % x->shape.dim[d];
			rem /= x->shape.dim[d];
		}
		k++;
	}
	s.dim[0] = r;
	s.dim[1] = nz;
	ret = fold_to(g, n, &s, v);
	free(v);
	return ret;
}

static int legalize_nonzero(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0];
	int64_t numel = ir_shape_numel(&x->shape);

	if (numel < 0)
		return ir_error(g, "node '%s' (NonZero): the input's shape must "
				"be static (compile a gear of the dynamic dims)",
				n->name);
	if (ir_tensor_is_const(x) || !numel)
		return fold_nonzero(g, n);
	if (numel > UINT32_MAX)
		return ir_error(g, "node '%s' (NonZero): %lld elements; a "
				"device dim holds at most 2^32 - 1", n->name,
				(long long)numel);
	return count_task(g, n, IR_OP_NONZERO_TASK, 1, &x, 1, 0);
}

static int nms_const(struct ir_graph *g, struct ir_node *n, int i,
		     const char *what)
{
	const struct ir_tensor *t = ir_in(n, i);

	if (t && (!t->data || ir_tensor_numel(t) != 1))
		return ir_error(g, "node '%s' (NonMaxSuppression): %s must be "
				"known at compile time (a constant of one "
				"element)", n->name, what);
	return 0;
}

static int legalize_nms(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *bx = n->inputs[0], *sc = n->inputs[1];
	struct ir_tensor *mt = ir_in(n, 2), *it = ir_in(n, 3), *st = ir_in(n, 4);
	int64_t center = ir_attr_int(n, "center_point_box", 0), max, keep, bound;
	struct ir_tensor *ins[2] = { bx, sc };
	float iou;
	struct ir_node *t;
	int ret;

	if (nms_const(g, n, 2, "max_output_boxes_per_class") ||
	    nms_const(g, n, 3, "iou_threshold") ||
	    nms_const(g, n, 4, "score_threshold"))
		return -EINVAL;
	if (bx->dtype != IR_F32 || sc->dtype != IR_F32)
		return ir_error(g, "node '%s' (NonMaxSuppression): boxes and "
				"scores of dtype %s are not supported (f32)",
				n->name, ir_dtype_name(bx->dtype));
	if (!ir_shape_is_static(&bx->shape) || !ir_shape_is_static(&sc->shape) ||
	    bx->shape.rank != 3 || sc->shape.rank != 3 ||
	    bx->shape.dim[2] != 4 || sc->shape.dim[0] != bx->shape.dim[0] ||
	    sc->shape.dim[2] != bx->shape.dim[1])
		return ir_error(g, "node '%s' (NonMaxSuppression): boxes must "
				"be [B, N, 4] and scores [B, C, N], static",
				n->name);
	if (center != 0 && center != 1)
		return ir_error(g, "node '%s' (NonMaxSuppression): "
				"center_point_box = %lld (0 or 1)", n->name,
				(long long)center);
	max = mt ? ir_const_get_i(mt, 0) : 0;
	iou = it ? (float)ir_const_get_f(it, 0) : 0.0f;
	if (!(iou >= 0.0f && iou <= 1.0f))
		return ir_error(g, "node '%s' (NonMaxSuppression): "
				"iou_threshold %g is outside [0, 1]", n->name,
				(double)iou);
	keep = max < 0 ? 0 : max < sc->shape.dim[2] ? max : sc->shape.dim[2];
	bound = sc->shape.dim[0] * sc->shape.dim[1] * keep;
	if (!bound) {
		struct ir_shape s = { .rank = 2, .dim = { 0, 3 } };

		return fold_to(g, n, &s, NULL);
	}
	if (bound > UINT32_MAX || sc->shape.dim[2] > INT32_MAX)
		return ir_error(g, "node '%s' (NonMaxSuppression): %lld boxes, "
				"up to %lld kept; the device takes at most "
				"2^31 - 1 boxes and keeps at most 2^32 - 1",
				n->name, (long long)sc->shape.dim[2],
				(long long)bound);
	ret = count_task(g, n, IR_OP_NMS_TASK, 2, ins, 0, 2);
	if (ret < 0)
		return ret;
	t = bx->uses[bx->num_uses - 1].node;
	if (ir_attr_set_int(t, "center_point_box", center) ||
	    ir_attr_set_int(t, "max_per_class", keep) ||
	    ir_attr_set_float(t, "iou_threshold", iou) ||
	    (st && ir_attr_set_float(t, "score_threshold",
				     (float)ir_const_get_f(st, 0))))
		return -ENOMEM;
	return 1;
}

/* Unique's [O, A, I] view of its input (a flattened Unique: [1, n, 1]). */
static void unique_geometry(const struct ir_tensor *x, int64_t axis,
			    int64_t *oai)
{
	oai[0] = oai[2] = 1;
	oai[1] = ir_shape_numel(&x->shape);
	if (axis < 0)
		return;
	oai[1] = x->shape.dim[axis];
	for (int i = 0; i < x->shape.rank; i++)
		if (i < axis)
			oai[0] *= x->shape.dim[i];
		else if (i > axis)
			oai[2] *= x->shape.dim[i];
}

/*
 * Unique: npu.Unique, outputs Y (the bound: X's shape), count, indices,
 * counts (int64 [A]), inverse_indices (int64 [A], static) and perm (the
 * task's work, int64 [2, A]); Y, indices and counts are counted.
 */
static int legalize_unique(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *outs[6] = { NULL };
	int64_t numel = ir_shape_numel(&x->shape), axis = -1, oai[3], sorted;
	char name[300];
	struct ir_node *t;

	if (!ir_shape_is_static(&x->shape) || numel < 0)
		return ir_error(g, "node '%s' (Unique): the input's shape must "
				"be static (compile a gear of the dynamic dims)",
				n->name);
	if (ir_attr_find(n, "axis")) {
		axis = ir_attr_int(n, "axis", 0);
		if (axis < -x->shape.rank || axis >= x->shape.rank)
			return ir_error(g, "node '%s' (Unique): axis %lld of a "
					"rank-%d input", n->name,
					(long long)axis, x->shape.rank);
		if (axis < 0)
			axis += x->shape.rank;
	}
	if (!numel || numel > INT32_MAX || x->dtype == IR_BOOL ||
	    (x->dtype != IR_F32 && x->dtype != IR_F16 && x->dtype != IR_I32 &&
	     x->dtype != IR_I64 && x->dtype != IR_I8 && x->dtype != IR_U8))
		return ir_error(g, "node '%s' (Unique): %lld elements of %s; "
				"the device takes 1 .. 2^31 - 1 of float32, "
				"float16, int32, int64, int8 or uint8",
				n->name, (long long)numel,
				ir_dtype_name(x->dtype));
	/* ONNX's Y, indices, inverse_indices, counts as the task's 0, 2, 4, 3 */
	outs[0] = n->outputs[0];
	outs[2] = n->num_outputs > 1 ? n->outputs[1] : NULL;
	outs[4] = n->num_outputs > 2 ? n->outputs[2] : NULL;
	outs[3] = n->num_outputs > 3 ? n->outputs[3] : NULL;
	for (int i = 0; i < n->num_outputs; i++)
		if (n->outputs[i])
			ir_node_set_output(n, i, NULL);
	for (int i = 0; i < 6; i++)
		if (!outs[i] && !(outs[i] = ir_tensor_new(g, NULL, IR_I64, NULL)))
			return -ENOMEM;
	unique_geometry(x, axis, oai);
	sorted = ir_attr_int(n, "sorted", 1);
	snprintf(name, sizeof(name), "%.250s/unique", n->name);
	ir_node_remove(g, n);
	t = ir_node_new(g, IR_OP_UNIQUE_TASK, name, 1, &x, 6, outs);
	if (!t || ir_attr_set_int(t, "axis", axis) ||
	    ir_attr_set_int(t, "sorted", sorted) ||
	    ir_attr_set_int(t, "npu_o", oai[0]) ||
	    ir_attr_set_int(t, "npu_a", oai[1]) ||
	    ir_attr_set_int(t, "npu_i", oai[2]))
		return -ENOMEM;
	for (int i = 0; i < 4; i++) {
		if (i == 1)
			continue;
		outs[i]->count = outs[1];
		outs[i]->count_dim = i ? 0 : (axis < 0 ? 0 : (int)axis);
		outs[i]->count_zeroed = true;
	}
	return 1;
}

int shape_legalize_count(struct ir_graph *g, struct ir_node *n)
{
	if (n->op == IR_OP_NON_ZERO)
		return legalize_nonzero(g, n);
	if (n->op == IR_OP_UNIQUE)
		return legalize_unique(g, n);
	return legalize_nms(g, n);
}

static void set_shape(struct ir_tensor *t, enum ir_dtype dt, int rank,
		      int64_t d0, int64_t d1)
{
	if (!t)
		return;
	t->dtype = dt;
	t->shape.rank = rank;
	t->shape.dim[0] = d0;
	t->shape.dim[1] = d1;
	t->shape_known = true;
}

/*
 * npu.NonZero: [rank(x), numel(x)]; npu.NMS: [B * C * keep, 3], and its
 * scratch (int32 [B * C, N]) and per-pair counts (int64 [B * C]); the
 * count [1].
 */
int shape_infer_count_task(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_tensor *x = n->inputs[0];

	if (n->op == IR_OP_UNIQUE_TASK) {
		int64_t a = ir_attr_int(n, "npu_a", 1);
		struct ir_tensor *y = n->outputs[0];

		y->dtype = x->dtype;
		y->shape = x->shape;
		if (ir_attr_int(n, "axis", -1) < 0) {
			y->shape.rank = 1;
			y->shape.dim[0] = a;
		}
		y->shape_known = true;
		for (int i = 2; i < 5; i++)
			set_shape(n->outputs[i], IR_I64, 1, a, 0);
		set_shape(n->outputs[5], IR_I64, 2, 2, a);
	} else if (n->op == IR_OP_NONZERO_TASK) {
		set_shape(n->outputs[0], IR_I64, 2, x->shape.rank,
			  ir_shape_numel(&x->shape));
	} else {
		const struct ir_tensor *s = n->inputs[1];
		int64_t pairs = s->shape.dim[0] * s->shape.dim[1];

		set_shape(n->outputs[0], IR_I64, 2,
			  pairs * ir_attr_int(n, "max_per_class", 1), 3);
		if (n->num_outputs > 3) {
			set_shape(n->outputs[2], IR_I32, 2, pairs,
				  s->shape.dim[2]);
			set_shape(n->outputs[3], IR_I64, 1, pairs, 0);
		}
	}
	if (n->num_outputs > 1)
		set_shape(n->outputs[1], IR_I64, 1, 1, 0);
	(void)g;
	return 0;
}
