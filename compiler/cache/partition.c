// SPDX-License-Identifier: MIT
/*
 * partition.c - the partition cache (see partition.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/partition.h"
#include "ir/ir.h"

#define PART_MAGIC	"NPUPART1"
#define PART_VERSION	1
#define PART_ALIGN	64

/* An entry file: this header, the records' bytes, then the records. */
struct part_file_header {
	char magic[8];
	uint32_t version;
	uint32_t num_recs;
	uint64_t key[2];
	uint64_t table_offset;
	uint64_t table_xxh;		/* XXH3-64 of the records */
	uint64_t file_size;
};

/* One derived constant of an entry. */
struct part_rec {
	uint64_t key[2];		/* its derivation key (derive.h) */
	uint64_t offset;		/* of its bytes in the file */
	uint64_t nbytes;
	uint64_t xxh;			/* XXH3-64 of the bytes */
	double ms;			/* what deriving it cost */
};

struct part {
	struct cache_key key;
	int first, count;		/* nodes, in the planned order */
	/*
	 * The first partition of the graph with the same key (the same
	 * nodes and constants: blocks without weights repeat): one entry
	 * holds what both derive, written once.
	 */
	int canon;
	/* the entry found in the cache, mapped */
	uint8_t *map;
	size_t map_size;
	const struct part_rec *recs;
	uint32_t num_recs;
	/* this compile: fetches that hit or missed, records kept */
	uint32_t hits, misses;
	struct part_rec *kept;
	uint32_t num_kept, cap_kept;
	int fd;				/* the new entry, being written */
	uint64_t fd_size;
	bool failed;			/* a write failed: store nothing */
	char *tmp;			/* its temporary file (malloc'ed) */
};

struct name_slot {
	char *name;
	int part;
};

struct rec_slot {
	const struct part_rec *rec;
	int part;
};

struct part_cache {
	struct ir_derive_store store;
	struct ir_graph *g;
	char dir[4096];
	struct part *parts;
	int num_parts;
	struct name_slot *names;	/* node and constant names -> part */
	uint32_t names_cap;
	struct rec_slot *index;		/* loaded records by key */
	uint32_t index_cap;
	struct part_stats st;
};

static double pc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- names -> partitions ------------------------------------------------ */

static int names_add(struct part_cache *pc, const char *name, int part)
{
	uint32_t i;

	if (!name || !*name)
		return 0;
	i = (uint32_t)XXH3_64bits(name, strlen(name)) & (pc->names_cap - 1);
	for (; pc->names[i].name; i = (i + 1) & (pc->names_cap - 1))
		if (!strcmp(pc->names[i].name, name))
			return 0;	/* the first partition keeps it */
	pc->names[i].name = strdup(name);
	if (!pc->names[i].name)
		return -ENOMEM;
	pc->names[i].part = part;
	return 0;
}

static int names_find(const struct part_cache *pc, const char *name)
{
	uint32_t i;

	if (!name || !pc->names_cap)
		return -1;
	i = (uint32_t)XXH3_64bits(name, strlen(name)) & (pc->names_cap - 1);
	for (; pc->names[i].name; i = (i + 1) & (pc->names_cap - 1))
		if (!strcmp(pc->names[i].name, name))
			return pc->names[i].part;
	return -1;
}

/*
 * The partition a derived constant belongs to: that of the ONNX nodes
 * that read it (a fused node names them in its origins), else that of
 * its own name, else the last one.
 */
static int owner_part(const struct part_cache *pc, const struct ir_tensor *t)
{
	int p;

	for (int u = 0; t && u < t->num_uses; u++) {
		const struct ir_node *n = t->uses[u].node;

		for (int k = 0; k < n->num_origins; k++) {
			p = names_find(pc, n->origins[k]);
			if (p >= 0)
				return p;
		}
		p = names_find(pc, n->name);
		if (p >= 0)
			return p;
	}
	p = t ? names_find(pc, t->name) : -1;
	return p >= 0 ? p : pc->num_parts - 1;
}

/* ---- keys and cuts --------------------------------------------------------- */

static bool is_const(const struct ir_tensor *t)
{
	return !t->producer && !t->is_input;
}

