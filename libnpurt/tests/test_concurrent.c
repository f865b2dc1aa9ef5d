// SPDX-License-Identifier: MIT
/*
 * test_concurrent.c - several executions of one loaded model at once:
 * npurt_model_execute() from many threads (the model's pool of execution
 * contexts), npurt_exec_* contexts with their own variants, the weights
 * uploaded once, executions overlapping on the device, and teardown with
 * contexts alive. Built with ThreadSanitizer by `make check-rt-tsan`.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_models.h"
#include "rt_test_util.h"
#include "tap.h"

#define ATOL 1e-5
#define RTOL 1e-4
#define NTHREADS 4
#define ITERS 30

static npurt_context *ctx;

static npurt_model *load(int two_branch)
{
	const uint32_t batches[] = { 1, 2, 4 };
	npurt_model *m = NULL;
	void *data;
	size_t size;
	int ret = two_branch ? rt_build_two_branch(2, &data, &size) :
			       rt_build_mlp(batches, 3, 1, &data, &size);

	if (ret)
		return NULL;
	if (npurt_model_load_memory(ctx, data, size, &m))
		m = NULL;
	free(data);
	return m;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct worker {
	npurt_model *m;
	npurt_exec *e;		/* NULL: npurt_model_execute */
	int two_branch;
	uint32_t batch;
	uint32_t seed;
	int iters;
	int failures;
	npurt_status first_err;
	char reason[384];
	pthread_barrier_t *go;
};

/* One execution on host I/O, checked against the host reference. */
static int run_once(struct worker *w, uint32_t seed)
{
	float x[4 * TB_K], y[4 * TB_N], ref[4 * TB_N];
	uint32_t nx = w->two_branch ? TB_K : w->batch * MLP_IN;
	uint32_t ny = w->two_branch ? TB_N : w->batch * MLP_OUT;
	npurt_io in = { NULL, x, 0, nx * 4 };
	npurt_io out = { NULL, y, 0, ny * 4 };
	npurt_status st;

	rt_fill(x, nx, seed);
	memset(y, 0xff, sizeof(y));
	st = w->e ? npurt_exec_run(w->e, &in, 1, &out, 1) :
		    npurt_model_execute(w->m, &in, 1, &out, 1);
	if (st) {
		if (!w->first_err) {
			w->first_err = st;
			snprintf(w->reason, sizeof(w->reason), "%s", rt_err());
		}
		return -1;
	}
	if (w->two_branch)
		rt_two_branch_reference(x, 2, ref);
	else
		rt_mlp_reference(x, w->batch, ref);
	return rt_max_err(y, ref, ny, ATOL, RTOL) <= 1.0 ? 0 : 1;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	if (w->go)
		pthread_barrier_wait(w->go);
	for (int i = 0; i < w->iters; i++)
		if (run_once(w, w->seed * 1000 + (uint32_t)i))
			w->failures++;
	return NULL;
}

/* @n workers at once; the number of wrong or failed executions. */
static int run_workers(struct worker *w, int n)
{
	pthread_t t[NTHREADS];
	pthread_barrier_t go;
	int bad = 0;

	pthread_barrier_init(&go, NULL, (unsigned)n);
	for (int i = 0; i < n; i++) {
		w[i].go = &go;
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		bad += w[i].failures;
		if (w[i].first_err)
			printf("# worker %d: %s: %s\n", i,
			       npurt_status_str(w[i].first_err), w[i].reason);
	}
	pthread_barrier_destroy(&go);
	return bad;
}

