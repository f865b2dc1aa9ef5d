// SPDX-License-Identifier: MIT
/*
 * plugin_ir.c - plugin operators in the IR: shape inference through the
 * plugin's function, decomposition through its builder calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/plugin_ir.h"

const struct npuc_plugin_op *plugin_op_of(const struct ir_node *n,
					  const struct npu_plugin_lib **lib)
{
	const char *pname, *dom, *type;
	const struct npu_plugin_lib *l = NULL;
	const struct npuc_plugin_op *op;

	if (n->op != IR_OP_CUSTOM)
		return NULL;
	pname = ir_attr_str(n, IR_CUSTOM_PLUGIN, NULL);
	dom = ir_attr_str(n, IR_CUSTOM_DOMAIN, "");
	type = ir_attr_str(n, IR_CUSTOM_TYPE, NULL);
	if (!pname || !type)
		return NULL;
	op = npu_plugin_find_op(dom, type, n->opset, &l);
	if (!op || strcmp(l->desc->name, pname))
		return NULL;
	if (lib)
		*lib = l;
	return op;
}

static int64_t a_int(const void *ctx, const char *name, int64_t def)
{
	const struct ir_attr *a = ir_attr_find(ctx, name);

	return a && a->type == IR_ATTR_INT ? a->i : def;
}

static float a_float(const void *ctx, const char *name, float def)
{
	const struct ir_attr *a = ir_attr_find(ctx, name);

	return a && a->type == IR_ATTR_FLOAT ? a->f : def;
}

static const char *a_str(const void *ctx, const char *name, const char *def)
{
	const struct ir_attr *a = ir_attr_find(ctx, name);

	if (!strncmp(name, "npu.", 4))
		return def;
	return a && a->type == IR_ATTR_STRING ? a->s : def;
}

static int a_ints(const void *ctx, const char *name, const int64_t **out)
{
	const struct ir_attr *a = ir_attr_find(ctx, name);

	*out = NULL;
	if (!a || a->type != IR_ATTR_INTS)
		return 0;
	*out = a->ints;
	return a->n;
}

static int a_floats(const void *ctx, const char *name, const float **out)
{
	const struct ir_attr *a = ir_attr_find(ctx, name);

	*out = NULL;
	if (!a || a->type != IR_ATTR_FLOATS)
		return 0;
	*out = a->floats;
	return a->n;
}

void plugin_attrs_of(const struct ir_node *n, struct npuc_attrs *a)
{
	a->ctx = n;
	a->get_int = a_int;
	a->get_float = a_float;
	a->get_string = a_str;
	a->get_ints = a_ints;
	a->get_floats = a_floats;
}

/*
 * A plugin reads its constant inputs as typed, aligned data: input @k of
 * @n (an op of @type) into memory of its own if it is still mapped.
 */
static int own_input(struct ir_graph *g, const struct ir_node *n,
		     const char *type, int k)
{
	if (!ir_tensor_own(n->inputs[k]))
		return 0;
	ir_error(g, "node '%s' (%s): out of memory copying constant input %d "
		 "out of the model file; free memory and compile again",
		 n->name, type, k);
	return -ENOMEM;
}

static int type_of(struct ir_graph *g, const struct ir_node *n,
		   const struct ir_tensor *t, struct npuc_tensor_type *ty)
{
	memset(ty, 0, sizeof(*ty));
	if (!t)
		return 0;
	if (t->shape.rank > NPUC_PLUGIN_MAX_RANK)
		return ir_error(g, "node '%s' (%s): input '%s' has rank %d; "
				"plugin ops take at most %d", n->name,
				ir_attr_str(n, IR_CUSTOM_TYPE, "?"), t->name,
				t->shape.rank, NPUC_PLUGIN_MAX_RANK);
	ty->dtype = t->dtype;
	ty->rank = t->shape.rank;
	for (int d = 0; d < t->shape.rank; d++)
		ty->dims[d] = t->shape.dim[d];
	return 0;
}

