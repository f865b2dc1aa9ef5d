/* SPDX-License-Identifier: MIT */
/* keep_list.h - npuc --keep-dtype @FILE (keep_list.c). */
#ifndef NPUC_KEEP_LIST_H
#define NPUC_KEEP_LIST_H

#include <stddef.h>

/*
 * The entries of the keep-list file @path as "a,b,c" (malloc'd; "" for a
 * file with none), or NULL with @err saying what is wrong and where.
 */
char *keep_list_read(const char *path, char *err, size_t errlen);

#endif /* NPUC_KEEP_LIST_H */
