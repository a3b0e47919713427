// SPDX-License-Identifier: GPL-2.0
/*
 * check_commit_charge - a refused MAP_FIXED private writable mapping over
 * written, accounted anonymous memory, on the stage's device and on secretmem:
 * Committed_AS is unchanged after munmap(), strict overcommit still holds after
 * 100 refusals, and userfaultfd reports an unmap event exactly for the range
 * that was unmapped (the hole).
 *
 * The scenario: a private, writable, written anonymous mapping (charged to
 * Committed_AS) is replaced with MAP_FIXED by a private writable mapping of
 * a file that refuses MAP_PRIVATE. mmap() charges the new mapping before it
 * asks the file, so the refusal must give back exactly what was taken.
 *
 * What the kernel does (stock 6.12, mainline, and the kit since it follows
 * mainline's order): the old range is torn down (page tables cleared,
 * ->close called) before .mmap() or .mmap_prepare() runs, so a refusal
 * leaves a hole and its whole charge is returned with it.
 *
 * Two variants of every test: the stage's own device (MMAP_LAB_DEVICE, which
 * refuses MAP_PRIVATE) and memfd_secret() (secretmem refuses it too).
 *
 *  - the Committed_AS delta after munmap() is zero;
 *  - with vm.overcommit_memory=2, after 100 refusals, a mapping larger than
 *    what is left under CommitLimit is still refused;
 *  - with UFFD_FEATURE_EVENT_UNMAP, an unmap event is reported for a range
 *    only if that range really was unmapped, and a hole is reported.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>
#include "lab_harness.h"

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define ANON_LEN	(64UL << 20)
#define OVERCOMMIT	"/proc/sys/vm/overcommit_memory"

FIXTURE(charge)
{
	unsigned long page;
	int fd;
	int overcommit;		/* saved vm.overcommit_memory, or -1 */
	char *area;		/* the anonymous playground, ANON_LEN long */
};

FIXTURE_VARIANT(charge)
{
	bool secretmem;		/* memfd_secret() instead of MMAP_LAB_DEVICE */
};

FIXTURE_VARIANT_ADD(charge, device)
{
	.secretmem = false,
};

FIXTURE_VARIANT_ADD(charge, secretmem)
{
	.secretmem = true,
};

FIXTURE_SETUP(charge)
{
	const char *dev;

	self->fd = -1;
	self->overcommit = -1;
	self->area = MAP_FAILED;
	self->page = lab_page_size();
	if (variant->secretmem) {
		self->fd = syscall(__NR_memfd_secret, 0);
		if (self->fd < 0 && errno == ENOSYS)
			SKIP(return, "memfd_secret() is not available (CONFIG_SECRETMEM)");
		ASSERT_LE(0, self->fd) {
			TH_LOG("memfd_secret(): %s", strerror(errno));
		}
		ASSERT_EQ(0, ftruncate(self->fd, ANON_LEN));
	} else {
		LAB_ENV_REQUIRED(dev, "MMAP_LAB_DEVICE");
		if (!*dev)
			SKIP(return, "MMAP_LAB_DEVICE is empty: no device in this "
			     "run (make check-stock has no probe module)");
		LAB_OPEN(self->fd, dev);
	}
}

FIXTURE_TEARDOWN(charge)
{
	char val[16];

	if (self->area != MAP_FAILED)
		munmap(self->area, ANON_LEN);
	if (self->overcommit >= 0) {
		snprintf(val, sizeof(val), "%d", self->overcommit);
		lab_write_file(OVERCOMMIT, val);
	}
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * (Re)create the private writable anonymous mapping at *area (anywhere the
 * first time, when it is MAP_FAILED) and, with touch, write to one page of
 * every 64 KiB of it (the charge is taken at mmap() time either way; the
 * writes give it real pages without faulting in all 16384 of them under TCG).
 */
static bool map_written_anon(struct __test_metadata *_metadata, char **area,
			     unsigned long page, bool touch)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	unsigned long off;
	char *p;

	if (*area != MAP_FAILED)
		flags |= MAP_FIXED;
	p = mmap(*area == MAP_FAILED ? NULL : *area, ANON_LEN,
		 PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		TH_LOG("mmap() of %lu MiB private anonymous memory: %s",
		       ANON_LEN >> 20, strerror(errno));
		return false;
	}
	*area = p;
	for (off = 0; touch && off < ANON_LEN; off += 16 * page)
		p[off] = 1;
	return true;
}

