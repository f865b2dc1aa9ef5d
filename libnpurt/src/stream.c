// SPDX-License-Identifier: MIT
/*
 * stream.c - streams: a device queue plus a timeline semaphore.
 *
 * Every operation of a stream takes the next value n of its timeline: a
 * device job waits for n - 1 and sets n when it ends; a host-side copy (run
 * in order by the stream's worker thread) does the same from the host. So
 * device work, host copies, event waits and the joins of multi-stream
 * models are ordered by one counter, and "the stream is idle" is "the
 * timeline has reached its last value". Device jobs are also remembered
 * (queue, fence) until synchronised, to attribute faults to a model, task
 * and op.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

const char *rt_fault_reason_str(uint32_t reason)
{
	switch (reason) {
	case DRM_NPU_FAULT_OUT_OF_RANGE:
		return "operand outside its buffer";
	case DRM_NPU_FAULT_BAD_OPCODE:
		return "bad opcode";
	case DRM_NPU_FAULT_WATCHDOG:
		return "watchdog expired (task hung)";
	case DRM_NPU_FAULT_INJECTED:
		return "injected fault (test mode)";
	case DRM_NPU_FAULT_BAD_INDEX:
		return "gather index out of range";
	case DRM_NPU_FAULT_CANCELLED:
		return "cancelled behind an earlier fault";
	case DRM_NPU_FAULT_BUDGET:
		return "job ran past the device's job budget";
	case DRM_NPU_FAULT_BAD_PARAMS:
		return "dynamic AIPP parameters out of range";
	default:
		return "unknown fault";
	}
}

static void *worker_main(void *arg);

npurt_status rt_stream_create(npurt_context *ctx, npurt_priority prio,
			      npurt_stream **out)
{
	struct drm_npu_queue_create qc = { .priority = prio };
	struct drm_npu_sem_create sc = { 0 };
	struct drm_npu_queue_destroy qd = { 0 };
	npurt_stream *s;
	int ret;

	if ((unsigned int)prio > NPURT_PRIORITY_HIGH)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "use NPURT_PRIORITY_LOW, _NORMAL or _HIGH",
			       "priority %d unknown", prio);
	s = calloc(1, sizeof(*s));
	if (!s)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory for a stream");
	ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_QUEUE_CREATE, &qc);
	if (ret) {
		free(s);
		return rt_fail_resource(__func__, ret, "queues", 1, 0,
					ctx->dev->info.num_queues,
					"creating a stream's queue");
	}
	ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_SEM_CREATE, &sc);
	if (ret) {
		qd.handle = qc.handle;
		npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_QUEUE_DESTROY, &qd);
		free(s);
		return rt_fail_resource(__func__, ret, "semaphores", 1, 0,
					ctx->dev->info.num_semaphores,
					"creating a stream's semaphore");
	}
	s->ctx = ctx;
	pthread_mutex_lock(&ctx->lock);
	if (rt_ctx_track(&ctx->live, &ctx->num_live, &ctx->cap_live, s)) {
		pthread_mutex_unlock(&ctx->lock);
		qd.handle = qc.handle;
		npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_QUEUE_DESTROY, &qd);
		free(s);
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory for a stream");
	}
	s->id = ++ctx->next_stream_id;
	pthread_mutex_unlock(&ctx->lock);
	s->queue = qc.handle;
	s->hw_queue = qc.hw_queue;
	s->sem = sc.handle;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	*out = s;
	return NPURT_OK;
}

npurt_stream *rt_stream_by_id(npurt_context *ctx, uint64_t id)
{
	for (uint32_t i = 0; i < ctx->num_live; i++)
		if (ctx->live[i]->id == id)
			return ctx->live[i];
	return NULL;
}

int rt_sem_wait(npurt_context *ctx, uint32_t sem, uint64_t value)
{
	struct drm_npu_sem_wait w = { .handle = sem, .value = value };
	int ret;

	do {
		w.timeout_ns = rt_deadline_ms(1000);
		ret = npu_dev_ioctl(ctx->nd, DRM_IOCTL_NPU_SEM_WAIT, &w);
	} while (ret == -ETIME);
	return ret;
}

void rt_stream_free(npurt_stream *s)
{
	struct drm_npu_queue_destroy qd = { .handle = s->queue };
	struct drm_npu_sem_destroy sd = { .handle = s->sem };

	if (!s)
		return;
	rt_stream_sync(s, __func__);
	pthread_mutex_lock(&s->ctx->lock);
	rt_ctx_untrack((void **)s->ctx->live, &s->ctx->num_live, s);
	pthread_mutex_unlock(&s->ctx->lock);
	pthread_mutex_lock(&s->lock);
	s->worker_stop = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->worker_running)
		pthread_join(s->worker, NULL);
	npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_QUEUE_DESTROY, &qd);
	npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_SEM_DESTROY, &sd);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

NPURT_API npurt_status npurt_stream_create(npurt_context *ctx,
					   npurt_priority priority,
					   npurt_stream **stream)
{
	npurt_status st;

	if (!ctx || !stream)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a context and a pointer",
			       "ctx or stream is NULL");
	st = rt_stream_create(ctx, priority, stream);
	if (st)
		return st;
	pthread_mutex_lock(&ctx->lock);
	if (rt_ctx_track(&ctx->streams, &ctx->num_streams, &ctx->cap_streams,
			 *stream)) {
		pthread_mutex_unlock(&ctx->lock);
		rt_stream_free(*stream);
		*stream = NULL;
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	}
	pthread_mutex_unlock(&ctx->lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_stream_destroy(npurt_stream *stream)
{
	npurt_context *ctx;

	if (!stream)
		return NPURT_OK;
	ctx = stream->ctx;
	pthread_mutex_lock(&ctx->lock);
	rt_ctx_untrack((void **)ctx->streams, &ctx->num_streams, stream);
	pthread_mutex_unlock(&ctx->lock);
	rt_stream_free(stream);
	return NPURT_OK;
}

/* ---------------------------------------------------------------------- */
/* Faults                                                                   */
/* ---------------------------------------------------------------------- */

