// SPDX-License-Identifier: MIT
/*
 * host_engine.c - host tasks of a model (.om format 1.2): plugin host
 * kernels run on a host worker, ordered with the device by semaphores.
 *
 * The compiler puts SEM_SIGNAL(h, 1), SEM_WAIT(h, 2) in the program where
 * a host node sits (model semaphore h of its own, bound like any other
 * at base (n - 1) * 2). Per model, one worker thread takes the host tasks
 * of each execution in the compiled graph's order: it waits for h to reach
 * base + 1 (the device got there), copies the inputs out of device memory
 * into host buffers, runs the plugin's kernel on them with guarded output
 * buffers, copies the outputs back into device memory and sets h to
 * base + 2, which lets the device's SEM_WAIT pass. The device never runs
 * plugin code, the kernel module never sees it; both homes work the same
 * (the host side speaks only SEM_WAIT / SEM_SIGNAL ioctls and mmap).
 *
 * Safety: each output buffer has GUARD bytes of a canary pattern before it
 * and as many as its own size (at least GUARD) after it, then a page
 * without access: a kernel that returns an error, or writes into a guard
 * (up to twice the size its shape inference gave), fails its execution;
 * one that writes further faults on the guard page instead of silently
 * corrupting the process. A failed run
 * fails its execution: the stream gets a sticky fault naming the node,
 * the op and the plugin, the outputs are not copied back, and the
 * semaphore is still set so the device and the other streams and models
 * carry on. Documentation/plugins.rst.
 */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt_internal.h"
#include "../../compiler/plugin/plugin_load.h"

#define GUARD		64
#define CANARY		0xa5

struct hattr {
	char *name;
	int type;		/* enum npuc_attr_type */
	int64_t i;
	float f;
	char *s;
	int64_t *ints;
	float *floats;
	int n;
};

struct rt_host_task {
	const struct om_host_task *h;
	const struct om_host_operand *ops;
	const struct npuc_plugin_op *op;
	const struct npu_plugin_lib *lib;
	struct hattr *attrs;
	int num_attrs;
	uint64_t start_ns, end_ns, exec;	/* the last run */
};

struct rt_host_job {
	struct rt_host_job *next;
	uint32_t task;
	uint64_t exec, base;
	npurt_stream *s;
	uint8_t **io;			/* CPU address per I/O slot */
	int cancel;			/* atomic: the submit failed */
};

struct rt_host_engine {
	struct rt_host_task *tasks;
	uint32_t num_tasks;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rt_host_job *head, *tail;
	pthread_t thread;
	bool running, stop;
	uint64_t runs, failures;
};

/* ---- attributes (struct om_host_task.attrs) ---- */

static void free_attrs(struct hattr *a, int n)
{
	for (int i = 0; i < n; i++) {
		free(a[i].name);
		free(a[i].s);
		free(a[i].ints);
		free(a[i].floats);
	}
	free(a);
}

static int parse_list(struct hattr *a, const char *v, bool flt)
{
	int n = 1;

	for (const char *c = v; *c; c++)
		n += *c == ',';
	if (!*v)
		n = 0;
	if (flt)
		a->floats = calloc((size_t)n + 1, sizeof(float));
	else
		a->ints = calloc((size_t)n + 1, sizeof(int64_t));
	if (flt ? !a->floats : !a->ints)
		return -ENOMEM;
	for (int k = 0; k < n; k++) {
		char *end;

		if (flt)
			a->floats[k] = strtof(v, &end);
		else
			a->ints[k] = strtoll(v, &end, 10);
		if (end == v || (*end && *end != ','))
			return -EINVAL;
		v = *end ? end + 1 : end;
	}
	a->n = n;
	return 0;
}

