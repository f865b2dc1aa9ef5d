// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_kern.c - the product kernels of a requested ISA level (the CPU's
 * own level is detected by npu_op_isa_best(), npu_ops_geom.c).
 */
#include "npu_kern.h"

const struct npu_kern *npu_kern_get(u32 isa)
{
	u32 best = npu_op_isa_best();

	if (isa == NPU_ISA_AUTO || isa > best)
		isa = best;
#ifdef NPU_KERN_X86
	if (isa == NPU_ISA_AVX512)
		return &npu_kern_avx512;
	if (isa == NPU_ISA_AVX2)
		return &npu_kern_avx2;
#endif
	return &npu_kern_baseline;
}