npurt_status rt_stream_check_fault(npurt_stream *s, const char *func)
{
	npurt_status st;
	char reason[384];

	pthread_mutex_lock(&s->lock);
	st = s->fault;
	memcpy(reason, s->fault_reason, sizeof(reason));
	pthread_mutex_unlock(&s->lock);
	if (!st)
		return NPURT_OK;
	return rt_fail(st, func,
		       "fix the model or input, then call "
		       "npurt_stream_clear_error() to use the stream again",
		       "%s", reason);
}

/* Job @j ended with -EIO: find out why and make it sticky. */
static void record_fault(npurt_stream *s, const struct rt_job *j)
{
	struct drm_npu_queue_query q = {
		.handle = j->queue, .flags = DRM_NPU_QUEUE_QUERY_CLEAR_FAULT,
	};
	char where[256];
	int ret;

	ret = npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_QUEUE_QUERY, &q);
	if (ret) {
		snprintf(where, sizeof(where), "a job (fence %llu)",
			 (unsigned long long)j->fence);
		q.fault_reason = 0;
	} else if (j->model) {
		rt_model_describe_fault(j->model, j->variant, j->model_stream,
					q.fault_fence == j->fence ?
						q.fault_task : UINT32_MAX,
					where, sizeof(where));
	} else {
		snprintf(where, sizeof(where), "a runtime job (copy or event, "
			 "task %u)", q.fault_task);
	}
	pthread_mutex_lock(&s->lock);
	if (!s->fault) {
		s->fault = NPURT_ERR_DEVICE_FAULT;
		snprintf(s->fault_reason, sizeof(s->fault_reason),
			 "device fault in %s: %s%s", where,
			 rt_fault_reason_str(q.fault_fence == j->fence ?
					     q.fault_reason :
					     DRM_NPU_FAULT_CANCELLED),
			 q.fault_operand != ~0u && q.fault_fence == j->fence ?
				 " (see the operand in npu-om's task list)" :
				 "");
	}
	pthread_mutex_unlock(&s->lock);
}

/* Waits for the oldest remembered job; 0, or -errno of the wait. */
static int reap_one(npurt_stream *s, bool block)
{
	struct drm_npu_wait_fence w = { 0 };
	struct rt_job j;
	int ret;

	pthread_mutex_lock(&s->lock);
	if (!s->job_count) {
		pthread_mutex_unlock(&s->lock);
		return -ENOENT;
	}
	j = s->jobs[s->job_head];
	pthread_mutex_unlock(&s->lock);
	w.queue = j.queue;
	w.fence = j.fence;
	do {
		w.timeout_ns = block ? rt_deadline_ms(1000) : 0;
		ret = npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_WAIT_FENCE, &w);
	} while (ret == -ETIME && block);
	if (ret == -ETIME)
		return ret;
	if (ret == -EIO)
		record_fault(s, &j);
	pthread_mutex_lock(&s->lock);
	if (s->job_count && s->jobs[s->job_head].queue == j.queue &&
	    s->jobs[s->job_head].fence == j.fence) {
		s->job_head = (s->job_head + 1) % RT_MAX_JOBS;
		s->job_count--;
	}
	pthread_mutex_unlock(&s->lock);
	return ret == -EIO ? 0 : ret;
}

/*
 * Drops the remembered jobs of a model being unloaded (all complete: the
 * model waited for its executions), keeping any fault they had.
 */
