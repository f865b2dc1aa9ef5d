// SPDX-License-Identifier: MIT
/*
 * test_partition - the partition cache on a small hand-built graph:
 * where it cuts, keys that follow the structure and not the names, keys
 * that change downstream of a changed weight, derived constants kept and
 * found again, and damaged entries that give nothing.
 *
 *   x -> MatMul(W1) -> Relu -> MatMul(W2) -> Add(.., relu) -> MatMul(W3)
 *
 * cuts after MatMul1 (one value live), after Relu, after the Add (the
 * residual joins): partitions {MatMul1} {Relu} {MatMul2, Add} {MatMul3}.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/partition.h"
#include "passes/derive.h"
#include "tests/npuc_tap.h"

static char dir[256];
static bool detached = true;

struct net {
	struct ir_graph *g;
	struct ir_tensor *w[3];
};

static struct ir_tensor *weight(struct ir_graph *g, const char *name,
				float seed)
{
	struct ir_shape s = ir_shape_make(2, (int64_t[]){ 16, 16 });
	struct ir_tensor *t = ir_tensor_new(g, name, IR_F32, &s);
	float v[256];

	for (int i = 0; i < 256; i++)
		v[i] = seed + (float)i / 256.0f;
	ir_tensor_set_data(t, v, sizeof(v));
	return t;
}

/* The graph above; @p prefixes every name, @seed3 seeds W3, @seed1 W1. */
static struct net build(const char *p, float seed1, float seed3)
{
	struct ir_shape s = ir_shape_make(2, (int64_t[]){ 4, 16 });
	struct net n = { .g = ir_graph_new("net") };
	struct ir_graph *g = n.g;
	struct ir_tensor *t[6];
	char name[64];

	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "%sv%d", p, i);
		t[i] = ir_tensor_new(g, name, IR_F32, &s);
	}
	snprintf(name, sizeof(name), "%sW1", p);
	n.w[0] = weight(g, name, seed1);
	snprintf(name, sizeof(name), "%sW2", p);
	n.w[1] = weight(g, name, 2.0f);
	snprintf(name, sizeof(name), "%sW3", p);
	n.w[2] = weight(g, name, seed3);
	ir_graph_add_input(g, t[0]);
#define NODE(op, nm, ni, ...) do { \
		snprintf(name, sizeof(name), "%s" nm, p); \
		ir_node_new(g, op, name, ni, \
			    (struct ir_tensor *[]){ __VA_ARGS__ }, 1, \
			    &t[nm[1] - '0']); \
	} while (0)
	NODE(IR_OP_MATMUL, "n1", 2, t[0], n.w[0]);
	NODE(IR_OP_RELU, "n2", 1, t[1]);
	NODE(IR_OP_MATMUL, "n3", 2, t[2], n.w[1]);
	NODE(IR_OP_ADD, "n4", 2, t[3], t[2]);
	NODE(IR_OP_MATMUL, "n5", 2, t[4], n.w[2]);
#undef NODE
	ir_graph_add_output(g, t[5]);
	return n;
}

static const struct cache_key salt = { { 1, 2 } };

/* What a pass does: derive "transposed" bytes of @w (or fetch them). */
static bool derive_w(struct ir_graph *g, struct ir_tensor *w, float *out)
{
	struct derive d;
	const float *src = w->data;

	if (!derive_begin(&d, g, "test-negate/1"))
		return false;
	derive_tensor(&d, w);
	if (derive_fetch(&d, w, out, w->nbytes))
		return true;
	for (size_t i = 0; i < w->nbytes / sizeof(float); i++)
		out[i] = -src[i];
	derive_keep(&d, w, out, w->nbytes);
	return false;
}

/* Open, derive the three weights, store, close: the stats. */
static struct part_stats run(struct net n, const struct cache_key *k,
			     int *hits, bool *right)
{
	struct part_stats st = { 0 };
	struct part_cache *pc;
	float out[256];

	*hits = 0;
	*right = true;
	if (part_cache_open(&pc, dir, n.g, k)) {
		ir_graph_free(n.g);
		return st;
	}
	for (int i = 0; i < 3; i++) {
		const float *src = n.w[i]->data;

		memset(out, 0, sizeof(out));
		*hits += derive_w(n.g, n.w[i], out);
		for (int e = 0; e < 256; e++)
			*right &= out[e] == -src[e];
	}
	part_cache_store(pc);
	part_cache_stats(pc, &st);
	part_cache_close(pc);
	detached &= n.g->derive == NULL;
	ir_graph_free(n.g);
	return st;
}

