// SPDX-License-Identifier: MIT
/*
 * pool_fuzz - libFuzzer target for the pool (make fuzz-pool): every 4 input
 * bytes are one operation (allocate with a size, alignment and pin choice;
 * free; compact for a hole; full compaction; threshold) on a 256 KiB pool
 * backed by a host byte array. After each operation the pool's invariants
 * must hold, every live buffer must keep its bytes, pinned buffers must not
 * move, and an allocation without pins or large alignments in the pool
 * must not fail while total free >= request. Any violation aborts.
 */
#include "pool_test_util.h"

#define FZ_POOL		(256u << 10)
#define FZ_GRANULE	512u
#define FZ_MAX		64

struct fz_buf {
	struct npu_pool_node node;
	u64 id, pinned_at;
	int live;
};

static struct fz_buf fz[FZ_MAX];

static void fz_assert(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "pool_fuzz: %s\n", what);
		abort();
	}
}

static void fz_check(struct npu_pool *pool, struct fake_vram *v)
{
	const char *why = npu_pool_check(pool);
	int i;

	fz_assert(!why, why ? why : "");
	fz_assert(!v->bad, "move callbacks misused");
	for (i = 0; i < FZ_MAX; i++) {
		if (!fz[i].live)
			continue;
		fz_assert(pattern_check(v, fz[i].node.start, fz[i].node.size,
					fz[i].id), "a live buffer lost its bytes");
		if (fz[i].node.flags & NPU_POOL_PINNED)
			fz_assert(fz[i].node.start == fz[i].pinned_at,
				  "a pinned buffer moved");
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t len);

int LLVMFuzzerTestOneInput(const u8 *data, size_t len)
{
	static u8 mem[FZ_POOL];
	struct fake_vram v = { .mem = mem, .size = FZ_POOL };
	struct npu_pool_params p = {
		.size = FZ_POOL, .granule = FZ_GRANULE, .ops = &fv_ops,
		.dev = &v,
	};
	struct npu_pool *pool = npu_pool_create_params(&p);
	u64 next_id = 1;
	int unusual = 0;	/* pins or large alignments ever used */
	size_t k;

	memset(fz, 0, sizeof(fz));
	for (k = 0; k + 4 <= len; k += 4) {
		const u8 *op = data + k;
		struct fz_buf *b = &fz[op[1] % FZ_MAX];

		switch (op[0] % 8) {
		case 0: case 1: case 2: case 3: {
			u64 size = (((u64)op[2] << 8 | op[3]) % 2048) * 16 + 1;
			u64 align = op[0] & 0x40 ? FZ_GRANULE << (op[1] & 3) : 0;
			u32 flags = (op[0] & 0x80) ? NPU_POOL_PINNED : 0;
			struct npu_pool_stats st;
			int ret;

			if (b->live)
				break;
			npu_pool_get_stats(pool, &st);
			ret = npu_pool_alloc(pool, &b->node, size, align, flags,
					     NULL);
			if (ret) {
				fz_assert(ret == -ENOMEM, "odd allocation error");
				fz_assert(unusual || (align > FZ_GRANULE) ||
					  st.free < npu_align_up(size, FZ_GRANULE),
					  "failed although free >= request");
				break;
			}
			if (flags || align > FZ_GRANULE)
				unusual = 1;
			b->live = 1;
			b->id = next_id++;
			b->pinned_at = b->node.start;
			pattern_fill(&v, b->node.start, b->node.size, b->id);
			break;
		}
		case 4: case 5:
			if (b->live) {
				npu_pool_free(pool, &b->node);
				b->live = 0;
			}
			break;
		case 6: {
			int ret = npu_pool_compact(pool,
				((u64)op[2] << 8 | op[3]) * 8, NULL);

			fz_assert(!ret || ret == -ENOMEM, "odd compaction error");
			break;
		}
		default:
			npu_pool_set_compact_threshold(pool,
				op[2] & 1 ? (u32)op[3] * 3900 : 0);
			break;
		}
		fz_check(pool, &v);
	}
	for (k = 0; k < FZ_MAX; k++)
		if (fz[k].live)
			npu_pool_free(pool, &fz[k].node);
	fz_assert(!npu_pool_check(pool), "pool broken after freeing all");
	npu_pool_destroy(pool);
	return 0;
}
