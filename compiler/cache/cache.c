// SPDX-License-Identifier: MIT
/*
 * cache.c - the compile cache (see cache.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cache/cache.h"
#include "om/om.h"

#define CACHE_MAGIC	"NPUCACHE"
#define CACHE_VERSION	2

/*
 * The model starts 64 bytes in, so that a hit can hand out the entry's
 * mapping with the .om as aligned as the writer made it (its weights are
 * 64-byte aligned from the image's start).
 */
struct cache_file_header {
	char magic[8];
	uint32_t version;
	uint32_t crc;		/* CRC32C of the payload */
	uint64_t key[2];
	uint64_t om_size;
	uint64_t blob_size;
	uint64_t reserved[2];	/* zero */
};

_Static_assert(sizeof(struct cache_file_header) == CACHE_OM_OFFSET,
	       "the model follows the header at CACHE_OM_OFFSET");

/*
 * XXH3-128 (libxxhash): a key must not collide by accident (an entry is
 * trusted by its key), and the weights of a large model are hashed on
 * every content-keyed lookup: XXH3 runs at memory speed (resnet50's
 * 100 MB in about 10 ms here; the multiply chain before it took 100 ms).
 */
void cache_hash_init(struct cache_hasher *h)
{
	XXH3_128bits_reset(&h->st);
}

void cache_hash_bytes(struct cache_hasher *h, const void *p, size_t n)
{
	XXH3_128bits_update(&h->st, p, n);
}

void cache_hash_u64(struct cache_hasher *h, uint64_t v)
{
	cache_hash_bytes(h, &v, sizeof(v));
}

void cache_hash_str(struct cache_hasher *h, const char *s)
{
	s = s ? s : "";
	cache_hash_u64(h, strlen(s));
	cache_hash_bytes(h, s, strlen(s));
}

struct cache_key cache_hash_final(const struct cache_hasher *h)
{
	XXH128_hash_t d = XXH3_128bits_digest(&h->st);
	struct cache_key k = { { d.low64, d.high64 } };

	return k;
}

void cache_key_hex(const struct cache_key *k, char out[33])
{
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)k->h[0],
		 (unsigned long long)k->h[1]);
}

