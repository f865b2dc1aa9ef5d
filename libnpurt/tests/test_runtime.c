// SPDX-License-Identifier: MIT
/*
 * test_runtime.c - libnpurt end to end on the in-process device (or the
 * node $NPU_DEVICE names): devices, contexts, memory, copies, events, the
 * MLP (static and dynamic batch) against a host reference, zero-copy
 * device I/O, several threads on several models, refusals and a sticky
 * device fault that names model, task and op.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt_models.h"
#include "rt_test_util.h"
#include "tap.h"

#define ATOL 1e-5
#define RTOL 1e-4

static npurt_context *ctx;

static npurt_model *load_mlp(const uint32_t *b, uint32_t n, int dyn)
{
	npurt_model *m = NULL;
	void *data;
	size_t size;

	if (rt_build_mlp(b, n, dyn, &data, &size))
		return NULL;
	if (npurt_model_load_memory(ctx, data, size, &m))
		m = NULL;
	free(data);
	return m;
}

static int run_mlp_host(npurt_model *m, uint32_t batch, uint32_t seed)
{
	float x[4 * MLP_IN], y[4 * MLP_OUT], ref[4 * MLP_OUT];
	npurt_io in = { NULL, x, 0, batch * MLP_IN * 4 };
	npurt_io out = { NULL, y, 0, batch * MLP_OUT * 4 };

	rt_fill(x, batch * MLP_IN, seed);
	memset(y, 0xff, sizeof(y));
	if (npurt_model_execute(m, &in, 1, &out, 1))
		return -1;
	rt_mlp_reference(x, batch, ref);
	return rt_max_err(y, ref, batch * MLP_OUT, ATOL, RTOL) <= 1.0 ? 0 : 1;
}

static void test_devices(void)
{
	npurt_device_info info;
	npurt_device *dev;
	uint32_t n = 0;

	tap_ok(npurt_context_create(NULL, 0, &ctx) == NPURT_ERR_INVALID,
	       "context without a device refused");
	npurt_status st = npurt_device_count(&n);

	tap_ok(st == NPURT_OK && n >= 1, "%u device(s) enumerated", n);
	tap_ok(npurt_device_open(n, &dev) == NPURT_ERR_NO_DEVICE &&
	       strstr(rt_err(), "there are"),
	       "device index past the count refused: %s", rt_err());
	npurt_device_open(0, &dev);
	npurt_device_get_info(dev, &info);
	tap_ok(info.model == 0x910 && info.num_queues >= 2 &&
	       info.vram_size > 0, "device %s: model 0x%x, %u queues, %u cores",
	       info.name, info.model, info.num_queues, info.num_cores);
	tap_ok(npurt_context_create(dev, 0, &ctx) == NPURT_OK,
	       "context created");
}

static void test_memory(void)
{
	npurt_mem *a = NULL, *b = NULL;
	npurt_stream *s;
	npurt_mem_stats ms;
	uint8_t src[5000], dst[5000], *pinned = NULL;
	int ok;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 13 + 1);
	ok = !npurt_mem_alloc(ctx, sizeof(src), &a) &&
	     !npurt_mem_alloc(ctx, sizeof(src), &b);
	tap_ok(ok && npurt_mem_size(a) == sizeof(src), "device alloc");
	memset(dst, 0, sizeof(dst));
	ok = !npurt_memcpy_h2d(a, 0, src, sizeof(src)) &&
	     !npurt_memcpy_d2d(b, 100, a, 0, 4000) &&
	     !npurt_memcpy_d2h(dst, b, 100, 4000);
	tap_ok(ok && !memcmp(dst, src, 4000),
	       "h2d, device-side d2d at an offset, d2h round trip: %s",
	       ok ? "ok" : rt_err());
	tap_ok(npurt_memcpy_h2d(a, 4990, src, 20) == NPURT_ERR_INVALID &&
	       strstr(rt_err(), "outside"),
	       "copy past the block refused: %s", rt_err());

	/* Stream-ordered: h2d, device copy, d2h, all queued then synced. */
	npurt_stream_create(ctx, NPURT_PRIORITY_HIGH, &s);
	ok = !npurt_host_alloc(ctx, sizeof(src), (void **)&pinned);
	memset(pinned, 0, sizeof(src));
	memset(dst, 0, sizeof(dst));
	ok = ok && !npurt_memcpy_h2d_async(a, 0, src + 7, 4096, s) &&
	     !npurt_memcpy_d2d_async(b, 0, a, 0, 4096, s) &&
	     !npurt_memcpy_d2h_async(pinned, b, 0, 4096, s) &&
	     !npurt_stream_synchronize(s);
	tap_ok(ok && !memcmp(pinned, src + 7, 4096) &&
	       npurt_stream_query(s) == NPURT_OK,
	       "async h2d -> d2d -> d2h in stream order into pinned memory");
	npurt_host_free(ctx, pinned);
	npurt_stream_destroy(s);
	npurt_mem_free(a);
	npurt_mem_free(b);
	ok = !npurt_mem_get_stats(ctx, &ms);
	tap_ok(ok && ms.num_allocs == 2 && ms.num_frees == 2 &&
	       ms.allocated_bytes_current == 0 &&
	       ms.reserved_bytes_current > 0 && ms.device_total > 0,
	       "memory stats: 2 allocs, 2 frees, 0 allocated, %llu reserved",
	       (unsigned long long)ms.reserved_bytes_current);
}