static int parse_attrs(const char *str, struct hattr **out, int *num)
{
	struct hattr *a = NULL;
	char *copy = strdup(str), *save = NULL, *tok;
	int n = 0, ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ";", &save); tok && !ret;
	     tok = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(tok, '='), *v;
		void *p = realloc(a, (size_t)(n + 1) * sizeof(*a));

		if (!p) {
			ret = -ENOMEM;
			break;
		}
		a = p;
		memset(&a[n], 0, sizeof(a[n]));
		if (!eq || strlen(eq) < 3 || eq[2] != ':') {
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		v = eq + 3;
		a[n].name = strdup(tok);
		if (!a[n].name) {
			ret = -ENOMEM;
			break;
		}
		switch (eq[1]) {
		case 'i':
			a[n].type = NPUC_ATTR_INT;
			a[n].i = strtoll(v, NULL, 10);
			break;
		case 'f':
			a[n].type = NPUC_ATTR_FLOAT;
			a[n].f = strtof(v, NULL);
			break;
		case 's': {
			size_t len = strlen(v) / 2;

			a[n].type = NPUC_ATTR_STRING;
			a[n].s = calloc(len + 1, 1);
			if (!a[n].s) {
				ret = -ENOMEM;
				break;
			}
			for (size_t k = 0; k < len; k++) {
				unsigned int c;

				if (sscanf(v + 2 * k, "%2x", &c) != 1) {
					ret = -EINVAL;
					break;
				}
				a[n].s[k] = (char)c;
			}
			break;
		}
		case 'I':
			a[n].type = NPUC_ATTR_INTS;
			ret = parse_list(&a[n], v, false);
			break;
		case 'F':
			a[n].type = NPUC_ATTR_FLOATS;
			ret = parse_list(&a[n], v, true);
			break;
		default:
			ret = -EINVAL;
		}
		n++;
	}
	free(copy);
	if (ret) {
		free_attrs(a, n);
		return ret;
	}
	*out = a;
	*num = n;
	return 0;
}

static const struct hattr *find_attr(const void *ctx, const char *name,
				     int type)
{
	const struct rt_host_task *t = ctx;

	for (int i = 0; i < t->num_attrs; i++)
		if (!strcmp(t->attrs[i].name, name) && t->attrs[i].type == type)
			return &t->attrs[i];
	return NULL;
}

static int64_t a_int(const void *ctx, const char *name, int64_t def)
{
	const struct hattr *a = find_attr(ctx, name, NPUC_ATTR_INT);

	return a ? a->i : def;
}

static float a_float(const void *ctx, const char *name, float def)
{
	const struct hattr *a = find_attr(ctx, name, NPUC_ATTR_FLOAT);

	return a ? a->f : def;
}

static const char *a_str(const void *ctx, const char *name, const char *def)
{
	const struct hattr *a = find_attr(ctx, name, NPUC_ATTR_STRING);

	return a ? a->s : def;
}

static int a_ints(const void *ctx, const char *name, const int64_t **out)
{
	const struct hattr *a = find_attr(ctx, name, NPUC_ATTR_INTS);

	*out = a ? a->ints : NULL;
	return a ? a->n : 0;
}

static int a_floats(const void *ctx, const char *name, const float **out)
{
	const struct hattr *a = find_attr(ctx, name, NPUC_ATTR_FLOATS);

	*out = a ? a->floats : NULL;
	return a ? a->n : 0;
}

/* ---- loading ---- */

NPURT_API npurt_status npurt_plugin_load(const char *path)
{
	char err[512];
	int ret;

	if (!path)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a path", "path is NULL");
	ret = npu_plugin_load(path, NULL, err, sizeof(err));
	if (ret)
		return RT_FAIL(ret == -ENOENT ? NPURT_ERR_NOT_FOUND :
			       NPURT_ERR_INVALID,
			       "check the file is an operator plugin built "
			       "against this release's npuc_plugin.h", "%s",
			       err);
	return NPURT_OK;
}

void rt_host_engine_free(npurt_model *m)
{
	struct rt_host_engine *e = m->host;

	if (!e)
		return;
	if (e->running) {
		pthread_mutex_lock(&e->lock);
		e->stop = true;
		pthread_cond_broadcast(&e->cond);
		pthread_mutex_unlock(&e->lock);
		pthread_join(e->thread, NULL);
	}
	while (e->head) {
		struct rt_host_job *j = e->head;

		e->head = j->next;
		free(j->io);
		free(j);
	}
	for (uint32_t i = 0; e->tasks && i < e->num_tasks; i++)
		free_attrs(e->tasks[i].attrs, e->tasks[i].num_attrs);
	free(e->tasks);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->cond);
	free(e);
	m->host = NULL;
}

