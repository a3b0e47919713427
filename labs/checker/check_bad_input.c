// SPDX-License-Identifier: GPL-2.0
/*
 * check_bad_input - lengths and offsets outside the buffer or BAR are refused
 * with the right errno and leave /proc/self/maps untouched; a refused 64 MiB
 * private mapping gives its memory charge back (Committed_AS in /proc/meminfo
 * unchanged).
 *
 * Environment: MMAP_LAB_DEVICE, MMAP_LAB_BUF_SIZE (or, when 0,
 * MMAP_LAB_MAP_SIZE: stage 3 maps BAR 0, 1 MiB).
 *
 * mmap() is the raw system call here: glibc refuses an unaligned offset
 * itself and the checks are about what the kernel and the driver do.
 *
 * Who refuses what (x86-64):
 *  - an offset that is not a multiple of the page size: the mmap system call
 *    (arch/x86/kernel/sys_x86_64.c), EINVAL, before any VMA exists;
 *  - an offset whose last byte, offset + length - 1, does not fit in an
 *    unsigned long: do_mmap() through file_mmap_ok(), EOVERFLOW, before the
 *    driver is asked. (do_mmap()'s own "pgoff + pages wraps" test cannot fire
 *    on 64-bit: the largest pgoff the syscall can pass is ULONG_MAX >> 12);
 *  - everything else that goes past the region: the driver, EINVAL.
 */
#include "lab_harness.h"

FIXTURE(bad)
{
	const char *dev;
	unsigned long size;
	unsigned long page;
	int fd;
	struct lab_mappings maps;
};

FIXTURE_SETUP(bad)
{
	self->fd = -1;
	self->page = lab_page_size();
	LAB_ENV_REQUIRED(self->dev, "MMAP_LAB_DEVICE");
	LAB_MAP_SIZE(self->size);
	LAB_OPEN(self->fd, self->dev);
}

FIXTURE_TEARDOWN(bad)
{
	lab_unmap_all(&self->maps);
	if (self->fd >= 0)
		close(self->fd);
}

/* mmap(len, off) fails with err and /proc/self/maps is byte-identical. */
#define ASSERT_REFUSED_NO_TRACE(len, off, err, what) do {			\
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);					\
	LAB_MMAP_REFUSED((len), PROT_READ | PROT_WRITE, MAP_SHARED,		\
			 self->fd, (off), (err), what);				\
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);					\
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,			\
			     "the refused mmap() (" what ")");			\
} while (0)

/* mmap(len, off) succeeds and adds exactly one VMA of that length. */
#define ASSERT_MAPS_ONE_VMA(len, off) do {					\
	unsigned long __end = 0;						\
	int __count;								\
	void *__p;								\
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);					\
	__count = lab_maps_count(LAB_MAPS_BEFORE);				\
	LAB_MMAP(__p, &self->maps, (len), PROT_READ | PROT_WRITE,		\
		 MAP_SHARED, self->fd, (off));					\
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);					\
	ASSERT_EQ(__count + 1, lab_maps_count(LAB_MAPS_AFTER));		\
	ASSERT_EQ(0, lab_maps_find(LAB_MAPS_AFTER, (unsigned long)__p,		\
				   &__end, NULL, 0));				\
	ASSERT_EQ((unsigned long)__p + (len), __end);				\
} while (0)

/* Control: the whole region maps (the refusals below are not blanket). */
TEST_F(bad, whole_region_maps)
{
	ASSERT_MAPS_ONE_VMA(self->size, 0UL);
}

/* Control: the last page alone maps (no off-by-one at the end). */
TEST_F(bad, last_page_maps)
{
	ASSERT_MAPS_ONE_VMA(self->page, self->size - self->page);
}

/* One page more than the region, at offset 0: the driver says EINVAL. */
TEST_F(bad, length_past_end)
{
	LAB_REFUSES("past-end", "a range past the end");
	ASSERT_REFUSED_NO_TRACE(self->size + self->page, 0UL, EINVAL,
				"length = region + 1 page");
}

/* Offset at the end of the region, one page: EINVAL. */
TEST_F(bad, offset_past_end)
{
	LAB_REFUSES("past-end", "a range past the end");
	ASSERT_REFUSED_NO_TRACE(self->page, self->size, EINVAL,
				"offset = region length");
}

