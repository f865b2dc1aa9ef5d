// SPDX-License-Identifier: MIT
/*
 * npu-run - load a compiled model, run it, check and time it.
 * Documentation/npu-run.rst. Uses only the public API (npurt.h).
 *
 * Exit status: 0 success, 1 a comparison failed, 2 usage or input error
 * (including a model the device refuses), 3 a runtime or device error.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "generate.h"
#include "images.h"
#include "npurt.h"
#include "npy.h"
#include "npu_timing.h"
#include "om.h"

#define MAX_IO		256
#define EXIT_COMPARE	1
#define EXIT_USAGE	2
#define EXIT_RUNTIME	3
#define EXIT_SIGINT	130	/* 128 + SIGINT, as a shell reports it */

#ifndef NPU_VERSION
#define NPU_VERSION	"unknown"
#endif

struct opts {
	const char *model;
	const char *inputs[MAX_IO];	/* NAME=FILE */
	int num_inputs;
	const char *input_dir;
	const char *output_dir;
	const char *compare_dir;
	double rtol, atol;
	long loop, warmup;
	bool loop_given;
	double duration;		/* seconds of timed runs, 0: none */
	const char *json;
	FILE *json_f;			/* opened before the run */
	FILE *summary;			/* stdout, or stderr with --json - */
	const char *profile;
	FILE *profile_f;		/* opened before the run */
	const char *device;
	const char *variant;
	unsigned int seed;
	/* MODEL.onnx: compiled online (npurt_model_load_onnx) */
	const char *input_shape, *dynamic_dims, *mem_strategy, *max_shapes;
	unsigned long shape_cache;
	int no_cache;
	int pad_to_gear;
	const char *plugins[MAX_IO];	/* --plugin */
	int num_plugins;
	struct diag_opts diag;		/* diag.c */
	struct images_opts images;	/* images.c: --images DIR */
	struct generate_opts gen;	/* generate.c: --generate N */
};

struct io_buf {
	npurt_tensor_desc d;
	void *host;
	npurt_mem *mem;
};

struct host_span {
	const char *name;
	uint64_t start, end;
	long iter;
};

static struct {
	struct host_span *v;
	size_t n, cap;
} spans;

static struct {
	npurt_task_record *v;
	long *iter;
	size_t n, cap;
} trace;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void span(const char *name, uint64_t start, uint64_t end, long iter)
{
	if (spans.n == spans.cap) {
		size_t n = spans.cap ? spans.cap * 2 : 256;
		struct host_span *p = realloc(spans.v, n * sizeof(*p));

		if (!p)
			return;
		spans.v = p;
		spans.cap = n;
	}
	spans.v[spans.n++] = (struct host_span){ name, start, end, iter };
}

/* JSON string escape into one of a few rotating buffers (one thread). */
static const char *jesc(const char *s)
{
	static char bufs[8][1024];
	static unsigned int next;
	char *b = bufs[next++ % 8];
	size_t n = 0;

	for (; *s && n + 7 < sizeof(bufs[0]); s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			b[n++] = '\\';
			b[n++] = (char)c;
		} else if (c < 0x20) {
			n += (size_t)snprintf(b + n, 7, "\\u%04x", c);
		} else {
			b[n++] = (char)c;
		}
	}
	b[n] = 0;
	return b;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: npu-run MODEL.om|MODEL.onnx [options]\n"
"  -i, --input NAME=FILE   input from a .npy file (or raw bytes otherwise)\n"
"      --input-dir DIR     inputs from DIR/NAME.npy or DIR/input_K.npy\n"
"                          (each input not given by -i must be there)\n"
"                          without -i or --input-dir, inputs are random\n"
"                          (see --seed)\n"
"  -o, --output-dir DIR    write outputs as DIR/NAME.npy and output_K.npy\n"
"      --compare DIR       compare outputs with DIR/output_K.npy or NAME.npy\n"
"      --rtol R --atol A   tolerances: |out - ref| <= atol + rtol * |ref|\n"
"                          (defaults 1e-4 and 1e-5)\n"
"      --loop N            timed iterations (default 1; with --duration,\n"
"                          at most N)\n"
"      --duration SECONDS  timed iterations for SECONDS\n"
"      --warmup N          untimed iterations first (default 0)\n"
"      --variant NAME|K    shape variant (default: from the input shapes)\n"
"      --json FILE         write the summary as JSON (\"-\": to stdout, the\n"
"                          text summary then goes to stderr)\n"
"      --profile FILE      write a Chrome trace (Perfetto) of device tasks\n"
"                          per stream and the host API\n"
"      --device SPEC       \"sim\", a device node, or auto (default)\n"
"      --seed N            seed of random inputs (default 1)\n"
"  images (Documentation/media.rst; a model compiled with an RGB888 AIPP\n"
"  config, input 0 u8 [1, H, W, 3]):\n"
"      --images DIR        decode each JPEG/PNG of DIR, resize it to the\n"
"                          input on the media unit, run, print the top-k\n"
"                          of output 0 (a bad file is reported, skipped)\n"
"      --labels FILE       class names, one per line\n"
"      --top-k N           classes printed per image (default 5)\n"
"      --resize bilinear|nearest  resize mode (default bilinear)\n"
"      --max-pixels N      decode pixel limit (default 64 Mpixels)\n"
"      --plugin PATH       load an operator plugin for the model's host\n"
"                          tasks (repeatable; also $NPUC_PLUGIN_PATH)\n"
"an ONNX model is compiled online (libnpuc), its .om kept in the compile\n"
"cache; any input shape runs (shapes compiled on demand, LRU-cached):\n"
"      --input-shape S     shapes compiled at load (\"name:1,128\")\n"
"      --dynamic-dims G    gears compiled at load (\"1,16;1,32\")\n"
"      --shape-cache N     shapes kept compiled (default 100)\n"
"      --pad-to-gear       run a shape no gear has in the smallest gear\n"
"                          that covers it (inputs zero-padded, outputs\n"
"                          cropped; also for a .om): no compile\n"
"      --mem-strategy dynamic|preallocated  (preallocated needs\n"
"      --max-shapes S      the largest shape, \"name:1,512\")\n"
"      --no-cache          do not use the on-disk compile cache\n"
"  generation (a decoder exported with its KV cache as past*/present* I/O;\n"
"  Documentation/npu-run.rst):\n"
"      --generate N        greedy-decode N tokens after the prompt, the\n"
"                          cache kept on the device; prints the tokens and\n"
"                          tokens/s (--warmup/--loop: whole generations)\n"
"      --prompt IDS        the prompt's token ids (\"1,7,3\"; default \"0\")\n"
"      --eos ID            stop after this token\n"
"  diagnosis (Documentation/diagnosis.rst):\n"
"      --dump DIR          the first run's ONNX tensors as DIR/*.npy (ONNX\n"
"                          layout) and DIR/index.json\n"
"      --dump-filter SPEC  node=GLOB, op=TYPE, tensor=GLOB or task=A-B\n"
"                          (repeatable; any match is dumped)\n"
"      --check-overflow    name the first tensor with inf or NaN (exit 1)\n"
"      --profile-summary[=N]  device time per op type and node, top N\n"
"      --profile-summary-json FILE  the same as JSON\n"
"      --bisect REF.onnx   find the first ONNX tensor that diverges from\n"
"                          the reference interpreter on REF.onnx (npu-\n"
"                          compare), by bisection; exit 1 when one does\n"
"      --cos-min C, --ratio-max R  divergence thresholds of --bisect\n"
"                          (0.9999, 0.001: as npu-compare)\n"
"      --version           print the version and exit\n"
"A progress line is shown on a terminal (stderr); Ctrl-C stops the runs\n"
"and prints the statistics so far.\n"
"exit: 0 ok, 1 comparison failed, 2 usage/input error, 3 runtime error,\n"
"130 interrupted (statistics printed)\n");
}

