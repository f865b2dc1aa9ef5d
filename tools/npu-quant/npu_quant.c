// SPDX-License-Identifier: MIT
/*
 * npu-quant - post-training quantization of a float ONNX model into a QDQ
 * ONNX model (Documentation/man/npu-quant.rst, Documentation/npu-quant.rst).
 *
 *   npu-quant MODEL.onnx CALIB_DIR -o OUT.onnx [options]
 *
 * The compiler's importer and reference interpreter run the float model on
 * every calibration sample to collect activation statistics; the chosen
 * ranges become QuantizeLinear/DequantizeLinear pairs (per-tensor
 * activations) and the weights of Conv/Gemm/MatMul int8 initializers with a
 * per-channel DequantizeLinear (opset 13), or with --weights int4 packed
 * int4 initializers with a blocked DequantizeLinear (opset 21). The output
 * is the input ModelProto, edited with protobuf-c: every node, attribute
 * and initializer not quantized is written back as it was read.
 *
 * Exit status: 0 written, 1 a failure while quantizing, 2 usage or input
 * error.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib.h"
#include "fold_bn.h"
#include "dumpfmt.h"
#include "emit/emit.h"
#include "interp/interp.h"
#include "ir/ir.h"
#include "npy.h"
#include "onnx/onnx.pb-c.h"
#include "onnx/onnx_import.h"
#include "shape/shape.h"

#ifndef NPU_VERSION
#define NPU_VERSION	"unknown"
#endif

#define PROG		"npu-quant"
#define MAX_INPUTS	64
#define DEFAULT_OPS	"Conv,Gemm,MatMul,Add,Concat,MaxPool,AveragePool," \
			"GlobalAveragePool"

/* ONNX TensorProto.DataType values used here. */
enum { T_FLOAT = 1, T_UINT8 = 2, T_INT8 = 3, T_INT64 = 7, T_INT4 = 22 };

struct opts {
	const char *model, *calib_dir, *output, *report;
	enum calib_method method;
	double percentile;
	bool act_unsigned, symmetric, weight_only, quiet;
	int wbits;
	int64_t group;
	const char *ops, *keep_float, *input_shapes;
	double err_threshold;		/* < 0: none */
	int max_samples, sens_samples;
};

/* An activation tensor quantized per tensor. */
struct act {
	const struct ir_tensor *t;
	struct calib c;
	double lo, hi;
	float scale;
	int32_t zp;
	bool used;			/* read by a node still quantized */
	const char *qname, *dqname, *sname, *zname;
};

/* A weight quantized per channel (int8) or per block (int4). */
struct wq {
	const struct ir_tensor *t;
	int axis;
	int bits;
	int64_t group;			/* int4: the block size along axis */
	int64_t nscales;
	struct ir_shape sshape;		/* the scale's shape */
	float *scales;
	int8_t *q;			/* one value per element */
	float *deq;			/* the dequantized weight */
	const char *qname, *dqname, *sname, *zname;
	bool used;
};

struct qnode {
	const struct ir_node *n;
	bool quant;			/* planned */
	bool keep;			/* left in float (option or threshold) */
	const char *why_float;
	int *act;			/* per input: act index or -1 */
	int w_in;			/* the weight's input index or -1 */
	int w;				/* its wq index */
	/* sensitivity: error of the node's output vs float */
	double err2, ref2, dot;
	uint64_t nsens;
	double rel, cos, sqnr;
};

struct sample {
	char *id;
	struct npy_array in[MAX_INPUTS];
};

static struct {
	struct opts o;
	Onnx__ModelProto *m;
	uint8_t *packed;		/* m, packed after the BN folding */
	size_t packed_len;
	int folded_bn;			/* BatchNormalizations folded */
	struct ir_graph *g;
	int64_t opset;
	struct act *acts;
	int nacts;
	struct wq *wqs;
	int nwqs;
	struct qnode *qn;		/* per IR node index */
	struct sample *s;
	int ns;
	/* strings and messages this program allocated for the output */
	void **keep;
	size_t nkeep, capkeep;
	char **names;			/* generated tensor names */
	size_t nnames, capnames;
	double calib_seconds, sens_seconds;
	/* the written model vs float on the sensitivity samples */
	bool eval_done;
	const char *eval_skip;
	double eval_rel;
	int eval_top1, eval_rows;
} Q;

static void die_oom(void)
{
	fprintf(stderr, PROG ": out of memory\n");
	exit(1);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		die_oom();
	return p;
}

/* Memory that lives until the output is written. */
static void *keep(void *p)
{
	if (!p)
		die_oom();
	if (Q.nkeep == Q.capkeep) {
		size_t cap = Q.capkeep ? 2 * Q.capkeep : 256;
		void **n = realloc(Q.keep, cap * sizeof(*n));

		if (!n)
			die_oom();
		Q.keep = n;
		Q.capkeep = cap;
	}
	Q.keep[Q.nkeep++] = p;
	return p;
}

static void *kcalloc(size_t n, size_t sz)
{
	return keep(calloc(n ? n : 1, sz ? sz : 1));
}

static bool name_taken(const char *s)
{
	if (ir_graph_find_tensor(Q.g, s))
		return true;
	for (size_t i = 0; i < Q.nnames; i++)
		if (!strcmp(Q.names[i], s))
			return true;
	return false;
}

/* A tensor name from @base + @suffix no tensor of the model holds. */
static const char *new_name(const char *base, const char *suffix)
{
	size_t len = strlen(base) + strlen(suffix) + 24;
	char *s = kcalloc(1, len);

	snprintf(s, len, "%s%s", base, suffix);
	for (int k = 2; name_taken(s); k++)
		snprintf(s, len, "%s%s_%d", base, suffix, k);
	if (Q.nnames == Q.capnames) {
		size_t cap = Q.capnames ? 2 * Q.capnames : 256;
		char **n = realloc(Q.names, cap * sizeof(*n));

		if (!n)
			die_oom();
		Q.names = n;
		Q.capnames = cap;
	}
	Q.names[Q.nnames++] = s;
	return s;
}

