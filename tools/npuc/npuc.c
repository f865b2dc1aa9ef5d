// SPDX-License-Identifier: MIT
/*
 * npuc - the ATC-like model compiler: ONNX in, .om out.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdbool.h>

#include "keep_list.h"
#include "npuc.h"
#include "om_format.h"

#ifndef NPU_VERSION
#define NPU_VERSION	"unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuc MODEL.onnx -o MODEL.om [OPTIONS]\n"
		"  -o FILE               the .om file to write\n"
		"  --input-shape \"name:1,3,224,224;name2:batch,128\"\n"
		"                        fix input dims (a word names a symbolic dim)\n"
		"  --dynamic-batch=1,2,4,8   one gear per batch size (dim 0 of input 0\n"
		"                        must be symbolic, e.g. --input-shape x:batch,3,224,224)\n"
		"  --dynamic-dims=\"v,v;v,v\" one gear per ';' group, values for the inputs'\n"
		"                        symbolic dims in order of appearance\n"
		"  --input-format NCHW|NHWC|ND   layout of the inputs (recorded)\n"
		"  --insert-op-conf FILE an AIPP config (ATC keys): the input it\n"
		"                        names becomes a u8 image, preprocessed on the\n"
		"                        device by an inserted AIPP task\n"
		"  -O0..-O3              optimisation level (default -O2)\n"
		"  --disable-pass=NAME,...   skip passes\n"
		"  --dump-ir-after=PASS  dump the IR after a pass (\"all\" for every one)\n"
		"  --cache / --no-cache  use the compile cache (default: on)\n"
		"  --cache-dir DIR       cache directory (default $NPU_CACHE_DIR,\n"
		"                        $XDG_CACHE_HOME/npu, ~/.cache/npu)\n"
		"  --max-streams N       streams to use (default 4 at -O2, 1 below;\n"
		"                        the target's queues and semaphores bound them)\n"
		"  --target NAME         compile for a target profile: %s\n"
		"  --target-device SPEC  compile for the device SPEC (\"sim\", a node, or\n"
		"                        \"auto\"), as its DEVICE_INFO reports it\n"
		"  --plan-budget-ms N    memory planner time budget\n"
		"  --plugin PATH         load an operator plugin (repeatable; also every\n"
		"                        *.so of the directories in $NPUC_PLUGIN_PATH)\n"
		"  --no-host-engine      refuse nodes that only a host kernel runs\n"
		"                        (default: place them on the host engine)\n"
		"  --precision MODE      must_keep_origin_dtype (default),\n"
		"                        allow_mix_precision or force_fp16\n"
		"  --keep-dtype LIST     op types or node names force_fp16 leaves\n"
		"                        in f32 (e.g. Softmax,LayerNormalization);\n"
		"                        @FILE reads them from a keep-list file\n"
		"                        (one a line, as npu-compare --bisect writes)\n"
		"  --report              print the compile report\n"
		"  --report-json FILE    write the report as JSON\n"
		"  --list-ops            the ONNX operators npuc imports\n"
		"  --list-passes         the passes (for --disable-pass, --dump-ir-after)\n"
		"  --version             print the version and exit\n"
		"ATC spellings are accepted too: --model=MODEL.onnx, --output=NAME\n"
		"(writes NAME.om), --framework=5 (ONNX, the only one), --input_shape,\n"
		"--input_format, --insert_op_conf, --dynamic_batch_size, --dynamic_dims, --soc_version=\n"
		"TARGET (a --target profile), --log=debug|info|warning|error|null\n"
		"(debug and info print the compile report to stderr).\n"
		"Exit status: 0 compiled, 1 compile error, 2 usage error.\n",
		npuc_targets());
}

/* Is @name one of the comma-separated target profiles? */
static bool known_target(const char *name)
{
	const char *p = npuc_targets();
	size_t n = strlen(name);

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t len;

		while (*p == ' ')
			p++;
		len = strcspn(p, " ,");	/* "sim910 (default)" */
		if (len == n && !strncmp(p, name, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static int write_file(const char *path, const void *data, size_t size)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "wb");
	if (!f)
		return -errno;
	if (fwrite(data, 1, size, f) != size || fclose(f)) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path)) {
		int e = -errno;

		unlink(tmp);
		return e;
	}
	return 0;
}

/* The entries of --keep-dtype @FILE, freed at exit. */
static char *keep_file;

static void free_keep_file(void)
{
	free(keep_file);
}

