// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_ops_check.c - npu_op_check(): everything the kernels rely on.
 *
 * The kernels trust a task that passed this check and nothing more: opcode
 * and kind enums known, flags known, every pad/reserved/unused byte zero,
 * operand count, dtypes allowed per opcode, ranks and the shapes of the
 * operands consistent with each other and with the params (e.g. a
 * convolution's output size follows from input, weight, stride, pad and
 * dilation). Byte extents against the bound buffers are the validator's job.
 * Integer code only: callable outside a kernel FPU section.
 */

/*
 * The module builds every ops/ object with SSE enabled, but this file runs
 * outside kernel_fpu_begin() (program validation, work-unit counts): keep
 * GCC from using vector registers even for memset/memcpy expansions.
 */
#if defined(__KERNEL__) && defined(__x86_64__)
#pragma GCC target("general-regs-only")
#endif

#include "npu_ops_internal.h"

#define NONE_BAD	(~0u)

struct chk {
	const struct drm_npu_task *t;
	u32 *bad;
	const char **why;
	u32 i4_ok;		/* operands (bits) that may be I4 */
	bool storage_ok;	/* may operands be storage types (COPY)? */
};

/* Fail, naming an operand (or NONE_BAD for task/params problems). */
static int fail(struct chk *c, u32 operand, const char *why)
{
	*c->bad = operand;
	if (c->why)
		*c->why = why;
	npu_dbg("op check: opcode %u operand %d: %s\n", c->t->opcode,
		operand == NONE_BAD ? -1 : (int)operand, why);
	return -EINVAL;
}

static int bytes_zero(const void *p, size_t n)
{
	const u8 *b = p;

	while (n--)
		if (*b++)
			return 0;
	return 1;
}

/* Params bytes past the opcode's own struct must be zero. */
static int params_tail_zero(const struct drm_npu_task *t, size_t used)
{
	return bytes_zero(t->params.raw + used, DRM_NPU_TASK_PARAMS_SIZE - used);
}

static int check_operand(struct chk *c, u32 i)
{
	const struct drm_npu_operand *o = npu_opnd(c->t, i);
	u32 d, es = npu_dtype_size(o->dtype);
	u64 n;

	/*
	 * Packed I4 has no whole-byte element: npu_operand_end() counts its
	 * extent in nibbles, and only the kernels that say so (MATMUL_WQ's
	 * weights) index it; every other use is refused here, so no kernel
	 * ever walks a packed view with a byte-sized element.
	 */
	if (o->dtype == DRM_NPU_DTYPE_I4) {
		if (!(c->i4_ok & (1u << i)))
			return fail(c, i, "I4 is taken only as MATMUL_WQ weights");
		if (o->layout != DRM_NPU_LAYOUT_ND)
			return fail(c, i, "I4 views are plain (ND)");
		es = 1;
	}
	if (!es)
		return fail(c, i, "unknown dtype");
	if (npu_dt_storage(o->dtype) && !c->storage_ok)
		return fail(c, i, "storage type (F64/BF16/I16/U16/U32/U64): COPY only");
	if (o->layout >= DRM_NPU_LAYOUT_COUNT)
		return fail(c, i, "unknown layout");
	if (o->rank > DRM_NPU_MAX_RANK)
		return fail(c, i, "rank above DRM_NPU_MAX_RANK");
	if (o->flags || o->pad)
		return fail(c, i, "flags/pad must be zero");
	for (d = o->rank; d < DRM_NPU_MAX_RANK; d++)
		if (o->shape[d] || o->strides[d])
			return fail(c, i, "shape/strides past rank must be zero");
	/*
	 * 0 strides let a small buffer carry a huge shape: bound the element
	 * count so that work-unit counts and offsets never overflow. Zero
	 * dims are skipped, so that no sub-product of the shape (a suffix
	 * that a kernel multiplies out, say) can exceed the bound either.
	 */
	for (d = 0, n = 1; d < o->rank; d++) {
		if (!o->shape[d])
			continue;
		if (check_mul_overflow(n, (u64)o->shape[d], &n) ||
		    n > NPU_MAX_ELEMS)
			return fail(c, i, "more than 2^40 elements (zero dims aside)");
	}
	if (o->offset % es)
		return fail(c, i, "offset not a multiple of the element size");
	if (o->layout == DRM_NPU_LAYOUT_NC1HWC0 &&
	    (o->rank != 5 || o->shape[4] != npu_c0_of(o->dtype)))
		return fail(c, i, "NC1HWC0 needs rank 5 and C0 = 16 (32 for 1-byte types)");
	return 0;
}

/* Operand count in [lo, hi], each used operand sane, the others zero. */
static int check_operands(struct chk *c, u32 lo, u32 hi)
{
	const struct drm_npu_task *t = c->t;
	u32 i;
	int ret;

	if (t->num_operands < lo || t->num_operands > hi)
		return fail(c, NONE_BAD, "wrong number of operands");
	for (i = 0; i < t->num_operands; i++) {
		ret = check_operand(c, i);
		if (ret)
			return ret;
	}
	for (; i < DRM_NPU_MAX_OPERANDS; i++)
		if (!bytes_zero(npu_opnd(t, i), sizeof(struct drm_npu_operand)))
			return fail(c, i, "unused operand must be all zero");
	return 0;
}

static int same_shape(const struct drm_npu_operand *a,
		      const struct drm_npu_operand *b)
{
	u32 i;

	if (a->rank != b->rank)
		return 0;
	for (i = 0; i < a->rank; i++)
		if (a->shape[i] != b->shape[i])
			return 0;
	return 1;
}

/* @in broadcasts to @out: rank <= out's, dims equal or 1 (right aligned). */
static int bcasts_to(const struct drm_npu_operand *in,
		     const struct drm_npu_operand *out)
{
	u32 lead, i;

	if (in->rank > out->rank)
		return 0;
	lead = out->rank - in->rank;
	for (i = 0; i < in->rank; i++)
		if (in->shape[i] != 1 && in->shape[i] != out->shape[lead + i])
			return 0;
	return 1;
}

static int dtype_is(u32 dt, u32 mask)
{
	return (mask >> dt) & 1;
}

#define DT(x)		(1u << DRM_NPU_DTYPE_##x)
#define DT_FLOAT	(DT(F32) | DT(F16))
#define DT_INT		(DT(I8) | DT(U8) | DT(I32) | DT(I64))
#define DT_ARITH	(DT_FLOAT | DT_INT)
#define DT_ANY		(DT_ARITH | DT(BOOL))

static int check_act(struct chk *c, const struct drm_npu_act_params *a,
		     int float_data)
{
	int alpha = 0, beta = 0;

	if (a->kind >= DRM_NPU_ACT_COUNT)
		return fail(c, NONE_BAD, "unknown activation kind");
	if (a->pad)
		return fail(c, NONE_BAD, "activation pad must be zero");
	switch (a->kind) {
	case DRM_NPU_ACT_CLIP:
	case DRM_NPU_ACT_HARDSIGMOID:
		alpha = 1;
		beta = 1;
		break;
	case DRM_NPU_ACT_LEAKY_RELU:
	case DRM_NPU_ACT_ELU:
		alpha = 1;
		break;
	}
	if ((!alpha && a->alpha) || (!beta && a->beta))
		return fail(c, NONE_BAD, "unused activation alpha/beta must be zero");
	if (!float_data && a->kind != DRM_NPU_ACT_NONE)
		return fail(c, NONE_BAD, "fused activation needs float data");
	return 0;
}

/*
 * COPY, and the other row-wise ops (BINARY, UNARY, WHERE): the kernel walks
 * the output's index space; an input is read at the same coordinates with
 * its size-1 dims broadcast (index 0, stride ignored). bcasts_to() proves
 * every input coordinate is below the input's own shape.
 */
static int check_copy(struct chk *c)
{
	int ret;

	c->storage_ok = true;
	ret = check_operands(c, 2, 2);
	if (ret)
		return ret;
	if (!params_tail_zero(c->t, 0))
		return fail(c, NONE_BAD, "COPY has no params: must be zero");
	if (!bcasts_to(npu_opnd(c->t, 0), npu_opnd(c->t, 1)))
		return fail(c, 0, "input does not broadcast to the output shape");
	return 0;
}

static int check_binary(struct chk *c)
{
	const struct drm_npu_binary_params *p = &c->t->params.binary;
	const struct drm_npu_operand *a, *b, *o;
	u32 mask;
	int cmp, ret = check_operands(c, 3, 3);

	if (ret)
		return ret;
	if (p->kind >= DRM_NPU_BINARY_COUNT)
		return fail(c, NONE_BAD, "unknown BINARY kind");
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "BINARY pad/unused params must be zero");
	a = npu_opnd(c->t, 0);
	b = npu_opnd(c->t, 1);
	o = npu_opnd(c->t, 2);
	cmp = p->kind >= DRM_NPU_BINARY_EQUAL;
	mask = DT_ARITH;
	if (p->kind == DRM_NPU_BINARY_MAX || p->kind == DRM_NPU_BINARY_MIN ||
	    p->kind == DRM_NPU_BINARY_EQUAL)
		mask |= DT(BOOL);
	if (!dtype_is(a->dtype, mask))
		return fail(c, 0, "dtype not supported by this BINARY kind");
	if (b->dtype != a->dtype)
		return fail(c, 1, "a and b must have the same dtype");
	if (cmp ? o->dtype != DRM_NPU_DTYPE_BOOL : o->dtype != a->dtype)
		return fail(c, 2, "out dtype must be a's (BOOL for comparisons)");
	ret = check_act(c, &p->act, dtype_is(a->dtype, DT_FLOAT) && !cmp);
	if (ret)
		return ret;
	if (!bcasts_to(a, o))
		return fail(c, 0, "a does not broadcast to the output shape");
	if (!bcasts_to(b, o))
		return fail(c, 1, "b does not broadcast to the output shape");
	return 0;
}

static int check_unary(struct chk *c)
{
	const struct drm_npu_act_params *p = &c->t->params.unary;
	const struct drm_npu_operand *in, *o;
	u32 mask;
	int ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (!params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "unused params must be zero");
	ret = check_act(c, p, 1);
	if (ret)
		return ret;
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	switch (p->kind) {
	case DRM_NPU_ACT_NOT:
		mask = DT(BOOL);
		break;
	case DRM_NPU_ACT_NONE:
		mask = DT_ANY;
		break;
	case DRM_NPU_ACT_RELU:
	case DRM_NPU_ACT_NEG:
	case DRM_NPU_ACT_ABS:
	case DRM_NPU_ACT_CLIP:
		mask = DT_ARITH;
		break;
	default:
		mask = DT_FLOAT;
	}
	if (!dtype_is(in->dtype, mask))
		return fail(c, 0, "dtype not supported by this activation");
	if (o->dtype != in->dtype)
		return fail(c, 1, "out dtype must equal in dtype (use COPY to cast)");
	if (!bcasts_to(in, o))
		return fail(c, 0, "input does not broadcast to the output shape");
	return 0;
}

static int all_f32(struct chk *c)
{
	u32 i;

	for (i = 0; i < c->t->num_operands; i++)
		if (npu_opnd(c->t, i)->dtype != DRM_NPU_DTYPE_F32)
			return fail(c, i, "this opcode takes F32 operands only");
	return 0;
}

/* Every operand F32, or every one F16 (f16 storage, f32 arithmetic). */
static int all_f32_or_f16(struct chk *c)
{
	u32 dt = npu_opnd(c->t, 0)->dtype, i;

	if (dt != DRM_NPU_DTYPE_F16)
		return all_f32(c);
	for (i = 1; i < c->t->num_operands; i++)
		if (npu_opnd(c->t, i)->dtype != dt)
			return fail(c, i, "operands must all be F32 or all F16");
	return 0;
}

