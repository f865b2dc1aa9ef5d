// SPDX-License-Identifier: MIT
/*
 * npu-smi - the NPU system management interface: devices, memory and the
 * processes using them, in the spirit of nvidia-smi.
 *
 *   npu-smi                         device table and process list
 *   npu-smi -t memory               pool statistics per device
 *   npu-smi --query=F,... [--format=csv|json] [--noheader]
 *   npu-smi -l SECONDS [--count N]  repeat every SECONDS
 *   npu-smi --device sim            the in-process device
 *   npu-smi info [...]              the same (Ascend's npu-smi spelling)
 *
 * The device: --device, else $NPU_DEVICE ("sim", a node; unset or "auto":
 * every kernel device), as the runtime chooses it.
 *
 * Exit status: 0, 1 when no device is found, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drm/npu_drm.h"
#include "npu_transport.h"
#include "smi.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npu-smi [info] [-t memory] [--query=FIELD,...] [--format=csv|json]\n"
		"               [--noheader] [-l SECONDS] [--count N] [--device sim|NODE]\n"
		"\n"
		"  (no option), info  device table and processes using the NPUs\n"
		"  -t, --type memory  VRAM pool statistics (fragmentation, compaction)\n"
		"  --query=F,...      selected fields, one line per device\n"
		"  --format=csv|json  output of --query (default csv)\n"
		"  --noheader         no CSV header line\n"
		"  -l, --loop=SEC     repeat every SEC seconds (Ctrl-C to stop)\n"
		"  --count=N          stop after N reports (with -l)\n"
		"  --device=SPEC      'sim': the in-process device; or a node path\n"
		"                     (default: $NPU_DEVICE, else every npu_drv device)\n"
		"  --help-query       list the --query fields\n"
		"  --version          print the version and exit\n");
}

static void no_device(void)
{
	fprintf(stderr,
		"npu-smi: no NPU device found: no /dev/dri/renderD* or "
		"/dev/accel/accel* node is bound to the npu_drv driver.\n"
		"Load the driver:\n"
		"    sudo modprobe npu_drv        (installed with `make -C kernel/npu_drv "
		"modules_install` or DKMS)\n"
		"    sudo insmod kernel/npu_drv/npu_drv.ko   (from a build tree; "
		"needs drm.ko: modprobe drm)\n"
		"See Documentation/driver.rst. To look at the in-process device "
		"instead: npu-smi --device sim\n");
}

struct opts {
	bool memory;
	const char *query;
	bool json;
	bool header;
	double loop;
	long count;
	const char *device;
};

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "type", required_argument, NULL, 't' },
		{ "query", required_argument, NULL, 'q' },
		{ "format", required_argument, NULL, 'f' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "loop", required_argument, NULL, 'l' },
		{ "count", required_argument, NULL, 'c' },
		{ "device", required_argument, NULL, 'd' },
		{ "help-query", no_argument, NULL, 'Q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->header = true;
	o->count = -1;
	while ((c = getopt_long(argc, argv, "t:q:f:l:c:d:h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (strcmp(optarg, "memory")) {
				fprintf(stderr, "npu-smi: unknown -t '%s' (known: memory)\n",
					optarg);
				return -1;
			}
			o->memory = true;
			break;
		case 'q':
			if (smi_check_fields(optarg))
				return -1;
			o->query = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "json")) {
				o->json = true;
			} else if (strcmp(optarg, "csv")) {
				fprintf(stderr, "npu-smi: --format must be csv or json, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'H':
			o->header = false;
			break;
		case 'l':
			o->loop = strtod(optarg, &end);
			if (*end || o->loop <= 0) {
				fprintf(stderr, "npu-smi: -l needs a positive number of seconds, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'c':
			o->count = strtol(optarg, &end, 10);
			if (*end || o->count <= 0) {
				fprintf(stderr, "npu-smi: --count needs a positive integer\n");
				return -1;
			}
			break;
		case 'd':
			o->device = optarg;
			break;
		case 'Q':
			smi_list_fields();
			exit(0);
		case 'V':
			printf("npu-smi %s (uapi %u.%u)\n", NPU_VERSION,
			       DRM_NPU_UAPI_MAJOR, DRM_NPU_UAPI_MINOR);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	/* Ascend's npu-smi takes a command: "info" is the only one here */
	if (optind < argc && !strcmp(argv[optind], "info"))
		optind++;
	if (optind < argc) {
		fprintf(stderr, "npu-smi: unexpected argument '%s' (the only "
			"command is \"info\", the default)\n", argv[optind]);
		return -1;
	}
	if (!o->device) {
		const char *env = getenv("NPU_DEVICE");

		if (env && *env)
			o->device = env;
	}
	if (o->device && !strcmp(o->device, "auto"))
		o->device = NULL;
	return 0;
}

/* Keeps only the device whose node is @spec. */
static int select_node(struct smi_device *devs, int n, const char *spec)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(devs[i].node, spec)) {
			devs[0] = devs[i];
			return 1;
		}
	}
	fprintf(stderr, "npu-smi: --device %s: not an npu_drv device node; the "
		"npu_drv devices are:", spec);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s", devs[i].node);
	fprintf(stderr, " (or --device sim for the in-process device)\n");
	return 0;
}

static int report(const struct opts *o)
{
	static struct smi_device devs[SMI_MAX_DEVICES];
	static struct smi_proc procs[SMI_MAX_PROCS];
	int ndev, nproc = 0;

	if (o->device && !strncmp(o->device, "sim", 3)) {
		/* "sim": every in-process device; "sim:N": that one */
		int n = npu_dev_sim_count(), first = 0, r = 0;

		if (n > SMI_MAX_DEVICES)
			n = SMI_MAX_DEVICES;
		if (o->device[3] == ':') {
			first = atoi(o->device + 4);
			n = first + 1;
		} else if (o->device[3]) {
			n = -EINVAL;
		}
		for (ndev = 0; n > 0 && first + ndev < n && !r; ndev++)
			r = smi_sim_device((unsigned int)(first + ndev),
					   &devs[ndev]);
		if (n < 0 || r) {
			fprintf(stderr, "npu-smi: in-process device %s: %s\n",
				o->device, strerror(n < 0 ? -n : -r));
			return 1;
		}
	} else {
		ndev = smi_find_devices(devs, SMI_MAX_DEVICES);
		if (ndev && o->device)
			ndev = select_node(devs, ndev, o->device);
		if (!ndev && o->device)
			fprintf(stderr, "npu-smi: --device %s: no npu_drv device "
				"is present (--device sim shows the in-process "
				"device)\n", o->device);
		if (!ndev) {
			if (!o->device)
				no_device();
			return 1;
		}
		if (!o->memory)
			smi_sample_utilisation(devs, ndev, 200);
		nproc = smi_find_procs(devs, ndev, procs, SMI_MAX_PROCS);
	}
	if (o->query)
		smi_print_query(devs, ndev, o->query, o->json, o->header);
	else if (o->memory)
		smi_print_memory(devs, ndev);
	else
		smi_print_table(devs, ndev, procs, nproc);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	long done = 0;
	int r;

	if (parse(argc, argv, &o))
		return 2;
	for (;;) {
		r = report(&o);
		if (r || o.loop <= 0 || (o.count > 0 && ++done >= o.count))
			return r;
		usleep((useconds_t)(o.loop * 1e6));
		if (!o.query)
			printf("\n");
	}
}
