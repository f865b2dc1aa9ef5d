// SPDX-License-Identifier: MIT
/*
 * npu-om - inspect a compiled model file: header, partition table, I/O,
 * shape variants, streams and their tasks, memory plan, semaphores.
 * Documentation/npu-run.rst ("npu-om").
 *
 * Exit status: 0 the file is valid, 1 it is refused (the reason is
 * printed; with --force the structure is still shown when only the
 * checksum is wrong), 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "om.h"
#include "om_timing.h"

static void print_version(const char *what, uint32_t v)
{
	printf("  %-22s %u.%u.%u\n", what, v >> 16, (v >> 8) & 0xff, v & 0xff);
}

static void print_dims(const struct om_model *m,
		       const struct om_tensor_desc *t)
{
	printf("[");
	for (uint32_t k = 0; k < t->rank; k++) {
		if (t->dims[k] == OM_DIM_DYNAMIC)
			printf("%s%s", k ? "," : "",
			       om_string(m, t->dim_names[k]));
		else
			printf("%s%llu", k ? "," : "",
			       (unsigned long long)t->dims[k]);
	}
	printf("]");
}

/* An output whose extent the data decides (format 1.3, COUNTS). */
static void print_count(const struct om_model *m, uint32_t variant,
			uint32_t output)
{
	const struct om_count_desc *c = om_get_count(m,
		variant == OM_VARIANT_GENERIC ? 0 : variant, output);

	if (c)
		printf("  dim %u data-dependent, at most as shown (count at "
		       "workspace +%llu)", c->dim,
		       (unsigned long long)c->offset);
}

static void print_io(const struct om_model *m, uint32_t variant,
		     const char *indent)
{
	const struct om_model_desc *d = om_get_model(m);

	for (uint32_t i = 0; i < d->num_inputs + d->num_outputs; i++) {
		enum om_io_kind k = i < d->num_inputs ? OM_IO_INPUT :
							OM_IO_OUTPUT;
		const struct om_tensor_desc *t =
			om_get_io(m, variant, k, k ? i - d->num_inputs : i);

		printf("%s%-6s %u  slot %-3u %-20s %-8s %-7s ", indent,
		       k ? "output" : "input", t->index, t->slot,
		       om_string(m, t->name), om_dtype_name(t->dtype),
		       om_layout_name(t->layout));
		print_dims(m, t);
		if (t->size_bytes)
			printf("  %llu bytes", (unsigned long long)t->size_bytes);
		if (k)
			print_count(m, variant, i - d->num_inputs);
		printf("\n");
	}
}

/* The task's ONNX nodes and the ONNX tensors complete after it. */
static void print_provenance(const struct om_model *m, uint32_t global)
{
	const struct om_debug_tensor *dt;
	uint32_t n = om_task_num_origins(m, global), nt;

	for (uint32_t i = 0; i < n; i++)
		printf("%s%s", i ? ", " : "           from onnx ",
		       om_task_origin(m, global, i));
	if (n)
		printf("\n");
	dt = om_task_tensors(m, global, &nt);
	for (uint32_t i = 0; i < nt; i++) {
		printf("           makes %s %s[", om_string(m, dt[i].name),
		       om_dtype_name(dt[i].dtype));
		for (uint32_t k = 0; k < dt[i].rank; k++)
			printf("%s%llu", k ? "," : "",
			       (unsigned long long)dt[i].dims[k]);
		printf("] %s at slot %u+%llu\n", om_layout_name(dt[i].layout),
		       dt[i].slot, (unsigned long long)dt[i].offset);
	}
}

static void print_task(const struct om_model *m, uint32_t global,
		       uint32_t local)
{
	const struct drm_npu_task *t = om_get_tasks(m, global, 1);
	const struct om_task_debug *dbg = om_get_task_debug(m, global);

	printf("      %4u %-11s", local, om_opcode_name(t->opcode));
	if (t->opcode == DRM_NPU_OP_SEM_SIGNAL ||
	    t->opcode == DRM_NPU_OP_SEM_WAIT)
		printf(" sem %u at base+%llu", t->params.sem.index,
		       (unsigned long long)t->params.sem.value);
	for (uint32_t o = 0; o < t->num_operands; o++) {
		const struct drm_npu_operand *op = &t->operands[o];

		printf(" %s%u@%llu:%s[", o ? "" : "", op->slot,
		       (unsigned long long)op->offset, om_dtype_name(op->dtype));
		for (uint32_t k = 0; k < op->rank; k++)
			printf("%s%u", k ? "," : "", op->shape[k]);
		printf("]");
	}
	if (dbg && (*om_string(m, dbg->op) || *om_string(m, dbg->node)))
		printf("  ; %s %s", om_string(m, dbg->op),
		       om_string(m, dbg->node));
	printf("\n");
	print_provenance(m, global);
}

