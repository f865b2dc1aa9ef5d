// SPDX-License-Identifier: MIT
/*
 * test_lower - lowering of small hand-built graphs: the slot convention,
 * views as aliases, in-place elementwise ops, output copies, semaphores
 * between two branches, and a plan that the .om reader accepts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "om/om.h"
#include "shape/shape.h"
#include "tests/npuc_tap.h"

static struct ir_tensor *tensor(struct ir_graph *g, const char *name,
				int rank, const int64_t *dims)
{
	struct ir_shape s = ir_shape_make(rank, dims);

	return ir_tensor_new(g, name, IR_F32, &s);
}

static struct ir_node *node(struct ir_graph *g, enum ir_op op,
			    const char *name, int ni,
			    struct ir_tensor *const *in, struct ir_tensor *out)
{
	return ir_node_new(g, op, name, ni, in, 1, &out);
}

/* Declare I/O as the driver does, lower, serialize, read back. */
static struct om_model *compile(struct ir_graph *g, uint32_t streams,
				struct lower_report *rep)
{
	struct om_writer *w = om_writer_create();
	struct lower_options lo = { .max_streams = streams, .inplace = true,
				    .plan_budget_ms = 200 };
	struct om_model *m = NULL;
	char err[512] = "";
	void *data = NULL;
	size_t size = 0;
	int v;

	if (shape_infer(g)) {
		printf("# shape: %s\n", ir_graph_error(g));
		return NULL;
	}
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < (k ? g->num_outputs : g->num_inputs); i++) {
			struct ir_tensor *t = k ? g->outputs[i] : g->inputs[i];
			struct om_tensor_info info = { .name = t->name,
				.dtype = t->dtype, .layout = t->layout,
				.rank = (uint32_t)t->shape.rank };

			for (int d = 0; d < t->shape.rank; d++)
				info.dims[d] = (uint64_t)t->shape.dim[d];
			om_writer_add_io(w, k ? OM_IO_OUTPUT : OM_IO_INPUT,
					 &info, NULL);
		}
	v = om_writer_add_variant(w, NULL);
	if (lower_graph(g, &lo, w, (uint32_t)v, rep, err, sizeof(err))) {
		printf("# lower: %s\n", err);
	} else {
		if (rep->num_semaphores)
			om_writer_set_semaphores(w, rep->num_semaphores, NULL);
		if (om_writer_serialize(w, &data, &size))
			printf("# serialize: %s\n", om_writer_error(w));
		else if (om_open_memory(data, size, &m, err))
			printf("# read back: %s\n", err);
	}
	free(data);
	om_writer_destroy(w);
	return m;
}

static uint32_t count_opcode(const struct om_model *m, uint32_t stream,
			     uint16_t opcode)
{
	const struct om_program_desc *p = om_get_program(m, 0, stream);
	const struct drm_npu_task *t;
	uint32_t n = 0;

	if (!p)
		return 0;
	t = om_get_tasks(m, p->first_task, p->num_tasks);
	for (uint32_t i = 0; t && i < p->num_tasks; i++)
		n += t[i].opcode == opcode;
	return n;
}

