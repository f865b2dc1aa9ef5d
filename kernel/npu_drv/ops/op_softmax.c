// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_softmax.c - SOFTMAX / LOGSOFTMAX over one axis (ONNX opset 13
 * semantics), numerically stable: the row maximum is subtracted before
 * exponentiation, the sum is accumulated in double.
 *   softmax:    y = exp(x - max) / sum(exp(x - max))
 *   logsoftmax: y = (x - max) - log(sum(exp(x - max)))
 * Work unit: one row along the axis (every other index fixed).
 */
#include "npu_ops_float.h"

int npu_run_softmax(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *out = npu_opnd(t, 1);
	u32 axis = t->params.softmax.axis, i;
	u64 len = in->shape[axis], j;
	int logsm = !!(t->params.softmax.flags & DRM_NPU_SOFTMAX_LOG);
	u64 sx = in->strides[axis], sy = out->strides[axis], u;
	u32 coord[DRM_NPU_MAX_RANK] = { 0 };
	u32 shape[DRM_NPU_MAX_RANK];
	const float *x;
	float *y;

	/* index space of the units: the shape with the axis removed */
	for (i = 0; i < in->rank; i++)
		shape[i] = i == axis ? 1 : in->shape[i];
	for (u = begin; u < end; u++) {
		float m = -NPU_INFF;
		double sum = 0;

		npu_unravel(u, shape, in->rank, coord);
		x = (const float *)args->data[0] + npu_offset32(coord, in->strides,
							      in->rank);
		y = (float *)args->data[1] + npu_offset32(coord, out->strides,
							out->rank);
		for (j = 0; j < len; j++) {
			float v = x[j * sx];

			if (v > m || v != v)
				m = (v != v || m != m) ? NPU_NANF : v;
		}
		/* a row of -inf only: exp(-inf - 0) = 0, 0 / 0 = NaN as torch */
		if (m == -NPU_INFF)
			m = 0;
		for (j = 0; j < len; j++)
			sum += npu_exp_d((double)x[j * sx] - m);
		if (logsm) {
			double ls = npu_log_d(sum);

			for (j = 0; j < len; j++)
				y[j * sy] = (float)(((double)x[j * sx] - m) - ls);
		} else {
			for (j = 0; j < len; j++)
				y[j * sy] = (float)(npu_exp_d((double)x[j * sx] - m) /
						    sum);
		}
	}
	return 0;
}
