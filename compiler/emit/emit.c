// SPDX-License-Identifier: MIT
/*
 * emit.c - one emitter per IR op: node -> struct drm_npu_task list.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "ops/npu_ops.h"

_Static_assert((int)IR_F32 == DRM_NPU_DTYPE_F32 &&
	       (int)IR_BOOL == DRM_NPU_DTYPE_BOOL, "ir dtype != uapi dtype");
_Static_assert((int)IR_LAYOUT_NC1HWC0 == DRM_NPU_LAYOUT_NC1HWC0,
	       "ir layout != uapi layout");
_Static_assert((int)IR_ACT_NOT == DRM_NPU_ACT_NOT &&
	       (int)IR_ACT_GELU_TANH == DRM_NPU_ACT_GELU_TANH,
	       "ir act != uapi act");

struct ectx {
	struct ir_graph *g;
	const struct ir_node *n;
	const struct emit_target *tgt;
	struct emit_tasks *out;
};

static int eerr(struct ectx *e, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int eerr(struct ectx *e, int ret, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ir_error(e->g, "node '%s' (%s): cannot emit: %s", e->n->name,
		 ir_op_name(e->n->op), msg);
	return ret;
}

uint32_t emit_f32_bits(float v)
{
	uint32_t b;

	memcpy(&b, &v, 4);
	return b;
}

unsigned int emit_c0(enum ir_dtype dt)
{
	return ir_dtype_size(dt) == 1 ? 32 : 16;
}

size_t emit_tensor_bytes(const struct ir_tensor *t)
{
	int64_t n = ir_tensor_numel(t);

	if (n < 0)
		return 0;
	if (t->layout == IR_LAYOUT_NC1HWC0 && t->shape.rank == 4) {
		int64_t c0 = emit_c0(t->dtype);
		int64_t c1 = (t->shape.dim[1] + c0 - 1) / c0;

		n = t->shape.dim[0] * c1 * t->shape.dim[2] * t->shape.dim[3] *
		    c0;
	}
	return (size_t)n * ir_dtype_size(t->dtype);
}

void emit_tasks_free(struct emit_tasks *l)
{
	free(l->tasks);
	l->tasks = NULL;
	l->count = l->cap = 0;
}

static struct drm_npu_task *new_task(struct ectx *e, uint16_t opcode)
{
	struct emit_tasks *l = e->out;
	struct drm_npu_task *t;

	if (l->count == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 8;
		struct drm_npu_task *p = realloc(l->tasks, ncap * sizeof(*p));

		if (!p)
			return NULL;
		l->tasks = p;
		l->cap = ncap;
	}
	t = &l->tasks[l->count++];
	memset(t, 0, sizeof(*t));
	t->opcode = opcode;
	return t;
}

/* --- operands ------------------------------------------------------------- */

/*
 * A view of @t's storage: @rank dims @dims (element counts), dense strides
 * over them unless @strides is given, starting @elem_off elements in.
 */
static int view(struct ectx *e, const struct ir_tensor *t, int rank,
		const int64_t *dims, const int64_t *strides, int64_t elem_off,
		struct drm_npu_operand *o)
{
	struct emit_place pl;
	int64_t st = 1;
	int i, err;

	if (rank > DRM_NPU_MAX_RANK)
		return eerr(e, -ENOTSUP, "tensor '%s' has rank %d, the device "
			    "takes at most %d", t->name, rank,
			    DRM_NPU_MAX_RANK);
	err = e->tgt->place(e->tgt->ctx, t, &pl);
	if (err)
		return eerr(e, err, "no place for tensor '%s'", t->name);
	memset(o, 0, sizeof(*o));
	o->slot = pl.slot;
	o->dtype = (uint8_t)t->dtype;
	o->layout = (uint8_t)t->layout;
	o->rank = (uint8_t)rank;
	o->offset = pl.offset + (uint64_t)elem_off * ir_dtype_size(t->dtype);
	for (i = rank - 1; i >= 0; i--) {
		if (dims[i] < 0 || dims[i] > UINT32_MAX)
			return eerr(e, -ENOTSUP, "tensor '%s' dim %d (%lld) "
				    "does not fit the device", t->name, i,
				    (long long)dims[i]);
		o->shape[i] = (uint32_t)dims[i];
		o->strides[i] = (uint32_t)(strides ? strides[i] : st);
		st *= dims[i] ? dims[i] : 1;
	}
	if (t->layout != IR_LAYOUT_NC1HWC0 && rank != 4 &&
	    t->layout != IR_LAYOUT_ND)
		o->layout = DRM_NPU_LAYOUT_ND;
	if (e->tgt->note)
		e->tgt->note(e->tgt->ctx, t, o);
	return 0;
}

/* The whole of @t, dense in its layout. */
static int whole(struct ectx *e, const struct ir_tensor *t,
		 struct drm_npu_operand *o)
{
	if (t->layout == IR_LAYOUT_NC1HWC0) {
		int64_t c0 = emit_c0(t->dtype), d[5];

		if (t->shape.rank != 4)
			return eerr(e, -EINVAL, "NC1HWC0 tensor '%s' is not "
				    "4-D", t->name);
		d[0] = t->shape.dim[0];
		d[1] = (t->shape.dim[1] + c0 - 1) / c0;
		d[2] = t->shape.dim[2];
		d[3] = t->shape.dim[3];
		d[4] = c0;
		return view(e, t, 5, d, NULL, 0, o);
	}
	return view(e, t, t->shape.rank, t->shape.dim, NULL, 0, o);
}

static void dense_strides(const struct ir_shape *s, int64_t *st)
{
	int64_t v = 1;
	int i;

	for (i = s->rank - 1; i >= 0; i--) {
		st[i] = v;
		v *= s->dim[i] ? s->dim[i] : 1;
	}
}

static void set_act(struct drm_npu_act_params *p, const struct ir_act *a)
{
	memset(p, 0, sizeof(*p));
	p->kind = a->kind;
	switch (a->kind) {
	case IR_ACT_CLIP: case IR_ACT_HARDSIGMOID:
		p->alpha = emit_f32_bits(a->alpha);
		p->beta = emit_f32_bits(a->beta);
		break;
	case IR_ACT_LEAKY_RELU: case IR_ACT_ELU:
		p->alpha = emit_f32_bits(a->alpha);
		break;
	default:
		break;
	}
}

static const struct ir_tensor *in(struct ectx *e, int i)
{
	return ir_in(e->n, i);
}

static const struct ir_tensor *out0(struct ectx *e)
{
	return e->n->outputs[0];
}

/* --- elementwise ---------------------------------------------------------- */

static int binary_kind(enum ir_op op)
{
	switch (op) {
	case IR_OP_ADD: return DRM_NPU_BINARY_ADD;
	case IR_OP_SUB: return DRM_NPU_BINARY_SUB;
	case IR_OP_MUL: return DRM_NPU_BINARY_MUL;
	case IR_OP_DIV: return DRM_NPU_BINARY_DIV;
	case IR_OP_MAX: return DRM_NPU_BINARY_MAX;
	case IR_OP_MIN: return DRM_NPU_BINARY_MIN;
	case IR_OP_POW: return DRM_NPU_BINARY_POW;
	case IR_OP_PRELU: return DRM_NPU_BINARY_PRELU;
	case IR_OP_EQUAL: return DRM_NPU_BINARY_EQUAL;
	case IR_OP_LESS: return DRM_NPU_BINARY_LESS;
	case IR_OP_GREATER: return DRM_NPU_BINARY_GREATER;
	case IR_OP_SUM: return DRM_NPU_BINARY_ADD;
	case IR_OP_AND: return DRM_NPU_BINARY_MIN;	/* on bool */
	case IR_OP_OR: return DRM_NPU_BINARY_MAX;	/* on bool */
	case IR_OP_XOR: return DRM_NPU_BINARY_EQUAL;	/* then NOT */
	case IR_OP_GREATER_OR_EQUAL: return DRM_NPU_BINARY_LESS; /* then NOT */
	case IR_OP_LESS_OR_EQUAL: return DRM_NPU_BINARY_GREATER; /* then NOT */
	default: return -1;
	}
}

static int emit_binary_task(struct ectx *e, int kind,
			    const struct ir_tensor *a,
			    const struct ir_tensor *b,
			    const struct ir_tensor *o,
			    const struct ir_act *act)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_BINARY);
	int err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 3;
	t->params.binary.kind = (uint32_t)kind;
	set_act(&t->params.binary.act, act);
	err = whole(e, a, &t->operands[0]);
	if (!err)
		err = whole(e, b, &t->operands[1]);
	if (!err)
		err = whole(e, o, &t->operands[2]);
	return err;
}

/* A residual Add (trailing input) applied in place after the main op. */
static int emit_residual(struct ectx *e, const struct ir_act *act)
{
	const struct ir_tensor *r = in(e, e->n->num_inputs - 1);

	return emit_binary_task(e, DRM_NPU_BINARY_ADD, out0(e), r, out0(e),
				act);
}

static int emit_binary(struct ectx *e)
{
	const struct ir_node *n = e->n;
	struct ir_act none = { 0 };
	int kind = binary_kind(n->op), last = n->num_inputs, i, err;

	if (n->has_residual)
		last--;
	if (last < 2)
		return eerr(e, -EINVAL, "needs two operands");
	if (in(e, 0)->dtype != in(e, 1)->dtype && n->op != IR_OP_PRELU)
		return eerr(e, -ENOTSUP, "operand dtypes %s and %s differ",
			    ir_dtype_name(in(e, 0)->dtype),
			    ir_dtype_name(in(e, 1)->dtype));
	/* variadic Max/Min: fold pairwise into the output */
	err = emit_binary_task(e, kind, in(e, 0), in(e, 1), out0(e),
			       last == 2 && !n->has_residual ? &n->act : &none);
	for (i = 2; !err && i < last; i++)
		err = emit_binary_task(e, kind, out0(e), in(e, i), out0(e),
				       i == last - 1 && !n->has_residual ?
				       &n->act : &none);
	if (!err && n->has_residual)
		err = emit_residual(e, &n->act);
	/*
	 * Xor = !(a == b); a >= b = !(a < b); a <= b = !(a > b) (the latter
	 * two differ from IEEE only for NaN operands).
	 */
	if (!err && (n->op == IR_OP_XOR || n->op == IR_OP_GREATER_OR_EQUAL ||
		     n->op == IR_OP_LESS_OR_EQUAL)) {
		struct drm_npu_task *t = new_task(e, DRM_NPU_OP_UNARY);

		if (!t)
			return -ENOMEM;
		t->num_operands = 2;
		t->params.unary.kind = DRM_NPU_ACT_NOT;
		err = whole(e, out0(e), &t->operands[0]);
		if (!err)
			err = whole(e, out0(e), &t->operands[1]);
	}
	return err;
}

static int emit_unary_act(struct ectx *e, const struct ir_act *act)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_UNARY);
	int err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 2;
	set_act(&t->params.unary, act);
	err = whole(e, in(e, 0), &t->operands[0]);
	return err ? err : whole(e, out0(e), &t->operands[1]);
}

