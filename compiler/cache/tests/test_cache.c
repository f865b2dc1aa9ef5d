// SPDX-License-Identifier: MIT
/*
 * test_cache - the compile cache: keys, directory choice, hit, damaged
 * entries, eviction, and concurrent compiles of one key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache/cache.h"
#include "tests/npuc_tap.h"

static char root[256];

static struct cache_key key_of(const char *s)
{
	struct cache_hasher h;

	cache_hash_init(&h);
	cache_hash_str(&h, s);
	return cache_hash_final(&h);
}

/* The mapping length of the last hit, for release(). */
static size_t last_map;

static void release(void *om)
{
	cache_om_release(om, last_map);
}

static enum cache_status lookup(const char *dir, const char *k, void **om,
				size_t *n)
{
	struct cache_handle c;
	struct cache_key key = key_of(k);
	void *blob = NULL;
	size_t bn = 0;
	enum cache_status st;

	if (cache_open(&c, dir, &key))
		return (enum cache_status)-1;
	st = cache_lookup(&c, om, n, &last_map, &blob, &bn);
	cache_close(&c);
	free(blob);
	return st;
}

static int store(const char *dir, const char *k, const void *om, size_t n)
{
	struct cache_handle c;
	struct cache_key key = key_of(k);
	int ret = cache_open(&c, dir, &key);

	if (!ret)
		ret = cache_store(&c, om, n, "report", 6);
	cache_close(&c);
	return ret;
}

static void entry_path(const char *dir, const char *k, char *out, size_t len)
{
	char hex[33];
	struct cache_key key = key_of(k);

	cache_key_hex(&key, hex);
	snprintf(out, len, "%s/%s.npuc", dir, hex);
}

static void test_keys_and_dir(void)
{
	struct cache_key a = key_of("graph"), b = key_of("graph");
	struct cache_key c = key_of("graph2");
	char d[4096], want[4096];

	ok(a.h[0] == b.h[0] && a.h[1] == b.h[1] &&
	   (a.h[0] != c.h[0] || a.h[1] != c.h[1]),
	   "same input, same key; different input, different key");
	setenv("NPU_CACHE_DIR", root, 1);
	ok(!cache_dir(d, sizeof(d)) && !strcmp(d, root),
	   "NPU_CACHE_DIR is used first");
	unsetenv("NPU_CACHE_DIR");
	setenv("XDG_CACHE_HOME", root, 1);
	snprintf(want, sizeof(want), "%s/npu", root);
	ok(!cache_dir(d, sizeof(d)) && !strcmp(d, want),
	   "then $XDG_CACHE_HOME/npu (%s)", d);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", root, 1);
	snprintf(want, sizeof(want), "%s/.cache/npu", root);
	ok(!cache_dir(d, sizeof(d)) && !strcmp(d, want),
	   "then ~/.cache/npu (%s)", d);
}

static void test_hit_and_damage(void)
{
	char dir[512], path[1024];
	static const char model[] = "a compiled model, pretend";
	void *om = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/c1", root);
	ok(lookup(dir, "k1", &om, &n) == CACHE_MISS, "empty cache: miss");
	ok(!store(dir, "k1", model, sizeof(model)), "store an entry");
	ok(lookup(dir, "k1", &om, &n) == CACHE_HIT && n == sizeof(model) &&
	   !memcmp(om, model, n) && last_map && !((uintptr_t)om % 64),
	   "hit returns the same bytes, mapped, 64-byte aligned");
	release(om);

	entry_path(dir, "k1", path, sizeof(path));
	f = fopen(path, "r+b");
	fseek(f, -10, SEEK_END);
	fputc('X', f);
	fclose(f);
	ok(lookup(dir, "k1", &om, &n) == CACHE_CORRUPT,
	   "a flipped payload byte fails the checksum");
	ok(access(path, F_OK) != 0, "the damaged entry is removed");
	ok(lookup(dir, "k1", &om, &n) == CACHE_MISS, "then it is a miss");

	store(dir, "k1", model, sizeof(model));
	ok(truncate(path, 20) == 0 && lookup(dir, "k1", &om, &n) == CACHE_CORRUPT,
	   "a truncated entry is refused");

	store(dir, "k1", model, sizeof(model));
	f = fopen(path, "r+b");
	fseek(f, 48, SEEK_SET);		/* the reserved header words */
	fputc(1, f);
	fclose(f);
	ok(lookup(dir, "k1", &om, &n) == CACHE_CORRUPT,
	   "a header with a reserved word set is refused");

	/* An entry under the wrong name (its header names another key). */
	char other[1024];

	store(dir, "k2", model, sizeof(model));
	entry_path(dir, "k2", other, sizeof(other));
	rename(other, path);
	ok(lookup(dir, "k1", &om, &n) == CACHE_CORRUPT,
	   "an entry whose header names another key is refused");
}

