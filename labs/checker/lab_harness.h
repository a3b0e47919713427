/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab_harness.h - what every mmap lab checker includes: the kernel's own
 * kselftest harness, the helpers of lab_util.h (linked from lab_util.o) and
 * the LAB_*() assertion macros built on both. A checker starts with
 *
 *	#include "lab_harness.h"
 *
 * and ends with TEST_HARNESS_MAIN.
 *
 * The LAB_*() macros are macros, not functions, because they assert: they
 * use the harness' ASSERT_*() and TH_LOG(), which need the _metadata of the
 * running test and return from it on failure. So they can only be used
 * inside FIXTURE_SETUP(), FIXTURE_TEARDOWN() and TEST_F().
 */
#ifndef LAB_HARNESS_H
#define LAB_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

/*
 * Two warnings of -Wextra come from the 6.12 harness' own code, not ours:
 *  - an unused parameter in its SIGALRM handler (and in the wrapper plain
 *    TEST() generates; the checkers use TEST_F() only);
 *  - -Wclobbered on the local "child" of the setjmp() wrapper TEST_F()
 *    generates, whenever GCC inlines a large test body into it. If it were
 *    really clobbered, a failed ASSERT would skip the fixture teardown of
 *    that test (the failure is still reported, the test process still
 *    exits); the fixtures here do not depend on their teardown for the next
 *    test. The checkers do not call setjmp() themselves, so this silences
 *    nothing of ours.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#pragma GCC diagnostic ignored "-Wclobbered"

/* The C library as the checkers use it. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "lab_util.h"

/* Environment ------------------------------------------------------------- */

#define LAB_ENV_DOC "labs/README.md, \"Checker environment\""

/*
 * LAB_ENV_REQUIRED(var, "NAME"): var = getenv("NAME"), failing the test (not
 * skipping it) when the variable is not set at all. An empty value is
 * returned as "" and left to the caller.
 */
#define LAB_ENV_REQUIRED(var, name) do {					\
	(var) = getenv(name);							\
	ASSERT_NE(NULL, (var)) {						\
		TH_LOG("required environment variable %s is not set; the "	\
		       "stage.conf must define it (see " LAB_ENV_DOC ")",	\
		       name);							\
	}									\
} while (0)

/*
 * LAB_REFUSES(what, "description"): skip the test unless the driver refuses
 * WHAT, a word of MMAP_LAB_REFUSES ("private", "exec", "grow", "past-end").
 * Unset: a lab driver, which refuses them all. make check DRIVER=... sets
 * it from the driver's kit-check.conf.
 */
#define LAB_REFUSES(what, desc) do {						\
	const char *__lab_r = getenv("MMAP_LAB_REFUSES");			\
	if (__lab_r && !lab_has_token(__lab_r, (what), strlen(what)))		\
		SKIP(return, "the driver does not refuse %s (MMAP_LAB_REFUSES "	\
		     "has no \"%s\")", (desc), (what));			\
} while (0)

/* LAB_ENV_ULONG(var, "NAME"): required numeric environment variable. */
#define LAB_ENV_ULONG(var, name) do {						\
	const char *__lab_s;							\
	LAB_ENV_REQUIRED(__lab_s, name);					\
	ASSERT_EQ(0, lab_parse_ulong(__lab_s, &(var))) {			\
		TH_LOG("environment variable %s=\"%s\" is not a number",	\
		       name, __lab_s);						\
	}									\
} while (0)

/*
 * LAB_MAP_SIZE(var): the length of the whole mappable region: the buffer
 * (MMAP_LAB_BUF_SIZE) when the stage has one, else MMAP_LAB_MAP_SIZE (stage 3:
 * the length of BAR 0). Must be a non-zero multiple of the page size.
 */
#define LAB_MAP_SIZE(var) do {							\
	unsigned long __lab_buf = 0;						\
	const char *__lab_s;							\
	LAB_ENV_ULONG(__lab_buf, "MMAP_LAB_BUF_SIZE");				\
	if (__lab_buf) {							\
		(var) = __lab_buf;						\
	} else {								\
		__lab_s = getenv("MMAP_LAB_MAP_SIZE");				\
		ASSERT_NE(NULL, __lab_s) {					\
			TH_LOG("MMAP_LAB_BUF_SIZE=0 (no buffer) and "		\
			       "MMAP_LAB_MAP_SIZE is not set: the stage must "	\
			       "say how long the mappable region is");		\
		}								\
		ASSERT_EQ(0, lab_parse_ulong(__lab_s, &(var))) {		\
			TH_LOG("MMAP_LAB_MAP_SIZE=\"%s\" is not a number",	\
			       __lab_s);					\
		}								\
	}									\
	ASSERT_NE(0UL, (unsigned long)(var)) {					\
		TH_LOG("the mappable region has length 0");			\
	}									\
	ASSERT_EQ(0UL, (unsigned long)(var) % lab_page_size()) {		\
		TH_LOG("region length %lu is not a multiple of the page "	\
		       "size %lu", (unsigned long)(var), lab_page_size());	\
	}									\
} while (0)

