// SPDX-License-Identifier: MIT
/*
 * test_lift.c - importing with the weights left in the file (onnx_lift.c,
 * onnx_import.h map_weights): the same graph as a copying import, the
 * large raw initializers of the IR's own types pointing into the file, the
 * others converted as before; materializing gives aligned owned copies;
 * wire formats the walk must not trust lift nothing; every truncation and
 * thousands of mangled copies import (or fail) exactly as without lifting.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fe_test.h"
#include "onnx/onnx.pb-c.h"
#include "onnx/onnx_import.h"
#include "onnx/onnx_lift.h"

enum { N_INIT = 6 };

/* The initializers: name, ONNX type, elements, element size. */
static const struct {
	const char *name;
	int type;
	size_t count, esize;
	bool mapped;		/* expected to stay in the file */
} INIT[N_INIT] = {
	{ "w_f32", 1, 4096, 4, true },		/* 16 KiB */
	{ "b_small", 1, 8, 4, false },		/* under the threshold */
	{ "idx_i64", 7, 1024, 8, true },	/* 8 KiB */
	{ "w_f64", 11, 1024, 8, false },	/* narrowed to f32 */
	{ "mask_bool", 9, 8192, 1, false },	/* normalised to 0/1 */
	{ "w_i8", 3, 5000, 1, true },
};

static uint8_t *payload(int k)
{
	size_t n = INIT[k].count * INIT[k].esize;
	uint8_t *p = malloc(n);

	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + (size_t)k * 7 + 1);
	if (INIT[k].type == 11)		/* doubles of plain values */
		for (size_t i = 0; i < INIT[k].count; i++) {
			double d = (double)i * 0.25 - 3;

			memcpy(p + i * 8, &d, 8);
		}
	return p;
}

/* Each initializer through an Identity to an output of its own. */
static uint8_t *make_model(size_t *len)
{
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	Onnx__GraphProto gp = ONNX__GRAPH_PROTO__INIT;
	Onnx__OperatorSetIdProto os = ONNX__OPERATOR_SET_ID_PROTO__INIT;
	Onnx__OperatorSetIdProto *osp[1] = { &os };
	Onnx__TensorProto t[N_INIT], *tp[N_INIT];
	Onnx__NodeProto n[N_INIT], *np[N_INIT];
	Onnx__ValueInfoProto v[N_INIT], *vp[N_INIT];
	char *in[N_INIT][1], *out[N_INIT][1], names[N_INIT][16];
	int64_t dims[N_INIT][1];
	uint8_t *data[N_INIT], *buf;

	os.domain = "";
	os.has_version = 1;
	os.version = 13;
	m.has_ir_version = 1;
	m.ir_version = 8;
	m.n_opset_import = 1;
	m.opset_import = osp;
	m.graph = &gp;
	gp.name = "lift";
	for (int k = 0; k < N_INIT; k++) {
		onnx__tensor_proto__init(&t[k]);
		onnx__node_proto__init(&n[k]);
		onnx__value_info_proto__init(&v[k]);
		data[k] = payload(k);
		dims[k][0] = (int64_t)INIT[k].count;
		t[k].name = (char *)INIT[k].name;
		t[k].has_data_type = 1;
		t[k].data_type = INIT[k].type;
		t[k].n_dims = 1;
		t[k].dims = dims[k];
		t[k].has_raw_data = 1;
		t[k].raw_data.data = data[k];
		t[k].raw_data.len = INIT[k].count * INIT[k].esize;
		tp[k] = &t[k];
		snprintf(names[k], sizeof(names[k]), "out%d", k);
		in[k][0] = (char *)INIT[k].name;
		out[k][0] = names[k];
		n[k].op_type = "Identity";
		n[k].n_input = 1;
		n[k].input = in[k];
		n[k].n_output = 1;
		n[k].output = out[k];
		np[k] = &n[k];
		v[k].name = names[k];
		vp[k] = &v[k];
	}
	gp.n_initializer = N_INIT;
	gp.initializer = tp;
	gp.n_node = N_INIT;
	gp.node = np;
	gp.n_output = N_INIT;
	gp.output = vp;
	*len = onnx__model_proto__get_packed_size(&m);
	buf = malloc(*len);
	onnx__model_proto__pack(&m, buf);
	for (int k = 0; k < N_INIT; k++)
		free(data[k]);
	return buf;
}

static int import(const void *b, size_t len, bool map, struct ir_graph **g,
		  char *err)
{
	struct onnx_import_opts o = { .map_weights = map };

	return onnx_import_buffer(b, len, NULL, &o, g, err, 512);
}

/* Every raw initializer lifted, the small ones too. */
static int import_all(const void *b, size_t len, struct ir_graph **g,
		      char *err)
{
	struct onnx_import_opts o = { .map_weights = true,
				      .map_min_bytes = 1 };

	return onnx_import_buffer(b, len, NULL, &o, g, err, 512);
}

