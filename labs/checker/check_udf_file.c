// SPDX-License-Identifier: GPL-2.0
/*
 * check_udf_file - a file of a UDF image mapped shared, seen from user space
 * before and after the conversion of fs/udf/file.c.
 *
 * A real in-tree .mmap user (fs/udf/file.c). Its mmap hook (udf_file_mmap() in
 * 6.12) marks the file accessed and sets the file's vm_ops: the page cache's
 * fault and map_pages, and udf_page_mkwrite(), which allocates the blocks
 * under a page the first time a shared mapping writes it.
 *
 * make check boots this program twice on the 6.12 kit kernel: once with
 * fs/udf/file.c as Debian ships it, once with fs/udf/file.c as the
 * conversion aid (scripts/coccinelle/mmap_prepare.cocci) rewrote it. Each
 * test asserts the behaviour it knows, and prints what it saw as
 * "# observed: KEY=VALUE" lines; scripts/coccinelle/cocci-boot.sh compares those
 * lines between the two guests, so the converted driver must behave exactly
 * as the original.
 *
 * The file system: /data/udf.img, an empty 1 MiB UDF image with 512-byte
 * blocks that the host made with mkudffs (scripts/coccinelle/real-drivers/udf.conf,
 * STAGE_REAL_PREPARE, shipped through STAGE_GUEST_FILES). The first test
 * attaches it to a free loop device and mounts it on /mnt/udf; the next ones
 * (each test runs in a child process of its own) find it mounted. Every test
 * writes its file again: three pages, more than a block, so the data is in
 * blocks of its own and not inline in the file's ICB.
 *
 * Environment: none.
 */
#include "lab_harness.h"

#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#define UDF_IMAGE		"/data/udf.img"
#define UDF_MNT			"/mnt/udf"
#define UDF_FILE		UDF_MNT "/data"
#define FILE_PAGES		3
#define FILE_SEED		0x0df1u
#define WRITE_SEED		0x0df2u

/* FNV-1a over a buffer: a short, stable summary of the file's contents. */
static uint32_t fnv1a(const unsigned char *p, size_t len)
{
	uint32_t h = 0x811c9dc5u;

	while (len--) {
		h ^= *p++;
		h *= 0x01000193u;
	}
	return h;
}

/*
 * Attach the image to a free loop device and mount it on UDF_MNT, unless an
 * earlier test did. 0 or a negative errno; *what says which step failed.
 */
static int udf_mount(const char **what)
{
	char type[64], dev[32];
	int ctl, img, loop, nr, r = 0;

	*what = "mkdir " UDF_MNT;
	if ((mkdir("/mnt", 0755) && errno != EEXIST) ||
	    (mkdir(UDF_MNT, 0755) && errno != EEXIST))
		return -errno;
	if (!lab_mount_type(UDF_MNT, type, sizeof(type)) &&
	    !strcmp(type, "udf"))
		return 0;

	*what = "open " UDF_IMAGE;
	img = open(UDF_IMAGE, O_RDWR);
	if (img < 0)
		return -errno;
	*what = "LOOP_CTL_GET_FREE on /dev/loop-control";
	ctl = open("/dev/loop-control", O_RDWR);
	nr = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (nr < 0) {
		r = -errno;
		goto out_img;
	}
	snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
	*what = "LOOP_SET_FD";
	loop = open(dev, O_RDWR);
	if (loop < 0 || ioctl(loop, LOOP_SET_FD, img)) {
		r = -errno;
		goto out_loop;
	}
	*what = "mount -t udf";
	if (mount(dev, UDF_MNT, "udf", 0, NULL))
		r = -errno;
	if (r)
		ioctl(loop, LOOP_CLR_FD, 0);
out_loop:
	if (loop >= 0)
		close(loop);
out_img:
	if (ctl >= 0)
		close(ctl);
	close(img);
	return r;
}

FIXTURE(udf_file)
{
	int fd;
	size_t len;
	unsigned char *shared;	/* the whole file, MAP_SHARED, read-write */
};

FIXTURE_SETUP(udf_file)
{
	static unsigned char data[FILE_PAGES * 65536];
	const char *what;
	int r;

	self->fd = -1;
	self->shared = MAP_FAILED;
	self->len = FILE_PAGES * lab_page_size();
	ASSERT_GE(sizeof(data), self->len);
	r = udf_mount(&what);
	ASSERT_EQ(0, r) {
		TH_LOG("mounting %s on %s: %s failed: %s (is CONFIG_UDF_FS set? "
		       "CONFIG_BLK_DEV_LOOP?)", UDF_IMAGE, UDF_MNT, what,
		       strerror(-r));
	}
	self->fd = open(UDF_FILE, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->fd) {
		TH_LOG("creating %s failed: %s", UDF_FILE, strerror(errno));
	}
	lab_pattern_fill(data, self->len, FILE_SEED, 0);
	ASSERT_EQ((ssize_t)self->len, write(self->fd, data, self->len)) {
		TH_LOG("writing %zu bytes to %s failed: %s", self->len,
		       UDF_FILE, strerror(errno));
	}
	ASSERT_EQ(0, fsync(self->fd));
	self->shared = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			    MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->shared) {
		TH_LOG("mmap(MAP_SHARED) of %s failed: %s", UDF_FILE,
		       strerror(errno));
	}
}

FIXTURE_TEARDOWN(udf_file)
{
	if (self->shared != MAP_FAILED)
		munmap(self->shared, self->len);
	if (self->fd >= 0)
		close(self->fd);
}