/* Batch dims of @x (all but its last two) broadcast to @out's. */
static int batch_bcasts(const struct drm_npu_operand *x,
			const struct drm_npu_operand *out)
{
	u32 lead = out->rank - x->rank, i;

	if (x->rank < 2 || x->rank > out->rank)
		return 0;
	for (i = 0; i + 2 < x->rank; i++)
		if (x->shape[i] != 1 && x->shape[i] != out->shape[lead + i])
			return 0;
	return 1;
}

/*
 * MATMUL: out[b, m, n] for m < M, n < N, reading a[b', m, k] and b[b', k, n]
 * for k < K with broadcast batch dims; M, N, K come from the shapes that
 * this check proves equal (out [.., M, N], a [.., M, K], b [.., K, N], in
 * either transposition), the bias broadcasts to out.
 */
static int check_matmul(struct chk *c)
{
	const struct drm_npu_matmul_params *p = &c->t->params.matmul;
	const struct drm_npu_operand *a, *b, *o;
	u32 known = DRM_NPU_MATMUL_TRANS_A | DRM_NPU_MATMUL_TRANS_B |
		    DRM_NPU_MATMUL_HAS_BIAS;
	int bias = !!(p->flags & DRM_NPU_MATMUL_HAS_BIAS), ret;
	u32 m, k, k2, n;

	if (p->flags & ~known)
		return fail(c, NONE_BAD, "unknown MATMUL flags");
	ret = check_operands(c, 3 + bias, 3 + bias);
	if (ret)
		return ret;
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "MATMUL pad/unused params must be zero");
	if (!bias && p->beta)
		return fail(c, NONE_BAD, "beta without HAS_BIAS must be zero");
	ret = all_f32_or_f16(c) ? -EINVAL : check_act(c, &p->act, 1);
	if (ret)
		return ret;
	a = npu_opnd(c->t, 0);
	b = npu_opnd(c->t, 1);
	o = npu_opnd(c->t, 2 + bias);
	if (o->rank < 2)
		return fail(c, 2 + bias, "out needs rank >= 2");
	if (!batch_bcasts(a, o))
		return fail(c, 0, "a: rank 2..out rank, batch dims must broadcast");
	if (!batch_bcasts(b, o))
		return fail(c, 1, "b: rank 2..out rank, batch dims must broadcast");
	m = a->shape[a->rank - 2];
	k = a->shape[a->rank - 1];
	if (p->flags & DRM_NPU_MATMUL_TRANS_A) {
		m = k;
		k = a->shape[a->rank - 2];
	}
	k2 = b->shape[b->rank - 2];
	n = b->shape[b->rank - 1];
	if (p->flags & DRM_NPU_MATMUL_TRANS_B) {
		n = k2;
		k2 = b->shape[b->rank - 1];
	}
	if (k != k2)
		return fail(c, 1, "inner dimensions of a and b differ");
	if (o->shape[o->rank - 2] != m || o->shape[o->rank - 1] != n)
		return fail(c, 2 + bias, "out must be [..., M, N]");
	if (bias && !bcasts_to(npu_opnd(c->t, 2), o))
		return fail(c, 2, "bias does not broadcast to the output");
	return 0;
}

/*
 * MATMUL_WQ: out[.., m, n] for rows r < prod(out[:-1]) and n < N, reading
 * a at the same row coordinates (a's leading dims equal out's, proved
 * here) and k < K; w[k, n] below [K, N]; s[k / gs, n] with
 * k / gs <= (K - 1) / gs < G = ceil(K / gs) (computed in 64 bits, so a
 * gs near 2^32 cannot wrap G to 0); bias[n] below [N].
 */
static int check_matmul_wq(struct chk *c)
{
	const struct drm_npu_matmul_wq_params *p = &c->t->params.matmul_wq;
	const struct drm_npu_operand *a, *w, *s, *o;
	int bias = !!(p->flags & DRM_NPU_MATMUL_HAS_BIAS), ret;
	u64 k, n, g;
	u32 i;

	if (p->flags & ~DRM_NPU_MATMUL_HAS_BIAS)
		return fail(c, NONE_BAD, "unknown MATMUL_WQ flags");
	c->i4_ok = 1u << 1;
	ret = check_operands(c, 4 + bias, 4 + bias);
	if (ret)
		return ret;
	if (p->pad[0] || p->pad[1] || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "MATMUL_WQ pad/unused params must be zero");
	if (!p->group_size)
		return fail(c, NONE_BAD, "MATMUL_WQ group_size must be >= 1");
	ret = check_act(c, &p->act, 1);
	if (ret)
		return ret;
	a = npu_opnd(c->t, 0);
	w = npu_opnd(c->t, 1);
	s = npu_opnd(c->t, 2);
	o = npu_opnd(c->t, 3 + bias);
	if (!dtype_is(a->dtype, DT_FLOAT) || a->rank < 2)
		return fail(c, 0, "a: F32 or F16, rank >= 2");
	if (o->dtype != a->dtype || o->rank != a->rank)
		return fail(c, 3 + bias, "out: a's dtype and rank");
	for (i = 0; i + 1 < a->rank; i++)
		if (a->shape[i] != o->shape[i])
			return fail(c, 3 + bias, "out must be a's [..., M] by N");
	if (!dtype_is(w->dtype, DT(I8) | DT(I4)) || w->rank != 2)
		return fail(c, 1, "w: I8 or I4, [K, N]");
	k = a->shape[a->rank - 1];
	n = o->shape[o->rank - 1];
	if (w->shape[0] != k || w->shape[1] != n)
		return fail(c, 1, "w must be [K, N]");
	g = (k + p->group_size - 1) / p->group_size;
	if (s->dtype != DRM_NPU_DTYPE_F32 || s->rank != 2 ||
	    s->shape[0] != g || s->shape[1] != n)
		return fail(c, 2, "scales: F32 [ceil(K / group_size), N]");
	if (bias && (npu_opnd(c->t, 3)->dtype != DRM_NPU_DTYPE_F32 ||
		     npu_opnd(c->t, 3)->rank != 1 ||
		     npu_opnd(c->t, 3)->shape[0] != n))
		return fail(c, 3, "bias: F32 [N]");
	return 0;
}

/* An NCHW (rank 4, layout ND/NCHW) or NC1HWC0 activation. */
static int activation_4d(const struct drm_npu_operand *o)
{
	if (npu_is_nc1hwc0(o))
		return 1;
	return o->rank == 4 && (o->layout == DRM_NPU_LAYOUT_ND ||
				o->layout == DRM_NPU_LAYOUT_NCHW);
}

/*
 * Channel count @ch fits the operand: C, or C1 = ceil(C / C0), in 64 bits
 * (C near 2^32 must not wrap to C1 = 0: an empty operand whose strides
 * nobody checks). Kernels then index channel c < @ch of an NC1HWC0
 * operand at (c / C0, c % C0), inside its shape.
 */
static int channels_match(const struct drm_npu_operand *o, u64 ch)
{
	if (npu_is_nc1hwc0(o))
		return o->shape[1] == (ch + o->shape[4] - 1) / o->shape[4];
	return o->shape[1] == ch;
}

/*
 * CONV2D: out[n, o, y, x] below out's shape; input pixels only inside
 * [0, H) x [0, W) (padding taps read nothing), input channel c < C of the
 * group, weight [o, c, kh, kw] below its shape, bias [o]. C, and C1 for an
 * NC1HWC0 operand, are matched in 64 bits (channels_match()).
 */
static int check_conv2d(struct chk *c)
{
	const struct drm_npu_conv2d_params *p = &c->t->params.conv2d;
	const struct drm_npu_operand *in, *w, *o;
	int bias = !!(p->flags & DRM_NPU_CONV_HAS_BIAS), ret;
	int res = !!(p->flags & DRM_NPU_CONV_HAS_RESIDUAL);
	u64 ch;

	if (p->flags & ~(DRM_NPU_CONV_HAS_BIAS | DRM_NPU_CONV_HAS_RESIDUAL))
		return fail(c, NONE_BAD, "unknown CONV2D flags");
	ret = check_operands(c, 3 + bias + res, 3 + bias + res);
	if (ret)
		return ret;
	if (p->pad[0] || p->pad[1] || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "CONV2D pad/unused params must be zero");
	if (!p->groups || !p->stride_h || !p->stride_w || !p->dilation_h ||
	    !p->dilation_w)
		return fail(c, NONE_BAD, "groups, strides and dilations must be >= 1");
	if (p->pad_top >= 0x10000000u || p->pad_bottom >= 0x10000000u ||
	    p->pad_left >= 0x10000000u || p->pad_right >= 0x10000000u)
		return fail(c, NONE_BAD, "padding too large");
	ret = all_f32(c) ? -EINVAL : check_act(c, &p->act, 1);
	if (ret)
		return ret;
	in = npu_opnd(c->t, 0);
	w = npu_opnd(c->t, 1);
	o = npu_opnd(c->t, 2 + bias + res);
	if (!activation_4d(in))
		return fail(c, 0, "input must be NCHW (rank 4) or NC1HWC0");
	if (w->rank != 4 || npu_is_nc1hwc0(w))
		return fail(c, 1, "weight must be OIHW, rank 4");
	if (!activation_4d(o))
		return fail(c, 2 + bias + res,
			    "output must be NCHW (rank 4) or NC1HWC0");
	if (!w->shape[2] || !w->shape[3] || !w->shape[1])
		return fail(c, 1, "empty kernel");
	if (w->shape[0] % p->groups)
		return fail(c, 1, "output channels not divisible by groups");
	ch = (u64)w->shape[1] * p->groups;
	if (ch > 0xffffffffull || !channels_match(in, ch))
		return fail(c, 0, "input channels != weight I * groups");
	if (o->shape[0] != in->shape[0] || !channels_match(o, w->shape[0]))
		return fail(c, 2 + bias + res,
			    "output N/channels do not match input/weight");
	if (o->shape[2] != npu_window_out(in->shape[2],
					  p->pad_top + p->pad_bottom,
					  w->shape[2], p->stride_h, p->dilation_h) ||
	    o->shape[3] != npu_window_out(in->shape[3],
					  p->pad_left + p->pad_right,
					  w->shape[3], p->stride_w, p->dilation_w) ||
	    !o->shape[2] || !o->shape[3])
		return fail(c, 2 + bias + res,
			    "output H/W != (in + pads - dil*(k-1) - 1)/stride + 1");
	if (bias) {
		const struct drm_npu_operand *bo = npu_opnd(c->t, 2);

		if (bo->rank != 1 || bo->shape[0] != w->shape[0])
			return fail(c, 2, "bias must be [O]");
	}
	if (res && !npu_opnd_same_view(npu_opnd(c->t, 2 + bias), o))
		return fail(c, 2 + bias,
			    "residual must be the output's shape, dtype, layout and strides");
	return 0;
}

/*
 * One spatial axis of a pooling window: floor or ceil mode sizes. In ceil
 * mode a window may be larger than the padded input by less than a stride
 * (ONNX: ceil((padded - span) / s) + 1 = 1 output; taps past the input
 * are skipped like padding).
 */
static int pool_axis_ok(u32 in, u32 out, u32 k, u32 s, u32 d, u32 pb, u32 pe)
{
	u64 span = (u64)d * (k - 1) + 1, padded = (u64)in + pb + pe;
	u64 fl, ce;

	if (!k || !s || !d || pb >= span || pe >= span)
		return 0;
	if (padded < span)
		return out == 1 && in && span - padded < s;
	fl = (padded - span) / s + 1;
	ce = (padded - span + s - 1) / s + 1;
	if (out != fl && out != ce)
		return 0;
	/* ceil mode: the last window must start inside input or left pad */
	return (u64)(out - 1) * s < (u64)in + pb;
}

/*
 * POOL2D: planes p < N * C (or N * C1 * C0) of in and out, which share N,
 * C1 and C0; output pixels below out's shape, input pixels only inside
 * [0, H) x [0, W). Plane counts are 64-bit: C1 * C0 may pass 2^32.
 */
