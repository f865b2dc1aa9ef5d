// SPDX-License-Identifier: MIT
/*
 * mem.c - device memory through the caching allocator (npurt_alloc, segments = buffer objects mapped once), pinned host memory
 * on the device's NUMA node, and the copies.
 */
#include <errno.h>
#include <numa.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rt_internal.h"

/* ---- allocator backend: segments are buffer objects ---- */

static int be_seg_alloc(void *arg, uint64_t size, uint64_t *seg,
			uint64_t *addr)
{
	npurt_context *ctx = arg;
	uint32_t handle;
	void *map;
	int ret;

	if (ctx->num_segs == ctx->cap_segs) {
		uint32_t n = ctx->cap_segs ? ctx->cap_segs * 2 : 16;
		struct rt_seg *p = realloc(ctx->segs, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ctx->segs = p;
		ctx->cap_segs = n;
	}
	ret = rt_bo_create(ctx, size, &handle, &map);
	/* Larger than the VRAM (E2BIG) is out of memory too: the
	 * allocator's report names the sizes. */
	if (ret)
		return ret == -ENOSPC || ret == -E2BIG ? -ENOMEM : ret;
	ctx->segs[ctx->num_segs++] = (struct rt_seg){ handle, size, map };
	*seg = handle;
	*addr = 0;
	return 0;
}

static void be_seg_free(void *arg, uint64_t seg)
{
	npurt_context *ctx = arg;

	for (uint32_t i = 0; i < ctx->num_segs; i++)
		if (ctx->segs[i].handle == seg) {
			rt_bo_wait(ctx, ctx->segs[i].handle);
			rt_bo_destroy(ctx, ctx->segs[i].handle,
				      ctx->segs[i].map, ctx->segs[i].size);
			ctx->segs[i] = ctx->segs[--ctx->num_segs];
			return;
		}
}

static int be_compact(void *arg, uint64_t min_hole)
{
	npurt_context *ctx = arg;
	struct drm_npu_compact c = { .min_hole = min_hole };

	return npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_COMPACT, &c);
}

static int be_query(void *arg, struct npurt_alloc_device_info *info)
{
	npurt_context *ctx = arg;
	struct drm_npu_mem_stats ms;
	int ret;

	memset(&ms, 0, sizeof(ms));
	ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_MEM_STATS, &ms);
	if (ret)
		return ret;
	info->total = ms.vram_total;
	info->free = ms.vram_free;
	info->largest_free = ms.largest_free;
	return 0;
}

struct be_event {
	uint32_t sem;
	uint64_t value;
};

/*
 * A point on the stream's timeline: everything submitted so far. Called
 * with the context lock held. A stream that is gone was synchronised when
 * it was destroyed: its point is complete (sem 0).
 */
static uint64_t be_event_record(void *arg, uint64_t stream)
{
	npurt_stream *s = rt_stream_by_id(arg, stream);
	struct be_event *e = calloc(1, sizeof(*e));

	if (!e)
		return 0;
	if (s) {
		pthread_mutex_lock(&s->lock);
		e->sem = s->sem;
		e->value = s->seq;
		pthread_mutex_unlock(&s->lock);
	}
	return (uint64_t)(uintptr_t)e;
}

static int be_event_query(void *arg, uint64_t event)
{
	npurt_context *ctx = arg;
	struct be_event *e = (struct be_event *)(uintptr_t)event;
	struct drm_npu_sem_query q;

	if (!e->sem)
		return 1;
	memset(&q, 0, sizeof(q));
	q.handle = e->sem;
	if (npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_SEM_QUERY, &q))
		return 1;	/* the stream is gone: nothing to wait for */
	return q.value >= e->value;
}

static void be_event_release(void *arg, uint64_t event)
{
	(void)arg;
	free((void *)(uintptr_t)event);
}

npurt_status rt_alloc_init(npurt_context *ctx)
{
	struct npurt_alloc_backend be = {
		.ctx = ctx,
		.seg_alloc = be_seg_alloc,
		.seg_free = be_seg_free,
		.compact = be_compact,
		.query = be_query,
		.event_record = be_event_record,
		.event_query = be_event_query,
		.event_release = be_event_release,
	};

	ctx->alloc = npurt_alloc_create(&be, NULL);
	if (!ctx->alloc)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "cannot create the caching allocator");
	return NPURT_OK;
}

uint8_t *rt_mem_ptr(const npurt_mem *m)
{
	uint8_t *base = rt_seg_map(m->ctx, (uint32_t)m->block->seg, NULL);

	return base ? base + m->block->offset : NULL;
}

/* ---- public: device memory ---- */

