// SPDX-License-Identifier: MIT
/*
 * test_device_bo.c - DEVICE_INFO, buffer objects (create, GEM_CLOSE,
 * mmap offset, mmap, info, wait), MEM_STATS and COMPACT.
 */
#include "npu_test.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void test_device_info(void)
{
	struct drm_npu_device_info i;

	memset(&i, 0, sizeof(i));
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_DEVICE_INFO, &i), 0,
		"DEVICE_INFO: succeeds");
	tap_ok(i.model == DRM_NPU_MODEL_SIM910 &&
	       i.uapi_version >> 16 == DRM_NPU_UAPI_MAJOR &&
	       i.num_cores >= 1 && i.num_queues >= 1 &&
	       i.num_semaphores >= 1 && i.vram_size >= (1u << 20) &&
	       i.max_tasks == DRM_NPU_MAX_TASKS &&
	       (i.features & DRM_NPU_FEATURE_FP32) && i.watchdog_ms > 0,
	       "DEVICE_INFO: model, version, counts and features are sane");
	memset(&i, 0, sizeof(i));
	i.reserved[3] = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_DEVICE_INFO, &i), -EINVAL,
		"DEVICE_INFO: non-zero reserved -> EINVAL");
}

static void test_bo_create(void)
{
	struct drm_npu_bo_create c;
	struct drm_npu_bo_info bi;

	memset(&c, 0, sizeof(c));
	c.size = 5000;
	c.alignment = 65536;
	c.flags = DRM_NPU_BO_PINNED;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_CREATE, &c), 0,
		"BO_CREATE: pinned, 64 KiB aligned");
	memset(&bi, 0, sizeof(bi));
	bi.handle = c.handle;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_INFO, &bi), 0, "BO_INFO: succeeds");
	tap_ok(bi.size == 8192 && bi.flags == DRM_NPU_BO_PINNED &&
	       bi.busy == 0, "BO_INFO: size rounded to 4 KiB pages, flags kept, idle");
	t_close_bo(T.d, c.handle);

	memset(&c, 0, sizeof(c));
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_CREATE, &c), -EINVAL,
		"BO_CREATE: size 0 -> EINVAL");
	c.size = 4096;
	c.flags = 1u << 7;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_CREATE, &c), -EINVAL,
		"BO_CREATE: unknown flag -> EINVAL");
	c.flags = 0;
	c.reserved = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_CREATE, &c), -EINVAL,
		"BO_CREATE: non-zero reserved -> EINVAL");
	c.reserved = 0;
	c.alignment = 4096 + 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_CREATE, &c), -EINVAL,
		"BO_CREATE: alignment not a power of two -> EINVAL");
	c.alignment = T.info.vram_size * 2;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_CREATE, &c), -EINVAL,
		"BO_CREATE: alignment larger than VRAM -> EINVAL");
	c.alignment = 0;
	c.size = T.info.vram_size + 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_CREATE, &c), -E2BIG,
		"BO_CREATE: larger than VRAM -> E2BIG");
	c.size = ~0ull;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_CREATE, &c), -E2BIG,
		"BO_CREATE: size 2^64-1 (page rounding would overflow) -> E2BIG");

	/*
	 * two buffers of more than half of VRAM cannot both exist (the
	 * second from another file: one file's quota is below all VRAM)
	 */
	memset(&c, 0, sizeof(c));
	c.size = T.info.vram_size / 2 + 4096;
	if (t_ioctl(T.d, DRM_IOCTL_NPU_BO_CREATE, &c) == 0) {
		struct drm_npu_bo_create c2 = { .size = c.size };
		struct npu_dev *d2;

		if (t_open_again(&d2) == 0) {
			tap_err(t_ioctl(d2, DRM_IOCTL_NPU_BO_CREATE, &c2),
				-ENOMEM,
				"BO_CREATE: VRAM exhausted even after compaction -> ENOMEM");
			npu_dev_close(d2);
		} else {
			tap_skip("cannot open twice",
				 "BO_CREATE: VRAM exhausted -> ENOMEM");
		}
		t_close_bo(T.d, c.handle);
	} else {
		tap_skip("VRAM is in use", "BO_CREATE: VRAM exhausted -> ENOMEM");
	}
}

