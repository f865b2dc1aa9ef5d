// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ops_hostile_test.c - the op kernels against crafted descriptors.
 *
 * Every case here is a task an unprivileged user could submit: dims near
 * 2^32, products past 2^40 or 2^64, zero strides, a size-1 dim whose
 * stride the extent never counts. Each operand's bytes are placed at the
 * end of a page followed by an inaccessible guard page, so a kernel that
 * strays past the extent the validator computed faults here (and fails
 * the test) instead of reading a neighbour. An alarm turns a kernel loop
 * that never ends into a failure.
 *
 * Regression tests of issue 11's attacks: 32-bit plane and channel counts
 * of NC1HWC0 operands (POOL2D, TRANSDATA, CONV2D, BATCHNORM), MATMUL's
 * column loop with N near 2^32, CONV2D's output-width loop, and the
 * element-count check itself overflowing 64 bits; MATMUL_WQ's packed I4
 * weights (rows on odd nibbles, extents ending mid-byte) and N near 2^32.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ops_testlib.h"

#define F32	DRM_NPU_DTYPE_F32
#define NC1	DRM_NPU_LAYOUT_NC1HWC0

static struct drm_npu_task T;

/* @bytes at the end of a read-write mapping, a PROT_NONE page after it. */
static void *guarded(size_t bytes)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t span = (bytes + pg - 1) / pg * pg;
	u8 *p = mmap(NULL, span + pg, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p + span, pg, PROT_NONE);
	memset(p, 0, span);
	return p + span - bytes;
}

/* An operand with explicit (possibly zero) strides. */
static void opnd(u32 i, u32 dt, u32 layout, u32 rank, const u32 *shape,
		 const u32 *strides)
{
	tl_opnd(&T.operands[i], (u16)i, dt, rank, shape, strides);
	T.operands[i].layout = (u8)layout;
}

static int check(void)
{
	u32 bad;

	return npu_op_check(&T, &bad);
}

/* Run units [b, e) of the current task on @data; 0 or the fault. */
static int run_units(void **data, u64 b, u64 e)
{
	struct npu_op_args a;
	u32 i;

	memset(&a, 0, sizeof(a));
	a.task = &T;
	for (i = 0; i < T.num_operands; i++)
		a.data[i] = data[i];
	alarm(20);
	i = (u32)npu_op_run(&a, b, e);
	alarm(0);
	return (int)i;
}

static const u32 z5[5];

/*
 * POOL2D over an NC1HWC0 tensor of C1 * C0 = 2^32 planes: the plane count
 * wrapped to 0 in 32 bits (a divide error in the kernel home).
 */
static void pool_planes_2_32(void)
{
	u32 shape[5] = { 1, 1u << 28, 1, 1, 16 };
	void *data[2] = { guarded(4), guarded(4) };

	tl_task(&T, DRM_NPU_OP_POOL2D, 2);
	opnd(0, F32, NC1, 5, shape, z5);
	opnd(1, F32, NC1, 5, shape, z5);
	T.params.pool2d.kind = DRM_NPU_POOL_GLOBAL_MAX;
	tap_ok(check() == 0 && npu_op_work_units(&T) == 1ull << 32,
	       "POOL2D with 2^32 NC1HWC0 planes: accepted, 2^32 units");
	tap_ok(run_units(data, 0, 4096) == 0 &&
	       run_units(data, (1ull << 32) - 4096, 1ull << 32) == 0,
	       "POOL2D with 2^32 planes: first and last units stay in bounds");
}

/*
 * C1 = 2^28 + 1: the 32-bit plane count wrapped to 16, so unit 16 took
 * image n = 1 of a batch of one, through a batch stride that the extent
 * never counted (N == 1): a write far past the output buffer.
 */
static void pool_hidden_batch_stride(void)
{
	u32 shape[5] = { 1, (1u << 28) + 1, 1, 1, 16 };
	u32 st[5] = { 1u << 30, 0, 0, 0, 0 };
	void *data[2] = { guarded(4), guarded(4) };

	tl_task(&T, DRM_NPU_OP_POOL2D, 2);
	opnd(0, F32, NC1, 5, shape, st);
	opnd(1, F32, NC1, 5, shape, st);
	T.params.pool2d.kind = DRM_NPU_POOL_GLOBAL_AVG;
	tap_ok(check() == 0, "POOL2D, N = 1 with a huge batch stride: accepted");
	tap_ok(run_units(data, 0, 64) == 0,
	       "POOL2D never indexes image 1 of a batch of 1");
}

/*
 * Global pooling over H = 2^31 rows of W = 0: the plane is empty, but the
 * loop walked its rows, and the unit cost counted H x W = 0 (found by the
 * fuzzer: a job ran seconds past its budget).
 */
static void pool_empty_rows(void)
{
	u32 in[4] = { 1, 1, 1u << 31, 0 }, out[4] = { 1, 1, 1, 1 };
	u32 st4[4] = { 0, 0, 0, 0 };
	void *data[2] = { guarded(4), guarded(4) };

	tl_task(&T, DRM_NPU_OP_POOL2D, 2);
	opnd(0, F32, DRM_NPU_LAYOUT_NCHW, 4, in, st4);
	opnd(1, F32, DRM_NPU_LAYOUT_NCHW, 4, out, st4);
	T.params.pool2d.kind = DRM_NPU_POOL_GLOBAL_AVG;
	tap_ok(check() == 0 && npu_op_unit_cost(&T) == 1,
	       "global POOL2D over 2^31 empty rows: accepted, one operation");
	tap_ok(run_units(data, 0, 1) == 0 && *(float *)data[1] == 0.0f,
	       "... and an empty plane averages to 0 at once");
}

