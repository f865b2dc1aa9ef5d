// SPDX-License-Identifier: MIT
/*
 * npucl_ops.c - collectives in graph mode (Documentation/collectives.rst):
 * the operator plugin libnpucl_ops.so (npuc_plugin.h) serving
 * com.npu::AllReduce. npuc places the node on the host engine: its HOST
 * task runs between the device tasks of its stream, the model's other
 * streams compute meanwhile, and semaphores order both (plugins.rst).
 *
 * The ranks of a group are models of one process, one per device (each
 * compiled with its rank's weights and attributes), executing at the same
 * time. Each rank's host task meets the others at the group's rendezvous
 * and writes the reduction of every rank's input, taken in rank order, so
 * that all ranks get the same bits (as libnpucl's AllReduce does). A rank
 * waits at most NPUCL_GRAPH_TIMEOUT_MS (30 s) for the others to arrive,
 * then fails its execution naming the group and how many ranks arrived.
 * Ranks that disagree (node, reduction, type, size, world size) or drifted
 * apart (one that timed out is an execution ahead of the others) fail on
 * every rank with the same message, never with a mixed reduction; once
 * all have arrived a rank leaves only after every rank has read its input.
 *
 *   AllReduce(x) -> y          y has x's type
 *     rank (int, required), world_size (int, required, 1..64),
 *     group (string, "world"), reduce (string: sum, max, min, prod)
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npuc_plugin.h"

#define MAX_RANKS	64

enum red { RED_SUM, RED_MAX, RED_MIN, RED_PROD };

/*
 * One group's rendezvous: ranks arrive, read every input, depart. What a
 * rank brings is kept per rank and compared before anything is reduced:
 * every rank sees the same table, so all agree on the verdict.
 */
struct arrival {
	const void *in;
	size_t bytes;
	int dtype, op;
	uint64_t seq;			/* the rank's executions of the group */
	const char *node;
};

struct group {
	char name[64];
	int size;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t gen;			/* executions completed */
	int arrived, departed;		/* of the current one */
	uint64_t seq[MAX_RANKS];
	struct arrival at[MAX_RANKS];
	struct group *next;
};

static pthread_mutex_t groups_mu = PTHREAD_MUTEX_INITIALIZER;
static struct group *groups;

/* The group of @name (made with @size ranks by its first caller). */
static struct group *group_get(const char *name, int size)
{
	struct group *g;
	pthread_condattr_t ca;

	pthread_mutex_lock(&groups_mu);
	for (g = groups; g; g = g->next)
		if (!strcmp(g->name, name))
			break;
	if (!g && (g = calloc(1, sizeof(*g)))) {
		snprintf(g->name, sizeof(g->name), "%s", name);
		g->size = size;
		pthread_mutex_init(&g->mu, NULL);
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&g->cv, &ca);
		pthread_condattr_destroy(&ca);
		g->next = groups;
		groups = g;
	}
	pthread_mutex_unlock(&groups_mu);
	return g;
}

