/* SPDX-License-Identifier: MIT */
/*
 * npuc.h - the whole compile pipeline as one library call:
 * ONNX file + options -> .om bytes + report.
 *
 * import -> shape inference -> (per shape gear: bind the gear's dims ->
 * shape inference -> passes -> lowering, streams, memory plan) -> .om
 * writer, with the compile cache (cache.h) in front: a hit returns the
 * stored model and report without compiling.
 */
#ifndef NPUC_DRIVER_H
#define NPUC_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cache/partition.h"
#include "lower/lower.h"
#include "target.h"

#define NPUC_VERSION_MAJOR	1
#define NPUC_VERSION_MINOR	0
#define NPUC_VERSION_PATCH	0
#define NPUC_MAX_VARIANTS	16

struct npuc_options {
	const char *input_shapes;	/* "name:1,3,224,224;..." or NULL */
	const char *dynamic_batch;	/* "1,2,4,8" or NULL */
	const char *dynamic_dims;	/* "v,v;v,v" per gear, or NULL */
	const char *input_format;	/* "NCHW", "NHWC", "ND" or NULL */
	int opt_level;			/* 0..3 (default 2) */
	const char *disable_passes;	/* "name,name" or NULL */
	const char *dump_ir_after;	/* pass name, or NULL */
	FILE *dump_file;		/* where dumps go (NULL: stderr) */
	bool no_cache;
	const char *cache_dir;		/* NULL: the default directory */
	uint32_t max_streams;		/* 0: by -O level (4 from -O2) */
	const char *target;		/* profile name; NULL: the default */
	const struct npuc_target *target_desc;	/* wins over @target */
	unsigned int plan_budget_ms;	/* 0: by -O level */
	int64_t symbol_default;		/* > 0: symbols no gear binds */
	const char *aipp_conf;		/* AIPP config text, or NULL */
	const char *plugins;		/* "a.so:b.so" to load, or NULL */
	bool no_host_engine;		/* plugin host kernels refused */
	const char *precision;		/* --precision, NULL: keep dtypes */
	const char *keep_dtype;		/* --keep-dtype list, or NULL */
};

#define NPUC_MAX_PLUGIN_NODES	32

/**
 * struct npuc_plugin_node - a node a plugin served (the report)
 * @node: the ONNX node's name
 * @op: "domain::OpType"
 * @plugin: "name version digest"
 * @placement: "decomposed" (into device ops) or "host" (its host kernel)
 */
struct npuc_plugin_node {
	char node[64];
	char op[64];
	char plugin[64];
	char placement[16];
};

struct npuc_variant_report {
	char name[64];
	struct lower_report lower;
	/* milliseconds: shape inference and passes; lowering and planning */
	double passes_ms, lower_ms;
};

/* Plain data (it is stored in the cache next to the model). */
/**
 * struct npuc_target_report - the target and what its budget chose
 * @name: profile or "device:SPEC"
 * @num_cores, @num_queues, @num_semaphores, @vram_size: of the target
 * @streams_asked: --max-streams, or the -O level's figure
 * @max_streams: the target's bound on them
 * @stream_limit: what bounds @max_streams ("option", "queues")
 * @semaphore_budget: semaphores one model may use, the runtime's included
 * @runtime_semaphores: the runtime's share for the chosen streams
 */
struct npuc_target_report {
	char name[64];
	uint32_t num_cores, num_queues, num_semaphores;
	uint64_t vram_size;
	uint32_t streams_asked;
	uint32_t max_streams;
	char stream_limit[16];
	uint32_t semaphore_budget;
	uint32_t runtime_semaphores;
};

struct npuc_report {
	char model[128];
	struct npuc_target_report target;
	int opt_level;
	char passes[1024];		/* passes applied, with counts */
	uint32_t num_passes;
	uint32_t nodes_before, nodes_after;	/* first gear */
	uint32_t num_variants;
	struct npuc_variant_report variant[NPUC_MAX_VARIANTS];
	uint64_t om_size;
	uint64_t weights_size;		/* in the file, deduplicated */
	double import_ms, compile_ms, total_ms;
	int cache;			/* enum cache_status, -1 no cache */
	bool cache_corrupt_seen;	/* a damaged entry was replaced */
	char cache_key[33];
	/*
	 * The partition cache (compiler/cache/partition.h), on a miss of
	 * the whole-model cache: @on when it was used.
	 */
	bool part_on;
	struct part_stats part;
	uint32_t num_plugin_nodes;	/* all of them; the first listed */
	struct npuc_plugin_node plugin_node[NPUC_MAX_PLUGIN_NODES];
	uint32_t num_host_tasks;	/* host tasks of the first gear */
};

/**
 * struct npuc_om - a compiled model's bytes
 * @data: the .om image
 * @size: its bytes
 * @map_len: 0 when @data is malloc()'ed; else @data lies in a cache
 *	entry's read-only mapping of that length (a cache hit)
 *
 * Give it back with npuc_om_release(), whichever it is.
 */
struct npuc_om {
	void *data;
	size_t size;
	size_t map_len;
};

void npuc_om_release(struct npuc_om *om);

/**
 * npuc_compile_file() - compile an ONNX model
 * @path: the .onnx file
 * @opt: options (NULL: defaults)
 * @om: out, the .om (npuc_om_release() it)
 * @rep: out, the report
 * @err: message on failure (names what was wrong and what to do)
 * Return: 0 or a negative errno.
 */
int npuc_compile_file(const char *path, const struct npuc_options *opt,
		      struct npuc_om *om, struct npuc_report *rep,
		      char *err, size_t errlen);

/*
 * npuc_compile_buffer() - the same from ONNX bytes in memory (@base_dir:
 * where external data files are, or NULL; @name: the report's model name)
 */
int npuc_compile_buffer(const void *data, size_t size, const char *name,
			const char *base_dir, const struct npuc_options *opt,
			struct npuc_om *om, struct npuc_report *rep,
			char *err, size_t errlen);

struct ir_graph;
/*
 * npuc_compile_ir() - compile a graph built with the IR API (single-op
 * mode); takes ownership of @g (freed in every case)
 */
int npuc_compile_ir(struct ir_graph *g, const char *name,
		    const struct npuc_options *opt, struct npuc_om *om,
		    struct npuc_report *rep, char *err, size_t errlen);

void npuc_report_print(const struct npuc_report *r, FILE *f);
void npuc_report_json(const struct npuc_report *r, FILE *f);

#endif /* NPUC_DRIVER_H */