static void test_mlp(void)
{
	uint32_t batch = 2;
	npurt_model *m = load_mlp(&batch, 1, 0);
	npurt_tensor_desc d;
	npurt_model_info info;
	float x[2 * MLP_IN], y[2 * MLP_OUT];
	npurt_io in = { NULL, x, 0, 4 }, out = { NULL, y, 0, sizeof(y) };
	uint32_t idx;

	if (!tap_ok(m != NULL, "static MLP loads: %s", m ? "ok" : rt_err()))
		return;
	npurt_model_get_info(m, &info);
	npurt_model_get_input(m, 0, 0, &d);
	tap_ok(info.num_inputs == 1 && info.num_outputs == 1 &&
	       !strcmp(d.name, "x") && d.rank == 2 && d.dims[0] == 2 &&
	       d.dims[1] == MLP_IN && d.dtype == NPURT_DTYPE_F32 &&
	       d.size == sizeof(x),
	       "describe: input x f32 [2,8], %zu bytes", d.size);
	tap_ok(npurt_model_find_output(m, "y", &idx) == NPURT_OK && idx == 0 &&
	       npurt_model_find_input(m, "nope", &idx) == NPURT_ERR_NOT_FOUND,
	       "find I/O by name");
	tap_ok(run_mlp_host(m, 2, 1) == 0 && run_mlp_host(m, 2, 2) == 0,
	       "MLP matches the host reference (two inputs)");
	tap_ok(npurt_model_execute(m, &in, 1, &out, 1) == NPURT_ERR_SHAPE &&
	       strstr(rt_err(), "\"x\"") && strstr(rt_err(), "[2,8]") &&
	       strstr(rt_err(), "float32"),
	       "short input refused with name, shape, dtype: %s", rt_err());
	npurt_model_unload(m);
}

static void test_dynamic(void)
{
	const uint32_t gears[3] = { 1, 2, 4 };
	npurt_model *m = load_mlp(gears, 3, 1);
	uint64_t s4[2] = { 4, MLP_IN }, s3[2] = { 3, MLP_IN };
	const uint64_t *p4[1] = { s4 }, *p3[1] = { s3 };
	npurt_tensor_desc d;
	int ok = 1;

	if (!tap_ok(m != NULL, "dynamic MLP loads"))
		return;
	npurt_model_get_input(m, 0, 1, &d);
	tap_ok(d.dims[0] == NPURT_DIM_DYNAMIC && !strcmp(d.dim_names[0], "batch"),
	       "generic input has symbolic dim batch");
	for (uint32_t i = 0; i < 3; i++) {
		npurt_model_select_variant(m, i);
		ok &= run_mlp_host(m, gears[i], 10 + i) == 0;
	}
	tap_ok(ok, "every batch gear (1, 2, 4) matches the reference");
	tap_ok(npurt_model_select_shapes(m, p4) == NPURT_OK &&
	       run_mlp_host(m, 4, 20) == 0, "select by shape [4,8] and run");
	tap_ok(npurt_model_select_shapes(m, p3) == NPURT_ERR_SHAPE &&
	       strstr(rt_err(), "batch=4"),
	       "unknown shape refused, variants listed: %s", rt_err());
	npurt_model_unload(m);
}