/*
 * True when an allocation of @size failed for the device's limits rather
 * than the free memory: larger than the VRAM or over the per-file share.
 */
static bool nomem_of_device(npurt_context *ctx, uint64_t size)
{
	struct drm_npu_mem_stats ms;

	memset(&ms, 0, sizeof(ms));
	if (npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_MEM_STATS, &ms))
		return false;
	return size > ms.vram_total ||
	       (ms.file_quota && ms.file_used + size > ms.file_quota);
}

NPURT_API npurt_status npurt_mem_alloc(npurt_context *ctx, size_t size,
				       npurt_mem **out)
{
	npurt_mem *m;
	int ret;

	if (!ctx || !out || !size)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context, a pointer and a size > 0",
			       "bad arguments (size %zu)", size);
	m = calloc(1, sizeof(*m));
	if (!m)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	m->ctx = ctx;
	pthread_mutex_lock(&ctx->lock);
	ret = npurt_alloc_malloc(ctx->alloc, size, 0, &m->block);
	if (ret == -ENOMEM && nomem_of_device(ctx, size)) {
		/* larger than the device, or over this process's share:
		 * the device's figures say it better than the cache's */
		npurt_status st = rt_fail_bo(ctx, __func__, -EDQUOT, size,
					     "allocating device memory");

		pthread_mutex_unlock(&ctx->lock);
		free(m);
		return st;
	}
	if (ret) {
		npurt_status st = RT_FAIL(
			ret == -ENOMEM ? NPURT_ERR_DEVICE_NOMEM :
					 NPURT_ERR_INVALID,
			"free device memory or unload models; see "
			"npurt_mem_get_stats",
			"allocating %zu bytes: %s", size,
			npurt_alloc_last_error(ctx->alloc));

		pthread_mutex_unlock(&ctx->lock);
		free(m);
		return st;
	}
	ctx->num_allocs++;
	pthread_mutex_unlock(&ctx->lock);
	*out = m;
	return NPURT_OK;
}

NPURT_API npurt_status npurt_mem_free(npurt_mem *mem)
{
	npurt_context *ctx;

	if (!mem)
		return NPURT_OK;
	if (mem->dedicated) {
		rt_mem_free_dedicated(mem);
		return NPURT_OK;
	}
	ctx = mem->ctx;
	pthread_mutex_lock(&ctx->lock);
	npurt_alloc_free(ctx->alloc, mem->block);
	ctx->num_frees++;
	pthread_mutex_unlock(&ctx->lock);
	free(mem);
	return NPURT_OK;
}

NPURT_API size_t npurt_mem_size(const npurt_mem *mem)
{
	return mem ? (size_t)mem->block->requested : 0;
}

NPURT_API npurt_status npurt_mem_empty_cache(npurt_context *ctx)
{
	if (!ctx)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a context",
			       "ctx is NULL");
	pthread_mutex_lock(&ctx->lock);
	npurt_alloc_empty_cache(ctx->alloc);
	pthread_mutex_unlock(&ctx->lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_mem_set_fraction(npurt_context *ctx,
					      double fraction)
{
	int ret;

	if (!ctx)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a context",
			       "ctx is NULL");
	pthread_mutex_lock(&ctx->lock);
	ret = npurt_alloc_set_memory_fraction(ctx->alloc, fraction);
	pthread_mutex_unlock(&ctx->lock);
	if (ret)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a fraction greater than 0 and at most 1",
			       "memory fraction %g is outside (0, 1]",
			       fraction);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_mem_reset_peak_stats(npurt_context *ctx)
{
	if (!ctx)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a context",
			       "ctx is NULL");
	pthread_mutex_lock(&ctx->lock);
	npurt_alloc_reset_peak_stats(ctx->alloc);
	pthread_mutex_unlock(&ctx->lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_mem_foreach_stat(npurt_context *ctx,
					      int (*fn)(void *arg,
							const char *key,
							int64_t value),
					      void *arg)
{
	if (!ctx || !fn)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a context and a callback",
			       "bad arguments");
	pthread_mutex_lock(&ctx->lock);
	if (!npurt_alloc_memory_stats(ctx->alloc, fn, arg) &&
	    !fn(arg, "host_to_device_bytes",
		(int64_t)__atomic_load_n(&ctx->h2d_bytes, __ATOMIC_RELAXED)))
		fn(arg, "device_to_host_bytes",
		   (int64_t)__atomic_load_n(&ctx->d2h_bytes,
					    __ATOMIC_RELAXED));
	pthread_mutex_unlock(&ctx->lock);
	return NPURT_OK;
}