static int parse_reduce(const char *s)
{
	static const char *const names[] = { "sum", "max", "min", "prod" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int check_attrs(const struct npuc_attrs *a, const char *node,
		       char *err, size_t errlen)
{
	int64_t rank = a->get_int(a->ctx, "rank", -1);
	int64_t size = a->get_int(a->ctx, "world_size", 0);
	const char *red = a->get_string(a->ctx, "reduce", "sum");
	const char *grp = a->get_string(a->ctx, "group", "world");

	if (size < 1 || size > MAX_RANKS) {
		snprintf(err, errlen, "AllReduce '%s': world_size %lld: use "
			 "1..%d", node, (long long)size, MAX_RANKS);
		return -EINVAL;
	}
	if (rank < 0 || rank >= size) {
		snprintf(err, errlen, "AllReduce '%s': rank %lld outside "
			 "0..%lld (world_size %lld)", node, (long long)rank,
			 (long long)size - 1, (long long)size);
		return -EINVAL;
	}
	if (parse_reduce(red) < 0) {
		snprintf(err, errlen, "AllReduce '%s': reduce '%s': use sum, "
			 "max, min or prod", node, red);
		return -EINVAL;
	}
	if (!*grp || strlen(grp) >= sizeof(((struct group *)0)->name)) {
		snprintf(err, errlen, "AllReduce '%s': group name of 1..63 "
			 "characters", node);
		return -EINVAL;
	}
	return 0;
}

/* The reduced types; at inference and again in the kernel (a .om). */
static int check_dtype(int dt, const char *node, char *err, size_t errlen)
{
	if (dt == NPUC_DT_F32 || dt == NPUC_DT_I32 || dt == NPUC_DT_I64)
		return 0;
	snprintf(err, errlen, "AllReduce '%s': input dtype %d: f32, i32 or "
		 "i64", node, dt);
	return -EINVAL;
}

static int allreduce_infer(struct npuc_infer_ctx *c)
{
	int ret = check_attrs(c->attrs, c->node_name, c->err, c->errlen);

	if (!ret)
		ret = check_dtype(c->inputs[0].dtype, c->node_name, c->err,
				  c->errlen);
	if (!ret)
		c->outputs[0] = c->inputs[0];
	return ret;
}

/*
 * In rank order, in the element type; integer sums and products in its
 * unsigned twin, so that they wrap (two's complement) instead of being
 * undefined behaviour.
 */
#define REDUCE(T, U)							\
static void reduce_##T(T *y, const struct arrival *at, int n,		\
		       size_t len, int op)				\
{									\
	for (size_t i = 0; i < len; i++) {				\
		T v = ((const T *)at[0].in)[i];				\
		for (int r = 1; r < n; r++) {				\
			T w = ((const T *)at[r].in)[i];			\
			switch (op) {					\
			case RED_SUM: v = (T)((U)v + (U)w); break;	\
			case RED_PROD: v = (T)((U)v * (U)w); break;	\
			case RED_MAX: v = w > v ? w : v; break;		\
			default: v = w < v ? w : v; break;		\
			}						\
		}							\
		y[i] = v;						\
	}								\
}
REDUCE(float, float)
REDUCE(int32_t, uint32_t)
REDUCE(int64_t, uint64_t)

static long timeout_ms(void)
{
	const char *s = getenv("NPUCL_GRAPH_TIMEOUT_MS");
	long v = s && *s ? strtol(s, NULL, 10) : 0;

	return v > 0 ? v : 30000;
}

static int all_arrived(const struct group *g)
{
	return g->arrived == g->size;
}

/* Waits until all ranks arrived, or the deadline @dl passes. */
static int wait_arrivals(struct group *g, const struct timespec *dl)
{
	while (!all_arrived(g))
		if (pthread_cond_timedwait(&g->cv, &g->mu, dl) == ETIMEDOUT &&
		    !all_arrived(g))
			return -ETIMEDOUT;
	return 0;
}

/*
 * Every rank's arrival against rank 0's: the same execution (a rank that
 * timed out earlier is an execution ahead), node, reduction, type and
 * size. The same answer on every rank: they read one table.
 */
static int arrivals_agree(const struct group *g, char *err, size_t errlen)
{
	const struct arrival *a = &g->at[0];

	for (int r = 1; r < g->size; r++) {
		const struct arrival *b = &g->at[r];

		if (b->seq != a->seq) {
			snprintf(err, errlen, "AllReduce (group '%s'): rank 0 "
				 "is at its execution %llu, rank %d at %llu: a "
				 "rank failed or timed out before; reload the "
				 "ranks' models", g->name,
				 (unsigned long long)a->seq, r,
				 (unsigned long long)b->seq);
			return -EPROTO;
		}
		if (strcmp(b->node, a->node) || b->op != a->op ||
		    b->dtype != a->dtype || b->bytes != a->bytes) {
			snprintf(err, errlen, "AllReduce (group '%s'): rank 0 "
				 "runs node '%s' (reduce %d, dtype %d, %zu "
				 "bytes), rank %d node '%s' (reduce %d, dtype "
				 "%d, %zu bytes): every rank runs the same node "
				 "on the same shape", g->name, a->node, a->op,
				 a->dtype, a->bytes, r, b->node, b->op,
				 b->dtype, b->bytes);
			return -EINVAL;
		}
	}
	return 0;
}

/* Adds @ms to the monotonic clock's now. */
static void deadline(struct timespec *dl, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, dl);
	dl->tv_sec += ms / 1000;
	dl->tv_nsec += (ms % 1000) * 1000000L;
	if (dl->tv_nsec >= 1000000000L) {
		dl->tv_sec++;
		dl->tv_nsec -= 1000000000L;
	}
}

static void reduce(const struct group *g, void *y, int dtype, size_t len,
		   int op)
{
	if (dtype == NPUC_DT_F32)
		reduce_float(y, g->at, g->size, len, op);
	else if (dtype == NPUC_DT_I32)
		reduce_int32_t(y, g->at, g->size, len, op);
	else
		reduce_int64_t(y, g->at, g->size, len, op);
}

