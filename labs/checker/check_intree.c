// SPDX-License-Identifier: GPL-2.0
/*
 * check_intree - the in-tree users the series converts behave as on stock 6.12,
 * and the paths only the probe module reaches work.
 *
 * What it checks:
 *
 *  - /dev/zero: a private mapping is anonymous and copy-on-write across
 *    fork(), a shared one is shared;
 *  - /dev/mem: the low 1 MiB maps as a PFN map, RAM above it is refused with
 *    EPERM (CONFIG_STRICT_DEVMEM), and an injected action failure reaches
 *    userspace as EAGAIN through /dev/mem's error hook;
 *  - memfd_secret(): maps and reads back, not in core dumps;
 *  - SysV shared memory (shmem behind shm_mmap()) attaches and shares;
 *  - overlayfs over tmpfs: a file maps through backing_file_mmap() and
 *    vfs_mmap() into shmem, and the mapping and read() agree;
 *  - hugetlbfs: maps the huge pages reserved with hugepages= on the kernel
 *    command line, and fails cleanly once they are used up;
 *  - /dev/kit_both_hooks (probe module): both hooks, refused with ENODEV;
 *  - /dev/kit_compat (probe module): a legacy .mmap forwarding through
 *    vfs_mmap() to a .mmap_prepare-only file maps its page, and an injected
 *    failure of its action unmaps nothing on the compat path;
 *  - /dev/kit_merge (probe module): the success hook runs once per new VMA,
 *    not when a mapping merges into an existing one;
 *  - /dev/kit_compat_merge (probe module): a success hook run on the compat
 *    path is not followed by a merge that frees its VMA;
 *  - /dev/kit_positive_hook (probe module): a success hook returning 1 fails
 *    the mmap() with EINVAL instead of returning 0x1 as an address;
 *  - relay (kit_relay_probe's debugfs kit_relay/data0, also loaded on stock):
 *    the buffer file maps and shows what the kernel wrote; a wrong length is
 *    refused.
 *
 * On unpatched 6.12 (make check-stock) the probe tests and the injection
 * test skip, with the reason; every other test must give the same result.
 */
#include <sys/mount.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "lab_harness.h"

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif
#define HUGE_SZ (2UL << 20)

FIXTURE(intree)
{
	unsigned long page;
	struct lab_mappings maps;
};

FIXTURE_SETUP(intree)
{
	self->page = lab_page_size();
}

FIXTURE_TEARDOWN(intree)
{
	lab_unmap_all(&self->maps);
}

/* The "Anonymous:" kB of the VMA at addr in /proc/self/smaps, or -1. */
static long smaps_anonymous_kb(unsigned long addr)
{
	char *buf = lab_smaps_buf();
	const char *p, *nl;
	unsigned long s, e;
	bool in_vma = false;

	if (lab_read_file("/proc/self/smaps", buf, 4 * LAB_MAPS_MAX) < 0)
		return -1;
	for (p = buf; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (lab_parse_range(p, &s, &e))
			in_vma = s == addr;
		else if (in_vma && !strncmp(p, "Anonymous:", 10))
			return strtol(p + 10, NULL, 10);
		if (!nl)
			break;
	}
	return -1;
}

/* Fork; the child runs body and exits with its result; returns the status. */
#define IN_CHILD(status, body) do {						\
	pid_t __pid = fork();							\
	ASSERT_LE(0, __pid);							\
	if (__pid == 0)								\
		_exit(body);							\
	ASSERT_EQ(__pid, waitpid(__pid, &(status), 0));			\
} while (0)

TEST_F(intree, devzero_private_is_cow)
{
	volatile unsigned char *p;
	int fd, status;

	LAB_OPEN(fd, "/dev/zero");
	LAB_MMAP(p, &self->maps, self->page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE, fd, 0);
	close(fd);
	ASSERT_EQ(0, p[0]);
	p[0] = 0xaa;
	/* The written page is an anonymous page, not a page of /dev/zero. */
	ASSERT_EQ((long)(self->page / 1024), smaps_anonymous_kb((unsigned long)p));
	IN_CHILD(status, (p[0] == 0xaa && (p[0] = 0x55, p[0] == 0x55)) ? 0 : 1);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0xaa, p[0]) {
		TH_LOG("the child's write reached the parent: not copy-on-write");
	}
}

