// SPDX-License-Identifier: MIT
/*
 * model.c - loading, describing and unloading compiled models.
 *
 * Load: validate the .om, check it targets this device, upload the weights
 * once (slot 0), allocate the workspace for the largest variant's plan
 * (slot 1) and host-I/O staging buffers, create the model's semaphores and
 * the queues of its extra streams, and register every variant's per-stream
 * program once. Executions only bind buffers and submit (model_exec.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* XXH3 inline (libxxhash-dev's header): no library to link */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "rt_internal.h"

void rt_model_describe_fault(const npurt_model *m, uint32_t variant,
			     uint32_t model_stream, uint32_t task, char *buf,
			     size_t len)
{
	const struct om_program_desc *p;
	const struct om_task_debug *dbg = NULL;
	const char *op = "", *node = "";

	if (variant >= m->num_variants)
		variant = m->current_variant;
	p = om_get_program(m->om, variant, model_stream);
	if (!p || task == UINT32_MAX || task >= p->num_tasks) {
		snprintf(buf, len, "model \"%s\" stream %u", m->name,
			 model_stream);
		return;
	}
	dbg = om_get_task_debug(m->om, p->first_task + task);
	if (dbg) {
		op = om_string(m->om, dbg->op);
		node = om_string(m->om, dbg->node);
	}
	snprintf(buf, len, "model \"%s\" stream %u task %u (%s%s%s%s%s)",
		 m->name, model_stream, task,
		 om_opcode_name(om_get_tasks(m->om, p->first_task + task,
					     1)->opcode),
		 *op ? ", op " : "", op, *node ? ", node " : "", node);
}

/* ---------------------------------------------------------------------- */
/* Program registration                                                     */
/* ---------------------------------------------------------------------- */

static void progset_free(npurt_model *m, struct rt_progset *ps,
			 uint32_t streams)
{
	struct drm_npu_program_destroy pd;

	for (uint32_t s = 0; s < streams; s++) {
		if (ps->handles[s]) {
			memset(&pd, 0, sizeof(pd));
			pd.handle = ps->handles[s];
			npu_dev_ioctl(m->ctx->nd, DRM_IOCTL_NPU_PROGRAM_DESTROY,
				      &pd);
			ps->handles[s] = 0;
		}
		free(ps->slot_need[s]);
		ps->slot_need[s] = NULL;
	}
	free(ps->io_offsets);
	ps->io_offsets = NULL;
}

/*
 * Registers @variant's programs with every I/O operand moved by
 * @io_offsets[i] bytes (all zero at load; a caller's sub-allocated device
 * block otherwise), so bound blocks need no copy.
 */
npurt_status rt_progset_create(npurt_model *m, uint32_t variant,
			       const uint64_t *io_offsets,
			       struct rt_progset *ps, const char *func);
npurt_status rt_progset_create(npurt_model *m, uint32_t variant,
			       const uint64_t *io_offsets,
			       struct rt_progset *ps, const char *func)
{
	struct rt_variant *rv = &m->variants[variant];

	memset(ps, 0, sizeof(*ps));
	ps->io_offsets = calloc(m->nio, sizeof(uint64_t));
	if (!ps->io_offsets)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	memcpy(ps->io_offsets, io_offsets, m->nio * sizeof(uint64_t));
	for (uint32_t s = 0; s < rv->num_streams; s++) {
		const struct om_program_desc *p = om_get_program(m->om, variant,
								 s);
		const struct drm_npu_task *src =
			om_get_tasks(m->om, p->first_task, p->num_tasks);
		struct drm_npu_task *t = malloc(p->num_tasks * sizeof(*t));
		struct drm_npu_program_create pc;
		int ret;

		ps->slot_need[s] = calloc(DRM_NPU_MAX_SLOTS, sizeof(uint64_t));
		if (!t || !ps->slot_need[s]) {
			free(t);
			progset_free(m, ps, rv->num_streams);
			return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
				       "out of memory");
		}
		memcpy(t, src, p->num_tasks * sizeof(*t));
		for (uint32_t k = 0; k < p->num_tasks; k++)
			for (uint32_t o = 0; o < t[k].num_operands; o++)
				if (t[k].operands[o].slot >= OM_SLOT_IO_BASE)
					t[k].operands[o].offset += io_offsets[
						t[k].operands[o].slot -
						OM_SLOT_IO_BASE];
		memset(&pc, 0, sizeof(pc));
		pc.tasks_ptr = (uintptr_t)t;
		pc.num_tasks = p->num_tasks;
		pc.task_size = sizeof(*t);
		pc.slot_sizes_ptr = (uintptr_t)ps->slot_need[s];
		pc.max_slot_sizes = DRM_NPU_MAX_SLOTS;
		ret = npu_dev_ioctl(m->ctx->nd, DRM_IOCTL_NPU_PROGRAM_CREATE,
				    &pc);
		free(t);
		if (ret == -EINVAL && pc.error_task < p->num_tasks) {
			char where[256];

			rt_model_describe_fault(m, variant, s, pc.error_task,
						where, sizeof(where));
			progset_free(m, ps, rv->num_streams);
			return rt_fail(NPURT_ERR_BAD_MODEL, func,
				       "recompile the model; if it persists, "
				       "report a compiler bug",
				       "the device refused %s%s%u: malformed "
				       "task", where,
				       pc.error_operand != ~0u ?
					       ", operand " : "",
				       pc.error_operand != ~0u ?
					       pc.error_operand : 0);
		}
		if (ret) {
			progset_free(m, ps, rv->num_streams);
			return rt_fail_errno(func, ret,
					     "registering a model program");
		}
		ps->handles[s] = pc.handle;
		ps->num_slots[s] = pc.num_slots;
	}
	ps->last_use = ++m->use_counter;
	return NPURT_OK;
}

