// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_basic_test.c - COPY (views, broadcasting, every dtype conversion),
 * BINARY (every kind, broadcasting, fused activation, integer rules),
 * UNARY (every activation), SOFTMAX/LOGSOFTMAX, POOL2D and REDUCE against
 * naive double-precision references written here, plus chunking
 * invariance.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ops_testlib.h"

#define F32	DRM_NPU_DTYPE_F32

static struct drm_npu_task T;

static void op(u32 i, u32 dt, u32 rank, const u32 *shape, const u32 *st)
{
	tl_opnd(&T.operands[i], (u16)i, dt, rank, shape, st);
}

/* ---- COPY ---- */

static void copy_views(void)
{
	float src[15], dst[15], big[4 * 8];
	void *data[2];
	int i, j, ok = 1;

	for (i = 0; i < 15; i++)
		src[i] = (float)i;
	/* transpose: out[3][5] = in[5][3]^T, via strides {1, 3} */
	tl_task(&T, DRM_NPU_OP_COPY, 2);
	op(0, F32, 2, (const u32[]){ 3, 5 }, (const u32[]){ 1, 3 });
	op(1, F32, 2, (const u32[]){ 3, 5 }, NULL);
	data[0] = src;
	data[1] = dst;
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 5; j++)
			ok &= dst[i * 5 + j] == src[j * 3 + i];
	tap_ok(ok, "COPY transpose through strides");
	/* expand [1, 3] -> [4, 3] and write into columns 2..4 of a [4, 8] */
	memset(big, 0, sizeof(big));
	tl_task(&T, DRM_NPU_OP_COPY, 2);
	op(0, F32, 2, (const u32[]){ 1, 3 }, NULL);
	op(1, F32, 2, (const u32[]){ 4, 3 }, (const u32[]){ 8, 1 });
	data[0] = src + 4;
	data[1] = big + 2;
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < 4; i++)
		for (j = 0; j < 8; j++)
			ok &= big[i * 8 + j] == ((j >= 2 && j < 5) ? 4.0f + j - 2 : 0);
	tap_ok(ok, "COPY expand into a concat slice of a larger tensor");
}

struct cvt {
	u32 sdt, ddt;
	double in;
	double want;
};

static void put(u32 dt, void *p, double v)
{
	switch (dt) {
	case DRM_NPU_DTYPE_F32: *(float *)p = (float)v; break;
	case DRM_NPU_DTYPE_F16: { _Float16 h = (_Float16)v; memcpy(p, &h, 2); break; }
	case DRM_NPU_DTYPE_I8: *(int8_t *)p = (int8_t)v; break;
	case DRM_NPU_DTYPE_U8: *(uint8_t *)p = (uint8_t)v; break;
	case DRM_NPU_DTYPE_BOOL: *(uint8_t *)p = v != 0; break;
	case DRM_NPU_DTYPE_I32: *(int32_t *)p = (int32_t)v; break;
	case DRM_NPU_DTYPE_F64: *(double *)p = v; break;
	case DRM_NPU_DTYPE_BF16: {	/* exact values only: the top half */
		float f = (float)v;
		u32 b;

		memcpy(&b, &f, 4);
		*(u16 *)p = (u16)(b >> 16);
		break;
	}
	case DRM_NPU_DTYPE_I16: *(int16_t *)p = (int16_t)v; break;
	case DRM_NPU_DTYPE_U16: *(uint16_t *)p = (uint16_t)v; break;
	case DRM_NPU_DTYPE_U32: *(uint32_t *)p = (uint32_t)v; break;
	case DRM_NPU_DTYPE_U64: *(uint64_t *)p = (uint64_t)v; break;
	default: *(int64_t *)p = (int64_t)v;
	}
}

static double get(u32 dt, const void *p)
{
	switch (dt) {
	case DRM_NPU_DTYPE_F32: return *(const float *)p;
	case DRM_NPU_DTYPE_F16: { _Float16 h; memcpy(&h, p, 2); return (double)h; }
	case DRM_NPU_DTYPE_I8: return *(const int8_t *)p;
	case DRM_NPU_DTYPE_U8: case DRM_NPU_DTYPE_BOOL: return *(const uint8_t *)p;
	case DRM_NPU_DTYPE_I32: return *(const int32_t *)p;
	case DRM_NPU_DTYPE_F64: return *(const double *)p;
	case DRM_NPU_DTYPE_BF16: {
		u32 b = (u32)*(const u16 *)p << 16;
		float f;

		memcpy(&f, &b, 4);
		return f;
	}
	case DRM_NPU_DTYPE_I16: return *(const int16_t *)p;
	case DRM_NPU_DTYPE_U16: return *(const uint16_t *)p;
	case DRM_NPU_DTYPE_U32: return *(const uint32_t *)p;
	case DRM_NPU_DTYPE_U64: return (double)*(const uint64_t *)p;
	default: return (double)*(const int64_t *)p;
	}
}