/* Differences between two imports' constants (by name) and nodes. */
static int differences(const struct ir_graph *a, const struct ir_graph *b)
{
	int diff = a->num_nodes != b->num_nodes;

	for (int i = 0; i < a->num_tensors; i++) {
		const struct ir_tensor *x = a->tensors[i];
		const struct ir_tensor *y = ir_graph_find_tensor(
			(struct ir_graph *)b, x->name);

		if (!y || x->dtype != y->dtype || x->nbytes != y->nbytes ||
		    !ir_shape_equal(&x->shape, &y->shape) ||
		    !x->data != !y->data ||
		    (x->data && memcmp(x->data, y->data, x->nbytes)))
			diff++;
	}
	return diff + (a->num_tensors != b->num_tensors);
}

static void test_model(void)
{
	struct ir_graph *plain = NULL, *mapped = NULL;
	char err[512], path[] = "/tmp/test_lift_XXXXXX";
	size_t len;
	uint8_t *b = make_model(&len);
	int bad = 0, fd;
	bool aligned = true;

	ft_ok(!import(b, len, false, &plain, err) &&
	      !import(b, len, true, &mapped, err),
	      "the model imports with and without its weights in place (%s)",
	      err);
	if (!plain || !mapped) {
		for (int k = 0; k < 5; k++)
			ft_skip("no graphs to compare");
		ir_graph_free(plain);
		ir_graph_free(mapped);
		free(b);
		return;
	}
	ft_ok(!differences(plain, mapped), "same tensors, shapes and bytes");
	for (int k = 0; k < N_INIT; k++) {
		const struct ir_tensor *t = ir_graph_find_tensor(mapped,
								 INIT[k].name);
		bool in_file = t && (const uint8_t *)t->data >= b &&
			       (const uint8_t *)t->data < b + len;

		if (!t || t->data_mapped != INIT[k].mapped ||
		    in_file != INIT[k].mapped) {
			ft_diag("%s: mapped %d, in the file %d, expected %d",
				INIT[k].name, t ? t->data_mapped : -1, in_file,
				INIT[k].mapped);
			bad++;
		}
	}
	ft_ok(!bad, "raw f32/i64/i8 of >= %d bytes point into the model; "
	      "small, f64 and bool ones are copied and converted",
	      ONNX_MAP_MIN_BYTES);
	ft_ok(!onnx_import_materialize(mapped) && !mapped->mapped,
	      "materialize");
	for (int i = 0; i < mapped->num_tensors; i++) {
		const struct ir_tensor *t = mapped->tensors[i];

		bad += t->data_mapped;
		if (t->data)	/* as malloc() aligns */
			aligned &= !((uintptr_t)t->data %
				     _Alignof(max_align_t));
	}
	memset(b, 0xa5, len);	/* the buffer is no longer read */
	ft_ok(!bad && aligned && !differences(plain, mapped),
	      "after materializing: nothing mapped, aligned, same bytes");
	ir_graph_free(mapped);
	ir_graph_free(plain);
	free(b);

	/* from a file: the graph owns the mapping */
	b = make_model(&len);
	fd = mkstemp(path);
	if (fd < 0 || write(fd, b, len) != (ssize_t)len) {
		ft_skip("cannot write a temporary model");
	} else {
		struct onnx_import_opts o = { .map_weights = true };

		mapped = NULL;
		if (!onnx_import_file(path, &o, &mapped, err, sizeof(err))) {
			unlink(path);	/* the mapping keeps the bytes */
			import(b, len, false, &plain, err);
			ft_ok(mapped->mapped && plain &&
			      !differences(plain, mapped),
			      "a file import keeps the mapping with the graph");
			ir_graph_free(plain);
		} else {
			ft_ok(false, "file import: %s", err);
		}
		ir_graph_free(mapped);
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(b);
}

/* Hand-written wire formats the walk must leave alone. */
static void test_wire(void)
{
	/* graph { initializer { raw_data: 8 x 0x11 } } */
	static const uint8_t one[] = {
		0x3a, 12, 0x2a, 10, 0x4a, 8, 0x11, 0x11, 0x11, 0x11, 0x11,
		0x11, 0x11, 0x11,
	};
	/* a tensor with two raw_data fields: protobuf keeps the last */
	static const uint8_t twice[] = {
		0x3a, 10, 0x2a, 8, 0x4a, 2, 1, 2, 0x4a, 2, 3, 4,
	};
	/* two graph fields: protobuf merges them */
	static const uint8_t graphs[] = {
		0x3a, 6, 0x2a, 4, 0x4a, 2, 1, 2, 0x3a, 0,
	};
	/* a group (wire type 3) in the model */
	static const uint8_t group[] = {
		0x3a, 6, 0x2a, 4, 0x4a, 2, 1, 2, 0x0b,
	};
	/* the graph's length runs past the end */
	static const uint8_t past[] = {
		0x3a, 20, 0x2a, 4, 0x4a, 2, 1, 2,
	};
	/* an initializer field that is a varint */
	static const uint8_t notlen[] = {
		0x3a, 8, 0x28, 0x01, 0x2a, 4, 0x4a, 2, 1, 2,
	};
	/* a varint of 11 bytes */
	static const uint8_t longv[] = {
		0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		0x80, 0x01, 0x3a, 6, 0x2a, 4, 0x4a, 2, 1, 2,
	};
	static const struct {
		const uint8_t *b;
		size_t len;
		const char *what;
	} none[] = {
		{ twice, sizeof(twice), "two raw_data fields" },
		{ graphs, sizeof(graphs), "two graph fields" },
		{ group, sizeof(group), "a group" },
		{ past, sizeof(past), "a length past the end" },
		{ longv, sizeof(longv), "an 11-byte varint" },
		{ notlen, sizeof(notlen), "an initializer that is a varint" },
	};
	struct onnx_lift l;
	static const uint8_t want[] = { 0x3a, 2, 0x2a, 0 };

	ft_ok(!onnx_lift(one, sizeof(one), 8, &l) && l.n == 1 &&
	      l.v[0].index == 0 && l.v[0].offset == 6 && l.v[0].len == 8 &&
	      l.pb_len == sizeof(want) && !memcmp(l.pb, want, sizeof(want)),
	      "one payload lifted: its offset, and the lengths around it "
	      "rewritten");
	onnx_lift_free(&l);
	ft_ok(!onnx_lift(one, sizeof(one), 9, &l) && l.n == 0 && !l.pb,
	      "a payload under the threshold stays");
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		ft_ok(!onnx_lift(none[i].b, none[i].len, 1, &l) && l.n == 0 &&
		      !l.pb, "%s: nothing lifted", none[i].what);
		onnx_lift_free(&l);
	}
}

