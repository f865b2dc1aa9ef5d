// SPDX-License-Identifier: MIT
/*
 * npucl_test.c - the collectives on 2, 3 and 4 ranks, every dtype and op.
 *
 *   npucl_test [DIR]        in one process: NPU_SIM_DEVICES=4 in-process
 *                           devices, one rank each (no DIR: no files, the
 *                           sanitizer build's run)
 *   npucl_test --mpi DIR    one rank per MPI process (mpirun -np 4), on
 *                           sub-communicators of 2, 3 and 4 ranks
 *
 * NPUCL_TEST_RANKS=N limits the in-process run to N ranks, and
 * NPUCL_TEST_QUICK=1 to AllReduce sum for every dtype and f32 for the
 * other collectives (the VM's subset: under emulation every step costs).
 *
 * Prints TAP for what it checks itself (calls succeed, every rank's result
 * identical bit for bit) and writes each case's inputs and outputs to
 * DIR/<case>/ (meta, in_<rank>.bin, out_<rank>.bin) for check_npucl.py,
 * which compares them with numpy bit for bit.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef NPUCL_HAVE_MPI
#include <mpi.h>
#endif

#include "npucl.h"
#include "npurt.h"

#define MAX_RANKS	4

static int tests, fails;
static const char *outdir;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		fails++;
}

static const struct {
	npurt_dtype dt;
	const char *name;
	uint32_t size;
} dts[] = {
	{ NPURT_DTYPE_F32, "f32", 4 }, { NPURT_DTYPE_F16, "f16", 2 },
	{ NPURT_DTYPE_I8, "i8", 1 }, { NPURT_DTYPE_U8, "u8", 1 },
	{ NPURT_DTYPE_I32, "i32", 4 }, { NPURT_DTYPE_I64, "i64", 8 },
	{ NPURT_DTYPE_BOOL, "bool", 1 },
};
static const char *const ops[] = { "sum", "prod", "max", "min" };

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 17;
}

/* Values whose products over 4 ranks stay finite and exact enough. */
static void fill(void *p, uint64_t n, uint32_t di, uint64_t seed)
{
	uint64_t s = seed * 7919 + 17;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = lcg(&s);

		switch (dts[di].dt) {
		case NPURT_DTYPE_F32: {
			float f = (float)((int64_t)(v % 20001) - 10000) / 997.0f;

			memcpy((char *)p + i * 4, &f, 4);
			break;
		}
		case NPURT_DTYPE_F16: {
			/* sign, exponent 12..17 (0.125 .. 4), any mantissa */
			uint16_t h = (uint16_t)(((v & 1) << 15) |
						((12 + (v >> 1) % 6) << 10) |
						((v >> 4) & 0x3ff));

			memcpy((char *)p + i * 2, &h, 2);
			break;
		}
		case NPURT_DTYPE_I8: case NPURT_DTYPE_U8:
			((uint8_t *)p)[i] = (uint8_t)v;
			break;
		case NPURT_DTYPE_I32: {
			int32_t x = (int32_t)(uint32_t)(v * 2654435761u);

			memcpy((char *)p + i * 4, &x, 4);
			break;
		}
		case NPURT_DTYPE_I64: {
			uint64_t x = v * 0x9e3779b97f4a7c15ull;

			memcpy((char *)p + i * 8, &x, 8);
			break;
		}
		default:
			((uint8_t *)p)[i] = (uint8_t)(v % 3 == 0);
			break;
		}
	}
}

static int write_file(const char *dir, const char *name, const void *p,
		      size_t n)
{
	char path[512];
	FILE *f;
	int ok_ = 0;

	if (!outdir)
		return 0;	/* no DIR: the checks of this program only */
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	ok_ = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok_ ? 0 : -1;
}

/* One rank's view of a test: its communicator, stream and context. */
struct rank {
	npucl_comm *comm;
	npurt_stream *s;
	npurt_context *ctx;
	uint32_t r;
};

