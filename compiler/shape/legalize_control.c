// SPDX-License-Identifier: MIT
/*
 * legalize_control.c - ONNX control flow (If, Loop, Scan) compiled into
 * the graph: the device runs task streams with no branches, so a body
 * becomes nodes of the graph around it (Documentation/compiler-ir.rst,
 * "Control flow").
 *
 *   If    a condition known at compile time keeps its branch; one known
 *         only at run time runs both branches and selects each output
 *         with Where (predication: branches have no side effects, and
 *         each output must have one shape and type in both).
 *   Loop  unrolled: its trip count must be known at compile time (a
 *         constant, or folded from constants). A body that passes its
 *         condition through (or sets a constant true) is unrolled at
 *         once; one that computes it (a while loop) is peeled one step
 *         at a time: the step is inlined and a Loop for the rest reads
 *         the step's condition, which shape inference folds when it
 *         depends on constants only (`while i < n` with i counted in
 *         the loop); a condition the data decides is refused. Scan
 *         outputs are stacked along a new axis 0.
 *   Scan  unrolled over its static sequence length: each step reads a
 *         Gather of every scan input, the outputs are stacked along
 *         their axis in their direction. Opset 8's batch axis runs one
 *         scan per batch row.
 *
 * A body is a subgraph (ir_graph, IR_ATTR_GRAPH) whose values from outer
 * scopes are its captures, the node's inputs after its ONNX ones. Each
 * inlined copy maps the body's formal inputs to this step's values, its
 * captures to those inputs and its constants to new constants; nested
 * control flow is copied with its subgraph and legalized in turn.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

/*
 * Most nodes the control flow of one graph may unroll into, all its
 * loops together (ir_graph.unrolled): nested loops unroll one level at a
 * time, and each unroll restarts shape inference over the whole graph,
 * so an outer loop of inner loops must not multiply past it.
 */
#define CF_MAX_NODES	(1 << 16)

/*
 * A Loop left after peeled steps: the iteration number of its first
 * step, and how many steps' scan values it carries (inputs after its
 * captures, step-major) to stack with its own.
 */
#define CF_ITER_BASE	"npu.iter_base"
#define CF_SCAN_ACC	"npu.scan_acc"
/* No trip count: the condition alone ends the loop. */
#define CF_UNBOUNDED	INT64_MAX

struct cf {
	struct ir_graph *g;
	struct ir_node *n;	/* the If/Loop/Scan being compiled */
	struct lz_builder b;	/* glue nodes: Gather, Unsqueeze, ... */
};

/* Fails with "node 'x' (Op): @msg@detail". */
static int cf_err(struct cf *c, const char *msg, const char *detail)
{
	return ir_error(c->g, "node '%s' (%s): %s%s", c->n->name,
			ir_op_name(c->n->op), msg, detail ? detail : "");
}

/* The copy of @a onto @dst; tensor attributes read the mapped constant. */
static int cf_copy_attr(struct ir_node *dst, const struct ir_attr *a)
{
	return ir_attr_copy(dst, a, a->type == IR_ATTR_TENSOR && a->t ?
			    a->t->priv : NULL);
}

/* A copy of body node @s in the outer graph, named "@tag/<name>". */
static int cf_copy_node(struct cf *c, const struct ir_node *s,
			const char *tag)
{
	char name[600];
	struct ir_node *d;
	int i;

	snprintf(name, sizeof(name), "%s/%s", tag, s->name);
	d = ir_node_new(c->g, s->op, name, s->num_inputs, NULL,
			s->num_outputs, NULL);
	if (!d)
		return -ENOMEM;
	d->opset = s->opset;
	d->act = s->act;
	if (ir_node_add_origins(d, s) || ir_node_add_origins(d, c->n))
		return -ENOMEM;
	for (i = 0; i < s->num_inputs; i++)
		if (s->inputs[i] && ir_node_set_input(d, i, s->inputs[i]->priv))
			return -ENOMEM;
	for (i = 0; i < s->num_outputs; i++) {
		struct ir_tensor *o = s->outputs[i], *t;

		if (!o)
			continue;
		snprintf(name, sizeof(name), "%s/%s", tag, o->name);
		t = ir_tensor_new(c->g, name, IR_DTYPE_INVALID, NULL);
		if (!t || ir_node_set_output(d, i, t))
			return -ENOMEM;
		o->priv = t;
	}
	for (i = 0; i < s->num_attrs; i++)
		if (cf_copy_attr(d, &s->attrs[i]))
			return -ENOMEM;
	return 0;
}

