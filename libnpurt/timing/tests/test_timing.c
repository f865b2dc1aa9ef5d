// SPDX-License-Identifier: MIT
/*
 * test_timing.c - the device's timing model: task costs worked out by
 * hand, a two-stream schedule whose every start is known, unit overlap,
 * core contention, semaphore order, a deadlock, parameter parsing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "npu_timing.h"
#include "om.h"
#include "rt_models.h"
#include "tap.h"

#define D	64			/* [64, 64] f32 tensors: 16 KiB */
#define TB	(D * D * 4)

static struct drm_npu_operand mat(uint32_t slot, uint64_t off)
{
	struct drm_npu_operand o;

	memset(&o, 0, sizeof(o));
	o.slot = (uint16_t)slot;
	o.dtype = DRM_NPU_DTYPE_F32;
	o.layout = DRM_NPU_LAYOUT_ND;
	o.rank = 2;
	o.offset = off;
	o.shape[0] = D;
	o.shape[1] = D;
	o.strides[0] = D;
	o.strides[1] = 1;
	return o;
}

static struct drm_npu_task task3(uint32_t opcode, struct drm_npu_operand a,
				 struct drm_npu_operand b,
				 struct drm_npu_operand out)
{
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = (uint16_t)opcode;
	if (opcode == DRM_NPU_OP_MATMUL)
		t.params.matmul.alpha = 0x3f800000;	/* 1.0f */
	else
		t.params.binary.kind = DRM_NPU_BINARY_ADD;
	t.num_operands = 3;
	t.operands[0] = a;
	t.operands[1] = b;
	t.operands[2] = out;
	return t;
}

static struct drm_npu_task sem(uint32_t opcode, uint64_t value)
{
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = (uint16_t)opcode;
	t.params.sem.value = value;
	return t;
}

/*
 * x[64,64] in slot 2, y out in slot 3, W in the weights.
 * stream 0: h = x W (cube); wait(sem 0 >= @wait); y = h + g (vector)
 * stream 1: g = x + x (vector); signal(sem 0 = 1)
 */
static struct om_model *overlap_model(uint64_t wait)
{
	struct om_tensor_info x = { "x", DRM_NPU_DTYPE_F32, DRM_NPU_LAYOUT_ND,
				    2, { D, D }, { NULL } };
	struct om_tensor_info y = x;
	struct drm_npu_task s0[3], s1[2];
	struct om_writer *w = om_writer_create();
	struct om_model *m = NULL;
	static float wt[D * D];
	uint64_t off;
	void *data = NULL;
	size_t size;
	char err[OM_ERR_MAX];
	int v;

	y.name = "y";
	s0[0] = task3(DRM_NPU_OP_MATMUL, mat(2, 0), mat(0, 0), mat(1, 0));
	s0[1] = sem(DRM_NPU_OP_SEM_WAIT, wait);
	s0[2] = task3(DRM_NPU_OP_BINARY, mat(1, 0), mat(1, TB), mat(3, 0));
	s1[0] = task3(DRM_NPU_OP_BINARY, mat(2, 0), mat(2, 0), mat(1, TB));
	s1[1] = sem(DRM_NPU_OP_SEM_SIGNAL, 1);
	if (!w || om_writer_set_name(w, "overlap") ||
	    om_writer_add_io(w, OM_IO_INPUT, &x, NULL) ||
	    om_writer_add_io(w, OM_IO_OUTPUT, &y, NULL) ||
	    om_writer_add_weights(w, wt, sizeof(wt), 256, &off) ||
	    om_writer_set_semaphores(w, 1, NULL))
		goto out;
	v = om_writer_add_variant(w, NULL);
	if (v < 0 || om_writer_set_plan(w, v, 2 * TB, 2 * TB) ||
	    om_writer_add_program(w, v, 0, s0, 3, NULL) ||
	    om_writer_add_program(w, v, 1, s1, 2, NULL) ||
	    om_writer_serialize(w, &data, &size))
		goto out;
	if (om_open_memory(data, size, &m, err))
		tap_diag("overlap model refused: %s", err);
out:
	if (w && !m)
		tap_diag("writer: %s", om_writer_error(w));
	free(data);
	om_writer_destroy(w);
	return m;
}

static const struct npu_timed_task *find(const struct npu_timing_report *r,
					 uint32_t task)
{
	for (uint32_t i = 0; i < r->num_tasks; i++)
		if (r->tasks[i].task == task)
			return &r->tasks[i];
	return NULL;
}