/* Long options without a short letter (0x101: --plugin). */
enum { OPT_COS_MIN = 0x110, OPT_RATIO_MAX, OPT_PAD_TO_GEAR, OPT_GENERATE,
       OPT_PROMPT, OPT_EOS };

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "input-dir", required_argument, NULL, 'I' },
		{ "output-dir", required_argument, NULL, 'o' },
		{ "compare", required_argument, NULL, 'c' },
		{ "rtol", required_argument, NULL, 'r' },
		{ "atol", required_argument, NULL, 'a' },
		{ "loop", required_argument, NULL, 'l' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "json", required_argument, NULL, 'j' },
		{ "profile", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "variant", required_argument, NULL, 'v' },
		{ "seed", required_argument, NULL, 's' },
		{ "input-shape", required_argument, NULL, 'S' },
		{ "dynamic-dims", required_argument, NULL, 'Y' },
		{ "shape-cache", required_argument, NULL, 'C' },
		{ "mem-strategy", required_argument, NULL, 'M' },
		{ "max-shapes", required_argument, NULL, 'X' },
		{ "no-cache", no_argument, NULL, 'N' },
		{ "pad-to-gear", no_argument, NULL, OPT_PAD_TO_GEAR },
		{ "plugin", required_argument, NULL, 0x101 },
		{ "duration", required_argument, NULL, 'T' },
		{ "version", no_argument, NULL, 'V' },
		{ "dump", required_argument, NULL, 'D' },
		{ "dump-filter", required_argument, NULL, 'F' },
		{ "check-overflow", no_argument, NULL, 'O' },
		{ "profile-summary", optional_argument, NULL, 'P' },
		{ "profile-summary-json", required_argument, NULL, 'Q' },
		{ "images", required_argument, NULL, 'G' },
		{ "labels", required_argument, NULL, 'L' },
		{ "top-k", required_argument, NULL, 'K' },
		{ "resize", required_argument, NULL, 'R' },
		{ "max-pixels", required_argument, NULL, 'x' },
		{ "bisect", required_argument, NULL, 'B' },
		{ "cos-min", required_argument, NULL, OPT_COS_MIN },
		{ "ratio-max", required_argument, NULL, OPT_RATIO_MAX },
		{ "generate", required_argument, NULL, OPT_GENERATE },
		{ "prompt", required_argument, NULL, OPT_PROMPT },
		{ "eos", required_argument, NULL, OPT_EOS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->rtol = 1e-4;
	o->diag.cos_min = 0.9999;
	o->diag.ratio_max = 0.001;
	o->atol = 1e-5;
	o->loop = 1;
	o->seed = 1;
	o->gen.eos = -1;
	while ((c = getopt_long(argc, argv, "i:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (o->num_inputs == MAX_IO || !strchr(optarg, '=')) {
				fprintf(stderr, "npu-run: -i wants NAME=FILE, "
					"got \"%s\"\n", optarg);
				return -1;
			}
			o->inputs[o->num_inputs++] = optarg;
			break;
		case 'I': o->input_dir = optarg; break;
		case 'G': o->images.dir = optarg; break;
		case OPT_GENERATE:
			o->gen.new_tokens = strtol(optarg, &end, 10);
			if (*end || !*optarg || o->gen.new_tokens < 1) {
				fprintf(stderr, "npu-run: --generate %s: a "
					"positive number of tokens\n", optarg);
				return -1;
			}
			break;
		case OPT_PROMPT: o->gen.prompt = optarg; break;
		case OPT_EOS:
			errno = 0;
			o->gen.eos = strtoll(optarg, &end, 10);
			if (errno || *end || !*optarg || o->gen.eos < 0) {
				fprintf(stderr, "npu-run: --eos %s: a token "
					"id >= 0\n", optarg);
				return -1;
			}
			break;
		case 'L': o->images.labels = optarg; break;
		case 'K':
			o->images.top_k = (int)strtol(optarg, &end, 10);
			if (*end || o->images.top_k < 1 ||
			    o->images.top_k > 64) {
				fprintf(stderr, "npu-run: --top-k %s: use 1..64\n",
					optarg);
				return -1;
			}
			break;
		case 'R':
			if (strcmp(optarg, "bilinear") &&
			    strcmp(optarg, "nearest")) {
				fprintf(stderr, "npu-run: --resize %s: use "
					"bilinear or nearest\n", optarg);
				return -1;
			}
			o->images.nearest = !strcmp(optarg, "nearest");
			break;
		case 'x':
			o->images.max_pixels = strtoull(optarg, &end, 10);
			if (*end || !o->images.max_pixels) {
				fprintf(stderr, "npu-run: --max-pixels %s: a "
					"positive count\n", optarg);
				return -1;
			}
			break;
		case 'D': o->diag.dump_dir = optarg; break;
		case 'F':
			if (o->diag.num_filters == DIAG_MAX_FILTERS ||
			    diag_check_filter(optarg))
				return -1;
			o->diag.filters[o->diag.num_filters++] = optarg;
			break;
		case 'O': o->diag.check_overflow = 1; break;
		case 'B': o->diag.bisect_ref = optarg; break;
		case OPT_COS_MIN:
		case OPT_RATIO_MAX: {
			double v = strtod(optarg, &end);

			if (!*optarg || *end || !(v >= 0.0 && v <= 1.0)) {
				fprintf(stderr, "npu-run: --%s wants a number "
					"in [0, 1], not \"%s\"\n",
					c == OPT_COS_MIN ? "cos-min" :
							   "ratio-max",
					optarg);
				return -1;
			}
			if (c == OPT_COS_MIN)
				o->diag.cos_min = v;
			else
				o->diag.ratio_max = v;
			break;
		}
		case 'P':
			o->diag.profile_top = optarg ? strtol(optarg, &end, 10)
						     : 10;
			if (o->diag.profile_top < 1 || (optarg && *end)) {
				fprintf(stderr, "npu-run: --profile-summary=N "
					"wants N >= 1\n");
				return -1;
			}
			break;
		case 'Q':
			o->diag.profile_json = optarg;
			if (!o->diag.profile_top)
				o->diag.profile_top = 10;
			break;
		case 'o': o->output_dir = optarg; break;
		case 'c': o->compare_dir = optarg; break;
		case 'j': o->json = optarg; break;
		case 'p': o->profile = optarg; break;
		case 'd': o->device = optarg; break;
		case 'v': o->variant = optarg; break;
		case 'S': o->input_shape = optarg; break;
		case 'Y': o->dynamic_dims = optarg; break;
		case 'X': o->max_shapes = optarg; break;
		case 'N': o->no_cache = 1; break;
		case OPT_PAD_TO_GEAR: o->pad_to_gear = 1; break;
		case 0x101:
			if (o->num_plugins == MAX_IO) {
				fprintf(stderr, "npu-run: too many plugins\n");
				return -1;
			}
			o->plugins[o->num_plugins++] = optarg;
			break;
		case 'M':
			if (strcmp(optarg, "dynamic") &&
			    strcmp(optarg, "preallocated")) {
				fprintf(stderr, "npu-run: --mem-strategy is "
					"dynamic or preallocated, not \"%s\"\n",
					optarg);
				return -1;
			}
			o->mem_strategy = optarg;
			break;
		case 'C':
			o->shape_cache = strtoul(optarg, &end, 10);
			if (*end || !*optarg || !o->shape_cache ||
			    o->shape_cache > UINT32_MAX) {
				fprintf(stderr, "npu-run: bad --shape-cache "
					"\"%s\"\n", optarg);
				return -1;
			}
			break;
		case 'T':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || *end || !*optarg || !(o->duration > 0) ||
			    o->duration > 1e7) {
				fprintf(stderr, "npu-run: --duration wants a "
					"number of seconds > 0, got \"%s\"\n",
					optarg);
				return -1;
			}
			break;
		case 'V':
			printf("npu-run %s (runtime library %u.%u.%u)\n",
			       NPU_VERSION, npurt_version() >> 16,
			       (npurt_version() >> 8) & 0xff,
			       npurt_version() & 0xff);
			exit(0);
		case 'r':
		case 'a':
			errno = 0;
			*(c == 'r' ? &o->rtol : &o->atol) = strtod(optarg, &end);
			if (errno || *end || *optarg == 0) {
				fprintf(stderr, "npu-run: bad tolerance \"%s\"\n",
					optarg);
				return -1;
			}
			break;
		case 'l':
		case 'w':
		case 's': {
			long v = strtol(optarg, &end, 10);

			if (*end || !*optarg || v < 0 || (c == 'l' && v < 1)) {
				fprintf(stderr, "npu-run: bad count \"%s\"\n",
					optarg);
				return -1;
			}
			if (c == 'l') {
				o->loop = v;
				o->loop_given = true;
			}
			else if (c == 'w')
				o->warmup = v;
			else
				o->seed = (unsigned int)v;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return -1;
	}
	o->model = argv[optind];
	return 0;
}

/* mkdir -p @path; 0 or -errno with @bad the component that failed. */
static int mkdirs(const char *path, char *bad, size_t len)
{
	char buf[4096];
	struct stat st;
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; ; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST) {
			snprintf(bad, len, "%s", buf);
			return -errno;
		}
		if (stat(buf, &st) || !S_ISDIR(st.st_mode)) {
			snprintf(bad, len, "%s", buf);
			return -ENOTDIR;
		}
		*p = c;
		if (!c)
			return 0;
	}
}

