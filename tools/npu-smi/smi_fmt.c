// SPDX-License-Identifier: MIT
/*
 * smi_fmt.c - npu-smi's outputs: the device table with its process list,
 * the memory detail (-t memory) and the script-friendly --query output in
 * CSV or JSON. --query values are plain numbers (bytes, ns, percent) so
 * that scripts need no unit parsing.
 */
#include <stdio.h>
#include <string.h>

#include "smi.h"

const char *smi_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes && !(bytes & ((1ull << 20) - 1)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
	else if (bytes && !(bytes & 1023))
		snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	return buf;
}

static const char *smi_util(const struct smi_device *d, char *buf, size_t len)
{
	if (d->util_pct < 0)
		snprintf(buf, len, "N/A");
	else
		snprintf(buf, len, "%.0f%%", d->util_pct);
	return buf;
}

static const char rule[] =
	"+-----------------------------------------------------------------------------+";

void smi_print_table(const struct smi_device *devs, int ndev,
		     const struct smi_proc *procs, int nproc)
{
	char a[32], b[32], u[16], line[128];
	int i;

	puts(rule);
	snprintf(line, sizeof(line), "npu-smi %s   Driver: %s %s   uAPI: %s",
		 NPU_VERSION, ndev ? devs[0].driver : "-", ndev ? devs[0].driver_version : "-",
		 ndev ? devs[0].uapi_version : "-");
	printf("| %-75s |\n", line);
	puts("|-----+-----------+---------------------+-----------------------+-------------|");
	puts("| NPU | Name      | Node                | VRAM used / total     | Cores  Util |");
	puts("|=====+===========+=====================+=======================+=============|");
	for (i = 0; i < ndev; i++) {
		const struct smi_device *d = &devs[i];

		printf("| %3d | %-9.9s | %-19.19s | %9s / %9s | %5u %5s |\n",
		       d->index, d->name, d->node,
		       smi_size(d->vram_used, a, sizeof(a)),
		       smi_size(d->vram_total, b, sizeof(b)), d->cores,
		       smi_util(d, u, sizeof(u)));
	}
	puts(rule);
	printf("| %-75s |\n", "Processes:");
	printf("| %7s %4s %7s %-20s %12s %20s |\n", "PID", "NPU", "Files",
	       "Name", "VRAM", "Engine time");
	puts("|=============================================================================|");
	if (!nproc)
		printf("| %-75s |\n", "  No running processes found");
	for (i = 0; i < nproc; i++) {
		const struct smi_proc *p = &procs[i];

		printf("| %7d %4d %7u %-20.20s %12s %17.3f ms |\n", (int)p->pid,
		       p->device, p->clients, p->comm,
		       smi_size(p->vram, a, sizeof(a)),
		       (double)p->engine_ns / 1e6);
	}
	puts(rule);
}

void smi_print_memory(const struct smi_device *devs, int ndev)
{
	char s[32];
	int i;

	for (i = 0; i < ndev; i++) {
		const struct smi_device *d = &devs[i];
		double used = d->vram_total ?
			100.0 * (double)d->vram_used / (double)d->vram_total : 0;

		printf("NPU %d: %s (%s)\n", d->index, d->name, d->node);
		printf("    %-26s: %s\n", "Total", smi_size(d->vram_total, s, sizeof(s)));
		printf("    %-26s: %s (%.1f%%)\n", "Used",
		       smi_size(d->vram_used, s, sizeof(s)), used);
		printf("    %-26s: %s\n", "Free", smi_size(d->vram_free, s, sizeof(s)));
		printf("    %-26s: %s\n", "Largest free block",
		       smi_size(d->largest_free, s, sizeof(s)));
		printf("    %-26s: %s\n", "Peak used", smi_size(d->peak_used, s, sizeof(s)));
		printf("    %-26s: %llu\n", "Buffer objects",
		       (unsigned long long)d->num_bos);
		printf("    %-26s: %llu\n", "Free ranges",
		       (unsigned long long)d->free_ranges);
		printf("    %-26s: %.2f%%\n", "Fragmentation (1-lf/free)",
		       (double)d->fragmentation_ppm / 1e4);
		printf("    %-26s: %llu\n", "Compactions",
		       (unsigned long long)d->compactions);
		printf("    %-26s: %s\n", "Bytes moved",
		       smi_size(d->bytes_moved, s, sizeof(s)));
		printf("    %-26s: %.3f ms\n", "Dispatch paused",
		       (double)d->pause_ns / 1e6);
		printf("    %-26s: %llu\n", "Allocation failures",
		       (unsigned long long)d->alloc_failures);
	}
}

