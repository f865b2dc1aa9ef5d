// SPDX-License-Identifier: MIT
/*
 * bench_coll.c - collective bandwidth, as nccl-tests reports it.
 *
 *   bench_coll [--ranks N] [--op allreduce|allgather|reduce_scatter|broadcast]
 *              [--min BYTES] [--max BYTES] [--json FILE]
 *
 * In one process on N in-process devices (NPU_SIM_DEVICES is set to N),
 * f32 sum, message sizes from --min to --max (1 KiB .. 64 MiB) by factors
 * of 4. Per size: the time per collective (median of the timed runs), the
 * algorithm bandwidth (bytes / time) and the bus bandwidth (algbw times
 * 2 (n - 1) / n for allreduce, (n - 1) / n for allgather and
 * reduce_scatter, 1 for broadcast: nccl-tests' PERFORMANCE.md), which is
 * comparable with the speed of the links, here the host's memory. The
 * same run measures that: host memcpy and a device-to-device copy of the
 * largest size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npucl.h"
#include "npurt.h"

#define MAXR	8

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Host memcpy bandwidth of @bytes (best of a few), GB/s. */
static double host_memcpy(size_t bytes)
{
	char *a = malloc(bytes), *b = malloc(bytes);
	double best = 0;

	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	memset(a, 1, bytes);
	memset(b, 2, bytes);
	for (int i = 0; i < 5; i++) {
		double t = now();

		memcpy(b, a, bytes);
		t = now() - t;
		if (bytes / t / 1e9 > best)
			best = bytes / t / 1e9;
		a[i] = b[bytes - 1 - i];	/* keep both alive */
	}
	free(a);
	free(b);
	return best;
}

static double dev_copy(npurt_context *ctx, size_t bytes)
{
	npurt_mem *a, *b;
	double best = 0;

	if (npurt_mem_alloc(ctx, bytes, &a))
		return 0;
	if (npurt_mem_alloc(ctx, bytes, &b)) {
		npurt_mem_free(a);
		return 0;
	}
	npurt_memset(a, 0, 1, bytes);
	for (int i = 0; i < 5; i++) {
		double t = now();

		npurt_memcpy_d2d(b, 0, a, 0, bytes);
		t = now() - t;
		if (bytes / t / 1e9 > best)
			best = bytes / t / 1e9;
	}
	npurt_mem_free(a);
	npurt_mem_free(b);
	return best;
}

