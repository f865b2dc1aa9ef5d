// SPDX-License-Identifier: MIT
/*
 * keep_bisect.c - npu-compare --bisect (Documentation/diagnosis.rst): a
 * small set of ONNX nodes to keep in f32 so that an f16 compile's outputs
 * reach a target cosine against the reference, written as the keep-list
 * file that npuc --keep-dtype @FILE reads.
 *
 * A trial compiles the model with npuc (--precision MODE --keep-dtype
 * @list, no cache), runs it once with npu-run on the same inputs and
 * takes the lowest cosine over the outputs (a non-finite value where the
 * reference is finite counts as 0). With nothing kept failing and every
 * candidate kept passing, the search drops candidates from the full set
 * in halves: a range whose removal still passes goes at once, one that
 * does not is split, down to single nodes, so a keep-list of k nodes out
 * of n costs about 2 k log2(n / k) trials and the result is minimal
 * (removing any one node of it fails the target). Deterministic: the
 * device's kernels give the same bits on every run.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "keep_bisect.h"
#include "npy.h"
#include "ops/npu_math.h"

struct kb {
	const struct kb_opts *o;
	const struct kb_output *outs;
	int nout;
	char *const *cand;
	size_t n;
	bool *keep;
	char tools[PATH_MAX + 2];
	int trials;
	double best;			/* output cosine of the current set */
};

/* npuc and npu-run beside this program, else on the PATH ("" prefix). */
static void tool_dir(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	buf[0] = 0;
	if (n <= 0)
		return;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash) {
		char probe[PATH_MAX + 8];

		*slash = 0;
		snprintf(probe, sizeof(probe), "%s/npuc", self);
		if (!access(probe, X_OK))
			snprintf(buf, len, "%s/", self);
	}
}