static int allreduce_kernel(struct npuc_host_call *c)
{
	const struct npuc_attrs *a = c->attrs;
	const struct npuc_host_tensor *x = &c->inputs[0];
	struct npuc_host_tensor *y = &c->outputs[0];
	int rank, size, op, ret;
	struct group *g;
	struct timespec dl;
	long ms = timeout_ms();
	size_t es;

	ret = check_attrs(a, c->node_name, c->err, c->errlen);
	if (!ret)
		ret = check_dtype(x->dtype, c->node_name, c->err, c->errlen);
	if (ret)
		return ret;
	rank = (int)a->get_int(a->ctx, "rank", 0);
	size = (int)a->get_int(a->ctx, "world_size", 1);
	op = parse_reduce(a->get_string(a->ctx, "reduce", "sum"));
	es = x->dtype == NPUC_DT_I64 ? 8 : 4;
	if (x->bytes % es || y->bytes < x->bytes) {
		snprintf(c->err, c->errlen, "AllReduce '%s': %zu input bytes "
			 "and %zu output bytes for elements of %zu",
			 c->node_name, x->bytes, y->bytes, es);
		return -EINVAL;
	}
	g = group_get(a->get_string(a->ctx, "group", "world"), size);
	if (!g) {
		snprintf(c->err, c->errlen, "out of memory");
		return -ENOMEM;
	}
	if (g->size != size) {
		snprintf(c->err, c->errlen, "AllReduce '%s': world_size %d, "
			 "but group '%s' has %d ranks", c->node_name, size,
			 g->name, g->size);
		return -EINVAL;
	}
	deadline(&dl, ms);
	pthread_mutex_lock(&g->mu);
	/* a full execution still being read: its ranks leave soon */
	while (all_arrived(g))
		pthread_cond_wait(&g->cv, &g->mu);
	if (g->at[rank].in) {
		snprintf(c->err, c->errlen, "AllReduce '%s' (group '%s'): two "
			 "models run as rank %d: give each rank its own rank "
			 "attribute", c->node_name, g->name, rank);
		pthread_mutex_unlock(&g->mu);
		return -EINVAL;
	}
	g->at[rank] = (struct arrival){ x->data, x->bytes, x->dtype, op,
					++g->seq[rank], c->node_name };
	if (++g->arrived == g->size)
		pthread_cond_broadcast(&g->cv);
	if (wait_arrivals(g, &dl)) {
		memset(&g->at[rank], 0, sizeof(g->at[rank]));
		g->arrived--;	/* not part of this execution after all */
		snprintf(c->err, c->errlen, "AllReduce '%s' (group '%s'): "
			 "rank %d waited %ld ms, %d of %d ranks arrived (it "
			 "included): every rank's model must execute at the "
			 "same time (NPUCL_GRAPH_TIMEOUT_MS)", c->node_name,
			 g->name, rank, ms, g->arrived + 1, g->size);
		pthread_mutex_unlock(&g->mu);
		return -ETIMEDOUT;
	}
	pthread_mutex_unlock(&g->mu);
	/* all arrived: the table is stable until the last one departs */
	ret = arrivals_agree(g, c->err, c->errlen);
	if (!ret)
		reduce(g, y->data, x->dtype, x->bytes / es, op);
	pthread_mutex_lock(&g->mu);
	if (++g->departed == g->size) {
		memset(g->at, 0, sizeof(g->at));
		g->arrived = 0;
		g->departed = 0;
		g->gen++;
		pthread_cond_broadcast(&g->cv);
	} else {
		/* every rank that arrived reads, then departs: no timeout,
		 * our input must outlive its readers */
		uint64_t gen = g->gen;

		while (g->gen == gen)
			pthread_cond_wait(&g->cv, &g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	return ret;
}

static const struct npuc_attr_schema allreduce_attrs[] = {
	{ "rank", NPUC_ATTR_INT, 1 },
	{ "world_size", NPUC_ATTR_INT, 1 },
	{ "group", NPUC_ATTR_STRING, 0 },
	{ "reduce", NPUC_ATTR_STRING, 0 },
};

static const struct npuc_plugin_op ops[] = {
	{
		.struct_size = sizeof(struct npuc_plugin_op),
		.domain = "com.npu", .op_type = "AllReduce",
		.min_inputs = 1, .max_inputs = 1,
		.min_outputs = 1, .max_outputs = 1,
		.attrs = allreduce_attrs,
		.num_attrs = sizeof(allreduce_attrs) / sizeof(allreduce_attrs[0]),
		.infer = allreduce_infer, .host_kernel = allreduce_kernel,
	},
};

static const struct npuc_plugin plugin = {
	.struct_size = sizeof(struct npuc_plugin),
	.abi_version = NPUC_PLUGIN_ABI_VERSION,
	.name = "npucl-ops",
	.version = "1.0.0",
	.ops = ops,
	.num_ops = sizeof(ops) / sizeof(ops[0]),
};

const struct npuc_plugin *npuc_plugin_entry(void)
{
	return &plugin;
}
