// SPDX-License-Identifier: MIT
/*
 * npu_fuzz_decode.c - fuzz input -> task descriptors, per opcode templates
 * with adversarial dimensions, strides, layouts, dtypes and params
 * (npu_fuzz.h).
 */
#include "npu_fuzz.h"

#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define F32_ONE		0x3f800000u
#define F32_HALF	0x3f000000u
#define F32_TWO		0x40000000u

/* The input as a stream of choices; exhausted, it reads as zeros. */
struct rd {
	const uint8_t *p;
	size_t n;
};

static uint8_t r8(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static uint32_t r32(struct rd *r)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v |= (uint32_t)r8(r) << (8 * i);
	return v;
}

static const uint32_t small_dims[16] = {
	1, 2, 3, 4, 1, 2, 8, 16, 0, 1, 5, 6, 7, 32, 3, 2,
};

/* Where 32-bit arithmetic on dims, counts and products goes wrong. */
static const uint32_t adv_dims[] = {
	0, 1, 2, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xffffffffu,
	0xfffffffeu, 0xfffffff9u, 0xfffffff8u, 0xfffffff1u, 0xfffffff0u,
	0xffffffe1u, 0xffffffe0u, 0x10000u, 0x10001u, 0xffffu, 0x100000u,
	0x1000000u, 0x40000000u, 0x40000001u, 0xc0000000u, 0x55555556u,
	0x20000001u, 17, 33, 0x8000u, 0x100001u,
};

/* Mostly small, sometimes adversarial, rarely raw. */
static uint32_t dim(struct rd *r)
{
	uint8_t b = r8(r);

	if (b < 176)
		return small_dims[b % 16];
	if (b < 248)
		return adv_dims[(b - 176) % ARRAY_SIZE(adv_dims)];
	return r32(r);
}

/* One of @n allowed dtypes, rarely any dtype at all. */
static uint8_t dtype_of(struct rd *r, const uint8_t *allowed, uint32_t n)
{
	uint8_t b = r8(r);

	if (b < 232)
		return allowed[b % n];
	return b % DRM_NPU_DTYPE_COUNT;
}

static const uint8_t dt_float[] = { DRM_NPU_DTYPE_F32, DRM_NPU_DTYPE_F16 };
static const uint8_t dt_arith[] = {
	DRM_NPU_DTYPE_F32, DRM_NPU_DTYPE_F16, DRM_NPU_DTYPE_I8,
	DRM_NPU_DTYPE_U8, DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_I64,
};
static const uint8_t dt_any[] = {
	DRM_NPU_DTYPE_F32, DRM_NPU_DTYPE_F16, DRM_NPU_DTYPE_I8,
	DRM_NPU_DTYPE_U8, DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_I64,
	DRM_NPU_DTYPE_BOOL,
};
static const uint8_t dt_pool[] = {
	DRM_NPU_DTYPE_F32, DRM_NPU_DTYPE_F16, DRM_NPU_DTYPE_I8,
	DRM_NPU_DTYPE_U8,
};
static const uint8_t dt_trans[] = {
	DRM_NPU_DTYPE_F32, DRM_NPU_DTYPE_F16, DRM_NPU_DTYPE_I8,
	DRM_NPU_DTYPE_U8, DRM_NPU_DTYPE_I32,
};
static const uint8_t dt_reduce[] = {
	DRM_NPU_DTYPE_F32, DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_I64,
};

#define DTYPE(r, set)	dtype_of((r), (set), sizeof(set))

static uint32_t esize(uint8_t dtype)
{
	static const uint8_t sz[DRM_NPU_DTYPE_COUNT] = { 0, 4, 2, 1, 1, 4, 8, 1 };

	return dtype < DRM_NPU_DTYPE_COUNT ? sz[dtype] : 0;
}

/*
 * An operand of @rank dims. Strides: mostly contiguous, computed the way a
 * careless writer would (32-bit running product: huge shapes wrap it),
 * else one stride replaced, all zero, or every one adversarial.
 */
static void opnd(struct rd *r, struct drm_npu_operand *o, uint16_t slot,
		 uint8_t dtype, uint32_t rank, const uint32_t *shape)
{
	uint8_t mode = r8(r) % 16;
	uint32_t stride = 1;
	int i;

	memset(o, 0, sizeof(*o));
	o->slot = slot;
	o->dtype = dtype;
	o->rank = (uint8_t)rank;
	for (i = (int)rank - 1; i >= 0; i--) {
		o->shape[i] = shape[i];
		o->strides[i] = stride;
		stride *= shape[i];
	}
	if (!rank)
		return;
	switch (mode) {
	case 12:
		o->strides[r8(r) % rank] = dim(r);
		break;
	case 13:
		memset(o->strides, 0, sizeof(o->strides));
		break;
	case 14:
		for (i = 0; i < (int)rank; i++)
			o->strides[i] = dim(r);
		break;
	case 15:	/* a padded outer stride */
		o->strides[0] = o->strides[0] * 2 + 1;
		break;
	}
}

/* An ND shape of rank 0..@max_rank. */
static uint32_t shape_of(struct rd *r, uint32_t max_rank, uint32_t *shape)
{
	uint32_t rank = r8(r) % (max_rank + 1), i;

	for (i = 0; i < rank; i++)
		shape[i] = dim(r);
	return rank;
}

/* @in broadcast from @out's shape: some dims 1, some leading ones gone. */
static uint32_t bcast_of(struct rd *r, uint32_t rank, const uint32_t *shape,
			 uint32_t *in)
{
	uint8_t mask = r8(r);
	uint32_t drop = (mask & 0x80) ? (mask >> 4) % (rank + 1) : 0, i;

	for (i = drop; i < rank; i++)
		in[i - drop] = (mask >> (i % 4)) & 1 && (mask & 0x40) ?
			       1 : shape[i];
	return rank - drop;
}

/*
 * A 4-D activation N, C, H, W: NCHW (layout ND or NCHW), or NC1HWC0 with
 * C1 = ceil(C / C0) in 32 bits (wraps for C near 2^32) or 64 bits.
 */
static void act4(struct rd *r, struct drm_npu_operand *o, uint16_t slot,
		 uint8_t dtype, int nc1, const uint32_t *nchw)
{
	uint32_t s[5];

	if (!nc1) {
		opnd(r, o, slot, dtype, 4, nchw);
		o->layout = r8(r) & 1 ? DRM_NPU_LAYOUT_NCHW : DRM_NPU_LAYOUT_ND;
		return;
	}
	s[4] = esize(dtype) == 1 ? 32 : 16;
	if (r8(r) & 1)
		s[1] = (nchw[1] + s[4] - 1) / s[4];
	else
		s[1] = (uint32_t)(((uint64_t)nchw[1] + s[4] - 1) / s[4]);
	s[0] = nchw[0];
	s[2] = nchw[2];
	s[3] = nchw[3];
	opnd(r, o, slot, dtype, 5, s);
	o->layout = DRM_NPU_LAYOUT_NC1HWC0;
}

static void act_params(struct rd *r, struct drm_npu_act_params *a,
		       int any_kind)
{
	uint8_t b = r8(r);

	memset(a, 0, sizeof(*a));
	if (!any_kind && b < 128)
		return;
	a->kind = b % DRM_NPU_ACT_COUNT;
	switch (a->kind) {
	case DRM_NPU_ACT_CLIP:
	case DRM_NPU_ACT_HARDSIGMOID:
		a->beta = F32_TWO;
		/* fall through */
	case DRM_NPU_ACT_LEAKY_RELU:
	case DRM_NPU_ACT_ELU:
		a->alpha = F32_HALF;
		break;
	}
}

/* Output extent of a window; 0 when the window does not fit. */
static uint32_t window_out(uint32_t in, uint32_t pad, uint32_t k, uint32_t s,
			   uint32_t d)
{
	uint64_t span = (uint64_t)d * (k - 1) + 1, padded = (uint64_t)in + pad;

	if (!s || !k || padded < span)
		return 0;
	return (uint32_t)((padded - span) / s + 1);
}

static uint32_t small(struct rd *r, uint32_t max)
{
	return r8(r) % max;
}

/* ---- per-opcode templates ---- */

