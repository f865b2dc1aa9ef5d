// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_qlinear.c - the int8 ops QCONV2D and QMATMUL (ONNX QLinearConv and
 * QLinearMatMul, and the QDQ patterns npuc rewrites into them).
 *
 * Numerics, for each output element with output channel (or column) o:
 *
 *   acc = sum over the taps of (x - a_zero) * (w - b_zero)  [+ bias[o]]
 *
 * in 32-bit two's complement, wrapping (ONNX accumulates in int32; a sum
 * that overflows is undefined there and wraps here, in every level).
 * Padding taps of a convolution add nothing (x = a_zero). Then
 *
 *   v = (double)acc * (double)M[o] + (double)y_zero
 *   out = rne(min(max(v, y_min), y_max))      (a NaN v gives y_max)
 *
 * with M[o] the fp32 multiplier fl(fl(sa * sb[o]) / sy) that the compiler
 * computes, rne rounding half to even: the operation order of the ONNX
 * reference implementation of QLinearConv/QLinearMatMul (an int32 array
 * times a float32 array is a float64 array in numpy). Clamping before
 * rounding equals rounding before clamping as the bounds are integers.
 *
 * Work units: QCONV2D, 16 output channels of one output row; QMATMUL,
 * NPU_Q_MM_ROWS output rows (npu_qmm_geom()). The packed convolution
 * form and transposed-B products run the AVX-512 VNNI kernels
 * (npu_qkern_vnni.c) on CPUs that have them; every other form, and the
 * baseline level that the compiler's folding and interpreter use, runs
 * the portable loops below. Both give the same bits: the sums are exact
 * and the requantization is the same double operations.
 */
#include "npu_ops_float.h"
#include "npu_kern.h"
#include "npu_qkern.h"

/* Round half to even for |v| < 2^51, without libm. */
static inline double q_rne(double v)
{
	const double big = 6755399441055744.0;	/* 1.5 * 2^52 */

	return (v + big) - big;
}

static inline s32 q_requant(s32 acc, double m, const struct npu_qrq *r)
{
	double v = (double)acc * m + r->yz;

	if (!(v <= r->hi))
		v = r->hi;
	if (v < r->lo)
		v = r->lo;
	return (s32)q_rne(v);
}

static inline s32 q_ld(u32 dt, const void *p, u64 i)
{
	return dt == DRM_NPU_DTYPE_I8 ? ((const s8 *)p)[i] :
					((const u8 *)p)[i];
}

static inline void q_st(u32 dt, void *p, u64 i, s32 v)
{
	if (dt == DRM_NPU_DTYPE_I8)
		((s8 *)p)[i] = (s8)v;
	else
		((u8 *)p)[i] = (u8)v;
}

static inline s32 q_mac(s32 acc, s32 a, s32 b)
{
	return (s32)((u32)acc + (u32)a * (u32)b);
}

/* Requantization constants of output channels [o0, o0 + n). */
static void q_fill_rq(const struct npu_op_args *args,
		      const struct drm_npu_requant *q, u32 flags, u64 o0,
		      u32 n, struct npu_qrq *r)
{
	const struct drm_npu_task *t = args->task;
	u32 i, k = 2;
	u64 bst = 0, mst = 0;
	const s32 *bias = NULL;
	const float *mult = NULL;

	if (flags & DRM_NPU_Q_HAS_BIAS) {
		bias = args->data[k];
		bst = npu_opnd(t, k)->strides[0];
		k++;
	}
	if (flags & DRM_NPU_Q_PER_CHANNEL) {
		mult = args->data[k];
		mst = npu_opnd(t, k)->strides[0];
	}
	for (i = 0; i < n; i++) {
		r->add[i] = bias ? bias[(o0 + i) * bst] : 0;
		r->mult[i] = mult ? (double)mult[(o0 + i) * mst] :
				    (double)npu_u2f(q->scale);
	}
	r->yz = q->y_zero;
	r->lo = q->y_min;
	r->hi = q->y_max;
}

/* --- QCONV2D --------------------------------------------------------------- */

struct qconv {
	const struct drm_npu_operand *in, *w, *out;
	const struct drm_npu_qconv2d_params *p;
	u32 n, c1, ih, iw, o, kh, kw, oh, ow;
	u64 cg;			/* channels summed per output channel */
	u32 og;
	int in_b, out_b, w_packed;
};

