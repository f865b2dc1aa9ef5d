// SPDX-License-Identifier: MIT
/*
 * report.c - the compile report, as text (npuc --report) and JSON
 * (npuc --report-json).
 */
#include <stdio.h>
#include <string.h>

#include "cache/cache.h"
#include "driver/npuc.h"

static const char *cache_word(int c, bool corrupt)
{
	if (c == CACHE_HIT)
		return "hit";
	if (c == CACHE_MISS)
		return corrupt ? "corrupt entry replaced" : "miss";
	return "off";
}

static double pct(int64_t a, int64_t b)
{
	return b > 0 ? 100.0 * (double)(a - b) / (double)b : 0.0;
}

static void print_partitions(const struct part_stats *p, FILE *f)
{
	fprintf(f, "partitions: %u, %u found in the cache, %u stored; nodes reused %u of %u (%.1f%%); derived constants %u of %u from the cache (%.1f MB), saved %.1f ms; planning %.1f ms%s\n",
		p->partitions, p->partitions_found, p->partitions_stored,
		p->nodes_reused, p->nodes,
		p->nodes ? 100.0 * p->nodes_reused / p->nodes : 0.0,
		p->derived_hit, p->derived, (double)p->bytes_reused / 1e6,
		p->saved_ms, p->plan_ms,
		p->corrupt ? "; damaged entries removed" : "");
}