void rt_stream_forget_model(npurt_stream *s, const npurt_model *m)
{
	struct rt_job *keep = malloc(RT_MAX_JOBS * sizeof(*keep));
	struct rt_job *bad = malloc(RT_MAX_JOBS * sizeof(*bad));
	uint32_t nk = 0, nb = 0;

	if (!keep || !bad) {
		free(keep);
		free(bad);
		rt_stream_sync(s, __func__);	/* the slow way: reap all */
		return;
	}
	pthread_mutex_lock(&s->lock);
	for (uint32_t i = 0; i < s->job_count; i++) {
		const struct rt_job *j = &s->jobs[(s->job_head + i) %
						  RT_MAX_JOBS];
		struct drm_npu_wait_fence w = {
			.queue = j->queue, .fence = j->fence, .timeout_ns = 0,
		};

		if (j->model != m)
			keep[nk++] = *j;
		else if (npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_WAIT_FENCE,
				       &w) == -EIO)
			bad[nb++] = *j;
	}
	memcpy(s->jobs, keep, nk * sizeof(*keep));
	s->job_head = 0;
	s->job_count = nk;
	pthread_mutex_unlock(&s->lock);
	for (uint32_t i = 0; i < nb; i++)
		record_fault(s, &bad[i]);
	free(keep);
	free(bad);
}

npurt_status rt_stream_sync(npurt_stream *s, const char *func)
{
	uint64_t target;
	int ret;

	while ((ret = reap_one(s, true)) != -ENOENT)
		if (ret)
			return rt_fail_errno(func, ret, "waiting for a job");
	pthread_mutex_lock(&s->lock);
	target = s->seq;
	pthread_mutex_unlock(&s->lock);
	ret = rt_sem_wait(s->ctx, s->sem, target);
	if (ret)
		return rt_fail_errno(func, ret, "waiting for the stream");
	/* Jobs submitted while we waited on the timeline are covered too. */
	while ((ret = reap_one(s, true)) != -ENOENT)
		if (ret)
			return rt_fail_errno(func, ret, "waiting for a job");
	return rt_stream_check_fault(s, func);
}

NPURT_API npurt_status npurt_stream_synchronize(npurt_stream *stream)
{
	if (!stream)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a stream",
			       "stream is NULL");
	return rt_stream_sync(stream, __func__);
}

NPURT_API npurt_status npurt_stream_query(npurt_stream *stream)
{
	struct drm_npu_sem_query q;
	uint64_t target;
	int ret;

	if (!stream)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a stream",
			       "stream is NULL");
	pthread_mutex_lock(&stream->lock);
	target = stream->seq;
	pthread_mutex_unlock(&stream->lock);
	memset(&q, 0, sizeof(q));
	q.handle = stream->sem;
	ret = npu_dev_ioctl(stream->ctx->nd, DRM_IOCTL_NPU_SEM_QUERY, &q);
	if (ret)
		return RT_ERRNO(ret, "querying the stream");
	if (q.value < target)
		return NPURT_ERR_NOT_READY;
	/* Idle: collecting the finished jobs does not block. */
	return rt_stream_sync(stream, __func__);
}

NPURT_API npurt_status npurt_stream_clear_error(npurt_stream *stream)
{
	if (!stream)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a stream",
			       "stream is NULL");
	pthread_mutex_lock(&stream->lock);
	stream->fault = NPURT_OK;
	stream->fault_reason[0] = 0;
	pthread_mutex_unlock(&stream->lock);
	return NPURT_OK;
}

/* ---------------------------------------------------------------------- */
/* Submission                                                               */
/* ---------------------------------------------------------------------- */

