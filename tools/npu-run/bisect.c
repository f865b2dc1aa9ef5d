// SPDX-License-Identifier: MIT
/*
 * bisect.c - npu-run --bisect REF.onnx (Documentation/diagnosis.rst):
 * the first ONNX tensor of an execution that diverges from the compiler's
 * reference interpreter, found by bisection.
 *
 * The candidates are the tensors the .om records (its dump provenance),
 * in the reference graph's topological order (npu-compare --list-tensors:
 * ONNX data flow, whatever the streams ran first). A probe runs the
 * model once dumping a range of candidates (npurt_model_set_dump, the
 * same inputs) into a directory of its own with the model's inputs, and
 * npu-compare says which of them are outside --cos-min / --ratio-max of
 * the reference. Each probe is the first half of the candidates not yet
 * known to be within: a divergence in it is the answer (every tensor
 * before it is within), else its second half is what is left - at most
 * log2(n) + 1 executions, each dumping half as much as the one before.
 * No assumption that an error persists downstream: the answer is the
 * first divergent tensor in data-flow order, so every tensor it depends
 * on was compared and is within.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "dumpfmt.h"
#include "npy.h"

struct verdict {
	int diverged;			/* 0 within, 1 diverged, -1 unknown */
	double cosine, max_abs, max_rel, ratio5;
};

struct cand {
	char *name, *op, *node, *nodes;
	uint32_t task;
	struct verdict v;		/* from the last probe that had it */
	int in_probe;
};

static struct {
	struct cand *c;
	size_t n, cap;
} cl;

static int list_cb(void *user, const npurt_dump_tensor *t)
{
	struct cand *c;
	size_t len = 1;

	(void)user;
	if (cl.n == cl.cap) {
		size_t cap = cl.cap ? 2 * cl.cap : 64;

		c = realloc(cl.c, cap * sizeof(*c));
		if (!c)
			return 0;
		cl.c = c;
		cl.cap = cap;
	}
	c = &cl.c[cl.n];
	for (uint32_t i = 0; i < t->num_nodes; i++)
		len += strlen(t->nodes[i]) + 2;
	c->nodes = malloc(len);
	c->name = strdup(t->name);
	c->op = strdup(t->op);
	c->node = strdup(t->node);
	if (!c->nodes || !c->name || !c->op || !c->node) {
		free(c->nodes);
		free(c->name);
		free(c->op);
		free(c->node);
		return 0;
	}
	c->nodes[0] = 0;
	for (uint32_t i = 0; i < t->num_nodes; i++) {
		if (i)
			strcat(c->nodes, ", ");
		strcat(c->nodes, t->nodes[i]);
	}
	c->task = t->task;
	c->v.diverged = -1;
	c->in_probe = 0;
	cl.n++;
	return 0;	/* listing only: nothing is dumped */
}

static int nop_cb(void *user, const npurt_dump_tensor *t)
{
	(void)user;
	(void)t;
	return 0;
}

static int rm_cb(const char *path, const struct stat *st, int flag,
		 struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* npu-compare beside this program, else on the PATH. */
static void compare_tool(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *slash;

		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(buf, len, "%s/npu-compare", self);
			if (!access(buf, X_OK))
				return;
		}
	}
	snprintf(buf, len, "npu-compare");
}

/* A number after "key": in one JSON line of npu-compare's table. */
static double jnum(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(line, pat);
	return p ? strtod(p + strlen(pat), NULL) : 0.0;
}

static int write_inputs(npurt_model *m, const void *const *hin,
			const char *dir)
{
	npurt_model_info info;

	npurt_model_get_info(m, &info);
	for (uint32_t i = 0; i < info.num_inputs; i++) {
		npurt_tensor_desc d;
		char stem[240], path[4400], err[256];

		npurt_model_get_input(m, i, 0, &d);
		dumpfmt_stem(d.name, stem, sizeof(stem));
		if ((size_t)snprintf(path, sizeof(path), "%s/%s.npy", dir,
				     stem) >= sizeof(path))
			return -1;
		if (npy_write(path, d.dtype, d.rank, d.dims, hin[i], err)) {
			fprintf(stderr, "npu-run: bisect: %s\n", err);
			return -1;
		}
	}
	return 0;
}

static size_t find_cand(const char *name)
{
	for (size_t i = 0; i < cl.n; i++)
		if (!strcmp(cl.c[i].name, name))
			return i;
	return SIZE_MAX;
}

/*
 * The reference's topological order of its tensors (npu-compare
 * --list-tensors): *names, *count. 0 or -1.
 */
