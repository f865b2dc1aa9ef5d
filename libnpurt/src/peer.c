// SPDX-License-Identifier: MIT
/*
 * peer.c - what libraries above the runtime (libnpucl, the collectives)
 * need from it: shareable device memory and peer imports (one device's
 * tasks reading and writing another device's memory, no host bounce),
 * device tasks launched on a stream, host functions in stream order.
 *
 * Shareable memory is a pinned buffer object of its own, outside the
 * caching allocator: a peer device addresses it in its owner's VRAM, which
 * compaction must therefore not move. A peer import is a handle of the
 * importing device to that buffer, made through PRIME (kernel: dma-buf;
 * in-process: the same devices' export table), not mappable through the
 * importer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_internal.h"

/* Tracks a dedicated buffer as a segment, so rt_mem_ptr() and the
 * context's teardown know it (context lock held). */
static int track_seg(npurt_context *ctx, uint32_t handle, uint64_t size,
		     void *map)
{
	if (ctx->num_segs == ctx->cap_segs) {
		uint32_t n = ctx->cap_segs ? ctx->cap_segs * 2 : 16;
		struct rt_seg *p = realloc(ctx->segs, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ctx->segs = p;
		ctx->cap_segs = n;
	}
	ctx->segs[ctx->num_segs++] = (struct rt_seg){ handle, size, map };
	return 0;
}

static npurt_mem *new_dedicated(npurt_context *ctx, uint32_t handle,
				uint64_t size, uint64_t requested, void *map,
				bool peer)
{
	npurt_mem *m = calloc(1, sizeof(*m));
	int ret;

	if (!m)
		return NULL;
	pthread_mutex_lock(&ctx->lock);
	ret = track_seg(ctx, handle, size, map);
	pthread_mutex_unlock(&ctx->lock);
	if (ret) {
		free(m);
		return NULL;
	}
	m->ctx = ctx;
	m->dedicated = true;
	m->peer = peer;
	m->own.seg = handle;
	m->own.size = size;
	m->own.requested = requested;
	m->block = &m->own;
	return m;
}

void rt_mem_free_dedicated(npurt_mem *m)
{
	npurt_context *ctx = m->ctx;
	struct rt_seg seg = { 0, 0, NULL };

	/* device work that uses it ends first */
	rt_bo_wait(ctx, (uint32_t)m->own.seg);
	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->num_segs; i++)
		if (ctx->segs[i].handle == m->own.seg) {
			seg = ctx->segs[i];
			ctx->segs[i] = ctx->segs[--ctx->num_segs];
			break;
		}
	ctx->num_frees++;
	pthread_mutex_unlock(&ctx->lock);
	rt_bo_destroy(ctx, seg.handle, seg.map, seg.size);
	free(m);
}

NPURT_API npurt_status npurt_mem_alloc_shareable(npurt_context *ctx,
						 size_t size,
						 npurt_mem **out)
{
	struct drm_npu_bo_create c;
	struct drm_npu_bo_mmap_offset mo;
	void *map = NULL;
	npurt_mem *m;
	int ret;

	if (!ctx || !out || !size)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context, a pointer and a size > 0",
			       "bad arguments (size %zu)", size);
	memset(&c, 0, sizeof(c));
	c.size = size;
	c.flags = DRM_NPU_BO_PINNED;
	ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_BO_CREATE, &c);
	if (ret)
		return rt_fail_bo(ctx, __func__, ret, size,
				  "allocating shareable device memory");
	memset(&mo, 0, sizeof(mo));
	mo.handle = c.handle;
	ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &mo);
	if (!ret)
		map = npu_dev_mmap(ctx->nd, mo.offset, (size_t)c.size);
	m = map ? new_dedicated(ctx, c.handle, c.size, size, map, false) :
		  NULL;
	if (!m) {
		rt_bo_destroy(ctx, c.handle, map, c.size);
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "cannot map or track shareable memory");
	}
	pthread_mutex_lock(&ctx->lock);
	ctx->num_allocs++;
	pthread_mutex_unlock(&ctx->lock);
	*out = m;
	return NPURT_OK;
}

NPURT_API npurt_status npurt_mem_import_peer(npurt_context *ctx,
					     npurt_mem *peer,
					     npurt_mem **out)
{
	struct drm_prime_handle ex, im;
	npurt_mem *m;
	int ret;

	if (!ctx || !peer || !out)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context, a peer block and a pointer",
			       "bad arguments");
	if (!peer->dedicated || peer->peer)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "allocate it with npurt_mem_alloc_shareable()",
			       "the peer block is not shareable memory");
	memset(&ex, 0, sizeof(ex));
	ex.handle = (uint32_t)peer->own.seg;
	ex.flags = DRM_CLOEXEC | DRM_RDWR;
	ret = npu_dev_ioctl(peer->ctx->nd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ex);
	if (ret)
		return RT_ERRNO(ret, "exporting the peer's memory");
	memset(&im, 0, sizeof(im));
	im.fd = ex.fd;
	ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im);
	close(ex.fd);
	if (ret)
		return RT_FAIL(NPURT_ERR_UNSUPPORTED,
			       "both devices must be NPUs of this host (npu_drv "
			       "nodes or in-process devices of one process)",
			       "importing a peer's memory: %s", strerror(-ret));
	/* the same buffer twice in one context: one handle, one tracking */
	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->num_segs; i++)
		if (ctx->segs[i].handle == im.handle) {
			pthread_mutex_unlock(&ctx->lock);
			return RT_FAIL(NPURT_ERR_INVALID,
				       "import a peer's block once per context",
				       "this context has that buffer already");
		}
	pthread_mutex_unlock(&ctx->lock);
	m = new_dedicated(ctx, im.handle, peer->own.size, peer->own.requested,
			  NULL, true);
	if (!m) {
		rt_bo_destroy(ctx, im.handle, NULL, 0);
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	}
	*out = m;
	return NPURT_OK;
}

