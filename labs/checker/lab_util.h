/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab_util.h - helpers shared by the mmap lab checkers, defined in
 * lab_util.c (as tools/testing/selftests/mm keeps vm_util.c next to
 * vm_util.h). Every checker program links lab_util.o; the checkers include
 * lab_harness.h, which includes this header, the kselftest harness and the
 * LAB_*() assertion macros built on both.
 *
 * Rules the helpers follow:
 *  - No helper allocates memory or uses stdio between two snapshots of
 *    /proc/self/maps: malloc() may create or grow [heap] and change the very
 *    text a check compares. Files are read with open()/read() into static
 *    buffers (static, not on the stack: touching new stack pages can move the
 *    start of [stack] and change the text too).
 *  - Helpers return 0 or a negative errno; the tests turn that into an
 *    ASSERT_*() with a TH_LOG() explaining what was being done.
 */
#ifndef LAB_UTIL_H
#define LAB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Environment ------------------------------------------------------------- */

/* Parse a decimal (or 0x-prefixed) unsigned long; 0 or -EINVAL (-ERANGE). */
int lab_parse_ulong(const char *s, unsigned long *out);
unsigned long lab_page_size(void);

/* errno names ------------------------------------------------------------- */

/* "EAGAIN" -> EAGAIN; -1 when the name is unknown. */
int lab_errno_from_name(const char *name);
/* EAGAIN -> "EAGAIN"; "E?" for a value not in the table. */
const char *lab_errno_name(int e);

/* Files without stdio or malloc ------------------------------------------- */

/*
 * Read a whole file into buf (NUL-terminated). Returns the length, or a
 * negative errno; -EFBIG when the file does not fit.
 */
ssize_t lab_read_file(const char *path, char *buf, size_t size);
/* Write a string to a file (sysfs, debugfs, procfs); 0 or a negative errno. */
int lab_write_file(const char *path, const char *s);
/* Read a file holding one integer (a counter, a refcount). */
int lab_read_long(const char *path, long *out);
/* A field of /proc/meminfo ("Committed_AS:", with its colon) in kB, or -1. */
long lab_meminfo_kb(const char *field);
bool lab_path_exists(const char *path);
/* pwrite()/pread() the whole range, retrying short transfers. */
ssize_t lab_pwrite_all(int fd, const void *buf, size_t len, off_t off);
ssize_t lab_pread_all(int fd, void *buf, size_t len, off_t off);

/* mmap() without libc in the way ------------------------------------------ */

/*
 * The raw system call: glibc's mmap() refuses an unaligned offset itself,
 * and a check must see what the kernel does. Returns MAP_FAILED with errno
 * set on failure, like mmap().
 */
void *lab_sys_mmap(void *addr, size_t len, int prot, int flags, int fd,
		   unsigned long off);

/*
 * What to say of an mmap() that was expected to fail and returned addr: " at
 * ADDR", or, for an "address" below the first page, that a hook returned a
 * positive errno (EPERM where -EPERM is meant: the kernel's mmap() passes a
 * positive return on as the address). A static buffer, valid until the next
 * call.
 */
const char *lab_mmap_success_note(const void *addr);

/* /proc/self/maps and /proc/self/smaps ------------------------------------ */

#define LAB_MAPS_MAX	(256 * 1024)

/*
 * Static snapshot buffers (see the top of this file for why not the stack or
 * the heap), LAB_MAPS_MAX bytes each. Two for "before"/"after" comparisons,
 * one scratch buffer for lookups; the smaps buffer has 4 * LAB_MAPS_MAX.
 */
char *lab_maps_buf(int which);
#define LAB_MAPS_BEFORE		lab_maps_buf(0)
#define LAB_MAPS_AFTER		lab_maps_buf(1)
#define LAB_MAPS_SCRATCH	lab_maps_buf(2)
char *lab_smaps_buf(void);

/* Read /proc/self/maps into buf (LAB_MAPS_MAX bytes); length or -errno. */
ssize_t lab_maps_read(char *buf);
/* Parse "start-end ..." at the beginning of a maps/smaps line. */
bool lab_parse_range(const char *line, unsigned long *start,
		     unsigned long *end);
/* Number of lines (= VMAs) in a maps text. */
int lab_maps_count(const char *maps);
/*
 * Find the VMA of a maps text that starts exactly at addr. On success
 * returns 0 and stores its end (and, if line is given, a copy of its line).
 */
int lab_maps_find(const char *maps, unsigned long addr, unsigned long *end,
		  char *line, size_t line_size);
/* Does any VMA of a maps text overlap [start, end)? */
bool lab_maps_overlaps(const char *maps, unsigned long start,
		       unsigned long end);
/*
 * Describe the first difference between two maps texts as
 * "before: <line> | after: <line>" for a TH_LOG().
 */
void lab_maps_diff(const char *a, const char *b, char *out, size_t size);
/*
 * Copy the VmFlags of the VMA that starts at addr (from /proc/self/smaps)
 * into flags, e.g. "rd wr sh mr mw ms pf io dd de". 0 or a negative errno
 * (-ENOENT: no such VMA, -ENODATA: the VMA has no VmFlags line).
 */