/*
 * What can be checked before the model runs: the input directory exists
 * and holds files, the output directory can be created and written, the
 * JSON file can be opened. A mistake found after a long run loses it.
 */
static int check_paths(struct opts *o)
{
	char bad[4096];
	struct stat st;
	int ret;

	o->summary = stdout;
	if (o->input_dir) {
		DIR *d = opendir(o->input_dir);

		/* an empty one is refused when the model has inputs (and
		 * none of them is there): input_missing() */
		if (!d) {
			fprintf(stderr, "npu-run: --input-dir %s: %s\n",
				o->input_dir, strerror(errno));
			return -1;
		}
		closedir(d);
	}
	if (o->output_dir) {
		ret = mkdirs(o->output_dir, bad, sizeof(bad));
		if (ret) {
			fprintf(stderr, "npu-run: -o %s: cannot create it: %s: %s\n",
				o->output_dir, bad, strerror(-ret));
			return -1;
		}
		if (access(o->output_dir, W_OK | X_OK)) {
			fprintf(stderr, "npu-run: -o %s: cannot write there: "
				"%s\n", o->output_dir, strerror(errno));
			return -1;
		}
	}
	if (o->json && !strcmp(o->json, "-")) {
		o->json_f = stdout;
		o->summary = stderr;
	} else if (o->json) {
		if (!stat(o->json, &st) && S_ISDIR(st.st_mode)) {
			fprintf(stderr, "npu-run: --json %s: is a directory\n",
				o->json);
			return -1;
		}
		o->json_f = fopen(o->json, "w");
		if (!o->json_f) {
			fprintf(stderr, "npu-run: --json %s: cannot write: %s\n",
				o->json, strerror(errno));
			return -1;
		}
	}
	if (o->profile) {
		o->profile_f = fopen(o->profile, "w");
		if (!o->profile_f) {
			fprintf(stderr, "npu-run: --profile %s: cannot write: "
				"%s\n", o->profile, strerror(errno));
			return -1;
		}
	}
	return 0;
}


static void shape_str(uint32_t rank, const uint64_t *dims, char *buf,
		      size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "[");

	for (uint32_t k = 0; k < rank && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s%llu",
					 k ? "," : "",
					 (unsigned long long)dims[k]);
	if (used < len)
		snprintf(buf + used, len - used, "]");
}

static int rt_error(const char *what)
{
	const npurt_error *e = npurt_last_error();

	fprintf(stderr, "npu-run: %s: %s: %s\n", what,
		npurt_status_str(e->code), e->reason);
	if (e->action[0])
		fprintf(stderr, "npu-run: hint: %s\n", e->action);
	return e->code == NPURT_ERR_BAD_MODEL ||
	       e->code == NPURT_ERR_INCOMPATIBLE ||
	       e->code == NPURT_ERR_NOT_FOUND || e->code == NPURT_ERR_SHAPE ||
	       e->code == NPURT_ERR_IO ? EXIT_USAGE : EXIT_RUNTIME;
}

/* The file for input @i (NULL: random), from -i or --input-dir. */

/*
 * The file name of a tensor's .npy: ONNX names such as torch's
 * "/layer1/conv/Conv_output_0" contain '/', so every character outside
 * [A-Za-z0-9._-] becomes '_' (and a leading '.' too, so no name is hidden
 * or means a directory).
 */
static const char *npy_stem(const char *name, char *buf, size_t len)
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
static const char *input_file(const struct opts *o, uint32_t i,
			      const char *name, char *buf, size_t len)
{
	struct stat st;
	size_t nl = strlen(name);

	for (int k = 0; k < o->num_inputs; k++)
		if (!strncmp(o->inputs[k], name, nl) && o->inputs[k][nl] == '=')
			return o->inputs[k] + nl + 1;
	if (!o->input_dir)
		return NULL;
	{
		char stem[256];

		snprintf(buf, len, "%s/%s.npy", o->input_dir,
			 npy_stem(name, stem, sizeof(stem)));
	}
	if (!stat(buf, &st))
		return buf;
	snprintf(buf, len, "%s/input_%u.npy", o->input_dir, i);
	if (!stat(buf, &st))
		return buf;
	return NULL;
}

/* Input @name is not in --input-dir: say where it was looked for. */
static void input_missing(const struct opts *o, uint32_t i, const char *name)
{
	char stem[256];
	DIR *d = opendir(o->input_dir);
	struct dirent *e;
	int shown = 0;

	fprintf(stderr, "npu-run: input \"%s\": neither %s/%s.npy nor "
		"%s/input_%u.npy exists", name, o->input_dir,
		npy_stem(name, stem, sizeof(stem)), o->input_dir, i);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (shown == 8) {
			fprintf(stderr, " ...");
			break;
		}
		fprintf(stderr, "%s%s", shown++ ? ", " : "; the directory has ",
			e->d_name);
	}
	if (d)
		closedir(d);
	if (!shown)
		fprintf(stderr, "; the directory is empty: put the inputs "
			"there as NAME.npy or input_K.npy (or drop --input-dir "
			"to run on random inputs)");
	fprintf(stderr, "\n");
}

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

