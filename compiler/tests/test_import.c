// SPDX-License-Identifier: MIT
/*
 * test_import.c - the ONNX importer: a model built with protobuf-c, typed,
 * raw and external data, symbolic dims, clean errors for unsupported ops
 * and opsets, escaping external paths, and robustness: every truncation of
 * a small model, a corpus of mangled copies, and truncated copies of the
 * real test models (build/fe-models, when exported) all give clean errors.
 *
 * test_import --write-corpus DIR writes the seed models for the fuzzer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit/emit.h"
#include "fe_test.h"
#include "interp/interp.h"
#include "onnx/onnx.pb-c.h"
#include "onnx/onnx_import.h"
#include "passes/pass_manager.h"
#include "shape/shape.h"

struct mopts {
	const char *op;		/* last node's op type */
	int64_t opset;
	const char *ext;	/* W as external data at this location */
	int raw_len_delta;	/* corrupt W's raw_data length */
	const char *node_in;	/* replace the last node's input */
	int twice;		/* the last node reads its input twice */
};

static const float W[12] = { 1, -2, 3, 0.5f, -1, 2, 0, 1, -1, 2, 2, -3 };
static const float B[3] = { 0.25f, -0.5f, 1 };

/* x[batch,4] -> MatMul(W[4,3]) -> Add(B[3]) -> OP -> y */
static uint8_t *make_model(const struct mopts *o, size_t *len)
{
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	Onnx__GraphProto gp = ONNX__GRAPH_PROTO__INIT;
	Onnx__OperatorSetIdProto os = ONNX__OPERATOR_SET_ID_PROTO__INIT;
	Onnx__OperatorSetIdProto *osp[1] = { &os };
	Onnx__TensorProto tw = ONNX__TENSOR_PROTO__INIT;
	Onnx__TensorProto tb = ONNX__TENSOR_PROTO__INIT;
	Onnx__TensorProto *inits[2] = { &tw, &tb };
	Onnx__StringStringEntryProto loc = ONNX__STRING_STRING_ENTRY_PROTO__INIT;
	Onnx__StringStringEntryProto *locp[1] = { &loc };
	Onnx__TensorShapeProto__Dimension d0 =
		ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
	Onnx__TensorShapeProto__Dimension d1 =
		ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
	Onnx__TensorShapeProto__Dimension *dims[2] = { &d0, &d1 };
	Onnx__TensorShapeProto shp = ONNX__TENSOR_SHAPE_PROTO__INIT;
	Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
	Onnx__TypeProto tp = ONNX__TYPE_PROTO__INIT;
	Onnx__ValueInfoProto vin = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto vout = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto *vins[1] = { &vin }, *vouts[1] = { &vout };
	Onnx__NodeProto n1 = ONNX__NODE_PROTO__INIT, n2 = ONNX__NODE_PROTO__INIT;
	Onnx__NodeProto n3 = ONNX__NODE_PROTO__INIT;
	Onnx__NodeProto *nodes[3] = { &n1, &n2, &n3 };
	char *in1[2] = { "x", "W" }, *out1[1] = { "h" };
	char *in2[2] = { "h", "B" }, *out2[1] = { "a" };
	char *in3[2] = { "a", "a" }, *out3[1] = { "y" };
	int64_t wd[2] = { 4, 3 }, bd[1] = { 3 };
	uint8_t *buf;

	os.domain = "";
	os.has_version = 1;
	os.version = o->opset ? o->opset : 13;
	m.has_ir_version = 1;
	m.ir_version = 8;
	m.n_opset_import = 1;
	m.opset_import = osp;
	m.producer_name = "test_import";
	m.graph = &gp;
	gp.name = "tiny";

	tw.name = "W";
	tw.n_dims = 2;
	tw.dims = wd;
	tw.has_data_type = 1;
	tw.data_type = 1;
	if (o->ext) {
		tw.has_data_location = 1;
		tw.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
		loc.key = "location";
		loc.value = (char *)o->ext;
		tw.n_external_data = 1;
		tw.external_data = locp;
	} else {
		tw.has_raw_data = 1;
		tw.raw_data.len = sizeof(W) + o->raw_len_delta;
		tw.raw_data.data = (uint8_t *)W;
	}
	tb.name = "B";
	tb.n_dims = 1;
	tb.dims = bd;
	tb.has_data_type = 1;
	tb.data_type = 1;
	tb.n_float_data = 3;
	tb.float_data = (float *)B;
	gp.n_initializer = 2;
	gp.initializer = inits;

	d0.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
	d0.dim_param = "batch";
	d1.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
	d1.dim_value = 4;
	shp.n_dim = 2;
	shp.dim = dims;
	tt.has_elem_type = 1;
	tt.elem_type = 1;
	tt.shape = &shp;
	tp.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp.tensor_type = &tt;
	vin.name = "x";
	vin.type = &tp;
	vout.name = "y";
	gp.n_input = 1;
	gp.input = vins;
	gp.n_output = 1;
	gp.output = vouts;

	n1.name = "n1";
	n1.op_type = "MatMul";
	n1.n_input = 2;
	n1.input = in1;
	n1.n_output = 1;
	n1.output = out1;
	n2.name = "n2";
	n2.op_type = "Add";
	n2.n_input = 2;
	n2.input = in2;
	n2.n_output = 1;
	n2.output = out2;
	n3.name = "n3";
	n3.op_type = (char *)(o->op ? o->op : "Relu");
	if (o->node_in)
		in3[0] = (char *)o->node_in;
	n3.n_input = o->twice ? 2 : 1;
	n3.input = in3;
	n3.n_output = 1;
	n3.output = out3;
	gp.n_node = 3;
	gp.node = nodes;

	*len = onnx__model_proto__get_packed_size(&m);
	buf = malloc(*len);
	onnx__model_proto__pack(&m, buf);
	return buf;
}

