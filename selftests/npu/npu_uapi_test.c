// SPDX-License-Identifier: MIT
/*
 * npu_uapi_test.c - kselftest-style TAP suite of the NPU uapi.
 *
 *   npu_uapi_test [--device SPEC] [--group NAME]... [--list]
 *
 * SPEC as for npu_dev_open(): "sim" (the in-process device), a device node
 * path, or nothing for automatic choice ($NPU_DEVICE, then an npu_drv node,
 * then the in-process device). The very same binary runs against the
 * kernel module in a VM. Exit status 0 when every test passed.
 */
#include "npu_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	void (*run)(void);
} groups[] = {
	{ "device_bo", test_device_bo },
	{ "program", test_program },
	{ "queue_sem", test_queue_sem },
	{ "submit", test_submit },
	{ "sched", test_sched },
	{ "math", test_math },
	{ "count", test_count },
	{ "random", test_random },
	{ "stress", test_stress },
	{ "fuzz", test_fuzz },
	{ "chaos", test_chaos },
	{ "hostile", test_hostile },
	{ "bounded", test_bounded },
	{ "wakeup", test_wakeup },
	{ "peer", test_peer },
};

#define NUM_GROUPS	(sizeof(groups) / sizeof(groups[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: npu_uapi_test [--device SPEC] [--group NAME]... [--list]\n"
		"  SPEC: sim | /dev/dri/renderDN | /dev/accel/accelN "
		"(default: $NPU_DEVICE, else auto)\n"
		"  NAME: run only these groups of tests:");
	for (i = 0; i < NUM_GROUPS; i++)
		fprintf(f, " %s", groups[i].name);
	fprintf(f, "\n");
}

static int group_index(const char *name)
{
	size_t i;

	for (i = 0; i < NUM_GROUPS; i++)
		if (!strcmp(groups[i].name, name))
			return (int)i;
	return -1;
}

int main(int argc, char **argv)
{
	bool only[NUM_GROUPS] = { false }, some = false;
	size_t g;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			T.spec = argv[++i];
		} else if (!strncmp(argv[i], "--device=", 9)) {
			T.spec = argv[i] + 9;
		} else if (!strcmp(argv[i], "--group") && i + 1 < argc) {
			int k = group_index(argv[++i]);

			if (k < 0) {
				fprintf(stderr, "npu_uapi_test: no test group '%s'\n",
					argv[i]);
				usage(stderr);
				return 2;
			}
			only[k] = some = true;
		} else if (!strcmp(argv[i], "--list")) {
			for (g = 0; g < NUM_GROUPS; g++)
				printf("%s\n", groups[g].name);
			return 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "npu_uapi_test: unknown argument '%s'\n",
				argv[i]);
			usage(stderr);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	err = npu_dev_open(T.spec, &T.d);
	if (err) {
		printf("1..0 # SKIP cannot open NPU device '%s': %s\n",
		       T.spec ? T.spec : "auto", strerror(-err));
		return 0;
	}
	tap_diag("device: %s (%s)", npu_dev_name(T.d),
		 npu_dev_is_kernel(T.d) ? "kernel node" : "in-process");
	err = t_ioctl(T.d, DRM_IOCTL_NPU_DEVICE_INFO, &T.info);
	if (err) {
		printf("Bail out! DEVICE_INFO failed: %s\n", strerror(-err));
		return 1;
	}
	tap_diag("%u AI cores, %u queues, %u semaphores, %llu MiB VRAM, watchdog %llu ms",
		 T.info.num_cores, T.info.num_queues, T.info.num_semaphores,
		 (unsigned long long)(T.info.vram_size >> 20),
		 (unsigned long long)T.info.watchdog_ms);

	/*
	 * A generous watchdog while the suite runs: in a VM on a loaded host a
	 * virtual CPU may stall for seconds, and a task that was merely not
	 * scheduled must not fail as hung. The watchdog test sets its own.
	 */
	T.watchdog_ms = T.info.watchdog_ms;
	if (t_control("watchdog_ms", 30000) == 0)
		T.watchdog_ms = 30000;
	for (g = 0; g < NUM_GROUPS; g++)
		if (!some || only[g])
			groups[g].run();
	if (T.watchdog_ms != T.info.watchdog_ms)
		t_control("watchdog_ms", T.info.watchdog_ms);

	/* the totals on stderr too, so that prove shows them in make check */
	fprintf(stderr, "npu_uapi_test on %s: %d tests, %d passed, %d failed, %d skipped\n",
		npu_dev_name(T.d), tap_count(), tap_count() - tap_failures(),
		tap_failures(), tap_skips());
	npu_dev_close(T.d);
	printf("1..%d\n", tap_count());
	if (tap_failures())
		tap_diag("%d of %d tests failed", tap_failures(), tap_count());
	return tap_failures() ? 1 : 0;
}
