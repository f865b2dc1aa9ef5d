// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_qlinear_test.c - QCONV2D and QMATMUL against a naive reference of
 * ONNX QLinearConv / QLinearMatMul (64-bit sums wrapped to int32, double
 * requantization, nearbyint() for round half to even), bit for bit, at
 * the baseline level and at the CPU's best (the VNNI kernels where the
 * CPU has them), whole and in random chunks. Adversarial shapes: channel
 * counts around the C0 = 32 block, K around the 32-byte vector, pads
 * larger than the kernel, strides and dilations, single pixels, zero
 * points at the ends of their range, clamps that cut most outputs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"
#include "npu_qkern.h"

#define I8	DRM_NPU_DTYPE_I8
#define U8	DRM_NPU_DTYPE_U8
#define I32	DRM_NPU_DTYPE_I32
#define F32	DRM_NPU_DTYPE_F32
#define NC1	DRM_NPU_LAYOUT_NC1HWC0

static struct drm_npu_task T;

static int check(void)
{
	u32 bad;

	return npu_op_check(&T, &bad);
}

static int rnd(int lo, int hi)
{
	return lo + (int)(tl_rand() % (u64)(hi - lo + 1));
}

static int qlo(u32 dt)
{
	return dt == I8 ? -128 : 0;
}

static int qhi(u32 dt)
{
	return dt == I8 ? 127 : 255;
}

static int ld(u32 dt, const void *p, size_t i)
{
	return dt == I8 ? ((const int8_t *)p)[i] : ((const uint8_t *)p)[i];
}

static void fill_q(void *p, size_t n, u32 dt)
{
	size_t i;

	for (i = 0; i < n; i++)
		((uint8_t *)p)[i] = (uint8_t)(dt == I8 ? rnd(-128, 127) :
					      rnd(0, 255));
}

static int requant_ref(int64_t sum, float m, int yz, int lo, int hi)
{
	int32_t acc = (int32_t)(uint32_t)(uint64_t)sum;
	double v = (double)acc * (double)m + yz;

	if (!(v <= hi))
		v = hi;
	if (v < lo)
		v = lo;
	return (int)nearbyint(v);
}

struct qc_case {
	u32 n, c, h, w, o, kh, kw, groups, sh, sw, dh, dw;
	u32 pt, pl, pb, pr;
	u32 xdt, wdt, ydt;
	int packed, blk_in, blk_out, bias, per_ch;
	int w_same;	/* packed weights of one channel for all (stride 0) */
};

static u32 outdim(u32 in, u32 pa, u32 pb, u32 k, u32 s, u32 d)
{
	int64_t span = (int64_t)d * (k - 1) + 1, pd = (int64_t)in + pa + pb;

	return pd < span ? 0 : (u32)((pd - span) / s + 1);
}

/* Logical NCHW index -> NC1HWC0 element offset (C0 = 32). */
static size_t blk_off(u32 c1n, u32 h, u32 w, u32 n, u32 c, u32 y, u32 x)
{
	return ((((size_t)n * c1n + c / 32) * h + y) * w + x) * 32 + c % 32;
}