static void test_zero_copy(void)
{
	uint32_t batch = 2;
	npurt_model *m = load_mlp(&batch, 1, 0);
	npurt_mem *pad = NULL, *xin = NULL, *yout = NULL;
	float x[2 * MLP_IN], y[2 * MLP_OUT], ref[2 * MLP_OUT];
	npurt_event *e0, *e1;
	npurt_stream *s;
	double ms = -1;
	int ok;

	if (!m)
		return;
	rt_fill(x, sizeof(x) / 4, 77);
	rt_mlp_reference(x, 2, ref);
	/* A small block first, so x sits at a non-zero segment offset. */
	ok = !npurt_mem_alloc(ctx, 1000, &pad) &&
	     !npurt_mem_alloc(ctx, sizeof(x) + 64, &xin) &&
	     !npurt_mem_alloc(ctx, sizeof(y), &yout);
	npurt_memcpy_h2d(xin, 64, x, sizeof(x));
	npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &s);
	npurt_event_create(ctx, 0, &e0);
	npurt_event_create(ctx, 0, &e1);
	{
		npurt_io in = { xin, NULL, 64, sizeof(x) };
		npurt_io out = { yout, NULL, 0, sizeof(y) };

		ok = ok && !npurt_event_record(e0, s) &&
		     !npurt_model_execute_async(m, &in, 1, &out, 1, s) &&
		     !npurt_event_record(e1, s) &&
		     !npurt_event_synchronize(e1) &&
		     !npurt_stream_synchronize(s) &&
		     !npurt_memcpy_d2h(y, yout, 0, sizeof(y));
	}
	tap_ok(ok && rt_max_err(y, ref, 2 * MLP_OUT, ATOL, RTOL) <= 1.0,
	       "device I/O blocks bound without copies (input at offset 64): %s",
	       ok ? "ok" : rt_err());
	ok = npurt_event_query(e1) == NPURT_OK &&
	     npurt_event_elapsed_time(e0, e1, &ms) == NPURT_OK;
	tap_ok(ok && ms >= 0.0, "events: reached, device-timed elapsed %.3f ms",
	       ms);
	npurt_event_destroy(e0);
	npurt_event_destroy(e1);
	npurt_stream_destroy(s);
	npurt_mem_free(pad);
	npurt_mem_free(xin);
	npurt_mem_free(yout);
	npurt_model_unload(m);
}

/* Stream B waits for an event of stream A before reading A's result. */
static void test_cross_stream(void)
{
	static uint8_t src[65536], got[65536];
	static float x[TB_K], y[TB_N];
	npurt_io in = { NULL, x, 0, sizeof(x) }, out = { NULL, y, 0, sizeof(y) };
	npurt_model *m = NULL;
	void *data = NULL;
	size_t size;
	npurt_mem *a = NULL, *b = NULL;
	npurt_stream *sa, *sb;
	npurt_event *e;
	int ok, slowed;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 3);
	ok = !npurt_mem_alloc(ctx, sizeof(src), &a) &&
	     !npurt_mem_alloc(ctx, sizeof(src), &b) &&
	     !npurt_memcpy_h2d(a, 0, src, sizeof(src)) &&
	     !npurt_memset(b, 0, 0, sizeof(src));
	npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &sa);
	npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &sb);
	npurt_event_create(ctx, 0, &e);
	/*
	 * A's copy is queued behind a slowed model execution: without the
	 * wait, B would read b before A wrote it.
	 */
	if (rt_build_two_branch(3, &data, &size) ||
	    npurt_model_load_memory(ctx, data, size, &m))
		ok = 0;
	free(data);
	slowed = rt_test_knob("slow_us", 20000) == 0;
	ok = ok && !npurt_model_execute_async(m, &in, 1, &out, 1, sa) &&
	     !npurt_memcpy_d2d_async(b, 0, a, 0, sizeof(src), sa) &&
	     !npurt_event_record(e, sa) && !npurt_stream_wait_event(sb, e) &&
	     !npurt_memcpy_d2h_async(got, b, 0, sizeof(got), sb) &&
	     !npurt_stream_synchronize(sb);
	if (slowed)
		rt_test_knob("slow_us", 0);
	tap_ok(ok && !memcmp(got, src, sizeof(src)),
	       "stream B waits for stream A's event before reading its result");
	npurt_stream_synchronize(sa);
	npurt_model_unload(m);
	npurt_event_destroy(e);
	npurt_stream_destroy(sa);
	npurt_stream_destroy(sb);
	npurt_mem_free(a);
	npurt_mem_free(b);
}

