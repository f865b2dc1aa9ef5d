// SPDX-License-Identifier: MIT
/*
 * npuc-fe - the compiler front end as a program: import an ONNX model, run
 * the passes, print the per-pass report, dump the IR, and (for tests)
 * interpret the model before and after the passes against a reference.
 *
 *   npuc-fe MODEL.onnx [-O0..3] [--disable-pass=A,B] [--dump-ir-after=P|all]
 *           [--dump-format=text|dot] [--dump-file=F] [--input-shape=SPEC]
 *           [--report] [--report-json=F] [--list-passes] [--print-io]
 *           [--run=IN.bin --compare=REF.bin [--rtol=R]]
 *           [--expect-none=OP,OP] [--expect-min=OP:N,act:KIND:N]
 *           [--interp=DIR]
 *
 * --interp=DIR reads every input K from DIR/input_K.bin (raw, dense, in the
 * input's dtype) and writes every output K as DIR/before_K.bin (the model
 * interpreted after shape inference, before any pass) and DIR/after_K.bin
 * (after the passes of the -O level): the reference of the differential
 * fuzzer (tests/difftest/).
 *
 * Exit status: 0 success, 1 a failed check or comparison, 2 usage or input
 * error.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "interp/interp.h"
#include "onnx/onnx_import.h"
#include "passes/pass_manager.h"
#include "shape/shape.h"

struct fe_args {
	const char *model, *run, *compare, *expect_none, *expect_min;
	const char *report_json, *dump_file, *interp_dir;
	double rtol;
	bool report, print_io;
	struct pm_opts pm;
	struct onnx_import_opts imp;
};

static void usage(void)
{
	fprintf(stderr, "usage: npuc-fe MODEL.onnx [-O0..3] "
		"[--disable-pass=A,B] [--dump-ir-after=PASS|all]\n"
		"       [--dump-format=text|dot] [--dump-file=F] "
		"[--input-shape=NAME:D,D;...]\n"
		"       [--report] [--report-json=F] [--list-passes] "
		"[--print-io] [--verify]\n"
		"       [--run=IN.bin --compare=REF.bin [--rtol=R]]\n"
		"       [--expect-none=OP,..] [--expect-min=OP:N,act:KIND:N]\n"
		"       [--interp=DIR]\n");
}

static void list_passes(void)
{
	const struct pass_info *p;
	int n, i;

	p = pm_passes(&n);
	printf("shape-inference      (always) infer dtypes and shapes\n");
	for (i = 0; i < n; i++)
		printf("%-20s -O%d%s %s\n", p[i].name, p[i].min_level,
		       p[i].in_fixpoint ? " fixpoint" : "         ",
		       p[i].summary);
}

static const char *opt_val(const char *arg, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(arg, name, n) && arg[n] == '=')
		return arg + n + 1;
	return NULL;
}

static int parse(int argc, char **argv, struct fe_args *a)
{
	const char *v;
	int i;

	memset(a, 0, sizeof(*a));
	a->pm.opt_level = 2;
	a->rtol = 1e-4;
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strncmp(s, "-O", 2) && s[2] >= '0' && s[2] <= '3' && !s[3])
			a->pm.opt_level = s[2] - '0';
		else if ((v = opt_val(s, "--disable-pass")))
			a->pm.disable = v;
		else if ((v = opt_val(s, "--dump-ir-after")))
			a->pm.dump_after = v;
		else if ((v = opt_val(s, "--dump-format")))
			a->pm.dump_format = strcmp(v, "dot") ? PM_DUMP_TEXT
							      : PM_DUMP_DOT;
		else if ((v = opt_val(s, "--dump-file")))
			a->dump_file = v;
		else if ((v = opt_val(s, "--input-shape")))
			a->imp.input_shapes = v;
		else if (!strcmp(s, "--report"))
			a->report = true;
		else if ((v = opt_val(s, "--report-json")))
			a->report_json = v;
		else if ((v = opt_val(s, "--run")))
			a->run = v;
		else if ((v = opt_val(s, "--compare")))
			a->compare = v;
		else if ((v = opt_val(s, "--rtol")))
			a->rtol = atof(v);
		else if ((v = opt_val(s, "--expect-none")))
			a->expect_none = v;
		else if ((v = opt_val(s, "--expect-min")))
			a->expect_min = v;
		else if ((v = opt_val(s, "--interp")))
			a->interp_dir = v;
		else if (!strcmp(s, "--print-io"))
			a->print_io = true;
		else if (!strcmp(s, "--verify"))
			a->pm.verify = true;
		else if (!strcmp(s, "--list-passes")) {
			list_passes();
			exit(0);
		} else if (s[0] != '-' && !a->model)
			a->model = s;
		else {
			fprintf(stderr, "npuc-fe: unknown option '%s'\n", s);
			return -EINVAL;
		}
	}
	if (!a->model) {
		usage();
		return -EINVAL;
	}
	return 0;
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)(n > 0 ? n : 0);
	return buf;
}

/* Interpret @g on @in; compare output 0 to @ref; max relative error. */
static int run_compare(struct ir_graph *g, const void *in, size_t in_len,
		       const float *ref, size_t ref_len, double *rel)
{
	const struct ir_tensor *o = g->outputs[0];
	const void *ins[1] = { in };
	void *outs[1];
	size_t n, i;
	double maxdiff = 0, maxref = 0;
	int err;

	if (g->num_inputs != 1 || g->num_outputs < 1 || o->dtype != IR_F32) {
		fprintf(stderr, "npuc-fe: --run takes one f32 input and "
			"compares output 0 (f32)\n");
		return -EINVAL;
	}
	if (emit_tensor_bytes(g->inputs[0]) != in_len ||
	    emit_tensor_bytes(o) != ref_len) {
		fprintf(stderr, "npuc-fe: input/reference sizes (%zu, %zu) do "
			"not match the model (%zu, %zu)\n", in_len, ref_len,
			emit_tensor_bytes(g->inputs[0]), emit_tensor_bytes(o));
		return -EINVAL;
	}
	outs[0] = malloc(ref_len);
	if (!outs[0])
		return -ENOMEM;
	err = interp_run(g, ins, outs);
	if (err) {
		fprintf(stderr, "npuc-fe: interpreter: %s\n",
			ir_graph_error(g));
		free(outs[0]);
		return err;
	}
	n = ref_len / 4;
	for (i = 0; i < n; i++) {
		double d = fabs((double)((float *)outs[0])[i] - ref[i]);

		if (d > maxdiff || isnan(d))
			maxdiff = isnan(d) ? INFINITY : d;
		if (fabs(ref[i]) > maxref)
			maxref = fabs(ref[i]);
	}
	*rel = maxdiff / (maxref > 0 ? maxref : 1);
	free(outs[0]);
	return 0;
}

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	int bad;

	if (!f)
		return -errno;
	bad = len && fwrite(buf, 1, len, f) != len;
	bad |= fclose(f) != 0;
	return bad ? -EIO : 0;
}

