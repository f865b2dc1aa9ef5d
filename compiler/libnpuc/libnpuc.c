// SPDX-License-Identifier: MIT
/*
 * libnpuc.c - the public compiler API (compiler/include/npuc.h) over the
 * compile driver (driver/npuc.h): options, results, single operators.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <drm/npu_drm.h>

#include "driver/npuc.h"
#include "ir/ir.h"
#include "npuc.h"
#include "npu_transport.h"
#include "onnx/onnx_import.h"
#include "passes/pass_manager.h"

#define NPUC_EXPORT __attribute__((visibility("default")))

struct npuc_result {
	struct npuc_om om;
	struct npuc_report rep;
};

NPUC_EXPORT void npuc_options_init(struct npuc_compile_options *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->opt_level = 2;
	o->use_cache = 1;
}

/* The target as device @spec reports it (DRM_IOCTL_NPU_DEVICE_INFO). */
static int target_of_device(const char *spec, struct npuc_target *t,
			    char *err, size_t errlen)
{
	struct drm_npu_device_info di;
	struct npu_dev *d;
	int ret;

	ret = npu_dev_open(!strcmp(spec, "auto") ? NULL : spec, &d);
	if (ret) {
		snprintf(err, errlen, "target-device %s: cannot open: %s",
			 spec, strerror(-ret));
		return ret;
	}
	memset(&di, 0, sizeof(di));
	ret = npu_dev_ioctl(d, DRM_IOCTL_NPU_DEVICE_INFO, &di);
	if (ret)
		snprintf(err, errlen, "target-device %s: DEVICE_INFO: %s",
			 spec, strerror(-ret));
	else
		npuc_target_from_info(&di, spec, t);
	npu_dev_close(d);
	return ret;
}

/* Public options -> the driver's (fields beyond @size keep defaults). */
static int to_driver(const struct npuc_compile_options *in,
		     struct npuc_options *o, struct npuc_target *tgt,
		     char *err, size_t errlen)
{
	struct npuc_compile_options d;

	npuc_options_init(&d);
	if (in) {
		size_t n = in->size && in->size < sizeof(d) ? in->size :
			   sizeof(d);

		memcpy(&d, in, n);
	}
	memset(o, 0, sizeof(*o));
	o->input_shapes = d.input_shapes;
	o->dynamic_batch = d.dynamic_batch;
	o->dynamic_dims = d.dynamic_dims;
	o->input_format = d.input_format;
	o->opt_level = d.opt_level;
	o->disable_passes = d.disable_passes;
	o->no_cache = !d.use_cache;
	o->cache_dir = d.cache_dir;
	o->max_streams = d.max_streams;
	o->target = d.target;
	o->plan_budget_ms = d.plan_budget_ms;
	o->dump_ir_after = d.dump_ir_after;
	o->dump_file = d.dump_file;
	o->symbol_default = d.symbol_default;
	o->aipp_conf = d.insert_op_conf;
	o->plugins = d.plugins;
	o->no_host_engine = d.no_host_engine != 0;
	o->precision = d.precision;
	o->keep_dtype = d.keep_dtype;
	if (d.target_device) {
		if (d.target) {
			snprintf(err, errlen, "a target profile and a target "
				 "device exclude each other");
			return -EINVAL;
		}
		if (target_of_device(d.target_device, tgt, err, errlen))
			return -ENODEV;
		o->target_desc = tgt;
	}
	return 0;
}

static int finish(int ret, struct npuc_result *r, npuc_result **out)
{
	if (ret) {
		free(r);
		*out = NULL;
		return ret;
	}
	*out = r;
	return 0;
}

NPUC_EXPORT int npuc_compile(const char *path,
			     const struct npuc_compile_options *opt,
			     npuc_result **out, char *err, size_t errlen)
{
	struct npuc_result *r = calloc(1, sizeof(*r));
	struct npuc_options o;
	struct npuc_target tgt;
	int ret;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = to_driver(opt, &o, &tgt, err, errlen);
	if (ret)
		return finish(ret, r, out);
	return finish(npuc_compile_file(path, &o, &r->om,
					&r->rep, err, errlen), r, out);
}

NPUC_EXPORT int npuc_compile_memory(const void *onnx, size_t size,
				    const char *name, const char *base_dir,
				    const struct npuc_compile_options *opt,
				    npuc_result **out, char *err,
				    size_t errlen)
{
	struct npuc_result *r = calloc(1, sizeof(*r));
	struct npuc_options o;
	struct npuc_target tgt;
	int ret;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = to_driver(opt, &o, &tgt, err, errlen);
	if (ret)
		return finish(ret, r, out);
	return finish(npuc_compile_buffer(onnx, size, name, base_dir, &o,
					  &r->om, &r->rep, err,
					  errlen), r, out);
}