int lab_vmflags(unsigned long addr, char *flags, size_t size);
/*
 * Is the token "flag" in a list separated by blanks or commas? Used for
 * VmFlags and for MMAP_LAB_VMFLAGS / MMAP_LAB_NO_VMFLAGS.
 */
bool lab_has_token(const char *list, const char *tok, size_t tlen);
/*
 * Walk the tokens of a list: for (p = list; lab_next_token(&p, &tok, &len);)
 */
bool lab_next_token(const char **p, const char **tok, size_t *len);

/* Mappings a fixture must undo in its teardown ---------------------------- */

#define LAB_MAX_MAPS 32

struct lab_mappings {
	void *addr[LAB_MAX_MAPS];
	size_t len[LAB_MAX_MAPS];
};

/* Remember a mapping for lab_unmap_all(); false when the table is full. */
bool lab_track(struct lab_mappings *m, void *addr, size_t len);
/* munmap() a tracked mapping now; returns munmap()'s result. */
int lab_unmap(struct lab_mappings *m, void *addr);
void lab_unmap_all(struct lab_mappings *m);

/* Data patterns ----------------------------------------------------------- */

/*
 * The buffers are volatile: they are the device's memory seen through a
 * mapping, and every access must reach it.
 */
/* The 32-bit word a pattern with this seed has at byte offset off. */
uint32_t lab_pattern_word(uint32_t seed, unsigned long off);
/* Fill len bytes at buf with the pattern as it is at offset base. */
void lab_pattern_fill(volatile void *buf, size_t len, uint32_t seed,
		      unsigned long base);
/*
 * Compare len bytes at buf with the pattern at offset base: returns the
 * index of the first wrong byte offset (relative to buf), or -1 if all match.
 */
long lab_pattern_check(const volatile void *buf, size_t len, uint32_t seed,
		       unsigned long base, uint32_t *want, uint32_t *got);

/**
 * lab_pattern_explain() - what a wrong word of a pattern check says
 * @seed: the pattern's seed
 * @off: the buffer offset of the wrong word
 * @got: the word found there
 *
 * Return: " (zero: ...)" for a zero word, " (the word of buffer offset X:
 * ...)" when @got is the pattern's word at the same place of another page
 * (the mapping starts at the wrong page), else "". A static buffer.
 */
const char *lab_pattern_explain(uint32_t seed, unsigned long off, uint32_t got);

/* Real drivers, booted twice (scripts/coccinelle/cocci-boot.sh) --------------- */

/*
 * Print "# observed: KEY=VALUE": what a check saw, which the harness
 * compares between the original and the converted driver's guests.
 */
void lab_observe(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Modules ----------------------------------------------------------------- */

/* Module names appear with '_' in /proc/modules and /sys/module. */
void lab_module_name(const char *in, char *out, size_t size);
/* Is the module listed in /proc/modules? 1, 0, or a negative errno. */
int lab_module_listed(const char *name);

/* Kernels and their warnings --------------------------------------------- */

/*
 * Is this the kit's kernel (6.12 with patches/series) rather than mainline's
 * 7.x? From uname's release; the two differ on purpose in a few rules
 * (Documentation/upstream.rst), and a check that proves such a rule expects
 * each kernel's own answer.
 */
bool lab_kernel_is_kit(void);
/*
 * A check that proves a kernel warns brackets the call with these: they write
 * "kit-expect-warning: begin ERE" and "kit-expect-warning: end" to the kernel
 * log (/dev/kmsg), and the host's log scanner (qemu/scan-kernel-log.sh) then
 * wants exactly one warning whose WARNING: line matches ERE in between, where
 * any other warning still fails the stage. 0 or a negative errno.
 */
int lab_expect_warning_begin(const char *ere);
int lab_expect_warning_end(void);

/* Fault injection: fail_mmap_action --------------------------------------- */

#define LAB_DEBUGFS		"/sys/kernel/debug"
#define LAB_FI_DIR		LAB_DEBUGFS "/fail_mmap_action"
#define LAB_MAKE_IT_FAIL	"/proc/self/make-it-fail"

/*
 * The attribute files of the generic fault-injection framework we use,
 * NULL-terminated.
 */
extern const char *const lab_fi_attrs[];

/*
 * The file system type of the last mount on dir (the one in effect), from
 * /proc/mounts. 0 (type set), -ENOENT (nothing mounted there) or a negative
 * errno.
 */
int lab_mount_type(const char *dir, char *type, size_t size);
/* Is debugfs mounted on /sys/kernel/debug? 1, 0 or a negative errno. */
int lab_debugfs_mounted(void);
/* Mount debugfs unless it is mounted already; 0 or a negative errno. */
int lab_debugfs_mount(void);
/* Write or read one attribute of fail_mmap_action; 0 or a negative errno. */
int lab_fi_set(const char *attr, const char *value);
int lab_fi_get(const char *attr, long *value);
/*
 * Configure fail_mmap_action for "fail the next action of a task that has
 * make-it-fail set", disarmed (times=0). Returns 0 or the negative errno of
 * the first write that failed, with its attribute in *failed.
 */
int lab_fi_configure(const char **failed);
/* Set /proc/self/make-it-fail (this task only). */
int lab_make_it_fail(int on);

#endif /* LAB_UTIL_H */