/* ---------------------------------------------------------------------- */
/* Load                                                                     */
/* ---------------------------------------------------------------------- */

/*
 * Does @lo name a model whose weights are the same bytes as @w? The base
 * of a shape cache keeps a digest of its weights (its host copy is gone
 * once they are on the device); a shape compiled from the same ONNX has
 * byte-identical weights unless constants folded at its shape are among
 * them. XXH3-128: a false match (2^-128 a pair) would run a model on
 * another's weights, a miss only costs memory.
 */
static bool weights_match(const struct rt_load_opts *lo, const void *w,
			  uint64_t wsize)
{
	const npurt_model *b = lo ? lo->share_weights : NULL;
	XXH128_hash_t d;

	if (!b || !b->weights_digested || b->weights_size != wsize || !wsize)
		return false;
	d = XXH3_128bits(w, wsize);
	return d.low64 == b->weights_digest[0] &&
	       d.high64 == b->weights_digest[1];
}

static npurt_status alloc_resources(npurt_model *m,
				    const struct rt_load_opts *lo,
				    const char *func)
{
	npurt_context *ctx = m->ctx;
	const struct om_model_desc *d = om_get_model(m->om);
	uint64_t wsize;
	const void *w = om_get_weights(m->om, &wsize);
	void *map;
	int ret;

	/* Weights: slot 0, uploaded once (an execution context's are its
	 * model's). */
	if (lo && lo->weights_bo) {
		m->weights_bo = lo->weights_bo;
		m->weights_size = lo->weights_size;
		m->weights_borrowed = true;
	} else if (weights_match(lo, w, wsize)) {
		m->weights_bo = lo->share_weights->weights_bo;
		m->weights_size = wsize;
		m->weights_borrowed = true;
		(void)om_drop_weights(m->om);
	} else {
		if (lo && lo->digest_weights) {
			XXH128_hash_t dg = XXH3_128bits(w, wsize);

			m->weights_digest[0] = dg.low64;
			m->weights_digest[1] = dg.high64;
			m->weights_digested = true;
		}
		ret = rt_bo_create(ctx, wsize ? wsize : 1, &m->weights_bo,
				   &map);
		if (ret)
			return rt_fail_bo(ctx, func, ret, wsize ? wsize : 1,
					  "allocating the model's weights");
		if (wsize)
			memcpy(map, w, wsize);
		npu_dev_munmap(ctx->nd, map, wsize ? wsize : 1);
		m->weights_size = wsize;
		m->bytes += wsize;
		/* on the device now: the host copy goes, unless a host task
		 * reads it (-EBUSY) or the bytes are not the model's */
		(void)om_drop_weights(m->om);
	}

	for (uint32_t v = 0; v < d->num_variants; v++) {
		uint64_t ws = om_get_plan(m->om, v)->workspace_size;

		if (ws > m->workspace_size)
			m->workspace_size = ws;
	}
	if (lo && lo->workspace_bo) {
		if (m->workspace_size > lo->workspace_cap)
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "declare a larger maximum shape, or "
				       "use the dynamic memory strategy",
				       "model \"%s\" needs a %llu-byte "
				       "workspace; the preallocated one has "
				       "%llu bytes", m->name,
				       (unsigned long long)m->workspace_size,
				       (unsigned long long)lo->workspace_cap);
		m->workspace_bo = lo->workspace_bo;
		m->ws_borrowed = true;
	} else {
		ret = rt_bo_create(ctx, m->workspace_size ?
				   m->workspace_size : 1, &m->workspace_bo,
				   NULL);
		if (ret)
			return rt_fail_bo(ctx, func, ret, m->workspace_size ?
					  m->workspace_size : 1,
					  "allocating the model's workspace");
		m->bytes += m->workspace_size;
	}

	m->stage_bo = calloc(m->nio, sizeof(*m->stage_bo));
	m->stage_map = calloc(m->nio, sizeof(*m->stage_map));
	m->stage_size = calloc(m->nio, sizeof(*m->stage_size));
	if (!m->stage_bo || !m->stage_map || !m->stage_size)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	for (uint32_t i = 0; i < m->nio; i++) {
		enum om_io_kind k = i < m->nin ? OM_IO_INPUT : OM_IO_OUTPUT;
		uint32_t idx = i < m->nin ? i : i - m->nin;
		uint64_t size = 0;

		for (uint32_t v = 0; v < d->num_variants; v++) {
			uint64_t b = om_get_io(m->om, v, k, idx)->size_bytes;

			if (b > size)
				size = b;
		}
		ret = rt_bo_create(ctx, size ? size : 1, &m->stage_bo[i],
				   &map);
		if (ret)
			return rt_fail_bo(ctx, func, ret, size ? size : 1,
					  "allocating an I/O staging buffer");
		m->stage_map[i] = map;
		m->stage_size[i] = size ? size : 1;
		m->bytes += size;
	}
	return NPURT_OK;
}

static int sem_create(npurt_context *ctx, uint32_t *handle)
{
	struct drm_npu_sem_create sc = { 0 };
	int ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_SEM_CREATE, &sc);

	*handle = ret ? 0 : sc.handle;
	return ret;
}

static void destroy_sem(npurt_context *ctx, uint32_t *handle)
{
	struct drm_npu_sem_destroy sd = { .handle = *handle };

	if (*handle)
		npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_SEM_DESTROY, &sd);
	*handle = 0;
}

static void destroy_queue(npurt_context *ctx, uint32_t *handle)
{
	struct drm_npu_queue_destroy qd = { .handle = *handle };

	if (*handle)
		npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_QUEUE_DESTROY, &qd);
	*handle = 0;
}