static int run_qconv(const struct qc_case *k, u32 isa, int chunked)
{
	u32 cg = k->c / k->groups, og = k->o / k->groups;
	u32 oh = outdim(k->h, k->pt, k->pb, k->kh, k->sh, k->dh);
	u32 ow = outdim(k->w, k->pl, k->pr, k->kw, k->sw, k->dw);
	u32 c1 = (k->c + 31) / 32, o1 = (k->o + 31) / 32;
	size_t nx = (size_t)k->n * k->c * k->h * k->w;
	size_t nw = (size_t)k->o * cg * k->kh * k->kw;
	size_t ny = (size_t)k->n * k->o * oh * ow;
	size_t nxs = k->blk_in ? (size_t)k->n * c1 * k->h * k->w * 32 : nx;
	size_t nws = k->packed ? (size_t)k->o * c1 * k->kh * k->kw * 32 : nw;
	size_t nys = k->blk_out ? (size_t)k->n * o1 * oh * ow * 32 : ny;
	uint8_t *x = malloc(nx), *w = malloc(nw), *xs = calloc(nxs, 1);
	uint8_t *ws = calloc(nws, 1), *y = malloc(nys + 1);
	int32_t *bias = malloc(sizeof(int32_t) * k->o);
	float *mult = malloc(sizeof(float) * k->o);
	struct drm_npu_requant *q = &T.params.qconv2d.q;
	void *data[6];
	u32 shape[5], i, nn, oo, yy, xx, ci, ky, kx;
	int ops = 0, bad = 0, ret;
	size_t idx;

	fill_q(x, nx, k->xdt);
	fill_q(w, nw, k->wdt);
	if (k->w_same)		/* every channel reads channel 0's weights */
		for (i = 1; i < k->o; i++)
			memcpy(w + (size_t)i * cg * k->kh * k->kw, w,
			       (size_t)cg * k->kh * k->kw);
	tl_task(&T, DRM_NPU_OP_QCONV2D, 3 + !!k->bias + !!k->per_ch);
	T.params.qconv2d.groups = k->groups;
	T.params.qconv2d.stride_h = k->sh;
	T.params.qconv2d.stride_w = k->sw;
	T.params.qconv2d.dilation_h = k->dh;
	T.params.qconv2d.dilation_w = k->dw;
	T.params.qconv2d.pad_top = k->pt;
	T.params.qconv2d.pad_left = k->pl;
	T.params.qconv2d.pad_bottom = k->pb;
	T.params.qconv2d.pad_right = k->pr;
	q->a_zero = rnd(qlo(k->xdt), qhi(k->xdt));
	q->b_zero = k->packed ? 0 : rnd(qlo(k->wdt), qhi(k->wdt)) / 8;
	q->y_zero = rnd(qlo(k->ydt), qhi(k->ydt));
	q->y_min = qlo(k->ydt);
	q->y_max = qhi(k->ydt);
	if (tl_rand() % 3 == 0) {	/* a fused ReLU6-like cut */
		q->y_min = q->y_zero;
		q->y_max = q->y_zero + (qhi(k->ydt) - q->y_zero) / 3;
	}
	for (i = 0; i < k->o; i++) {
		bias[i] = rnd(-40000, 40000);
		mult[i] = tl_uniform(0.5f, 4.0f) / (float)(cg * k->kh * k->kw * 64);
	}
	if (!k->per_ch)
		q->scale = tl_f2u(mult[0]);
	/* operands */
	if (k->blk_in) {
		shape[0] = k->n; shape[1] = c1; shape[2] = k->h;
		shape[3] = k->w; shape[4] = 32;
		tl_opnd(&T.operands[ops], (u16)ops, k->xdt, 5, shape, NULL);
		T.operands[ops].layout = NC1;
		for (nn = 0; nn < k->n; nn++)
			for (ci = 0; ci < k->c; ci++)
				for (yy = 0; yy < k->h; yy++)
					for (xx = 0; xx < k->w; xx++)
						xs[blk_off(c1, k->h, k->w, nn, ci,
							   yy, xx)] =
						x[(((size_t)nn * k->c + ci) *
						   k->h + yy) * k->w + xx];
	} else {
		shape[0] = k->n; shape[1] = k->c; shape[2] = k->h;
		shape[3] = k->w;
		tl_opnd(&T.operands[ops], (u16)ops, k->xdt, 4, shape, NULL);
		memcpy(xs, x, nx);
	}
	data[ops++] = xs;
	if (k->packed) {
		u32 wst[5] = { 0, k->kh * k->kw * 32, k->kw * 32, 32, 1 };

		shape[0] = k->o; shape[1] = c1; shape[2] = k->kh;
		shape[3] = k->kw; shape[4] = 32;
		tl_opnd(&T.operands[ops], (u16)ops, k->wdt, 5, shape,
			k->w_same ? wst : NULL);
		T.operands[ops].layout = NC1;
		for (oo = 0; oo < k->o; oo++)
			for (ci = 0; ci < cg; ci++)
				for (ky = 0; ky < k->kh; ky++)
					for (kx = 0; kx < k->kw; kx++)
						ws[blk_off(c1, k->kh, k->kw, oo,
							   ci, ky, kx)] =
						w[(((size_t)oo * cg + ci) *
						   k->kh + ky) * k->kw + kx];
	} else {
		shape[0] = k->o; shape[1] = cg; shape[2] = k->kh;
		shape[3] = k->kw;
		tl_opnd(&T.operands[ops], (u16)ops, k->wdt, 4, shape, NULL);
		memcpy(ws, w, nw);
	}
	data[ops++] = ws;
	if (k->bias) {
		T.params.qconv2d.flags |= DRM_NPU_Q_HAS_BIAS;
		tl_opnd(&T.operands[ops], (u16)ops, I32, 1, &k->o, NULL);
		data[ops++] = bias;
	}
	if (k->per_ch) {
		T.params.qconv2d.flags |= DRM_NPU_Q_PER_CHANNEL;
		tl_opnd(&T.operands[ops], (u16)ops, F32, 1, &k->o, NULL);
		data[ops++] = mult;
	}
	if (k->blk_out) {
		shape[0] = k->n; shape[1] = o1; shape[2] = oh;
		shape[3] = ow; shape[4] = 32;
		tl_opnd(&T.operands[ops], (u16)ops, k->ydt, 5, shape, NULL);
		T.operands[ops].layout = NC1;
	} else {
		shape[0] = k->n; shape[1] = k->o; shape[2] = oh;
		shape[3] = ow;
		tl_opnd(&T.operands[ops], (u16)ops, k->ydt, 4, shape, NULL);
	}
	memset(y, 0xa5, nys + 1);
	data[ops++] = y;
	tl_isa = isa;
	ret = tl_run(&T, data);
	if (!ret && chunked) {
		memset(y, 0xa5, nys + 1);
		ret = tl_run_chunked(&T, data);
	}
	if (ret) {
		tap_diag("run: %d", ret);
		bad = 1;
		goto out;
	}
	for (nn = 0; nn < k->n && bad < 5; nn++)
		for (oo = 0; oo < k->o; oo++)
			for (yy = 0; yy < oh; yy++)
				for (xx = 0; xx < ow; xx++) {
					int64_t s = k->bias ? bias[oo] : 0;
					u32 g = oo / og;
					int got, want;

					for (ci = 0; ci < cg; ci++)
						for (ky = 0; ky < k->kh; ky++)
							for (kx = 0; kx < k->kw; kx++) {
								int64_t iy = (int64_t)yy * k->sh - k->pt + (int64_t)ky * k->dh;
								int64_t ix = (int64_t)xx * k->sw - k->pl + (int64_t)kx * k->dw;
								int xv, wv;

								if (iy < 0 || iy >= k->h || ix < 0 || ix >= k->w)
									continue;
								xv = ld(k->xdt, x, (((size_t)nn * k->c + g * cg + ci) * k->h + (size_t)iy) * k->w + (size_t)ix);
								wv = ld(k->wdt, w, (((size_t)oo * cg + ci) * k->kh + ky) * k->kw + kx);
								s += (int64_t)(xv - q->a_zero) * (wv - q->b_zero);
							}
					want = requant_ref(s, k->per_ch ? mult[oo] : mult[0], q->y_zero, q->y_min, q->y_max);
					idx = k->blk_out ? blk_off(o1, oh, ow, nn, oo, yy, xx) :
						(((size_t)nn * k->o + oo) * oh + yy) * ow + xx;
					got = ld(k->ydt, y, idx);
					if (got != want) {
						if (bad++ < 3)
							tap_diag("n%u o%u y%u x%u: got %d want %d", nn, oo, yy, xx, got, want);
					}
				}
	if (k->blk_out && y[nys] != 0xa5)
		bad++;
	if (k->blk_out)		/* padding channels are zero */
		for (nn = 0; nn < k->n; nn++)
			for (oo = k->o; oo < o1 * 32; oo++)
				for (yy = 0; yy < oh; yy++)
					for (xx = 0; xx < ow; xx++)
						if (y[blk_off(o1, oh, ow, nn, oo, yy, xx)])
							bad++;
out:
	free(x); free(w); free(xs); free(ws); free(y); free(bias); free(mult);
	return bad;
}

