// SPDX-License-Identifier: MIT
/*
 * test_ir.c - the IR: producers/consumers, topological order, verifier,
 * clone, garbage collection, symbols, text and DOT dumps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_test.h"
#include "shape/shape.h"

static char *dump(const struct ir_graph *g, bool dot)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (dot)
		ir_dump_dot(g, f);
	else
		ir_dump_text(g, f);
	fclose(f);
	return buf;
}

/*
 * The name table behind ir_graph_find_tensor(): many tensors, colliding
 * requested names, renames, output name swaps and gc, checked against
 * the tensor list itself.
 */
static void name_table(void)
{
	struct ir_graph *g = ir_graph_new("names");
	struct ir_tensor *t, *o, *n2;
	struct ir_node *n;
	int i, bad = 0, k = 20000;
	char nm[32];

	for (i = 0; i < k; i++) {
		snprintf(nm, sizeof(nm), "v%d", i % 5000);	/* 4 each */
		t = ir_tensor_new(g, nm, IR_F32, NULL);
		if (!t)
			bad++;
	}
	for (i = 0; i < g->num_tensors; i++)
		if (ir_graph_find_tensor(g, g->tensors[i]->name) !=
		    g->tensors[i])
			bad++;
	ft_ok(!bad && g->num_tensors == k &&
	      ir_graph_find_tensor(g, "v7_3") &&
	      !ir_graph_find_tensor(g, "v7_4"),
	      "20000 tensors, taken names made unique, each found by name");
	for (i = 0; i < k; i += 3)
		ir_tensor_rename(g, g->tensors[i], NULL);
	for (i = 0; i < g->num_tensors; i++)
		if (ir_graph_find_tensor(g, g->tensors[i]->name) !=
		    g->tensors[i])
			bad++;
	ft_ok(!bad, "renamed tensors are found by their new names only");
	/* an output replaced by a node's result keeps the output's name */
	o = g->tensors[1];
	n2 = g->tensors[2];
	ir_graph_add_output(g, o);
	n = ir_node_new(g, IR_OP_RELU, NULL, 1, &g->tensors[4], 1, &n2);
	snprintf(nm, sizeof(nm), "%s", o->name);
	ir_graph_replace_output(g, o, n2);
	ft_ok(n && ir_graph_find_tensor(g, nm) == n2 &&
	      ir_graph_find_tensor(g, o->name) == o,
	      "an output name swap moves both names in the table");
	/* gc drops the unused ones: none of them may be found */
	ir_graph_gc(g);
	for (i = 0; i < g->num_tensors; i++)
		if (ir_graph_find_tensor(g, g->tensors[i]->name) !=
		    g->tensors[i])
			bad++;
	ft_ok(!bad && g->num_tensors == 2 && !ir_graph_find_tensor(g, "v9"),
	      "gc removes the dropped tensors from the table (%d left)",
	      g->num_tensors);
	ir_graph_free(g);
}

int main(void)
{
	struct ir_graph *g = ir_graph_new("t"), *c;
	struct ir_tensor *x, *a, *b, *y, *ins[2];
	struct ir_node *na, *nb, *ny;
	char *t1, *t2;
	int id;

	ft_plan(20);
	x = ft_input(g, "x", ft_shape(2, 3, -1));
	a = ir_tensor_new(g, "a", IR_F32, NULL);
	b = ir_tensor_new(g, "b", IR_F32, NULL);
	y = ir_tensor_new(g, "y", IR_F32, NULL);
	/* nodes appended in reverse order */
	ins[0] = a;
	ins[1] = b;
	ny = ir_node_new(g, IR_OP_ADD, "add", 2, ins, 1, &y);
	nb = ir_node_new(g, IR_OP_TANH, "tanh", 1, &a, 1, &b);
	na = ir_node_new(g, IR_OP_RELU, "relu", 1, &x, 1, &a);
	ir_graph_add_output(g, y);
	ft_ok(a->num_uses == 2 && a->producer == na && b->uses[0].node == ny,
	      "producers and consumers are tracked");
	id = ir_verify(g);
	ft_ok(id != 0 && strstr(ir_graph_error(g), "before its producer"),
	      "verify refuses a graph out of topological order: %s",
	      ir_graph_error(g));
	ft_ok(ir_graph_toposort(g) == 0 && g->nodes[0] == na &&
	      g->nodes[1] == nb && g->nodes[2] == ny,
	      "toposort orders relu, tanh, add");
	ft_ok(ir_verify(g) == 0, "verify accepts it");
	ft_ok(shape_infer(g) == 0 && y->shape.rank == 2 &&
	      y->dtype == IR_F32, "shapes are inferred");

	c = ir_graph_clone(g);
	t1 = dump(g, false);
	t2 = dump(c, false);
	ft_ok(c && t1 && t2 && !strcmp(t1, t2), "a clone dumps identically");
	ft_ok(strstr(t1, "add = Add(%a, %b) -> (%y: f32[2,3])") != NULL,
	      "text dump shows op, operands and typed outputs");
	free(t1);
	free(t2);
	t1 = dump(g, true);
	ft_ok(t1 && !strncmp(t1, "digraph", 7) && strstr(t1, "->") &&
	      t1[strlen(t1) - 2] == '}', "DOT dump is a digraph with edges");
	if (system("command -v dot >/dev/null 2>&1") == 0) {
		FILE *f = popen("dot -Tsvg -o /dev/null", "w");

		fputs(t1, f);
		ft_ok(pclose(f) == 0, "graphviz renders the DOT dump");
	} else {
		ft_skip("graphviz not installed");
	}
	free(t1);

	/* a broken link: an input set behind the API's back */
	c->nodes[2]->inputs[0] = c->inputs[0];
	id = ir_verify(c);
	ft_ok(id != 0, "verify finds an unrecorded use: %s",
	      ir_graph_error(c));
	ir_graph_free(c);

	/* a cycle */
	c = ir_graph_clone(g);
	ir_node_set_input(c->nodes[0], 0, c->nodes[2]->outputs[0]);
	id = ir_graph_toposort(c);
	ft_ok(id != 0 && strstr(ir_graph_error(c), "cycle"),
	      "toposort reports a cycle: %s", ir_graph_error(c));
	ir_graph_free(c);

	/* replacing uses keeps the graph output's name */
	ir_replace_uses(g, y, b);
	ft_ok(g->outputs[0] == b && !strcmp(b->name, "y") && b->is_output,
	      "replace_uses moves the graph output and keeps its name");
	ir_node_remove(g, ny);
	ir_graph_gc(g);
	ft_ok(g->num_nodes == 2 && !ir_graph_find_tensor(g, "b") &&
	      ir_verify(g) == 0, "remove + gc drop the node and its orphan");

	id = ir_sym_intern(g, "batch");
	ft_ok(id >= 0 && ir_sym_intern(g, "batch") == id &&
	      !strcmp(ir_sym_name(g, IR_DIM_SYM(id)), "batch"),
	      "symbols are interned");
	x->shape.dim[0] = IR_DIM_SYM(id);
	ft_ok(!ir_shape_is_static(&x->shape) &&
	      ir_graph_bind_sym(g, "batch", 5) == 0 && x->shape.dim[0] == 5,
	      "binding a symbol makes the shape static");
	ft_ok(ir_op_from_name("Conv") == IR_OP_CONV &&
	      ir_op_from_name("npu.Gelu") == IR_OP_INVALID &&
	      ir_dtype_size(IR_I64) == 8, "op names and dtype sizes");
	ir_graph_free(g);
	name_table();
	return ft_done();
}