/* Unloading a model with work still queued on a user stream. */
static void test_unload_pending(void)
{
	static float x[TB_K], y[TB_N];
	npurt_io in = { NULL, x, 0, sizeof(x) }, out = { NULL, y, 0, sizeof(y) };
	npurt_model *m = NULL;
	npurt_stream *s;
	void *data;
	size_t size;
	int ok;

	npurt_stream_create(ctx, NPURT_PRIORITY_LOW, &s);
	ok = !rt_build_two_branch(2, &data, &size) &&
	     !npurt_model_load_memory(ctx, data, size, &m);
	free(data);
	ok = ok && !npurt_model_execute_async(m, &in, 1, &out, 1, s) &&
	     !npurt_model_execute_async(m, &in, 1, &out, 1, s) &&
	     !npurt_model_unload(m) && !npurt_stream_synchronize(s);
	tap_ok(ok, "unload waits for queued executions; the stream stays "
	       "usable: %s", ok ? "ok" : rt_err());
	npurt_stream_destroy(s);
}

struct worker {
	npurt_model *m;
	int failures;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < 25; i++)
		if (run_mlp_host(w->m, 2, (uint32_t)i))
			w->failures++;
	return NULL;
}

static void test_threads(void)
{
	uint32_t batch = 2;
	struct worker w[4];
	pthread_t t[4];
	int bad = 0;

	/* Two models, two threads each: shared and separate models. */
	w[0].m = w[1].m = load_mlp(&batch, 1, 0);
	w[2].m = w[3].m = load_mlp(&batch, 1, 0);
	for (int i = 0; i < 4; i++) {
		w[i].failures = 0;
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		bad += w[i].failures;
	}
	tap_ok(w[0].m && w[2].m && bad == 0,
	       "4 threads x 25 executions on 2 models: %d wrong", bad);
	npurt_model_unload(w[0].m);
	npurt_model_unload(w[2].m);
}

static void test_refusals(void)
{
	uint32_t batch = 1;
	npurt_model *m = NULL;
	void *data;
	size_t size;
	npurt_status st;

	rt_build_mlp(&batch, 1, 0, &data, &size);
	((uint8_t *)data)[size / 2] ^= 0x40;
	st = npurt_model_load_memory(ctx, data, size, &m);
	tap_ok(st == NPURT_ERR_BAD_MODEL && strstr(rt_err(), "checksum") &&
	       *npurt_last_error()->action,
	       "corrupt model refused: %s (%s)", rt_err(),
	       npurt_last_error()->action);
	free(data);
	st = npurt_model_load_file(ctx, "/nonexistent.om", &m);
	tap_ok(st == NPURT_ERR_NOT_FOUND && strstr(rt_err(), "/nonexistent.om"),
	       "missing file: %s", rt_err());
	{
		struct om_writer *w = om_writer_create();
		struct om_tensor_info x = { "x", DRM_NPU_DTYPE_F32, 0, 1, { 4 },
					    { NULL } };
		struct drm_npu_task t;
		int v;

		om_writer_set_name(w, "future");
		om_writer_set_target(w, 0x920, DRM_NPU_FEATURE_FP32);
		om_writer_add_io(w, OM_IO_INPUT, &x, NULL);
		x.name = "y";
		om_writer_add_io(w, OM_IO_OUTPUT, &x, NULL);
		v = om_writer_add_variant(w, NULL);
		om_writer_set_plan(w, v, 0, 0);
		memset(&t, 0, sizeof(t));
		om_writer_add_program(w, v, 0, &t, 1, NULL);
		om_writer_serialize(w, &data, &size);
		om_writer_destroy(w);
	}
	st = npurt_model_load_memory(ctx, data, size, &m);
	tap_ok(st == NPURT_ERR_INCOMPATIBLE && strstr(rt_err(), "0x920") &&
	       strstr(rt_err(), "0x910"),
	       "model for another device refused: %s", rt_err());
	free(data);
}

