// SPDX-License-Identifier: MIT
/*
 * npu_fuzz_replay.c - replay fuzz inputs through the real ioctls, no
 * libFuzzer: the corpus check of `make check` where clang is missing, and
 * the corpus run against the kernel module in the VM.
 *
 *   npu_fuzz_replay [-v] [--device SPEC] [--job-ms MS] [--max-need BYTES] [--max-elems N] PATH...
 *   npu_fuzz_replay --write-seeds DIR
 *   npu_fuzz_replay --decode PATH...
 *
 * Every PATH is a fuzz input or a directory of them. Each input is decoded
 * (npu_fuzz.h), registered and, if accepted, run once; one TAP line per
 * input, "not ok" for a finding (-v: the decoded program of every input). On the in-process device the guard-page
 * mode is switched on (NPU_SIM_GUARD=1) unless the environment says
 * otherwise. --decode only prints each input's decoded program (one line:
 * opcode, then slot:dtype[shape/stride,...] per operand). --write-seeds
 * writes the seed corpus: per opcode, inputs that
 * the validator accepts and that run, and inputs that it refuses.
 */
#include "npu_fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_INPUT	(1u << 20)

static struct npu_fuzz_limits lim = {
	.max_need = 4u << 20, .job_ms = 30000, .unit_ms = 5000,
};
static uint32_t queue;
static unsigned int counts[NPU_FUZZ_RESULTS];
static int stop, verbose, decode_only;

static const char *const result_names[NPU_FUZZ_RESULTS] = {
	"refused", "too big to run", "ran", "faulted", "FINDING",
};

static int replay_file(const char *path)
{
	static uint8_t buf[FUZZ_MAX_INPUT];
	static struct npu_fuzz_prog p;
	char why[256], desc[2048];
	enum npu_fuzz_result r;
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		tap_ok(false, "%s: cannot open", path);
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	npu_fuzz_decode(buf, n, &p);
	npu_fuzz_describe(&p, desc, sizeof(desc));
	if (decode_only) {
		printf("%s: %s\n", path, desc);
		return 0;
	}
	r = npu_fuzz_exec(T.d, queue, &p, &lim, why, sizeof(why));
	counts[r]++;
	tap_ok(r != NPU_FUZZ_FINDING, "%s: %s", path, result_names[r]);
	if (verbose && r != NPU_FUZZ_FINDING)
		tap_diag("  program: %s", desc);
	if (r == NPU_FUZZ_FINDING) {
		tap_diag("  %s", why);
		tap_diag("  program: %s", desc);
		/* a job that does not end blocks the queue for what follows */
		if (strstr(why, "still running"))
			stop = 1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_path(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;

	if (!dir) {
		replay_file(path);
		return;
	}
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn;

			cap = cap ? cap * 2 : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				break;
			names = nn;
		}
		names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		if (!names[n])
			break;
		sprintf(names[n], "%s/%s", path, e->d_name);
		n++;
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (!stop)
			replay_file(names[i]);
		free(names[i]);
	}
	free(names);
}

static uint32_t seed_rng = 0x2545f491u;

static uint8_t seed_byte(uint32_t below)
{
	seed_rng ^= seed_rng << 13;
	seed_rng ^= seed_rng >> 17;
	seed_rng ^= seed_rng << 5;
	return (uint8_t)(seed_rng % below);
}