static void t_copy_like(struct rd *r, struct drm_npu_task *t, uint16_t op)
{
	uint32_t s[DRM_NPU_MAX_RANK], in[DRM_NPU_MAX_RANK], rank, irank;
	uint8_t dt = DTYPE(r, dt_any);

	rank = shape_of(r, 6, s);
	irank = bcast_of(r, rank, s, in);
	t->opcode = op;
	t->num_operands = 2;
	if (op == DRM_NPU_OP_UNARY) {
		act_params(r, &t->params.unary, 1);
		if (t->params.unary.kind == DRM_NPU_ACT_NOT)
			dt = DRM_NPU_DTYPE_BOOL;
		else if (t->params.unary.kind > DRM_NPU_ACT_RELU &&
			 t->params.unary.kind != DRM_NPU_ACT_NEG &&
			 t->params.unary.kind != DRM_NPU_ACT_ABS &&
			 t->params.unary.kind != DRM_NPU_ACT_CLIP)
			dt = DTYPE(r, dt_float);
	}
	opnd(r, &t->operands[0], 0, dt, irank, in);
	opnd(r, &t->operands[1], 1,
	     op == DRM_NPU_OP_COPY ? DTYPE(r, dt_any) : dt, rank, s);
}

static void t_binary(struct rd *r, struct drm_npu_task *t)
{
	uint32_t s[DRM_NPU_MAX_RANK], a[DRM_NPU_MAX_RANK], b[DRM_NPU_MAX_RANK];
	uint32_t rank = shape_of(r, 6, s), ra, rb;
	uint8_t dt = DTYPE(r, dt_arith);
	struct drm_npu_binary_params *p = &t->params.binary;

	t->opcode = DRM_NPU_OP_BINARY;
	t->num_operands = 3;
	p->kind = small(r, DRM_NPU_BINARY_COUNT);
	if (dt <= DRM_NPU_DTYPE_F16 && p->kind < DRM_NPU_BINARY_EQUAL)
		act_params(r, &p->act, 0);
	ra = bcast_of(r, rank, s, a);
	rb = bcast_of(r, rank, s, b);
	opnd(r, &t->operands[0], 0, dt, ra, a);
	opnd(r, &t->operands[1], 1, dt, rb, b);
	opnd(r, &t->operands[2], 2, p->kind >= DRM_NPU_BINARY_EQUAL ?
	     DRM_NPU_DTYPE_BOOL : dt, rank, s);
}

static void t_matmul(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_matmul_params *p = &t->params.matmul;
	uint32_t batch = small(r, 3), m = dim(r), k = dim(r), n = dim(r);
	uint32_t sa[DRM_NPU_MAX_RANK], sb[DRM_NPU_MAX_RANK];
	uint32_t so[DRM_NPU_MAX_RANK], bias, i;
	uint8_t fb = r8(r);
	/* bit 3 of the flags byte: every operand F16 */
	uint8_t dt = fb & 8 ? DRM_NPU_DTYPE_F16 : DRM_NPU_DTYPE_F32;

	t->opcode = DRM_NPU_OP_MATMUL;
	p->flags = fb & 7;
	p->alpha = F32_ONE;
	bias = !!(p->flags & DRM_NPU_MATMUL_HAS_BIAS);
	if (bias)
		p->beta = F32_ONE;
	act_params(r, &p->act, 0);
	for (i = 0; i < batch; i++)
		sa[i] = sb[i] = so[i] = dim(r);
	sa[batch] = p->flags & DRM_NPU_MATMUL_TRANS_A ? k : m;
	sa[batch + 1] = p->flags & DRM_NPU_MATMUL_TRANS_A ? m : k;
	sb[batch] = p->flags & DRM_NPU_MATMUL_TRANS_B ? n : k;
	sb[batch + 1] = p->flags & DRM_NPU_MATMUL_TRANS_B ? k : n;
	so[batch] = m;
	so[batch + 1] = n;
	t->num_operands = 3 + bias;
	opnd(r, &t->operands[0], 0, dt, batch + 2, sa);
	opnd(r, &t->operands[1], 1, dt, batch + 2, sb);
	if (bias)
		opnd(r, &t->operands[2], 2, dt, 1, &n);
	opnd(r, &t->operands[2 + bias], 2 + bias, dt, batch + 2, so);
}

/* MATMUL_WQ: a [.., M, K] F32/F16, w I8/I4 [K, N], s [G, N], [bias]. */
static void t_matmul_wq(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_matmul_wq_params *p = &t->params.matmul_wq;
	uint32_t batch = small(r, 3), k = dim(r), n = dim(r), gs, g, bias;
	uint32_t sa[DRM_NPU_MAX_RANK], so[DRM_NPU_MAX_RANK], sw[2], ss[2];
	uint8_t adt = DTYPE(r, dt_float), i;

	t->opcode = DRM_NPU_OP_MATMUL_WQ;
	p->flags = r8(r) & DRM_NPU_MATMUL_HAS_BIAS;
	bias = !!p->flags;
	gs = r8(r) & 1 ? dim(r) : 32u << small(r, 3);
	p->group_size = gs;
	g = gs ? (uint32_t)(((uint64_t)k + gs - 1) / gs) : 0;
	act_params(r, &p->act, 0);
	for (i = 0; i <= batch; i++)
		sa[i] = so[i] = dim(r);
	sa[batch + 1] = k;
	so[batch + 1] = n;
	sw[0] = k;
	sw[1] = n;
	ss[0] = g;
	ss[1] = n;
	t->num_operands = 4 + bias;
	opnd(r, &t->operands[0], 0, adt, batch + 2, sa);
	opnd(r, &t->operands[1], 1, r8(r) & 1 ? DRM_NPU_DTYPE_I4 :
	     DRM_NPU_DTYPE_I8, 2, sw);
	opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_F32, 2, ss);
	if (bias)
		opnd(r, &t->operands[3], 3, DRM_NPU_DTYPE_F32, 1, &n);
	opnd(r, &t->operands[3 + bias], 3 + bias, adt, batch + 2, so);
}

static void t_conv2d(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_conv2d_params *p = &t->params.conv2d;
	uint32_t in[4], w[4], out[4], cin, bias, res;
	uint8_t lay = r8(r);

	t->opcode = DRM_NPU_OP_CONV2D;
	in[0] = dim(r);
	cin = dim(r);
	in[2] = dim(r);
	in[3] = dim(r);
	w[0] = dim(r);
	w[2] = 1 + small(r, 3);
	w[3] = 1 + small(r, 3);
	p->groups = r8(r) & 1 && cin ? cin : 1;
	if (p->groups > 1)
		w[0] = p->groups;
	w[1] = cin / p->groups;
	in[1] = cin;
	p->stride_h = 1 + small(r, 3);
	p->stride_w = 1 + small(r, 3);
	p->dilation_h = 1 + small(r, 2);
	p->dilation_w = 1 + small(r, 2);
	p->pad_top = small(r, 3);
	p->pad_bottom = small(r, 3);
	p->pad_left = small(r, 3);
	p->pad_right = small(r, 3);
	p->flags = r8(r) & (DRM_NPU_CONV_HAS_BIAS | DRM_NPU_CONV_HAS_RESIDUAL);
	act_params(r, &p->act, 0);
	bias = p->flags & DRM_NPU_CONV_HAS_BIAS;
	res = !!(p->flags & DRM_NPU_CONV_HAS_RESIDUAL);
	out[0] = in[0];
	out[1] = w[0];
	out[2] = window_out(in[2], p->pad_top + p->pad_bottom, w[2],
			    p->stride_h, p->dilation_h);
	out[3] = window_out(in[3], p->pad_left + p->pad_right, w[3],
			    p->stride_w, p->dilation_w);
	t->num_operands = 3 + bias + res;
	act4(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, lay & 1, in);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_F32, 4, w);
	if (bias)
		opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_F32, 1, &w[0]);
	act4(r, &t->operands[2 + bias + res], 2 + bias + res,
	     DRM_NPU_DTYPE_F32, lay & 2, out);
	if (res) {
		/* the residual: the output's view in its own slot */
		t->operands[2 + bias] = t->operands[3 + bias];
		t->operands[2 + bias].slot = 2 + bias;
	}
}

