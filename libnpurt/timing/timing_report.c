// SPDX-License-Identifier: MIT
/*
 * timing_report.c - the figures of a modeled execution: utilisation of
 * each unit, of the cube's peak and of the VRAM bandwidth, and the report
 * as JSON (npu_timing.h).
 */
#include "npu_timing.h"

static double capacity(const struct npu_timing_report *r)
{
	return (double)r->latency_cycles * r->params.cores;
}

double npu_timing_unit_busy(const struct npu_timing_report *r, uint32_t unit)
{
	if (unit >= NPU_UNIT_COUNT || !r->latency_cycles)
		return 0;
	return (double)r->busy[unit] / capacity(r);
}

double npu_timing_cube_efficiency(const struct npu_timing_report *r)
{
	if (!r->latency_cycles)
		return 0;
	return (double)r->macs / (capacity(r) * r->params.cube_macs);
}

double npu_timing_bandwidth_util(const struct npu_timing_report *r)
{
	if (!r->latency_cycles)
		return 0;
	return (double)r->bytes /
	       ((double)r->latency_cycles * r->params.vram_bytes);
}

void npu_timing_report_json(const struct npu_timing_report *r, FILE *f)
{
	const struct npu_timing_params *p = &r->params;

	fprintf(f, "{\"latency_cycles\": %llu, \"latency_us\": %.3f, "
		"\"tasks\": %u, \"macs\": %llu, \"vector_ops\": %llu, "
		"\"bytes\": %llu, \"bandwidth_util\": %.4f, "
		"\"cube_efficiency\": %.4f, \"cube_busy\": %.4f, "
		"\"vector_busy\": %.4f, \"media_busy\": %.4f, "
		"\"cube_vector_overlap_cycles\": %llu, "
		"\"params\": {\"cores\": %u, \"clock_mhz\": %u, "
		"\"cube_macs\": %g, \"vector_ops\": %g, \"media_pixels\": %g, "
		"\"vram_bytes\": %g, \"nchw_efficiency\": %g, "
		"\"launch_cycles\": %u, \"sem_cycles\": %u}}",
		(unsigned long long)r->latency_cycles,
		npu_timing_us(p, r->latency_cycles), r->num_tasks,
		(unsigned long long)r->macs, (unsigned long long)r->ops,
		(unsigned long long)r->bytes, npu_timing_bandwidth_util(r),
		npu_timing_cube_efficiency(r),
		npu_timing_unit_busy(r, NPU_UNIT_CUBE),
		npu_timing_unit_busy(r, NPU_UNIT_VECTOR),
		npu_timing_unit_busy(r, NPU_UNIT_MEDIA),
		(unsigned long long)r->overlap_cycles, p->cores, p->clock_mhz,
		p->cube_macs, p->vector_ops, p->media_pixels, p->vram_bytes,
		p->nchw_efficiency, p->launch_cycles, p->sem_cycles);
}