static int reference_order(const struct diag_opts *d, const char *root,
			   char ***names, size_t *count)
{
	char tool[PATH_MAX + 16], line[4096];
	char **v = NULL;
	size_t n = 0;
	int fd[2], st;
	FILE *f;
	pid_t pid;

	*names = NULL;
	*count = 0;
	compare_tool(tool, sizeof(tool));
	if (pipe(fd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execlp(tool, tool, d->bisect_ref, root, "--list-tensors",
		       (char *)NULL);
		fprintf(stderr, "npu-run: bisect: cannot run %s: %s\n", tool,
			strerror(errno));
		_exit(2);
	}
	close(fd[1]);
	f = pid > 0 ? fdopen(fd[0], "r") : NULL;
	if (!f) {
		close(fd[0]);
		if (pid > 0)
			waitpid(pid, &st, 0);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char **p = realloc(v, (n + 1) * sizeof(*v));

		line[strcspn(line, "\n")] = 0;
		if (!p)
			break;
		v = p;
		v[n] = strdup(line);
		if (v[n])
			n++;
	}
	fclose(f);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return -1;
	}
	*names = v;
	*count = n;
	return 0;
}

static size_t rank_of(char **names, size_t count, const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(names[i], name))
			return i;
	return SIZE_MAX;
}

/*
 * Candidates in the reference graph's topological order (ONNX data flow;
 * a tensor the reference does not have goes after, by task index).
 */
static int order_candidates(const struct diag_opts *d, const char *root)
{
	char **names;
	size_t count;
	size_t *rank = malloc((cl.n + 1) * sizeof(*rank));

	if (!rank || reference_order(d, root, &names, &count)) {
		free(rank);
		fprintf(stderr, "npu-run: bisect: npu-compare --list-tensors "
			"failed on %s\n", d->bisect_ref);
		return -1;
	}
	for (size_t i = 0; i < cl.n; i++)
		rank[i] = rank_of(names, count, cl.c[i].name);
	/* insertion sort: stable, n is the number of recorded tensors */
	for (size_t i = 1; i < cl.n; i++) {
		struct cand c = cl.c[i];
		size_t r = rank[i], j = i;

		while (j > 0 && (rank[j - 1] > r ||
				 (rank[j - 1] == r &&
				  cl.c[j - 1].task > c.task))) {
			cl.c[j] = cl.c[j - 1];
			rank[j] = rank[j - 1];
			j--;
		}
		cl.c[j] = c;
		rank[j] = r;
	}
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
	free(rank);
	return 0;
}

static int probe_select(void *arg, const npurt_dump_tensor *t)
{
	size_t i = find_cand(t->name);

	(void)arg;
	return i != SIZE_MAX && cl.c[i].in_probe;
}

/*
 * Runs the model dumping candidates [lo, hi] and compares them: the index
 * of the first (in candidate order) that diverges, SIZE_MAX when all are
 * within; *err is set (2 usage/tool, 3 runtime) when the probe failed.
 */
static size_t probe(npurt_model *m, const struct diag_opts *d,
		    const npurt_io *bin, const npurt_io *bout,
		    const void *const *hin, const char *root, size_t lo,
		    size_t hi, int *err)
{
	static int seq;
	struct diag_opts po;
	npurt_model_info info;
	char dir[4096], json[4200], tool[PATH_MAX + 16], cos[32], rat[32];
	char line[8192];
	size_t first = SIZE_MAX;
	FILE *f;
	pid_t pid;
	int st;

	*err = 2;
	snprintf(dir, sizeof(dir), "%s/probe%d", root, seq++);
	for (size_t i = 0; i < cl.n; i++) {
		cl.c[i].in_probe = i >= lo && i <= hi;
		if (cl.c[i].in_probe)
			cl.c[i].v.diverged = -1;
	}
	memset(&po, 0, sizeof(po));
	po.dump_dir = dir;
	po.select = probe_select;
	po.quiet = 1;
	if (diag_dump_begin(m, &po, "bisect") || write_inputs(m, hin, dir))
		return SIZE_MAX;
	npurt_model_get_info(m, &info);
	if (npurt_model_execute(m, bin, info.num_inputs, bout,
				info.num_outputs)) {
		const npurt_error *e = npurt_last_error();

		fprintf(stderr, "npu-run: bisect: executing the model: %s\n",
			e->reason);
		diag_dump_end(m, &po);
		*err = 3;
		return SIZE_MAX;
	}
	if (diag_dump_end(m, &po) == 2)
		return SIZE_MAX;
	snprintf(json, sizeof(json), "%s/compare.json", dir);
	snprintf(cos, sizeof(cos), "%.17g", d->cos_min);
	snprintf(rat, sizeof(rat), "%.17g", d->ratio_max);
	compare_tool(tool, sizeof(tool));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			close(null);
		}
		execlp(tool, tool, d->bisect_ref, dir, "--cos-min", cos,
		       "--ratio-max", rat, "--json", json, (char *)NULL);
		fprintf(stderr, "npu-run: bisect: cannot run %s: %s\n", tool,
			strerror(errno));
		_exit(2);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) > 1)
		return SIZE_MAX;
	f = fopen(json, "r");
	if (!f)
		return SIZE_MAX;
	while (fgets(line, sizeof(line), f)) {
		char name[1024];
		size_t i;

		/* the table's lines: '  {"tensor": ...' */
		if (strncmp(line, "  {\"tensor\":", 12) ||
		    dumpfmt_field(line, "tensor", name, sizeof(name)))
			continue;
		i = find_cand(name);
		if (i == SIZE_MAX || !cl.c[i].in_probe)
			continue;
		cl.c[i].v.diverged = strstr(line, "\"diverged\": true") != NULL;
		cl.c[i].v.cosine = jnum(line, "cosine");
		cl.c[i].v.max_abs = jnum(line, "max_abs");
		cl.c[i].v.max_rel = jnum(line, "max_rel");
		cl.c[i].v.ratio5 = jnum(line, "ratio_5e-3");
	}
	fclose(f);
	*err = 0;
	for (size_t i = lo; i <= hi; i++) {
		if (cl.c[i].v.diverged < 0)
			fprintf(stderr, "npu-run: bisect: warning: npu-compare "
				"did not compare %s (no reference tensor of "
				"that name)\n", cl.c[i].name);
		else if (cl.c[i].v.diverged && first == SIZE_MAX)
			first = i;
	}
	return first;
}

