// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_wq_test.c - MATMUL_WQ (w8a16 / w4a16 weight-only products) and its
 * I4 operands against a double-precision reference of the same
 * dequantization (w * s in f32, as ONNX DequantizeLinear computes it):
 * every ISA level, whole and in random chunks, F32 and F16 activations,
 * per-channel and per-group scales, packed int4 with odd N and strided
 * views, and the validator's rules for the new dtype and opcode. Also
 * MATMUL on F16 operands (f16 storage, f32 sums).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"
#include "npu_math.h"

#define F32	DRM_NPU_DTYPE_F32
#define F16	DRM_NPU_DTYPE_F16
#define I8	DRM_NPU_DTYPE_I8
#define I4	DRM_NPU_DTYPE_I4

static struct drm_npu_task T;

static void op(u32 i, u32 dt, u32 rank, const u32 *shape, const u32 *st)
{
	tl_opnd(&T.operands[i], (u16)i, dt, rank, shape, st);
}

static int check(void)
{
	u32 bad;

	return npu_op_check(&T, &bad);
}

static s32 nib(const u8 *w, u64 e)
{
	u8 b = (e & 1) ? w[e >> 1] >> 4 : w[e >> 1] & 15;

	return (s32)b - ((b & 8) << 1);
}

struct wq_case {
	u32 b, m, k, n, gs, w4, a16, bias, wst;	/* wst: w row stride */
	const char *what;
};

static void one(const struct wq_case *q)
{
	u32 rows = q->b * q->m, g = (q->k + q->gs - 1) / q->gs;
	u32 wst = q->wst ? q->wst : q->n;
	u32 ash[3] = { q->b, q->m, q->k }, osh[3] = { q->b, q->m, q->n };
	u32 wsh[2] = { q->k, q->n }, wstr[2] = { wst, 1 };
	u32 ssh[2] = { g, q->n }, bsh[1] = { q->n };
	u64 wbytes = q->w4 ? ((u64)q->k * wst + 1) / 2 : (u64)q->k * wst;
	float *a = malloc(sizeof(float) * rows * q->k);
	u16 *ah = malloc(2 * rows * q->k);
	u8 *w = malloc(wbytes);
	float *s = malloc(sizeof(float) * g * q->n);
	float *bias = malloc(sizeof(float) * q->n);
	float *out = malloc(sizeof(float) * rows * q->n);
	float *out2 = malloc(sizeof(float) * rows * q->n);
	u16 *oh = malloc(2 * rows * q->n), *oh2 = malloc(2 * rows * q->n);
	double *ref = malloc(sizeof(double) * rows * q->n);
	float *base = malloc(sizeof(float) * rows * q->n);
	void *data[5];
	u32 i, j, k, isa, nops = 4 + q->bias;
	double err = 0, tol = q->a16 ? 1.0 / 1024 : 2e-5;
	int same = 1;

	for (i = 0; i < rows * q->k; i++) {
		a[i] = tl_uniform(-1, 1);
		ah[i] = npu_f32_to_f16(a[i]);
		if (q->a16)
			a[i] = npu_f16_to_f32(ah[i]);
	}
	for (i = 0; i < wbytes; i++)
		w[i] = (u8)tl_rand();
	for (i = 0; i < g * q->n; i++)
		s[i] = tl_uniform(0.001f, 0.05f);
	tl_fill(bias, q->n, -1, 1);
	for (i = 0; i < rows; i++)
		for (j = 0; j < q->n; j++) {
			double acc = q->bias ? bias[j] : 0;

			for (k = 0; k < q->k; k++) {
				u64 e = (u64)k * wst + j;
				s32 v = q->w4 ? nib(w, e) : (s8)w[e];
				/* the dequantized weight: one f32 multiply */
				float dq = (float)v * s[(k / q->gs) * q->n + j];

				acc += (double)a[i * q->k + k] * dq;
			}
			ref[i * q->n + j] = acc;
		}
	tl_task(&T, DRM_NPU_OP_MATMUL_WQ, nops);
	op(0, q->a16 ? F16 : F32, 3, ash, NULL);
	op(1, q->w4 ? I4 : I8, 2, wsh, wstr);
	op(2, F32, 2, ssh, NULL);
	if (q->bias)
		op(3, F32, 1, bsh, NULL);
	op(3 + q->bias, q->a16 ? F16 : F32, 3, osh, NULL);
	T.params.matmul_wq.group_size = q->gs;
	T.params.matmul_wq.flags = q->bias ? DRM_NPU_MATMUL_HAS_BIAS : 0;
	data[0] = q->a16 ? (void *)ah : (void *)a;
	data[1] = w;
	data[2] = s;
	data[3] = bias;
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		tl_isa = isa;
		data[3 + q->bias] = q->a16 ? (void *)oh : (void *)out;
		if (tl_run(&T, data)) {
			tap_ok(0, "%s: isa %u runs", q->what, isa);
			continue;
		}
		data[3 + q->bias] = q->a16 ? (void *)oh2 : (void *)out2;
		tl_run_chunked(&T, data);
		if (q->a16) {
			same = !memcmp(oh, oh2, 2 * rows * q->n);
			for (i = 0; i < rows * q->n; i++)
				out[i] = npu_f16_to_f32(oh[i]);
		} else {
			same = !memcmp(out, out2, 4 * rows * q->n);
		}
		err = tl_max_rel(out, ref, rows * q->n,
				 tl_rms(ref, rows * q->n));
		if (isa == NPU_ISA_BASELINE)
			memcpy(base, out, sizeof(float) * rows * q->n);
		tap_ok(err < tol && same,
		       "%s, isa %u: max rel err %.2g (< %.2g), chunked = whole",
		       q->what, isa, err, tol);
	}
	tl_isa = 0;
	tap_diag("%s: weights %llu bytes + scales %llu (f32 would be %llu)",
		 q->what, (unsigned long long)wbytes,
		 (unsigned long long)g * q->n * 4,
		 (unsigned long long)q->k * q->n * 4);
	free(a); free(ah); free(w); free(s); free(bias); free(out);
	free(out2); free(oh); free(oh2); free(ref); free(base);
}