/* Element offset of input channel @c at (@img, @iy, @ix). */
static inline u64 qc_x_off(const struct qconv *q, u64 img, u64 c, u64 iy,
			   u64 ix)
{
	const u32 *s = q->in->strides;

	if (q->in_b)
		return img * s[0] + (c / NPU_C0_BYTES_1) * s[1] + iy * s[2] +
		       ix * s[3] + (c % NPU_C0_BYTES_1) * s[4];
	return img * s[0] + c * s[1] + iy * s[2] + ix * s[3];
}

static inline u64 qc_w_off(const struct qconv *q, u64 o, u64 c, u64 ky,
			   u64 kx)
{
	const u32 *s = q->w->strides;

	if (q->w_packed)
		return o * s[0] + (c / NPU_C0_BYTES_1) * s[1] + ky * s[2] +
		       kx * s[3] + (c % NPU_C0_BYTES_1) * s[4];
	return o * s[0] + c * s[1] + ky * s[2] + kx * s[3];
}

static inline u64 qc_o_off(const struct qconv *q, u64 img, u64 o, u64 y,
			   u64 x)
{
	const u32 *s = q->out->strides;

	if (q->out_b)
		return img * s[0] + (o / NPU_C0_BYTES_1) * s[1] + y * s[2] +
		       x * s[3] + (o % NPU_C0_BYTES_1) * s[4];
	return img * s[0] + o * s[1] + y * s[2] + x * s[3];
}

static void qconv_setup(const struct drm_npu_task *t, struct qconv *q)
{
	q->p = &t->params.qconv2d;
	q->in = npu_opnd(t, 0);
	q->w = npu_opnd(t, 1);
	q->out = npu_opnd(t, t->num_operands - 1);
	q->in_b = npu_is_nc1hwc0(q->in);
	q->out_b = npu_is_nc1hwc0(q->out);
	q->w_packed = npu_is_nc1hwc0(q->w);
	q->n = q->in->shape[0];
	q->c1 = q->in->shape[1];
	q->ih = q->in->shape[2];
	q->iw = q->in->shape[3];
	q->o = q->w->shape[0];
	q->kh = q->w->shape[2];
	q->kw = q->w->shape[3];
	q->oh = q->out->shape[2];
	q->ow = q->out->shape[3];
	q->cg = q->w_packed ? (u64)q->w->shape[1] * NPU_C0_BYTES_1 :
			      q->w->shape[1];
	q->og = q->o / q->p->groups;
}

/* The portable loops: any layout, strides, groups and zero points. */
static void qconv_unit_ref(const struct npu_op_args *args,
			   const struct qconv *q, u64 img, u64 o0, u32 noc,
			   u64 oy, const struct npu_qrq *r)
{
	const struct drm_npu_requant *rq = &q->p->q;
	const void *x = args->data[0], *w = args->data[1];
	void *out = args->data[args->task->num_operands - 1];
	u32 xdt = q->in->dtype, wdt = q->w->dtype, odt = q->out->dtype;
	s64 iy0 = (s64)oy * q->p->stride_h - q->p->pad_top;
	u64 i, ox, c, ky, kx;

	for (i = 0; i < noc; i++) {
		u64 o = o0 + i, cbase = (o / q->og) * q->cg;

		for (ox = 0; ox < q->ow; ox++) {
			s64 ix0 = (s64)ox * q->p->stride_w - q->p->pad_left;
			s32 acc = r->add[i];

			for (ky = 0; ky < q->kh; ky++) {
				s64 iy = iy0 + (s64)(ky * q->p->dilation_h);

				if (iy < 0 || iy >= q->ih)
					continue;
				for (kx = 0; kx < q->kw; kx++) {
					s64 ix = ix0 +
						 (s64)(kx * q->p->dilation_w);

					if (ix < 0 || ix >= q->iw)
						continue;
					for (c = 0; c < q->cg; c++) {
						s32 xv = q_ld(xdt, x,
							qc_x_off(q, img,
								 cbase + c,
								 (u64)iy,
								 (u64)ix));
						s32 wv = q_ld(wdt, w,
							qc_w_off(q, o, c, ky,
								 kx));

						acc = q_mac(acc,
							    xv - rq->a_zero,
							    wv - rq->b_zero);
					}
				}
			}
			q_st(odt, out, qc_o_off(q, img, o, oy, ox),
			     q_requant(acc, r->mult[i], r));
		}
	}
	/* NC1HWC0 output: the padding channels of the last block hold 0 */
	if (q->out_b && o0 + noc == q->o && q->o % NPU_C0_BYTES_1) {
		for (i = q->o; i % NPU_C0_BYTES_1; i++)
			for (ox = 0; ox < q->ow; ox++)
				q_st(odt, out, qc_o_off(q, img, i, oy, ox), 0);
	}
}