static int mkdir_p(const char *path)
{
	char tmp[4096];

	if (strlen(path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	strcpy(tmp, path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int cache_dir(char *out, size_t len)
{
	const char *d = getenv("NPU_CACHE_DIR");
	const char *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (d && *d)
		n = snprintf(out, len, "%s", d);
	else if (x && *x)
		n = snprintf(out, len, "%s/npu", x);
	else if (home && *home)
		n = snprintf(out, len, "%s/.cache/npu", home);
	else
		return -ENOENT;
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return mkdir_p(out);
}

void cache_entry_path(const struct cache_handle *c, char *out, size_t len)
{
	snprintf(out, len, "%s/%s.npuc", c->dir, c->key_hex);
}

int cache_open(struct cache_handle *c, const char *dir,
	       const struct cache_key *key)
{
	char path[4200];
	int ret;

	memset(c, 0, sizeof(*c));
	c->lock_fd = -1;
	c->key = *key;
	cache_key_hex(key, c->key_hex);
	if (dir) {
		if (strlen(dir) >= sizeof(c->dir))
			return -ENAMETOOLONG;
		strcpy(c->dir, dir);
		ret = mkdir_p(c->dir);
	} else {
		ret = cache_dir(c->dir, sizeof(c->dir));
	}
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s.lock", c->dir, c->key_hex);
	c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (c->lock_fd < 0)
		return -errno;
	while (flock(c->lock_fd, LOCK_EX)) {
		if (errno != EINTR) {
			ret = -errno;
			close(c->lock_fd);
			c->lock_fd = -1;
			return ret;
		}
	}
	return 0;
}

void cache_close(struct cache_handle *c)
{
	if (c->lock_fd >= 0) {
		flock(c->lock_fd, LOCK_UN);
		close(c->lock_fd);
	}
	c->lock_fd = -1;
}

/*
 * A hit maps the entry instead of reading it: the model's bytes come from
 * the page cache as they are checked and used, not copied into fresh
 * memory first (on the development VM, reading resnet50's 94 MB entry
 * into a new buffer was most of a hit). Read-only: populating a writable
 * private mapping breaks copy-on-write for every page, which is the copy
 * again (the compiled model is const to every caller). The cache replaces
 * entries by rename and removes them by unlink, never changing a file in
 * place, so a mapped entry keeps its bytes.
 */
enum cache_status cache_lookup(struct cache_handle *c, void **om,
			       size_t *om_size, size_t *om_map, void **blob,
			       size_t *blob_size)
{
	char path[4200];
	const struct cache_file_header *h;
	struct stat st;
	char *map = MAP_FAILED, *b = NULL;
	size_t len = 0;
	uint32_t crc;
	int fd;

	cache_entry_path(c, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? CACHE_MISS : CACHE_CORRUPT;
	if (fstat(fd, &st) || (uint64_t)st.st_size < sizeof(*h) ||
	    (uint64_t)st.st_size > ((uint64_t)1 << 48))
		goto corrupt;
	len = (size_t)st.st_size;
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		goto corrupt;
	h = (const void *)map;
	if (memcmp(h->magic, CACHE_MAGIC, 8) || h->version != CACHE_VERSION ||
	    h->key[0] != c->key.h[0] || h->key[1] != c->key.h[1] ||
	    h->reserved[0] || h->reserved[1] ||
	    h->om_size > len || h->blob_size > len ||
	    sizeof(*h) + h->om_size + h->blob_size != len)
		goto corrupt;
	crc = om_crc32c(0, map + sizeof(*h), h->om_size + h->blob_size);
	if (crc != h->crc)
		goto corrupt;
	b = malloc(h->blob_size + 1);
	if (!b) {
		munmap(map, len);
		close(fd);
		return CACHE_MISS;
	}
	memcpy(b, map + sizeof(*h) + h->om_size, h->blob_size);
	close(fd);
	*om = map + sizeof(*h);
	*om_size = h->om_size;
	*om_map = len;
	*blob = b;
	*blob_size = h->blob_size;
	utimes(path, NULL);	/* most recently used */
	return CACHE_HIT;
corrupt:
	/* Never trusted: removed, so the caller's fresh compile replaces it. */
	if (map != MAP_FAILED)
		munmap(map, len);
	close(fd);
	unlink(path);
	return CACHE_CORRUPT;
}

void cache_om_release(void *om, size_t om_map)
{
	if (om_map)
		munmap((char *)om - CACHE_OM_OFFSET, om_map);
	else
		free(om);
}

static int write_full(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

struct entry {
	char name[64];
	time_t mtime;
	off_t size;
};

static int by_mtime(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/*
 * A temporary entry (<entry>.tmp.<pid>...) not written for an hour was
 * left by a compile that died between writing and renaming it: removed.
 * A live compile writes its entry in well under that.
 */
static void stale_tmp(const char *dir, const char *name)
{
	char path[4400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!stat(path, &st) && S_ISREG(st.st_mode) &&
	    st.st_mtime + 3600 < time(NULL))
		unlink(path);
}

/* Remove the least recently used entries until the total fits. */
static void trim(const char *dir, const char *keep)
{
	const char *lim = getenv("NPU_CACHE_MAX_BYTES");
	unsigned long long max = lim && *lim ? strtoull(lim, NULL, 10) :
				 (1ull << 30);
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	unsigned long long total = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);
		char path[4400];
		struct stat st;

		if (strstr(d->d_name, ".tmp.")) {
			stale_tmp(dir, d->d_name);
			continue;
		}
		/* whole models and partitions (partition.h) */
		if (len < 6 || len >= sizeof(e->name) ||
		    (strcmp(d->d_name + len - 5, ".npuc") &&
		     strcmp(d->d_name + len - 5, ".npup")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &st))
			continue;
		if (n == cap) {
			void *p = realloc(e, (cap = cap ? cap * 2 : 32) *
					  sizeof(*e));
			if (!p)
				break;
			e = p;
		}
		strcpy(e[n].name, d->d_name);
		e[n].mtime = st.st_mtime;
		e[n].size = st.st_size;
		total += (unsigned long long)st.st_size;
		n++;
	}
	closedir(dp);
	qsort(e, n, sizeof(*e), by_mtime);
	for (size_t i = 0; i < n && total > max; i++) {
		char path[4400];

		if (!strncmp(e[i].name, keep, 32))
			continue;	/* never the entry just stored */
		snprintf(path, sizeof(path), "%s/%s", dir, e[i].name);
		if (!unlink(path))
			total -= (unsigned long long)e[i].size;
		snprintf(path, sizeof(path), "%s/%.32s.lock", dir, e[i].name);
		unlink(path);
	}
	free(e);
}

int cache_store(struct cache_handle *c, const void *om, size_t om_size,
		const void *blob, size_t blob_size)
{
	struct cache_file_header h;
	char path[4200], tmp[4300];
	uint32_t crc;
	int fd, ret;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.version = CACHE_VERSION;
	h.key[0] = c->key.h[0];
	h.key[1] = c->key.h[1];
	h.om_size = om_size;
	h.blob_size = blob_size;
	crc = om_crc32c(0, om, om_size);
	h.crc = om_crc32c(crc, blob, blob_size);
	cache_entry_path(c, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write_full(fd, &h, sizeof(h));
	if (!ret)
		ret = write_full(fd, om, om_size);
	if (!ret)
		ret = write_full(fd, blob, blob_size);
	/*
	 * No fsync: an entry torn by a crash fails its CRC when looked up
	 * and is removed (CACHE_CORRUPT), so the next compile replaces it.
	 * Syncing resnet50's 94 MB entry cost 100 ms or more per store.
	 */
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	trim(c->dir, c->key_hex);
	return 0;
}
