// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_quant.c - QUANTIZE / DEQUANTIZE (ONNX QuantizeLinear /
 * DequantizeLinear), per tensor (scale and zero point in the params) or
 * per channel along params.axis (scales: operand 2, F32 [C]; zero points:
 * optional operand 3, the quantized dtype or I32, else params.zero_point).
 *   quantize:   q = saturate(round_half_even(x / scale) + zero_point)
 *   dequantize: x = (q - zero_point) * scale
 * computed in fp32 as the ONNX reference does. Work unit: one output row.
 */
#include "npu_ops_float.h"

struct qctx {
	const struct drm_npu_quant_params *p;
	const struct drm_npu_operand *in, *out, *sc, *zp;
	const float *scales;
	const void *zps;
	int per_ch;
};

static void chan_params(const struct qctx *q, const struct npu_op_args *args,
			u64 ch, float *scale, s64 *zp)
{
	if (!q->per_ch) {
		*scale = npu_u2f(q->p->scale);
		*zp = q->p->zero_point;
		return;
	}
	*scale = q->scales[ch * q->sc->strides[0]];
	*zp = q->zp ? npu_ld_i(q->zp->dtype, q->zps,
			       ch * q->zp->strides[0]) : q->p->zero_point;
}

/*
 * Per-tensor QUANTIZE of a contiguous row segment: the same values as the
 * general loop (round half to even of x / scale, NaN -> zero point,
 * saturate) without branches, so that the compiler vectorizes it. The
 * clamp comes first (its bounds are integers, so clamping before or after
 * rounding is the same), which keeps |v| < 2^22 for the magic-number
 * rounding.
 */
static void quant_row(const float *x, void *y, u32 odt, u64 n, float scale,
		      s32 zp, s32 lo, s32 hi)
{
	const float magic = 12582912.0f;	/* 1.5 * 2^23 */
	float flo = (float)(lo - zp), fhi = (float)(hi - zp);
	u64 i;

	for (i = 0; i < n; i++) {
		float v = x[i] / scale;
		s32 q;

		v = v == v ? v : 0.0f;
		v = v < flo ? flo : v;
		v = v > fhi ? fhi : v;
		q = (s32)((v + magic) - magic) + zp;
		if (odt == DRM_NPU_DTYPE_I8)
			((s8 *)y)[i] = (s8)q;
		else
			((u8 *)y)[i] = (u8)q;
	}
}

static int run_quant(const struct npu_op_args *args, u64 begin, u64 end,
		     int quantize)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *const ops[2] = {
		npu_opnd(t, 0), npu_opnd(t, 1)
	};
	struct qctx q = {
		.p = &t->params.quant, .in = ops[0], .out = ops[1],
		.per_ch = !!(t->params.quant.flags & DRM_NPU_QUANT_PER_CHANNEL),
	};
	u32 axis = q.p->axis, r = q.in->rank, odt = q.out->dtype;
	s64 lo = odt == DRM_NPU_DTYPE_I8 ? -128 : 0;
	s64 hi = odt == DRM_NPU_DTYPE_I8 ? 127 : 255;
	struct npu_rows rw;
	struct npu_seg sg;
	u64 u, i, offs[2];

	if (q.per_ch) {
		q.sc = npu_opnd(t, 2);
		q.scales = args->data[2];
		if (t->num_operands == 4) {
			q.zp = npu_opnd(t, 3);
			q.zps = args->data[3];
		}
	}
	npu_rows_begin(&rw, ops, 2);
	for (u = begin; u < end; u++) {
		u32 oc[DRM_NPU_MAX_RANK] = { 0 };
		float scale;
		s64 zp;

		npu_row_offsets(&rw, u, &sg, offs);
		if (quantize && !q.per_ch && rw.inner[0] == 1 &&
		    rw.inner[1] == 1) {
			quant_row((const float *)args->data[0] + offs[0],
				  (u8 *)args->data[1] + offs[1], odt, sg.len,
				  npu_u2f(q.p->scale), q.p->zero_point,
				  (s32)lo, (s32)hi);
			continue;
		}
		npu_unravel(sg.row, q.in->shape, r ? r - 1 : 0, oc);
		chan_params(&q, args, q.per_ch ? oc[axis] : 0, &scale, &zp);
		for (i = 0; i < sg.len; i++) {
			u64 xi = offs[0] + i * rw.inner[0];
			u64 yi = offs[1] + i * rw.inner[1];

			if (q.per_ch && r && axis == r - 1)
				chan_params(&q, args, sg.start + i, &scale, &zp);
			if (quantize) {
				const float *x = args->data[0];
				float v = npu_roundevenf(x[xi] / scale);
				s64 qv = npu_f2i_sat(v, -0x40000000ll,
						     0x40000000ll) + zp;

				if (v != v)
					qv = zp;
				npu_st_i(odt, args->data[1], yi,
					 qv < lo ? lo : (qv > hi ? hi : qv));
			} else {
				s64 qv = npu_ld_i(q.in->dtype, args->data[0], xi);

				((float *)args->data[1])[yi] =
					(float)(qv - zp) * scale;
			}
		}
	}
	return 0;
}

int npu_run_quantize(const struct npu_op_args *args, u64 begin, u64 end)
{
	return run_quant(args, begin, end, 1);
}

int npu_run_dequantize(const struct npu_op_args *args, u64 begin, u64 end)
{
	return run_quant(args, begin, end, 0);
}