/* A random geometry with no output pixel gets one: padding 2, no dilation. */
static void fix_empty(struct qc_case *k)
{
	if (!outdim(k->h, k->pt, k->pb, k->kh, k->sh, k->dh) ||
	    !outdim(k->w, k->pl, k->pr, k->kw, k->sw, k->dw)) {
		k->pt = k->pb = k->pl = k->pr = 2;
		k->dh = k->dw = 1;
	}
}

static void conv_cases(void)
{
	static const u32 dts[3] = { I8, U8, I8 };
	int i;

	for (i = 0; i < 60; i++) {
		struct qc_case k;
		int form = i % 3;

		memset(&k, 0, sizeof(k));
		k.n = (u32)rnd(1, 2);
		k.groups = 1;
		k.kh = (u32)rnd(1, 3);
		k.kw = (u32)rnd(1, 3);
		if (form == 0) {		/* packed, the VNNI path */
			static const u32 cs[] = { 1, 3, 31, 32, 33, 64, 70 };

			k.c = cs[rnd(0, 6)];
			k.o = (u32)rnd(1, 40);
			k.packed = k.blk_in = 1;
			k.blk_out = rnd(0, 1);
			k.wdt = I8;
		} else {			/* groups, depthwise, any dtype */
			k.groups = (u32)rnd(1, 3);
			k.c = k.groups * (u32)rnd(1, 5);
			k.o = k.groups * (u32)rnd(1, 5);
			if (form == 2) {	/* depthwise */
				k.c = k.o = k.groups = (u32)rnd(1, 40);
			}
			k.blk_in = rnd(0, 1);
			k.blk_out = rnd(0, 1);
			k.wdt = dts[rnd(0, 2)];
		}
		k.h = (u32)rnd(1, 9);
		k.w = (u32)rnd(1, form == 0 ? 24 : 11);
		k.sh = (u32)rnd(1, 2);
		k.sw = (u32)rnd(1, 3);
		k.dh = (u32)rnd(1, 2);
		k.dw = (u32)rnd(1, 2);
		k.pt = (u32)rnd(0, 3);
		k.pl = (u32)rnd(0, 3);
		k.pb = (u32)rnd(0, 2);
		k.pr = (u32)rnd(0, 4);
		k.xdt = dts[rnd(0, 2)];
		k.ydt = dts[rnd(0, 2)];
		k.bias = rnd(0, 1);
		k.per_ch = rnd(0, 1);
		fix_empty(&k);
		tap_ok(!run_qconv(&k, NPU_ISA_BASELINE, 0) &&
		       !run_qconv(&k, NPU_ISA_AUTO, i & 1),
		       "QCONV2D %s n%u c%u %ux%u o%u k%ux%u g%u s%u,%u d%u,%u "
		       "p%u,%u,%u,%u %s%s%s %s%s exact at both levels",
		       k.packed ? "packed" : "oihw", k.n, k.c, k.h, k.w, k.o,
		       k.kh, k.kw, k.groups, k.sh, k.sw, k.dh, k.dw, k.pt,
		       k.pl, k.pb, k.pr, k.xdt == I8 ? "i8" : "u8",
		       k.wdt == I8 ? "i8" : "u8", k.ydt == I8 ? "i8" : "u8",
		       k.bias ? "bias " : "", k.per_ch ? "per-channel" : "");
	}
}

