// SPDX-License-Identifier: MIT
/*
 * pass_quant.c - QDQ -> int8 ops (Documentation/quantization.rst).
 *
 * qdq-fuse finds the QDQ form of a quantized Conv, Gemm or MatMul, as
 * ONNX Runtime's quantizer and torch fake-quant / QAT exports write it:
 *
 *   DequantizeLinear(xq, sx, zx) ----\
 *   DequantizeLinear(wq, sw, zw) -----> Conv/Gemm/MatMul [-> Relu/Clip]
 *   [bias f32, or DequantizeLinear(bq i32, sx*sw, 0)] -/   -> QuantizeLinear(sy, zy)
 *
 * where wq is an int8 constant or QuantizeLinear(w f32 constant) (torch),
 * and rewrites it into one npu.QConv / npu.QMatMul reading xq and writing
 * the QuantizeLinear's output: weights stay int8, the multiplier
 * M = fl(fl(sx * sw[o]) / sy) is folded per output channel, a float bias
 * is quantized to int32 with scale sx * sw[o] (round half to even, as
 * ONNX Runtime's quantizer does), a Relu or Clip becomes the output clamp.
 * The DequantizeLinear nodes left without readers go with DCE; a
 * QuantizeLinear -> DequantizeLinear pair between two int8 ops simply
 * disappears, as the int8 op reads xq directly.
 *
 * A convolution of fewer than 16 input channels (an RGB first layer)
 * is left in float, where its kernel is faster.
 *
 * The result equals ONNX's QLinearConv/QLinearMatMul of the same
 * quantized values exactly; it may differ from a float evaluation of the
 * QDQ graph by one unit in the last place where the float sum rounds
 * across a half (the float graph leaves that to the implementation).
 *
 * It runs before constant folding, which would otherwise turn the weight
 * pattern into a float constant.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "passes.h"

struct qp {
	float scale;
	int32_t zero;
	enum ir_dtype dt;
};

static bool is_q8(enum ir_dtype dt)
{
	return dt == IR_I8 || dt == IR_U8;
}

static int32_t q_lo(enum ir_dtype dt)
{
	return dt == IR_I8 ? -128 : 0;
}

static int32_t q_hi(enum ir_dtype dt)
{
	return dt == IR_I8 ? 127 : 255;
}

/* Per-tensor parameters of a Q or DQ node: constant scalar scale/zp. */
static bool qp_scalar(const struct ir_node *n, struct qp *p)
{
	const struct ir_tensor *s = ir_in(n, 1), *z = ir_in(n, 2);

	if (!ir_tensor_is_const(s) || ir_tensor_numel(s) != 1 ||
	    s->dtype != IR_F32)
		return false;
	if (z && (!ir_tensor_is_const(z) || ir_tensor_numel(z) != 1))
		return false;
	p->scale = (float)ir_const_get_f(s, 0);
	p->zero = z ? (int32_t)ir_const_get_i(z, 0) : 0;
	p->dt = z ? z->dtype : IR_U8;
	if (n->op == IR_OP_DEQUANTIZE_LINEAR)
		p->dt = n->inputs[0]->dtype;
	return is_q8(p->dt) && p->scale > 0 && isfinite(p->scale);
}

/* ONNX QuantizeLinear of one f32 value: saturate(rne(x / s) + z). */
static int32_t quantize1(float x, float s, int32_t z, enum ir_dtype dt)
{
	float v = nearbyintf(x / s);
	double r = (double)v + z;

	if (!(r >= q_lo(dt)))
		return v != v ? z : q_lo(dt);
	if (r > q_hi(dt))
		return q_hi(dt);
	return (int32_t)r;
}

/*
 * The quantized weight behind a DequantizeLinear @dq: its int8 values
 * (malloc'ed, as stored, row-major over the weight's shape), the scale
 * of each of @nch channels along @axis (or one), the zero point (one for
 * all channels) and dtype.
 */