/* @argv in a child, stdout and stderr to WORKDIR/trial.log: its status. */
static int spawn(const struct kb *b, char **argv)
{
	char log[PATH_MAX];
	pid_t pid;
	int st;

	snprintf(log, sizeof(log), "%s/trial.log", b->o->workdir);
	fflush(stdout);		/* else the child writes our buffer again */
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (!freopen(log, "w", stdout) || dup2(1, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "npu-compare: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -EIO;
}

/*
 * Runs @argv with its output in WORKDIR/trial.log; 0 if it exits 0, else
 * says which tool failed and where its messages are.
 */
static int run(const struct kb *b, char **argv)
{
	int ret = spawn(b, argv);

	if (ret)
		fprintf(stderr, "npu-compare: --bisect: %s failed (see %s/"
			"trial.log)\n", strrchr(argv[0], '/') ?
			strrchr(argv[0], '/') + 1 : argv[0], b->o->workdir);
	return ret;
}

static int write_list(const struct kb *b, const char *path, bool header)
{
	FILE *f = fopen(path, "w");
	size_t k = 0;

	if (!f)
		return -errno;
	for (size_t i = 0; i < b->n; i++)
		k += b->keep[i];
	if (header)
		fprintf(f, "# npu-compare --bisect %s: --precision %s, %zu of "
			"%zu nodes kept in f32, output cosine %.6f (target "
			"%g)\n# npuc %s --precision %s --keep-dtype @%s\n",
			b->o->model, b->o->precision, k, b->n, b->best,
			b->o->target_cos, b->o->model, b->o->precision, path);
	for (size_t i = 0; i < b->n; i++)
		if (b->keep[i])
			fprintf(f, "OpName:%s\n", b->cand[i]);
	return fclose(f) ? -errno : 0;
}

static double elem(const struct npy_array *a, size_t i)
{
	if (a->dtype == KB_DTYPE_F16) {
		uint16_t h;

		memcpy(&h, (const uint8_t *)a->data + 2 * i, 2);
		return npu_f16_to_f32(h);
	}
	{
		float f;

		memcpy(&f, (const uint8_t *)a->data + 4 * i, 4);
		return f;
	}
}

/*
 * The cosine of output @k of the last trial against the reference: 2 for
 * an output that is not compared (not float), NAN when it cannot be read.
 */
static double out_cosine(const struct kb *b, int k)
{
	const struct kb_output *r = &b->outs[k];
	char path[PATH_MAX], err[256];
	struct npy_array a;
	double dot = 0, na = 0, nb = 0;
	size_t es, n;

	if (!r->ref)
		return 2;
	snprintf(path, sizeof(path), "%s/out/output_%d.npy", b->o->workdir, k);
	if (npy_read(path, &a, err)) {
		fprintf(stderr, "npu-compare: --bisect: %s\n", err);
		return NAN;
	}
	es = a.dtype == KB_DTYPE_F16 ? 2 : 4;
	n = a.size / es;
	if ((a.dtype != KB_DTYPE_F16 && a.dtype != KB_DTYPE_F32) ||
	    n != r->n) {
		fprintf(stderr, "npu-compare: --bisect: %s: %zu elements of "
			"dtype %u, the reference has %zu floats\n", path, n,
			a.dtype, r->n);
		npy_free(&a);
		return NAN;
	}
	for (size_t i = 0; i < n; i++) {
		double x = elem(&a, i), y = r->ref[i];

		if (!isfinite(x) && isfinite(y)) {
			npy_free(&a);
			return 0;
		}
		if (!isfinite(x))
			continue;	/* the reference's own inf or NaN */
		dot += x * y;
		na += x * x;
		nb += y * y;
	}
	npy_free(&a);
	if (na == 0 && nb == 0)
		return 1;
	dot = na == 0 || nb == 0 ? 0 : dot / (sqrt(na) * sqrt(nb));
	return dot >= -1 ? dot : 0;	/* NaN (inf in the reference): fails */
}

/* One trial of the current keep set: the lowest output cosine, or NAN. */
static double trial(struct kb *b)
{
	const struct kb_opts *o = b->o;
	char list[PATH_MAX], keep[PATH_MAX + 1], om[PATH_MAX], out[PATH_MAX];
	char npuc[PATH_MAX + 16], npurun[PATH_MAX + 16];
	char *argv[16];
	double cos = 2;
	size_t kept = 0;
	int a = 0;

	snprintf(list, sizeof(list), "%s/trial.keep", o->workdir);
	snprintf(keep, sizeof(keep), "@%s", list);
	snprintf(om, sizeof(om), "%s/trial.om", o->workdir);
	snprintf(out, sizeof(out), "%s/out", o->workdir);
	snprintf(npuc, sizeof(npuc), "%snpuc", b->tools);
	snprintf(npurun, sizeof(npurun), "%snpu-run", b->tools);
	if (write_list(b, list, false))
		return NAN;
	argv[a++] = npuc;
	argv[a++] = (char *)o->model;
	argv[a++] = "-o";
	argv[a++] = om;
	argv[a++] = "--no-cache";
	argv[a++] = "--precision";
	argv[a++] = (char *)o->precision;
	argv[a++] = "--keep-dtype";
	argv[a++] = keep;
	if (o->input_shapes) {
		argv[a++] = "--input-shape";
		argv[a++] = (char *)o->input_shapes;
	}
	argv[a] = NULL;
	if (run(b, argv))
		return NAN;
	a = 0;
	argv[a++] = npurun;
	argv[a++] = om;
	argv[a++] = "-o";
	argv[a++] = out;
	argv[a++] = "--input-dir";
	argv[a++] = (char *)o->input_dir;
	argv[a] = NULL;
	if (run(b, argv))
		return NAN;
	for (int k = 0; k < b->nout; k++) {
		double c = out_cosine(b, k);

		if (isnan(c))
			return NAN;
		if (c < cos)
			cos = c;
	}
	for (size_t i = 0; i < b->n; i++)
		kept += b->keep[i];
	b->trials++;
	printf("  trial %3d: %4zu of %zu nodes in f32: output cosine %.6f%s\n",
	       b->trials, kept, b->n, cos,
	       cos >= o->target_cos ? "" : "  (below the target)");
	return cos;
}

/* Drop what can go of the kept candidates in [lo, hi). */
static int reduce(struct kb *b, size_t lo, size_t hi)
{
	size_t kept = 0, mid;
	double c;
	int ret;

	for (size_t i = lo; i < hi; i++)
		kept += b->keep[i];
	if (!kept)
		return 0;
	if (b->trials >= b->o->max_trials)
		return -E2BIG;
	for (size_t i = lo; i < hi; i++)
		b->keep[i] = false;
	c = trial(b);
	if (isnan(c))
		return -EIO;
	if (c >= b->o->target_cos) {
		b->best = c;
		return 0;
	}
	for (size_t i = lo; i < hi; i++)
		b->keep[i] = true;	/* the range held only kept ones */
	if (kept == 1 || hi - lo < 2)
		return 0;
	mid = lo + (hi - lo) / 2;
	ret = reduce(b, lo, mid);
	return ret ? ret : reduce(b, mid, hi);
}

int kb_run(const struct kb_opts *o, char *const *cand, size_t n,
	   const struct kb_output *outs, int nout)
{
	struct kb b = { .o = o, .outs = outs, .nout = nout, .cand = cand,
			.n = n };
	size_t kept = 0;
	double c0;
	int ret = 2;

	b.keep = calloc(n ? n : 1, sizeof(*b.keep));
	if (!b.keep)
		return 2;
	tool_dir(b.tools, sizeof(b.tools));
	printf("npu-compare --bisect %s: --precision %s, %zu candidate nodes, "
	       "target output cosine %g\n", o->model, o->precision, n,
	       o->target_cos);
	c0 = trial(&b);
	if (isnan(c0))
		goto out;
	b.best = c0;
	if (c0 < o->target_cos) {
		for (size_t i = 0; i < n; i++)
			b.keep[i] = true;
		b.best = trial(&b);
		if (isnan(b.best))
			goto out;
		if (b.best < o->target_cos) {
			ret = 1;
			fprintf(stderr, "npu-compare: --bisect: even with all "
				"%zu nodes in f32 the output cosine is %.6f, "
				"below %g: not a matter of precision (compare "
				"a dump with npu-compare to find the operator)"
				"\n", n, b.best, o->target_cos);
			goto out;
		}
		ret = reduce(&b, 0, n / 2);
		if (!ret)
			ret = reduce(&b, n / 2, n);
		if (ret == -E2BIG)
			fprintf(stderr, "npu-compare: --bisect: stopped after "
				"%d trials (--max-trials); the list below "
				"passes but may not be minimal\n", b.trials);
		else if (ret)
			goto out_fail;
	}
	ret = write_list(&b, o->keep_out, true);
	if (ret) {
		fprintf(stderr, "npu-compare: --bisect: cannot write %s: %s\n",
			o->keep_out, strerror(-ret));
		ret = 2;
		goto out;
	}
	printf("keep-list    %s: ", o->keep_out);
	for (size_t i = 0; i < n; i++)
		if (b.keep[i])
			printf("%s%s", kept++ ? ", " : "", cand[i]);
	printf("%s\n             output cosine %.6f (nothing kept: %.6f), "
	       "%d trials; npuc --precision %s --keep-dtype @%s\n",
	       kept ? "" : "(none: the target is met as it is)", b.best, c0,
	       b.trials, o->precision, o->keep_out);
	ret = 0;
	goto out;
out_fail:
	ret = 2;
out:
	free(b.keep);
	return ret;
}
