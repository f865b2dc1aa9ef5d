// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_bench.c - GFLOP/s of MATMUL and CONV2D on resnet50-like and
 * BERT-like shapes, single thread, timed in thread CPU time (the build
 * machine is shared). Not a test (prints figures only):
 *   build/bin/ops_bench [repeats]
 *   build/bin/ops_bench [repeats] wq   (MATMUL_WQ beside f32 MATMUL)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ops_testlib.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double run_timed(const struct drm_npu_task *t, void **data, int reps)
{
	double t0, best = 1e30;
	int i;

	for (i = 0; i < reps; i++) {
		t0 = now();
		if (tl_run(t, data))
			return -1;
		t0 = now() - t0;
		if (t0 < best)
			best = t0;
	}
	return best;
}

static double peak;	/* measured FMA peak, GFLOP/s */
static const char *only;	/* run only the cases whose name has this */

static bool skip(const char *name)
{
	return only && !strstr(name, only);
}

static void bench_conv(const char *name, u32 c, u32 hw, u32 o, u32 k, u32 s,
		       u32 groups, int reps, int nc1hwc0)
{
	/* nc1hwc0 & 2: weights stored [C][KH][KW][O] (npuc's order) */
	u32 wst[4] = { 1, k * k * o, k * o, o };
	u32 pad = k / 2, oh = (hw + 2 * pad - k) / s + 1;
	u32 xs[4] = { 1, c, hw, hw }, ws[4] = { o, c / groups, k, k };
	u32 ys[4] = { 1, o, oh, oh }, bs[1] = { o };
	size_t nx = (size_t)c * hw * hw, nw = (size_t)o * c / groups * k * k;
	float *x = malloc(nx * 4), *w = malloc(nw * 4), *b = malloc(o * 4);
	float *y = malloc((size_t)o * oh * oh * 4);
	struct drm_npu_task t;
	void *data[4] = { x, w, b, y };
	double sec, flops = 2.0 * o * oh * oh * (c / groups) * k * k;

	if (skip(name)) {
		free(x);
		free(w);
		free(b);
		free(y);
		return;
	}
	tl_fill(x, nx, -1, 1);
	tl_fill(w, nw, -1, 1);
	tl_fill(b, o, -1, 1);
	tl_task(&t, DRM_NPU_OP_CONV2D, 4);
	tl_opnd(&t.operands[0], 0, DRM_NPU_DTYPE_F32, 4, xs, NULL);
	tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 4, ws,
		(nc1hwc0 & 2) ? wst : NULL);
	tl_opnd(&t.operands[2], 2, DRM_NPU_DTYPE_F32, 1, bs, NULL);
	tl_opnd(&t.operands[3], 3, DRM_NPU_DTYPE_F32, 4, ys, NULL);
	t.params.conv2d.flags = DRM_NPU_CONV_HAS_BIAS;
	t.params.conv2d.groups = groups;
	t.params.conv2d.stride_h = t.params.conv2d.stride_w = s;
	t.params.conv2d.dilation_h = t.params.conv2d.dilation_w = 1;
	t.params.conv2d.pad_top = t.params.conv2d.pad_left = pad;
	t.params.conv2d.pad_bottom = t.params.conv2d.pad_right = pad;
	t.params.conv2d.act.kind = DRM_NPU_ACT_RELU;
	if (nc1hwc0 & 1) {
		/* same sizes, 5-D views (x and y big enough: C1*16 >= C) */
		u32 x5[5] = { 1, (c + 15) / 16, hw, hw, 16 };
		u32 y5[5] = { 1, (o + 15) / 16, oh, oh, 16 };

		free(x);
		free(y);
		x = calloc((size_t)x5[1] * 16 * hw * hw, 4);
		y = calloc((size_t)y5[1] * 16 * oh * oh, 4);
		data[0] = x;
		data[3] = y;
		tl_opnd(&t.operands[0], 0, DRM_NPU_DTYPE_F32, 5, x5, NULL);
		tl_opnd(&t.operands[3], 3, DRM_NPU_DTYPE_F32, 5, y5, NULL);
		t.operands[0].layout = t.operands[3].layout =
			DRM_NPU_LAYOUT_NC1HWC0;
	}
	sec = run_timed(&t, data, reps);
	printf("conv2d %-30s %8.3f ms %7.2f GFLOP/s %5.1f%% of peak\n", name,
	       sec * 1e3, flops / sec * 1e-9, flops / sec * 1e-9 / peak * 100);
	free(x);
	free(w);
	free(b);
	free(y);
}