struct qweight {
	uint8_t *data;
	float *scale;		/* nch entries */
	int32_t zero;
	enum ir_dtype dt;
	int64_t numel;
};

static void qweight_free(struct qweight *w)
{
	free(w->data);
	free(w->scale);
	w->data = NULL;
	w->scale = NULL;
}

static bool qweight_get(const struct ir_tensor *wf, int axis, int64_t nch,
			struct qweight *w)
{
	const struct ir_node *dq = pu_producer(wf, IR_OP_DEQUANTIZE_LINEAR);
	const struct ir_node *q;
	const struct ir_tensor *s, *z, *src;
	int64_t i, ns, inner = 1, outer;
	int daxis, d;

	memset(w, 0, sizeof(*w));
	if (!dq)
		return false;
	s = ir_in(dq, 1);
	z = ir_in(dq, 2);
	src = dq->inputs[0];
	if (!ir_tensor_is_const(s) || s->dtype != IR_F32 ||
	    (z && !ir_tensor_is_const(z)) || !src->shape_known ||
	    !ir_shape_is_static(&src->shape))
		return false;
	ns = ir_tensor_numel(s);
	daxis = (int)ir_attr_int(dq, "axis", 1);
	if (daxis < 0)
		daxis += src->shape.rank;
	if (ns != 1 && (ns != nch || daxis != axis))
		return false;
	w->numel = ir_tensor_numel(src);
	/* one zero point for every channel */
	w->zero = z ? (int32_t)ir_const_get_i(z, 0) : 0;
	if (z)
		for (i = 1; i < ir_tensor_numel(z); i++)
			if (ir_const_get_i(z, i) != w->zero)
				return false;
	w->scale = malloc(sizeof(float) * (size_t)nch);
	w->data = malloc((size_t)w->numel);
	if (!w->scale || !w->data)
		goto fail;
	for (i = 0; i < nch; i++) {
		w->scale[i] = (float)ir_const_get_f(s, ns == 1 ? 0 : i);
		if (!(w->scale[i] > 0) || !isfinite(w->scale[i]))
			goto fail;
	}
	if (ir_tensor_is_const(src) && is_q8(src->dtype)) {
		w->dt = src->dtype;
		memcpy(w->data, src->data, (size_t)w->numel);
		return true;
	}
	/* torch: QuantizeLinear(w f32 constant) with the same parameters */
	q = pu_producer(src, IR_OP_QUANTIZE_LINEAR);
	if (!q || !ir_tensor_is_const(q->inputs[0]) ||
	    q->inputs[0]->dtype != IR_F32 || ir_in(q, 1) != s ||
	    ir_in(q, 2) != z || !is_q8(src->dtype))
		goto fail;
	if (ns != 1 && ir_attr_int(q, "axis", 1) != ir_attr_int(dq, "axis", 1))
		goto fail;
	w->dt = src->dtype;
	for (d = axis + 1; d < src->shape.rank; d++)
		inner *= src->shape.dim[d];
	outer = nch;
	for (i = 0; i < w->numel; i++) {
		int64_t ch = ns == 1 ? 0 : (i / inner) % outer;

		w->data[i] = (uint8_t)quantize1(
			(float)ir_const_get_f(q->inputs[0], i),
			w->scale[ns == 1 ? 0 : ch], w->zero, w->dt);
	}
	return true;
fail:
	qweight_free(w);
	return false;
}

/*
 * The int32 bias for channel scales sx * sw[o]: a DequantizeLinear of an
 * int32 constant with exactly those scales is taken as it is; a float
 * bias (or another scale) is quantized: rne(b / fl(sx * sw[o])).
 */
