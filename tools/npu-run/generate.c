// SPDX-License-Identifier: MIT
/*
 * generate.c - npu-run --generate N: greedy decoding of a decoder model
 * whose KV cache stays on the device (npurt_model_generate), the tokens
 * and tokens/s; --profile traces each step with the host copies the
 * runtime counted in it. Documentation/npu-run.rst, "Generation".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "generate.h"

#define GEN_MAX_STEPS	(1u << 20)

/* One step of the traced generation. */
struct step_rec {
	uint64_t end_ns;
	int64_t token;
	int64_t h2d, d2h;		/* host copies during the step */
};

struct tracer {
	npurt_context *ctx;
	struct step_rec *v;
	uint32_t cap;
	uint64_t start_ns;
	int64_t h2d, d2h;		/* counters at the step's start */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int generate_parse_prompt(const char *s, int64_t **ids, uint32_t *n)
{
	size_t cap = 1;
	const char *p;

	for (p = s; *p; p++)
		cap += *p == ',';
	*ids = calloc(cap, sizeof(**ids));
	*n = 0;
	if (!*ids)
		return -1;
	for (p = s; *p;) {
		char *end;
		long long v;

		errno = 0;
		v = *p >= '0' && *p <= '9' ? strtoll(p, &end, 10) : -1;
		if (v < 0 || errno || (*end && (*end != ',' || !end[1]))) {
			fprintf(stderr, "npu-run: --prompt \"%s\": token ids "
				"(integers >= 0) separated by commas\n", s);
			free(*ids);
			*ids = NULL;
			return -1;
		}
		(*ids)[(*n)++] = v;
		p = *end ? end + 1 : end;
	}
	if (!*n) {
		fprintf(stderr, "npu-run: --prompt is empty: give at least "
			"one token id\n");
		free(*ids);
		*ids = NULL;
		return -1;
	}
	return 0;
}

static int counter_cb(void *arg, const char *key, int64_t value)
{
	int64_t *c = arg;

	if (!strcmp(key, "host_to_device_bytes"))
		c[0] = value;
	else if (!strcmp(key, "device_to_host_bytes"))
		c[1] = value;
	return 0;
}

static void counters(npurt_context *ctx, int64_t *h2d, int64_t *d2h)
{
	int64_t c[2] = { 0, 0 };

	npurt_mem_foreach_stat(ctx, counter_cb, c);
	*h2d = c[0];
	*d2h = c[1];
}

static int on_token(void *user, uint32_t index, int64_t token)
{
	struct tracer *t = user;
	int64_t h2d, d2h;

	if (index >= t->cap)
		return 0;
	counters(t->ctx, &h2d, &d2h);
	t->v[index] = (struct step_rec){ now_ns(), token, h2d - t->h2d,
					 d2h - t->d2h };
	t->h2d = h2d;
	t->d2h = d2h;
	return 0;
}

static void write_trace(FILE *f, const struct tracer *t, uint32_t n,
			const npurt_generate_stats *s)
{
	uint64_t start = t->start_ns;

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,"
		"\"tid\":1,\"args\":{\"name\":\"generate\"}}");
	for (uint32_t i = 0; i < n; i++) {
		const struct step_rec *r = &t->v[i];

		fprintf(f, ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":1,"
			"\"tid\":1,\"ts\":%.3f,\"dur\":%.3f,\"args\":{"
			"\"token\":%" PRId64 ",\"h2d_bytes\":%" PRId64
			",\"d2h_bytes\":%" PRId64 ",\"cache_bytes\":%"
			PRIu64 "}}", i ? "token" : "prompt",
			(double)(start - t->start_ns) / 1e3,
			(double)(r->end_ns - start) / 1e3, r->token, r->h2d,
			r->d2h, s->cache_bytes);
		start = r->end_ns;
	}
	fprintf(f, "\n]}\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void print_summary(FILE *out, const int64_t *tok, uint32_t n,
			  const npurt_generate_stats *s, double median)
{
	uint32_t steps = s->new_tokens ? s->new_tokens : 1;

	fprintf(out, "tokens      ");
	for (uint32_t i = 0; i < n; i++)
		fprintf(out, " %" PRId64, tok[i]);
	fprintf(out, "\nprompt       %u tokens, first new token after "
		"%.3f ms\n", s->prompt_tokens, (double)s->prompt_ns / 1e6);
	fprintf(out, "decode       %u tokens in %.3f ms: %.1f tokens/s "
		"(median of the timed runs %.1f)\n",
		s->new_tokens ? s->new_tokens - 1 : 0,
		(double)s->decode_ns / 1e6, s->tokens_per_s, median);
	fprintf(out, "kv cache     %u tensors on the device, %" PRIu64
		" bytes; %" PRIu64 " bytes of it crossed to the host\n",
		s->cache_tensors, s->cache_bytes, s->cache_host_bytes);
	fprintf(out, "host copies  %.1f bytes in, %.1f bytes out per "
		"step\n", (double)s->h2d_bytes / steps,
		(double)s->d2h_bytes / steps);
	fprintf(out, "compiled     %u shapes on demand, %.3f ms\n",
		s->shapes_compiled, (double)s->compile_ns / 1e6);
}

static void print_json(FILE *f, const int64_t *tok, uint32_t n,
		       const npurt_generate_stats *s, double median)
{
	fprintf(f, "{\n  \"tokens\": [");
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%s%" PRId64, i ? ", " : "", tok[i]);
	fprintf(f, "],\n  \"prompt_tokens\": %u,\n  \"new_tokens\": %u,\n"
		"  \"prompt_ms\": %.6f,\n  \"decode_ms\": %.6f,\n"
		"  \"tokens_per_s\": %.3f,\n  \"tokens_per_s_median\": %.3f,\n"
		"  \"cache_tensors\": %u,\n  \"cache_bytes\": %" PRIu64 ",\n"
		"  \"cache_host_bytes\": %" PRIu64 ",\n"
		"  \"h2d_bytes\": %" PRIu64 ",\n  \"d2h_bytes\": %" PRIu64
		",\n  \"shapes_compiled\": %u,\n  \"compile_ms\": %.6f\n}\n",
		s->prompt_tokens, s->new_tokens, (double)s->prompt_ns / 1e6,
		(double)s->decode_ns / 1e6, s->tokens_per_s, median,
		s->cache_tensors, s->cache_bytes, s->cache_host_bytes,
		s->h2d_bytes, s->d2h_bytes, s->shapes_compiled,
		(double)s->compile_ns / 1e6);
}

static int rt_failed(void)
{
	const npurt_error *e = npurt_last_error();

	fprintf(stderr, "npu-run: generating: %s: %s: %s\n  -> %s\n",
		e->function, npurt_status_str(e->code), e->reason, e->action);
	return e->code == NPURT_ERR_SHAPE || e->code == NPURT_ERR_NOT_FOUND ?
	       2 : 3;
}

int run_generate(npurt_context *ctx, npurt_model *m,
		 const struct generate_opts *go, long warmup, long loop,
		 FILE *out, FILE *json, FILE *trace)
{
	struct tracer t = { .ctx = ctx };
	npurt_generate_options o;
	npurt_generate_stats s;
	int64_t *prompt = NULL, *tok = NULL;
	double *rates = NULL, median;
	uint32_t plen, n = 0;
	int ret = 0;

	if (go->new_tokens < 1 || go->new_tokens > GEN_MAX_STEPS) {
		fprintf(stderr, "npu-run: --generate %ld: use 1..%u\n",
			go->new_tokens, GEN_MAX_STEPS);
		return 2;
	}
	if (generate_parse_prompt(go->prompt ? go->prompt : "0", &prompt,
				  &plen))
		return 2;
	npurt_generate_options_init(&o);
	o.max_new_tokens = (uint32_t)go->new_tokens;
	o.eos_token_id = go->eos;
	o.on_token = on_token;
	o.user = &t;
	tok = calloc(o.max_new_tokens, sizeof(*tok));
	t.v = calloc(o.max_new_tokens, sizeof(*t.v));
	rates = calloc((size_t)loop, sizeof(*rates));
	if (!tok || !t.v || !rates) {
		fprintf(stderr, "npu-run: out of memory\n");
		ret = 3;
		goto done;
	}
	t.cap = o.max_new_tokens;
	for (long r = 0; r < warmup + loop; r++) {
		t.start_ns = now_ns();
		counters(ctx, &t.h2d, &t.d2h);
		if (npurt_model_generate(m, prompt, plen, &o, tok, &n, &s)) {
			ret = rt_failed();
			goto done;
		}
		if (r >= warmup)
			rates[r - warmup] = s.tokens_per_s;
	}
	qsort(rates, (size_t)loop, sizeof(*rates), cmp_double);
	median = rates[loop / 2];
	print_summary(out, tok, n, &s, median);
	if (json)
		print_json(json, tok, n, &s, median);
	if (trace)
		write_trace(trace, &t, n, &s);
done:
	free(prompt);
	free(tok);
	free(t.v);
	free(rates);
	return ret;
}
