// SPDX-License-Identifier: MIT
/*
 * plugin_load.c - the process-wide registry of operator plugins
 * (see plugin_load.h).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "plugin_load.h"

#define MAX_PLUGINS	64

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npu_plugin_lib *reg[MAX_PLUGINS];
static int num_reg;

int npu_plugin_digest_file(const char *path,
			   char digest[NPU_PLUGIN_DIGEST_LEN])
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a, 64 bits */
	unsigned char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			h ^= buf[i];
			h *= 0x100000001b3ull;
		}
	close(fd);
	if (n < 0)
		return -EIO;
	snprintf(digest, NPU_PLUGIN_DIGEST_LEN, "%016llx",
		 (unsigned long long)h);
	return 0;
}

static int check_desc(const char *path, const struct npuc_plugin *d,
		      char *err, size_t errlen)
{
	if (!d) {
		snprintf(err, errlen, "plugin %s: npuc_plugin_entry() returned "
			 "NULL", path);
		return -EINVAL;
	}
	if (d->abi_version != NPUC_PLUGIN_ABI_VERSION) {
		snprintf(err, errlen, "plugin %s: built for plugin ABI %d; this "
			 "npuc/libnpurt speaks ABI %d: rebuild it against this "
			 "release's npuc_plugin.h", path, d->abi_version,
			 NPUC_PLUGIN_ABI_VERSION);
		return -EPROTO;
	}
	if (d->struct_size < sizeof(*d) || !d->name || !*d->name ||
	    !d->version || d->num_ops < 0 || (d->num_ops && !d->ops)) {
		snprintf(err, errlen, "plugin %s: malformed description "
			 "(struct_size, name, version, ops)", path);
		return -EINVAL;
	}
	if (d->num_ops && d->ops[0].struct_size < sizeof(*d->ops)) {
		snprintf(err, errlen, "plugin %s (%s): op struct_size %zu; "
			 "at least %zu", path, d->name, d->ops[0].struct_size,
			 sizeof(*d->ops));
		return -EINVAL;
	}
	for (int i = 0; i < d->num_ops; i++) {
		const struct npuc_plugin_op *op = npu_plugin_op_at(d, i);

		if (op->struct_size != d->ops[0].struct_size || !op->op_type ||
		    !*op->op_type || !op->infer ||
		    (!op->decompose && !op->host_kernel) ||
		    op->min_inputs < 0 || op->max_inputs < op->min_inputs ||
		    op->max_inputs > NPUC_PLUGIN_MAX_IO ||
		    op->min_outputs < 1 || op->max_outputs < op->min_outputs ||
		    op->max_outputs > NPUC_PLUGIN_MAX_IO ||
		    op->num_attrs < 0 || (op->num_attrs && !op->attrs)) {
			snprintf(err, errlen, "plugin %s (%s): op #%d '%s' is "
				 "malformed: it needs an inference function, a "
				 "decomposition or a host kernel, and arity "
				 "bounds within 0..%d inputs, 1..%d outputs",
				 path, d->name, i,
				 op->op_type ? op->op_type : "?",
				 NPUC_PLUGIN_MAX_IO, NPUC_PLUGIN_MAX_IO);
			return -EINVAL;
		}
	}
	return 0;
}

int npu_plugin_load(const char *path, const struct npu_plugin_lib **out,
		    char *err, size_t errlen)
{
	char digest[NPU_PLUGIN_DIGEST_LEN];
	npuc_plugin_entry_fn entry;
	const struct npuc_plugin *d;
	struct npu_plugin_lib *lib;
	void *h;
	int ret;

	ret = npu_plugin_digest_file(path, digest);
	if (ret) {
		snprintf(err, errlen, "plugin %s: %s", path, strerror(-ret));
		return ret;
	}
	pthread_mutex_lock(&reg_lock);
	for (int i = 0; i < num_reg; i++)
		if (!strcmp(reg[i]->path, path) &&
		    !strcmp(reg[i]->digest, digest)) {
			if (out)
				*out = reg[i];
			pthread_mutex_unlock(&reg_lock);
			return 0;
		}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "plugin %s: %s", path, dlerror());
		ret = -ENOEXEC;
		goto out;
	}
	*(void **)&entry = dlsym(h, NPUC_PLUGIN_ENTRY);
	if (!entry) {
		snprintf(err, errlen, "plugin %s: no symbol %s (is it an npuc "
			 "plugin? see npuc_plugin.h)", path, NPUC_PLUGIN_ENTRY);
		ret = -ENOEXEC;
		goto close;
	}
	d = entry();
	ret = check_desc(path, d, err, errlen);
	if (ret)
		goto close;
	for (int i = 0; i < num_reg; i++) {
		if (strcmp(reg[i]->desc->name, d->name))
			continue;
		if (!strcmp(reg[i]->digest, digest)) {
			if (out)
				*out = reg[i];
			ret = 0;
		} else {
			snprintf(err, errlen, "plugin %s: a plugin named '%s' "
				 "is loaded already from %s (digest %s, this "
				 "one %s): load one of them", path, d->name,
				 reg[i]->path, reg[i]->digest, digest);
			ret = -EEXIST;
		}
		goto close;
	}
	if (num_reg == MAX_PLUGINS) {
		snprintf(err, errlen, "plugin %s: more than %d plugins", path,
			 MAX_PLUGINS);
		ret = -E2BIG;
		goto close;
	}
	lib = calloc(1, sizeof(*lib));
	if (!lib || !(lib->path = strdup(path))) {
		free(lib);
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto close;
	}
	lib->handle = h;
	lib->desc = d;
	memcpy(lib->digest, digest, sizeof(digest));
	reg[num_reg++] = lib;
	if (out)
		*out = lib;
	ret = 0;
	goto out;