int main(int argc, char **argv)
{
	const char *json = NULL, *opname = "allreduce";
	uint64_t minb = 1024, maxb = 64ull << 20;
	uint32_t n = 4, ndev = 0;
	npurt_device *dev[MAXR];
	npurt_context *ctx[MAXR];
	npurt_stream *s[MAXR];
	npurt_mem *in[MAXR], *out[MAXR];
	npucl_comm *comm[MAXR];
	double memcpy_gbs, d2d_gbs, bus_max = 0;
	char env[16];
	FILE *jf = NULL;
	int first = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ranks") && i + 1 < argc)
			n = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--op") && i + 1 < argc)
			opname = argv[++i];
		else if (!strcmp(argv[i], "--min") && i + 1 < argc)
			minb = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--max") && i + 1 < argc)
			maxb = strtoull(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: bench_coll [--ranks N] [--op "
				"allreduce|allgather|reduce_scatter|broadcast] "
				"[--min B] [--max B] [--json FILE]\n");
			return 2;
		}
	}
	if (n < 2 || n > MAXR || minb < 64 || maxb < minb) {
		fprintf(stderr, "bench_coll: 2..%d ranks, 64 <= min <= max\n",
			MAXR);
		return 2;
	}
	snprintf(env, sizeof(env), "%u", n);
	setenv("NPU_SIM_DEVICES", env, 1);
	unsetenv("NPU_DEVICE");
	if (npurt_init(0) || npurt_device_count(&ndev) || ndev < n) {
		fprintf(stderr, "bench_coll: need %u devices\n", n);
		return 1;
	}
	for (uint32_t r = 0; r < n; r++) {
		uint64_t ib = maxb, ob = maxb;

		if (!strcmp(opname, "allgather"))
			ob = maxb * n;
		if (!strcmp(opname, "reduce_scatter"))
			ib = maxb * n;
		if (npurt_device_open(r, &dev[r]) ||
		    npurt_context_create(dev[r], 0, &ctx[r]) ||
		    npurt_stream_create(ctx[r], NPURT_PRIORITY_NORMAL, &s[r]) ||
		    npurt_mem_alloc(ctx[r], ib, &in[r]) ||
		    npurt_mem_alloc(ctx[r], ob, &out[r]) ||
		    npurt_memset(in[r], 0, 0, ib)) {
			fprintf(stderr, "bench_coll: rank %u setup failed: %s\n",
				r, npurt_last_error()->reason);
			return 1;
		}
	}
	if (npucl_comm_init_all(ctx, n, comm)) {
		fprintf(stderr, "bench_coll: communicator: %s\n",
			npurt_last_error()->reason);
		return 1;
	}
	memcpy_gbs = host_memcpy(maxb);
	d2d_gbs = dev_copy(ctx[0], maxb);
	if (json) {
		jf = fopen(json, "w");
		if (!jf) {
			perror(json);
			return 1;
		}
		fprintf(jf, "{\n  \"op\": \"%s\",\n  \"dtype\": \"f32\",\n"
			"  \"reduce\": \"sum\",\n  \"ranks\": %u,\n"
			"  \"transport\": \"in-process peer memory\",\n"
			"  \"memcpy_host_GBps\": %.3f,\n"
			"  \"memcpy_d2d_GBps\": %.3f,\n  \"results\": [\n",
			opname, n, memcpy_gbs, d2d_gbs);
	}
	printf("# %s, f32 sum, %u ranks (in-process devices)\n", opname, n);
	printf("# host memcpy %.2f GB/s, device d2d copy %.2f GB/s (%llu bytes)\n",
	       memcpy_gbs, d2d_gbs, (unsigned long long)maxb);
	printf("# %12s %10s %10s %10s %8s\n", "bytes", "time_us", "algbw_GBps",
	       "busbw_GBps", "iters");
	for (uint64_t b = minb; b <= maxb; b *= 4) {
		uint64_t count = b / 4;
		double times[50], t0, busf;
		int iters = 0;

		for (int it = -2; it < 50; it++) {
			double t;

			t0 = now();
			for (uint32_t r = 0; r < n; r++) {
				npurt_status st;

				if (!strcmp(opname, "allgather"))
					st = npucl_allgather(in[r], out[r],
							     count,
							     NPURT_DTYPE_F32,
							     comm[r], s[r]);
				else if (!strcmp(opname, "reduce_scatter"))
					st = npucl_reduce_scatter(
						in[r], out[r], count,
						NPURT_DTYPE_F32, NPUCL_SUM,
						comm[r], s[r]);
				else if (!strcmp(opname, "broadcast"))
					st = npucl_broadcast(out[r], count,
							     NPURT_DTYPE_F32,
							     0, comm[r], s[r]);
				else
					st = npucl_allreduce(in[r], out[r],
							     count,
							     NPURT_DTYPE_F32,
							     NPUCL_SUM,
							     comm[r], s[r]);
				if (st) {
					fprintf(stderr, "bench_coll: %s\n",
						npurt_status_str(st));
					return 1;
				}
			}
			for (uint32_t r = 0; r < n; r++)
				if (npurt_stream_synchronize(s[r])) {
					fprintf(stderr, "bench_coll: failed\n");
					return 1;
				}
			t = now() - t0;
			if (it >= 0)
				times[iters++] = t;
			/* about half a second per size, at least 3 runs */
			if (iters >= 3 && t * iters > 0.5)
				break;
		}
		qsort(times, (size_t)iters, sizeof(double), cmp_d);
		t0 = times[iters / 2];
		busf = !strcmp(opname, "allreduce") ? 2.0 * (n - 1) / n :
			!strcmp(opname, "broadcast") ? 1.0 : (double)(n - 1) / n;
		printf("  %12llu %10.1f %10.3f %10.3f %8d\n",
		       (unsigned long long)b, t0 * 1e6, b / t0 / 1e9,
		       b / t0 / 1e9 * busf, iters);
		if (b == maxb || b * 4 > maxb)
			bus_max = b / t0 / 1e9 * busf;
		if (jf) {
			fprintf(jf, "%s    { \"bytes\": %llu, \"time_us\": %.1f, "
				"\"algbw_GBps\": %.4f, \"busbw_GBps\": %.4f, "
				"\"iters\": %d }", first ? "" : ",\n",
				(unsigned long long)b, t0 * 1e6, b / t0 / 1e9,
				b / t0 / 1e9 * busf, iters);
			first = 0;
		}
	}
	printf("# bus bandwidth at the largest size: %.2f GB/s = %.1f%% of host "
	       "memcpy, %.1f%% of device copy\n", bus_max,
	       100 * bus_max / memcpy_gbs, 100 * bus_max / d2d_gbs);
	if (jf) {
		fprintf(jf, "\n  ],\n  \"busbw_largest_GBps\": %.4f,\n"
			"  \"busbw_over_memcpy_host\": %.4f,\n"
			"  \"busbw_over_memcpy_d2d\": %.4f\n}\n", bus_max,
			bus_max / memcpy_gbs, bus_max / d2d_gbs);
		fclose(jf);
	}
	for (uint32_t r = 0; r < n; r++) {
		npucl_comm_destroy(comm[r]);
		npurt_mem_free(in[r]);
		npurt_mem_free(out[r]);
		npurt_stream_destroy(s[r]);
		npurt_context_destroy(ctx[r]);
		npurt_device_close(dev[r]);
	}
	npurt_finalize();
	return 0;
}
