// SPDX-License-Identifier: MIT
/*
 * pass_precision.c - floating-point precision (npuc --precision, ATC's
 * precision_mode), Documentation/quantization.rst.
 *
 * The device stores F16 activations and runs the elementwise ops,
 * pooling, data movement, MATMUL and the weight-only product (MATMUL_WQ)
 * on them, with f32 arithmetic inside each kernel; CONV2D, the norms,
 * softmax and the transcendental activations take F32 only. So
 * every node gets a storage dtype for its float outputs and a compute
 * dtype (the storage dtype where the device takes it, else F32), and
 * the pass converts at the node's edges: a constant input is converted
 * at compile time (f16 -> f32 exactly, f32 -> f16 rounding to nearest
 * even), any other input through a Cast (a COPY task), and an output
 * computed in F32 but stored in F16 through a Cast back.
 *
 *   must_keep_origin_dtype (default): storage = the node's own dtype.
 *     An F16 model rounds every op's result to F16, as PyTorch's half
 *     ops do; an F32 model is untouched.
 *   allow_mix_precision: storage = compute dtype. An F16 model's f32-only
 *     ops keep their F32 results, and everything downstream then
 *     computes in F32 (fewer conversions, more accurate); graph I/O
 *     keeps its dtypes.
 *   force_fp16: storage = F16 for every node not on the keep-list; F32
 *     weights of the f32-only ops are rounded to F16 (and widened again
 *     for the kernel); graph inputs and outputs keep their dtypes.
 *
 * The keep-list (npuc --keep-dtype) names op types or node names; those
 * nodes keep F32 storage and compute in force_fp16.
 *
 * Inputs that ONNX defines as F32 whatever the data's type (Resize's
 * roi/scales), MATMUL_WQ's scales and bias (F32 on the device) and the
 * quantization ops are left alone.
 */
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "ops/npu_math.h"
#include "passes.h"

#define ONNX_T_FLOAT	1
#define ONNX_T_FLOAT16	10

static bool is_float(enum ir_dtype dt)
{
	return dt == IR_F32 || dt == IR_F16;
}

/* Inputs of @n that carry its data (the ones converted). */
static bool data_input(const struct ir_node *n, int i)
{
	switch (n->op) {
	case IR_OP_RESIZE:
	case IR_OP_MATMUL_WQ:
		return i == 0;
	default:
		return true;
	}
}

/* Nodes the pass leaves as they are. */
static bool skipped(enum ir_op op)
{
	switch (op) {
	case IR_OP_QUANTIZE_LINEAR: case IR_OP_DEQUANTIZE_LINEAR:
	case IR_OP_CAST: case IR_OP_CAST_LIKE: case IR_OP_SHAPE:
	case IR_OP_SIZE: case IR_OP_CONSTANT_OF_SHAPE: case IR_OP_RANGE:
	case IR_OP_CONSTANT:
		return true;
	default:
		return false;
	}
}

static bool is_word(const char *s, const char *p, size_t len)
{
	return s && strlen(s) == len && !strncmp(s, p, len);
}

/*
 * On the keep-list: its op type, its name, or one of the ONNX nodes it
 * was made from (a fused Conv+Relu is kept when either is named; fusion
 * runs before this pass).
 */
