// SPDX-License-Identifier: MIT
/*
 * alloc-bench - replay allocation traces on our pool (with and without
 * compaction), our caching allocator, and clean-room baselines (first fit,
 * binary buddy, TLSF, a PyTorch-like caching policy without compaction).
 *
 * For each trace and backend: the smallest capacity that completes the
 * trace (bisection at 512-byte resolution), that over the trace's peak live
 * bytes, then one measured replay at that capacity: bytes moved, pauses,
 * fragmentation figures at the moment of peak live, alloc/free latency
 * percentiles. Writes JSON (--json) and prints a table; --tap prints the
 * done-when checks as TAP and fails when one does not hold.
 *
 * Usage: alloc-bench [--json FILE] [--tap] [--quiet] TRACE...
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_alloc.h"

static const struct backend *const backends[] = {
	&be_pool_compact, &be_pool_nocompact, &be_caching_pool,
	&be_pytorch_like, &be_first_fit, &be_buddy, &be_tlsf,
};
#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

/* Give up growing the capacity past this multiple of peak live. */
#define MAX_OVER_PEAK	64

struct result {
	const struct backend *be;
	uint64_t min_capacity;		/* 0: did not complete */
	uint32_t probes;
	uint64_t fail_with_room;	/* over all probes */
	struct backend_figures fig;
	uint64_t alloc_p50, alloc_p99, free_p50, free_p99;
	uint32_t util_frag_ppm, largest_free_ratio_ppm, unusable_ppm;
	uint64_t moved_at_105;		/* bytes moved at 1.05 x peak live */
	bool completed_at_105;
};

struct replay {
	bool ok;
	bool failed_with_room;
	uint64_t peak_free, peak_largest;
	uint32_t peak_unusable;
	struct backend_figures fig;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Replay @t on a fresh @be of @cap bytes; stops at the first failed
 * allocation. With @alloc_ns/@free_ns, times every call.
 */
static void replay(const struct backend *be, const struct trace *t,
		   uint64_t cap, struct replay *r, uint64_t *alloc_ns,
		   uint64_t *free_ns)
{
	void *b = be->create(cap, t->nids);
	uint64_t live = 0, *sizes;
	uint32_t i, na = 0, nf = 0;
	bool sampled = false;

	memset(r, 0, sizeof(*r));
	sizes = calloc(t->nids ? t->nids : 1, sizeof(*sizes));
	if (!b || !sizes) {
		free(sizes);
		if (b)
			be->destroy(b);
		return;
	}
	r->ok = true;
	for (i = 0; i < t->nops && r->ok; i++) {
		const struct trace_op *op = &t->ops[i];
		uint64_t t0 = 0;
		int ret;

		switch (op->kind) {
		case OP_ALLOC:
			if (alloc_ns)
				t0 = now_ns();
			ret = be->alloc(b, op->id, op->size, op->stream);
			if (alloc_ns)
				alloc_ns[na++] = now_ns() - t0;
			if (ret) {
				uint64_t fr, lg;

				be->free_space(b, &fr, &lg);
				r->failed_with_room = fr >= bench_round(op->size);
				r->ok = false;
				break;
			}
			sizes[op->id] = bench_round(op->size);
			live += sizes[op->id];
			if (!sampled && live == t->peak_live) {
				sampled = true;
				be->free_space(b, &r->peak_free,
					       &r->peak_largest);
				r->peak_unusable = be->unusable_ppm(
					b, t->median_size);
			}
			break;
		case OP_FREE:
			if (free_ns)
				t0 = now_ns();
			be->free(b, op->id);
			if (free_ns)
				free_ns[nf++] = now_ns() - t0;
			live -= sizes[op->id];
			break;
		default:
			be->sync(b);
			break;
		}
	}
	be->figures(b, &r->fig);
	be->destroy(b);
	free(sizes);
}

static bool probe(struct result *res, const struct trace *t, uint64_t cap)
{
	struct replay r;

	replay(res->be, t, cap, &r, NULL, NULL);
	res->probes++;
	if (r.failed_with_room)
		res->fail_with_room++;
	return r.ok;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t percentile(uint64_t *v, uint32_t n, unsigned pct)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(uint64_t)(n - 1) * pct / 100];
}

static uint32_t ppm(uint64_t part, uint64_t whole)
{
	/* 1 - part / whole */
	if (!whole || part >= whole)
		return 0;
	return (uint32_t)(1000000ull - part * 1000000ull / whole);
}

/* Smallest capacity that completes @t, bisected at granule resolution. */
static void find_min_capacity(struct result *res, const struct trace *t)
{
	uint64_t lo = bench_round(t->peak_live), hi, bad;

	/*
	 * Below peak live nothing completes; these probes only check where
	 * the first failure happens: with total free >= request it is the
	 * allocator's fault (counted in fail_with_room).
	 */
	probe(res, t, lo - BENCH_GRANULE);
	probe(res, t, bench_round(lo - lo / 10));
	if (probe(res, t, lo)) {
		res->min_capacity = lo;
		return;
	}
	bad = lo;
	hi = lo;
	for (;;) {
		hi = bench_round(hi + hi / 4);
		if (hi > lo * MAX_OVER_PEAK)
			return;			/* did not complete */
		if (probe(res, t, hi))
			break;
		bad = hi;
	}
	/* invariant: bad fails, hi completes */
	while (hi - bad > BENCH_GRANULE) {
		uint64_t mid = bench_round(bad + (hi - bad) / 2);

		if (mid >= hi)
			mid = hi - BENCH_GRANULE;
		if (mid <= bad)
			break;
		if (probe(res, t, mid))
			hi = mid;
		else
			bad = mid;
	}
	res->min_capacity = hi;
}

