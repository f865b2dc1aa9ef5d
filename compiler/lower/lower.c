// SPDX-License-Identifier: MIT
/*
 * lower.c - IR graph -> per-stream programs of one .om variant
 * (see lower.h for the steps).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "lower/lower.h"
#include "memplan/memplan.h"
#include "ops/npu_ops.h"
#include "streams/streams.h"
#include "om/om.h"
#include "plugin/plugin_ir.h"
#include "shape/shape.h"

#define WORKSPACE_ALIGN	64

enum root_kind { R_WORK, R_CONST, R_INPUT, R_OUTPUT };

/* Per tensor (t->priv during lowering). */
struct tinfo {
	struct ir_tensor *t;
	struct tinfo *root;
	enum root_kind kind;
	uint16_t slot;
	bool weight_added;
	uint64_t offset;
	int last_read;		/* last unit reading this tensor */
	int root_last;		/* roots: last unit accessing any alias */
	int first;		/* roots: unit that first writes it */
	int writer;		/* unit whose task computed the data, -1 none */
	int buf;		/* roots of kind R_WORK: memplan buffer */
	int out_index;		/* roots bound to a graph output */
	void *host_data;	/* a host op's output, evaluated here */
	uint64_t bytes;		/* roots of kind R_WORK: planned size */
};

/* A unit is a graph node that emits tasks, or an output copy. */
struct unit {
	const struct ir_node *node;	/* NULL for a copy */
	struct tinfo *copy_src, *copy_dst;
	int node_index;
	uint32_t first_task, last_task;	/* local to its stream's program */
	bool has_tasks;			/* it emitted at least one */
};

struct lower {
	struct ir_graph *g;
	const struct lower_options *opt;
	struct om_writer *w;
	uint32_t variant;
	struct lower_report *rep;
	char *err;
	size_t errlen;
	struct tinfo *ti;
	struct unit *units;
	int num_units;
	int *unit_of_node;
	struct tinfo **work;		/* workspace roots */
	int num_work;
	int64_t *offsets;
	/* operand -> value records of the tasks emitted, for the checker */
	struct program *cur;		/* program being appended to */
	uint32_t cur_stream;
	struct opval *ov;
	size_t num_ov, cap_ov;
	bool ov_failed;			/* an allocation failed in note() */
	/* host tasks, in unit order; their semaphores follow the streams' */
	struct host_rec *hosts;
	uint32_t num_hosts;
	uint32_t first_host_sem;
};

/* A host task waiting for its program's base index (emit_programs()). */
struct host_rec {
	struct om_host_task_info info;
	uint32_t local_task;		/* its SEM_SIGNAL in its program */
	struct om_host_operand ops[2 * NPUC_PLUGIN_MAX_IO];
	char *attrs;
};

/* Operand @k of task @task of stream @stream holds value @value. */
struct opval {
	uint32_t stream, task, value;
	uint8_t k;
	/* a host task's access (k == OV_HOST): no operand to read it from */
	bool write;
	uint16_t slot;
	uint64_t begin, end;
};

#define OV_HOST	0xff

static struct tinfo *info(const struct ir_tensor *t)
{
	return t ? (struct tinfo *)t->priv : NULL;
}

static bool is_elementwise(enum ir_op op)
{
	switch (op) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
	case IR_OP_POW: case IR_OP_MAX: case IR_OP_MIN: case IR_OP_PRELU:
	case IR_OP_RELU: case IR_OP_SIGMOID: case IR_OP_TANH: case IR_OP_EXP:
	case IR_OP_SQRT: case IR_OP_CLIP: case IR_OP_LEAKY_RELU:
	case IR_OP_HARD_SIGMOID: case IR_OP_HARD_SWISH: case IR_OP_ERF:
	case IR_OP_NEG: case IR_OP_ABS: case IR_OP_LOG: case IR_OP_RECIPROCAL:
	case IR_OP_ELU: case IR_OP_SOFTPLUS: case IR_OP_FLOOR: case IR_OP_CEIL:
	case IR_OP_ACTIVATION: case IR_OP_GELU:
		return true;
	default:
		return false;
	}
}