static void copy_convert(void)
{
	static const struct cvt cases[] = {
		{ F32, DRM_NPU_DTYPE_F16, 1.0 / 3, (double)(_Float16)(1.0f / 3) },
		{ F32, DRM_NPU_DTYPE_F16, 70000, INFINITY },
		{ DRM_NPU_DTYPE_F16, F32, 0.5625, 0.5625 },
		{ F32, DRM_NPU_DTYPE_I8, -3.9, -3 },
		{ F32, DRM_NPU_DTYPE_I8, 300, 127 },
		{ F32, DRM_NPU_DTYPE_U8, 255.9, 255 },
		{ F32, DRM_NPU_DTYPE_U8, -5, 0 },
		{ F32, DRM_NPU_DTYPE_I32, 2.5e9, 2147483647 },
		{ F32, DRM_NPU_DTYPE_I32, -7.99, -7 },
		{ F32, DRM_NPU_DTYPE_I64, -1e12, -999999995904.0 },
		{ F32, DRM_NPU_DTYPE_BOOL, 0.25, 1 },
		{ F32, DRM_NPU_DTYPE_BOOL, -0.0, 0 },
		{ DRM_NPU_DTYPE_I64, F32, 16777217, 16777216 },
		{ DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_I8, 300, 44 },
		{ DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_U8, -1, 255 },
		{ DRM_NPU_DTYPE_I64, DRM_NPU_DTYPE_I32, 4294967297.0, 1 },
		{ DRM_NPU_DTYPE_U8, DRM_NPU_DTYPE_I64, 200, 200 },
		{ DRM_NPU_DTYPE_BOOL, F32, 1, 1 },
		{ DRM_NPU_DTYPE_I8, DRM_NPU_DTYPE_BOOL, -2, 1 },
		{ DRM_NPU_DTYPE_I8, DRM_NPU_DTYPE_F16, -100, -100 },
		{ DRM_NPU_DTYPE_F16, DRM_NPU_DTYPE_I32, -2.5, -2 },
		/* uapi 1.8's storage types */
		{ DRM_NPU_DTYPE_F64, F32, 1.0 / 3, (float)(1.0 / 3) },
		{ F32, DRM_NPU_DTYPE_F64, 0.1, (float)0.1 },
		{ DRM_NPU_DTYPE_F64, DRM_NPU_DTYPE_I32, -7.9, -7 },
		{ F32, DRM_NPU_DTYPE_BF16, 1.00390625, 1.0 },	/* tie: even */
		{ F32, DRM_NPU_DTYPE_BF16, 1.01171875, 1.015625 }, /* tie: up */
		{ F32, DRM_NPU_DTYPE_BF16, 1.0048828125, 1.0078125 },
		{ F32, DRM_NPU_DTYPE_BF16, 1e39, INFINITY },
		{ DRM_NPU_DTYPE_BF16, F32, -2.5, -2.5 },
		{ DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_I16, 40000, -25536 },
		{ DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_U16, -1, 65535 },
		{ DRM_NPU_DTYPE_I16, DRM_NPU_DTYPE_I32, -300, -300 },
		{ DRM_NPU_DTYPE_U16, DRM_NPU_DTYPE_I64, 65535, 65535 },
		{ DRM_NPU_DTYPE_I64, DRM_NPU_DTYPE_U32, 4294967297.0, 1 },
		{ DRM_NPU_DTYPE_U32, DRM_NPU_DTYPE_I64, 4e9, 4e9 },
		{ DRM_NPU_DTYPE_I64, DRM_NPU_DTYPE_U64, -1, 18446744073709551615.0 },
		{ DRM_NPU_DTYPE_U64, F32, 9223373136366403584.0,
		  (float)9223373136366403584.0 },
		{ F32, DRM_NPU_DTYPE_I16, 40000, 32767 },
		{ F32, DRM_NPU_DTYPE_U16, -5, 0 },
		{ F32, DRM_NPU_DTYPE_U32, 3e9, 3e9 },
		{ DRM_NPU_DTYPE_F64, DRM_NPU_DTYPE_F16, 0.5, 0.5 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cvt *c = &cases[i];
		u8 in[8 * 3], out[8 * 3];
		void *data[2] = { in, out };
		double got;
		int k, ok;

		for (k = 0; k < 3; k++)
			put(c->sdt, in + k * npu_dtype_size(c->sdt), c->in);
		memset(out, 0xcc, sizeof(out));
		tl_task(&T, DRM_NPU_OP_COPY, 2);
		op(0, c->sdt, 1, (const u32[]){ 3 }, NULL);
		op(1, c->ddt, 1, (const u32[]){ 3 }, NULL);
		ok = tl_run(&T, data) == 0;
		got = get(c->ddt, out + 2 * npu_dtype_size(c->ddt));
		ok &= got == c->want;
		tap_ok(ok, "COPY convert %g: dtype %u -> %u gives %g (want %g)",
		       c->in, c->sdt, c->ddt, got, c->want);
	}
}

/* ---- BINARY ---- */

static double bin_ref(u32 kind, double a, double b)
{
	switch (kind) {
	case DRM_NPU_BINARY_ADD: return (float)(a + b);
	case DRM_NPU_BINARY_SUB: return (float)(a - b);
	case DRM_NPU_BINARY_MUL: return (float)(a * b);
	case DRM_NPU_BINARY_DIV: return (float)(a / b);
	case DRM_NPU_BINARY_MAX: return a > b ? a : b;
	case DRM_NPU_BINARY_MIN: return a < b ? a : b;
	case DRM_NPU_BINARY_POW: return pow(a, b);
	case DRM_NPU_BINARY_PRELU: return a >= 0 ? a : (float)(a * b);
	case DRM_NPU_BINARY_EQUAL: return a == b;
	case DRM_NPU_BINARY_LESS: return a < b;
	default: return a > b;
	}
}

static void binary_float(void)
{
	enum { A = 4 * 5, B = 3, N = 4 * 3 * 5 };
	float a[A], b[B], y[N], y2[N];
	u8 yb[N];
	double ref[N];
	u32 kind;

	tl_seed(5);
	for (kind = 0; kind < DRM_NPU_BINARY_COUNT; kind++) {
		int cmp = kind >= DRM_NPU_BINARY_EQUAL, i, j, k, ok;
		void *data[3] = { a, b, cmp ? (void *)yb : (void *)y };
		double err = 0;

		tl_fill(a, A, kind == DRM_NPU_BINARY_POW ? 0.1f : -2, 2);
		tl_fill(b, B, -2, 2);
		a[3] = b[0];	/* exercise equality */
		for (i = 0; i < 4; i++)
			for (j = 0; j < 3; j++)
				for (k = 0; k < 5; k++)
					ref[(i * 3 + j) * 5 + k] =
						bin_ref(kind, a[i * 5 + k], b[j]);
		/* a [4, 1, 5], b [3, 1] -> out [4, 3, 5] */
		tl_task(&T, DRM_NPU_OP_BINARY, 3);
		op(0, F32, 3, (const u32[]){ 4, 1, 5 }, NULL);
		op(1, F32, 2, (const u32[]){ 3, 1 }, NULL);
		op(2, cmp ? DRM_NPU_DTYPE_BOOL : F32, 3,
		   (const u32[]){ 4, 3, 5 }, NULL);
		T.params.binary.kind = kind;
		ok = tl_run(&T, data) == 0;
		for (i = 0; i < N; i++) {
			double g = cmp ? yb[i] : y[i];
			double e = fabs(g - ref[i]) / fmax(fabs(ref[i]), 1e-30);

			if (kind != DRM_NPU_BINARY_POW && g != ref[i])
				ok = 0;
			err = fmax(err, e);
		}
		ok &= err < 1.2e-7;
		if (!cmp) {
			data[2] = y2;
			ok &= tl_run_chunked(&T, data) == 0 && !memcmp(y, y2, sizeof(y));
		}
		tap_ok(ok, "BINARY kind %u f32 with broadcasting (max rel err %.2g)",
		       kind, err);
	}
	/* fused activation and 0-stride broadcasting */
	{
		float x[6] = { -1, 2, -3, 4, -5, 6 }, s = 0.5f, out[6];
		void *data[3] = { x, &s, out };
		int ok, i;

		tl_task(&T, DRM_NPU_OP_BINARY, 3);
		op(0, F32, 2, (const u32[]){ 2, 3 }, NULL);
		op(1, F32, 2, (const u32[]){ 2, 3 }, (const u32[]){ 0, 0 });
		op(2, F32, 2, (const u32[]){ 2, 3 }, NULL);
		T.params.binary.kind = DRM_NPU_BINARY_MUL;
		T.params.binary.act.kind = DRM_NPU_ACT_RELU;
		ok = tl_run(&T, data) == 0;
		for (i = 0; i < 6; i++)
			ok &= out[i] == (x[i] > 0 ? x[i] * 0.5f : 0);
		tap_ok(ok, "BINARY mul by a 0-stride scalar with fused RELU");
	}
	{
		float a2[2] = { NAN, 1 }, b2[2] = { 1, NAN }, out[2];
		void *data[3] = { a2, b2, out };

		tl_task(&T, DRM_NPU_OP_BINARY, 3);
		op(0, F32, 1, (const u32[]){ 2 }, NULL);
		op(1, F32, 1, (const u32[]){ 2 }, NULL);
		op(2, F32, 1, (const u32[]){ 2 }, NULL);
		T.params.binary.kind = DRM_NPU_BINARY_MAX;
		tap_ok(tl_run(&T, data) == 0 && isnan(out[0]) && isnan(out[1]),
		       "BINARY MAX propagates NaN from either side");
	}
}

static void binary_int(void)
{
	int64_t a[6] = { 7, -7, INT64_MIN, 5, 3, -2 };
	int64_t b[6] = { 2, 2, -1, 0, 4, 3 };
	int64_t y[6];
	int32_t a32[3] = { INT32_MAX, -9, 6 }, b32[3] = { 1, 4, -4 }, y32[3];
	u8 ba[4] = { 0, 0, 1, 1 }, bb[4] = { 0, 1, 0, 1 }, by[4];
	void *data[3] = { a, b, y };
	int ok;

	tl_task(&T, DRM_NPU_OP_BINARY, 3);
	op(0, DRM_NPU_DTYPE_I64, 1, (const u32[]){ 6 }, NULL);
	op(1, DRM_NPU_DTYPE_I64, 1, (const u32[]){ 6 }, NULL);
	op(2, DRM_NPU_DTYPE_I64, 1, (const u32[]){ 6 }, NULL);
	T.params.binary.kind = DRM_NPU_BINARY_DIV;
	ok = tl_run(&T, data) == 0 && y[0] == 3 && y[1] == -3 &&
	     y[2] == INT64_MIN && y[3] == 0 && y[4] == 0 && y[5] == 0;
	tap_ok(ok, "I64 DIV truncates, x/0 = 0, INT64_MIN/-1 wraps");
	T.params.binary.kind = DRM_NPU_BINARY_POW;
	ok = tl_run(&T, data) == 0 && y[0] == 49 && y[1] == 49 && y[4] == 81 &&
	     y[5] == -8 && y[3] == 1;
	tap_ok(ok, "I64 POW by squaring");
	data[0] = a32;
	data[1] = b32;
	data[2] = y32;
	tl_task(&T, DRM_NPU_OP_BINARY, 3);
	op(0, DRM_NPU_DTYPE_I32, 1, (const u32[]){ 3 }, NULL);
	op(1, DRM_NPU_DTYPE_I32, 1, (const u32[]){ 3 }, NULL);
	op(2, DRM_NPU_DTYPE_I32, 1, (const u32[]){ 3 }, NULL);
	T.params.binary.kind = DRM_NPU_BINARY_ADD;
	ok = tl_run(&T, data) == 0 && y32[0] == INT32_MIN && y32[1] == -5 &&
	     y32[2] == 2;
	tap_ok(ok, "I32 ADD wraps");
	data[0] = ba;
	data[1] = bb;
	data[2] = by;
	tl_task(&T, DRM_NPU_OP_BINARY, 3);
	op(0, DRM_NPU_DTYPE_BOOL, 1, (const u32[]){ 4 }, NULL);
	op(1, DRM_NPU_DTYPE_BOOL, 1, (const u32[]){ 4 }, NULL);
	op(2, DRM_NPU_DTYPE_BOOL, 1, (const u32[]){ 4 }, NULL);
	T.params.binary.kind = DRM_NPU_BINARY_MIN;
	ok = tl_run(&T, data) == 0 && !by[0] && !by[1] && !by[2] && by[3];
	T.params.binary.kind = DRM_NPU_BINARY_MAX;
	ok &= tl_run(&T, data) == 0 && !by[0] && by[1] && by[2] && by[3];
	tap_ok(ok, "BOOL MIN/MAX are and/or");
}

/* ---- UNARY ---- */

static double act_ref(u32 k, double x, double al, double be)
{
	double t;

	switch (k) {
	case DRM_NPU_ACT_NONE: return x;
	case DRM_NPU_ACT_RELU: return x < 0 ? 0 : x;
	case DRM_NPU_ACT_SIGMOID: return 1 / (1 + exp(-x));
	case DRM_NPU_ACT_TANH: return tanh(x);
	case DRM_NPU_ACT_GELU: return 0.5 * x * erfc(-x / sqrt(2.0));
	case DRM_NPU_ACT_EXP: return exp(x);
	case DRM_NPU_ACT_SQRT: return sqrt(x);
	case DRM_NPU_ACT_CLIP: return fmin(fmax(x, al), be);
	case DRM_NPU_ACT_LEAKY_RELU: return x >= 0 ? x : al * x;
	case DRM_NPU_ACT_HARDSIGMOID:	/* fp32 arithmetic, as PyTorch */
		return fmax(0, fmin(1, (float)((float)(al * x) + (float)be)));
	case DRM_NPU_ACT_HARDSWISH: return x * fmin(fmax(x + 3, 0), 6) / 6;
	case DRM_NPU_ACT_ERF: return erf(x);
	case DRM_NPU_ACT_NEG: return -x;
	case DRM_NPU_ACT_ABS: return fabs(x);
	case DRM_NPU_ACT_LOG: return log(x);
	case DRM_NPU_ACT_RECIPROCAL: return 1 / x;
	case DRM_NPU_ACT_GELU_TANH:
		t = sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);
		return x / (1 + exp(-2 * t));	/* = 0.5 x (1 + tanh t) */
	case DRM_NPU_ACT_SILU: return x / (1 + exp(-x));
	case DRM_NPU_ACT_ELU: return x >= 0 ? x : al * expm1(x);
	case DRM_NPU_ACT_SOFTPLUS: return log1p(exp(x));
	case DRM_NPU_ACT_FLOOR: return floor(x);
	case DRM_NPU_ACT_CEIL: return ceil(x);
	default: return NAN;
	}
}

