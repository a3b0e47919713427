// SPDX-License-Identifier: GPL-2.0
/*
 * check_fail_nth - every allocation one mmap() makes, failed one at a time: the
 * mmap() fails cleanly or works, nothing leaks, the mapping still works
 * afterwards.
 *
 * For each target (MMAP_LAB_SWEEP lists them: "device" is the stage's
 * MMAP_LAB_DEVICE; "zero", "mem", "secretmem", "memfd", "relay" are in-tree
 * users), plain and MAP_FIXED over a private, written, accounted anonymous
 * mapping; and, for the targets whose mmap() fills page tables (a remap:
 * the device, /dev/mem), at a fresh address, a gigabyte of its own per n
 * where no page table exists yet, so that the remap's own page-table
 * allocations are among the fault points. For n = 1, 2, ...:
 * /proc/thread-self/fail-nth makes the n-th
 * fault-injection point this task reaches fail (failslab and fail_page_alloc,
 * sleeping allocations included, and the kit's fail_mmap_action), then
 * mmap() runs. The sweep ends at the first n that mmap() no longer reaches.
 *
 * At every n:
 *  - mmap() succeeds with a mapping that /proc/self/maps shows whole and
 *    that can be read (and written back, when writable RAM), or it fails and
 *    the range holds what it held: the old mapping, whole and with its
 *    data (MAP_FIXED), or a hole (MAP_FIXED), or no new mapping at all;
 *  - once all is unmapped: Committed_AS, the x86 PAT memtype list and (for
 *    a module's device, after close()) the module's reference count are
 *    what they were before the mapping was tried.
 * The guest's kernel-log scan fails the stage on any splat.
 *
 * Prints its own TAP: one test per target and mode, with the number of
 * fault points swept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "lab_util.h"

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define PAT_LIST	"/sys/kernel/debug/x86/pat_memtype_list"
#define PAT_LIST_MAX	(64 * 1024)
#define RELAY_FILE	"/sys/kernel/debug/kit_relay/data0"
/*
 * More fault points than any mmap() here reaches: a sweep that gets there
 * is a sweep that never ends, and fails.
 */
#define MAX_POINTS	5000
#define SEED		0x5eed
/*
 * Fresh mode maps at FRESH_BASE + n GiB (MAP_FIXED_NOREPLACE): far from the
 * program, its heap, its libraries and its stack, and in a gigabyte whose
 * page tables no earlier n has allocated.
 */
#define FRESH_BASE	0x200000000000UL
#define FRESH_STRIDE	0x40000000UL	/* 1 GiB */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* A file to map: how to open it, and the mapping to ask for. */
struct target {
	const char *name;	/* the word in MMAP_LAB_SWEEP */
	const char *what;	/* for the TAP line */
	int (*open_fd)(const struct target *t);
	const char *path;
	int prot;
	int flags;		/* MAP_SHARED or MAP_PRIVATE */
	unsigned long len;
	unsigned long off;
	bool module;		/* check MMAP_LAB_MODULE's refcnt */
	bool registers;		/* device registers: read, never written */
	bool remaps;		/* mmap() fills page tables: sweep it fresh too */
};

/* Where a sweep maps. */
enum sweep_mode {
	PLAIN,		/* anywhere */
	FIXED,		/* MAP_FIXED over an accounted private mapping */
	FRESH,		/* at a fresh address, no page tables there yet */
};

struct sweep {
	int points;		/* fault points reached */
	int failed;		/* n whose mmap() failed */
	char why[512];		/* the first broken rule, or "" */
};

static unsigned long page;
/* Where a SIGBUS or SIGSEGV on touching a new mapping jumps back to. */
static sigjmp_buf touch_failed;
static int fail_nth_fd = -1;
static char pat_before[PAT_LIST_MAX], pat_after[PAT_LIST_MAX];
static int tests, failures;

static int open_path(const struct target *t)
{
	return open(t->path, t->prot & PROT_WRITE ? O_RDWR : O_RDONLY);
}

