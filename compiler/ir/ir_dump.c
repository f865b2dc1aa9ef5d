// SPDX-License-Identifier: MIT
/*
 * ir_dump.c - text and Graphviz DOT dumps of a graph.
 */
#include <string.h>

#include "ir.h"

static void ir_dump_tensor_type(const struct ir_graph *g,
				const struct ir_tensor *t, FILE *f)
{
	char buf[160];

	fprintf(f, "%s%s", ir_dtype_name(t->dtype),
		t->shape_known ? ir_shape_str(g, &t->shape, buf, sizeof(buf))
			       : "[?]");
	if (t->layout != IR_LAYOUT_ND)
		fprintf(f, " %s", ir_layout_name(t->layout));
}

static void ir_dump_attr(const struct ir_attr *a, FILE *f)
{
	int i;

	fprintf(f, "%s=", a->name);
	switch (a->type) {
	case IR_ATTR_INT:
		fprintf(f, "%lld", (long long)a->i);
		break;
	case IR_ATTR_FLOAT:
		fprintf(f, "%g", a->f);
		break;
	case IR_ATTR_STRING:
		fprintf(f, "\"%s\"", a->s ? a->s : "");
		break;
	case IR_ATTR_INTS:
		fputc('[', f);
		for (i = 0; i < a->n; i++)
			fprintf(f, "%s%lld", i ? "," : "", (long long)a->ints[i]);
		fputc(']', f);
		break;
	case IR_ATTR_FLOATS:
		fputc('[', f);
		for (i = 0; i < a->n; i++)
			fprintf(f, "%s%g", i ? "," : "", a->floats[i]);
		fputc(']', f);
		break;
	case IR_ATTR_TENSOR:
		fprintf(f, "<%s>", a->t ? a->t->name : "null");
		break;
	case IR_ATTR_GRAPH:
		fprintf(f, "<graph %s: %d nodes>", a->graph->name,
			a->graph->num_nodes);
		break;
	}
}

static void ir_dump_node(const struct ir_graph *g, const struct ir_node *n,
			 FILE *f)
{
	int i;

	fprintf(f, "  %s = %s(", n->name, ir_op_name(n->op));
	for (i = 0; i < n->num_inputs; i++)
		fprintf(f, "%s%%%s", i ? ", " : "",
			n->inputs[i] ? n->inputs[i]->name : "<none>");
	fprintf(f, ") -> (");
	for (i = 0; i < n->num_outputs; i++) {
		const struct ir_tensor *t = n->outputs[i];

		fprintf(f, "%s%%%s: ", i ? ", " : "", t ? t->name : "<none>");
		if (t)
			ir_dump_tensor_type(g, t, f);
	}
	fputc(')', f);
	if (n->num_attrs) {
		fprintf(f, " {");
		for (i = 0; i < n->num_attrs; i++) {
			if (i)
				fprintf(f, ", ");
			ir_dump_attr(&n->attrs[i], f);
		}
		fputc('}', f);
	}
	if (n->has_residual)
		fprintf(f, " +residual");
	if (n->act.kind != IR_ACT_NONE)
		fprintf(f, " act=%s(%g,%g)", ir_act_name(n->act.kind),
			n->act.alpha, n->act.beta);
	fputc('\n', f);
}

void ir_dump_text(const struct ir_graph *g, FILE *f)
{
	int i, nconst = 0;
	size_t cbytes = 0;

	fprintf(f, "graph %s (opset %lld, %d nodes, %d tensors)\n", g->name,
		(long long)g->opset, g->num_nodes, g->num_tensors);
	for (i = 0; i < g->num_inputs; i++) {
		fprintf(f, "  input %%%s: ", g->inputs[i]->name);
		ir_dump_tensor_type(g, g->inputs[i], f);
		fputc('\n', f);
	}
	for (i = 0; i < g->num_tensors; i++) {
		const struct ir_tensor *t = g->tensors[i];

		if (!t->data)
			continue;
		nconst++;
		cbytes += t->nbytes;
		fprintf(f, "  const %%%s: ", t->name);
		ir_dump_tensor_type(g, t, f);
		fputc('\n', f);
	}
	fprintf(f, "  # %d constants, %zu bytes\n", nconst, cbytes);
	for (i = 0; i < g->num_nodes; i++)
		ir_dump_node(g, g->nodes[i], f);
	for (i = 0; i < g->num_outputs; i++) {
		fprintf(f, "  output %%%s: ", g->outputs[i]->name);
		ir_dump_tensor_type(g, g->outputs[i], f);
		fputc('\n', f);
	}
}

/* DOT identifiers: quote and escape. */
static void ir_dot_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* An edge labelled with the tensor; @from is a ready DOT identifier. */
static void ir_dot_edge(const struct ir_graph *g, const struct ir_tensor *t,
			const char *from, const struct ir_node *to, FILE *f)
{
	char buf[160], label[400];

	snprintf(label, sizeof(label), "%s %s%s", t->name,
		 ir_dtype_name(t->dtype),
		 ir_shape_str(g, &t->shape, buf, sizeof(buf)));
	fprintf(f, "  %s -> n%d [label=", from, to->id);
	ir_dot_str(f, label);
	fprintf(f, "];\n");
}

void ir_dump_dot(const struct ir_graph *g, FILE *f)
{
	char buf[160];
	int i, j;

	fprintf(f, "digraph ");
	ir_dot_str(f, g->name);
	fprintf(f, " {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", "
		"fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n");
	/* node names are free text: use ids as DOT identifiers */
	for (i = 0; i < g->num_inputs; i++) {
		fprintf(f, "  in%d", g->inputs[i]->id);
		fprintf(f, " [shape=ellipse, style=filled, fillcolor=palegreen, "
			"label=");
		ir_dot_str(f, g->inputs[i]->name);
		fprintf(f, "];\n");
	}
	for (i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];
		char label[400];

		snprintf(label, sizeof(label), "%s\\n%s%s%s", ir_op_name(n->op),
			 n->name, n->act.kind ? "\\n+" : "",
			 n->act.kind ? ir_act_name(n->act.kind) : "");
		fprintf(f, "  n%d [shape=box, style=rounded, label=\"", n->id);
		/* label has intentional \n escapes; escape quotes only */
		for (const char *p = label; *p; p++) {
			if (*p == '"')
				fputc('\\', f);
			fputc(*p, f);
		}
		fprintf(f, "\"];\n");
	}
	for (i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];

		for (j = 0; j < n->num_inputs; j++) {
			const struct ir_tensor *t = n->inputs[j];
			char from[40];

			if (!t)
				continue;
			if (t->producer) {
				snprintf(from, sizeof(from), "n%d",
					 t->producer->id);
				ir_dot_edge(g, t, from, n, f);
			} else if (t->is_input) {
				snprintf(from, sizeof(from), "in%d", t->id);
				ir_dot_edge(g, t, from, n, f);
			}
			/* constants are listed in the node's tooltip only */
		}
	}
	for (i = 0; i < g->num_outputs; i++) {
		const struct ir_tensor *t = g->outputs[i];

		fprintf(f, "  out_%d [shape=ellipse, style=filled, "
			"fillcolor=lightblue, label=", i);
		ir_dot_str(f, t->name);
		fprintf(f, "];\n");
		if (t->producer)
			fprintf(f, "  n%d -> out_%d [label=\"%s\"];\n",
				t->producer->id, i,
				ir_shape_str(g, &t->shape, buf, sizeof(buf)));
	}
	fprintf(f, "}\n");
}