/*
 * What a node can read of a constant (its name is not in it). A small
 * integer constant (a Reshape's target, a Slice's ends: at most 16
 * elements) counts by its type alone: such constants follow the batch or
 * the sequence length once shapes are bound, and the partition should be
 * found at every length (what is derived from them has them in its key).
 */
static struct cache_key const_digest(const struct ir_tensor *t)
{
	struct cache_hasher h;

	cache_hash_init(&h);
	if ((t->dtype == IR_I64 || t->dtype == IR_I32) &&
	    t->nbytes <= 16 * sizeof(int64_t)) {
		cache_hash_str(&h, "small int");
		cache_hash_u64(&h, (uint64_t)t->dtype);
		cache_hash_u64(&h, (uint64_t)t->shape.rank);
		return cache_hash_final(&h);
	}
	cache_hash_str(&h, "const");
	cache_hash_u64(&h, (uint64_t)t->dtype);
	cache_hash_u64(&h, (uint64_t)t->layout);
	cache_hash_u64(&h, (uint64_t)t->w_olast);
	cache_hash_u64(&h, (uint64_t)t->int4);
	cache_hash_u64(&h, (uint64_t)t->shape.rank);
	for (int i = 0; i < t->shape.rank; i++)
		cache_hash_u64(&h, (uint64_t)t->shape.dim[i]);
	cache_hash_u64(&h, t->nbytes);
	if (t->data) {
		uint64_t dg[2];

		ir_tensor_digest(t, dg);
		cache_hash_bytes(&h, dg, sizeof(dg));
	} else
		cache_hash_str(&h, t->name);	/* a value with no source */
	return cache_hash_final(&h);
}

static void hash_key(struct cache_hasher *h, const struct cache_key *k)
{
	cache_hash_u64(h, k->h[0]);
	cache_hash_u64(h, k->h[1]);
}

/*
 * A value (not a constant) by its type, layout and rank, not its dims: the
 * same layers at another batch or sequence length (a shape compiled on
 * demand, another gear) find the same partitions, whose derived weights do
 * not depend on the dims (a derivation that does has them in its own key).
 */
static void hash_value_type(struct cache_hasher *h, const struct ir_tensor *t)
{
	cache_hash_u64(h, (uint64_t)t->dtype);
	cache_hash_u64(h, (uint64_t)t->layout);
	cache_hash_u64(h, (uint64_t)t->is_output);
	cache_hash_u64(h, (uint64_t)t->shape.rank);
}

/*
 * An input of a partition's node: a constant by its digest, a value made
 * inside the partition by where (the producer's place in it, the output
 * index), a value from outside by its type only (hash_value_type()).
 */
static void hash_input(struct cache_hasher *h, const struct ir_tensor *t,
		       const struct cache_key *td, const int *pos, int first,
		       int end)
{
	const struct ir_node *pr = t ? t->producer : NULL;

	if (!t) {
		cache_hash_u64(h, UINT64_MAX);
	} else if (is_const(t)) {
		hash_key(h, &td[t->id]);
	} else if (pr && pos[pr->id] >= first && pos[pr->id] < end) {
		int k = 0;

		while (k < pr->num_outputs && pr->outputs[k] != t)
			k++;
		cache_hash_str(h, "inside");
		cache_hash_u64(h, (uint64_t)(pos[pr->id] - first));
		cache_hash_u64(h, (uint64_t)k);
	} else {
		cache_hash_str(h, "outside");
		hash_value_type(h, t);
	}
}

/*
 * A node of a partition: what it computes (op, attributes, the types of
 * its outputs) from what (hash_input()).
 */
static void hash_node(struct cache_hasher *h, const struct ir_node *n,
		      const struct cache_key *td, const int *pos, int first,
		      int end)
{
	int next = 0;

	cache_hash_node_op(h, n);
	cache_hash_u64(h, (uint64_t)n->num_inputs);
	for (int k = 0; k < n->num_inputs; k++)
		hash_input(h, n->inputs[k], td, pos, first, end);
	cache_hash_u64(h, (uint64_t)n->num_attrs);
	for (int k = 0; k < n->num_attrs; k++)
		cache_hash_attr(h, &n->attrs[k], &next, false);
	for (int k = 0; k < n->num_attrs; k++)
		if (n->attrs[k].t)
			n->attrs[k].t->priv = NULL;
	cache_hash_u64(h, (uint64_t)n->num_outputs);
	for (int k = 0; k < n->num_outputs; k++) {
		const struct ir_tensor *t = n->outputs[k];

		if (!t)
			cache_hash_u64(h, UINT64_MAX);
		else
			hash_value_type(h, t);
	}
}

