/* SPDX-License-Identifier: MIT */
/*
 * interp.h - the reference interpreter of the IR on the host.
 *
 * Runs a graph node by node: each tensor gets host memory, each node's tasks
 * come from emit_node() (compiler/emit/emit.h) and run through npu_op_run(),
 * the op kernels the device runs too. Views alias their source; host ops
 * (Shape, ConstantOfShape, Range) are evaluated directly. Tests use it to
 * prove each pass preserves a model's outputs, constant folding uses
 * interp_eval_node() so that folding and device agree bit for bit.
 */
#ifndef NPUC_INTERP_H
#define NPUC_INTERP_H

#include "ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * interp_run() - run a graph with static shapes
 * @g: the graph (bind symbolic dims first); not modified
 * @inputs: data of each graph input, dense in its dtype/layout
 * @outputs: buffers for each graph output, emit_tensor_bytes() bytes each
 *
 * Return: 0, or a negative errno with a message in the graph naming the
 * node (and task) that failed.
 */
int interp_run(struct ir_graph *g, const void *const *inputs,
	       void *const *outputs);

/*
 * Called after each node with the data of its output @k (emit_tensor_bytes()
 * bytes, in the tensor's layout); a nonzero return stops the run with it.
 */
typedef int (*interp_node_fn)(void *user, const struct ir_node *n, int k,
			      const void *data);

/* interp_run() calling @fn after every node (npu-compare's reference). */
int interp_run_ex(struct ir_graph *g, const void *const *inputs,
		  void *const *outputs, interp_node_fn fn, void *user);

/**
 * interp_eval_node() - evaluate one node from host buffers
 * @in: data of each input (NULL for absent ones; constants may pass NULL
 *      and are read from the tensor)
 * @out: a buffer of emit_tensor_bytes() for each output
 */
int interp_eval_node(struct ir_graph *g, const struct ir_node *n,
		     const void *const *in, void *const *out);

/* The most outputs a node may have for interp_alloc_outputs() & co. */
#define INTERP_MAX_OUTPUTS	16

/**
 * interp_alloc_outputs() - zeroed host buffers for each output of a node
 * @out: INTERP_MAX_OUTPUTS slots, NULL on entry; absent outputs stay NULL
 *
 * Return: 0, or -ENOMEM with what was allocated left in @out to free.
 */
int interp_alloc_outputs(const struct ir_node *n, void **out);

/**
 * interp_replace_by_outputs() - make a node's evaluated outputs constants
 * @n: the node, at most INTERP_MAX_OUTPUTS outputs; removed from @g
 * @out: its outputs as filled by interp_eval_node(); taken over (the
 *       buffer of an absent output is freed)
 */
void interp_replace_by_outputs(struct ir_graph *g, struct ir_node *n,
			       void **out);

/* Tasks run by the interpreter since the start of the process. */
unsigned long interp_tasks_run(void);

#ifdef __cplusplus
}
#endif

#endif /* NPUC_INTERP_H */
