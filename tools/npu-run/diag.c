// SPDX-License-Identifier: MIT
/*
 * diag.c - npu-run's diagnosis modes (Documentation/diagnosis.rst):
 *
 * --dump DIR        every recorded ONNX tensor of the first execution as
 *                   DIR/<name>.npy in the ONNX layout, and DIR/index.json
 *                   (task, stream, op, node, ONNX nodes, shape, dtype,
 *                   stored layout, device time, inputs, finiteness)
 * --dump-filter     node=GLOB | op=TYPE | tensor=GLOB | task=A-B (global
 *                   task indices); a tensor is dumped when any filter
 *                   matches (all without filters)
 * --check-overflow  the same execution checked for inf/NaN: the first
 *                   tensor that has one is named with its task and ONNX
 *                   nodes, with the value ranges of its task's inputs
 * --profile-summary device time per op type and per node, top N
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <drm/npu_drm.h>

#include "diag.h"
#include "dumpfmt.h"
#include "npy.h"
#include "om.h"

/* Range of a tensor seen in this execution (for the inputs of a task). */
struct seen {
	char *name;
	double min, max;
	uint64_t nonfinite;
};

static struct {
	const struct diag_opts *o;
	FILE *index;
	int first_entry;
	char **files;
	size_t num_files;
	struct seen *seen;
	size_t num_seen, cap_seen;
	size_t dumped, bytes, nonfinite_tensors;
	char first_bad[2048];
	int failed;
} dd;

int diag_check_filter(const char *spec)
{
	unsigned long a, b;
	char *end;

	if (!strncmp(spec, "node=", 5) || !strncmp(spec, "op=", 3) ||
	    !strncmp(spec, "tensor=", 7))
		return 0;
	if (!strncmp(spec, "task=", 5)) {
		a = strtoul(spec + 5, &end, 10);
		b = a;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (end != spec + 5 && !*end && a <= b)
			return 0;
	}
	fprintf(stderr, "npu-run: --dump-filter wants node=GLOB, op=TYPE, "
		"tensor=GLOB or task=A-B; got \"%s\"\n", spec);
	return -1;
}

int diag_dumping(const struct diag_opts *d)
{
	return d->dump_dir || d->check_overflow;
}

static int match(const char *spec, const npurt_dump_tensor *t)
{
	if (!strncmp(spec, "node=", 5)) {
		if (!fnmatch(spec + 5, t->node, 0))
			return 1;
		for (uint32_t i = 0; i < t->num_nodes; i++)
			if (!fnmatch(spec + 5, t->nodes[i], 0))
				return 1;
		return 0;
	}
	if (!strncmp(spec, "op=", 3))
		return !strcmp(spec + 3, t->op);
	if (!strncmp(spec, "tensor=", 7))
		return !fnmatch(spec + 7, t->name, 0);
	if (!strncmp(spec, "task=", 5)) {
		char *end;
		unsigned long a = strtoul(spec + 5, &end, 10), b = a;

		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		return t->task >= a && t->task <= b;
	}
	return 0;
}

static int select_cb(void *user, const npurt_dump_tensor *t)
{
	const struct diag_opts *o = user;

	if (o->select)
		return o->select(o->select_arg, t);
	if (!o->num_filters)
		return 1;
	for (int i = 0; i < o->num_filters; i++)
		if (match(o->filters[i], t))
			return 1;
	return 0;
}

static const char *jstr(const char *s, char *b, size_t len)
{
	size_t n = 0;

	for (; *s && n + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			b[n++] = '\\';
			b[n++] = (char)c;
		} else if (c < 0x20) {
			n += (size_t)snprintf(b + n, 7, "\\u%04x", c);
		} else {
			b[n++] = (char)c;
		}
	}
	b[n] = 0;
	return b;
}

static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;

	if (e == 0x1f)
		v = m ? NAN : INFINITY;
	else if (!e)
		v = ldexp(m, -24);
	else
		v = ldexp(m | 0x400, e - 25);
	return h & 0x8000 ? -v : v;
}