/* The constants' digests, by tensor id. */
static void digest_consts(struct ir_graph *g, struct cache_key *td)
{
	for (int i = 0; i < g->num_tensors; i++)
		if (is_const(g->tensors[i]))
			td[g->tensors[i]->id] = const_digest(g->tensors[i]);
}

/*
 * The position of the last node reading each value (by tensor id; graph
 * outputs live to the end), so that the walk knows how many values are
 * live after each node.
 */
static void last_uses(const struct ir_graph *g, int *pos, int *last)
{
	for (int i = 0; i < g->num_nodes; i++)
		pos[g->nodes[i]->id] = i;
	for (int i = 0; i < g->num_tensors; i++) {
		const struct ir_tensor *t = g->tensors[i];

		last[t->id] = t->is_output ? INT_MAX : -1;
		for (int u = 0; u < t->num_uses; u++)
			if (pos[t->uses[u].node->id] > last[t->id])
				last[t->id] = pos[t->uses[u].node->id];
	}
}

static int add_part(struct part_cache *pc, int first, int count)
{
	struct part *p = &pc->parts[pc->num_parts++];

	memset(p, 0, sizeof(*p));
	p->first = first;
	p->count = count;
	p->fd = -1;
	return pc->num_parts - 1;
}

/* A constant input large enough to be worth deriving once and keeping. */
static bool has_weight(const struct ir_node *n)
{
	for (int k = 0; k < n->num_inputs; k++)
		if (n->inputs[k] && is_const(n->inputs[k]) &&
		    n->inputs[k]->nbytes >= PART_WEIGHT_BYTES)
			return true;
	return false;
}

/*
 * Cut the node order where one value is live and the partition so far
 * holds a weight (PART_WEIGHT_BYTES or more): nodes without weights (an
 * activation, a pooling) join a partition that has them, so that no entry
 * is kept for nothing; or every PART_MAX_NODES nodes.
 */
static void cut(struct part_cache *pc, const struct ir_graph *g,
		const int *last, bool *gone)
{
	int live = 0, first = 0;
	bool weight = false;

	for (int i = 0; i < g->num_inputs; i++)
		live += last[g->inputs[i]->id] >= 0;
	for (int i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];

		for (int k = 0; k < n->num_outputs; k++)
			if (n->outputs[k] && last[n->outputs[k]->id] > i)
				live++;
		for (int k = 0; k < n->num_inputs; k++) {
			const struct ir_tensor *t = n->inputs[k];

			if (!t || is_const(t) || gone[t->id] ||
			    last[t->id] != i)
				continue;
			gone[t->id] = true;
			live--;
		}
		weight |= has_weight(n);
		if ((live <= 1 && weight) || i + 1 - first >= PART_MAX_NODES ||
		    i == g->num_nodes - 1) {
			add_part(pc, first, i + 1 - first);
			first = i + 1;
			weight = false;
		}
	}
}

/*
 * A partition's key: the salt and its nodes, each with its inputs from
 * inside by position and from outside by type and shape only, so that a
 * partition is found again whatever changed upstream of it (what a pass
 * derives inside it depends on nothing else: derive.h keys each constant
 * by everything it is computed from).
 */
static struct cache_key part_key(const struct cache_key *salt,
				 const struct ir_graph *g, const struct part *p,
				 const struct cache_key *td, const int *pos)
{
	int end = p->first + p->count;
	struct cache_hasher h;

	cache_hash_init(&h);
	cache_hash_str(&h, "partition/1");
	hash_key(&h, salt);
	cache_hash_u64(&h, (uint64_t)p->count);
	for (int i = p->first; i < end; i++)
		hash_node(&h, g->nodes[i], td, pos, p->first, end);
	return cache_hash_final(&h);
}

