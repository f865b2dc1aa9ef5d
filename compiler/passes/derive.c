// SPDX-License-Identifier: MIT
/*
 * derive.c - keys of derived constants (see derive.h).
 */
#include <string.h>
#include <time.h>

#include "derive.h"

static double derive_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void derive_bytes(struct derive *d, const void *p, size_t n)
{
	XXH3_128bits_update(&d->st, p, n);
}

bool derive_begin(struct derive *d, const struct ir_graph *g,
		  const char *what)
{
	d->store = g->derive;
	if (!d->store)
		return false;
	d->t0 = derive_now_ms();
	XXH3_128bits_reset(&d->st);
	derive_u64(d, strlen(what));
	derive_bytes(d, what, strlen(what));
	return true;
}

void derive_u64(struct derive *d, uint64_t v)
{
	derive_bytes(d, &v, sizeof(v));
}

void derive_f64(struct derive *d, double v)
{
	derive_bytes(d, &v, sizeof(v));
}

/*
 * What the computation can read of a constant: its type, layout, shape,
 * size and bytes (its name is not read: a renamed weight derives the
 * same bytes).
 */
void derive_tensor(struct derive *d, const struct ir_tensor *t)
{
	if (!t) {
		derive_u64(d, UINT64_MAX);
		return;
	}
	derive_u64(d, (uint64_t)t->dtype);
	derive_u64(d, (uint64_t)t->layout);
	derive_u64(d, (uint64_t)t->w_olast);
	derive_u64(d, (uint64_t)t->int4);
	derive_u64(d, (uint64_t)t->shape.rank);
	for (int i = 0; i < t->shape.rank; i++)
		derive_u64(d, (uint64_t)t->shape.dim[i]);
	derive_u64(d, t->nbytes);
	derive_u64(d, t->data != NULL);
	if (t->data) {
		uint64_t dg[2];

		ir_tensor_digest(t, dg);
		derive_bytes(d, dg, sizeof(dg));
	}
}

static void derive_key(const struct derive *d, uint64_t key[2])
{
	XXH128_hash_t h = XXH3_128bits_digest(&d->st);

	key[0] = h.low64;
	key[1] = h.high64;
}

bool derive_fetch(struct derive *d, const struct ir_tensor *owner,
		  void *dst, size_t n)
{
	uint64_t key[2];

	derive_key(d, key);
	return d->store->fetch(d->store->ctx, owner, key, dst, n, d->t0) >= 0;
}

const void *derive_borrow(struct derive *d, const struct ir_tensor *owner,
			  size_t n)
{
	uint64_t key[2];

	derive_key(d, key);
	return d->store->borrow(d->store->ctx, owner, key, n, d->t0);
}

void derive_keep(struct derive *d, const struct ir_tensor *owner,
		 const void *src, size_t n)
{
	uint64_t key[2];

	derive_key(d, key);
	d->store->keep(d->store->ctx, owner, key, src, n,
		       derive_now_ms() - d->t0);
}