static int import_buf(const uint8_t *b, size_t len, const char *dir,
		      struct ir_graph **g, char *err)
{
	return onnx_import_buffer(b, len, dir, NULL, g, err, 512);
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fwrite(data, 1, len, f);
	return fclose(f);
}

static void test_valid(void)
{
	struct mopts o = { 0 };
	struct ir_graph *g = NULL;
	char err[512];
	size_t len;
	uint8_t *b = make_model(&o, &len);
	float x[8] = { 1, 2, 3, 4, -1, 0, 1, 0 }, y[6], ref[6];
	const void *ins[1] = { x };
	void *outs[1] = { y };
	int i, k, ret;
	bool same = true;

	ret = import_buf(b, len, NULL, &g, err);
	ft_ok(ret == 0 && g->num_nodes == 3 && g->num_inputs == 1,
	      "a valid model imports (%s)", ret ? err : "3 nodes");
	if (ret) {
		for (i = 0; i < 3; i++)
			ft_ok(false, "skipped after failed import");
		free(b);
		return;
	}
	ft_ok(IR_DIM_IS_SYM(g->inputs[0]->shape.dim[0]) &&
	      !strcmp(ir_sym_name(g, g->inputs[0]->shape.dim[0]), "batch"),
	      "dim_param becomes the symbol 'batch'");
	ret = shape_infer(g);
	ft_ok(ret == 0 && g->outputs[0]->shape.dim[0] ==
	      g->inputs[0]->shape.dim[0] && g->outputs[0]->shape.dim[1] == 3,
	      "the symbolic batch flows to the output");
	ir_graph_bind_sym(g, "batch", 2);
	ret = shape_infer(g) || interp_run(g, ins, outs);
	for (i = 0; i < 2; i++)
		for (k = 0; k < 3; k++) {
			double s = B[k];
			int j;

			for (j = 0; j < 4; j++)
				s += (double)x[i * 4 + j] * W[j * 3 + k];
			ref[i * 3 + k] = s > 0 ? (float)s : 0;
		}
	for (i = 0; i < 6; i++)
		same &= y[i] > ref[i] - 1e-5f && y[i] < ref[i] + 1e-5f;
	ft_ok(!ret && same, "raw and typed initializers hold the right values");
	ir_graph_free(g);
	free(b);
}