/* Value @i of a dumped tensor as a double. */
static double value(const npurt_dump_tensor *t, size_t i)
{
	const uint8_t *p = t->data;

	switch (t->dtype) {
	case NPURT_DTYPE_F32: { float f; memcpy(&f, p + 4 * i, 4); return f; }
	case NPURT_DTYPE_F16: { uint16_t h; memcpy(&h, p + 2 * i, 2);
		return half_to_double(h); }
	case NPURT_DTYPE_I8: return (int8_t)p[i];
	case NPURT_DTYPE_U8: case NPURT_DTYPE_BOOL: return p[i];
	case NPURT_DTYPE_I32: { int32_t v; memcpy(&v, p + 4 * i, 4);
		return v; }
	case NPURT_DTYPE_I64: { int64_t v; memcpy(&v, p + 8 * i, 8);
		return (double)v; }
	default: return 0;
	}
}

static size_t elem_size(npurt_dtype dt)
{
	switch (dt) {
	case NPURT_DTYPE_F32: case NPURT_DTYPE_I32: return 4;
	case NPURT_DTYPE_F16: return 2;
	case NPURT_DTYPE_I64: return 8;
	default: return 1;
	}
}

static const struct seen *find_seen(const char *name)
{
	for (size_t i = dd.num_seen; i-- > 0;)
		if (!strcmp(dd.seen[i].name, name))
			return &dd.seen[i];
	return NULL;
}

static const char *dtype_str(npurt_dtype dt)
{
	switch (dt) {
	case NPURT_DTYPE_F32: return "float32";
	case NPURT_DTYPE_F16: return "float16";
	case NPURT_DTYPE_I8: return "int8";
	case NPURT_DTYPE_U8: return "uint8";
	case NPURT_DTYPE_I32: return "int32";
	case NPURT_DTYPE_I64: return "int64";
	case NPURT_DTYPE_BOOL: return "bool";
	default: return "?";
	}
}

/* The file for @name: its stem, "~N" when another tensor took it. */
static char *file_for(const char *name)
{
	char stem[240], file[256];
	char **p;

	dumpfmt_stem(name, stem, sizeof(stem));
	snprintf(file, sizeof(file), "%s.npy", stem);
	for (int k = 2;; k++) {
		size_t i;

		for (i = 0; i < dd.num_files && strcmp(dd.files[i], file); i++)
			;
		if (i == dd.num_files)
			break;
		snprintf(file, sizeof(file), "%s~%d.npy", stem, k);
	}
	p = realloc(dd.files, (dd.num_files + 1) * sizeof(*p));
	if (!p)
		return NULL;
	dd.files = p;
	dd.files[dd.num_files] = strdup(file);
	return dd.files[dd.num_files] ? dd.files[dd.num_files++] : NULL;
}