/* C = 2^32 - 15 channels: ceil(C / 16) wrapped to C1 = 0 in 32 bits. */
static void transdata_c1_wrap(void)
{
	u32 nchw[4] = { 1, 0xfffffff1u, 1, 1 }, nc1[5] = { 1, 0, 1, 1, 16 };
	u32 st4[4] = { 0, 0, 0, 0 };

	tl_task(&T, DRM_NPU_OP_TRANSDATA, 2);
	opnd(0, F32, NC1, 5, nc1, z5);
	opnd(1, F32, DRM_NPU_LAYOUT_NCHW, 4, nchw, st4);
	tap_ok(check() == -EINVAL,
	       "TRANSDATA NC1HWC0 -> NCHW with C = 2^32 - 15, C1 = 0: refused");
	nc1[1] = 1u << 28;
	opnd(0, F32, NC1, 5, nc1, z5);
	tap_ok(check() == 0, "... and accepted with C1 = 2^28 = ceil(C / 16)");
}

/* A CONV2D of 3 operands, groups, strides and dilations 1. */
static void conv_task(void)
{
	tl_task(&T, DRM_NPU_OP_CONV2D, 3);
	T.params.conv2d.groups = 1;
	T.params.conv2d.stride_h = T.params.conv2d.stride_w = 1;
	T.params.conv2d.dilation_h = T.params.conv2d.dilation_w = 1;
}

static void conv_c1_wrap(void)
{
	u32 in[5] = { 1, 0, 1, 1, 16 }, w[4] = { 1, 0xfffffff1u, 1, 1 };
	u32 out[4] = { 1, 1, 1, 1 }, st4[4] = { 0, 0, 0, 0 };

	conv_task();
	opnd(0, F32, NC1, 5, in, z5);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 4, w, st4);
	opnd(2, F32, DRM_NPU_LAYOUT_NCHW, 4, out, st4);
	tap_ok(check() == -EINVAL,
	       "CONV2D, NC1HWC0 input with C1 = 0 for 2^32 - 15 channels: refused");
}

static void batchnorm_c1_wrap(void)
{
	u32 in[5] = { 1, 0, 1, 1, 16 }, c[1] = { 0xfffffff1u }, st1[1] = { 0 };
	u32 i;

	tl_task(&T, DRM_NPU_OP_BATCHNORM, 6);
	opnd(0, F32, NC1, 5, in, z5);
	for (i = 1; i <= 4; i++)
		opnd(i, F32, DRM_NPU_LAYOUT_ND, 1, c, st1);
	opnd(5, F32, NC1, 5, in, z5);
	tap_ok(check() == -EINVAL,
	       "BATCHNORM, NC1HWC0 with C1 = 0 for 2^32 - 15 channels: refused");
}

/*
 * MATMUL with N = 2^32 - 7 columns (stride 0): the u32 column loop
 * stepping by 8 wrapped and never ended.
 */
static void matmul_n_near_2_32(void)
{
	u32 a[2] = { 1, 1 }, b[2] = { 1, 0xfffffff9u }, o[2] = { 1, 0xfffffff9u };
	u32 st2[2] = { 0, 0 };
	void *data[3] = { guarded(4), guarded(4), guarded(4) };
	u64 units;

	tl_task(&T, DRM_NPU_OP_MATMUL, 3);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 2, a, st2);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 2, b, st2);
	opnd(2, F32, DRM_NPU_LAYOUT_ND, 2, o, st2);
	T.params.matmul.alpha = tl_f2u(1.0f);
	units = npu_op_work_units(&T);
	tap_ok(check() == 0 && units > 1 &&
	       npu_op_unit_cost(&T) <= (1ull << 27),
	       "MATMUL N = 2^32 - 7: accepted, split into %llu column units",
	       (unsigned long long)units);
	tap_ok(run_units(data, 0, 1) == 0 &&
	       run_units(data, units - 1, units) == 0,
	       "MATMUL N = 2^32 - 7: the first and last units end");
}

/*
 * MATMUL_WQ with every operand ending at a guard page: packed I4 weights
 * whose rows start on odd nibbles and end mid-byte, F16 activations, and
 * N near 2^32 through zero strides (a u32 column loop would wrap).
 */