/*
 * At load: every host task's plugin is loaded (else $NPUC_PLUGIN_PATH is
 * searched) with the digest the model was compiled with, and serves the
 * op with a host kernel; the workspace is mapped for the host's copies.
 */
npurt_status rt_host_engine_init(npurt_model *m, const char *func)
{
	uint32_t n = om_num_host_tasks(m->om);
	struct rt_host_engine *e;
	bool searched = false;
	char err[512];
	int ret;

	if (!n)
		return NPURT_OK;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->tasks = calloc(n, sizeof(*e->tasks)))) {
		free(e);
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	}
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	e->num_tasks = n;
	m->host = e;
	for (uint32_t i = 0; i < n; i++) {
		struct rt_host_task *t = &e->tasks[i];
		const struct om_host_task *h = om_get_host_task(m->om, i);
		const char *pname = om_string(m->om, h->plugin);
		const char *pver = om_string(m->om, h->plugin_version);
		const char *pdig = om_string(m->om, h->plugin_digest);
		const char *op = om_string(m->om, h->op);
		const char *dom = om_string(m->om, h->domain);
		const char *node = om_string(m->om, h->node);

		t->h = h;
		t->ops = om_get_host_operands(m->om, h);
		t->lib = npu_plugin_find(pname);
		if (!t->lib && !searched) {
			searched = true;
			if (npu_plugin_load_path(getenv(NPU_PLUGIN_ENV), err,
						 sizeof(err)))
				rt_log("%s", err);
			t->lib = npu_plugin_find(pname);
		}
		if (!t->lib)
			return rt_fail(NPURT_ERR_UNSUPPORTED, func,
				       "load the plugin first (npurt_plugin_"
				       "load, or a directory in $NPUC_PLUGIN_"
				       "PATH)",
				       "model \"%s\": node \"%s\" (%s%s%s) runs "
				       "on the host with plugin %s %s (digest "
				       "%s), which is not loaded", m->name,
				       node, dom, *dom ? "::" : "", op, pname,
				       pver, pdig);
		if (strcmp(t->lib->digest, pdig))
			return rt_fail(NPURT_ERR_INCOMPATIBLE, func,
				       "load the plugin the model was compiled "
				       "with, or recompile the model with this "
				       "one",
				       "model \"%s\": node \"%s\" (%s%s%s) was "
				       "compiled with plugin %s %s digest %s; "
				       "the loaded %s (%s %s) has digest %s",
				       m->name, node, dom, *dom ? "::" : "",
				       op, pname, pver, pdig, t->lib->path,
				       t->lib->desc->name,
				       t->lib->desc->version, t->lib->digest);
		t->op = NULL;
		for (int k = 0; k < t->lib->desc->num_ops; k++) {
			const struct npuc_plugin_op *o =
				npu_plugin_op_at(t->lib->desc, k);

			if (!strcmp(o->op_type, op) &&
			    !strcmp(o->domain ? o->domain : "", dom))
				t->op = o;
		}
		if (!t->op || !t->op->host_kernel)
			return rt_fail(NPURT_ERR_INCOMPATIBLE, func,
				       "use the plugin the model was compiled "
				       "with",
				       "model \"%s\": plugin %s has no host "
				       "kernel for %s%s%s (node \"%s\")",
				       m->name, pname, dom, *dom ? "::" : "",
				       op, node);
		if (parse_attrs(om_string(m->om, h->attrs), &t->attrs,
				&t->num_attrs))
			return rt_fail(NPURT_ERR_BAD_MODEL, func,
				       "recompile the model",
				       "model \"%s\": host task \"%s\": bad "
				       "attributes", m->name, node);
	}
	ret = rt_map_workspace(m);
	if (ret)
		return rt_fail_errno(func, -ret, "mapping the workspace for the "
				     "host engine");
	return NPURT_OK;
}

/* ---- running ---- */

/* A guarded output buffer (see the top of the file). */
struct gbuf {
	uint8_t *map, *data;
	size_t map_len, bytes, tail;
};