static void test_eviction(void)
{
	char dir[512], path[1024], name[16];
	char blob[1000];
	void *om = NULL;
	size_t n;

	snprintf(dir, sizeof(dir), "%s/c2", root);
	memset(blob, 7, sizeof(blob));
	for (int i = 0; i < 5; i++) {
		struct timeval tv[2] = { { 1000000 + i * 10, 0 },
					 { 1000000 + i * 10, 0 } };

		snprintf(name, sizeof(name), "e%d", i);
		store(dir, name, blob, sizeof(blob));
		entry_path(dir, name, path, sizeof(path));
		utimes(path, tv);	/* older entries: older mtimes */
	}
	/*
	 * Six entries of ~1 KiB under a 4500-byte bound: a hit refreshes e1,
	 * so the next store evicts e0 and e2, the least recently used.
	 */
	ok(lookup(dir, "e1", &om, &n) == CACHE_HIT, "hit on an old entry");
	release(om);
	setenv("NPU_CACHE_MAX_BYTES", "4500", 1);
	store(dir, "e5", blob, sizeof(blob));
	unsetenv("NPU_CACHE_MAX_BYTES");
	ok(lookup(dir, "e0", &om, &n) == CACHE_MISS &&
	   lookup(dir, "e2", &om, &n) == CACHE_MISS,
	   "size bound: the least recently used entries are evicted");
	ok(lookup(dir, "e1", &om, &n) == CACHE_HIT, "the recently hit one stays");
	release(om);
	ok(lookup(dir, "e3", &om, &n) == CACHE_HIT, "newer ones stay");
	release(om);
	ok(lookup(dir, "e5", &om, &n) == CACHE_HIT, "the new one stays");
	release(om);
	{
		/* temporary files: one left by a dead compile, one live */
		char old[1100], live[1100];
		struct timeval tv[2] = { { 1000000, 0 }, { 1000000, 0 } };
		FILE *f;

		snprintf(old, sizeof(old), "%s/0123.npup.tmp.99.1.0", dir);
		snprintf(live, sizeof(live), "%s/4567.npuc.tmp.98", dir);
		if ((f = fopen(old, "w")))
			fclose(f);
		if ((f = fopen(live, "w")))
			fclose(f);
		utimes(old, tv);
		store(dir, "e6", blob, sizeof(blob));
		ok(access(old, F_OK) && !access(live, F_OK),
		   "a store removes temporary files an hour old, not newer ones");
	}
}

/* Four processes compile one key at once: one compiles, three hit. */
static void test_concurrent(void)
{
	char dir[512], log[600];
	int compiles = 0, hits = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/c3", root);
	snprintf(log, sizeof(log), "%s/c3.log", root);
	for (int i = 0; i < 4; i++) {
		if (fork() == 0) {
			struct cache_handle c;
			struct cache_key key = key_of("shared");
			void *om = NULL, *blob = NULL;
			size_t n, bn, map;
			FILE *l;

			if (cache_open(&c, dir, &key))
				_exit(1);
			l = fopen(log, "a");
			if (cache_lookup(&c, &om, &n, &map, &blob, &bn) ==
			    CACHE_HIT) {
				fprintf(l, "hit\n");
			} else {
				usleep(50000);	/* "compiling" */
				cache_store(&c, "model", 5, "r", 1);
				fprintf(l, "compile\n");
			}
			fclose(l);
			cache_close(&c);
			_exit(0);
		}
	}
	for (int i = 0; i < 4; i++)
		wait(NULL);
	f = fopen(log, "r");
	if (f) {
		char line[32];

		while (fgets(line, sizeof(line), f)) {
			compiles += !strcmp(line, "compile\n");
			hits += !strcmp(line, "hit\n");
		}
		fclose(f);
	}
	ok(compiles == 1 && hits == 3,
	   "concurrent compiles of one key: %d compiled, %d hit (file lock)",
	   compiles, hits);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/npu_cache_test.%ld", (long)getpid());
	mkdir(root, 0755);
	test_keys_and_dir();
	test_hit_and_damage();
	test_eviction();
	test_concurrent();
	printf("1..%d\n", test_no);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			return 1;
	}
	return failures ? 1 : 0;
}