/* Record a message (printf-style) and return @ret. */
static int fail(struct lower *l, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct lower *l, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->err, l->errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * Host ops (Shape, ConstantOfShape, Range, ...) have no device kernel. The
 * passes fold them; when they did not run (-O0), shapes are static here and
 * the op is evaluated now, its output becoming a constant in the weights.
 */
static int eval_host_op(struct lower *l, const struct ir_node *n)
{
	const void *in[8] = { NULL };
	struct tinfo *o = info(n->outputs[0]);
	size_t bytes = emit_tensor_bytes(n->outputs[0]);
	int ret;

	for (int k = 0; k < n->num_inputs && k < 8; k++) {
		const struct tinfo *x = info(n->inputs[k]);

		if (!x)
			continue;
		if (n->op == IR_OP_RANGE && !ir_tensor_is_const(x->t))
			return fail(l, -ENOTSUP,
				    "node '%s' (%s) has inputs computed at run time; the device has no kernel for it",
				    n->name ? n->name : "?", ir_op_name(n->op));
		if (!x->host_data && ir_tensor_own(x->t))
			return fail(l, -ENOMEM, "out of memory evaluating '%s'",
				    n->name ? n->name : "?");
		in[k] = x->host_data ? x->host_data : x->t->data;
	}
	o->host_data = calloc(1, bytes + 1);
	if (!o->host_data)
		return fail(l, -ENOMEM, "out of memory evaluating '%s'",
			    n->name ? n->name : "?");
	ret = emit_host_eval(l->g, n, in, o->host_data);
	if (ret)
		return fail(l, ret, "node '%s' (%s) cannot be evaluated at compile time",
			    n->name ? n->name : "?", ir_op_name(n->op));
	o->kind = R_CONST;
	o->root_last = -1;
	return 0;
}

/*
 * In place, the rule: an output may take an input's storage only if no task
 * of the node reads that input after the first task that writes the output
 * (later nodes are excluded by the caller: the input's last reader is this
 * node), and that first write reads it, if at all, as the very same view
 * of an op that computes in place. Which inputs qualify depends on how the
 * node is emitted (a variadic Max folds pairwise into its output and reads
 * its third input after the first write; a residual Add reads its addend
 * last), so the node is emitted once with each tensor in a slot of its own
 * and the tasks are inspected. Returns a mask of qualifying inputs.
 */
#define PROBE_OUT_SLOT	0xfff0

static int probe_place(void *ctx, const struct ir_tensor *t,
		       struct emit_place *out)
{
	const struct ir_node *n = ctx;

	out->offset = 0;
	out->slot = PROBE_OUT_SLOT + 1;	/* neither an input nor output 0 */
	if (t == n->outputs[0]) {
		out->slot = PROBE_OUT_SLOT;
		return 0;
	}
	for (int k = 0; k < n->num_inputs && k < 64; k++)
		if (n->inputs[k] == t) {
			out->slot = (uint16_t)k;
			break;
		}
	return 0;
}

static uint64_t inplace_inputs(struct lower *l, const struct ir_node *n)
{
	struct emit_target tgt = { probe_place, (void *)n, NULL };
	struct emit_tasks tl = { 0 };
	uint64_t ok = 0, bad = 0;
	size_t first = SIZE_MAX;

	if (emit_node(l->g, n, &tgt, &tl)) {
		emit_tasks_free(&tl);
		return 0;
	}
	for (size_t i = 0; i < tl.count && first == SIZE_MAX; i++) {
		int o = emit_task_output(&tl.tasks[i]);

		if (o >= 0 && tl.tasks[i].operands[o].slot == PROBE_OUT_SLOT)
			first = i;
	}
	for (size_t i = 0; i < tl.count && i <= first; i++) {
		const struct drm_npu_task *t = &tl.tasks[i];
		int o = emit_task_output(t);

		for (int k = 0; k < t->num_operands; k++) {
			uint16_t s = t->operands[k].slot;

			if (k == o || s >= 64)
				continue;
			if (i < first)
				continue;	/* read before the output is */
			if (emit_task_inplace_ok(t) &&
			    emit_same_view(&t->operands[k], &t->operands[o]))
				ok |= 1ull << s;
			else
				bad |= 1ull << s;
		}
	}
	/* read after the first write of the output: never in place */
	for (size_t i = first == SIZE_MAX ? tl.count : first + 1;
	     i < tl.count; i++) {
		const struct drm_npu_task *t = &tl.tasks[i];
		int o = emit_task_output(t);

		for (int k = 0; k < t->num_operands; k++)
			if (k != o && t->operands[k].slot < 64)
				bad |= 1ull << t->operands[k].slot;
	}
	emit_tasks_free(&tl);
	return ok & ~bad;
}

/* Step 1: roots of every tensor, views as aliases, in-place writes. */
static int assign_storage(struct lower *l)
{
	struct ir_graph *g = l->g;

	for (int i = 0; i < g->num_tensors; i++) {
		struct tinfo *x = &l->ti[i];

		x->t = g->tensors[i];
		x->root = x;
		x->kind = ir_tensor_is_const(x->t) ? R_CONST : R_WORK;
		x->last_read = -1;
		x->writer = -1;
		x->buf = -1;
		x->out_index = -1;
		x->first = INT_MAX;
		g->tensors[i]->priv = x;
	}
	for (int i = 0; i < g->num_inputs; i++) {
		info(g->inputs[i])->kind = R_INPUT;
		info(g->inputs[i])->slot = (uint16_t)(OM_SLOT_IO_BASE + i);
	}
	/* Units and last reads (by unit index, views count for their node). */
	for (int i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];

		l->unit_of_node[i] = l->num_units;
		if (emit_is_host_op(n->op)) {
			int ret = eval_host_op(l, n);

			if (ret)
				return ret;
			continue;
		}
		if (!emit_view_source(n)) {
			l->units[l->num_units].node = n;
			l->units[l->num_units].node_index = i;
			l->num_units++;
		}
		for (int k = 0; k < n->num_inputs; k++) {
			struct tinfo *x = info(n->inputs[k]);

			if (x)
				x->last_read = l->unit_of_node[i];
		}
	}
	for (int j = 0; j < g->num_outputs; j++) {
		info(g->outputs[j])->last_read = INT_MAX;
		/* the runtime reads a count after the program: keep it */
		if (g->outputs[j]->count)
			info(g->outputs[j]->count)->last_read = INT_MAX;
	}
	for (int i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];
		const struct ir_tensor *src = emit_view_source(n);
		int u = l->unit_of_node[i];

		if (emit_is_host_op(n->op))
			continue;	/* evaluated above: a constant */
		if (src) {
			struct tinfo *o = info(n->outputs[0]);
			struct tinfo *r = info(src)->root;

			l->rep->num_views++;
			o->root = r;
			o->writer = info(src)->writer;
			if (o->last_read > r->root_last)
				r->root_last = o->last_read;
			continue;
		}
		for (int k = 0; k < n->num_outputs; k++) {
			struct tinfo *o = info(n->outputs[k]);

			if (!o)
				continue;
			o->writer = u;
			o->first = u;
			o->root_last = o->last_read > u ? o->last_read : u;
		}
		if (!l->opt->inplace || !is_elementwise(n->op) ||
		    n->num_outputs != 1 || n->outputs[0]->is_output)
			continue;
		uint64_t may = inplace_inputs(l, n);

		for (int k = 0; k < n->num_inputs && k < 64; k++) {
			const struct ir_tensor *in = n->inputs[k];
			const struct ir_tensor *out = n->outputs[0];
			struct tinfo *r = in ? info(in)->root : NULL;

			if (!r || r->kind != R_WORK || r->root_last != u ||
			    !(may >> k & 1) ||
			    in->dtype != out->dtype ||
			    in->layout != out->layout ||
			    !ir_shape_equal(&in->shape, &out->shape) ||
			    emit_tensor_bytes(in) != emit_tensor_bytes(out))
				continue;
			info(out)->root = r;
			r->root_last = info(out)->root_last;
			l->rep->num_inplace++;
			break;
		}
	}
	/* Outputs: their root becomes the output buffer, or a copy goes. */
	for (int j = 0; j < g->num_outputs; j++) {
		struct tinfo *o = info(g->outputs[j]);
		struct tinfo *r = o->root;

		if (r->kind == R_WORK && r->out_index < 0) {
			r->kind = R_OUTPUT;
			r->out_index = j;
			r->slot = (uint16_t)(OM_SLOT_IO_BASE + g->num_inputs + j);
			continue;
		}
		/* A copy into a buffer of its own for this output. */
		struct tinfo *dst = &l->ti[g->num_tensors + j];
		struct unit *cu = &l->units[l->num_units];

		memset(dst, 0, sizeof(*dst));
		dst->t = g->outputs[j];
		dst->root = dst;
		dst->kind = R_OUTPUT;
		dst->out_index = j;
		dst->slot = (uint16_t)(OM_SLOT_IO_BASE + g->num_inputs + j);
		dst->buf = -1;
		cu->copy_src = o;
		cu->copy_dst = dst;
		cu->node_index = -1;
		r->root_last = INT_MAX;
		l->num_units++;
		l->rep->num_copies++;
	}
	return 0;
}

static bool unit_reads_root(const struct lower *l, int u,
			    const struct tinfo *r)
{
	const struct unit *un = &l->units[u];

	if (!un->node)
		return un->copy_src->root == r;
	for (int k = 0; k < un->node->num_inputs; k++) {
		const struct tinfo *x = info(un->node->inputs[k]);

		if (x && x->root == r)
			return true;
	}
	return false;
}

static bool unit_writes_root(const struct lower *l, int u,
			     const struct tinfo *r)
{
	const struct unit *un = &l->units[u];

	if (!un->node)
		return un->copy_dst == r;
	for (int k = 0; k < un->node->num_outputs; k++) {
		const struct tinfo *x = info(un->node->outputs[k]);

		if (x && x->root == r)
			return true;
	}
	return false;
}

struct edges {
	struct st_edge *e;
	size_t n, cap;
};

static int add_edge(struct edges *es, int from, int to)
{
	if (from < 0 || from >= to)
		return 0;
	if (es->n == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 256;
		void *p = realloc(es->e, cap * sizeof(*es->e));

		if (!p)
			return -ENOMEM;
		es->e = p;
		es->cap = cap;
	}
	es->e[es->n].from = (uint32_t)from;
	es->e[es->n].to = (uint32_t)to;
	es->n++;
	return 0;
}

/*
 * The units that read or write each root, in unit order (one entry per
 * unit and root): built once, so an in-place write finds the units it
 * must wait for without a scan over all earlier units.
 */
struct root_users {
	int *head;	/* per root (tinfo index): first entry, -1 none */
	int *tail;
	int *next;	/* per entry */
	int *unit;
	int n, cap;
};