static void t_pool2d(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_pool2d_params *p = &t->params.pool2d;
	uint32_t in[4], out[4];
	uint8_t dt, nc1 = r8(r) & 1;

	t->opcode = DRM_NPU_OP_POOL2D;
	t->num_operands = 2;
	p->kind = small(r, DRM_NPU_POOL_COUNT);
	dt = p->kind == DRM_NPU_POOL_MAX || p->kind == DRM_NPU_POOL_GLOBAL_MAX ?
	     DTYPE(r, dt_pool) : DTYPE(r, dt_float);
	in[0] = dim(r);
	in[1] = dim(r);
	in[2] = dim(r);
	in[3] = dim(r);
	out[0] = in[0];
	out[1] = in[1];
	if (p->kind >= DRM_NPU_POOL_GLOBAL_AVG) {
		out[2] = out[3] = 1;
	} else {
		p->kernel_h = 1 + small(r, 3);
		p->kernel_w = 1 + small(r, 3);
		p->stride_h = 1 + small(r, 3);
		p->stride_w = 1 + small(r, 3);
		p->dilation_h = 1 + small(r, 2);
		p->dilation_w = 1 + small(r, 2);
		p->pad_top = small(r, 2);
		p->pad_left = small(r, 2);
		if (p->kind == DRM_NPU_POOL_AVG)
			p->flags = r8(r) & DRM_NPU_POOL_COUNT_INCLUDE_PAD;
		out[2] = window_out(in[2], p->pad_top + p->pad_bottom,
				    p->kernel_h, p->stride_h, p->dilation_h);
		out[3] = window_out(in[3], p->pad_left + p->pad_right,
				    p->kernel_w, p->stride_w, p->dilation_w);
	}
	act4(r, &t->operands[0], 0, dt, nc1, in);
	act4(r, &t->operands[1], 1, dt, nc1, out);
	if (nc1)	/* the same C1 both sides, whichever way it was made */
		t->operands[1].shape[1] = t->operands[0].shape[1];
}

static void t_softmax(struct rd *r, struct drm_npu_task *t)
{
	uint32_t s[DRM_NPU_MAX_RANK], rank = shape_of(r, 6, s);

	t->opcode = DRM_NPU_OP_SOFTMAX;
	t->num_operands = 2;
	t->params.softmax.axis = rank ? small(r, rank) : 0;
	t->params.softmax.flags = r8(r) & DRM_NPU_SOFTMAX_LOG;
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, rank, s);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_F32, rank, s);
}

static void t_reduce(struct rd *r, struct drm_npu_task *t)
{
	uint32_t s[DRM_NPU_MAX_RANK], o[DRM_NPU_MAX_RANK];
	uint32_t rank = shape_of(r, 6, s), i;
	uint8_t dt = DTYPE(r, dt_reduce);

	t->opcode = DRM_NPU_OP_REDUCE;
	t->num_operands = 2;
	t->params.reduce.kind = small(r, DRM_NPU_REDUCE_COUNT);
	t->params.reduce.axes = r8(r) & ((1u << rank) - 1);
	for (i = 0; i < rank; i++)
		o[i] = (t->params.reduce.axes >> i) & 1 ? 1 : s[i];
	opnd(r, &t->operands[0], 0, dt, rank, s);
	opnd(r, &t->operands[1], 1, dt, rank, o);
}

/*
 * The shape of a LAYERNORM scale or bias: in[axis:] with some dims 1
 * (broadcast with stride 0, which a size-1 dim of the data must not make
 * look contiguous).
 */
static void ln_param_shape(struct rd *r, const uint32_t *tail, uint32_t n,
			   uint32_t *out)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		out[i] = (r8(r) & 3) ? tail[i] : 1;
}

static void t_layernorm(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_norm_params *p = &t->params.norm;
	uint32_t s[DRM_NPU_MAX_RANK], rank = shape_of(r, 6, s), bias;
	uint32_t ps[DRM_NPU_MAX_RANK];

	if (!rank) {
		rank = 1;
		s[0] = dim(r);
	}
	t->opcode = DRM_NPU_OP_LAYERNORM;
	p->axis = small(r, rank);
	p->epsilon = 0x3727c5acu;	/* 1e-5 */
	p->flags = r8(r) & DRM_NPU_NORM_HAS_BIAS;
	bias = p->flags & DRM_NPU_NORM_HAS_BIAS;
	t->num_operands = 3 + bias;
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, rank, s);
	ln_param_shape(r, s + p->axis, rank - p->axis, ps);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_F32, rank - p->axis, ps);
	if (bias) {
		ln_param_shape(r, s + p->axis, rank - p->axis, ps);
		opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_F32,
		     rank - p->axis, ps);
	}
	opnd(r, &t->operands[2 + bias], 2 + bias, DRM_NPU_DTYPE_F32, rank, s);
}

static void t_batchnorm(struct rd *r, struct drm_npu_task *t)
{
	uint32_t s[4], i;
	int nc1 = r8(r) & 1;

	t->opcode = DRM_NPU_OP_BATCHNORM;
	t->num_operands = 6;
	t->params.norm.epsilon = 0x3727c5acu;
	for (i = 0; i < 4; i++)
		s[i] = dim(r);
	act4(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, nc1, s);
	for (i = 1; i <= 4; i++)
		opnd(r, &t->operands[i], (uint16_t)i, DRM_NPU_DTYPE_F32, 1,
		     &s[1]);
	t->operands[5] = t->operands[0];
	t->operands[5].slot = 5;
}

static void t_gather(struct rd *r, struct drm_npu_task *t)
{
	uint32_t d[DRM_NPU_MAX_RANK], ix[DRM_NPU_MAX_RANK];
	uint32_t o[DRM_NPU_MAX_RANK] = { 0 }, dr, ir, axis, i, j = 0;
	uint8_t dt = DTYPE(r, dt_any);

	dr = 1 + small(r, 3);
	for (i = 0; i < dr; i++)
		d[i] = dim(r);
	ir = small(r, 3);
	for (i = 0; i < ir; i++)
		ix[i] = dim(r);
	axis = small(r, dr);
	for (i = 0; i < dr; i++) {
		uint32_t q;

		if (i != axis) {
			o[j++] = d[i];
			continue;
		}
		for (q = 0; q < ir; q++)
			o[j++] = ix[q];
	}
	t->opcode = DRM_NPU_OP_GATHER;
	t->num_operands = 3;
	t->params.gather.axis = axis;
	opnd(r, &t->operands[0], 0, dt, dr, d);
	opnd(r, &t->operands[1], 1, r8(r) & 1 ? DRM_NPU_DTYPE_I64 :
	     DRM_NPU_DTYPE_I32, ir, ix);
	opnd(r, &t->operands[2], 2, dt, j, o);
}

static void t_where(struct rd *r, struct drm_npu_task *t)
{
	uint32_t s[DRM_NPU_MAX_RANK], b[DRM_NPU_MAX_RANK], rank, rb, i;
	uint8_t dt = DTYPE(r, dt_any);

	rank = shape_of(r, 6, s);
	t->opcode = DRM_NPU_OP_WHERE;
	t->num_operands = 4;
	for (i = 0; i < 3; i++) {
		rb = bcast_of(r, rank, s, b);
		opnd(r, &t->operands[i], (uint16_t)i,
		     i ? dt : DRM_NPU_DTYPE_BOOL, rb, b);
	}
	opnd(r, &t->operands[3], 3, dt, rank, s);
}

static void t_pad(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_pad_params *p = &t->params.padding;
	uint32_t s[DRM_NPU_MAX_RANK], o[DRM_NPU_MAX_RANK];
	uint32_t rank = shape_of(r, 6, s), i;
	uint8_t dt = DTYPE(r, dt_any);

	t->opcode = DRM_NPU_OP_PAD;
	t->num_operands = 2;
	p->mode = small(r, DRM_NPU_PAD_MODE_COUNT);
	for (i = 0; i < rank; i++) {
		uint32_t after = small(r, 3);

		p->before[i] = r8(r) < 240 ? small(r, 3) : dim(r);
		o[i] = s[i] + p->before[i] + after;
	}
	opnd(r, &t->operands[0], 0, dt, rank, s);
	opnd(r, &t->operands[1], 1, dt, rank, o);
}

