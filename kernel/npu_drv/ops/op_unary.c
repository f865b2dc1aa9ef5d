// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_unary.c - UNARY tasks and the activations that MATMUL, CONV2D and
 * BINARY fuse. Definitions follow PyTorch (and ONNX where they agree):
 * GELU is the exact erf form, HardSwish is x * relu6(x + 3) / 6, Softplus is
 * log1p(exp(x)) evaluated without overflow, ELU uses expm1.
 */
#include "npu_ops_float.h"
#include "npu_kern.h"

float npu_act1(const struct npu_act *a, float x)
{
	double xd = x, t;

	switch (a->kind) {
	case DRM_NPU_ACT_RELU:
		return x < 0 ? 0.0f : x;
	case DRM_NPU_ACT_SIGMOID:
		return npu_sigmoidf_fast(x);
	case DRM_NPU_ACT_TANH:
		return npu_tanhf_fast(x);
	case DRM_NPU_ACT_GELU:
		return npu_geluf(x);
	case DRM_NPU_ACT_EXP:
		return npu_expf_fast(x);
	case DRM_NPU_ACT_SQRT:
		return npu_sqrtf(x);
	case DRM_NPU_ACT_CLIP:
		if (x < a->alpha)
			x = a->alpha;
		return x > a->beta ? a->beta : x;
	case DRM_NPU_ACT_LEAKY_RELU:
		return x >= 0 ? x : a->alpha * x;
	case DRM_NPU_ACT_HARDSIGMOID:
		x = a->alpha * x + a->beta;
		if (x < 0)
			return 0.0f;
		return x > 1.0f ? 1.0f : x;
	case DRM_NPU_ACT_HARDSWISH: {
		float r6 = x + 3.0f;

		r6 = r6 < 0 ? 0.0f : (r6 > 6.0f ? 6.0f : r6);
		return x * r6 / 6.0f;
	}
	case DRM_NPU_ACT_ERF:
		return npu_erff(x);
	case DRM_NPU_ACT_NEG:
		return -x;
	case DRM_NPU_ACT_ABS:
		return npu_fabsf(x);
	case DRM_NPU_ACT_LOG:
		return npu_logf(x);
	case DRM_NPU_ACT_RECIPROCAL:
		return 1.0f / x;
	case DRM_NPU_ACT_GELU_TANH:
		/* 0.5 x (1 + tanh t) = x sigmoid(2t), without cancellation */
		t = NPU_SQRT_2_PI * (xd + 0.044715 * xd * xd * xd);
		return (float)(xd / (1.0 + npu_exp_d(-2.0 * t)));
	case DRM_NPU_ACT_SILU:
		return npu_siluf_fast(x);
	case DRM_NPU_ACT_ELU:
		if (x >= 0 || x != x)
			return x;
		return (float)((double)a->alpha * npu_expm1_d(xd));
	case DRM_NPU_ACT_SOFTPLUS:
		if (x != x)
			return x;
		if (x > 0)
			return (float)(xd + npu_log1p_d(npu_exp_d(-xd)));
		return (float)npu_log1p_d(npu_exp_d(xd));
	case DRM_NPU_ACT_FLOOR:
		return npu_floorf(x);
	case DRM_NPU_ACT_CEIL:
		return npu_ceilf(x);
	default:			/* NONE (NOT is integer-only) */
		return x;
	}
}

typedef float npu_v4f __attribute__((__vector_size__(4 * sizeof(u32))));
typedef s32 npu_v4i __attribute__((__vector_size__(16)));

/* x < lo ? lo : x, then > hi ? hi : (NaN passes), four lanes at a time */
static void clamp_row(float *x, u32 n, float lo, float hi, bool upper)
{
	npu_v4f l = { lo, lo, lo, lo }, h = { hi, hi, hi, hi }, v;
	npu_v4i m;
	u32 i;

	for (i = 0; i + 4 <= n; i += 4) {
		memcpy(&v, x + i, sizeof(v));
		m = v < l;
		v = (npu_v4f)((m & (npu_v4i)l) | (~m & (npu_v4i)v));
		if (upper) {
			m = v > h;
			v = (npu_v4f)((m & (npu_v4i)h) | (~m & (npu_v4i)v));
		}
		memcpy(x + i, &v, sizeof(v));
	}
	for (; i < n; i++) {
		float w = x[i] < lo ? lo : x[i];

		x[i] = upper && w > hi ? hi : w;
	}
}

