// SPDX-License-Identifier: MIT
/*
 * timing_trace.c - a modeled execution as Chrome trace events (Perfetto):
 * one process per AI core with a thread per unit, and one per stream for
 * the semaphore tasks that only take queue time (npu_timing.h). npu-om
 * writes a file of these; npu-run adds them beside its wall-time tracks.
 */
#include "npu_timing.h"
#include "om.h"

/* Trace names are the .om's: opcode names and ONNX node names, escaped. */
static void put_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
}

static void name_process(FILE *f, uint32_t pid, const char *what, uint32_t n,
			 int *first)
{
	fprintf(f, "%s{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\","
		"\"args\":{\"name\":\"modeled %s %u\"}}", *first ? "" : ",\n",
		pid, what, n);
	*first = 0;
}

void npu_timing_trace_events(FILE *f, const struct om_model *m,
			     uint32_t variant,
			     const struct npu_timing_report *r,
			     uint32_t pid_base, int *first)
{
	uint32_t c, i;

	for (c = 0; c < r->params.cores; c++)
		name_process(f, pid_base + c, "core", c, first);
	for (i = 0; i < r->num_tasks; i++) {
		const struct npu_timed_task *t = &r->tasks[i];
		const struct om_task_debug *dbg = om_get_task_debug(m, t->task);
		const char *node = dbg ? om_string(m, dbg->node) : "";
		int queue = t->core == UINT32_MAX;

		fprintf(f, "%s{\"name\":\"%s", *first ? "" : ",\n",
			om_opcode_name(om_get_tasks(m, t->task, 1)->opcode));
		if (*node) {
			fputc(' ', f);
			put_str(f, node);
		}
		fprintf(f, "\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
			"\"pid\":%u,\"tid\":\"%s\",\"args\":{\"variant\":%u,"
			"\"stream\":%u,\"task\":%u,\"macs\":%llu,\"ops\":%llu,"
			"\"bytes\":%llu}}",
			npu_timing_us(&r->params, t->start),
			npu_timing_us(&r->params, t->end - t->start),
			pid_base + (queue ? 1000 + t->stream : t->core),
			queue ? "queue" : npu_timing_unit_name(t->cost.unit),
			variant, t->stream, t->task,
			(unsigned long long)t->cost.macs,
			(unsigned long long)t->cost.ops,
			(unsigned long long)t->cost.bytes);
		*first = 0;
	}
}