/* Map @sub's constants to copies in the outer graph. */
static int cf_map_consts(struct cf *c, struct ir_graph *sub)
{
	for (int i = 0; i < sub->num_tensors; i++) {
		struct ir_tensor *t = sub->tensors[i], *k;

		if (!t->data || t->producer)
			continue;
		k = ir_const_new(c->g, NULL, t->dtype, &t->shape, t->data,
				 t->nbytes);
		if (!k)
			return -ENOMEM;
		k->int4 = t->int4;
		t->priv = k;
	}
	return 0;
}

/*
 * Inline one copy of @sub: its formal inputs read @in, its captures the
 * node's implicit inputs; @out gets the values of its outputs.
 */
static int cf_inline(struct cf *c, struct ir_graph *sub,
		     struct ir_tensor **in, const char *tag,
		     struct ir_tensor **out)
{
	int i, err;

	for (i = 0; i < sub->num_tensors; i++)
		sub->tensors[i]->priv = NULL;
	for (i = 0; i < sub->num_inputs; i++)
		sub->inputs[i]->priv = in[i];
	for (i = 0; i < sub->num_captures; i++)
		sub->captures[i]->priv = c->n->inputs[sub->capture_base + i];
	err = cf_map_consts(c, sub);
	for (i = 0; !err && i < sub->num_nodes; i++)
		err = cf_copy_node(c, sub->nodes[i], tag);
	for (i = 0; !err && i < sub->num_outputs; i++) {
		out[i] = sub->outputs[i]->priv;
		if (!out[i])
			err = ir_error(c->g, "graph '%s': output '%s' has no "
				       "value", sub->name,
				       sub->outputs[i]->name);
	}
	for (i = 0; i < sub->num_tensors; i++)
		sub->tensors[i]->priv = NULL;
	return err;
}

/* The node leaves the graph; output k becomes Identity(@res[k]). */
static int cf_finish(struct cf *c, struct ir_tensor **res, int count)
{
	struct ir_tensor *outs[64];
	int i;

	for (i = 0; i < count; i++)
		outs[i] = c->n->outputs[i];
	ir_node_remove(c->g, c->n);
	for (i = 0; i < count; i++)
		if (outs[i] && !lz_unary(&c->b, IR_OP_IDENTITY, res[i],
					 outs[i]))
			return -ENOMEM;
	return 1;
}

static struct ir_tensor *cf_scalar_i64(struct cf *c, int64_t v)
{
	struct ir_shape s = { 0 };

	return ir_const_new(c->g, NULL, IR_I64, &s, &v, sizeof(v));
}

static struct ir_tensor *cf_scalar_bool(struct cf *c, bool v)
{
	struct ir_shape s = { 0 };
	uint8_t b = v;

	return ir_const_new(c->g, NULL, IR_BOOL, &s, &b, 1);
}

/* A constant scalar's value (one element of an integer or bool type). */
static int cf_const_scalar(const struct ir_tensor *t, int64_t *v)
{
	if (!t || !t->data || ir_tensor_numel(t) != 1)
		return -1;
	*v = ir_const_get_i(t, 0);
	return 0;
}

/* --- If ------------------------------------------------------------------ */