static void t_resize(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_resize_params *p = &t->params.resize;
	uint32_t s[DRM_NPU_MAX_RANK], o[DRM_NPU_MAX_RANK];
	uint32_t rank = shape_of(r, 6, s), i;
	uint8_t dt;

	t->opcode = DRM_NPU_OP_RESIZE;
	t->num_operands = 2;
	p->mode = small(r, DRM_NPU_RESIZE_MODE_COUNT);
	p->coord = small(r, DRM_NPU_RESIZE_COORD_COUNT);
	if (p->mode == DRM_NPU_RESIZE_NEAREST)
		p->nearest = small(r, DRM_NPU_RESIZE_NEAREST_COUNT);
	if (p->mode == DRM_NPU_RESIZE_CUBIC) {
		/* -0.75, or any bits (NaN and infinities refused) */
		p->cubic_a = r8(r) & 1 ? 0xbf400000u : r32(r);
		p->flags = small(r, 4);		/* 2 and 3: unknown flags */
	}
	dt = p->mode != DRM_NPU_RESIZE_NEAREST ? DRM_NPU_DTYPE_F32 :
	     DTYPE(r, dt_any);
	for (i = 0; i < rank; i++) {
		o[i] = r8(r) & 1 ? s[i] * (1 + small(r, 3)) : dim(r);
		if (r8(r) < 32)
			p->scale[i] = r8(r) & 1 ? F32_TWO : F32_HALF;
	}
	opnd(r, &t->operands[0], 0, dt, rank, s);
	opnd(r, &t->operands[1], 1, dt, rank, o);
}

static void t_transdata(struct rd *r, struct drm_npu_task *t)
{
	uint32_t s[4], i;
	uint8_t dt = DTYPE(r, dt_trans), dir = r8(r) & 1;

	t->opcode = DRM_NPU_OP_TRANSDATA;
	t->num_operands = 2;
	for (i = 0; i < 4; i++)
		s[i] = dim(r);
	act4(r, &t->operands[0], 0, dt, dir, s);
	act4(r, &t->operands[1], 1, dt, !dir, s);
}

static void t_quant(struct rd *r, struct drm_npu_task *t, int quantize)
{
	struct drm_npu_quant_params *p = &t->params.quant;
	uint32_t s[DRM_NPU_MAX_RANK], rank = shape_of(r, 6, s), i;
	uint8_t q = r8(r) & 1 ? DRM_NPU_DTYPE_I8 : DRM_NPU_DTYPE_U8;

	t->opcode = quantize ? DRM_NPU_OP_QUANTIZE : DRM_NPU_OP_DEQUANTIZE;
	t->num_operands = 2;
	if (!quantize && r8(r) < 64)
		q = DRM_NPU_DTYPE_I32;
	if (rank && r8(r) < 64) {
		p->flags = DRM_NPU_QUANT_PER_CHANNEL;
		p->axis = small(r, rank);
		t->num_operands = 3 + (r8(r) & 1);
	} else {
		p->scale = r8(r) & 1 ? F32_HALF : F32_ONE;
		p->zero_point = q == DRM_NPU_DTYPE_I32 ? 0 : (int32_t)small(r, 100);
	}
	opnd(r, &t->operands[0], 0, quantize ? DRM_NPU_DTYPE_F32 : q, rank, s);
	opnd(r, &t->operands[1], 1, quantize ? q : DRM_NPU_DTYPE_F32, rank, s);
	for (i = 2; i < t->num_operands; i++)
		opnd(r, &t->operands[i], (uint16_t)i,
		     i == 2 ? DRM_NPU_DTYPE_F32 : q, 1, &s[p->axis]);
}

static void t_attention(struct rd *r, struct drm_npu_task *t)
{
	uint32_t batch = small(r, 3), sq = dim(r), sk = dim(r), d = dim(r);
	uint32_t dv = dim(r), q[DRM_NPU_MAX_RANK], k[DRM_NPU_MAX_RANK];
	uint32_t v[DRM_NPU_MAX_RANK], o[DRM_NPU_MAX_RANK], mask, i;

	t->opcode = DRM_NPU_OP_ATTENTION;
	t->params.attention.scale = F32_HALF;
	t->params.attention.flags = r8(r) & DRM_NPU_ATTN_HAS_MASK;
	mask = t->params.attention.flags;
	for (i = 0; i < batch; i++)
		q[i] = k[i] = v[i] = o[i] = dim(r);
	q[batch] = sq;
	q[batch + 1] = d;
	k[batch] = sk;
	k[batch + 1] = d;
	v[batch] = sk;
	v[batch + 1] = dv;
	o[batch] = sq;
	o[batch + 1] = dv;
	t->num_operands = 4 + mask;
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, batch + 2, q);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_F32, batch + 2, k);
	opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_F32, batch + 2, v);
	if (mask) {
		uint32_t m[DRM_NPU_MAX_RANK];

		memcpy(m, o, sizeof(m));
		m[batch + 1] = sk;
		opnd(r, &t->operands[3], 3, r8(r) & 1 ? DRM_NPU_DTYPE_BOOL :
		     DRM_NPU_DTYPE_F32, batch + 2, m);
	}
	opnd(r, &t->operands[3 + mask], 3 + mask, DRM_NPU_DTYPE_F32,
	     batch + 2, o);
}

/* int8 requantization params: mostly valid, sometimes off by a little. */
static void requant_params(struct rd *r, struct drm_npu_requant *q,
			   uint32_t flags)
{
	uint8_t b = r8(r);

	q->a_zero = (int32_t)small(r, 5) - 2;
	q->b_zero = b & 1 ? 0 : (int32_t)small(r, 3);
	q->y_zero = (int32_t)small(r, 7) - 3;
	q->y_min = -128;
	q->y_max = 127;
	if (b & 2)
		q->y_min = q->y_zero;
	q->scale = flags & DRM_NPU_Q_PER_CHANNEL ? 0 : 0x3c000000u;
}

static void t_qconv2d(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_qconv2d_params *p = &t->params.qconv2d;
	uint32_t in[5], w[5], out[5], cin, extra, i = 2;
	uint8_t lay = r8(r);
	int packed = (lay & 4) != 0;

	t->opcode = DRM_NPU_OP_QCONV2D;
	in[0] = dim(r);
	cin = dim(r);
	in[2] = dim(r);
	in[3] = dim(r);
	w[0] = dim(r);
	w[2] = 1 + small(r, 3);
	w[3] = 1 + small(r, 3);
	p->groups = r8(r) & 1 && cin && !packed ? cin : 1;
	if (p->groups > 1)
		w[0] = p->groups;
	w[1] = cin / p->groups;
	in[1] = cin;
	p->stride_h = 1 + small(r, 3);
	p->stride_w = 1 + small(r, 3);
	p->dilation_h = 1 + small(r, 2);
	p->dilation_w = 1 + small(r, 2);
	p->pad_top = small(r, 3);
	p->pad_bottom = small(r, 3);
	p->pad_left = small(r, 3);
	p->pad_right = small(r, 3);
	p->flags = r8(r) & (DRM_NPU_Q_HAS_BIAS | DRM_NPU_Q_PER_CHANNEL);
	requant_params(r, &p->q, p->flags);
	if (packed)
		p->q.b_zero = 0;
	extra = !!(p->flags & DRM_NPU_Q_HAS_BIAS) +
		!!(p->flags & DRM_NPU_Q_PER_CHANNEL);
	out[0] = in[0];
	out[1] = w[0];
	out[2] = window_out(in[2], p->pad_top + p->pad_bottom, w[2],
			    p->stride_h, p->dilation_h);
	out[3] = window_out(in[3], p->pad_left + p->pad_right, w[3],
			    p->stride_w, p->dilation_w);
	t->num_operands = 3 + extra;
	act4(r, &t->operands[0], 0, DRM_NPU_DTYPE_I8, (lay & 1) || packed,
	     in);
	if (packed) {
		w[4] = 32;
		w[1] = t->operands[0].shape[1];
		opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_I8, 5, w);
		t->operands[1].layout = DRM_NPU_LAYOUT_NC1HWC0;
	} else {
		opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_I8, 4, w);
	}
	if (p->flags & DRM_NPU_Q_HAS_BIAS)
		opnd(r, &t->operands[i], (uint16_t)i, DRM_NPU_DTYPE_I32, 1,
		     &w[0]), i++;
	if (p->flags & DRM_NPU_Q_PER_CHANNEL)
		opnd(r, &t->operands[i], (uint16_t)i, DRM_NPU_DTYPE_F32, 1,
		     &w[0]), i++;
	act4(r, &t->operands[i], (uint16_t)i, lay & 8 ? DRM_NPU_DTYPE_U8 :
	     DRM_NPU_DTYPE_I8, lay & 2, out);
}

