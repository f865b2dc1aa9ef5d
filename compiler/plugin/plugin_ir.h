/* SPDX-License-Identifier: MIT */
/*
 * plugin_ir.h - plugin operators in the IR (IR_OP_CUSTOM): shape
 * inference and decomposition through the plugin, the attribute reader
 * handed to plugins.
 */
#ifndef NPUC_PLUGIN_IR_H
#define NPUC_PLUGIN_IR_H

#include "ir/ir.h"
#include "plugin/plugin_load.h"

/* The plugin op of an IR_OP_CUSTOM node (and its plugin), or NULL. */
const struct npuc_plugin_op *plugin_op_of(const struct ir_node *n,
					  const struct npu_plugin_lib **lib);

/* Attribute reader over @n (the IR_CUSTOM_* ones hidden). */
void plugin_attrs_of(const struct ir_node *n, struct npuc_attrs *a);

/* Shape inference of an IR_OP_CUSTOM node: 0 or -EINVAL (graph error). */
int plugin_infer_node(struct ir_graph *g, struct ir_node *n);

/*
 * Replace an IR_OP_CUSTOM node by its plugin's decomposition (inputs'
 * shapes known). 1 when rewritten, 0 when the op has none, < 0 on error.
 */
int plugin_decompose_node(struct ir_graph *g, struct ir_node *n);

/*
 * Run an IR_OP_CUSTOM node's host kernel on host buffers (the reference
 * interpreter, constant folding): @in per input (NULL: the constant's
 * data), @out per output. 0 or -EINVAL with the graph's error set.
 */
int plugin_host_eval(struct ir_graph *g, const struct ir_node *n,
		     const void *const *in, void *const *out);

/* Whether @n runs on the host engine (a plugin host kernel). */
bool plugin_is_host_node(const struct ir_node *n);

#endif /* NPUC_PLUGIN_IR_H */
