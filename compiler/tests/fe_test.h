/* SPDX-License-Identifier: MIT */
/* fe_test.h - TAP output and small-graph builders for the front-end tests. */
#ifndef NPUC_FE_TEST_H
#define NPUC_FE_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"
#include "passes/pass_manager.h"

void ft_plan(int n);
/* Prints "ok N - msg" or "not ok N - msg"; returns @cond. */
bool ft_ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ft_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ft_skip(const char *why);
/* Exit status for main: 0 if every test passed. */
int ft_done(void);

/* Builders: shapes from a -1 terminated dim list. */
struct ir_shape ft_shape_a(const int64_t *dims);
#define ft_shape(...) ft_shape_a((const int64_t[]){ __VA_ARGS__ })
struct ir_tensor *ft_input(struct ir_graph *g, const char *name,
			   struct ir_shape s);
/* f32 constant with deterministic pseudo-random values in [lo, hi). */
struct ir_tensor *ft_const(struct ir_graph *g, const char *name,
			   struct ir_shape s, unsigned seed, float lo,
			   float hi);
struct ir_tensor *ft_scalar(struct ir_graph *g, float v);
/* A node with one fresh f32 output; returns the output tensor. */
struct ir_tensor *ft_op(struct ir_graph *g, enum ir_op op, const char *name,
			int nin, struct ir_tensor **ins);
/* Op counts. */
int ft_count(const struct ir_graph *g, enum ir_op op);

/*
 * Run @g with seeded random inputs before and after the named passes
 * ("a,b" run through pm_run_one in order) and compare every output; the
 * max relative difference goes to *rel. Returns 0 on success.
 */
int ft_pass_equiv(struct ir_graph *g, const char *passes, double *rel,
		  struct pass_stats *total);

/* The graph's outputs from seeded random inputs (malloc'd, caller frees). */
int ft_run(struct ir_graph *g, unsigned seed, float ***outs);

#endif