static void measure(struct result *res, const struct trace *t)
{
	uint64_t *a = calloc(t->allocs + 1, sizeof(*a));
	uint64_t *f = calloc(t->allocs + 1, sizeof(*f));
	struct replay r;
	uint32_t na = 0, nf = 0, i;

	if (!a || !f || !res->min_capacity) {
		free(a);
		free(f);
		return;
	}
	replay(res->be, t, res->min_capacity, &r, a, f);
	for (i = 0; i < t->nops; i++) {
		if (t->ops[i].kind == OP_ALLOC)
			na++;
		else if (t->ops[i].kind == OP_FREE)
			nf++;
	}
	res->fig = r.fig;
	res->alloc_p50 = percentile(a, na, 50);
	res->alloc_p99 = percentile(a, na, 99);
	res->free_p50 = percentile(f, nf, 50);
	res->free_p99 = percentile(f, nf, 99);
	res->util_frag_ppm = ppm(t->peak_live, r.fig.peak_reserved);
	res->largest_free_ratio_ppm = ppm(r.peak_largest, r.peak_free);
	res->unusable_ppm = r.peak_unusable;
	/* the same trace with 5 % headroom: how much compaction remains */
	replay(res->be, t, bench_round(t->peak_live + t->peak_live / 20), &r,
	       NULL, NULL);
	res->completed_at_105 = r.ok;
	res->moved_at_105 = r.fig.moved_bytes;
	free(a);
	free(f);
}

static double mib(uint64_t v)
{
	return (double)v / (1024.0 * 1024.0);
}

static void print_table(const struct trace *t, const struct result *res,
			size_t n)
{
	size_t i;

	printf("\n%s: %u ops, peak live %.2f MiB (requested %.2f MiB), median request %" PRIu64 " B\n",
	       t->name, t->nops, mib(t->peak_live), mib(t->peak_requested),
	       t->median_size);
	printf("  %-13s %10s %6s %9s %9s %7s %7s %6s %6s %6s %8s %8s %8s %8s\n",
	       "backend", "min MiB", "x peak", "moved MiB", "@1.05 MiB",
	       "pauses",
	       "pause ms", "util%", "lfr%", "unus%", "a.p50ns", "a.p99ns",
	       "f.p50ns", "f.p99ns");
	for (i = 0; i < n; i++) {
		const struct result *r = &res[i];
		char at105[32];

		if (r->completed_at_105)
			snprintf(at105, sizeof(at105), "%.2f",
				 mib(r->moved_at_105));
		else
			snprintf(at105, sizeof(at105), "fails");
		if (!r->min_capacity) {
			printf("  %-13s %10s (did not complete below %dx peak live)\n",
			       r->be->name, "-", MAX_OVER_PEAK);
			continue;
		}
		printf("  %-13s %10.2f %6.3f %9.2f %9s %7" PRIu64 " %7.2f %6.1f %6.1f %6.1f %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
		       r->be->name, mib(r->min_capacity),
		       (double)r->min_capacity / (double)t->peak_live,
		       mib(r->fig.moved_bytes), at105, r->fig.pauses,
		       (double)r->fig.pause_ns / 1e6,
		       r->util_frag_ppm / 1e4, r->largest_free_ratio_ppm / 1e4,
		       r->unusable_ppm / 1e4, r->alloc_p50, r->alloc_p99,
		       r->free_p50, r->free_p99);
	}
}