static void unary(void)
{
	enum { N = 517 };
	float x[N], y[N];
	double ref[N];
	u32 k;
	int i;

	tl_seed(11);
	for (k = 0; k < DRM_NPU_ACT_COUNT; k++) {
		float al = 0, be = 0;
		void *data[2] = { x, y };
		double err;
		int ok;

		if (k == DRM_NPU_ACT_NOT)
			continue;
		tl_fill(x, N, -6, 6);
		x[0] = 0;
		x[1] = -0.0f;
		if (k == DRM_NPU_ACT_SQRT || k == DRM_NPU_ACT_LOG)
			for (i = 0; i < N; i++)
				x[i] = fabsf(x[i]) + 1e-3f;
		if (k == DRM_NPU_ACT_CLIP) {
			al = -1.5f;
			be = 6;
		} else if (k == DRM_NPU_ACT_LEAKY_RELU || k == DRM_NPU_ACT_ELU) {
			al = 0.1f;
		} else if (k == DRM_NPU_ACT_HARDSIGMOID) {
			al = 0.2f;
			be = 0.5f;
		}
		for (i = 0; i < N; i++)
			ref[i] = act_ref(k, x[i], al, be);
		tl_task(&T, DRM_NPU_OP_UNARY, 2);
		op(0, F32, 2, (const u32[]){ 11, 47 }, NULL);
		op(1, F32, 2, (const u32[]){ 11, 47 }, NULL);
		T.params.unary.kind = k;
		T.params.unary.alpha = al != 0 ? tl_f2u(al) : 0;
		T.params.unary.beta = be != 0 ? tl_f2u(be) : 0;
		ok = tl_run(&T, data) == 0;
		err = tl_max_rel(y, ref, N, 1e-30);
		tap_ok(ok && err < 2e-7, "UNARY act %u: max rel err %.2g", k, err);
	}
	{
		u8 b[3] = { 0, 1, 1 }, o[3];
		void *data[2] = { b, o };

		tl_task(&T, DRM_NPU_OP_UNARY, 2);
		op(0, DRM_NPU_DTYPE_BOOL, 1, (const u32[]){ 3 }, NULL);
		op(1, DRM_NPU_DTYPE_BOOL, 1, (const u32[]){ 3 }, NULL);
		T.params.unary.kind = DRM_NPU_ACT_NOT;
		tap_ok(tl_run(&T, data) == 0 && o[0] == 1 && !o[1] && !o[2],
		       "UNARY NOT on BOOL");
	}
	{
		_Float16 h[4] = { 0.5, -1, 2, 3.25 }, o[4];
		void *data[2] = { h, o };
		int ok;

		tl_task(&T, DRM_NPU_OP_UNARY, 2);
		op(0, DRM_NPU_DTYPE_F16, 1, (const u32[]){ 4 }, NULL);
		op(1, DRM_NPU_DTYPE_F16, 1, (const u32[]){ 4 }, NULL);
		T.params.unary.kind = DRM_NPU_ACT_EXP;
		ok = tl_run(&T, data) == 0;
		for (i = 0; i < 4; i++)
			ok &= o[i] == (_Float16)expf((float)h[i]);
		tap_ok(ok, "UNARY EXP on F16 rounds once to half");
	}
}