static void bench_mm(const char *name, u32 m, u32 k, u32 n, int tb, int reps)
{
	u32 as[2] = { m, k }, bs[2] = { tb ? n : k, tb ? k : n }, ys[2] = { m, n };
	float *a = malloc((size_t)m * k * 4), *b = malloc((size_t)k * n * 4);
	float *y = malloc((size_t)m * n * 4);
	struct drm_npu_task t;
	void *data[3] = { a, b, y };
	double sec;

	if (skip(name)) {
		free(a);
		free(b);
		free(y);
		return;
	}
	tl_fill(a, (size_t)m * k, -1, 1);
	tl_fill(b, (size_t)k * n, -1, 1);
	tl_task(&t, DRM_NPU_OP_MATMUL, 3);
	tl_opnd(&t.operands[0], 0, DRM_NPU_DTYPE_F32, 2, as, NULL);
	tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 2, bs, NULL);
	tl_opnd(&t.operands[2], 2, DRM_NPU_DTYPE_F32, 2, ys, NULL);
	t.params.matmul.alpha = tl_f2u(1.0f);
	t.params.matmul.flags = tb ? DRM_NPU_MATMUL_TRANS_B : 0;
	sec = run_timed(&t, data, reps);
	printf("matmul %-30s %8.3f ms %7.2f GFLOP/s %5.1f%% of peak\n", name,
	       sec * 1e3, 2.0 * m * k * n / sec * 1e-9,
	       2.0 * m * k * n / sec * 1e-9 / peak * 100);
	free(a);
	free(b);
	free(y);
}

/*
 * The machine's FMA peak on one core: 12 independent chains of vector
 * multiply-adds in registers, enough to cover the FMA latency on two
 * pipes; 8-float (AVX2+FMA) and, where the CPU has it, 16-float
 * (AVX-512) vectors; the best of several runs of either.
 */
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));

#define PEAK_LOOP(T, W, FMA)						\
	T a[12], x, m;							\
	long it, n = 10000000;						\
	double t0, best = 1e30, sum = 0;				\
	int i, r, j;							\
									\
	for (j = 0; j < W; j++) {					\
		x[j] = 1.0f;						\
		m[j] = 0.999999f;					\
	}								\
	for (r = 0; r < 5; r++) {					\
		for (i = 0; i < 12; i++)				\
			a[i] = x * (float)(i + 1);			\
		t0 = now();						\
		for (it = 0; it < n; it++) {				\
			_Pragma("GCC unroll 12")			\
			for (i = 0; i < 12; i++)			\
				a[i] = FMA(a[i], m, x);			\
		}							\
		t0 = now() - t0;					\
		if (t0 < best)						\
			best = t0;					\
		for (i = 0; i < 12; i++)				\
			for (j = 0; j < W; j++)				\
				sum += a[i][j];				\
	}								\
	if (sum == 42.0)						\
		printf("#\n");						\
	return 12.0 * W * 2 * n / best * 1e-9

__attribute__((target("avx2,fma"))) noinline static double peak_avx2(void)
{
	PEAK_LOOP(v8f, 8, __builtin_ia32_vfmaddps256);
}

#define FMA512(a, b, c) \
	__builtin_ia32_vfmaddps512_mask((a), (b), (c), (unsigned short)-1, 4)

__attribute__((target("avx512f"))) noinline static double peak_avx512(void)
{
	PEAK_LOOP(v16f, 16, FMA512);
}

static double fma_peak(void)
{
	double p = 0, q;

	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		p = peak_avx2();
	if (__builtin_cpu_supports("avx512f")) {
		q = peak_avx512();
		if (q > p)
			p = q;
	}
	return p;
}

static void bench_act(const char *name, u32 kind, int reps)
{
	enum { N = 1 << 20 };
	u32 sh[2] = { 16, N / 16 };
	float *x = malloc((size_t)N * 4), *y = malloc((size_t)N * 4);
	void *data[2] = { x, y };
	struct drm_npu_task t;
	double sec;

	if (skip(name)) {
		free(x);
		free(y);
		return;
	}
	tl_fill(x, N, -8, 8);
	tl_task(&t, DRM_NPU_OP_UNARY, 2);
	tl_opnd(&t.operands[0], 0, DRM_NPU_DTYPE_F32, 2, sh, NULL);
	tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 2, sh, NULL);
	t.params.unary.kind = kind;
	sec = run_timed(&t, data, reps);
	printf("unary  %-30s %8.3f ms %7.2f ns/element\n", name, sec * 1e3,
	       sec * 1e9 / N);
	free(x);
	free(y);
}