static void t_qmatmul(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_qmatmul_params *p = &t->params.qmatmul;
	uint32_t a[3], b[2], o[3], extra, i = 2, m = dim(r), k = dim(r);
	uint32_t n = dim(r);

	t->opcode = DRM_NPU_OP_QMATMUL;
	p->flags = r8(r) & (DRM_NPU_Q_HAS_BIAS | DRM_NPU_Q_PER_CHANNEL |
			    DRM_NPU_Q_TRANS_B);
	requant_params(r, &p->q, p->flags);
	extra = !!(p->flags & DRM_NPU_Q_HAS_BIAS) +
		!!(p->flags & DRM_NPU_Q_PER_CHANNEL);
	a[0] = o[0] = 1 + small(r, 3);
	a[1] = o[1] = m;
	a[2] = k;
	o[2] = n;
	b[0] = p->flags & DRM_NPU_Q_TRANS_B ? n : k;
	b[1] = p->flags & DRM_NPU_Q_TRANS_B ? k : n;
	t->num_operands = 3 + extra;
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_U8, 3, a);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_I8, 2, b);
	if (p->flags & DRM_NPU_Q_HAS_BIAS)
		opnd(r, &t->operands[i], (uint16_t)i, DRM_NPU_DTYPE_I32, 1, &n),
		i++;
	if (p->flags & DRM_NPU_Q_PER_CHANNEL)
		opnd(r, &t->operands[i], (uint16_t)i, DRM_NPU_DTYPE_F32, 1, &n),
		i++;
	opnd(r, &t->operands[i], (uint16_t)i, DRM_NPU_DTYPE_I8, 3, o);
}

static void t_qadd(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_qadd_params *p = &t->params.qadd;
	uint32_t s[DRM_NPU_MAX_RANK], rank = shape_of(r, 5, s);
	uint8_t b = r8(r);

	t->opcode = DRM_NPU_OP_QADD;
	p->a_scale = p->b_scale = 0x3c000000u;
	p->y_scale = 0x3c800000u;
	p->a_zero = (int32_t)small(r, 5) - 2;
	p->b_zero = (int32_t)small(r, 5) - 2;
	p->y_zero = (int32_t)small(r, 5) - 2;
	p->y_min = b & 1 ? p->y_zero : -128;
	p->y_max = 127;
	t->num_operands = 3;
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_I8, rank, s);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_I8, rank, s);
	opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_I8, rank, s);
}

/* RNN: one recurrent layer (cell, direction, clip from the input). */
static void t_rnn(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_rnn_params *p = &t->params.rnn;
	uint32_t tl = dim(r), b = dim(r), h = dim(r), g, s, n;
	uint32_t xs[3], rs[2], hs[2], ss[4];

	p->cell = r8(r) % DRM_NPU_RNN_CELL_COUNT;
	p->flags = r8(r) & DRM_NPU_RNN_REVERSE;
	if (p->cell == DRM_NPU_RNN_GRU && (r8(r) & 1))
		p->flags |= DRM_NPU_RNN_LINEAR_BEFORE_RESET;
	p->clip = r8(r) < 64 ? F32_TWO : 0;
	g = p->cell == DRM_NPU_RNN_LSTM ? 4 :
	    p->cell == DRM_NPU_RNN_GRU ? 3 : 1;
	s = p->cell == DRM_NPU_RNN_LSTM ||
	    (p->cell == DRM_NPU_RNN_GRU &&
	     !(p->flags & DRM_NPU_RNN_LINEAR_BEFORE_RESET)) ? 2 : 1;
	n = p->cell == DRM_NPU_RNN_TANH ? 4 : 5;
	t->opcode = DRM_NPU_OP_RNN;
	t->num_operands = (uint8_t)n;
	xs[0] = tl;
	xs[1] = b;
	xs[2] = g * h;
	rs[0] = g * h;
	rs[1] = h;
	hs[0] = b;
	hs[1] = h;
	ss[0] = tl;
	ss[1] = b;
	ss[2] = s;
	ss[3] = h;
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, 3, xs);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_F32, 2, rs);
	opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_F32, 2, hs);
	if (n == 5)
		opnd(r, &t->operands[3], 3, DRM_NPU_DTYPE_F32,
		     p->cell == DRM_NPU_RNN_LSTM ? 2 : 1,
		     p->cell == DRM_NPU_RNN_LSTM ? hs : &hs[1]);
	opnd(r, &t->operands[n - 1], (uint16_t)(n - 1), DRM_NPU_DTYPE_F32, 4,
	     ss);
}

/* TOPK: indices of the k best of each line along an axis. */
static void t_topk(struct rd *r, struct drm_npu_task *t)
{
	static const uint8_t dts[] = {
		DRM_NPU_DTYPE_F32, DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_I64,
	};
	struct drm_npu_topk_params *p = &t->params.topk;
	uint32_t s[DRM_NPU_MAX_RANK] = { 0 }, o[DRM_NPU_MAX_RANK];
	uint32_t rank = shape_of(r, 6, s);

	t->opcode = DRM_NPU_OP_TOPK;
	t->num_operands = 2;
	if (!rank) {
		rank = 1;
		s[0] = dim(r);
	}
	p->axis = small(r, rank);
	p->flags = r8(r) & DRM_NPU_TOPK_LARGEST;
	p->k = s[p->axis] ? 1 + small(r, s[p->axis] < 16 ? s[p->axis] : 16) :
			    dim(r);
	memcpy(o, s, sizeof(o));
	o[p->axis] = p->k;
	opnd(r, &t->operands[0], 0, DTYPE(r, dts), rank, s);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_I64, rank, o);
}

/*
 * GRID_SAMPLE: in [N, C, H, W], grid [N, Ho, Wo, 2] (its values, from the
 * fill bytes, any float: huge, NaN, inf), out [N, C, Ho, Wo].
 */
static void t_grid_sample(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_grid_sample_params *p = &t->params.grid_sample;
	uint32_t s[4], g[4], o[4];

	t->opcode = DRM_NPU_OP_GRID_SAMPLE;
	t->num_operands = 3;
	p->mode = small(r, DRM_NPU_GRID_SAMPLE_MODE_COUNT);
	p->padding = small(r, DRM_NPU_GRID_SAMPLE_PADDING_COUNT);
	p->flags = r8(r) & DRM_NPU_GRID_SAMPLE_ALIGN_CORNERS;
	s[0] = 1 + small(r, 2);
	s[1] = 1 + small(r, 3);
	s[2] = dim(r);
	s[3] = dim(r);
	g[0] = o[0] = s[0];
	g[1] = o[2] = dim(r);
	g[2] = o[3] = dim(r);
	g[3] = 2;
	o[1] = s[1];
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, 4, s);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_F32, 4, g);
	opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_F32, 4, o);
}

/*
 * RANDOM: out (and BERNOULLI's p, whose values come from the fill bytes:
 * NaN, negative, above 1) of any shape, near-2^32 dims included; a seed,
 * a and b from the input (infinite or NaN ones now and then).
 */
static void t_random(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_random_params *p = &t->params.random;
	uint32_t s[DRM_NPU_MAX_RANK], rank = shape_of(r, 4, s);

	t->opcode = DRM_NPU_OP_RANDOM;
	p->dist = small(r, DRM_NPU_RANDOM_DIST_COUNT + 1);
	p->flags = r8(r) & 3;			/* 2: an unknown flag */
	p->seed_lo = r32(r);
	p->seed_hi = r32(r);
	if (p->dist != DRM_NPU_RANDOM_BERNOULLI || r8(r) > 250) {
		p->a = r8(r) & 1 ? 0xbf800000u : r32(r);
		p->b = r8(r) & 1 ? 0x40000000u : r32(r);
	}
	t->num_operands = p->dist == DRM_NPU_RANDOM_BERNOULLI ? 2 : 1;
	if (t->num_operands == 2)
		opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, rank, s);
	opnd(r, &t->operands[t->num_operands - 1], 1, DRM_NPU_DTYPE_F32,
	     rank, s);
}