/* ---- SOFTMAX ---- */

static void softmax(void)
{
	enum { D0 = 3, D1 = 7, D2 = 5, N = D0 * D1 * D2 };
	float x[N], y[N], y2[N];
	double ref[N];
	u32 axis, lg;
	int i, j;

	tl_seed(3);
	tl_fill(x, N, -10, 10);
	x[7] = 1000;		/* must not overflow */
	for (lg = 0; lg < 2; lg++)
	for (axis = 0; axis < 3; axis++) {
		void *data[2] = { x, y };
		u32 sh[3] = { D0, D1, D2 }, st[3] = { D1 * D2, D2, 1 };
		double err;
		int ok;

		for (i = 0; i < N; i++) {
			int c[3] = { i / (D1 * D2), i / D2 % D1, i % D2 };
			double m = -INFINITY, s = 0;

			for (j = 0; j < (int)sh[axis]; j++) {
				int cc[3] = { c[0], c[1], c[2] };

				cc[axis] = j;
				m = fmax(m, x[cc[0] * st[0] + cc[1] * st[1] + cc[2]]);
			}
			for (j = 0; j < (int)sh[axis]; j++) {
				int cc[3] = { c[0], c[1], c[2] };

				cc[axis] = j;
				s += exp(x[cc[0] * st[0] + cc[1] * st[1] + cc[2]] - m);
			}
			ref[i] = lg ? (x[i] - m) - log(s) : exp(x[i] - m) / s;
		}
		tl_task(&T, DRM_NPU_OP_SOFTMAX, 2);
		op(0, F32, 3, sh, NULL);
		op(1, F32, 3, sh, NULL);
		T.params.softmax.axis = axis;
		T.params.softmax.flags = lg ? DRM_NPU_SOFTMAX_LOG : 0;
		ok = tl_run(&T, data) == 0;
		err = tl_max_rel(y, ref, N, 1e-30);
		data[1] = y2;
		ok &= tl_run_chunked(&T, data) == 0 && !memcmp(y, y2, sizeof(y));
		tap_ok(ok && err < 4e-7, "%s axis %u: max rel err %.2g, chunked bits equal",
		       lg ? "LOGSOFTMAX" : "SOFTMAX", axis, err);
	}
}