/* A shared mapping shows the file's data; it is a shared page-cache map. */
TEST_F(udf_file, shared_mapping_shows_file)
{
	static char flags[256];
	unsigned char *p;
	long bad;

	p = self->shared;
	bad = lab_pattern_check(p, self->len, FILE_SEED, 0, NULL, NULL);
	lab_observe("shared.data", "%s", bad < 0 ? "the file's" : "differs");
	ASSERT_EQ(-1, bad) {
		TH_LOG("the mapping differs from the file at byte %ld", bad);
	}
	ASSERT_EQ(0, lab_vmflags((unsigned long)p, flags, sizeof(flags)));
	lab_observe("shared.vmflags", "%s", flags);
	ASSERT_TRUE(lab_has_token(flags, "sh", 2)) {
		TH_LOG("VmFlags \"%s\" lack sh: the mapping must be shared",
		       flags);
	}
	ASSERT_FALSE(lab_has_token(flags, "pf", 2) ||
		     lab_has_token(flags, "io", 2)) {
		TH_LOG("VmFlags \"%s\": a file's page-cache mapping is no "
		       "PFN or I/O map", flags);
	}
}

/*
 * A write through a shared mapping (udf_page_mkwrite() makes its pages
 * writable), made durable by msync(), is what read() returns.
 */
TEST_F(udf_file, shared_write_reaches_file)
{
	static unsigned char got[FILE_PAGES * 65536];
	unsigned char *p;
	long bad;

	p = self->shared;
	lab_pattern_fill(p, self->len, WRITE_SEED, 0);
	ASSERT_EQ(0, msync(p, self->len, MS_SYNC)) {
		TH_LOG("msync(MS_SYNC) failed: %s", strerror(errno));
	}
	ASSERT_EQ((ssize_t)self->len, lab_pread_all(self->fd, got, self->len, 0));
	lab_observe("shared_write.file_fnv1a", "%#010x", fnv1a(got, self->len));
	bad = lab_pattern_check(got, self->len, WRITE_SEED, 0, NULL, NULL);
	ASSERT_EQ(-1, bad) {
		TH_LOG("pread() after msync() differs from what the mapping "
		       "wrote at byte %ld", bad);
	}
}

/* A write through a private mapping stays in its copy of the page. */
TEST_F(udf_file, private_write_stays_private)
{
	static unsigned char got[FILE_PAGES * 65536];
	size_t page = lab_page_size();
	unsigned char *p;
	long in_map, in_file;

	p = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 self->fd, 0);
	ASSERT_NE(MAP_FAILED, p) {
		TH_LOG("mmap(MAP_PRIVATE) of %s failed: %s", UDF_FILE,
		       strerror(errno));
	}
	lab_pattern_fill(p + page, page, WRITE_SEED, page);
	ASSERT_EQ((ssize_t)self->len, lab_pread_all(self->fd, got, self->len, 0));
	in_map = lab_pattern_check(p + page, page, WRITE_SEED, page, NULL, NULL);
	in_file = lab_pattern_check(got, self->len, FILE_SEED, 0, NULL, NULL);
	lab_observe("private_write.mapping", "%s", in_map < 0 ? "written" : "not written");
	lab_observe("private_write.file", "%s", in_file < 0 ? "unchanged" : "changed");
	ASSERT_EQ(-1, in_map);
	ASSERT_EQ(-1, in_file) {
		TH_LOG("a MAP_PRIVATE write reached the file (byte %ld)",
		       in_file);
	}
	munmap(p, self->len);
}

/* A shared writable mapping of a file opened read-only is refused. */
TEST_F(udf_file, readonly_fd_shared_write_refused)
{
	void *p;
	int fd;

	fd = open(UDF_FILE, O_RDONLY);
	ASSERT_LE(0, fd);
	p = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	lab_observe("readonly_fd.errno", "%s",
		    p == MAP_FAILED ? lab_errno_name(errno) : "none");
	ASSERT_EQ(MAP_FAILED, p) {
		TH_LOG("PROT_WRITE | MAP_SHARED on an O_RDONLY fd mapped at %p",
		       p);
	}
	ASSERT_EQ(EACCES, errno);
	close(fd);
}

/*
 * A page of the mapping wholly beyond the end of the file has nothing to
 * show: touching it raises SIGBUS (filemap_fault()). The test reads the
 * file's last page itself, then has a child touch the next one.
 */
TEST_F(udf_file, beyond_eof_sigbus)
{
	size_t page = lab_page_size(), len = self->len + page;
	volatile unsigned char *p;
	int status;
	pid_t pid;

	p = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p) {
		TH_LOG("mmap() of %zu bytes of %s failed: %s", len, UDF_FILE,
		       strerror(errno));
	}
	/* The file's last page is there (a broken mapping fails here). */
	ASSERT_EQ(-1, lab_pattern_check(p + self->len - page, page, FILE_SEED,
					self->len - page, NULL, NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		(void)p[self->len];
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (WIFSIGNALED(status))
		lab_observe("beyond_eof.child", "signal SIG%s",
			    sigabbrev_np(WTERMSIG(status)) ?: "?");
	else
		lab_observe("beyond_eof.child", "exit %d", WEXITSTATUS(status));
	ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) {
		TH_LOG("touching the page past the end of the file: the child "
		       "did not die of SIGBUS (status %#x)", status);
	}
	munmap((void *)p, len);
}

TEST_HARNESS_MAIN
