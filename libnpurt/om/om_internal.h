/* SPDX-License-Identifier: MIT */
/*
 * om_internal.h - helpers shared by the .om reader and writer (not public).
 */
#ifndef NPU_OM_INTERNAL_H
#define NPU_OM_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>

#include "om.h"

uint32_t om_crc32c_portable(uint32_t crc, const void *data, size_t len);

/* Printable ASCII without control characters (names shown to users). */
bool om_name_ok(const char *s);

/* snprintf into an OM_ERR_MAX buffer that may be NULL. */
void om_seterr(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* NPU_OM_INTERNAL_H */