/* --- options ------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " MODEL.onnx CALIB_DIR -o OUT.onnx [options]\n"
"Post-training quantization: writes a QDQ ONNX model calibrated on the .npy\n"
"samples of CALIB_DIR (SAMPLE.INPUT.npy, or any *.npy for one-input models).\n"
"  -o, --output FILE        the QDQ model to write\n"
"  -m, --method M           activation calibration: minmax, percentile or\n"
"                           entropy (KL divergence, as TensorRT) [minmax]\n"
"      --percentile P       the percentile method's cut, in %% [99.99]\n"
"      --activations T      int8 or uint8 activations [int8]\n"
"      --symmetric          symmetric activation ranges (zero point 0)\n"
"      --weights W          int8 (per channel, opset 13) or int4 (weight-only\n"
"                           MatMul/Gemm, blocked, opset 21) [int8]\n"
"      --group-size N       int4 block size along K: 32, 64 or 128 [128]\n"
"      --weight-only        int8 weights, float activations (w8a16)\n"
"      --ops LIST           op types to quantize\n"
"                           [" DEFAULT_OPS "]\n"
"      --keep-float LIST    node names or op types left in float\n"
"      --error-threshold E  leave in float the nodes whose output's relative\n"
"                           error (sensitivity) exceeds E\n"
"      --report FILE        calibration and sensitivity report (JSON)\n"
"      --samples N          use at most N calibration samples [all]\n"
"      --sensitivity-samples N  samples of the sensitivity analysis and\n"
"                           of the check of the written model [4]\n"
"      --input-shape S      \"name:1,3,224,224;...\" as npuc\n"
"  -q, --quiet              no summary on stdout\n"
"  -h, --help               this text\n"
"      --version            print the version and exit\n"
"exit: 0 written, 1 quantization failed, 2 usage or input error\n");
}

static int parse_num(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return *end || end == s || !isfinite(*v) ? -1 : 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "method", required_argument, NULL, 'm' },
		{ "percentile", required_argument, NULL, 'P' },
		{ "activations", required_argument, NULL, 'A' },
		{ "symmetric", no_argument, NULL, 'y' },
		{ "weights", required_argument, NULL, 'W' },
		{ "group-size", required_argument, NULL, 'G' },
		{ "weight-only", no_argument, NULL, 'w' },
		{ "ops", required_argument, NULL, 'O' },
		{ "keep-float", required_argument, NULL, 'k' },
		{ "error-threshold", required_argument, NULL, 'E' },
		{ "report", required_argument, NULL, 'r' },
		{ "samples", required_argument, NULL, 'n' },
		{ "sensitivity-samples", required_argument, NULL, 's' },
		{ "input-shape", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	double v;
	int c;

	memset(o, 0, sizeof(*o));
	o->method = CALIB_MINMAX;
	o->percentile = 99.99;
	o->wbits = 8;
	o->group = 128;
	o->ops = DEFAULT_OPS;
	o->err_threshold = -1;
	o->sens_samples = 4;
	while ((c = getopt_long(argc, argv, "o:m:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'm':
			if (!strcmp(optarg, "minmax"))
				o->method = CALIB_MINMAX;
			else if (!strcmp(optarg, "percentile"))
				o->method = CALIB_PERCENTILE;
			else if (!strcmp(optarg, "entropy") ||
				 !strcmp(optarg, "kl"))
				o->method = CALIB_ENTROPY;
			else
				goto bad;
			break;
		case 'P':
			if (parse_num(optarg, &v) || v <= 50 || v > 100)
				goto bad;
			o->percentile = v;
			break;
		case 'A':
			if (!strcmp(optarg, "uint8"))
				o->act_unsigned = true;
			else if (strcmp(optarg, "int8"))
				goto bad;
			break;
		case 'y': o->symmetric = true; break;
		case 'W':
			if (!strcmp(optarg, "int4"))
				o->wbits = 4;
			else if (!strcmp(optarg, "int8"))
				o->wbits = 8;
			else
				goto bad;
			break;
		case 'G':
			if (parse_num(optarg, &v) ||
			    (v != 32 && v != 64 && v != 128))
				goto bad;
			o->group = (int64_t)v;
			break;
		case 'w': o->weight_only = true; break;
		case 'O': o->ops = optarg; break;
		case 'k': o->keep_float = optarg; break;
		case 'E':
			if (parse_num(optarg, &v) || v < 0)
				goto bad;
			o->err_threshold = v;
			break;
		case 'r': o->report = optarg; break;
		case 'n':
		case 's':
			if (parse_num(optarg, &v) || v < 0 || v > 1e6 ||
			    v != floor(v))
				goto bad;
			if (c == 'n')
				o->max_samples = (int)v;
			else
				o->sens_samples = (int)v;
			break;
		case 'S': o->input_shapes = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf(PROG " %s\n", NPU_VERSION);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
		continue;
bad:
		fprintf(stderr, PROG ": bad value \"%s\" for --%s (see "
			PROG " --help)\n", optarg,
			c == 'm' ? "method" : c == 'P' ? "percentile" :
			c == 'A' ? "activations" : c == 'W' ? "weights" :
			c == 'G' ? "group-size" : c == 'E' ? "error-threshold" :
			c == 'n' ? "samples" : "sensitivity-samples");
		return -1;
	}
	if (argc - optind != 2 || !o->output) {
		fprintf(stderr, PROG ": %s\n", argc - optind != 2 ?
			"wants MODEL.onnx and CALIB_DIR" :
			"wants -o OUT.onnx");
		usage(stderr);
		return -1;
	}
	if (o->wbits == 4)
		o->weight_only = true;
	o->model = argv[optind];
	o->calib_dir = argv[optind + 1];
	return 0;
}

/* Whether the comma-separated @list holds @s. */
static bool in_list(const char *list, const char *s)
{
	size_t l = strlen(s);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == l && !strncmp(p, s, l))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* --- the model ----------------------------------------------------------- */

/*
 * The model as the importer reads it, after the BatchNormalization folding
 * (Q.packed): calibration runs the graph that gets quantized.
 */
static int pack_model(void)
{
	Q.packed_len = onnx__model_proto__get_packed_size(Q.m);
	Q.packed = malloc(Q.packed_len + 1);
	if (!Q.packed)
		die_oom();
	onnx__model_proto__pack(Q.m, Q.packed);
	return 0;
}

static Onnx__ModelProto *read_model(const char *path)
{
	FILE *f = fopen(path, "rb");
	Onnx__ModelProto *m = NULL;
	uint8_t *buf = NULL;
	long len;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, PROG ": %s: cannot read\n", path);
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)len + 1);
	if (!buf)
		die_oom();
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, PROG ": %s: short read\n", path);
	} else {
		m = onnx__model_proto__unpack(NULL, (size_t)len, buf);
		if (!m || !m->graph)
			fprintf(stderr, PROG ": %s: not an ONNX model "
				"(protobuf parse failed)\n", path);
	}
	free(buf);
	fclose(f);
	if (m && !m->graph) {
		onnx__model_proto__free_unpacked(m, NULL);
		m = NULL;
	}
	return m;
}

static bool default_domain(const char *d)
{
	return !d || !*d || !strcmp(d, "ai.onnx");
}

static int64_t model_opset(const Onnx__ModelProto *m)
{
	for (size_t i = 0; i < m->n_opset_import; i++)
		if (default_domain(m->opset_import[i]->domain))
			return m->opset_import[i]->version;
	return -1;
}

/* --- calibration set ----------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct sample *find_sample(const char *id)
{
	for (int i = 0; i < Q.ns; i++)
		if (!strcmp(Q.s[i].id, id))
			return &Q.s[i];
	return NULL;
}

static void shape_str(const struct npy_array *a, char *b, size_t len)
{
	size_t n = 0;

	n += (size_t)snprintf(b + n, len - n, "[");
	for (uint32_t i = 0; i < a->rank && n < len; i++)
		n += (size_t)snprintf(b + n, len - n, "%s%llu", i ? "," : "",
				      (unsigned long long)a->dims[i]);
	if (n < len)
		snprintf(b + n, len - n, "]");
}

/*
 * Read CALIB_DIR: SAMPLE.STEM.npy per model input (STEM: the input's name
 * with characters outside [A-Za-z0-9_.-] made '_'); a model with one input
 * takes any other NAME.npy as sample NAME.
 */