/* Bound of Clip from input @i or attribute @attr; @def if none. */
static float clip_bound(struct ectx *e, int i, const char *attr, float def)
{
	const struct ir_tensor *t = in(e, i);

	if (e->n->opset < 11)
		return ir_attr_float(e->n, attr, def);
	if (t && t->data)
		return (float)ir_const_get_f(t, 0);
	return def;
}

static int emit_unary(struct ectx *e)
{
	const struct ir_node *n = e->n;
	struct ir_act a = { 0 };

	switch (n->op) {
	case IR_OP_RELU: a.kind = IR_ACT_RELU; break;
	case IR_OP_SIGMOID: a.kind = IR_ACT_SIGMOID; break;
	case IR_OP_TANH: a.kind = IR_ACT_TANH; break;
	case IR_OP_EXP: a.kind = IR_ACT_EXP; break;
	case IR_OP_SQRT: a.kind = IR_ACT_SQRT; break;
	case IR_OP_ERF: a.kind = IR_ACT_ERF; break;
	case IR_OP_NEG: a.kind = IR_ACT_NEG; break;
	case IR_OP_ABS: a.kind = IR_ACT_ABS; break;
	case IR_OP_LOG: a.kind = IR_ACT_LOG; break;
	case IR_OP_RECIPROCAL: a.kind = IR_ACT_RECIPROCAL; break;
	case IR_OP_SOFTPLUS: a.kind = IR_ACT_SOFTPLUS; break;
	case IR_OP_FLOOR: a.kind = IR_ACT_FLOOR; break;
	case IR_OP_CEIL: a.kind = IR_ACT_CEIL; break;
	case IR_OP_NOT: a.kind = IR_ACT_NOT; break;
	case IR_OP_HARD_SWISH: a.kind = IR_ACT_HARDSWISH; break;
	case IR_OP_LEAKY_RELU:
		a.kind = IR_ACT_LEAKY_RELU;
		a.alpha = ir_attr_float(n, "alpha", 0.01f);
		break;
	case IR_OP_ELU:
		a.kind = IR_ACT_ELU;
		a.alpha = ir_attr_float(n, "alpha", 1.0f);
		break;
	case IR_OP_HARD_SIGMOID:
		a.kind = IR_ACT_HARDSIGMOID;
		a.alpha = ir_attr_float(n, "alpha", 0.2f);
		a.beta = ir_attr_float(n, "beta", 0.5f);
		break;
	case IR_OP_CLIP:
		if ((ir_in(n, 1) && !ir_in(n, 1)->data) ||
		    (ir_in(n, 2) && !ir_in(n, 2)->data))
			return eerr(e, -ENOTSUP, "min/max must be constants");
		a.kind = IR_ACT_CLIP;
		a.alpha = clip_bound(e, 1, "min", -INFINITY);
		a.beta = clip_bound(e, 2, "max", INFINITY);
		break;
	case IR_OP_GELU:
		a.kind = strcmp(ir_attr_str(n, "approximate", "none"), "tanh") ?
			 IR_ACT_GELU : IR_ACT_GELU_TANH;
		break;
	case IR_OP_ACTIVATION:
		a = n->act;
		return emit_unary_act(e, &a);
	default:
		return eerr(e, -EINVAL, "not a unary op");
	}
	return emit_unary_act(e, &a);
}

/* COPY of a view of @src into a view of @dst. */
static int emit_copy(struct ectx *e, const struct ir_tensor *src, int rank,
		     const int64_t *dims, const int64_t *sst, int64_t soff,
		     const struct ir_tensor *dst, const int64_t *dst_st,
		     int64_t doff)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_COPY);
	int err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 2;
	err = view(e, src, rank, dims, sst, soff, &t->operands[0]);
	if (!err)
		err = view(e, dst, rank, dims, dst_st, doff, &t->operands[1]);
	return err;
}

static int emit_cast(struct ectx *e)
{
	const struct ir_tensor *x = in(e, 0), *o = out0(e);
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_COPY);
	int err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 2;
	err = whole(e, x, &t->operands[0]);
	return err ? err : whole(e, o, &t->operands[1]);
}

static int emit_expand(struct ectx *e)
{
	return emit_cast(e);	/* COPY broadcasts by shape */
}

static int emit_transpose(struct ectx *e)
{
	const struct ir_tensor *x = in(e, 0), *o = out0(e);
	int64_t perm[IR_MAX_RANK], xs[IR_MAX_RANK], sst[IR_MAX_RANK];
	int np = 0, i, r = x->shape.rank;
	const int64_t *p;

	np = ir_attr_ints(e->n, "perm", &p);
	for (i = 0; i < r; i++)
		perm[i] = np ? p[i] : r - 1 - i;
	dense_strides(&x->shape, xs);
	for (i = 0; i < r; i++)
		sst[i] = xs[perm[i]];
	return emit_copy(e, x, r, o->shape.dim, sst, 0, o, NULL, 0);
}

static int emit_slice(struct ectx *e)
{
	const struct ir_tensor *x = in(e, 0), *o = out0(e);
	const int64_t *begin, *step;
	int64_t xs[IR_MAX_RANK], sst[IR_MAX_RANK], off = 0;
	int i, r = x->shape.rank;

	if (ir_attr_ints(e->n, "npu_begin", &begin) != r ||
	    ir_attr_ints(e->n, "npu_step", &step) != r)
		return eerr(e, -EINVAL, "run shape inference first");
	dense_strides(&x->shape, xs);
	for (i = 0; i < r; i++) {
		if (step[i] < 0)
			return eerr(e, -ENOTSUP, "negative slice steps are "
				    "not supported by strided copies");
		sst[i] = xs[i] * step[i];
		off += begin[i] * xs[i];
	}
	if (!ir_shape_numel(&o->shape))
		return 0;
	return emit_copy(e, x, r, o->shape.dim, sst, off, o, NULL, 0);
}

/*
 * A channel Concat in NC1HWC0 (the layout pass took it into a region only
 * when every input but the last fills whole C0 blocks): each input, whole
 * with its padding channels, is a run of the output's C1 blocks.
 */
static int emit_concat_5hd(struct ectx *e)
{
	const struct ir_tensor *o = out0(e);
	int64_t c0 = emit_c0(o->dtype), od[5], ost[5], xd[5], pos = 0;
	struct ir_shape s5;
	int i, err;

	od[0] = o->shape.dim[0];
	od[1] = (o->shape.dim[1] + c0 - 1) / c0;
	od[2] = o->shape.dim[2];
	od[3] = o->shape.dim[3];
	od[4] = c0;
	s5.rank = 5;
	memcpy(s5.dim, od, sizeof(od));
	dense_strides(&s5, ost);
	for (i = 0; i < e->n->num_inputs; i++) {
		const struct ir_tensor *x = in(e, i);

		if (x->layout != IR_LAYOUT_NC1HWC0 || pos % c0)
			return eerr(e, -EINVAL, "Concat '%s': input %d is not "
				    "whole C0 blocks of NC1HWC0 (the layout "
				    "pass should not have chosen NC1HWC0 here: "
				    "a compiler bug; --disable-pass="
				    "layout-nc1hwc0 avoids it)", e->n->name, i);
		memcpy(xd, od, sizeof(xd));
		xd[1] = (x->shape.dim[1] + c0 - 1) / c0;
		if (x->shape.dim[1]) {
			/*
			 * Per image the input's C1 blocks are one contiguous
			 * run in both: a COPY of [N, C1x H W C0] rows (one
			 * unit per image, not one per pixel).
			 */
			int64_t d2[2] = { xd[0], xd[1] * ost[1] };
			int64_t s2[2] = { d2[1], 1 }, o2[2] = { ost[0], 1 };
			struct drm_npu_task *t;

			err = emit_copy(e, x, 2, d2, s2, 0, o, o2,
					pos / c0 * ost[1]);
			if (err)
				return err;
			t = &e->out->tasks[e->out->count - 1];
			t->operands[0].layout = DRM_NPU_LAYOUT_ND;
			t->operands[1].layout = DRM_NPU_LAYOUT_ND;
		}
		pos += x->shape.dim[1];
	}
	return 0;
}

static int emit_concat(struct ectx *e)
{
	const struct ir_tensor *o = out0(e);
	int axis = (int)ir_attr_int(e->n, "axis", 0), i, err;
	int64_t ost[IR_MAX_RANK], pos = 0;

	if (o->layout == IR_LAYOUT_NC1HWC0)
		return emit_concat_5hd(e);
	if (axis < 0)
		axis += o->shape.rank;
	dense_strides(&o->shape, ost);
	for (i = 0; i < e->n->num_inputs; i++) {
		const struct ir_tensor *x = in(e, i);

		if (!x)
			continue;
		if (x->shape.dim[axis]) {
			err = emit_copy(e, x, x->shape.rank, x->shape.dim,
					NULL, 0, o, ost, pos * ost[axis]);
			if (err)
				return err;
		}
		pos += x->shape.dim[axis];
	}
	return 0;
}

static int emit_split(struct ectx *e)
{
	const struct ir_tensor *x = in(e, 0);
	int axis = (int)ir_attr_int(e->n, "axis", 0), i, err;
	int64_t xs[IR_MAX_RANK], pos = 0;

	if (axis < 0)
		axis += x->shape.rank;
	dense_strides(&x->shape, xs);
	for (i = 0; i < e->n->num_outputs; i++) {
		const struct ir_tensor *o = e->n->outputs[i];

		if (!o)
			continue;
		if (o->shape.dim[axis] && (o->num_uses || o->is_output)) {
			err = emit_copy(e, x, o->shape.rank, o->shape.dim, xs,
					pos * xs[axis], o, NULL, 0);
			if (err)
				return err;
		}
		pos += o->shape.dim[axis];
	}
	return 0;
}

static int emit_where(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_WHERE);
	int i, err = 0;

	if (!t)
		return -ENOMEM;
	t->num_operands = 4;
	for (i = 0; i < 3 && !err; i++)
		err = whole(e, in(e, i), &t->operands[i]);
	return err ? err : whole(e, out0(e), &t->operands[3]);
}

static int emit_gather(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_GATHER);
	int axis = (int)ir_attr_int(e->n, "axis", 0), err;

	if (!t)
		return -ENOMEM;
	if (axis < 0)
		axis += in(e, 0)->shape.rank;
	t->num_operands = 3;
	t->params.gather.axis = (uint32_t)axis;
	err = whole(e, in(e, 0), &t->operands[0]);
	if (!err)
		err = whole(e, in(e, 1), &t->operands[1]);
	return err ? err : whole(e, out0(e), &t->operands[2]);
}

/* --- compute -------------------------------------------------------------- */