static void test_gem_close(void)
{
	struct drm_gem_close gc;
	struct npu_dev *d2 = NULL;
	uint32_t h = t_bo(T.d, 4096);

	memset(&gc, 0, sizeof(gc));
	gc.handle = h;
	gc.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_GEM_CLOSE, &gc), -EINVAL,
		"GEM_CLOSE: non-zero pad -> EINVAL");
	if (t_open_again(&d2) == 0) {
		gc.pad = 0;
		tap_err(t_ioctl(d2, DRM_IOCTL_GEM_CLOSE, &gc), -EINVAL,
			"GEM_CLOSE: another open's handle -> EINVAL");
		npu_dev_close(d2);
	} else {
		tap_skip("cannot open the device twice",
			 "GEM_CLOSE: another open's handle");
	}
	gc.pad = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_GEM_CLOSE, &gc), 0, "GEM_CLOSE: succeeds");
	tap_err(t_ioctl(T.d, DRM_IOCTL_GEM_CLOSE, &gc), -EINVAL,
		"GEM_CLOSE: closed handle -> EINVAL");
}

static void test_bo_mmap(void)
{
	struct drm_npu_bo_mmap_offset m;
	struct npu_dev *d2 = NULL;
	uint32_t h = t_bo(T.d, 3 * 4096);
	uint32_t *p, *q;
	bool zero = true, same = true;
	unsigned int i;

	memset(&m, 0, sizeof(m));
	m.handle = h;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &m), 0,
		"BO_MMAP_OFFSET: succeeds");
	m.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &m), -EINVAL,
		"BO_MMAP_OFFSET: non-zero pad -> EINVAL");
	m.pad = 0;
	m.handle = 0xdead;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &m), -ENOENT,
		"BO_MMAP_OFFSET: unknown handle -> ENOENT");
	if (t_open_again(&d2) == 0) {
		m.handle = h;
		tap_err(t_ioctl(d2, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &m), -ENOENT,
			"BO_MMAP_OFFSET: another open's handle -> ENOENT");
		t_ioctl(T.d, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &m);
		p = npu_dev_mmap(d2, m.offset, 4096);
		tap_ok(!p, "mmap: another open cannot map our buffer's offset (%s)",
		       p ? "mapped" : strerror(errno));
		if (p)
			npu_dev_munmap(d2, p, 4096);
		npu_dev_close(d2);
	} else {
		tap_skip("cannot open the device twice",
			 "BO_MMAP_OFFSET: another open's handle");
		tap_skip("cannot open the device twice",
			 "mmap: another open cannot map our buffer");
	}

	p = t_map(T.d, h, 3 * 4096);
	q = t_map(T.d, h, 3 * 4096);
	if (!p || !q) {
		tap_ok(false, "mmap: two mappings of one buffer");
		t_close_bo(T.d, h);
		return;
	}
	for (i = 0; i < 3 * 1024; i++)
		zero &= p[i] == 0;
	tap_ok(zero, "mmap: a new buffer reads as zeroes");
	for (i = 0; i < 3 * 1024; i++)
		p[i] = i * 2654435761u;
	for (i = 0; i < 3 * 1024; i++)
		same &= q[i] == i * 2654435761u;
	tap_ok(same, "mmap: bytes written through one mapping read back through another");
	t_unmap(T.d, p, 3 * 4096);
	t_unmap(T.d, q, 3 * 4096);
	/* a mapping keeps the buffer: close first, then read */
	p = t_map(T.d, h, 3 * 4096);
	t_close_bo(T.d, h);
	tap_ok(p && p[5] == 5 * 2654435761u,
	       "mmap: a mapping stays valid after GEM_CLOSE");
	t_unmap(T.d, p, 3 * 4096);
}

static void test_bo_info_wait(void)
{
	struct npu_dev *d2;
	struct drm_npu_bo_info bi;
	struct drm_npu_bo_wait w;
	uint32_t h = t_bo(T.d, 4096);

	memset(&bi, 0, sizeof(bi));
	bi.handle = h;
	bi.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_INFO, &bi), -EINVAL,
		"BO_INFO: non-zero pad -> EINVAL");
	bi.pad = 0;
	bi.reserved = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_INFO, &bi), -EINVAL,
		"BO_INFO: non-zero reserved -> EINVAL");
	bi.reserved = 0;
	bi.handle = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_INFO, &bi), -ENOENT,
		"BO_INFO: handle 0 -> ENOENT");
	if (t_open_again(&d2) == 0) {
		bi.handle = h;
		tap_err(t_ioctl(d2, DRM_IOCTL_NPU_BO_INFO, &bi), -ENOENT,
			"BO_INFO: another open's handle -> ENOENT");
		npu_dev_close(d2);
	} else {
		tap_skip("cannot open twice", "BO_INFO: another open's handle");
	}

	memset(&w, 0, sizeof(w));
	w.handle = h;
	w.timeout_ns = t_past();
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_WAIT, &w), 0,
		"BO_WAIT: an idle buffer, deadline in the past -> 0");
	w.timeout_ns = -1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_WAIT, &w), -EINVAL,
		"BO_WAIT: negative timeout -> EINVAL");
	w.timeout_ns = t_in_ms(100);
	w.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_WAIT, &w), -EINVAL,
		"BO_WAIT: non-zero pad -> EINVAL");
	w.pad = 0;
	w.handle = 0xbeef;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_BO_WAIT, &w), -ENOENT,
		"BO_WAIT: unknown handle -> ENOENT");
	t_close_bo(T.d, h);
}

