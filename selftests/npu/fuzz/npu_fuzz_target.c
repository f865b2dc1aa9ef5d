// SPDX-License-Identifier: MIT
/*
 * npu_fuzz_target.c - libFuzzer entry of the PROGRAM_CREATE + SUBMIT
 * fuzzer (npu_fuzz.h): every input is decoded, registered and, when
 * accepted, run on the in-process device in guard-page mode
 * (NPU_SIM_GUARD=1), built with ASan and UBSan. A finding aborts, so that
 * libFuzzer keeps the input; sanitizer reports and guard faults end the
 * run by themselves, and -timeout catches a unit that never ends.
 *
 * Environment: NPU_FUZZ_JOB_MS (30000), NPU_FUZZ_MAX_NEED (4 MiB),
 * NPU_FUZZ_MAX_ELEMS (0: no limit), NPU_FUZZ_UNIT_MS (5000: how long a
 * job may take to stop after its budget; see struct npu_fuzz_limits), and
 * the NPU_SIM_* device parameters (defaults set here: guard mode on,
 * 256 MiB VRAM, 2 AI cores, a 10 s watchdog: a unit may cost 2^27 element
 * operations, which takes seconds under the sanitizers; a 5 s job budget).
 */
#include "npu_fuzz.h"

#include <stdio.h>
#include <stdlib.h>

static struct npu_fuzz_limits lim;
static uint32_t queue;

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int err;

	(void)argc;
	(void)argv;
	setenv("NPU_SIM_GUARD", "1", 0);
	setenv("NPU_SIM_VRAM_MB", "256", 0);
	setenv("NPU_SIM_CORES", "2", 0);
	setenv("NPU_SIM_WATCHDOG_MS", "10000", 0);
	/* a huge but valid job must end as a BUDGET fault record, well
	 * within the fuzzer's own job limit */
	setenv("NPU_SIM_JOB_BUDGET_MS", "5000", 0);
	lim.job_ms = env_u64("NPU_FUZZ_JOB_MS", 30000);
	lim.max_need = env_u64("NPU_FUZZ_MAX_NEED", 4u << 20);
	lim.max_elems = env_u64("NPU_FUZZ_MAX_ELEMS", 0);
	lim.budget_ms = env_u64("NPU_SIM_JOB_BUDGET_MS", 0);
	lim.unit_ms = env_u64("NPU_FUZZ_UNIT_MS", 5000);
	T.spec = "sim";
	err = npu_dev_open(T.spec, &T.d);
	if (err) {
		fprintf(stderr, "npu_fuzz: cannot open the in-process device: %d\n",
			err);
		exit(1);
	}
	queue = t_queue(T.d, 0);
	if (!queue)
		exit(1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct npu_fuzz_prog p;
	char why[256], desc[2048];

	npu_fuzz_decode(data, size, &p);
	if (npu_fuzz_exec(T.d, queue, &p, &lim, why, sizeof(why)) !=
	    NPU_FUZZ_FINDING)
		return 0;
	npu_fuzz_describe(&p, desc, sizeof(desc));
	fprintf(stderr, "npu_fuzz: FINDING: %s\nnpu_fuzz: program: %s\n",
		why, desc);
	abort();
}