static void test_pool(int two_branch)
{
	const char *what = two_branch ? "two-stream net" : "MLP";
	struct worker w[NTHREADS];
	npurt_model *m = load(two_branch);
	uint32_t contexts = 0, max = 0;
	int bad, ok;

	if (!tap_ok(m != NULL, "%s loads: %s", what, m ? "ok" : rt_err()))
		return;
	ok = npurt_model_set_max_executions(m, NTHREADS) == NPURT_OK &&
	     npurt_model_get_executions(m, &contexts, &max) == NPURT_OK;
	tap_ok(ok && contexts == 1 && max == NTHREADS,
	       "%s: pool of %u, %u context before any run", what, max,
	       contexts);
	memset(w, 0, sizeof(w));
	for (int i = 0; i < NTHREADS; i++) {
		w[i].m = m;
		w[i].two_branch = two_branch;
		w[i].batch = two_branch ? 1 : 2;
		w[i].seed = (uint32_t)i + 1;
		w[i].iters = ITERS;
	}
	if (!two_branch)
		npurt_model_select_variant(m, 1);	/* batch=2 */
	bad = run_workers(w, NTHREADS);
	npurt_model_get_executions(m, &contexts, NULL);
	tap_ok(bad == 0 && contexts >= 1 && contexts <= NTHREADS,
	       "%s: %d threads x %d npurt_model_execute on one model: %d "
	       "wrong, %u execution contexts", what, NTHREADS, ITERS, bad,
	       contexts);
	npurt_model_unload(m);
}

/* Contexts of their own, each with another variant, all at once. */
static void test_execs(void)
{
	const uint32_t batch[NTHREADS] = { 1, 2, 4, 2 };
	struct worker w[NTHREADS];
	npurt_model *m = load(0);
	npurt_exec *e[NTHREADS] = { 0 };
	npurt_model_info info;
	npurt_mem_stats s0, s1;
	npurt_tensor_desc d;
	int ok = 1, bad;

	if (!tap_ok(m != NULL, "MLP with gears 1, 2, 4 loads"))
		return;
	npurt_model_get_info(m, &info);
	npurt_mem_get_stats(ctx, &s0);
	for (int i = 0; i < NTHREADS; i++) {
		uint64_t dims[2] = { batch[i], MLP_IN };
		const uint64_t *shapes[1] = { dims };

		ok &= npurt_exec_create(m, &e[i]) == NPURT_OK &&
		      npurt_exec_select_shapes(e[i], shapes) == NPURT_OK;
	}
	npurt_mem_get_stats(ctx, &s1);
	/*
	 * A context holds a workspace and the staging, never the weights:
	 * the model's bytes less the weights, each.
	 */
	tap_ok(ok && s1.model_bytes - s0.model_bytes ==
		     NTHREADS * (s0.model_bytes - info.weights_bytes),
	       "%d contexts add %llu bytes, %llu each (model %llu with "
	       "%llu of weights): weights loaded once", NTHREADS,
	       (unsigned long long)(s1.model_bytes - s0.model_bytes),
	       (unsigned long long)(s1.model_bytes - s0.model_bytes) /
		       NTHREADS,
	       (unsigned long long)s0.model_bytes,
	       (unsigned long long)info.weights_bytes);
	memset(w, 0, sizeof(w));
	for (int i = 0; i < NTHREADS; i++) {
		w[i].m = m;
		w[i].e = e[i];
		w[i].batch = batch[i];
		w[i].seed = (uint32_t)i + 11;
		w[i].iters = ITERS;
	}
	bad = run_workers(w, NTHREADS);
	tap_ok(ok && bad == 0,
	       "4 contexts (batch 1, 2, 4, 2) x %d runs at once: %d wrong",
	       ITERS, bad);
	ok = 1;
	for (int i = 0; i < NTHREADS; i++)
		ok &= npurt_exec_get_output(e[i], 0, &d) == NPURT_OK &&
		      d.dims[0] == batch[i] && d.dims[1] == MLP_OUT &&
		      d.size == batch[i] * MLP_OUT * 4;
	npurt_model_get_info(m, &info);
	tap_ok(ok && info.current_variant == 0,
	       "each context reports its own output shape; the model's "
	       "variant stays %u", info.current_variant);

	/* The asynchronous form, on a stream of the caller's. */
	{
		float x[4 * MLP_IN], y[4 * MLP_OUT], ref[4 * MLP_OUT];
		npurt_io in = { NULL, x, 0, sizeof(x) };
		npurt_io out = { NULL, y, 0, sizeof(y) };
		npurt_stream *s = NULL;

		rt_fill(x, 4 * MLP_IN, 99);
		rt_mlp_reference(x, 4, ref);
		ok = npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &s) ==
			     NPURT_OK &&
		     npurt_exec_run_async(e[2], &in, 1, &out, 1, s) ==
			     NPURT_OK &&
		     npurt_stream_synchronize(s) == NPURT_OK;
		tap_ok(ok && rt_max_err(y, ref, 4 * MLP_OUT, ATOL, RTOL) <=
				     1.0,
		       "npurt_exec_run_async on the caller's stream");
		npurt_stream_destroy(s);
	}
	npurt_exec_destroy(e[0]);
	npurt_exec_destroy(NULL);
	npurt_mem_get_stats(ctx, &s1);
	tap_ok(s1.model_bytes - s0.model_bytes ==
		       (NTHREADS - 1) * (s0.model_bytes - info.weights_bytes),
	       "npurt_exec_destroy gives a context's memory back");
	/* e[1..3] go with the model. */
	npurt_model_unload(m);
	npurt_mem_get_stats(ctx, &s1);
	tap_ok(s1.model_bytes == 0,
	       "unloading the model frees its remaining contexts (%llu "
	       "model bytes left)", (unsigned long long)s1.model_bytes);
}