static void correctness(void)
{
	static const struct wq_case cases[] = {
		{ 1, 1, 64, 40, 64, 0, 0, 0, 0, "w8a32 M=1 per-channel" },
		{ 2, 7, 96, 45, 32, 0, 0, 1, 0, "w8a32 batched, g32, bias" },
		{ 1, 19, 128, 64, 32, 1, 0, 1, 0, "w4a32 g32" },
		{ 1, 3, 100, 33, 64, 1, 0, 0, 0, "w4a32 odd N, K % gs != 0" },
		{ 1, 5, 130, 24, 128, 1, 0, 0, 27, "w4a32 odd row stride" },
		{ 1, 17, 64, 50, 32, 0, 1, 1, 0, "w8a16 g32, bias" },
		{ 2, 3, 256, 72, 128, 1, 1, 0, 0, "w4a16 g128" },
		{ 1, 4, 0, 16, 32, 1, 0, 1, 0, "K = 0: out = bias" },
	};
	u32 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		one(&cases[i]);
}

/*
 * Units of up to 4 rows take the row-at-a-time path, bigger ones the
 * tiles: a row's bits must not depend on which (the sums are the same
 * terms, rounded alike, in the same order).
 */
static void gemv_vs_tiles(void)
{
	enum { M = 9, K = 200, N = 70 };
	static float a[M * K], s[(K + 31) / 32 * N], y9[M * N], y1[N];
	static u8 w[K * N];
	u32 ash[2] = { M, K }, a1[2] = { 1, K }, wsh[2] = { K, N };
	u32 ssh[2] = { (K + 31) / 32, N }, o9[2] = { M, N }, o1[2] = { 1, N };
	void *data[4];
	u32 isa, bits, i;
	int same = 1;

	tl_fill(a, M * K, -1, 1);
	tl_fill(s, (K + 31) / 32 * N, 0.01f, 0.1f);
	for (i = 0; i < sizeof(w); i++)
		w[i] = (u8)tl_rand();
	for (bits = 4; bits <= 8; bits += 4)
		for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
			tl_isa = isa;
			tl_task(&T, DRM_NPU_OP_MATMUL_WQ, 4);
			op(1, bits == 4 ? I4 : I8, 2, wsh, NULL);
			op(2, F32, 2, ssh, NULL);
			T.params.matmul_wq.group_size = 32;
			data[0] = a;
			data[1] = w;
			data[2] = s;
			op(0, F32, 2, ash, NULL);
			op(3, F32, 2, o9, NULL);
			data[3] = y9;
			if (tl_run(&T, data))
				same = 0;
			op(0, F32, 2, a1, NULL);
			op(3, F32, 2, o1, NULL);
			data[0] = a + 8 * K;
			data[3] = y1;
			if (tl_run(&T, data) || memcmp(y1, y9 + 8 * N, sizeof(y1)))
				same = 0;
		}
	tl_isa = 0;
	tap_ok(same, "one-row units (row path) = row 8 of a 9-row unit "
	       "(tiles), bit for bit, w4 and w8 at every level");
}