/* Drop the lanes and model semaphores of a failed try_lanes(). */
static void release_lanes(npurt_model *m)
{
	for (uint32_t s = 1; s < RT_MAX_STREAMS; s++) {
		destroy_queue(m->ctx, &m->aux_queue[s]);
		destroy_sem(m->ctx, &m->aux_sem[s]);
	}
	if (m->shared_sem) {
		destroy_sem(m->ctx, &m->shared_sem);
		memset(m->sems, 0, sizeof(m->sems));
	}
	for (uint32_t k = 0; k < m->num_sems; k++)
		destroy_sem(m->ctx, &m->sems[k]);
	m->num_lanes = 0;
}

struct lane_fail {
	int err;
	const char *res;
	uint32_t asked, got;
};

/*
 * Run the model's streams on @lanes queues: the model's semaphores (one
 * shared semaphore when everything runs on one queue) and a queue and a
 * join semaphore per lane past the first. 0, or the failure in @f.
 */
static int try_lanes(npurt_model *m, uint32_t lanes, struct lane_fail *f)
{
	npurt_context *ctx = m->ctx;
	uint32_t got = 0, want_sems = (lanes - 1) +
		(lanes == 1 ? (m->num_sems ? 1 : 0) : m->num_sems);
	int ret;

	/* Host tasks need their own semaphores: the host sets them. */
	if (lanes == 1 && m->num_sems && !om_num_host_tasks(m->om)) {
		ret = sem_create(ctx, &m->shared_sem);
		if (ret)
			goto sem_fail;
		got++;
		for (uint32_t k = 0; k < m->num_sems; k++)
			m->sems[k] = m->shared_sem;
	} else {
		for (uint32_t k = 0; k < m->num_sems; k++) {
			ret = sem_create(ctx, &m->sems[k]);
			if (ret)
				goto sem_fail;
			got++;
		}
	}
	for (uint32_t s = 1; s < lanes; s++) {
		struct drm_npu_queue_create qc = {
			.priority = DRM_NPU_PRIORITY_NORMAL,
		};

		ret = sem_create(ctx, &m->aux_sem[s]);
		if (ret)
			goto sem_fail;
		got++;
		ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_QUEUE_CREATE, &qc);
		if (ret) {
			*f = (struct lane_fail){ ret, "queues", lanes - 1,
						 s - 1 };
			return ret;
		}
		m->aux_queue[s] = qc.handle;
	}
	m->num_lanes = lanes;
	m->held_sems = got;
	return 0;
sem_fail:
	*f = (struct lane_fail){ ret, "semaphores", want_sems, got };
	return ret;
}

static bool resource_errno(int ret)
{
	return ret == -ENOSPC || ret == -EDQUOT || ret == -ENOMEM;
}

/*
 * The model's device objects: its "done" semaphore and internal stream
 * (a cache's model gets the latter on first use, model_exec.c), then its
 * streams' queues and semaphores - all of them when the device
 * has them, else fewer queues (streams merged, see build_schedule()).
 * NPURT_MAX_QUEUES caps the queues a model uses (a test and deployment
 * knob, Documentation/runtime.rst).
 */
static npurt_status create_sync_objects(npurt_model *m, const char *func)
{
	npurt_context *ctx = m->ctx;
	const npurt_device_info *di = &ctx->dev->info;
	uint32_t lanes = m->max_streams ? m->max_streams : 1;
	const char *cap = getenv("NPURT_MAX_QUEUES");
	struct lane_fail first = { 0 }, f = { 0 };
	int ret;

	m->num_sems = om_num_semaphores(m->om);
	ret = sem_create(ctx, &m->done_sem);
	if (ret)
		return rt_fail_resource(func, ret, "semaphores", 1, 0,
					di->num_semaphores,
					"creating the model's semaphore");
	/*
	 * npurt_model_execute's stream: first, so that the streams' queues
	 * fit around it. A cache's model (op or shape cache) is run on the
	 * caller's streams only: it gets one on first use, if ever.
	 */
	if (!m->internal || m->parent) {
		npurt_status st = rt_stream_create(ctx, NPURT_PRIORITY_NORMAL,
						   &m->stream);

		if (st)
			return st;
		m->held_sems++;
	}
	if (cap && *cap) {
		unsigned long c = strtoul(cap, NULL, 10);

		if (c >= 1 && c < lanes) {
			lanes = (uint32_t)c;
			snprintf(m->placement_reason,
				 sizeof(m->placement_reason),
				 "NPURT_MAX_QUEUES=%lu", c);
		}
	}
	for (;; lanes--) {
		ret = try_lanes(m, lanes, &f);
		if (!ret)
			break;
		release_lanes(m);
		if (!first.err)
			first = f;
		if (!resource_errno(ret) || lanes == 1) {
			char what[320];

			snprintf(what, sizeof(what), "loading model \"%s\" "
				 "(as compiled it needs %u semaphores and %u "
				 "queues with the runtime's; serialised %u and "
				 "%u)", m->name,
				 m->num_sems + OM_RT_SEMS_FIXED +
				 OM_RT_SEMS_PER_STREAM * m->max_streams,
				 OM_RT_QUEUES_FIXED +
				 OM_RT_QUEUES_PER_STREAM * m->max_streams,
				 (m->num_sems ? 1 : 0) + OM_RT_SEMS_FIXED +
				 OM_RT_SEMS_PER_STREAM,
				 OM_RT_QUEUES_FIXED + OM_RT_QUEUES_PER_STREAM);
			return rt_fail_resource(func, ret, f.res, f.asked,
						f.got, !strcmp(f.res, "queues") ?
						di->num_queues :
						di->num_semaphores, what);
		}
	}
	m->held_sems += 1;	/* done */
	if (first.err)
		snprintf(m->placement_reason, sizeof(m->placement_reason),
			 "device %s: asked for %u, got %u (device has %u in "
			 "all); %u streams run on %u queue%s",
			 first.res, first.asked, first.got,
			 !strcmp(first.res, "queues") ? di->num_queues :
			 di->num_semaphores, m->max_streams, lanes,
			 lanes == 1 ? "" : "s");
	if (m->num_lanes < m->max_streams)
		rt_log("model \"%s\": %u streams on %u queues (%s)", m->name,
		       m->max_streams, m->num_lanes, m->placement_reason);
	return NPURT_OK;
}