static int emit_conv(struct ectx *e)
{
	const struct ir_node *n = e->n;
	const struct ir_tensor *bias = in(e, 2);
	struct drm_npu_task *t;
	const int64_t *v;
	struct ir_act none = { 0 };
	const struct ir_tensor *res = NULL;
	int err, k = 0;

	if (n->has_residual && n->num_inputs == 4)
		;	/* X, W, B, residual */
	else if (n->has_residual && n->num_inputs == 3)
		bias = NULL;
	/*
	 * The residual Add in the task's store (uapi 1.7) when it is read at
	 * the output's offsets: same shape, dtype and layout, both dense.
	 * Otherwise a BINARY after the CONV2D (emit_residual()).
	 */
	if (n->has_residual) {
		const struct ir_tensor *r = in(e, n->num_inputs - 1);

		if (r->dtype == out0(e)->dtype &&
		    r->layout == out0(e)->layout &&
		    ir_shape_equal(&r->shape, &out0(e)->shape))
			res = r;
	}
	t = new_task(e, DRM_NPU_OP_CONV2D);
	if (!t)
		return -ENOMEM;
	t->params.conv2d.groups = (uint32_t)ir_attr_int(n, "group", 1);
	t->params.conv2d.stride_h = t->params.conv2d.stride_w = 1;
	t->params.conv2d.dilation_h = t->params.conv2d.dilation_w = 1;
	if (ir_attr_ints(n, "strides", &v) == 2) {
		t->params.conv2d.stride_h = (uint32_t)v[0];
		t->params.conv2d.stride_w = (uint32_t)v[1];
	}
	if (ir_attr_ints(n, "dilations", &v) == 2) {
		t->params.conv2d.dilation_h = (uint32_t)v[0];
		t->params.conv2d.dilation_w = (uint32_t)v[1];
	}
	if (ir_attr_ints(n, "pads", &v) == 4) {
		t->params.conv2d.pad_top = (uint32_t)v[0];
		t->params.conv2d.pad_left = (uint32_t)v[1];
		t->params.conv2d.pad_bottom = (uint32_t)v[2];
		t->params.conv2d.pad_right = (uint32_t)v[3];
	}
	set_act(&t->params.conv2d.act, n->has_residual && !res ? &none :
		&n->act);
	err = whole(e, in(e, 0), &t->operands[k++]);
	if (!err && in(e, 1)->w_olast && in(e, 1)->shape.rank == 4) {
		/* stored [C][KH][KW][O]: strides of that order */
		const int64_t *d = in(e, 1)->shape.dim;
		int64_t st[4] = { 1, d[2] * d[3] * d[0], d[3] * d[0], d[0] };

		err = view(e, in(e, 1), 4, d, st, 0, &t->operands[k++]);
	} else if (!err) {
		err = whole(e, in(e, 1), &t->operands[k++]);
	}
	if (!err && bias) {
		t->params.conv2d.flags = DRM_NPU_CONV_HAS_BIAS;
		err = whole(e, bias, &t->operands[k++]);
	}
	if (!err && res) {
		t->params.conv2d.flags |= DRM_NPU_CONV_HAS_RESIDUAL;
		err = whole(e, res, &t->operands[k++]);
	}
	if (!err)
		err = whole(e, out0(e), &t->operands[k++]);
	t->num_operands = (uint8_t)k;
	if (!err && n->has_residual && !res)
		err = emit_residual(e, &n->act);
	return err;
}

int emit_matmul_shape(const struct ir_node *n, struct ir_shape *out)
{
	const struct ir_tensor *a = ir_in(n, 0), *b = ir_in(n, 1);
	const struct ir_tensor *o = n->outputs[0];

	*out = o->shape;
	if (!a || !b)
		return -EINVAL;
	/* numpy 1-D cases: [K] is [1, K] as A and [K, 1] as B */
	if (a->shape.rank == 1 && b->shape.rank == 1) {
		out->dim[0] = out->dim[1] = 1;
		out->rank = 2;
	} else if (a->shape.rank == 1) {
		if (out->rank >= IR_MAX_RANK || out->rank < 1)
			return -ENOTSUP;
		out->dim[out->rank] = out->dim[out->rank - 1];
		out->dim[out->rank - 1] = 1;
		out->rank++;
	} else if (b->shape.rank == 1) {
		if (out->rank >= IR_MAX_RANK)
			return -ENOTSUP;
		out->dim[out->rank++] = 1;
	}
	return 0;
}

/* Gemm, and MatMul (whose optional input 2 is a fused bias). */
static int emit_matmul(struct ectx *e)
{
	const struct ir_node *n = e->n;
	const struct ir_tensor *a = in(e, 0), *b = in(e, 1), *c = in(e, 2);
	const struct ir_tensor *o = out0(e);
	struct drm_npu_task *t;
	struct ir_act none = { 0 };
	int64_t ad[2], bd[2], od[IR_MAX_RANK];
	struct ir_shape os;
	float beta = 1.0f;
	int err, k = 0, orank;

	if (n->has_residual && c == in(e, n->num_inputs - 1))
		c = NULL;
	if (n->op == IR_OP_GEMM) {
		beta = ir_attr_float(n, "beta", 1.0f);
		if (beta == 0.0f)
			c = NULL;
	}
	t = new_task(e, DRM_NPU_OP_MATMUL);
	if (!t)
		return -ENOMEM;
	t->params.matmul.alpha = emit_f32_bits(n->op == IR_OP_GEMM ?
				 ir_attr_float(n, "alpha", 1.0f) : 1.0f);
	if (n->op == IR_OP_GEMM) {
		if (ir_attr_int(n, "transA", 0))
			t->params.matmul.flags |= DRM_NPU_MATMUL_TRANS_A;
		if (ir_attr_int(n, "transB", 0))
			t->params.matmul.flags |= DRM_NPU_MATMUL_TRANS_B;
	}
	set_act(&t->params.matmul.act, n->has_residual ? &none : &n->act);
	if (emit_matmul_shape(n, &os))
		return eerr(e, -ENOTSUP, "rank too large");
	orank = os.rank;
	memcpy(od, os.dim, sizeof(od));
	ad[0] = 1;
	ad[1] = a->shape.dim[0];
	bd[0] = b->shape.dim[0];
	bd[1] = 1;
	if (a->shape.rank == 1)
		err = view(e, a, 2, ad, NULL, 0, &t->operands[k++]);
	else
		err = whole(e, a, &t->operands[k++]);
	if (!err && b->shape.rank == 1)
		err = view(e, b, 2, bd, NULL, 0, &t->operands[k++]);
	else if (!err)
		err = whole(e, b, &t->operands[k++]);
	if (!err && c) {
		t->params.matmul.flags |= DRM_NPU_MATMUL_HAS_BIAS;
		t->params.matmul.beta = emit_f32_bits(beta);
		err = whole(e, c, &t->operands[k++]);
	}
	if (!err)
		err = view(e, o, orank, od, NULL, 0, &t->operands[k++]);
	t->num_operands = (uint8_t)k;
	if (!err && n->has_residual)
		err = emit_residual(e, &n->act);
	return err;
}

/*
 * npu.MatMulWQ -> MATMUL_WQ: w is I8 [K, N], or int4 stored as U8
 * [K, ceil(N / 2)] bytes (two values a byte, low nibble first, each row
 * starting on a byte) that the task views as I4 [K, N] with a row stride
 * of 2 * ceil(N / 2) nibbles.
 */
static int emit_matmul_wq(struct ectx *e)
{
	const struct ir_node *n = e->n;
	const struct ir_tensor *a = in(e, 0), *w = in(e, 1), *s = in(e, 2);
	const struct ir_tensor *c = in(e, 3);
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_MATMUL_WQ);
	int64_t bits = ir_attr_int(n, "bits", 8);
	int64_t nn = ir_attr_int(n, "n", 0), gs = ir_attr_int(n, "group_size", 0);
	struct drm_npu_operand *wo;
	int err, k = 0;

	if (!t)
		return -ENOMEM;
	if (gs < 1 || gs > UINT32_MAX || w->shape.rank != 2 ||
	    (bits != 4 && bits != 8))
		return eerr(e, -EINVAL, "malformed weight-only product");
	t->params.matmul_wq.group_size = (uint32_t)gs;
	set_act(&t->params.matmul_wq.act, &n->act);
	err = whole(e, a, &t->operands[k++]);
	wo = &t->operands[k];
	if (!err)
		err = whole(e, w, &t->operands[k++]);
	if (!err && bits == 4) {
		if ((w->shape.dim[1] * 2 != nn && w->shape.dim[1] * 2 != nn + 1) ||
		    nn > UINT32_MAX)
			return eerr(e, -EINVAL, "int4 weights: %lld byte "
				    "columns for N = %lld", (long long)
				    w->shape.dim[1], (long long)nn);
		wo->dtype = DRM_NPU_DTYPE_I4;
		wo->shape[1] = (uint32_t)nn;
		wo->strides[0] = (uint32_t)(w->shape.dim[1] * 2);
	}
	if (!err)
		err = whole(e, s, &t->operands[k++]);
	if (!err && c) {
		t->params.matmul_wq.flags |= DRM_NPU_MATMUL_HAS_BIAS;
		err = whole(e, c, &t->operands[k++]);
	}
	if (!err)
		err = whole(e, out0(e), &t->operands[k++]);
	t->num_operands = (uint8_t)k;
	return err;
}

static int emit_pool(struct ectx *e)
{
	const struct ir_node *n = e->n;
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_POOL2D);
	struct drm_npu_pool2d_params *p;
	const int64_t *v;
	int err;

	if (!t)
		return -ENOMEM;
	p = &t->params.pool2d;
	t->num_operands = 2;
	switch (n->op) {
	case IR_OP_GLOBAL_AVERAGE_POOL: p->kind = DRM_NPU_POOL_GLOBAL_AVG;
		break;
	case IR_OP_GLOBAL_MAX_POOL: p->kind = DRM_NPU_POOL_GLOBAL_MAX; break;
	case IR_OP_MAX_POOL: p->kind = DRM_NPU_POOL_MAX; break;
	default:
		p->kind = DRM_NPU_POOL_AVG;
		if (ir_attr_int(n, "count_include_pad", 0))
			p->flags = DRM_NPU_POOL_COUNT_INCLUDE_PAD;
	}
	if (p->kind == DRM_NPU_POOL_MAX || p->kind == DRM_NPU_POOL_AVG) {
		ir_attr_ints(n, "kernel_shape", &v);
		p->kernel_h = (uint32_t)v[0];
		p->kernel_w = (uint32_t)v[1];
		p->stride_h = p->stride_w = 1;
		p->dilation_h = p->dilation_w = 1;
		if (ir_attr_ints(n, "strides", &v) == 2) {
			p->stride_h = (uint32_t)v[0];
			p->stride_w = (uint32_t)v[1];
		}
		if (ir_attr_ints(n, "dilations", &v) == 2) {
			p->dilation_h = (uint32_t)v[0];
			p->dilation_w = (uint32_t)v[1];
		}
		if (ir_attr_ints(n, "pads", &v) == 4) {
			p->pad_top = (uint32_t)v[0];
			p->pad_left = (uint32_t)v[1];
			p->pad_bottom = (uint32_t)v[2];
			p->pad_right = (uint32_t)v[3];
		}
	}
	err = whole(e, in(e, 0), &t->operands[0]);
	return err ? err : whole(e, out0(e), &t->operands[1]);
}

static int emit_batchnorm(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_BATCHNORM);
	int i, err = 0;

	if (!t)
		return -ENOMEM;
	t->num_operands = 6;
	t->params.norm.epsilon =
		emit_f32_bits(ir_attr_float(e->n, "epsilon", 1e-5f));
	for (i = 0; i < 5 && !err; i++)
		err = whole(e, in(e, i), &t->operands[i]);
	return err ? err : whole(e, out0(e), &t->operands[5]);
}