static int64_t stat_of(npurt_context *ctx, const char *key)
{
	int64_t v = 0;

	npurt_alloc_stat(ctx->alloc, key, &v);
	return v;
}

NPURT_API npurt_status npurt_mem_get_stats(npurt_context *ctx,
					   npurt_mem_stats *s)
{
	struct drm_npu_mem_stats ms;
	int ret;

	if (!ctx || !s)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a context and a struct",
			       "bad arguments");
	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&ctx->lock);
	s->allocated_bytes_current =
		stat_of(ctx, "allocated_bytes.all.current");
	s->allocated_bytes_peak = stat_of(ctx, "allocated_bytes.all.peak");
	s->reserved_bytes_current = stat_of(ctx, "reserved_bytes.all.current");
	s->reserved_bytes_peak = stat_of(ctx, "reserved_bytes.all.peak");
	s->num_alloc_retries = stat_of(ctx, "num_alloc_retries");
	s->num_ooms = stat_of(ctx, "num_ooms");
	s->num_allocs = ctx->num_allocs;
	s->num_frees = ctx->num_frees;
	s->model_bytes = ctx->model_bytes;
	pthread_mutex_unlock(&ctx->lock);
	memset(&ms, 0, sizeof(ms));
	ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_MEM_STATS, &ms);
	if (ret)
		return RT_ERRNO(ret, "reading device memory statistics");
	s->device_total = ms.vram_total;
	s->device_used = ms.vram_used;
	s->device_largest_free = ms.largest_free;
	s->device_peak_used = ms.peak_used;
	s->device_compactions = ms.compactions;
	s->context_used = ms.file_used;
	return NPURT_OK;
}

/* ---- pinned host memory ---- */

struct host_block {
	void *ptr;
	size_t size;
	bool numa;
};

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static struct host_block *host_blocks;
static uint32_t num_host, cap_host;

NPURT_API npurt_status npurt_host_alloc(npurt_context *ctx, size_t size,
					void **ptr)
{
	int node = ctx ? ctx->dev->info.numa_node : -1;
	struct host_block hb = { NULL, size, false };

	if (!ctx || !ptr || !size)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context, a pointer and a size > 0",
			       "bad arguments");
	if (numa_available() >= 0 && node >= 0) {
		hb.ptr = numa_alloc_onnode(size, node);
		hb.numa = hb.ptr != NULL;
	}
	if (!hb.ptr) {
		hb.ptr = mmap(NULL, size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (hb.ptr == MAP_FAILED)
			hb.ptr = NULL;
	}
	if (!hb.ptr)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "cannot allocate %zu bytes of host memory", size);
	/* Page-locked when the memlock limit allows; fine otherwise. */
	(void)mlock(hb.ptr, size);
	pthread_mutex_lock(&host_lock);
	if (num_host == cap_host) {
		uint32_t n = cap_host ? cap_host * 2 : 16;
		struct host_block *p = realloc(host_blocks, n * sizeof(*p));

		if (!p) {
			pthread_mutex_unlock(&host_lock);
			munlock(hb.ptr, size);
			if (hb.numa)
				numa_free(hb.ptr, size);
			else
				munmap(hb.ptr, size);
			return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
				       "out of memory");
		}
		host_blocks = p;
		cap_host = n;
	}
	host_blocks[num_host++] = hb;
	pthread_mutex_unlock(&host_lock);
	*ptr = hb.ptr;
	return NPURT_OK;
}

NPURT_API npurt_status npurt_host_free(npurt_context *ctx, void *ptr)
{
	(void)ctx;
	if (!ptr)
		return NPURT_OK;
	pthread_mutex_lock(&host_lock);
	for (uint32_t i = 0; i < num_host; i++) {
		struct host_block hb = host_blocks[i];

		if (hb.ptr != ptr)
			continue;
		host_blocks[i] = host_blocks[--num_host];
		pthread_mutex_unlock(&host_lock);
		munlock(hb.ptr, hb.size);
		if (hb.numa)
			numa_free(hb.ptr, hb.size);
		else
			munmap(hb.ptr, hb.size);
		return NPURT_OK;
	}
	pthread_mutex_unlock(&host_lock);
	return RT_FAIL(NPURT_ERR_INVALID,
		       "free only pointers from npurt_host_alloc",
		       "%p was not allocated by npurt_host_alloc", ptr);
}

/* ---- copies ---- */

