// SPDX-License-Identifier: MIT
/*
 * npu_sim_guard.c - the guard-page mode of the in-process device: one
 * private view per running task with only its buffers mapped, each between
 * PROT_NONE guard regions (see npu_sim_guard.h).
 */
#include "npu_sim_guard.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD_PAGE		4096ull
#define GUARD_DEFAULT_MB	1024u
#define GUARD_MAX_MB		65536u

/*
 * Live views, for the fault handler's message only (a full table just
 * means a fault there is reported without names).
 */
#define GUARD_VIEWS		64

struct guard_view {
	uintptr_t base;			/* 0: free slot; claimed by CAS */
	u64 len;
	u32 num;
	u64 pos[DRM_NPU_MAX_OPERANDS];	/* where buffer i begins in the view */
	u64 start[DRM_NPU_MAX_OPERANDS];
	u64 size[DRM_NPU_MAX_OPERANDS];
};

static struct guard_view guard_views[GUARD_VIEWS];

/* ---- the fault handler (async-signal-safe: write(2) only) ---- */

static void guard_puts(const char *s)
{
	ssize_t r = write(STDERR_FILENO, s, strlen(s));

	(void)r;
}

static void guard_putu(u64 v, int hex)
{
	char b[24];
	int i = (int)sizeof(b) - 1;

	b[i] = 0;
	do {
		b[--i] = "0123456789abcdef"[v % (hex ? 16 : 10)];
		v /= hex ? 16 : 10;
	} while (v);
	if (hex) {
		b[--i] = 'x';
		b[--i] = '0';
	}
	guard_puts(&b[i]);
}

static void guard_describe(const struct guard_view *v, uintptr_t addr)
{
	u64 at = addr - v->base, best = ~0ull, dist = 0;
	u32 i, k = 0;
	int after = 0;

	for (i = 0; i < v->num; i++) {
		u64 d;
		int a = at >= v->pos[i] + v->size[i];

		d = a ? at - (v->pos[i] + v->size[i]) + 1 : v->pos[i] - at;
		if (at >= v->pos[i] && !a)
			d = 0;
		if (d < best) {
			best = d;
			k = i;
			after = a;
			dist = d;
		}
	}
	guard_puts("npu_sim guard: an op kernel touched a guard page, ");
	guard_putu(dist, 0);
	guard_puts(after ? " bytes past the end of" : " bytes before");
	guard_puts(" operand buffer ");
	guard_putu(k, 0);
	guard_puts(" (VRAM ");
	guard_putu(v->start[k], 1);
	guard_puts(", ");
	guard_putu(v->size[k], 0);
	guard_puts(" bytes)\n");
}

static void guard_segv(int sig, siginfo_t *si, void *uc)
{
	uintptr_t addr = (uintptr_t)si->si_addr;
	u32 i;

	(void)uc;
	for (i = 0; i < GUARD_VIEWS; i++) {
		struct guard_view *v = &guard_views[i];
		uintptr_t base = __atomic_load_n(&v->base, __ATOMIC_ACQUIRE);

		if (base && addr >= base && addr - base < v->len) {
			guard_describe(v, addr);
			break;
		}
	}
	if (i == GUARD_VIEWS)
		guard_puts("npu_sim guard: SIGSEGV outside every task view\n");
	/* die of it: the default action when the access repeats */
	signal(sig, SIG_DFL);
}

static void guard_install_handler(void)
{
	struct sigaction old, sa;

	if (sigaction(SIGSEGV, NULL, &old) || old.sa_handler != SIG_DFL ||
	    (old.sa_flags & SA_SIGINFO))
		return;		/* someone (a sanitizer) reports faults */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
}

static void guard_register(void *base, u64 len, const u64 *pos,
			   const struct npu_task_map *m)
{
	u32 i;

	for (i = 0; i < GUARD_VIEWS; i++) {
		struct guard_view *v = &guard_views[i];
		uintptr_t zero = 0;

		/* claim with a non-zero marker, publish the base last */
		if (!__atomic_compare_exchange_n(&v->base, &zero, (uintptr_t)1,
						 false, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		v->len = len;
		v->num = m->num;
		memcpy(v->pos, pos, sizeof(v->pos));
		memcpy(v->start, m->start, sizeof(v->start));
		memcpy(v->size, m->size, sizeof(v->size));
		__atomic_store_n(&v->base, (uintptr_t)base, __ATOMIC_RELEASE);
		return;
	}
}

static void guard_unregister(void *base)
{
	u32 i;

	for (i = 0; i < GUARD_VIEWS; i++)
		if (__atomic_load_n(&guard_views[i].base, __ATOMIC_ACQUIRE) ==
		    (uintptr_t)base) {
			__atomic_store_n(&guard_views[i].base, (uintptr_t)0,
					 __ATOMIC_RELEASE);
			return;
		}
}

/* ---- setup, map, unmap ---- */

static int guard_env(const char *name, u32 def, u32 max, u32 *out)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	*out = def;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max) {
		npu_err("sim: %s=%s is not a number in [0, %u]; unset it or fix it\n",
			name, s, max);
		return -EINVAL;
	}
	*out = (u32)v;
	return 0;
}

int npu_sim_guard_setup(struct npu_sim_guard *g, bool *on)
{
	u32 enable, mb;

	*on = false;
	if (guard_env("NPU_SIM_GUARD", 0, 1, &enable) ||
	    guard_env("NPU_SIM_GUARD_MB", GUARD_DEFAULT_MB, GUARD_MAX_MB, &mb))
		return -EINVAL;
	if (!enable)
		return 0;
	g->guard = mb ? (u64)mb << 20 : GUARD_PAGE;
	guard_install_handler();
	*on = true;
	return 0;
}

int npu_sim_guard_map(struct npu_sim_guard *g, struct npu_task_map *m)
{
	u64 pos[DRM_NPU_MAX_OPERANDS] = { 0 }, len = g->guard;
	u32 i, j;
	char *view;

	/* [guard][buffer][guard][buffer]...[guard], one place per buffer */
	for (i = 0; i < m->num; i++) {
		for (j = 0; j < i && m->start[j] != m->start[i]; j++)
			;
		if (j < i) {
			pos[i] = pos[j];
			continue;
		}
		pos[i] = len;
		len += m->size[i] + g->guard;
	}
	view = mmap(NULL, len, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (view == MAP_FAILED)
		return -errno;
	for (i = 0; i < m->num; i++) {
		for (j = 0; j < i && m->start[j] != m->start[i]; j++)
			;
		m->base[i] = view + pos[i];
		if (j < i || !m->size[i])
			continue;
		if (mmap(view + pos[i], m->size[i], PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, g->memfd,
			 (off_t)m->start[i]) == MAP_FAILED) {
			int err = -errno;

			munmap(view, len);
			return err;
		}
	}
	m->home = view;
	m->home_len = len;
	guard_register(view, len, pos, m);
	return 0;
}

void npu_sim_guard_unmap(struct npu_sim_guard *g, struct npu_task_map *m)
{
	(void)g;
	if (!m->home)
		return;
	guard_unregister(m->home);
	munmap(m->home, m->home_len);
	m->home = NULL;
}