/*
 * Merge variant @v's streams onto the model's lanes: walk the streams'
 * task lists as the device would with one queue, each stream as far as its
 * next SEM_WAIT not yet met by an earlier SEM_SIGNAL (values per model
 * semaphore, only rising), then the next stream; every stretch is a
 * segment. Each lane (queue) gets the segments of its streams (stream s on
 * lane s % lanes) in this order, so every wait's signal comes earlier in
 * one global order: no lane can wait for work queued behind it, whatever
 * the grouping. A model whose streams cannot all finish is refused.
 */
bool rt_model_is_host_sem(const npurt_model *m, uint32_t v, uint32_t i)
{
	for (uint32_t k = 0; k < om_num_host_tasks(m->om); k++) {
		const struct om_host_task *h = om_get_host_task(m->om, k);

		if (h->variant == v && h->sem == i)
			return true;
	}
	return false;
}

static npurt_status build_schedule(npurt_model *m, uint32_t v,
				   const char *func)
{
	struct rt_variant *rv = &m->variants[v];
	uint32_t ns = rv->num_streams, left = ns, cap = 64;
	uint32_t pos[RT_MAX_STREAMS] = { 0 };
	uint64_t *val = calloc(m->num_sems + 1, sizeof(*val));
	struct rt_piece *segs = malloc(cap * sizeof(*segs));

	if (!val || !segs) {
		free(val);
		free(segs);
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	}
	rv->num_pieces = 0;
	while (left) {
		bool moved = false;

		left = 0;
		for (uint32_t s = 0; s < ns; s++) {
			const struct om_program_desc *p =
				om_get_program(m->om, v, s);
			const struct drm_npu_task *t =
				om_get_tasks(m->om, p->first_task,
					     p->num_tasks);
			uint32_t from = pos[s];

			while (pos[s] < p->num_tasks) {
				const struct drm_npu_task *k = &t[pos[s]];
				uint32_t i = k->params.sem.index;

				if (k->opcode == DRM_NPU_OP_SEM_WAIT &&
				    val[i] < k->params.sem.value)
					break;
				if (k->opcode == DRM_NPU_OP_SEM_SIGNAL &&
				    val[i] < k->params.sem.value)
					val[i] = k->params.sem.value;
				/* a host task: the host signals the next value */
				if (k->opcode == DRM_NPU_OP_SEM_SIGNAL &&
				    rt_model_is_host_sem(m, v, i))
					val[i] = k->params.sem.value + 1;
				pos[s]++;
			}
			if (pos[s] < p->num_tasks)
				left++;
			if (pos[s] == from)
				continue;
			moved = true;
			if (rv->num_pieces == cap) {
				struct rt_piece *n = realloc(segs, 2 * cap *
							   sizeof(*segs));

				if (!n) {
					free(val);
					free(segs);
					return rt_fail(NPURT_ERR_NOMEM, func,
						       "free host memory",
						       "out of memory");
				}
				segs = n;
				cap *= 2;
			}
			segs[rv->num_pieces++] = (struct rt_piece){
				s, from, pos[s] - from, s % m->num_lanes };
		}
		if (left && !moved) {
			free(val);
			free(segs);
			return rt_fail(NPURT_ERR_BAD_MODEL, func,
				       "recompile the model; if it persists, "
				       "report a compiler bug",
				       "variant %u: its streams wait for each "
				       "other (a semaphore wait no signal "
				       "meets)", v);
		}
	}
	free(val);
	rv->pieces = segs;
	return NPURT_OK;
}

static void model_free(npurt_model *m)
{
	npurt_context *ctx = m->ctx;
	struct drm_npu_sem_destroy sd;

	/* The shapes compiled online go first (they may use its memory). */
	rt_online_free(m->online);
	rt_pad_free(m);
	if (m->stream)
		rt_stream_free(m->stream);
	rt_host_engine_free(m);
	for (uint32_t v = 0; m->variants && v < m->num_variants; v++) {
		for (uint32_t i = 0; i < m->variants[v].num_sets; i++)
			progset_free(m, &m->variants[v].sets[i],
				     m->variants[v].num_streams);
		free(m->variants[v].pieces);
	}
	free(m->variants);
	release_lanes(m);
	if (m->done_sem) {
		memset(&sd, 0, sizeof(sd));
		sd.handle = m->done_sem;
		npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_SEM_DESTROY, &sd);
	}
	for (uint32_t i = 0; m->stage_bo && i < m->nio; i++)
		rt_bo_destroy(ctx, m->stage_bo[i], m->stage_map[i],
			      m->stage_size[i]);
	free(m->stage_bo);
	free(m->stage_map);
	free(m->stage_size);
	for (uint32_t s = 0; s < RT_MAX_STREAMS; s++)
		rt_bo_destroy(ctx, m->profile_bo[s], m->profile_map[s],
			      m->profile_size[s]);
	rt_dump_free(m);
	if (!m->ws_borrowed)
		rt_bo_destroy(ctx, m->workspace_bo, m->workspace_map,
			      m->workspace_size);
	else if (m->workspace_map)
		npu_dev_munmap(ctx->nd, m->workspace_map,
			       (size_t)(m->workspace_size ?
					m->workspace_size : 1));
	if (!m->weights_borrowed)
		rt_bo_destroy(ctx, m->weights_bo, NULL, 0);
	if (!m->om_borrowed)
		om_close(m->om);
	pthread_cond_destroy(&m->pool_cond);
	pthread_mutex_destroy(&m->pool_lock);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static void model_init_locks(npurt_model *m)
{
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->pool_lock, NULL);
	pthread_cond_init(&m->pool_cond, NULL);
}