static int cf_if(struct cf *c)
{
	struct ir_graph *tb = ir_attr_graph(c->n, "then_branch");
	struct ir_graph *eb = ir_attr_graph(c->n, "else_branch");
	struct ir_tensor *cond = c->n->inputs[0], *tv[64], *ev[64];
	int nout = c->n->num_outputs, k;
	char tag[300];
	int64_t v;

	if (!tb || !eb || !cond)
		return cf_err(c, "needs a condition and then_branch and "
			      "else_branch graphs", NULL);
	if (tb->num_inputs || eb->num_inputs || nout > 64 ||
	    tb->num_outputs != nout || eb->num_outputs != nout)
		return ir_error(c->g, "node '%s' (If): %d outputs, but the "
				"branches have %d and %d outputs and %d and "
				"%d inputs (each must have as many outputs "
				"as the node, at most 64, and no inputs)",
				c->n->name, nout, tb->num_outputs,
				eb->num_outputs, tb->num_inputs,
				eb->num_inputs);
	if (ir_tensor_numel(cond) != 1)
		return cf_err(c, "the condition must hold one element", NULL);
	if (!cf_const_scalar(cond, &v)) {
		snprintf(tag, sizeof(tag), "%.250s/%s", c->n->name,
			 v ? "then" : "else");
		if (cf_inline(c, v ? tb : eb, NULL, tag, tv))
			return -EINVAL;
		return cf_finish(c, tv, nout);
	}
	snprintf(tag, sizeof(tag), "%.250s/then", c->n->name);
	if (cf_inline(c, tb, NULL, tag, tv))
		return -EINVAL;
	snprintf(tag, sizeof(tag), "%.250s/else", c->n->name);
	if (cf_inline(c, eb, NULL, tag, ev))
		return -EINVAL;
	for (k = 0; k < nout; k++) {
		tv[k] = lz_where(&c->b, cond, tv[k], ev[k], NULL);
		if (!tv[k] || ir_attr_set_int(tv[k]->producer,
					      IR_ATTR_IF_SELECT, 1))
			return -ENOMEM;
	}
	return cf_finish(c, tv, nout);
}

/* --- stacking the per-step values ---------------------------------------- */

/* @vals[0..count) (one step each) stacked along a new @axis. */
static struct ir_tensor *cf_stack(struct cf *c, struct ir_tensor **vals,
				  int64_t count, int64_t axis, bool reverse)
{
	struct ir_tensor **parts, *ins[2], *r;
	int64_t i;

	parts = calloc((size_t)count, sizeof(*parts));
	if (!parts)
		return NULL;
	ins[1] = lz_i64(c->g, &axis, 1);
	for (i = 0; i < count && ins[1]; i++) {
		ins[0] = vals[reverse ? count - 1 - i : i];
		parts[i] = lz_node(&c->b, IR_OP_UNSQUEEZE, 2, ins,
				   ins[0]->dtype, NULL);
		if (!parts[i])
			break;
	}
	r = NULL;
	if (i == count && ins[1]) {
		r = count == 1 ? parts[0] :
		    lz_node(&c->b, IR_OP_CONCAT, (int)count, parts,
			    parts[0]->dtype, NULL);
		if (r && count > 1 && ir_attr_set_int(r->producer, "axis",
						      axis))
			r = NULL;
	}
	free(parts);
	return r;
}

/* Gather(@x, @idx, axis @axis): one step of a scan input. */
static struct ir_tensor *cf_take(struct cf *c, struct ir_tensor *x,
				 int64_t idx, int64_t axis)
{
	struct ir_tensor *ins[2] = { x, cf_scalar_i64(c, idx) }, *r;

	r = lz_node(&c->b, IR_OP_GATHER, 2, ins, x->dtype, NULL);
	if (r && ir_attr_set_int(r->producer, "axis", axis))
		return NULL;
	return r;
}

/* Is @steps copies of @body within the unrolling bound? */
static int cf_check_size(struct cf *c, const struct ir_graph *body,
			 int64_t steps)
{
	char d[200];
	int64_t per = body->num_nodes + 4, left = CF_MAX_NODES - c->g->unrolled;

	if (steps <= left / per) {
		c->g->unrolled += steps * per;
		return 0;
	}
	if (c->g->unrolled) {
		snprintf(d, sizeof(d), "%lld steps of a %d-node body would "
			 "unroll the graph's loops past %d nodes in all (%lld "
			 "so far): not supported; export with fewer steps",
			 (long long)steps, body->num_nodes, CF_MAX_NODES,
			 (long long)c->g->unrolled);
		return cf_err(c, "", d);
	}
	snprintf(d, sizeof(d), "%lld steps of a %d-node body exceed the "
		 "%d nodes npuc unrolls: not supported; export the loop with "
		 "fewer steps", (long long)steps, body->num_nodes,
		 CF_MAX_NODES);
	return cf_err(c, "", d);
}