/*
 * The VNNI broadcast form (packed weights, stride 1 or 2): rows
 * of 1 to 40 pixels (blocks of 16 and of 8, tails), blocks of fewer than
 * 16 channels, every other chunk without the unified buffer (the other
 * form) and several blocks and images sharing one chunk's weights.
 */
static void broadcast_cases(void)
{
	static const u32 cs[] = { 1, 32, 33, 64, 96, 130 };
	int i;

	for (i = 0; i < 30; i++) {
		struct qc_case k;

		memset(&k, 0, sizeof(k));
		k.n = (u32)rnd(1, 2);
		k.groups = 1;
		k.c = cs[rnd(0, 5)];
		k.o = (u32)rnd(1, 40);
		k.packed = k.blk_in = 1;
		k.blk_out = rnd(0, 1);
		k.xdt = rnd(0, 1) ? U8 : I8;
		k.wdt = I8;
		k.ydt = rnd(0, 1) ? U8 : I8;
		k.kh = (u32)rnd(1, 3);
		k.kw = (u32)rnd(1, 3);
		k.h = (u32)rnd(1, 6);
		k.w = (u32)rnd(1, 40);
		k.sh = (u32)rnd(1, 2);
		k.sw = (u32)rnd(1, 2);
		k.dh = (u32)rnd(1, 2);
		k.dw = (u32)rnd(1, 2);
		k.pt = (u32)rnd(0, 1);
		k.pb = (u32)rnd(0, 1);
		k.pl = (u32)rnd(0, 2);
		k.pr = (u32)rnd(0, 2);
		k.bias = rnd(0, 1);
		k.per_ch = rnd(0, 1);
		/* one weight block for every channel: blocks told apart */
		k.w_same = i % 5 == 4 && k.o > 16;
		fix_empty(&k);
		tap_ok(!run_qconv(&k, NPU_ISA_AUTO, 0) &&
		       !run_qconv(&k, NPU_ISA_AUTO, 1),
		       "QCONV2D broadcast %s n%u c%u %ux%u o%u%s k%ux%u s%u,%u d%u,%u p%u,%u,%u,%u -> %s exact, one chunk and chunked",
		       k.xdt == I8 ? "i8" : "u8", k.n, k.c, k.h, k.w, k.o,
		       k.w_same ? " (weights O-stride 0)" : "", k.kh, k.kw,
		       k.sh, k.sw, k.dh, k.dw, k.pt, k.pl, k.pb, k.pr,
		       k.ydt == I8 ? "i8" : "u8");
	}
}