/* sum over 32 channels of (x - az) * (w - bz), per dtype pair */
static inline s32 qdot32_u8_s8(const u8 *x, const s8 *w, s32 az, s32 bz)
{
	s32 s = 0;
	u32 k;

	for (k = 0; k < NPU_C0_BYTES_1; k++)
		s += ((s32)x[k] - az) * ((s32)w[k] - bz);
	return s;
}

static inline s32 qdot32_s8_s8(const s8 *x, const s8 *w, s32 az, s32 bz)
{
	s32 s = 0;
	u32 k;

	for (k = 0; k < NPU_C0_BYTES_1; k++)
		s += ((s32)x[k] - az) * ((s32)w[k] - bz);
	return s;
}

static inline s32 qdot32_u8_u8(const u8 *x, const u8 *w, s32 az, s32 bz)
{
	s32 s = 0;
	u32 k;

	for (k = 0; k < NPU_C0_BYTES_1; k++)
		s += ((s32)x[k] - az) * ((s32)w[k] - bz);
	return s;
}

static inline s32 qdot32_s8_u8(const s8 *x, const u8 *w, s32 az, s32 bz)
{
	s32 s = 0;
	u32 k;

	for (k = 0; k < NPU_C0_BYTES_1; k++)
		s += ((s32)x[k] - az) * ((s32)w[k] - bz);
	return s;
}

static inline s32 qdot32(u32 xdt, const u8 *x, u32 wdt, const u8 *w, s32 az,
			 s32 bz)
{
	if (xdt == DRM_NPU_DTYPE_U8)
		return wdt == DRM_NPU_DTYPE_I8 ?
		       qdot32_u8_s8(x, (const s8 *)w, az, bz) :
		       qdot32_u8_u8(x, w, az, bz);
	return wdt == DRM_NPU_DTYPE_I8 ?
	       qdot32_s8_s8((const s8 *)x, (const s8 *)w, az, bz) :
	       qdot32_s8_u8((const s8 *)x, w, az, bz);
}

/*
 * The packed form with contiguous C0 blocks, portably: 32 channels per
 * step in a loop the compiler vectorizes at any level. A 32-term block
 * sum fits in 32 bits (32 * 255 * 255 < 2^31), the running sum wraps.
 */
static void qconv_unit_packed(const struct npu_op_args *args,
			      const struct qconv *q, u64 img, u64 o0, u32 noc,
			      u64 oy, const struct npu_qrq *r)
{
	const struct drm_npu_requant *rq = &q->p->q;
	const u8 *x = args->data[0], *w = args->data[1];
	void *out = args->data[args->task->num_operands - 1];
	const u32 *xs = q->in->strides, *ws = q->w->strides;
	u32 xdt = q->in->dtype, wdt = q->w->dtype, odt = q->out->dtype;
	s64 iy0 = (s64)oy * q->p->stride_h - q->p->pad_top;
	u64 i, ox, c1, ky, kx;

	for (i = 0; i < noc; i++) {
		const u8 *wo = w + (o0 + i) * ws[0];

		for (ox = 0; ox < q->ow; ox++) {
			s64 ix0 = (s64)ox * q->p->stride_w - q->p->pad_left;
			s32 acc = r->add[i];

			for (ky = 0; ky < q->kh; ky++) {
				s64 iy = iy0 + (s64)(ky * q->p->dilation_h);

				if (iy < 0 || iy >= q->ih)
					continue;
				for (kx = 0; kx < q->kw; kx++) {
					s64 ix = ix0 +
						 (s64)(kx * q->p->dilation_w);
					const u8 *xp, *wp;

					if (ix < 0 || ix >= q->iw)
						continue;
					xp = x + img * xs[0] + (u64)iy * xs[2] +
					     (u64)ix * xs[3];
					wp = wo + ky * ws[2] + kx * ws[3];
					for (c1 = 0; c1 < q->c1; c1++)
						acc = (s32)((u32)acc +
							(u32)qdot32(xdt,
								xp + c1 * xs[1],
								wdt,
								wp + c1 * ws[1],
								rq->a_zero,
								rq->b_zero));
				}
			}
			q_st(odt, out, qc_o_off(q, img, o0 + i, oy, ox),
			     q_requant(acc, r->mult[i], r));
		}
	}
	if (q->out_b && o0 + noc == q->o && q->o % NPU_C0_BYTES_1) {
		for (i = q->o; i % NPU_C0_BYTES_1; i++)
			for (ox = 0; ox < q->ow; ox++)
				q_st(odt, out, qc_o_off(q, img, i, oy, ox), 0);
	}
}

