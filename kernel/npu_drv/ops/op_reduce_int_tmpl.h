/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * op_reduce_int_tmpl.h - one run of integer REDUCE (op_reduce.c): @n
 * values @st elements apart folded into @acc, sums and products wrapping
 * in 64 bits. The including file defines
 *   RED_T    the element type (s32 or s64)
 *   RED_RUN  the function's name
 * One loop per kind, so that no switch (and no dtype switch) runs per
 * element.
 */
static u64 RED_RUN(u32 kind, const RED_T *x, u64 n, u64 st, u64 acc)
{
	u64 j, o = 0;

	switch (kind) {
	case DRM_NPU_REDUCE_SUM:
	case DRM_NPU_REDUCE_MEAN:
		for (j = 0; j < n; j++, o += st)
			acc += (u64)(s64)x[o];
		break;
	case DRM_NPU_REDUCE_SUM_SQUARE:
		for (j = 0; j < n; j++, o += st)
			acc += (u64)(s64)x[o] * (u64)(s64)x[o];
		break;
	case DRM_NPU_REDUCE_PROD:
		for (j = 0; j < n; j++, o += st)
			acc *= (u64)(s64)x[o];
		break;
	case DRM_NPU_REDUCE_MAX:
		for (j = 0; j < n; j++, o += st)
			if ((s64)x[o] > (s64)acc)
				acc = (u64)(s64)x[o];
		break;
	default:
		for (j = 0; j < n; j++, o += st)
			if ((s64)x[o] < (s64)acc)
				acc = (u64)(s64)x[o];
	}
	return acc;
}
