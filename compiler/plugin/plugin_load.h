/* SPDX-License-Identifier: MIT */
/*
 * plugin_load.h - loading operator plugins (npuc_plugin.h) into the
 * process: shared by the compiler (libnpuc, npuc) and the runtime
 * (libnpurt, for host kernels).
 *
 * Plugins are kept in one process-wide registry (a mutex guards it);
 * a loaded plugin is never unloaded (its functions may be in use by any
 * model). A plugin is identified by its name; its digest is a hash of
 * the shared object's bytes, recorded in a .om and compared at load.
 * Documentation/plugins.rst.
 */
#ifndef NPU_PLUGIN_LOAD_H
#define NPU_PLUGIN_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../include/npuc_plugin.h"

#define NPU_PLUGIN_DIGEST_LEN	17	/* 16 hex digits and the NUL */
#define NPU_PLUGIN_ENV		"NPUC_PLUGIN_PATH"

struct npu_plugin_lib {
	char *path;
	void *handle;
	const struct npuc_plugin *desc;
	char digest[NPU_PLUGIN_DIGEST_LEN];
};

/**
 * npu_plugin_load() - load one plugin file into the registry
 * @path: the shared object
 * @out: the loaded plugin (or the one of that name already loaded from the
 *       same bytes), may be NULL
 *
 * Return: 0, or a negative errno with @err naming the file and the fault
 * (not a shared object, no npuc_plugin_entry, another ABI version, an op
 * without an inference function or without decomposition and host
 * kernel, a plugin of the same name with other bytes already loaded).
 */
int npu_plugin_load(const char *path, const struct npu_plugin_lib **out,
		    char *err, size_t errlen);

/*
 * Every "*.so" of each directory of @search (a colon-separated list, as
 * $NPUC_PLUGIN_PATH) in name order; a plain file in the list is loaded
 * as such. 0 or the first failure.
 */
int npu_plugin_load_path(const char *search, char *err, size_t errlen);

/*
 * Op @i of @d: the array's stride is the plugin's own struct_size (a
 * later ABI-1 header may append fields).
 */
static inline const struct npuc_plugin_op *
npu_plugin_op_at(const struct npuc_plugin *d, int i)
{
	return (const struct npuc_plugin_op *)((const char *)d->ops +
		(size_t)i * d->ops[0].struct_size);
}

/* The operator serving (@domain, @op_type) at @opset, or NULL. */
const struct npuc_plugin_op *npu_plugin_find_op(const char *domain,
						const char *op_type,
						int64_t opset,
						const struct npu_plugin_lib **lib);

/* The plugin named @name, or NULL. */
const struct npu_plugin_lib *npu_plugin_find(const char *name);

/* Number of loaded plugins, and the @i-th (load order). */
int npu_plugin_count(void);
const struct npu_plugin_lib *npu_plugin_at(int i);

/* The digest of a file's bytes (16 hex digits). 0 or -errno. */
int npu_plugin_digest_file(const char *path,
			   char digest[NPU_PLUGIN_DIGEST_LEN]);

#endif /* NPU_PLUGIN_LOAD_H */