/* ---- POOL2D ---- */

struct pool_case {
	u32 kind, flags, c, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
	int ceil_mode;
};

static u32 pool_out(u32 in, u32 p0, u32 p1, u32 k, u32 s, u32 d, int ceil_mode)
{
	u32 span = d * (k - 1) + 1, o;

	if (!ceil_mode)
		return (in + p0 + p1 - span) / s + 1;
	o = (in + p0 + p1 - span + s - 1) / s + 1;
	if ((o - 1) * s >= in + p0)
		o--;
	return o;
}

static void pool_one(const struct pool_case *pc)
{
	int global = pc->kind >= DRM_NPU_POOL_GLOBAL_AVG;
	u32 oh = global ? 1 : pool_out(pc->h, pc->pt, pc->pb, pc->kh, pc->sh,
				       pc->dh, pc->ceil_mode);
	u32 ow = global ? 1 : pool_out(pc->w, pc->pl, pc->pr, pc->kw, pc->sw,
				       pc->dw, pc->ceil_mode);
	u32 nx = 2 * pc->c * pc->h * pc->w, ny = 2 * pc->c * oh * ow;
	float *x = malloc(nx * 4), *y = malloc(ny * 4), *y5, *x5;
	double *ref = malloc(ny * 8), err;
	void *data[2] = { x, y };
	u32 n, c, yy, xx, i, j, c1 = (pc->c + 15) / 16;
	int ok;

	tl_fill(x, nx, -3, 3);
	for (n = 0; n < 2; n++)
	for (c = 0; c < pc->c; c++)
	for (yy = 0; yy < oh; yy++)
	for (xx = 0; xx < ow; xx++) {
		double m = -INFINITY, s = 0;
		u32 cnt = 0, cntp = 0;
		u32 kh = global ? pc->h : pc->kh, kw = global ? pc->w : pc->kw;

		for (i = 0; i < kh; i++)
		for (j = 0; j < kw; j++) {
			long iy = global ? (long)i : (long)yy * pc->sh - pc->pt +
						      (long)i * pc->dh;
			long ix = global ? (long)j : (long)xx * pc->sw - pc->pl +
						      (long)j * pc->dw;

			if (iy < (long)(pc->h + pc->pb) && ix < (long)(pc->w + pc->pr))
				cntp++;
			if (iy < 0 || ix < 0 || iy >= pc->h || ix >= pc->w)
				continue;
			cnt++;
			s += x[((n * pc->c + c) * pc->h + iy) * pc->w + ix];
			m = fmax(m, x[((n * pc->c + c) * pc->h + iy) * pc->w + ix]);
		}
		if (pc->flags)
			cnt = cntp;
		ref[((n * pc->c + c) * oh + yy) * ow + xx] =
			(pc->kind == DRM_NPU_POOL_MAX ||
			 pc->kind == DRM_NPU_POOL_GLOBAL_MAX) ? m : s / cnt;
	}
	tl_task(&T, DRM_NPU_OP_POOL2D, 2);
	op(0, F32, 4, (const u32[]){ 2, pc->c, pc->h, pc->w }, NULL);
	op(1, F32, 4, (const u32[]){ 2, pc->c, oh, ow }, NULL);
	T.params.pool2d = (struct drm_npu_pool2d_params){
		pc->kind, pc->flags, pc->kh, pc->kw, pc->sh, pc->sw, pc->dh,
		pc->dw, pc->pt, pc->pl, pc->pb, pc->pr };
	ok = tl_run(&T, data) == 0;
	err = tl_max_rel(y, ref, ny, 1e-3);
	tap_ok(ok && err < 2e-7, "POOL2D kind %u incl_pad %u %ux%u k%ux%u s%u d%u "
	       "pad %u%s: max rel err %.2g", pc->kind, pc->flags, pc->h, pc->w,
	       pc->kh, pc->kw, pc->sh, pc->dh, pc->pt,
	       pc->ceil_mode ? " ceil" : "", err);
	/* NC1HWC0 must agree bit for bit, NaN inputs included */
	x[nx / 3] = NAN;
	x[nx - 1] = NAN;
	x[nx / 2] = -0.0f;
	ok = tl_run(&T, data) == 0;
	x5 = calloc((size_t)2 * c1 * pc->h * pc->w * 16, 4);
	y5 = calloc((size_t)2 * c1 * oh * ow * 16, 4);
	for (n = 0; n < 2; n++)
	for (c = 0; c < pc->c; c++)
	for (i = 0; i < pc->h * pc->w; i++)
		x5[(((size_t)n * c1 + c / 16) * pc->h * pc->w + i) * 16 + c % 16] =
			x[(n * pc->c + c) * pc->h * pc->w + i];
	op(0, F32, 5, (const u32[]){ 2, c1, pc->h, pc->w, 16 }, NULL);
	op(1, F32, 5, (const u32[]){ 2, c1, oh, ow, 16 }, NULL);
	T.operands[0].layout = T.operands[1].layout = DRM_NPU_LAYOUT_NC1HWC0;
	data[0] = x5;
	data[1] = y5;
	/* in chunks, then all units at once (whole 16-plane groups) */
	for (j = 0, ok = 1; j < 2; j++) {
		ok &= (j ? tl_run(&T, data) : tl_run_chunked(&T, data)) == 0;
		for (n = 0; n < 2; n++)
		for (c = 0; c < pc->c; c++)
		for (i = 0; i < oh * ow; i++)
			ok &= !memcmp(&y5[(((size_t)n * c1 + c / 16) * oh * ow +
					   i) * 16 + c % 16],
				      &y[(n * pc->c + c) * oh * ow + i], 4);
	}
	tap_ok(ok, "POOL2D kind %u: NC1HWC0 agrees with NCHW (NaN inputs too)",
	       pc->kind);
	free(x);
	free(y);
	free(x5);
	free(y5);
	free(ref);
}

