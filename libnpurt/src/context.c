// SPDX-License-Identifier: MIT
/*
 * context.c - contexts: one DRM file each, with its caching allocator,
 * buffer-object mappings and the objects created in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rt_internal.h"

int rt_ctx_track(void *arrp, uint32_t *num, uint32_t *cap, void *obj)
{
	void ***arr = arrp;

	if (*num == *cap) {
		uint32_t n = *cap ? *cap * 2 : 8;
		void **p = realloc(*arr, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*arr = p;
		*cap = n;
	}
	(*arr)[(*num)++] = obj;
	return 0;
}

void rt_ctx_untrack(void **arr, uint32_t *num, void *obj)
{
	for (uint32_t i = 0; i < *num; i++)
		if (arr[i] == obj) {
			arr[i] = arr[--(*num)];
			return;
		}
}

int rt_bo_create(npurt_context *ctx, uint64_t size, uint32_t *handle,
		 void **map)
{
	struct drm_npu_bo_create c = { .size = size ? size : 1 };
	struct drm_npu_bo_mmap_offset mo;
	struct drm_gem_close gc;
	int ret;

	ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_BO_CREATE, &c);
	if (ret)
		return ret;
	if (map) {
		memset(&mo, 0, sizeof(mo));
		mo.handle = c.handle;
		ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &mo);
		*map = ret ? NULL : npu_dev_mmap(ctx->nd, mo.offset,
						 (size_t)c.size);
		if (!*map) {
			memset(&gc, 0, sizeof(gc));
			gc.handle = c.handle;
			npu_dev_ioctl(ctx->nd, DRM_IOCTL_GEM_CLOSE, &gc);
			return ret ? ret : -ENOMEM;
		}
	}
	*handle = c.handle;
	return 0;
}

void rt_bo_destroy(npurt_context *ctx, uint32_t handle, void *map,
		   uint64_t size)
{
	struct drm_gem_close gc;

	if (!handle)
		return;
	if (map)
		npu_dev_munmap(ctx->nd, map, (size_t)(size ? size : 1));
	memset(&gc, 0, sizeof(gc));
	gc.handle = handle;
	npu_dev_ioctl(ctx->nd, DRM_IOCTL_GEM_CLOSE, &gc);
}

int rt_bo_wait(npurt_context *ctx, uint32_t handle)
{
	struct drm_npu_bo_wait w = { .handle = handle };
	int ret;

	do {
		w.timeout_ns = rt_deadline_ms(1000);
		ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_BO_WAIT, &w);
	} while (ret == -ETIME);
	return ret;
}

uint8_t *rt_seg_map(npurt_context *ctx, uint32_t handle, uint64_t *size)
{
	for (uint32_t i = 0; i < ctx->num_segs; i++)
		if (ctx->segs[i].handle == handle) {
			if (size)
				*size = ctx->segs[i].size;
			return ctx->segs[i].map;
		}
	return NULL;
}

static npurt_status make_nop_program(npurt_context *ctx)
{
	struct drm_npu_task t;
	struct drm_npu_program_create pc;
	int ret;

	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_NOP;
	memset(&pc, 0, sizeof(pc));
	pc.tasks_ptr = (uintptr_t)&t;
	pc.num_tasks = 1;
	pc.task_size = sizeof(t);
	ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc);
	if (ret)
		return RT_ERRNO(ret, "registering the NOP program");
	ctx->nop_prog = pc.handle;
	return NPURT_OK;
}

NPURT_API npurt_status npurt_context_create(npurt_device *dev, uint32_t flags,
					    npurt_context **out)
{
	npurt_context *ctx;
	npurt_status st;
	int ret;

	if (!dev || !out || flags)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass an open device, a pointer and flags 0",
			       "bad arguments (dev %p, out %p, flags 0x%x)",
			       (void *)dev, (void *)out, flags);
	st = rt_check_init(__func__);
	if (st)
		return st;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory for a context");
	ctx->dev = dev;
	pthread_mutex_init(&ctx->lock, NULL);
	ret = npu_dev_open(dev->spec, &ctx->nd);
	if (ret) {
		free(ctx);
		return RT_FAIL(NPURT_ERR_NO_DEVICE,
			       "check the device (npu-smi) and permissions on "
			       "its node", "cannot open %s: %s", dev->spec,
			       strerror(-ret));
	}
	st = make_nop_program(ctx);
	if (!st)
		st = rt_alloc_init(ctx);
	if (!st)
		st = rt_stream_create(ctx, NPURT_PRIORITY_NORMAL,
				      &ctx->sync_stream);
	if (st) {
		if (ctx->alloc)
			npurt_alloc_destroy(ctx->alloc);
		npu_dev_close(ctx->nd);
		free(ctx);
		return st;
	}
	*out = ctx;
	rt_log("context %p on %s", (void *)ctx, dev->info.name);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_context_synchronize(npurt_context *ctx)
{
	npurt_status first = NPURT_OK, st;
	npurt_stream **list;
	uint32_t n;

	if (!ctx)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a context",
			       "ctx is NULL");
	pthread_mutex_lock(&ctx->lock);
	n = ctx->num_streams;
	list = malloc((n + 1) * sizeof(*list));
	if (list && n)
		memcpy(list, ctx->streams, n * sizeof(*list));
	pthread_mutex_unlock(&ctx->lock);
	if (!list)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	list[n++] = ctx->sync_stream;
	for (uint32_t i = 0; i < n; i++) {
		st = rt_stream_sync(list[i], __func__);
		if (st && !first)
			first = st;
	}
	free(list);
	return first;
}

NPURT_API npurt_status npurt_context_destroy(npurt_context *ctx)
{
	struct drm_npu_program_destroy pd;

	if (!ctx)
		return NPURT_OK;
	npurt_context_synchronize(ctx);
	rt_op_cache_destroy(ctx);
	while (ctx->num_models)
		npurt_model_unload(ctx->models[ctx->num_models - 1]);
	while (ctx->num_streams)
		npurt_stream_destroy(ctx->streams[ctx->num_streams - 1]);
	rt_stream_free(ctx->sync_stream);
	npurt_alloc_destroy(ctx->alloc);
	memset(&pd, 0, sizeof(pd));
	pd.handle = ctx->nop_prog;
	npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_PROGRAM_DESTROY, &pd);
	for (uint32_t i = 0; i < ctx->num_segs; i++)
		rt_bo_destroy(ctx, ctx->segs[i].handle, ctx->segs[i].map,
			      ctx->segs[i].size);
	free(ctx->segs);
	free(ctx->streams);
	free(ctx->models);
	free(ctx->live);
	npu_dev_close(ctx->nd);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
	return NPURT_OK;
}