static bool in_keep_list(const struct ir_graph *g, const struct ir_node *n)
{
	const char *p = g->keep_dtype, *e;
	const char *opn = ir_op_name(n->op);

	while (p && *p) {
		size_t len;

		e = strchr(p, ',');
		len = e ? (size_t)(e - p) : strlen(p);
		if (is_word(opn, p, len) || is_word(n->name, p, len))
			return true;
		for (int k = 0; k < n->num_origins; k++)
			if (is_word(n->origins[k], p, len))
				return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* Memo of conversions made: (source, dtype) -> converted tensor. */
struct conv_memo {
	struct ir_tensor **src, **dst;
	int n, cap;
};

static struct ir_tensor *memo_find(const struct conv_memo *m,
				   const struct ir_tensor *t, enum ir_dtype dt)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (m->src[i] == t && m->dst[i]->dtype == dt)
			return m->dst[i];
	return NULL;
}

static int memo_add(struct conv_memo *m, struct ir_tensor *s,
		    struct ir_tensor *d)
{
	if (m->n == m->cap) {
		int cap = m->cap ? m->cap * 2 : 32;
		void *a = realloc(m->src, (size_t)cap * sizeof(*m->src));
		void *b;

		if (!a)
			return -1;
		m->src = a;
		b = realloc(m->dst, (size_t)cap * sizeof(*m->dst));
		if (!b)
			return -1;
		m->dst = b;
		m->cap = cap;
	}
	m->src[m->n] = s;
	m->dst[m->n++] = d;
	return 0;
}

/*
 * A Cast of @x to @dt writing @out (made when NULL), made for node @for:
 * it carries the provenance of the ONNX node whose value it converts
 * (x's producer; @for's own for a graph input), so that a value that
 * leaves the F16 range there (npu-run --check-overflow) is blamed on an
 * ONNX node, not on a node the compiler made.
 */
static struct ir_tensor *add_cast(struct ir_graph *g, struct ir_tensor *x,
				  enum ir_dtype dt, struct ir_tensor *out,
				  const struct ir_node *for_node,
				  struct pass_stats *st)
{
	const struct ir_node *from = x->producer ? x->producer : for_node;
	struct ir_node *c;
	char name[256];

	if (!out) {
		snprintf(name, sizeof(name), "%s.%s", x->name,
			 dt == IR_F16 ? "f16" : "f32");
		out = ir_tensor_new(g, name, dt, &x->shape);
		if (!out)
			return NULL;
		out->shape_known = x->shape_known;
	}
	snprintf(name, sizeof(name), "precision.cast.%s", out->name);
	c = ir_node_new(g, IR_OP_CAST, name, 1, &x, 1, &out);
	if (!c || ir_attr_set_int(c, "to", dt == IR_F16 ? ONNX_T_FLOAT16 :
				  ONNX_T_FLOAT) ||
	    (from && ir_node_add_origins(c, from)))
		return NULL;
	st->rewritten++;
	return out;
}

/* A constant copy of @t in @dt. */
static struct ir_tensor *convert_const(struct ir_graph *g,
				       const struct ir_tensor *t,
				       enum ir_dtype dt)
{
	int64_t n = ir_tensor_numel(t), i;
	size_t es = dt == IR_F16 ? 2 : 4;
	void *d = malloc(n > 0 ? (size_t)n * es : 1);
	struct ir_tensor *c;
	char name[256];

	if (!d || n < 0) {
		free(d);
		return NULL;
	}
	/* read by memcpy(): a mapped constant is aligned to nothing */
	for (i = 0; i < n; i++) {
		const char *src = (const char *)t->data;

		if (dt == IR_F16) {
			float f;

			memcpy(&f, src + (size_t)i * sizeof(f), sizeof(f));
			((uint16_t *)d)[i] = npu_f32_to_f16(f);
		} else {
			uint16_t h;

			memcpy(&h, src + (size_t)i * sizeof(h), sizeof(h));
			((float *)d)[i] = npu_f16_to_f32(h);
		}
	}
	snprintf(name, sizeof(name), "%s.%s", t->name,
		 dt == IR_F16 ? "f16" : "f32");
	c = ir_const_new(g, name, dt, &t->shape, d, (size_t)n * es);
	free(d);
	if (c)
		c->layout = t->layout;
	return c;
}

/*
 * Inputs to @cd. @round16: F32 constants of a node computing in F32 for
 * F16 storage (force_fp16) are rounded to F16 and widened again, as an
 * F16 weight would be.
 */
static int convert_inputs(struct ir_graph *g, struct ir_node *n,
			  enum ir_dtype cd, bool round16, struct conv_memo *m,
			  struct pass_stats *st)
{
	int i;

	for (i = 0; i < n->num_inputs; i++) {
		struct ir_tensor *x = n->inputs[i], *y, *h;
		bool rnd = round16 && x && x->data && x->dtype == IR_F32 &&
			   cd == IR_F32;

		if (!x || !is_float(x->dtype) || (x->dtype == cd && !rnd) ||
		    !data_input(n, i))
			continue;
		y = memo_find(m, x, cd);
		if (!y && rnd) {
			h = memo_find(m, x, IR_F16);
			if (!h) {
				h = convert_const(g, x, IR_F16);
				if (!h || memo_add(m, x, h))
					return ir_error(g, "out of memory");
			}
			y = convert_const(g, h, IR_F32);
			if (!y || memo_add(m, x, y))
				return ir_error(g, "out of memory");
		} else if (!y) {
			y = x->data ? convert_const(g, x, cd) :
				      add_cast(g, x, cd, NULL, n, st);
			if (!y || memo_add(m, x, y))
				return ir_error(g, "out of memory");
		}
		if (ir_node_set_input(n, i, y))
			return ir_error(g, "out of memory");
	}
	return 0;
}

/*
 * Outputs: computed in @cd, stored in @sd (a graph output in its own
 * dtype). The node writes a new @cd tensor and a Cast makes the stored
 * one where the two differ.
 */
static int convert_outputs(struct ir_graph *g, struct ir_node *n,
			   enum ir_dtype cd, enum ir_dtype sd,
			   struct pass_stats *st)
{
	int i;

	for (i = 0; i < n->num_outputs; i++) {
		struct ir_tensor *t = n->outputs[i], *c;
		char name[256];

		if (!t || !is_float(t->dtype))
			continue;
		if (!t->is_output)
			t->dtype = sd;
		if (t->dtype == cd)
			continue;
		snprintf(name, sizeof(name), "%s.%s", t->name,
			 cd == IR_F16 ? "f16" : "f32");
		c = ir_tensor_new(g, name, cd, &t->shape);
		if (!c)
			return ir_error(g, "out of memory");
		c->shape_known = t->shape_known;
		if (ir_node_set_output(n, i, c) ||
		    !add_cast(g, c, t->dtype, t, n, st))
			return ir_error(g, "out of memory");
	}
	return 0;
}

/* The dtype of @n's float data: its first float data input, or output. */
static enum ir_dtype node_dtype(const struct ir_node *n)
{
	int i;

	for (i = 0; i < n->num_inputs; i++)
		if (n->inputs[i] && data_input(n, i) &&
		    is_float(n->inputs[i]->dtype))
			return n->inputs[i]->dtype;
	for (i = 0; i < n->num_outputs; i++)
		if (n->outputs[i] && is_float(n->outputs[i]->dtype))
			return n->outputs[i]->dtype;
	return IR_DTYPE_INVALID;
}

int pass_precision(struct ir_graph *g, struct pass_stats *st)
{
	struct conv_memo m = { 0 };
	struct ir_node **nodes;
	int i, num = g->num_nodes, err = 0;
	bool any16 = false;

	for (i = 0; i < g->num_tensors; i++)
		if (g->tensors[i] && g->tensors[i]->dtype == IR_F16)
			any16 = true;
	if (!any16 && g->precision != IR_PREC_FP16)
		return 0;	/* an F32 model keeps its dtypes */
	/* the nodes as they are now, in topological order */
	nodes = malloc((size_t)(num ? num : 1) * sizeof(*nodes));
	if (!nodes)
		return ir_error(g, "out of memory");
	memcpy(nodes, g->nodes, (size_t)num * sizeof(*nodes));
	for (i = 0; i < num && !err; i++) {
		struct ir_node *n = nodes[i];
		enum ir_dtype od, sd, cd;

		if (skipped(n->op))
			continue;
		od = node_dtype(n);
		if (!is_float(od))
			continue;
		sd = od;
		if (g->precision == IR_PREC_FP16)
			sd = in_keep_list(g, n) ? IR_F32 : IR_F16;
		cd = emit_node_takes_dtype(n, sd) ? sd : IR_F32;
		if (g->precision == IR_PREC_MIX)
			sd = cd;
		if (n->op == IR_OP_CUSTOM && n->outputs[0] &&
		    is_float(n->outputs[0]->dtype))
			/* a plugin's kernel takes the types its inference
			 * gave: Casts around it, its outputs kept */
			sd = cd = n->outputs[0]->dtype;
		err = convert_inputs(g, n, cd, sd == IR_F16 && cd == IR_F32 &&
				     g->precision == IR_PREC_FP16, &m, st);
		if (!err)
			err = convert_outputs(g, n, cd, sd, st);
	}
	free(nodes);
	free(m.src);
	free(m.dst);
	return err;
}
