// SPDX-License-Identifier: MIT
/*
 * error.c - the per-thread last error, status names, logging and the
 * environment switches (NPURT_LAUNCH_BLOCKING, NPURT_LOG).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_internal.h"

static __thread npurt_error last_error;

NPURT_API const npurt_error *npurt_last_error(void)
{
	return &last_error;
}

NPURT_API void npurt_clear_error(void)
{
	memset(&last_error, 0, sizeof(last_error));
}

NPURT_API const char *npurt_status_str(npurt_status status)
{
	static const char *const names[] = {
		"NPURT_OK", "NPURT_ERR_INVALID", "NPURT_ERR_NOMEM",
		"NPURT_ERR_DEVICE_NOMEM", "NPURT_ERR_NO_DEVICE",
		"NPURT_ERR_NOT_INITIALIZED", "NPURT_ERR_BAD_MODEL",
		"NPURT_ERR_INCOMPATIBLE", "NPURT_ERR_SHAPE",
		"NPURT_ERR_DEVICE_FAULT", "NPURT_ERR_TIMEOUT",
		"NPURT_ERR_NOT_READY", "NPURT_ERR_NOT_FOUND", "NPURT_ERR_IO",
		"NPURT_ERR_UNSUPPORTED", "NPURT_ERR_INTERNAL",
		"NPURT_ERR_NO_RESOURCE",
	};

	if ((unsigned int)status < sizeof(names) / sizeof(names[0]))
		return names[status];
	return "NPURT_ERR_UNKNOWN";
}

NPURT_API uint32_t npurt_version(void)
{
	return NPURT_VERSION;
}

static int env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

bool rt_launch_blocking(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = env_flag("NPURT_LAUNCH_BLOCKING");
	return cached;
}

void rt_log(const char *fmt, ...)
{
	static int enabled = -1;
	va_list ap;

	if (enabled < 0)
		enabled = env_flag("NPURT_LOG");
	if (!enabled)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "npurt: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

npurt_status rt_fail(npurt_status code, const char *func, const char *action,
		     const char *fmt, ...)
{
	va_list ap;

	last_error.code = code;
	snprintf(last_error.function, sizeof(last_error.function), "%s",
		 func);
	va_start(ap, fmt);
	vsnprintf(last_error.reason, sizeof(last_error.reason), fmt, ap);
	va_end(ap);
	snprintf(last_error.action, sizeof(last_error.action), "%s",
		 action ? action : "");
	rt_log("%s: %s: %s (%s)", func, npurt_status_str(code),
	       last_error.reason, last_error.action);
	return code;
}

npurt_status rt_fail_resource(const char *func, int err, const char *res,
			      uint32_t asked, uint32_t got, uint32_t total,
			      const char *what)
{
	if (err < 0)
		err = -err;
	if (err != ENOSPC && err != EDQUOT && err != ENOMEM)
		return rt_fail_errno(func, -err, what);
	return rt_fail(NPURT_ERR_NO_RESOURCE, func,
		       err == EDQUOT ?
		       "this process reached its share of the device: destroy "
		       "streams or unload models it no longer needs" :
		       "unload models, destroy streams or contexts no longer "
		       "needed, or use a device with more (in-process device: "
		       "NPU_SIM_SEMS, NPU_SIM_QUEUES)",
		       "%s: device %s used up: asked for %u, got %u; the device "
		       "has %u in all%s", what, res, asked, got, total,
		       err == EDQUOT ? " (per-process limit reached)" :
		       " (the rest are held by other streams, models or "
		       "processes)");
}

npurt_status rt_fail_errno(const char *func, int err, const char *what)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case ENOMEM:
	case ENOSPC:
		return rt_fail(NPURT_ERR_DEVICE_NOMEM, func,
			       "free device memory (npurt_mem_empty_cache, "
			       "unload models) or use smaller batches",
			       "%s: device out of memory (%s)", what,
			       strerror(err));
	case EDQUOT:
		return rt_fail(NPURT_ERR_DEVICE_NOMEM, func,
			       "free what this process holds, or ask root to "
			       "raise the device's per-file limits (npu_drv "
			       "module parameters file_*; DEVICE_INFO reports "
			       "them; the kernel log names the one hit)",
			       "%s: a per-file limit of the device was reached "
			       "(%s)", what, strerror(err));
	case ETIME:
	case ETIMEDOUT:
		return rt_fail(NPURT_ERR_TIMEOUT, func,
			       "check for a hung device (npu-smi) or raise the "
			       "timeout", "%s: timed out", what);
	case EIO:
		return rt_fail(NPURT_ERR_DEVICE_FAULT, func,
			       "see the stream's fault; clear it with "
			       "npurt_stream_clear_error", "%s: device fault",
			       what);
	case ENODEV:
	case ENOENT:
	case ENXIO:
		return rt_fail(NPURT_ERR_NO_DEVICE, func,
			       "check NPU_DEVICE and that npu_drv is loaded",
			       "%s: no device (%s)", what, strerror(err));
	case EINVAL:
		return rt_fail(NPURT_ERR_INVALID, func,
			       "this is a runtime/driver mismatch or a bug; "
			       "run with NPURT_LOG=1 and report it",
			       "%s: the device refused the request (EINVAL)",
			       what);
	default:
		return rt_fail(NPURT_ERR_INTERNAL, func,
			       "run with NPURT_LOG=1 and report it",
			       "%s: %s", what, strerror(err));
	}
}

uint64_t rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int64_t rt_deadline_ms(uint64_t ms)
{
	return (int64_t)(rt_now_ns() + ms * 1000000ull);
}
