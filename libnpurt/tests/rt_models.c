// SPDX-License-Identifier: MIT
/*
 * rt_models.c - test models built with the .om writer, and their host
 * references.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_models.h"

void rt_fill(float *p, size_t n, uint32_t seed)
{
	uint32_t s = seed * 2654435761u + 12345u;

	for (size_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		p[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
}

static struct drm_npu_operand operand(uint32_t slot, uint64_t offset,
				      uint32_t rows, uint32_t cols,
				      uint32_t row_stride)
{
	struct drm_npu_operand o;

	memset(&o, 0, sizeof(o));
	o.slot = (uint16_t)slot;
	o.dtype = DRM_NPU_DTYPE_F32;
	o.layout = DRM_NPU_LAYOUT_ND;
	o.rank = 2;
	o.offset = offset;
	o.shape[0] = rows;
	o.shape[1] = cols;
	o.strides[0] = row_stride;
	o.strides[1] = 1;
	return o;
}

/* out[M,N] = act(a[M,K] b[K,N] + bias) with bias broadcast over rows. */
static struct drm_npu_task matmul(struct drm_npu_operand a,
				  struct drm_npu_operand b,
				  const struct drm_npu_operand *bias,
				  struct drm_npu_operand out, uint32_t act)
{
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_MATMUL;
	t.params.matmul.alpha = 0x3f800000;	/* 1.0f */
	t.params.matmul.act.kind = act;
	t.operands[0] = a;
	t.operands[1] = b;
	if (bias) {
		t.params.matmul.flags = DRM_NPU_MATMUL_HAS_BIAS;
		t.params.matmul.beta = 0x3f800000;	/* 1.0f */
		t.operands[2] = *bias;
		t.operands[3] = out;
		t.num_operands = 4;
	} else {
		t.operands[2] = out;
		t.num_operands = 3;
	}
	return t;
}

static struct drm_npu_task sem_task(uint32_t opcode, uint32_t index,
				    uint64_t value)
{
	struct drm_npu_task t;

	memset(&t, 0, sizeof(t));
	t.opcode = (uint16_t)opcode;
	t.params.sem.index = index;
	t.params.sem.value = value;
	return t;
}

static void weights_of(uint32_t seed, size_t n, float *w)
{
	rt_fill(w, n, seed);
	for (size_t i = 0; i < n; i++)
		w[i] *= 0.5f;
}

static void dense_ref(const float *x, const float *w, const float *b,
		      uint32_t m, uint32_t k, uint32_t n, int relu, float *y)
{
	for (uint32_t i = 0; i < m; i++)
		for (uint32_t j = 0; j < n; j++) {
			float acc = 0.0f;

			for (uint32_t l = 0; l < k; l++)
				acc += x[i * k + l] * w[l * n + j];
			if (b)
				acc += b[j];
			y[i * n + j] = relu && acc < 0.0f ? 0.0f : acc;
		}
}

void rt_mlp_reference(const float *x, uint32_t batch, float *y)
{
	float w1[MLP_IN * MLP_HID], b1[MLP_HID], w2[MLP_HID * MLP_OUT];
	float b2[MLP_OUT];
	float *h = malloc(sizeof(float) * batch * MLP_HID);

	weights_of(1, MLP_IN * MLP_HID, w1);
	weights_of(2, MLP_HID, b1);
	weights_of(3, MLP_HID * MLP_OUT, w2);
	weights_of(4, MLP_OUT, b2);
	dense_ref(x, w1, b1, batch, MLP_IN, MLP_HID, 1, h);
	dense_ref(h, w2, b2, batch, MLP_HID, MLP_OUT, 0, y);
	free(h);
}

