// SPDX-License-Identifier: GPL-2.0
/*
 * check_action_range - a remap longer than the mapping and a hook that moves
 * desc->end, with each kernel's own answer (the kit refuses both; mainline
 * warns and refuses the first with EFAULT, and maps the second past the VMA).
 *
 * An mmap action whose range is not the VMA's: the
 * kit's kernel and mainline's answer differently, on purpose (the table in
 * Documentation/upstream.rst), and this check expects each kernel's own
 * answer: the same two devices are in kit_mmap_probe (labs/intree/, the
 * in-tree stage on 6.12) and kit_range_probe (labs/mainline-probe/, the
 * mainline-probe stage on 7.x).
 *  - /dev/kit_oversize_action: a hook that asks for a remap of two pages on a
 *    one-page mapping. The kit refuses it with EINVAL and no warning;
 *    mainline's mmap_action_remap() warns (exactly one warning, which the
 *    host's log scanner checks) and its prepare step refuses with EFAULT.
 *    On both, the refused MAP_FIXED range is a hole, and the page past it
 *    is what it was.
 *  - /dev/kit_bad_range: a hook that moves desc->end one page further and
 *    asks for a remap of the moved range. The kit refuses it with EINVAL;
 *    mainline maps it, and the page past the one-page VMA, where no VMA is,
 *    reads the device's second page: a child process shows it.
 *
 * Environment: none; every test skips when its device is missing.
 */
#include <sys/wait.h>
#include "lab_harness.h"

#define OVERSIZE_DEV	"/dev/kit_oversize_action"
#define BAD_RANGE_DEV	"/dev/kit_bad_range"
/* The byte the probes fill the second of their two pages with. */
#define KIT_RANGE_FILL	0xb2
/* mmap_action_remap()'s WARN_ON_ONCE, inlined into the probe's hook. */
#define OVERSIZE_WARNING "mm\\.h:[0-9]+ at oversize_mmap_prepare\\+"
#define PROBE_MISSING	"range probe not loaded (kit_mmap_probe on 6.12, kit_range_probe on mainline)"

/* The child's exit status when the mapping was made (map_bad_range_and_read_past). */
enum { MAPPED_PAST_VMA_READS_FILL = 200, MAPPED_PAST_VMA_READS_OTHER,
	MAPPED_VMA_NOT_ONE_PAGE };

FIXTURE(action_range)
{
	unsigned long page;
	struct lab_mappings maps;
};

FIXTURE_SETUP(action_range)
{
	self->page = lab_page_size();
}

FIXTURE_TEARDOWN(action_range)
{
	lab_unmap_all(&self->maps);
}

/*
 * After the refusal: the refused range is a hole (MAP_FIXED tore the old
 * mapping down first, on both kernels), and the page after it is still the
 * old inaccessible mapping, split at the range's end. On false, line holds
 * what was found.
 */
static bool hole_then_prot_none(unsigned long r, unsigned long page,
				char *line, size_t size)
{
	unsigned long end = 0;

	snprintf(line, size, "no VMA at the page after the range");
	if (lab_maps_read(LAB_MAPS_SCRATCH) <= 0)
		return false;
	if (lab_maps_overlaps(LAB_MAPS_SCRATCH, r, r + page)) {
		snprintf(line, size, "a VMA in the refused range");
		return false;
	}
	return !lab_maps_find(LAB_MAPS_SCRATCH, r + page, &end, line, size) &&
	       end == r + 2 * page && strstr(line, "---p");
}

/*
 * A remap two pages long on a one-page mapping, over the first of two
 * PROT_NONE pages with MAP_FIXED: refused with each kernel's errno; the
 * second page, which the remap would have covered, is as it was.
 */
