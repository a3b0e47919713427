/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab_util.h - helpers shared by the mmap lab checkers.
 *
 * Every checker is one translation unit built on the kernel's own
 * kselftest harness; this header includes the harness, so a checker starts
 * with
 *
 *	#include "lab_util.h"
 *
 * and ends with TEST_HARNESS_MAIN.
 *
 * Rules the helpers follow:
 *  - No helper allocates memory or uses stdio between two snapshots of
 *    /proc/self/maps: malloc() may create or grow [heap] and change the very
 *    text a check compares. Files are read with open()/read() into static
 *    buffers (static, not on the stack: touching new stack pages can move the
 *    start of [stack] and change the text too).
 *  - Helpers return 0 or a negative errno; the tests turn that into an
 *    ASSERT_*() with a TH_LOG() explaining what was being done.
 *  - The LAB_*() macros use the harness' _metadata and so can only be used
 *    inside FIXTURE_SETUP(), FIXTURE_TEARDOWN() and TEST_F().
 */
#ifndef LAB_UTIL_H
#define LAB_UTIL_H

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

/* ------------------------------------------------------------------------ */
/* Environment                                                               */
/* ------------------------------------------------------------------------ */

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

/* Parse a decimal (or 0x-prefixed) unsigned long; 0 or -EINVAL. */
static inline int lab_parse_ulong(const char *s, unsigned long *out)
{
	unsigned long long v;
	char *end;

	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	if (v > ULONG_MAX)
		return -ERANGE;
	*out = (unsigned long)v;
	return 0;
}

/* LAB_ENV_ULONG(var, "NAME"): required numeric environment variable. */
#define LAB_ENV_ULONG(var, name) do {						\
	const char *__lab_s;							\
	LAB_ENV_REQUIRED(__lab_s, name);					\
	ASSERT_EQ(0, lab_parse_ulong(__lab_s, &(var))) {			\
		TH_LOG("environment variable %s=\"%s\" is not a number",	\
		       name, __lab_s);						\
	}									\
} while (0)

static inline unsigned long lab_page_size(void)
{
	return (unsigned long)sysconf(_SC_PAGESIZE);
}

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

/* ------------------------------------------------------------------------ */
/* errno names                                                               */
/* ------------------------------------------------------------------------ */

struct lab_errno_name {
	const char *name;
	int value;
};

#define LAB_E(e) { #e, e }
static const struct lab_errno_name lab_errno_names[] __attribute__((unused)) = {
	LAB_E(EPERM), LAB_E(ENOENT), LAB_E(ESRCH), LAB_E(EINTR), LAB_E(EIO),
	LAB_E(ENXIO), LAB_E(E2BIG), LAB_E(ENOEXEC), LAB_E(EBADF), LAB_E(ECHILD),
	LAB_E(EAGAIN), LAB_E(ENOMEM), LAB_E(EACCES), LAB_E(EFAULT),
	LAB_E(EBUSY), LAB_E(EEXIST), LAB_E(EXDEV), LAB_E(ENODEV),
	LAB_E(ENOTDIR), LAB_E(EISDIR), LAB_E(EINVAL), LAB_E(ENFILE),
	LAB_E(EMFILE), LAB_E(ENOTTY), LAB_E(ETXTBSY), LAB_E(EFBIG),
	LAB_E(ENOSPC), LAB_E(ESPIPE), LAB_E(EROFS), LAB_E(ERANGE),
	LAB_E(EDEADLK), LAB_E(ENOSYS), LAB_E(EOPNOTSUPP), LAB_E(EOVERFLOW), LAB_E(ETIMEDOUT),
	LAB_E(ECANCELED), LAB_E(EHWPOISON),
};
#undef LAB_E

/* "EAGAIN" -> EAGAIN; -1 when the name is unknown. */
static inline int lab_errno_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < ARRAY_SIZE(lab_errno_names); i++)
		if (!strcmp(lab_errno_names[i].name, name))
			return lab_errno_names[i].value;
	if (!strcmp(name, "EWOULDBLOCK"))
		return EWOULDBLOCK;
	if (!strcmp(name, "ENOTSUP"))
		return ENOTSUP;
	return -1;
}

