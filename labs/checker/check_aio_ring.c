// SPDX-License-Identifier: GPL-2.0
/*
 * check_aio_ring - the AIO ring of fs/aio.c, a real in-tree .mmap user, seen
 * from user space before and after its conversion.
 *
 * The completion ring of Linux AIO (fs/aio.c): io_setup() maps the ring through
 * the ring file's mmap hook (aio_ring_mmap() in 6.12), which sets
 * VM_DONTEXPAND and the ring's vm_ops (their .mremap keeps the context's
 * address in step when the ring moves).
 *
 * make check boots this program twice on the 6.12 kit kernel: once with
 * fs/aio.c as Debian ships it, once with fs/aio.c as the conversion aid
 * (scripts/coccinelle/mmap_prepare.cocci) rewrote it. Each test asserts the
 * behaviour it knows, and prints what it saw as "# observed: KEY=VALUE"
 * lines; scripts/coccinelle/cocci-boot.sh compares those lines between the two
 * guests, so the converted driver must behave exactly as the original.
 *
 * Environment: none.
 */
#include "lab_harness.h"

#include <linux/aio_abi.h>
#include <sys/syscall.h>

/* The ring's header (fs/aio.c's struct aio_ring, ABI that libaio reads). */
struct aio_ring_header {
	unsigned int id;
	unsigned int nr;
	unsigned int head;
	unsigned int tail;
	unsigned int magic;
	unsigned int compat_features;
	unsigned int incompat_features;
	unsigned int header_length;
	struct io_event io_events[];
};

#define AIO_RING_MAGIC		0xa10a10a1
#define RING_EVENTS		128
#define READ_LEN		4096
#define READ_SEED		0xa10u

static long sys_io_setup(unsigned int nr, aio_context_t *ctx)
{
	return syscall(__NR_io_setup, nr, ctx);
}

static long sys_io_destroy(aio_context_t ctx)
{
	return syscall(__NR_io_destroy, ctx);
}

static long sys_io_submit(aio_context_t ctx, long n, struct iocb **iocbs)
{
	return syscall(__NR_io_submit, ctx, n, iocbs);
}

static long sys_io_getevents(aio_context_t ctx, long min, long max,
			     struct io_event *ev, struct timespec *ts)
{
	return syscall(__NR_io_getevents, ctx, min, max, ev, ts);
}

FIXTURE(aio_ring)
{
	aio_context_t ctx;
	unsigned long start, end;
	volatile struct aio_ring_header *ring;
};

FIXTURE_SETUP(aio_ring)
{
	const char *maps = LAB_MAPS_SCRATCH;
	int r;

	self->ctx = 0;
	ASSERT_EQ(0, sys_io_setup(RING_EVENTS, &self->ctx)) {
		TH_LOG("io_setup(%d) failed: %s (is CONFIG_AIO set?)",
		       RING_EVENTS, strerror(errno));
	}
	/* The context ID is the address of the ring's mapping. */
	self->start = self->ctx;
	self->ring = (volatile struct aio_ring_header *)self->ctx;
	LAB_MAPS_SNAPSHOT(LAB_MAPS_SCRATCH);
	r = lab_maps_find(maps, self->start, &self->end, NULL, 0);
	ASSERT_EQ(0, r) {
		TH_LOG("no VMA starts at the context ID %#lx", self->start);
	}
}

FIXTURE_TEARDOWN(aio_ring)
{
	if (self->ctx)
		sys_io_destroy(self->ctx);
}

/* The ring is a shared mapping of the [aio] file, with VM_DONTEXPAND. */
TEST_F(aio_ring, mapping_flags)
{
	static char line[512], flags[256];
	const char *maps = LAB_MAPS_SCRATCH;
	unsigned long end;

	ASSERT_EQ(0, lab_maps_find(maps, self->start, &end, line, sizeof(line)));
	ASSERT_NE(NULL, strstr(line, "[aio]")) {
		TH_LOG("the ring's VMA is not the [aio] file: %s", line);
	}
	ASSERT_EQ(0, lab_vmflags(self->start, flags, sizeof(flags)));
	lab_observe("ring.vmflags", "%s", flags);
	lab_observe("ring.pages", "%lu", (end - self->start) / lab_page_size());
	ASSERT_TRUE(lab_has_token(flags, "de", 2)) {
		TH_LOG("VmFlags \"%s\" lack de (VM_DONTEXPAND)", flags);
	}
	ASSERT_TRUE(lab_has_token(flags, "sh", 2)) {
		TH_LOG("VmFlags \"%s\" lack sh: the ring must be shared", flags);
	}
}

