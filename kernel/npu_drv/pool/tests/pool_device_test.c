// SPDX-License-Identifier: MIT
/*
 * pool_device_test - compaction seen from userspace, through the transport:
 * buffers are written through their CPU mappings, the device is fragmented
 * and compacted (DRM_IOCTL_NPU_COMPACT, and a BO_CREATE that only fits after
 * auto-compaction), and every buffer is read back through the same mapping.
 * Runs on whatever npu_dev_open(NULL) finds: the in-process device here
 * (NPU_SIM_VRAM_MB=64), the kernel module inside the VM (installed there as
 * /tests/npu_pool_devtest). On a larger device a pinned ballast buffer
 * takes all but 48 MiB first, so the test touches a bounded amount of
 * memory everywhere.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm.h>
#include <drm/npu_drm.h>

#include "npu_transport.h"

#define PAGE		4096ull
#define MAXBO		96
#define WORKING_SET	(48ull << 20)

struct tbo {
	uint32_t handle;
	uint64_t size;
	uint8_t *map;
	uint64_t seed;
	int pinned;
};

static int tap_n, tap_bad;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	tap_bad += !cond;
}

static uint8_t pat(uint64_t seed, uint64_t i)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull ^ (i * 0xbf58476d1ce4e5b9ull);

	return (uint8_t)(x >> 59) ^ (uint8_t)i;
}

static void fill(struct tbo *b)
{
	for (uint64_t i = 0; i < b->size; i++)
		b->map[i] = pat(b->seed, i);
}

static int intact(const struct tbo *b)
{
	for (uint64_t i = 0; i < b->size; i++)
		if (b->map[i] != pat(b->seed, i))
			return 0;
	return 1;
}

static int create(struct npu_dev *d, struct tbo *b, uint64_t size,
		  uint32_t flags, uint64_t seed)
{
	struct drm_npu_bo_create c = { .size = size, .flags = flags };
	struct drm_npu_bo_mmap_offset mo = { 0 };
	int ret = npu_dev_ioctl(d, DRM_IOCTL_NPU_BO_CREATE, &c);

	if (ret)
		return ret;
	mo.handle = c.handle;
	ret = npu_dev_ioctl(d, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &mo);
	if (ret)
		return ret;
	b->handle = c.handle;
	b->size = size;
	b->seed = seed;
	b->pinned = !!flags;
	b->map = npu_dev_mmap(d, mo.offset, size);
	if (!b->map)
		return -errno;
	fill(b);
	return 0;
}

static void destroy(struct npu_dev *d, struct tbo *b)
{
	struct drm_gem_close gc = { .handle = b->handle };

	npu_dev_munmap(d, b->map, b->size);
	npu_dev_ioctl(d, DRM_IOCTL_GEM_CLOSE, &gc);
	memset(b, 0, sizeof(*b));
}

static int all_intact(struct tbo *bos, int n)
{
	for (int i = 0; i < n; i++)
		if (bos[i].map && !intact(&bos[i]))
			return 0;
	return 1;
}

static uint64_t moves_of(struct npu_dev *d, struct tbo *b)
{
	struct drm_npu_bo_info bi = { .handle = b->handle };

	return npu_dev_ioctl(d, DRM_IOCTL_NPU_BO_INFO, &bi) ? 0 : bi.moves;
}

static void mem_stats(struct npu_dev *d, struct drm_npu_mem_stats *ms)
{
	memset(ms, 0, sizeof(*ms));
	npu_dev_ioctl(d, DRM_IOCTL_NPU_MEM_STATS, ms);
}

/* Free bytes this file may still take: VRAM, within its quota. */
static uint64_t room(const struct drm_npu_mem_stats *ms)
{
	uint64_t left;

	if (!ms->file_quota)
		return ms->vram_free;
	left = ms->file_quota > ms->file_used ?
	       ms->file_quota - ms->file_used : 0;
	return left < ms->vram_free ? left : ms->vram_free;
}