/*
 * MATMUL_WQ (bits 8 or 4, F16 or F32 activations, groups of @gs along K)
 * beside the F32 MATMUL of the same shape: the weight-only products of
 * LLM serving, M = 1 (decode) to a few rows.
 */
static void bench_wq(u32 m, u32 k, u32 n, u32 bits, int a16, u32 gs,
		     int reps)
{
	u32 as[2] = { m, k }, ws[2] = { k, n }, ys[2] = { m, n };
	u32 g = (k + gs - 1) / gs, ss[2] = { g, n };
	size_t wb = bits == 4 ? (size_t)k * n / 2 : (size_t)k * n;
	float *a = malloc((size_t)m * k * 4), *s = malloc((size_t)g * n * 4);
	float *y = malloc((size_t)m * n * 4), *bf = malloc((size_t)k * n * 4);
	u16 *ah = malloc((size_t)m * k * 2);
	u8 *w = malloc(wb);
	struct drm_npu_task t;
	void *data[4];
	double sec, sec32;
	size_t i;

	tl_fill(a, (size_t)m * k, -1, 1);
	tl_fill(s, (size_t)g * n, 0.01f, 0.02f);
	tl_fill(bf, (size_t)k * n, -1, 1);
	for (i = 0; i < (size_t)m * k; i++)
		ah[i] = (u16)tl_rand();	/* any bits: timing only */
	for (i = 0; i < wb; i++)
		w[i] = (u8)tl_rand();
	/* f32 reference product */
	tl_task(&t, DRM_NPU_OP_MATMUL, 3);
	tl_opnd(&t.operands[0], 0, DRM_NPU_DTYPE_F32, 2, as, NULL);
	tl_opnd(&t.operands[1], 1, DRM_NPU_DTYPE_F32, 2, ws, NULL);
	tl_opnd(&t.operands[2], 2, DRM_NPU_DTYPE_F32, 2, ys, NULL);
	t.params.matmul.alpha = tl_f2u(1.0f);
	data[0] = a;
	data[1] = bf;
	data[2] = y;
	sec32 = run_timed(&t, data, reps);
	tl_task(&t, DRM_NPU_OP_MATMUL_WQ, 4);
	tl_opnd(&t.operands[0], 0, a16 ? DRM_NPU_DTYPE_F16 : DRM_NPU_DTYPE_F32,
		2, as, NULL);
	tl_opnd(&t.operands[1], 1, bits == 4 ? DRM_NPU_DTYPE_I4 :
		DRM_NPU_DTYPE_I8, 2, ws, NULL);
	tl_opnd(&t.operands[2], 2, DRM_NPU_DTYPE_F32, 2, ss, NULL);
	tl_opnd(&t.operands[3], 3, a16 ? DRM_NPU_DTYPE_F16 : DRM_NPU_DTYPE_F32,
		2, ys, NULL);
	t.params.matmul_wq.group_size = gs;
	data[0] = a16 ? (void *)ah : (void *)a;
	data[1] = w;
	data[2] = s;
	data[3] = y;
	sec = run_timed(&t, data, reps);
	printf("matmul_wq w%ua%u g%-4u %5ux%ux%u %8.3f ms %7.2f GFLOP/s "
	       "(f32 MATMUL %8.3f ms: %.2fx), weights %zu bytes vs %zu\n",
	       bits, a16 ? 16 : 32, gs, m, k, n, sec * 1e3,
	       2.0 * m * k * n / sec * 1e-9, sec32 * 1e3, sec32 / sec,
	       wb + (size_t)g * n * 4, (size_t)k * n * 4);
	free(a); free(s); free(y); free(bf); free(ah); free(w);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3;

	if (reps < 1 || reps > 1000) {
		fprintf(stderr, "usage: ops_bench [REPS (1-1000, default 3) "
			"[wq | NAME-SUBSTRING]]\n");
		return 2;
	}
	if (argc > 2 && strcmp(argv[2], "wq"))
		only = argv[2];
	tl_seed(7);
	peak = fma_peak();
	printf("FMA peak (one core, measured): %.1f GFLOP/s; ISA level %u "
	       "(1 baseline, 2 avx2+fma, 3 avx512)\n", peak,
	       tl_isa ? tl_isa : npu_op_isa_best());
	if (peak <= 0)
		peak = 1;
	if (argc > 2 && !strcmp(argv[2], "wq")) {
		static const u32 ms[] = { 1, 16, 128 };
		u32 i;

		for (i = 0; i < 3; i++) {
			bench_wq(ms[i], 4096, 4096, 8, 0, 4096, reps);
			bench_wq(ms[i], 4096, 4096, 8, 1, 128, reps);
			bench_wq(ms[i], 4096, 4096, 4, 0, 128, reps);
			bench_wq(ms[i], 4096, 4096, 4, 1, 32, reps);
		}
		return 0;
	}
	bench_mm("128x768x768 (BERT qkv)", 128, 768, 768, 0, reps);
	bench_mm("128x768x3072 (BERT ffn)", 128, 768, 3072, 0, reps);
	bench_mm("128x768x768 transB", 128, 768, 768, 1, reps);
	bench_mm("1x2048x1000 transB (fc)", 1, 2048, 1000, 1, reps);
	bench_conv("7x7/2 3->64 @224", 3, 224, 64, 7, 2, 1, reps, 0);
	bench_conv("1x1 64->256 @56", 64, 56, 256, 1, 1, 1, reps, 0);
	bench_conv("3x3 64->64 @56", 64, 56, 64, 3, 1, 1, reps, 0);
	bench_conv("3x3 128->128 @28", 128, 28, 128, 3, 1, 1, reps, 0);
	bench_conv("3x3 256->256 @14", 256, 14, 256, 3, 1, 1, reps, 0);
	bench_conv("3x3 512->512 @7", 512, 7, 512, 3, 1, 1, reps, 0);
	bench_conv("1x1 2048->512 @7", 2048, 7, 512, 1, 1, 1, reps, 0);
	bench_conv("3x3 dw 96 @56", 96, 56, 96, 3, 1, 96, reps, 0);
	bench_conv("5x5 24->48 @32", 24, 32, 48, 5, 1, 1, reps, 0);
	bench_conv("NC1HWC0 5x5 24->48 @32", 24, 32, 48, 5, 1, 1, reps, 1);
	bench_conv("NC1HWC0 3x3 64->64 @56", 64, 56, 64, 3, 1, 1, reps, 1);
	bench_conv("NC1HWC0 1x1 2048->512 @7", 2048, 7, 512, 1, 1, 1, reps, 1);
	bench_conv("NC1HWC0 3x3 256->256 @14", 256, 14, 256, 3, 1, 1, reps, 1);
	/* weights as npuc stores them: the pixel-major product */
	bench_conv("NC1HWC0 wT 3x3 64->64 @56", 64, 56, 64, 3, 1, 1, reps, 3);
	bench_conv("NC1HWC0 wT 3x3 128->128 @28", 128, 28, 128, 3, 1, 1, reps,
		   3);
	bench_conv("NC1HWC0 wT 3x3 256->256 @14", 256, 14, 256, 3, 1, 1, reps,
		   3);
	bench_conv("NC1HWC0 wT 3x3 512->512 @7", 512, 7, 512, 3, 1, 1, reps, 3);
	bench_conv("NC1HWC0 wT 1x1 2048->512 @7", 2048, 7, 512, 1, 1, 1, reps,
		   3);
	bench_conv("NC1HWC0 wT 1x1 64->256 @56", 64, 56, 256, 1, 1, 1, reps, 3);
	bench_conv("NC1HWC0 wT 1x1 16->64 @55", 16, 55, 64, 1, 1, 1, reps, 3);
	bench_conv("NC1HWC0 wT 7x7/2 3->64 @224", 3, 224, 64, 7, 2, 1, reps, 3);
	/* resnet50's downsampling: a strided 1x1 and a strided 3x3 */
	bench_conv("NC1HWC0 wT 1x1/2 1024->2048 @14", 1024, 14, 2048, 1, 2, 1,
		   reps, 3);
	bench_conv("NC1HWC0 wT 3x3/2 256->256 @28", 256, 28, 256, 3, 2, 1,
		   reps, 3);
	bench_conv("NCHW wT 3x3 64->64 @56", 64, 56, 64, 3, 1, 1, reps, 2);
	bench_act("GELU (1M floats)", DRM_NPU_ACT_GELU, reps);
	bench_act("SIGMOID (1M floats)", DRM_NPU_ACT_SIGMOID, reps);
	bench_act("EXP (1M floats)", DRM_NPU_ACT_EXP, reps);
	bench_act("TANH (1M floats)", DRM_NPU_ACT_TANH, reps);
	bench_conv("NC1HWC0 3x3 dw 96 @56", 96, 56, 96, 3, 1, 96, reps, 1);
	bench_conv("NC1HWC0 3x3/2 dw 144 @56", 144, 56, 144, 3, 2, 144, reps,
		   1);
	return 0;
}