static int check_pool2d(struct chk *c)
{
	const struct drm_npu_pool2d_params *p = &c->t->params.pool2d;
	const struct drm_npu_operand *in, *o;
	int global, ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (p->kind >= DRM_NPU_POOL_COUNT)
		return fail(c, NONE_BAD, "unknown POOL2D kind");
	if (p->flags & ~DRM_NPU_POOL_COUNT_INCLUDE_PAD ||
	    (p->flags && p->kind != DRM_NPU_POOL_AVG))
		return fail(c, NONE_BAD, "COUNT_INCLUDE_PAD is for AVG only");
	if (!params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "unused params must be zero");
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	if (!dtype_is(in->dtype, (p->kind == DRM_NPU_POOL_MAX ||
				  p->kind == DRM_NPU_POOL_GLOBAL_MAX) ?
		      DT_FLOAT | DT(I8) | DT(U8) : DT_FLOAT))
		return fail(c, 0, "POOL2D takes F32/F16 (MAX also I8/U8)");
	if (o->dtype != in->dtype)
		return fail(c, 1, "out dtype must equal in dtype");
	if (!activation_4d(in) || in->layout != o->layout || in->rank != o->rank)
		return fail(c, 0, "in/out must both be NCHW or both NC1HWC0");
	if (o->shape[0] != in->shape[0] || o->shape[1] != in->shape[1])
		return fail(c, 1, "out N/C must equal in N/C");
	global = p->kind >= DRM_NPU_POOL_GLOBAL_AVG;
	if (global) {
		if (p->kernel_h || p->kernel_w || p->stride_h || p->stride_w ||
		    p->dilation_h || p->dilation_w || p->pad_top ||
		    p->pad_left || p->pad_bottom || p->pad_right)
			return fail(c, NONE_BAD, "global pooling takes no window params");
		if (o->shape[2] != 1 || o->shape[3] != 1)
			return fail(c, 1, "global pooling output must be 1x1");
		return 0;
	}
	if (!pool_axis_ok(in->shape[2], o->shape[2], p->kernel_h, p->stride_h,
			  p->dilation_h, p->pad_top, p->pad_bottom) ||
	    !pool_axis_ok(in->shape[3], o->shape[3], p->kernel_w, p->stride_w,
			  p->dilation_w, p->pad_left, p->pad_right))
		return fail(c, 1, "bad window or output H/W (floor or ceil mode)");
	return 0;
}

/* SOFTMAX: in and out share a shape; one unit is one line along axis. */
static int check_softmax(struct chk *c)
{
	const struct drm_npu_softmax_params *p = &c->t->params.softmax;
	int ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (p->flags & ~DRM_NPU_SOFTMAX_LOG || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "unknown flags or non-zero unused params");
	if (all_f32(c))
		return -EINVAL;
	if (!same_shape(npu_opnd(c->t, 0), npu_opnd(c->t, 1)))
		return fail(c, 1, "out shape must equal in shape");
	if (p->axis >= npu_opnd(c->t, 0)->rank)
		return fail(c, NONE_BAD, "axis out of range");
	return 0;
}

/*
 * REDUCE: out coordinates below out's shape; in at the same coordinates
 * plus every index of the reduced dims (out has extent 1 there).
 */
static int check_reduce(struct chk *c)
{
	const struct drm_npu_reduce_params *p = &c->t->params.reduce;
	const struct drm_npu_operand *in, *o;
	u32 i;
	int ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (p->kind >= DRM_NPU_REDUCE_COUNT || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "unknown REDUCE kind or non-zero unused params");
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	if (!dtype_is(in->dtype, DT(F32) | DT(I32) | DT(I64)))
		return fail(c, 0, "REDUCE takes F32, I32 or I64");
	if (o->dtype != in->dtype)
		return fail(c, 1, "out dtype must equal in dtype");
	if (p->axes >> in->rank)
		return fail(c, NONE_BAD, "axes mask names dims past the rank");
	if (o->rank != in->rank)
		return fail(c, 1, "out keeps the rank (reduced dims have extent 1)");
	for (i = 0; i < in->rank; i++)
		if (o->shape[i] != ((p->axes >> i) & 1 ? 1 : in->shape[i]))
			return fail(c, 1, "out shape must be in shape with reduced dims 1");
	return 0;
}

/*
 * LAYERNORM: in and out share a shape; scale and bias broadcast to
 * in[axis:], read at the normalised coordinates.
 */
static int check_layernorm(struct chk *c)
{
	const struct drm_npu_norm_params *p = &c->t->params.norm;
	const struct drm_npu_operand *in, *o;
	int bias = !!(p->flags & DRM_NPU_NORM_HAS_BIAS), ret, i;
	struct drm_npu_operand tail;

	if (p->flags & ~DRM_NPU_NORM_HAS_BIAS)
		return fail(c, NONE_BAD, "unknown LAYERNORM flags");
	ret = check_operands(c, 3 + bias, 3 + bias);
	if (ret)
		return ret;
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "pad/unused params must be zero");
	if (!npu_bits_finite(p->epsilon) || (p->epsilon & 0x80000000u))
		return fail(c, NONE_BAD, "epsilon must be finite and >= 0");
	if (all_f32(c))
		return -EINVAL;
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 2 + bias);
	if (!same_shape(in, o))
		return fail(c, 2 + bias, "out shape must equal in shape");
	if (p->axis >= in->rank)
		return fail(c, NONE_BAD, "axis out of range");
	/* scale and bias broadcast to the normalised dims in[axis:] */
	memset(&tail, 0, sizeof(tail));
	tail.rank = in->rank - p->axis;
	for (i = 0; i < tail.rank; i++)
		tail.shape[i] = in->shape[p->axis + i];
	for (i = 1; i <= bias + 1; i++)
		if (!bcasts_to(npu_opnd(c->t, i), &tail))
			return fail(c, i, "scale/bias must broadcast to in[axis:]");
	return 0;
}

/*
 * BATCHNORM: in and out share shape and layout; the four [C] parameters are
 * read at channel c < C only (NC1HWC0 padding channels are written 0).
 */
static int check_batchnorm(struct chk *c)
{
	const struct drm_npu_norm_params *p = &c->t->params.norm;
	const struct drm_npu_operand *in, *o;
	u32 i, ch;
	int ret = check_operands(c, 6, 6);

	if (ret)
		return ret;
	if (p->axis || p->flags || p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "BATCHNORM uses epsilon only: others zero");
	if (!npu_bits_finite(p->epsilon) || (p->epsilon & 0x80000000u))
		return fail(c, NONE_BAD, "epsilon must be finite and >= 0");
	if (all_f32(c))
		return -EINVAL;
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 5);
	if (in->rank < 2)
		return fail(c, 0, "input needs rank >= 2 (N, C, ...)");
	if (!same_shape(in, o) || o->layout != in->layout)
		return fail(c, 5, "out shape/layout must equal in's");
	ch = npu_opnd(c->t, 1)->shape[0];
	for (i = 1; i <= 4; i++) {
		const struct drm_npu_operand *v = npu_opnd(c->t, i);

		if (v->rank != 1 || v->shape[0] != ch)
			return fail(c, i, "scale/bias/mean/var must be [C]");
	}
	if (!channels_match(in, ch))
		return fail(c, 0, "input channels != parameter length");
	return 0;
}

/*
 * GATHER: out coordinates below out's shape; indices at its own
 * coordinates; data at out's coordinates outside the gathered axis and at
 * the index value there, which the kernel checks against data's extent at
 * run time (a fault record, not an access).
 */
static int check_gather(struct chk *c)
{
	const struct drm_npu_gather_params *p = &c->t->params.gather;
	const struct drm_npu_operand *d, *ix, *o;
	u32 i, j = 0;
	int ret = check_operands(c, 3, 3);

	if (ret)
		return ret;
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "pad/unused params must be zero");
	d = npu_opnd(c->t, 0);
	ix = npu_opnd(c->t, 1);
	o = npu_opnd(c->t, 2);
	if (p->axis >= d->rank)
		return fail(c, NONE_BAD, "axis out of range");
	if (!dtype_is(ix->dtype, DT(I32) | DT(I64)))
		return fail(c, 1, "indices must be I32 or I64");
	if (o->dtype != d->dtype)
		return fail(c, 2, "out dtype must equal data dtype");
	if (o->rank != d->rank - 1 + ix->rank)
		return fail(c, 2, "out rank must be data rank - 1 + indices rank");
	for (i = 0; i < d->rank; i++) {
		if (i == p->axis) {
			u32 q;

			for (q = 0; q < ix->rank; q++)
				if (o->shape[j++] != ix->shape[q])
					return fail(c, 2,
						    "out shape != data[:axis] + indices + data[axis+1:]");
			continue;
		}
		if (o->shape[j++] != d->shape[i])
			return fail(c, 2, "out shape != data[:axis] + indices + data[axis+1:]");
	}
	return 0;
}

static int check_where(struct chk *c)
{
	const struct drm_npu_operand *o;
	u32 i;
	int ret = check_operands(c, 4, 4);

	if (ret)
		return ret;
	if (!params_tail_zero(c->t, 0))
		return fail(c, NONE_BAD, "WHERE has no params: must be zero");
	o = npu_opnd(c->t, 3);
	if (npu_opnd(c->t, 0)->dtype != DRM_NPU_DTYPE_BOOL)
		return fail(c, 0, "cond must be BOOL");
	for (i = 1; i <= 2; i++)
		if (npu_opnd(c->t, i)->dtype != o->dtype)
			return fail(c, i, "x, y and out must share a dtype");
	for (i = 0; i <= 2; i++)
		if (!bcasts_to(npu_opnd(c->t, i), o))
			return fail(c, i, "does not broadcast to the output shape");
	return 0;
}

/*
 * PAD: out coordinates below out's shape; in read only where the source
 * coordinate (out - before, reflected or clamped per mode) lies in
 * [0, in shape), which this check makes possible for REFLECT and EDGE.
 */
static int check_pad(struct chk *c)
{
	const struct drm_npu_pad_params *p = &c->t->params.padding;
	const struct drm_npu_operand *in, *o;
	u32 i;
	int ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (p->mode >= DRM_NPU_PAD_MODE_COUNT || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "unknown PAD mode or non-zero unused params");
	if (p->mode != DRM_NPU_PAD_CONSTANT && p->value)
		return fail(c, NONE_BAD, "value is for CONSTANT mode only");
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	if (o->dtype != in->dtype || o->rank != in->rank)
		return fail(c, 1, "out dtype/rank must equal in's");
	for (i = in->rank; i < DRM_NPU_MAX_RANK; i++)
		if (p->before[i])
			return fail(c, NONE_BAD, "before[] past the rank must be zero");
	for (i = 0; i < in->rank; i++) {
		u64 lo = p->before[i], hi;

		if (o->shape[i] < in->shape[i] + lo)
			return fail(c, 1, "out extent < in extent + before");
		hi = o->shape[i] - in->shape[i] - lo;
		if (!lo && !hi)
			continue;
		if (p->mode == DRM_NPU_PAD_REFLECT &&
		    (in->shape[i] < 2 || lo >= in->shape[i] || hi >= in->shape[i]))
			return fail(c, 0, "REFLECT needs extent >= 2 and pads < extent");
		if (p->mode == DRM_NPU_PAD_EDGE && !in->shape[i])
			return fail(c, 0, "EDGE padding of an empty dimension");
	}
	return 0;
}

/* TF_CROP_AND_RESIZE's roi and extrapolation: finite, else all zero. */
static bool resize_crop_ok(const struct drm_npu_resize_params *p)
{
	bool crop = p->coord == DRM_NPU_RESIZE_TF_CROP_AND_RESIZE;
	u32 i;

	for (i = 0; i < DRM_NPU_MAX_RANK; i++) {
		if (!crop && (p->roi_start[i] || p->roi_end[i]))
			return false;
		if (crop && (!npu_bits_finite(p->roi_start[i]) ||
			     !npu_bits_finite(p->roi_end[i])))
			return false;
	}
	return crop ? npu_bits_finite(p->extrapolation) : !p->extrapolation;
}

/*
 * RESIZE: out coordinates below out's shape; every source index is clamped
 * to [0, in shape - 1], so an empty input dimension is refused.
 */
