// SPDX-License-Identifier: GPL-2.0
/*
 * lab_util.c - helpers shared by the mmap lab checkers; lab_util.h says
 * what each one does and the rules they follow.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lab_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Environment ------------------------------------------------------------- */

int lab_parse_ulong(const char *s, unsigned long *out)
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

unsigned long lab_page_size(void)
{
	return (unsigned long)sysconf(_SC_PAGESIZE);
}

/* errno names ------------------------------------------------------------- */

struct lab_errno_name {
	const char *name;
	int value;
};

/*
 * Names are looked up in order, so EWOULDBLOCK (EAGAIN) and ENOTSUP
 * (EOPNOTSUPP), aliases on Linux, come after the names lab_errno_name()
 * must print.
 */
#define LAB_E(e) { #e, e }
static const struct lab_errno_name lab_errno_names[] = {
	LAB_E(EPERM), LAB_E(ENOENT), LAB_E(ESRCH), LAB_E(EINTR), LAB_E(EIO),
	LAB_E(ENXIO), LAB_E(E2BIG), LAB_E(ENOEXEC), LAB_E(EBADF), LAB_E(ECHILD),
	LAB_E(EAGAIN), LAB_E(ENOMEM), LAB_E(EACCES), LAB_E(EFAULT),
	LAB_E(EBUSY), LAB_E(EEXIST), LAB_E(EXDEV), LAB_E(ENODEV),
	LAB_E(ENOTDIR), LAB_E(EISDIR), LAB_E(EINVAL), LAB_E(ENFILE),
	LAB_E(EMFILE), LAB_E(ENOTTY), LAB_E(ETXTBSY), LAB_E(EFBIG),
	LAB_E(ENOSPC), LAB_E(ESPIPE), LAB_E(EROFS), LAB_E(ERANGE),
	LAB_E(EDEADLK), LAB_E(ENOSYS), LAB_E(EOPNOTSUPP), LAB_E(EOVERFLOW),
	LAB_E(ETIMEDOUT), LAB_E(ECANCELED), LAB_E(EHWPOISON),
	LAB_E(EWOULDBLOCK), LAB_E(ENOTSUP),
};

#undef LAB_E

int lab_errno_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < ARRAY_SIZE(lab_errno_names); i++)
		if (!strcmp(lab_errno_names[i].name, name))
			return lab_errno_names[i].value;
	return -1;
}

const char *lab_errno_name(int e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lab_errno_names); i++)
		if (lab_errno_names[i].value == e)
			return lab_errno_names[i].name;
	return "E?";
}

/* Files without stdio or malloc ------------------------------------------- */

ssize_t lab_read_file(const char *path, char *buf, size_t size)
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

int lab_write_file(const char *path, const char *s)
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

long lab_meminfo_kb(const char *field)
{
	static char buf[8192];
	const char *p;

	if (lab_read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, field);
	return p ? strtol(p + strlen(field), NULL, 10) : -1;
}

int lab_read_long(const char *path, long *out)
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

bool lab_path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

ssize_t lab_pwrite_all(int fd, const void *buf, size_t len, off_t off)
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

ssize_t lab_pread_all(int fd, void *buf, size_t len, off_t off)
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

/* mmap() without libc in the way ------------------------------------------ */