close:
	dlclose(h);
out:
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(const char *dir, char *err, size_t errlen)
{
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return 0;	/* a missing directory of a search path */
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len < 4 || strcmp(e->d_name + len - 3, ".so"))
			continue;
		if (n == cap) {
			void *p = realloc(names, (cap = cap ? cap * 2 : 16) *
					  sizeof(*names));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			names = p;
		}
		names[n] = strdup(e->d_name);
		if (!names[n]) {
			ret = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (ret)
		snprintf(err, errlen, "out of memory");
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n && !ret; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ret = npu_plugin_load(path, NULL, err, errlen);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

int npu_plugin_load_path(const char *search, char *err, size_t errlen)
{
	char *copy, *save = NULL, *tok;
	int ret = 0;

	if (!search || !*search)
		return 0;
	copy = strdup(search);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ":", &save); tok && !ret;
	     tok = strtok_r(NULL, ":", &save)) {
		size_t len = strlen(tok);
		struct stat st;

		/* a .so file of the list is loaded as such */
		if (len > 3 && !strcmp(tok + len - 3, ".so") &&
		    !stat(tok, &st) && S_ISREG(st.st_mode)) {
			ret = npu_plugin_load(tok, NULL, err, errlen);
			continue;
		}
		ret = load_dir(tok, err, errlen);
	}
	free(copy);
	return ret;
}

const struct npuc_plugin_op *npu_plugin_find_op(const char *domain,
						const char *op_type,
						int64_t opset,
						const struct npu_plugin_lib **lib)
{
	const struct npuc_plugin_op *found = NULL;

	if (!domain)
		domain = "";
	if (!strcmp(domain, "ai.onnx"))
		domain = "";
	pthread_mutex_lock(&reg_lock);
	for (int i = 0; i < num_reg && !found; i++) {
		const struct npuc_plugin *d = reg[i]->desc;

		for (int k = 0; k < d->num_ops; k++) {
			const struct npuc_plugin_op *op = npu_plugin_op_at(d, k);
			const char *od = op->domain ? op->domain : "";

			if (strcmp(od, domain) || strcmp(op->op_type, op_type))
				continue;
			if ((op->opset_min || op->opset_max) &&
			    (opset < op->opset_min ||
			     (op->opset_max && opset > op->opset_max)))
				continue;
			found = op;
			if (lib)
				*lib = reg[i];
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	return found;
}

const struct npu_plugin_lib *npu_plugin_find(const char *name)
{
	const struct npu_plugin_lib *lib = NULL;

	pthread_mutex_lock(&reg_lock);
	for (int i = 0; i < num_reg && !lib; i++)
		if (!strcmp(reg[i]->desc->name, name))
			lib = reg[i];
	pthread_mutex_unlock(&reg_lock);
	return lib;
}

int npu_plugin_count(void)
{
	int n;

	pthread_mutex_lock(&reg_lock);
	n = num_reg;
	pthread_mutex_unlock(&reg_lock);
	return n;
}

const struct npu_plugin_lib *npu_plugin_at(int i)
{
	const struct npu_plugin_lib *lib = NULL;

	pthread_mutex_lock(&reg_lock);
	if (i >= 0 && i < num_reg)
		lib = reg[i];
	pthread_mutex_unlock(&reg_lock);
	return lib;
}
