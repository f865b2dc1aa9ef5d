/* SPDX-License-Identifier: MIT */
/*
 * derive.h - constants derived from constants, kept across compiles.
 *
 * A pass that computes a constant from other constants (weights
 * reordered for the device, a BatchNormalization folded into them) is a
 * pure function of what it reads. derive_*() name that: a key (XXH3-128)
 * over the computation's name and version, its parameters and its input
 * constants (type, layout, shape, bytes). With a store on the graph
 * (ir_graph.derive: the partition cache of the compile driver), a pass
 * asks for the bytes under the key before computing them and keeps the
 * ones it computed; without one, derive_begin() returns false and costs
 * nothing. Since the key covers every input of the computation, a hit is
 * the bytes the computation gives, whatever graph, model or file the
 * constant comes from (Documentation/online.rst, "The partition cache").
 *
 *	struct derive d;
 *	bool memo = derive_begin(&d, g, "conv-weight-olast/1");
 *
 *	if (memo)
 *		derive_tensor(&d, w);
 *	if (!memo || !derive_fetch(&d, w, out, n)) {
 *		compute(out);
 *		if (memo)
 *			derive_keep(&d, w, out, n);
 *	}
 */
#ifndef NPUC_DERIVE_H
#define NPUC_DERIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XXH_STATIC_LINKING_ONLY	/* XXH3_state_t on the stack */
#include <xxhash.h>

#include "ir/ir.h"

struct derive {
	const struct ir_derive_store *store;
	XXH3_state_t st;
	double t0;			/* ms: when the key began */
};

/* Begin the key of computation @what in @g: false when @g has no store. */
bool derive_begin(struct derive *d, const struct ir_graph *g,
		  const char *what);
/* Add an input constant (NULL: an absent one) or a parameter. */
void derive_tensor(struct derive *d, const struct ir_tensor *t);
void derive_u64(struct derive *d, uint64_t v);
void derive_f64(struct derive *d, double v);
/* Copy the kept bytes (exactly @n) into @dst: true on a hit. */
bool derive_fetch(struct derive *d, const struct ir_tensor *owner,
		  void *dst, size_t n);
/*
 * The kept bytes (exactly @n) where the store holds them, read-only,
 * valid for the rest of the compile (ir_tensor_borrow_data()); NULL on
 * a miss.
 */
const void *derive_borrow(struct derive *d, const struct ir_tensor *owner,
			  size_t n);
/* Keep the @n bytes computed since derive_begin(). */
void derive_keep(struct derive *d, const struct ir_tensor *owner,
		 const void *src, size_t n);

#endif /* NPUC_DERIVE_H */