static int ru_add(struct root_users *ru, int root, int u)
{
	if (ru->tail[root] >= 0 && ru->unit[ru->tail[root]] == u)
		return 0;	/* reads and writes it: once */
	if (ru->n == ru->cap) {
		int cap = ru->cap ? 2 * ru->cap : 256;
		int *a = realloc(ru->next, (size_t)cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		ru->next = a;
		a = realloc(ru->unit, (size_t)cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		ru->unit = a;
		ru->cap = cap;
	}
	ru->unit[ru->n] = u;
	ru->next[ru->n] = -1;
	if (ru->tail[root] >= 0)
		ru->next[ru->tail[root]] = ru->n;
	else
		ru->head[root] = ru->n;
	ru->tail[root] = ru->n++;
	return 0;
}

static int ru_build(const struct lower *l, struct root_users *ru)
{
	size_t nti = (size_t)l->g->num_tensors + l->g->num_outputs + 1;
	int ret = 0;

	memset(ru, 0, sizeof(*ru));
	ru->head = malloc(nti * sizeof(*ru->head));
	ru->tail = malloc(nti * sizeof(*ru->tail));
	if (!ru->head || !ru->tail)
		return -ENOMEM;
	memset(ru->head, 0xff, nti * sizeof(*ru->head));
	memset(ru->tail, 0xff, nti * sizeof(*ru->tail));
	for (int u = 0; u < l->num_units && !ret; u++) {
		const struct unit *un = &l->units[u];

		if (!un->node) {
			ret = ru_add(ru, (int)(un->copy_src->root - l->ti), u);
			if (!ret)
				ret = ru_add(ru, (int)(un->copy_dst->root - l->ti),
					     u);
			continue;
		}
		for (int k = 0; k < un->node->num_inputs && !ret; k++) {
			const struct tinfo *x = info(un->node->inputs[k]);

			if (x)
				ret = ru_add(ru, (int)(x->root - l->ti), u);
		}
		for (int k = 0; k < un->node->num_outputs && !ret; k++) {
			const struct tinfo *x = info(un->node->outputs[k]);

			if (x)
				ret = ru_add(ru, (int)(x->root - l->ti), u);
		}
	}
	return ret;
}

static void ru_free(struct root_users *ru)
{
	free(ru->head);
	free(ru->tail);
	free(ru->next);
	free(ru->unit);
}

/*
 * Multiply-adds of a Conv, MatMul or Gemm, float or int8 (the output's
 * elements times the weights per output element), 0 for other nodes: an
 * estimate, to tell a task that keeps every core busy from a small one.
 */
static uint64_t node_macs(const struct ir_node *n)
{
	const struct ir_tensor *o = n->num_outputs ? n->outputs[0] : NULL;
	const struct ir_tensor *w = n->num_inputs > 1 ? n->inputs[1] : NULL;
	uint64_t out, wn, per;

	if (!o || !w || !o->shape.rank || !w->shape.rank)
		return 0;
	out = (uint64_t)ir_shape_numel(&o->shape);
	wn = (uint64_t)ir_shape_numel(&w->shape);
	switch (n->op) {
	case IR_OP_CONV:	/* [O, C/g, KH, KW]: per output, wn / O */
	case IR_OP_QCONV:
		per = w->shape.dim[0] > 0 ? wn / (uint64_t)w->shape.dim[0] : 0;
		break;
	case IR_OP_MATMUL:
	case IR_OP_QMATMUL:
	case IR_OP_GEMM:	/* B holds K x N: per output, wn / N */
		per = o->shape.dim[o->shape.rank - 1] > 0 ?
		      wn / (uint64_t)o->shape.dim[o->shape.rank - 1] : 0;
		break;
	default:
		return 0;
	}
	return per && out > UINT64_MAX / per ? UINT64_MAX : out * per;
}

/* Step 2: the dependency DAG of the units and the stream assignment. */
static int assign_streams(struct lower *l, struct st_result *st)
{
	struct edges es = { 0 };
	struct root_users ru;
	struct st_options so = {
		.max_streams = l->opt->max_streams ? l->opt->max_streams : 1,
		.max_semaphores = l->opt->max_semaphores,
		.sems_per_stream = l->opt->sems_per_stream,
		.sems_fixed = l->opt->sems_fixed,
	};
	uint8_t *fills = calloc((size_t)l->num_units + 1, 1);
	int ret;

	if (!fills) {
		snprintf(l->err, l->errlen, "out of memory assigning streams");
		return -ENOMEM;
	}
	for (int u = 0; u < l->num_units; u++)
		fills[u] = l->opt->fill_macs && l->units[u].node &&
			   node_macs(l->units[u].node) >= l->opt->fill_macs;
	so.fills = fills;
	ret = ru_build(l, &ru);
	for (int u = 0; u < l->num_units && !ret; u++) {
		const struct unit *un = &l->units[u];

		if (!un->node) {
			ret = add_edge(&es, un->copy_src->writer, u);
			continue;
		}
		for (int k = 0; k < un->node->num_inputs && !ret; k++) {
			const struct tinfo *x = info(un->node->inputs[k]);

			if (x)
				ret = add_edge(&es, x->writer, u);
		}
		/* Write after read: an in-place write waits for the readers. */
		for (int k = 0; k < un->node->num_outputs && !ret; k++) {
			const struct tinfo *o = info(un->node->outputs[k]);

			if (!o || o->root == o)
				continue;
			for (int e = ru.head[o->root - l->ti];
			     e >= 0 && ru.unit[e] < u && !ret; e = ru.next[e])
				ret = add_edge(&es, ru.unit[e], u);
		}
	}
	ru_free(&ru);
	if (!ret)
		ret = st_assign((size_t)l->num_units, es.e, es.n, &so, st,
				l->err, l->errlen);
	free(es.e);
	free(fills);
	return ret;
}

/* Step 3: plan the workspace. */
static int plan_memory(struct lower *l, const struct st_result *st)
{
	struct ir_graph *g = l->g;
	struct mp_buffer *b;
	uint32_t (*pairs)[2] = NULL;
	size_t np = 0, cap = 0;
	struct mp_options mo = { .planners = l->opt->planners,
				 .budget_ms = l->opt->plan_budget_ms };
	int ret = -ENOMEM;

	l->work = calloc((size_t)g->num_tensors + 1, sizeof(*l->work));
	b = calloc((size_t)g->num_tensors + 1, sizeof(*b));
	if (!l->work || !b)
		goto out;
	for (int i = 0; i < g->num_tensors; i++) {
		struct tinfo *x = &l->ti[i];
		struct tinfo *r = x->root;
		size_t bytes;
		int last;

		if (r->kind != R_WORK || !x->t->shape_known)
			continue;
		if (r->buf < 0) {
			if (r->first == INT_MAX)
				continue;	/* never written: dead */
			r->buf = l->num_work;
			l->work[l->num_work] = r;
			b[l->num_work].lower = r->first;
			/* Output copies are the last units: clamp there. */
			last = r->root_last < l->num_units ? r->root_last :
			       l->num_units - 1;
			b[l->num_work].upper = (last > r->first ? last :
						r->first) + 1;
			b[l->num_work].align = WORKSPACE_ALIGN;
			l->num_work++;
		}
		bytes = emit_tensor_bytes(x->t);
		if ((int64_t)bytes > b[r->buf].size)
			b[r->buf].size = (int64_t)bytes;
	}
	/* Cross-stream: disjoint in node order but not ordered by semaphores. */
	for (int a = 0; a < l->num_work && st->num_streams > 1; a++) {
		for (int c = 0; c < l->num_work; c++) {
			bool ordered = true;

			if (b[a].upper > b[c].lower)
				continue;
			for (int u = (int)b[a].lower; u < b[a].upper && ordered; u++)
				if ((unit_reads_root(l, u, l->work[a]) ||
				     unit_writes_root(l, u, l->work[a])) &&
				    !st_happens_before(st, (uint32_t)u,
						       (uint32_t)b[c].lower))
					ordered = false;
			if (ordered)
				continue;
			if (np == cap) {
				void *p;

				cap = cap ? cap * 2 : 64;
				p = realloc(pairs, cap * sizeof(*pairs));
				if (!p)
					goto out;
				pairs = p;
			}
			pairs[np][0] = (uint32_t)a;
			pairs[np][1] = (uint32_t)c;
			np++;
		}
	}
	l->rep->num_may_overlap = (uint32_t)np;
	l->rep->num_workspace_tensors = (uint32_t)l->num_work;
	l->offsets = calloc((size_t)l->num_work + 1, sizeof(*l->offsets));
	if (!l->offsets)
		goto out;
	{
		struct mp_problem p = { (size_t)l->num_work, b, np,
					(const uint32_t (*)[2])pairs };

		ret = mp_plan(&p, &mo, l->offsets, &l->rep->plan, l->err,
			      l->errlen);
	}
	for (int i = 0; !ret && i < l->num_work; i++) {
		l->work[i]->offset = (uint64_t)l->offsets[i];
		l->work[i]->bytes = (uint64_t)b[i].size;
	}
out:
	free(b);
	free(pairs);
	return ret;
}

static int place(void *ctx, const struct ir_tensor *t, struct emit_place *out)
{
	struct lower *l = ctx;
	struct tinfo *x = info(t);
	struct tinfo *r = x ? x->root : NULL;

	if (!r)
		return -EINVAL;
	switch (r->kind) {
	case R_CONST:
		if (!r->weight_added) {
			const void *data = r->host_data ? r->host_data :
					   r->t->data;
			size_t bytes = r->host_data ?
				       emit_tensor_bytes(r->t) : r->t->nbytes;
			int ret = om_writer_add_weights(l->w, data, bytes, 64,
							&r->offset);
			if (ret) {
				snprintf(l->err, l->errlen, "weights of '%s': %s",
					 r->t->name, om_writer_error(l->w));
				return ret;
			}
			r->weight_added = true;
			l->rep->weights_bytes += bytes;
		}
		out->slot = OM_SLOT_WEIGHTS;
		out->offset = r->offset;
		return 0;
	case R_WORK:
		if (r->buf < 0) {
			snprintf(l->err, l->errlen,
				 "tensor '%s' is read but never written",
				 t->name);
			return -EINVAL;
		}
		out->slot = OM_SLOT_WORKSPACE;
		out->offset = r->offset;
		return 0;
	default:
		out->slot = r->slot;
		out->offset = 0;
		return 0;
	}
}

struct program {
	struct emit_tasks tasks;
	struct om_debug_info *debug;
	size_t cap_debug;
};

/* Make room for a debug entry per task. */
static int reserve_debug(struct program *p)
{
	while (p->cap_debug < p->tasks.count) {
		size_t cap = p->cap_debug ? p->cap_debug * 2 : 64;
		void *q = realloc(p->debug, cap * sizeof(*p->debug));

		if (!q)
			return -ENOMEM;
		p->debug = q;
		p->cap_debug = cap;
	}
	return 0;
}

static int append_task(struct program *p, const struct drm_npu_task *t)
{
	if (p->tasks.count == p->tasks.cap) {
		size_t cap = p->tasks.cap ? p->tasks.cap * 2 : 64;
		void *q = realloc(p->tasks.tasks, cap * sizeof(*t));

		if (!q)
			return -ENOMEM;
		p->tasks.tasks = q;
		p->tasks.cap = cap;
	}
	p->tasks.tasks[p->tasks.count++] = *t;
	return 0;
}

/* Fill debug entries [from, count) of @p. */
static int label(struct program *p, size_t from, const char *op,
		 const char *node, int node_index)
{
	int ret = reserve_debug(p);

	if (ret)
		return ret;
	for (size_t i = from; i < p->tasks.count; i++) {
		p->debug[i].op = op;
		p->debug[i].node = node;
		p->debug[i].node_index = node_index >= 0 ? (uint32_t)node_index :
				       UINT32_MAX;
	}
	return 0;
}

static int sem_task(struct program *p, uint16_t opcode, uint32_t index,
		    uint32_t value, const char *node, int node_index)
{
	struct drm_npu_task t;
	size_t at = p->tasks.count;

	memset(&t, 0, sizeof(t));
	t.opcode = opcode;
	t.params.sem.index = index;
	t.params.sem.value = value;
	if (append_task(p, &t))
		return -ENOMEM;
	return label(p, at, opcode == DRM_NPU_OP_SEM_WAIT ? "SemWait" :
		     "SemSignal", node, node_index);
}

static int copy_task(struct lower *l, struct program *p, struct unit *u)
{
	struct drm_npu_task t;
	struct emit_place src, dst;
	size_t bytes = emit_tensor_bytes(u->copy_src->t);
	int ret;

	if (bytes > UINT32_MAX)
		return fail(l, -ENOTSUP, "output '%s' is too large to copy (%zu bytes)",
			    u->copy_src->t->name, bytes);
	ret = place(l, u->copy_src->t, &src);
	if (ret)
		return ret;
	dst.slot = u->copy_dst->slot;
	dst.offset = 0;
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_COPY;
	t.num_operands = 2;
	for (int k = 0; k < 2; k++) {
		struct drm_npu_operand *o = &t.operands[k];

		o->slot = k ? dst.slot : src.slot;
		o->offset = k ? dst.offset : src.offset;
		o->dtype = DRM_NPU_DTYPE_U8;
		o->rank = 1;
		o->shape[0] = (uint32_t)bytes;
		o->strides[0] = 1;
	}
	if (!bytes) {
		t.opcode = DRM_NPU_OP_NOP;
		t.num_operands = 0;
		memset(t.operands, 0, sizeof(t.operands));
	}
	return append_task(p, &t);
}

/* The value a tensor holds: a view's is its source's. */
static uint32_t value_of(const struct lower *l, const struct ir_tensor *t)
{
	const struct ir_tensor *src;

	while (t->producer && (src = emit_view_source(t->producer)) != NULL)
		t = src;
	return (uint32_t)(info(t) - l->ti);
}

static int add_opval(struct lower *l, uint32_t stream, size_t task, int k,
		     uint32_t value)
{
	if (l->num_ov == l->cap_ov) {
		size_t cap = l->cap_ov ? l->cap_ov * 2 : 256;
		void *q = realloc(l->ov, cap * sizeof(*l->ov));

		if (!q)
			return -ENOMEM;
		l->ov = q;
		l->cap_ov = cap;
	}
	l->ov[l->num_ov].stream = stream;
	l->ov[l->num_ov].task = (uint32_t)task;
	l->ov[l->num_ov].value = value;
	l->ov[l->num_ov].k = (uint8_t)k;
	l->num_ov++;
	return 0;
}

static void note(void *ctx, const struct ir_tensor *t,
		 const struct drm_npu_operand *op)
{
	struct lower *l = ctx;
	struct emit_tasks *tl = &l->cur->tasks;
	const struct drm_npu_task *last;
	ptrdiff_t k;

	if (!tl->count)
		return;
	last = &tl->tasks[tl->count - 1];
	k = op - last->operands;
	if (k < 0 || k >= DRM_NPU_MAX_OPERANDS)
		return;
	if (add_opval(l, l->cur_stream, tl->count - 1, (int)k, value_of(l, t)))
		l->ov_failed = true;
}

static uint64_t view_key(const struct drm_npu_operand *o)
{
	uint64_t h = 1469598103934665603ull;
	uint64_t f[4 + 2 * DRM_NPU_MAX_RANK];
	int n = 0;

	f[n++] = o->slot;
	f[n++] = o->offset;
	f[n++] = (uint64_t)o->dtype << 16 | (uint64_t)o->layout << 8 |
		 o->rank;
	for (int i = 0; i < o->rank && i < DRM_NPU_MAX_RANK; i++) {
		f[n++] = o->shape[i];
		f[n++] = o->strides[i];
	}
	for (int i = 0; i < n; i++)
		for (int b = 0; b < 8; b++) {
			h ^= (f[i] >> (8 * b)) & 0xff;
			h *= 1099511628211ull;
		}
	return h;
}

/* Bytes [begin, end) an operand spans (end == begin: none). */
static void operand_extent(const struct drm_npu_operand *o, uint64_t *begin,
			   uint64_t *end)
{
	uint64_t span = 0;

	*begin = *end = o->offset;
	for (int i = 0; i < o->rank && i < DRM_NPU_MAX_RANK; i++) {
		if (!o->shape[i])
			return;
		span += (uint64_t)(o->shape[i] - 1) * o->strides[i];
	}
	if (o->dtype == DRM_NPU_DTYPE_I4)	/* two a byte, rounded up */
		*end = o->offset + (span + 2) / 2;
	else
		*end = o->offset + (span + 1) *
		       ir_dtype_size((enum ir_dtype)o->dtype);
}

/*
 * Step 5: every task passes the device's npu_op_check() (a malformed task
 * is a compiler bug, not a model the device refuses at load), and the
 * programs are proven sound with the independent task-level checker
 * (mp_verify_tasks()): no task overwrites a value that a later task reads.
 */
static int verify_tasks(struct lower *l, const struct st_result *st,
			const struct program *prog)
{
	size_t nt = 0, *base = calloc(st->num_streams + 1, sizeof(*base));
	struct mp_task *tasks = NULL;
	struct mp_access *acc = NULL;
	struct mp_task_problem p;
	size_t bad = 0;
	char msg[400];
	int ret = -ENOMEM;

	if (!base)
		return fail(l, -ENOMEM, "out of memory");
	for (uint32_t s = 0; s < st->num_streams; s++) {
		base[s] = nt;
		nt += prog[s].tasks.count;
	}
	tasks = calloc(nt + 1, sizeof(*tasks));
	acc = calloc(l->num_ov + 1, sizeof(*acc));
	if (!tasks || !acc)
		goto out;
	for (uint32_t s = 0; s < st->num_streams; s++)
		for (size_t i = 0; i < prog[s].tasks.count; i++) {
			const struct drm_npu_task *t = &prog[s].tasks.tasks[i];
			struct mp_task *m = &tasks[base[s] + i];
			u32 bad_op = ~0u;

			/* the device's own check, as at model load */
			if (npu_op_check(t, &bad_op)) {
				ret = fail(l, -EFAULT,
					   "internal error: stream %u task %zu (%s, node '%s') is malformed for the device (operand %d)",
					   s, i, prog[s].debug[i].op,
					   prog[s].debug[i].node,
					   bad_op == ~0u ? -1 : (int)bad_op);
				goto out;
			}

			m->stream = s;
			m->kind = t->opcode == DRM_NPU_OP_SEM_SIGNAL ?
				  MP_TASK_SIGNAL :
				  t->opcode == DRM_NPU_OP_SEM_WAIT ?
				  MP_TASK_WAIT : MP_TASK_OP;
			m->sem = t->params.sem.index;
			m->value = t->params.sem.value;
			/*
			 * A host task's pair: the host sets the value the
			 * wait needs; in stream order the host's work lies
			 * between the two, which is all the check models.
			 */
			if (m->kind != MP_TASK_OP &&
			    m->sem >= l->first_host_sem)
				m->kind = MP_TASK_OP;
			m->inplace_ok = m->kind == MP_TASK_OP &&
					emit_task_inplace_ok(t);
		}
	for (size_t a = 0; a < l->num_ov; a++) {
		const struct opval *v = &l->ov[a];
		const struct drm_npu_task *t =
			&prog[v->stream].tasks.tasks[v->task];
		const struct drm_npu_operand *o = &t->operands[v->k];

		if (v->k == OV_HOST) {
			acc[a] = (struct mp_access){
				.task = (uint32_t)(base[v->stream] + v->task),
				.value = v->value, .space = v->slot,
				.write = v->write, .begin = v->begin,
				.end = v->end, .view = ~(uint64_t)v->value,
			};
			continue;
		}
		acc[a].task = (uint32_t)(base[v->stream] + v->task);
		acc[a].value = v->value;
		acc[a].space = o->slot;
		acc[a].write = emit_task_writes(t, v->k);
		acc[a].view = view_key(o);
		operand_extent(o, &acc[a].begin, &acc[a].end);
	}
	p.num_tasks = nt;
	p.tasks = tasks;
	p.num_accesses = l->num_ov;
	p.accesses = acc;
	ret = mp_verify_tasks(&p, &bad, msg, sizeof(msg));
	if (ret) {
		uint32_t s = 0;

		while (s + 1 < st->num_streams && base[s + 1] <= bad)
			s++;
		if (ret == -ENOMEM) {
			fail(l, ret, "out of memory");
		} else if (bad - base[s] < prog[s].tasks.count) {
			const struct om_debug_info *d =
				&prog[s].debug[bad - base[s]];

			ret = fail(l, -EFAULT,
				   "internal error: the task-level memory check refused the lowered programs at stream %u task %zu (%s, node '%s'): %s",
				   s, bad - base[s], d->op, d->node, msg);
		} else {
			ret = fail(l, -EFAULT,
				   "internal error: the task-level memory check refused the lowered programs: %s",
				   msg);
		}
	}
out:
	if (ret == -ENOMEM && !l->err[0])
		fail(l, ret, "out of memory");
	free(base);
	free(tasks);
	free(acc);
	return ret;
}

/*
 * A unit's task index within its program. A unit that emitted no task (a
 * Split none of whose outputs is read, at -O0 where no pass removes it)
 * has first_task == last_task == the index its next task would have had,
 * which is past the end when it is the program's last unit: clamp to the
 * program's last task, which is where its (empty) work happens.
 */
static uint32_t task_in(const struct program *p, uint32_t t)
{
	return p->tasks.count && t >= p->tasks.count ?
	       (uint32_t)p->tasks.count - 1 : t;
}

/*
 * The ONNX tensor names recorded so far: an open-addressing set, so that
 * provenance costs O(1) per tensor (a scan made 64k-node compiles
 * quadratic). Room for every tensor of the graph at load <= 1/2.
 */
struct name_set {
	const char **slot;
	uint32_t mask;
};

static int name_set_init(struct name_set *s, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap <<= 1;
	s->slot = calloc(cap, sizeof(*s->slot));
	s->mask = (uint32_t)(cap - 1);
	return s->slot ? 0 : -ENOMEM;
}

/* The slot of @name: where it is, or the empty one where it would go. */
static const char **name_set_find(const struct name_set *s, const char *name)
{
	uint32_t i = (uint32_t)ir_name_hash(name) & s->mask;

	while (s->slot[i] && strcmp(s->slot[i], name))
		i = (i + 1) & s->mask;
	return &s->slot[i];
}

/* The ONNX tensor @t holds, complete after global task @task. */
static int add_tensor_origin(struct lower *l, const struct ir_tensor *t,
			     uint32_t task, struct name_set *seen)
{
	struct om_tensor_origin_info in = { 0 };
	struct emit_place pl;
	struct tinfo *r = info(t) ? info(t)->root : NULL;
	int ret;

	if (!t->origin || !r || r->kind == R_CONST || r->kind == R_INPUT ||
	    t->shape.rank > OM_MAX_RANK || !t->shape_known ||
	    *name_set_find(seen, t->origin))
		return 0;
	ret = place(l, t, &pl);
	if (ret)
		return ret;
	in.name = t->origin;
	in.task = task;
	in.slot = pl.slot;
	in.offset = pl.offset;
	in.dtype = (uint32_t)t->dtype;
	in.layout = (uint32_t)t->layout;
	in.rank = (uint32_t)t->shape.rank;
	for (int k = 0; k < t->shape.rank; k++)
		in.dims[k] = (uint64_t)t->shape.dim[k];
	ret = om_writer_add_tensor_origin(l->w, &in);
	if (ret)
		return fail(l, ret, "provenance of '%s': %s", t->name,
			    om_writer_error(l->w));
	*name_set_find(seen, t->origin) = t->origin;
	return 0;
}

/*
 * Provenance (om-format.rst): every task of a node names the node's ONNX
 * origins; each ONNX tensor is recorded once, after the last task of the
 * unit that completes it (a view's after its source's writer).
 */
static int record_provenance(struct lower *l, const struct st_result *st,
			     const struct program *prog, const uint32_t *base)
{
	struct ir_graph *g = l->g;
	struct name_set seen;
	int ret = 0;

	if (name_set_init(&seen, (size_t)g->num_tensors))
		return fail(l, -ENOMEM, "out of memory");
	for (int u = 0; u < l->num_units && !ret; u++) {
		const struct unit *un = &l->units[u];
		const struct program *p = &prog[st->stream[u]];
		uint32_t b = base[st->stream[u]], last;

		if (!un->node || !un->has_tasks)
			continue;	/* a copy, or no task */
		last = b + task_in(p, un->last_task);
		for (uint32_t t = b + un->first_task; t <= last && !ret; t++)
			if (un->node->num_origins)
				ret = om_writer_set_task_origin(l->w, t,
					(const char *const *)un->node->origins,
					(uint32_t)un->node->num_origins);
		if (ret) {
			fail(l, ret, "provenance of node '%s': %s",
			     un->node->name, om_writer_error(l->w));
			break;
		}
		for (int k = 0; k < un->node->num_outputs && !ret; k++)
			if (un->node->outputs[k])
				ret = add_tensor_origin(l, un->node->outputs[k],
							last, &seen);
	}
	/* views: complete when their source's writer is */
	for (int i = 0; i < g->num_nodes && !ret; i++) {
		const struct ir_node *n = g->nodes[i];
		const struct tinfo *o;
		const struct unit *un;
		const struct program *p;

		if (emit_is_host_op(n->op) || !emit_view_source(n) ||
		    !n->outputs[0])
			continue;
		o = info(n->outputs[0]);
		if (!o || o->writer < 0 || o->writer >= l->num_units)
			continue;
		un = &l->units[o->writer];
		p = &prog[st->stream[o->writer]];
		if (!un->node || !un->has_tasks)
			continue;
		ret = add_tensor_origin(l, n->outputs[0],
					base[st->stream[o->writer]] +
					task_in(p, un->last_task), &seen);
	}
	free(seen.slot);
	return ret;
}

/* Step 4: tasks per stream, semaphores, the variant's programs and plan. */
/* "name=i:5;name=f:0x1p+0;..." (om_format.h, struct om_host_task). */
static char *serialize_attrs(const struct ir_node *n)
{
	size_t cap = 256, len = 0;
	char *buf = malloc(cap);

#define PUT(...) \
	do { \
		int w_; \
		for (;;) { \
			w_ = snprintf(buf + len, cap - len, __VA_ARGS__); \
			if (w_ >= 0 && (size_t)w_ < cap - len) \
				break; \
			cap *= 2; \
			char *q_ = realloc(buf, cap); \
			if (!q_) { \
				free(buf); \
				return NULL; \
			} \
			buf = q_; \
		} \
		len += (size_t)w_; \
	} while (0)
	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (int a = 0; a < n->num_attrs; a++) {
		const struct ir_attr *at = &n->attrs[a];

		if (!strncmp(at->name, "npu.", 4) || at->type == IR_ATTR_TENSOR)
			continue;
		PUT("%s%s=", len ? ";" : "", at->name);
		switch (at->type) {
		case IR_ATTR_INT:
			PUT("i:%lld", (long long)at->i);
			break;
		case IR_ATTR_FLOAT:
			PUT("f:%a", (double)at->f);
			break;
		case IR_ATTR_STRING:
			PUT("s:");
			for (const char *c = at->s; c && *c; c++)
				PUT("%02x", (unsigned char)*c);
			break;
		case IR_ATTR_INTS:
			PUT("I:");
			for (int k = 0; k < at->n; k++)
				PUT("%s%lld", k ? "," : "",
				    (long long)at->ints[k]);
			break;
		case IR_ATTR_FLOATS:
			PUT("F:");
			for (int k = 0; k < at->n; k++)
				PUT("%s%a", k ? "," : "",
				    (double)at->floats[k]);
			break;
		default:
			break;
		}
	}
#undef PUT
	return buf;
}

static int host_operand(struct lower *l, const struct ir_node *n,
			const struct ir_tensor *t, struct om_host_operand *o)
{
	struct emit_place ep;
	int ret;

	memset(o, 0, sizeof(*o));
	if (!t) {
		o->flags = OM_HOSTOP_ABSENT;
		return 0;
	}
	if (t->layout != IR_LAYOUT_ND && t->layout != IR_LAYOUT_NCHW)
		return fail(l, -ENOTSUP, "host node '%s': tensor '%s' is in "
			    "layout %s; host kernels take dense row-major "
			    "tensors", n->name, t->name,
			    ir_layout_name(t->layout));
	if (t->shape.rank > OM_MAX_RANK)
		return fail(l, -ENOTSUP, "host node '%s': tensor '%s' has rank "
			    "%d", n->name, t->name, t->shape.rank);
	ret = place(l, t, &ep);
	if (ret)
		return ret;
	o->slot = ep.slot;
	o->offset = ep.offset;
	o->dtype = (uint8_t)t->dtype;
	o->rank = (uint8_t)t->shape.rank;
	for (int d = 0; d < t->shape.rank; d++)
		o->dims[d] = (uint64_t)t->shape.dim[d];
	o->size_bytes = emit_tensor_bytes(t);
	return 0;
}

/*
 * A node of the host engine: the device signals the host task's
 * semaphore to 1 and waits for the host to set it to 2 (Documentation/
 * plugins.rst, "Host tasks"); the host task is recorded for the writer.
 */
static int host_unit(struct lower *l, struct program *p, struct unit *u,
		     uint32_t stream)
{
	const struct ir_node *n = u->node;
	const struct npu_plugin_lib *lib = NULL;
	const struct npuc_plugin_op *op = plugin_op_of(n, &lib);
	struct host_rec *h;
	uint32_t sem = l->first_host_sem + l->num_hosts;
	int ret;

	if (!op || !op->host_kernel)
		return fail(l, -ENOTSUP, "node '%s' (%s): no device kernel and "
			    "no host kernel", n->name,
			    ir_attr_str(n, IR_CUSTOM_TYPE, "?"));
	if (n->num_inputs > NPUC_PLUGIN_MAX_IO ||
	    n->num_outputs > NPUC_PLUGIN_MAX_IO)
		return fail(l, -ENOTSUP, "node '%s': too many operands",
			    n->name);
	if (sem >= DRM_NPU_MAX_SEM_POINTS)
		return fail(l, -ENOSPC, "node '%s': no semaphore left for "
			    "host task %u (a model has at most %d)", n->name,
			    l->num_hosts, DRM_NPU_MAX_SEM_POINTS);
	h = &l->hosts[l->num_hosts];
	memset(h, 0, sizeof(*h));
	for (int k = 0; k < n->num_inputs; k++) {
		ret = host_operand(l, n, n->inputs[k], &h->ops[k]);
		if (ret)
			return ret;
	}
	for (int k = 0; k < n->num_outputs; k++) {
		if (!n->outputs[k])
			return fail(l, -ENOTSUP, "host node '%s': output %d is "
				    "absent", n->name, k);
		ret = host_operand(l, n, n->outputs[k],
				   &h->ops[n->num_inputs + k]);
		if (ret)
			return ret;
	}
	h->attrs = serialize_attrs(n);
	if (!h->attrs)
		return -ENOMEM;
	h->info = (struct om_host_task_info){
		.variant = l->variant, .stream = stream, .sem = sem,
		.op = op->op_type, .domain = op->domain ? op->domain : "",
		.node = n->name, .plugin = lib->desc->name,
		.plugin_version = lib->desc->version,
		.plugin_digest = lib->digest, .attrs = h->attrs,
		.num_inputs = (uint32_t)n->num_inputs,
		.num_outputs = (uint32_t)n->num_outputs,
	};
	h->local_task = (uint32_t)p->tasks.count;
	l->num_hosts++;
	ret = sem_task(p, DRM_NPU_OP_SEM_SIGNAL, sem, 1, n->name,
		       u->node_index);
	if (!ret)
		ret = sem_task(p, DRM_NPU_OP_SEM_WAIT, sem, 2, n->name,
			       u->node_index);
	/* For the task-level check: reads at the signal, writes at the wait. */
	for (int k = 0; !ret && k < n->num_inputs + n->num_outputs; k++) {
		const struct ir_tensor *t = k < n->num_inputs ? n->inputs[k] :
					    n->outputs[k - n->num_inputs];
		const struct om_host_operand *o = &h->ops[k];
		struct opval *v;

		if (!t || (o->flags & OM_HOSTOP_ABSENT))
			continue;
		if (add_opval(l, stream, h->local_task + (k >= n->num_inputs),
			      OV_HOST, value_of(l, t)))
			return -ENOMEM;
		v = &l->ov[l->num_ov - 1];
		v->write = k >= n->num_inputs;
		v->slot = o->slot;
		v->begin = o->offset;
		v->end = o->offset + o->size_bytes;
	}
	return ret;
}

/*
 * Outputs of data-dependent extent: where in the workspace the device
 * leaves each one's count (the .om COUNTS section, om-format.rst).
 */
static int record_counts(struct lower *l)
{
	const struct ir_graph *g = l->g;

	for (int j = 0; j < g->num_outputs; j++) {
		const struct ir_tensor *t = g->outputs[j];
		struct emit_place ep;
		int ret;

		if (!t->count)
			continue;
		ret = place(l, t->count, &ep);
		if (!ret && ep.slot != OM_SLOT_WORKSPACE)
			ret = -EINVAL;
		if (!ret)
			ret = om_writer_add_count(l->w, l->variant, (uint32_t)j,
						  (uint32_t)t->count_dim,
						  ep.offset);
		if (ret) {
			snprintf(l->err, l->errlen, "count of output '%s': %s",
				 t->name, om_writer_error(l->w));
			return ret;
		}
	}
	return 0;
}

static int emit_programs(struct lower *l, const struct st_result *st)
{
	struct emit_target tgt = { place, l, note };
	struct program *prog = calloc(st->num_streams, sizeof(*prog));
	uint32_t *base = calloc(st->num_streams, sizeof(*base));
	int ret = 0;

	if (!prog || !base) {
		ret = -ENOMEM;
		goto out;
	}
	for (int u = 0; u < l->num_units && !ret; u++) {
		struct unit *un = &l->units[u];
		struct program *p = &prog[st->stream[u]];
		const char *name = un->node ? un->node->name : "output copy";
		const char *op = un->node ? ir_op_name(un->node->op) : "Copy";
		size_t at;

		for (size_t e = 0; e < st->num_sync && !ret; e++)
			if (st->sync[e].to == (uint32_t)u)
				ret = sem_task(p, DRM_NPU_OP_SEM_WAIT,
					       st->sem[e], st->sem_value[e],
					       name, un->node_index);
		at = p->tasks.count;
		l->cur = p;
		l->cur_stream = st->stream[u];
		if (!ret && un->node && un->node->op == IR_OP_CUSTOM)
			ret = host_unit(l, p, un, st->stream[u]);
		else if (!ret && un->node)
			ret = emit_node(l->g, un->node, &tgt, &p->tasks);
		else if (!ret)
			ret = copy_task(l, p, un);
		if (!ret && (l->ov_failed || (!un->node && p->tasks.count > at &&
		    p->tasks.tasks[at].num_operands == 2 &&
		    (add_opval(l, st->stream[u], at, 0,
			       value_of(l, un->copy_src->t)) ||
		     add_opval(l, st->stream[u], at, 1,
			       (uint32_t)(un->copy_dst - l->ti))))))
			ret = -ENOMEM;
		if (ret) {
			if (!l->err[0])
				snprintf(l->err, l->errlen, "%s",
					 ir_graph_error(l->g));
			break;
		}
		un->first_task = (uint32_t)at;
		un->has_tasks = p->tasks.count > at;
		un->last_task = p->tasks.count > at ? (uint32_t)p->tasks.count - 1 :
				(uint32_t)at;
		if (un->node && un->node->op == IR_OP_CUSTOM)
			op = ir_attr_str(un->node, IR_CUSTOM_TYPE, op);
		ret = label(p, at, op, name, un->node_index);
		/* One signal serves all the node's waiters (streams.h). */
		if (!ret && st->sig_sem[u] != UINT32_MAX)
			ret = sem_task(p, DRM_NPU_OP_SEM_SIGNAL, st->sig_sem[u],
				       st->sig_value[u], name,
				       un->node_index);
	}
	if (!ret)
		ret = verify_tasks(l, st, prog);
	for (uint32_t s = 0; s < st->num_streams && !ret; s++) {
		struct program *p = &prog[s];

		if (!p->tasks.count) {
			struct drm_npu_task nop = { 0 };

			ret = append_task(p, &nop);
			if (!ret)
				ret = label(p, 0, "Nop", "", -1);
			if (ret)
				break;
		}
		base[s] = om_writer_num_tasks(l->w);
		ret = om_writer_add_program(l->w, l->variant, s, p->tasks.tasks,
					    (uint32_t)p->tasks.count, p->debug);
		if (ret)
			snprintf(l->err, l->errlen, "program of stream %u: %s",
				 s, om_writer_error(l->w));
		if (s < 64)
			l->rep->tasks_per_stream[s] = (uint32_t)p->tasks.count;
		l->rep->num_tasks += (uint32_t)p->tasks.count;
	}
	for (uint32_t i = 0; i < l->num_hosts && !ret; i++) {
		struct host_rec *h = &l->hosts[i];

		h->info.signal_task = base[h->info.stream] + h->local_task;
		ret = om_writer_add_host_task(l->w, &h->info, h->ops);
		if (ret)
			snprintf(l->err, l->errlen, "host task of '%s': %s",
				 h->info.node, om_writer_error(l->w));
	}
	if (!ret)
		ret = om_writer_set_plan(l->w, l->variant,
					 (uint64_t)l->rep->plan.arena,
					 (uint64_t)l->rep->plan.lower_bound);
	if (!ret)
		ret = record_counts(l);
	for (int i = 0; i < l->num_work && !ret; i++) {
		struct tinfo *r = l->work[i];
		int fu = r->first, lu = r->root_last < l->num_units ?
					 r->root_last : l->num_units - 1;

		ret = om_writer_add_placement(l->w, l->variant, r->t->name,
			r->offset, r->bytes,
			base[st->stream[fu]] +
			task_in(&prog[st->stream[fu]], l->units[fu].first_task),
			base[st->stream[lu]] +
			task_in(&prog[st->stream[lu]], l->units[lu].last_task));
		if (ret)
			snprintf(l->err, l->errlen, "placement of '%s': %s",
				 r->t->name, om_writer_error(l->w));
	}
	if (!ret)
		ret = record_provenance(l, st, prog, base);
out:
	for (uint32_t s = 0; prog && s < st->num_streams; s++) {
		emit_tasks_free(&prog[s].tasks);
		free(prog[s].debug);
	}
	free(prog);
	free(base);
	return ret;
}

/*
 * A tensor of data-dependent extent is read only by nodes that carry the
 * extent on (shape_propagate_counts()), and what carries it ends in graph
 * outputs: any other reader would need the count as a shape at compile
 * time.
 */
static int check_counted(const struct ir_graph *g, char *err, size_t errlen)
{
	for (int i = 0; i < g->num_tensors; i++) {
		const struct ir_tensor *t = g->tensors[i];
		const struct ir_node *r = NULL;

		if (!t->count)
			continue;
		for (int u = 0; u < t->num_uses && !r; u++) {
			const struct ir_node *n = t->uses[u].node;

			if (n->num_outputs != 1 || !n->outputs[0] ||
			    n->outputs[0]->count != t->count)
				r = n;
		}
		if (!r && (t->num_uses || t->is_output))
			continue;
		if (r)
			snprintf(err, errlen,
				 "tensor '%s' has a data-dependent extent along dim %d, and node '%s' (%s) reads it in a way that needs the extent as a shape (only rows-independent ops carry it on: elementwise, Cast, Reshape/Transpose keeping the dim outermost, Slice/Concat/Softmax across other dims, Gather by its rows while they are only moved or cast, not computed, MatMul on A's rows; Documentation/compiler-ir.rst); split the model there, or run the rest on the host",
				 t->name, t->count_dim, r->name,
				 ir_op_name(r->op));
		else
			snprintf(err, errlen,
				 "tensor '%s' has a data-dependent extent and is not a graph output",
				 t->name);
		return -ENOTSUP;
	}
	return 0;
}

int lower_graph(struct ir_graph *g, const struct lower_options *opt,
		struct om_writer *w, uint32_t variant, struct lower_report *rep,
		char *err, size_t errlen)
{
	struct lower l = { .g = g, .opt = opt, .w = w, .variant = variant,
			   .rep = rep, .err = err, .errlen = errlen };
	struct st_result st = { 0 };
	int ret;

	memset(rep, 0, sizeof(*rep));
	err[0] = '\0';
	ret = ir_graph_toposort(g);
	if (ret) {
		snprintf(err, errlen, "%s", ir_graph_error(g));
		return ret;
	}
	for (int i = 0; i < g->num_tensors; i++) {
		const struct ir_tensor *t = g->tensors[i];

		if (!t->shape_known || !ir_shape_is_static(&t->shape)) {
			if (!t->producer && !t->is_input && !t->num_uses &&
			    !t->is_output)
				continue;	/* unused */
			snprintf(err, errlen,
				 "tensor '%s' has no static shape; give the input shapes (--input-shape) or a gear (--dynamic-batch/--dynamic-dims)",
				 t->name);
			return -EINVAL;
		}
	}
	shape_propagate_counts(g);
	ret = check_counted(g, err, errlen);
	if (ret)
		return ret;
	rep->num_nodes = (uint32_t)g->num_nodes;
	l.ti = calloc((size_t)g->num_tensors + g->num_outputs + 1,
		      sizeof(*l.ti));
	l.units = calloc((size_t)g->num_nodes + g->num_outputs + 1,
			 sizeof(*l.units));
	l.unit_of_node = calloc((size_t)g->num_nodes + 1, sizeof(int));
	if (!l.ti || !l.units || !l.unit_of_node) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ret = assign_storage(&l);
	if (!ret)
		ret = assign_streams(&l, &st);
	if (!ret) {
		rep->num_streams = st.num_streams;
		rep->num_cross_edges = (uint32_t)st.num_cross;
		rep->num_sync_pairs = (uint32_t)st.num_sync;
		rep->num_semaphores = st.num_sems;
		l.first_host_sem = st.num_sems;
		rep->streams_asked = st.streams_asked;
		rep->streams_cut = st.budget_cut;
		rep->semaphore_budget_used = st.budget_total;
		ret = plan_memory(&l, &st);
	}
	if (!ret) {
		size_t nh = 0;

		for (int u = 0; u < l.num_units; u++)
			nh += l.units[u].node &&
			      l.units[u].node->op == IR_OP_CUSTOM;
		l.hosts = calloc(nh + 1, sizeof(*l.hosts));
		if (!l.hosts)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = emit_programs(&l, &st);
	if (!ret) {
		rep->num_host_tasks = l.num_hosts;
		rep->num_semaphores += l.num_hosts;
		rep->semaphore_budget_used += l.num_hosts;
		/* one semaphore per host task, on top of the streams' */
		if (opt->max_semaphores &&
		    rep->semaphore_budget_used > opt->max_semaphores) {
			snprintf(err, errlen,
				 "%u host tasks need a semaphore each: %u in all with the streams' and the runtime's; the target allows %u per model (compile for a larger target, or fewer streams with --max-streams)",
				 l.num_hosts, rep->semaphore_budget_used,
				 opt->max_semaphores);
			ret = -ENOSPC;
		}
	}
	for (uint32_t i = 0; l.hosts && i < l.num_hosts; i++)
		free(l.hosts[i].attrs);
	free(l.hosts);
	if (ret && !err[0])
		snprintf(err, errlen, "lowering failed: %s", strerror(-ret));
out:
	for (int i = 0; l.ti && i < g->num_tensors; i++)
		free(l.ti[i].host_data);
	for (int i = 0; i < g->num_tensors; i++)
		g->tensors[i]->priv = NULL;
	st_result_free(&st);
	free(l.ti);
	free(l.units);
	free(l.unit_of_node);
	free(l.work);
	free(l.offsets);
	free(l.ov);
	return ret;
}
