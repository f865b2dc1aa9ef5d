// SPDX-License-Identifier: MIT
/*
 * pass_manager.c - the pass registry, the pipeline and its report.
 */
#include <errno.h>
#include <string.h>

#include "passes.h"
#include "shape/shape.h"

/*
 * The pipeline, in order. Passes marked in_fixpoint form the round that is
 * repeated until it changes nothing: folding and simplification open
 * chances for fusion and vice versa (a folded BN exposes Conv->Relu, a
 * fused GELU exposes MatMul->GELU).
 */
static const struct pass_info pm_registry[] = {
	{ "identity-elim", "remove Identity, Dropout and no-op nodes",
	  pass_identity_elim, 1, true },
	{ "qdq-fuse", "DequantizeLinear -> Conv/Gemm/MatMul -> "
	  "QuantizeLinear -> int8 npu.QConv/npu.QMatMul, scales folded",
	  pass_qdq_fuse, 1, true },
	{ "const-fold", "evaluate nodes whose inputs are all constants",
	  pass_const_fold, 1, true },
	{ "reshape-simplify", "collapse chains of Reshape/Flatten/Squeeze/"
	  "Unsqueeze", pass_reshape_simplify, 1, true },
	{ "transpose-simplify", "merge Transpose pairs, turn size-1 moves "
	  "into views", pass_transpose_simplify, 1, true },
	{ "cse", "merge equal nodes and equal constants", pass_cse, 1, true },
	{ "dce", "remove nodes whose results nobody reads", pass_dce, 1,
	  true },
	{ "bn-fold", "fold BatchNormalization into the Conv/Gemm before it",
	  pass_bn_fold, 1, true },
	{ "conv-add-fusion", "fuse a residual Add into the Conv before it",
	  pass_conv_add_fusion, 1, true },
	{ "conv-act-fusion", "fuse Relu/Clip/... into the Conv before it",
	  pass_conv_act_fusion, 1, true },
	{ "gelu-fusion", "x*0.5*(1+erf(x/sqrt2)) -> Gelu", pass_gelu_fusion,
	  1, true },
	{ "layernorm-fusion", "ReduceMean/Sub/Pow/.../Add -> "
	  "LayerNormalization", pass_layernorm_fusion, 1, true },
	{ "matmul-bias-fusion", "MatMul/Gemm + bias Add -> one MatMul",
	  pass_matmul_bias_fusion, 1, true },
	{ "matmul-add-fusion", "fuse a residual Add into the MatMul/Gemm "
	  "before it", pass_matmul_add_fusion, 1, true },
	{ "matmul-act-fusion", "fuse Relu/Gelu/... into the MatMul/Gemm "
	  "before it", pass_matmul_act_fusion, 1, true },
	{ "attention-fusion", "MatMul-Softmax-MatMul -> Attention",
	  pass_attention_fusion, 2, true },
	{ "qdq-cancel", "QuantizeLinear(DequantizeLinear(q)) with the same "
	  "scale and zero point -> q", pass_qdq_cancel, 1, true },
	{ "eltwise-act-fusion", "fuse an activation into the binary op "
	  "before it", pass_eltwise_act_fusion, 1, true },
	{ "layout-nc1hwc0", "NCHW -> NC1HWC0 for conv/pool/batchnorm chains, "
	  "TransData at the boundaries", pass_layout_nc1hwc0, 2, false },
	{ "dce-final", "remove what the layout pass left unused", pass_dce,
	  1, false },
	{ "qconv-weight-pack", "int8 conv weights packed [O, C1, KH, KW, 32] "
	  "for an NC1HWC0 input", pass_qconv_weight_pack, 1, false },
	{ "conv-weight-olast", "store constant Conv weights with the output "
	  "channel innermost, as the device's convolution reads them",
	  pass_conv_weight_olast, 1, false },
	{ "gemm-weight-kn", "Gemm(transB=1) with a constant B: store B as "
	  "[K, N] and clear transB, as the device's product kernels read it",
	  pass_gemm_weight_kn, 1, false },
};

#define PM_COUNT ((int)(sizeof(pm_registry) / sizeof(pm_registry[0])))

const struct pass_info *pm_passes(int *count)
{
	*count = PM_COUNT;
	return pm_registry;
}

static const struct pass_info *pm_find(const char *name, size_t len)
{
	int i;

	for (i = 0; i < PM_COUNT; i++)
		if (strlen(pm_registry[i].name) == len &&
		    !strncmp(pm_registry[i].name, name, len))
			return &pm_registry[i];
	return NULL;
}