/* MATMUL with every operand F16: batched, transposed B, bias, relu. */
static void matmul_f16(void)
{
	enum { B = 2, M = 21, K = 37, N = 19 };
	static u16 a[B * M * K], b[N * K], bias[N], y[B * M * N], y2[B * M * N];
	static u16 y0[B * M * N];
	static double ref[B * M * N];
	static float got[B * M * N];
	u32 ash[3] = { B, M, K }, bsh[2] = { N, K }, bis[1] = { N };
	u32 osh[3] = { B, M, N }, isa, i, j, k, bt;
	void *data[4] = { a, b, bias, y };
	double err;
	int same = 1, ok = 1;

	for (i = 0; i < B * M * K; i++)
		a[i] = npu_f32_to_f16(tl_uniform(-1, 1));
	for (i = 0; i < N * K; i++)
		b[i] = npu_f32_to_f16(tl_uniform(-1, 1));
	for (i = 0; i < N; i++)
		bias[i] = npu_f32_to_f16(tl_uniform(-1, 1));
	for (bt = 0; bt < B; bt++)
		for (i = 0; i < M; i++)
			for (j = 0; j < N; j++) {
				double s = npu_f16_to_f32(bias[j]);

				for (k = 0; k < K; k++)
					s += (double)npu_f16_to_f32(
						a[(bt * M + i) * K + k]) *
					     npu_f16_to_f32(b[j * K + k]);
				ref[(bt * M + i) * N + j] = s > 0 ? s : 0;
			}
	tl_task(&T, DRM_NPU_OP_MATMUL, 4);
	op(0, F16, 3, ash, NULL);
	op(1, F16, 2, bsh, NULL);
	op(2, F16, 1, bis, NULL);
	op(3, F16, 3, osh, NULL);
	T.params.matmul.flags = DRM_NPU_MATMUL_TRANS_B |
				DRM_NPU_MATMUL_HAS_BIAS;
	T.params.matmul.alpha = tl_f2u(1.0f);
	T.params.matmul.beta = tl_f2u(1.0f);
	T.params.matmul.act.kind = DRM_NPU_ACT_RELU;
	for (isa = NPU_ISA_BASELINE; isa <= NPU_ISA_AVX512; isa++) {
		tl_isa = isa;
		data[3] = y;
		ok &= !tl_run(&T, data);
		data[3] = y2;
		ok &= !tl_run_chunked(&T, data);
		same &= !memcmp(y, y2, sizeof(y));
		if (isa == NPU_ISA_BASELINE)
			memcpy(y0, y, sizeof(y));
		same &= !memcmp(y, y0, sizeof(y));
	}
	tl_isa = 0;
	for (i = 0; i < B * M * N; i++)
		got[i] = npu_f16_to_f32(y[i]);
	err = tl_max_rel(got, ref, B * M * N, tl_rms(ref, B * M * N));
	tap_ok(ok && same && err < 1.0 / 1024,
	       "MATMUL F16 (batched, transB, bias, relu): rel err %.2g, "
	       "chunked = whole, the same bits at every level", err);
	op(2, F32, 1, bis, NULL);
	tap_ok(check() == -EINVAL, "MATMUL mixing F16 and F32: refused");
}