static bool bias_get(const struct ir_tensor *b, float sx, const float *sw,
		     int64_t nch, int32_t *out)
{
	const struct ir_node *dq = pu_producer(b, IR_OP_DEQUANTIZE_LINEAR);
	int64_t i;

	if (!b)
		return true;
	if (dq && ir_tensor_is_const(dq->inputs[0]) &&
	    dq->inputs[0]->dtype == IR_I32 &&
	    ir_tensor_numel(dq->inputs[0]) == nch &&
	    ir_tensor_is_const(ir_in(dq, 1))) {
		const struct ir_tensor *bs = ir_in(dq, 1);
		int64_t ns = ir_tensor_numel(bs);
		bool same = ns == 1 || ns == nch;

		if (ir_in(dq, 2) && !pu_const_uniform(ir_in(dq, 2),
						      &(double){ 0 }))
			return false;
		if (ir_in(dq, 2) && ir_const_get_i(ir_in(dq, 2), 0))
			return false;
		for (i = 0; same && i < nch; i++)
			same = (float)ir_const_get_f(bs, ns == 1 ? 0 : i) ==
			       sx * sw[i];
		for (i = 0; i < nch; i++) {
			float bf;

			if (same) {
				out[i] = (int32_t)ir_const_get_i(dq->inputs[0],
								 i);
				continue;
			}
			bf = (float)ir_const_get_i(dq->inputs[0], i) *
			     (float)ir_const_get_f(bs, ns == 1 ? 0 : i);
			out[i] = (int32_t)ir_f64_to_i64(
				nearbyintf(bf / (sx * sw[i])));
		}
		return true;
	}
	if (!ir_tensor_is_const(b) || b->dtype != IR_F32 ||
	    ir_tensor_numel(b) != nch)
		return false;
	for (i = 0; i < nch; i++) {
		double v = nearbyintf((float)ir_const_get_f(b, i) /
				      (sx * sw[i]));

		if (v > INT32_MAX || v < INT32_MIN)
			return false;
		out[i] = (int32_t)v;
	}
	return true;
}

/*
 * From the float output of the op: an optional Relu or Clip, then a
 * QuantizeLinear (per tensor). Fills the output parameters, the clamp,
 * and the nodes to remove.
 */
static struct ir_node *out_chain(struct ir_tensor *yf, struct qp *yq,
				 int32_t *lo, int32_t *hi,
				 struct ir_node **actn)
{
	struct ir_node *c = ir_sole_consumer(yf);
	double a = -INFINITY, b = INFINITY;

	*actn = NULL;
	if (!c)
		return NULL;
	if (c->op == IR_OP_RELU) {
		a = 0;
		*actn = c;
	} else if (c->op == IR_OP_CLIP) {
		const struct ir_tensor *mn = ir_in(c, 1), *mx = ir_in(c, 2);

		if ((mn && (!ir_tensor_is_const(mn) ||
			    ir_tensor_numel(mn) != 1)) ||
		    (mx && (!ir_tensor_is_const(mx) ||
			    ir_tensor_numel(mx) != 1)))
			return NULL;
		a = mn ? ir_const_get_f(mn, 0) : ir_attr_float(c, "min",
							       -INFINITY);
		b = mx ? ir_const_get_f(mx, 0) : ir_attr_float(c, "max",
							       INFINITY);
		*actn = c;
	}
	if (*actn) {
		c = ir_sole_consumer((*actn)->outputs[0]);
		if (!c)
			return NULL;
	}
	if (c->op != IR_OP_QUANTIZE_LINEAR || !qp_scalar(c, yq) ||
	    c->outputs[0]->dtype != yq->dt)
		return NULL;
	*lo = q_lo(yq->dt);
	*hi = q_hi(yq->dt);
	if (a > -INFINITY) {
		int32_t v = quantize1((float)a, yq->scale, yq->zero, yq->dt);

		*lo = v > *lo ? v : *lo;
	}
	if (b < INFINITY) {
		int32_t v = quantize1((float)b, yq->scale, yq->zero, yq->dt);

		*hi = v < *hi ? v : *hi;
	}
	if (*lo > *hi)
		return NULL;
	return c;
}