static int gbuf_alloc(struct gbuf *g, size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t tail = bytes > GUARD ? bytes : GUARD, len;

	if (bytes > SIZE_MAX / 4)
		return -ENOMEM;
	len = (GUARD + bytes + tail + page - 1) / page * page;
	g->map = mmap(NULL, len + page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED) {
		g->map = NULL;
		return -ENOMEM;
	}
	mprotect(g->map + len, page, PROT_NONE);
	g->map_len = len + page;
	g->bytes = bytes;
	g->data = g->map + len - tail - bytes;
	g->tail = tail;
	memset(g->map, CANARY, (size_t)(g->data - g->map));
	memset(g->data + bytes, CANARY, tail);
	return 0;
}

/* 0: intact; -1: written before the data; 1: after it. */
static int gbuf_check(const struct gbuf *g)
{
	for (size_t i = 0; i < GUARD; i++)
		if (g->data[(ptrdiff_t)i - GUARD] != CANARY)
			return -1;
	for (size_t i = 0; i < g->tail; i++)
		if (g->data[g->bytes + i] != CANARY)
			return 1;
	return 0;
}

static void gbuf_free(struct gbuf *g)
{
	if (g->map)
		munmap(g->map, g->map_len);
	g->map = NULL;
}

static void fail_exec(npurt_model *m, struct rt_host_job *j,
		      const struct rt_host_task *t, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void fail_exec(npurt_model *m, struct rt_host_job *j,
		      const struct rt_host_task *t, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	npurt_stream *s = j->s;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	m->host->failures++;
	pthread_mutex_lock(&s->lock);
	if (!s->fault) {
		s->fault = NPURT_ERR_DEVICE_FAULT;
		if (snprintf(s->fault_reason, sizeof(s->fault_reason),
			 "model \"%s\" execution %llu: host task \"%s\" "
			 "(%s%s%s, plugin %s %s) failed: %s", m->name,
			 (unsigned long long)j->exec,
			 om_string(m->om, t->h->node),
			 om_string(m->om, t->h->domain),
			 *om_string(m->om, t->h->domain) ? "::" : "",
			 om_string(m->om, t->h->op), t->lib->desc->name,
			 t->lib->desc->version, why) >=
		    (int)sizeof(s->fault_reason))
			rt_log("host task fault message truncated");
	}
	pthread_mutex_unlock(&s->lock);
}

static uint8_t *operand_ptr(npurt_model *m, struct rt_host_job *j,
			    const struct om_host_operand *o)
{
	uint64_t wsize;
	const uint8_t *w;

	if (o->slot == OM_SLOT_WEIGHTS) {
		w = om_get_weights(m->om, &wsize);
		return (uint8_t *)w + o->offset;
	}
	if (o->slot == OM_SLOT_WORKSPACE)
		return m->workspace_map + o->offset;
	return j->io[o->slot - OM_SLOT_IO_BASE] ?
	       j->io[o->slot - OM_SLOT_IO_BASE] + o->offset : NULL;
}

/* Until @sem >= @value, or the job is cancelled or the engine stops. */
static int wait_device(npurt_model *m, struct rt_host_job *j, uint32_t sem,
		       uint64_t value)
{
	struct rt_host_engine *e = m->host;

	for (;;) {
		struct drm_npu_sem_wait w = {
			.handle = sem, .value = value,
			.timeout_ns = rt_deadline_ms(100),
		};
		int ret = npu_dev_ioctl(m->ctx->nd, DRM_IOCTL_NPU_SEM_WAIT,
					&w);
		bool stop;

		if (ret != -ETIME)
			return ret;
		pthread_mutex_lock(&e->lock);
		stop = e->stop;
		pthread_mutex_unlock(&e->lock);
		if (stop || __atomic_load_n(&j->cancel, __ATOMIC_ACQUIRE))
			return -ECANCELED;
	}
}

static void run_job(npurt_model *m, struct rt_host_job *j)
{
	struct rt_host_task *t = &m->host->tasks[j->task];
	const struct om_host_task *h = t->h;
	uint32_t nin = h->num_inputs, nout = h->num_outputs;
	struct npuc_host_tensor in[16], out[16];
	uint8_t *buf[16] = { NULL };
	struct gbuf gb[16];
	struct drm_npu_sem_signal sig = {
		.handle = m->sems[h->sem], .value = j->base + 2,
	};
	struct npuc_attrs attrs = {
		.ctx = t, .get_int = a_int, .get_float = a_float,
		.get_string = a_str, .get_ints = a_ints,
		.get_floats = a_floats,
	};
	char msg[192] = "";
	struct npuc_host_call call = {
		.node_name = om_string(m->om, h->node), .attrs = &attrs,
		.num_inputs = (int)nin, .inputs = in,
		.num_outputs = (int)nout, .outputs = out,
		.err = msg, .errlen = sizeof(msg),
	};
	bool ok = true;
	int ret;

	memset(gb, 0, sizeof(gb));
	ret = wait_device(m, j, m->sems[h->sem], j->base + 1);
	if (ret == -ECANCELED)
		return;		/* the device never runs this execution */
	if (ret) {
		fail_exec(m, j, t, "waiting for the device: %s",
			  strerror(-ret));
		ok = false;
		goto signal;
	}
	t->start_ns = rt_now_ns();
	/* Device -> host: inputs into host buffers, outputs guarded. */
	for (uint32_t k = 0; k < nin + nout && ok; k++) {
		const struct om_host_operand *o = &t->ops[k];
		struct npuc_host_tensor *x = k < nin ? &in[k] : &out[k - nin];
		uint8_t *src;

		memset(x, 0, sizeof(*x));
		if (o->flags & OM_HOSTOP_ABSENT)
			continue;
		x->dtype = o->dtype;
		x->rank = o->rank;
		for (uint32_t d = 0; d < o->rank; d++)
			x->dims[d] = (int64_t)o->dims[d];
		x->bytes = (size_t)o->size_bytes;
		if (k < nin)
			buf[k] = malloc(x->bytes ? x->bytes : 1);
		if (k < nin ? !buf[k] : gbuf_alloc(&gb[k - nin], x->bytes)) {
			fail_exec(m, j, t, "out of host memory (%zu bytes)",
				  x->bytes);
			ok = false;
			break;
		}
		if (k >= nin) {
			x->data = gb[k - nin].data;
			continue;
		}
		x->data = buf[k];
		src = operand_ptr(m, j, o);
		if (!src) {
			fail_exec(m, j, t, "input %u is not mapped", k);
			ok = false;
			break;
		}
		memcpy(x->data, src, x->bytes);
	}
	if (ok) {
		ret = t->op->host_kernel(&call);
		if (ret) {
			fail_exec(m, j, t, "the kernel returned %d%s%s", ret,
				  msg[0] ? ": " : "", msg);
			ok = false;
		}
	}
	/* The guards: a write past (or before) an output fails the run. */
	for (uint32_t k = 0; k < nout && ok; k++) {
		int where = gbuf_check(&gb[k]);
		size_t bytes = gb[k].bytes;

		if (where) {
			fail_exec(m, j, t, "the kernel wrote outside output %u "
				  "(%zu bytes, as its shape inference gave "
				  "them): %s its buffer", k, bytes,
				  where < 0 ? "before" : "past");
			ok = false;
		}
		if (ok && (out[k].data != gb[k].data ||
			   out[k].bytes != bytes)) {
			fail_exec(m, j, t, "the kernel changed output %u's "
				  "buffer", k);
			ok = false;
		}
	}
	/* Host -> device. */
	for (uint32_t k = 0; k < nout && ok; k++) {
		uint8_t *dst = operand_ptr(m, j, &t->ops[nin + k]);

		if (!dst) {
			fail_exec(m, j, t, "output %u is not mapped", k);
			ok = false;
			break;
		}
		memcpy(dst, out[k].data, out[k].bytes);
	}
	t->end_ns = rt_now_ns();
	t->exec = j->exec;
	m->host->runs++;
signal:
	for (uint32_t k = 0; k < 16; k++) {
		free(buf[k]);
		gbuf_free(&gb[k]);
	}
	/* Always: the device waits for it, whatever happened here. */
	ret = npu_dev_ioctl(m->ctx->nd, DRM_IOCTL_NPU_SEM_SIGNAL, &sig);
	if (ret && ok)
		fail_exec(m, j, t, "signalling the device: %s",
			  strerror(-ret));
}

static void *host_main(void *arg)
{
	npurt_model *m = arg;
	struct rt_host_engine *e = m->host;

	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct rt_host_job *j;

		while (!e->head && !e->stop)
			pthread_cond_wait(&e->cond, &e->lock);
		j = e->head;
		if (!j)
			break;
		pthread_mutex_unlock(&e->lock);
		run_job(m, j);
		pthread_mutex_lock(&e->lock);
		e->head = j->next;
		if (!e->head)
			e->tail = NULL;
		free(j->io);
		free(j);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/*
 * Queue execution @exec's host tasks of variant @v for stream @s, with
 * the I/O the execution binds. Model lock held.
 */
npurt_status rt_host_engine_queue(npurt_model *m, uint32_t v, uint64_t exec,
				  const npurt_io *in, const npurt_io *out,
				  npurt_stream *s, const char *func)
{
	struct rt_host_engine *e = m->host;
	struct rt_host_job *first = NULL, *last = NULL;

	if (!e)
		return NPURT_OK;
	for (uint32_t i = 0; i < e->num_tasks; i++) {
		const struct om_host_task *h = e->tasks[i].h;
		struct rt_host_job *j;

		if (h->variant != v)
			continue;
		j = calloc(1, sizeof(*j));
		if (j)
			j->io = calloc(m->nio + 1, sizeof(*j->io));
		if (!j || !j->io) {
			free(j);
			while (first) {
				j = first->next;
				free(first->io);
				free(first);
				first = j;
			}
			return rt_fail(NPURT_ERR_NOMEM, func,
				       "free host memory", "out of memory");
		}
		j->task = i;
		j->exec = exec;
		j->base = (exec - 1) *
			  om_get_semaphore(m->om, h->sem)->increment;
		j->s = s;
		pthread_mutex_lock(&m->ctx->lock);
		for (uint32_t k = 0; k < m->nio; k++) {
			const npurt_io *io = k < m->nin ? &in[k] :
					     &out[k - m->nin];
			uint8_t *base = io->mem ? rt_mem_ptr(io->mem) :
					m->stage_map[k];

			j->io[k] = base && io->mem ? base + io->offset : base;
		}
		pthread_mutex_unlock(&m->ctx->lock);
		if (last)
			last->next = j;
		else
			first = j;
		last = j;
	}
	if (!first)
		return NPURT_OK;
	pthread_mutex_lock(&e->lock);
	if (!e->running) {
		if (pthread_create(&e->thread, NULL, host_main, m)) {
			pthread_mutex_unlock(&e->lock);
			while (first) {
				struct rt_host_job *j = first->next;

				free(first->io);
				free(first);
				first = j;
			}
			return rt_fail(NPURT_ERR_NOMEM, func,
				       "raise the thread limit",
				       "cannot start the host engine's worker");
		}
		e->running = true;
	}
	if (e->tail)
		e->tail->next = first;
	else
		e->head = first;
	e->tail = last;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	return NPURT_OK;
}

/* The submit of execution @exec failed: its host tasks never run. */
void rt_host_engine_cancel(npurt_model *m, uint64_t exec)
{
	struct rt_host_engine *e = m->host;

	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	for (struct rt_host_job *j = e->head; j; j = j->next)
		if (j->exec == exec)
			__atomic_store_n(&j->cancel, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&e->lock);
}

/* Host records of the last profiled execution (model lock held). */
uint32_t rt_host_engine_profile(npurt_model *m, uint32_t v, uint64_t exec,
				npurt_task_record *r, uint32_t max,
				uint32_t model_stream)
{
	struct rt_host_engine *e = m->host;
	uint32_t n = 0;

	for (uint32_t i = 0; e && i < e->num_tasks; i++) {
		const struct rt_host_task *t = &e->tasks[i];

		if (t->h->variant != v || t->exec != exec)
			continue;
		if (n < max) {
			r[n].start_ns = t->start_ns;
			r[n].end_ns = t->end_ns;
			r[n].model_stream = model_stream;
			r[n].task = i;
			r[n].core = UINT32_MAX;
			r[n].hw_queue = UINT32_MAX;
			r[n].status = 0;
			r[n].op = om_string(m->om, t->h->op);
			r[n].node = om_string(m->om, t->h->node);
		}
		n++;
	}
	return n;
}