static enum ir_layout layout_of(const char *s)
{
	if (!s || !strcmp(s, "ND"))
		return IR_LAYOUT_ND;
	if (!strcmp(s, "NCHW"))
		return IR_LAYOUT_NCHW;
	if (!strcmp(s, "NHWC"))
		return IR_LAYOUT_NHWC;
	return IR_LAYOUT_COUNT;
}

static int set_attr(struct ir_node *n, const struct npuc_op_attr *a)
{
	switch (a->type) {
	case NPUC_ATTR_INT: return ir_attr_set_int(n, a->name, a->i);
	case NPUC_ATTR_FLOAT: return ir_attr_set_float(n, a->name, a->f);
	case NPUC_ATTR_STRING:
		return ir_attr_set_str(n, a->name, a->s ? a->s : "");
	case NPUC_ATTR_INTS:
		return a->n < 0 || (a->n && !a->ints) ? -EINVAL :
		       ir_attr_set_ints(n, a->name, a->ints, a->n);
	case NPUC_ATTR_FLOATS:
		return a->n < 0 || (a->n && !a->floats) ? -EINVAL :
		       ir_attr_set_floats(n, a->name, a->floats, a->n);
	}
	return -EINVAL;
}

/* The one-node graph of an operator (NULL with @err on a bad argument). */
static struct ir_graph *op_graph(const char *op_type,
				 const struct npuc_op_attr *attrs,
				 int num_attrs,
				 const struct npuc_op_tensor *inputs,
				 int num_inputs, int num_outputs, char *err,
				 size_t errlen)
{
	struct ir_tensor *in[16] = { NULL }, *outs[8] = { NULL };
	enum ir_op op = op_type ? ir_op_from_name(op_type) : IR_OP_INVALID;
	struct ir_graph *g;
	struct ir_node *n;
	char nm[32];
	int i, k;

	if (op == IR_OP_INVALID) {
		snprintf(err, errlen, "operator '%s' is not supported "
			 "(ONNX names, default domain)",
			 op_type ? op_type : "(null)");
		return NULL;
	}
	if (num_inputs < 0 || num_inputs > 16 || num_outputs < 1 ||
	    num_outputs > 8 || num_attrs < 0 || (num_attrs && !attrs) ||
	    (num_inputs && !inputs)) {
		snprintf(err, errlen, "%s: %d inputs, %d outputs, %d "
			 "attributes: out of range (16, 8)", op_type,
			 num_inputs, num_outputs, num_attrs);
		return NULL;
	}
	g = ir_graph_new(op_type);
	if (!g)
		goto nomem;
	g->opset = 17;
	for (i = 0, k = 0; i < num_inputs; i++) {
		const struct npuc_op_tensor *t = &inputs[i];
		struct ir_shape s;
		enum ir_layout l = layout_of(t->layout);

		if (t->dtype <= IR_DTYPE_INVALID || t->dtype >= IR_DTYPE_COUNT ||
		    t->rank < 0 || t->rank > IR_MAX_RANK ||
		    (t->rank && !t->dims) || l == IR_LAYOUT_COUNT) {
			snprintf(err, errlen, "%s: input %d: bad dtype, rank "
				 "or layout", op_type, i);
			goto fail;
		}
		for (int d = 0; d < t->rank; d++) {
			if (t->dims[d] < 0) {
				snprintf(err, errlen, "%s: input %d: dim %d is "
					 "%lld (static shapes only)", op_type,
					 i, d, (long long)t->dims[d]);
				goto fail;
			}
		}
		s = ir_shape_make(t->rank, t->dims);
		if (t->data) {
			snprintf(nm, sizeof(nm), "const%d", i);
			in[i] = ir_const_new(g, nm, (enum ir_dtype)t->dtype, &s,
					     t->data, t->data_size);
			if (!in[i]) {
				snprintf(err, errlen, "%s: input %d: %s",
					 op_type, i, ir_graph_error(g));
				goto fail;
			}
		} else {
			snprintf(nm, sizeof(nm), "in%d", k++);
			in[i] = ir_tensor_new(g, nm, (enum ir_dtype)t->dtype,
					      &s);
			if (!in[i] || ir_graph_add_input(g, in[i]))
				goto nomem;
		}
		in[i]->layout = l;
	}
	for (i = 0; i < num_outputs; i++) {
		snprintf(nm, sizeof(nm), "out%d", i);
		outs[i] = ir_tensor_new(g, nm, IR_DTYPE_INVALID, NULL);
		if (!outs[i])
			goto nomem;
	}
	n = ir_node_new(g, op, op_type, num_inputs, in, num_outputs, outs);
	if (!n)
		goto nomem;
	for (i = 0; i < num_attrs; i++) {
		if (!attrs[i].name || set_attr(n, &attrs[i])) {
			snprintf(err, errlen, "%s: attribute %d (%s): bad "
				 "type or values", op_type, i,
				 attrs[i].name ? attrs[i].name : "no name");
			goto fail;
		}
	}
	for (i = 0; i < num_outputs; i++)
		if (ir_graph_add_output(g, outs[i]))
			goto nomem;
	return g;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	ir_graph_free(g);
	return NULL;
}