static int load_calib(const struct ir_graph *g)
{
	DIR *d = opendir(Q.o.calib_dir);
	struct dirent *de;
	char **files = NULL, stems[MAX_INPUTS][512], path[4096], err[256];
	size_t nf = 0, capf = 0;
	int ret = -1;

	if (!d) {
		fprintf(stderr, PROG ": calibration directory %s: %s\n",
			Q.o.calib_dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 5 || strcmp(de->d_name + l - 4, ".npy"))
			continue;
		if (nf == capf) {
			capf = capf ? 2 * capf : 64;
			files = realloc(files, capf * sizeof(*files));
			if (!files)
				die_oom();
		}
		files[nf] = strdup(de->d_name);
		if (!files[nf++])
			die_oom();
	}
	closedir(d);
	if (!nf) {
		fprintf(stderr, PROG ": %s holds no .npy file (want "
			"SAMPLE.INPUT.npy per model input)\n", Q.o.calib_dir);
		goto out;
	}
	qsort(files, nf, sizeof(*files), cmp_str);
	for (int i = 0; i < g->num_inputs; i++)
		dumpfmt_stem(g->inputs[i]->name, stems[i], sizeof(stems[i]));
	Q.s = xcalloc(nf, sizeof(*Q.s));
	for (size_t f = 0; f < nf; f++) {
		size_t l = strlen(files[f]) - 4, best = 0;
		int inp = -1;
		char id[4096];
		struct sample *s;

		for (int i = 0; i < g->num_inputs; i++) {
			size_t sl = strlen(stems[i]);

			if (l > sl + 1 && files[f][l - sl - 1] == '.' &&
			    !strncmp(files[f] + l - sl, stems[i], sl) &&
			    sl > best) {
				best = sl;
				inp = i;
			}
		}
		if (inp < 0 && g->num_inputs == 1) {
			inp = 0;
			snprintf(id, sizeof(id), "%.*s", (int)l, files[f]);
		} else if (inp < 0) {
			fprintf(stderr, PROG ": %s/%s names no input of the "
				"model: files are SAMPLE.INPUT.npy with INPUT "
				"one of", Q.o.calib_dir, files[f]);
			for (int i = 0; i < g->num_inputs; i++)
				fprintf(stderr, " %s", stems[i]);
			fprintf(stderr, "\n");
			goto out;
		} else {
			snprintf(id, sizeof(id), "%.*s", (int)(l - best - 1),
				 files[f]);
		}
		s = find_sample(id);
		if (!s) {
			if (Q.o.max_samples && Q.ns == Q.o.max_samples)
				continue;
			s = &Q.s[Q.ns++];
			s->id = strdup(id);
			if (!s->id)
				die_oom();
		}
		if (s->in[inp].data) {
			fprintf(stderr, PROG ": sample '%s' has two files for "
				"input '%s'\n", id, g->inputs[inp]->name);
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s", Q.o.calib_dir, files[f]);
		if (npy_read(path, &s->in[inp], err)) {
			fprintf(stderr, PROG ": calibration sample: %s\n",
				err);
			goto out;
		}
	}
	for (int k = 0; k < Q.ns; k++)
		for (int i = 0; i < g->num_inputs; i++)
			if (!Q.s[k].in[i].data) {
				fprintf(stderr, PROG ": sample '%s' lacks input "
					"'%s' (%s/%s.%s.npy)\n", Q.s[k].id,
					g->inputs[i]->name, Q.o.calib_dir,
					Q.s[k].id, stems[i]);
				goto out;
			}
	ret = 0;
out:
	for (size_t f = 0; f < nf; f++)
		free(files[f]);
	free(files);
	return ret;
}

/*
 * Check every sample against the model's inputs (dtype, rank, static dims)
 * and against the first sample (the dims the model's symbols take), and
 * write the input shapes for the importer into @shapes.
 */
static int check_samples(const struct ir_graph *g, char *shapes, size_t len)
{
	size_t n = 0;

	shapes[0] = 0;
	for (int i = 0; i < g->num_inputs; i++) {
		const struct ir_tensor *t = g->inputs[i];
		const struct npy_array *a0 = &Q.s[0].in[i];
		char want[256], got[256];

		ir_shape_str(g, &t->shape, want, sizeof(want));
		for (int k = 0; k < Q.ns; k++) {
			const struct npy_array *a = &Q.s[k].in[i];
			bool bad = a->dtype != (uint32_t)t->dtype ||
				   (int)a->rank != t->shape.rank;

			for (uint32_t r = 0; !bad && r < a->rank; r++)
				bad = (!IR_DIM_IS_SYM(t->shape.dim[r]) &&
				       (uint64_t)t->shape.dim[r] != a->dims[r]) ||
				      a->dims[r] != a0->dims[r];
			if (bad) {
				shape_str(a, got, sizeof(got));
				fprintf(stderr, PROG ": sample '%s', input "
					"'%s': the .npy holds %s %s; the model "
					"wants %s %s%s\n", Q.s[k].id, t->name,
					ir_dtype_name((enum ir_dtype)a->dtype),
					got, ir_dtype_name(t->dtype), want,
					k ? " (and every sample the shape of "
					"the first)" : "");
				return -1;
			}
		}
		n += (size_t)snprintf(shapes + n, len - n, "%s%s:", i ? ";" : "",
				      t->name);
		for (uint32_t r = 0; r < a0->rank && n < len; r++)
			n += (size_t)snprintf(shapes + n, len - n, "%s%llu",
					      r ? "," : "",
					      (unsigned long long)a0->dims[r]);
		if (n >= len) {
			fprintf(stderr, PROG ": input shapes too long\n");
			return -1;
		}
	}
	return 0;
}

/* --- the plan ------------------------------------------------------------ */

static bool is_float_act(const struct ir_tensor *t)
{
	return t && !ir_tensor_is_const(t) && t->dtype == IR_F32;
}

static int act_index(const struct ir_tensor *t)
{
	for (int i = 0; i < Q.nacts; i++)
		if (Q.acts[i].t == t)
			return i;
	Q.acts[Q.nacts].t = t;
	calib_init(&Q.acts[Q.nacts].c);
	return Q.nacts++;
}

/*
 * The constant @t holds, through Identity nodes (torch's export shares the
 * weights of cloned layers so), or NULL.
 */
static struct ir_tensor *const_source(struct ir_tensor *t)
{
	for (int depth = 0; t && depth < 64; depth++) {
		if (ir_tensor_is_const(t))
			return t;
		if (!t->producer || t->producer->op != IR_OP_IDENTITY ||
		    t->producer->num_inputs < 1)
			return NULL;
		t = t->producer->inputs[0];
	}
	return NULL;
}

/* The weight input of @n and its per-channel / block axes, or -1. */
static int weight_input(const struct ir_node *n, int *ch_axis, int *blk_axis)
{
	const struct ir_tensor *w = const_source(ir_in(n, 1));
	int r;

	if (!w || !ir_tensor_is_const(w) || w->dtype != IR_F32)
		return -1;
	r = w->shape.rank;
	switch (n->op) {
	case IR_OP_CONV:
		if (r < 3)
			return -1;
		*ch_axis = 0;
		*blk_axis = -1;
		return 1;
	case IR_OP_GEMM:
		if (r != 2 || ir_attr_int(n, "transA", 0) == 1 ||
		    ir_tensor_is_const(ir_in(n, 0)))
			return -1;
		*ch_axis = ir_attr_int(n, "transB", 0) ? 0 : 1;
		*blk_axis = 1 - *ch_axis;
		return 1;
	case IR_OP_MATMUL:
		if (r < 2 || ir_tensor_is_const(ir_in(n, 0)))
			return -1;
		*ch_axis = r - 1;
		*blk_axis = r - 2;
		return 1;
	default:
		return -1;
	}
}

static int wq_index(const struct ir_tensor *t, int axis, int bits)
{
	for (int i = 0; i < Q.nwqs; i++)
		if (Q.wqs[i].t == t)
			return Q.wqs[i].axis == axis && Q.wqs[i].bits == bits ?
			       i : -1;
	Q.wqs[Q.nwqs].t = t;
	Q.wqs[Q.nwqs].axis = axis;
	Q.wqs[Q.nwqs].bits = bits;
	Q.wqs[Q.nwqs].group = Q.o.group;
	return Q.nwqs++;
}

static void plan(void)
{
	struct ir_graph *g = Q.g;

	Q.qn = xcalloc((size_t)g->num_nodes, sizeof(*Q.qn));
	Q.acts = xcalloc((size_t)g->num_tensors, sizeof(*Q.acts));
	Q.wqs = xcalloc((size_t)g->num_tensors, sizeof(*Q.wqs));
	for (int i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];
		struct qnode *q = &Q.qn[i];
		const char *opn = ir_op_name(n->op);
		int ch = -1, blk = -1, nact = 0;

		n->priv = q;
		q->n = n;
		q->w_in = -1;
		q->w = -1;
		q->act = xcalloc((size_t)n->num_inputs, sizeof(int));
		for (int k = 0; k < n->num_inputs; k++)
			q->act[k] = -1;
		if (!in_list(Q.o.ops, opn))
			continue;
		if (n->op == IR_OP_CONV || n->op == IR_OP_GEMM ||
		    n->op == IR_OP_MATMUL) {
			q->w_in = weight_input(n, &ch, &blk);
			if (Q.o.wbits == 4 && n->op == IR_OP_CONV)
				q->w_in = -1;	/* int4 is for MatMul/Gemm */
			if (q->w_in >= 0) {
				int axis = Q.o.wbits == 4 ? blk : ch;

				q->w = wq_index(const_source(n->inputs[q->w_in]),
						axis, Q.o.wbits);
				if (q->w < 0)
					q->w_in = -1;	/* shared, other axis */
			}
			if (Q.o.weight_only) {
				q->quant = q->w_in >= 0;
				continue;
			}
			/* activations: the data inputs (not the bias) */
			for (int k = 0; k < 2; k++)
				if (k != q->w_in && is_float_act(ir_in(n, k)))
					nact++;
			if (nact != 2 - (q->w_in >= 0))
				continue;	/* a non-float operand */
			for (int k = 0; k < 2; k++)
				if (k != q->w_in)
					q->act[k] = act_index(n->inputs[k]);
			q->quant = true;
			continue;
		}
		if (Q.o.weight_only)
			continue;
		/* Add of two activations, Concat, pooling */
		for (int k = 0; k < n->num_inputs; k++)
			nact += is_float_act(n->inputs[k]);
		if (nact != n->num_inputs || !nact ||
		    (n->op == IR_OP_ADD && nact != 2) ||
		    !is_float_act(n->outputs[0]))
			continue;
		for (int k = 0; k < n->num_inputs; k++)
			q->act[k] = act_index(n->inputs[k]);
		q->quant = true;
	}
}