NPURT_API npurt_status npurt_launch_tasks(npurt_stream *s, const void *tasks,
					  uint32_t num_tasks,
					  npurt_mem *const *mems,
					  uint32_t num_mems)
{
	struct drm_npu_program_create pc;
	struct drm_npu_program_destroy pd;
	struct drm_npu_task *t;
	uint64_t need[DRM_NPU_MAX_SLOTS];
	uint32_t bos[DRM_NPU_MAX_SLOTS];
	struct rt_submit j;
	npurt_status st;
	int ret;

	if (!s || !tasks || !num_tasks || num_mems > DRM_NPU_MAX_SLOTS ||
	    (num_mems && !mems))
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a stream, tasks and at most 256 blocks",
			       "bad arguments");
	for (uint32_t i = 0; i < num_mems; i++)
		if (!mems[i] || mems[i]->ctx != s->ctx)
			return RT_FAIL(NPURT_ERR_INVALID,
				       "pass blocks of the stream's context",
				       "block %u is NULL or of another context",
				       i);
	st = rt_stream_check_fault(s, __func__);
	if (st)
		return st;
	t = malloc((size_t)num_tasks * sizeof(*t));
	if (!t)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	memcpy(t, tasks, (size_t)num_tasks * sizeof(*t));
	/* operand offsets are relative to the block: make them the BO's */
	for (uint32_t i = 0; i < num_tasks; i++)
		for (uint32_t k = 0; k < t[i].num_operands &&
		     k < DRM_NPU_MAX_OPERANDS; k++) {
			struct drm_npu_operand *o = &t[i].operands[k];

			if (o->slot >= num_mems) {
				free(t);
				return RT_FAIL(NPURT_ERR_INVALID,
					       "name a slot below num_mems",
					       "task %u operand %u: slot %u",
					       i, k, o->slot);
			}
			o->offset += mems[o->slot]->block->offset;
		}
	memset(&pc, 0, sizeof(pc));
	pc.tasks_ptr = (uintptr_t)t;
	pc.num_tasks = num_tasks;
	pc.task_size = sizeof(*t);
	pc.slot_sizes_ptr = (uintptr_t)need;
	pc.max_slot_sizes = DRM_NPU_MAX_SLOTS;
	ret = npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc);
	free(t);
	if (ret)
		return rt_fail(NPURT_ERR_INVALID, __func__,
			       "check the tasks against the uapi",
			       "the device refused task %u (operand %d): %s",
			       pc.error_task, (int)pc.error_operand,
			       strerror(-ret));
	st = NPURT_OK;
	for (uint32_t i = 0; i < pc.num_slots && !st; i++) {
		const struct npurt_block *b = mems[i]->block;

		/* a block is a window of its segment: stay inside it */
		if (need[i] > b->offset + b->requested)
			st = RT_FAIL(NPURT_ERR_INVALID,
				     "keep every operand inside its block",
				     "slot %u needs %llu bytes of a %llu-byte "
				     "block", i,
				     (unsigned long long)(need[i] - b->offset),
				     (unsigned long long)b->requested);
		bos[i] = (uint32_t)b->seg;
	}
	if (!st) {
		pthread_mutex_lock(&s->ctx->lock);
		for (uint32_t i = 0; i < num_mems; i++)
			rt_mem_record_stream(s->ctx, mems[i], s->id);
		pthread_mutex_unlock(&s->ctx->lock);
		memset(&j, 0, sizeof(j));
		j.program = pc.handle;
		j.bos = bos;
		j.num_bos = pc.num_slots;
		j.timeline = true;
		j.take_event_waits = true;
		pthread_mutex_lock(&s->lock);
		st = rt_stream_submit_locked(s, &j, NULL);
		pthread_mutex_unlock(&s->lock);
	}
	/* the job holds its own reference to the program */
	memset(&pd, 0, sizeof(pd));
	pd.handle = pc.handle;
	npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_PROGRAM_DESTROY, &pd);
	if (!st && rt_launch_blocking())
		st = rt_stream_sync(s, __func__);
	return st;
}

NPURT_API npurt_status npurt_launch_host_func(npurt_stream *s,
					      npurt_host_fn fn, void *user)
{
	struct rt_host_op *op;
	npurt_status st;

	if (!s || !fn)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a stream and a function",
			       "stream or fn is NULL");
	st = rt_stream_check_fault(s, __func__);
	if (st)
		return st;
	op = calloc(1, sizeof(*op));
	if (!op)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	op->fn = fn;
	op->user = user;
	op->fill = -1;
	pthread_mutex_lock(&s->lock);
	st = rt_stream_host_op_locked(s, op);
	pthread_mutex_unlock(&s->lock);
	if (!st && rt_launch_blocking())
		st = rt_stream_sync(s, __func__);
	return st;
}