/* x -> Relu -> Reshape -> Add(bias) -> Sigmoid -> y */
static void test_chain(void)
{
	struct ir_graph *g = ir_graph_new("chain");
	static const int64_t d4[] = { 1, 4, 8, 8 }, d2[] = { 1, 256 };
	static const int64_t newshape[] = { 1, 256 }, bd[] = { 256 };
	float bias[256];
	struct ir_shape s1 = ir_shape_make(1, (const int64_t[]){ 2 });
	struct ir_shape sb = ir_shape_make(1, bd);
	struct ir_tensor *x = tensor(g, "x", 4, d4);
	struct ir_tensor *r = tensor(g, "r", 4, d4);
	struct ir_tensor *f = tensor(g, "f", 2, d2);
	struct ir_tensor *a = tensor(g, "a", 2, d2);
	struct ir_tensor *y = tensor(g, "y", 2, d2);
	struct ir_tensor *shp = ir_const_new(g, "shape", IR_I64, &s1, newshape,
					     sizeof(newshape));
	struct ir_tensor *b = NULL;
	struct lower_report rep;
	struct om_model *m;

	for (int i = 0; i < 256; i++)
		bias[i] = (float)i;
	b = ir_const_new(g, "bias", IR_F32, &sb, bias, sizeof(bias));
	ir_graph_add_input(g, x);
	node(g, IR_OP_RELU, "relu", 1, &x, r);
	node(g, IR_OP_RESHAPE, "reshape", 2, (struct ir_tensor *[]){ r, shp }, f);
	node(g, IR_OP_ADD, "add", 2, (struct ir_tensor *[]){ f, b }, a);
	node(g, IR_OP_SIGMOID, "sigmoid", 1, &a, y);
	ir_graph_add_output(g, y);
	m = compile(g, 1, &rep);
	ok(m != NULL, "chain lowers and reads back");
	if (m) {
		const struct om_program_desc *p = om_get_program(m, 0, 0);
		const struct drm_npu_task *t = om_get_tasks(m, p->first_task,
							    p->num_tasks);
		const struct om_task_debug *dbg = om_get_task_debug(m, p->first_task);

		ok(p->num_tasks == 3, "3 tasks: relu, add, sigmoid (reshape is an alias), got %u",
		   p->num_tasks);
		ok(t[0].operands[0].slot == OM_SLOT_IO_BASE &&
		   t[0].operands[1].slot == OM_SLOT_WORKSPACE,
		   "relu reads input slot 2, writes the workspace (slot 1)");
		ok(t[1].operands[0].slot == OM_SLOT_WORKSPACE &&
		   t[1].operands[0].offset == t[0].operands[1].offset &&
		   t[1].operands[1].slot == OM_SLOT_WEIGHTS,
		   "add reads relu's bytes through the reshape alias, bias from weights (slot 0)");
		ok(t[2].operands[t[2].num_operands - 1].slot == OM_SLOT_IO_BASE + 1,
		   "sigmoid writes output slot 3");
		ok(rep.num_views == 1, "one view as alias (got %u)", rep.num_views);
		ok(rep.num_inplace >= 1 && rep.plan.arena == 1024,
		   "add runs in place: workspace %lld bytes for one 1 KiB tensor (in place %u)",
		   (long long)rep.plan.arena, rep.num_inplace);
		ok(dbg && !strcmp(om_string(m, dbg->op), "Relu") &&
		   !strcmp(om_string(m, dbg->node), "relu"),
		   "debug info maps task 0 to op Relu, node relu");
		uint64_t wsize = 0;

		ok(om_get_weights(m, &wsize) && wsize >= 1024,
		   "bias stored in the weights");
		om_close(m);
	}
	ir_graph_free(g);
}

/* An output that aliases an input, and two outputs sharing a tensor. */
static void test_copies(void)
{
	struct ir_graph *g = ir_graph_new("copies");
	static const int64_t d[] = { 2, 8 };
	struct ir_tensor *x = tensor(g, "x", 2, d);
	struct ir_tensor *r = tensor(g, "r", 2, d);
	struct ir_tensor *v = tensor(g, "v", 2, d);
	struct ir_tensor *xi = tensor(g, "xi", 2, d);
	struct lower_report rep;
	struct om_model *m;

	ir_graph_add_input(g, x);
	node(g, IR_OP_RELU, "relu", 1, &x, r);
	node(g, IR_OP_IDENTITY, "id", 1, &r, v);
	node(g, IR_OP_IDENTITY, "id2", 1, &x, xi);
	ir_graph_add_output(g, r);
	ir_graph_add_output(g, v);
	ir_graph_add_output(g, xi);
	m = compile(g, 1, &rep);
	ok(m && rep.num_copies == 2 && count_opcode(m, 0, DRM_NPU_OP_COPY) == 2,
	   "outputs sharing storage with another output or an input get copies (%u)",
	   rep.num_copies);
	if (m)
		om_close(m);
	ir_graph_free(g);
}

/*
 * x -> stem -> {relu -> neg, sigmoid -> abs} -> add: two streams, and
 * exactly two signal/wait pairs (the fork after the stem, the join at add)
 * on one semaphore: the stem runs before the branch, so the join's signal
 * reuses the fork's semaphore with value 2 (streams.h).
 */