/*
 * The int8 value behind a float activation @t: DequantizeLinear(q) gives
 * q; Flatten/Reshape(DequantizeLinear(q)) (torch puts no fake-quant
 * after a flatten) gives the same view of q, made here. Fills the
 * activation's parameters; NULL if @t is not such a value.
 */
static struct ir_tensor *int8_source(struct ir_graph *g, struct ir_tensor *t,
				     struct qp *p)
{
	struct ir_node *dq = pu_producer(t, IR_OP_DEQUANTIZE_LINEAR), *v, *nv;
	struct ir_tensor *ins[2], *out;
	char name[300];
	int i;

	if (dq)
		return qp_scalar(dq, p) ? dq->inputs[0] : NULL;
	v = t ? t->producer : NULL;
	if (!v || (v->op != IR_OP_FLATTEN && v->op != IR_OP_RESHAPE) ||
	    v->num_inputs > 2 || !t->shape_known)
		return NULL;
	dq = pu_producer(v->inputs[0], IR_OP_DEQUANTIZE_LINEAR);
	if (!dq || !qp_scalar(dq, p))
		return NULL;
	ins[0] = dq->inputs[0];
	ins[1] = ir_in(v, 1);
	snprintf(name, sizeof(name), "%.280s/int8", t->name);
	out = ir_tensor_new(g, name, ins[0]->dtype, &t->shape);
	if (!out)
		return NULL;
	out->shape_known = true;
	snprintf(name, sizeof(name), "%.280s/int8", v->name);
	nv = ir_node_new(g, v->op, name, v->num_inputs, ins, 1, &out);
	if (!nv || ir_node_add_origins(nv, v))
		return NULL;
	for (i = 0; i < v->num_attrs; i++)
		if (v->attrs[i].type == IR_ATTR_INT &&
		    ir_attr_set_int(nv, v->attrs[i].name, v->attrs[i].i))
			return NULL;
	return out;
}

/* A new constant; NULL on allocation failure. */
static struct ir_tensor *new_const(struct ir_graph *g, const char *base,
				   const char *what, enum ir_dtype dt,
				   int rank, const int64_t *dims,
				   const void *data)
{
	struct ir_shape s = ir_shape_make(rank, dims);
	char name[300];
	int64_t n = 1;
	int i;

	for (i = 0; i < rank; i++)
		n *= dims[i];
	snprintf(name, sizeof(name), "%.250s/%s", base, what);
	return ir_const_new(g, name, dt, &s, data,
			    (size_t)n * ir_dtype_size(dt));
}

/* Build the int8 node in place of @op (and @actn, @q); 0 or -ENOMEM. */
static int replace(struct ir_graph *g, struct ir_node *op,
		   struct ir_node *actn, struct ir_node *q, enum ir_op qop,
		   struct ir_tensor *xq, struct ir_tensor *wt,
		   struct ir_tensor *bt, struct ir_tensor *mt,
		   const int64_t zp[3], int32_t lo, int32_t hi)
{
	struct ir_tensor *ins[4] = { xq, wt, bt, mt };
	struct ir_tensor *yq = q->outputs[0];
	struct ir_node *n;
	int64_t clamp[2] = { lo, hi };
	char name[300];
	int i;

	snprintf(name, sizeof(name), "%.280s/int8", op->name);
	ir_node_remove(g, q);
	n = ir_node_new(g, qop, name, 4, ins, 1, &yq);
	if (!n)
		return -ENOMEM;
	for (i = 0; i < op->num_attrs; i++) {
		const struct ir_attr *a = &op->attrs[i];

		if (a->type == IR_ATTR_INTS &&
		    ir_attr_set_ints(n, a->name, a->ints, a->n))
			return -ENOMEM;
		if (a->type == IR_ATTR_INT &&
		    ir_attr_set_int(n, a->name, a->i))
			return -ENOMEM;
	}
	if (ir_attr_set_ints(n, "qzp", zp, 3) ||
	    ir_attr_set_ints(n, "qclamp", clamp, 2) ||
	    ir_attr_set_int(n, "ydt", yq->dtype) ||
	    ir_node_add_origins(n, op) || ir_node_add_origins(n, q) ||
	    (actn && ir_node_add_origins(n, actn)))
		return -ENOMEM;
	if (actn)
		ir_node_remove(g, actn);
	ir_node_remove(g, op);
	return 0;
}