static int dump_cb(void *user, const npurt_dump_tensor *t)
{
	const struct diag_opts *o = user;
	size_t n = t->size / elem_size(t->dtype);
	double mn = INFINITY, mx = -INFINITY;
	uint64_t inf = 0, nan = 0;
	char b1[1024], b2[1024], b3[256];
	struct seen *s;

	for (size_t i = 0; i < n; i++) {
		double v = value(t, i);

		if (isnan(v))
			nan++;
		else if (isinf(v))
			inf++;
		else {
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
		}
	}
	if (dd.num_seen == dd.cap_seen) {
		size_t cap = dd.cap_seen ? 2 * dd.cap_seen : 64;

		s = realloc(dd.seen, cap * sizeof(*s));
		if (s) {
			dd.seen = s;
			dd.cap_seen = cap;
		}
	}
	if (dd.num_seen < dd.cap_seen) {
		s = &dd.seen[dd.num_seen++];
		s->name = strdup(t->name);
		s->min = mn;
		s->max = mx;
		s->nonfinite = inf + nan;
		if (!s->name)
			dd.num_seen--;
	}
	if ((inf || nan) && !dd.nonfinite_tensors++) {
		size_t u = 0;

		u += (size_t)snprintf(dd.first_bad + u, sizeof(dd.first_bad) -
			u, "overflow     first non-finite tensor: %s (%llu inf, "
			"%llu NaN of %zu)\n             task %u (stream %u "
			"task %u, %s, node %s), ONNX nodes:", t->name,
			(unsigned long long)inf, (unsigned long long)nan, n,
			t->task, t->model_stream, t->stream_task, t->op,
			t->node);
		for (uint32_t i = 0; i < t->num_nodes &&
		     u < sizeof(dd.first_bad); i++)
			u += (size_t)snprintf(dd.first_bad + u,
					      sizeof(dd.first_bad) - u, " %s",
					      t->nodes[i]);
		for (uint32_t i = 0; i < t->num_inputs &&
		     u < sizeof(dd.first_bad); i++) {
			const struct seen *in = find_seen(t->input_names[i]);

			if (in)
				u += (size_t)snprintf(dd.first_bad + u,
					sizeof(dd.first_bad) - u,
					"\n             input %s: [%.6g, %.6g]%s",
					in->name, in->min, in->max,
					in->nonfinite ? " and non-finite "
					"values" : "");
			else
				u += (size_t)snprintf(dd.first_bad + u,
					sizeof(dd.first_bad) - u,
					"\n             input %s",
					*t->input_names[i] ?
					t->input_names[i] : "(not recorded)");
		}
		if (t->dtype == NPURT_DTYPE_F16 && u < sizeof(dd.first_bad))
			u += (size_t)snprintf(dd.first_bad + u,
				sizeof(dd.first_bad) - u,
				"\n             an f16 tensor: values beyond "
				"+-65504 overflow; keep the ONNX node in f32 "
				"(npuc --keep-dtype NODE), or let npu-compare "
				"--bisect find a keep-list");
		if (u < sizeof(dd.first_bad))
			snprintf(dd.first_bad + u, sizeof(dd.first_bad) - u,
				 "\n");
	}
	if (!o->dump_dir || !dd.index)
		return 0;
	{
		char path[4096], err[256];
		const char *file = file_for(t->name);

		if (!file) {
			dd.failed = 1;
			return 1;
		}
		snprintf(path, sizeof(path), "%s/%s", o->dump_dir, file);
		if (npy_write(path, t->dtype, t->rank, t->dims, t->data,
			      err)) {
			fprintf(stderr, "npu-run: %s\n", err);
			dd.failed = 1;
			return 1;
		}
		fprintf(dd.index, "%s\n  {\"tensor\": \"%s\", \"file\": \"%s\", "
			"\"task\": %u, \"stream\": %u, \"stream_task\": %u, "
			"\"op\": \"%s\", ", dd.first_entry ? "" : ",",
			jstr(t->name, b1, sizeof(b1)),
			jstr(file, b2, sizeof(b2)), t->task, t->model_stream,
			t->stream_task, jstr(t->op, b3, sizeof(b3)));
		fprintf(dd.index, "\"node\": \"%s\", \"nodes\": [",
			jstr(t->node, b1, sizeof(b1)));
		for (uint32_t i = 0; i < t->num_nodes; i++)
			fprintf(dd.index, "%s\"%s\"", i ? ", " : "",
				jstr(t->nodes[i], b1, sizeof(b1)));
		fprintf(dd.index, "], \"dtype\": \"%s\", \"shape\": [",
			dtype_str(t->dtype));
		for (uint32_t k = 0; k < t->rank; k++)
			fprintf(dd.index, "%s%llu", k ? ", " : "",
				(unsigned long long)t->dims[k]);
		fprintf(dd.index, "], \"stored_layout\": \"%s\", "
			"\"device_ns\": %llu, \"inputs\": [", t->stored_layout,
			(unsigned long long)t->device_ns);
		for (uint32_t i = 0; i < t->num_inputs; i++)
			fprintf(dd.index, "%s\"%s\"", i ? ", " : "",
				jstr(t->input_names[i], b1, sizeof(b1)));
		fprintf(dd.index, "], \"finite\": %s}",
			inf || nan ? "false" : "true");
		dd.first_entry = 0;
		dd.dumped++;
		dd.bytes += t->size;
	}
	return 0;
}

int diag_dump_begin(npurt_model *m, const struct diag_opts *d,
		    const char *model_path)
{
	npurt_dump_config cfg = { select_cb, dump_cb, (void *)d };
	char path[4096], b[1024];

	memset(&dd, 0, sizeof(dd));
	dd.o = d;
	dd.first_entry = 1;
	if (d->dump_dir) {
		if (mkdir(d->dump_dir, 0755) && errno != EEXIST) {
			fprintf(stderr, "npu-run: cannot create %s: %s\n",
				d->dump_dir, strerror(errno));
			return 2;
		}
		snprintf(path, sizeof(path), "%s/index.json", d->dump_dir);
		dd.index = fopen(path, "w");
		if (!dd.index) {
			fprintf(stderr, "npu-run: cannot write %s: %s\n", path,
				strerror(errno));
			return 2;
		}
		fprintf(dd.index, "{\"model\": \"%s\", \"layout\": \"onnx\", "
			"\"tensors\": [", jstr(model_path, b, sizeof(b)));
	}
	if (npurt_model_set_dump(m, &cfg)) {
		const npurt_error *e = npurt_last_error();

		fprintf(stderr, "npu-run: dump: %s (%s)\n", e->reason,
			e->action);
		return 2;
	}
	return 0;
}