int plugin_infer_node(struct ir_graph *g, struct ir_node *n)
{
	const struct npu_plugin_lib *lib = NULL;
	const struct npuc_plugin_op *op = plugin_op_of(n, &lib);
	struct npuc_tensor_type in[NPUC_PLUGIN_MAX_IO];
	struct npuc_tensor_type out[NPUC_PLUGIN_MAX_IO];
	const void *data[NPUC_PLUGIN_MAX_IO];
	struct npuc_infer_ctx ic;
	struct npuc_attrs attrs;
	const char *type = ir_attr_str(n, IR_CUSTOM_TYPE, "?");
	char msg[256] = "";
	int ret;

	if (!op)
		return ir_error(g, "node '%s' (%s): plugin '%s' that served it "
				"is not loaded", n->name, type,
				ir_attr_str(n, IR_CUSTOM_PLUGIN, "?"));
	if (n->num_inputs > NPUC_PLUGIN_MAX_IO ||
	    n->num_outputs > NPUC_PLUGIN_MAX_IO)
		return ir_error(g, "node '%s' (%s): too many inputs/outputs",
				n->name, type);
	for (int k = 0; k < n->num_inputs; k++) {
		ret = type_of(g, n, n->inputs[k], &in[k]);
		if (ret)
			return ret;
		ret = own_input(g, n, type, k);
		if (ret)
			return ret;
		data[k] = n->inputs[k] ? n->inputs[k]->data : NULL;
	}
	memset(out, 0, sizeof(out));
	plugin_attrs_of(n, &attrs);
	ic = (struct npuc_infer_ctx){
		.node_name = n->name, .attrs = &attrs,
		.num_inputs = n->num_inputs, .inputs = in,
		.num_outputs = n->num_outputs, .outputs = out,
		.input_data = data, .err = msg, .errlen = sizeof(msg),
	};
	ret = op->infer(&ic);
	if (ret)
		return ir_error(g, "node '%s' (%s): shape inference of plugin "
				"%s %s failed: %s", n->name, type,
				lib->desc->name, lib->desc->version,
				msg[0] ? msg : "(no message)");
	for (int k = 0; k < n->num_outputs; k++) {
		struct ir_tensor *t = n->outputs[k];
		const struct npuc_tensor_type *o = &out[k];

		if (!t)
			continue;
		if (o->dtype <= IR_DTYPE_INVALID || o->dtype >= IR_DTYPE_COUNT ||
		    o->rank < 0 || o->rank > NPUC_PLUGIN_MAX_RANK)
			return ir_error(g, "node '%s' (%s): plugin %s inferred "
					"output %d with dtype %d, rank %d",
					n->name, type, lib->desc->name, k,
					o->dtype, o->rank);
		for (int d = 0; d < o->rank; d++)
			if (IR_DIM_IS_SYM(o->dims[d]) &&
			    IR_DIM_SYM_ID(o->dims[d]) >= g->num_syms)
				return ir_error(g, "node '%s' (%s): plugin %s "
						"inferred output %d dim %d = "
						"%lld: not a symbol of the "
						"graph (copy symbols, never "
						"compute them)", n->name, type,
						lib->desc->name, k, d,
						(long long)o->dims[d]);
		t->dtype = (enum ir_dtype)o->dtype;
		t->shape = ir_shape_make(o->rank, o->dims);
		t->shape_known = true;
	}
	return 0;
}

/* ---- decomposition ---- */

struct dctx {
	struct ir_graph *g;
	struct ir_node *n;
	struct ir_tensor **val;
	int num_val, cap_val;
	int *out_val;
	int num_made;
	char *err;
	size_t errlen;
};

static int add_val(struct dctx *d, struct ir_tensor *t)
{
	if (d->num_val == d->cap_val) {
		int cap = d->cap_val ? d->cap_val * 2 : 32;
		void *p = realloc(d->val, (size_t)cap * sizeof(*d->val));

		if (!p)
			return -ENOMEM;
		d->val = p;
		d->cap_val = cap;
	}
	d->val[d->num_val] = t;
	return d->num_val++;
}

static struct ir_tensor *get_val(struct dctx *d, npuc_value v)
{
	return v >= 0 && v < d->num_val ? d->val[v] : NULL;
}