static npurt_status check_range(const npurt_mem *m, size_t off, size_t size,
				const char *func, const char *what)
{
	if (!m)
		return rt_fail(NPURT_ERR_INVALID, func, "pass a device block",
			       "%s block is NULL", what);
	if (off > m->block->requested || size > m->block->requested - off)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "keep copies inside the block",
			       "%s range [%zu, +%zu) outside the %llu-byte "
			       "block", what, off, size,
			       (unsigned long long)m->block->requested);
	return NPURT_OK;
}

/*
 * Waits for device work on the block's segment (without the context lock,
 * so other threads keep allocating), then takes the lock for the CPU
 * access: the in-process device must not compact the segment meanwhile.
 */
static uint8_t *sync_ptr(const npurt_mem *m)
{
	rt_bo_wait(m->ctx, (uint32_t)m->block->seg);
	pthread_mutex_lock(&m->ctx->lock);
	return rt_mem_ptr(m);
}

NPURT_API npurt_status npurt_memcpy_h2d(npurt_mem *dst, size_t off,
					const void *src, size_t size)
{
	npurt_status st = check_range(dst, off, size, __func__, "destination");
	uint8_t *p;

	if (st)
		return st;
	if (!src && size)
		return RT_FAIL(NPURT_ERR_INVALID, "pass host memory",
			       "src is NULL");
	p = sync_ptr(dst);
	if (p && size)
		memcpy(p + off, src, size);
	pthread_mutex_unlock(&dst->ctx->lock);
	if (p)
		rt_count_copy(dst->ctx, true, size);
	return p ? NPURT_OK : RT_FAIL(NPURT_ERR_INTERNAL, "report it",
				      "block has no CPU mapping");
}

NPURT_API npurt_status npurt_memcpy_d2h(void *dst, npurt_mem *src,
					size_t off, size_t size)
{
	npurt_status st = check_range(src, off, size, __func__, "source");
	uint8_t *p;

	if (st)
		return st;
	if (!dst && size)
		return RT_FAIL(NPURT_ERR_INVALID, "pass host memory",
			       "dst is NULL");
	p = sync_ptr(src);
	if (p && size)
		memcpy(dst, p + off, size);
	pthread_mutex_unlock(&src->ctx->lock);
	if (p)
		rt_count_copy(src->ctx, false, size);
	return p ? NPURT_OK : RT_FAIL(NPURT_ERR_INTERNAL, "report it",
				      "block has no CPU mapping");
}

NPURT_API npurt_status npurt_memset(npurt_mem *dst, size_t off, int value,
				    size_t size)
{
	npurt_status st = check_range(dst, off, size, __func__, "destination");
	uint8_t *p;

	if (st)
		return st;
	p = sync_ptr(dst);
	if (p && size)
		memset(p + off, value, size);
	pthread_mutex_unlock(&dst->ctx->lock);
	return p ? NPURT_OK : RT_FAIL(NPURT_ERR_INTERNAL, "report it",
				      "block has no CPU mapping");
}

static npurt_status host_op(npurt_stream *s, void *dst, const void *src,
			    size_t size, npurt_mem *m, const char *func)
{
	struct rt_host_op *op = calloc(1, sizeof(*op));
	npurt_status st;

	if (!op)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	op->dst = dst;
	op->src = src;
	op->size = size;
	op->fill = -1;
	pthread_mutex_lock(&s->ctx->lock);
	rt_mem_record_stream(s->ctx, m, s->id);
	pthread_mutex_unlock(&s->ctx->lock);
	pthread_mutex_lock(&s->lock);
	st = rt_stream_host_op_locked(s, op);
	pthread_mutex_unlock(&s->lock);
	if (!st && rt_launch_blocking())
		st = rt_stream_sync(s, func);
	return st;
}

NPURT_API npurt_status npurt_memcpy_h2d_async(npurt_mem *dst, size_t off,
					      const void *src, size_t size,
					      npurt_stream *stream)
{
	npurt_status st = check_range(dst, off, size, __func__, "destination");
	uint8_t *p;

	if (st)
		return st;
	if (!stream || (!src && size))
		return RT_FAIL(NPURT_ERR_INVALID, "pass a stream and host memory",
			       "stream or src is NULL");
	st = rt_stream_check_fault(stream, __func__);
	if (st)
		return st;
	pthread_mutex_lock(&dst->ctx->lock);
	p = rt_mem_ptr(dst);
	pthread_mutex_unlock(&dst->ctx->lock);
	st = host_op(stream, p + off, src, size, dst, __func__);
	if (!st)
		rt_count_copy(dst->ctx, true, size);
	return st;
}

