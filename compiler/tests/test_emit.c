// SPDX-License-Identifier: MIT
/*
 * test_emit.c - which dtypes emit accepts for the ops whose kernels are not
 * dtype-generic, checked by running small graphs through the interpreter:
 * max pooling on u8/i8 (the POOL2D kernel compares bytes), average
 * pooling on u8 refused at compile time with "not supported".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_test.h"
#include "interp/interp.h"
#include "shape/shape.h"

#define H 3
#define W 4

/* MaxPool 2x2, stride 1, pads 1 on every side of a 3x4 byte image. */
static struct ir_graph *pool_graph(enum ir_op op, enum ir_dtype dt,
				   struct ir_tensor **y)
{
	struct ir_graph *g = ir_graph_new("pool");
	struct ir_tensor *x = ft_input(g, "x", ft_shape(1, 1, H, W, -1));
	int64_t k[2] = { 2, 2 }, st[2] = { 1, 1 }, pads[4] = { 1, 1, 1, 1 };

	x->dtype = dt;
	*y = ft_op(g, op, "pool", 1, &x);
	if (op == IR_OP_MAX_POOL || op == IR_OP_AVERAGE_POOL) {
		ir_attr_set_ints((*y)->producer, "kernel_shape", k, 2);
		ir_attr_set_ints((*y)->producer, "strides", st, 2);
		ir_attr_set_ints((*y)->producer, "pads", pads, 4);
	}
	ir_graph_add_output(g, *y);
	return g;
}

static int max_ref(const uint8_t *x, int oh, int ow, bool sign)
{
	int best = sign ? -129 : -1, i, j;

	for (i = oh - 1; i <= oh; i++)
		for (j = ow - 1; j <= ow; j++) {
			int v;

			if (i < 0 || j < 0 || i >= H || j >= W)
				continue;	/* padding never wins */
			v = sign ? (int8_t)x[i * W + j] : x[i * W + j];
			if (v > best)
				best = v;
		}
	return best;
}

static void test_maxpool_bytes(enum ir_dtype dt)
{
	uint8_t x[H * W] = { 7, 200, 3, 0, 255, 1, 128, 127, 9, 64, 2, 250 };
	uint8_t out[(H + 1) * (W + 1)] = { 0 };
	const void *ins[1] = { x };
	void *outs[1] = { out };
	struct ir_tensor *y;
	struct ir_graph *g = pool_graph(IR_OP_MAX_POOL, dt, &y);
	bool sign = dt == IR_I8, same = true;
	int ret, i, j;

	ret = shape_infer(g);
	if (!ret)
		ret = interp_run(g, ins, outs);
	if (!ft_ok(ret == 0 && y->dtype == dt, "MaxPool on %s compiles and "
		   "runs: %s", ir_dtype_name(dt), g->err)) {
		ft_ok(false, "MaxPool on %s values", ir_dtype_name(dt));
		ir_graph_free(g);
		return;
	}
	for (i = 0; i <= H; i++)
		for (j = 0; j <= W; j++) {
			int v = sign ? (int8_t)out[i * (W + 1) + j]
				     : out[i * (W + 1) + j];

			same &= v == max_ref(x, i, j, sign);
		}
	ft_ok(same, "MaxPool on %s: every window's max, padding ignored",
	      ir_dtype_name(dt));
	ir_graph_free(g);
}

static void test_avgpool_u8_refused(void)
{
	uint8_t x[H * W] = { 0 }, out[(H + 1) * (W + 1)];
	const void *ins[1] = { x };
	void *outs[1] = { out };
	struct ir_tensor *y;
	struct ir_graph *g = pool_graph(IR_OP_AVERAGE_POOL, IR_U8, &y);
	int ret;

	ret = shape_infer(g);
	if (!ret)
		ret = interp_run(g, ins, outs);
	ft_ok(ret != 0 && strstr(g->err, "AveragePool on u8 is not "
				 "supported") && strstr(g->err, "f16"),
	      "AveragePool on u8 is refused: %s", g->err);
	ir_graph_free(g);
}

int main(void)
{
	ft_plan(5);
	test_maxpool_bytes(IR_U8);
	test_maxpool_bytes(IR_I8);
	test_avgpool_u8_refused();
	return ft_done();
}