static void matmul_wq_edges(void)
{
	static const u32 ks[3] = { 3, 7, 33 }, ns[3] = { 5, 4, 31 };
	static const u32 wst[3] = { 5, 5, 33 };
	u32 i, bad = 0;

	for (i = 0; i < 3; i++) {
		u32 a[2] = { 3, ks[i] }, w[2] = { ks[i], ns[i] };
		u32 wstr[2] = { wst[i], 1 }, s[2] = { 1, ns[i] };
		u32 o[2] = { 3, ns[i] };
		struct drm_npu_operand wo;
		u64 wend;
		void *data[4];

		tl_task(&T, DRM_NPU_OP_MATMUL_WQ, 4);
		opnd(0, DRM_NPU_DTYPE_F16, DRM_NPU_LAYOUT_ND, 2, a, NULL);
		opnd(1, DRM_NPU_DTYPE_I4, DRM_NPU_LAYOUT_ND, 2, w, wstr);
		opnd(2, F32, DRM_NPU_LAYOUT_ND, 2, s, NULL);
		opnd(3, DRM_NPU_DTYPE_F16, DRM_NPU_LAYOUT_ND, 2, o, NULL);
		T.params.matmul_wq.group_size = 64;
		wo = T.operands[1];
		if (check() || npu_operand_end(&wo, &wend)) {
			bad++;
			continue;
		}
		data[0] = guarded(2 * 3 * ks[i]);
		data[1] = guarded(wend);
		data[2] = guarded(4 * ns[i]);
		data[3] = guarded(2 * 3 * ns[i]);
		if (run_units(data, 0, npu_op_work_units(&T)))
			bad++;
	}
	tap_ok(!bad, "MATMUL_WQ I4 rows on odd nibbles, F16, guard pages: "
	       "no access past the extents");
	{
		u32 a[2] = { 1, 2 }, w[2] = { 2, 0xfffffff9u }, z[2] = { 0, 0 };
		u32 s[2] = { 1, 0xfffffff9u }, o[2] = { 1, 0xfffffff9u };
		void *data[4] = { guarded(8), guarded(1), guarded(4),
				  guarded(4) };
		u64 units;

		tl_task(&T, DRM_NPU_OP_MATMUL_WQ, 4);
		opnd(0, F32, DRM_NPU_LAYOUT_ND, 2, a, NULL);
		opnd(1, DRM_NPU_DTYPE_I4, DRM_NPU_LAYOUT_ND, 2, w, z);
		opnd(2, F32, DRM_NPU_LAYOUT_ND, 2, s, z);
		opnd(3, F32, DRM_NPU_LAYOUT_ND, 2, o, z);
		T.params.matmul_wq.group_size = 2;
		units = npu_op_work_units(&T);
		tap_ok(check() == 0 && units > 1 &&
		       run_units(data, 0, 1) == 0 &&
		       run_units(data, units - 1, units) == 0,
		       "MATMUL_WQ N = 2^32 - 7 (zero strides): %llu column "
		       "units, the first and last end",
		       (unsigned long long)units);
	}
}

/* CONV2D whose output row is 2^32 - 2 wide: one unit would never end. */
static void conv_wide_row(void)
{
	u32 in[4] = { 1, 1, 1, 0xffffffffu }, w[4] = { 1, 1, 1, 2 };
	u32 out[4] = { 1, 1, 1, 0xfffffffeu }, st4[4] = { 0, 0, 0, 0 };

	conv_task();
	opnd(0, F32, DRM_NPU_LAYOUT_NCHW, 4, in, st4);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 4, w, NULL);
	opnd(2, F32, DRM_NPU_LAYOUT_NCHW, 4, out, st4);
	tap_ok(check() == -EINVAL,
	       "CONV2D with a 2^32 - 2 pixel output row: refused (unit cost)");
}

/* A long row is cut into segments: each unit has a bounded cost. */
static void copy_2_40(void)
{
	u32 shape[2] = { 256, 0xffffffffu }, st2[2] = { 0, 0 };
	void *data[2] = { guarded(4), guarded(4) };
	u64 units;

	tl_task(&T, DRM_NPU_OP_COPY, 2);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 2, shape, st2);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 2, shape, st2);
	units = npu_op_work_units(&T);
	tap_ok(check() == 0 && units == 256ull * 65536 &&
	       npu_op_unit_cost(&T) <= (1ull << 27),
	       "COPY of ~2^40 elements: %llu units of at most 2^16 elements",
	       (unsigned long long)units);
	tap_ok(run_units(data, units - 3, units) == 0,
	       "COPY of ~2^40 elements: the last segments stay in bounds");
}

/* The element-count bound itself must not wrap in 64 bits. */
static void count_overflow(void)
{
	u32 wrap[4] = { 1u << 20, 1u << 20, 1u << 24, 2 };
	u32 hidden[4] = { 0, 0xffffffffu, 0xffffffffu, 0xffffffffu };
	u32 st4[4] = { 0, 0, 0, 0 };

	tl_task(&T, DRM_NPU_OP_COPY, 2);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 4, wrap, st4);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 4, wrap, st4);
	tap_ok(check() == -EINVAL,
	       "an operand of 2^65 elements (2^64 wraps to 0): refused");
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 4, hidden, st4);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 4, hidden, st4);
	tap_ok(check() == -EINVAL,
	       "a zero dim hiding a 2^96 product of the others: refused");
}

/*
 * ATTENTION with Sk = 0 keys but an output row of 2^30 values: the unit
 * still clears and scales its whole row (a fuzz finding: counted as free).
 */
static void attention_empty_keys(void)
{
	u32 q[2] = { 4, 16 }, k[2] = { 0, 16 }, v[2] = { 0, 1u << 30 };
	u32 o[2] = { 4, 1u << 30 }, st2[2] = { 0, 0 };

	tl_task(&T, DRM_NPU_OP_ATTENTION, 4);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 2, q, st2);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 2, k, st2);
	opnd(2, F32, DRM_NPU_LAYOUT_ND, 2, v, st2);
	opnd(3, F32, DRM_NPU_LAYOUT_ND, 2, o, st2);
	T.params.attention.scale = tl_f2u(0.25f);
	tap_ok(check() == -EINVAL,
	       "ATTENTION with no keys and a 2^30-value output row: refused");
}

/* Softmax, LayerNorm, Reduce: a unit that cannot be split is capped. */
static void unsplittable_units(void)
{
	u32 row[2] = { 1, 1u << 30 }, st2[2] = { 0, 0 }, one[2] = { 1, 1 };

	tl_task(&T, DRM_NPU_OP_SOFTMAX, 2);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 2, row, st2);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 2, row, st2);
	T.params.softmax.axis = 1;
	tap_ok(check() == -EINVAL, "SOFTMAX over 2^30 elements: refused");
	tl_task(&T, DRM_NPU_OP_REDUCE, 2);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 2, row, st2);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 2, one, st2);
	T.params.reduce.axes = 2;
	tap_ok(check() == -EINVAL, "REDUCE of 2^30 elements into one: refused");
	row[1] = 1u << 20;
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 2, row, st2);
	tap_ok(check() == 0, "REDUCE of 2^20 elements into one: accepted");
}