static void test_branches(void)
{
	struct ir_graph *g = ir_graph_new("branches");
	static const int64_t d[] = { 4, 64 };
	struct ir_tensor *x0 = tensor(g, "x0", 2, d);
	struct ir_tensor *x = tensor(g, "x", 2, d);
	struct ir_tensor *a1 = tensor(g, "a1", 2, d), *a2 = tensor(g, "a2", 2, d);
	struct ir_tensor *b1 = tensor(g, "b1", 2, d), *b2 = tensor(g, "b2", 2, d);
	struct ir_tensor *y = tensor(g, "y", 2, d);
	struct lower_report rep;
	struct om_model *m;

	ir_graph_add_input(g, x0);
	node(g, IR_OP_TANH, "stem", 1, &x0, x);
	node(g, IR_OP_RELU, "a1", 1, &x, a1);
	node(g, IR_OP_NEG, "a2", 1, &a1, a2);
	node(g, IR_OP_SIGMOID, "b1", 1, &x, b1);
	node(g, IR_OP_ABS, "b2", 1, &b1, b2);
	node(g, IR_OP_ADD, "add", 2, (struct ir_tensor *[]){ a2, b2 }, y);
	ir_graph_add_output(g, y);
	m = compile(g, 4, &rep);
	ok(m && rep.num_streams == 2 && rep.num_sync_pairs == 2 &&
	   rep.num_semaphores == 1,
	   "two branches: %u streams, %u pairs on %u semaphore",
	   rep.num_streams, rep.num_sync_pairs, rep.num_semaphores);
	if (m) {
		ok(count_opcode(m, 0, DRM_NPU_OP_SEM_WAIT) +
		   count_opcode(m, 1, DRM_NPU_OP_SEM_WAIT) == 2 &&
		   count_opcode(m, 0, DRM_NPU_OP_SEM_SIGNAL) +
		   count_opcode(m, 1, DRM_NPU_OP_SEM_SIGNAL) == 2,
		   "one SEM_SIGNAL/SEM_WAIT pair per kept edge");
		ok(om_num_semaphores(m) == 1 &&
		   om_get_semaphore(m, 0)->increment == 2,
		   "the .om declares 1 semaphore advancing by 2 per execution");
		ok(rep.plan.arena >= rep.plan.lower_bound,
		   "cross-stream plan %lld >= lower bound %lld (%u may-overlap pairs)",
		   (long long)rep.plan.arena, (long long)rep.plan.lower_bound,
		   rep.num_may_overlap);
		om_close(m);
	}
	ir_graph_free(g);
}

static void test_symbolic_refused(void)
{
	struct ir_graph *g = ir_graph_new("sym");
	int64_t d[] = { 0, 8 };
	struct ir_tensor *x, *r;
	struct om_writer *w = om_writer_create();
	struct lower_options lo = { .max_streams = 1 };
	struct lower_report rep;
	char err[256] = "";

	d[0] = IR_DIM_SYM(ir_sym_intern(g, "batch"));
	x = tensor(g, "x", 2, d);
	r = tensor(g, "r", 2, d);
	ir_graph_add_input(g, x);
	node(g, IR_OP_RELU, "relu", 1, &x, r);
	ir_graph_add_output(g, r);
	shape_infer(g);
	ok(lower_graph(g, &lo, w, 0, &rep, err, sizeof(err)) < 0 &&
	   strstr(err, "static shape"), "symbolic shapes are refused: %s", err);
	om_writer_destroy(w);
	ir_graph_free(g);
}

/*
 * Issue 22: Neg(Max(x, y, Relu(z))). Max is emitted as two tasks folding
 * into its output; the output may take the storage of x or y but never of
 * Relu's result, which the second task reads after the first has written.
 */
static void test_variadic_inplace(void)
{
	struct ir_graph *g = ir_graph_new("variadic");
	static const int64_t d[] = { 1, 4 };
	struct ir_tensor *x = tensor(g, "x", 2, d);
	struct ir_tensor *y = tensor(g, "y", 2, d);
	struct ir_tensor *z = tensor(g, "z", 2, d);
	struct ir_tensor *rx = tensor(g, "rx", 2, d);
	struct ir_tensor *rz = tensor(g, "rz", 2, d);
	struct ir_tensor *mx = tensor(g, "m", 2, d);
	struct ir_tensor *o = tensor(g, "o", 2, d);
	struct lower_report rep;
	struct om_model *m;

	ir_graph_add_input(g, x);
	ir_graph_add_input(g, y);
	ir_graph_add_input(g, z);
	node(g, IR_OP_RELU, "relu_x", 1, &x, rx);
	node(g, IR_OP_RELU, "relu_z", 1, &z, rz);
	node(g, IR_OP_MAX, "max", 3, (struct ir_tensor *[]){ rx, y, rz }, mx);
	node(g, IR_OP_NEG, "neg", 1, &mx, o);
	ir_graph_add_output(g, o);
	m = compile(g, 1, &rep);
	ok(m != NULL, "variadic Max lowers (the task-level check passes)");
	if (m) {
		const struct om_program_desc *p = om_get_program(m, 0, 0);
		const struct drm_npu_task *t = om_get_tasks(m, p->first_task,
							    p->num_tasks);

		/* relu_x, relu_z, max, max, neg */
		ok(p->num_tasks == 5 && t[3].opcode == DRM_NPU_OP_BINARY &&
		   !(t[3].operands[1].slot == t[2].operands[2].slot &&
		     t[3].operands[1].offset == t[2].operands[2].offset),
		   "the first Max task does not write over Relu(z), which the second reads");
		ok(t && t[2].operands[0].offset == t[2].operands[2].offset &&
		   t[2].operands[0].slot == t[2].operands[2].slot,
		   "Max still writes in place over its first input");
		om_close(m);
	}
	ir_graph_free(g);
}

int main(void)
{
	test_chain();
	test_copies();
	test_branches();
	test_symbolic_refused();
	test_variadic_inplace();
	printf("1..%d\n", test_no);
	return failures ? 1 : 0;
}
