// SPDX-License-Identifier: MIT
/*
 * test_math.c - MATMUL and CONV2D programs on the device against a naive
 * double-precision reference, on odd shapes.
 *
 * Tolerance: |device - reference| <= 1e-5 * (sum of |products| + |bias|)
 * per element, i.e. a relative error of 1e-5 measured against the
 * magnitude of what was summed - the usual error bound of an fp32 dot
 * product, which stays meaningful when the sum cancels to near zero.
 *
 * And COPY through uapi 1.8's storage types (F64, BF16, I16, U16, U32,
 * U64), which the kernel module converts in its FPU section: exact
 * values, rounding to nearest even, wrap-around.
 */
#include "npu_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define F32_ONE		0x3f800000u
#define TOL		1e-5

static uint32_t rng_state = 12345;

static float rnd(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (float)((rng_state >> 8) & 0xffff) / 32768.0f - 1.0f;
}

struct buf {
	uint32_t bo;
	float *p;
	uint64_t size;
};

static bool buf_new(struct buf *b, uint64_t elems)
{
	b->size = (elems * 4 + 4095) & ~4095ull;
	b->bo = t_bo(T.d, b->size);
	b->p = b->bo ? t_map(T.d, b->bo, b->size) : NULL;
	return b->p != NULL;
}

static void buf_free(struct buf *b)
{
	t_unmap(T.d, b->p, b->size);
	t_close_bo(T.d, b->bo);
	memset(b, 0, sizeof(*b));
}

/* Run a one-task program whose operand i lives in buffer i. */
static int run_task(const struct drm_npu_task *t, struct buf *bufs,
		    uint32_t n)
{
	uint32_t q = t_queue(T.d, 0), prog, bos[DRM_NPU_MAX_OPERANDS], i;
	uint64_t fence;
	int err;

	for (i = 0; i < n; i++)
		bos[i] = bufs[i].bo;
	err = t_prog(T.d, t, 1, &prog);
	if (!err) {
		err = t_submit(T.d, q, prog, bos, n, &fence);
		if (!err)
			err = t_wait(T.d, q, fence, 60000);
		t_prog_destroy(T.d, prog);
	}
	t_queue_destroy(T.d, q);
	return err;
}

struct mm_case {
	uint32_t batch, m, k, n;
	bool ta, tb, bias, relu;
};

static void test_matmul(const struct mm_case *c)
{
	struct drm_npu_task t;
	struct buf b[4];
	uint32_t sa[3], sb[3], so[3], sbias[1], r = c->batch ? 3 : 2, o = 0;
	uint32_t nb = c->bias ? 4 : 3, bat = c->batch ? c->batch : 1;
	uint64_t i, j, k, bi, na, nbb, no;
	double worst = 0;
	bool ok = true;
	int err;

	memset(b, 0, sizeof(b));
	if (c->batch)
		sa[o] = sb[o] = so[o] = c->batch, o++;
	sa[o] = c->ta ? c->k : c->m;
	sa[o + 1] = c->ta ? c->m : c->k;
	sb[o] = c->tb ? c->n : c->k;
	sb[o + 1] = c->tb ? c->k : c->n;
	so[o] = c->m;
	so[o + 1] = c->n;
	sbias[0] = c->n;
	na = (uint64_t)bat * c->m * c->k;
	nbb = (uint64_t)bat * c->k * c->n;
	no = (uint64_t)bat * c->m * c->n;
	if (!buf_new(&b[0], na) || !buf_new(&b[1], nbb) ||
	    !buf_new(&b[2], c->bias ? c->n : no) ||
	    (c->bias && !buf_new(&b[3], no))) {
		tap_ok(false, "MATMUL: buffers");
		goto out;
	}
	for (i = 0; i < na; i++)
		b[0].p[i] = rnd();
	for (i = 0; i < nbb; i++)
		b[1].p[i] = rnd();
	if (c->bias)
		for (i = 0; i < c->n; i++)
			b[2].p[i] = rnd();

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_MATMUL;
	t.num_operands = (uint8_t)nb;
	t.params.matmul.flags = (c->ta ? DRM_NPU_MATMUL_TRANS_A : 0) |
				(c->tb ? DRM_NPU_MATMUL_TRANS_B : 0) |
				(c->bias ? DRM_NPU_MATMUL_HAS_BIAS : 0);
	t.params.matmul.alpha = F32_ONE;
	t.params.matmul.beta = c->bias ? F32_ONE : 0;
	t.params.matmul.act.kind = c->relu ? DRM_NPU_ACT_RELU : DRM_NPU_ACT_NONE;
	t.operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, r, sa);
	t.operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_F32, r, sb);
	if (c->bias)
		t.operands[2] = t_opnd(2, 0, DRM_NPU_DTYPE_F32, 1, sbias);
	t.operands[nb - 1] = t_opnd((uint16_t)(nb - 1), 0, DRM_NPU_DTYPE_F32,
				    r, so);
	err = run_task(&t, b, nb);
	if (err) {
		tap_err(err, 0, "MATMUL %ux%ux%ux%u: runs", bat, c->m, c->k, c->n);
		goto out;
	}
	for (bi = 0; bi < bat; bi++) {
		const float *A = b[0].p + bi * c->m * c->k;
		const float *B = b[1].p + bi * c->k * c->n;
		const float *O = b[nb - 1].p + bi * c->m * c->n;

		for (i = 0; i < c->m; i++) {
			for (j = 0; j < c->n; j++) {
				double acc = 0, mag = 0, d;

				for (k = 0; k < c->k; k++) {
					double av = c->ta ? A[k * c->m + i] :
							    A[i * c->k + k];
					double bv = c->tb ? B[j * c->k + k] :
							    B[k * c->n + j];

					acc += av * bv;
					mag += fabs(av * bv);
				}
				if (c->bias) {
					acc += b[2].p[j];
					mag += fabs(b[2].p[j]);
				}
				if (c->relu && acc < 0)
					acc = 0;
				d = fabs(O[i * c->n + j] - acc) /
				    (mag > 1e-30 ? mag : 1e-30);
				if (d > worst)
					worst = d;
				if (d > TOL)
					ok = false;
			}
		}
	}
	tap_ok(ok, "MATMUL batch %u, %ux%u * %ux%u%s%s%s%s vs double: worst relative error %.2e",
	       bat, c->m, c->k, c->k, c->n, c->ta ? " trans_a" : "",
	       c->tb ? " trans_b" : "", c->bias ? " +bias" : "",
	       c->relu ? " relu" : "", worst);
