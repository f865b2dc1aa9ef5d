// SPDX-License-Identifier: MIT
/*
 * interp.c - run IR nodes on the host through the device's op kernels.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "interp.h"
#include "plugin/plugin_ir.h"
#include "ops/npu_ops.h"

static unsigned long interp_ntasks;

unsigned long interp_tasks_run(void)
{
	return interp_ntasks;
}

/* Host placement: a slot per buffer, offset 0. */
struct host_place {
	const struct ir_tensor **tensors;
	void **bases;
	int count, cap;
};

static int host_slot(struct host_place *h, const struct ir_tensor *t)
{
	int i;

	for (i = 0; i < h->count; i++)
		if (h->tensors[i] == t)
			return i;
	return -1;
}

static int host_place_cb(void *ctx, const struct ir_tensor *t,
			 struct emit_place *out)
{
	struct host_place *h = ctx;
	int s = host_slot(h, t);

	if (s < 0)
		return -ENOENT;
	out->slot = (uint16_t)s;
	out->offset = 0;
	return 0;
}

static int host_add(struct host_place *h, const struct ir_tensor *t,
		    void *base)
{
	if (h->count == h->cap) {
		int ncap = h->cap ? h->cap * 2 : 16;
		const struct ir_tensor **nt;
		void **nb;

		nt = realloc(h->tensors, (size_t)ncap * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		h->tensors = nt;
		nb = realloc(h->bases, (size_t)ncap * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		h->bases = nb;
		h->cap = ncap;
	}
	h->tensors[h->count] = t;
	h->bases[h->count] = base;
	h->count++;
	return 0;
}

static int run_tasks(struct ir_graph *g, const struct ir_node *n,
		     const struct emit_tasks *l, struct host_place *h)
{
	size_t i;
	int j, ret;

	for (i = 0; i < l->count; i++) {
		const struct drm_npu_task *t = &l->tasks[i];
		/* the portable baseline: a .om must not depend on this CPU */
		struct npu_op_args args = { .task = t,
					    .isa = NPU_ISA_BASELINE };
		u32 bad = ~0u;

		ret = npu_op_check(t, &bad);
		if (ret)
			return ir_error(g, "node '%s' (%s): task %zu (opcode "
					"%u) refused by the op check, operand "
					"%d", n->name, ir_op_name(n->op), i,
					t->opcode, bad == ~0u ? -1 : (int)bad);
		for (j = 0; j < t->num_operands; j++)
			args.data[j] = (char *)h->bases[t->operands[j].slot] +
				       t->operands[j].offset;
		ret = npu_op_run(&args, 0, npu_op_work_units(t));
		if (ret)
			return ir_error(g, "node '%s' (%s): task %zu faulted "
					"(reason %d)", n->name,
					ir_op_name(n->op), i, ret);
		interp_ntasks++;
	}
	return 0;
}

static int eval_in_place(struct ir_graph *g, const struct ir_node *n,
			 struct host_place *h)
{
	struct emit_target tgt = { .place = host_place_cb, .ctx = h };
	struct emit_tasks l = { 0 };
	int ret;

	ret = emit_node(g, n, &tgt, &l);
	if (!ret)
		ret = run_tasks(g, n, &l, h);
	emit_tasks_free(&l);
	return ret;
}

int interp_eval_node(struct ir_graph *g, const struct ir_node *n,
		     const void *const *in, void *const *out)
{
	struct host_place h = { 0 };
	const struct ir_tensor *src;
	int i, ret = 0;

	for (i = 0; i < n->num_inputs && !ret; i++) {
		const struct ir_tensor *t = n->inputs[i];

		if (!t || host_slot(&h, t) >= 0)
			continue;
		/* the kernels read typed, aligned data */
		if (!(in && in[i]))
			ret = ir_tensor_own(n->inputs[i]);
		if (!ret)
			ret = host_add(&h, t, in && in[i] ? (void *)in[i] :
				       t->data);
	}
	for (i = 0; i < n->num_outputs && !ret; i++)
		if (n->outputs[i])
			ret = host_add(&h, n->outputs[i], out[i]);
	if (ret)
		goto done;
	src = emit_view_source(n);
	if (n->op == IR_OP_CUSTOM) {
		ret = plugin_host_eval(g, n, in, out);
	} else if (emit_is_host_op(n->op)) {
		ret = emit_host_eval(g, n, in, out[0]);
	} else if (src) {
		void *s = h.bases[host_slot(&h, src)];

		if (!s)
			ret = ir_error(g, "node '%s': no input data", n->name);
		else
			memcpy(out[0], s, emit_tensor_bytes(n->outputs[0]));
	} else {
		ret = eval_in_place(g, n, &h);
	}
done:
	free(h.tensors);
	free(h.bases);
	return ret;
}

int interp_run(struct ir_graph *g, const void *const *inputs,
	       void *const *outputs)
{
	return interp_run_ex(g, inputs, outputs, NULL, NULL);
}

int interp_run_ex(struct ir_graph *g, const void *const *inputs,
		  void *const *outputs, interp_node_fn fn, void *user)
{
	struct host_place h = { 0 };
	void **owned = NULL;
	int nowned = 0, i, j, ret = 0;

	owned = calloc((size_t)g->num_tensors + 1, sizeof(*owned));
	if (!owned)
		return -ENOMEM;
	for (i = 0; i < g->num_inputs && !ret; i++)
		ret = host_add(&h, g->inputs[i], (void *)inputs[i]);
	for (i = 0; i < g->num_tensors && !ret; i++) {
		if (!g->tensors[i]->data)
			continue;
		ret = ir_tensor_own(g->tensors[i]);	/* typed, aligned */
		if (!ret)
			ret = host_add(&h, g->tensors[i], g->tensors[i]->data);
	}
	for (i = 0; i < g->num_nodes && !ret; i++) {
		const struct ir_node *n = g->nodes[i];
		const struct ir_tensor *src = emit_view_source(n);

		for (j = 0; j < n->num_outputs && !ret; j++) {
			const struct ir_tensor *t = n->outputs[j];
			size_t bytes;
			void *p;

			if (!t)
				continue;
			if (src && j == 0) {
				int s = host_slot(&h, src);

				if (s < 0) {
					ret = ir_error(g, "node '%s': input "
						       "'%s' has no data",
						       n->name, src->name);
					break;
				}
				ret = host_add(&h, t, h.bases[s]);
				continue;
			}
			bytes = emit_tensor_bytes(t);
			if (!t->shape_known ||
			    !ir_shape_is_static(&t->shape)) {
				ret = ir_error(g, "node '%s': output '%s' has "
					       "no static shape", n->name,
					       t->name);
				break;
			}
			p = calloc(1, bytes ? bytes : 1);
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			owned[nowned++] = p;
			ret = host_add(&h, t, p);
		}
		if (ret)
			break;
		if (n->op == IR_OP_CUSTOM) {
			const void *ci[64] = { NULL };
			void *co[64] = { NULL };

			for (j = 0; j < n->num_inputs && j < 64; j++) {
				int sl = n->inputs[j] ?
					 host_slot(&h, n->inputs[j]) : -1;

				ci[j] = sl >= 0 ? h.bases[sl] : NULL;
			}
			for (j = 0; j < n->num_outputs && j < 64; j++) {
				int sl = n->outputs[j] ?
					 host_slot(&h, n->outputs[j]) : -1;

				co[j] = sl >= 0 ? h.bases[sl] : NULL;
			}
			ret = plugin_host_eval(g, n, ci, co);
		} else if (emit_is_host_op(n->op))
			ret = emit_host_eval(g, n, NULL,
				h.bases[host_slot(&h, n->outputs[0])]);
		else if (!src)
			ret = eval_in_place(g, n, &h);
		for (j = 0; fn && !ret && j < n->num_outputs; j++) {
			int sl = n->outputs[j] ? host_slot(&h, n->outputs[j])
					       : -1;

			if (sl >= 0)
				ret = fn(user, n, j, h.bases[sl]);
		}
	}
	for (i = 0; i < g->num_outputs && !ret; i++) {
		int s = host_slot(&h, g->outputs[i]);

		if (s < 0) {
			ret = ir_error(g, "graph output '%s' was not computed",
				       g->outputs[i]->name);
			break;
		}
		memcpy(outputs[i], h.bases[s],
		       emit_tensor_bytes(g->outputs[i]));
	}
	for (i = 0; i < nowned; i++)
		free(owned[i]);
	free(owned);
	free(h.tensors);
	free(h.bases);
	return ret;
}

int interp_alloc_outputs(const struct ir_node *n, void **out)
{
	int i;

	for (i = 0; i < n->num_outputs; i++) {
		if (!n->outputs[i])
			continue;
		/* +1: a zero-element output still gets a buffer */
		out[i] = calloc(1, emit_tensor_bytes(n->outputs[i]) + 1);
		if (!out[i])
			return -ENOMEM;
	}
	return 0;
}

void interp_replace_by_outputs(struct ir_graph *g, struct ir_node *n,
			       void **out)
{
	struct ir_tensor *tens[INTERP_MAX_OUTPUTS] = { 0 };
	int i, k = n->num_outputs;

	for (i = 0; i < k; i++)
		tens[i] = n->outputs[i];
	ir_node_remove(g, n);
	for (i = 0; i < k; i++) {
		if (!tens[i]) {
			free(out[i]);
			continue;
		}
		free(tens[i]->data);
		tens[i]->data = out[i];
		tens[i]->nbytes = emit_tensor_bytes(tens[i]);
	}
}