TEST_F(action_range, oversize_action_refused)
{
	const bool kit = lab_kernel_is_kit();
	char line[256];
	unsigned long r;
	int fd, e;
	char *p;

	if (!lab_path_exists(OVERSIZE_DEV))
		SKIP(return, PROBE_MISSING);
	LAB_OPEN(fd, OVERSIZE_DEV);
	p = mmap(NULL, 2 * self->page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_TRUE(lab_track(&self->maps, p, 2 * self->page));
	r = (unsigned long)p;
	if (!kit)
		ASSERT_EQ(0, lab_expect_warning_begin(OVERSIZE_WARNING));
	p = lab_sys_mmap((void *)r, self->page, PROT_READ,
			 MAP_SHARED | MAP_FIXED, fd, 0);
	e = errno;
	if (!kit)
		ASSERT_EQ(0, lab_expect_warning_end());
	close(fd);
	ASSERT_EQ(MAP_FAILED, p) {
		TH_LOG("a remap longer than the mapping was allowed to map");
	}
	ASSERT_EQ(kit ? EINVAL : EFAULT, e) {
		TH_LOG("the %s kernel refused it with %s, expected %s",
		       kit ? "kit's" : "mainline", lab_errno_name(e),
		       kit ? "EINVAL" : "EFAULT");
	}
	ASSERT_TRUE(hole_then_prot_none(r, self->page, line, sizeof(line))) {
		TH_LOG("not a hole, then the old PROT_NONE page: %s", line);
	}
}

/*
 * In a child: map one page of the hook that moves desc->end, at an address
 * followed by a hole, and read the page in the hole. Exits with the errno of
 * a refused mmap(), or with one of the MAPPED_* codes.
 */
static void map_bad_range_and_read_past(int fd, unsigned long page)
{
	unsigned long r, end = 0;
	unsigned char v;
	char *p;

	p = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || munmap(p + page, page))
		_exit(99);
	r = (unsigned long)p;
	p = lab_sys_mmap(p, page, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		_exit(errno < 100 ? errno : 99);
	if (lab_maps_read(LAB_MAPS_SCRATCH) <= 0 ||
	    lab_maps_find(LAB_MAPS_SCRATCH, r, &end, NULL, 0) ||
	    end != r + page ||
	    lab_maps_overlaps(LAB_MAPS_SCRATCH, r + page, r + 2 * page))
		_exit(MAPPED_VMA_NOT_ONE_PAGE);
	/* No VMA covers this page: only a stray page table entry can. */
	v = *(volatile unsigned char *)(r + page);
	_exit(v == KIT_RANGE_FILL ? MAPPED_PAST_VMA_READS_FILL :
				    MAPPED_PAST_VMA_READS_OTHER);
}

/*
 * The hook moves desc->end: the kit refuses the mmap() (EINVAL); mainline
 * maps the moved range, one page of it past the VMA, which the child reads.
 */
TEST_F(action_range, hook_moving_end)
{
	const bool kit = lab_kernel_is_kit();
	int fd, status;
	pid_t pid;

	if (!lab_path_exists(BAD_RANGE_DEV))
		SKIP(return, PROBE_MISSING);
	LAB_OPEN(fd, BAD_RANGE_DEV);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		map_bad_range_and_read_past(fd, self->page);
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) {
		TH_LOG("the child died of signal %d (SIGSEGV: the page "
		       "past the VMA was not mapped)", WTERMSIG(status));
	}
	if (kit) {
		ASSERT_EQ(EINVAL, WEXITSTATUS(status)) {
			TH_LOG("the kit's kernel: child exit %d, expected "
			       "EINVAL (the hook moved desc->end)",
			       WEXITSTATUS(status));
		}
	} else {
		ASSERT_EQ(MAPPED_PAST_VMA_READS_FILL, WEXITSTATUS(status)) {
			TH_LOG("mainline: child exit %d, expected %d (mapped, "
			       "and the page past the one-page VMA reads the "
			       "device's second page)", WEXITSTATUS(status),
			       MAPPED_PAST_VMA_READS_FILL);
		}
	}
}

TEST_HARNESS_MAIN