/* The extents of the graph's outputs of data-dependent extent. */
struct counts {
	const struct ir_graph *g;
	int64_t *extent;	/* per output; -1: not counted */
};

static int note_count(void *user, const struct ir_node *n, int k,
		      const void *data)
{
	struct counts *c = user;

	for (int i = 0; i < c->g->num_outputs; i++)
		if (c->g->outputs[i]->count == n->outputs[k])
			memcpy(&c->extent[i], data, sizeof(int64_t));
	return 0;
}

/*
 * Bytes of output @t to write: all of it, or for an output of
 * data-dependent extent the dense tensor of @extent along its counted
 * dim that the device packs at the start (runtime.rst).
 */
static size_t output_bytes(const struct ir_tensor *t, int64_t extent)
{
	size_t all = emit_tensor_bytes(t);
	int64_t bound = t->count ? t->shape.dim[t->count_dim] : 0;

	if (!t->count || bound <= 0 || extent < 0 || extent > bound)
		return all;
	return all / (size_t)bound * (size_t)extent;
}

/*
 * Interpret @g on DIR/input_K.bin; write each output K to DIR/@tag_K.bin.
 * The inputs are the graph's, so they are the same before and after the
 * passes (the passes keep the graph's I/O).
 */
static int interp_dump(struct ir_graph *g, const char *dir, const char *tag)
{
	const void **ins = calloc((size_t)g->num_inputs + 1, sizeof(*ins));
	void **outs = calloc((size_t)g->num_outputs + 1, sizeof(*outs));
	struct counts cn = { g, calloc((size_t)g->num_outputs + 1,
				       sizeof(int64_t)) };
	char path[4096];
	int i, ret = -ENOMEM;

	if (!ins || !outs || !cn.extent)
		goto out;
	for (i = 0; i < g->num_outputs; i++)
		cn.extent[i] = -1;
	for (i = 0; i < g->num_inputs; i++) {
		size_t len;

		snprintf(path, sizeof(path), "%s/input_%d.bin", dir, i);
		ins[i] = read_file(path, &len);
		if (!ins[i] || len != emit_tensor_bytes(g->inputs[i])) {
			fprintf(stderr, "npuc-fe: %s: cannot read, or not the "
				"%zu bytes of input '%s'\n", path,
				emit_tensor_bytes(g->inputs[i]),
				g->inputs[i]->name);
			ret = -EINVAL;
			goto out;
		}
	}
	for (i = 0; i < g->num_outputs; i++) {
		outs[i] = calloc(1, emit_tensor_bytes(g->outputs[i]) + 1);
		if (!outs[i])
			goto out;
	}
	ret = interp_run_ex(g, ins, outs, note_count, &cn);
	if (ret) {
		fprintf(stderr, "npuc-fe: interpreter (%s): %s\n", tag,
			ir_graph_error(g));
		goto out;
	}
	for (i = 0; i < g->num_outputs; i++) {
		snprintf(path, sizeof(path), "%s/%s_%d.bin", dir, tag, i);
		ret = write_file(path, outs[i],
				 output_bytes(g->outputs[i], cn.extent[i]));
		if (ret) {
			fprintf(stderr, "npuc-fe: cannot write %s\n", path);
			goto out;
		}
	}
out:
	for (i = 0; ins && i < g->num_inputs; i++)
		free((void *)ins[i]);
	for (i = 0; outs && i < g->num_outputs; i++)
		free(outs[i]);
	free(ins);
	free(outs);
	free(cn.extent);
	return ret;
}