/* --- Loop ---------------------------------------------------------------- */

/*
 * Does the body's condition output stay true: the condition passed
 * through, or a constant true (the body's, or one it reads from outside,
 * as torch's exporter writes it)?
 */
static bool cf_cond_stays_true(const struct cf *c, const struct ir_graph *body)
{
	const struct ir_tensor *t = body->outputs[0];
	int64_t v;

	while (t && t->producer && t->producer->op == IR_OP_IDENTITY &&
	       t->producer->num_inputs == 1)
		t = t->producer->inputs[0];	/* NULL: an absent input */
	if (!t)
		return false;
	if (t == body->inputs[1])
		return true;
	for (int i = 0; i < body->num_captures; i++)
		if (body->captures[i] == t)
			t = c->n->inputs[body->capture_base + i];
	return !cf_const_scalar(t, &v) && v;
}

struct cf_steps {
	int64_t count;
	int nv, nk;			/* carried values, scan outputs */
	struct ir_tensor **vals;	/* [count][nk] */
};

static int cf_loop_trip(struct cf *c, int formal, int64_t *trip)
{
	struct ir_tensor *m = formal > 0 ? c->n->inputs[0] : NULL;
	struct ir_tensor *cond = formal > 1 ? c->n->inputs[1] : NULL;
	int64_t v;

	if (!m)
		*trip = CF_UNBOUNDED;
	else if (cf_const_scalar(m, trip))
		return cf_err(c, "a trip count known only at run time is not "
			      "supported: it must be known at compile time "
			      "(a constant, or computed from constants)",
			      NULL);
	if (*trip < 0)
		*trip = 0;
	if (cond && cf_const_scalar(cond, &v))
		return cf_err(c, ir_attr_int(c->n, CF_ITER_BASE, 0) ?
			      "the condition the body computes is known only "
			      "at run time (a while loop whose end the data "
			      "decides): not supported" :
			      "an initial condition known only at run "
			      "time is not supported: it must be known at "
			      "compile time", NULL);
	if (cond && !v)
		*trip = 0;
	return 0;
}

static int cf_loop_run(struct cf *c, struct ir_graph *body,
		       struct ir_tensor **carried, struct cf_steps *st)
{
	struct ir_tensor *in[66], *out[130];
	char tag[300];
	int64_t it;
	int j;

	for (it = 0; it < st->count; it++) {
		in[0] = cf_scalar_i64(c, it);
		in[1] = cf_scalar_bool(c, true);
		if (!in[0] || !in[1])
			return -ENOMEM;
		for (j = 0; j < st->nv; j++)
			in[2 + j] = carried[j];
		snprintf(tag, sizeof(tag), "%.250s/iter%lld", c->n->name,
			 (long long)it);
		if (cf_inline(c, body, in, tag, out))
			return -EINVAL;
		for (j = 0; j < st->nv; j++)
			carried[j] = out[1 + j];
		for (j = 0; j < st->nk; j++)
			st->vals[it * st->nk + j] = out[1 + st->nv + j];
	}
	return 0;
}

