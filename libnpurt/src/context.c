// SPDX-License-Identifier: MIT
/*
 * context.c - contexts: one DRM file each, with its caching allocator,
 * buffer-object mappings and the objects created in it.
 */
#include <errno.h>
#include <stdio.h>
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

/* "12.0 MiB", "512 B": for messages. */
static const char *human(uint64_t v, char *buf, size_t len)
{
	if (v >= (1ull << 30))
		snprintf(buf, len, "%.1f GiB", (double)v / (1ull << 30));
	else if (v >= (1ull << 20))
		snprintf(buf, len, "%.1f MiB", (double)v / (1ull << 20));
	else if (v >= 1024)
		snprintf(buf, len, "%.1f KiB", (double)v / 1024);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	return buf;
}

npurt_status rt_fail_bo(npurt_context *ctx, const char *func, int err,
			uint64_t size, const char *what)
{
	struct drm_npu_mem_stats ms;
	char asked[32], total[32], free_b[32], largest[32], used[32], quota[32];
	const char *action;

	if (err < 0)
		err = -err;
	if (err != ENOSPC && err != ENOMEM && err != E2BIG && err != EDQUOT)
		return rt_fail_errno(func, err, what);
	human(size, asked, sizeof(asked));
	memset(&ms, 0, sizeof(ms));
	if (npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_MEM_STATS, &ms))
		return rt_fail(NPURT_ERR_DEVICE_NOMEM, func,
			       "free device memory (unload models, "
			       "npurt_mem_empty_cache) or use a smaller batch",
			       "%s: device out of memory: asked for %s (%llu "
			       "bytes)", what, asked, (unsigned long long)size);
	human(ms.vram_total, total, sizeof(total));
	human(ms.vram_free, free_b, sizeof(free_b));
	human(ms.largest_free, largest, sizeof(largest));
	human(ms.file_used, used, sizeof(used));
	human(ms.file_quota, quota, sizeof(quota));
	/* npurt_error.action holds 191 characters. */
	if (size > ms.vram_total)
		action = "larger than the whole device: use one with more VRAM "
			 "(NPU_SIM_VRAM_MB for the in-process device, vram_mb= "
			 "for npu_drv) or a smaller batch or input shape";
	else if (err == EDQUOT ||
		 (ms.file_quota && ms.file_used + size > ms.file_quota))
		action = "this process reached its share of the device memory: "
			 "free what it no longer needs, or raise the share "
			 "(npu_drv: file_vram_pct=)";
	else
		action = "free device memory (unload models, "
			 "npurt_mem_empty_cache; npu-smi shows who holds it) "
			 "or use a smaller batch";
	return rt_fail(NPURT_ERR_DEVICE_NOMEM, func, action,
		       "%s: device out of memory: asked for %s (%llu bytes); "
		       "device: %s in all, %s free, largest free range %s; "
		       "this process holds %s%s%s", what, asked,
		       (unsigned long long)size, total, free_b, largest, used,
		       ms.file_quota ? " of its share of " : "",
		       ms.file_quota ? quota : "");
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