static void pool_u8(void)
{
	uint8_t x[2 * 4 * 4], y[2 * 2 * 2];
	void *data[2] = { x, y };
	int i, ok;

	for (i = 0; i < 32; i++)
		x[i] = (uint8_t)(i * 37 % 251);
	tl_task(&T, DRM_NPU_OP_POOL2D, 2);
	op(0, DRM_NPU_DTYPE_U8, 4, (const u32[]){ 1, 2, 4, 4 }, NULL);
	op(1, DRM_NPU_DTYPE_U8, 4, (const u32[]){ 1, 2, 2, 2 }, NULL);
	T.params.pool2d = (struct drm_npu_pool2d_params){
		DRM_NPU_POOL_MAX, 0, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0 };
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < 8; i++) {
		int c = i / 4, oy = i / 2 % 2, ox = i % 2, m = 0, a, b;

		for (a = 0; a < 2; a++)
			for (b = 0; b < 2; b++) {
				int v = x[c * 16 + (oy * 2 + a) * 4 + ox * 2 + b];

				m = v > m ? v : m;
			}
		ok &= y[i] == m;
	}
	tap_ok(ok, "POOL2D MAX on U8");
	T.params.pool2d.kind = DRM_NPU_POOL_AVG;
	tap_ok(tl_run(&T, data) == -EINVAL, "POOL2D AVG on U8 is refused");

	/*
	 * Windows with no input element (H = 0: padding only) give the max
	 * identity, the lowest value of the type; found by the fuzzer as
	 * -inf converted to an integer (undefined behaviour).
	 */
	memset(y, 0x55, sizeof(y));
	op(0, DRM_NPU_DTYPE_I8, 4, (const u32[]){ 1, 2, 0, 2 }, NULL);
	op(1, DRM_NPU_DTYPE_I8, 4, (const u32[]){ 1, 2, 1, 2 }, NULL);
	T.params.pool2d = (struct drm_npu_pool2d_params){
		DRM_NPU_POOL_MAX, 0, 2, 1, 1, 1, 1, 1, 1, 0, 1, 0 };
	ok = tl_run(&T, data) == 0;
	for (i = 0; i < 4; i++)
		ok &= (int8_t)y[i] == -128;
	T.operands[0].dtype = T.operands[1].dtype = DRM_NPU_DTYPE_U8;
	memset(y, 0x55, sizeof(y));
	ok &= tl_run(&T, data) == 0;
	for (i = 0; i < 4; i++)
		ok &= y[i] == 0;
	tap_ok(ok, "POOL2D MAX on I8/U8 of an empty input: the type's lowest value");
}