/*
 * Executions of one model at once through npurt_model_execute(): the
 * device's AI cores, or $NPURT_MODEL_EXECUTIONS.
 */
static uint32_t default_pool_max(npurt_context *ctx)
{
	const char *e = getenv("NPURT_MODEL_EXECUTIONS");
	unsigned long n = ctx->dev->info.num_cores;

	if (e && *e)
		n = strtoul(e, NULL, 10);
	if (n < 1)
		n = 1;
	if (n > RT_MAX_POOL)
		n = RT_MAX_POOL;
	return (uint32_t)n;
}

/*
 * The device side of a model or execution context: weights (or its
 * model's), workspace, staging, semaphores, queues and the programs of
 * every variant.
 */
static npurt_status model_setup(npurt_model *m,
				const struct rt_load_opts *lo,
				const char *func)
{
	npurt_status st;

	m->variants = calloc(m->num_variants, sizeof(*m->variants));
	if (!m->variants)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	st = alloc_resources(m, lo, func);
	if (!st)
		st = rt_host_engine_init(m, func);
	if (!st)
		st = create_sync_objects(m, func);
	for (uint32_t v = 0; !st && v < m->num_variants; v++) {
		uint64_t *zero = calloc(m->nio ? m->nio : 1, sizeof(*zero));

		m->variants[v].num_streams =
			om_get_variant(m->om, v)->num_programs;
		if (m->variants[v].num_streams > m->num_lanes)
			st = build_schedule(m, v, func);
		if (st) {
			free(zero);
			break;
		}
		st = zero ? rt_progset_create(m, v, zero,
					      &m->variants[v].sets[0], func) :
			    rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
				    "out of memory");
		if (!st)
			m->variants[v].num_sets = 1;
		free(zero);
	}
	return st;
}

/* Everything after the file is validated: takes ownership of @om. */
static npurt_status load_om(npurt_context *ctx, struct om_model *om,
			    uint64_t t0, const struct rt_load_opts *lo,
			    npurt_model **out, const char *func)
{
	const npurt_device_info *di = &ctx->dev->info;
	const struct om_model_desc *d;
	char err[OM_ERR_MAX];
	npurt_model *m;
	npurt_status st;
	int ret;

	ret = om_check_target(om, di->model, di->features, di->uapi_version,
			      NPURT_VERSION, err);
	if (ret) {
		om_close(om);
		return rt_fail(NPURT_ERR_INCOMPATIBLE, func,
			       "recompile the model for this device "
			       "(npuc --target) or upgrade the runtime",
			       "%s", err);
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		om_close(om);
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory for a model");
	}
	m->ctx = ctx;
	m->om = om;
	model_init_locks(m);
	d = om_get_model(m->om);
	snprintf(m->name, sizeof(m->name), "%s",
		 *om_model_name(m->om) ? om_model_name(m->om) : "unnamed");
	m->nin = d->num_inputs;
	m->nout = d->num_outputs;
	m->nio = m->nin + m->nout;
	m->num_variants = d->num_variants;
	m->current_variant = d->default_variant;
	m->max_streams = d->max_streams;
	m->internal = lo && lo->internal;
	m->pool_max = default_pool_max(ctx);
	st = model_setup(m, lo, func);
	if (st) {
		npurt_error saved = *npurt_last_error();

		model_free(m);
		*(npurt_error *)npurt_last_error() = saved;
		return st;
	}
	pthread_mutex_lock(&ctx->lock);
	if (!m->internal &&
	    rt_ctx_track(&ctx->models, &ctx->num_models, &ctx->cap_models,
			 m)) {
		pthread_mutex_unlock(&ctx->lock);
		model_free(m);
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	}
	ctx->model_bytes += m->bytes;
	pthread_mutex_unlock(&ctx->lock);
	m->load_ns = rt_now_ns() - t0;
	rt_log("loaded model \"%s\": %u variants, %u streams, %llu bytes",
	       m->name, m->num_variants, m->max_streams,
	       (unsigned long long)m->bytes);
	*out = m;
	return NPURT_OK;
}

npurt_status rt_model_clone(npurt_model *p, npurt_model **out,
			    const char *func)
{
	struct rt_load_opts lo = {
		.internal = true,
		.weights_bo = p->weights_bo,
		.weights_size = p->weights_size,
	};
	npurt_context *ctx = p->ctx;
	uint64_t t0 = rt_now_ns();
	npurt_model *m;
	npurt_status st;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory for an execution context");
	m->ctx = ctx;
	m->om = p->om;
	m->om_borrowed = true;
	m->parent = p;
	model_init_locks(m);
	snprintf(m->name, sizeof(m->name), "%s", p->name);
	m->nin = p->nin;
	m->nout = p->nout;
	m->nio = p->nio;
	m->num_variants = p->num_variants;
	m->current_variant = p->current_variant;
	m->max_streams = p->max_streams;
	m->internal = true;
	m->pool_max = 1;
	st = model_setup(m, &lo, func);
	if (st) {
		npurt_error saved = *npurt_last_error();

		model_free(m);
		*(npurt_error *)npurt_last_error() = saved;
		return st;
	}
	pthread_mutex_lock(&ctx->lock);
	ctx->model_bytes += m->bytes;
	pthread_mutex_unlock(&ctx->lock);
	m->load_ns = rt_now_ns() - t0;
	rt_log("model \"%s\": execution context, %llu bytes", m->name,
	       (unsigned long long)m->bytes);
	*out = m;
	return NPURT_OK;
}