TEST_F(intree, devzero_shared_is_shared)
{
	volatile unsigned char *p;
	int fd, status;

	LAB_OPEN(fd, "/dev/zero");
	LAB_MMAP(p, &self->maps, self->page, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_EQ(0, p[0]);
	p[0] = 0;
	/* Backed by a shmem file: its pages are not anonymous. */
	ASSERT_EQ(0, smaps_anonymous_kb((unsigned long)p));
	IN_CHILD(status, (p[0] = 0x55, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0x55, p[0]) {
		TH_LOG("the child's write to a shared /dev/zero mapping is lost");
	}
}

TEST_F(intree, devmem_low_range_maps_as_pfnmap)
{
	char flags[256];
	void *p;
	int fd;

	LAB_OPEN(fd, "/dev/mem");
	LAB_MMAP(p, &self->maps, self->page, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_EQ(0, lab_vmflags((unsigned long)p, flags, sizeof(flags)));
	ASSERT_TRUE(strstr(flags, "pf") && strstr(flags, "io")) {
		TH_LOG("VmFlags of the /dev/mem mapping: %s", flags);
	}
}

TEST_F(intree, devmem_ram_refused_eperm)
{
	int fd;

	LAB_OPEN(fd, "/dev/mem");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	LAB_MMAP_REFUSED(self->page, PROT_READ, MAP_SHARED, fd, 16UL << 20,
			 EPERM, "RAM at 16 MiB through /dev/mem");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the refused /dev/mem mmap()");
	close(fd);
}

TEST_F(intree, devmem_action_failure_is_eagain)
{
	const char *failed;
	void *p;
	int fd, e;

	if (lab_debugfs_mount() || !lab_path_exists(LAB_FI_DIR))
		SKIP(return, "kernel lacks fail_mmap_action (stock 6.12?)");
	ASSERT_EQ(0, lab_fi_configure(&failed));
	LAB_OPEN(fd, "/dev/mem");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	ASSERT_EQ(0, lab_fi_set("times", "1"));
	ASSERT_EQ(0, lab_make_it_fail(1));
	p = lab_sys_mmap(NULL, self->page, PROT_READ, MAP_SHARED, fd, 0);
	e = errno;
	lab_make_it_fail(0);
	lab_fi_set("times", "0");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	close(fd);
	if (p != MAP_FAILED)
		munmap(p, self->page);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EAGAIN, e) {
		TH_LOG("errno %s: /dev/mem's error hook should report EAGAIN",
		       lab_errno_name(e));
	}
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the failed /dev/mem mmap()");
}

TEST_F(intree, secretmem_maps_and_reads_back)
{
	volatile unsigned char *p;
	char flags[256];
	int fd;

	fd = syscall(__NR_memfd_secret, 0);
	ASSERT_LE(0, fd) {
		TH_LOG("memfd_secret: %s (CONFIG_SECRETMEM?)", strerror(errno));
	}
	ASSERT_EQ(0, ftruncate(fd, self->page));
	LAB_MMAP(p, &self->maps, self->page, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	close(fd);
	p[0] = 0x11;
	p[self->page - 1] = 0x22;
	ASSERT_EQ(0x11, p[0]);
	ASSERT_EQ(0x22, p[self->page - 1]);
	ASSERT_EQ(0, lab_vmflags((unsigned long)p, flags, sizeof(flags)));
	ASSERT_NE(NULL, strstr(flags, "dd")) {
		TH_LOG("secretmem VmFlags lack dd (VM_DONTDUMP): %s", flags);
	}
}

TEST_F(intree, sysv_shm_attaches_and_shares)
{
	volatile unsigned char *a, *b;
	int id;

	id = shmget(IPC_PRIVATE, 2 * self->page, IPC_CREAT | 0600);
	ASSERT_LE(0, id);
	a = shmat(id, NULL, 0);
	b = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	ASSERT_NE((void *)-1, (void *)a);
	ASSERT_NE((void *)-1, (void *)b);
	a[self->page] = 0x77;
	ASSERT_EQ(0x77, b[self->page]);
	ASSERT_EQ(0, shmdt((void *)a));
	ASSERT_EQ(0, shmdt((void *)b));
}

/*
 * A fresh directory per run (mkdtemp), so that the test can run twice in one
 * guest (make boot STAGE=intree, then check_intree by hand, twice).
 */
TEST_F(intree, overlayfs_over_tmpfs_maps_through_backing_file)
{
	char ovl[] = "/tmp/kit-ovl.XXXXXX";
	char path[4][64], file[80], opts[256];
	static const char *const sub[] = { "lower", "upper", "work", "merged" };
	volatile char *p;
	char buf[16] = "";
	int fd, i;

	ASSERT_NE(NULL, mkdtemp(ovl));
	ASSERT_EQ(0, mount("tmpfs", ovl, "tmpfs", 0, NULL));
	for (i = 0; i < 4; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/%s", ovl, sub[i]);
		ASSERT_EQ(0, mkdir(path[i], 0755));
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
		 path[0], path[1], path[2]);
	ASSERT_EQ(0, mount("overlay", path[3], "overlay", 0, opts)) {
		TH_LOG("mount overlay: %s (CONFIG_OVERLAY_FS?)", strerror(errno));
	}
	snprintf(file, sizeof(file), "%s/file", path[3]);
	fd = open(file, O_RDWR | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, self->page));
	LAB_MMAP(p, &self->maps, self->page, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	memcpy((char *)p, "via overlay", 12);
	ASSERT_EQ(12, pread(fd, buf, 12, 0));
	ASSERT_STREQ("via overlay", buf);
	close(fd);
	lab_unmap_all(&self->maps);
	ASSERT_EQ(0, umount(path[3]));
	ASSERT_EQ(0, umount(ovl));
	ASSERT_EQ(0, rmdir(ovl));
}

TEST_F(intree, hugetlb_reserved_pages_map_then_run_out)
{
	volatile unsigned char *p, *q;
	long nr = 0;
	unsigned long len;

	ASSERT_EQ(0, lab_read_long("/proc/sys/vm/nr_hugepages", &nr));
	if (nr <= 0)
		SKIP(return, "no huge pages reserved (hugepages= not on the command line)");
	len = nr * HUGE_SZ;
	LAB_MMAP(p, &self->maps, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	p[0] = 1;
	p[len - 1] = 2;
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	q = lab_sys_mmap(NULL, HUGE_SZ, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	ASSERT_EQ(MAP_FAILED, (void *)q) {
		munmap((void *)q, HUGE_SZ);
	}
	ASSERT_EQ(ENOMEM, errno);
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the hugetlb mmap() past the reservation");
}

TEST_F(intree, both_hooks_refused_enodev)
{
	int fd;

	if (!lab_path_exists("/dev/kit_both_hooks"))
		SKIP(return, "probe module not loaded (stock 6.12 has no mmap_prepare)");
	LAB_OPEN(fd, "/dev/kit_both_hooks");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	LAB_MMAP_REFUSED(self->page, PROT_READ, MAP_SHARED, fd, 0, ENODEV,
			 ".mmap and .mmap_prepare both set");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the refused mmap()");
	close(fd);
}

TEST_F(intree, compat_vfs_mmap_maps_prepare_only_file)
{
	volatile unsigned char *p;
	char flags[256];
	int fd;

	if (!lab_path_exists("/dev/kit_compat"))
		SKIP(return, "probe module not loaded (stock 6.12 has no mmap_prepare)");
	LAB_OPEN(fd, "/dev/kit_compat");
	LAB_MMAP(p, &self->maps, self->page, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_EQ(0x5a, p[0]);
	ASSERT_EQ(0x5a, p[self->page - 1]);
	ASSERT_EQ(0, lab_vmflags((unsigned long)p, flags, sizeof(flags)));
	ASSERT_TRUE(strstr(flags, "pf") && strstr(flags, "io")) {
		TH_LOG("VmFlags of the compat mapping: %s", flags);
	}
}

#define MERGE_COUNTER "/sys/module/kit_mmap_probe/parameters/merge_hook_calls"

/*
 * An action that fails on the compatibility path must not unmap anything
 * itself: the VMA is not in the tree yet, and the range still holds the
 * mapping MAP_FIXED is replacing (mainline once unmapped it there, a syzbot
 * report). The outer .mmap() path cleans up; the rest of the process is
 * untouched, and the console stays free of warnings (checked by the harness).
 */
TEST_F(intree, compat_action_failure_leaves_the_rest_alone)
{
	volatile char *r;
	const char *failed;
	void *p;
	int fd, e;

	if (!lab_path_exists("/dev/kit_compat"))
		SKIP(return, "probe module not loaded (stock 6.12 has no mmap_prepare)");
	if (lab_debugfs_mount() || !lab_path_exists(LAB_FI_DIR))
		SKIP(return, "kernel lacks fail_mmap_action (stock 6.12?)");
	ASSERT_EQ(0, lab_fi_configure(&failed));
	LAB_OPEN(fd, "/dev/kit_compat");
	r = mmap(NULL, 4 * self->page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)r);
	ASSERT_TRUE(lab_track(&self->maps, (void *)r, 4 * self->page));
	r[3 * self->page] = 0x42;

	ASSERT_EQ(0, lab_fi_set("times", "1"));
	ASSERT_EQ(0, lab_make_it_fail(1));
	p = lab_sys_mmap((void *)r, self->page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0);
	e = errno;
	lab_make_it_fail(0);
	lab_fi_set("times", "0");
	close(fd);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(ENOMEM, e) {
		TH_LOG("errno %s: the injected failure should pass through",
		       lab_errno_name(e));
	}
	ASSERT_EQ(0x42, r[3 * self->page]);
}

TEST_F(intree, success_hook_once_per_new_vma_not_on_merge)
{
	unsigned long end = 0;
	long before, after;
	char *r, *p, *q;
	int fd;

	if (!lab_path_exists("/dev/kit_merge"))
		SKIP(return, "probe module not loaded (stock 6.12 has no mmap_prepare)");
	LAB_OPEN(fd, "/dev/kit_merge");
	/* Reserve two pages, then map the device over them page by page. */
	r = mmap(NULL, 2 * self->page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	ASSERT_TRUE(lab_track(&self->maps, r, 2 * self->page));
	ASSERT_EQ(0, lab_read_long(MERGE_COUNTER, &before));
	p = lab_sys_mmap(r, self->page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0);
	ASSERT_EQ(r, p);
	q = lab_sys_mmap(r + self->page, self->page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, self->page);
	ASSERT_EQ(r + self->page, q);
	ASSERT_EQ(0, lab_read_long(MERGE_COUNTER, &after));
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
		TH_LOG("success hook ran %ld times for one new VMA and one "
		       "merge", after - before);
	}
}

#define COMPAT_MERGE_COUNTER \
	"/sys/module/kit_mmap_probe/parameters/compat_merge_hook_calls"
#define PROBE_MISSING "probe module not loaded (stock 6.12 has no mmap_prepare)"

/* How many VMAs of a maps text overlap [start, end). */
static int vmas_in(const char *maps, unsigned long start, unsigned long end)
{
	unsigned long s, e;
	const char *p, *nl;
	int n = 0;

	for (p = maps; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (lab_parse_range(p, &s, &e) && s < end && start < e)
			n++;
		if (!nl)
			break;
	}
	return n;
}

/*
 * Two adjacent pages of /dev/kit_compat_merge: its legacy .mmap runs an
 * .mmap_prepare through vfs_mmap() that changes the flags and sets a
 * success hook. 6.12's second merge attempt after .mmap() would merge the
 * second VMA into the first after its hook ran; the kit makes no second
 * attempt: two VMAs, two hook calls.
 */
TEST_F(intree, compat_merge_hook_once_per_vma)
{
	long before, after;
	char *r, *p, *q;
	int fd;

	if (!lab_path_exists("/dev/kit_compat_merge"))
		SKIP(return, PROBE_MISSING);
	LAB_OPEN(fd, "/dev/kit_compat_merge");
	r = mmap(NULL, 2 * self->page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	ASSERT_TRUE(lab_track(&self->maps, r, 2 * self->page));
	ASSERT_EQ(0, lab_read_long(COMPAT_MERGE_COUNTER, &before));
	p = lab_sys_mmap(r, self->page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0);
	ASSERT_EQ(r, p);
	q = lab_sys_mmap(r + self->page, self->page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, self->page);
	ASSERT_EQ(r + self->page, q);
	ASSERT_EQ(0, lab_read_long(COMPAT_MERGE_COUNTER, &after));
	close(fd);
	p[0] = 1;
	q[0] = 2;
	LAB_MAPS_SNAPSHOT(LAB_MAPS_SCRATCH);
	ASSERT_EQ(2, vmas_in(LAB_MAPS_SCRATCH, (unsigned long)r,
			     (unsigned long)r + 2 * self->page)) {
		TH_LOG("the second VMA was merged away after its success hook "
		       "ran on the compat path");
	}
	ASSERT_EQ(2, after - before);
}

/* A success hook that returns 1: mmap() fails with EINVAL, no VMA left. */
TEST_F(intree, positive_success_hook_refused)
{
	int fd;

	if (!lab_path_exists("/dev/kit_positive_hook"))
		SKIP(return, PROBE_MISSING);
	LAB_OPEN(fd, "/dev/kit_positive_hook");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	LAB_MMAP_REFUSED(self->page, PROT_READ, MAP_SHARED, fd, 0, EINVAL,
			 "success hook returning 1");
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	close(fd);
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the refused mmap() (positive success hook)");
}

#define RELAY_FILE "/sys/kernel/debug/kit_relay/data0"
#define RELAY_TEXT "kit relay mmap check"

TEST_F(intree, relay_buffer_maps_and_reads_back)
{
	const unsigned long len = 2 * self->page;	/* the channel's size */
	char *p;
	int fd;

	ASSERT_EQ(0, lab_debugfs_mount());
	ASSERT_TRUE(lab_path_exists(RELAY_FILE)) {
		TH_LOG(RELAY_FILE " is missing: is kit_relay_probe loaded?");
	}
	LAB_OPEN(fd, RELAY_FILE);
	LAB_MMAP_REFUSED(self->page, PROT_READ, MAP_SHARED, fd, 0, EINVAL,
			 "a relay mapping shorter than the channel");
	LAB_MMAP(p, &self->maps, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_EQ(0, memcmp(p, RELAY_TEXT, sizeof(RELAY_TEXT))) {
		TH_LOG("the relay buffer starts with '%.20s'", p);
	}
}

TEST_HARNESS_MAIN