enum kind { K_ALLREDUCE, K_ALLGATHER, K_REDUCE_SCATTER, K_BROADCAST, K_P2P };
static const char *const kinds[] = { "allreduce", "allgather",
				     "reduce_scatter", "broadcast",
				     "sendrecv" };

struct tcase {
	enum kind k;
	uint32_t di, op, n, root;
	uint64_t count;
	const char *algo;
};

static uint64_t in_elems(const struct tcase *t)
{
	return t->k == K_REDUCE_SCATTER ? t->count * t->n : t->count;
}

static uint64_t out_elems(const struct tcase *t)
{
	return t->k == K_ALLGATHER ? t->count * t->n : t->count;
}

static npurt_status issue(const struct tcase *t, struct rank *rk,
			  npurt_mem *in, npurt_mem *out)
{
	npurt_dtype dt = dts[t->di].dt;

	switch (t->k) {
	case K_ALLREDUCE:
		return npucl_allreduce(in, out, t->count, dt, t->op, rk->comm,
				       rk->s);
	case K_ALLGATHER:
		return npucl_allgather(in, out, t->count, dt, rk->comm, rk->s);
	case K_REDUCE_SCATTER:
		return npucl_reduce_scatter(in, out, t->count, dt, t->op,
					    rk->comm, rk->s);
	case K_BROADCAST:
		/* in place: out holds the input */
		return npucl_broadcast(out, t->count, dt, t->root, rk->comm,
				       rk->s);
	default:
		/* a ring: every rank sends to r + 1, receives from r - 1 */
		if (rk->r % 2 == 0) {
			npurt_status st = npucl_send(in, t->count, dt,
						     (rk->r + 1) % t->n,
						     rk->comm, rk->s);

			return st ? st : npucl_recv(out, t->count, dt,
						    (rk->r + t->n - 1) % t->n,
						    rk->comm, rk->s);
		} else {
			npurt_status st = npucl_recv(out, t->count, dt,
						     (rk->r + t->n - 1) % t->n,
						     rk->comm, rk->s);

			return st ? st : npucl_send(in, t->count, dt,
						    (rk->r + 1) % t->n,
						    rk->comm, rk->s);
		}
	}
}

static void case_name(const struct tcase *t, const char *mode, char *buf,
		      size_t len)
{
	snprintf(buf, len, "%s-%s-n%u-%s-%s-%llu%s%s", mode, kinds[t->k], t->n,
		 dts[t->di].name,
		 t->k == K_ALLREDUCE || t->k == K_REDUCE_SCATTER ?
		 ops[t->op] : "none", (unsigned long long)t->count,
		 t->algo ? "-" : "", t->algo ? t->algo : "");
}

/*
 * Runs @t on the @nr ranks of @rk held by this process (all n in one
 * process, one under MPI); writes the files; returns whether the calls
 * succeeded, and the outputs in @outs.
 */