/* LAB_ENV_ERRNO(var, "NAME"): required environment variable naming an errno. */
#define LAB_ENV_ERRNO(var, name) do {						\
	const char *__lab_s;							\
	LAB_ENV_REQUIRED(__lab_s, name);					\
	(var) = lab_errno_from_name(__lab_s);					\
	ASSERT_NE(-1, (var)) {							\
		TH_LOG("environment variable %s=\"%s\" is not an errno name "	\
		       "this checker knows (e.g. ENOMEM, EAGAIN)", name,	\
		       __lab_s);						\
	}									\
} while (0)

/* /proc/self/maps --------------------------------------------------------- */

/*
 * LAB_MAPS_SNAPSHOT(buf): read /proc/self/maps into one of the static
 * buffers, failing the test if it cannot.
 */
#define LAB_MAPS_SNAPSHOT(buf) do {						\
	ssize_t __lab_n = lab_maps_read(buf);					\
	ASSERT_LT(0, __lab_n) {							\
		TH_LOG("reading /proc/self/maps failed: %s",			\
		       strerror((int)-__lab_n));				\
	}									\
} while (0)

/* LAB_ASSERT_MAPS_SAME(): the two snapshots are byte-identical. */
#define LAB_ASSERT_MAPS_SAME(before, after, what) do {				\
	static char __lab_d[1024];						\
	if (strcmp(before, after))						\
		lab_maps_diff(before, after, __lab_d, sizeof(__lab_d));	\
	ASSERT_EQ(0, strcmp(before, after)) {					\
		TH_LOG("%s changed /proc/self/maps (%d VMAs before, %d "	\
		       "after); %s", what, lab_maps_count(before),		\
		       lab_maps_count(after), __lab_d);			\
	}									\
} while (0)

/* The device and its mappings --------------------------------------------- */

/*
 * LAB_MMAP(ptr, mappings, len, prot, flags, fd, off): a mapping that must
 * succeed; it is tracked so the fixture teardown removes it.
 */
#define LAB_MMAP(ptr, maps, len, prot, flags, fd, off) do {			\
	(ptr) = lab_sys_mmap(NULL, (len), (prot), (flags), (fd), (off));	\
	ASSERT_NE(MAP_FAILED, (ptr)) {						\
		TH_LOG("mmap(len=%#lx, off=%#lx) failed: %s (%s)",		\
		       (unsigned long)(len), (unsigned long)(off),		\
		       lab_errno_name(errno), strerror(errno));			\
	}									\
	ASSERT_TRUE(lab_track((maps), (void *)(ptr), (len)));				\
} while (0)

/*
 * LAB_MMAP_REFUSED(len, prot, flags, fd, off, err, what): an mmap() that
 * must fail with errno err. A mapping that unexpectedly succeeds is removed
 * before the test fails.
 */
#define LAB_MMAP_REFUSED(len, prot, flags, fd, off, err, what) do {		\
	void *__lab_p = lab_sys_mmap(NULL, (len), (prot), (flags), (fd), (off)); \
	int __lab_e = errno;							\
	if (__lab_p != MAP_FAILED)						\
		munmap(__lab_p, (len));						\
	ASSERT_EQ(MAP_FAILED, __lab_p) {					\
		TH_LOG("%s: mmap(len=%#lx, off=%#lx) succeeded%s, expected "	\
		       "%s", what, (unsigned long)(len), (unsigned long)(off),	\
		       lab_mmap_success_note(__lab_p), lab_errno_name(err));	\
	}									\
	ASSERT_EQ((err), __lab_e) {						\
		TH_LOG("%s: mmap(len=%#lx, off=%#lx) failed with %s (%s), "	\
		       "expected %s", what, (unsigned long)(len),		\
		       (unsigned long)(off), lab_errno_name(__lab_e),		\
		       strerror(__lab_e), lab_errno_name(err));			\
	}									\
} while (0)

/* LAB_OPEN(fd, path): open the device read-write or fail the test. */
#define LAB_OPEN(fd, path) do {							\
	(fd) = open((path), O_RDWR | O_CLOEXEC);				\
	ASSERT_LE(0, (fd)) {							\
		TH_LOG("open(%s, O_RDWR) failed: %s (%s); is the module "	\
		       "loaded and the node created by devtmpfs?", (path),	\
		       lab_errno_name(errno), strerror(errno));			\
	}									\
} while (0)

/* Data patterns ----------------------------------------------------------- */

/*
 * LAB_ASSERT_PATTERN(buf, len, seed, base, what): the region holds the
 * pattern, with the first wrong word logged on failure, and what it says
 * (lab_pattern_explain()).
 */
#define LAB_ASSERT_PATTERN(buf, len, seed, base, what) do {			\
	uint32_t __lab_want = 0, __lab_got = 0;					\
	long __lab_bad = lab_pattern_check((buf), (len), (seed), (base),	\
					   &__lab_want, &__lab_got);		\
	ASSERT_EQ(-1, __lab_bad) {						\
		TH_LOG("%s: word at buffer offset %#lx is 0x%08x, expected "	\
		       "0x%08x%s", what, (unsigned long)(base) + __lab_bad,	\
		       __lab_got, __lab_want,					\
		       lab_pattern_explain((seed),				\
					   (unsigned long)(base) + __lab_bad,	\
					   __lab_got));				\
	}									\
} while (0)

#endif /* LAB_HARNESS_H */