static void test_costs(const struct npu_timing_params *p)
{
	struct drm_npu_task mm = task3(DRM_NPU_OP_MATMUL, mat(2, 0), mat(0, 0),
				       mat(1, 0));
	struct drm_npu_task conv;
	struct npu_task_cost c, c5;

	npu_timing_task_cost(&mm, p, &c);
	/* 64^3 MACs / 1024 = 256 cycles; 3 x 16 KiB / (64 / 4) = 3072 */
	tap_ok(c.unit == NPU_UNIT_CUBE && c.macs == 262144 &&
	       c.compute_cycles == 256 && c.bytes == 3 * TB &&
	       c.memory_cycles == 3072 && c.cycles == 1000 + 3072,
	       "matmul 64^3: cube, 262144 MACs, memory bound, 4072 cycles (got unit %u, %llu MACs, %llu cycles)",
	       c.unit, (unsigned long long)c.macs,
	       (unsigned long long)c.cycles);

	/* a broadcast operand (stride 0 over rows) is read once */
	mm.operands[1].strides[0] = 0;
	npu_timing_task_cost(&mm, p, &c);
	tap_ok(c.bytes == 2 * TB + D * 4,
	       "a stride-0 operand is charged its distinct bytes (%llu)",
	       (unsigned long long)c.bytes);

	/* conv 1x16x8x8 * 16x16x3x3 -> 1x16x8x8: 8*8 * 2304 MACs */
	memset(&conv, 0, sizeof(conv));
	conv.opcode = DRM_NPU_OP_CONV2D;
	conv.num_operands = 3;
	conv.operands[0] = (struct drm_npu_operand){
		.dtype = DRM_NPU_DTYPE_F32, .layout = DRM_NPU_LAYOUT_NCHW,
		.rank = 4, .shape = { 1, 16, 8, 8 },
		.strides = { 1024, 64, 8, 1 } };
	conv.operands[1] = (struct drm_npu_operand){
		.dtype = DRM_NPU_DTYPE_F32, .rank = 4,
		.shape = { 16, 16, 3, 3 }, .strides = { 144, 9, 3, 1 } };
	conv.operands[2] = conv.operands[0];
	npu_timing_task_cost(&conv, p, &c);
	conv.operands[0] = (struct drm_npu_operand){
		.dtype = DRM_NPU_DTYPE_F32, .layout = DRM_NPU_LAYOUT_NC1HWC0,
		.rank = 5, .shape = { 1, 1, 8, 8, 16 },
		.strides = { 1024, 1024, 128, 16, 1 } };
	conv.operands[2] = conv.operands[0];
	npu_timing_task_cost(&conv, p, &c5);
	tap_ok(c.macs == 64 * 2304 && c5.macs == c.macs &&
	       c.bytes == c5.bytes + 4096,
	       "conv: same MACs in NCHW and NC1HWC0 (%llu); the NCHW input costs twice its 4096 bytes (%llu vs %llu)",
	       (unsigned long long)c.macs, (unsigned long long)c.bytes,
	       (unsigned long long)c5.bytes);
}

static void test_schedule(const struct npu_timing_params *p)
{
	struct om_model *m = overlap_model(1);
	struct npu_timing_report r;
	const struct npu_timed_task *mm, *add1, *sig, *wait, *add0;
	char err[256];
	int ret;

	if (!tap_ok(m != NULL, "two-stream model written and accepted"))
		return;
	ret = npu_timing_model(m, 0, p, &r, err, sizeof(err));
	tap_ok(!ret && r.num_tasks == 5, "modeled 5 tasks (%d)", ret);
	if (ret) {
		om_close(m);
		return;
	}
	mm = find(&r, 0);
	wait = find(&r, 1);
	add0 = find(&r, 2);
	add1 = find(&r, 3);
	sig = find(&r, 4);
	tap_ok(mm->start == 0 && add1->start == 0 && mm->core == 0 &&
	       add1->core == 0 && mm->cost.unit == NPU_UNIT_CUBE &&
	       add1->cost.unit == NPU_UNIT_VECTOR,
	       "cube and vector units of core 0 start both streams at once");
	tap_ok(r.overlap_cycles == 4072,
	       "cube/vector overlap: 4072 cycles (%llu)",
	       (unsigned long long)r.overlap_cycles);
	tap_ok(sig->start == 4072 && sig->end == 4172 &&
	       wait->start == 4172 && wait->end == 4272 &&
	       add0->start == 4272 && r.latency_cycles == 4272 + 4072,
	       "signal 4072-4172, wait released at 4172, add from 4272, latency 8344 (%llu)",
	       (unsigned long long)r.latency_cycles);
	tap_ok(r.macs == 262144 && r.bytes == 9 * TB &&
	       r.busy[NPU_UNIT_CUBE] == 4072 &&
	       r.busy[NPU_UNIT_VECTOR] == 2 * 4072,
	       "totals: MACs, bytes, unit busy cycles");
	npu_timing_report_free(&r);
	om_close(m);

	m = overlap_model(2);
	ret = npu_timing_model(m, 0, p, &r, err, sizeof(err));
	tap_ok(ret == -EDEADLK && strstr(err, "semaphore 0 to reach 2"),
	       "a wait no signal satisfies is a deadlock, named: %s", err);
	om_close(m);
}

