// SPDX-License-Identifier: MIT
/*
 * keep_list.c - npuc --keep-dtype @FILE: a keep-list file, as ATC's
 * --keep_dtype takes one (and npu-compare --bisect writes one), turned
 * into the comma list of npuc_options.keep_dtype.
 *
 * One entry a line: "OpType:Softmax" (an op type), "OpName:/blk/Exp" or a
 * bare name (a node name: an ONNX node, or an op type); blanks around an
 * entry are ignored, and so are empty lines and lines starting with '#'.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keep_list.h"

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int append(char **list, size_t *len, const char *name)
{
	size_t n = strlen(name);
	char *p = realloc(*list, *len + n + 2);

	if (!p)
		return -ENOMEM;
	if (*len)
		p[(*len)++] = ',';
	memcpy(p + *len, name, n + 1);
	*len += n;
	*list = p;
	return 0;
}

char *keep_list_read(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *list = NULL;
	size_t cap = 0, len = 0;
	unsigned int no = 0;
	ssize_t got;

	if (!f) {
		snprintf(err, errlen, "--keep-dtype @%s: cannot read: %s",
			 path, strerror(errno));
		return NULL;
	}
	errno = 0;
	while ((got = getline(&line, &cap, f)) >= 0) {
		char *s;

		no++;
		if (strlen(line) != (size_t)got) {
			snprintf(err, errlen, "--keep-dtype @%s:%u: a NUL byte: "
				 "a keep-list is text", path, no);
			goto fail;
		}
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		if (!strncmp(s, "OpType:", 7) || !strncmp(s, "OpName:", 7))
			s = trim(s + 7);
		if (!*s) {
			snprintf(err, errlen, "--keep-dtype @%s:%u: an empty "
				 "entry: name an op type or a node", path, no);
			goto fail;
		}
		if (strchr(s, ',')) {
			snprintf(err, errlen, "--keep-dtype @%s:%u: '%s': an "
				 "entry is one op type or node name (no "
				 "commas)", path, no, s);
			goto fail;
		}
		if (append(&list, &len, s)) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		errno = 0;
	}
	if (ferror(f) || errno) {
		snprintf(err, errlen, "--keep-dtype @%s: cannot read: %s", path,
			 strerror(errno ? errno : EIO));
		goto fail;
	}
	fclose(f);
	free(line);
	if (!list)
		list = strdup("");	/* an empty file keeps nothing */
	if (!list)
		snprintf(err, errlen, "out of memory");
	return list;
fail:
	fclose(f);
	free(line);
	free(list);
	return NULL;
}