int diag_dump_end(npurt_model *m, const struct diag_opts *d)
{
	int ret = 0;

	npurt_model_set_dump(m, NULL);
	if (dd.index) {
		fprintf(dd.index, "\n]}\n");
		if (fclose(dd.index))
			dd.failed = 1;
		dd.index = NULL;
		if (!d->quiet)
			printf("dump         %zu tensors, %.1f KiB in %s\n",
			       dd.dumped, (double)dd.bytes / 1024,
			       d->dump_dir);
	}
	if (d->check_overflow) {
		if (dd.nonfinite_tensors) {
			printf("%s", dd.first_bad);
			printf("overflow     %zu of %zu tensors have inf or "
			       "NaN\n", dd.nonfinite_tensors, dd.num_seen);
			ret = 1;
		} else {
			printf("overflow     none: %zu tensors finite\n",
			       dd.num_seen);
		}
	}
	for (size_t i = 0; i < dd.num_files; i++)
		free(dd.files[i]);
	free(dd.files);
	for (size_t i = 0; i < dd.num_seen; i++)
		free(dd.seen[i].name);
	free(dd.seen);
	if (dd.failed)
		return 2;
	return ret;
}

/* ---- profile summary ---- */

static double elems(const struct drm_npu_operand *o)
{
	double n = 1;

	for (uint32_t k = 0; k < o->rank && k < DRM_NPU_MAX_RANK; k++)
		n *= o->shape[k];
	return n;
}

/*
 * The arithmetic of one task: multiply-adds count 2 (CONV2D, MATMUL, their
 * int8 forms, the two products of ATTENTION), every other op one per
 * output element (integer operations for the int8 ops); and
 * the bytes its operands hold (read and written once: the least traffic
 * the task needs). From the task descriptor, as the device sees it.
 */
static void task_cost(const struct drm_npu_task *t, double *flops,
		      double *bytes)
{
	const struct drm_npu_operand *op = t->operands;
	uint32_t n = t->num_operands;
	/* the operand it writes: QUANTIZE and DEQUANTIZE write operand 1 */
	uint32_t oi = t->opcode == DRM_NPU_OP_QUANTIZE ||
		      t->opcode == DRM_NPU_OP_DEQUANTIZE ? 1 : n - 1;
	const struct drm_npu_operand *out = n && oi < n ? &op[oi] : NULL;

	*flops = 0;
	*bytes = 0;
	for (uint32_t i = 0; i < n && i < DRM_NPU_MAX_OPERANDS; i++)
		*bytes += elems(&op[i]) * om_dtype_size(op[i].dtype);
	if (!out)
		return;
	switch (t->opcode) {
	case DRM_NPU_OP_CONV2D:
	case DRM_NPU_OP_QCONV2D:
		/* out N, C, H, W (NCHW) or N, C1, H, W, C0: N*OH*OW output
		 * pixels, each O * I*KH*KW multiply-adds (weight OIHW) */
		if (n >= 3 && out->rank >= 4)
			*flops = 2.0 * out->shape[0] * out->shape[2] *
				 out->shape[3] * elems(&op[1]);
		break;
	case DRM_NPU_OP_MATMUL:
	case DRM_NPU_OP_QMATMUL:
		if (n >= 3 && op[0].rank >= 1) {
			uint32_t ra = op[0].rank;
			uint32_t k = t->opcode == DRM_NPU_OP_MATMUL &&
				     (t->params.matmul.flags &
				      DRM_NPU_MATMUL_TRANS_A) && ra >= 2 ?
				     op[0].shape[ra - 2] : op[0].shape[ra - 1];

			*flops = 2.0 * elems(out) * k;
		}
		break;
	case DRM_NPU_OP_ATTENTION:
		/* Q K^T and P V: 2 * Sk * (Q's elements + out's) */
		if (n >= 4 && op[1].rank >= 2)
			*flops = 2.0 * op[1].shape[op[1].rank - 2] *
				 (elems(&op[0]) + elems(out));
		break;
	case DRM_NPU_OP_NOP:
	case DRM_NPU_OP_SEM_SIGNAL:
	case DRM_NPU_OP_SEM_WAIT:
		break;
	default:
		*flops = elems(out);
		break;
	}
}

