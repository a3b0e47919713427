// SPDX-License-Identifier: GPL-2.0
/*
 * check_pages - the page a mapping at a non-zero offset shows is the buffer's
 * page at that offset; /proc/self/pagemap shows no PFN for a VM_PFNMAP remap,
 * and for the map-kernel-pages action a PFN for every page, not all of them
 * physical neighbours.
 *
 * Environment: MMAP_LAB_DEVICE, MMAP_LAB_BUF_SIZE (0: every test skips),
 * MMAP_LAB_PFN_LAYOUT: "pfnmap" (a PFN remap: a VM_PFNMAP mapping, which
 * page-table walkers such as /proc/self/pagemap skip, so it shows no PFN)
 * or "scattered" (mmap_action_map_kernel_pages() over single pages that are
 * not physical neighbours: VM_MIXEDMAP, every page visible with its PFN).
 *
 * The physical frame numbers come from /proc/self/pagemap (bits 0-54 of
 * each 64-bit entry, shown to CAP_SYS_ADMIN only: the guest runs as root).
 */
#include "lab_harness.h"

/* Bit 63: page present; bits 0-54: its PFN (Documentation/admin-guide/mm/pagemap.rst). */
#define PAGEMAP_PRESENT		0x8000000000000000ULL
#define PAGEMAP_PFN_MASK	0x007fffffffffffffULL

FIXTURE(pages)
{
	const char *dev;
	const char *layout;
	unsigned long size;
	unsigned long page;
	int fd;
	struct lab_mappings maps;
};

FIXTURE_SETUP(pages)
{
	self->fd = -1;
	self->page = lab_page_size();
	LAB_ENV_ULONG(self->size, "MMAP_LAB_BUF_SIZE");
	if (!self->size)
		SKIP(return, "MMAP_LAB_BUF_SIZE=0: this stage has no buffer");
	LAB_ENV_REQUIRED(self->layout, "MMAP_LAB_PFN_LAYOUT");
	ASSERT_TRUE(!strcmp(self->layout, "pfnmap") ||
		    !strcmp(self->layout, "scattered")) {
		TH_LOG("MMAP_LAB_PFN_LAYOUT=\"%s\": expected pfnmap or "
		       "scattered", self->layout);
	}
	LAB_ENV_REQUIRED(self->dev, "MMAP_LAB_DEVICE");
	LAB_OPEN(self->fd, self->dev);
}

FIXTURE_TEARDOWN(pages)
{
	lab_unmap_all(&self->maps);
	if (self->fd >= 0)
		close(self->fd);
}

/* pfn_of()'s answer when /proc/self/pagemap cannot be read at all. */
#define PFN_UNREADABLE		UINT64_MAX

/*
 * The PFN behind the page at addr, 0 when /proc/self/pagemap shows none, or
 * PFN_UNREADABLE (errno set) when it cannot be read: a test must not take
 * that for "no PFN".
 */
static uint64_t pfn_of(const void *addr, unsigned long page)
{
	uint64_t entry = 0;
	off_t off = (off_t)((uintptr_t)addr / page) * sizeof(entry);
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return PFN_UNREADABLE;
	got = pread(fd, &entry, sizeof(entry), off);
	close(fd);
	if (got != (ssize_t)sizeof(entry)) {
		if (got >= 0)
			errno = EIO;
		return PFN_UNREADABLE;
	}
	if (!(entry & PAGEMAP_PRESENT))
		return 0;
	return entry & PAGEMAP_PFN_MASK;
}

/*
 * A mapping at offset pgoff shows buffer page pgoff + i at its page i: the
 * driver starts the action at the page the offset selects.
 */
TEST_F(pages, offset_mapping_shows_file_pages)
{
	unsigned long pgoff = self->size / self->page / 2;
	unsigned long len = self->size - pgoff * self->page;
	uint32_t seed = (uint32_t)getpid() * 2246822519u;
	uint8_t *buf;
	void *p;

	buf = malloc(self->size);
	ASSERT_NE(NULL, buf);
	lab_pattern_fill(buf, self->size, seed, 0);
	ASSERT_EQ((ssize_t)self->size, lab_pwrite_all(self->fd, buf, self->size, 0));
	free(buf);
	LAB_MMAP(p, &self->maps, len, PROT_READ, MAP_SHARED, self->fd,
		 pgoff * self->page);
	LAB_ASSERT_PATTERN(p, len, seed, pgoff * self->page,
			   "mapping at a non-zero offset");
}

/*
 * What /proc/self/pagemap shows of a whole-buffer mapping. "scattered",
 * right after mmap(), before any access: every page is present (the action
 * populated it) and the pages are not all physical neighbours, so no single
 * PFN range could have mapped them. "pfnmap", after a read of every page: no
 * page shows a PFN, because page-table walkers skip VM_PFNMAP mappings (a
 * driver that maps the buffer with struct pages instead, faulted in or not,
 * shows them once they are read).
 */
TEST_F(pages, pfn_layout_as_expected)
{
	unsigned long i, n = self->size / self->page, breaks = 0;
	bool scattered = !strcmp(self->layout, "scattered");
	uint64_t prev = 0, pfn;
	uint8_t *p;

	LAB_MMAP(p, &self->maps, self->size, PROT_READ, MAP_SHARED, self->fd, 0);
	if (!scattered) {
		for (i = 0; i < n; i++)
			(void)*(volatile uint8_t *)(p + i * self->page);
	}
	for (i = 0; i < n; i++) {
		pfn = pfn_of(p + i * self->page, self->page);
		ASSERT_NE(PFN_UNREADABLE, pfn) {
			TH_LOG("/proc/self/pagemap cannot be read: %s",
			       strerror(errno));
		}
		if (!scattered) {
			ASSERT_EQ(0ULL, pfn) {
				TH_LOG("page %lu of a PFN map shows PFN %#llx in "
				       "/proc/self/pagemap: not a VM_PFNMAP "
				       "mapping", i, (unsigned long long)pfn);
			}
			continue;
		}
		ASSERT_NE(0ULL, pfn) {
			TH_LOG("page %lu of the mapping has no PFN in "
			       "/proc/self/pagemap before any access: the action "
			       "did not populate it", i);
		}
		if (i && pfn != prev + 1)
			breaks++;
		prev = pfn;
	}
	if (scattered) {
		ASSERT_NE(0UL, breaks) {
			TH_LOG("all %lu pages are physical neighbours: expected a "
			       "scattered buffer", n);
		}
	}
}

TEST_HARNESS_MAIN
