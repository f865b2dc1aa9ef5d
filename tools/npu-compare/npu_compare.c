// SPDX-License-Identifier: MIT
/*
 * npu-compare - find the first ONNX operator where a dumped execution
 * diverges from a reference (Documentation/diagnosis.rst).
 *
 *   npu-compare MODEL.onnx DUMP_DIR [--input NAME=FILE] [--ref DIR] ...
 *
 * DUMP_DIR is what `npu-run --dump` wrote (index.json and one .npy per
 * ONNX tensor, in the ONNX layout). The reference is the compiler's
 * interpreter running the imported ONNX graph as it is (no folding, no
 * fusion, no layout change: every ONNX tensor exists; QDQ patterns as the
 * int8 ops they mean, qdq-fuse) on the same inputs,
 * or a directory of .npy files from another runtime (--ref). Per ONNX
 * tensor, in the graph's topological order: cosine similarity, max
 * absolute and relative error and the shares of elements over 1/1000 and
 * 5/1000 relative error; the first tensor over the thresholds is named with
 * the ONNX node that produced it.
 *
 * Exit status: 0 every tensor within the thresholds, 1 a tensor diverged,
 * 2 usage or input error.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dumpfmt.h"
#include "emit/emit.h"
#include "keep_bisect.h"
#include "interp/interp.h"
#include "ir/ir.h"
#include "npy.h"
#include "onnx/onnx_import.h"
#include "passes/pass_manager.h"
#include "shape/shape.h"

#define MAX_INPUTS	64

struct opts {
	const char *model, *dump, *ref;
	const char *inputs[MAX_INPUTS];
	int num_inputs;
	const char *input_dir;
	const char *input_shapes;
	const char *json, *csv;
	double cos_min, ratio_max;
	int all;
	int list;			/* --list-tensors */
	int bisect;			/* --bisect: DUMP_DIR is a work dir */
	struct kb_opts kb;
};

/* A dumped tensor (from index.json, or found by its stem). */
struct entry {
	char *name;
	char *file;
	struct npy_array a;
	bool loaded;
	/* the reference, as doubles */
	double *ref;
	size_t ref_n;
	/* results */
	bool compared;
	const char *why;		/* not compared: why */
	double cos, max_abs, max_rel, r1, r5;
	bool bad;
	const char *node, *op;
	char *fused;			/* the dump's ONNX nodes of its task */
	int order;
};

static struct {
	struct entry *v;
	size_t n, cap;
} dump;

