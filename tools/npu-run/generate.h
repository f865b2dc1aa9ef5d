/* SPDX-License-Identifier: MIT */
/* generate.h - npu-run --generate: greedy decoding with a KV cache. */
#ifndef NPU_RUN_GENERATE_H
#define NPU_RUN_GENERATE_H

#include <stdio.h>

#include "npurt.h"

struct generate_opts {
	long new_tokens;		/* --generate N (0: not asked) */
	const char *prompt;		/* --prompt "1,7,3" */
	long long eos;			/* --eos ID (-1: none) */
};

/*
 * Parse --prompt into *@ids (malloc'ed) and *@n; 0, or -1 with a message
 * on stderr.
 */
int generate_parse_prompt(const char *s, int64_t **ids, uint32_t *n);

/*
 * Run @warmup untimed generations of @go on @m, then @loop timed ones;
 * print the tokens of the last and the figures (median tokens/s of the
 * timed ones) to @out, the same as JSON to @json and a Chrome trace of
 * the last generation's steps (each with the host copies the runtime
 * counted) to @trace, when not NULL. Returns 0, 2 (usage) or 3 (runtime
 * error).
 */
int run_generate(npurt_context *ctx, npurt_model *m,
		 const struct generate_opts *go, long warmup, long loop,
		 FILE *out, FILE *json, FILE *trace);

#endif
