// SPDX-License-Identifier: MIT
/*
 * timing_params.c - the modeled device's parameters: the default and
 * "key=value,..." overrides (npu_timing.h, Documentation/timing-model.rst).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_timing.h"

/*
 * Per core, an Ascend 310-like AI core at 1 GHz: a 16x16x16 fp16 cube is
 * 4096 MACs a cycle and f32 runs at a quarter of it; a vector unit of 256
 * bytes a cycle is 64 f32 lanes. The device around them is the in-process
 * device's default (sim910: 4 cores) with 64 bytes a cycle of VRAM
 * bandwidth (64 GB/s) shared by the cores.
 */
void npu_timing_params_default(struct npu_timing_params *p)
{
	*p = (struct npu_timing_params){
		.cores = 4,
		.clock_mhz = 1000,
		.cube_macs = 1024,
		.vector_ops = 64,
		.media_pixels = 4,
		.vram_bytes = 64,
		.nchw_efficiency = 0.5,
		.launch_cycles = 1000,
		.sem_cycles = 100,
	};
}

struct param_key {
	const char *name;
	size_t off;
	int integer;		/* a uint32_t field, else a double */
	double min, max;
};

#define PK(f, i, lo, hi) \
	{ #f, offsetof(struct npu_timing_params, f), i, lo, hi }

static const struct param_key keys[] = {
	PK(cores, 1, 1, 1024),
	PK(clock_mhz, 1, 1, 100000),
	PK(cube_macs, 0, 1, 1e9),
	PK(vector_ops, 0, 1, 1e9),
	PK(media_pixels, 0, 1e-3, 1e9),
	PK(vram_bytes, 0, 1e-3, 1e9),
	PK(nchw_efficiency, 0, 1e-3, 1),
	PK(launch_cycles, 1, 0, 1e9),
	PK(sem_cycles, 1, 0, 1e9),
};

static int set_key(struct npu_timing_params *p, const char *key, size_t klen,
		   const char *val, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct param_key *k = &keys[i];
		char *end;
		double v;

		if (strlen(k->name) != klen || strncmp(k->name, key, klen))
			continue;
		errno = 0;
		v = strtod(val, &end);
		if (end == val || (*end && *end != ',') || errno ||
		    !isfinite(v) || v < k->min || v > k->max ||
		    (k->integer && v != floor(v))) {
			snprintf(err, errlen,
				 "timing parameter %s: '%.*s' is not %s in [%g, %g]",
				 k->name, (int)strcspn(val, ","), val,
				 k->integer ? "an integer" : "a number",
				 k->min, k->max);
			return -EINVAL;
		}
		if (k->integer)
			*(uint32_t *)((char *)p + k->off) = (uint32_t)v;
		else
			*(double *)((char *)p + k->off) = v;
		return 0;
	}
	snprintf(err, errlen,
		 "unknown timing parameter '%.*s' (known: cores, clock_mhz, cube_macs, vector_ops, media_pixels, vram_bytes, nchw_efficiency, launch_cycles, sem_cycles)",
		 (int)klen, key);
	return -EINVAL;
}

int npu_timing_params_parse(struct npu_timing_params *p, const char *spec,
			    char *err, size_t errlen)
{
	const char *s = spec;

	while (s && *s) {
		size_t klen = strcspn(s, "=,");
		int ret;

		if (s[klen] != '=') {
			snprintf(err, errlen,
				 "timing parameters: '%.*s' is not key=value",
				 (int)strcspn(s, ","), s);
			return -EINVAL;
		}
		ret = set_key(p, s, klen, s + klen + 1, err, errlen);
		if (ret)
			return ret;
		s = strchr(s + klen + 1, ',');
		if (s)
			s++;
	}
	return 0;
}

double npu_timing_us(const struct npu_timing_params *p, uint64_t cycles)
{
	return (double)cycles / p->clock_mhz;
}
