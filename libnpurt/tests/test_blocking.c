// SPDX-License-Identifier: MIT
/*
 * test_blocking.c - NPURT_LAUNCH_BLOCKING=1 makes every submission
 * synchronous: work is complete when the call returns, and a device fault
 * is reported by the call that submitted the faulting work.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_models.h"
#include "rt_test_util.h"
#include "tap.h"

int main(void)
{
	float x[TB_K] = { 0 }, y[TB_N];
	npurt_io in = { NULL, x, 0, sizeof(x) }, out = { NULL, y, 0, sizeof(y) };
	npurt_device *dev;
	npurt_context *ctx;
	npurt_stream *s;
	npurt_event *e;
	npurt_model *m;
	npurt_status st;
	void *data;
	size_t size;
	int slowed;

	setenv("NPURT_LAUNCH_BLOCKING", "1", 1);
	tap_plan(4);
	if (npurt_init(0) || npurt_device_open(0, &dev) ||
	    npurt_context_create(dev, 0, &ctx) ||
	    npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &s) ||
	    npurt_event_create(ctx, 0, &e) ||
	    rt_build_two_branch(2, &data, &size) ||
	    npurt_model_load_memory(ctx, data, size, &m)) {
		printf("Bail out! runtime setup: %s\n", rt_err());
		return 1;
	}
	free(data);
	/* Slow tasks: were the call asynchronous, work would be pending. */
	slowed = rt_test_knob("slow_us", 5000) == 0;
	st = npurt_model_execute_async(m, &in, 1, &out, 1, s);
	tap_ok(st == NPURT_OK && npurt_stream_query(s) == NPURT_OK,
	       "execute_async returns with the stream idle%s",
	       slowed ? "" : " (no slow mode)");
	st = npurt_event_record(e, s);
	tap_ok(st == NPURT_OK && npurt_event_query(e) == NPURT_OK,
	       "event_record returns with the event reached");
	if (slowed)
		rt_test_knob("slow_us", 0);
	if (rt_test_knob("fault", 1) == 0) {
		st = npurt_model_execute_async(m, &in, 1, &out, 1, s);
		tap_ok(st == NPURT_ERR_DEVICE_FAULT &&
		       strstr(rt_err(), "two_branch"),
		       "the fault is returned by the submitting call: %s",
		       rt_err());
		npurt_stream_clear_error(s);
		tap_ok(npurt_model_execute_async(m, &in, 1, &out, 1, s) ==
			       NPURT_OK, "the stream runs again after clearing");
	} else {
		tap_skip("no fault injection");
		tap_skip("no fault injection");
	}
	npurt_model_unload(m);
	npurt_event_destroy(e);
	npurt_stream_destroy(s);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	return tap_done();
}
