// SPDX-License-Identifier: MIT
/*
 * run_model.c - the smallest complete libnpurt program: open the default
 * NPU, load a compiled model, feed its inputs from raw files (or zeros),
 * run it once and print every output value, one per line.
 *
 *   cc run_model.c $(pkg-config --cflags --libs libnpurt) -o run_model
 *   ./run_model model.om [input0.raw ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npurt.h>

static int fail(const char *what)
{
	const npurt_error *e = npurt_last_error();

	fprintf(stderr, "run_model: %s: %s: %s\n  hint: %s\n", what,
		npurt_status_str(e->code), e->reason, e->action);
	return 1;
}

static void print_value(const void *p, npurt_dtype t, size_t i)
{
	switch (t) {
	case NPURT_DTYPE_F32: printf("%.9g\n", ((const float *)p)[i]); break;
	case NPURT_DTYPE_I32: printf("%d\n", ((const int32_t *)p)[i]); break;
	case NPURT_DTYPE_I64:
		printf("%lld\n", (long long)((const int64_t *)p)[i]);
		break;
	case NPURT_DTYPE_I8: printf("%d\n", ((const int8_t *)p)[i]); break;
	default: printf("%u\n", ((const uint8_t *)p)[i]); break;
	}
}

static size_t dtype_size(npurt_dtype t)
{
	return t == NPURT_DTYPE_F32 || t == NPURT_DTYPE_I32 ? 4 :
	       t == NPURT_DTYPE_I64 ? 8 : t == NPURT_DTYPE_F16 ? 2 : 1;
}

int main(int argc, char **argv)
{
	npurt_io in[16], out[16];
	npurt_tensor_desc d;
	npurt_model_info info;
	npurt_device *dev;
	npurt_context *ctx;
	npurt_model *model;

	if (argc < 2) {
		fprintf(stderr, "usage: run_model MODEL.om [INPUT.raw ...]\n");
		return 2;
	}
	if (npurt_version() >> 16 != NPURT_VERSION_MAJOR)
		fprintf(stderr, "run_model: header and library majors differ\n");
	if (npurt_init(0))
		return fail("init");
	if (npurt_device_open(0, &dev) || npurt_context_create(dev, 0, &ctx))
		return fail("opening the device");
	if (npurt_model_load_file(ctx, argv[1], &model))
		return fail("loading the model");
	npurt_model_get_info(model, &info);
	if (info.num_inputs > 16 || info.num_outputs > 16)
		return 2;
	for (uint32_t i = 0; i < info.num_inputs; i++) {
		npurt_model_get_input(model, i, 0, &d);
		in[i] = (npurt_io){ NULL, calloc(1, d.size), 0, d.size };
		if (argc > 2 + (int)i) {
			FILE *f = fopen(argv[2 + i], "rb");

			if (!f || fread(in[i].host, 1, d.size, f) != d.size) {
				fprintf(stderr, "run_model: input %s needs %zu "
					"bytes from %s\n", d.name, d.size,
					argv[2 + i]);
				return 2;
			}
			fclose(f);
		}
	}
	for (uint32_t j = 0; j < info.num_outputs; j++) {
		npurt_model_get_output(model, j, 0, &d);
		out[j] = (npurt_io){ NULL, calloc(1, d.size), 0, d.size };
	}
	if (npurt_model_execute(model, in, info.num_inputs, out,
				info.num_outputs))
		return fail("executing");
	for (uint32_t j = 0; j < info.num_outputs; j++) {
		npurt_model_get_output(model, j, 0, &d);
		printf("# %s\n", d.name);
		for (size_t i = 0; i < d.size / dtype_size(d.dtype); i++)
			print_value(out[j].host, d.dtype, i);
		free(out[j].host);
	}
	for (uint32_t i = 0; i < info.num_inputs; i++)
		free(in[i].host);
	npurt_model_unload(model);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	return 0;
}