static int map_names(struct part_cache *pc, const struct ir_graph *g)
{
	uint64_t names = 4 * ((uint64_t)g->num_nodes + (uint64_t)g->num_tensors);
	uint32_t want = 16;

	if (names > (1u << 30))
		return -E2BIG;	/* the probe needs free slots */
	while (want < names)
		want <<= 1;
	pc->names = calloc(want, sizeof(*pc->names));
	if (!pc->names)
		return -ENOMEM;
	pc->names_cap = want;
	for (int p = 0; p < pc->num_parts; p++)
		for (int i = pc->parts[p].first;
		     i < pc->parts[p].first + pc->parts[p].count; i++) {
			const struct ir_node *n = g->nodes[i];
			int ret = names_add(pc, n->name, p);

			for (int k = 0; k < n->num_inputs && !ret; k++)
				if (n->inputs[k] && is_const(n->inputs[k]))
					ret = names_add(pc, n->inputs[k]->name,
							p);
			if (ret)
				return ret;
		}
	return 0;
}

static int find_canon(struct part_cache *pc)
{
	uint32_t cap = 16;
	int *slot;

	while (cap < 2u * (uint32_t)pc->num_parts)
		cap <<= 1;
	slot = malloc(cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	memset(slot, 0xff, cap * sizeof(*slot));
	for (int p = 0; p < pc->num_parts; p++) {
		const struct cache_key *k = &pc->parts[p].key;
		uint32_t i = (uint32_t)k->h[0] & (cap - 1);

		while (slot[i] >= 0 &&
		       memcmp(&pc->parts[slot[i]].key, k, sizeof(*k)))
			i = (i + 1) & (cap - 1);
		if (slot[i] < 0)
			slot[i] = p;
		pc->parts[p].canon = slot[i];
	}
	free(slot);
	return 0;
}

/* Partition @g and key the partitions. */
static int plan(struct part_cache *pc, struct ir_graph *g,
		const struct cache_key *salt)
{
	size_t ids = (size_t)g->next_id + 1;
	struct cache_key *td = calloc(ids, sizeof(*td));
	int *pos = calloc(ids, sizeof(*pos)), *last = calloc(ids, sizeof(*last));
	bool *gone = calloc(ids, sizeof(*gone));
	int ret = -ENOMEM;

	pc->parts = calloc((size_t)g->num_nodes + 1, sizeof(*pc->parts));
	if (!td || !pos || !last || !gone || !pc->parts)
		goto out;
	for (int i = 0; i < g->num_tensors; i++)
		g->tensors[i]->priv = NULL;
	digest_consts(g, td);
	last_uses(g, pos, last);
	cut(pc, g, last, gone);
	for (int p = 0; p < pc->num_parts; p++)
		pc->parts[p].key = part_key(salt, g, &pc->parts[p], td, pos);
	ret = find_canon(pc);
	if (!ret)
		ret = map_names(pc, g);
out:
	free(td);
	free(pos);
	free(last);
	free(gone);
	return ret;
}

/* ---- entries: load ------------------------------------------------------- */

static void entry_path(const struct part_cache *pc, const struct part *p,
		       char *out, size_t len)
{
	char hex[33];

	cache_key_hex(&p->key, hex);
	snprintf(out, len, "%s/%s.npup", pc->dir, hex);
}

static bool recs_sane(const struct part_file_header *h, size_t size)
{
	const struct part_rec *r = (const void *)((const uint8_t *)h +
						  h->table_offset);

	for (uint32_t i = 0; i < h->num_recs; i++)
		if (r[i].offset < sizeof(*h) || r[i].offset > h->table_offset ||
		    r[i].nbytes > h->table_offset - r[i].offset ||
		    r[i].offset > size)
			return false;
	return true;
}

/* Map and check @p's entry; a damaged one is removed (counted). */
static void load(struct part_cache *pc, struct part *p)
{
	const struct part_file_header *h;
	char path[4400];
	struct stat st;
	void *m;
	int fd;

	entry_path(pc, p, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(*h)) {
		close(fd);
		goto bad;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	h = m;
	if (memcmp(h->magic, PART_MAGIC, 8) || h->version != PART_VERSION ||
	    h->key[0] != p->key.h[0] || h->key[1] != p->key.h[1] ||
	    h->file_size != (uint64_t)st.st_size ||
	    h->table_offset < sizeof(*h) || h->table_offset > h->file_size ||
	    (h->table_offset & (PART_ALIGN - 1)) ||
	    h->num_recs > (h->file_size - h->table_offset) /
			  sizeof(struct part_rec) ||
	    XXH3_64bits((const uint8_t *)m + h->table_offset,
			(size_t)h->num_recs * sizeof(struct part_rec)) !=
	    h->table_xxh || !recs_sane(h, (size_t)st.st_size)) {
		munmap(m, (size_t)st.st_size);
		goto bad;
	}
	p->map = m;
	p->map_size = (size_t)st.st_size;
	p->recs = (const void *)((const uint8_t *)m + h->table_offset);
	p->num_recs = h->num_recs;
	utimensat(AT_FDCWD, path, NULL, 0);	/* recently used */
	return;
bad:
	pc->st.corrupt++;
	unlink(path);
}

static int index_recs(struct part_cache *pc)
{
	uint64_t total = 0;
	uint32_t want = 16;

	for (int p = 0; p < pc->num_parts; p++)
		total += pc->parts[p].num_recs;
	if (total > (1u << 28))
		return -E2BIG;	/* entries claiming that many: not ours */
	while (want < 2 * total + 2)
		want <<= 1;
	pc->index = calloc(want, sizeof(*pc->index));
	if (!pc->index)
		return -ENOMEM;
	pc->index_cap = want;
	for (int p = 0; p < pc->num_parts; p++)
		for (uint32_t r = 0; r < pc->parts[p].num_recs; r++) {
			const struct part_rec *rec = &pc->parts[p].recs[r];
			uint32_t i = (uint32_t)rec->key[0] & (want - 1);

			while (pc->index[i].rec)
				i = (i + 1) & (want - 1);
			pc->index[i].rec = rec;
			pc->index[i].part = p;
		}
	return 0;
}

static const struct rec_slot *index_find(const struct part_cache *pc,
					 const uint64_t key[2])
{
	uint32_t i = (uint32_t)key[0] & (pc->index_cap - 1);

	for (; pc->index[i].rec; i = (i + 1) & (pc->index_cap - 1))
		if (pc->index[i].rec->key[0] == key[0] &&
		    pc->index[i].rec->key[1] == key[1])
			return &pc->index[i];
	return NULL;
}

/* ---- the store the passes use -------------------------------------------- */

/*
 * The verified bytes kept under @key in a found entry's mapping (64-byte
 * aligned, read-only, mapped until part_cache_close()), or NULL; *@ms is
 * what deriving them cost.
 */
static const uint8_t *pc_find(struct part_cache *pc,
			      const struct ir_tensor *owner,
			      const uint64_t key[2], size_t nbytes, double *ms)
{
	struct part *p = &pc->parts[owner_part(pc, owner)];
	const struct rec_slot *s = index_find(pc, key);
	const uint8_t *src;

	pc->st.derived++;
	if (s) {
		src = pc->parts[s->part].map + s->rec->offset;
		if (s->rec->nbytes == nbytes &&
		    XXH3_64bits(src, nbytes) == s->rec->xxh) {
			p->hits++;
			pc->st.derived_hit++;
			pc->st.bytes_reused += nbytes;
			*ms = s->rec->ms;
			return src;
		}
		pc->st.corrupt++;	/* its bytes changed: derive them */
	}
	p->misses++;
	return NULL;
}

static double pc_fetch(void *ctx, const struct ir_tensor *owner,
		       const uint64_t key[2], void *dst, size_t nbytes,
		       double t0)
{
	struct part_cache *pc = ctx;
	double ms;
	const uint8_t *src = pc_find(pc, owner, key, nbytes, &ms);

	if (!src)
		return -1;
	memcpy(dst, src, nbytes);
	pc->st.saved_ms += ms - (pc_now_ms() - t0);
	return ms;
}

static const void *pc_borrow(void *ctx, const struct ir_tensor *owner,
			     const uint64_t key[2], size_t nbytes, double t0)
{
	struct part_cache *pc = ctx;
	double ms;
	const uint8_t *src = pc_find(pc, owner, key, nbytes, &ms);

	if (src)
		pc->st.saved_ms += ms - (pc_now_ms() - t0);
	return src;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *s = buf;

	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Open @p's new entry (a temporary file until stored): header space. */
static int begin_entry(struct part_cache *pc, struct part *p)
{
	static const uint8_t zero[sizeof(struct part_file_header)];
	char path[4150];
	size_t len = sizeof(path) + 64;

	entry_path(pc, p, path, sizeof(path));
	p->tmp = malloc(len);
	if (!p->tmp)
		return -ENOMEM;
	/* unique per process, compile (two threads may compile) and part */
	snprintf(p->tmp, len, "%s.tmp.%ld.%lx.%d", path, (long)getpid(),
		 (unsigned long)(uintptr_t)pc, (int)(p - pc->parts));
	p->fd = open(p->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (p->fd < 0)
		return -errno;
	p->fd_size = sizeof(zero);
	return write_all(p->fd, zero, sizeof(zero));
}

/* Zeros up to the next PART_ALIGN boundary of @p's file. */
static int pad_entry(struct part *p)
{
	static const uint8_t pad[PART_ALIGN];
	size_t gap = (size_t)(-p->fd_size & (PART_ALIGN - 1));

	p->fd_size += gap;
	return gap ? write_all(p->fd, pad, gap) : 0;
}

/* Append @n bytes as a record of @p (64-byte aligned). */
static int append(struct part_cache *pc, struct part *p,
		  const uint64_t key[2], const void *src, size_t n, double ms)
{
	struct part_rec *r;
	int ret = 0;

	if (p->fd < 0)
		ret = begin_entry(pc, p);
	if (!ret && p->num_kept == p->cap_kept) {
		uint32_t cap = p->cap_kept ? 2 * p->cap_kept : 8;
		void *k = realloc(p->kept, cap * sizeof(*p->kept));

		if (!k)
			return -ENOMEM;
		p->kept = k;
		p->cap_kept = cap;
	}
	if (!ret)
		ret = pad_entry(p);
	if (!ret)
		ret = write_all(p->fd, src, n);
	if (ret)
		return ret;
	r = &p->kept[p->num_kept++];
	r->key[0] = key[0];
	r->key[1] = key[1];
	r->offset = p->fd_size;
	r->nbytes = n;
	r->xxh = XXH3_64bits(src, n);
	r->ms = ms;
	p->fd_size += n;
	return 0;
}

/* Kept already by this compile (another gear derived the same bytes). */
static bool kept_before(const struct part_cache *pc, const uint64_t key[2])
{
	for (int i = 0; i < pc->num_parts; i++)
		for (uint32_t k = 0; k < pc->parts[i].num_kept; k++)
			if (pc->parts[i].kept[k].key[0] == key[0] &&
			    pc->parts[i].kept[k].key[1] == key[1])
				return true;
	return false;
}

static void pc_keep(void *ctx, const struct ir_tensor *owner,
		    const uint64_t key[2], const void *src, size_t nbytes,
		    double ms)
{
	struct part_cache *pc = ctx;
	struct part *p = &pc->parts[pc->parts[owner_part(pc, owner)].canon];

	if (!p->failed && !kept_before(pc, key) &&
	    append(pc, p, key, src, nbytes, ms))
		p->failed = true;
}

/* ---- entries: store -------------------------------------------------------- */

/* The records @p's entry had and this compile did not derive again. */
static int carry_over(struct part_cache *pc, struct part *p)
{
	uint32_t n = p->num_kept;
	int ret = 0;

	for (uint32_t i = 0; i < p->num_recs && !ret; i++) {
		const struct part_rec *r = &p->recs[i];
		bool dup = false;

		for (uint32_t k = 0; k < n && !dup; k++)
			dup = p->kept[k].key[0] == r->key[0] &&
			      p->kept[k].key[1] == r->key[1];
		/* append() checksums what it writes: check the old first */
		if (!dup && XXH3_64bits(p->map + r->offset, r->nbytes) == r->xxh)
			ret = append(pc, p, r->key, p->map + r->offset,
				     r->nbytes, r->ms);
	}
	return ret;
}

static int store_one(struct part_cache *pc, struct part *p)
{
	struct part_file_header h;
	char path[4400];
	size_t tsize;
	int ret = 0;

	if (p->fd < 0)
		ret = begin_entry(pc, p);
	if (!ret && p->map)
		ret = carry_over(pc, p);
	if (!ret)
		ret = pad_entry(p);	/* the table is read in place */
	tsize = (size_t)p->num_kept * sizeof(*p->kept);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PART_MAGIC, 8);
	h.version = PART_VERSION;
	h.num_recs = p->num_kept;
	h.key[0] = p->key.h[0];
	h.key[1] = p->key.h[1];
	h.table_offset = p->fd_size;
	h.table_xxh = XXH3_64bits(p->kept, tsize);
	h.file_size = p->fd_size + tsize;
	if (!ret)
		ret = write_all(p->fd, p->kept, tsize);
	if (!ret && pwrite(p->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		ret = -EIO;
	if (close(p->fd) && !ret)
		ret = -errno;
	p->fd = -1;
	entry_path(pc, p, path, sizeof(path));
	/*
	 * No fsync: an entry torn by a crash fails its checks when read and
	 * is removed; nothing is taken from it unverified.
	 */
	if (!ret && rename(p->tmp, path))
		ret = -errno;
	if (ret)
		unlink(p->tmp);
	return ret;
}

int part_cache_store(struct part_cache *pc)
{
	int ret = 0;

	for (int i = 0; i < pc->num_parts; i++) {
		struct part *p = &pc->parts[i];

		/* an entry without records would only be opened for nothing */
		if (p->canon != i || p->failed || !p->num_kept)
			continue;
		if (store_one(pc, p))
			ret = -EIO;
		else
			pc->st.partitions_stored++;
	}
	return ret;
}

/* ---- open, stats, close ---------------------------------------------------- */

int part_cache_open(struct part_cache **out, const char *dir,
		    struct ir_graph *g, const struct cache_key *salt)
{
	struct part_cache *pc = calloc(1, sizeof(*pc));
	double t0 = pc_now_ms();
	int ret;

	*out = NULL;
	if (!pc)
		return -ENOMEM;
	snprintf(pc->dir, sizeof(pc->dir), "%s", dir);
	pc->g = g;
	ret = ir_graph_toposort(g);
	if (!ret)
		ret = plan(pc, g, salt);
	if (!ret && !pc->num_parts)
		ret = -ENODATA;		/* no nodes: nothing to keep */
	for (int i = 0; i < pc->num_parts && !ret; i++)
		load(pc, &pc->parts[i]);
	if (!ret)
		ret = index_recs(pc);
	if (ret) {
		part_cache_close(pc);
		return ret;
	}
	pc->st.nodes = (uint32_t)g->num_nodes;
	pc->st.partitions = (uint32_t)pc->num_parts;
	pc->store.fetch = pc_fetch;
	pc->store.borrow = pc_borrow;
	pc->store.keep = pc_keep;
	pc->store.ctx = pc;
	g->derive = &pc->store;
	pc->st.plan_ms = pc_now_ms() - t0;
	*out = pc;
	return 0;
}

void part_cache_stats(const struct part_cache *pc, struct part_stats *st)
{
	*st = pc->st;
	st->partitions_found = 0;
	st->nodes_reused = 0;
	for (int i = 0; i < pc->num_parts; i++) {
		const struct part *p = &pc->parts[i];

		if (!p->map)
			continue;
		st->partitions_found++;
		if (!p->misses)
			st->nodes_reused += (uint32_t)p->count;
	}
}

void part_cache_close(struct part_cache *pc)
{
	if (!pc)
		return;
	if (pc->g && pc->g->derive == &pc->store)
		pc->g->derive = NULL;
	for (int i = 0; i < pc->num_parts; i++) {
		struct part *p = &pc->parts[i];

		if (p->map)
			munmap(p->map, p->map_size);
		if (p->fd >= 0) {
			close(p->fd);
			unlink(p->tmp);
		}
		free(p->tmp);
		free(p->kept);
	}
	for (uint32_t i = 0; i < pc->names_cap; i++)
		free(pc->names[i].name);
	free(pc->names);
	free(pc->index);
	free(pc->parts);
	free(pc);
}
