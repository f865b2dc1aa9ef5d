// SPDX-License-Identifier: MIT
/*
 * test_host_tasks.c - host tasks (plugin host kernels) through libnpurt
 * (run by examples/plugin/test_plugin.sh, which compiles the models):
 *
 *   test_host_tasks DIR EXAMPLE_PLUGIN FAULTY_PLUGIN
 *
 * DIR holds faulty0..4.om (Relu -> test.faulty::Faulty(mode) -> Neg) and
 * roi.om (Conv -> com.example::RoIAlign on the host, an independent Conv
 * chain on another stream) with roi_in_*.raw / roi_ref_*.raw.
 *
 *  - a faulty kernel (error return, writes past or before its output, a
 *    shape bigger than its inference said) fails its own execution with a
 *    message naming the node, the op and the plugin; the good model runs
 *    right after in the same context, on another stream and on the
 *    faulted stream once cleared;
 *  - roi.om matches numpy over repeated executions, and in the profile
 *    its host task overlaps device tasks of the model's other stream
 *    (device tasks slowed by the test mode, as test_two_stream does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test_util.h"
#include "tap.h"

#define FX_ROWS 8
#define FX_COLS 16

static void *slurp(const char *dir, const char *name, size_t *size)
{
	char path[4096];
	FILE *f;
	void *p;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc(n > 0 ? (size_t)n : 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return p;
}

static npurt_model *load(npurt_context *ctx, const char *dir,
			 const char *name)
{
	char path[4096];
	npurt_model *m = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (npurt_model_load_file(ctx, path, &m))
		return NULL;
	return m;
}

/* faulty model @m on stream @s: its status; @y its output */
static npurt_status run_faulty(npurt_model *m, npurt_stream *s,
			       const float *x, float *y, size_t ybytes)
{
	npurt_io in = { NULL, (void *)x, 0, FX_ROWS * FX_COLS * 4 };
	npurt_io out = { NULL, y, 0, ybytes };
	npurt_status st = npurt_model_execute_async(m, &in, 1, &out, 1, s);

	return st ? st : npurt_stream_synchronize(s);
}