/* --- weights ------------------------------------------------------------- */

static void quantize_weight(struct wq *w)
{
	const struct ir_tensor *t = w->t;
	const float *x = t->data;
	int64_t n = ir_tensor_numel(t), outer = 1, inner = 1, d, nb;
	int r = t->shape.rank, qmax = w->bits == 4 ? 7 : 127;

	for (int k = 0; k < w->axis; k++)
		outer *= t->shape.dim[k];
	for (int k = w->axis + 1; k < r; k++)
		inner *= t->shape.dim[k];
	d = t->shape.dim[w->axis];
	w->q = xcalloc((size_t)n, 1);
	w->deq = xcalloc((size_t)n, sizeof(float));
	if (w->bits == 8) {
		/* per channel of axis: the max over everything else */
		w->sshape = ir_shape_make(1, &d);
		w->nscales = d;
		w->scales = xcalloc((size_t)d, sizeof(float));
		for (int64_t i = 0; i < n; i++) {
			int64_t c = (i / inner) % d;
			float a = fabsf(x[i]);

			if (a > w->scales[c])
				w->scales[c] = a;
		}
		for (int64_t c = 0; c < d; c++) {
			float s = w->scales[c] / (float)qmax;

			w->scales[c] = s > 0 && isfinite(s) ? s : 1;
		}
		for (int64_t i = 0; i < n; i++) {
			float s = w->scales[(i / inner) % d];

			w->q[i] = (int8_t)quant_one(x[i], s, 0, -qmax, qmax);
			w->deq[i] = (float)w->q[i] * s;
		}
		return;
	}
	/* int4 blocks of w->group along axis: scale [.., ceil(d/G), ..] */
	nb = (d + w->group - 1) / w->group;
	w->sshape = t->shape;
	w->sshape.dim[w->axis] = nb;
	w->nscales = outer * nb * inner;
	w->scales = xcalloc((size_t)w->nscales, sizeof(float));
	for (int64_t i = 0; i < n; i++) {
		int64_t o = i / (d * inner), k = (i / inner) % d, in = i % inner;
		int64_t si = (o * nb + k / w->group) * inner + in;
		float a = fabsf(x[i]);

		if (a > w->scales[si])
			w->scales[si] = a;
	}
	for (int64_t i = 0; i < w->nscales; i++) {
		float s = w->scales[i] / (float)qmax;

		w->scales[i] = s > 0 && isfinite(s) ? s : 1;
	}
	for (int64_t i = 0; i < n; i++) {
		int64_t o = i / (d * inner), k = (i / inner) % d, in = i % inner;
		float s = w->scales[(o * nb + k / w->group) * inner + in];

		w->q[i] = (int8_t)quant_one(x[i], s, 0, -8, 7);
		w->deq[i] = (float)w->q[i] * s;
	}
}

/* --- running the float model --------------------------------------------- */

enum pass { PASS_RANGE, PASS_HIST, PASS_SENS };

struct run_ctx {
	enum pass pass;
	/* PASS_SENS: float copies of the inputs of quantized nodes */
	float **saved;			/* per tensor id */
};

static int qmin_act(void)
{
	return Q.o.act_unsigned ? 0 : -128;
}

static int qmax_act(void)
{
	return Q.o.act_unsigned ? 255 : 127;
}

static void observe(struct act *a, const void *data, enum pass p)
{
	int64_t n = ir_tensor_numel(a->t);

	if (p == PASS_RANGE)
		calib_range(&a->c, data, (uint64_t)n);
	else
		calib_hist(&a->c, data, (uint64_t)n);
}

/* The output error of quantized node @q, given float inputs saved. */
static int sens_node(struct run_ctx *rc, struct qnode *q, const float *ref)
{
	const struct ir_node *n = q->n;
	const void *in[64] = { NULL };
	void *out[INTERP_MAX_OUTPUTS] = { NULL };
	float *tmp[64] = { NULL };
	int64_t numel = ir_tensor_numel(n->outputs[0]);
	int ret = 0;

	if (n->num_inputs > 64)
		return 0;
	for (int k = 0; k < n->num_inputs; k++) {
		const struct ir_tensor *t = n->inputs[k];

		if (!t)
			continue;
		if (k == q->w_in) {
			in[k] = Q.wqs[q->w].deq;
		} else if (q->act[k] >= 0) {
			struct act *a = &Q.acts[q->act[k]];
			int64_t m = ir_tensor_numel(t);

			tmp[k] = xcalloc((size_t)m, sizeof(float));
			memcpy(tmp[k], rc->saved[t->id], (size_t)m * 4);
			fake_quant(tmp[k], (uint64_t)m, a->scale, a->zp,
				   qmin_act(), qmax_act());
			in[k] = tmp[k];
		} else if (!ir_tensor_is_const(t)) {
			in[k] = rc->saved[t->id];
		}
	}
	if (interp_alloc_outputs(n, out)) {
		ret = -ENOMEM;
	} else {
		ret = interp_eval_node(Q.g, n, in, out);
		for (int64_t i = 0; !ret && i < numel; i++) {
			double y = ((float *)out[0])[i], r = ref[i];

			if (!isfinite(y) || !isfinite(r))
				continue;
			q->err2 += (y - r) * (y - r);
			q->ref2 += r * r;
			q->dot += y * r;
		}
		q->nsens++;
	}
	for (int k = 0; k < n->num_inputs; k++)
		free(tmp[k]);
	for (int k = 0; k < INTERP_MAX_OUTPUTS; k++)
		free(out[k]);
	return ret;
}

static bool needs_saving(const struct ir_tensor *t)
{
	for (int u = 0; u < t->num_uses; u++) {
		const struct qnode *q = t->uses[u].node->priv;

		if (q && q->quant)
			return true;
	}
	return false;
}

static int on_node(void *user, const struct ir_node *n, int k,
		   const void *data)
{
	struct run_ctx *rc = user;
	const struct ir_tensor *t = n->outputs[k];
	struct qnode *q = n->priv;

	if (rc->pass != PASS_SENS) {
		for (int i = 0; i < Q.nacts; i++)
			if (Q.acts[i].t == t)
				observe(&Q.acts[i], data, rc->pass);
		return 0;
	}
	if (t->dtype == IR_F32 && needs_saving(t) && !rc->saved[t->id]) {
		size_t b = emit_tensor_bytes(t);

		rc->saved[t->id] = xcalloc(1, b);
		memcpy(rc->saved[t->id], data, b);
	}
	if (k == 0 && q && q->quant && t->dtype == IR_F32)
		return sens_node(rc, q, data);
	return 0;
}