static int run_qmm(u32 rows, u32 m, u32 n, u32 kk, int tb, u32 adt, u32 bdt,
		   u32 ydt, int bias, int per_ch, u32 isa, int chunked)
{
	u32 lead = rows;	/* batch */
	size_t na = (size_t)lead * m * kk, nb = (size_t)kk * n;
	size_t no = (size_t)lead * m * n;
	uint8_t *a = malloc(na), *b = malloc(nb), *y = malloc(no);
	int32_t *bs = malloc(sizeof(int32_t) * n);
	float *mult = malloc(sizeof(float) * n);
	struct drm_npu_requant *q = &T.params.qmatmul.q;
	void *data[6];
	u32 shape[3], i, r, j, k;
	int ops = 0, bad = 0, ret;

	fill_q(a, na, adt);
	fill_q(b, nb, bdt);
	for (i = 0; i < n; i++) {
		bs[i] = rnd(-100000, 100000);
		mult[i] = tl_uniform(0.3f, 3.0f) / (float)(kk * 64);
	}
	tl_task(&T, DRM_NPU_OP_QMATMUL, 3 + !!bias + !!per_ch);
	q->a_zero = rnd(qlo(adt), qhi(adt));
	q->b_zero = tb && bdt == I8 && rnd(0, 1) ? 0 : rnd(qlo(bdt), qhi(bdt));
	q->y_zero = rnd(qlo(ydt), qhi(ydt));
	q->y_min = qlo(ydt);
	q->y_max = qhi(ydt);
	if (!per_ch)
		q->scale = tl_f2u(mult[0]);
	if (tb)
		T.params.qmatmul.flags |= DRM_NPU_Q_TRANS_B;
	shape[0] = lead; shape[1] = m; shape[2] = kk;
	tl_opnd(&T.operands[ops], (u16)ops, adt, 3, shape, NULL);
	data[ops++] = a;
	shape[0] = tb ? n : kk; shape[1] = tb ? kk : n;
	tl_opnd(&T.operands[ops], (u16)ops, bdt, 2, shape, NULL);
	data[ops++] = b;
	if (bias) {
		T.params.qmatmul.flags |= DRM_NPU_Q_HAS_BIAS;
		tl_opnd(&T.operands[ops], (u16)ops, I32, 1, &n, NULL);
		data[ops++] = bs;
	}
	if (per_ch) {
		T.params.qmatmul.flags |= DRM_NPU_Q_PER_CHANNEL;
		tl_opnd(&T.operands[ops], (u16)ops, F32, 1, &n, NULL);
		data[ops++] = mult;
	}
	shape[0] = lead; shape[1] = m; shape[2] = n;
	tl_opnd(&T.operands[ops], (u16)ops, ydt, 3, shape, NULL);
	data[ops++] = y;
	tl_isa = isa;
	ret = tl_run(&T, data);
	if (chunked && !ret)
		ret = tl_run_chunked(&T, data);
	if (ret) {
		tap_diag("run: %d", ret);
		bad = 1;
		goto out;
	}
	for (r = 0; r < lead * m; r++)
		for (j = 0; j < n; j++) {
			int64_t s = bias ? bs[j] : 0;
			int want, got;

			for (k = 0; k < kk; k++)
				s += (int64_t)(ld(adt, a, (size_t)r * kk + k) -
					       q->a_zero) *
				     (ld(bdt, b, tb ? (size_t)j * kk + k :
					 (size_t)k * n + j) - q->b_zero);
			want = requant_ref(s, per_ch ? mult[j] : mult[0],
					   q->y_zero, q->y_min, q->y_max);
			got = ld(ydt, y, (size_t)r * n + j);
			if (got != want && bad++ < 3)
				tap_diag("row %u col %u: got %d want %d", r, j,
					 got, want);
		}
out:
	free(a); free(b); free(y); free(bs); free(mult);
	return bad;
}