/* The Loop for the steps after this one, reading its results. */
static int cf_loop_rest(struct cf *c, struct ir_graph *body,
			const struct cf_steps *st, struct ir_tensor **out,
			int64_t acc)
{
	int64_t base = ir_attr_int(c->n, CF_ITER_BASE, 0);
	int ncap = body->num_captures, cb = body->capture_base, k = 0, i;
	int nin = 2 + st->nv + ncap + (int)(acc + 1) * st->nk;
	struct ir_tensor **ins = calloc((size_t)nin, sizeof(*ins));
	struct ir_tensor *outs[64];
	struct ir_node *r, *old = c->n;
	char name[300];
	int err = -ENOMEM;

	if (!ins)
		return -ENOMEM;
	ins[k++] = st->count == CF_UNBOUNDED ? NULL :
		   cf_scalar_i64(c, st->count - 1);
	ins[k++] = out[0];			/* this step's condition */
	for (i = 0; i < st->nv; i++)
		ins[k++] = out[1 + i];
	for (i = 0; i < ncap; i++)
		ins[k++] = old->inputs[cb + i];
	for (i = 0; i < acc * st->nk; i++)	/* earlier steps' values */
		ins[k++] = old->inputs[cb + ncap + i];
	for (i = 0; i < st->nk; i++)
		ins[k++] = out[1 + st->nv + i];
	for (i = 0; i < old->num_outputs; i++)
		outs[i] = old->outputs[i];
	/* named after the loop the peeling began with */
	snprintf(name, sizeof(name), "%.*s/step%lld",
		 strstr(c->b.base, "/step") ?
		 (int)(strstr(c->b.base, "/step") - c->b.base) : 200,
		 c->b.base, (long long)base);
	r = ir_node_new(c->g, IR_OP_LOOP, name, nin, ins, old->num_outputs,
			NULL);
	if (r) {
		r->opset = old->opset;
		err = ir_node_add_origins(r, old);
		for (i = 0; !err && i < old->num_attrs; i++)
			err = cf_copy_attr(r, &old->attrs[i]);
		if (!err)
			err = ir_attr_set_int(r, CF_ITER_BASE, base + 1) ||
			      ir_attr_set_int(r, CF_SCAN_ACC, acc + 1) ?
			      -ENOMEM : 0;
	}
	free(ins);
	if (err)
		return err;
	ir_node_remove(c->g, old);
	for (i = 0; i < r->num_outputs; i++)
		ir_node_set_output(r, i, outs[i]);
	return 1;
}

/*
 * A while loop: its last step (no step left, or the condition false)
 * gives the carried values and the scan values of the peeled steps;
 * else one step is inlined and a Loop for the rest follows.
 */
static int cf_loop_peel(struct cf *c, struct ir_graph *body,
			struct cf_steps *st)
{
	int64_t base = ir_attr_int(c->n, CF_ITER_BASE, 0);
	int64_t acc = ir_attr_int(c->n, CF_SCAN_ACC, 0);
	int cb = body->capture_base + body->num_captures, j;
	struct ir_tensor *in[66], *out[130], *res[128], **col;
	char tag[300];

	if (acc < 0 || acc > CF_MAX_NODES ||
	    c->n->num_inputs != cb + acc * st->nk)
		return cf_err(c, "a peeled loop's inputs are inconsistent",
			      NULL);
	if (!st->count) {
		if (st->nk && !acc)
			return cf_err(c, "scan outputs of a loop that runs no "
				      "iteration (their element shape is "
				      "unknown) are not supported", NULL);
		for (j = 0; j < st->nv; j++)
			res[j] = c->n->inputs[2 + j];
		col = calloc((size_t)acc + 1, sizeof(*col));
		for (j = 0; col && j < st->nk; j++) {
			for (int64_t s = 0; s < acc; s++)
				col[s] = c->n->inputs[cb + s * st->nk + j];
			res[st->nv + j] = cf_stack(c, col, acc, 0, false);
			if (!res[st->nv + j])
				break;
		}
		free(col);
		if (!col || j < st->nk)
			return -ENOMEM;
		return cf_finish(c, res, st->nv + st->nk);
	}
	if (cf_check_size(c, body, 1))
		return -EINVAL;
	in[0] = cf_scalar_i64(c, base);
	in[1] = cf_scalar_bool(c, true);
	for (j = 0; j < st->nv; j++)
		in[2 + j] = c->n->inputs[2 + j];
	if (!in[0] || !in[1])
		return -ENOMEM;
	snprintf(tag, sizeof(tag), "%.250s/iter%lld", c->b.base,
		 (long long)base);
	if (cf_inline(c, body, in, tag, out))
		return -EINVAL;
	return cf_loop_rest(c, body, st, out, acc);
}