/* MAP_FIXED | MAP_PRIVATE, writable, of file fd over the playground area. */
static void *map_fixed_private(char *area, int fd, unsigned long len)
{
	return lab_sys_mmap(area, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_FIXED, fd, 0);
}

/* How many bytes of [start, start + len) the VMAs in /proc/self/maps cover. */
static unsigned long covered_now(unsigned long start, unsigned long len)
{
	char *maps = LAB_MAPS_SCRATCH;
	unsigned long s, e, sum = 0, end = start + len;
	const char *p, *nl;

	if (lab_maps_read(maps) < 0)
		return ~0UL;
	for (p = maps; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (lab_parse_range(p, &s, &e) && e > start && s < end)
			sum += (e < end ? e : end) - (s > start ? s : start);
		if (!nl)
			break;
	}
	return sum;
}

/*
 * Ten refusals, each over freshly written accounted memory: after munmap()
 * Committed_AS is exactly where it started. Each lost or double refund would
 * move it by 64 MiB.
 */
TEST_F(charge, refused_map_fixed_charge_delta_zero)
{
	long before, after;
	int i;

	/* Grow the stack and warm up the readers before the first sample. */
	ASSERT_LE(0, lab_meminfo_kb("Committed_AS:"));
	covered_now(0, 0);
	before = lab_meminfo_kb("Committed_AS:");
	for (i = 0; i < 10; i++) {
		ASSERT_TRUE(map_written_anon(_metadata, &self->area, self->page, true));
		ASSERT_EQ(MAP_FAILED, map_fixed_private(self->area, self->fd, ANON_LEN)) {
			TH_LOG("the file accepted a private writable mapping");
		}
		ASSERT_EQ(EINVAL, errno);
	}
	ASSERT_EQ(0, munmap(self->area, ANON_LEN));
	self->area = MAP_FAILED;
	after = lab_meminfo_kb("Committed_AS:");
	ASSERT_EQ(before, after) {
		TH_LOG("Committed_AS went from %ld kB to %ld kB over ten refused "
		       "MAP_FIXED mappings of %lu MiB", before, after,
		       ANON_LEN >> 20);
	}
}

/*
 * Strict overcommit (vm.overcommit_memory=2): after 100 refusals the limit
 * still holds. A drifting charge would let the last mapping through.
 */