static void test_fault(void)
{
	uint32_t batch = 2;
	npurt_model *m = load_mlp(&batch, 1, 0);
	float x[2 * MLP_IN] = { 0 }, y[2 * MLP_OUT];
	npurt_io in = { NULL, x, 0, sizeof(x) };
	npurt_io out = { NULL, y, 0, sizeof(y) };
	npurt_stream *s;
	npurt_status st;

	if (!m || rt_test_knob("fault", 1)) {
		for (int i = 0; i < 5; i++)
			tap_skip("device has no fault injection here");
		npurt_model_unload(m);
		return;
	}
	npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &s);
	npurt_model_execute_async(m, &in, 1, &out, 1, s);
	st = npurt_stream_synchronize(s);
	tap_ok(st == NPURT_ERR_DEVICE_FAULT && strstr(rt_err(), "\"mlp\"") &&
	       strstr(rt_err(), "task 0") && strstr(rt_err(), "Gemm") &&
	       strstr(rt_err(), "fc1"),
	       "fault names model, task and op: %s", rt_err());
	tap_ok(npurt_model_execute_async(m, &in, 1, &out, 1, s) ==
		       NPURT_ERR_DEVICE_FAULT,
	       "the fault is sticky on the stream");
	npurt_stream_clear_error(s);
	tap_ok(!npurt_model_execute_async(m, &in, 1, &out, 1, s) &&
	       !npurt_stream_synchronize(s) && run_mlp_host(m, 2, 5) == 0,
	       "after clearing, the stream and model run correctly");
	/* A hung task: the watchdog stops it; execute reports it. */
	if (!rt_test_knob("watchdog_ms", 50) && !rt_test_knob("hang", 1)) {
		st = npurt_model_execute(m, &in, 1, &out, 1);
		rt_test_knob("watchdog_ms", 2000);
		tap_ok(st == NPURT_ERR_DEVICE_FAULT &&
		       strstr(rt_err(), "watchdog") && strstr(rt_err(), "mlp"),
		       "a hung task is stopped by the watchdog: %s", rt_err());
		tap_ok(run_mlp_host(m, 2, 6) == 0,
		       "npurt_model_execute works again after a fault");
	} else {
		tap_skip("no hang/watchdog test mode");
		tap_skip("no hang/watchdog test mode");
	}
	npurt_stream_destroy(s);
	npurt_model_unload(m);
}

int main(void)
{
	tap_plan(36);
	tap_ok(npurt_device_count(&(uint32_t){ 0 }) ==
		       NPURT_ERR_NOT_INITIALIZED &&
	       npurt_last_error()->code == NPURT_ERR_NOT_INITIALIZED,
	       "calls before npurt_init refused: %s", rt_err());
	if (!tap_ok(npurt_init(0) == NPURT_OK, "init"))
		return 1;
	test_devices();
	test_memory();
	test_mlp();
	test_dynamic();
	test_zero_copy();
	test_cross_stream();
	test_unload_pending();
	test_threads();
	test_refusals();
	test_fault();
	npurt_context_destroy(ctx);
	tap_ok(npurt_finalize() == NPURT_OK, "finalize");
	return tap_done();
}
