// SPDX-License-Identifier: MIT
/*
 * bench_serve.c - one loaded model served by N threads (`make bench-serve`,
 * Documentation/runtime.rst "Concurrent executions").
 *
 *   bench_serve MODEL.om INPUT_DIR THREADS SECONDS MODE [MAX]
 *
 * MODE pool:     the threads call npurt_model_execute() on one model (its
 *                pool of execution contexts, weights loaded once; at most
 *                MAX executions at once, default THREADS);
 *      execs:    each thread runs its own npurt_exec context of the model;
 *      separate: the model loaded THREADS times, one per thread (what a
 *                server did before execution contexts).
 * Inputs are INPUT_DIR/input_K.npy. Every thread runs one warm-up
 * execution whose outputs must equal, bit for bit, those of a single
 * execution before the threads start; then they run for SECONDS. Prints
 * one JSON object: requests, seconds, requests/s, the device memory the
 * model(s) hold (weights, workspaces, staging) and the weights' share.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npurt.h"
#include "npy.h"

#define MAX_THREADS	64
#define MAX_IO		16

struct bench {
	npurt_model *models[MAX_THREADS];
	uint32_t nin, nout;
	npurt_io in[MAX_IO];
	size_t out_size[MAX_IO];
	void *ref[MAX_IO];
	const char *mode;
	double seconds;
	atomic_int stop;
	atomic_int mismatches;
	atomic_int failures;
	pthread_barrier_t go;
};

struct worker {
	struct bench *b;
	int index;
	npurt_exec *exec;
	uint64_t count;
	char err[400];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *what)
{
	const npurt_error *e = npurt_last_error();

	fprintf(stderr, "bench_serve: %s: %s: %s\n", what,
		npurt_status_str(e->code), e->reason);
	return 1;
}

static npurt_status run_one(struct worker *w, npurt_io *out)
{
	struct bench *b = w->b;
	npurt_model *m = b->models[strcmp(b->mode, "separate") ? 0 :
				   w->index];

	if (w->exec)
		return npurt_exec_run(w->exec, b->in, b->nin, out, b->nout);
	return npurt_model_execute(m, b->in, b->nin, out, b->nout);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct bench *b = w->b;
	npurt_io out[MAX_IO];
	npurt_status st;

	for (uint32_t i = 0; i < b->nout; i++)
		out[i] = (npurt_io){ NULL, malloc(b->out_size[i]), 0,
				     b->out_size[i] };
	/* Warm-up: grows the pool, checks the outputs. */
	pthread_barrier_wait(&b->go);
	st = run_one(w, out);
	if (st) {
		snprintf(w->err, sizeof(w->err), "%s",
			 npurt_last_error()->reason);
		atomic_fetch_add(&b->failures, 1);
	}
	for (uint32_t i = 0; !st && i < b->nout; i++)
		if (memcmp(out[i].host, b->ref[i], b->out_size[i]))
			atomic_fetch_add(&b->mismatches, 1);
	pthread_barrier_wait(&b->go);
	while (!st && !atomic_load(&b->stop)) {
		st = run_one(w, out);
		if (st) {
			snprintf(w->err, sizeof(w->err), "%s",
				 npurt_last_error()->reason);
			atomic_fetch_add(&b->failures, 1);
			break;
		}
		w->count++;
	}
	for (uint32_t i = 0; i < b->nout; i++)
		free(out[i].host);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct bench b;
	struct worker w[MAX_THREADS];
	pthread_t t[MAX_THREADS];
	npurt_device *dev = NULL;
	npurt_context *ctx = NULL;
	npurt_model_info info;
	npurt_mem_stats ms;
	uint32_t contexts = 0;
	uint64_t total = 0;
	double t0, t1;
	int threads, nmodels;

	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: bench_serve MODEL.om INPUT_DIR THREADS "
			"SECONDS pool|execs|separate [MAX]\n");
		return 2;
	}
	threads = atoi(argv[3]);
	b.seconds = atof(argv[4]);
	b.mode = argv[5];
	if (threads < 1 || threads > MAX_THREADS || b.seconds <= 0 ||
	    (strcmp(b.mode, "pool") && strcmp(b.mode, "execs") &&
	     strcmp(b.mode, "separate"))) {
		fprintf(stderr, "bench_serve: bad THREADS, SECONDS or MODE\n");
		return 2;
	}
	if (npurt_init(0) || npurt_device_open(0, &dev) ||
	    npurt_context_create(dev, 0, &ctx))
		return fail("runtime");
	nmodels = strcmp(b.mode, "separate") ? 1 : threads;
	for (int i = 0; i < nmodels; i++)
		if (npurt_model_load_file(ctx, argv[1], &b.models[i]))
			return fail(argv[1]);
	if (!strcmp(b.mode, "pool") &&
	    npurt_model_set_max_executions(b.models[0], argc == 7 ?
					   (uint32_t)atoi(argv[6]) :
					   (uint32_t)threads))
		return fail("npurt_model_set_max_executions");
	npurt_model_get_info(b.models[0], &info);
	b.nin = info.num_inputs;
	b.nout = info.num_outputs;
	if (b.nin > MAX_IO || b.nout > MAX_IO) {
		fprintf(stderr, "bench_serve: too many inputs or outputs\n");
		return 1;
	}
	for (uint32_t i = 0; i < b.nin; i++) {
		struct npy_array a;
		npurt_tensor_desc d;
		char path[4096], err[256];

		snprintf(path, sizeof(path), "%s/input_%u.npy", argv[2], i);
		npurt_model_get_input(b.models[0], i, 0, &d);
		if (npy_read(path, &a, err) || a.size != d.size) {
			fprintf(stderr, "bench_serve: %s: %s (model input "
				"\"%s\" has %zu bytes)\n", path,
				err[0] ? err : "size differs", d.name, d.size);
			return 1;
		}
		b.in[i] = (npurt_io){ NULL, a.data, 0, a.size };
	}
	for (uint32_t i = 0; i < b.nout; i++) {
		npurt_tensor_desc d;

		npurt_model_get_output(b.models[0], i, 0, &d);
		b.out_size[i] = d.size;
		b.ref[i] = malloc(d.size);
	}
	{
		npurt_io out[MAX_IO];

		for (uint32_t i = 0; i < b.nout; i++)
			out[i] = (npurt_io){ NULL, b.ref[i], 0,
					     b.out_size[i] };
		if (npurt_model_execute(b.models[0], b.in, b.nin, out,
					b.nout))
			return fail("reference execution");
	}
	memset(w, 0, sizeof(w));
	for (int i = 0; i < threads; i++) {
		w[i].b = &b;
		w[i].index = i;
		if (!strcmp(b.mode, "execs") &&
		    npurt_exec_create(b.models[0], &w[i].exec))
			return fail("npurt_exec_create");
	}
	pthread_barrier_init(&b.go, NULL, (unsigned)threads + 1);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	pthread_barrier_wait(&b.go);	/* warm-ups start */
	pthread_barrier_wait(&b.go);	/* measured runs start */
	t0 = now_s();
	while (now_s() - t0 < b.seconds && !atomic_load(&b.failures)) {
		struct timespec ts = { 0, 5000000 };

		nanosleep(&ts, NULL);
	}
	atomic_store(&b.stop, 1);
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		total += w[i].count;
		if (w[i].err[0])
			fprintf(stderr, "bench_serve: thread %d: %s\n", i,
				w[i].err);
	}
	t1 = now_s();
	npurt_mem_get_stats(ctx, &ms);
	if (!strcmp(b.mode, "pool"))
		npurt_model_get_executions(b.models[0], &contexts, NULL);
	else
		contexts = (uint32_t)(strcmp(b.mode, "execs") ?
				      nmodels : threads + 1);
	printf("{\"mode\": \"%s\", \"threads\": %d, \"requests\": %llu, "
	       "\"seconds\": %.4f, \"requests_per_s\": %.3f, "
	       "\"execution_contexts\": %u, \"model_bytes\": %llu, "
	       "\"weights_bytes\": %llu, \"weights_loads\": %d, "
	       "\"outputs_bit_identical\": %s, \"failures\": %d}\n",
	       b.mode, threads, (unsigned long long)total, t1 - t0,
	       (double)total / (t1 - t0), contexts,
	       (unsigned long long)ms.model_bytes,
	       (unsigned long long)info.weights_bytes, nmodels,
	       atomic_load(&b.mismatches) ? "false" : "true",
	       atomic_load(&b.failures));
	for (int i = 0; i < threads; i++)
		npurt_exec_destroy(w[i].exec);
	for (int i = 0; i < nmodels; i++)
		npurt_model_unload(b.models[i]);
	for (uint32_t i = 0; i < b.nin; i++)
		free(b.in[i].host);
	for (uint32_t i = 0; i < b.nout; i++)
		free(b.ref[i]);
	pthread_barrier_destroy(&b.go);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	return atomic_load(&b.failures) || atomic_load(&b.mismatches);
}