/* Run sample @k; outputs into @outs when given. */
static int run_sample(int k, enum pass p, void **outs_in)
{
	struct ir_graph *g = Q.g;
	const void *ins[MAX_INPUTS];
	void **outs = outs_in;
	struct run_ctx rc = { .pass = p };
	int ret;

	for (int i = 0; i < g->num_inputs; i++) {
		ins[i] = Q.s[k].in[i].data;
		for (int a = 0; p != PASS_SENS && a < Q.nacts; a++)
			if (Q.acts[a].t == g->inputs[i])
				observe(&Q.acts[a], ins[i], p);
	}
	if (p == PASS_SENS) {
		rc.saved = xcalloc((size_t)g->next_id + 1, sizeof(float *));
		for (int i = 0; i < g->num_inputs; i++)
			if (g->inputs[i]->id <= g->next_id &&
			    g->inputs[i]->dtype == IR_F32)
				rc.saved[g->inputs[i]->id] =
					(float *)Q.s[k].in[i].data;
	}
	if (!outs) {
		outs = xcalloc((size_t)g->num_outputs, sizeof(*outs));
		for (int i = 0; i < g->num_outputs; i++)
			outs[i] = xcalloc(1, emit_tensor_bytes(g->outputs[i]) + 1);
	}
	ret = interp_run_ex(g, ins, outs, on_node, &rc);
	if (!outs_in) {
		for (int i = 0; i < g->num_outputs; i++)
			free(outs[i]);
		free(outs);
	}
	if (rc.saved) {
		for (int i = 0; i < g->num_inputs; i++)
			rc.saved[g->inputs[i]->id] = NULL;
		for (int i = 0; i <= g->next_id; i++)
			free(rc.saved[i]);
		free(rc.saved);
	}
	if (ret)
		fprintf(stderr, PROG ": sample '%s': the interpreter: %s\n",
			Q.s[k].id, ret == -ENOMEM ? "out of memory" :
			ir_graph_error(g));
	return ret;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int calibrate(void)
{
	double t0 = now();
	int levels = 256;

	for (int k = 0; k < Q.ns; k++)
		if (run_sample(k, PASS_RANGE, NULL))
			return -1;
	if (Q.o.method != CALIB_MINMAX && Q.nacts) {
		for (int a = 0; a < Q.nacts; a++)
			if (calib_hist_begin(&Q.acts[a].c))
				die_oom();
		for (int k = 0; k < Q.ns; k++)
			if (run_sample(k, PASS_HIST, NULL))
				return -1;
	}
	for (int a = 0; a < Q.nacts; a++) {
		struct act *x = &Q.acts[a];

		if (x->c.nonfinite)
			fprintf(stderr, PROG ": warning: tensor '%s' took %llu "
				"non-finite values (ignored)\n", x->t->name,
				(unsigned long long)x->c.nonfinite);
		calib_choose(&x->c, Q.o.method, Q.o.symmetric,
			     Q.o.percentile, levels, &x->lo, &x->hi);
		quant_params(x->lo, x->hi, Q.o.symmetric, !Q.o.act_unsigned,
			     &x->scale, &x->zp);
	}
	Q.calib_seconds = now() - t0;
	return 0;
}

static int sensitivity(void)
{
	double t0 = now();
	int ns = Q.o.sens_samples < Q.ns ? Q.o.sens_samples : Q.ns;

	for (int k = 0; k < ns; k++)
		if (run_sample(k, PASS_SENS, NULL))
			return -1;
	for (int i = 0; i < Q.g->num_nodes; i++) {
		struct qnode *q = &Q.qn[i];

		if (!q->quant || !q->nsens)
			continue;
		q->rel = q->ref2 > 0 ? sqrt(q->err2 / q->ref2) :
			 q->err2 > 0 ? INFINITY : 0;
		q->cos = q->ref2 > 0 && q->err2 >= 0 ?
			 q->dot / sqrt(q->ref2 * fmax(q->ref2 + q->err2 +
				2 * (q->dot - q->ref2), 1e-300)) : 1;
		q->sqnr = q->err2 > 0 ? 10 * log10(q->ref2 / q->err2) : 999;
	}
	Q.sens_seconds = now() - t0;
	return 0;
}

/* Mark nodes left in float and what stays in use. */
static void decide(void)
{
	for (int i = 0; i < Q.g->num_nodes; i++) {
		struct qnode *q = &Q.qn[i];

		if (!q->quant)
			continue;
		if (Q.o.keep_float && (in_list(Q.o.keep_float, q->n->name) ||
		    in_list(Q.o.keep_float, ir_op_name(q->n->op)))) {
			q->keep = true;
			q->why_float = "keep-float";
		} else if (Q.o.err_threshold >= 0 && q->nsens &&
			   q->rel > Q.o.err_threshold) {
			q->keep = true;
			q->why_float = "error-threshold";
		}
		if (q->keep)
			continue;
		for (int k = 0; k < q->n->num_inputs; k++)
			if (q->act[k] >= 0)
				Q.acts[q->act[k]].used = true;
		if (q->w >= 0)
			Q.wqs[q->w].used = true;
	}
}

/* --- writing the QDQ model ----------------------------------------------- */

static Onnx__TensorProto *tensor_new(const char *name, int32_t dt,
				     const struct ir_shape *s, const void *raw,
				     size_t bytes)
{
	Onnx__TensorProto *t = kcalloc(1, sizeof(*t));

	onnx__tensor_proto__init(t);
	t->name = (char *)name;
	t->has_data_type = 1;
	t->data_type = dt;
	t->n_dims = s ? (size_t)s->rank : 0;
	t->dims = kcalloc(t->n_dims + 1, sizeof(int64_t));
	for (size_t i = 0; i < t->n_dims; i++)
		t->dims[i] = s->dim[i];
	t->has_raw_data = 1;
	t->raw_data.len = bytes;
	t->raw_data.data = kcalloc(1, bytes + 1);
	memcpy(t->raw_data.data, raw, bytes);
	return t;
}

static Onnx__AttributeProto *attr_int(const char *name, int64_t v)
{
	Onnx__AttributeProto *a = kcalloc(1, sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = v;
	return a;
}

static Onnx__NodeProto *node_new(const char *op, const char *name,
				 int nin, const char **in, const char *out)
{
	Onnx__NodeProto *n = kcalloc(1, sizeof(*n));

	onnx__node_proto__init(n);
	n->op_type = (char *)op;
	n->name = (char *)name;
	n->n_input = (size_t)nin;
	n->input = kcalloc((size_t)nin, sizeof(char *));
	for (int i = 0; i < nin; i++)
		n->input[i] = (char *)in[i];
	n->n_output = 1;
	n->output = kcalloc(1, sizeof(char *));
	n->output[0] = (char *)out;
	return n;
}

struct vec {
	void **v;
	size_t n, cap;
};

static void push(struct vec *v, void *p)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->v = realloc(v->v, v->cap * sizeof(*v->v));
		if (!v->v)
			die_oom();
	}
	v->v[v->n++] = p;
}

static void emit_act_qdq(struct vec *nodes, struct vec *inits, struct act *a)
{
	const char *name = a->t->name;
	int32_t zdt = Q.o.act_unsigned ? T_UINT8 : T_INT8;
	uint8_t zb = (uint8_t)a->zp;
	const char *in[3];

	a->sname = new_name(name, "_scale");
	a->zname = new_name(name, "_zero_point");
	a->qname = new_name(name, "_QuantizeLinear_Output");
	a->dqname = new_name(name, "_DequantizeLinear_Output");
	push(inits, tensor_new(a->sname, T_FLOAT, NULL, &a->scale, 4));
	push(inits, tensor_new(a->zname, zdt, NULL, &zb, 1));
	in[0] = name;
	in[1] = a->sname;
	in[2] = a->zname;
	push(nodes, node_new("QuantizeLinear", new_name(name, "_QuantizeLinear"),
			     3, in, a->qname));
	in[0] = a->qname;
	push(nodes, node_new("DequantizeLinear",
			     new_name(name, "_DequantizeLinear"), 3, in,
			     a->dqname));
}

static void emit_weight_dq(struct vec *nodes, struct vec *inits, struct wq *w)
{
	const char *name = w->t->name;
	int64_t n = ir_tensor_numel(w->t);
	const char *in[3];
	Onnx__NodeProto *dq;

	w->qname = new_name(name, "_quantized");
	w->sname = new_name(name, "_scale");
	w->dqname = new_name(name, "_DequantizeLinear_Output");
	push(inits, tensor_new(w->sname, T_FLOAT, &w->sshape, w->scales,
			       (size_t)w->nscales * 4));
	in[0] = w->qname;
	in[1] = w->sname;
	if (w->bits == 8) {
		int8_t *z = xcalloc((size_t)w->nscales, 1);

		w->zname = new_name(name, "_zero_point");
		push(inits, tensor_new(w->qname, T_INT8, &w->t->shape, w->q,
				       (size_t)n));
		push(inits, tensor_new(w->zname, T_INT8, &w->sshape, z,
				       (size_t)w->nscales));
		free(z);
		in[2] = w->zname;
	} else {
		/* two values a byte, the first in the low nibble */
		size_t nb = (size_t)(n + 1) / 2;
		uint8_t *p = xcalloc(nb, 1);

		for (int64_t i = 0; i < n; i++)
			p[i / 2] |= (uint8_t)((w->q[i] & 0xf) << (4 * (i & 1)));
		push(inits, tensor_new(w->qname, T_INT4, &w->t->shape, p, nb));
		free(p);
	}
	dq = node_new("DequantizeLinear", new_name(name, "_DequantizeLinear"),
		      w->bits == 8 ? 3 : 2, in, w->dqname);
	dq->n_attribute = w->bits == 8 ? 1 : 2;
	dq->attribute = kcalloc(2, sizeof(*dq->attribute));
	dq->attribute[0] = attr_int("axis", w->axis);
	if (w->bits == 4)
		dq->attribute[1] = attr_int("block_size", w->group);
	push(nodes, dq);
}