struct group {
	const char *key, *op;
	uint64_t ns;
	unsigned long count;
	double flops, bytes;
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->key, y->key);
}

static size_t add_group(struct group *g, size_t n, const char *key,
			const char *op, uint64_t ns, double flops,
			double bytes)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(g[i].key, key)) {
			/* a node's op is its compute task's, not a
			 * semaphore task's of the same node */
			if (!strncmp(g[i].op, "Sem", 3))
				g[i].op = op;
			g[i].ns += ns;
			g[i].count++;
			g[i].flops += flops;
			g[i].bytes += bytes;
			return n;
		}
	g[n] = (struct group){ key, op, ns, 1, flops, bytes };
	return n + 1;
}

/* FLOP per ns = GFLOP/s; bytes per ns = GB/s */
static double rate(double x, uint64_t ns)
{
	return ns ? x / (double)ns : 0.0;
}

static void table(FILE *out, const char *what, struct group *g, size_t n,
		  uint64_t total, long runs, long top, int costs)
{
	fprintf(out, "profile      by %s (top %ld of %zu), per run:\n", what,
		top < (long)n ? top : (long)n, n);
	fprintf(out, "  %-40s %-18s %8s %11s %7s", what, "op", "tasks",
		"time us", "share");
	fprintf(out, costs ? " %9s %9s %8s\n" : "\n", "GFLOP", "GFLOP/s",
		"GB/s");
	for (size_t i = 0; i < n && (long)i < top; i++) {
		fprintf(out, "  %-40.40s %-18.18s %8.1f %11.1f %6.1f%%",
			g[i].key, g[i].op, (double)g[i].count / (double)runs,
			(double)g[i].ns / 1e3 / (double)runs,
			total ? 100.0 * (double)g[i].ns / (double)total : 0.0);
		if (costs)
			fprintf(out, " %9.4f %9.2f %8.2f", g[i].flops / 1e9 /
				(double)runs, rate(g[i].flops, g[i].ns),
				rate(g[i].bytes, g[i].ns));
		fprintf(out, "\n");
	}
}

static void json_groups(FILE *f, const char *key, const struct group *g,
			size_t n, uint64_t total, long runs, int costs)
{
	char b[1024];

	fprintf(f, "  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\n    {\"name\": \"%s\", ", i ? "," : "",
			jstr(g[i].key, b, sizeof(b)));
		fprintf(f, "\"op\": \"%s\", \"tasks\": %.3f, \"time_us\": %.3f, "
			"\"share\": %.6f", jstr(g[i].op, b, sizeof(b)),
			(double)g[i].count / (double)runs,
			(double)g[i].ns / 1e3 / (double)runs,
			total ? (double)g[i].ns / (double)total : 0.0);
		if (costs)
			fprintf(f, ", \"gflop\": %.9g, \"gflops\": %.3f, "
				"\"gbytes_per_s\": %.3f", g[i].flops / 1e9 /
				(double)runs, rate(g[i].flops, g[i].ns),
				rate(g[i].bytes, g[i].ns));
		fprintf(f, "}");
	}
	fprintf(f, "\n  ]");
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * The run's device span (first task's start to last task's end) and the
 * part of it some task was running (the union of the task intervals).
 */
static void coverage(const npurt_task_record *r, const long *iter, size_t n,
		     long it, uint64_t *span, uint64_t *busy)
{
	uint64_t *iv = malloc(2 * n * sizeof(*iv) + 1);
	size_t k = 0;
	uint64_t end = 0;

	*span = *busy = 0;
	if (!iv)
		return;
	for (size_t i = 0; i < n; i++)
		if (iter[i] == it && r[i].end_ns > r[i].start_ns) {
			iv[2 * k] = r[i].start_ns;
			iv[2 * k + 1] = r[i].end_ns;
			k++;
		}
	qsort(iv, k, 2 * sizeof(*iv), cmp_u64);
	for (size_t i = 0; i < k; i++) {
		uint64_t s = iv[2 * i], e = iv[2 * i + 1];

		if (s < end)
			s = end;
		if (e > s)
			*busy += e - s;
		if (e > end)
			end = e;
	}
	if (k)
		*span = end - iv[0];
	free(iv);
}