static void usage(FILE *f)
{
	fprintf(f,
"usage: npu-compare MODEL.onnx DUMP_DIR [options]\n"
"  -i, --input NAME=FILE  a model input (.npy); by default DUMP_DIR/NAME.npy\n"
"                         (npu-run --dump writes the inputs it converts)\n"
"      --input-dir DIR    inputs from DIR/NAME.npy or DIR/input_K.npy\n"
"      --input-shape S    \"name:1,3,224,224;...\" as npuc\n"
"      --ref DIR          reference tensors from DIR/NAME.npy (another\n"
"                         runtime) instead of the compiler's interpreter\n"
"      --cos-min C        a tensor diverges below this cosine (0.9999)\n"
"      --ratio-max R      ... or with more than this share of elements\n"
"                         over 5/1000 relative error (0.001)\n"
"      --json FILE        the table as JSON\n"
"      --csv FILE         the table as CSV\n"
"  -a, --all              list tensors without a dump too\n"
"      --list-tensors     print every node output of MODEL.onnx in\n"
"                         topological order and exit (DUMP_DIR unused)\n"
"      --bisect           find ONNX nodes to keep in f32 so that a\n"
"                         --precision compile reaches --target-cos; DUMP_DIR\n"
"                         is a work dir (trials, outputs, keep-list)\n"
"      --precision MODE   the compile to repair (force_fp16)\n"
"      --target-cos C     the output cosine to reach (0.999)\n"
"      --keep-out FILE    the keep-list (DUMP_DIR/keep_dtype.txt), for\n"
"                         npuc --keep-dtype @FILE\n"
"      --max-trials N     compiles and runs at most (200)\n"
"exit: 0 all within, 1 a tensor diverged, 2 usage or input error\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "input-dir", required_argument, NULL, 'I' },
		{ "input-shape", required_argument, NULL, 'S' },
		{ "ref", required_argument, NULL, 'r' },
		{ "cos-min", required_argument, NULL, 'c' },
		{ "ratio-max", required_argument, NULL, 'R' },
		{ "json", required_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'C' },
		{ "all", no_argument, NULL, 'a' },
		{ "list-tensors", no_argument, NULL, 'L' },
		{ "bisect", no_argument, NULL, 'B' },
		{ "precision", required_argument, NULL, 'P' },
		{ "target-cos", required_argument, NULL, 'T' },
		{ "keep-out", required_argument, NULL, 'K' },
		{ "max-trials", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->cos_min = 0.9999;
	o->ratio_max = 0.001;
	o->kb.precision = "force_fp16";
	o->kb.target_cos = 0.999;
	o->kb.max_trials = 200;
	while ((c = getopt_long(argc, argv, "i:ah", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (o->num_inputs == MAX_INPUTS ||
			    !strchr(optarg, '=')) {
				fprintf(stderr, "npu-compare: -i wants "
					"NAME=FILE\n");
				return -1;
			}
			o->inputs[o->num_inputs++] = optarg;
			break;
		case 'I': o->input_dir = optarg; break;
		case 'S': o->input_shapes = optarg; break;
		case 'r': o->ref = optarg; break;
		case 'j': o->json = optarg; break;
		case 'C': o->csv = optarg; break;
		case 'a': o->all = 1; break;
		case 'L': o->list = 1; break;
		case 'B': o->bisect = 1; break;
		case 'P': o->kb.precision = optarg; break;
		case 'K': o->kb.keep_out = optarg; break;
		case 'M':
			o->kb.max_trials = (int)strtol(optarg, &end, 10);
			if (*end || o->kb.max_trials < 2 ||
			    o->kb.max_trials > 100000) {
				fprintf(stderr, "npu-compare: --max-trials "
					"%s: use 2..100000\n", optarg);
				return -1;
			}
			break;
		case 'T':
		case 'c':
		case 'R': {
			double v = strtod(optarg, &end);

			if (*end || end == optarg || !(v >= 0)) {
				fprintf(stderr, "npu-compare: bad number "
					"\"%s\"\n", optarg);
				return -1;
			}
			if (c == 'T' && v > 1) {
				fprintf(stderr, "npu-compare: --target-cos "
					"%s: a cosine is at most 1\n", optarg);
				return -1;
			}
			if (c == 'c')
				o->cos_min = v;
			else if (c == 'T')
				o->kb.target_cos = v;
			else
				o->ratio_max = v;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return -1;
	}
	o->model = argv[optind];
	o->dump = argv[optind + 1];
	return 0;
}

static struct entry *find(const char *name)
{
	for (size_t i = 0; i < dump.n; i++)
		if (!strcmp(dump.v[i].name, name))
			return &dump.v[i];
	return NULL;
}

static struct entry *add(const char *name, const char *file)
{
	struct entry *e;

	if (dump.n == dump.cap) {
		size_t cap = dump.cap ? 2 * dump.cap : 64;
		void *p = realloc(dump.v, cap * sizeof(*dump.v));

		if (!p)
			return NULL;
		dump.v = p;
		dump.cap = cap;
	}
	e = &dump.v[dump.n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	e->file = strdup(file);
	if (!e->name || !e->file) {
		free(e->name);
		free(e->file);
		return NULL;
	}
	e->order = -1;
	dump.n++;
	return e;
}

/* The dump's index: tensor -> file (first entry of a name wins). */
static int read_index(const char *dir)
{
	char path[4096], line[65536], name[4096], file[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/index.json", dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct entry *e;
		const char *p;

		if (dumpfmt_field(line, "tensor", name, sizeof(name)) ||
		    dumpfmt_field(line, "file", file, sizeof(file)) ||
		    find(name))
			continue;
		e = add(name, file);
		if (!e) {
			fclose(f);
			return -ENOMEM;
		}
		/* "nodes": ["a", "b"]: kept as "a, b" (names without '"') */
		p = strstr(line, "\"nodes\": [");
		if (p) {
			const char *q = strchr(p + 10, ']');
			size_t n = q ? (size_t)(q - p - 10) : 0;

			e->fused = calloc(1, n + 1);
			for (size_t i = 0, k = 0; e->fused && i < n; i++)
				if (p[10 + i] != '"')
					e->fused[k++] = p[10 + i];
		}
	}
	fclose(f);
	return 0;
}

/* Element @i of a buffer of @dtype (enum ir_dtype == drm dtype) as double. */
static double get(const void *p, uint32_t dtype, size_t i)
{
	const uint8_t *b = p;

	switch (dtype) {
	case IR_F32: { float f; memcpy(&f, b + 4 * i, 4); return f; }
	case IR_F16: {
		uint16_t h;
		int e, m;
		double v;

		memcpy(&h, b + 2 * i, 2);
		e = (h >> 10) & 0x1f;
		m = h & 0x3ff;
		v = e == 0x1f ? (m ? NAN : INFINITY) :
		    e ? ldexp(m | 0x400, e - 25) : ldexp(m, -24);
		return h & 0x8000 ? -v : v;
	}
	case IR_I8: return (int8_t)b[i];
	case IR_U8: case IR_BOOL: return b[i];
	case IR_I32: { int32_t v; memcpy(&v, b + 4 * i, 4); return v; }
	case IR_I64: { int64_t v; memcpy(&v, b + 8 * i, 8); return (double)v; }
	default: return NAN;
	}
}

static int keep_ref(struct entry *e, const void *data, uint32_t dtype,
		    size_t n)
{
	free(e->ref);
	e->ref = malloc((n ? n : 1) * sizeof(double));
	if (!e->ref)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		e->ref[i] = get(data, dtype, i);
	e->ref_n = n;
	return 0;
}

/* The interpreter's callback: keep the reference of dumped tensors. */
static int on_node(void *user, const struct ir_node *n, int k,
		   const void *data)
{
	const struct ir_tensor *t = n->outputs[k];
	struct entry *e = find(t->name);
	int64_t numel = ir_tensor_numel(t);

	(void)user;
	if (!e || numel < 0 || t->layout == IR_LAYOUT_NC1HWC0)
		return 0;
	return keep_ref(e, data, t->dtype, (size_t)numel);
}

static void compare(const struct opts *o, struct entry *e)
{
	size_t n = e->a.size / (e->a.dtype == IR_F16 ? 2 :
				e->a.dtype == IR_I64 ? 8 :
				e->a.dtype == IR_F32 || e->a.dtype == IR_I32 ?
				4 : 1);
	double dot = 0, na = 0, nb = 0, scale = 0, eps;
	size_t o1 = 0, o5 = 0, nan = 0;

	if (n != e->ref_n) {
		e->why = "element count differs from the reference";
		e->bad = true;
		e->compared = true;
		e->cos = NAN;
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (fabs(e->ref[i]) > scale)
			scale = fabs(e->ref[i]);
	eps = scale > 0 ? 1e-3 * scale : 1e-30;
	e->max_abs = e->max_rel = 0;
	for (size_t i = 0; i < n; i++) {
		double a = get(e->a.data, e->a.dtype, i), b = e->ref[i];
		double d = fabs(a - b), r;

		if (isnan(a) != isnan(b) || isinf(a) != isinf(b) ||
		    (isinf(a) && a != b)) {
			nan++;
			o1++;
			o5++;
			e->max_abs = e->max_rel = INFINITY;
			continue;
		}
		if (isnan(a) || isinf(a))
			continue;	/* the same non-finite value */
		dot += a * b;
		na += a * a;
		nb += b * b;
		r = d / (fabs(b) > eps ? fabs(b) : eps);
		if (d > e->max_abs)
			e->max_abs = d;
		if (r > e->max_rel)
			e->max_rel = r;
		o1 += r > 1e-3;
		o5 += r > 5e-3;
	}
	if (na == 0 && nb == 0)
		e->cos = nan ? 0 : 1;
	else if (na == 0 || nb == 0)
		e->cos = 0;
	else
		e->cos = dot / (sqrt(na) * sqrt(nb));
	e->r1 = n ? (double)o1 / (double)n : 0;
	e->r5 = n ? (double)o5 / (double)n : 0;
	e->compared = true;
	e->bad = !(e->cos >= o->cos_min) || e->r5 > o->ratio_max;
}

static int load_inputs(const struct opts *o, struct ir_graph *g,
		       void **ins, struct npy_array *arr)
{
	char path[4096], stem[1024], err[256];

	for (int i = 0; i < g->num_inputs; i++) {
		const struct ir_tensor *t = g->inputs[i];
		const char *file = NULL;
		int k;

		for (k = 0; k < o->num_inputs; k++) {
			size_t l = strlen(t->name);

			if (!strncmp(o->inputs[k], t->name, l) &&
			    o->inputs[k][l] == '=')
				file = o->inputs[k] + l + 1;
		}
		if (!file) {
			const struct entry *e = find(t->name);

			dumpfmt_stem(t->name, stem, sizeof(stem));
			if (o->input_dir) {
				snprintf(path, sizeof(path), "%s/%s.npy",
					 o->input_dir, stem);
				if (access(path, R_OK))
					snprintf(path, sizeof(path),
						 "%s/input_%d.npy",
						 o->input_dir, i);
			} else if (e) {
				snprintf(path, sizeof(path), "%s/%s", o->dump,
					 e->file);
			} else {
				snprintf(path, sizeof(path), "%s/%s.npy",
					 o->dump, stem);
			}
			file = path;
		}
		if (npy_read(file, &arr[i], err)) {
			fprintf(stderr, "npu-compare: input '%s': %s (give it "
				"with --input %s=FILE)\n", t->name, err,
				t->name);
			return -1;
		}
		if (arr[i].dtype != (uint32_t)t->dtype ||
		    arr[i].size != emit_tensor_bytes(t)) {
			fprintf(stderr, "npu-compare: input '%s': %s has %zu "
				"bytes of dtype %u; the model wants %zu of "
				"%s\n", t->name, file, arr[i].size,
				arr[i].dtype, emit_tensor_bytes(t),
				ir_dtype_name(t->dtype));
			return -1;
		}
		ins[i] = arr[i].data;
	}
	return 0;
}

static void print_row(FILE *f, const struct entry *e, bool first_bad)
{
	char node[64];

	snprintf(node, sizeof(node), "%s (%s)", e->node ? e->node : "?",
		 e->op ? e->op : "?");
	if (!e->compared) {
		printf("  %-36.36s %-30.30s %s\n", e->name, node,
		       e->why ? e->why : "no dump");
		return;
	}
	fprintf(f, "  %-36.36s %-30.30s %10.7f %10.3g %10.3g %8.4f %8.4f %s\n",
		e->name, node, e->cos, e->max_abs, e->max_rel, e->r1, e->r5,
		first_bad ? "<= FIRST DIVERGENCE" : e->bad ? "x" : "ok");
}

static const char *jesc(const char *s, char *b, size_t len)
{
	size_t n = 0;

	for (; s && *s && n + 7 < len; s++) {
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

static double jnum(double v)
{
	return isfinite(v) ? v : -1;
}

/* The nodes --bisect may keep: float results, not a conversion. */
static bool bisect_candidate(const struct ir_node *n)
{
	const struct ir_tensor *t = n->num_outputs ? n->outputs[0] : NULL;

	return t && (t->dtype == IR_F32 || t->dtype == IR_F16) &&
	       n->op != IR_OP_CAST && n->op != IR_OP_CAST_LIKE &&
	       n->op != IR_OP_QUANTIZE_LINEAR &&
	       n->op != IR_OP_DEQUANTIZE_LINEAR && n->op != IR_OP_CONSTANT &&
	       !emit_view_source(n);
}

/*
 * --bisect: the reference outputs from the interpreter, the inputs
 * written to DUMP_DIR/inputs for the trials' npu-run, then the search
 * (keep_bisect.c). Exit status as kb_run()'s.
 */
static int bisect(struct opts *o, struct ir_graph *g)
{
	void *ins[MAX_INPUTS] = { NULL };
	struct npy_array arr[MAX_INPUTS];
	struct kb_output *kout = NULL;
	char **cand = NULL, dir[4096], keep[4096], err[256];
	void **outs = NULL;
	size_t nc = 0;
	int ret = 2, r, nfloat = 0;

	memset(arr, 0, sizeof(arr));
	snprintf(dir, sizeof(dir), "%s/inputs", o->dump);
	if ((mkdir(o->dump, 0755) && errno != EEXIST) ||
	    (mkdir(dir, 0755) && errno != EEXIST)) {
		fprintf(stderr, "npu-compare: --bisect: cannot make %s: %s\n",
			dir, strerror(errno));
		return 2;
	}
	if (g->num_inputs > MAX_INPUTS) {
		fprintf(stderr, "npu-compare: --bisect: %d inputs; at most %d\n",
			g->num_inputs, MAX_INPUTS);
		goto out;
	}
	if (load_inputs(o, g, ins, arr))
		goto out;
	for (int i = 0; i < g->num_inputs; i++) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/input_%d.npy", dir, i);
		if (npy_write(path, arr[i].dtype, arr[i].rank, arr[i].dims,
			      arr[i].data, err)) {
			fprintf(stderr, "npu-compare: --bisect: %s\n", err);
			goto out;
		}
	}
	outs = calloc((size_t)g->num_outputs + 1, sizeof(*outs));
	kout = calloc((size_t)g->num_outputs + 1, sizeof(*kout));
	cand = calloc((size_t)g->num_nodes + 1, sizeof(*cand));
	if (!outs || !kout || !cand)
		goto out;
	for (int i = 0; i < g->num_outputs; i++) {
		outs[i] = calloc(1, emit_tensor_bytes(g->outputs[i]) + 1);
		if (!outs[i])
			goto out;
	}
	r = interp_run_ex(g, (const void *const *)ins, outs, NULL, NULL);
	if (r) {
		fprintf(stderr, "npu-compare: the interpreter: %s\n",
			r == -ENOMEM ? "out of memory" : ir_graph_error(g));
		goto out;
	}
	for (int i = 0; i < g->num_outputs; i++) {
		const struct ir_tensor *t = g->outputs[i];
		size_t n = (size_t)ir_tensor_numel(t);
		double *v;

		if (t->dtype != IR_F32 && t->dtype != IR_F16)
			continue;	/* not compared: no reference kept */
		v = malloc((n ? n : 1) * sizeof(*v));
		if (!v)
			goto out;
		nfloat++;
		for (size_t k = 0; k < n; k++)
			v[k] = get(outs[i], t->dtype, k);
		kout[i].ref = v;
		kout[i].n = n;
	}
	if (!nfloat) {
		fprintf(stderr, "npu-compare: --bisect: %s has no float output "
			"to compare\n", o->model);
		goto out;
	}
	for (int i = 0; i < g->num_nodes; i++)
		if (bisect_candidate(g->nodes[i]))
			cand[nc++] = g->nodes[i]->name;
	snprintf(keep, sizeof(keep), "%s/keep_dtype.txt", o->dump);
	o->kb.model = o->model;
	o->kb.workdir = o->dump;
	o->kb.input_dir = dir;
	o->kb.input_shapes = o->input_shapes;
	if (!o->kb.keep_out)
		o->kb.keep_out = keep;
	ret = kb_run(&o->kb, cand, nc, kout, g->num_outputs);
out:
	for (int i = 0; outs && i < g->num_outputs; i++)
		free(outs[i]);
	for (int i = 0; kout && i < g->num_outputs; i++)
		free((void *)kout[i].ref);
	for (int i = 0; i < g->num_inputs && i < MAX_INPUTS; i++)
		npy_free(&arr[i]);
	free(outs);
	free(kout);
	free(cand);
	return ret;
}

int main(int argc, char **argv)
{
	struct onnx_import_opts imp = { 0 };
	struct ir_graph *g = NULL;
	struct entry **order = NULL;
	struct opts o;
	char err[1024];
	size_t norder = 0, ncmp = 0, nbad = 0;
	struct entry *first = NULL;
	int ret = 2;

	if (parse(argc, argv, &o))
		return 2;
	ret = read_index(o.dump);
	if (ret && ret != -ENOENT) {
		fprintf(stderr, "npu-compare: %s/index.json: %s\n", o.dump,
			strerror(-ret));
		return 2;
	}
	imp.input_shapes = o.input_shapes;
	if (onnx_import_file(o.model, &imp, &g, err, sizeof(err))) {
		fprintf(stderr, "npu-compare: %s: %s\n", o.model, err);
		return 2;
	}
	ret = 2;
	if (ir_graph_toposort(g) || shape_infer(g)) {
		fprintf(stderr, "npu-compare: %s: %s\n", o.model,
			ir_graph_error(g));
		goto out;
	}
	/*
	 * QDQ patterns mean the int8 ops of ONNX's QLinearConv/QLinearMatMul
	 * (Documentation/quantization.rst): the reference computes them so,
	 * as the device does; every ONNX tensor of the pattern that the
	 * device dumps (the QuantizeLinear outputs) still exists.
	 */
	{
		struct pass_stats pst = { 0 };

		if (pm_run_one(g, "qdq-fuse", &pst) ||
		    ir_graph_toposort(g) || shape_infer(g)) {
			fprintf(stderr, "npu-compare: %s: %s\n", o.model,
				ir_graph_error(g));
			goto out;
		}
	}
	if (o.list) {
		/* Every node output in topological order, one per line
		 * (npu-run --bisect orders its probes by it). */
		for (int i = 0; i < g->num_nodes; i++)
			for (int k = 0; k < g->nodes[i]->num_outputs; k++)
				if (g->nodes[i]->outputs[k])
					printf("%s\n",
					       g->nodes[i]->outputs[k]->name);
		ret = fflush(stdout) ? 2 : 0;
		goto out;
	}
	if (o.bisect) {
		ret = bisect(&o, g);
		goto out;
	}
	order = calloc((size_t)g->num_tensors + 1, sizeof(*order));
	if (!order)
		goto out;
	/* Every node output in topological order; dumps found by stem too. */
	for (int i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];

		for (int k = 0; k < n->num_outputs; k++) {
			const struct ir_tensor *t = n->outputs[k];
			struct entry *e;
			char stem[1024], file[1100], path[4096];

			if (!t)
				continue;
			e = find(t->name);
			if (!e) {
				dumpfmt_stem(t->name, stem, sizeof(stem));
				snprintf(file, sizeof(file), "%s.npy", stem);
				snprintf(path, sizeof(path), "%s/%s", o.dump,
					 file);
				if (!access(path, R_OK))
					e = add(t->name, file);
				else if (o.all)
					e = add(t->name, "");
				if (!e)
					continue;
			}
			e->node = n->name;
			e->op = ir_op_name(n->op);
			e->order = (int)norder;
			order[norder++] = e;
		}
	}
	/* the reference */
	if (o.ref) {
		for (size_t i = 0; i < norder; i++) {
			struct npy_array r;
			char stem[1024], path[4096];

			dumpfmt_stem(order[i]->name, stem, sizeof(stem));
			snprintf(path, sizeof(path), "%s/%s.npy", o.ref, stem);
			if (npy_read(path, &r, err))
				continue;
			keep_ref(order[i], r.data, r.dtype,
				 r.size / ir_dtype_size((enum ir_dtype)r.dtype));
			npy_free(&r);
		}
	} else {
		void *ins[MAX_INPUTS] = { NULL };
		struct npy_array arr[MAX_INPUTS];
		void **outs = calloc((size_t)g->num_outputs + 1, sizeof(*outs));
		int r = -ENOMEM;

		memset(arr, 0, sizeof(arr));
		if (g->num_inputs > MAX_INPUTS ||
		    load_inputs(&o, g, ins, arr)) {
			free(outs);
			goto out;
		}
		for (int i = 0; outs && i < g->num_outputs; i++) {
			outs[i] = calloc(1, emit_tensor_bytes(g->outputs[i]) +
					 1);
			if (!outs[i])
				break;
		}
		if (outs)
			r = interp_run_ex(g, (const void *const *)ins, outs,
					  on_node, NULL);
		for (int i = 0; outs && i < g->num_outputs; i++)
			free(outs[i]);
		free(outs);
		for (int i = 0; i < g->num_inputs && i < MAX_INPUTS; i++)
			npy_free(&arr[i]);
		if (r) {
			fprintf(stderr, "npu-compare: the interpreter: %s\n",
				r == -ENOMEM ? "out of memory" :
				ir_graph_error(g));
			goto out;
		}
	}
	printf("npu-compare %s vs %s (%s); diverged: cosine < %g or > %g of "
	       "elements over 5/1000 relative error\n", o.dump, o.model,
	       o.ref ? o.ref : "interpreter", o.cos_min, o.ratio_max);
	printf("  %-36s %-30s %10s %10s %10s %8s %8s\n", "tensor",
	       "node (op)", "cosine", "max abs", "max rel", ">1/1000",
	       ">5/1000");
	for (size_t i = 0; i < norder; i++) {
		struct entry *e = order[i];
		char path[4096];

		if (!*e->file) {
			e->why = "not dumped";
		} else if (!e->ref) {
			e->why = "no reference";
		} else {
			snprintf(path, sizeof(path), "%s/%s", o.dump, e->file);
			if (npy_read(path, &e->a, err)) {
				e->why = "unreadable dump";
			} else {
				e->loaded = true;
				compare(&o, e);
				ncmp++;
				nbad += e->bad;
			}
		}
		if (e->bad && !first)
			first = e;
		print_row(stdout, e, e == first);
	}
	if (first) {
		printf("first divergence: tensor %s, made by ONNX node %s (%s): "
		       "cosine %.7f, %.2f%% of elements over 5/1000\n",
		       first->name, first->node, first->op, first->cos,
		       100 * first->r5);
		if (first->fused && strchr(first->fused, ','))
			printf("  the device task that made it runs the fused "
			       "ONNX nodes %s: the fault is in one of them\n",
			       first->fused);
	}
	else
		printf("all %zu compared tensors within the thresholds\n",
		       ncmp);
	printf("compared %zu tensors, %zu diverged\n", ncmp, nbad);
	if (o.csv) {
		FILE *f = fopen(o.csv, "w");

		if (f) {
			fprintf(f, "order,tensor,node,op,cosine,max_abs,max_rel,"
				"ratio_1e-3,ratio_5e-3,diverged,first\n");
			for (size_t i = 0; i < norder; i++)
				if (order[i]->compared)
					fprintf(f, "%zu,\"%s\",\"%s\",%s,%.9g,"
						"%.9g,%.9g,%.9g,%.9g,%d,%d\n", i,
						order[i]->name, order[i]->node,
						order[i]->op, order[i]->cos,
						order[i]->max_abs,
						order[i]->max_rel, order[i]->r1,
						order[i]->r5, order[i]->bad,
						order[i] == first);
			fclose(f);
		} else {
			fprintf(stderr, "npu-compare: cannot write %s\n", o.csv);
		}
	}
	if (o.json) {
		FILE *f = fopen(o.json, "w");
		char b1[1024], b2[1024];

		if (f) {
			fprintf(f, "{\"model\": \"%s\", ", jesc(o.model, b1,
				sizeof(b1)));
			fprintf(f, "\"dump\": \"%s\", \"cos_min\": %g, "
				"\"ratio_max\": %g, \"first_divergence\": ",
				jesc(o.dump, b1, sizeof(b1)), o.cos_min,
				o.ratio_max);
			if (first)
				fprintf(f, "{\"tensor\": \"%s\", \"node\": "
					"\"%s\"}", jesc(first->name, b1,
					sizeof(b1)), jesc(first->node, b2,
					sizeof(b2)));
			else
				fprintf(f, "null");
			if (first && first->fused)
				fprintf(f, ", \"first_divergence_task_nodes\": "
					"\"%s\"", jesc(first->fused, b1,
							 sizeof(b1)));
			fprintf(f, ", \"tensors\": [");
			for (size_t i = 0, k = 0; i < norder; i++) {
				const struct entry *e = order[i];

				if (!e->compared)
					continue;
				fprintf(f, "%s\n  {\"tensor\": \"%s\", ",
					k++ ? "," : "",
					jesc(e->name, b1, sizeof(b1)));
				fprintf(f, "\"node\": \"%s\", \"op\": \"%s\", "
					"\"cosine\": %.9g, \"max_abs\": %.9g, "
					"\"max_rel\": %.9g, \"ratio_1e-3\": "
					"%.9g, \"ratio_5e-3\": %.9g, "
					"\"diverged\": %s}",
					jesc(e->node, b2, sizeof(b2)), e->op,
					jnum(e->cos), jnum(e->max_abs),
					jnum(e->max_rel), e->r1, e->r5,
					e->bad ? "true" : "false");
			}
			fprintf(f, "\n]}\n");
			fclose(f);
		} else {
			fprintf(stderr, "npu-compare: cannot write %s\n",
				o.json);
		}
	}
	ret = !ncmp ? 2 : first ? 1 : 0;
	if (!ncmp)
		fprintf(stderr, "npu-compare: no dumped tensor matches a "
			"tensor of %s\n", o.model);
out:
	for (size_t i = 0; i < dump.n; i++) {
		free(dump.v[i].name);
		free(dump.v[i].file);
		free(dump.v[i].ref);
		free(dump.v[i].fused);
		if (dump.v[i].loaded)
			npy_free(&dump.v[i].a);
	}
	free(dump.v);
	free(order);
	ir_graph_free(g);
	return ret;
}