static int open_secretmem(const struct target *t)
{
	int fd = syscall(__NR_memfd_secret, 0);

	if (fd >= 0 && ftruncate(fd, t->len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int open_memfd(const struct target *t)
{
	int fd = memfd_create("kit-fail-nth", 0);

	if (fd >= 0 && ftruncate(fd, t->len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static long module_refcnt(void)
{
	const char *module = getenv("MMAP_LAB_MODULE");
	char path[256];
	long v = -1;

	if (!module || !*module)
		return -1;
	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", module);
	return lab_read_long(path, &v) ? -1 : v;
}

/* Arm fail-nth for the n-th fault point; 0 or -errno. */
static int arm(int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", n);

	return pwrite(fail_nth_fd, s, len, 0) == len ? 0 : -errno;
}

/* What is left of the count: 0 when the fault was injected. */
static long armed_left(void)
{
	char s[32] = "";

	if (pread(fail_nth_fd, s, sizeof(s) - 1, 0) <= 0)
		return -1;
	return strtol(s, NULL, 10);
}

static void why(struct sweep *s, int n, const char *fmt, ...)
{
	int len;
	va_list ap;

	if (s->why[0])
		return;
	len = snprintf(s->why, sizeof(s->why), "fault point %d: ", n);
	va_start(ap, fmt);
	vsnprintf(s->why + len, sizeof(s->why) - len, fmt, ap);
	va_end(ap);
}

static void on_touch_fault(int sig)
{
	siglongjmp(touch_failed, sig);
}

/* Read the first byte of a new mapping: 0, or the signal that raised. */
static int touch(volatile char *v)
{
	int sig = sigsetjmp(touch_failed, 1);

	if (!sig)
		(void)v[0];
	return sig;
}

/* A private, writable, written anonymous mapping: charged to Committed_AS. */
static char *accounted_anon(unsigned long len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		lab_pattern_fill(p, len, SEED, 0);
	return p;
}

/* Is [addr, addr + len) one mapping, whole, in /proc/self/maps? */
static bool mapped_whole(unsigned long addr, unsigned long len)
{
	unsigned long end = 0;

	return lab_maps_read(LAB_MAPS_SCRATCH) > 0 &&
	       !lab_maps_find(LAB_MAPS_SCRATCH, addr, &end, NULL, 0) &&
	       end == addr + len;
}

/* One n: arm, mmap(), judge, clean up, compare with the baselines. */
static bool sweep_one(const struct target *t, enum sweep_mode mode, int n,
		      struct sweep *s)
{
	long committed, refcnt = -1, left;
	bool pat = lab_read_file(PAT_LIST, pat_before, sizeof(pat_before)) >= 0;
	bool fixed = mode == FIXED;
	char *old = NULL, *p;
	int fd, err, flags = t->flags;

	committed = lab_meminfo_kb("Committed_AS:");
	if (t->module)
		refcnt = module_refcnt();
	fd = t->open_fd(t);
	if (fd < 0) {
		why(s, n, "cannot open %s: %s", t->what, strerror(errno));
		return false;
	}
	if (fixed) {
		old = accounted_anon(t->len);
		if (old == MAP_FAILED) {
			why(s, n, "no anonymous mapping to map over: %s",
			    strerror(errno));
			close(fd);
			return false;
		}
	}
	if (fixed) {
		flags |= MAP_FIXED;
	} else if (mode == FRESH) {
		old = (char *)(FRESH_BASE + (unsigned long)n * FRESH_STRIDE);
		flags |= MAP_FIXED_NOREPLACE;
	}
	if (!fixed && lab_maps_read(LAB_MAPS_BEFORE) <= 0) {
		why(s, n, "cannot read /proc/self/maps");
		close(fd);
		return false;
	}
	err = arm(n);
	if (err) {
		why(s, n, "cannot write %s: %s", FAIL_NTH, strerror(-err));
		close(fd);
		return false;
	}
	p = mmap(old, t->len, t->prot, flags, fd, t->off);
	err = errno;
	left = armed_left();
	arm(0);
	if (left != 0) {
		/* mmap() reached fewer than n points: the sweep is over. */
		if (p == MAP_FAILED)
			why(s, n, "mmap() failed with no fault injected: %s",
			    lab_errno_name(err));
	} else {
		s->points = n;
	}

	if (p != MAP_FAILED) {
		volatile char *v = (volatile char *)p;
		int sig;

		if (old && p != old)
			why(s, n, "%s mapped %p, not %p", fixed ? "MAP_FIXED" :
			    "MAP_FIXED_NOREPLACE", p, old);
		else if (!mapped_whole((unsigned long)p, t->len))
			why(s, n, "the mapping at %p is not whole in "
			    "/proc/self/maps", p);
		sig = touch(v);
		if (sig)
			why(s, n, "reading the new mapping raised %s",
			    sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
		if (!sig && (t->prot & PROT_WRITE) && !t->registers) {
			char c = v[0];

			v[0] = c ^ 0x5a;
			if (v[0] != (char)(c ^ 0x5a))
				why(s, n, "a byte written through the mapping "
				    "does not read back");
			v[0] = c;
		}
		munmap(p, t->len);
	} else if (left == 0) {
		s->failed++;
		if (fixed && mapped_whole((unsigned long)old, t->len)) {
			uint32_t want, got;
			long bad = lab_pattern_check(old, t->len, SEED, 0,
						     &want, &got);

			if (bad >= 0)
				why(s, n, "the old mapping came back with other "
				    "data at offset %ld", bad);
		} else if (fixed) {
			if (lab_maps_read(LAB_MAPS_SCRATCH) <= 0 ||
			    lab_maps_overlaps(LAB_MAPS_SCRATCH,
					      (unsigned long)old,
					      (unsigned long)old + t->len))
				why(s, n, "failed with %s, leaving part of "
				    "the range mapped", lab_errno_name(err));
		} else if (lab_maps_read(LAB_MAPS_AFTER) <= 0 ||
			   strcmp(LAB_MAPS_BEFORE, LAB_MAPS_AFTER)) {
			why(s, n, "failed with %s, and /proc/self/maps "
			    "changed", lab_errno_name(err));
		}
	}
	if (fixed)
		munmap(old, t->len);
	close(fd);

	if (lab_meminfo_kb("Committed_AS:") != committed)
		why(s, n, "Committed_AS %ld kB, %ld kB before",
		    lab_meminfo_kb("Committed_AS:"), committed);
	if (t->module && module_refcnt() != refcnt)
		why(s, n, "module refcnt %ld after close(), %ld before",
		    module_refcnt(), refcnt);
	if (pat && (lab_read_file(PAT_LIST, pat_after, sizeof(pat_after)) < 0 ||
		    strcmp(pat_before, pat_after)))
		why(s, n, "the PAT memtype list is not what it was");
	return left == 0 && !s->why[0];
}

static void report(bool ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!ok)
		failures++;
	printf("%sok %d - ", ok ? "" : "not ", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sweep_target(const struct target *t, enum sweep_mode mode)
{
	struct sweep s = { 0 };
	double start = now();
	int n;

	for (n = 1; n <= MAX_POINTS; n++)
		if (!sweep_one(t, mode, n, &s))
			break;
	if (!s.why[0] && n > MAX_POINTS)
		why(&s, n, "still failing after %d fault points", MAX_POINTS);
	if (!s.why[0] && s.points == 0)
		why(&s, 1, "mmap() reached no fault point: is fail-nth armed?");
	report(!s.why[0], "fail-nth sweep: %s%s: %d fault point%s, mmap() "
	       "failed at %d%s%s", t->what,
	       mode == FIXED ? ", MAP_FIXED over an accounted private mapping" :
	       mode == FRESH ? ", at a fresh address (new page tables)" : "",
	       s.points, s.points == 1 ? "" : "s", s.failed,
	       s.why[0] ? "; " : "", s.why);
	printf("# %d mmap() calls in %.2f s\n", n, now() - start);
}

/* failslab and fail_page_alloc: sleeping allocations fail too, no logs. */
static int configure(const char **failed)
{
	static const char *const cfg[][2] = {
		{ "failslab/ignore-gfp-wait", "N" },
		{ "failslab/verbose", "0" },
		{ "fail_page_alloc/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "fail_page_alloc/min-order", "0" },
		{ "fail_page_alloc/verbose", "0" },
		{ "fail_mmap_action/verbose", "0" },
	};
	char path[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cfg); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s", cfg[i][0]);
		if (lab_write_file(path, cfg[i][1])) {
			*failed = cfg[i][0];
			return -1;
		}
	}
	return 0;
}

int main(void)
{
	const char *sweep = getenv("MMAP_LAB_SWEEP"), *dev, *failed = "";
	unsigned long size = 0, buf_size = 0;
	struct target targets[] = {
		{ "device", NULL, open_path, NULL, PROT_READ | PROT_WRITE,
		  MAP_SHARED, 0, 0, true, false, true },
		{ "zero", "/dev/zero MAP_SHARED", open_path, "/dev/zero",
		  PROT_READ | PROT_WRITE, MAP_SHARED, 0, 0, false, false, false },
		{ "zero", "/dev/zero MAP_PRIVATE", open_path, "/dev/zero",
		  PROT_READ | PROT_WRITE, MAP_PRIVATE, 0, 0, false, false, false },
		{ "mem", "/dev/mem below 1 MiB", open_path, "/dev/mem",
		  PROT_READ, MAP_SHARED, 0, 0, false, false, true },
		{ "secretmem", "memfd_secret()", open_secretmem, NULL,
		  PROT_READ | PROT_WRITE, MAP_SHARED, 0, 0, false, false, false },
		{ "memfd", "memfd (shmem) MAP_SHARED", open_memfd, NULL,
		  PROT_READ | PROT_WRITE, MAP_SHARED, 0, 0, false, false, false },
		{ "memfd", "memfd (shmem) MAP_PRIVATE", open_memfd, NULL,
		  PROT_READ | PROT_WRITE, MAP_PRIVATE, 0, 0, false, false, false },
		{ "relay", "relay buffer " RELAY_FILE, open_path, RELAY_FILE,
		  PROT_READ, MAP_SHARED, 0, 0, false, false, false },
	};
	char devwhat[160];
	size_t i;

	struct sigaction sa = { .sa_handler = on_touch_fault };

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	printf("TAP version 13\n");
	page = lab_page_size();
	if (!sweep || !*sweep) {
		printf("1..0 # SKIP MMAP_LAB_SWEEP names no target\n");
		return 0;
	}
	if (lab_debugfs_mount() || configure(&failed)) {
		printf("not ok 1 - fail-nth sweep: cannot configure %s "
		       "(CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, "
		       "CONFIG_FAULT_INJECTION_DEBUG_FS)\n1..1\n", failed);
		return 1;
	}
	fail_nth_fd = open(FAIL_NTH, O_RDWR);
	if (fail_nth_fd < 0) {
		printf("not ok 1 - fail-nth sweep: cannot open " FAIL_NTH
		       ": %s\n1..1\n", strerror(errno));
		return 1;
	}
	dev = getenv("MMAP_LAB_DEVICE");
	lab_parse_ulong(getenv("MMAP_LAB_BUF_SIZE") ?: "0", &buf_size);
	size = buf_size;
	if (!size)
		lab_parse_ulong(getenv("MMAP_LAB_MAP_SIZE") ?: "0", &size);
	snprintf(devwhat, sizeof(devwhat), "%s MAP_SHARED", dev ?: "?");
	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		struct target *t = &targets[i];

		if (!lab_has_token(sweep, t->name, strlen(t->name)))
			continue;
		t->len = 4 * page;
		if (!strcmp(t->name, "device")) {
			t->path = dev;
			t->what = devwhat;
			/* Up to 4 pages of the buffer or the BAR. */
			if (size && size < t->len)
				t->len = size & ~(page - 1);
			/* No buffer: a BAR, whose registers do not read back. */
			t->registers = !buf_size;
		} else if (!strcmp(t->name, "mem")) {
			t->len = page;		/* the BIOS area, 0xf0000 */
			t->off = 0xf0000;
		} else if (!strcmp(t->name, "relay")) {
			t->len = 2 * page;	/* the whole channel */
		}
		sweep_target(t, PLAIN);
		sweep_target(t, FIXED);
		if (t->remaps)
			sweep_target(t, FRESH);
	}
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