static int cf_loop(struct cf *c)
{
	struct ir_graph *body = ir_attr_graph(c->n, "body");
	int formal = (int)ir_attr_int(c->n, IR_ATTR_FORMAL_INPUTS,
				      c->n->num_inputs);
	struct ir_tensor *res[128];
	struct cf_steps st = { 0 };
	int j, err;

	if (!body)
		return cf_err(c, "needs a body graph", NULL);
	st.nv = formal - 2;
	st.nk = c->n->num_outputs - st.nv;
	if (st.nv < 0 || st.nv > 64 || st.nk < 0 || st.nk > 64 ||
	    body->num_inputs != 2 + st.nv ||
	    body->num_outputs != 1 + st.nv + st.nk)
		return ir_error(c->g, "node '%s' (Loop): %d inputs and %d "
				"outputs, its body %d inputs and %d outputs "
				"(the body takes the iteration, the "
				"condition and each carried value, and "
				"returns the condition, each carried value "
				"and the scan outputs; 64 of each at most)",
				c->n->name, formal, c->n->num_outputs,
				body->num_inputs, body->num_outputs);
	for (j = 0; j < st.nv; j++)
		if (!c->n->inputs[2 + j])
			return cf_err(c, "a loop-carried input is missing",
				      NULL);
	err = cf_loop_trip(c, formal, &st.count);
	if (err)
		return err;
	if (ir_attr_find(c->n, CF_SCAN_ACC) ||
	    (st.count > 1 && !cf_cond_stays_true(c, body)))
		return cf_loop_peel(c, body, &st);
	if (st.count == CF_UNBOUNDED)
		return cf_err(c, "a Loop without a trip count whose condition "
			      "stays true never ends: not supported", NULL);
	if (!st.count && st.nk)
		return cf_err(c, "scan outputs of a loop that runs no "
			      "iteration (their element shape is unknown) are "
			      "not supported", NULL);
	if (cf_check_size(c, body, st.count))
		return -EINVAL;
	st.vals = calloc((size_t)(st.count * st.nk) + 1, sizeof(*st.vals));
	if (!st.vals)
		return -ENOMEM;
	for (j = 0; j < st.nv; j++)
		res[j] = c->n->inputs[2 + j];
	err = cf_loop_run(c, body, res, &st);
	for (j = 0; !err && j < st.nk; j++) {
		struct ir_tensor **col = calloc((size_t)st.count,
						sizeof(*col));

		if (!col) {
			err = -ENOMEM;
			break;
		}
		for (int64_t it = 0; it < st.count; it++)
			col[it] = st.vals[it * st.nk + j];
		res[st.nv + j] = cf_stack(c, col, st.count, 0, false);
		free(col);
		if (!res[st.nv + j])
			err = -ENOMEM;
	}
	free(st.vals);
	return err ? err : cf_finish(c, res, st.nv + st.nk);
}

/* --- Scan ---------------------------------------------------------------- */

struct cf_scan {
	struct ir_graph *body;
	int ns, nx, nk;			/* states, scan inputs, scan outputs */
	int64_t len;
	const int64_t *in_axes, *in_dirs, *out_axes, *out_dirs;
	int n_in_axes, n_in_dirs, n_out_axes, n_out_dirs;
};

static int64_t cf_attr_at(const int64_t *v, int n, int i)
{
	return i < n ? v[i] : 0;
}

/*
 * One scan over @x (the scan inputs, their axes already normalised in
 * @axes) from @states: @states gets the final states, @ys the stacked
 * scan outputs.
 */
static int cf_scan_run(struct cf *c, const struct cf_scan *sc,
		       struct ir_tensor **states, struct ir_tensor **x,
		       const int64_t *axes, const char *tag,
		       struct ir_tensor **ys)
{
	struct ir_tensor *in[128], *out[128], **vals;
	char name[400];
	int64_t t;
	int j, err = 0;