#ifndef NPU_VERSION
#define NPU_VERSION	"unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: npu-om [-t|--tasks] [-f|--force] [--timing] MODEL.om\n"
		"  -t, --tasks   list every task of every stream\n"
		"  -f, --force   show a file whose checksum is wrong\n"
		"  --timing      model each variant on the device's timing model\n"
		"                (with --tasks: every task's modeled start and end)\n"
		"  --timing-json FILE   the modeled figures as JSON (- = stdout)\n"
		"  --timing-trace FILE  a Chrome trace of the modeled schedule\n"
		"  --timing-params K=V,...  override the modeled device\n"
		"                (default from $NPU_TIMING; see timing-model.rst)\n"
		"  --version     print the version and exit\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "tasks", no_argument, NULL, 't' },
		{ "force", no_argument, NULL, 'f' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ "timing", no_argument, NULL, 'T' },
		{ "timing-json", required_argument, NULL, 'J' },
		{ "timing-trace", required_argument, NULL, 'R' },
		{ "timing-params", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	const struct om_header *h;
	const struct om_model_desc *d;
	struct om_model *m;
	char err[OM_ERR_MAX], feat[128];
	int tasks = 0, force = 0, c, ret;
	struct om_timing_opts timing = { 0 };
	const char *timing_spec = getenv("NPU_TIMING");
	uint64_t wsize;

	npu_timing_params_default(&timing.params);

	while ((c = getopt_long(argc, argv, "tfh", lo, NULL)) != -1) {
		if (c == 't') {
			tasks = 1;
		} else if (c == 'f') {
			force = 1;
		} else if (c == 'T') {
			timing.text = 1;
		} else if (c == 'J') {
			timing.json = optarg;
		} else if (c == 'R') {
			timing.trace = optarg;
		} else if (c == 'P') {
			timing_spec = optarg;
		} else if (c == 'V') {
			printf("npu-om %s (.om format %u.%u)\n", NPU_VERSION,
			       OM_FORMAT_MAJOR, OM_FORMAT_MINOR);
			return 0;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (timing_spec && npu_timing_params_parse(&timing.params, timing_spec,
						   err, sizeof(err))) {
		fprintf(stderr, "npu-om: %s\n", err);
		return 2;
	}
	ret = om_open_file(argv[optind], &m, err);
	if (ret && force && strstr(err, "checksum")) {
		FILE *fp = fopen(argv[optind], "rb");
		size_t cap = 1 << 20, n = 0;
		char *buf = malloc(cap);

		while (fp && buf) {
			size_t k = fread(buf + n, 1, cap - n, fp);

			n += k;
			if (n < cap)
				break;
			cap *= 2;
			buf = realloc(buf, cap);
		}
		if (fp)
			fclose(fp);
		fprintf(stderr, "npu-om: warning: %s\n", err);
		ret = buf ? om_open_memory_ex(buf, n, OM_OPEN_SKIP_CHECKSUM, &m,
					      err) : -ENOMEM;
		free(buf);
	}
	if (ret) {
		fprintf(stderr, "npu-om: %s\n", err);
		return 1;
	}
	if (timing.text || timing.json || timing.trace) {
		timing.tasks = tasks;
		ret = om_timing_show(m, &timing);
		om_close(m);
		return ret;
	}
	h = om_get_header(m);
	d = om_get_model(m);
	printf("%s: model \"%s\"\n", argv[optind], om_model_name(m));
	printf("header\n");
	printf("  %-22s %u.%u\n", "format", h->format_major, h->format_minor);
	print_version("compiler", h->compiler_version);
	print_version("min runtime", h->min_runtime_version);
	om_features_str(h->target_features, feat, sizeof(feat));
	printf("  %-22s 0x%x, features 0x%llx (%s), uapi %u.%u\n", "target",
	       h->target_model, (unsigned long long)h->target_features, feat,
	       h->target_uapi_version >> 16, h->target_uapi_version & 0xffff);
	printf("  %-22s %llu bytes, CRC32C 0x%08x\n", "file",
	       (unsigned long long)h->file_size, h->checksum);

	printf("sections (%u)\n", om_num_sections(m));
	for (uint32_t i = 0; i < om_num_sections(m); i++) {
		const struct om_section *s = om_get_section(m, i);

		printf("  %2u %-11s offset %8llu size %8llu count %6u%s\n", i,
		       om_section_type_name(s->type),
		       (unsigned long long)s->offset,
		       (unsigned long long)s->size, s->count,
		       s->flags & OM_SECF_OPTIONAL ? " optional" : "");
	}
	om_get_weights(m, &wsize);
	printf("model\n  %u inputs, %u outputs, %u variant(s) (default %u), "
	       "%u stream(s), %u semaphore(s), weights %llu bytes%s\n",
	       d->num_inputs, d->num_outputs, d->num_variants,
	       d->default_variant, d->max_streams, d->num_semaphores,
	       (unsigned long long)wsize,
	       d->flags & OM_MODELF_DYNAMIC ? ", dynamic shapes" : "");
	print_io(m, OM_VARIANT_GENERIC, "  ");

	for (uint32_t s = 0; s < d->num_semaphores; s++)
		printf("semaphore %u%s%s: +%llu per execution\n", s,
		       *om_string(m, om_get_semaphore(m, s)->name) ? " " : "",
		       om_string(m, om_get_semaphore(m, s)->name),
		       (unsigned long long)om_get_semaphore(m, s)->increment);
	for (uint32_t i = 0; i < om_num_host_tasks(m); i++) {
		const struct om_host_task *h = om_get_host_task(m, i);

		printf("host task %u: node \"%s\" %s%s%s, variant %u stream %u "
		       "after task %u, semaphore %u; plugin %s %s digest %s; "
		       "%u in, %u out\n", i, om_string(m, h->node),
		       om_string(m, h->domain), *om_string(m, h->domain) ?
		       "::" : "", om_string(m, h->op), h->variant, h->stream,
		       h->signal_task, h->sem, om_string(m, h->plugin),
		       om_string(m, h->plugin_version),
		       om_string(m, h->plugin_digest), h->num_inputs,
		       h->num_outputs);
	}

	for (uint32_t v = 0; v < d->num_variants; v++) {
		const struct om_variant_desc *vd = om_get_variant(m, v);
		const struct om_plan_desc *p = om_get_plan(m, v);

		printf("variant %u \"%s\"\n", v, om_string(m, vd->name));
		if (d->flags & OM_MODELF_DYNAMIC)
			print_io(m, v, "  ");
		printf("  plan: workspace %llu bytes (lower bound %llu), %u "
		       "placement(s)\n", (unsigned long long)p->workspace_size,
		       (unsigned long long)p->lower_bound, p->num_placements);
		for (uint32_t i = 0; tasks && i < p->num_placements; i++) {
			const struct om_placement_desc *pl =
				om_get_placement(m, p->first_placement + i);

			printf("    %-24s [%llu, +%llu)\n",
			       om_string(m, pl->name),
			       (unsigned long long)pl->offset,
			       (unsigned long long)pl->size);
		}
		for (uint32_t s = 0; s < vd->num_programs; s++) {
			const struct om_program_desc *pr = om_get_program(m, v, s);
			uint32_t counts[DRM_NPU_OP_COUNT] = { 0 };

			printf("  stream %u: %u task(s):", s, pr->num_tasks);
			for (uint32_t k = 0; k < pr->num_tasks; k++)
				counts[om_get_tasks(m, pr->first_task + k,
						    1)->opcode]++;
			for (uint32_t op = 0; op < DRM_NPU_OP_COUNT; op++)
				if (counts[op])
					printf(" %s x%u", om_opcode_name(op),
					       counts[op]);
			printf("\n");
			for (uint32_t k = 0; tasks && k < pr->num_tasks; k++)
				print_task(m, pr->first_task + k, k);
		}
	}
	om_close(m);
	return 0;
}