/* The validator's rules for I4 and MATMUL_WQ. */
static void rules(void)
{
	u32 ash[2] = { 4, 64 }, osh[2] = { 4, 10 };
	u32 wsh[2] = { 64, 10 }, ssh[2] = { 2, 10 }, ssh1[2] = { 1, 10 };
	u32 cp[1] = { 8 }, hk[2] = { 4, 0x7fffffff }, hw[2] = { 0x7fffffff, 10 };
	u32 hs[2] = { 1, 10 }, z2[2] = { 0, 0 };
	struct drm_npu_operand o;
	u64 end;

	tl_task(&T, DRM_NPU_OP_MATMUL_WQ, 4);
	op(0, F32, 2, ash, NULL);
	op(1, I4, 2, wsh, NULL);
	op(2, F32, 2, ssh, NULL);
	op(3, F32, 2, osh, NULL);
	T.params.matmul_wq.group_size = 32;
	tap_ok(check() == 0, "MATMUL_WQ w4 g32: accepted");
	T.params.matmul_wq.group_size = 0;
	tap_ok(check() == -EINVAL, "group_size 0: refused");
	T.params.matmul_wq.group_size = 0xffffffffu;
	tap_ok(check() == -EINVAL, "group_size 2^32-1 with G = 2: refused");
	op(2, F32, 2, ssh1, NULL);
	tap_ok(check() == 0, "group_size 2^32-1 with G = 1 (K < gs): accepted");
	op(2, F32, 2, ssh, NULL);
	T.params.matmul_wq.group_size = 16;
	tap_ok(check() == -EINVAL, "G != ceil(K / gs): refused");
	T.params.matmul_wq.group_size = 32;
	T.params.matmul_wq.pad[1] = 1;
	tap_ok(check() == -EINVAL, "non-zero pad: refused");
	T.params.matmul_wq.pad[1] = 0;
	op(2, F16, 2, ssh, NULL);
	tap_ok(check() == -EINVAL, "F16 scales: refused");
	op(2, F32, 2, ssh, NULL);
	op(0, I4, 2, ash, NULL);
	tap_ok(check() == -EINVAL, "I4 activations: refused");
	op(0, F32, 2, ash, NULL);
	op(3, F16, 2, osh, NULL);
	tap_ok(check() == -EINVAL, "out dtype other than a's: refused");
	op(3, F32, 2, osh, NULL);
	T.params.matmul_wq.flags = DRM_NPU_MATMUL_TRANS_B;
	tap_ok(check() == -EINVAL, "unknown flag: refused");
	T.params.matmul_wq.flags = 0;

	/* huge K with 0 strides: one unit would cost 2^31 * 17 * 32 */
	op(0, F32, 2, hk, z2);
	op(1, I8, 2, hw, z2);
	hs[0] = 1;
	op(2, F32, 2, hs, z2);
	T.params.matmul_wq.group_size = 0x7fffffff;
	tap_ok(check() == -EINVAL, "K = 2^31 - 1: unit cost above 2^27, refused");

	/* I4 anywhere else */
	tl_task(&T, DRM_NPU_OP_COPY, 2);
	op(0, I4, 1, cp, NULL);
	op(1, I8, 1, cp, NULL);
	tap_ok(check() == -EINVAL, "COPY from I4: refused");

	/* extents in nibbles */
	tl_opnd(&o, 0, I4, 2, (const u32[]){ 3, 5 }, NULL);
	end = 0;
	if (npu_operand_end(&o, &end))
		end = 0;
	tap_ok(end == 8,
	       "I4 [3, 5]: 15 nibbles = 8 bytes (got %llu)",
	       (unsigned long long)end);
	tl_opnd(&o, 0, I4, 1, (const u32[]){ 0xffffffffu }, NULL);
	o.strides[0] = 0xffffffffu;
	tap_ok(!npu_operand_end(&o, &end) &&
	       end == ((0xfffffffeull * 0xffffffffull + 1) + 1) / 2,
	       "I4 extent near 2^64 nibbles: ceil, no wrap");
}

int main(void)
{
	tl_seed(13);
	correctness();
	gemv_vs_tiles();
	matmul_f16();
	rules();
	return tap_done();
}