void npuc_report_print(const struct npuc_report *r, FILE *f)
{
	uint32_t fused = 0;

	fprintf(f, "model %s: -O%d, %u variant(s), .om %llu bytes, weights %llu bytes\n",
		r->model, r->opt_level, r->num_variants,
		(unsigned long long)r->om_size,
		(unsigned long long)r->weights_size);
	fprintf(f, "time: import %.1f ms, compile %.1f ms, total %.1f ms; cache %s%s%s\n",
		r->import_ms, r->compile_ms, r->total_ms,
		cache_word(r->cache, r->cache_corrupt_seen),
		r->cache_key[0] ? " key " : "", r->cache_key);
	if (r->part_on)
		print_partitions(&r->part, f);
	{
		const char *p = r->passes;
		int a, b, c, d;

		while ((p = strchr(p, ':'))) {
			if (sscanf(p, ":%d/%d/%d/%d", &a, &b, &c, &d) == 4)
				fused += (uint32_t)b;
			p++;
		}
	}
	fprintf(f, "passes applied (%u, removed/fused/folded/rewritten): %s\n",
		r->num_passes, r->passes[0] ? r->passes : "none");
	fprintf(f, "nodes: %u before passes, %u after; ops fused: %u\n",
		r->nodes_before, r->nodes_after, fused);
	fprintf(f, "target %s: %u cores, %u queues, %u semaphores, %llu MiB VRAM; streams asked %u, allowed %u (bound: %s); semaphore budget %u per model\n",
		r->target.name, r->target.num_cores, r->target.num_queues,
		r->target.num_semaphores,
		(unsigned long long)(r->target.vram_size >> 20),
		r->target.streams_asked, r->target.max_streams,
		r->target.stream_limit, r->target.semaphore_budget);
	if (r->num_plugin_nodes) {
		fprintf(f, "plugin nodes: %u (%u host tasks in the first variant)\n",
			r->num_plugin_nodes, r->num_host_tasks);
		for (uint32_t i = 0; i < r->num_plugin_nodes &&
				     i < NPUC_MAX_PLUGIN_NODES; i++)
			fprintf(f, "  node '%s' %s: plugin %s, %s\n",
				r->plugin_node[i].node, r->plugin_node[i].op,
				r->plugin_node[i].plugin,
				r->plugin_node[i].placement);
	}
	for (uint32_t v = 0; v < r->num_variants; v++) {
		const struct lower_report *l = &r->variant[v].lower;
		const struct mp_result *p = &l->plan;

		fprintf(f, "variant %s: %u nodes (%u views as aliases, %u in place, %u output copies); passes %.1f ms, lowering %.1f ms\n",
			r->variant[v].name, l->num_nodes, l->num_views,
			l->num_inplace, l->num_copies, r->variant[v].passes_ms,
			r->variant[v].lower_ms);
		fprintf(f, "  streams %u, tasks %u (", l->num_streams,
			l->num_tasks);
		for (uint32_t s = 0; s < l->num_streams && s < 64; s++)
			fprintf(f, "%s%u", s ? " + " : "",
				l->tasks_per_stream[s]);
		fprintf(f, "), cross-stream edges %u, signal/wait pairs %u, semaphores %u\n",
			l->num_cross_edges, l->num_sync_pairs,
			l->num_semaphores);
		fprintf(f, "  budget: %u semaphores with the runtime's %u (of %u)%s\n",
			l->semaphore_budget_used,
			l->semaphore_budget_used - l->num_semaphores,
			r->target.semaphore_budget,
			l->streams_cut ? ", streams reduced to fit" : "");
		fprintf(f, "  workspace %lld bytes (%u tensors): lower bound %lld (+%.2f%%), no reuse %lld (saves %.1f%%), by %s%s in %.1f ms\n",
			(long long)p->arena, l->num_workspace_tensors,
			(long long)p->lower_bound,
			pct(p->arena, p->lower_bound), (long long)p->no_reuse,
			p->no_reuse ? 100.0 * (double)(p->no_reuse - p->arena) /
				      (double)p->no_reuse : 0.0,
			mp_planner_name(p->best), p->optimal ? " (optimal)" : "",
			p->ms);
		for (int i = 0; i < MP_NUM_PLANNERS; i++)
			if (p->planner[i].ran)
				fprintf(f, "    %-17s %lld (%.1f ms)\n",
					mp_planner_name(i),
					(long long)p->planner[i].arena,
					p->planner[i].ms);
		if (l->num_may_overlap)
			fprintf(f, "  cross-stream may-overlap pairs: %u\n",
				l->num_may_overlap);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void npuc_report_json(const struct npuc_report *r, FILE *f)
{
	fprintf(f, "{\n  \"model\": ");
	json_str(f, r->model);
	fprintf(f, ",\n  \"opt_level\": %d,\n  \"om_size\": %llu,\n  \"weights_size\": %llu,\n",
		r->opt_level, (unsigned long long)r->om_size,
		(unsigned long long)r->weights_size);
	fprintf(f, "  \"import_ms\": %.3f,\n  \"compile_ms\": %.3f,\n  \"total_ms\": %.3f,\n",
		r->import_ms, r->compile_ms, r->total_ms);
	fprintf(f, "  \"cache\": \"%s\",\n  \"cache_key\": \"%s\",\n",
		cache_word(r->cache, r->cache_corrupt_seen), r->cache_key);
	if (r->part_on)
		fprintf(f, "  \"partitions\": {\"count\": %u, \"found\": %u, \"stored\": %u, \"nodes\": %u, \"nodes_reused\": %u, \"derived\": %u, \"derived_hit\": %u, \"bytes_reused\": %llu, \"saved_ms\": %.3f, \"plan_ms\": %.3f, \"corrupt\": %u},\n",
			r->part.partitions, r->part.partitions_found,
			r->part.partitions_stored, r->part.nodes,
			r->part.nodes_reused, r->part.derived,
			r->part.derived_hit,
			(unsigned long long)r->part.bytes_reused,
			r->part.saved_ms, r->part.plan_ms, r->part.corrupt);
	fprintf(f, "  \"passes\": ");
	json_str(f, r->passes);
	fprintf(f, ",\n  \"target\": {\"name\": ");
	json_str(f, r->target.name);
	fprintf(f, ", \"cores\": %u, \"queues\": %u, \"semaphores\": %u, \"vram_size\": %llu, \"streams_asked\": %u, \"max_streams\": %u, \"stream_limit\": \"%s\", \"semaphore_budget\": %u}",
		r->target.num_cores, r->target.num_queues,
		r->target.num_semaphores,
		(unsigned long long)r->target.vram_size,
		r->target.streams_asked, r->target.max_streams,
		r->target.stream_limit, r->target.semaphore_budget);
	fprintf(f, ",\n  \"plugin_nodes\": [");
	for (uint32_t i = 0; i < r->num_plugin_nodes &&
			     i < NPUC_MAX_PLUGIN_NODES; i++) {
		fprintf(f, "%s{\"node\": ", i ? ", " : "");
		json_str(f, r->plugin_node[i].node);
		fprintf(f, ", \"op\": ");
		json_str(f, r->plugin_node[i].op);
		fprintf(f, ", \"plugin\": ");
		json_str(f, r->plugin_node[i].plugin);
		fprintf(f, ", \"placement\": \"%s\"}",
			r->plugin_node[i].placement);
	}
	fprintf(f, "],\n  \"host_tasks\": %u", r->num_host_tasks);
	fprintf(f, ",\n  \"nodes_before\": %u,\n  \"nodes_after\": %u,\n  \"variants\": [",
		r->nodes_before, r->nodes_after);
	for (uint32_t v = 0; v < r->num_variants; v++) {
		const struct lower_report *l = &r->variant[v].lower;
		const struct mp_result *p = &l->plan;

		fprintf(f, "%s\n    {\"name\": ", v ? "," : "");
		json_str(f, r->variant[v].name);
		fprintf(f, ", \"passes_ms\": %.3f, \"lower_ms\": %.3f, \"nodes\": %u, \"views\": %u, \"inplace\": %u, \"copies\": %u, \"streams\": %u, \"tasks\": %u, \"tasks_per_stream\": [",
			r->variant[v].passes_ms, r->variant[v].lower_ms,
			l->num_nodes, l->num_views, l->num_inplace,
			l->num_copies, l->num_streams, l->num_tasks);
		for (uint32_t s = 0; s < l->num_streams && s < 64; s++)
			fprintf(f, "%s%u", s ? ", " : "", l->tasks_per_stream[s]);
		fprintf(f, "], \"cross_stream_edges\": %u, \"sync_pairs\": %u, \"semaphores\": %u, \"semaphore_budget_used\": %u, \"weights_referenced\": %llu,\n",
			l->num_cross_edges, l->num_sync_pairs,
			l->num_semaphores, l->semaphore_budget_used,
			(unsigned long long)l->weights_bytes);
		fprintf(f, "     \"plan\": {\"workspace\": %lld, \"lower_bound\": %lld, \"no_reuse\": %lld, \"tensors\": %u, \"best\": \"%s\", \"optimal\": %s, \"ms\": %.3f, \"may_overlap_pairs\": %u, \"planners\": {",
			(long long)p->arena, (long long)p->lower_bound,
			(long long)p->no_reuse, l->num_workspace_tensors,
			mp_planner_name(p->best), p->optimal ? "true" : "false",
			p->ms, l->num_may_overlap);
		for (int i = 0, k = 0; i < MP_NUM_PLANNERS; i++)
			if (p->planner[i].ran)
				fprintf(f, "%s\"%s\": {\"arena\": %lld, \"ms\": %.3f}",
					k++ ? ", " : "", mp_planner_name(i),
					(long long)p->planner[i].arena,
					p->planner[i].ms);
		fprintf(f, "}}}");
	}
	fprintf(f, "\n  ]\n}\n");
}