static void show(FILE *out, const char *what, size_t k)
{
	const struct cand *c = &cl.c[k];

	fprintf(out, "bisect       %s: %s\n", what, c->name);
	fprintf(out, "             task %u, %s, node %s; ONNX nodes: %s\n",
		c->task, c->op, c->node, *c->nodes ? c->nodes : "-");
	if (c->v.diverged >= 0)
		fprintf(out, "             cosine %.7f, max abs error %.4g, max "
			"rel error %.4g, %.4f of elements over 5/1000\n",
			c->v.cosine, c->v.max_abs, c->v.max_rel, c->v.ratio5);
}

int diag_bisect(npurt_model *m, const struct diag_opts *d,
		const npurt_io *bin, const npurt_io *bout, const void *const *hin,
		FILE *out)
{
	npurt_dump_config cfg = { list_cb, nop_cb, NULL };
	char root[] = "/tmp/npu-bisect.XXXXXX";
	size_t lo = 0, hi, probes = 0, first;
	int err = 0, ret;

	memset(&cl, 0, sizeof(cl));
	if (npurt_model_set_dump(m, &cfg)) {
		const npurt_error *e = npurt_last_error();

		fprintf(stderr, "npu-run: bisect: %s (%s)\n", e->reason,
			e->action);
		return 2;
	}
	npurt_model_set_dump(m, NULL);
	if (!cl.n) {
		fprintf(stderr, "npu-run: bisect: the model records no tensor "
			"(compile it with provenance: npuc, .om format 1.1)\n");
		return 2;
	}
	/* the model's inputs are the reference's inputs: not compared */
	{
		npurt_model_info info;
		size_t k = 0;

		npurt_model_get_info(m, &info);
		for (size_t i = 0; i < cl.n; i++) {
			int is_input = 0;

			for (uint32_t j = 0; j < info.num_inputs; j++) {
				npurt_tensor_desc dsc;

				npurt_model_get_input(m, j, 1, &dsc);
				is_input |= !strcmp(dsc.name, cl.c[i].name);
			}
			if (!is_input) {
				cl.c[k++] = cl.c[i];
				continue;
			}
			free(cl.c[i].name);
			free(cl.c[i].op);
			free(cl.c[i].node);
			free(cl.c[i].nodes);
		}
		cl.n = k;
	}
	if (!cl.n || !mkdtemp(root)) {
		fprintf(stderr, "npu-run: bisect: %s\n", cl.n ?
			strerror(errno) : "no tensor to compare");
		ret = 2;
		goto out;
	}
	if (order_candidates(d, root)) {
		ret = 2;
		goto done;
	}
	fprintf(out, "bisect       %zu recorded tensors; reference %s "
		"(cosine >= %g, <= %g of elements over 5/1000)\n", cl.n,
		d->bisect_ref, d->cos_min, d->ratio_max);
	/*
	 * Halving: probe the first half of what is left; a divergence there
	 * is the answer (every earlier tensor was within, in this probe or
	 * a previous one), else the second half is left.
	 */
	hi = cl.n - 1;
	first = SIZE_MAX;
	while (lo <= hi && first == SIZE_MAX) {
		size_t mid = lo + (hi - lo) / 2;

		first = probe(m, d, bin, bout, hin, root, lo, mid, &err);
		probes++;
		if (err) {
			ret = err;
			goto done;
		}
		lo = mid + 1;
	}
	if (first == SIZE_MAX) {
		fprintf(out, "bisect       no divergence: all %zu tensors "
			"within (%zu probes)\n", cl.n, probes);
		show(out, "the last one", cl.n - 1);
		ret = 0;
		goto done;
	}
	show(out, "first divergent tensor (in data-flow order)", first);
	if (first > 0)
		show(out, "the tensor before it is within", first - 1);
	fprintf(out, "bisect       %zu probe(s) (executions and comparisons) "
		"of %zu tensors\n", probes, cl.n);
	ret = 1;
done:
	nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
out:
	for (size_t i = 0; i < cl.n; i++) {
		free(cl.c[i].name);
		free(cl.c[i].op);
		free(cl.c[i].node);
		free(cl.c[i].nodes);
	}
	free(cl.c);
	memset(&cl, 0, sizeof(cl));
	return ret;
}