static void matmul_cases(void)
{
	static const u32 ks[] = { 1, 7, 31, 32, 33, 64, 100, 513 };
	static const u32 dts[2] = { I8, U8 };
	int i;

	for (i = 0; i < 40; i++) {
		u32 batch = (u32)rnd(1, 3), m = (u32)rnd(1, 20);
		u32 n = (u32)rnd(1, 37), k = ks[rnd(0, 7)];
		int tb = i % 4 != 3, bias = rnd(0, 1), pc = rnd(0, 1);
		u32 adt = dts[rnd(0, 1)], bdt = tb ? I8 : dts[rnd(0, 1)];
		u32 ydt = dts[rnd(0, 1)];

		tap_ok(!run_qmm(batch, m, n, k, tb, adt, bdt, ydt, bias, pc,
				NPU_ISA_BASELINE, 0) &&
		       !run_qmm(batch, m, n, k, tb, adt, bdt, ydt, bias, pc,
				NPU_ISA_AUTO, i & 1),
		       "QMATMUL [%u,%u,%u] x %s[%u,%u] %s%s exact at both "
		       "levels", batch, m, k, tb ? "T" : "", tb ? n : k,
		       tb ? k : n, bias ? "bias " : "",
		       pc ? "per-channel" : "");
	}
}

/*
 * QADD against ONNX's DequantizeLinear -> Add -> [Relu] -> QuantizeLinear
 * in fp32 (nearbyintf rounds half to even, then saturate), contiguous and
 * strided (a transposed view of a), whole and in chunks.
 */