/* Multipliers fl(fl(sx * sw[o]) / sy): one if all are equal. */
static struct ir_tensor *mult_const(struct ir_graph *g, const char *base,
				    float sx, const float *sw, int64_t nch,
				    float sy)
{
	float *m = malloc(sizeof(float) * (size_t)nch);
	struct ir_tensor *t;
	int64_t i, n = 1;

	if (!m)
		return NULL;
	for (i = 0; i < nch; i++) {
		float p = sx * sw[i];

		m[i] = p / sy;
		if (m[i] != m[0])
			n = nch;
	}
	t = new_const(g, base, "mult", IR_F32, 1, &n, m);
	free(m);
	return t;
}

static int fuse_conv(struct ir_graph *g, struct ir_node *n, bool *done)
{
	struct ir_node *dqx = pu_producer(n->inputs[0],
					  IR_OP_DEQUANTIZE_LINEAR);
	struct ir_node *q, *actn;
	struct ir_tensor *w = ir_in(n, 1), *wt, *bt = NULL, *mt;
	struct qp xp, yp;
	struct qweight qw;
	int32_t lo, hi, *bias = NULL;
	int64_t nch, zp[3];
	int ret = -ENOMEM;

	*done = false;
	if (!dqx || !qp_scalar(dqx, &xp) || !w || w->shape.rank != 4 ||
	    !ir_shape_is_static(&w->shape) || n->act.kind != IR_ACT_NONE ||
	    n->has_residual || n->num_inputs > 3)
		return 0;
	/*
	 * A first layer of a few channels (RGB) stays float: 3 channels
	 * would fill a tenth of the 32-byte C0 block the int8 kernel reads,
	 * and the float kernel is the faster one there.
	 */
	if (ir_attr_int(n, "group", 1) == 1 && w->shape.dim[1] < 16 &&
	    !ir_attr_int(n, "npu_qlinear", 0))	/* a QLinearConv: exact */
		return 0;
	nch = w->shape.dim[0];
	q = out_chain(n->outputs[0], &yp, &lo, &hi, &actn);
	if (!q || !qweight_get(w, 0, nch, &qw))
		return 0;
	if (ir_in(n, 2)) {
		bias = malloc(sizeof(int32_t) * (size_t)nch);
		if (!bias)
			goto out;
		if (!bias_get(ir_in(n, 2), xp.scale, qw.scale, nch, bias)) {
			ret = 0;
			goto out;
		}
	}
	wt = new_const(g, n->name, "wq", qw.dt, 4, w->shape.dim, qw.data);
	mt = mult_const(g, n->name, xp.scale, qw.scale, nch, yp.scale);
	if (bias)
		bt = new_const(g, n->name, "bias_i32", IR_I32, 1, &nch, bias);
	if (!wt || !mt || (bias && !bt))
		goto out;
	zp[0] = xp.zero;
	zp[1] = qw.zero;
	zp[2] = yp.zero;
	ret = replace(g, n, actn, q, IR_OP_QCONV, dqx->inputs[0], wt, bt, mt,
		      zp, lo, hi);
	*done = !ret;
out:
	free(bias);
	qweight_free(&qw);
	return ret;
}

/*
 * Gemm (alpha 1, transA 0, a bias C of [N] or beta 0) and MatMul of a
 * rank >= 2 activation with a constant [K, N] (or Gemm transB [N, K])
 * weight. The weight is stored [N, K] (QMATMUL's TRANS_B form).
 */