out:
	for (i = 0; i < 4; i++)
		if (b[i].bo)
			buf_free(&b[i]);
}

struct conv_case {
	uint32_t n, c, h, w, o, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, groups;
	bool bias, relu;
};

static uint32_t conv_out(uint32_t in, uint32_t pads, uint32_t k, uint32_t s,
			 uint32_t d)
{
	return (in + pads - d * (k - 1) - 1) / s + 1;
}

static void test_conv(const struct conv_case *c)
{
	struct drm_npu_task t;
	struct buf b[4];
	uint32_t oh = conv_out(c->h, c->pt + c->pb, c->kh, c->sh, c->dh);
	uint32_t ow = conv_out(c->w, c->pl + c->pr, c->kw, c->sw, c->dw);
	uint32_t cg = c->c / c->groups, og = c->o / c->groups;
	uint32_t si[4] = { c->n, c->c, c->h, c->w };
	uint32_t sw[4] = { c->o, cg, c->kh, c->kw };
	uint32_t so[4] = { c->n, c->o, oh, ow }, sbias[1] = { c->o };
	uint32_t nb = c->bias ? 4 : 3;
	uint64_t ni = (uint64_t)c->n * c->c * c->h * c->w;
	uint64_t nw = (uint64_t)c->o * cg * c->kh * c->kw;
	uint64_t no = (uint64_t)c->n * c->o * oh * ow, i;
	uint32_t n, oc, y, x, ic, ky, kx;
	double worst = 0;
	bool ok = true;
	int err;

	memset(b, 0, sizeof(b));
	if (!buf_new(&b[0], ni) || !buf_new(&b[1], nw) ||
	    !buf_new(&b[2], c->bias ? c->o : no) ||
	    (c->bias && !buf_new(&b[3], no))) {
		tap_ok(false, "CONV2D: buffers");
		goto out;
	}
	for (i = 0; i < ni; i++)
		b[0].p[i] = rnd();
	for (i = 0; i < nw; i++)
		b[1].p[i] = rnd();
	if (c->bias)
		for (i = 0; i < c->o; i++)
			b[2].p[i] = rnd();
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_CONV2D;
	t.num_operands = (uint8_t)nb;
	t.params.conv2d.flags = c->bias ? DRM_NPU_CONV_HAS_BIAS : 0;
	t.params.conv2d.groups = c->groups;
	t.params.conv2d.stride_h = c->sh;
	t.params.conv2d.stride_w = c->sw;
	t.params.conv2d.dilation_h = c->dh;
	t.params.conv2d.dilation_w = c->dw;
	t.params.conv2d.pad_top = c->pt;
	t.params.conv2d.pad_left = c->pl;
	t.params.conv2d.pad_bottom = c->pb;
	t.params.conv2d.pad_right = c->pr;
	t.params.conv2d.act.kind = c->relu ? DRM_NPU_ACT_RELU : DRM_NPU_ACT_NONE;
	t.operands[0] = t_opnd(0, 0, DRM_NPU_DTYPE_F32, 4, si);
	t.operands[1] = t_opnd(1, 0, DRM_NPU_DTYPE_F32, 4, sw);
	if (c->bias)
		t.operands[2] = t_opnd(2, 0, DRM_NPU_DTYPE_F32, 1, sbias);
	t.operands[nb - 1] = t_opnd((uint16_t)(nb - 1), 0, DRM_NPU_DTYPE_F32,
				    4, so);
	err = run_task(&t, b, nb);
	if (err) {
		tap_err(err, 0, "CONV2D: runs");
		goto out;
	}
	for (n = 0; n < c->n; n++)
	for (oc = 0; oc < c->o; oc++)
	for (y = 0; y < oh; y++)
	for (x = 0; x < ow; x++) {
		uint32_t g = oc / og;
		double acc = c->bias ? b[2].p[oc] : 0, mag = fabs(acc), d, got;

		for (ic = 0; ic < cg; ic++)
		for (ky = 0; ky < c->kh; ky++)
		for (kx = 0; kx < c->kw; kx++) {
			int64_t iy = (int64_t)y * c->sh + (int64_t)ky * c->dh - c->pt;
			int64_t ix = (int64_t)x * c->sw + (int64_t)kx * c->dw - c->pl;
			double iv, wv;

			if (iy < 0 || ix < 0 || iy >= c->h || ix >= c->w)
				continue;
			iv = b[0].p[(((uint64_t)n * c->c + g * cg + ic) * c->h + iy) *
				    c->w + ix];
			wv = b[1].p[(((uint64_t)oc * cg + ic) * c->kh + ky) *
				    c->kw + kx];
			acc += iv * wv;
			mag += fabs(iv * wv);
		}
		if (c->relu && acc < 0)
			acc = 0;
		got = b[nb - 1].p[(((uint64_t)n * c->o + oc) * oh + y) * ow + x];
		d = fabs(got - acc) / (mag > 1e-30 ? mag : 1e-30);
		if (d > worst)
			worst = d;
		if (d > TOL)
			ok = false;
	}
	tap_ok(ok, "CONV2D in %ux%ux%ux%u w %ux%ux%ux%u stride %u,%u dil %u,%u pad %u,%u,%u,%u groups %u%s%s vs double: worst relative error %.2e",
	       c->n, c->c, c->h, c->w, c->o, cg, c->kh, c->kw, c->sh, c->sw,
	       c->dh, c->dw, c->pt, c->pl, c->pb, c->pr, c->groups,
	       c->bias ? " +bias" : "", c->relu ? " relu" : "", worst);
out:
	for (i = 0; i < 4; i++)
		if (b[i].bo)
			buf_free(&b[i]);
}