TEST_F(charge, strict_overcommit_holds_after_100_refusals)
{
	long limit, committed, v;
	unsigned long big;
	void *p;
	int i;

	ASSERT_EQ(0, lab_read_long(OVERCOMMIT, &v));
	self->overcommit = v;
	ASSERT_EQ(0, lab_write_file(OVERCOMMIT, "2"));
	for (i = 0; i < 100; i++) {
		ASSERT_TRUE(map_written_anon(_metadata, &self->area, self->page, false));
		ASSERT_EQ(MAP_FAILED, map_fixed_private(self->area, self->fd, ANON_LEN));
		ASSERT_EQ(EINVAL, errno);
	}
	ASSERT_EQ(0, munmap(self->area, ANON_LEN));
	self->area = MAP_FAILED;

	limit = lab_meminfo_kb("CommitLimit:");
	committed = lab_meminfo_kb("Committed_AS:");
	ASSERT_LT(0, limit);
	ASSERT_LE(0, committed);
	/* Control: a small private mapping is still allowed. */
	p = mmap(NULL, 1UL << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p) {
		TH_LOG("1 MiB refused with CommitLimit %ld kB, Committed_AS "
		       "%ld kB", limit, committed);
	}
	munmap(p, 1UL << 20);
	/* 64 MiB more than is left under the limit must be refused. */
	big = ((unsigned long)(limit > committed ? limit - committed : 0) << 10) +
	      ANON_LEN;
	p = mmap(NULL, big, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		munmap(p, big);
	ASSERT_EQ(MAP_FAILED, p) {
		TH_LOG("a %lu MiB private mapping was allowed past CommitLimit "
		       "%ld kB (Committed_AS %ld kB) after 100 refusals",
		       big >> 20, limit, committed);
	}
	ASSERT_EQ(ENOMEM, errno);
}

#define MAX_EVENTS 16

/* The userfaultfd monitor: reads events until told to stop. */
struct uffd_monitor {
	int uffd;
	int stop[2];		/* a pipe: write to stop the thread */
	int n;
	struct uffd_msg msgs[MAX_EVENTS];
};

static void *uffd_monitor_thread(void *arg)
{
	struct uffd_monitor *m = arg;
	struct pollfd fds[2] = {
		{ .fd = m->uffd, .events = POLLIN },
		{ .fd = m->stop[0], .events = POLLIN },
	};
	struct uffd_msg msg;

	while (poll(fds, 2, -1) > 0) {
		if (fds[0].revents & POLLIN &&
		    read(m->uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    m->n < MAX_EVENTS)
			m->msgs[m->n++] = msg;
		if (fds[1].revents & POLLIN)
			break;
	}
	return NULL;
}

/*
 * UFFD_EVENT_UNMAP is queued while the old VMAs are gathered, before the
 * file is asked, and delivered after mmap() returns. A range reported as
 * unmapped must really be unmapped; a hole must be reported.
 */
TEST_F(charge, uffd_unmap_event_matches_what_was_unmapped)
{
	const unsigned long len = 16 * self->page;
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_EVENT_UNMAP,
	};
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffd_monitor m = { .n = 0 };
	unsigned long start, left;
	bool hole_reported = false;
	pthread_t thread;
	int i;

	m.uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (m.uffd < 0 && errno == ENOSYS)
		SKIP(return, "userfaultfd() is not available (CONFIG_USERFAULTFD)");
	ASSERT_LE(0, m.uffd) {
		TH_LOG("userfaultfd(): %s", strerror(errno));
	}
	ASSERT_EQ(0, ioctl(m.uffd, UFFDIO_API, &api)) {
		TH_LOG("UFFDIO_API with UFFD_FEATURE_EVENT_UNMAP: %s",
		       strerror(errno));
	}
	ASSERT_TRUE(map_written_anon(_metadata, &self->area, self->page, false));
	start = (unsigned long)self->area;
	/*
	 * Populate the pages before registering them: a missing-page fault
	 * in a registered range would wait for a monitor that does not
	 * resolve faults.
	 */
	for (i = 0; i < 16; i++)
		self->area[i * self->page] = 1;
	reg.range.start = start;
	reg.range.len = len;
	ASSERT_EQ(0, ioctl(m.uffd, UFFDIO_REGISTER, &reg)) {
		TH_LOG("UFFDIO_REGISTER: %s", strerror(errno));
	}
	ASSERT_EQ(0, pipe(m.stop));
	ASSERT_EQ(0, pthread_create(&thread, NULL, uffd_monitor_thread, &m));

	ASSERT_EQ(MAP_FAILED, map_fixed_private(self->area, self->fd, len));
	ASSERT_EQ(EINVAL, errno);

	ASSERT_EQ(1, write(m.stop[1], "x", 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	close(m.stop[0]);
	close(m.stop[1]);
	close(m.uffd);

	for (i = 0; i < m.n; i++) {
		unsigned long s, e;

		ASSERT_EQ(UFFD_EVENT_UNMAP, m.msgs[i].event) {
			TH_LOG("unexpected userfaultfd event %u",
			       m.msgs[i].event);
		}
		s = m.msgs[i].arg.remove.start;
		e = m.msgs[i].arg.remove.end;
		ASSERT_EQ(0UL, covered_now(s, e - s)) {
			TH_LOG("an unmap event was reported for [%#lx, %#lx), "
			       "which is still mapped", s, e);
		}
		if (s <= start && e >= start + len)
			hole_reported = true;
	}
	left = covered_now(start, len);
	if (!left)
		ASSERT_TRUE(hole_reported) {
			TH_LOG("the refusal left a hole at [%#lx, %#lx) that "
			       "no unmap event reported", start, start + len);
		}
	/* What the kit and mainline do: the replaced range is gone. */
	ASSERT_EQ(0UL, left) {
		TH_LOG("%lu bytes of the replaced range are still mapped: "
		       "mainline leaves a hole", left);
	}
}

TEST_HARNESS_MAIN