static int mlp_variant(struct om_writer *w, uint32_t batch, int dynamic,
		       const uint64_t *off)
{
	struct om_debug_info dbg[2] = {
		{ "Gemm", "fc1", 0 }, { "Gemm", "fc2", 1 },
	};
	struct drm_npu_task t[2];
	struct drm_npu_operand b1, b2;
	uint64_t hbytes = (uint64_t)batch * MLP_HID * 4;
	uint64_t xs[2] = { batch, MLP_IN }, ys[2] = { batch, MLP_OUT };
	static const char *const n1[2] = { "fc1", "relu1" };
	static const char *const n2[1] = { "fc2" };
	struct om_tensor_origin_info h = {
		"h", 0, 1, 64, DRM_NPU_DTYPE_F32, DRM_NPU_LAYOUT_ND, 2,
		{ 0, MLP_HID } };
	struct om_tensor_origin_info y = {
		"y", 0, 3, 0, DRM_NPU_DTYPE_F32, DRM_NPU_LAYOUT_ND, 2,
		{ 0, MLP_OUT } };
	char name[32];
	int v, first, ret;

	snprintf(name, sizeof(name), dynamic ? "batch=%u" : "default", batch);
	v = om_writer_add_variant(w, name);
	if (v < 0)
		return v;
	if (dynamic &&
	    (om_writer_set_variant_shape(w, v, OM_IO_INPUT, 0, xs) ||
	     om_writer_set_variant_shape(w, v, OM_IO_OUTPUT, 0, ys)))
		return -EINVAL;
	/* Workspace: h, with a guard gap the plan does not need. */
	if (om_writer_set_plan(w, v, hbytes + 64, hbytes))
		return -EINVAL;
	first = (int)om_writer_num_tasks(w);
	if (om_writer_add_placement(w, v, "fc1_out", 64, hbytes, first,
				    first + 1))
		return -EINVAL;
	b1 = operand(0, off[1], batch, MLP_HID, 0);
	b2 = operand(0, off[3], batch, MLP_OUT, 0);
	t[0] = matmul(operand(2, 0, batch, MLP_IN, MLP_IN),
		      operand(0, off[0], MLP_IN, MLP_HID, MLP_HID), &b1,
		      operand(1, 64, batch, MLP_HID, MLP_HID), DRM_NPU_ACT_RELU);
	t[1] = matmul(operand(1, 64, batch, MLP_HID, MLP_HID),
		      operand(0, off[2], MLP_HID, MLP_OUT, MLP_OUT), &b2,
		      operand(3, 0, batch, MLP_OUT, MLP_OUT), DRM_NPU_ACT_NONE);
	ret = om_writer_add_program(w, v, 0, t, 2, dbg);
	if (ret)
		return ret;
	/* provenance: fc1 fused with its Relu makes h, fc2 makes y */
	h.task = (uint32_t)first;
	h.dims[0] = y.dims[0] = batch;
	y.task = (uint32_t)first + 1;
	ret = om_writer_set_task_origin(w, h.task, n1, 2);
	if (!ret)
		ret = om_writer_set_task_origin(w, y.task, n2, 1);
	if (!ret)
		ret = om_writer_add_tensor_origin(w, &h);
	if (!ret)
		ret = om_writer_add_tensor_origin(w, &y);
	return ret;
}

int rt_build_mlp(const uint32_t *batches, uint32_t nbatch, int dynamic,
		 void **data, size_t *size)
{
	float w1[MLP_IN * MLP_HID], b1[MLP_HID], w2[MLP_HID * MLP_OUT];
	float b2[MLP_OUT];
	struct om_tensor_info x = { "x", DRM_NPU_DTYPE_F32, DRM_NPU_LAYOUT_ND,
				    2, { 1, MLP_IN }, { NULL } };
	struct om_tensor_info y = { "y", DRM_NPU_DTYPE_F32, DRM_NPU_LAYOUT_ND,
				    2, { 1, MLP_OUT }, { NULL } };
	struct om_writer *w = om_writer_create();
	uint64_t off[4];
	int ret = -ENOMEM;

	if (!w)
		return -ENOMEM;
	dynamic = dynamic || nbatch > 1;
	if (dynamic) {
		x.dims[0] = y.dims[0] = OM_DIM_DYNAMIC;
		x.dim_names[0] = y.dim_names[0] = "batch";
	} else {
		x.dims[0] = y.dims[0] = batches[0];
	}
	weights_of(1, MLP_IN * MLP_HID, w1);
	weights_of(2, MLP_HID, b1);
	weights_of(3, MLP_HID * MLP_OUT, w2);
	weights_of(4, MLP_OUT, b2);
	if (om_writer_set_name(w, "mlp") ||
	    om_writer_set_target(w, DRM_NPU_MODEL_SIM910,
				 DRM_NPU_FEATURE_FP32) ||
	    om_writer_add_io(w, OM_IO_INPUT, &x, NULL) ||
	    om_writer_add_io(w, OM_IO_OUTPUT, &y, NULL) ||
	    om_writer_add_weights(w, w1, sizeof(w1), 64, &off[0]) ||
	    om_writer_add_weights(w, b1, sizeof(b1), 64, &off[1]) ||
	    om_writer_add_weights(w, w2, sizeof(w2), 64, &off[2]) ||
	    om_writer_add_weights(w, b2, sizeof(b2), 64, &off[3]))
		goto out;
	for (uint32_t i = 0; i < nbatch; i++)
		if (mlp_variant(w, batches[i], dynamic, off))
			goto out;
	ret = om_writer_serialize(w, data, size);
out:
	if (ret)
		fprintf(stderr, "# mlp writer: %s\n", om_writer_error(w));
	om_writer_destroy(w);
	return ret;
}

/* ---------------------------------------------------------------------- */

static void tb_weights(uint32_t branch, uint32_t layer, float *w, size_t n)
{
	weights_of(100 + branch * 16 + layer, n, w);
	for (size_t i = 0; i < n; i++)
		w[i] *= 0.25f;
}

void rt_two_branch_reference(const float *x, uint32_t chain, float *y)
{
	float *w = malloc(sizeof(float) * TB_K * TB_N);
	float a[2][TB_N], t[TB_N];

	for (uint32_t br = 0; br < 2; br++) {
		tb_weights(br, 0, w, TB_K * TB_N);
		dense_ref(x, w, NULL, 1, TB_K, TB_N, 1, a[br]);
		for (uint32_t l = 1; l < chain; l++) {
			tb_weights(br, l, w, TB_N * TB_N);
			dense_ref(a[br], w, NULL, 1, TB_N, TB_N, 1, t);
			memcpy(a[br], t, sizeof(t));
		}
	}
	for (uint32_t j = 0; j < TB_N; j++)
		y[j] = a[0][j] + a[1][j];
	free(w);
}

