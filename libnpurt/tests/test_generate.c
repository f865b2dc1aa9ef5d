// SPDX-License-Identifier: MIT
/*
 * test_generate.c - npurt_model_generate()'s refusals, and the host-copy
 * counters it reports from (npurt_mem_foreach_stat's
 * host_to_device_bytes / device_to_host_bytes), on the in-process device
 * (or the node $NPU_DEVICE names). Generation itself is tested end to end
 * on torch-exported decoders (tests/models/decoder_kv.py).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_models.h"
#include "rt_test_util.h"
#include "tap.h"

static npurt_context *ctx;

static int counter_cb(void *arg, const char *key, int64_t value)
{
	int64_t *c = arg;

	if (!strcmp(key, "host_to_device_bytes"))
		c[0] = value;
	else if (!strcmp(key, "device_to_host_bytes"))
		c[1] = value;
	return 0;
}

static void counters(int64_t *c)
{
	c[0] = c[1] = -1;
	npurt_mem_foreach_stat(ctx, counter_cb, c);
}

/* Every host copy the runtime makes is counted, and nothing else. */
static void test_counters(npurt_model *m)
{
	float x[2 * MLP_IN], y[2 * MLP_OUT];
	npurt_io in = { NULL, x, 0, sizeof(x) };
	npurt_io out = { NULL, y, 0, sizeof(y) };
	int64_t c0[2], c1[2], c2[2], c3[2];
	unsigned char buf[128] = { 0 };
	npurt_mem *a = NULL, *b = NULL;
	npurt_stream *s = NULL;

	rt_fill(x, 2 * MLP_IN, 3);
	counters(c0);
	npurt_mem_alloc(ctx, 4096, &a);
	npurt_mem_alloc(ctx, 4096, &b);
	npurt_memcpy_h2d(a, 0, buf, 100);
	npurt_memcpy_d2h(buf, a, 0, 60);
	npurt_memcpy_d2d(b, 0, a, 0, 4096);
	counters(c1);
	tap_ok(c0[0] >= 0 && c1[0] - c0[0] == 100 && c1[1] - c0[1] == 60,
	       "memcpy counted: %lld bytes in, %lld out (a device-to-device "
	       "copy is not a host copy)", (long long)(c1[0] - c0[0]),
	       (long long)(c1[1] - c0[1]));
	npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &s);
	npurt_memcpy_h2d_async(a, 0, buf, 8, s);
	npurt_memcpy_d2h_async(buf, a, 0, 12, s);
	npurt_stream_synchronize(s);
	npurt_stream_destroy(s);
	counters(c2);
	tap_ok(c2[0] - c1[0] == 8 && c2[1] - c1[1] == 12,
	       "async copies counted: %lld in, %lld out",
	       (long long)(c2[0] - c1[0]), (long long)(c2[1] - c1[1]));
	npurt_model_execute(m, &in, 1, &out, 1);
	in = (npurt_io){ a, NULL, 0, 4096 };
	out = (npurt_io){ b, NULL, 0, 4096 };
	npurt_model_execute(m, &in, 1, &out, 1);
	counters(c3);
	tap_ok(c3[0] - c2[0] == (int64_t)sizeof(x) &&
	       c3[1] - c2[1] == (int64_t)sizeof(y),
	       "an execution stages its host I/O (%lld in, %lld out), device "
	       "blocks cross nothing", (long long)(c3[0] - c2[0]),
	       (long long)(c3[1] - c2[1]));
	npurt_mem_free(a);
	npurt_mem_free(b);
}

static void test_refusals(npurt_model *m)
{
	npurt_generate_options o, bad;
	npurt_generate_stats st;
	int64_t prompt[2] = { 1, 2 }, tok[4];
	uint32_t n = 7;

	npurt_generate_options_init(&o);
	o.max_new_tokens = 4;
	tap_ok(o.size == sizeof(o) && o.eos_token_id == -1 && !o.input_ids &&
	       !o.logits && !o.on_token,
	       "options_init: size, no eos, the default names");
	tap_ok(npurt_model_generate(NULL, prompt, 2, &o, tok, &n, &st) ==
		       NPURT_ERR_INVALID &&
	       npurt_model_generate(m, prompt, 0, &o, tok, &n, &st) ==
		       NPURT_ERR_INVALID &&
	       npurt_model_generate(m, NULL, 2, &o, tok, &n, &st) ==
		       NPURT_ERR_INVALID &&
	       npurt_model_generate(m, prompt, 2, &o, NULL, &n, &st) ==
		       NPURT_ERR_INVALID,
	       "no model, prompt or room for the tokens: %s", rt_err());
	memset(&bad, 0, sizeof(bad));
	bad.max_new_tokens = 4;
	tap_ok(npurt_model_generate(m, prompt, 2, &bad, tok, &n, &st) ==
		       NPURT_ERR_INVALID &&
	       strstr(npurt_last_error()->action,
		      "npurt_generate_options_init"),
	       "options not initialised: %s", rt_err());
	bad = o;
	bad.max_new_tokens = 0;
	tap_ok(npurt_model_generate(m, prompt, 2, &bad, tok, &n, &st) ==
		       NPURT_ERR_INVALID,
	       "no tokens asked: %s", rt_err());
	bad.max_new_tokens = INT32_MAX - 1;
	tap_ok(npurt_model_generate(m, prompt, 2, &bad, tok, &n, &st) ==
		       NPURT_ERR_INVALID && strstr(rt_err(), "2147483646"),
	       "more than 2^31 - 1 positions: %s", rt_err());
	tap_ok(npurt_model_generate(m, prompt, 2, &o, tok, &n, &st) ==
		       NPURT_ERR_NOT_FOUND && n == 0 &&
	       strstr(rt_err(), "no token input \"input_ids\""),
	       "a model that is no decoder: %s", rt_err());
	bad = o;
	bad.input_ids = "x";
	tap_ok(npurt_model_generate(m, prompt, 2, &bad, tok, &n, &st) ==
		       NPURT_ERR_SHAPE && strstr(rt_err(), "\"x\"") &&
	       strstr(rt_err(), "int64"),
	       "a float input named as the ids: %s", rt_err());
}

int main(void)
{
	uint32_t batch = 2;
	npurt_model *m = NULL;
	npurt_device *dev;
	void *data;
	size_t size;

	tap_plan(13);
	if (!tap_ok(npurt_init(0) == NPURT_OK &&
		    npurt_device_open(0, &dev) == NPURT_OK &&
		    npurt_context_create(dev, 0, &ctx) == NPURT_OK,
		    "init, device, context"))
		return 1;
	if (!rt_build_mlp(&batch, 1, 0, &data, &size)) {
		npurt_model_load_memory(ctx, data, size, &m);
		free(data);
	}
	if (!tap_ok(m != NULL, "MLP loads"))
		return 1;
	test_counters(m);
	test_refusals(m);
	npurt_model_unload(m);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	tap_ok(npurt_finalize() == NPURT_OK, "finalize");
	return tap_done();
}