static int check_resize(struct chk *c)
{
	const struct drm_npu_resize_params *p = &c->t->params.resize;
	const struct drm_npu_operand *in, *o;
	u32 i;
	int ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (p->mode >= DRM_NPU_RESIZE_MODE_COUNT ||
	    p->coord >= DRM_NPU_RESIZE_COORD_COUNT ||
	    p->nearest >= DRM_NPU_RESIZE_NEAREST_COUNT)
		return fail(c, NONE_BAD, "unknown RESIZE mode/coord/nearest");
	if ((p->mode != DRM_NPU_RESIZE_NEAREST && p->nearest) || p->pad ||
	    (p->mode != DRM_NPU_RESIZE_CUBIC && (p->cubic_a || p->flags)) ||
	    !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "unused params must be zero");
	if (p->flags & ~DRM_NPU_RESIZE_EXCLUDE_OUTSIDE)
		return fail(c, NONE_BAD, "unknown RESIZE flags");
	if (!resize_crop_ok(p))
		return fail(c, NONE_BAD, "roi, extrapolation: finite for TF_CROP, else 0");
	if (p->mode == DRM_NPU_RESIZE_CUBIC &&
	    !npu_bits_finite(p->cubic_a))
		return fail(c, NONE_BAD, "cubic_a must be finite");
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	if (o->dtype != in->dtype || o->rank != in->rank)
		return fail(c, 1, "out dtype/rank must equal in's");
	if ((p->mode != DRM_NPU_RESIZE_NEAREST ||
	     p->coord == DRM_NPU_RESIZE_TF_CROP_AND_RESIZE) &&
	    in->dtype != DRM_NPU_DTYPE_F32)
		return fail(c, 0, "LINEAR, CUBIC and TF_CROP_AND_RESIZE take F32");
	for (i = 0; i < DRM_NPU_MAX_RANK; i++) {
		if (p->scale[i] && (i >= in->rank ||
				    !npu_bits_positive_finite(p->scale[i])))
			return fail(c, NONE_BAD, "scale must be 0 or finite > 0 (and 0 past rank)");
		if (i < in->rank && o->shape[i] && !in->shape[i])
			return fail(c, 0, "cannot resize an empty dimension");
	}
	return 0;
}

/*
 * TRANSDATA: NCHW [N, C, H, W] <-> NC1HWC0 [N, C1, H, W, C0] with
 * C1 = ceil(C / C0) in 64 bits; channel c < C is (c / C0, c % C0), the
 * channels past C of an NC1HWC0 output are written, never read.
 */
static int check_transdata(struct chk *c)
{
	const struct drm_npu_operand *in, *o, *nchw, *nc1;
	int ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (!params_tail_zero(c->t, 0))
		return fail(c, NONE_BAD, "TRANSDATA has no params: must be zero");
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	if (in->dtype != o->dtype || npu_dtype_size(in->dtype) > 4)
		return fail(c, 1, "same dtype, 1/2/4-byte elements");
	if (npu_is_nc1hwc0(in) == npu_is_nc1hwc0(o))
		return fail(c, 1, "exactly one side must be NC1HWC0");
	nc1 = npu_is_nc1hwc0(in) ? in : o;
	nchw = npu_is_nc1hwc0(in) ? o : in;
	if (!activation_4d(nchw))
		return fail(c, nchw == in ? 0 : 1, "other side must be NCHW rank 4");
	if (nc1->shape[0] != nchw->shape[0] || nc1->shape[2] != nchw->shape[2] ||
	    nc1->shape[3] != nchw->shape[3] || !channels_match(nc1, nchw->shape[1]))
		return fail(c, 1, "shapes differ (C1 must be ceil(C / C0))");
	return 0;
}

/*
 * QUANTIZE/DEQUANTIZE: in and out share a shape; per-channel scales and
 * zero points are [shape[axis]], read at the channel coordinate.
 */
static int check_quant(struct chk *c, int quantize)
{
	const struct drm_npu_quant_params *p = &c->t->params.quant;
	const struct drm_npu_operand *in, *o, *q;
	int per_ch = !!(p->flags & DRM_NPU_QUANT_PER_CHANNEL), ret;
	u32 i;

	if (p->flags & ~DRM_NPU_QUANT_PER_CHANNEL)
		return fail(c, NONE_BAD, "unknown QUANT flags");
	ret = per_ch ? check_operands(c, 3, 4) : check_operands(c, 2, 2);
	if (ret)
		return ret;
	if (!params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "unused params must be zero");
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	q = quantize ? o : in;
	if (quantize ? in->dtype != DRM_NPU_DTYPE_F32 :
	    !dtype_is(in->dtype, DT(I8) | DT(U8) | DT(I32)))
		return fail(c, 0, quantize ? "QUANTIZE input must be F32" :
			    "DEQUANTIZE input must be I8, U8 or I32");
	if (quantize ? !dtype_is(o->dtype, DT(I8) | DT(U8)) :
	    o->dtype != DRM_NPU_DTYPE_F32)
		return fail(c, 1, quantize ? "QUANTIZE output must be I8 or U8" :
			    "DEQUANTIZE output must be F32");
	if (!same_shape(in, o))
		return fail(c, 1, "out shape must equal in shape");
	if ((q->dtype == DRM_NPU_DTYPE_I8 &&
	     (p->zero_point < -128 || p->zero_point > 127)) ||
	    (q->dtype == DRM_NPU_DTYPE_U8 &&
	     (p->zero_point < 0 || p->zero_point > 255)) ||
	    (q->dtype == DRM_NPU_DTYPE_I32 && p->zero_point))
		return fail(c, NONE_BAD, "zero_point outside the quantized type");
	if (!per_ch) {
		if (p->axis || !npu_bits_positive_finite(p->scale))
			return fail(c, NONE_BAD, "per-tensor: scale finite > 0, axis 0");
		return 0;
	}
	if (p->scale || p->axis >= in->rank)
		return fail(c, NONE_BAD, "per-channel: scale comes from operand 2, axis < rank");
	for (i = 2; i < c->t->num_operands; i++) {
		const struct drm_npu_operand *v = npu_opnd(c->t, i);

		if (v->rank != 1 || v->shape[0] != in->shape[p->axis])
			return fail(c, i, "per-channel operand must be [shape[axis]]");
	}
	if (npu_opnd(c->t, 2)->dtype != DRM_NPU_DTYPE_F32)
		return fail(c, 2, "per-channel scales must be F32");
	if (c->t->num_operands == 4) {
		if (p->zero_point)
			return fail(c, NONE_BAD, "zero_point comes from operand 3");
		if (npu_opnd(c->t, 3)->dtype != q->dtype &&
		    npu_opnd(c->t, 3)->dtype != DRM_NPU_DTYPE_I32)
			return fail(c, 3, "zero points: the quantized dtype or I32");
	}
	return 0;
}

/*
 * ATTENTION: out [.., Sq, Dv]; q [.., Sq, D], k [.., Sk, D], v [.., Sk, Dv]
 * with broadcast batch dims and the mask broadcast to [.., Sq, Sk]: every
 * index stays below the shape this check matched.
 */
static int check_attention(struct chk *c)
{
	const struct drm_npu_attention_params *p = &c->t->params.attention;
	const struct drm_npu_operand *q, *k, *v, *o;
	int mask = !!(p->flags & DRM_NPU_ATTN_HAS_MASK), ret, i;
	u32 r;

	if (p->flags & ~DRM_NPU_ATTN_HAS_MASK)
		return fail(c, NONE_BAD, "unknown ATTENTION flags");
	ret = check_operands(c, 4 + mask, 4 + mask);
	if (ret)
		return ret;
	if (!params_tail_zero(c->t, sizeof(*p)) || !npu_bits_finite(p->scale))
		return fail(c, NONE_BAD, "scale must be finite, unused params zero");
	q = npu_opnd(c->t, 0);
	k = npu_opnd(c->t, 1);
	v = npu_opnd(c->t, 2);
	o = npu_opnd(c->t, 3 + mask);
	for (i = 0; i < 3 + mask + 1; i++) {
		u32 dt = npu_opnd(c->t, i)->dtype;

		if (dt != DRM_NPU_DTYPE_F32 &&
		    !(mask && i == 3 && dt == DRM_NPU_DTYPE_BOOL))
			return fail(c, i, "F32 operands (mask F32 or BOOL)");
	}
	r = o->rank;
	if (r < 2)
		return fail(c, 3 + mask, "out must be [..., Sq, Dv]");
	if (!batch_bcasts(q, o) || !batch_bcasts(k, o) || !batch_bcasts(v, o))
		return fail(c, 0, "q/k/v: rank 2..out rank, batch dims broadcast");
	if (q->shape[q->rank - 1] != k->shape[k->rank - 1])
		return fail(c, 1, "q and k head sizes differ");
	if (k->shape[k->rank - 2] != v->shape[v->rank - 2])
		return fail(c, 2, "k and v sequence lengths differ");
	if (o->shape[r - 2] != q->shape[q->rank - 2] ||
	    o->shape[r - 1] != v->shape[v->rank - 1])
		return fail(c, 3 + mask, "out must be [..., Sq, Dv]");
	if (mask) {
		struct drm_npu_operand sc = *o;

		sc.shape[r - 1] = k->shape[k->rank - 2];
		if (!bcasts_to(npu_opnd(c->t, 3), &sc))
			return fail(c, 3, "mask must broadcast to [..., Sq, Sk]");
	}
	return 0;
}

/* Range of an int8 dtype: I8 [-128, 127], U8 [0, 255]. */
static void q_range(u32 dt, s32 *lo, s32 *hi)
{
	*lo = dt == DRM_NPU_DTYPE_I8 ? -128 : 0;
	*hi = dt == DRM_NPU_DTYPE_I8 ? 127 : 255;
}

static int q_in_range(u32 dt, s32 v)
{
	s32 lo, hi;

	q_range(dt, &lo, &hi);
	return v >= lo && v <= hi;
}

/*
 * The requantization of QCONV2D/QMATMUL: a, b and out I8/U8, zero points
 * inside their operand's range, [y_min, y_max] a non-empty part of out's
 * range, the multiplier a finite positive fp32 (or 0 and per channel),
 * bias I32 [@nch] and per-channel mult F32 [@nch] (kernels index them
 * with an output channel < @nch only).
 */
static int check_requant(struct chk *c, const struct drm_npu_requant *q,
			 u32 flags, u32 nch)
{
	const struct drm_npu_task *t = c->t;
	u32 last = t->num_operands - 1, i = 2;
	const struct drm_npu_operand *a = npu_opnd(t, 0), *b = npu_opnd(t, 1);
	const struct drm_npu_operand *o = npu_opnd(t, last);

	if (!dtype_is(a->dtype, DT(I8) | DT(U8)))
		return fail(c, 0, "int8 op input must be I8 or U8");
	if (!dtype_is(b->dtype, DT(I8) | DT(U8)))
		return fail(c, 1, "int8 op weight/b must be I8 or U8");
	if (!dtype_is(o->dtype, DT(I8) | DT(U8)))
		return fail(c, last, "int8 op output must be I8 or U8");
	if (!q_in_range(a->dtype, q->a_zero) ||
	    !q_in_range(b->dtype, q->b_zero) ||
	    !q_in_range(o->dtype, q->y_zero))
		return fail(c, NONE_BAD, "zero point outside its operand's dtype range");
	if (!q_in_range(o->dtype, q->y_min) ||
	    !q_in_range(o->dtype, q->y_max) || q->y_min > q->y_max)
		return fail(c, NONE_BAD, "y_min > y_max, or outside the output dtype");
	if (flags & DRM_NPU_Q_PER_CHANNEL) {
		if (q->scale)
			return fail(c, NONE_BAD, "scale must be 0 with PER_CHANNEL");
	} else if (!npu_bits_positive_finite(q->scale)) {
		return fail(c, NONE_BAD, "scale must be a finite positive fp32");
	}
	if (flags & DRM_NPU_Q_HAS_BIAS) {
		const struct drm_npu_operand *bo = npu_opnd(t, i);

		if (bo->dtype != DRM_NPU_DTYPE_I32 || bo->rank != 1 ||
		    bo->shape[0] != nch || npu_is_nc1hwc0(bo))
			return fail(c, i, "bias must be I32 [output channels]");
		i++;
	}
	if (flags & DRM_NPU_Q_PER_CHANNEL) {
		const struct drm_npu_operand *mo = npu_opnd(t, i);

		if (mo->dtype != DRM_NPU_DTYPE_F32 || mo->rank != 1 ||
		    mo->shape[0] != nch || npu_is_nc1hwc0(mo))
			return fail(c, i, "mult must be F32 [output channels]");
	}
	return 0;
}

