// SPDX-License-Identifier: MIT
/*
 * onnx_storage.c - the storage types (double, bfloat16, int16, uint16,
 * uint32, uint64) narrowed to the device's compute types after import.
 *
 * The NPU computes in F32, F16, I8, U8, I32 and I64; since uapi 1.8 its
 * COPY also reads and writes F64, BF16, I16, U16, U32 and U64 (storage
 * types). A model in one of them is compiled to compute in
 * ir_dtype_compute() (F64, BF16 -> F32; I16, U16 -> I32; U32, U64 -> I64):
 *
 *  - a graph input of a storage type is cast to its compute type (a COPY
 *    at the start); a graph output the model declares of one is cast from
 *    it (a COPY at the end), so callers see the model's own types;
 *  - constants are converted here (double rounded to float, integers
 *    widened; uint64 keeps its bits in int64);
 *  - a Cast to a storage type keeps its rounding or wrap-around (a COPY
 *    to it) and is followed by a Cast back to the compute type, so that
 *    Cast(float -> bfloat16) rounds and Cast(int32 -> uint16) wraps as
 *    ONNX says; EyeLike's, the random ops' and MelWeightMatrix's output
 *    types and Cast targets elsewhere are mapped the same way.
 *
 * So arithmetic runs in the compute type: a double model computes in f32
 * (about 7 significant digits, not 16), an int16 or uint32 sum that
 * overflows its type wraps only at a Cast or at the output (add, sub and
 * mul agree with the narrow type there; a comparison of an overflowed
 * intermediate does not), and uint64 values of 2^63 and more compare,
 * divide and shift as the negative int64 of their bits.
 * Documentation/compiler-ir.rst, "Storage types", says the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "onnx_import.h"

/* Element @i of a storage-typed constant in its compute type. */
static void onnx_widen(enum ir_dtype dt, const void *src, size_t i, void *dst)
{
	uint32_t b;
	float f;

	switch (dt) {
	case IR_F64:
		((float *)dst)[i] = (float)((const double *)src)[i];
		break;
	case IR_BF16:
		b = (uint32_t)((const uint16_t *)src)[i] << 16;
		memcpy(&f, &b, sizeof(f));
		((float *)dst)[i] = f;
		break;
	case IR_I16:
		((int32_t *)dst)[i] = ((const int16_t *)src)[i];
		break;
	case IR_U16:
		((int32_t *)dst)[i] = ((const uint16_t *)src)[i];
		break;
	case IR_U32:
		((int64_t *)dst)[i] = ((const uint32_t *)src)[i];
		break;
	default:	/* IR_U64: its bits */
		memcpy((int64_t *)dst + i, (const uint64_t *)src + i, 8);
		break;
	}
}

static int onnx_narrow_const(struct ir_tensor *t)
{
	enum ir_dtype ct = ir_dtype_compute(t->dtype);
	size_t n = t->nbytes / ir_dtype_size(t->dtype);
	void *v = malloc(n * ir_dtype_size(ct) + 1);
	int err;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		onnx_widen(t->dtype, t->data, i, v);
	t->dtype = ct;
	err = ir_tensor_set_data(t, v, n * ir_dtype_size(ct));
	free(v);
	return err;
}

/* Cast(@x) to @dt writing @out (NULL: a new tensor), named after @x. */
static struct ir_tensor *onnx_cast(struct ir_graph *g, struct ir_tensor *x,
				   enum ir_dtype dt, struct ir_tensor *out)
{
	char name[300];
	struct ir_node *n;

	if (!out)
		out = ir_tensor_new(g, NULL, dt, x->shape_known ? &x->shape :
				    NULL);
	snprintf(name, sizeof(name), "%.250s/to_%s", x->name,
		 ir_dtype_name(dt));
	n = out ? ir_node_new(g, IR_OP_CAST, name, 1, &x, 1, &out) : NULL;
	if (!n || ir_attr_set_int(n, "to", ir_dtype_to_onnx(dt)))
		return NULL;
	n->opset = 13;
	return out;
}