/*
 * Depthwise (one input channel per output channel, groups = O) on
 * NC1HWC0 input and output with contiguous C0: the unit's 16 channels are
 * 16 contiguous lanes, summed tap by tap in a loop the compiler
 * vectorizes. The taps' weights of the 16 channels are gathered first
 * (at most NPU_Q_DW_TAPS taps).
 */
#define NPU_Q_DW_TAPS	25

static int qconv_dw_ok(const struct qconv *q)
{
	return q->p->groups == q->o && q->cg == 1 && q->in_b && q->out_b &&
	       q->in->strides[4] == 1 && q->out->strides[4] == 1 &&
	       (u64)q->kh * q->kw <= NPU_Q_DW_TAPS;
}

static void qconv_unit_dw(const struct npu_op_args *args,
			  const struct qconv *q, u64 img, u64 o0, u32 noc,
			  u64 oy, const struct npu_qrq *r)
{
	const struct drm_npu_requant *rq = &q->p->q;
	const void *x = args->data[0], *w = args->data[1];
	void *out = args->data[args->task->num_operands - 1];
	u32 xdt = q->in->dtype, wdt = q->w->dtype, odt = q->out->dtype;
	s64 iy0 = (s64)oy * q->p->stride_h - q->p->pad_top;
	s32 wt[NPU_Q_DW_TAPS][NPU_Q_OCB], acc[NPU_Q_OCB], xv[NPU_Q_OCB];
	u64 ox, ky, kx, t;
	u32 i;

	for (ky = 0, t = 0; ky < q->kh; ky++)
		for (kx = 0; kx < q->kw; kx++, t++)
			for (i = 0; i < NPU_Q_OCB; i++)
				wt[t][i] = i < noc ?
					   q_ld(wdt, w, qc_w_off(q, o0 + i, 0,
								 ky, kx)) -
					   rq->b_zero : 0;
	for (ox = 0; ox < q->ow; ox++) {
		s64 ix0 = (s64)ox * q->p->stride_w - q->p->pad_left;

		for (i = 0; i < NPU_Q_OCB; i++)
			acc[i] = i < noc ? r->add[i] : 0;
		for (ky = 0, t = 0; ky < q->kh; ky++) {
			s64 iy = iy0 + (s64)(ky * q->p->dilation_h);

			for (kx = 0; kx < q->kw; kx++, t++) {
				s64 ix = ix0 + (s64)(kx * q->p->dilation_w);
				u64 base;

				if (iy < 0 || iy >= q->ih || ix < 0 ||
				    ix >= q->iw)
					continue;
				/* channels o0.. lie in one C0 block (16 | 32) */
				base = qc_x_off(q, img, o0, (u64)iy, (u64)ix);
				for (i = 0; i < NPU_Q_OCB; i++)
					xv[i] = i < noc ?
						q_ld(xdt, x, base + i) -
						rq->a_zero : 0;
				for (i = 0; i < NPU_Q_OCB; i++)
					acc[i] = (s32)((u32)acc[i] +
						       (u32)xv[i] *
						       (u32)wt[t][i]);
			}
		}
		for (i = 0; i < noc; i++)
			q_st(odt, out, qc_o_off(q, img, o0 + i, oy, ox),
			     q_requant(acc[i], r->mult[i], r));
	}
	if (o0 + noc == q->o && q->o % NPU_C0_BYTES_1) {
		for (i = q->o; i % NPU_C0_BYTES_1; i++)
			for (ox = 0; ox < q->ow; ox++)
				q_st(odt, out, qc_o_off(q, img, i, oy, ox), 0);
	}
}