/* The kernel wrote the ring's header into the pages user space sees. */
TEST_F(aio_ring, header_through_mapping)
{
	lab_observe("header.magic", "%#x", self->ring->magic);
	lab_observe("header.nr", "%u", self->ring->nr);
	lab_observe("header.head_tail", "%u/%u", self->ring->head, self->ring->tail);
	lab_observe("header.length", "%u", self->ring->header_length);
	ASSERT_EQ(AIO_RING_MAGIC, self->ring->magic);
	ASSERT_LE((unsigned int)RING_EVENTS, self->ring->nr);
	ASSERT_EQ(0U, self->ring->head);
	ASSERT_EQ(0U, self->ring->tail);
	ASSERT_EQ(sizeof(struct aio_ring_header), self->ring->header_length);
}

/*
 * A completed read shows up in the ring (kernel to user through the
 * mapping), and the head user space writes there is what io_getevents()
 * starts from (user to kernel).
 */
TEST_F(aio_ring, completion_through_mapping)
{
	static unsigned char data[READ_LEN], got[READ_LEN];
	volatile struct io_event *ev;
	struct iocb cb = { 0 }, *cbs[1] = { &cb };
	struct timespec zero = { 0, 0 };
	struct io_event left[1];
	unsigned int tail;
	long bad;
	int fd, i;

	fd = open("/tmp/aio-ring-data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd) {
		TH_LOG("creating /tmp/aio-ring-data failed: %s", strerror(errno));
	}
	lab_pattern_fill(data, sizeof(data), READ_SEED, 0);
	ASSERT_EQ(READ_LEN, lab_pwrite_all(fd, data, sizeof(data), 0));

	cb.aio_data = 0x5eed;
	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_fildes = fd;
	cb.aio_buf = (unsigned long)got;
	cb.aio_nbytes = READ_LEN;
	ASSERT_EQ(1, sys_io_submit(self->ctx, 1, cbs)) {
		TH_LOG("io_submit() failed: %s", strerror(errno));
	}
	/* A buffered read of tmpfs completes at once; allow a few seconds. */
	for (i = 0; i < 5000 && self->ring->tail == self->ring->head; i++)
		usleep(1000);
	tail = self->ring->tail;
	lab_observe("completion.head_tail", "%u/%u", self->ring->head, tail);
	ASSERT_EQ(1U, tail) {
		TH_LOG("the ring's tail did not move to 1 (it is %u)", tail);
	}
	ev = &self->ring->io_events[0];
	lab_observe("completion.event", "data=%#llx res=%lld",
		    (unsigned long long)ev->data, (long long)ev->res);
	ASSERT_EQ(0x5eedULL, ev->data);
	ASSERT_EQ(READ_LEN, ev->res);
	bad = lab_pattern_check(got, sizeof(got), READ_SEED, 0, NULL, NULL);
	ASSERT_EQ(-1, bad) {
		TH_LOG("the data read differs at byte %ld", bad);
	}
	/* Reap the event as libaio does: store the new head in the ring. */
	self->ring->head = tail;
	ASSERT_EQ(0, sys_io_getevents(self->ctx, 0, 1, left, &zero)) {
		TH_LOG("io_getevents() found an event the ring's head had consumed");
	}
	close(fd);
}

/* VM_DONTEXPAND: the ring cannot grow in place or by moving. */
TEST_F(aio_ring, grow_refused)
{
	size_t len = self->end - self->start;
	void *p;

	p = mremap((void *)self->start, len, len + lab_page_size(),
		   MREMAP_MAYMOVE);
	lab_observe("grow.errno", "%s", p == MAP_FAILED ? lab_errno_name(errno) : "none");
	ASSERT_EQ(MAP_FAILED, p) {
		TH_LOG("mremap() grew the ring to %p", p);
	}
	ASSERT_EQ(EFAULT, errno);
}

/*
 * The ring's vm_ops->mremap moves the context with the mapping: after the
 * move the old ID is gone and the new address is the context.
 */
TEST_F(aio_ring, move_follows)
{
	size_t len = self->end - self->start;
	long old_rc, new_rc;
	int old_errno;
	void *dst, *p;

	dst = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);
	p = mremap((void *)self->start, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   dst);
	ASSERT_EQ(dst, p) {
		TH_LOG("mremap() of the ring failed: %s", strerror(errno));
	}
	old_rc = sys_io_destroy(self->ctx);
	old_errno = errno;
	new_rc = sys_io_destroy((aio_context_t)(unsigned long)dst);
	lab_observe("move.destroy_old", "%s", old_rc ? lab_errno_name(old_errno) : "0");
	lab_observe("move.destroy_new", "%s", new_rc ? lab_errno_name(errno) : "0");
	ASSERT_EQ(-1, old_rc);
	ASSERT_EQ(EINVAL, old_errno);
	ASSERT_EQ(0, new_rc) {
		TH_LOG("io_destroy() at the ring's new address failed: %s "
		       "(the ring's vm_ops->mremap did not run?)",
		       strerror(errno));
	}
	self->ctx = 0;
}

TEST_HARNESS_MAIN