static int b_node(void *ctx, const char *op_type, const npuc_value *inputs,
		  int num_inputs, npuc_value *outputs, int num_outputs,
		  const struct npuc_attr_value *attrs, int num_attrs)
{
	struct dctx *d = ctx;
	struct ir_tensor *ins[NPUC_PLUGIN_MAX_IO], *outs[NPUC_PLUGIN_MAX_IO];
	enum ir_op op = op_type ? ir_op_from_name(op_type) : IR_OP_INVALID;
	struct ir_node *m;
	char name[300];
	int ret = 0;

	if (op == IR_OP_INVALID || !strncmp(op_type, "npu.", 4) ||
	    op == IR_OP_CONSTANT || op == IR_OP_CUSTOM) {
		snprintf(d->err, d->errlen, "op '%s' is not an ONNX op npuc "
			 "knows", op_type ? op_type : "(null)");
		return -EINVAL;
	}
	if (num_inputs < 0 || num_inputs > NPUC_PLUGIN_MAX_IO ||
	    num_outputs < 1 || num_outputs > NPUC_PLUGIN_MAX_IO ||
	    num_attrs < 0 || (num_attrs && !attrs)) {
		snprintf(d->err, d->errlen, "%s: bad input/output/attribute "
			 "counts", op_type);
		return -EINVAL;
	}
	for (int k = 0; k < num_inputs; k++) {
		ins[k] = inputs[k] < 0 ? NULL : get_val(d, inputs[k]);
		if (inputs[k] >= 0 && !ins[k]) {
			snprintf(d->err, d->errlen, "%s: input %d is value %d, "
				 "which does not exist", op_type, k, inputs[k]);
			return -EINVAL;
		}
	}
	for (int k = 0; k < num_outputs; k++) {
		outs[k] = ir_tensor_new(d->g, NULL, IR_DTYPE_INVALID, NULL);
		if (!outs[k])
			return -ENOMEM;
	}
	snprintf(name, sizeof(name), "%.250s/%s_%d", d->n->name, op_type,
		 d->num_made++);
	m = ir_node_new(d->g, op, name, num_inputs, ins, num_outputs, outs);
	if (!m || ir_node_add_origins(m, d->n))
		return -ENOMEM;
	m->opset = (int)d->g->opset;
	for (int a = 0; a < num_attrs && !ret; a++) {
		const struct npuc_attr_value *v = &attrs[a];

		if (!v->name) {
			ret = -EINVAL;
			break;
		}
		switch (v->type) {
		case NPUC_ATTR_INT:
			ret = ir_attr_set_int(m, v->name, v->i);
			break;
		case NPUC_ATTR_FLOAT:
			ret = ir_attr_set_float(m, v->name, v->f);
			break;
		case NPUC_ATTR_STRING:
			ret = ir_attr_set_str(m, v->name, v->s ? v->s : "");
			break;
		case NPUC_ATTR_INTS:
			ret = ir_attr_set_ints(m, v->name, v->ints, v->n);
			break;
		case NPUC_ATTR_FLOATS:
			ret = ir_attr_set_floats(m, v->name, v->floats, v->n);
			break;
		default:
			ret = -EINVAL;
		}
	}
	if (ret) {
		snprintf(d->err, d->errlen, "%s: bad attribute", op_type);
		return ret;
	}
	for (int k = 0; k < num_outputs; k++) {
		int v = add_val(d, outs[k]);

		if (v < 0)
			return v;
		outputs[k] = v;
	}
	return 0;
}

static npuc_value b_const(void *ctx, int dtype, int rank, const int64_t *dims,
			  const void *data)
{
	struct dctx *d = ctx;
	struct ir_shape s = { 0 };
	struct ir_tensor *t;
	int64_t n = 1;
	size_t bytes;

	if (dtype <= IR_DTYPE_INVALID || dtype >= IR_DTYPE_COUNT || rank < 0 ||
	    rank > NPUC_PLUGIN_MAX_RANK || (rank && !dims) || !data)
		return -EINVAL;
	for (int k = 0; k < rank; k++) {
		if (dims[k] < 0 || (dims[k] && n > INT64_MAX / dims[k]))
			return -EINVAL;
		n *= dims[k];
	}
	if ((uint64_t)n > SIZE_MAX / ir_dtype_size((enum ir_dtype)dtype))
		return -EOVERFLOW;
	bytes = (size_t)n * ir_dtype_size((enum ir_dtype)dtype);
	s = ir_shape_make(rank, dims);
	t = ir_const_new(d->g, NULL, (enum ir_dtype)dtype, &s, data, bytes);
	if (!t)
		return -ENOMEM;
	return add_val(d, t);
}

