// SPDX-License-Identifier: MIT
/*
 * test_mapped - weights left in the model file's mapping through a
 * compile (onnx_import_materialize_except_weights(), ir_tensor.
 * data_mapped) give the bytes of a compile that copied every weight
 * first.
 *
 * Each model is imported twice: plainly (every constant in memory of its
 * own) and with every initializer of one byte or more lifted out of the
 * protobuf, so that the weights the passes keep mapped lie at whatever
 * odd offsets the file puts them (built with UBSan, a typed read of one
 * that skipped ir_tensor_own() is reported as a misaligned load). The
 * mapped graph is compiled without the cache, into an empty cache (the
 * passes derive and keep), and again with the whole-model entries
 * removed (the partition cache serves every derived constant from its
 * entries' mappings, ir_tensor_borrow_data()); each .om must equal the
 * plain compile's, byte for byte. A precision option (force_fp16) takes
 * the weights through pass_precision's conversion too. Models not
 * exported (no torch) are skipped.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/npuc.h"
#include "ir/ir.h"
#include "onnx/onnx_import.h"
#include "tests/npuc_tap.h"

static const struct {
	const char *path;
	const char *precision;
} models[] = {
	{ "build/fe-models/resnet18.onnx", NULL },
	{ "build/fe-models/mobilenet_v2.onnx", NULL },
	{ "build/fe-models/mobilenet_v2.onnx", "force_fp16" },
	{ "build/fe-models/transformer.onnx", NULL },
	{ "build/models/bert_encoder/model.onnx", NULL },
	{ "build/models/squeezenet1_1/model.onnx", NULL },
	{ "build/models/two_branch_cnn/model.onnx", NULL },
	{ "build/models/families/lstm_2layer/model.onnx", NULL },
	{ "build/models/families/unet_convtranspose/model.onnx", NULL },
	{ "build/models/families/roi_align_head/model.onnx", NULL },
};

static char tmp_cache[256];
static int kept_total;

/* Remove the whole-model entries, so the next compile misses them. */
static void drop_model_entries(void)
{
	DIR *d = opendir(tmp_cache);
	struct dirent *e;
	char path[600];

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 5 && (!strcmp(e->d_name + n - 5, ".npuc") ||
			      !strcmp(e->d_name + n - 4, ".ref"))) {
			snprintf(path, sizeof(path), "%s/%s", tmp_cache,
				 e->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
}

struct result {
	int ret;
	struct npuc_om om;
	struct npuc_report rep;
	int lifted;		/* constants the import left in the file */
	int kept;		/* ... and of those, weights kept mapped */
	char err[512];
};

static void compile(const char *path, const char *precision, bool map,
		    bool cached, struct result *r)
{
	struct onnx_import_opts io = { .map_weights = map,
				       .map_min_bytes = 1 };
	struct npuc_options o = { .opt_level = 2, .no_cache = !cached,
				  .cache_dir = tmp_cache,
				  .precision = precision };
	struct ir_graph *g = NULL;

	memset(r, 0, sizeof(*r));
	r->ret = onnx_import_file(path, &io, &g, r->err, sizeof(r->err));
	if (r->ret)
		return;
	for (int i = 0; i < g->num_tensors; i++)
		r->lifted += g->tensors[i]->data_mapped;
	/* what the driver does on a miss (again, the same), to count */
	r->ret = onnx_import_materialize_except_weights(g);
	for (int i = 0; i < g->num_tensors && !r->ret; i++)
		r->kept += g->tensors[i]->data_mapped;
	if (r->ret) {
		ir_graph_free(g);
		return;
	}
	r->ret = npuc_compile_ir(g, path, &o, &r->om, &r->rep, r->err,
				 sizeof(r->err));
}

static bool same(const struct result *a, const struct result *b)
{
	if (a->ret || b->ret)
		return a->ret == b->ret;
	return a->om.size == b->om.size &&
	       !memcmp(a->om.data, b->om.data, a->om.size);
}

static void release(struct result *r)
{
	if (!r->ret)
		npuc_om_release(&r->om);
}

static void test_model(const char *path, const char *precision)
{
	struct result plain, nocache, cold, reused;
	const char *tag = precision ? precision : "f32";

	compile(path, precision, false, false, &plain);
	compile(path, precision, true, false, &nocache);
	compile(path, precision, true, true, &cold);
	drop_model_entries();
	compile(path, precision, true, true, &reused);
	if (plain.ret)
		printf("# %s: %s\n", path, plain.err);
	kept_total += nocache.kept;
	ok(nocache.lifted > 0 && same(&plain, &nocache),
	   "%s (%s): %d constants lifted, %d weights kept mapped, no cache: "
	   "the plain compile's bytes (%d)", path, tag, nocache.lifted,
	   nocache.kept, nocache.ret);
	ok(same(&plain, &cold) && cold.rep.cache == 0 /* CACHE_MISS */,
	   "%s (%s): into an empty cache: the same bytes", path, tag);
	ok(same(&plain, &reused) && (reused.ret ||
	   reused.rep.part.derived_hit == reused.rep.part.derived),
	   "%s (%s): from the partition cache (%u of %u derived constants "
	   "found): the same bytes", path, tag, reused.rep.part.derived_hit,
	   reused.rep.part.derived);
	release(&plain);
	release(&nocache);
	release(&cold);
	release(&reused);
}

int main(void)
{
	int tried = 0;

	snprintf(tmp_cache, sizeof(tmp_cache), "/tmp/test_mapped.XXXXXX");
	if (!mkdtemp(tmp_cache)) {
		printf("1..0 # SKIP no temporary directory\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		if (access(models[i].path, R_OK))
			continue;
		tried++;
		test_model(models[i].path, models[i].precision);
	}
	drop_model_entries();
	{
		DIR *d = opendir(tmp_cache);
		struct dirent *e;
		char path[600];

		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", tmp_cache,
				 e->d_name);
			unlink(path);
		}
		if (d)
			closedir(d);
		rmdir(tmp_cache);
	}
	if (!tried) {
		printf("1..0 # SKIP no test model exported (needs torch)\n");
		return 0;
	}
	ok(kept_total > 0, "%d weights went through the passes mapped",
	   kept_total);
	printf("1..%d\n", test_no);
	return failures != 0;
}
