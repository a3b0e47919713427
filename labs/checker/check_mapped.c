// SPDX-License-Identifier: GPL-2.0
/*
 * check_mapped - mainline's vm_ops->mapped runs once per new VMA and not on a
 * merge; an error from it unmaps the VMA and mmap() reports error_override.
 *
 * Through the probe module kit_mapped_probe (labs/mainline-probe/):
 *  - /dev/kit_mapped_merge: mapped runs once per new VMA and not when a new
 *    mapping merges into an existing one;
 *  - /dev/kit_mapped_error: an error from mapped unmaps the new VMA, and
 *    mmap() reports the action's error_override (EAGAIN) instead of it.
 *
 * Environment: none; every test skips when its device is missing.
 */
#include "lab_harness.h"

#define PARAMS "/sys/module/kit_mapped_probe/parameters/"

FIXTURE(mapped)
{
	unsigned long page;
	struct lab_mappings maps;
};

FIXTURE_SETUP(mapped)
{
	self->page = lab_page_size();
}

FIXTURE_TEARDOWN(mapped)
{
	lab_unmap_all(&self->maps);
}

/*
 * Two pages of the device mapped one after the other at adjacent addresses
 * and offsets: the second mapping merges into the first (one VMA), and the
 * counter grows by one, not two.
 */
TEST_F(mapped, once_per_new_vma_not_on_merge)
{
	unsigned long end = 0;
	long before, after;
	char *r, *p, *q;
	int fd;

	if (!lab_path_exists("/dev/kit_mapped_merge"))
		SKIP(return, "probe module kit_mapped_probe not loaded");
	LAB_OPEN(fd, "/dev/kit_mapped_merge");
	/* Reserve two pages, then map the device over them page by page. */
	r = mmap(NULL, 2 * self->page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	ASSERT_TRUE(lab_track(&self->maps, r, 2 * self->page));
	ASSERT_EQ(0, lab_read_long(PARAMS "merge_mapped_calls", &before));
	p = lab_sys_mmap(r, self->page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0);
	ASSERT_EQ(r, p);
	q = lab_sys_mmap(r + self->page, self->page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, self->page);
	ASSERT_EQ(r + self->page, q);
	ASSERT_EQ(0, lab_read_long(PARAMS "merge_mapped_calls", &after));
	close(fd);
	p[0] = 1;
	q[0] = 2;
	LAB_MAPS_SNAPSHOT(LAB_MAPS_SCRATCH);
	ASSERT_EQ(0, lab_maps_find(LAB_MAPS_SCRATCH, (unsigned long)r, &end,
				   NULL, 0));
	ASSERT_EQ((unsigned long)r + 2 * self->page, end) {
		TH_LOG("the second mapping did not merge into the first: the "
		       "check needs a merge to mean anything");
	}
	ASSERT_EQ(1, after - before) {
		TH_LOG("mapped ran %ld times for one new VMA and one merge",
		       after - before);
	}
}

/*
 * mapped fails with EBUSY and the action's error_override is EAGAIN:
 * mmap() fails with EAGAIN, the callback ran once, and /proc/self/maps is
 * what it was before.
 */
TEST_F(mapped, error_unmaps_and_reports_error_override)
{
	long before, after;
	int fd;

	if (!lab_path_exists("/dev/kit_mapped_error"))
		SKIP(return, "probe module kit_mapped_probe not loaded");
	LAB_OPEN(fd, "/dev/kit_mapped_error");
	ASSERT_EQ(0, lab_read_long(PARAMS "error_mapped_calls", &before));
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	LAB_MMAP_REFUSED(self->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0,
			 EAGAIN, "mapped callback failing with EBUSY");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the mmap() whose mapped callback failed");
	ASSERT_EQ(0, lab_read_long(PARAMS "error_mapped_calls", &after));
	close(fd);
	ASSERT_EQ(1, after - before) {
		TH_LOG("the failing mapped callback ran %ld times for one "
		       "mmap()", after - before);
	}
}

TEST_HARNESS_MAIN