static u32 q_extra(u32 flags)
{
	return !!(flags & DRM_NPU_Q_HAS_BIAS) +
	       !!(flags & DRM_NPU_Q_PER_CHANNEL);
}

/*
 * QCONV2D: CONV2D's geometry rules (the same output size, channels
 * matched in 64 bits), then the requantization's. The packed weight
 * form [O, C1, KH, KW, 32] needs groups 1 and an NC1HWC0 input of the
 * same C1: the kernels read input channel blocks c1 < C1 and weight
 * taps below the weight's own shape only.
 */
static int check_qconv2d(struct chk *c)
{
	const struct drm_npu_qconv2d_params *p = &c->t->params.qconv2d;
	const struct drm_npu_operand *in, *w, *o;
	u32 known = DRM_NPU_Q_HAS_BIAS | DRM_NPU_Q_PER_CHANNEL, extra, last;
	int ret;
	u64 ch;

	if (p->flags & ~known)
		return fail(c, NONE_BAD, "unknown QCONV2D flags");
	extra = q_extra(p->flags);
	ret = check_operands(c, 3 + extra, 3 + extra);
	if (ret)
		return ret;
	last = 2 + extra;
	if (p->pad[0] || p->pad[1] || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "QCONV2D pad/unused params must be zero");
	if (!p->groups || !p->stride_h || !p->stride_w || !p->dilation_h ||
	    !p->dilation_w)
		return fail(c, NONE_BAD, "groups, strides and dilations must be >= 1");
	if (p->pad_top >= 0x10000000u || p->pad_bottom >= 0x10000000u ||
	    p->pad_left >= 0x10000000u || p->pad_right >= 0x10000000u)
		return fail(c, NONE_BAD, "padding too large");
	in = npu_opnd(c->t, 0);
	w = npu_opnd(c->t, 1);
	o = npu_opnd(c->t, last);
	if (!activation_4d(in))
		return fail(c, 0, "input must be NCHW (rank 4) or NC1HWC0");
	if (!activation_4d(o))
		return fail(c, last, "output must be NCHW (rank 4) or NC1HWC0");
	if (npu_is_nc1hwc0(w)) {
		if (p->groups != 1 || !npu_is_nc1hwc0(in) ||
		    w->shape[1] != in->shape[1])
			return fail(c, 1, "packed weight: groups 1, NC1HWC0 input of its C1");
		if (!w->shape[1])
			return fail(c, 1, "empty kernel");
		ch = (u64)w->shape[1] * w->shape[4];
	} else {
		if (w->rank != 4)
			return fail(c, 1, "weight must be OIHW (rank 4) or NC1HWC0");
		if (!w->shape[1])
			return fail(c, 1, "empty kernel");
		ch = (u64)w->shape[1] * p->groups;
		if (ch > 0xffffffffull || !channels_match(in, ch))
			return fail(c, 0, "input channels != weight I * groups");
	}
	if (!w->shape[2] || !w->shape[3])
		return fail(c, 1, "empty kernel");
	if (w->shape[0] % p->groups)
		return fail(c, 1, "output channels not divisible by groups");
	if (o->shape[0] != in->shape[0] || !channels_match(o, w->shape[0]))
		return fail(c, last, "output N/channels do not match input/weight");
	if (o->shape[2] != npu_window_out(in->shape[2],
					  p->pad_top + p->pad_bottom,
					  w->shape[2], p->stride_h, p->dilation_h) ||
	    o->shape[3] != npu_window_out(in->shape[3],
					  p->pad_left + p->pad_right,
					  w->shape[3], p->stride_w, p->dilation_w) ||
	    !o->shape[2] || !o->shape[3])
		return fail(c, last, "output H/W != (in + pads - dil*(k-1) - 1)/stride + 1");
	return check_requant(c, &p->q, p->flags, w->shape[0]);
}

/*
 * QMATMUL: a [..., M, K], out [..., M, N] with the same leading dims,
 * b [K, N] (or [N, K] transposed), then the requantization's rules.
 */
static int check_qmatmul(struct chk *c)
{
	const struct drm_npu_qmatmul_params *p = &c->t->params.qmatmul;
	const struct drm_npu_operand *a, *b, *o;
	u32 known = DRM_NPU_Q_HAS_BIAS | DRM_NPU_Q_PER_CHANNEL |
		    DRM_NPU_Q_TRANS_B, extra, last, k, n, i;
	int ret;

	if (p->flags & ~known)
		return fail(c, NONE_BAD, "unknown QMATMUL flags");
	extra = q_extra(p->flags);
	ret = check_operands(c, 3 + extra, 3 + extra);
	if (ret)
		return ret;
	last = 2 + extra;
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "QMATMUL pad/unused params must be zero");
	a = npu_opnd(c->t, 0);
	b = npu_opnd(c->t, 1);
	o = npu_opnd(c->t, last);
	if (a->rank < 2 || npu_is_nc1hwc0(a))
		return fail(c, 0, "a must be [..., M, K]");
	if (b->rank != 2 || npu_is_nc1hwc0(b))
		return fail(c, 1, "b must be rank 2");
	if (o->rank != a->rank || npu_is_nc1hwc0(o))
		return fail(c, last, "out must have a's rank");
	for (i = 0; i + 1 < a->rank; i++)
		if (a->shape[i] != o->shape[i])
			return fail(c, last, "out must be [..., M, N] over a's leading dims");
	k = b->shape[0];
	n = b->shape[1];
	if (p->flags & DRM_NPU_Q_TRANS_B) {
		k = b->shape[1];
		n = b->shape[0];
	}
	if (a->shape[a->rank - 1] != k)
		return fail(c, 1, "inner dimensions of a and b differ");
	if (o->shape[o->rank - 1] != n)
		return fail(c, last, "out must be [..., M, N]");
	return check_requant(c, &p->q, p->flags, n);
}

/*
 * QADD: a, b and out I8/U8 of one shape and layout (the row walk indexes
 * each below its own shape), scales finite positive, zero points and the
 * clamp inside their operand's range.
 */
static int check_qadd(struct chk *c)
{
	const struct drm_npu_qadd_params *p = &c->t->params.qadd;
	const struct drm_npu_operand *a, *b, *o;
	int ret = check_operands(c, 3, 3);
	u32 i;

	if (ret)
		return ret;
	if (!params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "QADD unused params must be zero");
	for (i = 0; i < 3; i++)
		if (!dtype_is(npu_opnd(c->t, i)->dtype, DT(I8) | DT(U8)))
			return fail(c, i, "QADD operands must be I8 or U8");
	a = npu_opnd(c->t, 0);
	b = npu_opnd(c->t, 1);
	o = npu_opnd(c->t, 2);
	if (!same_shape(a, o) || !same_shape(b, o) ||
	    a->layout != o->layout || b->layout != o->layout)
		return fail(c, 2, "QADD operands must have one shape and layout");
	if (!npu_bits_positive_finite(p->a_scale) ||
	    !npu_bits_positive_finite(p->b_scale) ||
	    !npu_bits_positive_finite(p->y_scale))
		return fail(c, NONE_BAD, "scales must be finite positive fp32");
	if (!q_in_range(a->dtype, p->a_zero) ||
	    !q_in_range(b->dtype, p->b_zero) ||
	    !q_in_range(o->dtype, p->y_zero))
		return fail(c, NONE_BAD, "zero point outside its operand's dtype range");
	if (!q_in_range(o->dtype, p->y_min) ||
	    !q_in_range(o->dtype, p->y_max) || p->y_min > p->y_max)
		return fail(c, NONE_BAD, "y_min > y_max, or outside the output dtype");
	return 0;
}

/*
 * RNN: state [T, B, S, H]; xg [T, B, G*H], r [G*H, H], h0 [B, H], c0
 * [B, H] (LSTM), p [3H] (LSTM peepholes), rbh [H] (GRU). The kernel reads
 * xg[t, b, g*H + j], r[g*H + j, k], h0[b, k], c0[b, k], p[q*H + j] (q <
 * 3), rbh[j] and reads and writes
 * state[t, b, s, j] for t < T, b < B, s < S, g < G and j, k < H: every
 * index below a shape matched here (G*H compared in 64 bits). A unit is a
 * batch row over all T steps; npu_op_unit_cost() counts T * (G*H*(H+1)
 * + 8H + 1), so a long or wide layer must be split over time.
 */
static int check_rnn(struct chk *c)
{
	const struct drm_npu_rnn_params *p = &c->t->params.rnn;
	const struct drm_npu_operand *xg, *r, *h0, *aux, *st;
	u32 i, n, g, s, hid;
	u64 gh;
	int ret;

	if (p->cell >= DRM_NPU_RNN_CELL_COUNT)
		return fail(c, NONE_BAD, "unknown RNN cell");
	if (p->flags & ~(DRM_NPU_RNN_REVERSE |
			 DRM_NPU_RNN_LINEAR_BEFORE_RESET |
			 DRM_NPU_RNN_PEEPHOLE))
		return fail(c, NONE_BAD, "unknown RNN flags");
	if ((p->flags & DRM_NPU_RNN_LINEAR_BEFORE_RESET) &&
	    p->cell != DRM_NPU_RNN_GRU)
		return fail(c, NONE_BAD, "LINEAR_BEFORE_RESET is for GRU only");
	if ((p->flags & DRM_NPU_RNN_PEEPHOLE) && p->cell != DRM_NPU_RNN_LSTM)
		return fail(c, NONE_BAD, "PEEPHOLE is for LSTM only");
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "pad/unused params must be zero");
	if (p->clip && !npu_bits_positive_finite(p->clip))
		return fail(c, NONE_BAD, "clip must be 0 (none) or finite > 0");
	n = p->cell == DRM_NPU_RNN_TANH ? 4 :
	    p->flags & DRM_NPU_RNN_PEEPHOLE ? 6 : 5;
	ret = check_operands(c, n, n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (npu_opnd(c->t, i)->dtype != DRM_NPU_DTYPE_F32)
			return fail(c, i, "RNN operands are F32");
	xg = npu_opnd(c->t, 0);
	r = npu_opnd(c->t, 1);
	h0 = npu_opnd(c->t, 2);
	aux = npu_opnd(c->t, 3);
	st = npu_opnd(c->t, n - 1);
	g = p->cell == DRM_NPU_RNN_LSTM ? 4 : p->cell == DRM_NPU_RNN_GRU ? 3 : 1;
	s = p->cell == DRM_NPU_RNN_LSTM ||
	    (p->cell == DRM_NPU_RNN_GRU &&
	     !(p->flags & DRM_NPU_RNN_LINEAR_BEFORE_RESET)) ? 2 : 1;
	if (st->rank != 4 || st->shape[2] != s)
		return fail(c, n - 1, "state must be [T, B, S, H], S = 2 for LSTM/GRU, else 1");
	hid = st->shape[3];
	gh = (u64)g * hid;
	if (xg->rank != 3 || xg->shape[0] != st->shape[0] ||
	    xg->shape[1] != st->shape[1] || xg->shape[2] != gh)
		return fail(c, 0, "xg must be [T, B, G*H]");
	if (r->rank != 2 || r->shape[0] != gh || r->shape[1] != hid)
		return fail(c, 1, "r must be [G*H, H]");
	if (h0->rank != 2 || h0->shape[0] != st->shape[1] ||
	    h0->shape[1] != hid)
		return fail(c, 2, "h0 must be [B, H]");
	if (p->cell == DRM_NPU_RNN_LSTM && !same_shape(aux, h0))
		return fail(c, 3, "c0 must be [B, H]");
	if (p->cell == DRM_NPU_RNN_GRU &&
	    (aux->rank != 1 || aux->shape[0] != hid))
		return fail(c, 3, "rbh must be [H]");
	if (n == 6 && (npu_opnd(c->t, 4)->rank != 1 ||
		       npu_opnd(c->t, 4)->shape[0] != 3 * (u64)hid))
		return fail(c, 4, "p must be [3H]");
	return 0;
}