static int count_entries(void)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	while (dp && (d = readdir(dp)))
		n += strstr(d->d_name, ".npup") && !strstr(d->d_name, ".tmp");
	if (dp)
		closedir(dp);
	return n;
}

/* Flip a byte at @off of every entry file whose size exceeds @min. */
static int damage(long off, long min)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	while (dp && (d = readdir(dp))) {
		char path[600];
		unsigned char b;
		int fd;

		if (!strstr(d->d_name, ".npup"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		fd = open(path, O_RDWR);
		if (fd < 0)
			continue;
		if (lseek(fd, 0, SEEK_END) > min &&
		    pread(fd, &b, 1, off) == 1) {
			b ^= 0x5a;
			n += pwrite(fd, &b, 1, off) == 1;
		}
		close(fd);
	}
	if (dp)
		closedir(dp);
	return n;
}

int main(void)
{
	struct cache_key other = { { 3, 4 } };
	struct part_stats st;
	int hits;
	bool right;

	snprintf(dir, sizeof(dir), "/tmp/test_partition.%d", (int)getpid());
	if (mkdir(dir, 0700)) {
		printf("Bail out! mkdir %s\n", dir);
		return 1;
	}

	st = run(build("", 1.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions == 4 && st.nodes == 5,
	   "cut where one value is live: %u partitions of %u nodes",
	   st.partitions, st.nodes);
	ok(st.partitions_found == 0 && st.partitions_stored == 4 &&
	   hits == 0 && right && count_entries() == 4,
	   "cold: nothing found, 4 entries stored (%d on disk), derived right",
	   count_entries());

	st = run(build("", 1.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions_found == 4 && st.nodes_reused == 5 && hits == 3 &&
	   right && st.bytes_reused == 3 * 1024 && st.partitions_stored == 0,
	   "again: 4 found, 5 nodes reused, 3 constants fetched right (%llu bytes)",
	   (unsigned long long)st.bytes_reused);

	st = run(build("other_", 1.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions_found == 4 && hits == 3 && right,
	   "every node and tensor renamed: the same partitions (%u found)",
	   st.partitions_found);

	st = run(build("", 1.0f, 5.0f), &salt, &hits, &right);
	ok(st.partitions_found == 3 && st.nodes_reused == 4 && hits == 2 &&
	   right && count_entries() == 5,
	   "a new last weight (a new head): 3 of 4 found, 4 nodes reused, %d entries",
	   count_entries());

	st = run(build("", 7.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions_found == 3 && hits == 2 && right &&
	   count_entries() == 6,
	   "a new first weight: only its partition is new (%u found, %d fetched)",
	   st.partitions_found, hits);

	st = run(build("", 1.0f, 3.0f), &other, &hits, &right);
	ok(st.partitions_found == 0 && hits == 0 && right,
	   "other options (salt): nothing found");

	/* bytes of a kept constant damaged: its check fails, derived again */
	ok(damage(sizeof(uint64_t) * 8 + 8, 1000) > 0,
	   "damaged a constant's bytes in the entries");
	st = run(build("", 1.0f, 3.0f), &salt, &hits, &right);
	ok(hits == 0 && right && st.corrupt > 0,
	   "damaged bytes: never copied (%d hits, %u damaged), derived again",
	   hits, st.corrupt);

	/* a damaged header: the entry is removed */
	ok(damage(0, 0) > 0, "damaged every entry's magic");
	st = run(build("", 1.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions_found == 0 && st.corrupt >= 4 && right &&
	   st.partitions_stored == 4,
	   "damaged entries are removed and stored again (%u removed)",
	   st.corrupt);
	st = run(build("", 1.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions_found == 4 && hits == 3 && right,
	   "and found again afterwards");

	ok(detached, "closing took the store off the graph every time");
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			ok(false, "remove %s", dir);
	}
	printf("1..%d\n", test_no);
	return failures != 0;
}