enum field_kind { F_STR, F_U64, F_PCT };

struct field {
	const char *name;
	enum field_kind kind;
	size_t off;
	const char *help;
};

#define FS(n, m, h)	{ n, F_STR, offsetof(struct smi_device, m), h }
#define FU(n, m, h)	{ n, F_U64, offsetof(struct smi_device, m), h }

static const struct field fields[] = {
	{ "index", F_U64, (size_t)-1, "device index" },
	FS("name", name, "device name (platform device)"),
	FS("node", node, "device node"),
	FS("driver", driver, "kernel driver"),
	FS("driver_version", driver_version, "module version"),
	FS("uapi_version", uapi_version, "ioctl ABI version"),
	{ "cores", F_U64, (size_t)-2, "AI cores" },
	{ "queues", F_U64, (size_t)-3, "hardware queues" },
	FU("memory.total", vram_total, "VRAM bytes"),
	FU("memory.used", vram_used, "bytes in buffer objects"),
	FU("memory.free", vram_free, "free bytes"),
	FU("memory.largest_free", largest_free, "largest free block, bytes"),
	FU("memory.peak", peak_used, "peak used bytes"),
	FU("memory.fragmentation_ppm", fragmentation_ppm,
	   "1 - largest free / free, parts per million"),
	FU("memory.bos", num_bos, "buffer objects"),
	FU("memory.compactions", compactions, "compactions run"),
	FU("memory.bytes_moved", bytes_moved, "bytes moved by compaction"),
	{ "utilization", F_PCT, offsetof(struct smi_device, util_pct),
	  "percent of the AI cores' capacity used over a 200 ms window" },
	FU("busy_ns", busy_ns, "AI-core time spent on tasks, summed over cores, ns"),
	FU("jobs.completed", jobs_completed, "jobs completed"),
	FU("jobs.faulted", jobs_faulted, "jobs faulted or cancelled"),
};

static const struct field *find_field(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strlen(fields[i].name) == len &&
		    !strncmp(fields[i].name, name, len))
			return &fields[i];
	return NULL;
}

/* Returns 0, or prints which field is unknown and returns -1. */
int smi_check_fields(const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (!len || !find_field(p, len)) {
			fprintf(stderr, "npu-smi: unknown field '%.*s' in --query; "
				"see npu-smi --help-query\n", (int)len, p);
			return -1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

void smi_list_fields(void)
{
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		printf("  %-26s %s\n", fields[i].name, fields[i].help);
}

static void print_value(const struct smi_device *d, const struct field *f,
			bool json)
{
	const char *base = (const char *)d;
	uint64_t v;

	switch (f->kind) {
	case F_STR:
		printf(json ? "\"%s\"" : "%s", base + f->off);
		return;
	case F_PCT:
		if (d->util_pct < 0)
			printf(json ? "null" : "N/A");
		else
			printf("%.1f", d->util_pct);
		return;
	case F_U64:
		if (f->off == (size_t)-1)
			v = (uint64_t)d->index;
		else if (f->off == (size_t)-2)
			v = d->cores;
		else if (f->off == (size_t)-3)
			v = d->queues;
		else
			memcpy(&v, base + f->off, sizeof(v));
		printf("%llu", (unsigned long long)v);
		return;
	}
}

void smi_print_query(const struct smi_device *devs, int ndev,
		     const char *list, bool json, bool header)
{
	int i;

	if (!json && header) {
		const char *p = list;

		while (*p) {
			size_t len = strcspn(p, ",");

			printf("%s%.*s", p == list ? "" : ", ", (int)len, p);
			p += len;
			if (*p == ',')
				p++;
		}
		printf("\n");
	}
	if (json)
		printf("[");
	for (i = 0; i < ndev; i++) {
		const char *p = list;

		printf(json ? "%s\n  {" : "%s", json && i ? "," : "");
		while (*p) {
			size_t len = strcspn(p, ",");
			const struct field *f = find_field(p, len);

			if (json)
				printf("%s\"%s\": ", p == list ? "" : ", ", f->name);
			else if (p != list)
				printf(", ");
			print_value(&devs[i], f, json);
			p += len;
			if (*p == ',')
				p++;
		}
		printf(json ? "}" : "\n");
	}
	if (json)
		printf("\n]\n");
	fflush(stdout);
}