int main(int argc, char **argv)
{
	static const char *const why[5] = {
		"", "the kernel returned -5: mode 1 asks for a failure",
		"wrote outside output 0 (512 bytes", "past its buffer",
		"before its buffer",
	};
	float x[FX_ROWS * FX_COLS], y[FX_ROWS * FX_COLS], ref[FX_ROWS * FX_COLS];
	npurt_model *fm[5] = { NULL }, *roi;
	npurt_stream *sa, *sb;
	npurt_device *dev;
	npurt_context *ctx;
	const char *dir;
	int ok;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DIR EXAMPLE_PLUGIN FAULTY_PLUGIN\n",
			argv[0]);
		return 2;
	}
	dir = argv[1];
	tap_plan(11);
	if (npurt_init(0) || npurt_device_open(0, &dev) ||
	    npurt_context_create(dev, 0, &ctx) ||
	    npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &sa) ||
	    npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &sb)) {
		tap_ok(0, "runtime up: %s", rt_err());
		return 1;
	}
	fm[0] = load(ctx, dir, "faulty0.om");
	tap_ok(!fm[0] && strstr(rt_err(), "faulty-ops") &&
	       strstr(rt_err(), "test.faulty::Faulty") &&
	       strstr(rt_err(), "not loaded"),
	       "without its plugin a model is refused naming op and plugin: %s",
	       rt_err());
	tap_ok(!npurt_plugin_load(argv[2]) && !npurt_plugin_load(argv[3]),
	       "npurt_plugin_load: %s", rt_err());
	ok = 1;
	for (int k = 0; k < 5; k++) {
		char name[32];

		snprintf(name, sizeof(name), "faulty%d.om", k);
		fm[k] = load(ctx, dir, name);
		ok &= fm[k] != NULL;
	}
	roi = load(ctx, dir, "roi.om");
	tap_ok(ok && roi, "6 models with host tasks load in one context: %s",
	       ok && roi ? "ok" : rt_err());
	if (!ok || !roi)
		return 1;
	for (int i = 0; i < FX_ROWS * FX_COLS; i++) {
		x[i] = (float)((i * 37) % 23) - 11.0f;
		ref[i] = -2.0f * (x[i] > 0 ? x[i] : 0);
	}
	memset(y, 0, sizeof(y));
	tap_ok(!run_faulty(fm[0], sa, x, y, sizeof(y)) &&
	       rt_max_err(y, ref, FX_ROWS * FX_COLS, 0, 0) <= 1.0,
	       "a correct host kernel: output matches");
	for (int k = 1; k < 5; k++) {
		npurt_status st = run_faulty(fm[k], sa, x, y, k == 3 ?
					     sizeof(y) / 2 : sizeof(y));
		char msg[512], node[16];
		int good;

		snprintf(msg, sizeof(msg), "%s", rt_err());
		snprintf(node, sizeof(node), "\"faulty%d\"", k);
		memset(y, 0, sizeof(y));
		/* another stream, then the faulted one once cleared */
		good = !run_faulty(fm[0], sb, x, y, sizeof(y)) &&
		       rt_max_err(y, ref, FX_ROWS * FX_COLS, 0, 0) <= 1.0;
		good &= !npurt_stream_clear_error(sa);
		memset(y, 0, sizeof(y));
		good &= !run_faulty(fm[0], sa, x, y, sizeof(y)) &&
			rt_max_err(y, ref, FX_ROWS * FX_COLS, 0, 0) <= 1.0;
		tap_ok(st == NPURT_ERR_DEVICE_FAULT && strstr(msg, node) &&
		       strstr(msg, "faulty-ops 0.1") && strstr(msg, why[k]) &&
		       good, "mode %d fails its execution only (%s): %s",
		       k, good ? "the good model runs after it" :
		       "the good model FAILED after it", msg);
	}
	{
		size_t nx, nr, nb, n0, n1;
		void *rx = slurp(dir, "roi_in_x.raw", &nx);
		void *rr = slurp(dir, "roi_in_rois.raw", &nr);
		void *rb = slurp(dir, "roi_in_bidx.raw", &nb);
		float *r0 = slurp(dir, "roi_ref_0.raw", &n0);
		float *r1 = slurp(dir, "roi_ref_1.raw", &n1);
		float *o0 = r0 ? malloc(n0) : NULL, *o1 = r1 ? malloc(n1) : NULL;
		npurt_io in[3] = { { NULL, rx, 0, nx }, { NULL, rr, 0, nr },
				   { NULL, rb, 0, nb } };
		npurt_io out[2] = { { NULL, o0, 0, n0 }, { NULL, o1, 0, n1 } };
		npurt_task_record rec[256];
		uint32_t n = 0, host = 0, stream1 = 0;
		double best = 0, worst = 1e9;
		int slowed;

		ok = rx && rr && rb && o0 && o1;
		for (int it = 0; it < 5 && ok; it++)
			ok = !npurt_model_execute(roi, in, 3, out, 2) &&
			     rt_max_err(o0, r0, n0 / 4, 1e-5, 1e-4) <= 1.0 &&
			     rt_max_err(o1, r1, n1 / 4, 1e-5, 1e-4) <= 1.0;
		tap_ok(ok, "RoIAlign on the host engine: 5 executions match "
		       "numpy: %s", ok ? "ok" : rt_err());
		slowed = rt_test_knob("slow_us", 2000) == 0;
		npurt_model_set_profiling(roi, 1);
		/* up to 5 profiled runs: the first that overlaps counts */
		for (int run = 0; run < 5 && ok && !stream1; run++) {
			ok = !npurt_model_execute(roi, in, 3, out, 2) &&
			     !npurt_model_get_profile(roi, rec, 256, &n);
			host = 0;
			best = 0;
			for (uint32_t i = 0; ok && i < n && i < 256; i++) {
				if (rec[i].hw_queue != UINT32_MAX)
					continue;
				host++;
				worst = (double)(rec[i].end_ns -
						 rec[i].start_ns) / 1e3;
				for (uint32_t k = 0; k < n && k < 256; k++) {
					const npurt_task_record *d = &rec[k];
					uint64_t a = d->start_ns > rec[i].start_ns ?
						     d->start_ns : rec[i].start_ns;
					uint64_t b = d->end_ns < rec[i].end_ns ?
						     d->end_ns : rec[i].end_ns;

					if (d->hw_queue == UINT32_MAX ||
					    d->model_stream == 0 || b <= a)
						continue;
					stream1++;
					best += (double)(b - a) / 1e3;
				}
			}
		}
		if (slowed)
			rt_test_knob("slow_us", 0);
		tap_ok(ok && host == 1 && !strcmp(rec[n - 1].op, "RoIAlign") &&
		       !strcmp(rec[n - 1].node, "roi1"),
		       "the profile has the host task (%u record(s), %.1f us)",
		       host, worst);
		tap_ok(ok && (stream1 > 0 || !slowed),
		       "the host task overlaps %u device task(s) of stream 1 "
		       "for %.1f us%s", stream1, best,
		       slowed ? "" : " (no slow mode: not checked)");
		printf("# host task %.1f us, overlap with stream 1 %.1f us\n",
		       worst, best);
		free(rx);
		free(rr);
		free(rb);
		free(r0);
		free(r1);
		free(o0);
		free(o1);
	}
	for (int k = 0; k < 5; k++)
		npurt_model_unload(fm[k]);
	npurt_model_unload(roi);
	npurt_stream_destroy(sa);
	npurt_stream_destroy(sb);
	npurt_context_destroy(ctx);
	return tap_done();
}
