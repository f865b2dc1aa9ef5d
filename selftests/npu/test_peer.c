// SPDX-License-Identifier: MIT
/*
 * test_peer.c - peer access between two devices of one host: a pinned
 * buffer of device A, exported through PRIME and imported by device B, is
 * read and written by B's tasks in A's VRAM (no host copy in between).
 *
 * The second device: for a kernel node another npu_drv render node (the
 * module loaded with num_devices >= 2), for the in-process device "sim:1"
 * (NPU_SIM_DEVICES >= 2). Skipped when there is none.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <string.h>
#include <unistd.h>

#include "npu_test.h"

#define PEER_BYTES	(64u << 10)

/* Another device than T.d, or -ENODEV. */
static int open_peer(struct npu_dev **out)
{
	glob_t g;
	size_t i;
	int err = -ENODEV;

	if (!npu_dev_is_kernel(T.d))
		return npu_dev_open("sim:1", out);
	if (glob("/dev/dri/renderD*", 0, NULL, &g))
		return -ENODEV;
	for (i = 0; i < g.gl_pathc && err; i++)
		if (strcmp(g.gl_pathv[i], npu_dev_name(T.d)))
			err = npu_dev_open(g.gl_pathv[i], out);
	globfree(&g);
	return err;
}

static uint32_t bo_pinned(struct npu_dev *d, uint64_t size)
{
	struct drm_npu_bo_create c = { .size = size,
				       .flags = DRM_NPU_BO_PINNED };

	return t_ioctl(d, DRM_IOCTL_NPU_BO_CREATE, &c) ? 0 : c.handle;
}

static int prime_export(struct npu_dev *d, uint32_t handle)
{
	struct drm_prime_handle ex = { .handle = handle,
				       .flags = DRM_CLOEXEC | DRM_RDWR };

	return t_ioctl(d, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ex) ? -1 : ex.fd;
}

static int prime_import(struct npu_dev *d, int fd, uint32_t *handle)
{
	struct drm_prime_handle im = { .fd = fd };
	int err = t_ioctl(d, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im);

	*handle = err ? 0 : im.handle;
	return err;
}

/* One COPY of PEER_BYTES from slot 0 to slot 1 on @d. */
static int run_copy(struct npu_dev *d, uint32_t src, uint32_t dst)
{
	struct drm_npu_task t = t_copy(0, 0, 1, 0, PEER_BYTES / 4);
	uint32_t prog, q, bos[2] = { src, dst };
	uint64_t fence;
	int err;

	err = t_prog(d, &t, 1, &prog);
	if (err)
		return err;
	q = t_queue(d, DRM_NPU_PRIORITY_NORMAL);
	err = t_submit(d, q, prog, bos, 2, &fence);
	if (!err)
		err = t_wait(d, q, fence, 10000);
	t_queue_destroy(d, q);
	t_prog_destroy(d, prog);
	return err;
}

void test_peer(void)
{
	struct drm_npu_bo_mmap_offset mo;
	struct drm_npu_bo_info bi;
	struct npu_dev *b;
	uint32_t ha, hu, hb, hpa = 0, hpu, i;
	uint32_t *pa, *pb;
	int fd, fdu, err, same = 1;

	err = open_peer(&b);
	if (err) {
		tap_skip("no second device (num_devices=2 / NPU_SIM_DEVICES=2)",
			 "peer: buffers shared between two devices");
		return;
	}
	tap_diag("peer device: %s", npu_dev_name(b));
	ha = bo_pinned(T.d, PEER_BYTES);
	hu = t_bo(T.d, PEER_BYTES);
	hb = t_bo(b, PEER_BYTES);
	pa = t_map(T.d, ha, PEER_BYTES);
	pb = t_map(b, hb, PEER_BYTES);
	if (!ha || !hu || !hb || !pa || !pb) {
		tap_ok(false, "peer: buffers created and mapped");
		goto out;
	}
	for (i = 0; i < PEER_BYTES / 4; i++)
		pa[i] = i * 2654435761u;

	fdu = prime_export(T.d, hu);
	tap_err(prime_import(b, fdu, &hpu), -EINVAL,
		"peer: an unpinned buffer cannot be imported by another device");
	if (fdu >= 0)
		close(fdu);
	fd = prime_export(T.d, ha);
	tap_err(prime_import(b, fd, &hpa), 0,
		"peer: a pinned buffer is imported by another device");
	if (fd >= 0)
		close(fd);
	if (!hpa)
		goto out;
	memset(&mo, 0, sizeof(mo));
	mo.handle = hpa;
	tap_err(t_ioctl(b, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &mo), -EINVAL,
		"peer: not mappable through the importing device");
	memset(&bi, 0, sizeof(bi));
	bi.handle = hpa;
	tap_ok(!t_ioctl(b, DRM_IOCTL_NPU_BO_INFO, &bi) &&
	       bi.size == PEER_BYTES && (bi.flags & DRM_NPU_BO_PINNED),
	       "peer: BO_INFO reports the owner's buffer");

	/* B reads A's VRAM */
	tap_err(run_copy(b, hpa, hb), 0, "peer: B copies from A's buffer");
	for (i = 0; i < PEER_BYTES / 4; i++)
		same &= pb[i] == i * 2654435761u;
	tap_ok(same, "peer: B's copy holds A's bytes");

	/* B writes A's VRAM */
	for (i = 0; i < PEER_BYTES / 4; i++)
		pb[i] = ~i;
	tap_err(run_copy(b, hb, hpa), 0, "peer: B copies into A's buffer");
	same = 1;
	for (i = 0; i < PEER_BYTES / 4; i++)
		same &= pa[i] == ~i;
	tap_ok(same, "peer: A sees what B's task wrote");

	/* the importer's handle keeps the buffer after the owner closes its */
	t_unmap(T.d, pa, PEER_BYTES);
	pa = NULL;
	t_close_bo(T.d, ha);
	ha = 0;
	tap_err(run_copy(b, hpa, hb), 0,
		"peer: the import outlives the owner's handle");
	same = 1;
	for (i = 0; i < PEER_BYTES / 4; i++)
		same &= pb[i] == ~i;
	tap_ok(same, "peer: ... with the bytes B wrote");
out:
	if (pa)
		t_unmap(T.d, pa, PEER_BYTES);
	if (pb)
		t_unmap(b, pb, PEER_BYTES);
	if (hpa)
		t_close_bo(b, hpa);
	if (hb)
		t_close_bo(b, hb);
	if (hu)
		t_close_bo(T.d, hu);
	if (ha)
		t_close_bo(T.d, ha);
	npu_dev_close(b);
}
