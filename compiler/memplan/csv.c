// SPDX-License-Identifier: MIT
/*
 * csv.c - read a planning problem in the CSV form that google/minimalloc
 * publishes its benchmarks in: `id,lower,upper,size`, one buffer a line,
 * an optional header line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan.h"

static int grow(struct mp_csv *c, size_t *cap, size_t n)
{
	void *b, *i;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 256;
	b = realloc(c->buffers, *cap * sizeof(*c->buffers));
	if (b)
		c->buffers = b;
	i = realloc(c->ids, *cap * sizeof(*c->ids));
	if (i)
		c->ids = i;
	return b && i ? 0 : -ENOMEM;
}

int mp_csv_read(const char *path, struct mp_csv *out, char *err,
		size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t n = 0, cap = 0, lineno = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		long long id, lo, hi, sz;
		char extra;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%zu: line too long", path, lineno);
			ret = -EINVAL;
			break;
		}
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (lineno == 1 && strncmp(line, "id", 2) == 0)
			continue;	/* header */
		if (sscanf(line, " %lld , %lld , %lld , %lld %c", &id, &lo, &hi,
			   &sz, &extra) != 4 || lo < 0 || hi < lo || sz < 0) {
			snprintf(err, errlen,
				 "%s:%zu: expected `id,lower,upper,size` with 0 <= lower <= upper and size >= 0",
				 path, lineno);
			ret = -EINVAL;
			break;
		}
		if (grow(out, &cap, n)) {
			snprintf(err, errlen, "out of memory at %s:%zu", path,
				 lineno);
			ret = -ENOMEM;
			break;
		}
		out->ids[n] = id;
		out->buffers[n] = (struct mp_buffer){ lo, hi, sz, 1 };
		n++;
	}
	fclose(f);
	if (ret) {
		mp_csv_free(out);
		return ret;
	}
	out->problem.num_buffers = n;
	out->problem.buffers = out->buffers;
	return 0;
}

void mp_csv_free(struct mp_csv *c)
{
	free(c->buffers);
	free(c->ids);
	memset(c, 0, sizeof(*c));
}