static npurt_status bad_model(int ret, const char *err, const char *func)
{
	if (ret == -ENOENT)
		return rt_fail(NPURT_ERR_NOT_FOUND, func,
			       "check the path", "%s", err);
	if (ret == -ENOMEM)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "%s", err);
	if (ret != -EINVAL)
		return rt_fail(NPURT_ERR_IO, func,
			       "check the path and its permissions", "%s", err);
	return rt_fail(NPURT_ERR_BAD_MODEL, func,
		       "recompile the model with npuc; check the file was "
		       "copied completely", "%s", err);
}

NPURT_API npurt_status npurt_model_load_memory(npurt_context *ctx,
					       const void *data, size_t size,
					       npurt_model **out)
{
	char err[OM_ERR_MAX];
	uint64_t t0 = rt_now_ns();
	struct om_model *om;
	int ret;

	if (!ctx || !out || (!data && size))
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context, model bytes and a pointer",
			       "bad arguments");
	*out = NULL;
	ret = om_open_memory(data, size, &om, err);
	if (ret)
		return bad_model(ret, err, __func__);
	return load_om(ctx, om, t0, NULL, out, __func__);
}

npurt_status rt_model_load(npurt_context *ctx, const void *data, size_t size,
			   const struct rt_load_opts *lo, npurt_model **out,
			   const char *func)
{
	char err[OM_ERR_MAX];
	uint64_t t0 = rt_now_ns();
	struct om_model *om;
	int ret;

	*out = NULL;
	ret = om_open_memory(data, size, &om, err);
	if (ret)
		return bad_model(ret, err, func);
	return load_om(ctx, om, t0, lo, out, func);
}

NPURT_API npurt_status npurt_model_load_file(npurt_context *ctx,
					     const char *path,
					     npurt_model **out)
{
	char err[OM_ERR_MAX];
	uint64_t t0 = rt_now_ns();
	struct om_model *om;
	int ret;

	if (!ctx || !path || !out)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context, a path and a pointer",
			       "bad arguments");
	*out = NULL;
	/* Read once into the buffer the reader validates and keeps. */
	ret = om_open_file(path, &om, err);
	if (ret)
		return bad_model(ret, err, __func__);
	return load_om(ctx, om, t0, NULL, out, __func__);
}

/* A cache's model: the same as a user's, kept apart only in tracking. */
npurt_status rt_model_unload(npurt_model *m)
{
	return npurt_model_unload(m);
}

NPURT_API npurt_status npurt_model_unload(npurt_model *model)
{
	npurt_context *ctx;
	npurt_stream **live;
	uint32_t n;

	if (!model)
		return NPURT_OK;
	ctx = model->ctx;
	/* Its execution contexts borrow its .om and weights: first. */
	rt_model_pool_free(model);
	pthread_mutex_lock(&model->lock);
	rt_sem_wait(ctx, model->done_sem, model->exec_count);
	pthread_mutex_unlock(&model->lock);
	if (model->stream)
		rt_stream_sync(model->stream, __func__);
	/* Streams must not keep job records pointing at this model. */
	pthread_mutex_lock(&ctx->lock);
	live = malloc((ctx->num_live + 1) * sizeof(*live));
	n = live ? ctx->num_live : 0;
	if (n)
		memcpy(live, ctx->live, n * sizeof(*live));
	pthread_mutex_unlock(&ctx->lock);
	for (uint32_t i = 0; i < n; i++)
		rt_stream_forget_model(live[i], model);
	free(live);
	pthread_mutex_lock(&ctx->lock);
	if (!model->internal)
		rt_ctx_untrack((void **)ctx->models, &ctx->num_models, model);
	ctx->model_bytes -= model->bytes;
	pthread_mutex_unlock(&ctx->lock);
	model_free(model);
	return NPURT_OK;
}

/* ---------------------------------------------------------------------- */
/* Description                                                              */
/* ---------------------------------------------------------------------- */

NPURT_API npurt_status npurt_model_get_info(npurt_model *m,
					    npurt_model_info *info)
{
	if (!m || !info)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model and a struct",
			       "bad arguments");
	memset(info, 0, sizeof(*info));
	if (rt_model_target(m) != m) {
		npurt_model *c = rt_model_target(m);

		npurt_model_get_info(c, info);
		info->name = m->name;
		info->num_variants = m->num_variants;
		info->current_variant = m->num_variants;
		info->load_ns = m->load_ns;
		return NPURT_OK;
	}
	pthread_mutex_lock(&m->lock);
	info->name = m->name;
	info->num_inputs = m->nin;
	info->num_outputs = m->nout;
	info->num_variants = m->num_variants;
	info->num_streams = m->max_streams;
	info->current_variant = m->current_variant;
	info->weights_bytes = m->weights_size;
	info->workspace_bytes =
		om_get_plan(m->om, m->current_variant)->workspace_size;
	info->load_ns = m->load_ns;
	pthread_mutex_unlock(&m->lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_model_get_placement(npurt_model *m,
						 npurt_model_placement *p)
{
	if (!m || !p)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model and a struct",
			       "bad arguments");
	memset(p, 0, sizeof(*p));
	m = rt_model_target(m);
	p->num_streams = m->max_streams;
	p->num_queues = m->num_lanes;
	p->num_semaphores = m->held_sems;
	p->shared_semaphores = m->shared_sem != 0;
	if (m->num_lanes < m->max_streams)
		snprintf(p->reason, sizeof(p->reason), "%s",
			 m->placement_reason);
	return NPURT_OK;
}