/*
 * TOPK: in [.., n, ..] (F32, I32, I64), out I64 with in's shape but k
 * along the axis, 1 <= k <= n. A line reads in at coordinates below in's
 * shape (the axis up to n - 1) and writes out below out's shape (the axis
 * up to k - 1); the indices it writes are values, never addresses. A unit
 * costs n * (2k + 2) + 1 (insertion), capped like every unit.
 */
static int check_topk(struct chk *c)
{
	const struct drm_npu_topk_params *p = &c->t->params.topk;
	const struct drm_npu_operand *in, *o;
	u32 i;
	int ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (p->flags & ~DRM_NPU_TOPK_LARGEST)
		return fail(c, NONE_BAD, "unknown TOPK flags");
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "pad/unused params must be zero");
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	if (!dtype_is(in->dtype, DT(F32) | DT(I32) | DT(I64)))
		return fail(c, 0, "in must be F32, I32 or I64");
	if (o->dtype != DRM_NPU_DTYPE_I64)
		return fail(c, 1, "indices must be I64");
	if (p->axis >= in->rank || o->rank != in->rank)
		return fail(c, 1, "axis < rank, out rank == in rank");
	for (i = 0; i < in->rank; i++)
		if (i != p->axis && o->shape[i] != in->shape[i])
			return fail(c, 1, "out shape != in shape off the axis");
	if (!p->k || p->k != o->shape[p->axis] || p->k > in->shape[p->axis])
		return fail(c, 1, "out shape[axis] must be k, 1 <= k <= n");
	return 0;
}

/*
 * SCATTER: indices (I32/I64), updates, out. ND: indices [M.., k] with
 * 1 <= k <= out rank, updates [M.., out.shape[k:]]; ELEMENTS: indices and
 * updates of one shape and out's rank, each dim but the axis at most
 * out's. The kernel writes out only at coordinates below out's shape: the
 * indexed ones are checked against out's dim at run time (BAD_INDEX), the
 * others come from updates' coordinates, bounded here. One unit: every
 * update, in order; its cost is counted per update.
 */
static int check_scatter(struct chk *c)
{
	const struct drm_npu_scatter_params *p = &c->t->params.scatter;
	const struct drm_npu_operand *ix, *up, *o;
	bool el = p->flags & DRM_NPU_SCATTER_ELEMENTS;
	u32 i, q, k;
	int ret = check_operands(c, 3, 3);

	if (ret)
		return ret;
	if (p->flags & ~DRM_NPU_SCATTER_ELEMENTS ||
	    p->reduce >= DRM_NPU_SCATTER_REDUCE_COUNT)
		return fail(c, NONE_BAD, "unknown SCATTER flags or reduction");
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)) || (!el && p->axis))
		return fail(c, NONE_BAD, "pad/unused params must be zero");
	ix = npu_opnd(c->t, 0);
	up = npu_opnd(c->t, 1);
	o = npu_opnd(c->t, 2);
	if (!dtype_is(ix->dtype, DT(I32) | DT(I64)))
		return fail(c, 0, "indices must be I32 or I64");
	if (up->dtype != o->dtype)
		return fail(c, 1, "updates and out share a dtype");
	if (p->reduce && !dtype_is(o->dtype, DT(F32) | DT(I32) | DT(I64)))
		return fail(c, 2, "a reduction needs F32, I32 or I64");
	if (el) {
		if (p->axis >= o->rank || ix->rank != o->rank ||
		    !same_shape(ix, up))
			return fail(c, 0, "ELEMENTS: indices, updates: one shape, out rank");
		for (i = 0; i < o->rank; i++)
			if (i != p->axis && ix->shape[i] > o->shape[i])
				return fail(c, 0, "ELEMENTS: indices larger than out off the axis");
		return 0;
	}
	q = ix->rank;
	if (q < 1)
		return fail(c, 0, "ND: indices [..., k]");
	k = ix->shape[q - 1];
	if (k < 1 || k > o->rank || up->rank != q - 1 + o->rank - k)
		return fail(c, 1, "ND: updates must be indices[:-1] + out[k:]");
	for (i = 0; i + 1 < q; i++)
		if (up->shape[i] != ix->shape[i])
			return fail(c, 1, "ND: updates must be indices[:-1] + out[k:]");
	for (i = k; i < o->rank; i++)
		if (up->shape[q - 1 + i - k] != o->shape[i])
			return fail(c, 1, "ND: updates must be indices[:-1] + out[k:]");
	return 0;
}

/*
 * MATH: in broadcasts to out (numpy rules, as for UNARY), both F32; the
 * row iteration indexes each operand below its own shape.
 */
static int check_math(struct chk *c)
{
	const struct drm_npu_math_params *p = &c->t->params.math;
	int ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (p->kind >= DRM_NPU_MATH_KIND_COUNT)
		return fail(c, NONE_BAD, "unknown MATH kind");
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "pad/unused params must be zero");
	if (npu_opnd(c->t, 0)->dtype != DRM_NPU_DTYPE_F32 ||
	    npu_opnd(c->t, 1)->dtype != DRM_NPU_DTYPE_F32)
		return fail(c, 0, "MATH operands are F32");
	if (!bcasts_to(npu_opnd(c->t, 0), npu_opnd(c->t, 1)))
		return fail(c, 0, "does not broadcast to the output shape");
	return 0;
}

/*
 * Images (IMG_CSC, IMG_RESIZE, AIPP): U8 operands, batch outermost.
 * Heights and widths are at most NPU_IMG_MAX_DIM (a media unit's limit),
 * so resize tap arithmetic ((2 d + 1) in, d * in) stays far below 2^64.
 * check_img_in() matches operand 0 (and the UV plane, operand 1) to
 * @fmt and returns N, H, W; the kernels read pixel (n, y, x) with
 * n < N, y < H, x < W, channel k < the matched C, and chroma
 * (y / 2, x / 2) < (ceil(H / 2), ceil(W / 2)) = the UV shape.
 */
static u32 img_planes(u32 fmt)
{
	return fmt == DRM_NPU_IMG_NV12 || fmt == DRM_NPU_IMG_NV21 ? 2 : 1;
}

static int img_u8(struct chk *c, u32 i, u32 rank)
{
	const struct drm_npu_operand *o = npu_opnd(c->t, i);

	if (o->dtype != DRM_NPU_DTYPE_U8)
		return fail(c, i, "images are U8");
	if (o->layout != DRM_NPU_LAYOUT_ND && o->layout != DRM_NPU_LAYOUT_NHWC)
		return fail(c, i, "images are ND/NHWC");
	if (o->rank != rank)
		return fail(c, i, rank == 3 ? "Y/YUV400 plane must be [N, H, W]" :
			    "image must be [N, H, W, C]");
	if (o->shape[1] > NPU_IMG_MAX_DIM || o->shape[2] > NPU_IMG_MAX_DIM)
		return fail(c, i, "image height/width above 65536");
	return 0;
}

static int check_img_in(struct chk *c, u32 fmt)
{
	const struct drm_npu_operand *a = npu_opnd(c->t, 0), *uv;
	int ret;

	switch (fmt) {
	case DRM_NPU_IMG_NV12:
	case DRM_NPU_IMG_NV21:
		ret = img_u8(c, 0, 3);
		if (!ret)
			ret = img_u8(c, 1, 4);
		if (ret)
			return ret;
		uv = npu_opnd(c->t, 1);
		if (uv->shape[0] != a->shape[0] ||
		    uv->shape[1] != ((u64)a->shape[1] + 1) / 2 ||
		    uv->shape[2] != ((u64)a->shape[2] + 1) / 2 ||
		    uv->shape[3] != 2)
			return fail(c, 1, "UV plane must be [N, ceil(H/2), ceil(W/2), 2]");
		return 0;
	case DRM_NPU_IMG_YUV400:
		return img_u8(c, 0, 3);
	case DRM_NPU_IMG_RGB888:
	case DRM_NPU_IMG_BGR888:
	case DRM_NPU_IMG_XRGB8888:
		ret = img_u8(c, 0, 4);
		if (ret)
			return ret;
		if (a->shape[3] != (fmt == DRM_NPU_IMG_XRGB8888 ? 4u : 3u))
			return fail(c, 0, "packed pixels: C = 3 (RGB888/BGR888) or 4 (XRGB8888)");
		return 0;
	default:
		return fail(c, NONE_BAD, "unknown image format");
	}
}

static int check_img_csc(struct chk *c)
{
	const struct drm_npu_img_csc_params *p = &c->t->params.img_csc;
	const struct drm_npu_operand *a, *o;
	int ret;

	if (p->in_format >= DRM_NPU_IMG_FORMAT_COUNT)
		return fail(c, NONE_BAD, "unknown image format");
	ret = check_operands(c, img_planes(p->in_format) + 1,
			     img_planes(p->in_format) + 1);
	if (ret)
		return ret;
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "pad/unused params must be zero");
	if (p->out_format != DRM_NPU_IMG_RGB888 &&
	    p->out_format != DRM_NPU_IMG_BGR888)
		return fail(c, NONE_BAD, "IMG_CSC writes RGB888 or BGR888");
	if (p->matrix >= DRM_NPU_CSC_MATRIX_COUNT ||
	    (p->matrix && p->in_format >= DRM_NPU_IMG_RGB888 &&
	     p->in_format != DRM_NPU_IMG_YUV400))
		return fail(c, NONE_BAD, "unknown matrix (0 for RGB inputs)");
	ret = check_img_in(c, p->in_format);
	if (ret)
		return ret;
	ret = img_u8(c, c->t->num_operands - 1, 4);
	if (ret)
		return ret;
	a = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, c->t->num_operands - 1);
	if (o->shape[0] != a->shape[0] || o->shape[1] != a->shape[1] ||
	    o->shape[2] != a->shape[2] || o->shape[3] != 3)
		return fail(c, c->t->num_operands - 1, "out must be [N, H, W, 3]");
	return 0;
}

/*
 * IMG_RESIZE: the resized area (out less the border) is not empty when
 * the output is not, and neither is the input: source taps are clamped to
 * [0, in - 1] (npu_tap_of()).
 */
static int check_img_resize(struct chk *c)
{
	const struct drm_npu_img_resize_params *p = &c->t->params.img_resize;
	const struct drm_npu_operand *in, *o;
	u64 bh, bw;
	int ret = check_operands(c, 2, 2);

	if (ret)
		return ret;
	if (p->mode >= DRM_NPU_IMG_RESIZE_MODE_COUNT)
		return fail(c, NONE_BAD, "unknown IMG_RESIZE mode");
	if (p->reserved[0] || p->reserved[1] ||
	    !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "reserved/unused params must be zero");
	ret = img_u8(c, 0, 4);
	if (!ret)
		ret = img_u8(c, 1, 4);
	if (ret)
		return ret;
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	if (o->shape[0] != in->shape[0] || o->shape[3] != in->shape[3] ||
	    !in->shape[3] || in->shape[3] > 4)
		return fail(c, 1, "same N and C (1..4) in and out");
	if (!npu_numel(o))
		return 0;
	bh = (u64)p->pad_top + p->pad_bottom;
	bw = (u64)p->pad_left + p->pad_right;
	if (bh >= o->shape[1] || bw >= o->shape[2])
		return fail(c, NONE_BAD, "border leaves no resized area");
	if (!in->shape[1] || !in->shape[2])
		return fail(c, 0, "cannot resize an empty image");
	return 0;
}