/* A storage-typed graph input: its readers read its compute-type copy. */
static int onnx_narrow_input(struct ir_graph *g, struct ir_tensor *t)
{
	struct ir_tensor *w;

	if (!t->num_uses)
		return 0;
	w = ir_tensor_new(g, NULL, ir_dtype_compute(t->dtype), &t->shape);
	if (!w)
		return -ENOMEM;
	w->shape_known = t->shape_known;
	for (int i = t->num_uses - 1; i >= 0; i--)
		ir_node_set_input(t->uses[i].node, t->uses[i].index, w);
	return onnx_cast(g, t, w->dtype, w) ? 0 : -ENOMEM;
}

/*
 * Graph output @k declared of storage type @dt: its producer writes the
 * compute type, a Cast writes the output.
 */
static int onnx_narrow_output(struct ir_graph *g, struct ir_tensor *t,
			      enum ir_dtype dt)
{
	struct ir_node *p = t->producer;
	struct ir_tensor *w;
	int k;

	if (!p)
		return 0;	/* an input or constant passed through */
	w = ir_tensor_new(g, NULL, IR_DTYPE_INVALID, NULL);
	if (!w)
		return -ENOMEM;
	for (k = 0; k < p->num_outputs && p->outputs[k] != t; k++)
		;
	ir_node_set_output(p, k, w);
	for (int i = t->num_uses - 1; i >= 0; i--)
		ir_node_set_input(t->uses[i].node, t->uses[i].index, w);
	t->dtype = dt;
	return onnx_cast(g, w, dt, t) ? 0 : -ENOMEM;
}

/* A Cast to a storage type rounds or wraps, then widens again. */
static int onnx_narrow_cast(struct ir_graph *g, struct ir_node *n)
{
	enum ir_dtype dt = ir_dtype_from_onnx(ir_attr_int(n, "to", 0));
	struct ir_tensor *y = n->outputs[0], *mid;

	if (!ir_dtype_storage(dt) || !y)
		return 0;
	mid = ir_tensor_new(g, NULL, dt, NULL);
	if (!mid)
		return -ENOMEM;
	ir_node_set_output(n, 0, mid);
	return onnx_cast(g, mid, ir_dtype_compute(dt), y) ? 0 : -ENOMEM;
}

/* An output-type attribute naming a storage type names its compute type. */
static int onnx_narrow_type_attr(struct ir_node *n, const char *name)
{
	const struct ir_attr *a = ir_attr_find(n, name);
	enum ir_dtype dt;

	if (!a || a->type != IR_ATTR_INT)
		return 0;
	dt = ir_dtype_from_onnx(a->i);
	if (!ir_dtype_storage(dt))
		return 0;
	return ir_attr_set_int(n, name, ir_dtype_to_onnx(ir_dtype_compute(dt)));
}

static int onnx_narrow_nodes(struct ir_graph *g)
{
	int count = g->num_nodes, err = 0;

	for (int i = 0; i < count && !err; i++) {
		struct ir_node *n = g->nodes[i];

		if (n->op == IR_OP_CAST)
			err = onnx_narrow_cast(g, n);
		else if (n->op == IR_OP_EYE_LIKE || ir_node_is_random(n))
			err = onnx_narrow_type_attr(n, "dtype");
		else if (n->op == IR_OP_MEL_WEIGHT_MATRIX)
			err = onnx_narrow_type_attr(n, "output_datatype");
		for (int k = 0; k < n->num_attrs && !err; k++)
			if (n->attrs[k].type == IR_ATTR_GRAPH)
				err = onnx_narrow_storage(n->attrs[k].graph,
							  NULL);
	}
	return err;
}

int onnx_narrow_storage(struct ir_graph *g, const enum ir_dtype *out_dt)
{
	int count, err = onnx_narrow_nodes(g);

	count = g->num_tensors;
	for (int i = 0; i < count && !err; i++) {
		struct ir_tensor *t = g->tensors[i];

		if (!ir_dtype_storage(t->dtype))
			continue;
		if (t->data)
			err = onnx_narrow_const(t);
		else if (t->is_input)
			err = onnx_narrow_input(g, t);
	}
	for (int k = 0; out_dt && k < g->num_outputs && !err; k++)
		if (ir_dtype_storage(out_dt[k]))
			err = onnx_narrow_output(g, g->outputs[k], out_dt[k]);
	return err;
}