static int emit_layernorm(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_LAYERNORM);
	int axis = (int)ir_attr_int(e->n, "axis", -1), err, k = 0;

	if (!t)
		return -ENOMEM;
	if (axis < 0)
		axis += in(e, 0)->shape.rank;
	t->params.norm.axis = (uint32_t)axis;
	t->params.norm.epsilon =
		emit_f32_bits(ir_attr_float(e->n, "epsilon", 1e-5f));
	err = whole(e, in(e, 0), &t->operands[k++]);
	if (!err)
		err = whole(e, in(e, 1), &t->operands[k++]);
	if (!err && in(e, 2)) {
		t->params.norm.flags = DRM_NPU_NORM_HAS_BIAS;
		err = whole(e, in(e, 2), &t->operands[k++]);
	}
	if (!err)
		err = whole(e, out0(e), &t->operands[k++]);
	t->num_operands = (uint8_t)k;
	return err;
}

static int emit_softmax(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_SOFTMAX);
	const struct ir_tensor *x = in(e, 0);
	int64_t axis = ir_attr_int(e->n, "axis", e->n->opset >= 13 ? -1 : 1);
	int64_t d[2];
	int err;

	if (!t)
		return -ENOMEM;
	if (axis < 0)
		axis += x->shape.rank;
	t->num_operands = 2;
	if (e->n->op == IR_OP_LOG_SOFTMAX)
		t->params.softmax.flags = DRM_NPU_SOFTMAX_LOG;
	if (e->n->opset < 13) {
		/* old semantics: softmax over the flattened [axis:] */
		d[0] = ir_shape_numel(&x->shape);
		d[1] = 1;
		for (int i = (int)axis; i < x->shape.rank; i++)
			d[1] *= x->shape.dim[i];
		d[0] = d[1] ? d[0] / d[1] : 0;
		t->params.softmax.axis = 1;
		err = view(e, x, 2, d, NULL, 0, &t->operands[0]);
		return err ? err : view(e, out0(e), 2, d, NULL, 0,
					&t->operands[1]);
	}
	t->params.softmax.axis = (uint32_t)axis;
	err = whole(e, x, &t->operands[0]);
	return err ? err : whole(e, out0(e), &t->operands[1]);
}

static int emit_reduce(struct ectx *e)
{
	const struct ir_tensor *x = in(e, 0), *o = out0(e);
	struct drm_npu_task *t;
	int64_t axes[IR_MAX_RANK], od[IR_MAX_RANK];
	const int64_t *av;
	uint32_t mask = 0;
	int na = 0, i;

	if (ir_in(e->n, 1)) {
		const struct ir_tensor *a = ir_in(e->n, 1);

		if (!a->data)
			return eerr(e, -ENOTSUP, "axes must be constant");
		na = (int)ir_tensor_numel(a);
		for (i = 0; i < na && i < IR_MAX_RANK; i++)
			axes[i] = ir_const_get_i(a, i);
	} else {
		na = ir_attr_ints(e->n, "axes", &av);
		for (i = 0; i < na && i < IR_MAX_RANK; i++)
			axes[i] = av[i];
	}
	if (!na && ir_attr_int(e->n, "noop_with_empty_axes", 0))
		return emit_cast(e);
	for (i = 0; i < na; i++)
		mask |= 1u << (axes[i] < 0 ? axes[i] + x->shape.rank : axes[i]);
	if (!na)
		mask = (1u << x->shape.rank) - 1;
	t = new_task(e, DRM_NPU_OP_REDUCE);
	if (!t)
		return -ENOMEM;
	t->num_operands = 2;
	switch (e->n->op) {
	case IR_OP_REDUCE_SUM: t->params.reduce.kind = DRM_NPU_REDUCE_SUM;
		break;
	case IR_OP_REDUCE_MEAN: t->params.reduce.kind = DRM_NPU_REDUCE_MEAN;
		break;
	case IR_OP_REDUCE_MAX: t->params.reduce.kind = DRM_NPU_REDUCE_MAX;
		break;
	case IR_OP_REDUCE_MIN: t->params.reduce.kind = DRM_NPU_REDUCE_MIN;
		break;
	case IR_OP_REDUCE_PROD: t->params.reduce.kind = DRM_NPU_REDUCE_PROD;
		break;
	default: t->params.reduce.kind = DRM_NPU_REDUCE_SUM_SQUARE;
	}
	t->params.reduce.axes = mask;
	/* the output keeps the rank (keepdims=0 only drops 1-dims) */
	for (i = 0; i < x->shape.rank; i++)
		od[i] = (mask >> i) & 1 ? 1 : x->shape.dim[i];
	if (whole(e, x, &t->operands[0]))
		return -EINVAL;
	return view(e, o, x->shape.rank, od, NULL, 0, &t->operands[1]);
}

static int emit_pad(struct ectx *e)
{
	const struct ir_tensor *x = in(e, 0);
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_PAD);
	const char *mode = ir_attr_str(e->n, "mode", "constant");
	int64_t p[2 * IR_MAX_RANK];
	const int64_t *pv;
	int i, np, err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 2;
	if (e->n->opset >= 11) {
		const struct ir_tensor *pt = ir_in(e->n, 1);

		if (!pt || !pt->data)
			return eerr(e, -ENOTSUP, "pads must be constant");
		np = (int)ir_tensor_numel(pt);
		for (i = 0; i < np && i < 2 * IR_MAX_RANK; i++)
			p[i] = ir_const_get_i(pt, i);
		if (ir_in(e->n, 2) && ir_in(e->n, 2)->data)
			t->params.padding.value = emit_f32_bits(
				(float)ir_const_get_f(ir_in(e->n, 2), 0));
	} else {
		np = ir_attr_ints(e->n, "pads", &pv);
		for (i = 0; i < np && i < 2 * IR_MAX_RANK; i++)
			p[i] = pv[i];
		t->params.padding.value =
			emit_f32_bits(ir_attr_float(e->n, "value", 0.0f));
	}
	if (!strcmp(mode, "reflect"))
		t->params.padding.mode = DRM_NPU_PAD_REFLECT;
	else if (!strcmp(mode, "edge"))
		t->params.padding.mode = DRM_NPU_PAD_EDGE;
	else if (strcmp(mode, "constant"))
		return eerr(e, -ENOTSUP, "pad mode '%s' is not supported", mode);
	if (t->params.padding.mode != DRM_NPU_PAD_CONSTANT)
		t->params.padding.value = 0;
	for (i = 0; i < x->shape.rank; i++)
		t->params.padding.before[i] = (uint32_t)p[i];
	err = whole(e, x, &t->operands[0]);
	return err ? err : whole(e, out0(e), &t->operands[1]);
}

/* tf_crop_and_resize: the roi (a constant [2 rank]) and extrapolation. */
static int resize_crop(struct ectx *e, struct drm_npu_resize_params *p)
{
	const struct ir_tensor *roi = ir_in(e->n, 1);
	int r = in(e, 0)->shape.rank;
	float ex = ir_attr_float(e->n, "extrapolation_value", 0.0f);

	if (!roi || !roi->data || ir_tensor_numel(roi) != 2 * r)
		return eerr(e, -ENOTSUP, "tf_crop_and_resize needs a constant "
			    "roi of %d values", 2 * r);
	if (in(e, 0)->dtype != IR_F32 || !isfinite(ex))
		return eerr(e, -ENOTSUP, "tf_crop_and_resize on %s, or an "
			    "extrapolation value that is not finite",
			    ir_dtype_name(in(e, 0)->dtype));
	p->coord = DRM_NPU_RESIZE_TF_CROP_AND_RESIZE;
	for (int d = 0; d < r; d++) {
		float s = (float)ir_const_get_f(roi, d);
		float t = (float)ir_const_get_f(roi, r + d);

		if (!isfinite(s) || !isfinite(t))
			return eerr(e, -EINVAL, "roi of dim %d not finite", d);
		p->roi_start[d] = emit_f32_bits(s);
		p->roi_end[d] = emit_f32_bits(t);
	}
	p->extrapolation = emit_f32_bits(ex);
	return 0;
}

static int emit_resize(struct ectx *e)
{
	const struct ir_node *n = e->n;
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_RESIZE);
	struct drm_npu_resize_params *p;
	const char *mode = ir_attr_str(n, "mode", "nearest");
	const char *ct = ir_attr_str(n, "coordinate_transformation_mode",
				     "half_pixel");
	const char *nm = ir_attr_str(n, "nearest_mode", "round_prefer_floor");
	const struct ir_tensor *sc = ir_in(n, 2);
	int i, err = 0;

	if (strcmp(mode, "nearest") && in(e, 0)->dtype != IR_F32)
		return eerr(e, -ENOTSUP, "%s Resize on %s is not supported "
			    "(the device interpolates f32; nearest takes any "
			    "dtype)", mode, ir_dtype_name(in(e, 0)->dtype));
	if (!t)
		return -ENOMEM;
	if (strcmp(mode, "nearest") && ir_attr_int(n, "antialias", 0))
		for (i = 0; i < in(e, 0)->shape.rank; i++)
			if (out0(e)->shape.dim[i] < in(e, 0)->shape.dim[i])
				return eerr(e, -ENOTSUP, "%s Resize with "
					    "antialias downscaling dim %d is not "
					    "supported (the device interpolates "
					    "without the antialiasing filter)",
					    mode, i);
	p = &t->params.resize;
	t->num_operands = 2;
	if (!strcmp(mode, "linear")) {
		p->mode = DRM_NPU_RESIZE_LINEAR;
	} else if (!strcmp(mode, "cubic")) {
		float a = ir_attr_float(n, "cubic_coeff_a", -0.75f);

		if (!isfinite(a))
			return eerr(e, -EINVAL, "cubic_coeff_a is not finite");
		p->mode = DRM_NPU_RESIZE_CUBIC;
		p->cubic_a = emit_f32_bits(a);
		if (ir_attr_int(n, "exclude_outside", 0))
			p->flags = DRM_NPU_RESIZE_EXCLUDE_OUTSIDE;
	} else if (strcmp(mode, "nearest")) {
		return eerr(e, -ENOTSUP, "resize mode '%s' is not supported "
			    "(nearest, linear and cubic are)", mode);
	}
	if (!strcmp(ct, "asymmetric"))
		p->coord = DRM_NPU_RESIZE_ASYMMETRIC;
	else if (!strcmp(ct, "align_corners"))
		p->coord = DRM_NPU_RESIZE_ALIGN_CORNERS;
	else if (!strcmp(ct, "pytorch_half_pixel"))
		p->coord = DRM_NPU_RESIZE_PYTORCH_HALF_PIXEL;
	else if (!strcmp(ct, "tf_crop_and_resize"))
		err = resize_crop(e, p);
	else if (strcmp(ct, "half_pixel"))
		return eerr(e, -ENOTSUP, "coordinate transformation mode "
			    "'%s' is not supported", ct);
	if (err)
		return err;
	if (p->mode == DRM_NPU_RESIZE_NEAREST) {
		if (!strcmp(nm, "round_prefer_ceil"))
			p->nearest = DRM_NPU_RESIZE_ROUND_PREFER_CEIL;
		else if (!strcmp(nm, "floor"))
			p->nearest = DRM_NPU_RESIZE_FLOOR;
		else if (!strcmp(nm, "ceil"))
			p->nearest = DRM_NPU_RESIZE_CEIL;
	}
	if (sc && sc->data && ir_tensor_numel(sc) == in(e, 0)->shape.rank &&
	    !(ir_in(n, 3)))
		for (i = 0; i < in(e, 0)->shape.rank; i++)
			p->scale[i] = emit_f32_bits((float)ir_const_get_f(sc,
									 i));
	err = whole(e, in(e, 0), &t->operands[0]);
	return err ? err : whole(e, out0(e), &t->operands[1]);
}