NPURT_API npurt_status npurt_memcpy_d2h_async(void *dst, npurt_mem *src,
					      size_t off, size_t size,
					      npurt_stream *stream)
{
	npurt_status st = check_range(src, off, size, __func__, "source");
	uint8_t *p;

	if (st)
		return st;
	if (!stream || (!dst && size))
		return RT_FAIL(NPURT_ERR_INVALID, "pass a stream and host memory",
			       "stream or dst is NULL");
	st = rt_stream_check_fault(stream, __func__);
	if (st)
		return st;
	pthread_mutex_lock(&src->ctx->lock);
	p = rt_mem_ptr(src);
	pthread_mutex_unlock(&src->ctx->lock);
	st = host_op(stream, dst, p + off, size, src, __func__);
	if (!st)
		rt_count_copy(src->ctx, false, size);
	return st;
}

/* A device program of COPY tasks, chunked so each shape fits in 32 bits. */
static npurt_status d2d_submit(npurt_stream *s, npurt_mem *dst, size_t doff,
			       npurt_mem *src, size_t soff, size_t size,
			       const char *func)
{
	const uint64_t chunk = 1ull << 30;
	uint32_t n = (uint32_t)((size + chunk - 1) / chunk), bos[2];
	struct drm_npu_program_create pc;
	struct drm_npu_program_destroy pd;
	struct drm_npu_task *t = calloc(n ? n : 1, sizeof(*t));
	bool same = src->block->seg == dst->block->seg;
	struct rt_submit j;
	npurt_status st;
	int ret;

	if (!t)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		uint64_t len = size - i * chunk < chunk ? size - i * chunk :
							   chunk;

		t[i].opcode = DRM_NPU_OP_COPY;
		t[i].num_operands = 2;
		for (int k = 0; k < 2; k++) {
			struct drm_npu_operand *o = &t[i].operands[k];

			o->slot = k == 0 || same ? 0 : 1;
			o->dtype = DRM_NPU_DTYPE_U8;
			o->rank = 1;
			o->shape[0] = (uint32_t)len;
			o->strides[0] = 1;
			o->offset = (k ? dst->block->offset + doff :
					 src->block->offset + soff) + i * chunk;
		}
	}
	memset(&pc, 0, sizeof(pc));
	pc.tasks_ptr = (uintptr_t)t;
	pc.num_tasks = n;
	pc.task_size = sizeof(*t);
	ret = npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc);
	free(t);
	if (ret)
		return rt_fail_errno(func, ret, "registering a copy");
	bos[0] = (uint32_t)src->block->seg;
	bos[1] = (uint32_t)dst->block->seg;
	memset(&j, 0, sizeof(j));
	j.program = pc.handle;
	j.bos = bos;
	j.num_bos = pc.num_slots;
	j.timeline = true;
	j.take_event_waits = true;
	pthread_mutex_lock(&s->ctx->lock);
	rt_mem_record_stream(s->ctx, src, s->id);
	rt_mem_record_stream(s->ctx, dst, s->id);
	pthread_mutex_unlock(&s->ctx->lock);
	pthread_mutex_lock(&s->lock);
	st = rt_stream_submit_locked(s, &j, NULL);
	pthread_mutex_unlock(&s->lock);
	/* The job holds its own reference to the program. */
	memset(&pd, 0, sizeof(pd));
	pd.handle = pc.handle;
	npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_PROGRAM_DESTROY, &pd);
	return st;
}

NPURT_API npurt_status npurt_memcpy_d2d_async(npurt_mem *dst, size_t doff,
					      npurt_mem *src, size_t soff,
					      size_t size, npurt_stream *stream)
{
	npurt_status st = check_range(dst, doff, size, __func__,
				      "destination");

	if (!st)
		st = check_range(src, soff, size, __func__, "source");
	if (st)
		return st;
	if (!stream || src->ctx != dst->ctx || stream->ctx != dst->ctx)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass blocks and a stream of one context",
			       "blocks and stream of different contexts");
	if (!size)
		return NPURT_OK;
	st = rt_stream_check_fault(stream, __func__);
	if (!st)
		st = d2d_submit(stream, dst, doff, src, soff, size, __func__);
	if (!st && rt_launch_blocking())
		st = rt_stream_sync(stream, __func__);
	return st;
}

NPURT_API npurt_status npurt_memcpy_d2d(npurt_mem *dst, size_t doff,
					npurt_mem *src, size_t soff,
					size_t size)
{
	npurt_status st;

	if (!dst)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a device block",
			       "dst is NULL");
	st = npurt_memcpy_d2d_async(dst, doff, src, soff, size,
				    dst->ctx->sync_stream);
	if (!st)
		st = rt_stream_sync(dst->ctx->sync_stream, __func__);
	return st;
}