static void json_trace(FILE *f, const struct trace *t,
		       const struct result *res, size_t n, bool last)
{
	size_t i;

	fprintf(f, "    {\"name\": \"%s\", \"ops\": %u, \"peak_live\": %" PRIu64
		", \"peak_requested\": %" PRIu64 ", \"median_request\": %" PRIu64
		",\n     \"backends\": [\n",
		t->name, t->nops, t->peak_live, t->peak_requested,
		t->median_size);
	for (i = 0; i < n; i++) {
		const struct result *r = &res[i];

		fprintf(f, "      {\"name\": \"%s\", \"completed\": %s, "
			"\"min_capacity\": %" PRIu64 ", \"capacity_over_peak\": %.4f, "
			"\"moved_bytes\": %" PRIu64 ", \"compactions\": %" PRIu64
			", \"pauses\": %" PRIu64 ", \"pause_ns\": %" PRIu64
			", \"max_pause_ns\": %" PRIu64 ", \"peak_reserved\": %" PRIu64
			", \"utilisation_frag_ppm\": %u, \"largest_free_ratio_ppm\": %u"
			", \"unusable_free_ppm\": %u, \"alloc_p50_ns\": %" PRIu64
			", \"alloc_p99_ns\": %" PRIu64 ", \"free_p50_ns\": %" PRIu64
			", \"free_p99_ns\": %" PRIu64 ", \"fail_with_room\": %" PRIu64
			", \"probes\": %u, \"completes_at_1_05\": %s"
			", \"moved_bytes_at_1_05\": %" PRIu64 "}%s\n",
			r->be->name, r->min_capacity ? "true" : "false",
			r->min_capacity,
			r->min_capacity ? (double)r->min_capacity /
					  (double)t->peak_live : 0.0,
			r->fig.moved_bytes, r->fig.compactions, r->fig.pauses,
			r->fig.pause_ns, r->fig.max_pause_ns,
			r->fig.peak_reserved, r->util_frag_ppm,
			r->largest_free_ratio_ppm, r->unusable_ppm,
			r->alloc_p50, r->alloc_p99, r->free_p50, r->free_p99,
			r->fail_with_room, r->probes,
			r->completed_at_105 ? "true" : "false",
			r->moved_at_105, i + 1 < n ? "," : "");
	}
	fprintf(f, "     ]}%s\n", last ? "" : ",");
}

static int tap_n, tap_bad;

static void tap(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tap(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tap_bad += !cond;
}

/* The done-when checks of issue 4 for one trace. */
static void check_trace(const struct trace *t, const struct result *res,
			size_t n)
{
	const struct result *ours = &res[0];	/* pool+compact */
	const char *below = NULL;
	size_t i;

	tap(ours->min_capacity &&
	    ours->min_capacity * 100 <= t->peak_live * 105,
	    "%s: with compaction the trace completes in %.4f x peak live (<= 1.05)",
	    t->name, ours->min_capacity ?
	    (double)ours->min_capacity / (double)t->peak_live : 0.0);
	for (i = 1; i < n; i++)
		if (res[i].min_capacity &&
		    res[i].min_capacity < ours->min_capacity)
			below = res[i].be->name;
	tap(!below, "%s: no backend needs less capacity than ours%s%s",
	    t->name, below ? ": " : "", below ? below : "");
	tap(ours->fail_with_room == 0,
	    "%s: with compaction no allocation failed while free >= request (%u probes)",
	    t->name, ours->probes);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: alloc-bench [--json FILE] [--tap] [--quiet] TRACE...\n"
		"  TRACE: lines 'alloc ID SIZE STREAM', 'free ID', 'sync'\n"
		"  (bench/alloc/gen_traces.py writes the standard set)\n");
}

int main(int argc, char **argv)
{
	const char *json = NULL;
	bool do_tap = false, quiet = false;
	struct result (*all)[NBACKENDS];
	struct trace *traces;
	int i, ntr = 0;
	FILE *jf = NULL;

	traces = calloc((size_t)argc, sizeof(*traces));
	all = calloc((size_t)argc, sizeof(*all));
	if (!traces || !all)
		return 2;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json = argv[++i];
		} else if (!strcmp(argv[i], "--tap")) {
			do_tap = true;
		} else if (!strcmp(argv[i], "--quiet")) {
			quiet = true;
		} else if (argv[i][0] == '-') {
			usage();
			return 2;
		} else {
			if (trace_load(argv[i], &traces[ntr]))
				return 2;
			ntr++;
		}
	}
	if (!ntr) {
		usage();
		return 2;
	}
	if (do_tap)
		printf("1..%d\n", 3 * ntr);
	for (i = 0; i < ntr; i++) {
		for (size_t k = 0; k < NBACKENDS; k++) {
			struct result *r = &all[i][k];

			r->be = backends[k];
			find_min_capacity(r, &traces[i]);
			measure(r, &traces[i]);
		}
		if (!quiet)
			print_table(&traces[i], all[i], NBACKENDS);
		if (do_tap)
			check_trace(&traces[i], all[i], NBACKENDS);
		fflush(stdout);
	}
	if (json) {
		jf = fopen(json, "w");
		if (!jf) {
			fprintf(stderr, "alloc-bench: cannot write %s: %s\n",
				json, strerror(errno));
			return 2;
		}
		fprintf(jf, "{\"granule\": %llu, \"backends\": [",
			(unsigned long long)BENCH_GRANULE);
		for (size_t k = 0; k < NBACKENDS; k++)
			fprintf(jf, "%s{\"name\": \"%s\", \"what\": \"%s\", \"ours\": %s}",
				k ? ", " : "", backends[k]->name,
				backends[k]->what,
				backends[k]->ours ? "true" : "false");
		fprintf(jf, "],\n  \"traces\": [\n");
		for (i = 0; i < ntr; i++)
			json_trace(jf, &traces[i], all[i], NBACKENDS,
				   i + 1 == ntr);
		fprintf(jf, "  ]\n}\n");
		fclose(jf);
		if (!quiet)
			printf("\nwrote %s\n", json);
	}
	for (i = 0; i < ntr; i++)
		trace_free(&traces[i]);
	free(traces);
	free(all);
	return do_tap && tap_bad ? 1 : 0;
}