static void test_mem_stats(void)
{
	struct drm_npu_mem_stats a, b;
	uint32_t h;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_MEM_STATS, &a), 0,
		"MEM_STATS: succeeds");
	h = t_bo(T.d, 1 << 20);
	t_ioctl(T.d, DRM_IOCTL_NPU_MEM_STATS, &b);
	tap_ok(a.vram_total == T.info.vram_size &&
	       b.vram_used >= a.vram_used + (1 << 20) &&
	       b.file_used >= a.file_used + (1 << 20) &&
	       b.num_bos == a.num_bos + 1 &&
	       b.vram_used + b.vram_free == b.vram_total &&
	       b.largest_free <= b.vram_free,
	       "MEM_STATS: a 1 MiB buffer shows in used, file_used and num_bos");
	t_close_bo(T.d, h);
	memset(&a, 0, sizeof(a));
	a.reserved[0] = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_MEM_STATS, &a), -EINVAL,
		"MEM_STATS: non-zero reserved -> EINVAL");
}

/* Fragment VRAM, compact, and check a mapped buffer followed its move. */
static void test_compact(void)
{
	enum { N = 8, SZ = 256 << 10 };
	struct drm_npu_compact c;
	struct drm_npu_bo_info bi;
	uint32_t h[N], *p;
	bool intact = true;
	unsigned int i;
	int err;

	memset(&c, 0, sizeof(c));
	c.flags = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_COMPACT, &c), -EINVAL,
		"COMPACT: unknown flag -> EINVAL");
	c.flags = 0;
	c.pad = 1;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_COMPACT, &c), -EINVAL,
		"COMPACT: non-zero pad -> EINVAL");
	c.pad = 0;
	c.min_hole = T.info.vram_size * 2;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_COMPACT, &c), -ENOSPC,
		"COMPACT: a hole larger than VRAM -> ENOSPC");
	c.min_hole = 0;
	tap_err(t_ioctl(T.d, DRM_IOCTL_NPU_COMPACT, &c), 0,
		"COMPACT: whole pool succeeds");

	for (i = 0; i < N; i++)
		h[i] = t_bo(T.d, SZ);
	for (i = 0; i < N; i += 2) {
		t_close_bo(T.d, h[i]);
		h[i] = 0;
	}
	p = t_map(T.d, h[N - 1], SZ);
	if (!p) {
		tap_ok(false, "COMPACT: map the last buffer");
		goto out;
	}
	for (i = 0; i < SZ / 4; i++)
		p[i] = i ^ 0x5a5a5a5au;
	memset(&c, 0, sizeof(c));
	err = t_ioctl(T.d, DRM_IOCTL_NPU_COMPACT, &c);
	tap_err(err, 0, "COMPACT: after freeing every other buffer");
	tap_ok(c.largest_free >= (uint64_t)SZ * (N / 2),
	       "COMPACT: the holes merged (largest free %llu bytes)",
	       (unsigned long long)c.largest_free);
	for (i = 0; i < SZ / 4; i++)
		intact &= p[i] == (i ^ 0x5a5a5a5au);
	memset(&bi, 0, sizeof(bi));
	bi.handle = h[N - 1];
	t_ioctl(T.d, DRM_IOCTL_NPU_BO_INFO, &bi);
	tap_diag("compaction moved %llu bytes; the mapped buffer moved %llu times",
		 (unsigned long long)c.bytes_moved,
		 (unsigned long long)bi.moves);
	tap_ok(intact, "COMPACT: a mapped buffer reads its own bytes after the move");
	p[0] = 42;
	t_unmap(T.d, p, SZ);
	p = t_map(T.d, h[N - 1], SZ);
	tap_ok(p && p[0] == 42, "COMPACT: writes through the moved mapping reach the buffer");
	t_unmap(T.d, p, SZ);
