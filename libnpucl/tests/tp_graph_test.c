// SPDX-License-Identifier: MIT
/*
 * tp_graph_test.c - collectives in graph mode (TAP): the tensor-parallel
 * MLP of tp_graph.py, compiled by npuc with com.npu::AllReduce nodes
 * (libnpucl_ops.so on the host engine), run as N ranks on N in-process
 * devices at once, one thread a rank.
 *
 *   tp_graph_test DIR N        (NPU_SIM_DEVICES >= N, NPUC_PLUGIN_PATH)
 *
 * DIR holds full.om, tp<N>_r<k>.om and the raw inputs and numpy outputs
 * (in/xa.bin, in/xb.bin, ref/ya.bin, ref/yb.bin). Checks: every rank's
 * outputs equal bit for bit; they match the single-device model and numpy
 * (the partial sums differ in order: a tolerance); and in rank 0's profile
 * a collective host task of one stream overlaps device tasks of the other.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npurt.h"

#define B		32
#define D		128
#define MAX_RANKS	8
#define RUNS		6
#define NOUT		(B * D)

static int tests, fails;

static void ok(int cond, const char *fmt, const char *detail)
{
	printf("%sok %d - %s%s%s\n", cond ? "" : "not ", ++tests, fmt,
	       detail && *detail ? ": " : "", detail ? detail : "");
	if (!cond)
		fails++;
}

static const char *err(void)
{
	return npurt_last_error()->reason;
}

static int slurp(const char *dir, const char *name, float *buf)
{
	char path[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	n = fread(buf, sizeof(float), NOUT, f);
	fclose(f);
	return n == NOUT ? 0 : -1;
}

struct rank {
	int k;
	npurt_model *m;
	float y[2][NOUT];
	int profile;			/* rank 0: profile the runs */
	npurt_task_record rec[256];
	uint32_t nrec;
	double overlap_us;		/* best over the runs */
	npurt_status st;
	char why[512];
};

static float x[2][NOUT];

static npurt_status run_once(npurt_model *m, float y[2][NOUT])
{
	npurt_io in[2] = { { NULL, x[0], 0, sizeof(x[0]) },
			   { NULL, x[1], 0, sizeof(x[1]) } };
	npurt_io out[2] = { { NULL, y[0], 0, sizeof(y[0]) },
			    { NULL, y[1], 0, sizeof(y[1]) } };

	return npurt_model_execute(m, in, 2, out, 2);
}

/* Host tasks' time that device tasks of another stream ran in, in us. */
static double overlap(const npurt_task_record *r, uint32_t n)
{
	double us = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (r[i].hw_queue != UINT32_MAX)
			continue;	/* a device task */
		for (uint32_t k = 0; k < n; k++) {
			uint64_t a = r[k].start_ns > r[i].start_ns ?
				     r[k].start_ns : r[i].start_ns;
			uint64_t b = r[k].end_ns < r[i].end_ns ?
				     r[k].end_ns : r[i].end_ns;

			if (r[k].hw_queue != UINT32_MAX &&
			    r[k].model_stream != r[i].model_stream && b > a)
				us += (double)(b - a) / 1e3;
		}
	}
	return us;
}

static void *rank_main(void *arg)
{
	struct rank *r = arg;

	for (int i = 0; i < RUNS && !r->st; i++) {
		r->st = run_once(r->m, r->y);
		if (r->st) {
			snprintf(r->why, sizeof(r->why), "%s", err());
			break;
		}
		if (r->profile &&
		    !npurt_model_get_profile(r->m, r->rec, 256, &r->nrec)) {
			double us = overlap(r->rec, r->nrec < 256 ?
					    r->nrec : 256);

			if (us > r->overlap_us)
				r->overlap_us = us;
		}
	}
	return NULL;
}

static double rel_err(const float *a, const float *ref)
{
	double m = 0, e = 0;

	for (int i = 0; i < NOUT; i++) {
		double d = fabs((double)a[i] - ref[i]);

		if (fabs(ref[i]) > m)
			m = fabs(ref[i]);
		if (d > e || d != d)
			e = d != d ? INFINITY : d;
	}
	return m > 0 ? e / m : e;
}