NPUC_EXPORT int npuc_compile_op(const char *op_type,
				const struct npuc_op_attr *attrs,
				int num_attrs,
				const struct npuc_op_tensor *inputs,
				int num_inputs, int num_outputs,
				const struct npuc_compile_options *opt,
				npuc_result **out, char *err, size_t errlen)
{
	struct npuc_result *r;
	struct npuc_options o;
	struct npuc_target tgt;
	struct ir_graph *g;
	int ret;

	*out = NULL;
	ret = to_driver(opt, &o, &tgt, err, errlen);
	if (ret)
		return ret;
	g = op_graph(op_type, attrs, num_attrs, inputs, num_inputs,
		     num_outputs, err, errlen);
	if (!g)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		ir_graph_free(g);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return finish(npuc_compile_ir(g, op_type, &o, &r->om,
				      &r->rep, err, errlen), r, out);
}

NPUC_EXPORT const void *npuc_result_model(const npuc_result *r,
					  size_t *size)
{
	*size = r->om.size;
	return r->om.data;
}

NPUC_EXPORT double npuc_result_time_ms(const npuc_result *r, int which)
{
	return which == NPUC_TIME_IMPORT ? r->rep.import_ms :
	       which == NPUC_TIME_COMPILE ? r->rep.compile_ms :
	       r->rep.total_ms;
}

NPUC_EXPORT const char *npuc_result_cache(const npuc_result *r)
{
	return r->rep.cache < 0 ? "off" :
	       r->rep.cache == 1 ? "hit" : "miss";
}

NPUC_EXPORT void npuc_result_nodes(const npuc_result *r, uint32_t *before,
				   uint32_t *after)
{
	if (before)
		*before = r->rep.nodes_before;
	if (after)
		*after = r->rep.nodes_after;
}

NPUC_EXPORT void npuc_result_print(const npuc_result *r, FILE *f)
{
	npuc_report_print(&r->rep, f);
}

NPUC_EXPORT void npuc_result_print_json(const npuc_result *r, FILE *f)
{
	npuc_report_json(&r->rep, f);
}

NPUC_EXPORT void npuc_result_free(npuc_result *r)
{
	if (!r)
		return;
	npuc_om_release(&r->om);
	free(r);
}

NPUC_EXPORT const char *npuc_version(void)
{
	return "1.0.0";
}

NPUC_EXPORT const char *npuc_targets(void)
{
	return npuc_target_names();
}

NPUC_EXPORT void npuc_print_ops(FILE *f)
{
	const char *names[IR_OP_COUNT];
	int n = 0;

	for (int op = 1; op < IR_OP_COUNT; op++) {
		const char *name = ir_op_name((enum ir_op)op);

		/* ops made by passes (npu.*) are not imported */
		if (ir_op_from_name(name) == (enum ir_op)op)
			names[n++] = name;
	}
	fprintf(f, "ONNX operators npuc imports (default domain, opsets %d to "
		"%d; attributes, dtypes and\nlimits per op: "
		"Documentation/ops.rst, \"ONNX operators\"):\n",
		ONNX_IMPORT_MIN_OPSET, ONNX_IMPORT_MAX_OPSET);
	for (int i = 0; i < n; i++) {
		if (i % 4 == 3 || i == n - 1)
			fprintf(f, "%s%s\n", i % 4 ? "" : "  ", names[i]);
		else
			fprintf(f, "%s%-21s ", i % 4 ? "" : "  ", names[i]);
	}
	fprintf(f, "(LayerNormalization from opset 17; %d operators)\n", n);
}

NPUC_EXPORT void npuc_print_passes(FILE *f)
{
	const struct pass_info *p;
	int n, i;

	p = pm_passes(&n);
	fprintf(f, "shape-inference      (always) infer dtypes and shapes\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%-20s -O%d%s %s\n", p[i].name, p[i].min_level,
			p[i].in_fixpoint ? " fixpoint" : "         ",
			p[i].summary);
}
