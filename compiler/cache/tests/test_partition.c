// SPDX-License-Identifier: MIT
/*
 * test_partition - the partition cache on a small hand-built graph:
 * where it cuts, keys that follow the structure and not the names, keys
 * that change downstream of a changed weight, derived constants kept and
 * found again, and damaged entries that give nothing.
 *
 *   x -> MatMul(W1) -> Relu -> MatMul(W2) -> Add(.., relu) -> MatMul(W3)
 *
 * cuts after MatMul1 (one value live, a 16 KiB weight), not after the Relu
 * (no weight of its own: it joins the next), after the Add (the residual
 * joins): partitions {MatMul1} {Relu, MatMul2, Add} {MatMul3}.
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
	struct ir_shape s = ir_shape_make(2, (int64_t[]){ 64, 64 });
	struct ir_tensor *t = ir_tensor_new(g, name, IR_F32, &s);
	float v[4096];

	for (int i = 0; i < 4096; i++)
		v[i] = seed + (float)i / 4096.0f;
	ir_tensor_set_data(t, v, sizeof(v));
	return t;
}

/* The graph above; @p prefixes every name, @seed3 seeds W3, @seed1 W1. */
static struct net build(const char *p, float seed1, float seed3)
{
	struct ir_shape s = ir_shape_make(2, (int64_t[]){ 4, 64 });
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
	float out[4096];

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
		for (int e = 0; e < 4096; e++)
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

/* The header and record layouts of partition.c, for crafted entries. */
struct hdr {
	char magic[8];
	uint32_t version, num_recs;
	uint64_t key[2], table_offset, table_xxh, file_size;
};

struct rec {
	uint64_t key[2], offset, nbytes, xxh;
	double ms;
};

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A value near an edge: 0, small, around the file's size, near 2^64. */
static uint64_t edgy(uint64_t size)
{
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return rnd() % 256;
	case 2: return size + rnd() % 16 - 8;
	case 3: return UINT64_MAX - rnd() % 64;
	case 4: return (uint64_t)1 << (rnd() % 64);
	default: return rnd();
	}
}

/*
 * Every entry rewritten 200 times as a crafted file: the right magic,
 * version and key, adversarial offsets and sizes, a record table whose
 * checksum matches (so that the records' checks are what stands), or
 * plain noise. A compile must derive right and never crash (ASan runs
 * this too).
 */
static void garbage(void)
{
	bool all_right = true;
	int found = 0, files = 0;

	for (int it = 0; it < 200; it++) {
		struct dirent *d;
		DIR *dp = opendir(dir);
		struct part_stats st;
		bool right;
		int hits;

		while (dp && (d = readdir(dp))) {
			static uint8_t buf[20480];
			struct hdr h;
			char path[600];
			size_t size = 64 + rnd() % (sizeof(buf) - 64);
			int fd;

			if (!strstr(d->d_name, ".npup") ||
			    strstr(d->d_name, ".tmp"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			fd = open(path, O_RDWR);
			if (fd < 0)
				continue;
			if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
				memset(&h, 0, sizeof(h));
			for (size_t i = 0; i < size; i++)
				buf[i] = (uint8_t)rnd();
			if (rnd() % 8) {
				uint32_t n = (uint32_t)(rnd() % 8);
				struct rec r[8];

				memcpy(h.magic, "NPUPART1", 8);
				h.version = 1;
				h.num_recs = rnd() % 4 ? n : (uint32_t)edgy(n);
				h.table_offset = rnd() % 2 ? 64 * (1 + rnd() % 8)
							   : edgy(size);
				if (h.table_offset < size &&
				    n * sizeof(*r) <= size - h.table_offset) {
					memcpy(r, buf + h.table_offset,
					       n * sizeof(*r));
					for (uint32_t i = 0; i < n; i++) {
						r[i].offset = edgy(size);
						r[i].nbytes = rnd() % 2 ? 16384 :
							      edgy(size);
					}
					memcpy(buf + h.table_offset, r,
					       n * sizeof(*r));
					h.table_xxh = XXH3_64bits(r, n * sizeof(*r));
				}
				h.file_size = rnd() % 4 ? size : edgy(size);
				memcpy(buf, &h, sizeof(h));
			}
			if (ftruncate(fd, 0) ||
			    pwrite(fd, buf, size, 0) != (ssize_t)size)
				all_right = false;
			close(fd);
			files++;
		}
		if (dp)
			closedir(dp);
		st = run(build("", 1.0f, 3.0f), &salt, &hits, &right);
		all_right &= right;
		found += st.partitions_found;
	}
	ok(all_right && files > 0,
	   "200 rounds of crafted entries (%d files): derived right every time, %d entries passed the checks",
	   files, found);
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
	ok(st.partitions == 3 && st.nodes == 5,
	   "cut where one value is live: %u partitions of %u nodes",
	   st.partitions, st.nodes);
	ok(st.partitions_found == 0 && st.partitions_stored == 3 &&
	   hits == 0 && right && count_entries() == 3,
	   "cold: nothing found, 3 entries stored (%d on disk), derived right",
	   count_entries());

	st = run(build("", 1.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions_found == 3 && st.nodes_reused == 5 && hits == 3 &&
	   right && st.bytes_reused == 3 * 16384 && st.partitions_stored == 0,
	   "again: 3 found, 5 nodes reused, 3 constants fetched right (%llu bytes)",
	   (unsigned long long)st.bytes_reused);

	st = run(build("other_", 1.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions_found == 3 && hits == 3 && right,
	   "every node and tensor renamed: the same partitions (%u found)",
	   st.partitions_found);

	st = run(build("", 1.0f, 5.0f), &salt, &hits, &right);
	ok(st.partitions_found == 2 && st.nodes_reused == 4 && hits == 2 &&
	   right && count_entries() == 4,
	   "a new last weight (a new head): 2 of 3 found, 4 nodes reused, %d entries",
	   count_entries());

	st = run(build("", 7.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions_found == 2 && hits == 2 && right &&
	   count_entries() == 5,
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
	ok(st.partitions_found == 0 && st.corrupt >= 3 && right &&
	   st.partitions_stored == 3,
	   "damaged entries are removed and stored again (%u removed)",
	   st.corrupt);
	st = run(build("", 1.0f, 3.0f), &salt, &hits, &right);
	ok(st.partitions_found == 3 && hits == 3 && right,
	   "and found again afterwards");

	garbage();
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