void diag_profile_summary(const npurt_task_record *r, const long *iter,
			  size_t n, long first_iter, const struct diag_opts *d,
			  const struct om_model *om, uint32_t variant,
			  FILE *out)
{
	struct group *ops = calloc(n + 1, sizeof(*ops));
	struct group *nodes = calloc(n + 1, sizeof(*nodes));
	size_t nops = 0, nnodes = 0;
	uint64_t total = 0, span = 0, busy = 0;
	double flops = 0, bytes = 0;
	long runs = 0, last = -1;
	int costs = om != NULL;

	if (!ops || !nodes) {
		free(ops);
		free(nodes);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t ns;

		if (iter[i] < first_iter)
			continue;
		double f = 0, b = 0;

		if (iter[i] != last) {
			uint64_t s, u;

			runs++;
			last = iter[i];
			coverage(r, iter, n, last, &s, &u);
			span += s;
			busy += u;
		}
		ns = r[i].end_ns > r[i].start_ns ?
		     r[i].end_ns - r[i].start_ns : 0;
		total += ns;
		if (om) {
			const struct om_program_desc *p =
				om_get_program(om, variant, r[i].model_stream);
			const struct drm_npu_task *t = p && r[i].task <
				p->num_tasks ? om_get_tasks(om, p->first_task +
							    r[i].task, 1) :
				NULL;

			if (t)
				task_cost(t, &f, &b);
			else
				costs = 0;
		}
		flops += f;
		bytes += b;
		nops = add_group(ops, nops, r[i].op, r[i].op, ns, f, b);
		nnodes = add_group(nodes, nnodes, *r[i].node ? r[i].node :
				   r[i].op, r[i].op, ns, f, b);
	}
	if (!runs) {
		fprintf(out, "profile      no profiled run\n");
		free(ops);
		free(nodes);
		return;
	}
	qsort(ops, nops, sizeof(*ops), cmp_group);
	qsort(nodes, nnodes, sizeof(*nodes), cmp_group);
	fprintf(out, "profile      %.1f us device time per run (sum over "
		"tasks), %ld run(s)\n", (double)total / 1e3 / (double)runs,
		runs);
	fprintf(out, "profile      the tasks cover %.2f%% of the runs' device "
		"span (first task start to last task end, %.1f us per run)\n",
		span ? 100.0 * (double)busy / (double)span : 0.0,
		(double)span / 1e3 / (double)runs);
	if (costs)
		fprintf(out, "profile      %.3f GFLOP per run, %.2f GFLOP/s over "
			"the task time, %.2f over the span\n",
			flops / 1e9 / (double)runs, rate(flops, total),
			rate(flops, span));
	table(out, "op type", ops, nops, total, runs, d->profile_top, costs);
	table(out, "node", nodes, nnodes, total, runs, d->profile_top, costs);
	if (d->profile_json) {
		FILE *f = fopen(d->profile_json, "w");

		if (!f) {
			fprintf(stderr, "npu-run: cannot write %s\n",
				d->profile_json);
		} else {
			fprintf(f, "{\n  \"runs\": %ld,\n  \"device_us_per_run\":"
				" %.3f,\n", runs, (double)total / 1e3 /
				(double)runs);
			fprintf(f, "  \"span_us_per_run\": %.3f,\n  \"coverage\": "
				"%.6f,\n", (double)span / 1e3 / (double)runs,
				span ? (double)busy / (double)span : 0.0);
			if (costs)
				fprintf(f, "  \"gflop_per_run\": %.9g,\n  "
					"\"gflops\": %.3f,\n  \"gflops_span\": "
					"%.3f,\n", flops / 1e9 / (double)runs,
					rate(flops, total), rate(flops, span));
			json_groups(f, "op_types", ops, nops, total, runs,
				    costs);
			fprintf(f, ",\n");
			json_groups(f, "nodes", nodes, nnodes, total, runs,
				    costs);
			fprintf(f, "\n}\n");
			fclose(f);
		}
	}
	free(ops);
	free(nodes);
}