/*
 * ROI_ALIGN: in [N, C, H, W], rois [R, 4] and batch indices [R] (their
 * values from the fill bytes: any box, any index), out [R, C, Oh, Ow].
 */
static void t_roi_align(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_roi_align_params *p = &t->params.roi_align;
	uint32_t s[4], rr[2], b[1], o[4];

	t->opcode = DRM_NPU_OP_ROI_ALIGN;
	t->num_operands = 4;
	p->mode = small(r, DRM_NPU_ROI_ALIGN_MODE_COUNT);
	p->flags = r8(r) & 3;			/* 2: an unknown flag */
	p->spatial_scale = r8(r) & 1 ? 0x3e800000u : r32(r);
	p->sampling_ratio = r8(r) < 200 ? small(r, 4) : dim(r);
	s[0] = 1 + small(r, 2);
	s[1] = 1 + small(r, 3);
	s[2] = dim(r);
	s[3] = dim(r);
	rr[0] = b[0] = o[0] = 1 + small(r, 4);
	rr[1] = 4;
	o[1] = s[1];
	o[2] = 1 + small(r, 4);
	o[3] = 1 + small(r, 4);
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, 4, s);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_F32, 2, rr);
	opnd(r, &t->operands[2], 2, r8(r) & 1 ? DRM_NPU_DTYPE_I64 :
	     DRM_NPU_DTYPE_I32, 1, b);
	opnd(r, &t->operands[3], 3, DRM_NPU_DTYPE_F32, 4, o);
}

/* SCATTER: ND or ELEMENTS, any reduction; indices from the fill bytes. */
static void t_scatter(struct rd *r, struct drm_npu_task *t)
{
	static const uint8_t dts[] = {
		DRM_NPU_DTYPE_F32, DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_I64,
		DRM_NPU_DTYPE_U8,
	};
	struct drm_npu_scatter_params *p = &t->params.scatter;
	uint32_t o[DRM_NPU_MAX_RANK] = { 0 }, ix[DRM_NPU_MAX_RANK] = { 0 };
	uint32_t u[DRM_NPU_MAX_RANK] = { 0 }, rank = shape_of(r, 4, o), i, k;
	uint8_t dt = DTYPE(r, dts);

	t->opcode = DRM_NPU_OP_SCATTER;
	t->num_operands = 3;
	if (!rank) {
		rank = 1;
		o[0] = dim(r);
	}
	p->reduce = r8(r) % DRM_NPU_SCATTER_REDUCE_COUNT;
	if (dt == DRM_NPU_DTYPE_U8)
		p->reduce = DRM_NPU_SCATTER_NONE;
	if (r8(r) & 1) {
		p->flags = DRM_NPU_SCATTER_ELEMENTS;
		p->axis = small(r, rank);
		for (i = 0; i < rank; i++)
			ix[i] = u[i] = i == p->axis ? 1 + small(r, 4) :
				       (o[i] ? 1 + small(r, o[i] < 8 ? o[i] : 8) :
					0);
		opnd(r, &t->operands[0], 0, r8(r) & 1 ? DRM_NPU_DTYPE_I32 :
		     DRM_NPU_DTYPE_I64, rank, ix);
		opnd(r, &t->operands[1], 1, dt, rank, u);
	} else {
		k = 1 + small(r, rank);
		ix[0] = 1 + small(r, 4);
		ix[1] = k;
		u[0] = ix[0];
		for (i = k; i < rank; i++)
			u[1 + i - k] = o[i];
		opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_I64, 2, ix);
		opnd(r, &t->operands[1], 1, dt, 1 + rank - k, u);
	}
	opnd(r, &t->operands[2], 2, dt, rank, o);
}

/* MATH: a trigonometric kind over a broadcast F32 input. */
static void t_math(struct rd *r, struct drm_npu_task *t)
{
	uint32_t s[DRM_NPU_MAX_RANK] = { 0 }, rank = shape_of(r, 6, s);

	t->opcode = DRM_NPU_OP_MATH;
	t->num_operands = 2;
	t->params.math.kind = r8(r) % DRM_NPU_MATH_KIND_COUNT;
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, rank, s);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_F32, rank, s);
}

/* ---- data-dependent extents (uapi 1.5) ---- */

/* NONZERO: in of any dtype, out [rank, numel] (its bound), a count. */
static void t_nonzero(struct rd *r, struct drm_npu_task *t)
{
	uint32_t s[DRM_NPU_MAX_RANK] = { 0 }, rank = shape_of(r, 5, s), i;
	uint32_t o[2] = { rank, 1 }, one[1] = { 1 };
	uint64_t n = 1;

	for (i = 0; i < rank; i++)
		n *= s[i];
	o[1] = (uint32_t)n;	/* the wrap of a huge numel is for the checker */
	t->opcode = DRM_NPU_OP_NONZERO;
	t->num_operands = 3;
	opnd(r, &t->operands[0], 0, DTYPE(r, dt_any), rank, s);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_I64, 2, o);
	opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_I64, 1, one);
}

/* NMS: boxes [B, N, 4], scores [B, C, N], scratch, out, counts. */
static void t_nms(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_nms_params *p = &t->params.nms;
	uint32_t b = 1 + small(r, 3), c = 1 + small(r, 4), n = dim(r), keep;
	uint32_t bs[3] = { b, n, 4 }, ss[3] = { b, c, n }, ws[2] = { b * c, n };
	uint32_t os[2], ps[1] = { b * c };

	t->opcode = DRM_NPU_OP_NMS;
	t->num_operands = 5;
	p->flags = r8(r) & 3;
	p->max_per_class = r8(r) & 1 ? dim(r) : 1 + small(r, 16);
	p->iou_threshold = r8(r) & 1 ? r32(r) : 0x3f000000u;
	if (p->flags & DRM_NPU_NMS_HAS_SCORE_THRESHOLD)
		p->score_threshold = r8(r) & 1 ? r32(r) : 0x3e800000u;
	keep = n < p->max_per_class ? n : p->max_per_class;
	os[0] = b * c * keep;
	os[1] = 3;
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_F32, 3, bs);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_F32, 3, ss);
	opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_I32, 2, ws);
	opnd(r, &t->operands[3], 3, DRM_NPU_DTYPE_I64, 2, os);
	opnd(r, &t->operands[4], 4, DRM_NPU_DTYPE_I64, 1, ps);
}

/* PACK_ROWS: counts [P] (from the fill bytes), data [P, K, W], count. */
static void t_pack_rows(struct rd *r, struct drm_npu_task *t)
{
	uint32_t ps[1] = { 1 + small(r, 8) }, ds[3], one[1] = { 1 };

	ds[0] = ps[0];
	ds[1] = dim(r);
	ds[2] = 1 + small(r, 4);
	t->opcode = DRM_NPU_OP_PACK_ROWS;
	t->num_operands = 3;
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_I64, 1, ps);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_I64, 3, ds);
	opnd(r, &t->operands[2], 2, DRM_NPU_DTYPE_I64, 1, one);
}

/* UNIQUE: in [O, A, I] of a few dtypes, perm, y, indices, counts, count. */
static void t_unique(struct rd *r, struct drm_npu_task *t)
{
	static const uint8_t dts[] = {
		DRM_NPU_DTYPE_F32, DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_I64,
		DRM_NPU_DTYPE_U8, DRM_NPU_DTYPE_F16,
	};
	uint32_t s[3] = { 1 + small(r, 3), dim(r), 1 + small(r, 4) };
	uint32_t p[2] = { 2, s[1] }, a[1] = { s[1] }, one[1] = { 1 };
	uint8_t dt = DTYPE(r, dts);

	t->opcode = DRM_NPU_OP_UNIQUE;
	t->num_operands = 6;
	t->params.unique.flags = r8(r) & 1;
	opnd(r, &t->operands[0], 0, dt, 3, s);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_I64, 2, p);
	opnd(r, &t->operands[2], 2, dt, 3, s);
	opnd(r, &t->operands[3], 3, DRM_NPU_DTYPE_I64, 1, a);
	opnd(r, &t->operands[4], 4, DRM_NPU_DTYPE_I64, 1, a);
	opnd(r, &t->operands[5], 5, DRM_NPU_DTYPE_I64, 1, one);
}

