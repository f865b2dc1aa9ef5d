/* SPDX-License-Identifier: MIT */
/*
 * dumpfmt.h - the dump directory of npu-run --dump, as npu-compare reads
 * it (Documentation/diagnosis.rst):
 *
 *   DIR/index.json      {"model": ..., "tensors": [
 *                         {"tensor": NAME, "file": FILE, ...},   one a line
 *                       ...]}
 *   DIR/FILE            one .npy per ONNX tensor, in the ONNX layout
 *
 * FILE is dumpfmt_stem(NAME) + ".npy" (a name that another one already
 * took gets "~2", "~3", ...). A reference directory from another runtime
 * may omit index.json: its files are looked up by the same stem.
 */
#ifndef NPU_DUMPFMT_H
#define NPU_DUMPFMT_H

#include <stddef.h>
#include <string.h>

/* File-name stem of a tensor name: [A-Za-z0-9_.-] kept, the rest '_'. */
static inline const char *dumpfmt_stem(const char *name, char *buf,
				       size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++) {
		char c = name[i];
		int safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '_' || c == '-' ||
			   (c == '.' && i > 0);

		buf[i] = safe ? c : '_';
	}
	buf[i] = '\0';
	return buf;
}

/*
 * The JSON string value of "@key": in @line (as index.json writes them:
 * one entry a line), unescaped into @out; 0, or -1 when absent.
 */
static inline int dumpfmt_field(const char *line, const char *key, char *out,
				size_t len)
{
	char pat[64];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\": \"", key);
	p = strstr(line, pat);
	if (!p || !len)
		return -1;
	for (p += strlen(pat); *p && *p != '"' && n + 1 < len; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			if (*p == 'u' && p[1] && p[2] && p[3] && p[4]) {
				unsigned int c = 0;

				sscanf(p + 1, "%4x", &c);
				out[n++] = (char)c;
				p += 4;
				continue;
			}
		}
		out[n++] = *p;
	}
	out[n] = '\0';
	return 0;
}

#endif
