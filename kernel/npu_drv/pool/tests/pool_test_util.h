/* SPDX-License-Identifier: MIT */
/*
 * pool_test_util.h - TAP output, a seeded generator and a host byte array
 * standing in for VRAM, with move callbacks that really move the bytes.
 */
#ifndef POOL_TEST_UTIL_H
#define POOL_TEST_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../npu_pool.h"

static int tap_n, tap_failed;

static inline void tap_plan(int n)
{
	printf("1..%d\n", n);
}

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

/* xorshift64*: the same sequence everywhere for a given seed */
static inline u64 rng_next(u64 *s)
{
	u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline u64 rng_range(u64 *s, u64 lo, u64 hi)
{
	return lo + rng_next(s) % (hi - lo + 1);
}

/* VRAM on the host, and the callbacks compaction drives. */
struct fake_vram {
	u8 *mem;
	u64 size;
	u64 quiesced, copies, moved_calls, resumed;
	int refuse_quiesce;		/* refuse this many more quiesces */
	int in_move;			/* quiesce..resume balance */
	int bad;			/* a callback saw something wrong */
};

static inline int fv_quiesce(void *dev, struct npu_pool_node *n)
{
	struct fake_vram *v = dev;

	if (v->refuse_quiesce > 0) {
		v->refuse_quiesce--;
		return -EBUSY;
	}
	if (n->flags & NPU_POOL_PINNED)
		v->bad = 1;		/* pinned must never be asked to move */
	v->quiesced++;
	v->in_move++;
	return 0;
}

static inline void fv_copy(void *dev, u64 dst, u64 src, u64 size)
{
	struct fake_vram *v = dev;

	if (dst + size > v->size || src + size > v->size || v->in_move != 1)
		v->bad = 1;
	else
		memmove(v->mem + dst, v->mem + src, size);
	v->copies++;
}

static inline void fv_moved(void *dev, struct npu_pool_node *n, u64 old)
{
	struct fake_vram *v = dev;

	if (n->start == old)
		v->bad = 1;
	v->moved_calls++;
}

static inline void fv_resume(void *dev, struct npu_pool_node *n)
{
	struct fake_vram *v = dev;

	v->in_move--;
	v->resumed++;
}

static const struct npu_pool_move_ops fv_ops = {
	.quiesce = fv_quiesce,
	.copy = fv_copy,
	.moved = fv_moved,
	.resume = fv_resume,
};

/* A byte pattern that depends on the buffer's identity and the offset. */
static inline u8 pattern_byte(u64 id, u64 off)
{
	u64 x = id * 0x9e3779b97f4a7c15ull + off * 0xbf58476d1ce4e5b9ull;

	return (u8)(x >> 56) ^ (u8)off;
}

static inline void pattern_fill(struct fake_vram *v, u64 start, u64 size,
				u64 id)
{
	u64 i;

	for (i = 0; i < size; i++)
		v->mem[start + i] = pattern_byte(id, i);
}

static inline int pattern_check(const struct fake_vram *v, u64 start,
				u64 size, u64 id)
{
	u64 i;

	for (i = 0; i < size; i++)
		if (v->mem[start + i] != pattern_byte(id, i))
			return 0;
	return 1;
}

#endif /* POOL_TEST_UTIL_H */