static void test_external(void)
{
	char dir[] = "/tmp/npuc-import-XXXXXX", path[256], err[512];
	struct mopts o = { .ext = "w.bin" };
	struct ir_graph *g = NULL;
	size_t len;
	uint8_t *b;
	int ret;

	if (!mkdtemp(dir)) {
		ft_ok(false, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/w.bin", dir);
	write_file(path, W, sizeof(W));
	b = make_model(&o, &len);
	snprintf(path, sizeof(path), "%s/m.onnx", dir);
	write_file(path, b, len);
	ret = onnx_import_file(path, NULL, &g, err, sizeof(err));
	ft_ok(ret == 0 && !memcmp(ir_graph_find_tensor(g, "W")->data, W,
				 sizeof(W)),
	      "external data next to the model is read (%s)",
	      ret ? err : "ok");
	ir_graph_free(g);
	free(b);

	o.ext = "../etc/passwd";
	b = make_model(&o, &len);
	ret = import_buf(b, len, dir, &g, err);
	ft_ok(ret != 0 && strstr(err, "leaves"), "'..' in a location is "
	      "refused: %s", err);
	free(b);
	o.ext = "/etc/passwd";
	b = make_model(&o, &len);
	ret = import_buf(b, len, dir, &g, err);
	ft_ok(ret != 0 && strstr(err, "absolute"), "an absolute location is "
	      "refused: %s", err);
	free(b);
	o.ext = "missing.bin";
	b = make_model(&o, &len);
	ret = import_buf(b, len, dir, &g, err);
	ft_ok(ret != 0 && strstr(err, "not found"), "a missing file: %s",
	      err);
	free(b);
	snprintf(path, sizeof(path), "%s/w.bin", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/m.onnx", dir);
	unlink(path);
	rmdir(dir);
}

static void test_errors(void)
{
	struct mopts o = { .op = "FooBar" };
	struct ir_graph *g = NULL;
	char err[512];
	size_t len;
	uint8_t *b;
	int ret;

	b = make_model(&o, &len);
	ret = import_buf(b, len, NULL, &g, err);
	ft_ok(ret == -ENOTSUP && strstr(err, "'n3'") && strstr(err, "FooBar")
	      && strstr(err, "opset 13"), "unsupported op names node, op and "
	      "opset: %s", err);
	free(b);
	o.op = NULL;
	o.opset = 99;
	b = make_model(&o, &len);
	ret = import_buf(b, len, NULL, &g, err);
	ft_ok(ret != 0 && strstr(err, "opset 99"), "unsupported opset: %s",
	      err);
	free(b);
	o.opset = 6;
	b = make_model(&o, &len);
	ret = import_buf(b, len, NULL, &g, err);
	ft_ok(ret == -ENOTSUP && strstr(err, "'Add'") &&
	      strstr(err, "opset 6") && strstr(err, ">= 7"),
	      "an op that changed at opset 7 is refused at opset 6: %s", err);
	free(b);
	o.opset = 0;
	o.twice = 1;
	b = make_model(&o, &len);
	ret = import_buf(b, len, NULL, &g, err);
	ft_ok(ret == -EINVAL && strstr(err, "2 inputs") &&
	      strstr(err, "at most 1"),
	      "a Relu with 2 inputs is an invalid model: %s", err);
	free(b);
	o.twice = 0;
	o.raw_len_delta = -4;
	b = make_model(&o, &len);
	ret = import_buf(b, len, NULL, &g, err);
	ft_ok(ret != 0 && strstr(err, "'W'") && strstr(err, "raw_data"),
	      "raw_data of the wrong size: %s", err);
	free(b);
	o.raw_len_delta = 0;
	o.node_in = "nowhere";
	b = make_model(&o, &len);
	ret = import_buf(b, len, NULL, &g, err);
	ft_ok(ret != 0 && strstr(err, "nowhere") &&
	      strstr(err, "never produced"), "a dangling input: %s", err);
	free(b);
	ret = import_buf((const uint8_t *)"", 0, NULL, &g, err);
	ft_ok(ret != 0 && err[0], "an empty file: %s", err);
	ret = import_buf((const uint8_t *)"\xff\xff\xff\xff garbage", 13,
			 NULL, &g, err);
	ft_ok(ret != 0 && strstr(err, "does not parse"), "garbage: %s", err);
}

/* Import whatever @b is; a failure must say why, a success must verify. */
static bool survives(const uint8_t *b, size_t len, int *failed)
{
	struct ir_graph *g = NULL;
	char err[512] = "";
	int ret = import_buf(b, len, NULL, &g, err);

	if (ret) {
		(*failed)++;
		return err[0] != 0 && g == NULL;
	}
	ret = ir_verify(g) == 0;
	shape_infer(g);		/* may refuse, must not crash */
	ir_graph_free(g);
	return ret;
}

static void test_robustness(void)
{
	struct mopts o = { 0 };
	size_t len, i;
	uint8_t *b = make_model(&o, &len), *m = malloc(len);
	unsigned seed = 12345;
	int failed = 0, bad = 0, n;

	for (i = 0; i < len; i++)
		bad += !survives(b, i, &failed);
	ft_ok(!bad && failed == (int)len, "all %zu truncations of the small "
	      "model fail cleanly (%d bad)", len, bad);
	failed = bad = 0;
	for (n = 0; n < 3000; n++) {
		int flips = 1 + n % 4, k;

		memcpy(m, b, len);
		for (k = 0; k < flips; k++) {
			seed = seed * 1103515245u + 12345u;
			m[(seed >> 8) % len] = (uint8_t)(seed >> 20);
		}
		bad += !survives(m, len, &failed);
	}
	ft_ok(!bad, "3000 mangled copies import or fail cleanly (%d "
	      "refused)", failed);
	free(m);
	free(b);
}

static void test_real_models(void)
{
	static const char *const names[] = {
		"resnet18", "mobilenet_v2", "transformer",
	};
	int i, k, bad = 0, tried = 0, failed = 0;

	for (i = 0; i < 3; i++) {
		char path[256];
		FILE *f;
		uint8_t *buf;
		long len;

		snprintf(path, sizeof(path), "build/fe-models/%s.onnx",
			 names[i]);
		f = fopen(path, "rb");
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = malloc((size_t)len);
		if (fread(buf, 1, (size_t)len, f) != (size_t)len)
			len = 0;
		fclose(f);
		for (k = 1; len && k <= 8; k++) {
			size_t cut = k == 8 ? (size_t)len - 1 :
				     (size_t)len * (size_t)k / 8;

			tried++;
			bad += !survives(buf, cut, &failed);
		}
		free(buf);
	}
	if (!tried) {
		ft_skip("test models not exported (compiler/tests/models.sh "
			"makes them)");
		return;
	}
	ft_ok(!bad && failed == tried, "%d truncated copies of the test "
	      "models fail with a clear error", tried);
}

/*
 * The fuzz corpus (seeds and inputs that once crashed the importer, shape
 * inference or the passes): each imports, infers and optimises or fails
 * with a message.
 */
static void test_corpus(void)
{
	const char *dir = "compiler/tests/corpus";
	DIR *d = opendir(dir);
	struct dirent *e;
	int files = 0, bad = 0;

	if (!d) {
		ft_skip("compiler/tests/corpus not found (run from the repo "
			"root)");
		return;
	}
	while ((e = readdir(d))) {
		struct ir_graph *g = NULL;
		struct pm_opts o = { .opt_level = 2, .verify = true };
		struct pm_report r;
		char path[600], err[512] = "";
		int ret;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		files++;
		ret = onnx_import_file(path, NULL, &g, err, sizeof(err));
		if (ret) {
			bad += !err[0];
			continue;
		}
		if (shape_infer(g) == 0 && pm_run(g, &o, &r) == 0)
			bad += ir_verify(g) != 0;
		else
			bad += !g->err[0];
		ir_graph_free(g);
	}
	closedir(d);
	ft_ok(files >= 3 && !bad, "%d corpus files import, optimise or fail "
	      "with a message (%d bad)", files, bad);
}

static int write_corpus(const char *dir)
{
	struct mopts o = { 0 };
	char path[512];
	size_t len;
	uint8_t *b = make_model(&o, &len);

	snprintf(path, sizeof(path), "%s/tiny_relu.onnx", dir);
	write_file(path, b, len);
	free(b);
	o.op = "Sigmoid";
	o.opset = 11;
	b = make_model(&o, &len);
	snprintf(path, sizeof(path), "%s/tiny_sigmoid_opset11.onnx", dir);
	write_file(path, b, len);
	free(b);
	o.ext = "w.bin";
	b = make_model(&o, &len);
	snprintf(path, sizeof(path), "%s/tiny_external.onnx", dir);
	write_file(path, b, len);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
		return write_corpus(argv[2]);
	ft_plan(20);
	test_valid();
	test_external();
	test_errors();
	test_robustness();
	test_real_models();
	test_corpus();
	return ft_done();
}