static void qadd_cases(void)
{
	static const u32 dts[2] = { I8, U8 };
	int i;

	for (i = 0; i < 28; i++) {
		/* the last four: long rows, each signedness of a and b */
		bool lng = i >= 24;
		u32 sh[3] = { (u32)rnd(1, 3), (u32)rnd(1, 9),
			      lng ? 331 : (u32)rnd(1, 70) };
		u32 st_t[3], adt = dts[lng ? i & 1 : rnd(0, 1)];
		u32 bdt = dts[lng ? (i >> 1) & 1 : rnd(0, 1)];
		u32 ydt = dts[rnd(0, 1)];
		size_t n = (size_t)sh[0] * sh[1] * sh[2], k;
		uint8_t *a = malloc(n), *b = malloc(n), *y = malloc(n);
		struct drm_npu_qadd_params *p = &T.params.qadd;
		float sa = tl_uniform(0.01f, 0.2f), sb = tl_uniform(0.01f, 0.2f);
		float sy = tl_uniform(0.02f, 0.3f);
		int strided = !lng && i % 3 == 2, relu = i % 4 == 1, bad = 0;
		int ret;
		void *data[3] = { a, b, y };
		u32 x0, x1, x2;

		fill_q(a, n, adt);
		fill_q(b, n, bdt);
		tl_task(&T, DRM_NPU_OP_QADD, 3);
		p->a_scale = tl_f2u(sa);
		p->b_scale = tl_f2u(sb);
		p->y_scale = tl_f2u(sy);
		p->a_zero = rnd(qlo(adt), qhi(adt));
		p->b_zero = rnd(qlo(bdt), qhi(bdt));
		p->y_zero = rnd(qlo(ydt), qhi(ydt));
		p->y_min = relu ? p->y_zero : qlo(ydt);
		p->y_max = qhi(ydt);
		/* strided: a is read through the view [i][j][k] -> a[k][j][i] */
		st_t[0] = 1;
		st_t[1] = sh[2] * sh[0];
		st_t[2] = sh[0];
		tl_opnd(&T.operands[0], 0, adt, 3, sh, strided ? st_t : NULL);
		tl_opnd(&T.operands[1], 1, bdt, 3, sh, NULL);
		tl_opnd(&T.operands[2], 2, ydt, 3, sh, NULL);
		tl_isa = (u32)(i & 1 || lng ? NPU_ISA_AUTO : NPU_ISA_BASELINE);
		ret = i & 2 ? (tl_run(&T, data) ? -1 : tl_run_chunked(&T, data)) :
			      tl_run(&T, data);
		for (x0 = 0; !ret && x0 < sh[0]; x0++)
			for (x1 = 0; x1 < sh[1]; x1++)
				for (x2 = 0; x2 < sh[2]; x2++) {
					size_t ia = strided ?
						(size_t)x0 + (size_t)x1 * st_t[1] +
						(size_t)x2 * st_t[2] :
						((size_t)x0 * sh[1] + x1) * sh[2] + x2;
					size_t iy = ((size_t)x0 * sh[1] + x1) *
						    sh[2] + x2;
					float fa = (float)(ld(adt, a, ia) -
							   p->a_zero) * sa;
					float fb = (float)(ld(bdt, b, iy) -
							   p->b_zero) * sb;
					float s = fa + fb;
					double q;

					if (relu && s < 0)
						s = 0;
					q = nearbyintf(s / sy) + p->y_zero;
					q = q < qlo(ydt) ? qlo(ydt) :
					    (q > qhi(ydt) ? qhi(ydt) : q);
					k = ld(ydt, y, iy) != (int)q;
					if (k && bad++ < 3)
						tap_diag("at %zu: got %d want %d",
							 iy, ld(ydt, y, iy),
							 (int)q);
				}
		tap_ok(!ret && !bad, "QADD [%u,%u,%u] %s%s exact", sh[0],
		       sh[1], sh[2], strided ? "strided " : "",
		       relu ? "relu" : "");
		free(a);
		free(b);
		free(y);
	}
	tl_task(&T, DRM_NPU_OP_QADD, 3);
	{
		u32 sh[2] = { 2, 3 }, sh2[2] = { 3, 2 };

		tl_opnd(&T.operands[0], 0, I8, 2, sh, NULL);
		tl_opnd(&T.operands[1], 1, I8, 2, sh2, NULL);
		tl_opnd(&T.operands[2], 2, I8, 2, sh, NULL);
		T.params.qadd.a_scale = T.params.qadd.b_scale =
			T.params.qadd.y_scale = tl_f2u(0.1f);
		T.params.qadd.y_min = -128;
		T.params.qadd.y_max = 127;
		tap_ok(check() == -EINVAL, "QADD of two shapes refused");
		T.operands[1].shape[0] = 2;
		T.operands[1].shape[1] = 3;
		tap_ok(check() == 0, "QADD of one shape passes");
		T.params.qadd.b_scale = 0;
		tap_ok(check() == -EINVAL, "QADD scale 0 refused");
	}
}