/* Per opcode: up to 3 inputs that run, 2 that the validator refuses. */
static int write_seeds(const char *dir)
{
	static const char *const names[DRM_NPU_OP_COUNT] = {
		"nop", "copy", "binary", "unary", "matmul", "conv2d", "pool2d",
		"softmax", "reduce", "layernorm", "batchnorm", "gather",
		"where", "pad", "resize", "transdata", "quantize",
		"dequantize", "attention", "sem_signal", "sem_wait",
		[DRM_NPU_OP_QCONV2D] = "qconv2d",
		[DRM_NPU_OP_QMATMUL] = "qmatmul",
		[DRM_NPU_OP_QADD] = "qadd",
		[DRM_NPU_OP_RNN] = "rnn",
		[DRM_NPU_OP_TOPK] = "topk",
		[DRM_NPU_OP_SCATTER] = "scatter",
		[DRM_NPU_OP_MATH] = "math",
		[DRM_NPU_OP_IMG_CSC] = "img_csc",
		[DRM_NPU_OP_IMG_RESIZE] = "img_resize",
		[DRM_NPU_OP_AIPP] = "aipp",
		[DRM_NPU_OP_MATMUL_WQ] = "matmul_wq",
		[DRM_NPU_OP_GRID_SAMPLE] = "grid_sample",
		[DRM_NPU_OP_ROI_ALIGN] = "roi_align",
		[DRM_NPU_OP_RANDOM] = "random",
	};
	struct npu_fuzz_prog p;
	uint8_t in[64];
	char path[4096], why[256];
	uint32_t k, op, tries, i, total = 0;

	for (k = 0; k <= DRM_NPU_OP_ATTENTION + npu_fuzz_num_extra_ops; k++) {
		/*
		 * The opcode bytes: itself, NPU_FUZZ_EXTRA_BYTE + index, or
		 * the escape and the index past the direct ones (npu_fuzz.h).
		 */
		uint32_t x = k - DRM_NPU_OP_ATTENTION - 1;
		uint32_t direct = NPU_FUZZ_EXTRA_ESC - NPU_FUZZ_EXTRA_BYTE;
		uint8_t byte = (uint8_t)(k <= DRM_NPU_OP_ATTENTION ? k :
				x < direct ? NPU_FUZZ_EXTRA_BYTE + x :
				NPU_FUZZ_EXTRA_ESC);
		uint32_t first = byte == NPU_FUZZ_EXTRA_ESC ? 3 : 2;
		uint32_t ran = 0, refused = 0;

		op = k <= DRM_NPU_OP_ATTENTION ? k :
		     npu_fuzz_extra_ops[k - DRM_NPU_OP_ATTENTION - 1];
		/* SEM_* decode as ATTENTION: no seeds of their own */
		if (op == DRM_NPU_OP_SEM_SIGNAL || op == DRM_NPU_OP_SEM_WAIT ||
		    !names[op])
			continue;
		for (tries = 0; tries < 4000 && (ran < 3 || refused < 2);
		     tries++) {
			/* small choices only (< 150), or anything (refused) */
			int wild = tries % 4 == 3;
			enum npu_fuzz_result r;
			FILE *f;

			in[0] = 0;	/* one task */
			in[1] = byte;
			in[2] = (uint8_t)(x - direct);	/* after the escape */
			for (i = first; i < sizeof(in); i++)
				in[i] = seed_byte(wild ? 256 : 150);
			npu_fuzz_decode(in, sizeof(in), &p);
			if (wild) {
				/* only what the validator refuses: nothing runs */
				struct drm_npu_program_create c = {
					.tasks_ptr = (uintptr_t)p.tasks,
					.num_tasks = p.num_tasks,
					.task_size = sizeof(p.tasks[0]),
				};
				int err = t_ioctl(T.d, DRM_IOCTL_NPU_PROGRAM_CREATE,
						  &c);

				if (!err)
					t_prog_destroy(T.d, c.handle);
				if (err != -EINVAL || refused >= 2)
					continue;
				r = NPU_FUZZ_REFUSED;
				snprintf(path, sizeof(path), "%s/seed-%s-refused-%u",
					 dir, names[op], refused++);
			} else {
				if (ran >= 3)
					continue;
				r = npu_fuzz_exec(T.d, queue, &p, &lim, why,
						  sizeof(why));
				if (r != NPU_FUZZ_RAN)
					continue;
				snprintf(path, sizeof(path), "%s/seed-%s-%u",
					 dir, names[op], ran++);
			}
			f = fopen(path, "wb");
			if (!f || fwrite(in, 1, sizeof(in), f) != sizeof(in)) {
				fprintf(stderr, "npu_fuzz_replay: cannot write %s\n",
					path);
				if (f)
					fclose(f);
				return 1;
			}
			fclose(f);
			total++;
			(void)r;
		}
		fprintf(stderr, "%s: %u that run, %u refused\n", names[op], ran,
			refused);
	}
	fprintf(stderr, "npu_fuzz_replay: %u seeds in %s\n", total, dir);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: npu_fuzz_replay [-v] [--device SPEC] [--job-ms MS] [--max-need BYTES] [--max-elems N] PATH...\n"
		"       npu_fuzz_replay [--device SPEC] --write-seeds DIR\n"
		"       npu_fuzz_replay --decode PATH...\n");
}

int main(int argc, char **argv)
{
	const char *seeds = NULL;
	int i, first = argc, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			T.spec = argv[++i];
		} else if (!strcmp(argv[i], "--job-ms") && i + 1 < argc) {
			lim.job_ms = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--max-elems") && i + 1 < argc) {
			lim.max_elems = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--max-need") && i + 1 < argc) {
			lim.max_need = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--write-seeds") && i + 1 < argc) {
			seeds = argv[++i];
		} else if (!strcmp(argv[i], "--decode")) {
			decode_only = 1;
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			verbose = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			usage(stderr);
			return 2;
		} else {
			first = i;
			break;
		}
	}
	if (!seeds && first == argc) {
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (decode_only) {	/* what the inputs are, without a device */
		for (i = first; i < argc; i++)
			replay_path(argv[i]);
		return 0;
	}
	setenv("NPU_SIM_GUARD", "1", 0);
	err = npu_dev_open(T.spec, &T.d);
	if (err) {
		printf("1..0 # SKIP cannot open NPU device '%s': %s\n",
		       T.spec ? T.spec : "auto", strerror(-err));
		return 0;
	}
	queue = t_queue(T.d, 0);
	if (!queue) {
		printf("Bail out! QUEUE_CREATE failed\n");
		return 1;
	}
	/*
	 * A generous watchdog (a unit may cost 2^27 element operations, slow
	 * under sanitizers or in a VM): a unit that never ends still trips it.
	 */
	t_control("watchdog_ms", 10000);
	/* huge valid jobs end as BUDGET fault records, before --job-ms */
	if (t_control("job_budget_ms", 5000) == 0)
		lim.budget_ms = 5000;
	if (seeds)
		return write_seeds(seeds);
	tap_diag("device: %s (%s)", npu_dev_name(T.d),
		 npu_dev_is_kernel(T.d) ? "kernel node" : "in-process");
	for (i = first; i < argc && !stop; i++)
		replay_path(argv[i]);
	if (stop)
		tap_diag("stopped: a job that does not end holds the queue");
	tap_diag("%u refused, %u too big to run, %u ran, %u faulted, %u findings",
		 counts[NPU_FUZZ_REFUSED], counts[NPU_FUZZ_TOO_BIG],
		 counts[NPU_FUZZ_RAN], counts[NPU_FUZZ_FAULTED],
		 counts[NPU_FUZZ_FINDING]);
	fprintf(stderr, "npu_fuzz_replay on %s: %d inputs, %d findings\n",
		npu_dev_name(T.d), tap_count(), tap_failures());
	if (!stop) {	/* else both would wait for the job that does not end */
		t_queue_destroy(T.d, queue);
		npu_dev_close(T.d);
	}
	printf("1..%d\n", tap_count());
	return tap_failures() ? 1 : 0;
}