/*
 * Issue 18's opcodes (30..): op bytes 250, 251, ... pick these, in order.
 */

/* ---- images (issue 19): the media unit and AIPP ---- */

/* Operand 0 (and the UV plane) of an image in @fmt; N, H, W out. */
static uint32_t img_in(struct rd *r, struct drm_npu_task *t, uint32_t fmt,
		       uint32_t *nhw)
{
	uint32_t s[4], i;

	for (i = 0; i < 3; i++)
		nhw[i] = i ? dim(r) : small(r, 3);
	s[0] = nhw[0];
	s[1] = nhw[1];
	s[2] = nhw[2];
	switch (fmt) {
	case DRM_NPU_IMG_NV12:
	case DRM_NPU_IMG_NV21:
		opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_U8, 3, s);
		/* ceil(H/2) as a careless writer computes it (32 bits) */
		s[1] = r8(r) & 1 ? (nhw[1] + 1) / 2 : nhw[1] / 2 + 1;
		s[2] = (nhw[2] + 1) / 2;
		s[3] = 2;
		opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_U8, 4, s);
		return 2;
	case DRM_NPU_IMG_YUV400:
		opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_U8, 3, s);
		return 1;
	default:
		s[3] = fmt == DRM_NPU_IMG_XRGB8888 ? 4 : 3;
		opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_U8, 4, s);
		return 1;
	}
}

static void t_img_csc(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_img_csc_params *p = &t->params.img_csc;
	uint32_t nhw[3], s[4], n;

	t->opcode = DRM_NPU_OP_IMG_CSC;
	p->in_format = small(r, DRM_NPU_IMG_FORMAT_COUNT);
	p->out_format = r8(r) & 1 ? DRM_NPU_IMG_RGB888 : DRM_NPU_IMG_BGR888;
	if (p->in_format < DRM_NPU_IMG_RGB888 ||
	    p->in_format == DRM_NPU_IMG_YUV400)
		p->matrix = small(r, DRM_NPU_CSC_MATRIX_COUNT);
	n = img_in(r, t, p->in_format, nhw);
	memcpy(s, nhw, sizeof(nhw));
	s[3] = 3;
	t->num_operands = (uint8_t)(n + 1);
	opnd(r, &t->operands[n], (uint16_t)n, DRM_NPU_DTYPE_U8, 4, s);
}

static void t_img_resize(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_img_resize_params *p = &t->params.img_resize;
	uint32_t s[4], o[4], i;

	t->opcode = DRM_NPU_OP_IMG_RESIZE;
	t->num_operands = 2;
	p->mode = small(r, DRM_NPU_IMG_RESIZE_MODE_COUNT);
	s[0] = o[0] = small(r, 3);
	s[3] = o[3] = 1 + small(r, 4);
	for (i = 1; i < 3; i++) {
		s[i] = dim(r);
		o[i] = dim(r);
	}
	if (r8(r) < 64) {
		p->pad_top = small(r, 3);
		p->pad_left = small(r, 3);
		p->pad_bottom = r8(r) < 8 ? dim(r) : small(r, 3);
		p->pad_right = small(r, 3);
		p->border[0] = r8(r);
	}
	opnd(r, &t->operands[0], 0, DRM_NPU_DTYPE_U8, 4, s);
	opnd(r, &t->operands[1], 1, DRM_NPU_DTYPE_U8, 4, o);
}

static void t_aipp(struct rd *r, struct drm_npu_task *t)
{
	struct drm_npu_aipp_params *p = &t->params.aipp;
	uint32_t nhw[3], o[5], n, ch, i;
	int nc1 = r8(r) & 1;

	t->opcode = DRM_NPU_OP_AIPP;
	p->in_format = small(r, DRM_NPU_IMG_FORMAT_COUNT);
	p->flags = small(r, 4);
	if (p->in_format == DRM_NPU_IMG_YUV400)
		p->flags &= DRM_NPU_AIPP_CSC;
	if (p->flags & DRM_NPU_AIPP_CSC) {
		for (i = 0; i < 9; i++)
			p->matrix[i] = (int16_t)(r8(r) << 7);
		p->input_bias[1] = 128;
		p->output_bias[0] = r8(r);
	}
	ch = (p->in_format == DRM_NPU_IMG_YUV400 &&
	      !(p->flags & DRM_NPU_AIPP_CSC)) ? 1 : 3;
	for (i = 0; i < ch; i++) {
		p->mean[i] = r8(r);
		p->min[i] = F32_HALF;
		p->var_reci[i] = r8(r) & 1 ? F32_TWO : F32_ONE;
	}
	if (r8(r) < 64) {
		p->pad_top = small(r, 3);
		p->pad_right = r8(r) < 8 ? dim(r) : small(r, 3);
	}
	n = img_in(r, t, p->in_format, nhw);
	t->num_operands = (uint8_t)(n + 1);
	o[0] = nhw[0];
	o[1] = nc1 ? 1 : ch;
	o[2] = nhw[1] + p->pad_top + p->pad_bottom;
	o[3] = nhw[2] + p->pad_left + p->pad_right;
	o[4] = 16;
	opnd(r, &t->operands[n], (uint16_t)n, DRM_NPU_DTYPE_F32, nc1 ? 5 : 4, o);
	t->operands[n].layout = nc1 ? DRM_NPU_LAYOUT_NC1HWC0 :
				      DRM_NPU_LAYOUT_NCHW;
}

/* ---- raw mutations after the template ---- */

static void mutate(struct rd *r, struct drm_npu_task *t)
{
	uint32_t n = r8(r), i;

	/* mostly none: the templates are the point; sometimes up to 3 */
	n = n < 160 ? 0 : 1 + n % 3;
	for (i = 0; i < n; i++) {
		uint8_t what = r8(r), k = r8(r);
		struct drm_npu_operand *o =
			&t->operands[k % DRM_NPU_MAX_OPERANDS];
		uint32_t *w;

		switch (what % 8) {
		case 0:
			o->shape[(k >> 3) % DRM_NPU_MAX_RANK] = dim(r);
			break;
		case 1:
			o->strides[(k >> 3) % DRM_NPU_MAX_RANK] = dim(r);
			break;
		case 2:	/* an offset: aligned small, huge or raw */
			o->offset = (k & 8) ? ((uint64_t)dim(r) << (k >> 4)) :
					      (uint64_t)small(r, 64) * 4;
			break;
		case 3:	/* aliasing: share another operand's slot */
			o->slot = (k >> 3) % DRM_NPU_MAX_OPERANDS;
			break;
		case 4:
			o->dtype = (k >> 3) % (DRM_NPU_DTYPE_COUNT + 1);
			break;
		case 5:
			o->layout = (k >> 3) % (DRM_NPU_LAYOUT_COUNT + 1);
			break;
		case 6:	/* a params word */
			w = (uint32_t *)t->params.raw +
			    k % (DRM_NPU_TASK_PARAMS_SIZE / 4);
			*w = dim(r);
			break;
		default:
			o->rank = (k >> 3) % (DRM_NPU_MAX_RANK + 1);
			break;
		}
	}
}

/*
 * Index into npu_fuzz_extra_ops of opcode byte @b (>= NPU_FUZZ_EXTRA_BYTE):
 * the bytes below NPU_FUZZ_EXTRA_ESC pick the first entries directly, the
 * escape byte takes the next byte for the rest.
 */
static uint32_t npu_fuzz_extra_index(uint32_t b, struct rd *r)
{
	const uint32_t direct = NPU_FUZZ_EXTRA_ESC - NPU_FUZZ_EXTRA_BYTE;

	if (b < NPU_FUZZ_EXTRA_ESC)
		return (b - NPU_FUZZ_EXTRA_BYTE) % npu_fuzz_num_extra_ops;
	return direct + r8(r) % (npu_fuzz_num_extra_ops - direct);
}

void npu_fuzz_decode(const uint8_t *data, size_t size,
		     struct npu_fuzz_prog *p)
{
	struct rd r = { data, size };
	uint32_t i;