/* GridSample (opset 16 names, and opset 20's linear/cubic): one task. */
static int emit_grid_sample(struct ectx *e)
{
	static const char *const modes[] = { "bilinear", "nearest", "bicubic" };
	static const char *const pads[] = { "zeros", "border", "reflection" };
	const char *mode = ir_attr_str(e->n, "mode", "bilinear");
	const char *pad = ir_attr_str(e->n, "padding_mode", "zeros");
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_GRID_SAMPLE);
	struct drm_npu_grid_sample_params *p;
	uint32_t i;
	int err;

	if (!t)
		return -ENOMEM;
	p = &t->params.grid_sample;
	if (!strcmp(mode, "linear"))
		mode = "bilinear";
	else if (!strcmp(mode, "cubic"))
		mode = "bicubic";
	for (i = 0; i < 3 && strcmp(mode, modes[i]); i++)
		;
	if (i == 3)
		return eerr(e, -ENOTSUP, "GridSample mode '%s' is not supported "
			    "(bilinear, nearest, bicubic are)", mode);
	p->mode = i;
	for (i = 0; i < 3 && strcmp(pad, pads[i]); i++)
		;
	if (i == 3)
		return eerr(e, -ENOTSUP, "GridSample padding_mode '%s' is not "
			    "supported (zeros, border, reflection are)", pad);
	p->padding = i;
	if (ir_attr_int(e->n, "align_corners", 0))
		p->flags = DRM_NPU_GRID_SAMPLE_ALIGN_CORNERS;
	t->num_operands = 3;
	err = whole(e, in(e, 0), &t->operands[0]);
	if (!err)
		err = whole(e, in(e, 1), &t->operands[1]);
	return err ? err : whole(e, out0(e), &t->operands[2]);
}

/* RoiAlign (opsets 10 and 16): one task; batch_indices stay int64. */
static int emit_roi_align(struct ectx *e)
{
	const struct ir_node *n = e->n;
	const char *mode = ir_attr_str(n, "mode", "avg");
	const char *ct = ir_attr_str(n, "coordinate_transformation_mode",
				     n->opset >= 16 ? "half_pixel" :
				     "output_half_pixel");
	float scale = ir_attr_float(n, "spatial_scale", 1.0f);
	int64_t ratio = ir_attr_int(n, "sampling_ratio", 0);
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_ROI_ALIGN);
	struct drm_npu_roi_align_params *p;
	int i, err = 0;

	if (!t)
		return -ENOMEM;
	p = &t->params.roi_align;
	if (!strcmp(mode, "max"))
		p->mode = DRM_NPU_ROI_ALIGN_MAX;
	else if (strcmp(mode, "avg"))
		return eerr(e, -ENOTSUP, "RoiAlign mode '%s' is not supported "
			    "(avg and max are)", mode);
	if (!strcmp(ct, "half_pixel"))
		p->flags = DRM_NPU_ROI_ALIGN_HALF_PIXEL;
	else if (strcmp(ct, "output_half_pixel"))
		return eerr(e, -ENOTSUP, "RoiAlign coordinate_transformation_mode "
			    "'%s' is not supported", ct);
	if (!isfinite(scale) || ratio < 0 || ratio > UINT32_MAX)
		return eerr(e, -EINVAL, "RoiAlign spatial_scale %g or "
			    "sampling_ratio %lld out of range", scale,
			    (long long)ratio);
	p->spatial_scale = emit_f32_bits(scale);
	p->sampling_ratio = (uint32_t)ratio;
	t->num_operands = 4;
	for (i = 0; i < 3 && !err; i++)
		err = whole(e, in(e, i), &t->operands[i]);
	if (!err)
		err = whole(e, out0(e), &t->operands[3]);
	/*
	 * A grid the device would not take in one unit (its cost cap,
	 * NPU_MAX_UNIT_COST: 2^27): say so here, not as a malformed task.
	 */
	if (!err && npu_op_unit_cost(t) > (1ull << 27))
		return eerr(e, -ENOTSUP, "RoiAlign's sampling grid (%s) over "
			    "%u output columns exceeds what one device work "
			    "unit may cost; lower sampling_ratio or "
			    "output_width", ratio ? "sampling_ratio" :
			    "adaptive, up to twice the feature map",
			    t->operands[3].shape[3]);
	return err;
}

/* npu.Random (legalize_random.c): one RANDOM task, out dense f32. */
static int emit_random(struct ectx *e)
{
	const struct ir_node *n = e->n;
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_RANDOM);
	struct drm_npu_random_params *p;
	uint64_t seed = (uint64_t)ir_attr_int(n, "seed", 0);
	int err = 0;

	if (!t)
		return -ENOMEM;
	p = &t->params.random;
	p->dist = (uint32_t)ir_attr_int(n, "dist", 0);
	p->flags = ir_attr_int(n, "per_job", 0) ? DRM_NPU_RANDOM_PER_JOB : 0;
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->a = emit_f32_bits(ir_attr_float(n, "a", 0.0f));
	p->b = emit_f32_bits(ir_attr_float(n, "b", 0.0f));
	t->num_operands = (uint8_t)(n->num_inputs + 1);
	if (n->num_inputs)
		err = whole(e, in(e, 0), &t->operands[0]);
	return err ? err : whole(e, out0(e), &t->operands[n->num_inputs]);
}

static int emit_attention(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_ATTENTION);
	int i, err = 0, k = 0;

	if (!t)
		return -ENOMEM;
	t->params.attention.scale =
		emit_f32_bits(ir_attr_float(e->n, "scale", 1.0f));
	for (i = 0; i < 3 && !err; i++)
		err = whole(e, in(e, i), &t->operands[k++]);
	if (!err && in(e, 3)) {
		t->params.attention.flags = DRM_NPU_ATTN_HAS_MASK;
		err = whole(e, in(e, 3), &t->operands[k++]);
	}
	if (!err)
		err = whole(e, out0(e), &t->operands[k++]);
	t->num_operands = (uint8_t)k;
	return err;
}

/*
 * RNN (npu.Rnn): one task per chunk of time steps, so that a work unit (a
 * batch row over the chunk's steps) stays within the device's cap of 2^27
 * element operations (npu_op_unit_cost()); a chunk starts from the hidden
 * state (and LSTM cell) that the chunk before wrote last into the state
 * tensor. Chunks run in the direction's time order.
 */
#define EMIT_UNIT_COST_CAP	(1ull << 27)

static int emit_rnn(struct ectx *e)
{
	const struct ir_node *n = e->n;
	const struct ir_tensor *xg = in(e, 0), *r = in(e, 1), *h0 = in(e, 2);
	const struct ir_tensor *aux = in(e, 3), *st = out0(e);
	int64_t cell = ir_attr_int(n, "cell", 0);
	bool rev = ir_attr_int(n, "reverse", 0) != 0;
	bool lbr = ir_attr_int(n, "linear_before_reset", 0) != 0;
	float clip = ir_attr_float(n, "clip", 0);
	int64_t tl = st->shape.dim[0], bs = st->shape.dim[1];
	int64_t ns = st->shape.dim[2], hid = st->shape.dim[3];
	int64_t gh = r->shape.dim[0], chunk, done, k = 0;
	uint64_t step = (uint64_t)gh * (uint64_t)(hid + 1) +
			8 * (uint64_t)hid + 1;

	if (step + 1 > EMIT_UNIT_COST_CAP)
		return eerr(e, -ENOTSUP, "hidden size %lld is too large for "
			    "the device's RNN task (one step of one batch row "
			    "must stay under 2^27 operations)",
			    (long long)hid);
	chunk = (int64_t)((EMIT_UNIT_COST_CAP - 1) / step);
	if (chunk > tl)
		chunk = tl;
	for (done = 0; done < tl; done += chunk, k++) {
		int64_t len = tl - done < chunk ? tl - done : chunk;
		int64_t t0 = rev ? tl - done - len : done;
		int64_t tp = rev ? t0 + len : t0 - 1;	/* step before */
		int64_t xd[3] = { len, bs, gh }, sd[4] = { len, bs, ns, hid };
		int64_t hd[2] = { bs, hid }, hs[2] = { ns * hid, 1 };
		struct drm_npu_task *t = new_task(e, DRM_NPU_OP_RNN);
		int err, o = 0;

		if (!t)
			return -ENOMEM;
		t->params.rnn.cell = (uint32_t)cell;
		t->params.rnn.flags = (rev ? DRM_NPU_RNN_REVERSE : 0) |
				      (lbr ? DRM_NPU_RNN_LINEAR_BEFORE_RESET :
				       0);
		t->params.rnn.clip = clip > 0 ? emit_f32_bits(clip) : 0;
		err = view(e, xg, 3, xd, NULL, t0 * bs * gh, &t->operands[o++]);
		if (!err)
			err = whole(e, r, &t->operands[o++]);
		if (!err)
			err = k ? view(e, st, 2, hd, hs, tp * bs * ns * hid,
				       &t->operands[o]) :
				  whole(e, h0, &t->operands[o]);
		o++;
		if (!err && cell == DRM_NPU_RNN_LSTM)
			err = k ? view(e, st, 2, hd, hs,
				       tp * bs * ns * hid + hid,
				       &t->operands[o++]) :
				  whole(e, aux, &t->operands[o++]);
		else if (!err && cell == DRM_NPU_RNN_GRU)
			err = whole(e, aux, &t->operands[o++]);
		if (!err && in(e, 4)) {
			t->params.rnn.flags |= DRM_NPU_RNN_PEEPHOLE;
			err = whole(e, in(e, 4), &t->operands[o++]);
		}
		if (!err)
			err = view(e, st, 4, sd, NULL, t0 * bs * ns * hid,
				   &t->operands[o++]);
		t->num_operands = (uint8_t)o;
		if (err)
			return err;
	}
	return 0;
}

/* TopK's indices (npu.TopK): one TOPK task. */
static int emit_topk(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_TOPK);
	int err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 2;
	t->params.topk.axis = (uint32_t)ir_attr_int(e->n, "axis", 0);
	t->params.topk.k = (uint32_t)ir_attr_int(e->n, "k", 1);
	t->params.topk.flags = ir_attr_int(e->n, "largest", 1) ?
			       DRM_NPU_TOPK_LARGEST : 0;
	err = whole(e, in(e, 0), &t->operands[0]);
	return err ? err : whole(e, out0(e), &t->operands[1]);
}