/* QCONV2D/QMATMUL (int8, uapi 1.2): the same attacks on the new opcodes. */
static void qconv_task(u32 nops)
{
	tl_task(&T, DRM_NPU_OP_QCONV2D, nops);
	T.params.qconv2d.groups = 1;
	T.params.qconv2d.stride_h = T.params.qconv2d.stride_w = 1;
	T.params.qconv2d.dilation_h = T.params.qconv2d.dilation_w = 1;
	T.params.qconv2d.q.scale = tl_f2u(0.01f);
	T.params.qconv2d.q.y_min = -128;
	T.params.qconv2d.q.y_max = 127;
}

static void qconv_hostile(void)
{
	u32 in[5] = { 1, 0, 1, 1, 32 }, w[4] = { 1, 0xffffffe1u, 1, 1 };
	u32 out[4] = { 1, 1, 1, 1 }, st4[4] = { 0, 0, 0, 0 };
	u32 in2[4] = { 1, 1, 1, 0xffffffffu }, w2[4] = { 1, 1, 1, 2 };
	u32 out2[4] = { 1, 1, 1, 0xfffffffeu };
	u32 pin[5] = { 1, 2, 3, 3, 32 }, pw[5] = { 3, 2, 3, 3, 32 };
	u32 pout[5] = { 1, 1, 3, 3, 32 };
	void *data[3];

	qconv_task(3);
	opnd(0, DRM_NPU_DTYPE_I8, NC1, 5, in, z5);
	opnd(1, DRM_NPU_DTYPE_I8, DRM_NPU_LAYOUT_ND, 4, w, st4);
	opnd(2, DRM_NPU_DTYPE_I8, DRM_NPU_LAYOUT_NCHW, 4, out, st4);
	tap_ok(check() == -EINVAL,
	       "QCONV2D, NC1HWC0 input with C1 = 0 for 2^32 - 31 channels: refused");
	qconv_task(3);
	opnd(0, DRM_NPU_DTYPE_U8, DRM_NPU_LAYOUT_NCHW, 4, in2, st4);
	opnd(1, DRM_NPU_DTYPE_I8, DRM_NPU_LAYOUT_ND, 4, w2, NULL);
	opnd(2, DRM_NPU_DTYPE_U8, DRM_NPU_LAYOUT_NCHW, 4, out2, st4);
	tap_ok(check() == -EINVAL,
	       "QCONV2D with a 2^32 - 2 pixel output row: refused (unit cost)");
	/* packed form, every operand at the end of its page */
	qconv_task(3);
	T.params.qconv2d.pad_top = T.params.qconv2d.pad_left = 1;
	T.params.qconv2d.pad_bottom = T.params.qconv2d.pad_right = 1;
	opnd(0, DRM_NPU_DTYPE_I8, NC1, 5, pin, NULL);
	opnd(1, DRM_NPU_DTYPE_I8, NC1, 5, pw, NULL);
	opnd(2, DRM_NPU_DTYPE_I8, NC1, 5, pout, NULL);
	data[0] = guarded(2 * 9 * 32);
	data[1] = guarded(3 * 2 * 9 * 32);
	data[2] = guarded(9 * 32);
	tap_ok(check() == 0 && run_units(data, 0, npu_op_work_units(&T)) == 0,
	       "QCONV2D packed 3x3 on page-end buffers: no access past the extents");
}

static void qmatmul_hostile(void)
{
	u32 a[2] = { 1, 2 }, b[2] = { 0x8000000u, 2 }, o[2] = { 1, 0x8000000u };
	u32 a3[3] = { 1, 3, 33 }, b3[2] = { 5, 33 }, o3[3] = { 1, 3, 5 };
	u32 st2[2] = { 0, 0 };
	void *data[3];

	tl_task(&T, DRM_NPU_OP_QMATMUL, 3);
	T.params.qmatmul.flags = DRM_NPU_Q_TRANS_B;
	T.params.qmatmul.q.scale = tl_f2u(0.01f);
	T.params.qmatmul.q.y_min = -128;
	T.params.qmatmul.q.y_max = 127;
	opnd(0, DRM_NPU_DTYPE_I8, DRM_NPU_LAYOUT_ND, 2, a, st2);
	opnd(1, DRM_NPU_DTYPE_I8, DRM_NPU_LAYOUT_ND, 2, b, st2);
	opnd(2, DRM_NPU_DTYPE_I8, DRM_NPU_LAYOUT_ND, 2, o, st2);
	tap_ok(check() == -EINVAL,
	       "QMATMUL with a 2^27-column row: refused (unit cost)");
	opnd(0, DRM_NPU_DTYPE_I8, DRM_NPU_LAYOUT_ND, 3, a3, NULL);
	opnd(1, DRM_NPU_DTYPE_I8, DRM_NPU_LAYOUT_ND, 2, b3, NULL);
	opnd(2, DRM_NPU_DTYPE_I8, DRM_NPU_LAYOUT_ND, 3, o3, NULL);
	data[0] = guarded(3 * 33);
	data[1] = guarded(5 * 33);
	data[2] = guarded(15);
	tap_ok(check() == 0 && run_units(data, 0, npu_op_work_units(&T)) == 0,
	       "QMATMUL K = 33 on page-end buffers: the tail loads stay inside");
}

