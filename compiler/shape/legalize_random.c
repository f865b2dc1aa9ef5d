// SPDX-License-Identifier: MIT
/*
 * legalize_random.c - ONNX's random ops onto the device's RANDOM task.
 *
 * RandomUniform[Like], RandomNormal[Like] and Bernoulli become one
 * npu.Random node writing f32 (Bernoulli's probabilities cast to f32
 * first), then a Cast to the dtype the op asks for. Its key: a node with
 * a seed draws from a key made of the seed's float bits, the same values
 * every run and every compile; a node without one gets a key of its own
 * (a hash of its name, so two such nodes draw different values) and
 * PER_JOB, so that every run draws new values, as ONNX Runtime's
 * generators do. The output shape must be static (the shape attribute,
 * or the input's).
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <xxhash.h>

#include "legalize_build.h"
#include "shape_internal.h"

static bool float_dtype(enum ir_dtype dt)
{
	return dt == IR_F32 || dt == IR_F16 || dt == IR_F64 || dt == IR_BF16;
}

/* The output shape: the shape attribute, or the input's; static. */
static int random_shape(struct ir_graph *g, const struct ir_node *n,
			struct ir_shape *s)
{
	const int64_t *dims;
	int nd, i;

	if (n->num_inputs) {
		*s = n->inputs[0]->shape;
		if (!ir_shape_is_static(s))
			return ir_error(g, "node '%s' (%s): the input's shape "
					"must be static", n->name,
					ir_op_name(n->op));
		return 0;
	}
	nd = ir_attr_ints(n, "shape", &dims);
	if (!ir_attr_find(n, "shape") || nd > IR_MAX_RANK)
		return ir_error(g, "node '%s' (%s): needs a shape attribute "
				"of at most %d dims", n->name,
				ir_op_name(n->op), IR_MAX_RANK);
	memset(s, 0, sizeof(*s));
	s->rank = nd;
	for (i = 0; i < nd; i++) {
		if (dims[i] < 0 || dims[i] > INT32_MAX)
			return ir_error(g, "node '%s' (%s): shape dim %d is "
					"%lld (0 .. 2^31 - 1)", n->name,
					ir_op_name(n->op), i,
					(long long)dims[i]);
		s->dim[i] = dims[i];
	}
	return 0;
}

/* Sets dist, a, b, seed and per_job on the npu.Random node @r. */
static int random_attrs(struct ir_graph *g, const struct ir_node *n,
			struct ir_node *r)
{
	bool normal = n->op == IR_OP_RANDOM_NORMAL ||
		      n->op == IR_OP_RANDOM_NORMAL_LIKE;
	float a = 0, b = 0, seed;
	uint32_t bits;
	uint64_t key;
	int dist = n->op == IR_OP_BERNOULLI ? 2 : normal ? 1 : 0;

	if (dist == 0) {
		a = ir_attr_float(n, "low", 0.0f);
		b = ir_attr_float(n, "high", 1.0f);
	} else if (dist == 1) {
		a = ir_attr_float(n, "mean", 0.0f);
		b = ir_attr_float(n, "scale", 1.0f);
	}
	if (!isfinite(a) || !isfinite(b))
		return ir_error(g, "node '%s' (%s): low/high or mean/scale "
				"%g, %g are not supported (they must be "
				"finite)", n->name, ir_op_name(n->op), a, b);
	if (ir_attr_find(n, "seed")) {
		seed = ir_attr_float(n, "seed", 0.0f);
		memcpy(&bits, &seed, sizeof(bits));
		key = bits;
	} else {
		key = XXH3_64bits(n->name, strlen(n->name));
	}
	if (ir_attr_set_int(r, "dist", dist) ||
	    ir_attr_set_float(r, "a", a) || ir_attr_set_float(r, "b", b) ||
	    ir_attr_set_int(r, "seed", (int64_t)key) ||
	    ir_attr_set_int(r, "per_job", !ir_attr_find(n, "seed")))
		return -ENOMEM;
	return 0;
}

int shape_legalize_random(struct ir_graph *g, struct ir_node *n)
{
	bool bern = n->op == IR_OP_BERNOULLI;
	struct ir_tensor *x = n->num_inputs ? n->inputs[0] : NULL, *out, *t;
	struct ir_node src;
	struct ir_shape s;
	struct lz_builder lb;
	enum ir_dtype dt;
	int64_t to;
	int err;

	if (n->num_outputs < 1 || !n->outputs[0] ||
	    n->num_inputs != ir_op_max_inputs(n->op) ||
	    (x && !x->shape_known))
		return 0;	/* shape inference reports it */
	err = random_shape(g, n, &s);
	if (err)
		return err;
	to = ir_attr_int(n, "dtype", x ? ir_dtype_to_onnx(x->dtype) : 1);
	dt = ir_dtype_from_onnx(to);
	if (dt == IR_DTYPE_INVALID || (!bern && !float_dtype(dt)))
		return ir_error(g, "node '%s' (%s): dtype %lld is not "
				"supported (%s)", n->name, ir_op_name(n->op),
				(long long)to, bern ? "a numeric or bool type" :
				"float16, float, double or bfloat16");
	src = *n;	/* its attributes, read after it left the graph */
	out = lz_take(&lb, g, n);
	if (bern)
		x = lz_cast(&lb, x, IR_F32, 1, NULL);
	t = lz_node(&lb, IR_OP_RANDOM_TASK, bern ? 1 : 0, &x, IR_F32,
		    dt == IR_F32 ? out : NULL);
	if (!t)
		return -ENOMEM;
	err = random_attrs(g, &src, t->producer);
	if (!err && !bern)
		err = ir_attr_set_ints(t->producer, "shape", s.dim, s.rank);
	if (err)
		return err;
	if (dt != IR_F32 && !lz_cast(&lb, t, dt, (int)to, out))
		return -ENOMEM;
	return 1;
}