#ifdef NPU_QKERN_VNNI
static int qconv_fast_ok(const struct npu_op_args *args, const struct qconv *q)
{
	if (args->isa == NPU_ISA_BASELINE || !npu_op_has_vnni())
		return 0;
	if (args->isa != NPU_ISA_AUTO && args->isa < NPU_ISA_AVX512)
		return 0;
	return q->w_packed && q->in_b && q->w->dtype == DRM_NPU_DTYPE_I8 &&
	       !q->p->q.b_zero && q->in->strides[4] == 1 &&
	       q->w->strides[4] == 1 && (!q->out_b || q->out->strides[4] == 1);
}

static void qconv_unit_fast(const struct npu_op_args *args,
			    const struct qconv *q, u64 img, u64 o0, u32 noc,
			    u64 oy, const struct npu_qrq *r,
			    struct npu_qbc_held *held)
{
	const u32 *xs = q->in->strides, *ws = q->w->strides;
	const u32 *os = q->out->strides;
	struct npu_qconv_job j;
	int i8 = q->in->dtype == DRM_NPU_DTYPE_I8;

	j.x = (const u8 *)args->data[0] + img * xs[0];
	j.xs1 = xs[1];
	j.xs2 = xs[2];
	j.xs3 = xs[3];
	j.w = (const u8 *)args->data[1] + o0 * ws[0];
	j.ws0 = ws[0];
	j.ws1 = ws[1];
	j.ws2 = ws[2];
	j.ws3 = ws[3];
	j.c1 = q->c1;
	j.ih = q->ih;
	j.iw = q->iw;
	j.kh = q->kh;
	j.kw = q->kw;
	j.dh = q->p->dilation_h;
	j.sw = q->p->stride_w;
	j.dw = q->p->dilation_w;
	j.pl = q->p->pad_left;
	j.ow = q->ow;
	j.iy0 = (s64)oy * q->p->stride_h - q->p->pad_top;
	j.noc = noc;
	j.flip = i8 ? 0x80 : 0;
	j.padv = (u8)q->p->q.a_zero;
	j.zpu = q->p->q.a_zero + (i8 ? 128 : 0);
	j.rq = r;
	j.out = (u8 *)args->data[args->task->num_operands - 1] +
		qc_o_off(q, img, o0, oy, 0);
	j.out_px = os[3];
	j.out_ch = q->out_b ? os[4] : os[1];
	j.ub = args->ub;
	j.blk = o0 / NPU_Q_OCB;
	j.held = held;
	npu_qconv_vnni(&j);
	if (q->out_b && o0 + noc == q->o && q->o % NPU_C0_BYTES_1) {
		u64 i, ox;

		for (i = q->o; i % NPU_C0_BYTES_1; i++)
			for (ox = 0; ox < q->ow; ox++)
				((u8 *)args->data[args->task->num_operands -
						  1])[qc_o_off(q, img, i, oy,
							       ox)] = 0;
	}
}
#endif

int npu_run_qconv2d(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	struct npu_qrq r;
	struct qconv q;
	u64 u, ob;
	int packed, dw;
#ifdef NPU_QKERN_VNNI
	struct npu_qbc_held held = { 0 };	/* nothing of this chunk yet */
	int fast;
#endif

	qconv_setup(t, &q);
	dw = qconv_dw_ok(&q);
	packed = q.w_packed && q.in_b && q.in->strides[4] == 1 &&
		 q.w->strides[4] == 1;
	ob = ((u64)q.o + NPU_Q_OCB - 1) / NPU_Q_OCB;
#ifdef NPU_QKERN_VNNI
	fast = qconv_fast_ok(args, &q);
#endif
	for (u = begin; u < end; u++) {
		u64 oy = u % q.oh, blk = (u / q.oh) % ob;
		u64 img = u / q.oh / ob, o0 = blk * NPU_Q_OCB;
		u32 noc = q.o - o0 < NPU_Q_OCB ? (u32)(q.o - o0) : NPU_Q_OCB;

		q_fill_rq(args, &q.p->q, q.p->flags, o0, noc, &r);
#ifdef NPU_QKERN_VNNI
		if (fast) {
			qconv_unit_fast(args, &q, img, o0, noc, oy, &r,
					&held);
			continue;
		}
#endif
		if (dw)
			qconv_unit_dw(args, &q, img, o0, noc, oy, &r);
		else if (packed)
			qconv_unit_packed(args, &q, img, o0, noc, oy, &r);
		else
			qconv_unit_ref(args, &q, img, o0, noc, oy, &r);
	}
	return 0;
}

