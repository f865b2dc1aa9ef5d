// SPDX-License-Identifier: MIT
/*
 * npu-plan - plan static memory-allocation problems given as CSV
 * (`id,lower,upper,size`, the format of google/minimalloc's benchmarks)
 * with the compiler's planner portfolio, and print the arena each planner
 * reached, the best, the lower bound and the time taken.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan.h"

#ifndef NPU_VERSION
#define NPU_VERSION	"unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npu-plan [OPTIONS] PROBLEM.csv...\n"
		"  --budget-ms N     time budget per problem (default 9000)\n"
		"  --capacity N      target arena; default: the number in a name\n"
		"                    like A.1048576.csv, else none\n"
		"  --planners LIST   comma list of greedy-size, greedy-conflicts,\n"
		"                    hill-climb, exact (default: all)\n"
		"  --offsets FILE    write id,offset per buffer of the last problem\n"
		"  --quiet           only the summary line per problem\n"
		"  --version         print the version and exit\n"
		"Exit status: 0 when every problem with a capacity fits it,\n"
		"1 when one does not, 2 on a usage or input error.\n");
}

static int parse_planners(const char *s, unsigned int *mask)
{
	char *dup = strdup(s), *save = NULL;

	*mask = 0;
	if (!dup)
		return -1;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int id;

		for (id = 0; id < MP_NUM_PLANNERS; id++)
			if (!strcmp(t, mp_planner_name(id)))
				break;
		if (id == MP_NUM_PLANNERS) {
			fprintf(stderr, "npu-plan: unknown planner '%s'\n", t);
			free(dup);
			return -1;
		}
		*mask |= MP_PLANNER_BIT(id);
	}
	free(dup);
	return *mask ? 0 : -1;
}

/* "dir/A.1048576.csv" -> 1048576, or 0. */
static long long capacity_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot, *end;
	char *stop;
	long long v;

	base = base ? base + 1 : path;
	end = strstr(base, ".csv");
	if (!end)
		return 0;
	for (dot = end - 1; dot > base && *dot != '.'; dot--)
		;
	if (*dot != '.')
		return 0;
	v = strtoll(dot + 1, &stop, 10);
	return stop == end && v > 0 ? v : 0;
}

static int plan_one(const char *path, struct mp_options *o, bool quiet,
		    const char *offsets_path, bool *fits)
{
	struct mp_csv csv;
	struct mp_result r;
	char err[512];
	int64_t *off;
	int ret;

	ret = mp_csv_read(path, &csv, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "npu-plan: %s\n", err);
		return 2;
	}
	off = calloc(csv.problem.num_buffers + 1, sizeof(*off));
	if (!off) {
		mp_csv_free(&csv);
		fprintf(stderr, "npu-plan: out of memory\n");
		return 2;
	}
	ret = mp_plan(&csv.problem, o, off, &r, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "npu-plan: %s: %s\n", path, err);
		free(off);
		mp_csv_free(&csv);
		return 2;
	}
	if (!quiet) {
		printf("%s: %zu buffers, lower bound %lld, no reuse %lld",
		       path, csv.problem.num_buffers,
		       (long long)r.lower_bound, (long long)r.no_reuse);
		if (o->capacity)
			printf(", capacity %lld", (long long)o->capacity);
		printf("\n");
		for (int i = 0; i < MP_NUM_PLANNERS; i++) {
			const struct mp_planner_result *p = &r.planner[i];

			if (!p->ran)
				continue;
			printf("  %-17s", mp_planner_name(i));
			if (p->arena >= 0)
				printf(" %10lld", (long long)p->arena);
			else
				printf(" %10s", "-");
			printf("  (%.1f ms", p->ms);
			if (i == MP_EXACT)
				printf(", %llu nodes%s",
				       (unsigned long long)p->nodes,
				       p->optimal ? ", search complete" : "");
			printf(")\n");
		}
	}
	*fits = !o->capacity || r.arena <= o->capacity;
	printf("%s: best %lld by %s, lower bound %lld%s%s", path,
	       (long long)r.arena, mp_planner_name(r.best),
	       (long long)r.lower_bound, r.optimal ? ", optimal" : "",
	       o->capacity ? (*fits ? ", fits" : ", DOES NOT FIT") : "");
	if (o->capacity && r.fit_ms >= 0)
		printf(" (after %.1f ms)", r.fit_ms);
	printf(", %.1f ms\n", r.ms);
	if (offsets_path) {
		FILE *f = fopen(offsets_path, "w");

		if (!f) {
			fprintf(stderr, "npu-plan: cannot write %s: %s\n",
				offsets_path, strerror(errno));
			ret = 2;
		} else {
			fprintf(f, "id,lower,upper,size,offset\n");
			for (size_t i = 0; i < csv.problem.num_buffers; i++)
				fprintf(f, "%lld,%lld,%lld,%lld,%lld\n",
					(long long)csv.ids[i],
					(long long)csv.buffers[i].lower,
					(long long)csv.buffers[i].upper,
					(long long)csv.buffers[i].size,
					(long long)off[i]);
			fclose(f);
		}
	}
	free(off);
	mp_csv_free(&csv);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "budget-ms", required_argument, NULL, 'b' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "planners", required_argument, NULL, 'p' },
		{ "offsets", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mp_options o = { .budget_ms = 9000 };
	long long capacity = -1;
	const char *offsets_path = NULL;
	bool quiet = false, all_fit = true;
	int c, status = 0;

	while ((c = getopt_long(argc, argv, "b:c:p:o:qh", longopts, NULL)) != -1) {
		char *end;
		long long v;

		switch (c) {
		case 'b':
		case 'c':
			v = strtoll(optarg, &end, 10);
			if (*end || v < 0 || (c == 'b' && (v == 0 || v > 3600000))) {
				fprintf(stderr,
					"npu-plan: --%s wants a positive number, got '%s'\n",
					c == 'b' ? "budget-ms" : "capacity", optarg);
				return 2;
			}
			if (c == 'b')
				o.budget_ms = (unsigned int)v;
			else
				capacity = v;
			break;
		case 'p':
			if (parse_planners(optarg, &o.planners)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'o':
			offsets_path = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'V':
			printf("npu-plan %s\n", NPU_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		bool fits = true;
		int ret;

		o.capacity = capacity >= 0 ? capacity : capacity_from_name(argv[i]);
		ret = plan_one(argv[i], &o, quiet, offsets_path, &fits);
		if (ret > status)
			status = ret;
		all_fit = all_fit && fits;
	}
	if (!status && !all_fit)
		status = 1;
	return status;
}