/*
 * AIPP: out [N, C, OH, OW] F32 (or NC1HWC0 [N, 1, OH, OW, 16]), OH and OW
 * the input's plus the border, computed in 64 bits.
 */
static int check_aipp(struct chk *c)
{
	const struct drm_npu_aipp_params *p = &c->t->params.aipp;
	const struct drm_npu_operand *a, *o, *dy;
	int csc = !!(p->flags & DRM_NPU_AIPP_CSC), ret;
	int dyn = !!(p->flags & DRM_NPU_AIPP_DYNAMIC);
	u32 ch, i, oi, n;

	if (p->in_format >= DRM_NPU_IMG_FORMAT_COUNT)
		return fail(c, NONE_BAD, "unknown image format");
	if (p->flags & ~DRM_NPU_AIPP_FLAGS)
		return fail(c, NONE_BAD, "unknown AIPP flags");
	n = img_planes(p->in_format) + dyn + 1;
	ret = check_operands(c, n, n);
	if (ret)
		return ret;
	if (p->reserved || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "reserved/unused params must be zero");
	if (p->in_format == DRM_NPU_IMG_YUV400 &&
	    (p->flags & (DRM_NPU_AIPP_RBUV_SWAP | DRM_NPU_AIPP_DYNAMIC)))
		return fail(c, NONE_BAD, "RBUV_SWAP and DYNAMIC need a colour format");
	if (!csc && (!bytes_zero(p->matrix, sizeof(p->matrix)) ||
		     !bytes_zero(p->input_bias, sizeof(p->input_bias)) ||
		     !bytes_zero(p->output_bias, sizeof(p->output_bias))))
		return fail(c, NONE_BAD, "matrix/biases without CSC must be zero");
	if (dyn && (csc || (p->flags & DRM_NPU_AIPP_RBUV_SWAP) ||
		    !bytes_zero(p->mean, sizeof(p->mean)) ||
		    !bytes_zero(p->min, sizeof(p->min)) ||
		    !bytes_zero(p->var_reci, sizeof(p->var_reci)) ||
		    p->pad_value))
		return fail(c, NONE_BAD, "DYNAMIC: the parameters come from the operand");
	ch = (p->in_format == DRM_NPU_IMG_YUV400 && !csc) ? 1 : 3;
	for (i = 0; i < 4; i++) {
		if (i >= ch && (p->mean[i] || p->min[i] || p->var_reci[i]))
			return fail(c, NONE_BAD, "mean/min/var_reci past C must be zero");
		if (p->mean[i] > 255 || !npu_bits_finite(p->min[i]) ||
		    !npu_bits_finite(p->var_reci[i]))
			return fail(c, NONE_BAD, "mean 0..255, min and var_reci finite");
	}
	if (!npu_bits_finite(p->pad_value))
		return fail(c, NONE_BAD, "pad_value must be finite");
	ret = check_img_in(c, p->in_format);
	if (ret)
		return ret;
	if (dyn) {
		/* read as one struct: the view must be dense bytes */
		dy = npu_opnd(c->t, n - 2);
		if (dy->dtype != DRM_NPU_DTYPE_U8 || dy->rank != 1 ||
		    dy->shape[0] != DRM_NPU_AIPP_DYN_SIZE ||
		    dy->strides[0] != 1)
			return fail(c, n - 2, "dynamic parameters: U8 [76], stride 1");
	}
	a = npu_opnd(c->t, 0);
	oi = c->t->num_operands - 1;
	o = npu_opnd(c->t, oi);
	if (o->dtype != DRM_NPU_DTYPE_F32)
		return fail(c, oi, "AIPP writes F32");
	if (o->rank >= 4 && (o->shape[2] > NPU_IMG_MAX_DIM ||
			     o->shape[3] > NPU_IMG_MAX_DIM))
		return fail(c, oi, "image height/width above 65536");
	if (npu_is_nc1hwc0(o) ? o->shape[1] != 1 :
	    (o->rank != 4 || (o->layout != DRM_NPU_LAYOUT_NCHW &&
			      o->layout != DRM_NPU_LAYOUT_ND) ||
	     o->shape[1] != ch))
		return fail(c, oi, "out must be NCHW [N, C, OH, OW] or NC1HWC0 [N, 1, OH, OW, 16]");
	if (o->shape[0] != a->shape[0] ||
	    o->shape[2] != (u64)a->shape[1] + p->pad_top + p->pad_bottom ||
	    o->shape[3] != (u64)a->shape[2] + p->pad_left + p->pad_right)
		return fail(c, oi, "out H/W must be the image's plus the padding");
	return 0;
}

/* Row-major dense: the kernel fills and packs @o as one flat array. */
static int dense_row_major(const struct drm_npu_operand *o)
{
	u64 st = 1;
	u32 i;

	for (i = o->rank; i-- > 0;) {
		if (o->shape[i] != 1 && o->strides[i] != st)
			return 0;
		st *= o->shape[i];
	}
	return 1;
}

/* A dense I64 operand of rank @rank: the kernel addresses it flat. */
static int dense_i64(const struct drm_npu_operand *o, u32 rank)
{
	return o->dtype == DRM_NPU_DTYPE_I64 && o->rank == rank &&
	       dense_row_major(o);
}

/* A count operand: I64, one element. */
static int check_count(struct chk *c, u32 i)
{
	const struct drm_npu_operand *n = npu_opnd(c->t, i);

	if (n->dtype != DRM_NPU_DTYPE_I64 || npu_numel(n) != 1)
		return fail(c, i, "count must be one I64 element");
	return 0;
}

/*
 * NONZERO: in (any dtype but I4), out I64 [rank(in), numel(in)] dense,
 * count. One unit (two passes over in).
 */
static int check_nonzero(struct chk *c)
{
	const struct drm_npu_operand *in, *o;
	int ret = check_operands(c, 3, 3);

	if (ret)
		return ret;
	if (!params_tail_zero(c->t, 0))
		return fail(c, NONE_BAD, "NONZERO has no params: all zero");
	in = npu_opnd(c->t, 0);
	o = npu_opnd(c->t, 1);
	if (!dtype_is(in->dtype, DT_ANY) || in->layout == DRM_NPU_LAYOUT_NC1HWC0)
		return fail(c, 0, "in: a plain tensor of a known dtype");
	if (!dense_i64(o, 2) || o->shape[0] != in->rank ||
	    (u64)o->shape[1] != npu_numel(in))
		return fail(c, 1, "out must be dense I64 [rank(in), numel(in)]");
	return check_count(c, 2);
}

static int check_nms_params(struct chk *c)
{
	const struct drm_npu_nms_params *p = &c->t->params.nms;

	if (p->flags & ~(DRM_NPU_NMS_CENTER_BOX |
			 DRM_NPU_NMS_HAS_SCORE_THRESHOLD))
		return fail(c, NONE_BAD, "unknown NMS flags");
	if (!params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "unused params must be zero");
	/* integer code: +0.0 .. 1.0 are the bit patterns 0 .. 0x3f800000 */
	if (!p->max_per_class || p->iou_threshold > 0x3f800000u)
		return fail(c, NONE_BAD, "max_per_class >= 1, iou_threshold in [0, 1]");
	if ((p->score_threshold & 0x7fffffffu) > 0x7f800000u)
		return fail(c, NONE_BAD, "score_threshold is NaN");
	if (!(p->flags & DRM_NPU_NMS_HAS_SCORE_THRESHOLD) && p->score_threshold)
		return fail(c, NONE_BAD, "score_threshold set without its flag");
	return 0;
}

/*
 * NMS: boxes F32 [B, N, 4], scores F32 [B, C, N], scratch I32 [B * C, N],
 * out I64 [B * C * min(N, max_per_class), 3], counts I64 [B * C], all
 * three dense. One unit per (batch, class).
 */
static int check_nms(struct chk *c)
{
	const struct drm_npu_operand *bx, *sc, *ws, *o, *n;
	u64 keep, pairs;
	int ret = check_operands(c, 5, 5);

	if (!ret)
		ret = check_nms_params(c);
	if (ret)
		return ret;
	bx = npu_opnd(c->t, 0);
	sc = npu_opnd(c->t, 1);
	ws = npu_opnd(c->t, 2);
	o = npu_opnd(c->t, 3);
	n = npu_opnd(c->t, 4);
	if (bx->dtype != DRM_NPU_DTYPE_F32 || bx->rank != 3 ||
	    bx->shape[2] != 4 || bx->shape[1] > 0x7fffffffu)
		return fail(c, 0, "boxes must be F32 [B, N, 4], N < 2^31");
	if (sc->dtype != DRM_NPU_DTYPE_F32 || sc->rank != 3 ||
	    sc->shape[0] != bx->shape[0] || sc->shape[2] != bx->shape[1])
		return fail(c, 1, "scores must be F32 [B, C, N] of the boxes' B and N");
	pairs = (u64)sc->shape[0] * sc->shape[1];
	keep = sc->shape[2] < c->t->params.nms.max_per_class ?
	       sc->shape[2] : c->t->params.nms.max_per_class;
	if (ws->dtype != DRM_NPU_DTYPE_I32 || ws->rank != 2 ||
	    ws->shape[0] != pairs || ws->shape[1] != sc->shape[2] ||
	    !dense_row_major(ws))
		return fail(c, 2, "scratch must be dense I32 [B * C, N]");
	if (!dense_i64(o, 2) || o->shape[1] != 3 ||
	    (u64)o->shape[0] != npu_mul_sat(pairs, keep))
		return fail(c, 3, "out must be dense I64 [B * C * min(N, max_per_class), 3]");
	if (!dense_i64(n, 1) || n->shape[0] != pairs)
		return fail(c, 4, "counts must be dense I64 [B * C]");
	return 0;
}

/* PACK_ROWS: counts I64 [P], data I64 [P, K, W], count. One unit. */
static int check_pack_rows(struct chk *c)
{
	const struct drm_npu_operand *n, *d;
	int ret = check_operands(c, 3, 3);

	if (ret)
		return ret;
	if (!params_tail_zero(c->t, 0))
		return fail(c, NONE_BAD, "PACK_ROWS has no params: all zero");
	n = npu_opnd(c->t, 0);
	d = npu_opnd(c->t, 1);
	if (!dense_i64(n, 1))
		return fail(c, 0, "counts must be dense I64 [P]");
	if (!dense_i64(d, 3) || d->shape[0] != n->shape[0])
		return fail(c, 1, "data must be dense I64 [P, K, W] of the counts' P");
	return check_count(c, 2);
}

/*
 * UNIQUE: in [O, A, I] (F32, F16, I8, U8, I32, I64; not NC1HWC0), perm
 * I64 [2, A], y of in's dtype [O, A, I], indices and counts I64 [A],
 * count; all but in dense. A < 2^31. One unit.
 */
static int check_unique(struct chk *c)
{
	const struct drm_npu_operand *in, *p, *y;
	int ret = check_operands(c, 6, 6);

	if (ret)
		return ret;
	if (c->t->params.unique.flags & ~DRM_NPU_UNIQUE_SORTED ||
	    !params_tail_zero(c->t, sizeof(u32)))
		return fail(c, NONE_BAD, "UNIQUE: flags SORTED only, the rest zero");
	in = npu_opnd(c->t, 0);
	p = npu_opnd(c->t, 1);
	y = npu_opnd(c->t, 2);
	if (in->rank != 3 || !dtype_is(in->dtype, DT_ARITH) ||
	    in->layout == DRM_NPU_LAYOUT_NC1HWC0 || in->shape[1] > 0x7fffffffu)
		return fail(c, 0, "in: a plain [O, A, I] of F32/F16/I8/U8/I32/I64, A < 2^31");
	if (!dense_i64(p, 2) || p->shape[0] != 2 || p->shape[1] != in->shape[1])
		return fail(c, 1, "perm must be dense I64 [2, A]");
	if (y->dtype != in->dtype || y->rank != 3 || !dense_row_major(y) ||
	    y->shape[0] != in->shape[0] || y->shape[1] != in->shape[1] ||
	    y->shape[2] != in->shape[2])
		return fail(c, 2, "y must be dense [O, A, I] of in's dtype");
	for (u32 k = 3; k < 5; k++) {
		const struct drm_npu_operand *o = npu_opnd(c->t, k);

		if (!dense_i64(o, 1) || o->shape[0] != in->shape[1])
			return fail(c, k, "indices and counts must be dense I64 [A]");
	}
	return check_count(c, 5);
}