static int fuse_matmul(struct ir_graph *g, struct ir_node *n, bool *done)
{
	struct ir_tensor *aq;
	struct ir_node *q, *actn;
	struct ir_tensor *w = ir_in(n, 1), *c = NULL, *wt, *bt = NULL, *mt;
	struct qp ap, yp;
	struct qweight qw;
	int32_t lo, hi, *bias = NULL;
	int64_t k, nn, i, j, zp[3], dims[2];
	uint8_t *wnk = NULL;
	bool tb = false;
	int ret = -ENOMEM;

	*done = false;
	if (!w || w->shape.rank != 2 ||
	    !ir_shape_is_static(&w->shape) || n->act.kind != IR_ACT_NONE ||
	    n->has_residual || n->inputs[0]->shape.rank < 2)
		return 0;
	if (n->op == IR_OP_GEMM) {
		if (ir_attr_int(n, "transA", 0) ||
		    ir_attr_float(n, "alpha", 1.0f) != 1.0f)
			return 0;
		tb = ir_attr_int(n, "transB", 0) != 0;
		c = ir_in(n, 2);
		if (c && ir_attr_float(n, "beta", 1.0f) != 1.0f)
			return 0;
	} else if (n->num_inputs > 2) {
		return 0;
	}
	k = w->shape.dim[tb ? 1 : 0];
	nn = w->shape.dim[tb ? 0 : 1];
	q = out_chain(n->outputs[0], &yp, &lo, &hi, &actn);
	if (!q || !qweight_get(w, tb ? 0 : 1, nn, &qw))
		return 0;
	aq = int8_source(g, n->inputs[0], &ap);
	if (!aq) {
		qweight_free(&qw);
		return 0;
	}
	if (c) {
		bias = malloc(sizeof(int32_t) * (size_t)nn);
		if (!bias)
			goto out;
		if (!bias_get(c, ap.scale, qw.scale, nn, bias)) {
			ret = 0;
			goto out;
		}
	}
	wnk = malloc((size_t)(k * nn));
	if (!wnk)
		goto out;
	for (i = 0; i < nn; i++)
		for (j = 0; j < k; j++)
			wnk[i * k + j] = tb ? qw.data[i * k + j] :
					      qw.data[j * nn + i];
	dims[0] = nn;
	dims[1] = k;
	wt = new_const(g, n->name, "wq", qw.dt, 2, dims, wnk);
	mt = mult_const(g, n->name, ap.scale, qw.scale, nn, yp.scale);
	if (bias)
		bt = new_const(g, n->name, "bias_i32", IR_I32, 1, &nn, bias);
	if (!wt || !mt || (bias && !bt))
		goto out;
	zp[0] = ap.zero;
	zp[1] = qw.zero;
	zp[2] = yp.zero;
	ret = replace(g, n, actn, q, IR_OP_QMATMUL, aq, wt, bt,
		      mt, zp, lo, hi);
	*done = !ret;
out:
	free(wnk);
	free(bias);
	qweight_free(&qw);
	return ret;
}

/*
 * Add(DequantizeLinear(a), DequantizeLinear(b)) [-> Relu] ->
 * QuantizeLinear of one shape: npu.QAdd, the same fp32 steps (exact).
 */