npurt_status rt_stream_submit_locked(npurt_stream *s, struct rt_submit *j,
				     uint64_t *seq)
{
	struct drm_npu_submit sub;
	struct rt_job *rec;
	uint32_t nw = j->num_waits, ns = j->num_signals;
	int ret;

	while (s->job_count == RT_MAX_JOBS) {
		/* Backpressure: retire the oldest job first. */
		pthread_mutex_unlock(&s->lock);
		ret = reap_one(s, true);
		pthread_mutex_lock(&s->lock);
		if (ret && ret != -ENOENT)
			return RT_ERRNO(ret, "waiting for an old job");
	}
	if (j->take_event_waits) {
		for (uint32_t i = 0; i < s->num_waits &&
		     nw < DRM_NPU_MAX_SEM_POINTS; i++)
			j->waits[nw++] = s->waits[i];
	}
	if (j->timeline) {
		if (nw >= DRM_NPU_MAX_SEM_POINTS ||
		    ns >= DRM_NPU_MAX_SEM_POINTS)
			return RT_FAIL(NPURT_ERR_INTERNAL, "report it",
				       "too many semaphore points");
		j->waits[nw].handle = s->sem;
		j->waits[nw++].value = s->seq;
		j->signals[ns].handle = s->sem;
		j->signals[ns++].value = s->seq + 1;
	}
	memset(&sub, 0, sizeof(sub));
	sub.queue = j->queue ? j->queue : s->queue;
	sub.program = j->program;
	sub.bos_ptr = (uintptr_t)j->bos;
	sub.num_bos = j->num_bos;
	sub.waits_ptr = (uintptr_t)j->waits;
	sub.num_waits = nw;
	sub.signals_ptr = (uintptr_t)j->signals;
	sub.num_signals = ns;
	sub.sem_bindings_ptr = (uintptr_t)j->bindings;
	sub.num_sem_bindings = j->num_bindings;
	sub.first_task = j->first_task;
	sub.num_tasks = j->num_tasks;
	if (j->profile_bo) {
		sub.flags = DRM_NPU_SUBMIT_PROFILE;
		sub.profile_bo = j->profile_bo;
		sub.profile_offset = j->profile_offset;
	}
	ret = npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_SUBMIT, &sub);
	if (ret)
		return RT_ERRNO(ret, "submitting a job");
	if (j->take_event_waits)
		s->num_waits = 0;
	if (j->timeline)
		s->seq++;
	if (seq)
		*seq = s->seq;
	rec = &s->jobs[(s->job_head + s->job_count) % RT_MAX_JOBS];
	rec->queue = sub.queue;
	rec->fence = sub.fence;
	rec->model = j->model;
	rec->model_stream = j->model_stream;
	rec->variant = j->variant;
	rec->exec = j->exec;
	s->job_count++;
	return NPURT_OK;
}

/* ---------------------------------------------------------------------- */
/* Host operations in stream order                                          */
/* ---------------------------------------------------------------------- */

static void run_host_op(npurt_stream *s, struct rt_host_op *op)
{
	struct drm_npu_sem_signal sig = { .handle = s->sem, .value = op->seq };
	int ret;

	ret = rt_sem_wait(s->ctx, s->sem, op->seq - 1);
	if (!ret && op->extra_sem)
		ret = rt_sem_wait(s->ctx, op->extra_sem, op->extra_value);
	if (!ret && op->fn) {
		ret = op->fn(op->user);
		if (ret > 0)
			ret = -ret;
	} else if (!ret) {
		if (op->fill >= 0)
			memset(op->dst, op->fill, op->size);
		else
			if (op->size)
				memcpy(op->dst, op->src, op->size);
	}
	if (op->post_sem) {
		struct drm_npu_sem_signal post = {
			.handle = op->post_sem, .value = op->post_value,
		};

		if (npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_SEM_SIGNAL, &post) &&
		    !ret)
			ret = -EIO;
	}
	if (npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_SEM_SIGNAL, &sig) || ret) {
		pthread_mutex_lock(&s->lock);
		s->host_error = ret ? ret : -EIO;
		if (!s->fault) {
			s->fault = NPURT_ERR_INTERNAL;
			snprintf(s->fault_reason, sizeof(s->fault_reason),
				 "a host copy or function of the stream failed (%s)",
				 strerror(ret ? -ret : EIO));
		}
		pthread_mutex_unlock(&s->lock);
	}
}

static void *worker_main(void *arg)
{
	npurt_stream *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct rt_host_op *op;

		while (!s->ops_head && !s->worker_stop)
			pthread_cond_wait(&s->cond, &s->lock);
		op = s->ops_head;
		if (!op)
			break;
		pthread_mutex_unlock(&s->lock);
		run_host_op(s, op);
		pthread_mutex_lock(&s->lock);
		s->ops_head = op->next;
		if (!s->ops_head)
			s->ops_tail = NULL;
		free(op);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

npurt_status rt_stream_host_op_locked(npurt_stream *s, struct rt_host_op *op)
{
	if (s->num_waits) {
		/* Event waits apply to host work too: a NOP job absorbs them. */
		struct rt_submit j;
		npurt_status st;

		memset(&j, 0, sizeof(j));
		j.program = s->ctx->nop_prog;
		j.timeline = true;
		j.take_event_waits = true;
		st = rt_stream_submit_locked(s, &j, NULL);
		if (st) {
			free(op);
			return st;
		}
	}
	if (!s->worker_running) {
		if (pthread_create(&s->worker, NULL, worker_main, s)) {
			free(op);
			return RT_FAIL(NPURT_ERR_NOMEM, "raise the thread limit",
				       "cannot start the stream's copy thread");
		}
		s->worker_running = true;
	}
	op->seq = ++s->seq;
	op->next = NULL;
	if (s->ops_tail)
		s->ops_tail->next = op;
	else
		s->ops_head = op;
	s->ops_tail = op;
	pthread_cond_broadcast(&s->cond);
	return NPURT_OK;
}
