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
 * element-count check itself overflowing 64 bits.
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
	conv_wide_row();
	copy_2_40();
	count_overflow();
	unsplittable_units();
	attention_empty_keys();
	qconv_hostile();
	qmatmul_hostile();
	return tap_done();
}