int rt_map_workspace(npurt_model *m)
{
	struct drm_npu_bo_mmap_offset mo = { .handle = m->workspace_bo };
	void *p;
	int ret;

	if (m->workspace_map)
		return 0;
	ret = npu_dev_ioctl(m->ctx->nd, DRM_IOCTL_NPU_BO_MMAP_OFFSET, &mo);
	if (ret)
		return ret;
	p = npu_dev_mmap(m->ctx->nd, mo.offset,
			 (size_t)(m->workspace_size ? m->workspace_size : 1));
	if (!p)
		return -ENOMEM;
	m->workspace_map = p;
	return 0;
}

/*
 * An output whose extent the data decides (om_count_desc): after an
 * execution, dims[dim] is the extent the device wrote to the workspace
 * (clamped to the bound, which the buffer holds); before one, the bound.
 * Called with m->lock held.
 */
static void describe_count(npurt_model *m, uint32_t v, uint32_t index,
			   npurt_tensor_desc *desc)
{
	const struct om_count_desc *c = om_get_count(m->om, v, index);
	int64_t n;

	if (!c || !m->exec_count || m->profiled_variant != v ||
	    rt_map_workspace(m))
		return;
	/*
	 * Our own stream's work is done (execute returns after it); an
	 * async execution's caller synchronises before reading the output.
	 */
	memcpy(&n, m->workspace_map + c->offset, sizeof(n));
	if (n < 0)
		n = 0;
	if ((uint64_t)n < desc->dims[c->dim])
		desc->dims[c->dim] = (uint64_t)n;
}

static npurt_status get_io(npurt_model *m, enum om_io_kind kind,
			   uint32_t index, int generic,
			   npurt_tensor_desc *desc, const char *func)
{
	const struct om_tensor_desc *t;
	const char *name = NULL;
	uint32_t v;

	if (!m || !desc)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass a model and a struct", "bad arguments");
	if (!generic && rt_model_target(m) != m) {
		/* A shape compiled online: its dims, the model's name. */
		t = om_get_io(m->om, OM_VARIANT_GENERIC, kind, index);
		name = t ? om_string(m->om, t->name) : NULL;
		m = rt_model_target(m);
	}
	pthread_mutex_lock(&m->lock);
	v = generic ? OM_VARIANT_GENERIC : m->current_variant;
	t = om_get_io(m->om, v, kind, index);
	if (!t) {
		pthread_mutex_unlock(&m->lock);
		return rt_fail(NPURT_ERR_NOT_FOUND, func,
			       "use an index below the model's count",
			       "%s %u; the model has %u",
			       kind == OM_IO_INPUT ? "input" : "output", index,
			       kind == OM_IO_INPUT ? m->nin : m->nout);
	}
	memset(desc, 0, sizeof(*desc));
	desc->name = name ? name : om_string(m->om, t->name);
	desc->dtype = (npurt_dtype)t->dtype;
	desc->rank = t->rank;
	for (uint32_t k = 0; k < t->rank; k++) {
		desc->dims[k] = t->dims[k];
		desc->dim_names[k] = t->dim_names[k] ?
			om_string(m->om, t->dim_names[k]) : NULL;
	}
	desc->layout = om_layout_name(t->layout);
	desc->size = (size_t)t->size_bytes;
	if (!generic && kind == OM_IO_OUTPUT)
		describe_count(m, v, index, desc);
	pthread_mutex_unlock(&m->lock);
	if (!generic && m->pad)
		rt_pad_describe(m, kind == OM_IO_INPUT, index, desc);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_model_get_input(npurt_model *m, uint32_t index,
					     int generic,
					     npurt_tensor_desc *desc)
{
	return get_io(m, OM_IO_INPUT, index, generic, desc, __func__);
}

NPURT_API npurt_status npurt_model_get_output(npurt_model *m, uint32_t index,
					      int generic,
					      npurt_tensor_desc *desc)
{
	return get_io(m, OM_IO_OUTPUT, index, generic, desc, __func__);
}

static npurt_status find_io(npurt_model *m, const char *name,
			    enum om_io_kind want, uint32_t *index,
			    const char *func)
{
	enum om_io_kind kind;

	if (!m || !name || !index)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass a model, a name and a pointer",
			       "bad arguments");
	if (om_find_io(m->om, name, &kind, index) || kind != want)
		return rt_fail(NPURT_ERR_NOT_FOUND, func,
			       "list the model's I/O with npu-om",
			       "model \"%s\" has no %s named \"%s\"", m->name,
			       want == OM_IO_INPUT ? "input" : "output", name);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_model_find_input(npurt_model *m,
					      const char *name,
					      uint32_t *index)
{
	return find_io(m, name, OM_IO_INPUT, index, __func__);
}

NPURT_API npurt_status npurt_model_find_output(npurt_model *m,
					       const char *name,
					       uint32_t *index)
{
	return find_io(m, name, OM_IO_OUTPUT, index, __func__);
}

NPURT_API npurt_status npurt_model_variant_name(npurt_model *m,
						uint32_t index,
						const char **name)
{
	const struct om_variant_desc *vd;

	if (!m || !name)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model and a pointer",
			       "bad arguments");
	if (index == m->num_variants && rt_online_active_name(m)) {
		*name = rt_online_active_name(m);
		return NPURT_OK;
	}
	vd = om_get_variant(m->om, index);
	if (!vd)
		return RT_FAIL(NPURT_ERR_NOT_FOUND,
			       "use an index below num_variants",
			       "variant %u; the model has %u", index,
			       m->num_variants);
	*name = om_string(m->om, vd->name);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_model_select_variant(npurt_model *m,
						  uint32_t index)
{
	if (!m)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model",
			       "model is NULL");
	if (index >= m->num_variants)
		return RT_FAIL(NPURT_ERR_NOT_FOUND,
			       "use an index below num_variants",
			       "variant %u; model \"%s\" has %u", index,
			       m->name, m->num_variants);
	rt_pad_clear(m);
	if (m->online)
		return rt_online_select_variant(m, index);
	pthread_mutex_lock(&m->lock);
	m->current_variant = index;
	pthread_mutex_unlock(&m->lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_model_select_shapes(npurt_model *m,
						 const uint64_t *const *shapes)
{
	char list[256] = "";
	size_t used = 0;
	npurt_status st;
	int v;

	if (!m || !shapes)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model and shapes",
			       "bad arguments");
	if (m->online)
		return rt_online_select(m, shapes, __func__);
	v = om_find_variant(m->om, shapes);
	if (v >= 0)
		return npurt_model_select_variant(m, (uint32_t)v);
	st = rt_pad_select(m, shapes, __func__);
	if (st != NPURT_ERR_NOT_FOUND)
		return st;
	for (uint32_t i = 0; i < m->num_variants && used < sizeof(list); i++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s",
				 i ? ", " : "",
				 om_string(m->om,
					   om_get_variant(m->om, i)->name));

		if (n < 0)
			break;
		used += (size_t)n;
	}
	return RT_FAIL(NPURT_ERR_SHAPE,
		       "use one of the compiled shapes, recompile with "
		       "npuc --dynamic-batch, or pad to a larger gear "
		       "(npurt_model_set_pad_to_gear)",
		       "model \"%s\" has no variant for these input shapes "
		       "(nor one that covers them, if padding is on); "
		       "it has: %s", m->name, list);
}