	memset(p, 0, sizeof(*p));
	p->num_tasks = 1 + r8(&r) % NPU_FUZZ_MAX_TASKS;
	for (i = 0; i < p->num_tasks; i++) {
		struct drm_npu_task *t = &p->tasks[i];
		uint8_t b = r8(&r), op = b % (DRM_NPU_OP_ATTENTION + 1);

		if (b >= NPU_FUZZ_EXTRA_BYTE)
			op = npu_fuzz_extra_ops[npu_fuzz_extra_index(b, &r)];

		switch (op) {
		case DRM_NPU_OP_NOP:
			break;
		case DRM_NPU_OP_COPY:
		case DRM_NPU_OP_UNARY:
			t_copy_like(&r, t, op);
			break;
		case DRM_NPU_OP_BINARY:
			t_binary(&r, t);
			break;
		case DRM_NPU_OP_MATMUL:
			t_matmul(&r, t);
			break;
		case DRM_NPU_OP_CONV2D:
			t_conv2d(&r, t);
			break;
		case DRM_NPU_OP_POOL2D:
			t_pool2d(&r, t);
			break;
		case DRM_NPU_OP_SOFTMAX:
			t_softmax(&r, t);
			break;
		case DRM_NPU_OP_REDUCE:
			t_reduce(&r, t);
			break;
		case DRM_NPU_OP_LAYERNORM:
			t_layernorm(&r, t);
			break;
		case DRM_NPU_OP_BATCHNORM:
			t_batchnorm(&r, t);
			break;
		case DRM_NPU_OP_GATHER:
			t_gather(&r, t);
			break;
		case DRM_NPU_OP_WHERE:
			t_where(&r, t);
			break;
		case DRM_NPU_OP_PAD:
			t_pad(&r, t);
			break;
		case DRM_NPU_OP_RESIZE:
			t_resize(&r, t);
			break;
		case DRM_NPU_OP_TRANSDATA:
			t_transdata(&r, t);
			break;
		case DRM_NPU_OP_QUANTIZE:
		case DRM_NPU_OP_DEQUANTIZE:
			t_quant(&r, t, op == DRM_NPU_OP_QUANTIZE);
			break;
		case DRM_NPU_OP_QCONV2D:
			t_qconv2d(&r, t);
			break;
		case DRM_NPU_OP_QMATMUL:
			t_qmatmul(&r, t);
			break;
		case DRM_NPU_OP_QADD:
			t_qadd(&r, t);
			break;
		case DRM_NPU_OP_RNN:
			t_rnn(&r, t);
			break;
		case DRM_NPU_OP_TOPK:
			t_topk(&r, t);
			break;
		case DRM_NPU_OP_SCATTER:
			t_scatter(&r, t);
			break;
		case DRM_NPU_OP_MATH:
			t_math(&r, t);
			break;
		case DRM_NPU_OP_IMG_CSC:
			t_img_csc(&r, t);
			break;
		case DRM_NPU_OP_IMG_RESIZE:
			t_img_resize(&r, t);
			break;
		case DRM_NPU_OP_AIPP:
			t_aipp(&r, t);
			break;
		case DRM_NPU_OP_MATMUL_WQ:
			t_matmul_wq(&r, t);
			break;
		case DRM_NPU_OP_NONZERO:
			t_nonzero(&r, t);
			break;
		case DRM_NPU_OP_NMS:
			t_nms(&r, t);
			break;
		case DRM_NPU_OP_PACK_ROWS:
			t_pack_rows(&r, t);
			break;
		case DRM_NPU_OP_UNIQUE:
			t_unique(&r, t);
			break;
		case DRM_NPU_OP_GRID_SAMPLE:
			t_grid_sample(&r, t);
			break;
		case DRM_NPU_OP_ROI_ALIGN:
			t_roi_align(&r, t);
			break;
		case DRM_NPU_OP_RANDOM:
			t_random(&r, t);
			break;
		default:
			t_attention(&r, t);
			break;
		}
		mutate(&r, t);
	}
	p->fill = r.p;
	p->fill_len = r.n;
}

/* The opcode bytes NPU_FUZZ_EXTRA_BYTE.. pick, in order (append only). */
const uint8_t npu_fuzz_extra_ops[] = {
	DRM_NPU_OP_QCONV2D, DRM_NPU_OP_QMATMUL, DRM_NPU_OP_QADD,
	DRM_NPU_OP_RNN, DRM_NPU_OP_TOPK, DRM_NPU_OP_SCATTER, DRM_NPU_OP_MATH,
	DRM_NPU_OP_IMG_CSC, DRM_NPU_OP_IMG_RESIZE, DRM_NPU_OP_AIPP,
	DRM_NPU_OP_MATMUL_WQ, DRM_NPU_OP_NONZERO, DRM_NPU_OP_NMS,
	DRM_NPU_OP_PACK_ROWS, DRM_NPU_OP_UNIQUE, DRM_NPU_OP_GRID_SAMPLE,
	DRM_NPU_OP_ROI_ALIGN, DRM_NPU_OP_RANDOM,
};
const uint32_t npu_fuzz_num_extra_ops = sizeof(npu_fuzz_extra_ops);

static const char *const op_names[DRM_NPU_OP_COUNT] = {
	"NOP", "COPY", "BINARY", "UNARY", "MATMUL", "CONV2D", "POOL2D",
	"SOFTMAX", "REDUCE", "LAYERNORM", "BATCHNORM", "GATHER", "WHERE",
	"PAD", "RESIZE", "TRANSDATA", "QUANTIZE", "DEQUANTIZE", "ATTENTION",
	"SEM_SIGNAL", "SEM_WAIT", "QCONV2D", "QMATMUL", "QADD",
	[DRM_NPU_OP_RNN] = "RNN", [DRM_NPU_OP_TOPK] = "TOPK",
	[DRM_NPU_OP_SCATTER] = "SCATTER", [DRM_NPU_OP_MATH] = "MATH",
	[DRM_NPU_OP_IMG_CSC] = "IMG_CSC",
	[DRM_NPU_OP_IMG_RESIZE] = "IMG_RESIZE",
	[DRM_NPU_OP_AIPP] = "AIPP",
	[DRM_NPU_OP_MATMUL_WQ] = "MATMUL_WQ",
	[DRM_NPU_OP_NONZERO] = "NONZERO", [DRM_NPU_OP_NMS] = "NMS",
	[DRM_NPU_OP_PACK_ROWS] = "PACK_ROWS", [DRM_NPU_OP_UNIQUE] = "UNIQUE",
	[DRM_NPU_OP_GRID_SAMPLE] = "GRID_SAMPLE",
	[DRM_NPU_OP_ROI_ALIGN] = "ROI_ALIGN",
	[DRM_NPU_OP_RANDOM] = "RANDOM",
};

void npu_fuzz_describe(const struct npu_fuzz_prog *p, char *out, size_t len)
{
	size_t at = 0;
	uint32_t i, j, d;

#define PUT(...) do {							\
		int n_ = snprintf(out + at, len - at, __VA_ARGS__);	\
		if (n_ > 0)						\
			at = at + (size_t)n_ < len ? at + (size_t)n_ : len - 1; \
	} while (0)
	out[0] = 0;
	for (i = 0; i < p->num_tasks; i++) {
		const struct drm_npu_task *t = &p->tasks[i];

		PUT("%s%s", i ? "; " : "", t->opcode < DRM_NPU_OP_COUNT &&
		    op_names[t->opcode] ? op_names[t->opcode] : "?");
		for (j = 0; j < t->num_operands && j < DRM_NPU_MAX_OPERANDS;
		     j++) {
			const struct drm_npu_operand *o = &t->operands[j];

			PUT(" s%u:dt%u%s[", o->slot, o->dtype,
			    o->layout == DRM_NPU_LAYOUT_NC1HWC0 ? ":nc1hwc0" :
			    "");
			for (d = 0; d < o->rank && d < DRM_NPU_MAX_RANK; d++)
				PUT("%s%u/%u", d ? "," : "", o->shape[d],
				    o->strides[d]);
			PUT("]");
		}
		for (j = 0; j < DRM_NPU_TASK_PARAMS_SIZE / 4; j++) {
			uint32_t w;

			memcpy(&w, t->params.raw + 4 * j, 4);
			if (w)
				PUT(" p%u=%#x", j, w);
		}
	}
#undef PUT
}
