// SPDX-License-Identifier: MIT
/*
 * npu_uapi_test.c - kselftest-style TAP suite of the NPU uapi.
 *
 *   npu_uapi_test [--device SPEC]
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

static void usage(FILE *f)
{
	fprintf(f, "usage: npu_uapi_test [--device SPEC]\n"
		"  SPEC: sim | /dev/dri/renderDN | /dev/accel/accelN "
		"(default: $NPU_DEVICE, else auto)\n");
}

int main(int argc, char **argv)
{
	int i, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			T.spec = argv[++i];
		} else if (!strncmp(argv[i], "--device=", 9)) {
			T.spec = argv[i] + 9;
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

	test_device_bo();
	test_program();
	test_queue_sem();
	test_submit();
	test_sched();
	test_math();
	test_stress();
	test_fuzz();
	test_chaos();

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