void *lab_sys_mmap(void *addr, size_t len, int prot, int flags, int fd,
		   unsigned long off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

const char *lab_mmap_success_note(const void *addr)
{
	static char note[200];
	unsigned long a = (unsigned long)addr;

	if (a >= 4096)
		snprintf(note, sizeof(note), " at %p", addr);
	else
		snprintf(note, sizeof(note),
			 " at %#lx, not an address: a hook returned a positive "
			 "errno (%s where -%s is meant), which mmap() gives back "
			 "as if it were one", a, lab_errno_name((int)a),
			 lab_errno_name((int)a));
	return note;
}

/* /proc/self/maps and /proc/self/smaps ------------------------------------ */

char *lab_maps_buf(int which)
{
	static char bufs[3][LAB_MAPS_MAX];

	return bufs[which];
}

char *lab_smaps_buf(void)
{
	static char buf[4 * LAB_MAPS_MAX];

	return buf;
}

ssize_t lab_maps_read(char *buf)
{
	return lab_read_file("/proc/self/maps", buf, LAB_MAPS_MAX);
}

bool lab_parse_range(const char *line, unsigned long *start,
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

int lab_maps_count(const char *maps)
{
	int n = 0;

	for (; *maps; maps++)
		if (*maps == '\n')
			n++;
	return n;
}

int lab_maps_find(const char *maps, unsigned long addr, unsigned long *end,
		  char *line, size_t line_size)
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

bool lab_maps_overlaps(const char *maps, unsigned long start,
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

void lab_maps_diff(const char *a, const char *b, char *out, size_t size)
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

int lab_vmflags(unsigned long addr, char *flags, size_t size)
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

bool lab_has_token(const char *list, const char *tok, size_t tlen)
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

bool lab_next_token(const char **p, const char **tok, size_t *len)
{
	*p += strspn(*p, " \t,");
	if (!**p)
		return false;
	*tok = *p;
	*len = strcspn(*p, " \t,");
	*p += *len;
	return true;
}

/* Mappings a fixture must undo in its teardown ---------------------------- */

bool lab_track(struct lab_mappings *m, void *addr, size_t len)
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

int lab_unmap(struct lab_mappings *m, void *addr)
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

void lab_unmap_all(struct lab_mappings *m)
{
	int i;

	for (i = 0; i < LAB_MAX_MAPS; i++) {
		if (m->addr[i]) {
			munmap(m->addr[i], m->len[i]);
			m->addr[i] = NULL;
		}
	}
}

/* Data patterns ----------------------------------------------------------- */

uint32_t lab_pattern_word(uint32_t seed, unsigned long off)
{
	uint32_t x = (uint32_t)(off / 4) * 0x9e3779b1u ^ seed * 0x85ebca77u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x ^ (uint32_t)(off / 4);
}

void lab_pattern_fill(volatile void *buf, size_t len, uint32_t seed,
		      unsigned long base)
{
	volatile uint32_t *w = buf;
	size_t i;

	for (i = 0; i < len / 4; i++)
		w[i] = lab_pattern_word(seed, base + i * 4);
}

long lab_pattern_check(const volatile void *buf, size_t len, uint32_t seed,
		       unsigned long base, uint32_t *want, uint32_t *got)
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

const char *lab_pattern_explain(uint32_t seed, unsigned long off, uint32_t got)
{
	static char why[160];
	unsigned long page = lab_page_size(), k, other;

	if (!got)
		return " (zero: memory that is not the buffer's, or a page "
		       "never written: is the PFN right? a physical address is "
		       "not a PFN)";
	/* The same word of another page of the pattern: the wrong page. */
	for (k = 0; k < 4096; k++) {
		other = k * page + off % page;
		if (other != off && lab_pattern_word(seed, other) == got) {
			snprintf(why, sizeof(why), " (the word of buffer offset "
				 "%#lx: the mapping starts at the wrong page; "
				 "is the offset left out, applied twice, or in "
				 "bytes where pages are meant?)", other);
			return why;
		}
	}
	return "";
}

/* Real drivers, booted twice -------------------------------------------- */

void lab_observe(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("# observed: %s=", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Modules ----------------------------------------------------------------- */

void lab_module_name(const char *in, char *out, size_t size)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < size; i++)
		out[i] = in[i] == '-' ? '_' : in[i];
	out[i] = '\0';
}

int lab_module_listed(const char *name)
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

/* Kernels and their warnings --------------------------------------------- */

bool lab_kernel_is_kit(void)
{
	struct utsname u;

	return !uname(&u) && !strncmp(u.release, "6.12.", 5);
}

/*
 * At warning level (<4>), as the warning itself. (7.x prints a warning's
 * "cut here" line at info level: the window needs the default loglevel.)
 */
int lab_expect_warning_begin(const char *ere)
{
	char line[256];

	if (snprintf(line, sizeof(line), "<4>kit-expect-warning: begin %s\n",
		     ere) >= (int)sizeof(line))
		return -ENAMETOOLONG;
	return lab_write_file("/dev/kmsg", line);
}

int lab_expect_warning_end(void)
{
	return lab_write_file("/dev/kmsg", "<4>kit-expect-warning: end\n");
}

/* Fault injection: fail_mmap_action --------------------------------------- */

const char *const lab_fi_attrs[] = {
	"probability", "interval", "times", "space", "verbose", "task-filter",
	NULL,
};

int lab_mount_type(const char *dir, char *type, size_t size)
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

int lab_debugfs_mounted(void)
{
	char type[64];
	int r = lab_mount_type(LAB_DEBUGFS, type, sizeof(type));

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	return !strcmp(type, "debugfs");
}

int lab_debugfs_mount(void)
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

int lab_fi_set(const char *attr, const char *value)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", LAB_FI_DIR, attr);
	return lab_write_file(path, value);
}

int lab_fi_get(const char *attr, long *value)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", LAB_FI_DIR, attr);
	return lab_read_long(path, value);
}

int lab_fi_configure(const char **failed)
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

int lab_make_it_fail(int on)
{
	return lab_write_file(LAB_MAKE_IT_FAIL, on ? "1" : "0");
}