static int run_case(const struct tcase *t, struct rank *rk, uint32_t nr,
		    const char *mode, uint8_t **outs)
{
	uint64_t es = dts[t->di].size, ib = in_elems(t) * es,
		 ob = out_elems(t) * es;
	npurt_mem *in[MAX_RANKS] = { NULL }, *out[MAX_RANKS] = { NULL };
	uint8_t *hin = malloc(ib);
	char name[256], dir[512], meta[256];
	int good = hin != NULL;

	case_name(t, mode, name, sizeof(name));
	snprintf(dir, sizeof(dir), "%s/%s", outdir ? outdir : ".", name);
	if (outdir)
		mkdir(dir, 0755);
	for (uint32_t i = 0; i < nr && good; i++) {
		uint32_t r = rk[i].r;
		char f[64];

		if (!npurt_mem_alloc(rk[i].ctx, ib, &in[i]) &&
		    !npurt_mem_alloc(rk[i].ctx, ob, &out[i])) {
			fill(hin, in_elems(t), t->di, r * 1000003ull + t->count +
			     t->di * 31 + t->op * 7 + t->k * 131 + t->n);
			good &= !npurt_memcpy_h2d(in[i], 0, hin, ib);
			if (t->k == K_BROADCAST)
				good &= !npurt_memcpy_h2d(out[i], 0, hin, ob);
			else	/* garbage that must be overwritten */
				good &= !npurt_memset(out[i], 0, 0xa5, ob);
			snprintf(f, sizeof(f), "in_%u.bin", r);
			good &= !write_file(dir, f, hin, ib);
		} else {
			good = 0;
		}
	}
	for (uint32_t i = 0; i < nr && good; i++)
		good &= !issue(t, &rk[i], in[i], out[i]);
	for (uint32_t i = 0; i < nr; i++)
		good &= !npurt_stream_synchronize(rk[i].s);
	for (uint32_t i = 0; i < nr && good; i++) {
		char f[64];

		outs[i] = malloc(ob);
		good &= outs[i] && !npurt_memcpy_d2h(outs[i], out[i], 0, ob);
		snprintf(f, sizeof(f), "out_%u.bin", rk[i].r);
		good &= good && !write_file(dir, f, outs[i], ob);
	}
	snprintf(meta, sizeof(meta), "%s %s %u %s %llu %u\n", kinds[t->k],
		 dts[t->di].name, t->n, ops[t->op],
		 (unsigned long long)t->count, t->root);
	if (rk[0].r == 0)
		write_file(dir, "meta", meta, strlen(meta));
	for (uint32_t i = 0; i < nr; i++) {
		npurt_mem_free(in[i]);
		npurt_mem_free(out[i]);
	}
	free(hin);
	return good;
}

static void run_all(struct rank *rk, uint32_t nr, uint32_t n,
		    const char *mode)
{
	static const char *const algos[] = { NULL, "oneshot", "twoshot" };
	struct tcase t;

	for (uint32_t k = 0; k <= K_P2P; k++)
		for (uint32_t di = 0; di < sizeof(dts) / sizeof(dts[0]); di++)
			for (uint32_t op = 0; op < 4; op++) {
				uint8_t *outs[MAX_RANKS] = { NULL };
				char name[256];
				int good, same = 1;

				if (op && k != K_ALLREDUCE &&
				    k != K_REDUCE_SCATTER)
					continue;
				/* NPUCL_TEST_QUICK=1 (the VM): every dtype
				 * for AllReduce sum, f32 for the others */
				if (getenv("NPUCL_TEST_QUICK") &&
				    (op || (k != K_ALLREDUCE && di)))
					continue;
				memset(&t, 0, sizeof(t));
				t.k = k;
				t.di = di;
				t.op = op;
				t.n = n;
				t.root = n - 1;
				/* not a multiple of n; several pieces for
				 * the small staging buffer of make check */
				t.count = 1000 + 3 * di + op;
				if (k == K_ALLREDUCE && di == 0 && op == 0)
					t.count = 40000 + n;
				if (k == K_P2P && n % 2)
					continue;	/* pairs need even n */
				case_name(&t, mode, name, sizeof(name));
				good = run_case(&t, rk, nr, mode, outs);
				if (good && nr > 1 && k != K_REDUCE_SCATTER &&
				    k != K_P2P)
					for (uint32_t i = 1; i < nr; i++)
						same &= !memcmp(outs[0],
							outs[i],
							out_elems(&t) *
							dts[di].size);
				ok(good && same, "%s: %s", name,
				   !good ? "failed" : same ?
				   "ran, identical on every rank" :
				   "ranks differ");
				for (uint32_t i = 0; i < nr; i++)
					free(outs[i]);
			}
	/* the same allreduce by each algorithm: the same bits */
	if (nr == n) {
		uint8_t *ref[MAX_RANKS] = { NULL };

		for (uint32_t a = 0; a < 3; a++) {
			uint8_t *outs[MAX_RANKS] = { NULL };
			int good, same = 1;

			memset(&t, 0, sizeof(t));
			t.k = K_ALLREDUCE;
			t.di = 1;	/* f16: rounding shows any reorder */
			t.n = n;
			t.count = 30011;
			t.algo = algos[a];
			for (uint32_t i = 0; i < nr; i++)
				npucl_comm_set_algo(rk[i].comm, a);
			good = run_case(&t, rk, nr, mode, outs);
			for (uint32_t i = 0; good && a && i < nr; i++)
				same &= !memcmp(ref[i], outs[i], t.count * 2);
			ok(good && same, "%s allreduce f16 n%u algo %s: %s",
			   mode, n, a ? algos[a] : "auto",
			   a ? "same bits as auto" : "ran");
			for (uint32_t i = 0; i < nr; i++) {
				if (a)
					free(outs[i]);
				else
					ref[i] = outs[i];
			}
		}
		for (uint32_t i = 0; i < nr; i++) {
			npucl_comm_set_algo(rk[i].comm, NPUCL_ALGO_AUTO);
			free(ref[i]);
		}
	}
}

