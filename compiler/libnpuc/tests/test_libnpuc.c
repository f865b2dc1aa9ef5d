// SPDX-License-Identifier: MIT
/*
 * test_libnpuc.c - libnpuc.so.1 through its public header only: compile
 * a file, the same bytes from memory (same model), one operator, and the
 * errors of each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuc.h"
#include "tests/npuc_tap.h"

static void *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		p = malloc((size_t)n);
		if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
			free(p);
			p = NULL;
		}
		*size = (size_t)n;
	}
	fclose(f);
	return p;
}

int main(void)
{
	const char *model = "models/tinynet/model.onnx";
	struct npuc_compile_options o;
	npuc_result *a = NULL, *b = NULL, *r = NULL;
	const void *oa, *ob, *om;
	size_t sa = 0, sb = 0, so = 0, n = 0;
	uint32_t before = 0, after = 0;
	char err[512];
	void *buf;
	int ret;

	
	npuc_options_init(&o);
	o.use_cache = 0;
	ret = npuc_compile(model, &o, &a, err, sizeof(err));
	ok(!ret && a, "compile %s: %s", model, ret ? err : "ok");
	buf = slurp(model, &n);
	ret = npuc_compile_memory(buf, n, "tinynet", NULL, &o, &b, err,
				  sizeof(err));
	ok(!ret && b, "compile the same bytes from memory: %s",
	       ret ? err : "ok");
	if (a && b) {
		oa = npuc_result_model(a, &sa);
		ob = npuc_result_model(b, &sb);
		ok(sa > 0 && sa == sb && !memcmp(oa, ob, sa) &&
		       !strcmp(npuc_result_cache(a), "off"),
		       "file and memory give the same .om (%zu bytes)", sa);
	} else {
		ok(0, "file and memory give the same .om");
	}
	free(buf);
	ret = npuc_compile_memory("not onnx", 8, "junk", NULL, &o, &r, err,
				  sizeof(err));
	ok(ret < 0 && !r && err[0], "junk bytes are refused: %s", err);

	{
		int64_t xd[4] = { 1, 3, 4, 4 };
		struct npuc_op_tensor in = { NPUC_F32, 4, xd, "NCHW", NULL, 0 };
		struct npuc_op_attr ax = { .name = "axis",
					   .type = NPUC_ATTR_INT, .i = 1 };

		ret = npuc_compile_op("Softmax", &ax, 1, &in, 1, 1, &o, &r,
				      err, sizeof(err));
		om = r ? npuc_result_model(r, &so) : NULL;
		npuc_result_nodes(r ? r : a, &before, &after);
		ok(!ret && om && so > 0 && before == 1,
		       "one Softmax compiles (%zu bytes, %u node): %s", so,
		       before, ret ? err : "ok");
		npuc_result_free(r);
		r = NULL;
		ret = npuc_compile_op("NoSuchOp", NULL, 0, &in, 1, 1, &o, &r,
				      err, sizeof(err));
		ok(ret == -EINVAL && !r && strstr(err, "NoSuchOp"),
		       "an unknown operator is named: %s", err);
		in.rank = -1;
		ret = npuc_compile_op("Relu", NULL, 0, &in, 1, 1, &o, &r,
				      err, sizeof(err));
		ok(ret == -EINVAL && !r, "a bad rank is refused: %s", err);
	}
	ok(!strcmp(npuc_version(), "1.0.0") && strstr(npuc_targets(),
							  "sim910"),
	       "version %s, targets %s", npuc_version(), npuc_targets());
	npuc_result_free(a);
	npuc_result_free(b);
	printf("1..%d\n", test_no);
	return failures != 0;
}
