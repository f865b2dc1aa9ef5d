// SPDX-License-Identifier: MIT
/*
 * om_timing.c - npu-om's modeled-time view: each variant run through the
 * device's timing model (libnpurt/timing), as text, JSON or a Chrome trace.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "npu_timing.h"
#include "om.h"
#include "om_timing.h"

static void print_task(const struct om_model *m,
		       const struct npu_timing_params *p,
		       const struct npu_timed_task *t)
{
	const struct om_task_debug *dbg = om_get_task_debug(m, t->task);
	const struct drm_npu_task *task = om_get_tasks(m, t->task, 1);

	printf("    %10.3f %10.3f us  stream %u  %-6s", npu_timing_us(p, t->start),
	       npu_timing_us(p, t->end), t->stream,
	       npu_timing_unit_name(t->cost.unit));
	if (t->core != UINT32_MAX)
		printf(" core %u", t->core);
	printf("  task %u %s", t->task, om_opcode_name(task->opcode));
	if (t->cost.macs)
		printf("  %llu MACs", (unsigned long long)t->cost.macs);
	if (t->cost.ops)
		printf("  %llu ops", (unsigned long long)t->cost.ops);
	if (t->cost.bytes)
		printf("  %llu bytes%s", (unsigned long long)t->cost.bytes,
		       t->cost.memory_cycles > t->cost.compute_cycles ?
		       " (memory bound)" : "");
	if (dbg && *om_string(m, dbg->node))
		printf("  ; %s", om_string(m, dbg->node));
	printf("\n");
}

static void print_summary(const struct npu_timing_report *r)
{
	const struct npu_timing_params *p = &r->params;

	printf("  modeled: %.3f us (%llu cycles at %u MHz, %u cores), %u tasks\n",
	       npu_timing_us(p, r->latency_cycles),
	       (unsigned long long)r->latency_cycles, p->clock_mhz, p->cores,
	       r->num_tasks);
	printf("    cube: %.1f%% busy, %.1f%% of peak MACs (%llu MACs)\n",
	       100 * npu_timing_unit_busy(r, NPU_UNIT_CUBE),
	       100 * npu_timing_cube_efficiency(r),
	       (unsigned long long)r->macs);
	printf("    vector: %.1f%% busy (%llu ops); media: %.1f%% busy\n",
	       100 * npu_timing_unit_busy(r, NPU_UNIT_VECTOR),
	       (unsigned long long)r->ops,
	       100 * npu_timing_unit_busy(r, NPU_UNIT_MEDIA));
	printf("    VRAM: %llu bytes moved, %.1f%% of the bandwidth\n",
	       (unsigned long long)r->bytes,
	       100 * npu_timing_bandwidth_util(r));
	printf("    cube and vector busy at once: %.3f us\n",
	       npu_timing_us(p, r->overlap_cycles));
}

static int open_out(const char *path, FILE **f)
{
	if (!strcmp(path, "-")) {
		*f = stdout;
		return 0;
	}
	*f = fopen(path, "w");
	if (!*f) {
		fprintf(stderr, "npu-om: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static void close_out(FILE *f)
{
	if (f && f != stdout)
		fclose(f);
}

int om_timing_show(const struct om_model *m, const struct om_timing_opts *o)
{
	const struct om_model_desc *d = om_get_model(m);
	FILE *json = NULL, *trace = NULL;
	char err[256];
	int first = 1, ret = 0;

	if ((o->json && open_out(o->json, &json)) ||
	    (o->trace && open_out(o->trace, &trace))) {
		close_out(json);
		return 1;
	}
	if (json)
		fprintf(json, "{\"model\": \"%s\", \"variants\": [",
			om_model_name(m));
	if (trace)
		fprintf(trace, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	for (uint32_t v = 0; v < d->num_variants && !ret; v++) {
		struct npu_timing_report r;

		if (npu_timing_model(m, v, &o->params, &r, err, sizeof(err))) {
			fprintf(stderr, "npu-om: timing model: %s\n", err);
			ret = 1;
			break;
		}
		if (o->text) {
			printf("variant %u \"%s\"\n", v,
			       om_string(m, om_get_variant(m, v)->name));
			print_summary(&r);
			for (uint32_t i = 0; o->tasks && i < r.num_tasks; i++)
				print_task(m, &o->params, &r.tasks[i]);
		}
		if (json) {
			fprintf(json, "%s{\"variant\": %u, \"name\": \"%s\", "
				"\"modeled\": ", v ? ", " : "", v,
				om_string(m, om_get_variant(m, v)->name));
			npu_timing_report_json(&r, json);
			fprintf(json, "}");
		}
		if (trace)
			npu_timing_trace_events(trace, m, v, &r, 0, &first);
		npu_timing_report_free(&r);
	}
	if (json)
		fprintf(json, "]}\n");
	if (trace)
		fprintf(trace, "\n]}\n");
	close_out(json);
	close_out(trace);
	return ret;
}