/*
 * Whether every use of weight @t, directly or through Identity nodes, is
 * the weight slot of a quantized node: then the float weight goes.
 */
static bool weight_replaced(const struct ir_tensor *t)
{
	if (t->is_output)
		return false;
	for (int u = 0; u < t->num_uses; u++) {
		const struct ir_node *n = t->uses[u].node;
		const struct qnode *q = n->priv;

		if (n->op == IR_OP_IDENTITY && n->outputs[0]) {
			if (!weight_replaced(n->outputs[0]))
				return false;
			continue;
		}
		if (!q || !q->quant || q->keep || q->w_in != t->uses[u].index)
			return false;
	}
	return true;
}

/* A used quantized weight of which @t is the constant. */
static bool weight_gone(const struct ir_tensor *t)
{
	for (int w = 0; t && w < Q.nwqs; w++)
		if (Q.wqs[w].t == t && Q.wqs[w].used)
			return weight_replaced(t);
	return false;
}

/*
 * Opset 21 for blocked int4: the Reduce ops took their axes as an input at
 * opset 18; the attribute becomes an int64 initializer.
 */
static bool reduce_axes_op(const char *op)
{
	static const char *const ops[] = {
		"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
		"ReduceSumSquare", NULL };

	for (int i = 0; ops[i]; i++)
		if (!strcmp(op, ops[i]))
			return true;
	return false;
}

static int check_opset_bump(int64_t to)
{
	static const char *const changed[] = {
		"GridSample", "DFT", "GroupNormalization", "Col2Im", NULL };
	const Onnx__GraphProto *gp = Q.m->graph;

	if (to <= Q.opset)
		return 0;
	if (Q.opset < 13) {
		fprintf(stderr, PROG ": the model has opset %lld; the QDQ "
			"model needs opset %lld and npu-quant converts from "
			"opset 13 on: re-export with opset_version >= 13\n",
			(long long)Q.opset, (long long)to);
		return -1;
	}
	for (size_t i = 0; i < gp->n_node; i++)
		for (int k = 0; changed[k]; k++)
			if (default_domain(gp->node[i]->domain) &&
			    !strcmp(gp->node[i]->op_type, changed[k])) {
				fprintf(stderr, PROG ": node '%s' (%s) changed "
					"meaning before opset %lld, which int4 "
					"weights need; not converted\n",
					gp->node[i]->name, changed[k],
					(long long)to);
				return -1;
			}
	return 0;
}

static Onnx__NodeProto *convert_reduce(const Onnx__NodeProto *src,
				       struct vec *inits)
{
	Onnx__NodeProto *n;
	const Onnx__AttributeProto *axes = NULL;
	struct ir_shape s;
	int64_t d;

	for (size_t i = 0; i < src->n_attribute; i++)
		if (!strcmp(src->attribute[i]->name, "axes"))
			axes = src->attribute[i];
	if (!axes || src->n_input != 1)
		return NULL;
	n = kcalloc(1, sizeof(*n));
	*n = *src;
	n->attribute = kcalloc(src->n_attribute, sizeof(*n->attribute));
	n->n_attribute = 0;
	for (size_t i = 0; i < src->n_attribute; i++)
		if (src->attribute[i] != axes)
			n->attribute[n->n_attribute++] = src->attribute[i];
	n->n_input = 2;
	n->input = kcalloc(2, sizeof(char *));
	n->input[0] = src->input[0];
	n->input[1] = (char *)new_name(src->output[0], "_axes");
	d = (int64_t)axes->n_ints;
	s = ir_shape_make(1, &d);
	push(inits, tensor_new(n->input[1], T_INT64, &s, axes->ints,
			       axes->n_ints * 8));
	return n;
}

static int write_model(void)
{
	Onnx__GraphProto *gp = Q.m->graph, g2;
	Onnx__ModelProto m2;
	Onnx__OperatorSetIdProto *ops2 = NULL;
	struct vec nodes = { 0 }, inits = { 0 }, ginputs = { 0 };
	int64_t opset = Q.opset, want = 13;
	size_t len;
	uint8_t *buf;
	FILE *f;
	int ret = -1;

	for (int i = 0; i < Q.nwqs; i++)
		if (Q.wqs[i].used && Q.wqs[i].bits == 4)
			want = 21;
	if (want > opset && check_opset_bump(want))
		return -1;
	if (want > opset)
		opset = want;
	/* weights, then graph inputs, then each node and its outputs */
	for (int i = 0; i < Q.nwqs; i++)
		if (Q.wqs[i].used)
			emit_weight_dq(&nodes, &inits, &Q.wqs[i]);
	for (int a = 0; a < Q.nacts; a++)
		if (Q.acts[a].used && Q.acts[a].t->is_input)
			emit_act_qdq(&nodes, &inits, &Q.acts[a]);
	for (size_t i = 0; i < gp->n_node; i++) {
		const Onnx__NodeProto *src = gp->node[i];
		const struct ir_tensor *o0 = src->n_output ?
			ir_graph_find_tensor(Q.g, src->output[0]) : NULL;
		const struct qnode *q = o0 && o0->producer ?
			o0->producer->priv : NULL;
		Onnx__NodeProto *n = (Onnx__NodeProto *)src;

		/* a weight's Constant node, or Identity of it, that goes */
		if (o0 && ((ir_tensor_is_const(o0) &&
			    !strcmp(src->op_type, "Constant")) ||
			   (o0->producer && o0->producer->op ==
			    IR_OP_IDENTITY)) &&
		    weight_gone(const_source((struct ir_tensor *)o0)))
			continue;
		if (opset >= 18 && Q.opset < 18 &&
		    default_domain(src->domain) &&
		    reduce_axes_op(src->op_type)) {
			Onnx__NodeProto *c = convert_reduce(src, &inits);

			if (c)
				n = c;
		}
		if (q && q->quant && !q->keep) {
			if (n == src) {
				n = kcalloc(1, sizeof(*n));
				*n = *src;
			}
			n->input = kcalloc(src->n_input, sizeof(char *));
			for (size_t k = 0; k < src->n_input; k++) {
				int kk = (int)k;

				n->input[k] = src->input[k];
				if (kk < q->n->num_inputs && q->act[kk] >= 0)
					n->input[k] = (char *)
						Q.acts[q->act[kk]].dqname;
				else if (kk == q->w_in)
					n->input[k] = (char *)
						Q.wqs[q->w].dqname;
			}
		}
		push(&nodes, n);
		for (size_t k = 0; k < src->n_output; k++) {
			const struct ir_tensor *t =
				ir_graph_find_tensor(Q.g, src->output[k]);

			for (int a = 0; t && a < Q.nacts; a++)
				if (Q.acts[a].t == t && Q.acts[a].used)
					emit_act_qdq(&nodes, &inits,
						     &Q.acts[a]);
		}
	}
	/* initializers: the replaced weights go */
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *tp = gp->initializer[i];

		if (!weight_gone(ir_graph_find_tensor(Q.g, tp->name)))
			push(&inits, gp->initializer[i]);
	}
	/* graph inputs naming a dropped initializer (IR version < 4) */
	for (size_t i = 0; i < gp->n_input; i++) {
		if (!weight_gone(ir_graph_find_tensor(Q.g,
						      gp->input[i]->name)))
			push(&ginputs, gp->input[i]);
	}
	g2 = *gp;
	g2.n_node = nodes.n;
	g2.node = (Onnx__NodeProto **)nodes.v;
	g2.n_initializer = inits.n;
	g2.initializer = (Onnx__TensorProto **)inits.v;
	g2.n_input = ginputs.n;
	g2.input = (Onnx__ValueInfoProto **)ginputs.v;
	m2 = *Q.m;
	m2.graph = &g2;
	m2.opset_import = kcalloc(Q.m->n_opset_import,
				  sizeof(*m2.opset_import));
	for (size_t i = 0; i < Q.m->n_opset_import; i++) {
		m2.opset_import[i] = Q.m->opset_import[i];
		if (default_domain(Q.m->opset_import[i]->domain) &&
		    opset != Q.opset) {
			ops2 = kcalloc(1, sizeof(*ops2));
			*ops2 = *Q.m->opset_import[i];
			ops2->has_version = 1;
			ops2->version = opset;
			m2.opset_import[i] = ops2;
		}
	}
	/* INT4 is a data type of IR version 10 (opset 21) */
	if (opset >= 21 && (!m2.has_ir_version || m2.ir_version < 10)) {
		m2.has_ir_version = 1;
		m2.ir_version = 10;
	}
	if (!m2.producer_name || !*m2.producer_name)
		m2.producer_name = (char *)PROG;
	len = onnx__model_proto__get_packed_size(&m2);
	buf = xcalloc(1, len);
	onnx__model_proto__pack(&m2, buf);
	f = fopen(Q.o.output, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		fprintf(stderr, PROG ": %s: %s\n", Q.o.output,
			strerror(errno ? errno : EIO));
	} else {
		ret = 0;
	}
	if (f && fclose(f) && !ret) {
		fprintf(stderr, PROG ": %s: %s\n", Q.o.output, strerror(errno));
		ret = -1;
	}
	free(buf);
	free(nodes.v);
	free(inits.v);
	free(ginputs.v);
	return ret;
}

