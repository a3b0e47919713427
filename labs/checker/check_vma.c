// SPDX-License-Identifier: GPL-2.0
/*
 * check_vma - one VMA with the expected VmFlags; MAP_PRIVATE, PROT_EXEC,
 * mprotect(PROT_EXEC) and mremap() growth refused; munmap() removes the VMA.
 *
 * Environment: MMAP_LAB_DEVICE, MMAP_LAB_BUF_SIZE (or, when 0,
 * MMAP_LAB_MAP_SIZE), MMAP_LAB_VMFLAGS, MMAP_LAB_NO_VMFLAGS.
 *
 * VmFlags are the two-letter names of /proc/<pid>/smaps (fs/proc/task_mmu.c):
 * pf = VM_PFNMAP, io = VM_IO, dd = VM_DONTDUMP, de = VM_DONTEXPAND,
 * me = VM_MAYEXEC, ex = VM_EXEC, sh = VM_SHARED, ...
 */
#include "lab_harness.h"

#include <sys/statvfs.h>

FIXTURE(vma)
{
	const char *dev;
	unsigned long size;
	int fd;
	struct lab_mappings maps;
};

FIXTURE_SETUP(vma)
{
	self->fd = -1;
	LAB_ENV_REQUIRED(self->dev, "MMAP_LAB_DEVICE");
	LAB_MAP_SIZE(self->size);
	LAB_OPEN(self->fd, self->dev);
}

FIXTURE_TEARDOWN(vma)
{
	lab_unmap_all(&self->maps);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * On a noexec mount the kernel itself refuses PROT_EXEC and clears
 * VM_MAYEXEC before the driver is asked, so an exec check would prove
 * nothing about the driver.
 */
#define SKIP_IF_NOEXEC_MOUNT() do {						\
	struct statvfs __sv;							\
	ASSERT_EQ(0, statvfs(self->dev, &__sv));				\
	if (__sv.f_flag & ST_NOEXEC)						\
		SKIP(return, "%s is on a noexec mount: the kernel refuses "	\
		     "exec before the driver sees the request", self->dev);	\
} while (0)

/* The whole region is one VMA, exactly as long as requested. */
TEST_F(vma, one_vma_covers_mapping)
{
	unsigned long end = 0;
	void *p;

	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	LAB_MAPS_SNAPSHOT(LAB_MAPS_SCRATCH);
	ASSERT_EQ(0, lab_maps_find(LAB_MAPS_SCRATCH, (unsigned long)p, &end,
				   NULL, 0)) {
		TH_LOG("no VMA starts at the mapping's address %p", p);
	}
	ASSERT_EQ((unsigned long)p + self->size, end) {
		TH_LOG("the VMA at %p is %#lx bytes long, mmap() asked for %#lx",
		       p, end - (unsigned long)p, self->size);
	}
}

/* Every flag of MMAP_LAB_VMFLAGS is in the mapping's VmFlags. */
TEST_F(vma, vmflags_required_present)
{
	char flags[256];
	const char *want, *it, *tok;
	size_t len;
	int n = 0, r;
	void *p;

	LAB_ENV_REQUIRED(want, "MMAP_LAB_VMFLAGS");
	for (it = want; lab_next_token(&it, &tok, &len);)
		n++;
	if (!n)
		SKIP(return, "MMAP_LAB_VMFLAGS is empty: no flag is required");

	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	r = lab_vmflags((unsigned long)p, flags, sizeof(flags));
	ASSERT_EQ(0, r) {
		TH_LOG("no VmFlags for the VMA at %p in /proc/self/smaps: %s",
		       p, strerror(-r));
	}
	/* What the request itself sets, whatever the driver adds. */
	ASSERT_TRUE(lab_has_token(flags, "rd", 2) && lab_has_token(flags, "ms", 2)) {
		TH_LOG("VmFlags \"%s\" lack \"rd\" or \"ms\" of a PROT_READ, "
		       "MAP_SHARED mapping: the driver replaced the flags of the "
		       "request (desc->vm_flags = ...) where it must add to "
		       "them (|=)", flags);
	}
	for (it = want; lab_next_token(&it, &tok, &len);) {
		EXPECT_TRUE(lab_has_token(flags, tok, len)) {
			TH_LOG("VmFlags \"%s\" lack \"%.*s\" (required: %s)",
			       flags, (int)len, tok, want);
		}
	}
}

/* No flag of MMAP_LAB_NO_VMFLAGS is in the mapping's VmFlags. */
TEST_F(vma, vmflags_forbidden_absent)
{
	char flags[256];
	const char *bad, *it, *tok;
	size_t len;
	int n = 0, r;
	void *p;

	LAB_ENV_REQUIRED(bad, "MMAP_LAB_NO_VMFLAGS");
	for (it = bad; lab_next_token(&it, &tok, &len);)
		n++;
	if (!n)
		SKIP(return, "MMAP_LAB_NO_VMFLAGS is empty: no flag is forbidden");

	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	r = lab_vmflags((unsigned long)p, flags, sizeof(flags));
	ASSERT_EQ(0, r) {
		TH_LOG("no VmFlags for the VMA at %p in /proc/self/smaps: %s",
		       p, strerror(-r));
	}
	for (it = bad; lab_next_token(&it, &tok, &len);) {
		EXPECT_FALSE(lab_has_token(flags, tok, len)) {
			TH_LOG("VmFlags \"%s\" contain \"%.*s\" (forbidden: %s)",
			       flags, (int)len, tok, bad);
		}
	}
}

/* MAP_PRIVATE is refused with EINVAL, and no VMA is left behind. */
TEST_F(vma, map_private_refused)
{
	LAB_REFUSES("private", "MAP_PRIVATE");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	LAB_MMAP_REFUSED(self->size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			 self->fd, 0, EINVAL, "MAP_PRIVATE");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the refused MAP_PRIVATE mmap()");
}