/* One COPY of @n elements from @sdt (bytes @src) to @ddt; 0 or -errno. */
static int copy_conv(uint8_t sdt, const void *src, size_t sbytes, uint8_t ddt,
		     void *dst, size_t dbytes, uint32_t n)
{
	struct drm_npu_task t;
	struct buf b[2] = { { 0 } };
	const uint32_t shape[1] = { n };
	int err = -ENOMEM;

	if (!buf_new(&b[0], (sbytes + 3) / 4) || !buf_new(&b[1], (dbytes + 3) / 4))
		goto out;
	memcpy(b[0].p, src, sbytes);
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_COPY;
	t.num_operands = 2;
	t.operands[0] = t_opnd(0, 0, sdt, 1, shape);
	t.operands[1] = t_opnd(1, 0, ddt, 1, shape);
	err = run_task(&t, b, 2);
	if (!err)
		memcpy(dst, b[1].p, dbytes);
out:
	for (int i = 0; i < 2; i++)
		if (b[i].bo)
			buf_free(&b[i]);
	return err;
}

static void test_storage_copy(void)
{
	const float f[4] = { 1.0f / 3, 1.00390625f, 1.01171875f, -2.5e38f };
	const uint16_t bf_want[4] = { 0x3eab, 0x3f80, 0x3f82, 0xff3c };
	const int32_t i32[4] = { 40000, -1, 65535, -32769 };
	const int16_t i16_want[4] = { -25536, -1, -1, 32767 };
	const int64_t i64[2] = { -1, 3 };
	double d[4] = { 0 };
	uint16_t bf[4] = { 0 };
	int16_t i16[4] = { 0 };
	float back[4] = { 0 }, fu[2] = { 0 };
	uint64_t u64[2] = { 0 };
	bool ok;
	int err;

	err = copy_conv(DRM_NPU_DTYPE_F32, f, sizeof(f), DRM_NPU_DTYPE_F64,
			d, sizeof(d), 4);
	if (!err)
		err = copy_conv(DRM_NPU_DTYPE_F64, d, sizeof(d),
				DRM_NPU_DTYPE_F32, back, sizeof(back), 4);
	ok = !err && d[0] == (double)f[0] && d[3] == (double)f[3] &&
	     !memcmp(back, f, sizeof(f));
	tap_ok(ok, "COPY f32 -> f64 -> f32 is exact (err %d)", err);
	err = copy_conv(DRM_NPU_DTYPE_F32, f, sizeof(f), DRM_NPU_DTYPE_BF16,
			bf, sizeof(bf), 4);
	tap_ok(!err && !memcmp(bf, bf_want, sizeof(bf)),
	       "COPY f32 -> bf16 rounds to nearest even (err %d: %04x %04x %04x %04x)",
	       err, bf[0], bf[1], bf[2], bf[3]);
	err = copy_conv(DRM_NPU_DTYPE_I32, i32, sizeof(i32), DRM_NPU_DTYPE_I16,
			i16, sizeof(i16), 4);
	tap_ok(!err && i16[0] == i16_want[0] && i16[1] == i16_want[1] &&
	       i16[2] == i16_want[2] && i16[3] == i16_want[3],
	       "COPY i32 -> i16 wraps (err %d: %d %d %d %d)", err, i16[0],
	       i16[1], i16[2], i16[3]);
	err = copy_conv(DRM_NPU_DTYPE_I64, i64, sizeof(i64), DRM_NPU_DTYPE_U64,
			u64, sizeof(u64), 2);
	if (!err)
		err = copy_conv(DRM_NPU_DTYPE_U64, u64, sizeof(u64),
				DRM_NPU_DTYPE_F32, fu, sizeof(fu), 2);
	tap_ok(!err && u64[0] == UINT64_MAX && fu[0] == 18446744073709551616.0f &&
	       fu[1] == 3.0f, "COPY i64 -> u64 -> f32 reads u64 unsigned (err %d: %g %g)",
	       err, fu[0], fu[1]);
}