/*
 * With slowed AI cores (each task takes >= 10 ms), executions of
 * separate contexts overlap: 4 at once take about one's time, not four.
 */
static void test_overlap(void)
{
	struct worker w[NTHREADS];
	npurt_model *m = load(0);
	npurt_exec *e[NTHREADS] = { 0 };
	double t1, t4;
	int ok = m != NULL, bad;

	for (int i = 0; ok && i < NTHREADS; i++)
		ok = npurt_exec_create(m, &e[i]) == NPURT_OK;
	if (!ok || rt_test_knob("slow_us", 10000)) {
		tap_skip("slow_us test mode unavailable");
		npurt_model_unload(m);
		return;
	}
	memset(w, 0, sizeof(w));
	for (int i = 0; i < NTHREADS; i++) {
		w[i].m = m;
		w[i].e = e[i];
		w[i].batch = 1;
		w[i].seed = (uint32_t)i + 21;
		w[i].iters = 2;
	}
	t1 = now_ms();
	bad = run_workers(w, 1);
	t1 = now_ms() - t1;
	t4 = now_ms();
	bad += run_workers(w, NTHREADS);
	t4 = now_ms() - t4;
	rt_test_knob("slow_us", 0);
	tap_ok(bad == 0 && t4 < 0.6 * NTHREADS * t1,
	       "slowed cores: 2 runs take %.0f ms on one context, 4 x 2 "
	       "runs on 4 contexts %.0f ms (< %.0f: they overlap)", t1, t4,
	       0.6 * NTHREADS * t1);
	npurt_model_unload(m);
}

static void test_refusals(void)
{
	npurt_model *m = load(0);
	npurt_exec *e = NULL;

	tap_ok(npurt_exec_create(NULL, &e) == NPURT_ERR_INVALID &&
	       npurt_exec_create(m, NULL) == NPURT_ERR_INVALID &&
	       npurt_model_set_max_executions(m, 0) == NPURT_ERR_INVALID &&
	       npurt_model_set_max_executions(m, 65) == NPURT_ERR_INVALID &&
	       npurt_exec_run(NULL, NULL, 0, NULL, 0) == NPURT_ERR_INVALID,
	       "bad arguments refused: %s", rt_err());
	if (npurt_exec_create(m, &e) == NPURT_OK) {
		float x[MLP_IN];
		npurt_io in = { NULL, x, 0, sizeof(x) };

		tap_ok(npurt_exec_run(e, &in, 1, NULL, 0) ==
			       NPURT_ERR_INVALID &&
		       strstr(rt_err(), "output"),
		       "a context checks its I/O like the model: %s",
		       rt_err());
	} else {
		tap_ok(0, "context created: %s", rt_err());
	}
	/* Unloaded with a context alive and a pool that grew. */
	npurt_model_unload(m);
}

int main(void)
{
	npurt_device *dev = NULL;

	tap_plan(16);
	if (npurt_init(0) || npurt_device_open(0, &dev) ||
	    npurt_context_create(dev, 0, &ctx)) {
		tap_ok(0, "runtime: %s", rt_err());
		return tap_done();
	}
	test_pool(0);
	test_pool(1);
	test_execs();
	test_overlap();
	test_refusals();
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	return tap_done();
}