void npu_act_row(const struct npu_act *a, float *x, u32 n)
{
	const struct npu_kern *k = a->kern ? a->kern : &npu_kern_baseline;
	u32 i;

	switch (a->kind) {
	case DRM_NPU_ACT_NONE:
		return;
	case DRM_NPU_ACT_RELU:		/* the common cases, vectorised */
		clamp_row(x, n, 0.0f, 0.0f, false);
		return;
	case DRM_NPU_ACT_CLIP:		/* relu6; as npu_act1() */
		clamp_row(x, n, a->alpha, a->beta, true);
		return;
	case DRM_NPU_ACT_GELU:		/* npu_geluf()'s bits, vectorised */
		k->gelu_row(x, n);
		return;
	case DRM_NPU_ACT_EXP:		/* npu_expf_fast()'s bits */
		k->expf_row(x, n);
		return;
	case DRM_NPU_ACT_SIGMOID:	/* npu_sigmoidf_fast()'s bits */
		k->sigmoid_row(x, n, false);
		return;
	case DRM_NPU_ACT_SILU:		/* npu_siluf_fast()'s bits */
		k->sigmoid_row(x, n, true);
		return;
	case DRM_NPU_ACT_TANH:		/* npu_tanhf_fast()'s bits */
		k->tanh_row(x, n);
		return;
	default:
		for (i = 0; i < n; i++)
			x[i] = npu_act1(a, x[i]);
	}
}

/* Integer UNARY: NONE, RELU, NEG, ABS, CLIP, NOT (bounds saturated). */
static s64 int_act(const struct npu_act *a, u32 dt, s64 v)
{
	s64 lo, hi;

	switch (a->kind) {
	case DRM_NPU_ACT_RELU:
		return v < 0 ? 0 : v;
	case DRM_NPU_ACT_NEG:
		return (s64)(0 - (u64)v);
	case DRM_NPU_ACT_ABS:
		return v < 0 ? (s64)(0 - (u64)v) : v;
	case DRM_NPU_ACT_NOT:
		return !v;
	case DRM_NPU_ACT_CLIP:
		lo = npu_f2i_sat(npu_ceilf(a->alpha), -0x7fffffffffffffffll - 1,
				 0x7fffffffffffffffll);
		hi = npu_f2i_sat(npu_floorf(a->beta), -0x7fffffffffffffffll - 1,
				 0x7fffffffffffffffll);
		if (a->alpha != a->alpha)
			lo = -0x7fffffffffffffffll - 1;
		if (a->beta != a->beta)
			hi = 0x7fffffffffffffffll;
		if (v < lo)
			v = lo;
		return v > hi ? hi : v;
	default:
		return v;
	}
}

#define UNARY_CHUNK	256

int npu_run_unary(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *ops[2] = { npu_opnd(t, 0), npu_opnd(t, 1) };
	u32 dt = ops[0]->dtype;
	struct npu_rows r;
	struct npu_act act;
	float buf[UNARY_CHUNK];
	struct npu_seg sg;
	u64 u, i, j, offs[2];
	u32 n;

	npu_act_init(&act, &t->params.unary);
	act.kern = npu_kern_get(args->isa);
	npu_rows_begin(&r, ops, 2);
	for (u = begin; u < end; u++) {
		npu_row_offsets(&r, u, &sg, offs);
		if (!npu_dt_is_float(dt)) {
			for (i = 0; i < sg.len; i++)
				npu_st_i(dt, args->data[1],
					 offs[1] + i * r.inner[1],
					 int_act(&act, dt,
						 npu_ld_i(dt, args->data[0],
							  offs[0] +
							  i * r.inner[0])));
			continue;
		}
		if (dt == DRM_NPU_DTYPE_F32 && r.inner[0] == 1 &&
		    r.inner[1] == 1) {
			/* contiguous f32: copied once, activated in place */
			const float *src = (const float *)args->data[0] +
					   offs[0];
			float *dst = (float *)args->data[1] + offs[1];

			if (dst != src)
				memmove(dst, src, (u64)sg.len * sizeof(float));
			npu_act_row(&act, dst, sg.len);
			continue;
		}
		for (i = 0; i < sg.len; i += n) {
			n = sg.len - i < UNARY_CHUNK ? (u32)(sg.len - i) :
						      UNARY_CHUNK;
			for (j = 0; j < n; j++)
				buf[j] = npu_ld_f(dt, args->data[0],
						  offs[0] + (i + j) * r.inner[0]);
			npu_act_row(&act, buf, n);
			for (j = 0; j < n; j++)
				npu_st_f(dt, args->data[1],
					 offs[1] + (i + j) * r.inner[1], buf[j]);
		}
	}
	return 0;
}
