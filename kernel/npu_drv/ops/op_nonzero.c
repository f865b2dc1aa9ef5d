// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_nonzero.c - NONZERO: the coordinates of the nonzero elements of in,
 * in row-major order (ONNX NonZero), an output whose extent the data
 * decides.
 *
 * out is I64 [rank(in), bound] with bound the elements of in, dense; the
 * n coordinates found are written packed, row d at out + d * n, so that
 * the first rank(in) * n elements are the [rank(in), n] result; the rest
 * of out is zeroed and count (I64, one element) receives n. The runtime
 * reports the output's shape from count (Documentation/runtime.rst,
 * "Outputs of data-dependent shape").
 *
 * Two passes over in (count, then write), one work unit: rows need the
 * total before the first can be placed. A rank-0 in is one element: out
 * is [0, bound] and only count says whether it was nonzero.
 */
#include "npu_ops_float.h"

static bool nz_elem(const struct drm_npu_operand *in, const void *d, u64 off)
{
	switch (in->dtype) {
	case DRM_NPU_DTYPE_F32:
	case DRM_NPU_DTYPE_F16:
		return npu_ld_f(in->dtype, d, off) != 0.0f;
	default:
		return npu_ld_i(in->dtype, d, off) != 0;
	}
}

int npu_run_nonzero(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *in = npu_opnd(t, 0);
	const struct drm_npu_operand *o = npu_opnd(t, 1);
	s64 *out = args->data[1], *count = args->data[2];
	u64 e, n = 0, k = 0, numel = npu_numel(in);
	u32 r = in->rank, d;

	if (begin > 0 || end < 1)
		return 0;
	for (e = 0; e < numel; e++) {
		u32 c[DRM_NPU_MAX_RANK] = { 0 };

		npu_unravel(e, in->shape, r, c);
		n += nz_elem(in, args->data[0], npu_offset32(c, in->strides, r));
	}
	memset(out, 0, npu_numel(o) * sizeof(*out));
	/*
	 * k < n: another core writing in between the passes (a racing
	 * submission) changes the answer, never the bounds of out.
	 */
	for (e = 0; e < numel && r && k < n; e++) {
		u32 c[DRM_NPU_MAX_RANK] = { 0 };

		npu_unravel(e, in->shape, r, c);
		if (!nz_elem(in, args->data[0],
			     npu_offset32(c, in->strides, r)))
			continue;
		for (d = 0; d < r; d++)
			out[d * n + k] = c[d];
		k++;
	}
	*count = (s64)n;
	return 0;
}
