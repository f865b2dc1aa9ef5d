/* SPDX-License-Identifier: MIT */
/* passes.h - the passes and the helpers they share (internal). */
#ifndef NPUC_PASSES_H
#define NPUC_PASSES_H

#include <errno.h>

#include "pass_manager.h"

int pass_identity_elim(struct ir_graph *g, struct pass_stats *st);
int pass_const_fold(struct ir_graph *g, struct pass_stats *st);
int pass_reshape_simplify(struct ir_graph *g, struct pass_stats *st);
int pass_transpose_simplify(struct ir_graph *g, struct pass_stats *st);
int pass_cse(struct ir_graph *g, struct pass_stats *st);
int pass_dce(struct ir_graph *g, struct pass_stats *st);
int pass_bn_fold(struct ir_graph *g, struct pass_stats *st);
int pass_conv_act_fusion(struct ir_graph *g, struct pass_stats *st);
int pass_conv_add_fusion(struct ir_graph *g, struct pass_stats *st);
int pass_matmul_bias_fusion(struct ir_graph *g, struct pass_stats *st);
int pass_matmul_add_fusion(struct ir_graph *g, struct pass_stats *st);
int pass_matmul_act_fusion(struct ir_graph *g, struct pass_stats *st);
int pass_gelu_fusion(struct ir_graph *g, struct pass_stats *st);
int pass_layernorm_fusion(struct ir_graph *g, struct pass_stats *st);
int pass_attention_fusion(struct ir_graph *g, struct pass_stats *st);
int pass_eltwise_act_fusion(struct ir_graph *g, struct pass_stats *st);
int pass_qdq_cancel(struct ir_graph *g, struct pass_stats *st);
int pass_qdq_fuse(struct ir_graph *g, struct pass_stats *st);
int pass_qconv_weight_pack(struct ir_graph *g, struct pass_stats *st);
int pass_layout_nc1hwc0(struct ir_graph *g, struct pass_stats *st);
int pass_conv_weight_olast(struct ir_graph *g, struct pass_stats *st);
int pass_gemm_weight_kn(struct ir_graph *g, struct pass_stats *st);

/* --- helpers (pass_util.c) ------------------------------------------------ */

/* @t's producer if it has op @op, else NULL. */
struct ir_node *pu_producer(const struct ir_tensor *t, enum ir_op op);
/* Used exactly once and not a graph output. */
bool pu_single_use(const struct ir_tensor *t);
/* A constant whose every element equals one value; *v gets it. */
bool pu_const_uniform(const struct ir_tensor *t, double *v);
/* |a - b| <= tol * max(1, |b|) */
bool pu_near(double a, double b, double tol);
/* The activation a unary node computes, or false if it is none. */
bool pu_unary_act(const struct ir_node *n, struct ir_act *a);
/* A new f32 constant of @shape from doubles. */
struct ir_tensor *pu_const_f32(struct ir_graph *g, const char *name,
			       const struct ir_shape *shape, const double *v);
/* A new i64 1-D constant. */
struct ir_tensor *pu_const_i64(struct ir_graph *g, const char *name,
			       int n, const int64_t *v);
/*
 * Make @keep produce @from's output 0 instead of its own output 0, then
 * delete @from (which must only read @keep's old output). Used by fusions:
 * "fold @from into @keep".
 */
void pu_absorb(struct ir_graph *g, struct ir_node *keep, struct ir_node *from);
/* Index of @t among @n's inputs, or -1. */
int pu_input_index(const struct ir_node *n, const struct ir_tensor *t);
/* Remove a node whose output 0 equals input @in (reroute its users). */
void pu_bypass(struct ir_graph *g, struct ir_node *n, struct ir_tensor *in);
/* Remove every node whose outputs nobody reads; returns the count. */
int pu_sweep(struct ir_graph *g);
/*
 * The node array as it is now (malloc'ed, *@n entries), for a pass that
 * rewrites in rounds: walk the copy, skip nodes marked dead, toposort once
 * after the round and run another round while something changed. A
 * rewrite then costs O(1) scans, not a toposort and a rescan each.
 */
struct ir_node **pu_snapshot(const struct ir_graph *g, int *n);
/* True if f32 and the node is "plain" (no fused act or residual yet). */
bool pu_plain(const struct ir_node *n);

#endif