/*
 * Images (issue 19). NV12 with H = 65536 rows of zero stride: ceil(H / 2)
 * computed in 64 bits, the last rows' chroma row H / 2 - 1 < the UV
 * shape; an image dim past the media unit's limit is refused, so a
 * resize tap (2 d + 1) * in cannot overflow; a border that would make
 * the output 2^32 wide cannot match a u32 shape.
 */
static void media_limits(void)
{
	u32 y[3] = { 1, 1u << 16, 1 }, uv[4] = { 1, 1u << 15, 1, 2 };
	u32 o[4] = { 1, 1u << 16, 1, 3 }, z3[3] = { 0 }, z4[4] = { 0 };
	u32 big[4] = { 1, (1u << 16) + 1, 1, 3 }, img[4] = { 1, 1, 1, 3 };
	u32 wide[4] = { 1, 1, 1u << 16, 4 }, ao[4] = { 1, 3, 1, 0 };
	u32 px4[4] = { 1, 1, 1, 4 };
	void *data[3] = { guarded(1), guarded(2), guarded(3) };

	tl_task(&T, DRM_NPU_OP_IMG_CSC, 3);
	T.params.img_csc.in_format = DRM_NPU_IMG_NV12;
	T.params.img_csc.out_format = DRM_NPU_IMG_RGB888;
	opnd(0, DRM_NPU_DTYPE_U8, 0, 3, y, z3);
	opnd(1, DRM_NPU_DTYPE_U8, 0, 4, uv, z4);
	opnd(2, DRM_NPU_DTYPE_U8, 0, 4, o, z4);
	tap_ok(check() == 0 && npu_op_work_units(&T) == 1u << 16,
	       "IMG_CSC NV12 of 65536 zero-stride rows: accepted");
	tap_ok(run_units(data, (1u << 16) - 64, 1u << 16) == 0,
	       "... the last rows' chroma stays inside the UV plane");

	tl_task(&T, DRM_NPU_OP_IMG_RESIZE, 2);
	T.params.img_resize.mode = DRM_NPU_IMG_BILINEAR;
	opnd(0, DRM_NPU_DTYPE_U8, 0, 4, big, z4);
	opnd(1, DRM_NPU_DTYPE_U8, 0, 4, img, z4);
	tap_ok(check() != 0, "IMG_RESIZE from 65537 rows: refused (media limit)");
	opnd(0, DRM_NPU_DTYPE_U8, 0, 4, px4, z4);
	opnd(1, DRM_NPU_DTYPE_U8, 0, 4, wide, z4);
	tap_ok(check() == 0 && npu_op_unit_cost(&T) <= 1ull << 27,
	       "IMG_RESIZE to a 65536-wide row: a unit within the cost cap");
	tap_ok(run_units(data, 0, 1) == 0,
	       "... 1x1 -> 1x65536 bilinear taps stay at pixel 0");

	tl_task(&T, DRM_NPU_OP_AIPP, 2);
	T.params.aipp.in_format = DRM_NPU_IMG_RGB888;
	T.params.aipp.pad_right = 0xffffffffu;
	opnd(0, DRM_NPU_DTYPE_U8, 0, 4, img, z4);
	opnd(1, F32, DRM_NPU_LAYOUT_NCHW, 4, ao, z4);
	tap_ok(check() != 0,
	       "AIPP whose border makes the output 2^32 wide: refused");
}

/*
 * RNN (issue 18): a unit is a batch row over all T steps, so its cost
 * grows with T * G*H*H and must be capped; G*H compared in 64 bits (a
 * 32-bit product wraps 4 * 2^30 to 0); a batch of 2^32 - 1 rows over
 * zero strides runs its first and last rows inside the guarded extents.
 */
static void rnn_hostile(void)
{
	u32 xs[3] = { 1u << 30, 4, 64 }, rs[2] = { 64, 16 }, hs[2] = { 4, 16 };
	u32 ss[4] = { 1u << 30, 4, 2, 16 }, z4[4] = { 0 };
	u32 b = 0xffffffffu, gx[3] = { 2, b, 9 }, gxs[3] = { 0, 0, 1 };
	u32 gr[2] = { 9, 3 }, grs[2] = { 3, 1 }, gh[2] = { b, 3 };
	u32 ghs[2] = { 0, 1 }, gb[1] = { 3 }, gbs[1] = { 1 };
	u32 gs[4] = { 2, b, 2, 3 }, gss[4] = { 6, 0, 3, 1 };
	void *data[5] = { guarded(9 * 4), guarded(27 * 4), guarded(3 * 4),
			  guarded(3 * 4), guarded(12 * 4) };
	u32 bad;

	tl_task(&T, DRM_NPU_OP_RNN, 5);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 3, xs, z4);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 2, rs, z4);
	opnd(2, F32, DRM_NPU_LAYOUT_ND, 2, hs, z4);
	opnd(3, F32, DRM_NPU_LAYOUT_ND, 2, hs, z4);
	opnd(4, F32, DRM_NPU_LAYOUT_ND, 4, ss, z4);
	T.params.rnn.cell = DRM_NPU_RNN_LSTM;
	tap_ok(check() == -EINVAL,
	       "RNN LSTM over 2^30 steps in one unit: refused (unit cost)");
	xs[0] = ss[0] = 4;
	xs[2] = 0;			/* 4 * 2^30 wrapped to 32 bits */
	rs[0] = 0;
	hs[1] = ss[3] = rs[1] = 1u << 30;
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 3, xs, z4);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 2, rs, z4);
	opnd(2, F32, DRM_NPU_LAYOUT_ND, 2, hs, z4);
	opnd(3, F32, DRM_NPU_LAYOUT_ND, 2, hs, z4);
	opnd(4, F32, DRM_NPU_LAYOUT_ND, 4, ss, z4);
	tap_ok(npu_op_check(&T, &bad) == -EINVAL && bad == 0,
	       "RNN LSTM with G*H = 2^32 given as 0: xg refused (64-bit G*H)");

	tl_task(&T, DRM_NPU_OP_RNN, 5);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 3, gx, gxs);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 2, gr, grs);
	opnd(2, F32, DRM_NPU_LAYOUT_ND, 2, gh, ghs);
	opnd(3, F32, DRM_NPU_LAYOUT_ND, 1, gb, gbs);
	opnd(4, F32, DRM_NPU_LAYOUT_ND, 4, gs, gss);
	T.params.rnn.cell = DRM_NPU_RNN_GRU;
	T.params.rnn.clip = tl_f2u(2.0f);
	tap_ok(check() == 0 && npu_op_work_units(&T) == b,
	       "RNN GRU over 2^32 - 1 zero-stride rows: accepted, one unit each");
	tap_ok(run_units(data, 0, 64) == 0 && run_units(data, b - 64, b) == 0,
	       "RNN GRU: first and last rows stay in the guarded extents");
	T.params.rnn.flags = DRM_NPU_RNN_PEEPHOLE;
	tap_ok(check() == -EINVAL, "RNN GRU with PEEPHOLE: refused");
	T.params.rnn.flags = 0;
	T.params.rnn.clip = 0x7fc00000u;	/* NaN */
	tap_ok(check() == -EINVAL, "RNN with a NaN clip: refused");
}