/* The runtime's two-branch model: 2 streams of 6 matmuls each. */
static void test_contention(void)
{
	struct npu_timing_params p;
	struct npu_timing_report r1, r4;
	struct om_model *m = NULL;
	void *data = NULL;
	size_t size;
	char err[OM_ERR_MAX];

	npu_timing_params_default(&p);
	if (rt_build_two_branch(6, &data, &size) ||
	    om_open_memory(data, size, &m, err)) {
		tap_ok(0, "two-branch model");
		free(data);
		return;
	}
	free(data);
	npu_timing_model(m, 0, &p, &r4, err, sizeof(err));
	/* one core with the same bandwidth per core */
	p.cores = 1;
	p.vram_bytes /= 4;
	npu_timing_model(m, 0, &p, &r1, err, sizeof(err));
	tap_ok(r1.latency_cycles > r4.latency_cycles &&
	       r1.busy[NPU_UNIT_CUBE] == r4.busy[NPU_UNIT_CUBE],
	       "one core serialises the branches: %llu vs %llu cycles on 4, same work",
	       (unsigned long long)r1.latency_cycles,
	       (unsigned long long)r4.latency_cycles);
	tap_ok(npu_timing_cube_efficiency(&r1) >
	       npu_timing_cube_efficiency(&r4) &&
	       npu_timing_unit_busy(&r1, NPU_UNIT_CUBE) <= 1.0,
	       "cube efficiency %.3f on 1 core, %.3f on 4",
	       npu_timing_cube_efficiency(&r1),
	       npu_timing_cube_efficiency(&r4));
	npu_timing_report_free(&r1);
	npu_timing_report_free(&r4);
	om_close(m);
}

static void test_params(void)
{
	struct npu_timing_params p;
	char err[256] = "";

	npu_timing_params_default(&p);
	tap_ok(!npu_timing_params_parse(&p, "cores=2,vram_bytes=12.5", err,
					sizeof(err)) &&
	       p.cores == 2 && p.vram_bytes == 12.5,
	       "cores=2,vram_bytes=12.5 parsed");
	tap_ok(npu_timing_params_parse(&p, "cores=0", err, sizeof(err)) ==
	       -EINVAL && strstr(err, "cores") && strstr(err, "[1, 1024]"),
	       "cores=0 refused: %s", err);
	tap_ok(npu_timing_params_parse(&p, "cores=2.5", err, sizeof(err)) ==
	       -EINVAL, "cores=2.5 refused: %s", err);
	tap_ok(npu_timing_params_parse(&p, "warp=9", err, sizeof(err)) ==
	       -EINVAL && strstr(err, "unknown timing parameter 'warp'"),
	       "an unknown key is named: %s", err);
	tap_ok(npu_timing_params_parse(&p, "nchw_efficiency", err,
				       sizeof(err)) == -EINVAL,
	       "a key without a value refused: %s", err);
	tap_ok(npu_timing_params_parse(&p, "clock_mhz=1e400", err,
				       sizeof(err)) == -EINVAL,
	       "an out-of-range number refused: %s", err);
}

int main(void)
{
	struct npu_timing_params p;

	tap_plan(18);
	npu_timing_params_default(&p);
	test_costs(&p);
	test_schedule(&p);
	test_contention();
	test_params();
	return tap_done();
}