/* A communicator from a rank table: devices 3 and 1 as ranks 0 and 1. */
static void rank_table(const char *dev1, const char *dev3)
{
	char table[512];
	npucl_comm *comms[MAX_RANKS];
	struct rank rk[MAX_RANKS];
	uint8_t *outs[MAX_RANKS] = { NULL };
	char path[512];
	uint32_t n = 0;
	struct tcase t;
	FILE *f;
	int good;

	snprintf(table, sizeof(table),
		 "{\n  \"version\": \"1.0\",\n  \"ranks\": [\n"
		 "    { \"rank_id\": 1, \"device\": \"%s\" },\n"
		 "    { \"rank_id\": 0, \"device\": \"%s\" }\n  ]\n}\n",
		 dev1, dev3);
	if (outdir)
		snprintf(path, sizeof(path), "%s/ranktable.json", outdir);
	else
		snprintf(path, sizeof(path), "/tmp/npucl_ranktable.%d.json",
			 (int)getpid());
	f = fopen(path, "w");
	if (f) {
		fputs(table, f);
		fclose(f);
	}

	ok(npucl_comm_init_rank_table("/nonexistent.json", comms, MAX_RANKS,
				      &n) != NPURT_OK,
	   "rank table: a missing file is refused");
	if (npucl_comm_init_rank_table(path, comms, MAX_RANKS, &n) || n != 2) {
		ok(0, "rank table: 2 ranks from %s", path);
		return;
	}
	if (!outdir)
		unlink(path);
	ok(npucl_comm_rank(comms[1]) == 1 && npucl_comm_size(comms[0]) == 2,
	   "rank table: 2 ranks, numbered as the table says");
	for (uint32_t i = 0; i < n; i++) {
		rk[i].comm = comms[i];
		rk[i].ctx = npucl_comm_context(comms[i]);
		rk[i].r = i;
		npurt_stream_create(rk[i].ctx, NPURT_PRIORITY_NORMAL, &rk[i].s);
	}
	memset(&t, 0, sizeof(t));
	t.k = K_ALLREDUCE;
	t.n = 2;
	t.count = 5000;
	t.algo = "ranktable";
	good = run_case(&t, rk, n, "proc", outs);
	ok(good && !memcmp(outs[0], outs[1], t.count * 4),
	   "rank table: allreduce f32 on its communicators");
	for (uint32_t i = 0; i < n; i++) {
		free(outs[i]);
		npurt_stream_destroy(rk[i].s);
		npucl_comm_destroy(comms[i]);
	}
}