static void pools(void)
{
	static const struct pool_case cases[] = {
		/* kind flags c h w kh kw sh sw dh dw pt pl pb pr ceil */
		{ 0, 0, 3, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0 },
		{ 0, 0, 17, 9, 10, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1 },
		{ 0, 0, 2, 11, 11, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 0 },
		{ 1, 0, 5, 7, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0 },
		{ 1, 1, 5, 7, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0 },
		{ 1, 1, 4, 6, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1 },
		{ 1, 0, 3, 5, 5, 2, 3, 1, 2, 1, 1, 0, 1, 1, 0, 1 },
		{ 2, 0, 20, 7, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 3, 0, 3, 5, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		/* 16-channel blocks side by side (global16()) */
		{ 2, 0, 40, 6, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 3, 0, 33, 3, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	};
	size_t i;

	tl_seed(21);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		pool_one(&cases[i]);
}

/* ---- REDUCE ---- */

static void reduce(void)
{
	enum { D0 = 3, D1 = 4, D2 = 5, N = D0 * D1 * D2 };
	float x[N], y[N];
	double ref[N];
	u32 kind, axes;

	tl_seed(8);
	tl_fill(x, N, 0.5f, 1.5f);
	for (kind = 0; kind < DRM_NPU_REDUCE_COUNT; kind++)
	for (axes = 1; axes < 8; axes += 2 + (kind & 1)) {
		u32 sh[3] = { D0, D1, D2 }, osh[3], o[3];
		void *data[2] = { x, y };
		int ok, i;
		u32 no = 1;
		double err;

		for (i = 0; i < 3; i++) {
			osh[i] = (axes >> i) & 1 ? 1 : sh[i];
			no *= osh[i];
		}
		for (o[0] = 0; o[0] < osh[0]; o[0]++)
		for (o[1] = 0; o[1] < osh[1]; o[1]++)
		for (o[2] = 0; o[2] < osh[2]; o[2]++) {
			double acc = kind == DRM_NPU_REDUCE_PROD ? 1 :
				     kind == DRM_NPU_REDUCE_MAX ? -INFINITY :
				     kind == DRM_NPU_REDUCE_MIN ? INFINITY : 0;
			u32 a, b, c, cnt = 0;

			for (a = 0; a < D0; a++)
			for (b = 0; b < D1; b++)
			for (c = 0; c < D2; c++) {
				double v;

				if ((!(axes & 1) && a != o[0]) ||
				    (!(axes & 2) && b != o[1]) ||
				    (!(axes & 4) && c != o[2]))
					continue;
				v = x[(a * D1 + b) * D2 + c];
				cnt++;
				switch (kind) {
				case DRM_NPU_REDUCE_PROD: acc *= v; break;
				case DRM_NPU_REDUCE_MAX: acc = fmax(acc, v); break;
				case DRM_NPU_REDUCE_MIN: acc = fmin(acc, v); break;
				case DRM_NPU_REDUCE_SUM_SQUARE: acc += v * v; break;
				default: acc += v;
				}
			}
			if (kind == DRM_NPU_REDUCE_MEAN)
				acc /= cnt;
			ref[(o[0] * osh[1] + o[1]) * osh[2] + o[2]] = acc;
		}
		tl_task(&T, DRM_NPU_OP_REDUCE, 2);
		op(0, F32, 3, sh, NULL);
		op(1, F32, 3, osh, NULL);
		T.params.reduce.kind = kind;
		T.params.reduce.axes = axes;
		ok = tl_run(&T, data) == 0;
		err = tl_max_rel(y, ref, no, 1e-30);
		tap_ok(ok && err < 1e-7, "REDUCE kind %u axes 0x%x: max rel err %.2g",
		       kind, axes, err);
	}
	{
		float e[1], r[2] = { 7, 7 };
		void *data[2] = { e, r };
		int ok;

		tl_task(&T, DRM_NPU_OP_REDUCE, 2);
		op(0, F32, 2, (const u32[]){ 2, 0 }, NULL);
		op(1, F32, 2, (const u32[]){ 2, 1 }, NULL);
		T.params.reduce.axes = 2;
		T.params.reduce.kind = DRM_NPU_REDUCE_SUM;
		ok = tl_run(&T, data) == 0 && r[0] == 0 && r[1] == 0;
		T.params.reduce.kind = DRM_NPU_REDUCE_MAX;
		ok &= tl_run(&T, data) == 0 && isinf(r[0]) && r[0] < 0;
		T.params.reduce.kind = DRM_NPU_REDUCE_PROD;
		ok &= tl_run(&T, data) == 0 && r[1] == 1;
		tap_ok(ok, "REDUCE over an empty dim gives the identity");
	}
	{
		int64_t xi[6] = { 1, -2, 3, 40, 5, -6 }, yi[2];
		void *data[2] = { xi, yi };

		tl_task(&T, DRM_NPU_OP_REDUCE, 2);
		op(0, DRM_NPU_DTYPE_I64, 2, (const u32[]){ 2, 3 }, NULL);
		op(1, DRM_NPU_DTYPE_I64, 2, (const u32[]){ 2, 1 }, NULL);
		T.params.reduce.kind = DRM_NPU_REDUCE_MAX;
		T.params.reduce.axes = 2;
		tap_ok(tl_run(&T, data) == 0 && yi[0] == 3 && yi[1] == 40,
		       "REDUCE MAX on I64");
	}
}

/*
 * REDUCE on views: random rank-1..5 shapes with extent-1 dims, permuted
 * strides with gaps, a stride-0 dim, every kind on F32, I32 and I64. The
 * reference walks the input in row-major order, which visits each output
 * element's inputs in the order of the reduced dims (innermost fastest):
 * the kernel's runs and merged dims must give the same bits.
 */
static void red_ref(u32 kind, u32 dt, const void *x, const u32 *sh,
		    const u32 *st, u32 rank, u32 axes, void *y)
{
	u32 c[5] = { 0 }, osh[5], d;
	u64 n = 1, no = 1, e, o, i, cnt[4096] = { 0 };
	double fa[4096];
	u64 ia[4096];

	for (d = 0; d < rank; d++) {
		osh[d] = (axes >> d) & 1 ? 1 : sh[d];
		n *= sh[d];
		no *= osh[d];
	}
	for (o = 0; o < no; o++) {
		fa[o] = kind == DRM_NPU_REDUCE_PROD ? 1 :
			kind == DRM_NPU_REDUCE_MAX ? -INFINITY :
			kind == DRM_NPU_REDUCE_MIN ? INFINITY : 0;
		ia[o] = kind == DRM_NPU_REDUCE_PROD ? 1 :
			kind == DRM_NPU_REDUCE_MAX ? (u64)INT64_MIN :
			kind == DRM_NPU_REDUCE_MIN ? (u64)INT64_MAX : 0;
		if (dt == DRM_NPU_DTYPE_I32 && kind == DRM_NPU_REDUCE_MAX)
			ia[o] = (u64)(s64)INT32_MIN;
		if (dt == DRM_NPU_DTYPE_I32 && kind == DRM_NPU_REDUCE_MIN)
			ia[o] = (u64)(s64)INT32_MAX;
	}
	for (e = 0; e < n; e++) {
		u64 off = 0, rest = e;
		double v;
		s64 iv;

		for (d = rank; d-- > 0;) {
			c[d] = rest % sh[d];
			rest /= sh[d];
		}
		for (d = 0, o = 0; d < rank; d++) {
			off += (u64)c[d] * st[d];
			o = o * osh[d] + ((axes >> d) & 1 ? 0 : c[d]);
		}
		cnt[o]++;
		v = dt == F32 ? ((const float *)x)[off] : 0;
		iv = dt == DRM_NPU_DTYPE_I32 ? ((const int32_t *)x)[off] :
		     dt == DRM_NPU_DTYPE_I64 ? ((const int64_t *)x)[off] : 0;
		switch (kind) {
		case DRM_NPU_REDUCE_PROD:
			fa[o] *= v;
			ia[o] *= (u64)iv;
			break;
		case DRM_NPU_REDUCE_MAX:	/* the first NaN stays */
			if (!isnan(fa[o]) && (v > fa[o] || isnan(v)))
				fa[o] = v;
			if (iv > (s64)ia[o])
				ia[o] = (u64)iv;
			break;
		case DRM_NPU_REDUCE_MIN:
			if (!isnan(fa[o]) && (v < fa[o] || isnan(v)))
				fa[o] = v;
			if (iv < (s64)ia[o])
				ia[o] = (u64)iv;
			break;
		case DRM_NPU_REDUCE_SUM_SQUARE:
			fa[o] += v * v;
			ia[o] += (u64)iv * (u64)iv;
			break;
		default:
			fa[o] += v;
			ia[o] += (u64)iv;
		}
	}
	for (o = 0; o < no; o++) {
		if (kind == DRM_NPU_REDUCE_MEAN) {
			fa[o] /= (double)cnt[o];
			ia[o] = (u64)((s64)ia[o] / (s64)cnt[o]);
		}
		if (dt == F32)
			((float *)y)[o] = (float)fa[o];
		else if (dt == DRM_NPU_DTYPE_I32)
			((int32_t *)y)[o] = (int32_t)(uint32_t)ia[o];
		else
			((int64_t *)y)[o] = (int64_t)ia[o];
	}
	(void)i;
}

static void reduce_views(void)
{
	static const u32 dts[3] = { F32, DRM_NPU_DTYPE_I32, DRM_NPU_DTYPE_I64 };
	static int64_t xbuf[8192];
	int64_t ybuf[4096], rbuf[4096];
	u32 trial, bad = 0, runs = 0;

	tl_seed(41);
	for (trial = 0; trial < 3000; trial++) {
		u32 rank = 1 + tl_rand() % 5, sh[5], st[5], perm[5], d, k;
		u32 dt = dts[trial % 3], kind = trial / 3 % DRM_NPU_REDUCE_COUNT;
		u32 axes = 1 + tl_rand() % ((1u << rank) - 1);
		u32 osh[5];
		u64 span = 1, maxoff = 0, no = 1, e;
		void *data[2] = { xbuf, ybuf };

		for (d = 0; d < rank; d++) {
			sh[d] = tl_rand() % 5 ? 2 + tl_rand() % 3 : 1;
			perm[d] = d;
		}
		for (d = rank; d-- > 1;) {	/* a random dim order */
			k = tl_rand() % (d + 1);
			e = perm[d];
			perm[d] = perm[k];
			perm[k] = (u32)e;
		}
		for (d = rank; d-- > 0;) {	/* perm[rank-1] innermost */
			st[perm[d]] = (u32)span;
			span *= sh[perm[d]] + (tl_rand() % 4 == 0);
		}
		if (tl_rand() % 4 == 0)
			st[tl_rand() % rank] = 0;
		for (d = 0; d < rank; d++) {
			maxoff += (u64)(sh[d] - 1) * st[d];
			osh[d] = (axes >> d) & 1 ? 1 : sh[d];
			no *= osh[d];
		}
		for (e = 0; e <= maxoff; e++) {
			if (dt == F32)
				/* +-2^60 among values near 1: whether a
				 * 1 is lost depends on the sums' order */
				((float *)xbuf)[e] = tl_rand() % 61 == 0 ? NAN :
					tl_rand() % 3 == 0 ?
					ldexpf(tl_rand() % 2 ? 1 : -1, 60) :
					tl_uniform(-2, 2);
			else if (dt == DRM_NPU_DTYPE_I32)
				((int32_t *)xbuf)[e] = (int32_t)tl_rand();
			else
				xbuf[e] = (int64_t)tl_rand();
		}
		tl_task(&T, DRM_NPU_OP_REDUCE, 2);
		op(0, dt, rank, sh, st);
		op(1, dt, rank, osh, NULL);
		T.params.reduce.kind = kind;
		T.params.reduce.axes = axes;
		red_ref(kind, dt, xbuf, sh, st, rank, axes, rbuf);
		runs++;
		if (tl_run_chunked(&T, data) != 0 ||
		    memcmp(ybuf, rbuf, no * npu_dtype_size(dt))) {
			if (!bad++)
				tap_diag("REDUCE view: trial %u kind %u dtype %u rank %u axes 0x%x differs",
					 trial, kind, dt, rank, axes);
		}
	}
	tap_ok(!bad, "REDUCE on %u random views (extent-1, permuted, gapped, stride-0 dims; every kind; F32/I32/I64): the bits of a row-major walk (%u differ)",
	       runs, bad);
}

int main(void)
{
	copy_views();
	copy_convert();
	binary_float();
	binary_int();
	unary();
	softmax();
	pools();
	pool_u8();
	reduce();
	reduce_views();
	return tap_done();
}
