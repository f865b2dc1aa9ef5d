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

/*
 * Bytes an operand view touches from its offset: (1 + sum((shape[i] - 1) *
 * strides[i])) * element size, 0 when some shape[i] is 0. False on overflow
 * or an invalid dtype/rank.
 */
bool om_operand_extent(const struct drm_npu_operand *op, uint64_t *extent);

/* Printable ASCII without control characters (names shown to users). */
bool om_name_ok(const char *s);

/* snprintf into an OM_ERR_MAX buffer that may be NULL. */
void om_seterr(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* NPU_OM_INTERNAL_H */