int main(int argc, char **argv)
{
	static struct rank rk[MAX_RANKS];
	static float full[2][NOUT], ref[2][NOUT];
	npurt_context *ctx[MAX_RANKS] = { NULL };
	npurt_device *dev[MAX_RANKS] = { NULL };
	pthread_t th[MAX_RANKS];
	npurt_model *fm = NULL;
	char path[4096], msg[512];
	const char *dir;
	int n, good;

	if (argc != 3 || (n = atoi(argv[2])) < 1 || n > MAX_RANKS) {
		fprintf(stderr, "usage: tp_graph_test DIR N (1..%d)\n",
			MAX_RANKS);
		return 2;
	}
	dir = argv[1];
	printf("1..5\n");
	good = !npurt_init(0) &&
	       !slurp(dir, "in/xa.bin", x[0]) && !slurp(dir, "in/xb.bin", x[1]) &&
	       !slurp(dir, "ref/ya.bin", ref[0]) &&
	       !slurp(dir, "ref/yb.bin", ref[1]);
	for (int k = 0; good && k < n; k++) {
		good = !npurt_device_open((uint32_t)k, &dev[k]) &&
		       !npurt_context_create(dev[k], 0, &ctx[k]);
		snprintf(path, sizeof(path), "%s/tp%d_r%d.om", dir, n, k);
		good = good && !npurt_model_load_file(ctx[k], path, &rk[k].m);
		rk[k].k = k;
	}
	snprintf(path, sizeof(path), "%s/full.om", dir);
	good = good && !npurt_model_load_file(ctx[0], path, &fm) &&
	       !run_once(fm, full);
	snprintf(msg, sizeof(msg), "%s", good ? "" : err());
	ok(good, "the single-device model and every rank's model load on "
	   "their own device", msg);
	if (!good) {
		printf("# %d of 5 failed\n", 5);
		return 1;
	}
	rk[0].profile = 1;
	npurt_model_set_profiling(rk[0].m, 1);
	/* up to 3 rounds of RUNS: the first with an overlap ends them */
	for (int round = 0; round < 3 && (!round || (!rk[0].overlap_us &&
					       !rk[0].st)); round++) {
		for (int k = 0; k < n; k++)
			pthread_create(&th[k], NULL, rank_main, &rk[k]);
		for (int k = 0; k < n; k++)
			pthread_join(th[k], NULL);
	}
	good = 1;
	msg[0] = 0;
	for (int k = 0; k < n; k++)
		if (rk[k].st) {
			good = 0;
			snprintf(msg, sizeof(msg), "rank %d: %s", k, rk[k].why);
		}
	{
		char what[128];

		snprintf(what, sizeof(what), "%d ranks execute %d times at once, "
			 "each AllReduce meeting the others", n, RUNS);
		ok(good, what, msg);
	}
	{
		int same = good;

		for (int k = 1; k < n; k++)
			same &= !memcmp(rk[k].y, rk[0].y, sizeof(rk[0].y));
		ok(same, "every rank's outputs are the same bits", NULL);
	}
	{
		double e1 = fmax(rel_err(rk[0].y[0], full[0]),
				 rel_err(rk[0].y[1], full[1]));
		double e2 = fmax(rel_err(rk[0].y[0], ref[0]),
				 rel_err(rk[0].y[1], ref[1]));

		snprintf(msg, sizeof(msg), "max error %.3g of the single "
			 "device's, %.3g of numpy's (relative to max |y|)",
			 e1, e2);
		ok(good && e1 <= 1e-5 && e2 <= 1e-5, "the tensor-parallel "
		   "outputs match the single-device model and numpy", msg);
	}
	{
		uint32_t host = 0;

		for (uint32_t i = 0; i < rk[0].nrec && i < 256; i++)
			host += rk[0].rec[i].hw_queue == UINT32_MAX;
		snprintf(msg, sizeof(msg), "%u host task(s) in the profile, "
			 "best overlap with the other stream's device tasks "
			 "%.1f us", host, rk[0].overlap_us);
		ok(good && host == 2 && (n == 1 || rk[0].overlap_us > 0),
		   "rank 0's profile: a collective overlaps compute of the "
		   "other stream", msg);
	}
	npurt_model_unload(fm);
	for (int k = 0; k < n; k++) {
		npurt_model_unload(rk[k].m);
		npurt_context_destroy(ctx[k]);
		npurt_device_close(dev[k]);
	}
	npurt_finalize();
	if (fails)
		printf("# %d of %d failed\n", fails, tests);
	return fails ? 1 : 0;
}