/* --- QMATMUL --------------------------------------------------------------- */

#ifdef NPU_QKERN_VNNI
/* Rows of @x (all dims but the last) one stride apart: row r at r * rs. */
static int q_rows_uniform(const struct drm_npu_operand *x, u32 lead)
{
	u32 d;

	for (d = 0; d + 1 < lead; d++)
		if (x->shape[d] > 1 && x->strides[d] !=
		    (u64)x->strides[d + 1] * x->shape[d + 1])
			return 0;
	return 1;
}
#endif

int npu_run_qmatmul(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_qmatmul_params *p = &t->params.qmatmul;
	const struct drm_npu_operand *a = npu_opnd(t, 0), *b = npu_opnd(t, 1);
	const struct drm_npu_operand *o = npu_opnd(t, t->num_operands - 1);
	const void *ad = args->data[0], *bd = args->data[1];
	void *od = args->data[t->num_operands - 1];
	int tb = !!(p->flags & DRM_NPU_Q_TRANS_B);
	u64 bks = tb ? b->strides[1] : b->strides[0];	/* along K */
	u64 bns = tb ? b->strides[0] : b->strides[1];	/* along N */
	u32 lead = a->rank - 1;
	struct npu_qmm_geom g;
	struct npu_qrq r;
	u64 u, row, n0, k;
	u32 coord[DRM_NPU_MAX_RANK];

	npu_qmm_geom(t, &g);
	for (u = begin; u < end; u++) {
		u64 r0 = u * g.rpu, r1 = r0 + g.rpu;

		if (r1 > g.rows)
			r1 = g.rows;
#ifdef NPU_QKERN_VNNI
		if (args->isa != NPU_ISA_BASELINE && npu_op_has_vnni() &&
		    (args->isa == NPU_ISA_AUTO || args->isa >= NPU_ISA_AVX512) &&
		    tb && b->dtype == DRM_NPU_DTYPE_I8 && !p->q.b_zero &&
		    a->strides[lead] == 1 && b->strides[1] == 1 &&
		    q_rows_uniform(a, lead) && q_rows_uniform(o, lead)) {
			struct npu_qmm_job j;
			u32 kx = 2;
			int i8 = a->dtype == DRM_NPU_DTYPE_I8;

			j.a = ad;
			j.a_rs = a->strides[lead - 1];
			j.b = bd;
			j.b_rs = b->strides[0];
			j.n = g.n;
			j.k = g.k;
			j.r0 = r0;
			j.r1 = r1;
			j.flip = i8 ? 0x80 : 0;
			j.zpu = p->q.a_zero + (i8 ? 128 : 0);
			j.bias = NULL;
			j.mult = NULL;
			if (p->flags & DRM_NPU_Q_HAS_BIAS) {
				j.bias = args->data[kx];
				j.bias_st = npu_opnd(t, kx)->strides[0];
				kx++;
			}
			if (p->flags & DRM_NPU_Q_PER_CHANNEL) {
				j.mult = args->data[kx];
				j.mult_st = npu_opnd(t, kx)->strides[0];
			}
			j.m = (double)npu_u2f(p->q.scale);
			j.yz = p->q.y_zero;
			j.lo = p->q.y_min;
			j.hi = p->q.y_max;
			j.out = od;
			j.o_rs = o->strides[lead - 1];
			j.o_cs = o->strides[lead];
			npu_qmm_vnni(&j);
			continue;
		}
#endif
		for (n0 = 0; n0 < g.n; n0 += NPU_Q_OCB) {
			u32 nn = g.n - n0 < NPU_Q_OCB ? (u32)(g.n - n0) :
				 NPU_Q_OCB, i;

			q_fill_rq(args, &p->q, p->flags, n0, nn, &r);
			for (row = r0; row < r1; row++) {
				u64 aoff, ooff;

				npu_unravel(row, o->shape, lead, coord);
				aoff = npu_offset32(coord, a->strides, lead);
				ooff = npu_offset32(coord, o->strides, lead);
				for (i = 0; i < nn; i++) {
					s32 acc = r.add[i];
					u64 col = n0 + i;

					for (k = 0; k < g.k; k++) {
						s32 av, bv;

						av = q_ld(a->dtype, ad, aoff +
							  k * a->strides[lead]);
						bv = q_ld(b->dtype, bd,
							  k * bks + col * bns);
						acc = q_mac(acc, av - p->q.a_zero,
							    bv - p->q.b_zero);
					}
					q_st(o->dtype, od, ooff +
					     col * o->strides[lead],
					     q_requant(acc, r.mult[i], &r));
				}
			}
		}
	}
	return 0;
}