static int fuse_add(struct ir_graph *g, struct ir_node *n, bool *done)
{
	struct ir_node *da = pu_producer(n->inputs[0],
					 IR_OP_DEQUANTIZE_LINEAR);
	struct ir_node *db = pu_producer(ir_in(n, 1),
					 IR_OP_DEQUANTIZE_LINEAR);
	struct ir_node *q, *actn, *nn;
	struct ir_tensor *ins[2], *yq;
	struct qp ap, bp, yp;
	int64_t zp[3], clamp[2];
	float sc[3];
	int32_t lo, hi;
	char name[300];

	*done = false;
	if (n->num_inputs != 2 || n->act.kind != IR_ACT_NONE || !da || !db ||
	    !qp_scalar(da, &ap) || !qp_scalar(db, &bp) ||
	    !ir_shape_equal(&da->inputs[0]->shape, &db->inputs[0]->shape) ||
	    !ir_shape_equal(&da->inputs[0]->shape, &n->outputs[0]->shape))
		return 0;
	q = out_chain(n->outputs[0], &yp, &lo, &hi, &actn);
	if (!q || (actn && actn->op != IR_OP_RELU))
		return 0;
	ins[0] = da->inputs[0];
	ins[1] = db->inputs[0];
	yq = q->outputs[0];
	sc[0] = ap.scale;
	sc[1] = bp.scale;
	sc[2] = yp.scale;
	zp[0] = ap.zero;
	zp[1] = bp.zero;
	zp[2] = yp.zero;
	clamp[0] = lo;
	clamp[1] = hi;
	snprintf(name, sizeof(name), "%.280s/int8", n->name);
	ir_node_remove(g, q);
	nn = ir_node_new(g, IR_OP_QADD, name, 2, ins, 1, &yq);
	if (!nn || ir_attr_set_ints(nn, "qzp", zp, 3) ||
	    ir_attr_set_ints(nn, "qclamp", clamp, 2) ||
	    ir_attr_set_floats(nn, "qscale", sc, 3) ||
	    ir_attr_set_int(nn, "ydt", yq->dtype) ||
	    ir_node_add_origins(nn, n) || ir_node_add_origins(nn, q) ||
	    (actn && ir_node_add_origins(nn, actn)))
		return -ENOMEM;
	if (actn)
		ir_node_remove(g, actn);
	ir_node_remove(g, n);
	*done = true;
	return 0;
}

/*
 * DequantizeLinear(q) -> MaxPool -> QuantizeLinear with the same scale
 * and zero point is MaxPool(q): the maximum commutes with the monotonic
 * dequantization and requantizing a grid value gives it back.
 */
static int fuse_maxpool(struct ir_graph *g, struct ir_node *n, bool *done)
{
	struct ir_node *dq = pu_producer(n->inputs[0],
					 IR_OP_DEQUANTIZE_LINEAR);
	struct ir_node *q = ir_sole_consumer(n->outputs[0]), *nn;
	struct ir_tensor *yq, *xq;
	struct qp xp, yp;
	char name[300];
	int i;

	*done = false;
	if (!dq || !q || q->op != IR_OP_QUANTIZE_LINEAR || n->num_outputs > 1 ||
	    !qp_scalar(dq, &xp) || !qp_scalar(q, &yp) ||
	    xp.scale != yp.scale || xp.zero != yp.zero || xp.dt != yp.dt)
		return 0;
	xq = dq->inputs[0];
	yq = q->outputs[0];
	snprintf(name, sizeof(name), "%.280s/int8", n->name);
	ir_node_remove(g, q);
	nn = ir_node_new(g, n->op, name, 1, &xq, 1, &yq);
	if (!nn || ir_node_add_origins(nn, n) || ir_node_add_origins(nn, q))
		return -ENOMEM;
	for (i = 0; i < n->num_attrs; i++) {
		const struct ir_attr *a = &n->attrs[i];

		if ((a->type == IR_ATTR_INTS &&
		     ir_attr_set_ints(nn, a->name, a->ints, a->n)) ||
		    (a->type == IR_ATTR_INT &&
		     ir_attr_set_int(nn, a->name, a->i)) ||
		    (a->type == IR_ATTR_STRING &&
		     ir_attr_set_str(nn, a->name, a->s)))
			return -ENOMEM;
	}
	ir_node_remove(g, n);
	*done = true;
	return 0;
}