	vals = calloc((size_t)(sc->len * sc->nk) + 1, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (t = 0; t < sc->len && !err; t++) {
		for (j = 0; j < sc->ns; j++)
			in[j] = states[j];
		for (j = 0; j < sc->nx; j++) {
			int64_t pos = cf_attr_at(sc->in_dirs, sc->n_in_dirs,
						 j) ? sc->len - 1 - t : t;

			in[sc->ns + j] = cf_take(c, x[j], pos, axes[j]);
			if (!in[sc->ns + j])
				err = -ENOMEM;
		}
		snprintf(name, sizeof(name), "%.300s/step%lld", tag,
			 (long long)t);
		if (!err && cf_inline(c, sc->body, in, name, out))
			err = -EINVAL;
		for (j = 0; !err && j < sc->ns; j++)
			states[j] = out[j];
		for (j = 0; !err && j < sc->nk; j++)
			vals[j * sc->len + t] = out[sc->ns + j];
	}
	for (j = 0; !err && j < sc->nk; j++) {
		ys[j] = cf_stack(c, vals + j * sc->len, sc->len,
				 cf_attr_at(sc->out_axes, sc->n_out_axes, j),
				 cf_attr_at(sc->out_dirs, sc->n_out_dirs, j));
		if (!ys[j])
			err = -ENOMEM;
	}
	free(vals);
	return err;
}

/* The scan inputs' common length along their (normalised) axes. */
static int cf_scan_len(struct cf *c, struct cf_scan *sc,
		       struct ir_tensor **x, int64_t *axes, int skip)
{
	sc->len = -1;
	for (int j = 0; j < sc->nx; j++) {
		const struct ir_shape *s = &x[j]->shape;
		int64_t a = axes[j];

		if (a < 0)
			a += s->rank - skip;
		if (a < 0 || a >= s->rank - skip)
			return cf_err(c, "a scan input axis is out of range",
				      NULL);
		axes[j] = a;
		if (IR_DIM_IS_SYM(s->dim[a + skip]))
			return cf_err(c, "a symbolic sequence length is not "
				      "supported (it must be static)", NULL);
		if (sc->len >= 0 && s->dim[a + skip] != sc->len)
			return cf_err(c, "the scan inputs differ in length",
				      NULL);
		sc->len = s->dim[a + skip];
	}
	if (sc->len == 0 && sc->nk)
		return cf_err(c, "scan outputs of an empty sequence (their "
			      "element shape is unknown) are not supported",
			      NULL);
	return cf_check_size(c, sc->body, sc->len) ? -EINVAL : 0;
}

/* Opset 8: batch axis 0 everywhere, one scan per batch row. */
static int cf_scan8(struct cf *c, struct cf_scan *sc, struct ir_tensor **in,
		    struct ir_tensor **res)
{
	struct ir_tensor *st[64], *xs[64], *ys[64], **col;
	int64_t axes[64], b, batch;
	char tag[300];
	int j, err = 0;