static int in_process(void)
{
	npurt_device *dev[MAX_RANKS];
	npurt_context *ctx[MAX_RANKS];
	char names[MAX_RANKS][64];
	uint32_t ndev = 0;

	if (npurt_init(0) || npurt_device_count(&ndev) || ndev < MAX_RANKS) {
		printf("Bail out! need %d devices (NPU_SIM_DEVICES=%d), have %u\n",
		       MAX_RANKS, MAX_RANKS, ndev);
		return 1;
	}
	ok(ndev == MAX_RANKS, "npurt_device_count: %u devices", ndev);
	for (uint32_t i = 0; i < MAX_RANKS; i++) {
		npurt_device_info info;

		if (npurt_device_open(i, &dev[i]) ||
		    npurt_context_create(dev[i], 0, &ctx[i])) {
			printf("Bail out! device %u\n", i);
			return 1;
		}
		npurt_device_get_info(dev[i], &info);
		snprintf(names[i], sizeof(names[i]), "%s", info.name);
		ok(1, "device %u: %s", i, info.name);
	}
	/* NPUCL_TEST_RANKS=N: only communicators of N ranks (the VM) */
	const char *only = getenv("NPUCL_TEST_RANKS");

	for (uint32_t n = 2; n <= MAX_RANKS; n++) {
		npucl_comm *comms[MAX_RANKS];

		if (only && *only && (uint32_t)atoi(only) != n)
			continue;
		struct rank rk[MAX_RANKS];
		npurt_status st = npucl_comm_init_all(ctx, n, comms);

		ok(!st, "npucl_comm_init_all: %u ranks", n);
		if (st)
			continue;
		for (uint32_t i = 0; i < n; i++) {
			rk[i].comm = comms[i];
			rk[i].ctx = ctx[i];
			rk[i].r = i;
			npurt_stream_create(ctx[i], NPURT_PRIORITY_NORMAL,
					    &rk[i].s);
		}
		run_all(rk, n, n, "proc");
		for (uint32_t i = 0; i < n; i++) {
			npurt_stream_destroy(rk[i].s);
			npucl_comm_destroy(comms[i]);
		}
	}
	for (uint32_t i = 0; i < MAX_RANKS; i++) {
		npurt_context_destroy(ctx[i]);
		npurt_device_close(dev[i]);
	}
	rank_table(names[1], names[3]);
	npurt_finalize();
	return 0;
}

#ifdef NPUCL_HAVE_MPI
static int over_mpi(void)
{
	npurt_device *dev;
	npurt_context *ctx;
	int level, rank, size;

	MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	{
		/* one TAP file per rank: the ranks' lines never interleave */
		char path[512];

		snprintf(path, sizeof(path), "%s/tap_%d.log", outdir, rank);
		if (!freopen(path, "w", stdout))
			return 1;
		setvbuf(stdout, NULL, _IOLBF, 0);
	}
	if (npurt_init(0) || npurt_device_open(0, &dev) ||
	    npurt_context_create(dev, 0, &ctx)) {
		printf("Bail out! rank %d: no device\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int n = 2; n <= size && n <= MAX_RANKS; n++) {
		MPI_Comm sub;
		npucl_comm *comm;
		struct rank rk;
		npurt_status st;
		int in = rank < n;

		MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, rank,
			       &sub);
		if (!in)
			continue;
		st = npucl_comm_init_mpi(&sub, ctx, &comm);
		ok(!st, "rank %d: npucl_comm_init_mpi: %d ranks", rank, n);
		if (!st) {
			rk.comm = comm;
			rk.ctx = ctx;
			rk.r = (uint32_t)rank;
			npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &rk.s);
			run_all(&rk, 1, (uint32_t)n, "mpi");
			npurt_stream_destroy(rk.s);
			npucl_comm_destroy(comm);
		}
		MPI_Comm_free(&sub);
	}
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	MPI_Finalize();
	return 0;
}
#endif

int main(int argc, char **argv)
{
	int mpi = argc > 1 && !strcmp(argv[1], "--mpi");

	if (argc > 2 + mpi) {
		fprintf(stderr, "usage: npucl_test [--mpi] [DIR]\n");
		return 2;
	}
	outdir = argc == 2 + mpi ? argv[1 + mpi] : NULL;
	if (outdir)
		mkdir(outdir, 0755);
	else if (mpi) {
		fprintf(stderr, "npucl_test: --mpi needs DIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mpi) {
#ifdef NPUCL_HAVE_MPI
		if (over_mpi())
			return 1;
#else
		printf("1..0 # SKIP built without MPI\n");
		return 0;
#endif
	} else {
		setenv("NPU_SIM_DEVICES", "4", 0);
		if (in_process())
			return 1;
	}
	printf("1..%d\n", tests);
	return fails ? 1 : 0;
}