/* EAGAIN -> "EAGAIN"; "E?" for a value not in the table. */
static inline const char *lab_errno_name(int e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lab_errno_names); i++)
		if (lab_errno_names[i].value == e)
			return lab_errno_names[i].name;
	return "E?";
}

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

/* ------------------------------------------------------------------------ */
/* Files without stdio or malloc                                             */
/* ------------------------------------------------------------------------ */

/*
 * Read a whole file into buf (NUL-terminated). Returns the length, or a
 * negative errno; -EFBIG when the file does not fit.
 */
static inline ssize_t lab_read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (len + 1 >= size) {
			close(fd);
			return -EFBIG;
		}
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

/* Write a string to a file (sysfs, debugfs, procfs); 0 or a negative errno. */
static inline int lab_write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Read a file holding one integer (a counter, a refcount). */
static inline int lab_read_long(const char *path, long *out)
{
	char buf[64];
	ssize_t n;
	char *end;
	long v;

	n = lab_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

static inline bool lab_path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* pwrite()/pread() the whole range, retrying short transfers. */
static inline ssize_t lab_pwrite_all(int fd, const void *buf, size_t len,
				     off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pwrite(fd, (const char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

static inline ssize_t lab_pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

/* ------------------------------------------------------------------------ */
/* mmap() without libc in the way                                            */
/* ------------------------------------------------------------------------ */

/*
 * The raw system call: glibc's mmap() refuses an unaligned offset itself,
 * and a check must see what the kernel does. Returns MAP_FAILED with errno
 * set on failure, like mmap().
 */
static inline void *lab_sys_mmap(void *addr, size_t len, int prot, int flags,
				 int fd, unsigned long off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* ------------------------------------------------------------------------ */
/* /proc/self/maps and /proc/self/smaps                                      */
/* ------------------------------------------------------------------------ */

#define LAB_MAPS_MAX	(256 * 1024)

/*
 * Static snapshot buffers (see the top of this file for why not the stack or
 * the heap). Two for "before"/"after" comparisons, one scratch buffer for
 * lookups and one for smaps.
 */
static inline char *lab_maps_buf(int which)
{
	static char bufs[3][LAB_MAPS_MAX];

	return bufs[which];
}
#define LAB_MAPS_BEFORE	lab_maps_buf(0)
#define LAB_MAPS_AFTER	lab_maps_buf(1)
#define LAB_MAPS_SCRATCH lab_maps_buf(2)

static inline char *lab_smaps_buf(void)
{
	static char buf[4 * LAB_MAPS_MAX];

	return buf;
}

/* Read /proc/self/maps into buf (LAB_MAPS_MAX bytes); length or -errno. */
static inline ssize_t lab_maps_read(char *buf)
{
	return lab_read_file("/proc/self/maps", buf, LAB_MAPS_MAX);
}

/* Parse "start-end ..." at the beginning of a maps/smaps line. */
static inline bool lab_parse_range(const char *line, unsigned long *start,
				   unsigned long *end)
{
	char *p;

	if (!isxdigit((unsigned char)line[0]))
		return false;
	*start = strtoul(line, &p, 16);
	if (*p != '-')
		return false;
	*end = strtoul(p + 1, &p, 16);
	return *p == ' ';
}

/* Number of lines (= VMAs) in a maps text. */
static inline int lab_maps_count(const char *maps)
{
	int n = 0;

	for (; *maps; maps++)
		if (*maps == '\n')
			n++;
	return n;
}

/*
 * Find the VMA of a maps text that starts exactly at addr. On success
 * returns 0 and stores its end (and, if line is given, a copy of its line).
 */
static inline int lab_maps_find(const char *maps, unsigned long addr,
				unsigned long *end, char *line, size_t line_size)
{
	const char *p = maps, *nl;
	unsigned long s, e;

	while (*p) {
		nl = strchr(p, '\n');
		if (lab_parse_range(p, &s, &e) && s == addr) {
			if (end)
				*end = e;
			if (line && line_size) {
				size_t len = nl ? (size_t)(nl - p) : strlen(p);

				if (len >= line_size)
					len = line_size - 1;
				memcpy(line, p, len);
				line[len] = '\0';
			}
			return 0;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return -ENOENT;
}

/* Does any VMA of a maps text overlap [start, end)? */
static inline bool lab_maps_overlaps(const char *maps, unsigned long start,
				     unsigned long end)
{
	const char *p = maps, *nl;
	unsigned long s, e;

	while (*p) {
		nl = strchr(p, '\n');
		if (lab_parse_range(p, &s, &e) && s < end && start < e)
			return true;
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

/*
 * Describe the first difference between two maps texts as
 * "before: <line> | after: <line>" for a TH_LOG().
 */
static inline void lab_maps_diff(const char *a, const char *b, char *out,
				 size_t size)
{
	size_t i = 0, la, lb;
	const char *sa, *sb;

	while (a[i] && a[i] == b[i])
		i++;
	while (i > 0 && a[i - 1] != '\n')
		i--;
	sa = a + i;
	sb = b + i;
	la = strcspn(sa, "\n");
	lb = strcspn(sb, "\n");
	snprintf(out, size, "first difference: before \"%.*s\" | after \"%.*s\"",
		 (int)la, sa, (int)lb, sb);
}

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

/*
 * Copy the VmFlags of the VMA that starts at addr (from /proc/self/smaps)
 * into flags, e.g. "rd wr sh mr mw ms pf io dd de". 0 or a negative errno
 * (-ENOENT: no such VMA, -ENODATA: the VMA has no VmFlags line).
 */
static inline int lab_vmflags(unsigned long addr, char *flags, size_t size)
{
	char *buf = lab_smaps_buf();
	const char *p, *nl;
	bool in_vma = false, found = false;
	unsigned long s, e;
	ssize_t n;

	n = lab_read_file("/proc/self/smaps", buf, 4 * LAB_MAPS_MAX);
	if (n < 0)
		return n;
	for (p = buf; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (lab_parse_range(p, &s, &e)) {
			in_vma = s == addr;
			found |= in_vma;
		} else if (in_vma && !strncmp(p, "VmFlags:", 8)) {
			const char *v = p + 8;
			size_t len;

			while (*v == ' ' || *v == '\t')
				v++;
			len = nl ? (size_t)(nl - v) : strlen(v);
			while (len && v[len - 1] == ' ')
				len--;
			if (len >= size)
				return -E2BIG;
			memcpy(flags, v, len);
			flags[len] = '\0';
			return 0;
		}
		if (!nl)
			break;
	}
	return found ? -ENODATA : -ENOENT;
}

/*
 * Is the token "flag" in a list separated by blanks or commas? Used for
 * VmFlags and for MMAP_LAB_VMFLAGS / MMAP_LAB_NO_VMFLAGS.
 */
static inline bool lab_has_token(const char *list, const char *tok, size_t tlen)
{
	const char *p = list;
	size_t len;

	while (*p) {
		p += strspn(p, " \t,");
		len = strcspn(p, " \t,");
		if (len && len == tlen && !strncmp(p, tok, tlen))
			return true;
		p += len;
	}
	return false;
}

/*
 * Walk the tokens of a list: for (p = list; lab_next_token(&p, &tok, &len);)
 */
static inline bool lab_next_token(const char **p, const char **tok, size_t *len)
{
	*p += strspn(*p, " \t,");
	if (!**p)
		return false;
	*tok = *p;
	*len = strcspn(*p, " \t,");
	*p += *len;
	return true;
}

/* ------------------------------------------------------------------------ */
/* Mappings a fixture must undo in its teardown                              */
/* ------------------------------------------------------------------------ */

#define LAB_MAX_MAPS 32

struct lab_mappings {
	void *addr[LAB_MAX_MAPS];
	size_t len[LAB_MAX_MAPS];
};

/* Remember a mapping for lab_unmap_all(); false when the table is full. */
static inline bool lab_track(struct lab_mappings *m, void *addr, size_t len)
{
	int i;

	for (i = 0; i < LAB_MAX_MAPS; i++) {
		if (!m->addr[i]) {
			m->addr[i] = addr;
			m->len[i] = len;
			return true;
		}
	}
	return false;
}

/* munmap() a tracked mapping now; returns munmap()'s result. */
static inline int lab_unmap(struct lab_mappings *m, void *addr)
{
	int i;

	for (i = 0; i < LAB_MAX_MAPS; i++) {
		if (m->addr[i] == addr) {
			m->addr[i] = NULL;
			return munmap(addr, m->len[i]);
		}
	}
	errno = ENOENT;
	return -1;
}

static inline void lab_unmap_all(struct lab_mappings *m)
{
	int i;

	for (i = 0; i < LAB_MAX_MAPS; i++) {
		if (m->addr[i]) {
			munmap(m->addr[i], m->len[i]);
			m->addr[i] = NULL;
		}
	}
}

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
		TH_LOG("%s: mmap(len=%#lx, off=%#lx) succeeded, expected "	\
		       "%s", what, (unsigned long)(len), (unsigned long)(off),	\
		       lab_errno_name(err));					\
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

/* ------------------------------------------------------------------------ */
/* Data patterns                                                             */
/* ------------------------------------------------------------------------ */

/* The 32-bit word a pattern with this seed has at byte offset off. */
static inline uint32_t lab_pattern_word(uint32_t seed, unsigned long off)
{
	uint32_t x = (uint32_t)(off / 4) * 0x9e3779b1u ^ seed * 0x85ebca77u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x ^ (uint32_t)(off / 4);
}

/* Fill len bytes at buf with the pattern as it is at offset base. */
static inline void lab_pattern_fill(volatile void *buf, size_t len,
				    uint32_t seed, unsigned long base)
{
	volatile uint32_t *w = buf;
	size_t i;

	for (i = 0; i < len / 4; i++)
		w[i] = lab_pattern_word(seed, base + i * 4);
}

/*
 * Compare len bytes at buf with the pattern at offset base: returns the
 * index of the first wrong byte offset (relative to buf), or -1 if all match.
 */
static inline long lab_pattern_check(const volatile void *buf, size_t len,
				     uint32_t seed, unsigned long base,
				     uint32_t *want, uint32_t *got)
{
	const volatile uint32_t *w = buf;
	size_t i;

	for (i = 0; i < len / 4; i++) {
		uint32_t v = w[i], x = lab_pattern_word(seed, base + i * 4);

		if (v != x) {
			if (want)
				*want = x;
			if (got)
				*got = v;
			return (long)(i * 4);
		}
	}
	return -1;
}

/*
 * LAB_ASSERT_PATTERN(buf, len, seed, base, what): the region holds the
 * pattern, with the first wrong word logged on failure.
 */
#define LAB_ASSERT_PATTERN(buf, len, seed, base, what) do {			\
	uint32_t __lab_want = 0, __lab_got = 0;					\
	long __lab_bad = lab_pattern_check((buf), (len), (seed), (base),	\
					   &__lab_want, &__lab_got);		\
	ASSERT_EQ(-1, __lab_bad) {						\
		TH_LOG("%s: word at buffer offset %#lx is %#010x, expected "	\
		       "%#010x", what, (unsigned long)(base) + __lab_bad,	\
		       __lab_got, __lab_want);					\
	}									\
} while (0)

/* ------------------------------------------------------------------------ */
/* Modules                                                                   */
/* ------------------------------------------------------------------------ */

/* Module names appear with '_' in /proc/modules and /sys/module. */
static inline void lab_module_name(const char *in, char *out, size_t size)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < size; i++)
		out[i] = in[i] == '-' ? '_' : in[i];
	out[i] = '\0';
}

/* Is the module listed in /proc/modules? 1, 0, or a negative errno. */
static inline int lab_module_listed(const char *name)
{
	char *buf = LAB_MAPS_SCRATCH, mod[128];
	const char *p, *nl;
	size_t len;
	ssize_t n;

	lab_module_name(name, mod, sizeof(mod));
	len = strlen(mod);
	n = lab_read_file("/proc/modules", buf, LAB_MAPS_MAX);
	if (n < 0)
		return n;
	for (p = buf; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!strncmp(p, mod, len) && p[len] == ' ')
			return 1;
		if (!nl)
			break;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Fault injection: fail_mmap_action                                         */
/* ------------------------------------------------------------------------ */

#define LAB_DEBUGFS		"/sys/kernel/debug"
#define LAB_FI_DIR		LAB_DEBUGFS "/fail_mmap_action"
#define LAB_MAKE_IT_FAIL	"/proc/self/make-it-fail"

/* The attribute files of the generic fault-injection framework we use. */
static const char *const lab_fi_attrs[] __attribute__((unused)) = {
	"probability", "interval", "times", "space", "verbose", "task-filter",
};

/*
 * The file system type of the last mount on dir (the one in effect), from
 * /proc/mounts. 0 (type set), -ENOENT (nothing mounted there) or a negative
 * errno. Not inlined: its locals would add to the register pressure of the
 * harness' setjmp() wrapper and trigger -Wclobbered there.
 */
static __attribute__((noinline, unused)) int
lab_mount_type(const char *dir, char *type, size_t size)
{
	char *buf = LAB_MAPS_SCRATCH;
	const char *p, *nl;
	bool found = false;
	ssize_t n;

	n = lab_read_file("/proc/mounts", buf, LAB_MAPS_MAX);
	if (n < 0)
		return n;
	for (p = buf; *p; p = nl + 1) {
		char d[64], m[256], t[64];

		nl = strchr(p, '\n');
		if (sscanf(p, "%63s %255s %63s", d, m, t) == 3 &&
		    !strcmp(m, dir)) {
			snprintf(type, size, "%s", t);
			found = true;
		}
		if (!nl)
			break;
	}
	return found ? 0 : -ENOENT;
}

/* Is debugfs mounted on /sys/kernel/debug? 1, 0 or a negative errno. */
static inline int lab_debugfs_mounted(void)
{
	char type[64];
	int r = lab_mount_type(LAB_DEBUGFS, type, sizeof(type));

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	return !strcmp(type, "debugfs");
}

/* Mount debugfs unless it is mounted already; 0 or a negative errno. */
static inline int lab_debugfs_mount(void)
{
	int r = lab_debugfs_mounted();

	if (r < 0)
		return r;
	if (r)
		return 0;
	if (mount("debugfs", LAB_DEBUGFS, "debugfs", 0, NULL))
		return -errno;
	return 0;
}

/* Write one attribute of fail_mmap_action; 0 or a negative errno. */
static inline int lab_fi_set(const char *attr, const char *value)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", LAB_FI_DIR, attr);
	return lab_write_file(path, value);
}

static inline int lab_fi_get(const char *attr, long *value)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", LAB_FI_DIR, attr);
	return lab_read_long(path, value);
}

/*
 * Configure fail_mmap_action for "fail the next action of a task that has
 * make-it-fail set", disarmed (times=0). Returns 0 or the negative errno of
 * the first write that failed, with its attribute in *failed.
 */
static inline int lab_fi_configure(const char **failed)
{
	static const char *const cfg[][2] = {
		{ "times", "0" },	/* disarm first */
		{ "probability", "100" },
		{ "interval", "1" },
		{ "space", "0" },
		{ "verbose", "0" },	/* no "FAULT_INJECTION" lines in the log */
		{ "task-filter", "Y" },
	};
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(cfg); i++) {
		r = lab_fi_set(cfg[i][0], cfg[i][1]);
		if (r) {
			*failed = cfg[i][0];
			return r;
		}
	}
	return 0;
}

/* Set /proc/self/make-it-fail (this task only). */
static inline int lab_make_it_fail(int on)
{
	return lab_write_file(LAB_MAKE_IT_FAIL, on ? "1" : "0");
}

#endif /* LAB_UTIL_H */