/*
 * TOPK: a line of 2^31 elements with k = 2^20 would insert for minutes:
 * refused by the unit cost; 2^32 - 1 zero-stride lines of 5 run their
 * first and last lines inside the guarded extents; k = 0 and k > n are
 * refused.
 */
static void topk_hostile(void)
{
	u32 in[2] = { 4, 1u << 31 }, o[2] = { 4, 1u << 20 }, z2[2] = { 0 };
	u32 b = 0xffffffffu, gi[2] = { b, 5 }, gis[2] = { 0, 1 };
	u32 go[2] = { b, 3 }, gos[2] = { 0, 1 };
	void *data[2] = { guarded(5 * 4), guarded(3 * 8) };
	u32 k;

	tl_task(&T, DRM_NPU_OP_TOPK, 2);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 2, in, z2);
	opnd(1, DRM_NPU_DTYPE_I64, DRM_NPU_LAYOUT_ND, 2, o, z2);
	T.params.topk.axis = 1;
	T.params.topk.k = 1u << 20;
	tap_ok(check() == -EINVAL,
	       "TOPK of 2^20 from a line of 2^31: refused (unit cost)");
	tl_task(&T, DRM_NPU_OP_TOPK, 2);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 2, gi, gis);
	opnd(1, DRM_NPU_DTYPE_I64, DRM_NPU_LAYOUT_ND, 2, go, gos);
	T.params.topk.axis = 1;
	T.params.topk.k = 3;
	T.params.topk.flags = DRM_NPU_TOPK_LARGEST;
	((float *)data[0])[0] = 1;
	((float *)data[0])[1] = 5;
	((float *)data[0])[2] = 3;
	((float *)data[0])[3] = 5;
	((float *)data[0])[4] = -2;
	tap_ok(check() == 0 && npu_op_work_units(&T) == b,
	       "TOPK over 2^32 - 1 zero-stride lines: accepted");
	tap_ok(run_units(data, 0, 64) == 0 && run_units(data, b - 64, b) == 0,
	       "TOPK: first and last lines stay in the guarded extents");
	tap_ok(((s64 *)data[1])[0] == 1 && ((s64 *)data[1])[1] == 3 &&
	       ((s64 *)data[1])[2] == 2,
	       "TOPK largest 3 of [1 5 3 5 -2]: 1, 3, 2 (ties in index order)");
	for (k = 0; k <= 6; k += 6) {
		T.params.topk.k = k;
		go[1] = k;
		opnd(1, DRM_NPU_DTYPE_I64, DRM_NPU_LAYOUT_ND, 2, go, gos);
		tap_ok(check() == -EINVAL, k ? "TOPK with k > n: refused" :
		       "TOPK with k = 0: refused");
	}
}

/*
 * SCATTER: 2^30 updates in one (ordered) unit are refused; an index past
 * the end of its axis and one below -d fault with BAD_INDEX and write
 * nothing outside out's guarded extent; a negative index counts from the
 * end; duplicate indices with ADD apply in order.
 */