int main(void)
{
	static struct tbo bos[MAXBO];
	struct drm_npu_mem_stats ms0, ms;
	struct drm_npu_compact cp = { 0 };
	struct npu_dev *d;
	uint64_t total, chunk, moved_total = 0, rng = 12345;
	int ret, i, n = 0, moved = 0, pinned_moved = 0;
	struct tbo big = { 0 };
	struct drm_npu_bo_create ballast = { 0 };

	setenv("NPU_SIM_VRAM_MB", "64", 0);
	ret = npu_dev_open(NULL, &d);
	if (ret) {
		printf("1..0 # SKIP no NPU device (%s)\n", strerror(-ret));
		return 0;
	}
	printf("1..9\n# device %s\n", npu_dev_name(d));
	mem_stats(d, &ms0);
	total = ms0.vram_total;
	/* one file may not hold all VRAM (its quota): work within it */
	if (room(&ms0) < ms0.largest_free)
		ms0.largest_free = room(&ms0);
	if (ms0.largest_free > WORKING_SET + 16 * PAGE) {
		ballast.size = (ms0.largest_free - WORKING_SET) & ~(PAGE - 1);
		ballast.flags = DRM_NPU_BO_PINNED;
		if (npu_dev_ioctl(d, DRM_IOCTL_NPU_BO_CREATE, &ballast))
			ballast.handle = 0;
		printf("# pinned ballast of %" PRIu64 " MiB\n",
		       (uint64_t)(ballast.handle ? ballast.size >> 20 : 0));
		mem_stats(d, &ms0);
	}
	/* fill most of VRAM with buffers of 1..4 chunks, some pinned */
	chunk = (room(&ms0) / 2 / MAXBO) & ~(PAGE - 1);
	if (chunk < PAGE)
		chunk = PAGE;
	for (i = 0; i < MAXBO; i++) {
		uint64_t size = chunk * (1 + (uint64_t)(i * 7 % 4));

		if (create(d, &bos[i], size, i % 17 == 5 ? DRM_NPU_BO_PINNED : 0,
			   (uint64_t)i + 1))
			break;
		n++;
	}
	ok(n > 32, "%d buffers created and written through their mappings (chunk %" PRIu64 " KiB)",
	   n, chunk / 1024);
	/* fragment: free every other unpinned buffer */
	for (i = 0; i < n; i += 2)
		if (!bos[i].pinned)
			destroy(d, &bos[i]);
	mem_stats(d, &ms);
	cp.min_hole = ms.largest_free + 4 * chunk;
	if (cp.min_hole > ms.vram_free)
		cp.min_hole = ms.vram_free;
	ret = npu_dev_ioctl(d, DRM_IOCTL_NPU_COMPACT, &cp);
	ok(ret == 0 && cp.largest_free >= cp.min_hole && cp.bytes_moved > 0,
	   "COMPACT opens a %" PRIu64 " KiB hole moving %" PRIu64 " KiB (largest free was %" PRIu64 " KiB)",
	   cp.min_hole / 1024, cp.bytes_moved / 1024, ms.largest_free / 1024);
	moved_total += cp.bytes_moved;
	ok(all_intact(bos, n), "every buffer reads back its pattern through the same mapping");

	/* auto-compaction: a buffer that fits only once ranges move */
	mem_stats(d, &ms);
	if (ms.vram_free > ms.largest_free + chunk &&
	    room(&ms) >= ms.largest_free + chunk) {
		uint64_t want = (ms.largest_free + chunk) & ~(PAGE - 1);

		ret = create(d, &big, want, 0, 999);
		mem_stats(d, &ms0);
		ok(ret == 0 && ms0.compactions > ms.compactions && intact(&big),
		   "BO_CREATE of %" PRIu64 " KiB (largest free %" PRIu64 " KiB) succeeds by compacting",
		   want / 1024, ms.largest_free / 1024);
		moved_total += ms0.bytes_moved - ms.bytes_moved;
	} else {
		ok(1, "# SKIP no fragmentation left to force auto-compaction");
	}
	ok(all_intact(bos, n), "and the others still hold their patterns");

	/* full compaction */
	memset(&cp, 0, sizeof(cp));
	ret = npu_dev_ioctl(d, DRM_IOCTL_NPU_COMPACT, &cp);
	mem_stats(d, &ms);
	ok(ret == 0 && all_intact(bos, n) && (!big.map || intact(&big)),
	   "full compaction (min_hole 0) keeps every byte, %" PRIu64 " free ranges left",
	   ms.num_free_ranges);
	moved_total += cp.bytes_moved;

	/* seeded churn: create/close/compact, patterns checked each time */
	for (int step = 0; step < 300; step++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		i = (int)((rng >> 33) % (uint64_t)n);
		if (bos[i].map && !bos[i].pinned) {
			destroy(d, &bos[i]);
		} else if (!bos[i].map) {
			create(d, &bos[i], chunk * (1 + (rng >> 20) % 6), 0,
			       rng | 1);
		}
		if (step % 25 == 24) {
			memset(&cp, 0, sizeof(cp));
			cp.min_hole = chunk * (2 + (rng >> 40) % 8);
			npu_dev_ioctl(d, DRM_IOCTL_NPU_COMPACT, &cp);
			moved_total += cp.bytes_moved;
			if (!all_intact(bos, n))
				break;
		}
	}
	ok(all_intact(bos, n) && (!big.map || intact(&big)),
	   "300 seeded create/close/compact steps: all patterns intact (%" PRIu64 " KiB moved in all)",
	   moved_total / 1024);
	for (i = 0; i < n; i++) {
		if (!bos[i].map)
			continue;
		if (moves_of(d, &bos[i]))
			moved++;
		if (bos[i].pinned && moves_of(d, &bos[i]))
			pinned_moved++;
	}
	ok(moved > 0 && pinned_moved == 0,
	   "BO_INFO: %d buffers report moves, no pinned buffer ever moved", moved);
	mem_stats(d, &ms);
	ok(ms.compactions >= 3 && ms.bytes_moved >= moved_total &&
	   ms.vram_total == total && ms.vram_used + ms.vram_free == total &&
	   ms.vram_used >= ballast.size,
	   "MEM_STATS: %" PRIu64 " compactions, %" PRIu64 " KiB moved, %" PRIu64 " us paused",
	   ms.compactions, ms.bytes_moved / 1024, ms.pause_ns / 1000);
	for (i = 0; i < n; i++)
		if (bos[i].map)
			destroy(d, &bos[i]);
	if (big.map)
		destroy(d, &big);
	if (ballast.handle) {
		struct drm_gem_close gc = { .handle = ballast.handle };

		npu_dev_ioctl(d, DRM_IOCTL_GEM_CLOSE, &gc);
	}
	npu_dev_close(d);
	return tap_bad ? 1 : 0;
}