/* --- QADD ------------------------------------------------------------------ */

/*
 * out = clamp(rne(((a - za) * sa + (b - zb) * sb) / sy) + zy), each step
 * one fp32 operation (npu_qadd1()), so the result equals the float QDQ
 * graph's bit for bit; contiguous rows take the level's qadd_row (the
 * same steps on every lane). Unit: one output row segment.
 */
int npu_run_qadd(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_qadd_params *p = &t->params.qadd;
	const struct drm_npu_operand *const ops[3] = {
		npu_opnd(t, 0), npu_opnd(t, 1), npu_opnd(t, 2)
	};
	const struct npu_qadd_k k = {
		.sa = npu_u2f(p->a_scale), .sb = npu_u2f(p->b_scale),
		.sy = npu_u2f(p->y_scale),
		.lo = (float)(p->y_min - p->y_zero),
		.hi = (float)(p->y_max - p->y_zero),
		.za = p->a_zero, .zb = p->b_zero, .zy = p->y_zero,
	};
	void (*row)(u8 *y, const u8 *a, const u8 *b, u64 n, u32 sgn,
		    const struct npu_qadd_k *k) =
		npu_kern_get(args->isa)->qadd_row;
	u32 adt = ops[0]->dtype, bdt = ops[1]->dtype, odt = ops[2]->dtype;
	u32 sgn = (adt == DRM_NPU_DTYPE_I8) | (bdt == DRM_NPU_DTYPE_I8) << 1;
	struct npu_rows rw;
	struct npu_seg sg;
	u64 u, i, offs[3];

	npu_rows_begin(&rw, ops, 3);
	/*
	 * Dense operands of rows that are one unit each (an NC1HWC0 tensor's
	 * rows are its 32 channels): units [begin, end) are one run.
	 */
	if (rw.uniform && rw.len <= NPU_ROW_SEG && rw.inner[0] == 1 &&
	    rw.inner[1] == 1 && rw.inner[2] == 1 && rw.rs[0] == rw.len &&
	    rw.rs[1] == rw.len && rw.rs[2] == rw.len) {
		row((u8 *)args->data[2] + begin * rw.len,
		    (const u8 *)args->data[0] + begin * rw.len,
		    (const u8 *)args->data[1] + begin * rw.len,
		    (end - begin) * rw.len, sgn, &k);
		return 0;
	}
	for (u = begin; u < end; u++) {
		npu_row_offsets(&rw, u, &sg, offs);
		if (rw.inner[0] == 1 && rw.inner[1] == 1 && rw.inner[2] == 1) {
			row((u8 *)args->data[2] + offs[2],
			    (const u8 *)args->data[0] + offs[0],
			    (const u8 *)args->data[1] + offs[1], sg.len, sgn,
			    &k);
			continue;
		}
		for (i = 0; i < sg.len; i++) {
			s32 av = q_ld(adt, args->data[0],
				      offs[0] + i * rw.inner[0]);
			s32 bv = q_ld(bdt, args->data[1],
				      offs[1] + i * rw.inner[1]);

			q_st(odt, args->data[2], offs[2] + i * rw.inner[2],
			     npu_qadd1(&k, av, bv));
		}
	}
	return 0;
}