int main(int argc, char **argv)
{
	enum { O_SHAPE = 256, O_BATCH, O_DIMS, O_FORMAT, O_DISABLE, O_DUMP,
	       O_CACHE, O_NOCACHE, O_CACHEDIR, O_STREAMS, O_BUDGET, O_PRECISION,
	       O_KEEP, O_REPORT,
	       O_JSON, O_TARGET, O_TARGET_DEV, O_MODEL, O_ATC_OUTPUT,
	       O_FRAMEWORK, O_SOC, O_LOG, O_LIST_OPS, O_LIST_PASSES,
	       O_VERSION, O_AIPP, O_PLUGIN, O_NO_HOST };
	static const struct option longopts[] = {
		{ "input-shape", required_argument, NULL, O_SHAPE },
		{ "dynamic-batch", required_argument, NULL, O_BATCH },
		{ "dynamic-dims", required_argument, NULL, O_DIMS },
		{ "input-format", required_argument, NULL, O_FORMAT },
		/* the spellings of ATC, the Ascend compiler */
		{ "model", required_argument, NULL, O_MODEL },
		{ "output", required_argument, NULL, O_ATC_OUTPUT },
		{ "framework", required_argument, NULL, O_FRAMEWORK },
		{ "input_shape", required_argument, NULL, O_SHAPE },
		{ "input_format", required_argument, NULL, O_FORMAT },
		{ "insert-op-conf", required_argument, NULL, O_AIPP },
		{ "insert_op_conf", required_argument, NULL, O_AIPP },
		{ "dynamic_batch_size", required_argument, NULL, O_BATCH },
		{ "dynamic_dims", required_argument, NULL, O_DIMS },
		{ "soc_version", required_argument, NULL, O_SOC },
		{ "log", required_argument, NULL, O_LOG },
		{ "list-ops", no_argument, NULL, O_LIST_OPS },
		{ "list-passes", no_argument, NULL, O_LIST_PASSES },
		{ "version", no_argument, NULL, O_VERSION },
		{ "disable-pass", required_argument, NULL, O_DISABLE },
		{ "dump-ir-after", required_argument, NULL, O_DUMP },
		{ "cache", no_argument, NULL, O_CACHE },
		{ "no-cache", no_argument, NULL, O_NOCACHE },
		{ "cache-dir", required_argument, NULL, O_CACHEDIR },
		{ "max-streams", required_argument, NULL, O_STREAMS },
		{ "plan-budget-ms", required_argument, NULL, O_BUDGET },
		{ "precision", required_argument, NULL, O_PRECISION },
		{ "precision_mode", required_argument, NULL, O_PRECISION },
		{ "keep-dtype", required_argument, NULL, O_KEEP },
		{ "keep_dtype", required_argument, NULL, O_KEEP },
		{ "report", no_argument, NULL, O_REPORT },
		{ "report-json", required_argument, NULL, O_JSON },
		{ "target", required_argument, NULL, O_TARGET },
		{ "target-device", required_argument, NULL, O_TARGET_DEV },
		{ "plugin", required_argument, NULL, O_PLUGIN },
		{ "no-host-engine", no_argument, NULL, O_NO_HOST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct npuc_compile_options o;
	const char *out = NULL, *json = NULL, *target_dev = NULL;
	const char *model = NULL;
	static char plugins[8192];
	char atc_out[4096];
	bool report = false, log_report = false;
	npuc_result *res = NULL;
	char err[1024];
	const void *om;
	size_t size = 0;
	int c, ret;

	npuc_options_init(&o);

	atexit(free_keep_file);
	while ((c = getopt_long(argc, argv, "o:O:h", longopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'o': out = optarg; break;
		case O_ATC_OUTPUT:
			/* ATC names the file without its extension */
			if (strlen(optarg) > 3 &&
			    !strcmp(optarg + strlen(optarg) - 3, ".om")) {
				out = optarg;
				break;
			}
			if (snprintf(atc_out, sizeof(atc_out), "%s.om",
				     optarg) >= (int)sizeof(atc_out)) {
				fprintf(stderr, "npuc: --output: name too long\n");
				return 2;
			}
			out = atc_out;
			break;
		case O_MODEL: model = optarg; break;
		case O_FRAMEWORK:
			if (strcmp(optarg, "5")) {
				fprintf(stderr, "npuc: --framework=%s: npuc reads "
					"ONNX only (ATC's --framework=5); export "
					"the model to ONNX first (e.g. "
					"torch.onnx.export)\n", optarg);
				return 2;
			}
			break;
		case O_SOC:
			if (!known_target(optarg)) {
				fprintf(stderr, "npuc: --soc_version=%s: not a "
					"target of npuc (it compiles for the "
					"emulated NPU's profiles: %s; see "
					"--target, --target-device)\n", optarg,
					npuc_targets());
				return 2;
			}
			o.target = optarg;
			break;
		case O_LOG:
			if (strcmp(optarg, "debug") && strcmp(optarg, "info") &&
			    strcmp(optarg, "warning") &&
			    strcmp(optarg, "error") && strcmp(optarg, "null")) {
				fprintf(stderr, "npuc: --log=%s: use debug, info, "
					"warning, error or null\n", optarg);
				return 2;
			}
			log_report = !strcmp(optarg, "debug") ||
				     !strcmp(optarg, "info");
			break;
		case O_LIST_OPS: npuc_print_ops(stdout); return 0;
		case O_LIST_PASSES: npuc_print_passes(stdout); return 0;
		case O_VERSION:
			printf("npuc %s (compiler %s, .om format %u.%u)\n",
			       NPU_VERSION, npuc_version(), OM_FORMAT_MAJOR,
			       OM_FORMAT_MINOR);
			return 0;
		case 'O':
			if (strlen(optarg) != 1 || optarg[0] < '0' ||
			    optarg[0] > '3') {
				fprintf(stderr, "npuc: -O%s: use -O0, -O1, -O2 or -O3\n",
					optarg);
				return 2;
			}
			o.opt_level = optarg[0] - '0';
			break;
		case O_SHAPE: o.input_shapes = optarg; break;
		case O_BATCH: o.dynamic_batch = optarg; break;
		case O_DIMS: o.dynamic_dims = optarg; break;
		case O_FORMAT:
			if (strcmp(optarg, "NCHW") && strcmp(optarg, "NHWC") &&
			    strcmp(optarg, "ND")) {
				fprintf(stderr, "npuc: --input-format %s: use NCHW, NHWC or ND\n",
					optarg);
				return 2;
			}
			o.input_format = optarg;
			break;
		case O_DISABLE: o.disable_passes = optarg; break;
		case O_PRECISION: o.precision = optarg; break;
		case O_KEEP:
			if (optarg[0] == '@') {
				free(keep_file);
				keep_file = keep_list_read(optarg + 1, err,
							   sizeof(err));
				if (!keep_file) {
					fprintf(stderr, "npuc: %s\n", err);
					return 2;
				}
				o.keep_dtype = keep_file;
			} else {
				o.keep_dtype = optarg;
			}
			break;
		case O_DUMP: o.dump_ir_after = optarg; break;
		case O_CACHE: o.use_cache = 1; break;
		case O_NOCACHE: o.use_cache = 0; break;
		case O_CACHEDIR: o.cache_dir = optarg; break;
		case O_STREAMS:
		case O_BUDGET:
			v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > (c == O_STREAMS ? 64 : 600000)) {
				fprintf(stderr, "npuc: --%s %s: out of range\n",
					c == O_STREAMS ? "max-streams" :
					"plan-budget-ms", optarg);
				return 2;
			}
			if (c == O_STREAMS)
				o.max_streams = (uint32_t)v;
			else
				o.plan_budget_ms = (unsigned int)v;
			break;
		case O_REPORT: report = true; break;
		case O_JSON: json = optarg; break;
		case O_TARGET:
			if (!known_target(optarg)) {
				fprintf(stderr, "npuc: unknown target '%s' (known: %s)\n",
					optarg, npuc_targets());
				return 2;
			}
			o.target = optarg;
			break;
		case O_TARGET_DEV: target_dev = optarg; break;
		case O_AIPP: {
			FILE *f = fopen(optarg, "rb");
			char *text = malloc(1u << 20);
			size_t n = 0;

			if (!f || !text) {
				fprintf(stderr, "npuc: --insert-op-conf %s: %s\n",
					optarg, strerror(errno));
				return 2;
			}
			n = fread(text, 1, (1u << 20) - 1, f);
			if (!feof(f)) {
				fprintf(stderr, "npuc: --insert-op-conf %s: "
					"larger than 1 MiB\n", optarg);
				return 2;
			}
			fclose(f);
			text[n] = 0;
			o.insert_op_conf = text;
			break;
		}
		case O_PLUGIN: {
			size_t have = strlen(plugins);

			if (have + strlen(optarg) + 2 > sizeof(plugins)) {
				fprintf(stderr, "npuc: too many plugins\n");
				return 2;
			}
			if (have)
				plugins[have++] = ':';
			strcpy(plugins + have, optarg);
			o.plugins = plugins;
			break;
		}
		case O_NO_HOST: o.no_host_engine = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!model && optind < argc)
		model = argv[optind++];
	if (!model || optind != argc || !out) {
		fprintf(stderr, "npuc: %s\n", !model ? "no model given" :
			!out ? "no output given (-o MODEL.om)" :
			"one model at a time");
		usage(stderr);
		return 2;
	}
	if (o.dynamic_batch && o.dynamic_dims) {
		fprintf(stderr, "npuc: --dynamic-batch and --dynamic-dims exclude each other\n");
		return 2;
	}
	if (o.target && target_dev) {
		fprintf(stderr, "npuc: --target and --target-device exclude each other\n");
		return 2;
	}
	o.target_device = target_dev;
	o.dump_file = stderr;
	ret = npuc_compile(model, &o, &res, err, sizeof(err));
	if (ret == -ENODEV) {
		fprintf(stderr, "npuc: --%s\n", err);
		return 1;
	}
	if (ret) {
		fprintf(stderr, "npuc: %s: %s\n", model, err);
		return ret == -EINVAL && strstr(err, "--") ? 2 : 1;
	}
	om = npuc_result_model(res, &size);
	ret = write_file(out, om, size);
	if (ret) {
		npuc_result_free(res);
		fprintf(stderr, "npuc: cannot write %s: %s\n", out,
			strerror(-ret));
		return 1;
	}
	if (report)
		npuc_result_print(res, stdout);
	if (log_report)
		npuc_result_print(res, stderr);
	if (json) {
		FILE *f = fopen(json, "w");

		if (!f) {
			fprintf(stderr, "npuc: cannot write %s: %s\n", json,
				strerror(errno));
			npuc_result_free(res);
			return 1;
		}
		npuc_result_print_json(res, f);
		fclose(f);
	}
	npuc_result_free(res);
	return 0;
}