/* ---------------------------------------------------------------------- */
/* Profiling                                                                */
/* ---------------------------------------------------------------------- */

NPURT_API npurt_status npurt_model_set_profiling(npurt_model *m, int enable)
{
	npurt_status st = NPURT_OK;

	if (!m)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model",
			       "model is NULL");
	pthread_mutex_lock(&m->lock);
	for (uint32_t s = 0; enable && s < m->max_streams; s++) {
		uint64_t need = 0;
		void *map;
		int ret;

		if (m->profile_bo[s])
			continue;
		for (uint32_t v = 0; v < m->num_variants; v++) {
			const struct om_program_desc *p =
				om_get_program(m->om, v, s);

			if (p && p->num_tasks > need)
				need = p->num_tasks;
		}
		need *= sizeof(struct drm_npu_task_profile);
		ret = rt_bo_create(m->ctx, need ? need : 1, &m->profile_bo[s],
				   &map);
		if (ret) {
			st = rt_fail_bo(m->ctx, __func__, ret, need ? need : 1,
					"allocating a profile buffer");
			break;
		}
		m->profile_map[s] = map;
		m->profile_size[s] = need ? need : 1;
	}
	if (!st)
		m->profiling = enable != 0;
	pthread_mutex_unlock(&m->lock);
	return st;
}

NPURT_API npurt_status npurt_model_get_profile(npurt_model *m,
					       npurt_task_record *records,
					       uint32_t max, uint32_t *count)
{
	uint32_t n = 0, v;

	if (!m || !count || (!records && max))
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a model, a buffer and a count",
			       "bad arguments");
	pthread_mutex_lock(&m->lock);
	if (!m->profile_valid) {
		pthread_mutex_unlock(&m->lock);
		*count = 0;
		return RT_FAIL(NPURT_ERR_NOT_FOUND,
			       "enable profiling and execute the model first",
			       "model \"%s\" has no profiled execution",
			       m->name);
	}
	v = m->profiled_variant;
	for (uint32_t s = 0; s < m->variants[v].num_streams; s++) {
		const struct om_program_desc *p = om_get_program(m->om, v, s);
		const struct drm_npu_task_profile *pr =
			(const void *)m->profile_map[s];

		for (uint32_t k = 0; k < p->num_tasks; k++, n++) {
			const struct om_task_debug *dbg =
				om_get_task_debug(m->om, p->first_task + k);
			npurt_task_record *r;

			if (n >= max)
				continue;
			r = &records[n];
			r->start_ns = pr[k].start_ns;
			r->end_ns = pr[k].end_ns;
			r->model_stream = s;
			r->task = pr[k].task;
			r->core = pr[k].core;
			r->hw_queue = pr[k].hw_queue;
			r->status = pr[k].status;
			r->op = dbg ? om_string(m->om, dbg->op) :
				      om_opcode_name(om_get_tasks(m->om,
						p->first_task + k, 1)->opcode);
			r->node = dbg ? om_string(m->om, dbg->node) : "";
			if (!*r->op)
				r->op = om_opcode_name(om_get_tasks(m->om,
						p->first_task + k, 1)->opcode);
		}
	}
	n += rt_host_engine_profile(m, v, m->exec_count,
				    records ? records + (n < max ? n : max) :
				    NULL, n < max ? max - n : 0,
				    m->variants[v].num_streams);
	pthread_mutex_unlock(&m->lock);
	*count = n;
	return NPURT_OK;
}