/* Count nodes of op name @op, or with fused activation "act:KIND". */
static int count_ops(const struct ir_graph *g, const char *op, size_t len)
{
	int i, n = 0;

	for (i = 0; i < g->num_nodes; i++) {
		const struct ir_node *nd = g->nodes[i];

		if (len > 4 && !strncmp(op, "act:", 4)) {
			const char *k = ir_act_name(nd->act.kind);

			if (nd->act.kind && strlen(k) == len - 4 &&
			    !strncmp(k, op + 4, len - 4))
				n++;
			continue;
		}
		if (strlen(ir_op_name(nd->op)) == len &&
		    !strncmp(ir_op_name(nd->op), op, len))
			n++;
	}
	return n;
}

static int check_expect(const struct ir_graph *g, const struct fe_args *a)
{
	const char *p;
	int bad = 0;

	for (p = a->expect_none; p && *p;) {
		size_t n = strcspn(p, ",");
		int c = count_ops(g, p, n);

		printf("expect-none %.*s: %d left\n", (int)n, p, c);
		bad |= c != 0;
		p += n + (p[n] == ',');
	}
	for (p = a->expect_min; p && *p;) {
		size_t n = strcspn(p, ","), k = n;
		int want, c;

		while (k && p[k - 1] != ':')
			k--;
		if (!k) {
			fprintf(stderr, "npuc-fe: --expect-min wants OP:N\n");
			return 2;
		}
		want = atoi(p + k);
		c = count_ops(g, p, k - 1);
		printf("expect-min %.*s >= %d: %d\n", (int)(k - 1), p, want, c);
		bad |= c < want;
		p += n + (p[n] == ',');
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct fe_args a;
	struct ir_graph *g = NULL;
	struct pm_report rep;
	char err[1024];
	void *in = NULL, *ref = NULL;
	size_t in_len = 0, ref_len = 0;
	double rel;
	int ret, status = 0;
	FILE *dump = NULL;

	if (parse(argc, argv, &a))
		return 2;
	if (a.pm.disable && pm_check_names(a.pm.disable, err, sizeof(err))) {
		fprintf(stderr, "npuc-fe: --disable-pass: %s\n", err);
		return 2;
	}
	if (a.pm.dump_after && strcmp(a.pm.dump_after, "shape-inference") &&
	    pm_check_names(a.pm.dump_after, err, sizeof(err))) {
		fprintf(stderr, "npuc-fe: --dump-ir-after: %s\n", err);
		return 2;
	}
	ret = onnx_import_file(a.model, &a.imp, &g, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "npuc-fe: %s: %s\n", a.model, err);
		return 2;
	}
	if (a.run) {
		in = read_file(a.run, &in_len);
		ref = a.compare ? read_file(a.compare, &ref_len) : NULL;
		if (!in || !ref) {
			fprintf(stderr, "npuc-fe: cannot read --run/--compare "
				"files\n");
			status = 2;
			goto out;
		}
		if (shape_infer(g)) {
			fprintf(stderr, "npuc-fe: %s\n", ir_graph_error(g));
			status = 2;
			goto out;
		}
		if (run_compare(g, in, in_len, ref, ref_len, &rel)) {
			status = 1;
			goto out;
		}
		printf("before passes: max relative error %.3g\n", rel);
		status |= rel > a.rtol;
	}
	if (a.interp_dir) {
		if (shape_infer(g)) {
			fprintf(stderr, "npuc-fe: %s\n", ir_graph_error(g));
			status = 2;
			goto out;
		}
		if (interp_dump(g, a.interp_dir, "before")) {
			status = 1;
			goto out;
		}
	}
	if (a.dump_file) {
		dump = fopen(a.dump_file, "w");
		if (!dump) {
			fprintf(stderr, "npuc-fe: cannot write %s\n",
				a.dump_file);
			status = 2;
			goto out;
		}
		a.pm.dump_file = dump;
	} else {
		a.pm.dump_file = stdout;
	}
	ret = pm_run(g, &a.pm, &rep);
	if (ret) {
		fprintf(stderr, "npuc-fe: %s: %s\n", a.model, ir_graph_error(g));
		status = 2;
		goto out;
	}
	if (a.report)
		pm_report_print(&rep, stdout);
	if (a.print_io) {
		int i;

		for (i = 0; i < g->num_inputs; i++)
			printf("input %s: %s%s\n", g->inputs[i]->name,
			       ir_dtype_name(g->inputs[i]->dtype),
			       ir_shape_str(g, &g->inputs[i]->shape, err,
					    sizeof(err)));
		for (i = 0; i < g->num_outputs; i++)
			printf("output %s: %s%s\n", g->outputs[i]->name,
			       ir_dtype_name(g->outputs[i]->dtype),
			       ir_shape_str(g, &g->outputs[i]->shape, err,
					    sizeof(err)));
	}
	if (a.report_json) {
		FILE *f = fopen(a.report_json, "w");

		if (f) {
			pm_report_json(&rep, f);
			fclose(f);
		}
	}
	if (a.run) {
		if (run_compare(g, in, in_len, ref, ref_len, &rel)) {
			status = 1;
			goto out;
		}
		printf("after passes: max relative error %.3g\n", rel);
		status |= rel > a.rtol;
	}
	if (a.interp_dir && interp_dump(g, a.interp_dir, "after")) {
		status = 1;
		goto out;
	}
	if (check_expect(g, &a))
		status |= 1;
out:
	if (dump)
		fclose(dump);
	free(in);
	free(ref);
	ir_graph_free(g);
	return status;
}