int pm_check_names(const char *list, char *err, size_t len)
{
	const char *p = list;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if (n && !pm_find(p, n) && strncmp(p, "all", n)) {
			snprintf(err, len, "unknown pass '%.*s' (npuc "
				 "--list-passes shows the names)", (int)n, p);
			return -EINVAL;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static bool in_list(const char *list, const char *name)
{
	const char *p = list;
	size_t len = strlen(name);

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if ((n == len && !strncmp(p, name, n)) ||
		    (n == 3 && !strncmp(p, "all", 3)))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

static int stats_changed(const struct pass_stats *s)
{
	return s->removed + s->fused + s->folded + s->rewritten;
}

static int pm_after(struct ir_graph *g, const struct pm_opts *o,
		    const char *name)
{
	FILE *f = o->dump_file ? o->dump_file : stderr;
	int err;

	err = shape_infer(g);
	if (err)
		return err;
	if ((o->verify || ir_verify_enabled()) && ir_verify(g)) {
		char msg[IR_ERR_LEN];

		snprintf(msg, sizeof(msg), "%s", g->err);
		return ir_error(g, "after pass %s: %s", name, msg);
	}
	if (o->dump_after && in_list(o->dump_after, name)) {
		if (o->dump_format == PM_DUMP_DOT) {
			fprintf(f, "// after pass %s\n", name);
			ir_dump_dot(g, f);
		} else {
			fprintf(f, "# after pass %s\n", name);
			ir_dump_text(g, f);
		}
	}
	return 0;
}

static int pm_run_entry(struct ir_graph *g, const struct pass_info *p,
			struct pm_entry *e, const struct pm_opts *o,
			int *changed)
{
	struct pass_stats st = { 0 };
	int err;

	err = p->run(g, &st);
	ir_graph_purge(g);
	if (err)
		return err ? err : -EINVAL;
	err = ir_graph_toposort(g);
	if (err)
		return err;
	e->runs++;
	e->st.removed += st.removed;
	e->st.fused += st.fused;
	e->st.folded += st.folded;
	e->st.rewritten += st.rewritten;
	*changed += stats_changed(&st);
	if (stats_changed(&st) || (o->dump_after &&
				   in_list(o->dump_after, p->name)))
		return pm_after(g, o, p->name);
	return 0;
}

int pm_run(struct ir_graph *g, const struct pm_opts *o, struct pm_report *r)
{
	struct pm_opts def = { .opt_level = 2 };
	int i, round, changed, err, max;

	if (!o)
		o = &def;
	memset(r, 0, sizeof(*r));
	r->nodes_before = g->num_nodes;
	err = shape_infer(g);
	if (err)
		return err;
	err = pm_after(g, o, "shape-inference");
	if (err)
		return err;
	r->num = PM_COUNT;
	for (i = 0; i < PM_COUNT; i++) {
		r->e[i].name = pm_registry[i].name;
		r->e[i].enabled = o->opt_level >= pm_registry[i].min_level &&
				  !in_list(o->disable, pm_registry[i].name);
	}
	max = o->max_rounds > 0 ? o->max_rounds : 8;
	for (round = 0; round < max; round++) {
		changed = 0;
		for (i = 0; i < PM_COUNT; i++) {
			if (!pm_registry[i].in_fixpoint || !r->e[i].enabled)
				continue;
			err = pm_run_entry(g, &pm_registry[i], &r->e[i], o,
					   &changed);
			if (err)
				return err;
		}
		r->rounds++;
		if (!changed)
			break;
	}
	for (i = 0; i < PM_COUNT; i++) {
		if (pm_registry[i].in_fixpoint || !r->e[i].enabled)
			continue;
		changed = 0;
		err = pm_run_entry(g, &pm_registry[i], &r->e[i], o, &changed);
		if (err)
			return err;
	}
	ir_graph_gc(g);
	r->nodes_after = g->num_nodes;
	return 0;
}

int pm_run_one(struct ir_graph *g, const char *name, struct pass_stats *st)
{
	const struct pass_info *p = pm_find(name, strlen(name));
	int err;

	memset(st, 0, sizeof(*st));
	if (!p)
		return ir_error(g, "unknown pass '%s'", name);
	err = shape_infer(g);
	if (!err)
		err = p->run(g, st);
	ir_graph_purge(g);
	if (!err)
		err = ir_graph_toposort(g);
	if (!err)
		err = shape_infer(g);
	if (!err && ir_verify(g))
		err = -EINVAL;
	return err;
}

void pm_report_print(const struct pm_report *r, FILE *f)
{
	int i;

	fprintf(f, "%-20s %4s %7s %5s %6s %9s\n", "pass", "runs", "removed",
		"fused", "folded", "rewritten");
	for (i = 0; i < r->num; i++) {
		const struct pm_entry *e = &r->e[i];

		if (!e->enabled) {
			fprintf(f, "%-20s (disabled)\n", e->name);
			continue;
		}
		fprintf(f, "%-20s %4d %7d %5d %6d %9d\n", e->name, e->runs,
			e->st.removed, e->st.fused, e->st.folded,
			e->st.rewritten);
	}
	fprintf(f, "rounds: %d, nodes: %d -> %d\n", r->rounds, r->nodes_before,
		r->nodes_after);
}

void pm_report_json(const struct pm_report *r, FILE *f)
{
	int i;

	fprintf(f, "{\"rounds\": %d, \"nodes_before\": %d, \"nodes_after\": "
		"%d, \"passes\": [", r->rounds, r->nodes_before, r->nodes_after);
	for (i = 0; i < r->num; i++) {
		const struct pm_entry *e = &r->e[i];

		fprintf(f, "%s\n  {\"name\": \"%s\", \"enabled\": %s, "
			"\"runs\": %d, \"removed\": %d, \"fused\": %d, "
			"\"folded\": %d, \"rewritten\": %d}", i ? "," : "",
			e->name, e->enabled ? "true" : "false", e->runs,
			e->st.removed, e->st.fused, e->st.folded,
			e->st.rewritten);
	}
	fprintf(f, "\n]}\n");
}