static void fill_random(void *p, const npurt_tensor_desc *d, unsigned int *s)
{
	size_t n = d->size / om_dtype_size(d->dtype);

	for (size_t i = 0; i < n; i++) {
		*s = *s * 1664525u + 1013904223u;
		switch (d->dtype) {
		case NPURT_DTYPE_F32:
			((float *)p)[i] = (float)((*s >> 8) & 0xffff) /
					  32768.0f - 1.0f;
			break;
		case NPURT_DTYPE_I32:
			((int32_t *)p)[i] = (int32_t)((*s >> 16) % 16);
			break;
		case NPURT_DTYPE_I64:
			((int64_t *)p)[i] = (int64_t)((*s >> 16) % 16);
			break;
		case NPURT_DTYPE_BOOL:
			((uint8_t *)p)[i] = (uint8_t)((*s >> 16) & 1);
			break;
		case NPURT_DTYPE_F16:	/* [-1, 1): sign, exp 14, mantissa */
			((uint16_t *)p)[i] = (uint16_t)(((*s >> 31) << 15) |
					     (14u << 10) | ((*s >> 8) & 0x3ff));
			break;
		default:
			((uint8_t *)p)[i] = (uint8_t)(*s >> 24);
		}
	}
}

/*
 * Loads the given .npy inputs first (their shapes pick the variant when
 * none was named), then checks each against the selected variant.
 */
static int prepare_inputs(const struct opts *o, npurt_model *m,
			  uint32_t nin, struct io_buf *in)
{
	struct npy_array arr[MAX_IO];
	const uint64_t *shapes[MAX_IO];
	const char *files[MAX_IO];
	char paths[MAX_IO][512], err[256];
	npurt_tensor_desc g;
	int all_npy = nin > 0, ret = 0;
	unsigned int seed = o->seed;

	memset(arr, 0, sizeof(arr));
	for (int k = 0; k < o->num_inputs; k++) {
		char name[256];
		uint32_t idx;

		snprintf(name, sizeof(name), "%.*s",
			 (int)(strchr(o->inputs[k], '=') - o->inputs[k]),
			 o->inputs[k]);
		if (npurt_model_find_input(m, name, &idx)) {
			fprintf(stderr, "npu-run: -i %s: the model has no input "
				"named \"%s\"; its inputs are:", o->inputs[k],
				name);
			for (uint32_t i = 0; i < nin; i++) {
				npurt_model_get_input(m, i, 1, &g);
				fprintf(stderr, " \"%s\"", g.name);
			}
			fprintf(stderr, "\n");
			return EXIT_USAGE;
		}
	}
	for (uint32_t i = 0; i < nin; i++) {
		npurt_model_get_input(m, i, 1, &g);
		files[i] = input_file(o, i, g.name, paths[i], sizeof(paths[i]));
		if (!files[i] && o->input_dir) {
			input_missing(o, i, g.name);
			ret = EXIT_USAGE;
			goto out;
		}
		if (files[i] && has_suffix(files[i], ".npy")) {
			if (npy_read(files[i], &arr[i], err)) {
				fprintf(stderr, "npu-run: input \"%s\": %s\n",
					g.name, err);
				ret = EXIT_USAGE;
				goto out;
			}
			shapes[i] = arr[i].dims;
		} else {
			all_npy = 0;
		}
	}
	if (o->variant) {
		char *end;
		long k = strtol(o->variant, &end, 10);
		npurt_model_info info;
		const char *vn;
		uint32_t v;

		npurt_model_get_info(m, &info);
		for (v = 0; v < info.num_variants; v++)
			if (!npurt_model_variant_name(m, v, &vn) &&
			    !strcmp(vn, o->variant))
				break;
		if (v == info.num_variants && !*end && k >= 0)
			v = (uint32_t)k;
		if (npurt_model_select_variant(m, v)) {
			ret = rt_error("--variant");
			goto out;
		}
	} else if (all_npy && npurt_model_select_shapes(m, shapes)) {
		ret = rt_error("selecting the variant of the input shapes");
		for (uint32_t i = 0; i < nin; i++) {
			char want[96], got[96];

			npurt_model_get_input(m, i, 0, &g);
			shape_str(g.rank, g.dims, want, sizeof(want));
			shape_str(arr[i].rank, arr[i].dims, got, sizeof(got));
			fprintf(stderr, "npu-run: input \"%s\" (%s): file has "
				"%s %s; the model expects %s %s\n", g.name,
				files[i], om_dtype_name(arr[i].dtype), got,
				om_dtype_name(g.dtype), want);
		}
		goto out;
	}
	for (uint32_t i = 0; i < nin; i++) {
		char want[96], got[96];

		npurt_model_get_input(m, i, 0, &in[i].d);
		shape_str(in[i].d.rank, in[i].d.dims, want, sizeof(want));
		in[i].host = calloc(1, in[i].d.size ? in[i].d.size : 1);
		if (!in[i].host) {
			ret = EXIT_RUNTIME;
			goto out;
		}
		if (!files[i]) {
			fill_random(in[i].host, &in[i].d, &seed);
			continue;
		}
		if (arr[i].data) {
			shape_str(arr[i].rank, arr[i].dims, got, sizeof(got));
			if (arr[i].dtype == DRM_NPU_DTYPE_U16 &&
			    in[i].d.dtype == NPURT_DTYPE_BF16)
				arr[i].dtype = DRM_NPU_DTYPE_BF16;	/* bits */
			if (arr[i].dtype != (uint32_t)in[i].d.dtype ||
			    arr[i].rank != in[i].d.rank ||
			    memcmp(arr[i].dims, in[i].d.dims,
				   in[i].d.rank * sizeof(uint64_t))) {
				fprintf(stderr, "npu-run: input \"%s\" (%s): "
					"file has %s %s; the model expects "
					"%s %s\n", in[i].d.name, files[i],
					om_dtype_name(arr[i].dtype), got,
					om_dtype_name(in[i].d.dtype), want);
				ret = EXIT_USAGE;
				goto out;
			}
			memcpy(in[i].host, arr[i].data, in[i].d.size);
		} else {
			FILE *f = fopen(files[i], "rb");
			size_t n = f ? fread(in[i].host, 1, in[i].d.size, f) : 0;
			int extra = f ? fgetc(f) != EOF : 0;

			if (f)
				fclose(f);
			if (!f || n != in[i].d.size || extra) {
				fprintf(stderr, "npu-run: input \"%s\": raw file "
					"%s %s; expected exactly %zu bytes "
					"(%s %s)\n", in[i].d.name, files[i],
					f ? "has another size" :
					    "cannot be read",
					in[i].d.size,
					om_dtype_name(in[i].d.dtype), want);
				ret = EXIT_USAGE;
				goto out;
			}
		}
	}
out:
	for (uint32_t i = 0; i < nin; i++)
		npy_free(&arr[i]);
	return ret;
}