/*
 * MAP_SHARED of the device opened read-only, PROT_READ: a shared mapping all
 * the same. MAP_SHARED sets VM_MAYSHARE, and VM_SHARED only when the file is
 * open for writing, so the VMA has "ms" and not "sh". A driver that tests
 * VM_SHARED where VM_MAYSHARE is meant refuses it with EINVAL.
 */
TEST_F(vma, read_only_open_map_shared_maps)
{
	char flags[256];
	int fd, r;
	void *p;

	fd = open(self->dev, O_RDONLY);
	ASSERT_LE(0, fd) {
		TH_LOG("open(%s, O_RDONLY): %s", self->dev, strerror(errno));
	}
	p = lab_sys_mmap(NULL, self->size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, p) {
		TH_LOG("mmap(PROT_READ, MAP_SHARED) of %s opened read-only: "
		       "%s; MAP_SHARED sets VM_MAYSHARE, and VM_SHARED only "
		       "on a file open for writing: test VM_MAYSHARE",
		       self->dev, strerror(errno));
	}
	ASSERT_TRUE(lab_track(&self->maps, p, self->size));
	r = lab_vmflags((unsigned long)p, flags, sizeof(flags));
	ASSERT_EQ(0, r) {
		TH_LOG("no VmFlags for the VMA at %p in /proc/self/smaps: %s",
		       p, strerror(-r));
	}
	ASSERT_TRUE(lab_has_token(flags, "ms", 2)) {
		TH_LOG("VmFlags \"%s\" lack \"ms\" (VM_MAYSHARE)", flags);
	}
	ASSERT_FALSE(lab_has_token(flags, "sh", 2)) {
		TH_LOG("VmFlags \"%s\" have \"sh\" (VM_SHARED) on a read-only file",
		       flags);
	}
}

/* PROT_EXEC is refused with EPERM, and no VMA is left behind. */
TEST_F(vma, prot_exec_refused)
{
	LAB_REFUSES("exec", "PROT_EXEC");
	SKIP_IF_NOEXEC_MOUNT();
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	LAB_MMAP_REFUSED(self->size, PROT_READ | PROT_EXEC, MAP_SHARED,
			 self->fd, 0, EPERM, "PROT_EXEC");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the refused PROT_EXEC mmap()");
}

/* VM_MAYEXEC is cleared: mprotect() cannot add PROT_EXEC later (EACCES). */
TEST_F(vma, mprotect_exec_refused)
{
	void *p;
	int r;

	LAB_REFUSES("exec", "PROT_EXEC");
	SKIP_IF_NOEXEC_MOUNT();
	LAB_MMAP(p, &self->maps, self->size, PROT_READ, MAP_SHARED, self->fd, 0);
	r = mprotect(p, self->size, PROT_READ | PROT_EXEC);
	ASSERT_EQ(-1, r) {
		TH_LOG("mprotect(PROT_READ | PROT_EXEC) succeeded: the driver "
		       "did not clear VM_MAYEXEC");
	}
	ASSERT_EQ(EACCES, errno) {
		TH_LOG("mprotect(PROT_READ | PROT_EXEC) failed with %s, "
		       "expected EACCES", lab_errno_name(errno));
	}
}

/*
 * VM_DONTEXPAND: mremap() cannot grow the mapping, in place or by moving it
 * (EFAULT from the kernel), and the mapping stays as it was.
 */
TEST_F(vma, mremap_grow_refused)
{
	unsigned long grow = self->size + lab_page_size();
	void *p, *q;
	int e;

	LAB_REFUSES("grow", "mremap() growth");
	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);

	q = mremap(p, self->size, grow, 0);
	e = errno;
	ASSERT_EQ(MAP_FAILED, q) {
		TH_LOG("mremap() grew the mapping in place to %#lx bytes", grow);
		munmap(q, grow);
	}
	ASSERT_EQ(EFAULT, e) {
		TH_LOG("mremap() in place failed with %s, expected EFAULT",
		       lab_errno_name(e));
	}

	q = mremap(p, self->size, grow, MREMAP_MAYMOVE);
	e = errno;
	ASSERT_EQ(MAP_FAILED, q) {
		TH_LOG("mremap(MREMAP_MAYMOVE) grew the mapping to %#lx bytes "
		       "at %p", grow, q);
		munmap(q, grow);
	}
	ASSERT_EQ(EFAULT, e) {
		TH_LOG("mremap(MREMAP_MAYMOVE) failed with %s, expected EFAULT",
		       lab_errno_name(e));
	}

	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the refused mremap() calls");
}

/* munmap() of the whole mapping removes its VMA. */
TEST_F(vma, munmap_removes_vma)
{
	unsigned long start, end = 0;
	int count;
	void *p;

	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	start = (unsigned long)p;
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	ASSERT_EQ(0, lab_maps_find(LAB_MAPS_BEFORE, start, &end, NULL, 0)) {
		TH_LOG("no VMA starts at the mapping's address %p", p);
	}
	count = lab_maps_count(LAB_MAPS_BEFORE);

	ASSERT_EQ(0, lab_unmap(&self->maps, p)) {
		TH_LOG("munmap(%p, %#lx) failed: %s", p, self->size,
		       strerror(errno));
	}

	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	ASSERT_FALSE(lab_maps_overlaps(LAB_MAPS_AFTER, start, start + self->size)) {
		TH_LOG("a VMA is still mapped in [%#lx, %#lx) after munmap()",
		       start, start + self->size);
	}
	ASSERT_EQ(count - 1, lab_maps_count(LAB_MAPS_AFTER));
}

TEST_HARNESS_MAIN