int rt_build_two_branch(uint32_t chain, void **data, size_t *size)
{
	struct om_tensor_info x = { "x", DRM_NPU_DTYPE_F32, DRM_NPU_LAYOUT_ND,
				    2, { 1, TB_K }, { NULL } };
	struct om_tensor_info y = { "y", DRM_NPU_DTYPE_F32, DRM_NPU_LAYOUT_ND,
				    2, { 1, TB_N }, { NULL } };
	struct om_writer *w = om_writer_create();
	const uint64_t act_bytes = TB_N * 4;
	struct drm_npu_task *t[2] = { NULL, NULL };
	struct om_debug_info *dbg[2] = { NULL, NULL };
	float *wt = malloc(sizeof(float) * TB_K * TB_N);
	uint32_t n[2] = { 0, 0 };
	int ret = -ENOMEM, v;

	if (!w || !wt || !chain)
		goto out;
	for (int s = 0; s < 2; s++) {
		t[s] = calloc(chain + 3, sizeof(*t[s]));
		dbg[s] = calloc(chain + 3, sizeof(*dbg[s]));
		if (!t[s] || !dbg[s])
			goto out;
	}
	if (om_writer_set_name(w, "two_branch") ||
	    om_writer_set_target(w, DRM_NPU_MODEL_SIM910,
				 DRM_NPU_FEATURE_FP32) ||
	    om_writer_add_io(w, OM_IO_INPUT, &x, NULL) ||
	    om_writer_add_io(w, OM_IO_OUTPUT, &y, NULL))
		goto out;
	v = om_writer_add_variant(w, NULL);
	/* Workspace: per branch two ping-pong activations. */
	if (v < 0 || om_writer_set_plan(w, v, 4 * act_bytes, 4 * act_bytes))
		goto out;
	for (uint32_t br = 0; br < 2; br++) {
		uint64_t base = br * 2 * act_bytes;

		for (uint32_t l = 0; l < chain; l++) {
			size_t cnt = l ? TB_N * TB_N : TB_K * TB_N;
			uint64_t off, dst = base + (l % 2) * act_bytes;
			struct drm_npu_operand in;

			tb_weights(br, l, wt, cnt);
			if (om_writer_add_weights(w, wt, cnt * 4, 256, &off))
				goto out;
			in = l ? operand(1, base + ((l - 1) % 2) * act_bytes, 1,
					 TB_N, TB_N) :
				 operand(2, 0, 1, TB_K, TB_K);
			t[br][n[br]] = matmul(in,
					      operand(0, off, l ? TB_N : TB_K,
						      TB_N, TB_N), NULL,
					      operand(1, dst, 1, TB_N, TB_N),
					      DRM_NPU_ACT_RELU);
			dbg[br][n[br]].op = "MatMul";
			dbg[br][n[br]].node = br ? "branch_b" : "branch_a";
			dbg[br][n[br]].node_index = br * 100 + l;
			n[br]++;
		}
	}
	/* Stream 1 signals its branch is done; stream 0 waits, then adds. */
	t[1][n[1]] = sem_task(DRM_NPU_OP_SEM_SIGNAL, 0, 1);
	dbg[1][n[1]].op = "Signal";
	dbg[1][n[1]++].node_index = UINT32_MAX;
	t[0][n[0]] = sem_task(DRM_NPU_OP_SEM_WAIT, 0, 1);
	dbg[0][n[0]].op = "Wait";
	dbg[0][n[0]++].node_index = UINT32_MAX;
	{
		uint64_t res = ((chain - 1) % 2) * act_bytes;
		struct drm_npu_task *add = &t[0][n[0]];

		memset(add, 0, sizeof(*add));
		add->opcode = DRM_NPU_OP_BINARY;
		add->params.binary.kind = DRM_NPU_BINARY_ADD;
		add->num_operands = 3;
		add->operands[0] = operand(1, res, 1, TB_N, TB_N);
		add->operands[1] = operand(1, 2 * act_bytes + res, 1, TB_N,
					   TB_N);
		add->operands[2] = operand(3, 0, 1, TB_N, TB_N);
		dbg[0][n[0]].op = "Add";
		dbg[0][n[0]].node = "sum";
		dbg[0][n[0]++].node_index = 200;
	}
	if (om_writer_add_program(w, v, 0, t[0], n[0], dbg[0]) ||
	    om_writer_add_program(w, v, 1, t[1], n[1], dbg[1]))
		goto out;
	ret = om_writer_serialize(w, data, size);
out:
	if (ret && w)
		fprintf(stderr, "# two-branch writer: %s\n", om_writer_error(w));
	for (int s = 0; s < 2; s++) {
		free(t[s]);
		free(dbg[s]);
	}
	free(wt);
	om_writer_destroy(w);
	return ret;
}