/*
 * GRID_SAMPLE: in F32 [N, C, H, W], grid F32 [N, Ho, Wo, 2], out F32
 * [N, C, Ho, Wo] (in and out NCHW or ND, any strides). Every sample's coordinates come from grid's
 * values: the kernel bounds each tap by in's H and W (or reads 0), so a
 * non-empty out needs a non-empty in. Units: output row segments, a
 * segment's elements each up to 16 taps.
 */
static int check_grid_sample(struct chk *c)
{
	const struct drm_npu_grid_sample_params *p = &c->t->params.grid_sample;
	const struct drm_npu_operand *in, *g, *o;
	int ret = check_operands(c, 3, 3);

	if (ret)
		return ret;
	if (p->mode >= DRM_NPU_GRID_SAMPLE_MODE_COUNT ||
	    p->padding >= DRM_NPU_GRID_SAMPLE_PADDING_COUNT ||
	    p->flags & ~DRM_NPU_GRID_SAMPLE_ALIGN_CORNERS)
		return fail(c, NONE_BAD, "unknown GRID_SAMPLE mode/padding/flags");
	if (p->pad || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "pad/unused params must be zero");
	in = npu_opnd(c->t, 0);
	g = npu_opnd(c->t, 1);
	o = npu_opnd(c->t, 2);
	if (npu_is_nc1hwc0(in) || !activation_4d(in) ||
	    in->dtype != DRM_NPU_DTYPE_F32)
		return fail(c, 0, "in must be F32 [N, C, H, W]");
	if (g->dtype != DRM_NPU_DTYPE_F32 || g->rank != 4 ||
	    g->layout != DRM_NPU_LAYOUT_ND || g->shape[0] != in->shape[0] ||
	    g->shape[3] != 2)
		return fail(c, 1, "grid must be F32 [N, Ho, Wo, 2]");
	if (npu_is_nc1hwc0(o) || !activation_4d(o) ||
	    o->dtype != DRM_NPU_DTYPE_F32 || o->shape[0] != in->shape[0] ||
	    o->shape[1] != in->shape[1] || o->shape[2] != g->shape[1] ||
	    o->shape[3] != g->shape[2])
		return fail(c, 2, "out must be F32 [N, C, Ho, Wo]");
	if (npu_numel(o) && (!in->shape[2] || !in->shape[3]))
		return fail(c, 0, "cannot sample an empty image");
	return 0;
}

/*
 * ROI_ALIGN: in F32 [N, C, H, W], rois F32 [R, 4], batch I32/I64 [R], out
 * F32 [R, C, Oh, Ow] (in and out NCHW or ND); spatial_scale finite. The
 * boxes and batch indices are data: the kernel bounds each sample by in's
 * H and W and faults on a batch index outside N. A non-empty out needs a
 * non-empty image.
 */
static int check_roi_align(struct chk *c)
{
	const struct drm_npu_roi_align_params *p = &c->t->params.roi_align;
	const struct drm_npu_operand *in, *r, *b, *o;
	int ret = check_operands(c, 4, 4);

	if (ret)
		return ret;
	if (p->mode >= DRM_NPU_ROI_ALIGN_MODE_COUNT ||
	    p->flags & ~DRM_NPU_ROI_ALIGN_HALF_PIXEL ||
	    !npu_bits_finite(p->spatial_scale) ||
	    !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "bad ROI_ALIGN mode/flags/scale/params");
	in = npu_opnd(c->t, 0);
	r = npu_opnd(c->t, 1);
	b = npu_opnd(c->t, 2);
	o = npu_opnd(c->t, 3);
	if (npu_is_nc1hwc0(in) || !activation_4d(in) ||
	    in->dtype != DRM_NPU_DTYPE_F32)
		return fail(c, 0, "in must be F32 [N, C, H, W]");
	if (r->dtype != DRM_NPU_DTYPE_F32 || r->rank != 2 ||
	    r->layout != DRM_NPU_LAYOUT_ND || r->shape[1] != 4)
		return fail(c, 1, "rois must be F32 [R, 4]");
	if (!dtype_is(b->dtype, DT(I32) | DT(I64)) || b->rank != 1 ||
	    b->layout != DRM_NPU_LAYOUT_ND || b->shape[0] != r->shape[0])
		return fail(c, 2, "batch indices must be I32/I64 [R]");
	if (npu_is_nc1hwc0(o) || !activation_4d(o) ||
	    o->dtype != DRM_NPU_DTYPE_F32 || o->shape[0] != r->shape[0] ||
	    o->shape[1] != in->shape[1])
		return fail(c, 3, "out must be F32 [R, C, Oh, Ow]");
	if (npu_numel(o) && (!in->shape[0] || !in->shape[2] || !in->shape[3]))
		return fail(c, 0, "cannot pool an empty image");
	return 0;
}

/*
 * RANDOM: [p F32], out F32, both dense ND of one shape (the kernel
 * indexes them flat by the row-major element index, which is also the
 * generator's counter). UNIFORM and NORMAL take out alone, BERNOULLI p
 * and out; a and b finite (0 for BERNOULLI).
 */
static int check_random(struct chk *c)
{
	const struct drm_npu_random_params *p = &c->t->params.random;
	u32 n = p->dist == DRM_NPU_RANDOM_BERNOULLI ? 2 : 1;
	const struct drm_npu_operand *o;
	int ret;

	if (p->dist >= DRM_NPU_RANDOM_DIST_COUNT ||
	    p->flags & ~DRM_NPU_RANDOM_PER_JOB ||
	    !npu_bits_finite(p->a) || !npu_bits_finite(p->b) ||
	    (n == 2 && (p->a || p->b)) || !params_tail_zero(c->t, sizeof(*p)))
		return fail(c, NONE_BAD, "bad RANDOM dist/flags/a/b/params");
	ret = check_operands(c, n, n);
	if (ret)
		return ret;
	o = npu_opnd(c->t, n - 1);
	if (o->dtype != DRM_NPU_DTYPE_F32 || o->layout != DRM_NPU_LAYOUT_ND ||
	    !dense_row_major(o))
		return fail(c, n - 1, "RANDOM out must be dense F32 (ND)");
	if (n == 2 && (npu_opnd(c->t, 0)->dtype != DRM_NPU_DTYPE_F32 ||
		       npu_opnd(c->t, 0)->layout != DRM_NPU_LAYOUT_ND ||
		       !same_shape(npu_opnd(c->t, 0), o) ||
		       !dense_row_major(npu_opnd(c->t, 0))))
		return fail(c, 0, "BERNOULLI p must be dense F32 (ND) of out's shape");
	return 0;
}

static int check_sem(struct chk *c)
{
	int ret = check_operands(c, 0, 0);

	if (ret)
		return ret;
	if (c->t->params.sem.pad ||
	    !params_tail_zero(c->t, sizeof(struct drm_npu_sem_params)))
		return fail(c, NONE_BAD, "SEM pad/unused params must be zero");
	return 0;
}

static int check_nop(struct chk *c)
{
	int ret = check_operands(c, 0, 0);

	if (ret)
		return ret;
	if (!params_tail_zero(c->t, 0))
		return fail(c, NONE_BAD, "NOP params must be zero");
	return 0;
}

/*
 * One work unit must end within milliseconds, or a core cannot be taken
 * back from a hostile task: refuse tasks whose smallest unit is too big.
 */
static int check_unit_cost(struct chk *c)
{
	if (npu_op_unit_cost(c->t) > NPU_MAX_UNIT_COST)
		return fail(c, NONE_BAD,
			    "one work unit exceeds 2^27 element operations: split the task");
	return 0;
}

static int check_opcode(struct chk *c)
{
	switch (c->t->opcode) {
	case DRM_NPU_OP_NOP:		return check_nop(c);
	case DRM_NPU_OP_COPY:		return check_copy(c);
	case DRM_NPU_OP_BINARY:		return check_binary(c);
	case DRM_NPU_OP_UNARY:		return check_unary(c);
	case DRM_NPU_OP_MATMUL:		return check_matmul(c);
	case DRM_NPU_OP_CONV2D:		return check_conv2d(c);
	case DRM_NPU_OP_POOL2D:		return check_pool2d(c);
	case DRM_NPU_OP_SOFTMAX:	return check_softmax(c);
	case DRM_NPU_OP_REDUCE:		return check_reduce(c);
	case DRM_NPU_OP_LAYERNORM:	return check_layernorm(c);
	case DRM_NPU_OP_BATCHNORM:	return check_batchnorm(c);
	case DRM_NPU_OP_GATHER:		return check_gather(c);
	case DRM_NPU_OP_WHERE:		return check_where(c);
	case DRM_NPU_OP_PAD:		return check_pad(c);
	case DRM_NPU_OP_RESIZE:		return check_resize(c);
	case DRM_NPU_OP_TRANSDATA:	return check_transdata(c);
	case DRM_NPU_OP_QUANTIZE:	return check_quant(c, 1);
	case DRM_NPU_OP_DEQUANTIZE:	return check_quant(c, 0);
	case DRM_NPU_OP_ATTENTION:	return check_attention(c);
	case DRM_NPU_OP_MATMUL_WQ:	return check_matmul_wq(c);
	case DRM_NPU_OP_SEM_SIGNAL:
	case DRM_NPU_OP_SEM_WAIT:	return check_sem(c);
	case DRM_NPU_OP_QCONV2D:	return check_qconv2d(c);
	case DRM_NPU_OP_QMATMUL:	return check_qmatmul(c);
	case DRM_NPU_OP_QADD:		return check_qadd(c);
	case DRM_NPU_OP_RNN:		return check_rnn(c);
	case DRM_NPU_OP_TOPK:		return check_topk(c);
	case DRM_NPU_OP_SCATTER:	return check_scatter(c);
	case DRM_NPU_OP_MATH:		return check_math(c);
	case DRM_NPU_OP_NONZERO:	return check_nonzero(c);
	case DRM_NPU_OP_NMS:		return check_nms(c);
	case DRM_NPU_OP_PACK_ROWS:	return check_pack_rows(c);
	case DRM_NPU_OP_UNIQUE:		return check_unique(c);
	case DRM_NPU_OP_GRID_SAMPLE:	return check_grid_sample(c);
	case DRM_NPU_OP_ROI_ALIGN:	return check_roi_align(c);
	case DRM_NPU_OP_RANDOM:		return check_random(c);
	case DRM_NPU_OP_IMG_CSC:	return check_img_csc(c);
	case DRM_NPU_OP_IMG_RESIZE:	return check_img_resize(c);
	case DRM_NPU_OP_AIPP:		return check_aipp(c);
	default:
		return fail(c, NONE_BAD, "unknown opcode");
	}
}

int npu_op_check_why(const struct drm_npu_task *task, u32 *bad_operand,
		     const char **why)
{
	struct chk c = { .t = task, .bad = bad_operand, .why = why };
	int ret;

	*bad_operand = NONE_BAD;
	if (why)
		*why = NULL;
	if (task->flags || task->pad[0] || task->pad[1] || task->pad[2] ||
	    task->reserved)
		return fail(&c, NONE_BAD, "task flags/pad/reserved must be zero");
	if (task->num_operands > DRM_NPU_MAX_OPERANDS)
		return fail(&c, NONE_BAD, "too many operands");
	ret = check_opcode(&c);
	return ret ? ret : check_unit_cost(&c);
}

int npu_op_check(const struct drm_npu_task *task, u32 *bad_operand)
{
	return npu_op_check_why(task, bad_operand, NULL);
}
