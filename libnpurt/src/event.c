// SPDX-License-Identifier: MIT
/*
 * event.c - events: a point on a stream's timeline, timed by the device.
 *
 * Recording submits a one-NOP job with per-task profiling into the event's
 * own small buffer, so the event both takes a timeline value (for waits and
 * synchronisation) and gets a device timestamp (for elapsed time).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

struct npurt_event {
	npurt_context *ctx;
	uint32_t sem;
	uint64_t value;
	bool recorded;
	uint32_t bo;
	struct drm_npu_task_profile *rec;
};

#define EVENT_BO_SIZE 4096

NPURT_API npurt_status npurt_event_create(npurt_context *ctx, uint32_t flags,
					  npurt_event **event)
{
	npurt_event *e;
	void *map;
	int ret;

	if (!ctx || !event || flags)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context, a pointer and flags 0",
			       "bad arguments");
	e = calloc(1, sizeof(*e));
	if (!e)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory for an event");
	ret = rt_bo_create(ctx, EVENT_BO_SIZE, &e->bo, &map);
	if (ret) {
		free(e);
		return rt_fail_bo(ctx, __func__, ret, EVENT_BO_SIZE,
				  "allocating an event's buffer");
	}
	e->ctx = ctx;
	e->rec = map;
	*event = e;
	return NPURT_OK;
}

NPURT_API npurt_status npurt_event_destroy(npurt_event *event)
{
	if (!event)
		return NPURT_OK;
	if (event->recorded)
		npurt_event_synchronize(event);
	rt_bo_destroy(event->ctx, event->bo, event->rec, EVENT_BO_SIZE);
	free(event);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_event_record(npurt_event *event,
					  npurt_stream *stream)
{
	struct rt_submit j;
	npurt_status st;
	uint64_t seq;

	if (!event || !stream || event->ctx != stream->ctx)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass an event and a stream of one context",
			       "bad event or stream");
	st = rt_stream_check_fault(stream, __func__);
	if (st)
		return st;
	/* The profile buffer may still be written by an earlier record. */
	if (event->recorded)
		npurt_event_synchronize(event);
	memset(&j, 0, sizeof(j));
	j.program = stream->ctx->nop_prog;
	j.timeline = true;
	j.take_event_waits = true;
	j.profile_bo = event->bo;
	pthread_mutex_lock(&stream->lock);
	st = rt_stream_submit_locked(stream, &j, &seq);
	pthread_mutex_unlock(&stream->lock);
	if (st)
		return st;
	event->sem = stream->sem;
	event->value = seq;
	event->recorded = true;
	if (rt_launch_blocking())
		return rt_stream_sync(stream, __func__);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_stream_wait_event(npurt_stream *stream,
					       npurt_event *event)
{
	const uint32_t max = sizeof(stream->waits) / sizeof(stream->waits[0]);
	npurt_status st = NPURT_OK;

	if (!stream || !event)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a stream and an event",
			       "stream or event is NULL");
	if (!event->recorded)
		return NPURT_OK;	/* as CUDA: nothing to wait for */
	pthread_mutex_lock(&stream->lock);
	if (stream->num_waits == max) {
		struct rt_submit j;

		memset(&j, 0, sizeof(j));
		j.program = stream->ctx->nop_prog;
		j.timeline = true;
		j.take_event_waits = true;
		st = rt_stream_submit_locked(stream, &j, NULL);
	}
	if (!st) {
		stream->waits[stream->num_waits].handle = event->sem;
		stream->waits[stream->num_waits].pad = 0;
		stream->waits[stream->num_waits++].value = event->value;
	}
	pthread_mutex_unlock(&stream->lock);
	return st;
}

NPURT_API npurt_status npurt_event_synchronize(npurt_event *event)
{
	int ret;

	if (!event)
		return RT_FAIL(NPURT_ERR_INVALID, "pass an event",
			       "event is NULL");
	if (!event->recorded)
		return NPURT_OK;
	ret = rt_sem_wait(event->ctx, event->sem, event->value);
	return ret ? RT_ERRNO(ret, "waiting for an event") : NPURT_OK;
}

NPURT_API npurt_status npurt_event_query(npurt_event *event)
{
	struct drm_npu_sem_query q;
	int ret;

	if (!event)
		return RT_FAIL(NPURT_ERR_INVALID, "pass an event",
			       "event is NULL");
	if (!event->recorded)
		return NPURT_OK;
	memset(&q, 0, sizeof(q));
	q.handle = event->sem;
	ret = npu_dev_ioctl(event->ctx->nd, DRM_IOCTL_NPU_SEM_QUERY, &q);
	if (ret)
		return RT_ERRNO(ret, "querying an event");
	return q.value >= event->value ? NPURT_OK : NPURT_ERR_NOT_READY;
}

NPURT_API npurt_status npurt_event_elapsed_time(npurt_event *start,
						npurt_event *end, double *ms)
{
	npurt_status st;

	if (!start || !end || !ms)
		return RT_FAIL(NPURT_ERR_INVALID, "pass two events and a pointer",
			       "bad arguments");
	if (!start->recorded || !end->recorded)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "record both events before timing them",
			       "an event was never recorded");
	st = npurt_event_query(start);
	if (!st)
		st = npurt_event_query(end);
	if (st == NPURT_ERR_NOT_READY)
		return RT_FAIL(NPURT_ERR_NOT_READY,
			       "synchronize the end event first",
			       "an event has not been reached yet");
	if (st)
		return st;
	*ms = ((double)end->rec[0].end_ns - (double)start->rec[0].end_ns) /
	      1e6;
	return NPURT_OK;
}