static void scatter_hostile(void)
{
	u32 big[2] = { 1u << 30, 1 }, o1[1] = { 4 }, z2[2] = { 0 };
	u32 ix[2] = { 3, 1 }, ixs[2] = { 1, 1 }, up[1] = { 3 }, ups[1] = { 1 };
	u32 os[1] = { 1 };
	void *data[3] = { guarded(3 * 8), guarded(3 * 4), guarded(4 * 4) };
	s64 *iv = data[0];
	float *uv = data[1], *ov = data[2];

	tl_task(&T, DRM_NPU_OP_SCATTER, 3);
	opnd(0, DRM_NPU_DTYPE_I64, DRM_NPU_LAYOUT_ND, 2, big, z2);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 1, big, z2);
	opnd(2, F32, DRM_NPU_LAYOUT_ND, 1, o1, os);
	tap_ok(check() == -EINVAL,
	       "SCATTER of 2^30 updates in one unit: refused (unit cost)");
	tl_task(&T, DRM_NPU_OP_SCATTER, 3);
	opnd(0, DRM_NPU_DTYPE_I64, DRM_NPU_LAYOUT_ND, 2, ix, ixs);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 1, up, ups);
	opnd(2, F32, DRM_NPU_LAYOUT_ND, 1, o1, os);
	T.params.scatter.reduce = DRM_NPU_SCATTER_ADD;
	iv[0] = 1;
	iv[1] = -3;		/* = 1 */
	iv[2] = 3;
	uv[0] = 1;
	uv[1] = 2;
	uv[2] = 4;
	tap_ok(check() == 0 && run_units(data, 0, 1) == 0 && ov[1] == 3 &&
	       ov[3] == 4 && ov[0] == 0,
	       "SCATTER ND add: duplicate and negative indices apply in order");
	iv[2] = 4;
	tap_ok(run_units(data, 0, 1) == DRM_NPU_FAULT_BAD_INDEX,
	       "SCATTER with an index past the end: BAD_INDEX");
	iv[2] = -5;
	tap_ok(run_units(data, 0, 1) == DRM_NPU_FAULT_BAD_INDEX,
	       "SCATTER with an index below -d: BAD_INDEX");
}

/*
 * MATH: 2^40 outputs over zero strides are 2^24 row units of 2^16 (each
 * costing 64 operations an element, within the cap): the first and last
 * stay inside one-element guarded buffers; a mismatched shape is refused.
 */
static void math_hostile(void)
{
	u32 sh[3] = { 1u << 20, 1u << 4, 1u << 16 }, z3[3] = { 0 };
	u32 bad[3] = { 1u << 20, 1u << 4, 3 };
	void *data[2] = { guarded(4), guarded(4) };

	tl_task(&T, DRM_NPU_OP_MATH, 2);
	opnd(0, F32, DRM_NPU_LAYOUT_ND, 3, sh, z3);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 3, sh, z3);
	T.params.math.kind = DRM_NPU_MATH_ATAN;
	*(float *)data[0] = 1.0f;
	tap_ok(check() == 0 && npu_op_work_units(&T) == 1ull << 24,
	       "MATH over 2^40 zero-stride elements: accepted, 2^24 units");
	tap_ok(run_units(data, 0, 2) == 0 &&
	       run_units(data, (1ull << 24) - 2, 1ull << 24) == 0 &&
	       *(float *)data[1] > 0.785f && *(float *)data[1] < 0.786f,
	       "MATH: first and last units stay in the guarded extents");
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 3, bad, z3);
	tap_ok(check() == -EINVAL, "MATH with an output it cannot broadcast to: refused");
}

/*
 * GRID_SAMPLE: an image of 2^20 x 2^20 pixels (the 2^40 elements an operand
 * may have) over zero strides and
 * grid values a user picks (NaN, infinities, 1e38, denormals, the edges):
 * every mode, padding and corner rule keeps each tap inside the one-pixel
 * guarded image (the coordinates are compared before any conversion); a
 * 2^32-sample output over zero strides is units within the cost cap.
 */
static void grid_sample_hostile(void)
{
	static const float gv[16] = {
		__builtin_nanf(""), __builtin_inff(), -__builtin_inff(), 1e38f,
		-1e38f, 1.0f, -1.0f, 1e-45f, -3.0f, 0.5f, 3.4e38f, -0.0f,
		0.99999994f, -1.0000001f, 2.0f, 7.25f,
	};
	u32 in_sh[4] = { 1, 1, 1u << 20, 1u << 20 }, z4[4] = { 0 };
	u32 g_sh[4] = { 1, 1, 8, 2 }, g_st[4] = { 16, 16, 2, 1 };
	u32 o_sh[4] = { 1, 1, 1, 8 }, o_st[4] = { 8, 8, 8, 1 };
	u32 big_g[4] = { 1, 1u << 16, 1u << 16, 2 };
	u32 big_o[4] = { 1, 3, 1u << 16, 1u << 16 };
	u32 big_in[4] = { 1, 3, 1u << 19, 1u << 19 };
	void *data[3] = { guarded(4), guarded(sizeof(gv)), guarded(32) };
	u32 mode, pad, ok = 1;
	u64 units;

	*(float *)data[0] = 2.5f;
	memcpy(data[1], gv, sizeof(gv));
	for (mode = 0; mode < DRM_NPU_GRID_SAMPLE_MODE_COUNT; mode++)
		for (pad = 0; pad < 2 * DRM_NPU_GRID_SAMPLE_PADDING_COUNT;
		     pad++) {
			tl_task(&T, DRM_NPU_OP_GRID_SAMPLE, 3);
			opnd(0, F32, DRM_NPU_LAYOUT_NCHW, 4, in_sh, z4);
			opnd(1, F32, DRM_NPU_LAYOUT_ND, 4, g_sh, g_st);
			opnd(2, F32, DRM_NPU_LAYOUT_NCHW, 4, o_sh, o_st);
			T.params.grid_sample.mode = mode;
			T.params.grid_sample.padding = pad / 2;
			T.params.grid_sample.flags = pad & 1;
			ok &= check() == 0 &&
			      run_units(data, 0, npu_op_work_units(&T)) == 0;
		}
	tap_ok(ok, "GRID_SAMPLE of a 2^20 x 2^20 image at NaN, inf, 1e38 "
	       "and edge coordinates: every mode and padding stays inside");
	tl_task(&T, DRM_NPU_OP_GRID_SAMPLE, 3);
	opnd(0, F32, DRM_NPU_LAYOUT_NCHW, 4, big_in, z4);
	opnd(1, F32, DRM_NPU_LAYOUT_ND, 4, big_g, z4);
	opnd(2, F32, DRM_NPU_LAYOUT_NCHW, 4, big_o, z4);
	T.params.grid_sample.mode = DRM_NPU_GRID_SAMPLE_BICUBIC;
	units = npu_op_work_units(&T);
	tap_ok(check() == 0 && units >= 3ull << 16 &&
	       npu_op_unit_cost(&T) <= 1ull << 27 &&
	       run_units(data, 0, 1) == 0 &&
	       run_units(data, units - 1, units) == 0,
	       "GRID_SAMPLE of 3 x 2^32 bicubic samples: %llu units within "
	       "the cost cap, the first and last inside",
	       (unsigned long long)units);
	T.operands[1].shape[3] = 3;
	tap_ok(check() == -EINVAL, "GRID_SAMPLE with a grid of 3 coordinates: refused");
	T.operands[1].shape[3] = 2;
	T.operands[0].shape[3] = 0;
	tap_ok(check() == -EINVAL, "GRID_SAMPLE from an empty image: refused");
}