/* Both imports succeed or fail together; when they succeed, agree. */
static int disagree(const uint8_t *b, size_t len)
{
	struct ir_graph *p = NULL, *m = NULL;
	char e1[512], e2[512];
	int r1 = import(b, len, false, &p, e1);
	int r2 = import_all(b, len, &m, e2);
	int bad = (r1 != 0) != (r2 != 0) || (!r1 && !r2 && differences(p, m));

	if (bad)
		ft_diag("len %zu: plain %d (%s), lifted %d (%s)", len, r1,
			r1 ? e1 : "ok", r2, r2 ? e2 : "ok");
	ir_graph_free(p);
	ir_graph_free(m);
	return bad;
}

static void test_mangled(void)
{
	size_t len;
	uint8_t *b = make_model(&len), *c = malloc(len);
	unsigned seed = 12345;
	int bad = 0, n = 0;

	for (size_t cut = 0; cut < len; cut += cut < 256 ? 1 : 97, n++)
		bad += disagree(b, cut);
	ft_ok(!bad, "%d truncations: the same result with and without "
	      "lifting", n);
	bad = 0;
	for (n = 0; n < 3000; n++) {
		int flips = 1 + n % 4;

		memcpy(c, b, len);
		for (int f = 0; f < flips; f++) {
			seed = seed * 1103515245u + 12345u;
			/* mostly the framing: the first and last KiB */
			size_t at = (seed >> 8) % 2 ? (seed >> 9) % 1024 :
				    len - 1 - (seed >> 9) % 1024;

			c[at] ^= (uint8_t)(1u << ((seed >> 4) % 8));
		}
		bad += disagree(c, len);
	}
	ft_ok(!bad, "%d mangled copies: the same result with and without "
	      "lifting", n);
	free(c);
	free(b);
}

/* The test models (exported by compiler/tests/models.sh), when present. */
static void test_real(void)
{
	static const char *const names[] = {
		"resnet18", "mobilenet_v2", "transformer",
	};
	int tried = 0, bad = 0, mapped = 0;

	for (int i = 0; i < 3; i++) {
		struct onnx_import_opts o = { .map_weights = true };
		struct ir_graph *p = NULL, *m = NULL;
		char path[256], err[512];

		snprintf(path, sizeof(path), "build/fe-models/%s.onnx",
			 names[i]);
		if (access(path, R_OK))
			continue;
		tried++;
		if (onnx_import_file(path, NULL, &p, err, sizeof(err)) ||
		    onnx_import_file(path, &o, &m, err, sizeof(err))) {
			ft_diag("%s: %s", names[i], err);
			bad++;
		} else {
			for (int k = 0; k < m->num_tensors; k++)
				mapped += m->tensors[k]->data_mapped;
			bad += differences(p, m) != 0;
		}
		ir_graph_free(p);
		ir_graph_free(m);
	}
	if (!tried)
		ft_skip("test models not exported (compiler/tests/models.sh "
			"makes them)");
	else
		ft_ok(!bad && mapped > 0, "%d test models: the same graph, %d "
		      "weights left in the file", tried, mapped);
}

int main(void)
{
	ft_plan(17);
	test_model();
	test_wire();
	test_mangled();
	test_real();
	return ft_done();
}