out:
	for (i = 0; i < N; i++)
		t_close_bo(T.d, h[i]);
}


/* Per-file VRAM quota (test mode file_quota, applies to new opens). */
static void test_quota(void)
{
	struct drm_npu_bo_create c;
	struct drm_npu_mem_stats ms;
	struct npu_dev *d2;
	uint32_t h;

	if (t_control("file_quota", 64 << 10)) {
		tap_skip("no file_quota test mode", "BO_CREATE: beyond the file quota -> EDQUOT");
		return;
	}
	if (t_open_again(&d2)) {
		t_control("file_quota", T.info.file_vram_quota);
		tap_skip("cannot open twice", "BO_CREATE: beyond the file quota -> EDQUOT");
		return;
	}
	t_control("file_quota", T.info.file_vram_quota);
	h = t_bo(d2, 48 << 10);
	memset(&c, 0, sizeof(c));
	c.size = 32 << 10;
	tap_err(t_ioctl(d2, DRM_IOCTL_NPU_BO_CREATE, &c), -EDQUOT,
		"BO_CREATE: beyond the file quota -> EDQUOT");
	memset(&ms, 0, sizeof(ms));
	t_ioctl(d2, DRM_IOCTL_NPU_MEM_STATS, &ms);
	tap_ok(h && ms.file_quota == (64 << 10) && ms.file_used == (48 << 10),
	       "MEM_STATS: file_quota and file_used of the limited file");
	t_close_bo(d2, h);
	c.size = 64 << 10;
	tap_err(t_ioctl(d2, DRM_IOCTL_NPU_BO_CREATE, &c), 0,
		"BO_CREATE: freed quota can be used again");
	t_close_bo(d2, c.handle);
	npu_dev_close(d2);
}

/* PRIME: a kernel node shares buffers across files; in-process refuses. */
static void test_prime(void)
{
	struct drm_prime_handle ex, im;
	struct drm_npu_bo_info bi;
	struct npu_dev *d2;
	uint32_t h = t_bo(T.d, 8192);
	uint32_t *p, *q;

	memset(&ex, 0, sizeof(ex));
	ex.handle = h;
	ex.flags = DRM_CLOEXEC | DRM_RDWR;
	ex.flags = 0x40;
	tap_err(t_ioctl(T.d, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ex), -EINVAL,
		"PRIME: unknown export flag -> EINVAL");
	ex.flags = DRM_CLOEXEC | DRM_RDWR;
	ex.handle = 0xfff;
	tap_err(t_ioctl(T.d, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ex), -ENOENT,
		"PRIME: export of an unknown handle -> ENOENT");
	ex.handle = h;
	tap_err(t_ioctl(T.d, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ex), 0,
		"PRIME: export a buffer");
	if (t_open_again(&d2)) {
		tap_skip("cannot open twice", "PRIME: import in another file");
		goto out;
	}
	memset(&im, 0, sizeof(im));
	im.fd = ex.fd;
	im.flags = DRM_CLOEXEC;		/* import takes no flags */
	tap_err(t_ioctl(d2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im), -EINVAL,
		"PRIME: import with non-zero flags -> EINVAL");
	im.flags = 0;
	tap_err(t_ioctl(d2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im), 0,
		"PRIME: import it in another file");
	memset(&bi, 0, sizeof(bi));
	bi.handle = im.handle;
	t_ioctl(d2, DRM_IOCTL_NPU_BO_INFO, &bi);
	p = t_map(T.d, h, 8192);
	q = t_map(d2, im.handle, 8192);
	if (p && q)
		p[100] = 0xfeedbeef;
	tap_ok(bi.size == 8192 && p && q && q[100] == 0xfeedbeef,
	       "PRIME: both files see the same buffer");
	memset(&im, 0, sizeof(im));
	im.fd = ex.fd;
	{
		uint32_t first;

		t_ioctl(d2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im);
		first = im.handle;
		t_ioctl(d2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im);
		tap_ok(im.handle == first,
		       "PRIME: importing twice gives the same handle");
	}
	t_unmap(T.d, p, 8192);
	t_unmap(d2, q, 8192);
	t_close_bo(d2, im.handle);
	npu_dev_close(d2);
out:
	close(ex.fd);
	t_close_bo(T.d, h);
}

void test_device_bo(void)
{
	test_device_info();
	test_bo_create();
	test_gem_close();
	test_bo_mmap();
	test_bo_info_wait();
	test_mem_stats();
	test_compact();
	test_quota();
	test_prime();
}