/* Operands 0 .. @n - 1 of @t: the whole of each of @ts. */
static int whole_all(struct ectx *e, struct drm_npu_task *t,
		     const struct ir_tensor *const *ts, int n)
{
	t->num_operands = (uint8_t)n;
	for (int i = 0; i < n; i++) {
		int err = whole(e, ts[i], &t->operands[i]);

		if (err)
			return err;
	}
	return 0;
}

/* npu.NonZero: one NONZERO task, the data and its count. */
static int emit_nonzero(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_NONZERO);
	int err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 3;
	err = whole(e, in(e, 0), &t->operands[0]);
	if (!err)
		err = whole(e, out0(e), &t->operands[1]);
	return err ? err : whole(e, e->n->outputs[1], &t->operands[2]);
}

/*
 * npu.Unique: a UNIQUE task over X viewed as [O, A, I] (Y too), then a
 * SCATTER of perm's row 1 at its row 0: ONNX's inverse_indices.
 */
static int emit_unique(struct ectx *e)
{
	const struct ir_node *n = e->n;
	int64_t oai[3] = { ir_attr_int(n, "npu_o", 1), ir_attr_int(n, "npu_a", 1),
			   ir_attr_int(n, "npu_i", 1) };
	int64_t row[1] = { oai[1] };
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_UNIQUE);
	int err;

	if (!t)
		return -ENOMEM;
	if (ir_attr_int(n, "sorted", 1))
		t->params.unique.flags = DRM_NPU_UNIQUE_SORTED;
	err = whole_all(e, t, (const struct ir_tensor *[]){
		in(e, 0), n->outputs[5], n->outputs[0], n->outputs[2],
		n->outputs[3], n->outputs[1] }, 6);
	/* in and Y as [O, A, I] */
	if (!err)
		err = view(e, in(e, 0), 3, oai, NULL, 0, &t->operands[0]);
	if (!err)
		err = view(e, n->outputs[0], 3, oai, NULL, 0, &t->operands[2]);
	t = err ? NULL : new_task(e, DRM_NPU_OP_SCATTER);
	if (!t)
		return err ? err : -ENOMEM;
	t->num_operands = 3;
	t->params.scatter.flags = DRM_NPU_SCATTER_ELEMENTS;
	err = view(e, n->outputs[5], 1, row, NULL, 0, &t->operands[0]);
	if (!err)
		err = view(e, n->outputs[5], 1, row, NULL, oai[1],
			   &t->operands[1]);
	return err ? err : whole(e, n->outputs[4], &t->operands[2]);
}

static void nms_params(const struct ir_node *n, struct drm_npu_nms_params *p)
{
	if (ir_attr_int(n, "center_point_box", 0))
		p->flags |= DRM_NPU_NMS_CENTER_BOX;
	if (ir_attr_find(n, "score_threshold")) {
		p->flags |= DRM_NPU_NMS_HAS_SCORE_THRESHOLD;
		p->score_threshold = emit_f32_bits(
			ir_attr_float(n, "score_threshold", 0.0f));
	}
	p->max_per_class = (uint32_t)ir_attr_int(n, "max_per_class", 1);
	p->iou_threshold = emit_f32_bits(ir_attr_float(n, "iou_threshold",
						       0.0f));
}

/*
 * npu.NMS: an NMS task (thresholds compiled in) suppresses each (batch,
 * class) pair into its own keep rows of the output, on as many cores as
 * there are; a PACK_ROWS task then packs the rows and writes the count.
 */
static int emit_nms(struct ectx *e)
{
	const struct ir_node *n = e->n;
	const struct ir_tensor *o = out0(e), *pc = n->outputs[3];
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_NMS);
	int64_t rows[3] = { pc->shape.dim[0], 0, 3 };
	int err;

	if (!t)
		return -ENOMEM;
	nms_params(n, &t->params.nms);
	rows[1] = t->params.nms.max_per_class;
	err = whole_all(e, t, (const struct ir_tensor *[]){
		in(e, 0), in(e, 1), n->outputs[2], o, pc }, 5);
	t = err ? NULL : new_task(e, DRM_NPU_OP_PACK_ROWS);
	if (!t)
		return err ? err : -ENOMEM;
	t->num_operands = 3;
	err = whole(e, pc, &t->operands[0]);
	if (!err)
		err = view(e, o, 3, rows, NULL, 0, &t->operands[1]);
	return err ? err : whole(e, n->outputs[1], &t->operands[2]);
}

/*
 * npu.Scatter: the data copied into the output (a copy onto itself when
 * memory planning gave them one buffer), then one SCATTER task.
 */
static int emit_scatter(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_COPY);
	int err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 2;
	err = whole(e, in(e, 0), &t->operands[0]);
	if (!err)
		err = whole(e, out0(e), &t->operands[1]);
	if (err)
		return err;
	t = new_task(e, DRM_NPU_OP_SCATTER);
	if (!t)
		return -ENOMEM;
	t->num_operands = 3;
	if (ir_attr_int(e->n, "elements", 0)) {
		t->params.scatter.flags = DRM_NPU_SCATTER_ELEMENTS;
		t->params.scatter.axis = (uint32_t)ir_attr_int(e->n, "axis", 0);
	}
	t->params.scatter.reduce = (uint32_t)ir_attr_int(e->n, "reduce", 0);
	err = whole(e, in(e, 1), &t->operands[0]);
	if (!err)
		err = whole(e, in(e, 2), &t->operands[1]);
	return err ? err : whole(e, out0(e), &t->operands[2]);
}

/* Sin ... Atanh: one MATH task. */
static int emit_math(struct ectx *e)
{
	static const struct { enum ir_op op; uint32_t kind; } map[] = {
		{ IR_OP_SIN, DRM_NPU_MATH_SIN }, { IR_OP_COS, DRM_NPU_MATH_COS },
		{ IR_OP_TAN, DRM_NPU_MATH_TAN },
		{ IR_OP_ASIN, DRM_NPU_MATH_ASIN },
		{ IR_OP_ACOS, DRM_NPU_MATH_ACOS },
		{ IR_OP_ATAN, DRM_NPU_MATH_ATAN },
		{ IR_OP_ASINH, DRM_NPU_MATH_ASINH },
		{ IR_OP_ACOSH, DRM_NPU_MATH_ACOSH },
		{ IR_OP_ATANH, DRM_NPU_MATH_ATANH },
	};
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_MATH);
	size_t i;
	int err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 2;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].op == e->n->op)
			t->params.math.kind = map[i].kind;
	err = whole(e, in(e, 0), &t->operands[0]);
	return err ? err : whole(e, out0(e), &t->operands[1]);
}

static int emit_transdata(struct ectx *e)
{
	struct drm_npu_task *t = new_task(e, DRM_NPU_OP_TRANSDATA);
	int err;

	if (!t)
		return -ENOMEM;
	t->num_operands = 2;
	err = whole(e, in(e, 0), &t->operands[0]);
	return err ? err : whole(e, out0(e), &t->operands[1]);
}

/*
 * npu.Aipp (compiler/passes/aipp.c): the image input viewed at the crop
 * window - [N, h, w, C] packed, Y [N, h, w] and UV [N, h/2, w/2, 2] of a
 * YUV420SP frame stored as [N, H * 3 / 2, W] - and the f32 output in the
 * layout the layout pass gave it (NCHW, or NC1HWC0 when it absorbed the
 * TransData).
 */
static int emit_aipp(struct ectx *e)
{
	const struct ir_node *n = e->n;
	const struct ir_tensor *x = in(e, 0);
	struct drm_npu_aipp_params *p;
	const int64_t *crop, *src, *pads, *mean, *m = NULL, *ib = NULL;
	const int64_t *ob = NULL;
	const float *mn, *vr;
	struct drm_npu_task *t;
	int64_t fmt = ir_attr_int(n, "format", 0), nn = x->shape.dim[0];
	int64_t d[4], st[4], w, h, k = 0;
	int err, i;

	if (ir_attr_ints(n, "crop", &crop) != 4 ||
	    ir_attr_ints(n, "src", &src) != 2 ||
	    ir_attr_ints(n, "pads", &pads) != 4 ||
	    ir_attr_ints(n, "mean", &mean) != 4 ||
	    ir_attr_floats(n, "min", &mn) != 4 ||
	    ir_attr_floats(n, "var_reci", &vr) != 4)
		return eerr(e, -EINVAL, "malformed npu.Aipp attributes");
	t = new_task(e, DRM_NPU_OP_AIPP);
	if (!t)
		return -ENOMEM;
	p = &t->params.aipp;
	p->in_format = (uint32_t)fmt;
	p->flags = (uint32_t)ir_attr_int(n, "flags", 0);
	p->pad_top = (uint32_t)pads[0];
	p->pad_left = (uint32_t)pads[1];
	p->pad_bottom = (uint32_t)pads[2];
	p->pad_right = (uint32_t)pads[3];
	p->pad_value = emit_f32_bits(ir_attr_float(n, "pad_value", 0));
	if (p->flags & DRM_NPU_AIPP_CSC) {
		if (ir_attr_ints(n, "matrix", &m) != 9 ||
		    ir_attr_ints(n, "input_bias", &ib) != 3 ||
		    ir_attr_ints(n, "output_bias", &ob) != 3)
			return eerr(e, -EINVAL, "npu.Aipp: CSC without its "
				    "matrix and biases");
		for (i = 0; i < 9; i++)
			p->matrix[i] = (int16_t)m[i];
		for (i = 0; i < 3; i++) {
			p->input_bias[i] = (uint8_t)ib[i];
			p->output_bias[i] = (uint8_t)ob[i];
		}
	}
	for (i = 0; i < 4; i++) {
		p->mean[i] = (uint16_t)mean[i];
		p->min[i] = mn[i] != 0 ? emit_f32_bits(mn[i]) : 0;
		p->var_reci[i] = vr[i] != 0 ? emit_f32_bits(vr[i]) : 0;
	}
	w = src[0];
	h = src[1];
	d[0] = nn;
	d[1] = crop[3];
	d[2] = crop[2];
	switch (fmt) {
	case 0: case 1:		/* Y rows, then UV rows of the frame */
		st[0] = h * 3 / 2 * w;
		st[1] = w;
		st[2] = 1;
		err = view(e, x, 3, d, st, crop[1] * w + crop[0],
			   &t->operands[k++]);
		if (err)
			return err;
		d[1] = (crop[3] + 1) / 2;
		d[2] = (crop[2] + 1) / 2;
		d[3] = 2;
		st[2] = 2;
		st[3] = 1;
		err = view(e, x, 4, d, st, h * w + crop[1] / 2 * w + crop[0],
			   &t->operands[k++]);
		break;
	case 5:
		st[0] = h * w;
		st[1] = w;
		st[2] = 1;
		err = view(e, x, 3, d, st, crop[1] * w + crop[0],
			   &t->operands[k++]);
		break;
	default:
		d[3] = x->shape.dim[3];
		st[3] = 1;
		st[2] = d[3];
		st[1] = w * d[3];
		st[0] = h * w * d[3];
		err = view(e, x, 4, d, st, (crop[1] * w + crop[0]) * d[3],
			   &t->operands[k++]);
	}
	for (i = 0; i < (int)k && !err; i++)
		t->operands[i].layout = DRM_NPU_LAYOUT_ND;
	/* dynamic: the parameters of each execution, a model input */
	if (!err && (p->flags & DRM_NPU_AIPP_DYNAMIC)) {
		if (!in(e, 1) || ir_tensor_numel(in(e, 1)) !=
		    DRM_NPU_AIPP_DYN_SIZE)
			return eerr(e, -EINVAL, "dynamic npu.Aipp without its "
				    "76-byte parameter input");
		err = whole(e, in(e, 1), &t->operands[k++]);
	}
	if (!err)
		err = whole(e, out0(e), &t->operands[k++]);
	t->num_operands = (uint8_t)k;
	return err;
}

