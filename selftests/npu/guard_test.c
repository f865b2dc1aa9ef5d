// SPDX-License-Identifier: MIT
/*
 * guard_test.c - the guard-page mode of the in-process device
 * (libnpurt/sim/npu_sim_guard.h): a task's view maps exactly its buffers,
 * at VRAM's bytes, each between inaccessible guards; one byte outside any
 * of them faults, and the fault handler names the buffer and the distance.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../libnpurt/sim/npu_sim_guard.h"

#define VRAM	(1u << 20)

static int n, failed;

static void ok(bool c, const char *what)
{
	printf("%sok %d - %s\n", c ? "" : "not ", ++n, what);
	failed |= !c;
}

/*
 * Touch @p in a child with the default SIGSEGV action (or the guard
 * handler when @handler); true if it died of SIGSEGV. Its stderr goes to
 * @err.
 */
static bool faults(volatile char *p, bool write, bool handler, char *err,
		   size_t len)
{
	int fds[2], st;
	size_t at;
	pid_t pid;
	ssize_t r;

	if (pipe(fds))
		return false;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct npu_sim_guard g;
		bool on;

		dup2(fds[1], 2);
		signal(SIGSEGV, SIG_DFL);	/* not a sanitizer's */
		if (handler) {
			setenv("NPU_SIM_GUARD", "1", 1);
			npu_sim_guard_setup(&g, &on);
		}
		if (write)
			*p = 1;
		else
			(void)*p;
		_exit(0);
	}
	close(fds[1]);
	/* the handler writes its message in pieces: read to EOF */
	at = 0;
	while (at < len - 1 && (r = read(fds[0], err + at, len - 1 - at)) > 0)
		at += (size_t)r;
	err[at] = 0;
	close(fds[0]);
	if (waitpid(pid, &st, 0) != pid)
		return false;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
}

int main(void)
{
	struct npu_sim_guard g = { .guard = 1u << 20 };
	struct npu_task_map m;
	char err[512], *vram, *b0, *b1;
	bool on;
	u32 i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..12\n");
	g.memfd = memfd_create("guard-test", 0);
	if (g.memfd < 0 || ftruncate(g.memfd, VRAM))
		return 1;
	vram = mmap(NULL, VRAM, PROT_READ | PROT_WRITE, MAP_SHARED, g.memfd, 0);
	if (vram == MAP_FAILED)
		return 1;
	for (i = 0; i < VRAM; i++)
		vram[i] = (char)(i * 7 + i / 4096);

	/* operands 0 and 2 share the buffer at 0; operand 1 is its neighbour */
	memset(&m, 0, sizeof(m));
	m.num = 3;
	m.start[0] = m.start[2] = 0;
	m.size[0] = m.size[2] = 8192;
	m.start[1] = 8192;
	m.size[1] = 4096;
	ok(npu_sim_guard_map(&g, &m) == 0, "a task view with three operands, two on one buffer");
	b0 = m.base[0];
	b1 = m.base[1];
	ok(m.base[2] == m.base[0], "operands on the same buffer share its place in the view");
	ok(!memcmp(b0, vram, 8192) && !memcmp(b1, vram + 8192, 4096),
	   "the view shows the buffers' VRAM bytes");
	b1[5] = 42;
	ok(vram[8192 + 5] == 42, "a store through the view lands in VRAM");
	ok(b1 != b0 + 8192, "neighbours in VRAM are not neighbours in the view");
	ok(faults(b0 + 8192, false, false, err, sizeof(err)),
	   "reading one byte past a buffer faults (where VRAM has its neighbour)");
	ok(faults(b0 - 1, true, false, err, sizeof(err)),
	   "writing one byte before a buffer faults");
	ok(faults(b1 + 4096 + (512u << 10), false, false, err, sizeof(err)),
	   "half a guard past the last buffer faults");
	ok(faults(b1 + 4100, false, true, err, sizeof(err)) &&
	   strstr(err, "5 bytes past the end of operand buffer 1 (VRAM 0x2000, 4096 bytes)"),
	   "the guard handler names the buffer and the distance");
	if (!strstr(err, "operand buffer 1"))
		printf("# handler said: %s\n", err);
	npu_sim_guard_unmap(&g, &m);
	ok(faults(b0, false, false, err, sizeof(err)),
	   "the view is gone when the task ends");

	setenv("NPU_SIM_GUARD", "2", 1);
	ok(npu_sim_guard_setup(&g, &on) == -EINVAL && !on,
	   "NPU_SIM_GUARD=2 is refused");
	setenv("NPU_SIM_GUARD", "0", 1);
	ok(npu_sim_guard_setup(&g, &on) == 0 && !on,
	   "NPU_SIM_GUARD=0 leaves the mode off");
	return failed;
}
