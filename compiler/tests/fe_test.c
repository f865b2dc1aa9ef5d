// SPDX-License-Identifier: MIT
/* fe_test.c - TAP output and small-graph builders for the front-end tests. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "fe_test.h"
#include "interp/interp.h"
#include "passes/pass_manager.h"
#include "shape/shape.h"

static int ft_n, ft_failed;

void ft_plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
}

bool ft_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++ft_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		ft_failed++;
	return cond;
}

void ft_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void ft_skip(const char *why)
{
	printf("ok %d # SKIP %s\n", ++ft_n, why);
}

int ft_done(void)
{
	return ft_failed ? 1 : 0;
}

struct ir_shape ft_shape_a(const int64_t *dims)
{
	struct ir_shape s = { 0 };

	while (dims[s.rank] != -1 && s.rank < IR_MAX_RANK) {
		s.dim[s.rank] = dims[s.rank];
		s.rank++;
	}
	return s;
}

struct ir_tensor *ft_input(struct ir_graph *g, const char *name,
			   struct ir_shape s)
{
	struct ir_tensor *t = ir_tensor_new(g, name, IR_F32, &s);

	ir_graph_add_input(g, t);
	return t;
}

static float ft_rand(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return (float)((*state >> 8) & 0xffff) / 65536.0f;
}

struct ir_tensor *ft_const(struct ir_graph *g, const char *name,
			   struct ir_shape s, unsigned seed, float lo,
			   float hi)
{
	int64_t i, n = ir_shape_numel(&s);
	float *v = malloc((size_t)n * sizeof(*v) + 1);
	struct ir_tensor *t;

	for (i = 0; i < n; i++)
		v[i] = lo + (hi - lo) * ft_rand(&seed);
	t = ir_const_new(g, name, IR_F32, &s, v, (size_t)n * sizeof(*v));
	free(v);
	return t;
}

struct ir_tensor *ft_scalar(struct ir_graph *g, float v)
{
	return ir_const_scalar_f32(g, NULL, v);
}

struct ir_tensor *ft_op(struct ir_graph *g, enum ir_op op, const char *name,
			int nin, struct ir_tensor **ins)
{
	struct ir_tensor *o = ir_tensor_new(g, NULL, IR_F32, NULL);

	if (!ir_node_new(g, op, name, nin, ins, 1, &o))
		return NULL;
	return o;
}

int ft_count(const struct ir_graph *g, enum ir_op op)
{
	int i, n = 0;

	for (i = 0; i < g->num_nodes; i++)
		n += g->nodes[i]->op == op;
	return n;
}

int ft_run(struct ir_graph *g, unsigned seed, float ***outs)
{
	void **ins = calloc((size_t)g->num_inputs + 1, sizeof(*ins));
	float **o = calloc((size_t)g->num_outputs + 1, sizeof(*o));
	int i, ret;

	for (i = 0; i < g->num_inputs; i++) {
		size_t n = emit_tensor_bytes(g->inputs[i]) / 4, k;
		unsigned st = seed + (unsigned)i * 7919u;

		ins[i] = malloc(n * 4 + 4);
		for (k = 0; k < n; k++)
			((float *)ins[i])[k] = ft_rand(&st) * 4.0f - 2.0f;
	}
	for (i = 0; i < g->num_outputs; i++)
		o[i] = calloc(1, emit_tensor_bytes(g->outputs[i]) + 4);
	ret = interp_run(g, (const void *const *)ins, (void *const *)o);
	for (i = 0; i < g->num_inputs; i++)
		free(ins[i]);
	free(ins);
	*outs = o;
	return ret;
}

static void ft_free_outs(const struct ir_graph *g, float **o)
{
	int i;

	for (i = 0; i < g->num_outputs; i++)
		free(o[i]);
	free(o);
}

int ft_pass_equiv(struct ir_graph *g, const char *passes, double *rel,
		  struct pass_stats *total)
{
	float **before = NULL, **after = NULL;
	char list[256], *save = NULL, *p;
	double maxd = 0, maxr = 0;
	int i, ret;
	size_t k;

	memset(total, 0, sizeof(*total));
	*rel = INFINITY;
	if (shape_infer(g) || ft_run(g, 42, &before)) {
		ft_diag("before: %s", ir_graph_error(g));
		return -1;
	}
	snprintf(list, sizeof(list), "%s", passes);
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		struct pass_stats st;

		if (pm_run_one(g, p, &st)) {
			ft_diag("pass %s: %s", p, ir_graph_error(g));
			ft_free_outs(g, before);
			return -1;
		}
		total->removed += st.removed;
		total->fused += st.fused;
		total->folded += st.folded;
		total->rewritten += st.rewritten;
	}
	ret = ft_run(g, 42, &after);
	if (ret) {
		ft_diag("after: %s", ir_graph_error(g));
		ft_free_outs(g, before);
		ft_free_outs(g, after);
		return -1;
	}
	for (i = 0; i < g->num_outputs; i++) {
		size_t n = emit_tensor_bytes(g->outputs[i]) / 4;

		for (k = 0; k < n; k++) {
			double d = fabs((double)before[i][k] - after[i][k]);

			if (d > maxd || isnan(d))
				maxd = isnan(d) ? INFINITY : d;
			if (fabs(before[i][k]) > maxr)
				maxr = fabs(before[i][k]);
		}
	}
	*rel = maxd / (maxr > 0 ? maxr : 1);
	ft_free_outs(g, before);
	ft_free_outs(g, after);
	return 0;
}