int pass_qdq_fuse(struct ir_graph *g, struct pass_stats *st)
{
	struct ir_node **snap;
	int n, i, ret = 0;

	snap = pu_snapshot(g, &n);
	if (!snap)
		return n ? -ENOMEM : 0;
	for (i = 0; i < n && !ret; i++) {
		struct ir_node *nd = snap[i];
		bool done = false;

		if (nd->dead)
			continue;
		if (nd->op == IR_OP_CONV)
			ret = fuse_conv(g, nd, &done);
		else if (nd->op == IR_OP_GEMM || nd->op == IR_OP_MATMUL)
			ret = fuse_matmul(g, nd, &done);
		else if (nd->op == IR_OP_ADD)
			ret = fuse_add(g, nd, &done);
		else if (nd->op == IR_OP_MAX_POOL ||
			 nd->op == IR_OP_GLOBAL_MAX_POOL)
			ret = fuse_maxpool(g, nd, &done);
		if (done)
			st->rewritten++;
	}
	free(snap);
	if (!ret && st->rewritten) {
		st->removed += pu_sweep(g);
		ret = ir_graph_toposort(g);
	}
	return ret;
}

/* [O][C][K] int8 (K = KH * KW) into [O][C1][K][32], zeros in the pad. */
static void qconv_pack(uint8_t *p, const uint8_t *w, int64_t o, int64_t c,
		       int64_t k)
{
	int64_t c1 = (c + 31) / 32;

	for (int64_t oo = 0; oo < o; oo++)
		for (int64_t cc = 0; cc < c; cc++)
			for (int64_t t = 0; t < k; t++)
				p[((oo * c1 + cc / 32) * k + t) * 32 + cc % 32] =
					w[(oo * c + cc) * k + t];
}

/*
 * qconv-weight-pack: an npu.QConv whose input is NC1HWC0 (after the
 * layout pass), group 1, weight I8 with zero point 0, gets its weight in
 * the packed form [O, C1, KH, KW, 32] (an NC1HWC0 constant: zero weights
 * in the padding channels), which the VNNI kernel reads 32 bytes at a
 * time.
 */
int pass_qconv_weight_pack(struct ir_graph *g, struct pass_stats *st)
{
	int i;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];
		struct ir_tensor *w = ir_in(n, 1), *pw;
		const int64_t *zp;
		int64_t o, c, kh, kw, c1;
		struct derive d;
		size_t n_packed;
		bool memo;
		uint8_t *p;
		char name[300];

		if (n->op != IR_OP_QCONV || !ir_tensor_is_const(w) ||
		    w->layout == IR_LAYOUT_NC1HWC0 || w->dtype != IR_I8 ||
		    n->inputs[0]->layout != IR_LAYOUT_NC1HWC0 ||
		    ir_attr_int(n, "group", 1) != 1 ||
		    ir_attr_ints(n, "qzp", &zp) != 3 || zp[1])
			continue;
		o = w->shape.dim[0];
		c = w->shape.dim[1];
		kh = w->shape.dim[2];
		kw = w->shape.dim[3];
		c1 = (c + 31) / 32;
		n_packed = (size_t)(o * c1 * kh * kw * 32);
		p = calloc(n_packed, 1);
		if (!p)
			return -ENOMEM;
		memo = derive_begin(&d, g, "qconv-weight-pack/1");
		if (memo)
			derive_tensor(&d, w);
		if (!memo || !derive_fetch(&d, w, p, n_packed)) {
			qconv_pack(p, w->data, o, c, kh * kw);
			if (memo)
				derive_keep(&d, w, p, n_packed);
		}
		snprintf(name, sizeof(name), "%.280s/packed", w->name);
		pw = ir_tensor_new(g, name, IR_I8, &w->shape);
		if (!pw) {
			free(p);
			return -ENOMEM;
		}
		pw->layout = IR_LAYOUT_NC1HWC0;
		pw->shape_known = true;
		pw->data = p;
		pw->nbytes = n_packed;
		ir_node_set_input(n, 1, pw);
		st->rewritten++;
	}
	if (st->rewritten)
		pu_sweep(g);
	return 0;
}