static double to_double(const void *p, uint32_t dtype, size_t i)
{
	switch (dtype) {
	case NPURT_DTYPE_F32: return ((const float *)p)[i];
	case NPURT_DTYPE_I8: return ((const int8_t *)p)[i];
	case NPURT_DTYPE_U8: return ((const uint8_t *)p)[i];
	case NPURT_DTYPE_BOOL: return ((const uint8_t *)p)[i];
	case NPURT_DTYPE_I32: return ((const int32_t *)p)[i];
	case NPURT_DTYPE_I64: return (double)((const int64_t *)p)[i];
	case NPURT_DTYPE_F64: return ((const double *)p)[i];
	case NPURT_DTYPE_I16: return ((const int16_t *)p)[i];
	case NPURT_DTYPE_U16: return ((const uint16_t *)p)[i];
	case NPURT_DTYPE_U32: return ((const uint32_t *)p)[i];
	case NPURT_DTYPE_U64: return (double)((const uint64_t *)p)[i];
	case NPURT_DTYPE_BF16: {
		uint32_t b = (uint32_t)((const uint16_t *)p)[i] << 16;
		float f;

		memcpy(&f, &b, sizeof(f));
		return f;
	}
	case NPURT_DTYPE_F16: {
		uint16_t h = ((const uint16_t *)p)[i];
		int e = (h >> 10) & 0x1f;
		double m = h & 0x3ff, v;

		if (e == 0)
			v = ldexp(m, -24);
		else if (e == 31)
			v = m ? NAN : INFINITY;
		else
			v = ldexp(m + 1024, e - 25);
		return h & 0x8000 ? -v : v;
	}
	default: return 0;
	}
}

struct cmp_result {
	double max_abs, max_rel;
	size_t bad, n;
	int ok;
};

static int compare_output(const struct opts *o, uint32_t k,
			  const struct io_buf *out, struct cmp_result *r)
{
	char path[512], err[256], want[96], got[96], stem[256];
	struct npy_array ref;
	struct stat st;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/output_%u.npy", o->compare_dir, k);
	if (stat(path, &st))
		snprintf(path, sizeof(path), "%s/%s.npy", o->compare_dir,
			 npy_stem(out->d.name, stem, sizeof(stem)));
	if (npy_read(path, &ref, err)) {
		fprintf(stderr, "npu-run: output \"%s\": no reference: %s\n",
			out->d.name, err);
		return EXIT_USAGE;
	}
	shape_str(out->d.rank, out->d.dims, want, sizeof(want));
	shape_str(ref.rank, ref.dims, got, sizeof(got));
	if (ref.rank != out->d.rank ||
	    memcmp(ref.dims, out->d.dims, ref.rank * sizeof(uint64_t))) {
		fprintf(stderr, "npu-run: output \"%s\": reference %s has shape "
			"%s; the model produces %s %s\n", out->d.name, path, got,
			om_dtype_name(out->d.dtype), want);
		npy_free(&ref);
		return EXIT_USAGE;
	}
	if (ref.dtype == DRM_NPU_DTYPE_U16 && out->d.dtype == NPURT_DTYPE_BF16)
		ref.dtype = DRM_NPU_DTYPE_BF16;	/* bfloat16 bits */
	/* The elements the dims name (fewer than the buffer holds when the
	 * data decides an extent). */
	r->n = 1;
	for (uint32_t d = 0; d < out->d.rank; d++)
		r->n *= out->d.dims[d];
	for (size_t i = 0; i < r->n; i++) {
		double a = to_double(out->host, out->d.dtype, i);
		double b = to_double(ref.data, ref.dtype, i);
		double d = a == b ? 0 : fabs(a - b);	/* inf == inf */

		if (d > r->max_abs || d != d)
			r->max_abs = d;
		if (b != 0 && d / fabs(b) > r->max_rel)
			r->max_rel = d / fabs(b);
		if (!(d <= o->atol + o->rtol * fabs(b)) &&
		    !(isnan(a) && isnan(b)))
			r->bad++;
	}
	r->ok = r->bad == 0;
	npy_free(&ref);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)ceil(p / 100.0 * (double)n);
	return (double)v[i ? i - 1 : 0] / 1e6;
}

/*
 * The modeled view (timing-model.rst): the variant that ran, on the
 * device's timing model ($NPU_TIMING overrides its parameters), beside
 * the wall times of --json and --profile. A .om only: an ONNX model
 * compiled online has no file to read the tasks from. @om is the model
 * file, also read by the profile summary.
 */
struct modeled {
	struct om_model *om;
	struct npu_timing_report r;
	uint32_t variant;
	int ok;
};

/*
 * The model file's tasks, read once for the modeled view and the profile
 * summary's FLOPs (NULL for an ONNX model or a file that cannot be read).
 */
static struct om_model *run_om(struct modeled *md, const char *path)
{
	char err[OM_ERR_MAX];

	if (!md->om && !has_suffix(path, ".onnx") &&
	    om_open_file(path, &md->om, err))
		md->om = NULL;
	return md->om;
}

static void modeled_run(const char *path, uint32_t variant,
			struct modeled *md)
{
	struct npu_timing_params p;
	const char *spec = getenv("NPU_TIMING");
	char err[OM_ERR_MAX];

	npu_timing_params_default(&p);
	if (spec && npu_timing_params_parse(&p, spec, err, sizeof(err))) {
		fprintf(stderr, "npu-run: NPU_TIMING: %s; the modeled view is "
			"left out\n", err);
		return;
	}
	if (!run_om(md, path))
		return;
	if (npu_timing_model(md->om, variant, &p, &md->r, err, sizeof(err))) {
		fprintf(stderr, "npu-run: timing model: %s; the modeled view "
			"is left out\n", err);
		return;
	}
	md->variant = variant;
	md->ok = 1;
}

static void modeled_free(struct modeled *md)
{
	if (md->ok)
		npu_timing_report_free(&md->r);
	om_close(md->om);
	md->ok = 0;
	md->om = NULL;
}

static void write_trace(FILE *f, const char *model, uint64_t origin,
			const struct modeled *md)
{
	int first = 1;

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\","
		"\"args\":{\"name\":\"NPU: %s\"}},\n", jesc(model));
	fprintf(f, "{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\","
		"\"args\":{\"name\":\"host API\"}},\n");
	fprintf(f, "{\"ph\":\"M\",\"pid\":2,\"tid\":0,\"name\":\"thread_name\","
		"\"args\":{\"name\":\"npu-run\"}}");
	for (size_t i = 0; i < trace.n; i++) {
		const npurt_task_record *r = &trace.v[i];
		int named = 0;

		for (size_t j = 0; j < i && !named; j++)
			named = trace.v[j].model_stream == r->model_stream;
		if (!named && r->hw_queue == UINT32_MAX)
			/* host tasks (plugins' host kernels) */
			fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
				"\"name\":\"thread_name\",\"args\":{\"name\":"
				"\"host engine\"}}", r->model_stream);
		else if (!named)
			fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
				"\"name\":\"thread_name\",\"args\":{\"name\":"
				"\"stream %u (hw queue %u)\"}}",
				r->model_stream, r->model_stream, r->hw_queue);
	}
	for (size_t i = 0; i < trace.n; i++) {
		const npurt_task_record *r = &trace.v[i];

		fprintf(f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"name\":"
			"\"%s\",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"task\":%u,"
			"\"node\":\"%s\",\"core\":%u,\"status\":%u,"
			"\"iteration\":%ld}}", r->model_stream, jesc(r->op),
			(double)(r->start_ns - origin) / 1e3,
			(double)(r->end_ns - r->start_ns) / 1e3, r->task,
			jesc(r->node), r->core, r->status, trace.iter[i]);
	}
	for (size_t i = 0; i < spans.n; i++)
		fprintf(f, ",\n{\"ph\":\"X\",\"pid\":2,\"tid\":0,\"name\":"
			"\"%s\",\"ts\":%.3f,\"dur\":%.3f,\"args\":"
			"{\"iteration\":%ld}}", spans.v[i].name,
			(double)(spans.v[i].start - origin) / 1e3,
			(double)(spans.v[i].end - spans.v[i].start) / 1e3,
			spans.v[i].iter);
	first = 0;
	if (md->ok)	/* processes 100 + core: the modeled schedule */
		npu_timing_trace_events(f, md->om, md->variant, &md->r, 100,
					&first);
	fprintf(f, "\n]}\n");
	fclose(f);
}