static int b_set_output(void *ctx, int index, npuc_value value)
{
	struct dctx *d = ctx;

	if (index < 0 || index >= d->n->num_outputs || !get_val(d, value) ||
	    d->out_val[index] >= 0) {
		snprintf(d->err, d->errlen, "set_output(%d, %d): no such "
			 "output or value, or set twice", index, value);
		return -EINVAL;
	}
	d->out_val[index] = value;
	return 0;
}

int plugin_decompose_node(struct ir_graph *g, struct ir_node *n)
{
	const struct npu_plugin_lib *lib = NULL;
	const struct npuc_plugin_op *op = plugin_op_of(n, &lib);
	struct npuc_tensor_type in[NPUC_PLUGIN_MAX_IO];
	const char *type = ir_attr_str(n, IR_CUSTOM_TYPE, "?");
	struct npuc_attrs attrs;
	struct npuc_builder b;
	struct dctx d = { .g = g, .n = n };
	struct ir_tensor *outs[NPUC_PLUGIN_MAX_IO];
	int nout = n->num_outputs, nin = n->num_inputs, ret = 0;
	char msg[256] = "";

	if (!op || !op->decompose)
		return 0;
	if (n->num_inputs > NPUC_PLUGIN_MAX_IO || nout > NPUC_PLUGIN_MAX_IO)
		return ir_error(g, "node '%s' (%s): too many inputs/outputs",
				n->name, type);
	d.err = msg;
	d.errlen = sizeof(msg);
	d.out_val = malloc(sizeof(int) * (size_t)(nout + 1));
	if (!d.out_val) {
		ret = -ENOMEM;
		goto out;
	}
	for (int k = 0; k < nout; k++)
		d.out_val[k] = -1;
	for (int k = 0; k < n->num_inputs && !ret; k++) {
		ret = type_of(g, n, n->inputs[k], &in[k]);
		if (!ret && add_val(&d, n->inputs[k]) < 0)
			ret = -ENOMEM;
	}
	if (ret)
		goto out;
	plugin_attrs_of(n, &attrs);
	b = (struct npuc_builder){
		.ctx = &d, .node_name = n->name, .num_inputs = n->num_inputs,
		.inputs = in, .num_outputs = nout, .attrs = &attrs,
		.node = b_node, .constant = b_const,
		.set_output = b_set_output, .err = msg, .errlen = sizeof(msg),
	};
	ret = op->decompose(&b);
	for (int k = 0; !ret && k < nout; k++)
		if (n->outputs[k] && d.out_val[k] < 0) {
			snprintf(msg, sizeof(msg), "output %d was not set", k);
			ret = -EINVAL;
		}
	if (ret) {
		ret = ir_error(g, "node '%s' (%s): decomposition by plugin %s "
			       "%s failed: %s", n->name, type, lib->desc->name,
			       lib->desc->version, msg[0] ? msg :
			       "(no message)");
		goto out;
	}
	/* The node goes; its outputs are written by what replaces it. */
	for (int k = 0; k < nout; k++)
		outs[k] = n->outputs[k];
	ir_node_remove(g, n);
	for (int k = 0; k < nout && !ret; k++) {
		struct ir_tensor *v = d.val[d.out_val[k]], *t = outs[k];
		struct ir_node *p = v->producer;
		bool again = false;
		int j = -1;

		if (!t)
			continue;
		for (int q = 0; q < k; q++)
			again |= d.out_val[q] == d.out_val[k];
		for (int q = 0; p && q < p->num_outputs; q++)
			if (p->outputs[q] == v)
				j = q;
		if (p && j >= 0 && d.out_val[k] >= nin && !v->is_output &&
		    !again) {
			d.val[d.out_val[k]] = t;
			ir_replace_uses(g, v, t);
			ret = ir_node_set_output(p, j, t);
			continue;
		}
		/* An input, a constant or a value already used: a copy. */
		{
			char name[300];
			struct ir_node *m;

			snprintf(name, sizeof(name), "%.250s/Identity_%d",
				 outs[k]->name, k);
			m = ir_node_new(g, IR_OP_IDENTITY, name, 1, &v, 1, &t);
			if (!m || ir_node_add_origin(m, n->name))
				ret = -ENOMEM;
		}
	}
	if (!ret)
		ret = 1;
out:
	if (ret == -ENOMEM)
		ret = ir_error(g, "out of memory decomposing '%s'", n->name);
	free(d.val);
	free(d.out_val);
	return ret;
}