	if (c->n->inputs[0])
		return cf_err(c, "sequence_lens is not supported (every "
			      "sequence must run the full length)", NULL);
	for (j = 1; j < 1 + sc->ns + sc->nx; j++)
		if (in[j]->shape.rank < 1)
			return cf_err(c, "opset 8 scans need a batch axis on "
				      "every state and scan input", NULL);
	batch = in[1]->shape.dim[0];
	for (j = 0; j < sc->nx; j++)
		axes[j] = 0;
	if (batch < 1 || IR_DIM_IS_SYM(batch))
		return cf_err(c, "needs a static batch of one or more", NULL);
	/* one scan per batch row: the budget pays for all of them */
	if (cf_scan_len(c, sc, in + 1 + sc->ns, axes, 1) ||
	    (batch > 1 && cf_check_size(c, sc->body, (batch - 1) * sc->len)))
		return -EINVAL;
	col = calloc((size_t)(batch * (sc->ns + sc->nk)) + 1, sizeof(*col));
	if (!col)
		return -ENOMEM;
	for (b = 0; b < batch && !err; b++) {
		for (j = 0; j < sc->ns && !err; j++)
			if (!(st[j] = cf_take(c, in[1 + j], b, 0)))
				err = -ENOMEM;
		for (j = 0; j < sc->nx && !err; j++)
			if (!(xs[j] = cf_take(c, in[1 + sc->ns + j], b, 0)))
				err = -ENOMEM;
		snprintf(tag, sizeof(tag), "%.250s/batch%lld", c->n->name,
			 (long long)b);
		if (!err)
			err = cf_scan_run(c, sc, st, xs, axes, tag, ys);
		for (j = 0; !err && j < sc->ns; j++)
			col[j * batch + b] = st[j];
		for (j = 0; !err && j < sc->nk; j++)
			col[(sc->ns + j) * batch + b] = ys[j];
	}
	for (j = 0; !err && j < sc->ns + sc->nk; j++)
		if (!(res[j] = cf_stack(c, col + j * batch, batch, 0, false)))
			err = -ENOMEM;
	free(col);
	return err;
}

static int cf_scan(struct cf *c)
{
	struct ir_graph *body = ir_attr_graph(c->n, "body");
	int formal = (int)ir_attr_int(c->n, IR_ATTR_FORMAL_INPUTS,
				      c->n->num_inputs);
	int64_t nx = ir_attr_int(c->n, "num_scan_inputs", -1);
	bool v8 = c->n->opset < 9;
	struct ir_tensor *res[128], **in = c->n->inputs;
	struct cf_scan sc = { .body = body };
	int64_t axes[64];
	int j, err;

	if (!body)
		return cf_err(c, "needs a body graph", NULL);
	sc.ns = (int)(formal - v8 - (nx > 0 ? nx : 0));
	sc.nx = (int)nx;
	sc.nk = c->n->num_outputs - sc.ns;
	if (nx < 1 || nx > 64 || sc.ns < 0 || sc.ns > 64 || sc.nk < 0 ||
	    sc.nk > 64 || body->num_inputs != sc.ns + sc.nx ||
	    body->num_outputs != sc.ns + sc.nk)
		return ir_error(c->g, "node '%s' (Scan): %d inputs (%lld "
				"scanned), %d outputs, its body %d inputs "
				"and %d outputs (the body takes each state "
				"and one step of each scan input, and "
				"returns each state and each scan output; "
				"64 of each at most)", c->n->name, formal,
				(long long)nx, c->n->num_outputs,
				body->num_inputs, body->num_outputs);
	for (j = v8; j < formal; j++)
		if (!in[j])
			return cf_err(c, "a state or scan input is missing",
				      NULL);
	sc.n_in_axes = ir_attr_ints(c->n, "scan_input_axes", &sc.in_axes);
	sc.n_in_dirs = ir_attr_ints(c->n, v8 ? "directions" :
				    "scan_input_directions", &sc.in_dirs);
	sc.n_out_axes = ir_attr_ints(c->n, "scan_output_axes", &sc.out_axes);
	sc.n_out_dirs = ir_attr_ints(c->n, "scan_output_directions",
				     &sc.out_dirs);
	if (v8)
		err = cf_scan8(c, &sc, in, res);
	else {
		for (j = 0; j < sc.nx; j++)
			axes[j] = cf_attr_at(sc.in_axes, sc.n_in_axes, j);
		err = cf_scan_len(c, &sc, in + sc.ns, axes, 0);
		for (j = 0; !err && j < sc.ns; j++)
			res[j] = in[j];
		if (!err)
			err = cf_scan_run(c, &sc, res, in + sc.ns, axes,
					  c->n->name, res + sc.ns);
	}
	return err ? err : cf_finish(c, res, sc.ns + sc.nk);
}

int shape_legalize_control(struct ir_graph *g, struct ir_node *n)
{
	struct cf c = { .g = g, .n = n };
	int formal = (int)ir_attr_int(n, IR_ATTR_FORMAL_INPUTS, n->num_inputs);

	c.b.g = g;
	snprintf(c.b.base, sizeof(c.b.base), "%.250s", n->name);
	if (n->num_outputs > 64 || formal > n->num_inputs || formal > 130)
		return ir_error(g, "node '%s' (%s): %d inputs, %d outputs "
				"(64 outputs at most)", n->name,
				ir_op_name(n->op), formal, n->num_outputs);
	for (int i = 0; i < n->num_outputs; i++)
		if (!n->outputs[i])
			return cf_err(&c, "every output must be named", NULL);
	switch (n->op) {
	case IR_OP_IF: return cf_if(&c);
	case IR_OP_LOOP: return cf_loop(&c);
	case IR_OP_SCAN: return cf_scan(&c);
	default: return 0;
	}
}