static void collect_profile(npurt_model *m, long iter)
{
	npurt_task_record tmp[4096];
	uint32_t n = 0;

	if (npurt_model_get_profile(m, tmp, 4096, &n))
		return;
	if (n > 4096)
		n = 4096;
	if (trace.n + n > trace.cap) {
		size_t cap = (trace.cap + n) * 2;
		npurt_task_record *v = realloc(trace.v, cap * sizeof(*v));
		long *it = v ? realloc(trace.iter, cap * sizeof(*it)) : NULL;

		if (v)
			trace.v = v;
		if (!it)
			return;
		trace.iter = it;
		trace.cap = cap;
	}
	memcpy(trace.v + trace.n, tmp, n * sizeof(*tmp));
	for (uint32_t i = 0; i < n; i++)
		trace.iter[trace.n + i] = iter;
	trace.n += n;
}

/* Ctrl-C: the runs stop after the current one and the summary is printed;
 * a second Ctrl-C ends the program at once (SA_RESETHAND). */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void catch_sigint(bool on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_sigint : SIG_DFL;
	sa.sa_flags = SA_RESTART | (on ? SA_RESETHAND : 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

/* The progress line: on a terminal only, from one second on, twice a
 * second, on stderr (stdout stays the summary). */
static struct {
	bool on, shown;
	uint64_t start, last;
} prog;

static void progress(const struct opts *o, long done, long steady,
		     uint64_t busy, uint64_t t_timed, uint64_t now)
{
	char left[64] = "";
	double mean, elapsed;

	if (!prog.on || now - prog.start < 1000000000ull ||
	    (prog.shown && now - prog.last < 500000000ull))
		return;
	prog.last = now;
	prog.shown = true;
	if (done <= o->warmup || !steady) {
		fprintf(stderr, "\rnpu-run: warmup %ld/%ld\033[K", done,
			o->warmup);
		return;
	}
	mean = (double)busy / 1e6 / (double)steady;
	elapsed = (double)(now - t_timed) / 1e9;
	if (o->duration > 0 && (!o->loop_given ||
				o->duration < (double)o->loop * mean / 1e3))
		snprintf(left, sizeof(left), ", %.1f of %g s", elapsed,
			 o->duration);
	else
		snprintf(left, sizeof(left), "/%ld, ~%.0f s left", o->loop,
			 (double)(o->loop - steady) * elapsed /
			 (double)steady);
	fprintf(stderr, "\rnpu-run: run %ld%s, mean %.3f ms, %.1f/s\033[K",
		steady, left, mean, 1e3 / mean);
	fflush(stderr);
}

static void progress_clear(void)
{
	if (prog.shown)
		fprintf(stderr, "\r\033[K");
	prog.shown = false;
}

int main(int argc, char **argv)
{
	struct io_buf in[MAX_IO], out[MAX_IO];
	struct cmp_result cmp[MAX_IO];
	npurt_io bin[MAX_IO], bout[MAX_IO];
	npurt_model_info info;
	npurt_model_placement pl;
	npurt_mem_stats ms;
	npurt_device_info di;
	npurt_device *dev = NULL;
	npurt_context *ctx = NULL;
	npurt_model *m = NULL;
	struct opts o;
	uint64_t *lat = NULL, h2d = 0, d2h = 0, first = 0, t_load, origin;
	struct modeled md = { 0 };
	uint64_t busy = 0, t_timed = 0;
	size_t lat_cap;
	double tput;
	long it = 0, steady = 0, warm;
	FILE *so;
	int ret = 0, compare_failed = 0, diag_status = 0;
	const char *vname = "";

	if (parse(argc, argv, &o) || check_paths(&o))
		return EXIT_USAGE;
	memset(in, 0, sizeof(in));
	memset(out, 0, sizeof(out));
	origin = now_ns();
	if (npurt_init(0) || npurt_device_open_spec(o.device, &dev) ||
	    npurt_context_create(dev, 0, &ctx)) {
		ret = rt_error("opening the device");
		goto done;
	}
	npurt_device_get_info(dev, &di);
	for (int i = 0; i < o.num_plugins; i++) {
		/* the runtime's host tasks, and libnpuc's compiles online */
		const char *old = getenv("NPUC_PLUGIN_PATH");
		char path[8192];

		if (npurt_plugin_load(o.plugins[i])) {
			ret = rt_error("loading a plugin");
			goto done;
		}
		snprintf(path, sizeof(path), "%s%s%s", old ? old : "",
			 old && *old ? ":" : "", o.plugins[i]);
		setenv("NPUC_PLUGIN_PATH", path, 1);
	}
	{
		uint64_t t0 = now_ns();

		if (has_suffix(o.model, ".onnx")) {
			npurt_onnx_options oo;

			npurt_onnx_options_init(&oo);
			oo.input_shapes = o.input_shape;
			oo.dynamic_dims = o.dynamic_dims;
			oo.shape_cache_size = (uint32_t)o.shape_cache;
			oo.mem_strategy = o.mem_strategy &&
					  !strcmp(o.mem_strategy,
						  "preallocated") ?
					  NPURT_MEM_PREALLOCATED :
					  NPURT_MEM_DYNAMIC;
			oo.max_shapes = o.max_shapes;
			oo.use_compile_cache = !o.no_cache;
			if (npurt_model_load_onnx(ctx, o.model, &oo, &m)) {
				ret = rt_error("compiling the ONNX model");
				goto done;
			}
		} else if (npurt_model_load_file(ctx, o.model, &m)) {
			ret = rt_error("loading the model");
			goto done;
		}
		t_load = now_ns() - t0;
		span("load", t0, t0 + t_load, -1);
	}
	if (o.pad_to_gear && npurt_model_set_pad_to_gear(m, 1)) {
		ret = rt_error("--pad-to-gear");
		goto done;
	}
	if (o.gen.new_tokens) {
		ret = run_generate(ctx, m, &o.gen, o.warmup, o.loop,
				   o.summary ? o.summary : stdout, o.json_f,
				   o.profile_f);
		/* the summary and the trace stay only when it ran */
		if (!ret && o.json_f) {
			if (o.json_f == stdout ? fflush(o.json_f) :
			    fclose(o.json_f))
				ret = EXIT_USAGE;
			o.json_f = NULL;
		}
		if (!ret && o.profile_f) {
			if (fclose(o.profile_f))
				ret = EXIT_USAGE;
			o.profile_f = NULL;
		}
		goto done;
	}
	if (o.images.dir) {
		ret = run_images(ctx, m, &o.images, o.summary ? o.summary :
				 stdout, o.json_f);
		/* the summary stays, also when some files were refused */
		if (o.json_f && ret != EXIT_RUNTIME) {
			if (o.json_f == stdout ? fflush(o.json_f) :
			    fclose(o.json_f))
				ret = EXIT_USAGE;
			o.json_f = NULL;
		}
		goto done;
	}
	npurt_model_get_info(m, &info);
	npurt_model_get_placement(m, &pl);
	if (pl.num_queues < pl.num_streams)
		fprintf(stderr, "npu-run: warning: the model's %u streams run on %u device queue%s, serialised (%s)\n",
			pl.num_streams, pl.num_queues,
			pl.num_queues == 1 ? "" : "s", pl.reason);
	if (info.num_inputs > MAX_IO || info.num_outputs > MAX_IO) {
		fprintf(stderr, "npu-run: more than %d inputs or outputs\n",
			MAX_IO);
		ret = EXIT_USAGE;
		goto done;
	}
	ret = prepare_inputs(&o, m, info.num_inputs, in);
	if (ret)
		goto done;
	npurt_model_get_info(m, &info);
	npurt_model_variant_name(m, info.current_variant, &vname);
	for (uint32_t i = 0; i < info.num_inputs; i++) {
		if (npurt_mem_alloc(ctx, in[i].d.size ? in[i].d.size : 1,
				    &in[i].mem)) {
			ret = rt_error("allocating input memory");
			goto done;
		}
		bin[i] = (npurt_io){ in[i].mem, NULL, 0, in[i].d.size };
	}
	for (uint32_t j = 0; j < info.num_outputs; j++) {
		npurt_model_get_output(m, j, 0, &out[j].d);
		out[j].host = calloc(1, out[j].d.size ? out[j].d.size : 1);
		if (!out[j].host || npurt_mem_alloc(ctx, out[j].d.size ?
						    out[j].d.size : 1,
						    &out[j].mem)) {
			ret = rt_error("allocating output memory");
			goto done;
		}
		bout[j] = (npurt_io){ out[j].mem, NULL, 0, out[j].d.size };
	}
	if (o.diag.bisect_ref) {
		const void *hin[MAX_IO];

		for (uint32_t i = 0; i < info.num_inputs; i++) {
			hin[i] = in[i].host;
			if (npurt_memcpy_h2d(in[i].mem, 0, in[i].host,
					     in[i].d.size)) {
				ret = rt_error("copying an input");
				goto done;
			}
		}
		ret = diag_bisect(m, &o.diag, bin, bout, hin, stdout);
		goto done;
	}
	if ((o.profile || o.diag.profile_top) &&
	    npurt_model_set_profiling(m, 1)) {
		ret = rt_error("enabling profiling");
		goto done;
	}

	lat_cap = o.duration > 0 && !o.loop_given ? 1024 : (size_t)o.loop;
	lat = malloc(lat_cap * sizeof(*lat));
	if (!lat) {
		fprintf(stderr, "npu-run: out of memory for %zu latencies\n",
			lat_cap);
		ret = EXIT_RUNTIME;
		goto done;
	}
	catch_sigint(true);
	prog.on = isatty(STDERR_FILENO);
	prog.start = prog.last = now_ns();
	for (it = 0; !interrupted; it++) {
		uint64_t t0 = now_ns(), t1, t2, t3;

		if (it == o.warmup)
			t_timed = t0;
		if (it >= o.warmup && (o.duration <= 0 || o.loop_given) &&
		    steady >= o.loop)
			break;
		if (it > o.warmup && o.duration > 0 &&
		    (double)(t0 - t_timed) >= o.duration * 1e9)
			break;
		if (steady == (long)lat_cap) {
			uint64_t *p = realloc(lat, 2 * lat_cap * sizeof(*lat));

			if (!p) {
				fprintf(stderr, "npu-run: out of memory for "
					"%zu latencies\n", 2 * lat_cap);
				ret = EXIT_RUNTIME;
				goto done;
			}
			lat = p;
			lat_cap *= 2;
		}

		for (uint32_t i = 0; i < info.num_inputs; i++)
			if (npurt_memcpy_h2d(in[i].mem, 0, in[i].host,
					     in[i].d.size)) {
				ret = rt_error("copying an input");
				goto done;
			}
		if (it == 0 && diag_dumping(&o.diag)) {
			ret = diag_dump_begin(m, &o.diag, o.model);
			if (ret)
				goto done;
		}
		t1 = now_ns();
		if (npurt_model_execute(m, bin, info.num_inputs, bout,
					info.num_outputs)) {
			ret = rt_error("executing the model");
			goto done;
		}
		t2 = now_ns();
		if (it == 0 && diag_dumping(&o.diag)) {
			diag_status = diag_dump_end(m, &o.diag);
			if (diag_status == EXIT_USAGE) {
				ret = diag_status;
				goto done;
			}
		}
		for (uint32_t j = 0; j < info.num_outputs; j++)
			if (npurt_memcpy_d2h(out[j].host, out[j].mem, 0,
					     out[j].d.size)) {
				ret = rt_error("copying an output");
				goto done;
			}
		t3 = now_ns();
		/* An output the data sizes: dims[] say how much it holds. */
		for (uint32_t j = 0; j < info.num_outputs; j++)
			npurt_model_get_output(m, j, 0, &out[j].d);
		span("h2d", t0, t1, it);
		span("execute", t1, t2, it);
		span("d2h", t2, t3, it);
		if (o.profile || o.diag.profile_top)
			collect_profile(m, it);
		if (it == 0)
			first = t3 - t0;
		if (it >= o.warmup) {
			lat[steady++] = t3 - t0;
			busy += t3 - t0;
			h2d += t1 - t0;
			d2h += t3 - t2;
		}
		progress(&o, it + 1, steady, busy, t_timed, t3);
	}
	catch_sigint(false);
	progress_clear();
	tput = busy ? (double)steady * 1e9 / (double)busy : 0.0;
	if (interrupted)
		fprintf(stderr, "npu-run: interrupted after %ld timed run%s "
			"(%ld warmup): the statistics so far\n", steady,
			steady == 1 ? "" : "s",
			it < o.warmup ? it : o.warmup);

	if (o.output_dir && it > 0) {
		char path[512], err[256], stem[256];

		for (uint32_t j = 0; j < info.num_outputs; j++) {
			int r1, r2;

			snprintf(path, sizeof(path), "%s/%s.npy", o.output_dir,
				 npy_stem(out[j].d.name, stem, sizeof(stem)));
			r1 = npy_write(path, out[j].d.dtype, out[j].d.rank,
				       out[j].d.dims, out[j].host, err);
			snprintf(path, sizeof(path), "%s/output_%u.npy",
				 o.output_dir, j);
			r2 = r1 ? r1 : npy_write(path, out[j].d.dtype,
						 out[j].d.rank, out[j].d.dims,
						 out[j].host, err);
			if (r1 || r2) {
				fprintf(stderr, "npu-run: %s\n", err);
				ret = EXIT_USAGE;
				goto done;
			}
		}
	}
	if (o.compare_dir && it > 0) {
		for (uint32_t j = 0; j < info.num_outputs; j++) {
			ret = compare_output(&o, j, &out[j], &cmp[j]);
			if (ret)
				goto done;
			compare_failed |= !cmp[j].ok;
		}
	}
	npurt_mem_get_stats(ctx, &ms);
	qsort(lat, (size_t)steady, sizeof(*lat), cmp_u64);

	so = o.summary;
	warm = it < o.warmup ? it : o.warmup;
	fprintf(so, "model        %s (%s), variant %s, %u stream(s)\n",
		o.model, info.name, vname, info.num_streams);
	fprintf(so, "device       %s (0x%x, %u cores)\n", di.name, di.model,
		di.num_cores);
	fprintf(so, "queues       %u for %u stream(s), %u semaphores%s%s\n",
		pl.num_queues, pl.num_streams, pl.num_semaphores,
		pl.num_queues < pl.num_streams ? ", serialised: " : "",
		pl.num_queues < pl.num_streams ? pl.reason : "");
	fprintf(so, "load         %.3f ms\n", (double)t_load / 1e6);
	{
		npurt_cache_stats cs;

		if (!npurt_model_get_shape_cache_stats(m, &cs))
			fprintf(so, "shape cache  %llu hits, %llu misses, "
				"%llu evictions, %u of %u entries (%.3f ms "
				"compiling)\n", (unsigned long long)cs.hits,
				(unsigned long long)cs.misses,
				(unsigned long long)cs.evictions, cs.entries,
				cs.capacity, cs.compile_ns / 1e6);
	}
	fprintf(so, "first        %.3f ms\n", (double)first / 1e6);
	fprintf(so, "latency      p50 %.3f  p90 %.3f  p99 %.3f ms (%ld runs, "
		"%ld warmup%s)\n", pct(lat, (size_t)steady, 50),
		pct(lat, (size_t)steady, 90), pct(lat, (size_t)steady, 99),
		steady, warm, interrupted ? ", interrupted" : "");
	fprintf(so, "throughput   %.1f inferences/s\n", tput);
	fprintf(so, "h2d / d2h    %.1f / %.1f us per run\n",
		steady ? (double)h2d / 1e3 / (double)steady : 0.0,
		steady ? (double)d2h / 1e3 / (double)steady : 0.0);
	fprintf(so, "memory       model %.1f KiB, device peak %.1f KiB, "
		"cached %.1f KiB\n", (double)ms.model_bytes / 1024,
		(double)ms.device_peak_used / 1024,
		(double)ms.reserved_bytes_current / 1024);
	for (uint32_t j = 0; o.compare_dir && it > 0 &&
			     j < info.num_outputs; j++)
		fprintf(so, "compare      %s: %s (max abs %.3g, max rel %.3g, "
			"%zu of %zu outside tolerance)\n", out[j].d.name,
			cmp[j].ok ? "OK" : "FAILED", cmp[j].max_abs,
			cmp[j].max_rel, cmp[j].bad, cmp[j].n);

	if (o.json_f || o.profile_f)
		modeled_run(o.model, info.current_variant, &md);
	if (md.ok)
		fprintf(so, "modeled      %.3f us on the device's timing model "
			"(cube %.1f%% busy, vector %.1f%%, %.1f%% of the VRAM "
			"bandwidth)\n", npu_timing_us(&md.r.params,
						       md.r.latency_cycles),
			100 * npu_timing_unit_busy(&md.r, NPU_UNIT_CUBE),
			100 * npu_timing_unit_busy(&md.r, NPU_UNIT_VECTOR),
			100 * npu_timing_bandwidth_util(&md.r));

	if (o.json_f) {
		FILE *f = o.json_f;

		fprintf(f, "{\n  \"model\": \"%s\",\n  \"name\": \"%s\",\n"
			"  \"variant\": \"%s\",\n  \"streams\": %u,\n"
			"  \"queues\": %u,\n  \"semaphores\": %u,\n"
			"  \"device\": \"%s\",\n  \"load_ms\": %.6f,\n"
			"  \"first_ms\": %.6f,\n  \"runs\": %ld,\n"
			"  \"warmup\": %ld,\n  \"p50_ms\": %.6f,\n"
			"  \"p90_ms\": %.6f,\n  \"p99_ms\": %.6f,\n"
			"  \"throughput_per_s\": %.3f,\n  \"h2d_ms\": %.6f,\n"
			"  \"d2h_ms\": %.6f,\n  \"model_bytes\": %llu,\n"
			"  \"device_peak_bytes\": %llu,\n"
			"  \"reserved_bytes\": %llu,\n"
			"  \"interrupted\": %s,\n",
			jesc(o.model), jesc(info.name), jesc(vname),
			info.num_streams, pl.num_queues, pl.num_semaphores,
			jesc(di.name),
			(double)t_load / 1e6, (double)first / 1e6, steady,
			warm, pct(lat, (size_t)steady, 50),
			pct(lat, (size_t)steady, 90),
			pct(lat, (size_t)steady, 99),
			tput,
			steady ? (double)h2d / 1e6 / (double)steady : 0.0,
			steady ? (double)d2h / 1e6 / (double)steady : 0.0,
			(unsigned long long)ms.model_bytes,
			(unsigned long long)ms.device_peak_used,
			(unsigned long long)ms.reserved_bytes_current,
			interrupted ? "true" : "false");
		fprintf(f, "  \"modeled\": ");
		if (md.ok)
			npu_timing_report_json(&md.r, f);
		else
			fprintf(f, "null");
		fprintf(f, ",\n");
		fprintf(f, "  \"min_ms\": %.6f,\n  \"latencies_ms\": [",
			steady ? (double)lat[0] / 1e6 : 0.0);
		for (long j = 0; j < steady; j++)
			fprintf(f, "%s%.6f", j ? ", " : "",
				(double)lat[j] / 1e6);
		fprintf(f, "],\n  \"compare\": ");
		if (!o.compare_dir || it == 0) {
			fprintf(f, "null\n}\n");
		} else {
			fprintf(f, "{\"ok\": %s, \"outputs\": [",
				compare_failed ? "false" : "true");
			for (uint32_t j = 0; j < info.num_outputs; j++)
				fprintf(f, "%s{\"name\": \"%s\", \"ok\": %s, "
					"\"max_abs\": %.9g, \"max_rel\": %.9g, "
					"\"mismatches\": %zu}", j ? ", " : "",
					jesc(out[j].d.name),
					cmp[j].ok ? "true" : "false",
					cmp[j].max_abs, cmp[j].max_rel,
					cmp[j].bad);
			fprintf(f, "]}\n}\n");
		}
		o.json_f = NULL;
		if (f == stdout ? fflush(f) : fclose(f)) {
			fprintf(stderr, "npu-run: --json %s: write error: %s\n",
				o.json, strerror(errno));
			ret = EXIT_USAGE;
			goto done;
		}
	}
	if (o.profile_f) {
		write_trace(o.profile_f, info.name, origin, &md);
		o.profile_f = NULL;
	}
	if (o.diag.profile_top)	/* the task descriptors give the FLOPs */
		diag_profile_summary(trace.v, trace.iter, trace.n, o.warmup,
				     &o.diag, run_om(&md, o.model),
				     info.current_variant, o.summary);
	ret = interrupted ? EXIT_SIGINT :
	      compare_failed || diag_status ? EXIT_COMPARE : 0;
done:
	modeled_free(&md);
	free(lat);
	/* a failed run leaves no empty or partial summary behind */
	if (o.json_f && o.json_f != stdout) {
		fclose(o.json_f);
		unlink(o.json);
	}
	if (o.profile_f) {
		fclose(o.profile_f);
		unlink(o.profile);
	}
	for (uint32_t i = 0; i < MAX_IO; i++) {
		free(in[i].host);
		free(out[i].host);
		npurt_mem_free(in[i].mem);
		npurt_mem_free(out[i].mem);
	}
	npurt_model_unload(m);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	free(spans.v);
	free(trace.v);
	free(trace.iter);
	return ret;
}