/* --- checking the written model ------------------------------------------ */

static double get_f(const void *p, enum ir_dtype dt, size_t i)
{
	if (dt == IR_F32)
		return ((const float *)p)[i];
	return NAN;
}

/* Run the written QDQ model with the interpreter against the float one. */
static void eval_written(char *shapes)
{
	struct onnx_import_opts imp = { .input_shapes = shapes };
	struct ir_graph *g2 = NULL;
	int ns = Q.o.sens_samples < Q.ns ? Q.o.sens_samples : Q.ns;
	double e2 = 0, r2 = 0;
	char err[1024];

	if (!ns) {
		Q.eval_skip = "no samples";
		return;
	}
	if (onnx_import_file(Q.o.output, &imp, &g2, err, sizeof(err)) ||
	    ir_graph_toposort(g2) || shape_infer(g2)) {
		static char why[1100];

		snprintf(why, sizeof(why), "the importer: %s",
			 g2 ? ir_graph_error(g2) : err);
		if (!g2)
			snprintf(why, sizeof(why), "the importer: %s", err);
		Q.eval_skip = why;
		ir_graph_free(g2);
		return;
	}
	for (int k = 0; k < ns; k++) {
		void **fo = xcalloc((size_t)Q.g->num_outputs, sizeof(*fo));
		void **qo = xcalloc((size_t)g2->num_outputs, sizeof(*qo));
		const void *ins[MAX_INPUTS];
		int ret;

		for (int i = 0; i < Q.g->num_inputs; i++)
			ins[i] = Q.s[k].in[i].data;
		for (int i = 0; i < Q.g->num_outputs; i++)
			fo[i] = xcalloc(1, emit_tensor_bytes(Q.g->outputs[i]) + 1);
		for (int i = 0; i < g2->num_outputs; i++)
			qo[i] = xcalloc(1, emit_tensor_bytes(g2->outputs[i]) + 1);
		ret = g2->num_outputs != Q.g->num_outputs ||
		      interp_run(Q.g, ins, fo) || interp_run(g2, ins, qo);
		if (ret) {
			Q.eval_skip = "the interpreter failed on the QDQ model";
		} else {
			const struct ir_tensor *t = Q.g->outputs[0];
			int64_t n = ir_tensor_numel(t);
			int64_t last = t->shape.rank ?
				t->shape.dim[t->shape.rank - 1] : 1;

			for (int o = 0; o < Q.g->num_outputs; o++) {
				int64_t m = ir_tensor_numel(Q.g->outputs[o]);

				for (int64_t i = 0; i < m; i++) {
					double a = get_f(fo[o],
						Q.g->outputs[o]->dtype, (size_t)i);
					double b = get_f(qo[o],
						g2->outputs[o]->dtype, (size_t)i);

					if (isfinite(a) && isfinite(b)) {
						e2 += (a - b) * (a - b);
						r2 += a * a;
					}
				}
			}
			/* top-1 per row of the first output */
			for (int64_t r = 0; t->dtype == IR_F32 && last > 1 &&
			     r < n / last; r++) {
				const float *a = (const float *)fo[0] + r * last;
				const float *b = (const float *)qo[0] + r * last;
				int64_t ia = 0, ib = 0;

				for (int64_t j = 1; j < last; j++) {
					if (a[j] > a[ia])
						ia = j;
					if (b[j] > b[ib])
						ib = j;
				}
				Q.eval_top1 += ia == ib;
				Q.eval_rows++;
			}
		}
		for (int i = 0; i < Q.g->num_outputs; i++)
			free(fo[i]);
		for (int i = 0; i < g2->num_outputs; i++)
			free(qo[i]);
		free(fo);
		free(qo);
		if (ret)
			break;
	}
	if (!Q.eval_skip) {
		Q.eval_done = true;
		Q.eval_rel = r2 > 0 ? sqrt(e2 / r2) : 0;
	}
	ir_graph_free(g2);
}

/* --- report -------------------------------------------------------------- */

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static double jnum(double v)
{
	return isfinite(v) ? v : -1;
}

static int cmp_sens(const void *a, const void *b)
{
	const struct qnode *x = *(struct qnode *const *)a;
	const struct qnode *y = *(struct qnode *const *)b;

	return x->rel < y->rel ? 1 : x->rel > y->rel ? -1 : 0;
}

static const char *method_name(void)
{
	return Q.o.method == CALIB_MINMAX ? "minmax" :
	       Q.o.method == CALIB_PERCENTILE ? "percentile" : "entropy";
}

static int nquant(struct qnode ***order)
{
	int n = 0;

	*order = xcalloc((size_t)Q.g->num_nodes, sizeof(**order));
	for (int i = 0; i < Q.g->num_nodes; i++)
		if (Q.qn[i].quant)
			(*order)[n++] = &Q.qn[i];
	qsort(*order, (size_t)n, sizeof(**order), cmp_sens);
	return n;
}