/*
 * ROI_ALIGN: boxes a user writes (NaN, infinities, 1e38, inverted, past
 * the edges) over a 2^10 x 2^10 zero-stride image stay inside it, and an
 * adaptive grid takes at most twice the image's samples per side (what
 * the cost counts); a batch index outside N faults the job; a sampling
 * ratio whose unit would cost past the cap is refused.
 */
static void roi_align_hostile(void)
{
	static const float boxes[8][4] = {
		{ __builtin_nanf(""), 0, 4, 4 }, { 0, 0, __builtin_inff(), 3 },
		{ -1e38f, -1e38f, 1e38f, 1e38f }, { 5, 5, 1, 1 },
		{ -3, -3, 2, 2 }, { 1, 1, 3e38f, 2 }, { 0, 0, 1e-45f, 1e-45f },
		{ 1048570, 1048570, 1048580, 1048580 },
	};
	u32 in_sh[4] = { 2, 1, 1u << 10, 1u << 10 }, z4[4] = { 0 };
	u32 r_sh[2] = { 8, 4 }, r_st[2] = { 4, 1 }, b_sh[1] = { 8 };
	u32 b_st[1] = { 1 }, o_sh[4] = { 8, 1, 2, 3 };
	u32 o_st[4] = { 6, 6, 3, 1 };
	s64 *bidx = guarded(8 * sizeof(s64));
	void *data[4] = { guarded(4), guarded(sizeof(boxes)), bidx,
			  guarded(48 * sizeof(float)) };
	u32 m, ok = 1, i;

	*(float *)data[0] = 1.0f;
	memcpy(data[1], boxes, sizeof(boxes));
	for (i = 0; i < 8; i++)
		bidx[i] = i & 1;
	for (m = 0; m < 4; m++) {
		tl_task(&T, DRM_NPU_OP_ROI_ALIGN, 4);
		opnd(0, F32, DRM_NPU_LAYOUT_NCHW, 4, in_sh, z4);
		opnd(1, F32, DRM_NPU_LAYOUT_ND, 2, r_sh, r_st);
		opnd(2, DRM_NPU_DTYPE_I64, DRM_NPU_LAYOUT_ND, 1, b_sh, b_st);
		opnd(3, F32, DRM_NPU_LAYOUT_NCHW, 4, o_sh, o_st);
		T.params.roi_align.mode = m & 1;
		T.params.roi_align.flags = m >> 1;
		T.params.roi_align.spatial_scale = tl_f2u(1.0f);
		ok &= check() == 0 && npu_op_unit_cost(&T) <= 1ull << 27 &&
		      run_units(data, 0, npu_op_work_units(&T)) == 0;
	}
	tap_ok(ok, "ROI_ALIGN of NaN, infinite, 1e38, inverted and edge boxes: "
	       "every mode stays inside, within the cost cap");
	bidx[5] = 2;
	tap_ok(run_units(data, 0, npu_op_work_units(&T)) ==
	       DRM_NPU_FAULT_BAD_INDEX, "ROI_ALIGN batch index 2 of N = 2: "
	       "BAD_INDEX fault");
	bidx[5] = -1;
	tap_ok(run_units(data, 0, npu_op_work_units(&T)) ==
	       DRM_NPU_FAULT_BAD_INDEX, "ROI_ALIGN batch index -1: BAD_INDEX fault");
	T.params.roi_align.sampling_ratio = 1u << 16;
	tap_ok(check() == -EINVAL, "ROI_ALIGN of 2^32 samples a bin: refused");
	T.params.roi_align.sampling_ratio = 0;
	T.params.roi_align.spatial_scale = 0x7f800000u;
	tap_ok(check() == -EINVAL, "ROI_ALIGN with an infinite scale: refused");
}

int main(void)
{
	signal(SIGALRM, SIG_DFL);	/* a hung kernel dies loudly */
	pool_planes_2_32();
	pool_hidden_batch_stride();
	pool_empty_rows();
	transdata_c1_wrap();
	conv_c1_wrap();
	batchnorm_c1_wrap();
	matmul_n_near_2_32();
	matmul_wq_edges();
	conv_wide_row();
	copy_2_40();
	count_overflow();
	unsplittable_units();
	attention_empty_keys();
	qconv_hostile();
	qmatmul_hostile();
	rnn_hostile();
	topk_hostile();
	scatter_hostile();
	math_hostile();
	grid_sample_hostile();
	roi_align_hostile();
	media_limits();
	return tap_done();
}
