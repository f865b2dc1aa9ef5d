// SPDX-License-Identifier: MIT
/*
 * npuc_dl.c - the compiler library, loaded on demand.
 *
 * Single-op mode and ONNX models need libnpuc; a service that only runs
 * .om files never loads it (nor needs it installed). The library is
 * opened with dlopen on the first call that needs it: "libnpuc.so.1" by
 * the usual search (LD_LIBRARY_PATH, the caller's RUNPATH, ld.so.cache),
 * then beside libnpurt itself; $NPURT_NPUC_LIB names another file. A
 * failure is not remembered: the next call tries again.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuc.h"
#include "rt_internal.h"

static pthread_mutex_t npuc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_npuc npuc;
static void *npuc_handle;

/* libnpuc.so.1 in the directory of the object this code is linked in. */
static void *open_beside_us(const char *name)
{
	char path[PATH_MAX];
	const char *slash;
	Dl_info info;

	if (!dladdr((void *)open_beside_us, &info) || !info.dli_fname)
		return NULL;
	slash = strrchr(info.dli_fname, '/');
	if (!slash)
		return NULL;
	if (snprintf(path, sizeof(path), "%.*s/%s",
		     (int)(slash - info.dli_fname), info.dli_fname,
		     name) >= (int)sizeof(path))
		return NULL;
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

#define NPUC_SYM(field, sym) \
	do { \
		*(void **)&t.field = dlsym(h, #sym); \
		if (!t.field) { \
			missing = #sym; \
			goto bad; \
		} \
	} while (0)

const struct rt_npuc *rt_npuc_get(const char *func)
{
	const char *env = getenv("NPURT_NPUC_LIB");
	const char *name = env && *env ? env : NPUC_LIB_SONAME;
	const char *missing = NULL;
	char why[256];
	struct rt_npuc t;
	void *h;

	pthread_mutex_lock(&npuc_lock);
	if (npuc_handle) {
		pthread_mutex_unlock(&npuc_lock);
		return &npuc;
	}
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h && !strchr(name, '/'))
		h = open_beside_us(name);
	if (!h) {
		const char *e = dlerror();

		snprintf(why, sizeof(why), "%s", e ? e : "not found");
		pthread_mutex_unlock(&npuc_lock);
		rt_fail(NPURT_ERR_UNSUPPORTED, func,
			"install the compiler library libnpuc.so.1 (make "
			"install, or LD_LIBRARY_PATH to it) or compile the "
			"model ahead of time with npuc and load the .om",
			"online compilation needs %s, which cannot be loaded: "
			"%s", name, why);
		return NULL;
	}
	memset(&t, 0, sizeof(t));
	NPUC_SYM(options_init, npuc_options_init);
	NPUC_SYM(compile_memory, npuc_compile_memory);
	NPUC_SYM(compile_op, npuc_compile_op);
	NPUC_SYM(result_model, npuc_result_model);
	NPUC_SYM(result_time_ms, npuc_result_time_ms);
	NPUC_SYM(result_free, npuc_result_free);
	npuc = t;
	npuc_handle = h;
	pthread_mutex_unlock(&npuc_lock);
	rt_log("loaded %s for online compilation", name);
	return &npuc;
bad:
	dlclose(h);
	pthread_mutex_unlock(&npuc_lock);
	rt_fail(NPURT_ERR_UNSUPPORTED, func,
		"install a libnpuc.so.1 of the same release as libnpurt",
		"%s has no symbol %s (too old a compiler library?)", name,
		missing);
	return NULL;
}