static int write_report(void)
{
	FILE *f = fopen(Q.o.report, "w");
	struct qnode **order;
	int n = nquant(&order), k = 0;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", Q.o.report, strerror(errno));
		free(order);
		return -1;
	}
	fprintf(f, "{\"model\": ");
	jstr(f, Q.o.model);
	fprintf(f, ", \"output\": ");
	jstr(f, Q.o.output);
	fprintf(f, ",\n \"method\": \"%s\", \"percentile\": %g, "
		"\"activations\": \"%s\", \"symmetric\": %s, "
		"\"weights\": \"int%d\", \"group_size\": %lld, "
		"\"weight_only\": %s,\n \"samples\": %d, "
		"\"sensitivity_samples\": %d, \"calibration_seconds\": %.3f, "
		"\"sensitivity_seconds\": %.3f",
		method_name(), Q.o.percentile,
		Q.o.weight_only ? "float" : Q.o.act_unsigned ? "uint8" : "int8",
		Q.o.symmetric ? "true" : "false", Q.o.wbits,
		(long long)(Q.o.wbits == 4 ? Q.o.group : 0),
		Q.o.weight_only ? "true" : "false", Q.ns,
		Q.o.sens_samples < Q.ns ? Q.o.sens_samples : Q.ns,
		Q.calib_seconds, Q.sens_seconds);
	fprintf(f, ",\n \"error_threshold\": ");
	if (Q.o.err_threshold >= 0)
		fprintf(f, "%g", Q.o.err_threshold);
	else
		fprintf(f, "null");
	fprintf(f, ",\n \"qdq_check\": ");
	if (Q.eval_done)
		fprintf(f, "{\"rel_error\": %.9g, \"top1_agreement\": %.6f, "
			"\"rows\": %d}", jnum(Q.eval_rel), Q.eval_rows ?
			(double)Q.eval_top1 / Q.eval_rows : 1.0, Q.eval_rows);
	else {
		fprintf(f, "{\"skipped\": ");
		jstr(f, Q.eval_skip ? Q.eval_skip : "not run");
		fprintf(f, "}");
	}
	fprintf(f, ",\n \"tensors\": [");
	for (int a = 0; a < Q.nacts; a++) {
		const struct act *x = &Q.acts[a];

		fprintf(f, "%s\n  {\"tensor\": ", k++ ? "," : "");
		jstr(f, x->t->name);
		fprintf(f, ", \"min\": %.9g, \"max\": %.9g, \"lo\": %.9g, "
			"\"hi\": %.9g, \"scale\": %.9g, \"zero_point\": %d, "
			"\"quantized\": %s}", jnum(x->c.min), jnum(x->c.max),
			x->lo, x->hi, x->scale, x->zp,
			x->used ? "true" : "false");
	}
	fprintf(f, "\n ],\n \"layers\": [");
	for (int i = 0; i < n; i++) {
		const struct qnode *q = order[i];

		fprintf(f, "%s\n  {\"rank\": %d, \"node\": ", i ? "," : "",
			i + 1);
		jstr(f, q->n->name);
		fprintf(f, ", \"op\": \"%s\", \"rel_error\": %.9g, "
			"\"cosine\": %.9g, \"sqnr_db\": %.4f, \"samples\": "
			"%llu, \"weight\": ", ir_op_name(q->n->op),
			jnum(q->rel), jnum(q->cos), jnum(q->sqnr),
			(unsigned long long)q->nsens);
		if (q->w >= 0)
			jstr(f, Q.wqs[q->w].t->name);
		else
			fprintf(f, "null");
		fprintf(f, ", \"quantized\": %s, \"float_reason\": ",
			q->keep ? "false" : "true");
		if (q->why_float)
			jstr(f, q->why_float);
		else
			fprintf(f, "null");
		fprintf(f, "}");
	}
	fprintf(f, "\n ]}\n");
	free(order);
	if (fclose(f)) {
		fprintf(stderr, PROG ": %s: %s\n", Q.o.report, strerror(errno));
		return -1;
	}
	return 0;
}

static void summary(void)
{
	struct qnode **order;
	int n = nquant(&order), nq = 0, nw = 0, na = 0;

	for (int i = 0; i < n; i++)
		nq += !order[i]->keep;
	for (int i = 0; i < Q.nwqs; i++)
		nw += Q.wqs[i].used;
	for (int i = 0; i < Q.nacts; i++)
		na += Q.acts[i].used;
	printf(PROG ": %s -> %s: %d of %d candidate nodes quantized, %d "
	       "weights (int%d%s), %d activations (%s, %s), %d samples, "
	       "calibration %.2f s\n", Q.o.model, Q.o.output, nq, n, nw,
	       Q.o.wbits, Q.o.wbits == 4 ? ", blocked" : ", per channel", na,
	       Q.o.weight_only ? "none" : Q.o.act_unsigned ? "uint8" : "int8",
	       method_name(), Q.ns, Q.calib_seconds);
	if (Q.folded_bn)
		printf("  %d BatchNormalization folded into the Conv before "
		       "it\n", Q.folded_bn);
	if (n)
		printf("  most sensitive: ");
	for (int i = 0; i < n && i < 5; i++)
		printf("%s%s (%s) %.4f", i ? ", " : "", order[i]->n->name,
		       ir_op_name(order[i]->n->op), order[i]->rel);
	if (n)
		printf(" (relative error of the node's output)\n");
	if (Q.eval_done)
		printf("  QDQ model vs float on %d samples: relative error "
		       "%.5f, top-1 agreement %d/%d\n",
		       Q.o.sens_samples < Q.ns ? Q.o.sens_samples : Q.ns,
		       Q.eval_rel, Q.eval_top1, Q.eval_rows);
	else
		printf("  QDQ model not checked: %s\n",
		       Q.eval_skip ? Q.eval_skip : "-");
	free(order);
}

/* --- main ---------------------------------------------------------------- */

static void cleanup(void)
{
	for (int a = 0; a < Q.nacts; a++)
		calib_free(&Q.acts[a].c);
	for (int i = 0; i < Q.nwqs; i++) {
		free(Q.wqs[i].scales);
		free(Q.wqs[i].q);
		free(Q.wqs[i].deq);
	}
	for (int i = 0; Q.qn && Q.g && i < Q.g->num_nodes; i++)
		free(Q.qn[i].act);
	for (int k = 0; k < Q.ns; k++) {
		for (int i = 0; i < MAX_INPUTS; i++)
			npy_free(&Q.s[k].in[i]);
		free(Q.s[k].id);
	}
	for (size_t i = 0; i < Q.nkeep; i++)
		free(Q.keep[i]);
	free(Q.keep);
	free(Q.names);
	free(Q.s);
	free(Q.qn);
	free(Q.acts);
	free(Q.wqs);
	free(Q.packed);
	ir_graph_free(Q.g);
	if (Q.m)
		onnx__model_proto__free_unpacked(Q.m, NULL);
}

int main(int argc, char **argv)
{
	struct onnx_import_opts imp = { 0 };
	struct ir_graph *g0 = NULL;
	char err[1024], shapes[8192];
	int ret = 2;

	if (parse(argc, argv, &Q.o))
		return 2;
	Q.m = read_model(Q.o.model);
	if (!Q.m)
		goto out;
	Q.opset = model_opset(Q.m);
	for (size_t i = 0; i < Q.m->graph->n_node; i++) {
		const char *op = Q.m->graph->node[i]->op_type;

		if (op && (!strcmp(op, "QuantizeLinear") ||
			   !strcmp(op, "DequantizeLinear") ||
			   !strncmp(op, "QLinear", 7))) {
			fprintf(stderr, PROG ": %s is quantized already (node "
				"'%s', %s)\n", Q.o.model,
				Q.m->graph->node[i]->name, op);
			goto out;
		}
	}
	for (size_t i = 0; i < Q.m->graph->n_initializer; i++)
		if (Q.m->graph->initializer[i]->n_external_data) {
			fprintf(stderr, PROG ": %s: initializer '%s' has "
				"external data, which npu-quant does not "
				"write back; save the model with its data "
				"inside\n", Q.o.model,
				Q.m->graph->initializer[i]->name);
			goto out;
		}
	if (Q.opset < 13) {
		fprintf(stderr, PROG ": %s has opset %lld; per-channel "
			"DequantizeLinear needs opset 13: re-export with "
			"opset_version >= 13\n", Q.o.model,
			(long long)Q.opset);
		goto out;
	}
	if (npuq_fold_bn(Q.m, &Q.folded_bn))
		die_oom();
	if (pack_model())
		goto out;
	imp.input_shapes = Q.o.input_shapes;
	if (onnx_import_buffer(Q.packed, Q.packed_len, NULL, &imp, &g0, err,
			       sizeof(err))) {
		fprintf(stderr, PROG ": %s: %s\n", Q.o.model, err);
		goto out;
	}
	if (g0->num_inputs > MAX_INPUTS || !g0->num_inputs) {
		fprintf(stderr, PROG ": %s: %d inputs (1 to %d supported)\n",
			Q.o.model, g0->num_inputs, MAX_INPUTS);
		goto out;
	}
	if (load_calib(g0) || !Q.ns ||
	    check_samples(g0, shapes, sizeof(shapes)))
		goto out;
	imp.input_shapes = shapes;
	if (onnx_import_buffer(Q.packed, Q.packed_len, NULL, &imp, &Q.g, err,
			       sizeof(err))) {
		fprintf(stderr, PROG ": %s: %s\n", Q.o.model, err);
		goto out;
	}
	if (ir_graph_toposort(Q.g) || shape_infer(Q.g)) {
		fprintf(stderr, PROG ": %s: %s\n", Q.o.model,
			ir_graph_error(Q.g));
		goto out;
	}
	ret = 1;
	plan();
	for (int i = 0; i < Q.nwqs; i++)
		quantize_weight(&Q.wqs[i]);
	if (calibrate() || sensitivity())
		goto out;
	decide();
	if (write_model())
		goto out;
	eval_written(shapes);
	if (Q.o.report && write_report())
		goto out;
	if (!Q.o.quiet)
		summary();
	ret = 0;
out:
	ir_graph_free(g0);
	cleanup();
	return ret;
}
