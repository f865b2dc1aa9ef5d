// SPDX-License-Identifier: MIT
/*
 * legalize_det.c - ONNX Det of [*, M, M] matrices (f32, static, M <= 5)
 * as Leibniz's formula, det A = sum over the permutations s of
 * sign(s) prod_i A[i, s(i)], in four nodes:
 *
 *   G = Gather(Reshape(X, [B, M M]), idx [P, M], axis 1)   [B, P, M]
 *   D = MatMul(ReduceProd(G, axis 2), signs [P, 1])         [B, 1]
 *
 * idx's row p holds i M + s_p(i), P = M! (120 at most). The products and
 * the signed sum run in f32: exact for integers, and for a 2 x 2 or 3 x 3
 * of floats as close as elimination would be; past M = 5 the M! terms
 * cost more than an elimination, which needs pivoting decided by the
 * data, and are refused.
 */
#include <errno.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

#define DET_MAX	5

/* Every permutation of 0..m-1 (Heap's order), its sign; returns P. */
static int det_perms(int m, int64_t *idx, float *sign)
{
	int a[DET_MAX], c[DET_MAX] = { 0 }, p = 0, i = 0, par = 0;

	for (int k = 0; k < m; k++)
		a[k] = k;
	for (;;) {
		for (int k = 0; k < m; k++)
			idx[p * m + k] = (int64_t)k * m + a[k];
		sign[p++] = par ? -1.0f : 1.0f;
		while (i < m && c[i] >= i) {
			c[i] = 0;
			i++;
		}
		if (i >= m)
			return p;
		if (i % 2 == 0) {
			int t = a[0];

			a[0] = a[i];
			a[i] = t;
		} else {
			int t = a[c[i]];

			a[c[i]] = a[i];
			a[i] = t;
		}
		par ^= 1;	/* every step is one swap */
		c[i]++;
		i = 0;
	}
}

int shape_legalize_det(struct ir_graph *g, struct ir_node *n)
{
	struct ir_tensor *x = n->inputs[0], *out, *t, *ins[2];
	int64_t idx[120 * DET_MAX], lead[IR_MAX_RANK], flat[2], b = 1, m;
	int64_t axis = 2;
	float sign[120];
	struct ir_shape ss;
	struct lz_builder lb;
	int r = x->shape.rank, p;

	if (r < 2 || !ir_shape_is_static(&x->shape) || x->dtype != IR_F32 ||
	    x->shape.dim[r - 1] != x->shape.dim[r - 2] ||
	    x->shape.dim[r - 1] < 1 || x->shape.dim[r - 1] > DET_MAX)
		return ir_error(g, "node '%s' (Det): [*, M, M] of f32, static, "
				"M from 1 to %d, is supported", n->name,
				DET_MAX);
	m = x->shape.dim[r - 1];
	for (int d = 0; d < r - 2; d++) {
		lead[d] = x->shape.dim[d];
		b *= lead[d];
	}
	p = det_perms((int)m, idx, sign);
	out = lz_take(&lb, g, n);
	flat[0] = b;
	flat[1] = m * m;
	t = lz_reshape(&lb, x, flat, 2, NULL);
	ss = (struct ir_shape){ .rank = 2, .dim = { p, m } };
	ins[0] = t;
	ins[1] = ir_const_new(g, NULL, IR_I64, &ss, idx,
			      (size_t)(p * m) * sizeof(*idx));
	t = lz_node(&lb, IR_OP_GATHER, 2, ins, IR_F32, NULL);
	if (!t || ir_attr_set_int(t->producer, "axis", 1))
		return -ENOMEM;
	t = lz_reduce(&lb, IR_OP_REDUCE_PROD, t, &axis, 1, 0, NULL);
	ss = (struct ir_shape){ .rank = 2, .dim = { p, 1 } };
	t = lz_binary(&lb, IR_OP_MATMUL, t, ir_const_new(
		g, NULL, IR_F32, &ss, sign, (size_t)p * sizeof(*sign)), NULL);
	return lz_reshape(&lb, t, lead, r - 2, out) ? 1 : -ENOMEM;
}