static int emit_quant(struct ectx *e)
{
	const struct ir_node *n = e->n;
	bool q = n->op == IR_OP_QUANTIZE_LINEAR;
	const struct ir_tensor *sc = in(e, 1), *zp = in(e, 2);
	struct drm_npu_task *t;
	int err, k = 0;
	int64_t axis = ir_attr_int(n, "axis", 1);

	if (!sc || !sc->data || (zp && !zp->data))
		return eerr(e, -ENOTSUP, "scale and zero point must be "
			    "constants");
	if (ir_attr_int(n, "output_dtype", 0))
		return eerr(e, -ENOTSUP, "QuantizeLinear's output_dtype "
			    "(opset 21) is not supported: give a zero point");
	if (ir_attr_int(n, "block_size", 0))
		return eerr(e, -ENOTSUP, "blocked DequantizeLinear "
			    "(block_size) is supported only on the constant "
			    "weights of a MatMul/Gemm (weight-only "
			    "quantization)");
	t = new_task(e, q ? DRM_NPU_OP_QUANTIZE : DRM_NPU_OP_DEQUANTIZE);
	if (!t)
		return -ENOMEM;
	err = whole(e, in(e, 0), &t->operands[k++]);
	if (!err)
		err = whole(e, out0(e), &t->operands[k++]);
	if (err)
		return err;
	if (ir_tensor_numel(sc) == 1) {
		t->params.quant.scale =
			emit_f32_bits((float)ir_const_get_f(sc, 0));
		t->params.quant.zero_point =
			zp ? (int32_t)ir_const_get_i(zp, 0) : 0;
	} else {
		if (axis < 0)
			axis += in(e, 0)->shape.rank;
		t->params.quant.flags = DRM_NPU_QUANT_PER_CHANNEL;
		t->params.quant.axis = (uint32_t)axis;
		err = whole(e, sc, &t->operands[k++]);
		if (!err && zp)
			err = whole(e, zp, &t->operands[k++]);
	}
	t->num_operands = (uint8_t)k;
	return err;
}

/*
 * npu.QConv (x, w, [bias i32], mult f32 [1 or O]) and npu.QMatMul (a,
 * w [N, K], [bias], mult): the requantization from the attributes qzp
 * ([a_zero, b_zero, y_zero]) and qclamp ([y_min, y_max]) that qdq-fuse
 * computed; a one-element mult is the per-tensor scale.
 */
static int q_requant(struct ectx *e, struct drm_npu_requant *q,
		     const struct ir_tensor *mult, uint32_t *flags)
{
	const int64_t *zp, *cl;

	if (ir_attr_ints(e->n, "qzp", &zp) != 3 ||
	    ir_attr_ints(e->n, "qclamp", &cl) != 2 ||
	    !ir_tensor_is_const(mult) || mult->dtype != IR_F32)
		return eerr(e, -EINVAL, "malformed int8 node (qzp, qclamp, "
			    "mult)");
	q->a_zero = (int32_t)zp[0];
	q->b_zero = (int32_t)zp[1];
	q->y_zero = (int32_t)zp[2];
	q->y_min = (int32_t)cl[0];
	q->y_max = (int32_t)cl[1];
	if (ir_tensor_numel(mult) == 1)
		q->scale = emit_f32_bits((float)ir_const_get_f(mult, 0));
	else
		*flags |= DRM_NPU_Q_PER_CHANNEL;
	return 0;
}

static int emit_qconv(struct ectx *e)
{
	const struct ir_node *n = e->n;
	const struct ir_tensor *bias = in(e, 2), *mult = in(e, 3);
	struct drm_npu_qconv2d_params *p;
	struct drm_npu_task *t;
	const int64_t *v;
	int err, k = 0;

	t = new_task(e, DRM_NPU_OP_QCONV2D);
	if (!t)
		return -ENOMEM;
	p = &t->params.qconv2d;
	p->groups = (uint32_t)ir_attr_int(n, "group", 1);
	p->stride_h = p->stride_w = 1;
	p->dilation_h = p->dilation_w = 1;
	if (ir_attr_ints(n, "strides", &v) == 2) {
		p->stride_h = (uint32_t)v[0];
		p->stride_w = (uint32_t)v[1];
	}
	if (ir_attr_ints(n, "dilations", &v) == 2) {
		p->dilation_h = (uint32_t)v[0];
		p->dilation_w = (uint32_t)v[1];
	}
	if (ir_attr_ints(n, "pads", &v) == 4) {
		p->pad_top = (uint32_t)v[0];
		p->pad_left = (uint32_t)v[1];
		p->pad_bottom = (uint32_t)v[2];
		p->pad_right = (uint32_t)v[3];
	}
	err = q_requant(e, &p->q, mult, &p->flags);
	if (!err)
		err = whole(e, in(e, 0), &t->operands[k++]);
	if (!err)
		err = whole(e, in(e, 1), &t->operands[k++]);
	if (!err && bias) {
		p->flags |= DRM_NPU_Q_HAS_BIAS;
		err = whole(e, bias, &t->operands[k++]);
	}
	if (!err && (p->flags & DRM_NPU_Q_PER_CHANNEL))
		err = whole(e, mult, &t->operands[k++]);
	if (!err)
		err = whole(e, out0(e), &t->operands[k++]);
	t->num_operands = (uint8_t)k;
	return err;
}

static int emit_qmatmul(struct ectx *e)
{
	const struct ir_tensor *bias = in(e, 2), *mult = in(e, 3);
	struct drm_npu_qmatmul_params *p;
	struct drm_npu_task *t;
	int err, k = 0;

	t = new_task(e, DRM_NPU_OP_QMATMUL);
	if (!t)
		return -ENOMEM;
	p = &t->params.qmatmul;
	p->flags = DRM_NPU_Q_TRANS_B;
	err = q_requant(e, &p->q, mult, &p->flags);
	if (!err)
		err = whole(e, in(e, 0), &t->operands[k++]);
	if (!err)
		err = whole(e, in(e, 1), &t->operands[k++]);
	if (!err && bias) {
		p->flags |= DRM_NPU_Q_HAS_BIAS;
		err = whole(e, bias, &t->operands[k++]);
	}
	if (!err && (p->flags & DRM_NPU_Q_PER_CHANNEL))
		err = whole(e, mult, &t->operands[k++]);
	if (!err)
		err = whole(e, out0(e), &t->operands[k++]);
	t->num_operands = (uint8_t)k;
	return err;
}

/* npu.QAdd (a, b): scales, zero points and clamp from the attributes. */
static int emit_qadd(struct ectx *e)
{
	struct drm_npu_qadd_params *p;
	struct drm_npu_task *t;
	const int64_t *zp, *cl;
	const float *sc;
	int err;

	if (ir_attr_ints(e->n, "qzp", &zp) != 3 ||
	    ir_attr_ints(e->n, "qclamp", &cl) != 2 ||
	    ir_attr_floats(e->n, "qscale", &sc) != 3)
		return eerr(e, -EINVAL, "malformed int8 add (qzp, qclamp, "
			    "qscale)");
	t = new_task(e, DRM_NPU_OP_QADD);
	if (!t)
		return -ENOMEM;
	p = &t->params.qadd;
	p->a_scale = emit_f32_bits(sc[0]);
	p->b_scale = emit_f32_bits(sc[1]);
	p->y_scale = emit_f32_bits(sc[2]);
	p->a_zero = (int32_t)zp[0];
	p->b_zero = (int32_t)zp[1];
	p->y_zero = (int32_t)zp[2];
	p->y_min = (int32_t)cl[0];
	p->y_max = (int32_t)cl[1];
	t->num_operands = 3;
	err = whole(e, in(e, 0), &t->operands[0]);
	if (!err)
		err = whole(e, in(e, 1), &t->operands[1]);
	return err ? err : whole(e, out0(e), &t->operands[2]);
}

/* --- dispatch ------------------------------------------------------------- */

/* Ops whose device kernels take f32 operands only. */
static bool f32_only(enum ir_op op)
{
	switch (op) {
	case IR_OP_CONV: case IR_OP_GEMM: case IR_OP_MATMUL:
	case IR_OP_BATCH_NORM: case IR_OP_LAYER_NORM: case IR_OP_SOFTMAX:
	case IR_OP_LOG_SOFTMAX: case IR_OP_ATTENTION: case IR_OP_SIGMOID:
	case IR_OP_TANH: case IR_OP_EXP: case IR_OP_SQRT: case IR_OP_ERF:
	case IR_OP_LOG: case IR_OP_RECIPROCAL: case IR_OP_ELU:
	case IR_OP_SOFTPLUS: case IR_OP_GELU: case IR_OP_HARD_SIGMOID:
	case IR_OP_HARD_SWISH: case IR_OP_LEAKY_RELU: case IR_OP_QUANTIZE_LINEAR:
	case IR_OP_RNN_TASK: case IR_OP_SIN: case IR_OP_COS: case IR_OP_TAN:
	case IR_OP_ASIN: case IR_OP_ACOS: case IR_OP_ATAN: case IR_OP_ASINH:
	case IR_OP_ACOSH: case IR_OP_ATANH: case IR_OP_NMS_TASK:
	case IR_OP_GRID_SAMPLE: case IR_OP_ROI_ALIGN: case IR_OP_RANDOM_TASK:
		return true;
	default:
		return false;
	}
}

/*
 * The dtypes the device's kernel for @op takes, as text for the error, or
 * NULL when @dt is one of them. Pooling follows npu_op_check()'s POOL2D
 * rule: max pooling compares, so it runs on F32/F16/I8/U8 alike; average
 * pooling divides, so F32/F16 only.
 */
static const char *unsupported_dtype(enum ir_op op, enum ir_dtype dt)
{
	switch (op) {
	case IR_OP_MAX_POOL: case IR_OP_GLOBAL_MAX_POOL:
		return dt == IR_F32 || dt == IR_F16 || dt == IR_I8 ||
		       dt == IR_U8 ? NULL : "f32, f16, i8 and u8";
	case IR_OP_AVERAGE_POOL: case IR_OP_GLOBAL_AVERAGE_POOL:
		return dt == IR_F32 || dt == IR_F16 ? NULL : "f32 and f16";
	case IR_OP_MATMUL: case IR_OP_GEMM:
		/* MATMUL: every operand F32, or every one F16 */
		return dt == IR_F32 || dt == IR_F16 ? NULL : "f32 and f16";
	case IR_OP_REDUCE_SUM: case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_MAX:
	case IR_OP_REDUCE_MIN: case IR_OP_REDUCE_PROD:
	case IR_OP_REDUCE_SUM_SQUARE: case IR_OP_TOPK_TASK:
		/* REDUCE and TOPK: F32 arithmetic, or integers */
		return dt == IR_F32 || dt == IR_I32 || dt == IR_I64 ? NULL :
		       "f32, i32 and i64";
	default:
		return f32_only(op) && dt != IR_F32 ? "f32 only" : NULL;
	}
}

