// SPDX-License-Identifier: GPL-2.0
/*
 * check_observe - records what user space sees of a device (the errno of each
 * request, VmFlags, hashes of the bytes) for the comparison of a driver with
 * its .mmap() original (make check DRIVER=DIR BEFORE=FILE); it asserts nothing
 * itself.
 *
 * The two versions are booted in turn in one guest. Every observation is a
 * "# observed: KEY=VALUE" line, and the harness compares the two versions'
 * lines. What it records:
 *   - the errno (or "ok") of a set of requests: the whole buffer shared,
 *     MAP_PRIVATE, PROT_EXEC, a read-only open mapped shared, one page past
 *     the end, an offset at the end, offset and length past the end, an
 *     unaligned offset, mprotect(PROT_EXEC) and mremap() growth of a mapping;
 *   - the VmFlags of a shared read-write and of a read-only mapping;
 *   - the bytes: a hash of what a mapping shows after pwrite() (when
 *     read()/write() reach the buffer), of what pread() then shows after
 *     stores through the mapping, and of a mapping at a page offset.
 *
 * Environment: MMAP_LAB_DEVICE, MMAP_LAB_BUF_SIZE, MMAP_LAB_RW_SAME (yes:
 * read()/write() show the mapping's bytes; else the byte hashes are of what
 * a mapping shows first, and after stores, through a second mapping).
 */
#include "lab_harness.h"

FIXTURE(observe)
{
	const char *dev;
	unsigned long size, page;
	bool rw_same;
	int fd;
};

FIXTURE_SETUP(observe)
{
	const char *rw;

	self->fd = -1;
	self->page = lab_page_size();
	LAB_ENV_REQUIRED(self->dev, "MMAP_LAB_DEVICE");
	LAB_ENV_ULONG(self->size, "MMAP_LAB_BUF_SIZE");
	ASSERT_LT(0UL, self->size);
	rw = getenv("MMAP_LAB_RW_SAME");
	self->rw_same = rw && !strcmp(rw, "yes");
	LAB_OPEN(self->fd, self->dev);
}

FIXTURE_TEARDOWN(observe)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* FNV-1a over len bytes. */
static uint32_t fnv1a(const volatile uint8_t *p, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* "ok" (the mapping is undone) or the errno's name. */
static const char *try_mmap(size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = lab_sys_mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED)
		return lab_errno_name(errno);
	munmap(p, len);
	return "ok";
}

/* Observe the VmFlags of a fresh mapping, sorted: order is no difference. */
static void observe_vmflags(const char *key, size_t len, int prot, int fd)
{
	char flags[256], *tok[64], sorted[256] = "";
	int n = 0, i, j;
	void *p;

	p = lab_sys_mmap(NULL, len, prot, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		lab_observe(key, "mmap failed: %s", lab_errno_name(errno));
		return;
	}
	if (lab_vmflags((unsigned long)p, flags, sizeof(flags))) {
		lab_observe(key, "no VmFlags");
		munmap(p, len);
		return;
	}
	munmap(p, len);
	for (tok[n] = strtok(flags, " "); tok[n] && n < 63; tok[++n] = strtok(NULL, " "))
		;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(tok[j - 1], tok[j]) > 0; j--) {
			char *t = tok[j];

			tok[j] = tok[j - 1];
			tok[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		strncat(sorted, tok[i], sizeof(sorted) - strlen(sorted) - 2);
		if (i + 1 < n)
			strcat(sorted, " ");
	}
	lab_observe(key, "%s", sorted);
}

TEST_F(observe, what_user_space_sees)
{
	unsigned long size = self->size, page = self->page;
	uint8_t *buf = malloc(size);
	volatile uint8_t *p, *q;
	int ro;

	ASSERT_NE(NULL, buf);

	/* The requests, each answered ok or with an errno. */
	lab_observe("mmap.whole_shared_rw", "%s",
		    try_mmap(size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0));
	lab_observe("mmap.private_rw", "%s",
		    try_mmap(size, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd, 0));
	lab_observe("mmap.exec", "%s",
		    try_mmap(size, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd, 0));
	lab_observe("mmap.length_past_end", "%s",
		    try_mmap(size + page, PROT_READ, MAP_SHARED, self->fd, 0));
	lab_observe("mmap.offset_at_end", "%s",
		    try_mmap(page, PROT_READ, MAP_SHARED, self->fd, size));
	lab_observe("mmap.offset_plus_length_past_end", "%s",
		    try_mmap(2 * page, PROT_READ, MAP_SHARED, self->fd, size - page));
	lab_observe("mmap.unaligned_offset", "%s",
		    try_mmap(page, PROT_READ, MAP_SHARED, self->fd, page / 2));
	ro = open(self->dev, O_RDONLY);
	if (ro >= 0) {
		lab_observe("mmap.read_only_open_shared", "%s",
			    try_mmap(size, PROT_READ, MAP_SHARED, ro, 0));
		close(ro);
	} else {
		lab_observe("mmap.read_only_open_shared", "open: %s",
			    lab_errno_name(errno));
	}

	observe_vmflags("vmflags.shared_rw", size, PROT_READ | PROT_WRITE, self->fd);
	observe_vmflags("vmflags.shared_ro", size, PROT_READ, self->fd);

	/* mprotect(PROT_EXEC) and mremap() growth of a mapping. */
	p = lab_sys_mmap(NULL, size, PROT_READ, MAP_SHARED, self->fd, 0);
	if (p != MAP_FAILED) {
		void *r;

		lab_observe("mprotect.exec", "%s",
			    mprotect((void *)p, size, PROT_READ | PROT_EXEC) ?
			    lab_errno_name(errno) : "ok");
		r = mremap((void *)p, size, size + page, MREMAP_MAYMOVE);
		lab_observe("mremap.grow", "%s",
			    r == MAP_FAILED ? lab_errno_name(errno) : "ok");
		munmap(r == MAP_FAILED ? (void *)p : r,
		       r == MAP_FAILED ? size : size + page);
	}

	/* The bytes. */
	p = lab_sys_mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	if (p == MAP_FAILED) {
		lab_observe("data", "mmap failed: %s", lab_errno_name(errno));
		free(buf);
		return;
	}
	if (self->rw_same) {
		lab_pattern_fill(buf, size, 0x5eed, 0);
		lab_observe("data.pwrite_then_mapping_fnv1a", "%#010x",
			    lab_pwrite_all(self->fd, buf, size, 0) == (ssize_t)size ?
			    fnv1a(p, size) : 0);
		lab_pattern_fill(p, size, 0xcafe, 0);
		lab_observe("data.stores_then_pread_fnv1a", "%#010x",
			    lab_pread_all(self->fd, buf, size, 0) == (ssize_t)size ?
			    fnv1a(buf, size) : 0);
	} else {
		lab_pattern_fill(p, size, 0xcafe, 0);
	}
	q = lab_sys_mmap(NULL, size - page, PROT_READ, MAP_SHARED, self->fd, page);
	if (q == MAP_FAILED) {
		lab_observe("data.page_offset_mapping_fnv1a", "mmap failed: %s",
			    lab_errno_name(errno));
	} else {
		lab_observe("data.page_offset_mapping_fnv1a", "%#010x",
			    fnv1a(q, size - page));
		munmap((void *)q, size - page);
	}
	munmap((void *)p, size);
	free(buf);
}

TEST_HARNESS_MAIN