void test_math(void)
{
	static const struct mm_case mm[] = {
		{ 0, 1, 1, 1, false, false, false, false },
		{ 0, 7, 7, 7, false, false, false, false },
		{ 0, 17, 33, 19, false, false, true, false },
		{ 0, 13, 29, 3, true, false, false, false },
		{ 0, 5, 40, 23, false, true, true, true },
		{ 3, 9, 16, 15, true, true, false, false },
		{ 0, 64, 31, 50, false, false, true, false },
		/* large enough to be spread over idle AI cores */
		{ 2, 256, 96, 130, false, true, true, false },
	};
	static const struct conv_case cv[] = {
		/* n c h w   o kh kw sh sw dh dw pt pl pb pr groups */
		{ 1, 3, 5, 5, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, false, false },
		{ 1, 3, 17, 19, 5, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true, false },
		{ 2, 17, 9, 9, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, true },
		{ 1, 6, 8, 7, 4, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 2, false, false },
		{ 1, 8, 11, 11, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 8, true, false },
		{ 1, 4, 12, 10, 3, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, true, false },
		{ 1, 5, 10, 9, 6, 2, 3, 2, 1, 1, 1, 1, 0, 2, 1, 1, false, true },
		{ 1, 18, 7, 7, 18, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 18, false, false },
	};
	size_t i;

	for (i = 0; i < sizeof(mm) / sizeof(mm[0]); i++)
		test_matmul(&mm[i]);
	for (i = 0; i < sizeof(cv) / sizeof(cv[0]); i++)
		test_conv(&cv[i]);
	test_storage_copy();
}