bool emit_takes_dtype(enum ir_op op, enum ir_dtype dt)
{
	return !unsupported_dtype(op, dt);
}

/* The rules that depend on a node's attributes too: linear Resize. */
bool emit_node_takes_dtype(const struct ir_node *n, enum ir_dtype dt)
{
	if (n->op == IR_OP_RESIZE &&
	    strcmp(ir_attr_str(n, "mode", "nearest"), "nearest"))
		return dt == IR_F32;
	return emit_takes_dtype(n->op, dt);
}

const struct ir_tensor *emit_view_source(const struct ir_node *n)
{
	switch (n->op) {
	case IR_OP_RESHAPE: case IR_OP_FLATTEN: case IR_OP_SQUEEZE:
	case IR_OP_UNSQUEEZE: case IR_OP_IDENTITY: case IR_OP_DROPOUT:
		/* only plain layouts alias; NC1HWC0 never reaches a view */
		return ir_in(n, 0);
	default:
		return NULL;
	}
}

bool emit_is_host_op(enum ir_op op)
{
	return op == IR_OP_SHAPE || op == IR_OP_CONSTANT_OF_SHAPE ||
	       op == IR_OP_RANGE || op == IR_OP_SIZE;
}

int emit_node(struct ir_graph *g, const struct ir_node *n,
	      const struct emit_target *tgt, struct emit_tasks *out)
{
	struct ectx e = { .g = g, .n = n, .tgt = tgt, .out = out };
	size_t before = out->count;
	const struct ir_tensor *first;
	const char *takes;
	int i, err;

	for (i = 0; i < n->num_inputs; i++)
		if (n->inputs[i] && !ir_shape_is_static(&n->inputs[i]->shape))
			return eerr(&e, -EINVAL, "input '%s' has symbolic "
				    "dims: bind them first",
				    n->inputs[i]->name);
	for (i = 0; i < n->num_outputs; i++)
		if (n->outputs[i] && (!n->outputs[i]->shape_known ||
		    !ir_shape_is_static(&n->outputs[i]->shape)))
			return eerr(&e, -EINVAL, "output '%s' has no static "
				    "shape", n->outputs[i]->name);
	if (!n->num_outputs || !n->outputs[0])
		return eerr(&e, -EINVAL, "node has no output");
	if (emit_view_source(n))
		return 0;
	/* the dtype an op runs on: input 0's (npu.Random has none) */
	first = n->num_inputs && n->inputs[0] ? in(&e, 0) : out0(&e);
	takes = unsupported_dtype(n->op, first->dtype);
	if (takes)
		return eerr(&e, -ENOTSUP, "%s on %s is not supported (the "
			    "device runs it on %s)", ir_op_name(n->op),
			    ir_dtype_name(first->dtype), takes);
	switch (n->op) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
	case IR_OP_POW: case IR_OP_MAX: case IR_OP_MIN: case IR_OP_PRELU:
	case IR_OP_EQUAL: case IR_OP_LESS: case IR_OP_GREATER: case IR_OP_SUM:
	case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR:
	case IR_OP_GREATER_OR_EQUAL: case IR_OP_LESS_OR_EQUAL:
		err = emit_binary(&e);
		break;
	case IR_OP_RELU: case IR_OP_SIGMOID: case IR_OP_TANH: case IR_OP_EXP:
	case IR_OP_SQRT: case IR_OP_CLIP: case IR_OP_LEAKY_RELU:
	case IR_OP_HARD_SIGMOID: case IR_OP_HARD_SWISH: case IR_OP_ERF:
	case IR_OP_NEG: case IR_OP_ABS: case IR_OP_LOG: case IR_OP_RECIPROCAL:
	case IR_OP_ELU: case IR_OP_SOFTPLUS: case IR_OP_FLOOR: case IR_OP_CEIL:
	case IR_OP_NOT: case IR_OP_GELU: case IR_OP_ACTIVATION:
		err = emit_unary(&e);
		break;
	case IR_OP_CAST: err = emit_cast(&e); break;
	case IR_OP_EXPAND: err = emit_expand(&e); break;
	case IR_OP_TRANSPOSE: err = emit_transpose(&e); break;
	case IR_OP_SLICE: err = emit_slice(&e); break;
	case IR_OP_CONCAT: err = emit_concat(&e); break;
	case IR_OP_SPLIT: err = emit_split(&e); break;
	case IR_OP_WHERE: err = emit_where(&e); break;
	case IR_OP_GATHER: err = emit_gather(&e); break;
	case IR_OP_CONV: err = emit_conv(&e); break;
	case IR_OP_GEMM: case IR_OP_MATMUL: err = emit_matmul(&e); break;
	case IR_OP_MAX_POOL: case IR_OP_AVERAGE_POOL:
	case IR_OP_GLOBAL_AVERAGE_POOL: case IR_OP_GLOBAL_MAX_POOL:
		err = emit_pool(&e);
		break;
	case IR_OP_BATCH_NORM: err = emit_batchnorm(&e); break;
	case IR_OP_LAYER_NORM: err = emit_layernorm(&e); break;
	case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX: err = emit_softmax(&e);
		break;
	case IR_OP_REDUCE_SUM: case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_MAX:
	case IR_OP_REDUCE_MIN: case IR_OP_REDUCE_PROD:
	case IR_OP_REDUCE_SUM_SQUARE:
		err = emit_reduce(&e);
		break;
	case IR_OP_PAD: err = emit_pad(&e); break;
	case IR_OP_RESIZE: err = emit_resize(&e); break;
	case IR_OP_GRID_SAMPLE: err = emit_grid_sample(&e); break;
	case IR_OP_ROI_ALIGN: err = emit_roi_align(&e); break;
	case IR_OP_RANDOM_TASK: err = emit_random(&e); break;
	case IR_OP_ATTENTION: err = emit_attention(&e); break;
	case IR_OP_RNN_TASK: err = emit_rnn(&e); break;
	case IR_OP_TOPK_TASK: err = emit_topk(&e); break;
	case IR_OP_NONZERO_TASK: err = emit_nonzero(&e); break;
	case IR_OP_NMS_TASK: err = emit_nms(&e); break;
	case IR_OP_UNIQUE_TASK: err = emit_unique(&e); break;
	case IR_OP_SCATTER_TASK: err = emit_scatter(&e); break;
	case IR_OP_SIN: case IR_OP_COS: case IR_OP_TAN: case IR_OP_ASIN:
	case IR_OP_ACOS: case IR_OP_ATAN: case IR_OP_ASINH: case IR_OP_ACOSH:
	case IR_OP_ATANH:
		err = emit_math(&e);
		break;
	case IR_OP_MATMUL_WQ: err = emit_matmul_wq(&e); break;
	case IR_OP_TRANSDATA: err = emit_transdata(&e); break;
	case IR_OP_QCONV: err = emit_qconv(&e); break;
	case IR_OP_QMATMUL: err = emit_qmatmul(&e); break;
	case IR_OP_QADD: err = emit_qadd(&e); break;
	case IR_OP_AIPP: err = emit_aipp(&e); break;
	case IR_OP_QUANTIZE_LINEAR: case IR_OP_DEQUANTIZE_LINEAR:
		err = emit_quant(&e);
		break;
	default:
		err = eerr(&e, -ENOTSUP, "no device kernel for this op%s",
			   emit_is_host_op(n->op) ?
			   " (a host op: constant folding removes it)" : "");
	}
	if (err)
		out->count = before;
	return err;
}

int emit_task_output(const struct drm_npu_task *t)
{
	/* the device's own rule (QUANTIZE/DEQUANTIZE write operand 1) */
	return t->num_operands ? (int)npu_op_output(t) : -1;
}

bool emit_task_writes(const struct drm_npu_task *t, int k)
{
	return k >= 0 && k < t->num_operands && npu_op_writes(t, (u32)k);
}

bool emit_task_inplace_ok(const struct drm_npu_task *t)
{
	switch (t->opcode) {
	case DRM_NPU_OP_COPY:
		return t->operands[0].dtype == t->operands[1].dtype;
	case DRM_NPU_OP_BINARY: case DRM_NPU_OP_UNARY: case DRM_NPU_OP_WHERE:
	case DRM_NPU_OP_SOFTMAX: case DRM_NPU_OP_LAYERNORM:
	case DRM_NPU_OP_BATCHNORM:
		return true;
	default:
		return false;
	}
}

bool emit_same_view(const struct drm_npu_operand *a,
		    const struct drm_npu_operand *b)
{
	if (a->dtype != b->dtype || a->layout != b->layout ||
	    a->rank != b->rank || a->offset != b->offset)
		return false;
	for (int i = 0; i < a->rank && i < DRM_NPU_MAX_RANK; i++)
		if (a->shape[i] != b->shape[i] ||
		    a->strides[i] != b->strides[i])
			return false;
	return true;
}

/* --- host-only ops --------------------------------------------------------- */

int emit_host_eval(struct ir_graph *g, const struct ir_node *n,
		   const void *const *in, void *out)
{
	const struct ir_tensor *o = n->outputs[0];
	int64_t i, cnt = ir_tensor_numel(o);

	switch (n->op) {
	case IR_OP_SHAPE: {
		const struct ir_tensor *x = n->inputs[0];
		int64_t st = ir_attr_int(n, "start", 0);

		if (st < 0)
			st += x->shape.rank;
		if (st < 0)
			st = 0;
		for (i = 0; i < cnt; i++)
			((int64_t *)out)[i] = x->shape.dim[st + i];
		return 0;
	}
	case IR_OP_SIZE:
		*(int64_t *)out = ir_tensor_numel(n->inputs[0]);
		return 0;
	case IR_OP_CONSTANT_OF_SHAPE: {
		const struct ir_attr *a = ir_attr_find(n, "value");
		size_t es = ir_dtype_size(o->dtype);
		float zero = 0;
		const void *v = a && a->t && a->t->data ? a->t->data : &zero;

		for (i = 0; i < cnt; i++)
			memcpy((char *)out + i * es, v, es);
		return 0;
	}
	case IR_OP_RANGE: {
		double s = ir_const_get_f(n->inputs[0], 0);
		double d = ir_const_get_f(n->inputs[2], 0);

		for (i = 0; i < cnt; i++) {
			double v = s + d * (double)i;

			switch (o->dtype) {
			case IR_F32: ((float *)out)[i] = (float)v; break;
			case IR_I32:
				((int32_t *)out)[i] = (int32_t)ir_f64_to_i64(
					v > INT32_MAX ? INT32_MAX :
					v < INT32_MIN ? INT32_MIN : v);
				break;
			case IR_I64: ((int64_t *)out)[i] = ir_f64_to_i64(v);
				break;
			default:
				return ir_error(g, "node '%s' (Range): dtype "
						"%s", n->name,
						ir_dtype_name(o->dtype));
			}
		}
		return 0;
	}
	default:
		(void)in;
		return ir_error(g, "node '%s' (%s) is not a host op", n->name,
				ir_op_name(n->op));
	}
}