static void host_tensor(const struct ir_tensor *t, void *data,
			struct npuc_host_tensor *x)
{
	int64_t n = ir_tensor_numel(t);

	memset(x, 0, sizeof(*x));
	x->dtype = t->dtype;
	x->rank = t->shape.rank;
	for (int d = 0; d < t->shape.rank && d < NPUC_PLUGIN_MAX_RANK; d++)
		x->dims[d] = t->shape.dim[d];
	x->data = data;
	x->bytes = n > 0 ? (size_t)n * ir_dtype_size(t->dtype) : 0;
}

int plugin_host_eval(struct ir_graph *g, const struct ir_node *n,
		     const void *const *in, void *const *out)
{
	const struct npu_plugin_lib *lib = NULL;
	const struct npuc_plugin_op *op = plugin_op_of(n, &lib);
	struct npuc_host_tensor xi[NPUC_PLUGIN_MAX_IO], xo[NPUC_PLUGIN_MAX_IO];
	const char *type = ir_attr_str(n, IR_CUSTOM_TYPE, "?");
	struct npuc_attrs attrs;
	struct npuc_host_call call;
	char msg[256] = "";
	int ret;

	if (!op || !op->host_kernel)
		return ir_error(g, "node '%s' (%s): no host kernel (plugin '%s')",
				n->name, type,
				ir_attr_str(n, IR_CUSTOM_PLUGIN, "?"));
	if (n->num_inputs > NPUC_PLUGIN_MAX_IO ||
	    n->num_outputs > NPUC_PLUGIN_MAX_IO)
		return ir_error(g, "node '%s' (%s): too many inputs/outputs",
				n->name, type);
	for (int k = 0; k < n->num_inputs; k++) {
		const struct ir_tensor *t = n->inputs[k];

		if (!t) {
			memset(&xi[k], 0, sizeof(xi[k]));
			continue;
		}
		ret = in && in[k] ? 0 : own_input(g, n, type, k);
		if (ret)
			return ret;
		host_tensor(t, in && in[k] ? (void *)in[k] : t->data, &xi[k]);
		if (!xi[k].data && xi[k].bytes)
			return ir_error(g, "node '%s' (%s): input %d has no "
					"data", n->name, type, k);
	}
	for (int k = 0; k < n->num_outputs; k++) {
		if (!n->outputs[k]) {
			memset(&xo[k], 0, sizeof(xo[k]));
			continue;
		}
		host_tensor(n->outputs[k], out[k], &xo[k]);
	}
	plugin_attrs_of(n, &attrs);
	call = (struct npuc_host_call){
		.node_name = n->name, .attrs = &attrs,
		.num_inputs = n->num_inputs, .inputs = xi,
		.num_outputs = n->num_outputs, .outputs = xo,
		.err = msg, .errlen = sizeof(msg),
	};
	ret = op->host_kernel(&call);
	if (ret)
		return ir_error(g, "node '%s' (%s): host kernel of plugin %s "
				"%s failed (%d): %s", n->name, type,
				lib->desc->name, lib->desc->version, ret,
				msg[0] ? msg : "(no message)");
	return 0;
}

bool plugin_is_host_node(const struct ir_node *n)
{
	const struct npuc_plugin_op *op = plugin_op_of(n, NULL);

	return op && op->host_kernel && !op->decompose;
}