/* A valid small QCONV2D, then one field broken at a time. */
static void base_qconv(void)
{
	u32 in[4] = { 1, 4, 5, 5 }, w[4] = { 8, 4, 3, 3 };
	u32 out[4] = { 1, 8, 3, 3 }, b[1] = { 8 };

	tl_task(&T, DRM_NPU_OP_QCONV2D, 4);
	T.params.qconv2d.flags = DRM_NPU_Q_HAS_BIAS;
	T.params.qconv2d.groups = 1;
	T.params.qconv2d.stride_h = T.params.qconv2d.stride_w = 1;
	T.params.qconv2d.dilation_h = T.params.qconv2d.dilation_w = 1;
	T.params.qconv2d.q.scale = tl_f2u(0.01f);
	T.params.qconv2d.q.y_min = -128;
	T.params.qconv2d.q.y_max = 127;
	tl_opnd(&T.operands[0], 0, I8, 4, in, NULL);
	tl_opnd(&T.operands[1], 1, I8, 4, w, NULL);
	tl_opnd(&T.operands[2], 2, I32, 1, b, NULL);
	tl_opnd(&T.operands[3], 3, I8, 4, out, NULL);
}

static void qadd_cases(void);

static void check_cases(void)
{
	u32 w5[5] = { 8, 1, 3, 3, 32 };

	base_qconv();
	tap_ok(check() == 0, "a valid QCONV2D passes");
	base_qconv();
	T.params.qconv2d.q.a_zero = 128;
	tap_ok(check() == -EINVAL, "I8 zero point 128 refused");
	base_qconv();
	T.operands[3].dtype = U8;
	T.params.qconv2d.q.y_min = -1;
	tap_ok(check() == -EINVAL, "U8 output with y_min -1 refused");
	base_qconv();
	T.params.qconv2d.q.y_min = 5;
	T.params.qconv2d.q.y_max = 4;
	tap_ok(check() == -EINVAL, "y_min > y_max refused");
	base_qconv();
	T.params.qconv2d.q.scale = 0;
	tap_ok(check() == -EINVAL, "per-tensor scale 0 refused");
	base_qconv();
	T.params.qconv2d.q.scale = 0x7f800000u;
	tap_ok(check() == -EINVAL, "infinite scale refused");
	base_qconv();
	T.operands[2].dtype = F32;
	tap_ok(check() == -EINVAL, "F32 bias refused");
	base_qconv();
	T.operands[0].dtype = F32;
	tap_ok(check() == -EINVAL, "F32 input refused");
	base_qconv();
	T.params.qconv2d.flags |= DRM_NPU_Q_TRANS_B;
	tap_ok(check() == -EINVAL, "TRANS_B on QCONV2D refused");
	base_qconv();
	T.params.qconv2d.pad[1] = 1;
	tap_ok(check() == -EINVAL, "non-zero pad refused");
	base_qconv();
	tl_opnd(&T.operands[1], 1, I8, 5, w5, NULL);
	T.operands[1].layout = NC1;
	tap_ok(check() == -EINVAL, "packed weight with an NCHW input refused");
	base_qconv();
	T.params.qconv2d.flags |= DRM_NPU_Q_PER_CHANNEL;
	T.num_operands = 5;
	T.operands[4] = T.operands[3];
	T.operands[4].slot = 4;
	tl_opnd(&T.operands[3], 3, F32, 1, &w5[0], NULL);
	tap_ok(check() == -EINVAL, "per-channel with a scale in the params refused");
	T.params.qconv2d.q.scale = 0;
	tap_ok(check() == 0, "per-channel with mult [O] passes");
	T.operands[3].shape[0] = 7;
	tap_ok(check() == -EINVAL, "mult of the wrong length refused");
}

int main(void)
{
	tl_seed(0x1a2b3c4d);
	tap_diag("VNNI kernels: %s", npu_op_has_vnni() ? "yes" : "no");
	check_cases();
	conv_cases();
	broadcast_cases();
	matmul_cases();
	qadd_cases();
	return tap_done();
}