/* Offset inside, but offset + length one page past the end: EINVAL. */
TEST_F(bad, offset_plus_length_past_end)
{
	LAB_REFUSES("past-end", "a range past the end");
	ASSERT_REFUSED_NO_TRACE(2 * self->page, self->size - self->page, EINVAL,
				"last page + 1 page (offset and length each "
				"fit, their sum does not: does the range check "
				"compare the offset in pages with bytes?)");
}

/*
 * The largest page-aligned offset: offset + length wraps past ULONG_MAX,
 * do_mmap() refuses it with EOVERFLOW before the driver runs.
 */
TEST_F(bad, huge_offset_wraps_eoverflow)
{
	unsigned long off = ULONG_MAX & ~(self->page - 1);

	ASSERT_REFUSED_NO_TRACE(self->page, off, EOVERFLOW,
				"pgoff = ULONG_MAX >> PAGE_SHIFT");
}

/*
 * One page lower, offset + length just fits in an unsigned long: the kernel
 * lets it through and the driver must refuse it (EINVAL) without its own
 * arithmetic wrapping.
 */
TEST_F(bad, huge_offset_no_wrap_einval)
{
	unsigned long off = (ULONG_MAX & ~(self->page - 1)) - self->page;

	ASSERT_REFUSED_NO_TRACE(self->page, off, EINVAL,
				"pgoff = (ULONG_MAX >> PAGE_SHIFT) - 1");
}

/* An offset that is not page aligned: the system call says EINVAL. */
TEST_F(bad, unaligned_offset)
{
	ASSERT_REFUSED_NO_TRACE(self->page, self->page / 2, EINVAL,
				"offset = half a page");
}

/*
 * A private writable mapping is charged to the commit limit before the
 * driver's hook runs. When the hook refuses the mapping, the charge must be
 * given back (a first version of mmap_prepare upstream leaked it). 64 MiB
 * makes a leak stand out from the noise.
 */
TEST_F(bad, refused_private_mapping_returns_commit_charge)
{
	const unsigned long len = 64UL << 20;
	long before, after;
	void *p;

	LAB_REFUSES("private", "MAP_PRIVATE");
	before = lab_meminfo_kb("Committed_AS:");
	ASSERT_LE(0, before);
	p = lab_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			 self->fd, 0);
	after = lab_meminfo_kb("Committed_AS:");
	if (p != MAP_FAILED)
		munmap(p, len);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_GT(16384, labs(after - before)) {
		TH_LOG("Committed_AS went from %ld kB to %ld kB after a refused "
		       "64 MiB private mapping: the charge leaked", before, after);
	}
}

/*
 * A refused MAP_FIXED mmap() over an existing mapping of the device leaves a
 * hole where the old mapping was. mmap() tears the old range down (page
 * tables cleared, ->close called) before it asks the driver, with .mmap()
 * and with .mmap_prepare() alike: stock 6.12, mainline and the kit kernel
 * all do this, and no kernel can put the old mapping back. A driver that
 * must not lose a mapping cannot rely on MAP_FIXED failing harmlessly.
 */
TEST_F(bad, refused_map_fixed_leaves_hole)
{
	const unsigned long span = self->size + 2 * self->page;
	unsigned long end = 0;
	char *r, *p;

	LAB_REFUSES("past-end", "a range past the end");
	/* A private playground: nothing else can be in [r, r + span). */
	r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	ASSERT_TRUE(lab_track(&self->maps, r, span));
	p = lab_sys_mmap(r, self->page, PROT_READ, MAP_SHARED | MAP_FIXED,
			 self->fd, 0);
	ASSERT_EQ(r, p);

	/* One page past the region, over the device page: refused. */
	p = lab_sys_mmap(r, self->size + self->page, PROT_READ,
			 MAP_SHARED | MAP_FIXED, self->fd, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);

	ASSERT_EQ(-ENOENT, lab_maps_find(LAB_MAPS_AFTER, (unsigned long)r,
					 &end, NULL, 0)) {
		TH_LOG("the refused MAP_FIXED mmap() left the old mapping in "
		       "place: neither 6.12 nor mainline does that");
	}
	/* The hole is exactly the refused range: the rest is still there. */
	ASSERT_FALSE(lab_maps_overlaps(LAB_MAPS_AFTER, (unsigned long)r,
				       (unsigned long)r + self->size +
				       self->page));
	ASSERT_EQ(0, lab_maps_find(LAB_MAPS_AFTER, (unsigned long)r +
				   self->size + self->page, &end, NULL, 0));
}

TEST_HARNESS_MAIN
