// SPDX-License-Identifier: GPL-2.0
/*
 * check_edu - BAR 0 of QEMU's edu device, mapped by mmap_lab3, behaves like
 * the device's registers (QEMU docs/specs/edu.txt), not like memory.
 *
 * Environment: MMAP_LAB_DEVICE, MMAP_LAB_BUF_SIZE (0 for this stage) and
 * MMAP_LAB_MAP_SIZE (the BAR length, 1 MiB): the whole BAR is mapped.
 *
 * edu only answers 32-bit accesses below 0x80, so every access is a volatile
 * uint32_t load or store.
 *
 * The I/O mapping's memory type: while the BAR is mapped, x86 PAT lists an
 * uncached-minus reservation for it in /sys/kernel/debug/x86/pat_memtype_list,
 * and after munmap() the list is back to what it was. That reservation is
 * also where a mapping at a file offset shows which part of the BAR it
 * reaches.
 *
 * Splitting the mapping (a partial munmap(), an mremap() that shrinks it)
 * depends on the kernel, as MMAP_LAB_SPLIT says: "refused" on 6.12 (stage 3),
 * whose x86 PAT code would leak the reservation of a split I/O mapping, so
 * the driver refuses the split; "allowed" on mainline (stage 6), which keeps
 * the reservation in a reference-counted pfnmap_track_ctx shared by the
 * pieces and drops it with the last one.
 */
#include "lab_harness.h"

#include <dirent.h>
#include <time.h>

#define EDU_ID		0x00	/* 0xRRrr00ed: major RR, minor rr */
#define EDU_LIVENESS	0x04	/* reads back ~value written */
#define EDU_FACTORIAL	0x08	/* write n, read n! when not busy */
#define EDU_STATUS	0x20	/* bit 0: computing; bit 7: IRQ when done */
#define EDU_STATUS_COMPUTING	0x01

#define EDU_POLL_TIMEOUT_MS	2000

FIXTURE(edu)
{
	const char *dev;
	unsigned long size;
	int fd;
	struct lab_mappings maps;
};

FIXTURE_SETUP(edu)
{
	self->fd = -1;
	LAB_ENV_REQUIRED(self->dev, "MMAP_LAB_DEVICE");
	LAB_MAP_SIZE(self->size);
	ASSERT_LE(0x100UL, self->size) {
		TH_LOG("a %#lx-byte region cannot hold edu's registers",
		       self->size);
	}
	LAB_OPEN(self->fd, self->dev);
}

FIXTURE_TEARDOWN(edu)
{
	lab_unmap_all(&self->maps);
	if (self->fd >= 0)
		close(self->fd);
}

static inline uint32_t edu_read(volatile void *bar, unsigned long reg)
{
	return *(volatile uint32_t *)((volatile char *)bar + reg);
}

static inline void edu_write(volatile void *bar, unsigned long reg, uint32_t v)
{
	*(volatile uint32_t *)((volatile char *)bar + reg) = v;
}

static inline long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Poll the status register until bit 0 is clear, at most the timeout. */
static bool edu_wait_idle(volatile void *bar, uint32_t *status)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((*status = edu_read(bar, EDU_STATUS)) & EDU_STATUS_COMPUTING) {
		if (elapsed_ms(&t0) >= EDU_POLL_TIMEOUT_MS)
			return false;
		usleep(1000);
	}
	return true;
}

/* Register 0x00 identifies the device: 0x010000ed (version 1.0). */
TEST_F(edu, identification_register)
{
	void *bar;
	uint32_t id;

	LAB_MMAP(bar, &self->maps, self->size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, self->fd, 0);
	id = edu_read(bar, EDU_ID);
	ASSERT_EQ(0xedU, id & 0xff) {
		TH_LOG("register 0x00 reads 0x%08x: no 0xed in the low byte, "
		       "this is not edu's BAR 0 (0xffffffff: nothing decodes "
		       "the access)", id);
	}
	EXPECT_EQ(1U, id >> 24) {
		TH_LOG("edu major version %u, expected 1", id >> 24);
	}
	EXPECT_EQ(0U, (id >> 16) & 0xff) {
		TH_LOG("edu minor version %u, expected 0", (id >> 16) & 0xff);
	}
	EXPECT_EQ(0x010000edU, id);
}

/* Register 0x04 reads back the bitwise inverse of what was written. */
TEST_F(edu, liveness_register_inverts)
{
	static const uint32_t vals[] = { 0x12345678, 0x00000000, 0xa5a5a5a5 };
	void *bar;
	size_t i;

	LAB_MMAP(bar, &self->maps, self->size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, self->fd, 0);
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		uint32_t got;

		edu_write(bar, EDU_LIVENESS, vals[i]);
		got = edu_read(bar, EDU_LIVENESS);
		ASSERT_EQ(~vals[i], got) {
			TH_LOG("wrote 0x%08x to 0x04, read back 0x%08x; the "
			       "device inverts it (0x%08x). Same value back "
			       "means the mapping is RAM, not the BAR",
			       vals[i], got, ~vals[i]);
		}
	}
}

/* A store through one mapping reaches the device seen by another. */
TEST_F(edu, two_mappings_same_device)
{
	uint32_t v = 0x0badf00d ^ (uint32_t)getpid(), got;
	void *a, *b;

	LAB_MMAP(a, &self->maps, self->size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, self->fd, 0);
	LAB_MMAP(b, &self->maps, self->size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, self->fd, 0);
	ASSERT_NE(a, b);

	edu_write(a, EDU_LIVENESS, v);
	got = edu_read(b, EDU_LIVENESS);
	ASSERT_EQ(~v, got) {
		TH_LOG("wrote 0x%08x through %p, read 0x%08x through %p, "
		       "expected 0x%08x", v, a, got, b, ~v);
	}
	edu_write(b, EDU_LIVENESS, ~v);
	got = edu_read(a, EDU_LIVENESS);
	ASSERT_EQ(v, got) {
		TH_LOG("wrote 0x%08x through %p, read 0x%08x through %p, "
		       "expected 0x%08x", ~v, b, got, a, v);
	}
}

/*
 * The factorial unit: write 5 to 0x08, poll status bit 0 until the device
 * is done (bounded), read 120. Uncached MMIO is required: a cached or
 * write-combined view could return a stale 5.
 */
TEST_F(edu, factorial_of_5)
{
	uint32_t status = 0, got;
	void *bar;

	LAB_MMAP(bar, &self->maps, self->size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, self->fd, 0);

	/* No interrupt on completion: the driver does not handle it. */
	edu_write(bar, EDU_STATUS, 0);
	/* The device ignores a new n while it is busy (an earlier run). */
	ASSERT_TRUE(edu_wait_idle(bar, &status)) {
		TH_LOG("busy before the test: status %#x after %d ms", status,
		       EDU_POLL_TIMEOUT_MS);
	}
	edu_write(bar, EDU_FACTORIAL, 5);
	ASSERT_TRUE(edu_wait_idle(bar, &status)) {
		TH_LOG("status register still %#x %d ms after writing 5",
		       status, EDU_POLL_TIMEOUT_MS);
	}
	got = edu_read(bar, EDU_FACTORIAL);
	ASSERT_EQ(120U, got) {
		TH_LOG("factorial register reads %u (%#x) after writing 5 and "
		       "status %#x", got, got, status);
	}
}

#define PAT_LIST "/sys/kernel/debug/x86/pat_memtype_list"
#define PAT_LIST_MAX (64 * 1024)

/*
 * The PAT memtype list into before (the test skips without it), then the
 * whole BAR mapped at bar.
 */
#define EDU_PAT_THEN_MAP_BAR(before, bar) do {					\
	if (lab_read_file(PAT_LIST, before, sizeof(before)) < 0)		\
		SKIP(return, "no %s (CONFIG_X86_PAT and debugfs needed)",	\
		     PAT_LIST);							\
	bar = mmap(NULL, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,	\
		   self->fd, 0);						\
	ASSERT_NE(MAP_FAILED, bar);						\
} while (0)

/* The PAT memtype list, read into after, is byte for byte before. */
#define EDU_ASSERT_PAT_AS_BEFORE(before, after, what) do {			\
	ASSERT_LE(0, lab_read_file(PAT_LIST, after, sizeof(after)));		\
	ASSERT_STREQ(before, after) {						\
		TH_LOG("the memtype reservation outlived %s", what);		\
	}									\
} while (0)

/* The first memtype entry of b that is not in a, copied to line, or false. */
static bool first_new_line(const char *a, const char *b, char *line,
			   size_t size)
{
	const char *p, *nl;
	size_t len;

	for (p = b; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		snprintf(line, size, "%.*s", (int)len, p);
		if (strstr(line, "[mem ") && !strstr(a, line))
			return true;
		if (!nl)
			break;
	}
	return false;
}

/*
 * The edu device's folder in sysfs (/sys/bus/pci/devices/BDF, vendor 0x1234,
 * device 0x11e8) into dir; false when there is none.
 */
static bool edu_sysfs_dir(char *dir, size_t size)
{
	char path[300], buf[32];
	struct dirent *d;
	bool found = false;
	DIR *pci;

	pci = opendir("/sys/bus/pci/devices");
	if (!pci)
		return false;
	while (!found && (d = readdir(pci))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 d->d_name);
		if (lab_read_file(path, buf, sizeof(buf)) < 0 ||
		    strncmp(buf, "0x1234", 6))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 d->d_name);
		if (lab_read_file(path, buf, sizeof(buf)) < 0 ||
		    strncmp(buf, "0x11e8", 6))
			continue;
		snprintf(dir, size, "/sys/bus/pci/devices/%s", d->d_name);
		found = true;
	}
	closedir(pci);
	return found;
}

/*
 * A mapping at a file offset reaches the BAR at that offset: its memtype
 * reservation (the physical range the kernel mapped) starts at BAR 0's start
 * plus the offset. A driver that drops desc->pgoff maps the start of the BAR
 * for any offset; one that adds it where the helper adds it too
 * (mmap_action_simple_ioremap() does) maps twice the offset in, past what the
 * file offset names, and past the BAR for offsets in its second half. Both
 * read the same bytes from a register-less page, so the reservation is the
 * witness.
 */
TEST_F(edu, offset_mapping_reaches_bar_at_offset)
{
	static char before[PAT_LIST_MAX], during[PAT_LIST_MAX];
	const unsigned long page = lab_page_size();
	const unsigned long offset = 2 * page;
	unsigned long bar_start = 0, got_start = 0, got_end = 0;
	char path[320], buf[4096], line[256];
	const char *range, *why = "a wrong start";
	void *map;

	ASSERT_LE(offset + page, self->size);
	ASSERT_TRUE(edu_sysfs_dir(path, sizeof(path))) {
		TH_LOG("no edu device (1234:11e8) in /sys/bus/pci/devices");
	}
	strncat(path, "/resource", sizeof(path) - strlen(path) - 1);
	ASSERT_LE(0, lab_read_file(path, buf, sizeof(buf)));
	bar_start = strtoul(buf, NULL, 16);
	ASSERT_NE(0UL, bar_start) {
		TH_LOG("no start address in %s: %.60s", path, buf);
	}
	if (lab_read_file(PAT_LIST, before, sizeof(before)) < 0)
		SKIP(return, "no %s (CONFIG_X86_PAT and debugfs needed)",
		     PAT_LIST);
	map = mmap(NULL, page, PROT_READ, MAP_SHARED, self->fd, offset);
	ASSERT_NE(MAP_FAILED, map) {
		TH_LOG("mmap() of one page at offset %#lx of the BAR: %s",
		       offset, strerror(errno));
	}
	ASSERT_LE(0, lab_read_file(PAT_LIST, during, sizeof(during)));
	ASSERT_EQ(0, munmap(map, page));
	ASSERT_TRUE(first_new_line(before, during, line, sizeof(line))) {
		TH_LOG("mapping one page of the BAR added no memtype reservation");
	}
	range = strstr(line, "[mem ");
	ASSERT_TRUE(range && sscanf(range, "[mem %lx-%lx]", &got_start,
				    &got_end) == 2) {
		TH_LOG("cannot read the range of: %s", line);
	}
	if (got_start == bar_start)
		why = "the offset is dropped (add desc->pgoff where the helper "
		      "does not)";
	else if (got_start == bar_start + 2 * offset)
		why = "the offset is applied twice (the helper adds desc->pgoff "
		      "itself)";
	ASSERT_EQ(bar_start + offset, got_start) {
		TH_LOG("the mapping at offset %#lx reaches physical %#lx, not "
		       "BAR 0 + %#lx = %#lx: %s", offset, got_start, offset,
		       bar_start + offset, why);
	}
	ASSERT_EQ(got_start + page, got_end);
}

/*
 * Mapping the BAR adds one uncached-minus memtype reservation; unmapping it
 * removes exactly that: the list is byte for byte what it was.
 */
TEST_F(edu, memtype_uncached_while_mapped_released_after)
{
	static char before[PAT_LIST_MAX], during[PAT_LIST_MAX], after[PAT_LIST_MAX];
	char line[256];
	void *bar;

	EDU_PAT_THEN_MAP_BAR(before, bar);
	ASSERT_LE(0, lab_read_file(PAT_LIST, during, sizeof(during)));
	ASSERT_EQ(0, munmap(bar, self->size));
	ASSERT_LE(0, lab_read_file(PAT_LIST, after, sizeof(after)));

	ASSERT_TRUE(first_new_line(before, during, line, sizeof(line))) {
		TH_LOG("mapping the BAR added no memtype reservation");
	}
	ASSERT_NE(NULL, strstr(line, "uncached-minus")) {
		TH_LOG("the BAR is mapped with the wrong memory type: %s", line);
	}
	ASSERT_STREQ(before, after) {
		TH_LOG("the memtype reservation outlived munmap()");
	}
}

/*
 * MMAP_LAB_SPLIT: "refused" or "allowed". A test of the other rule skips,
 * saying which rule this stage has.
 */
#define EDU_SPLIT_RULE(rule) do {						\
	const char *__split;							\
										\
	LAB_ENV_REQUIRED(__split, "MMAP_LAB_SPLIT");				\
	ASSERT_TRUE(!strcmp(__split, "refused") ||				\
		    !strcmp(__split, "allowed")) {				\
		TH_LOG("MMAP_LAB_SPLIT=%s: refused or allowed", __split);	\
	}									\
	if (strcmp(__split, rule))						\
		SKIP(return, "this stage's driver has splits %s, not %s "	\
		     "(MMAP_LAB_SPLIT)", __split, rule);				\
} while (0)

/* Where the mapping that starts at addr ends, and its file offset. */
static int mapping_at(unsigned long addr, unsigned long *end,
		      unsigned long *offset)
{
	char line[256];

	if (lab_maps_read(LAB_MAPS_SCRATCH) <= 0 ||
	    lab_maps_find(LAB_MAPS_SCRATCH, addr, end, line, sizeof(line)))
		return -1;
	/* start-end perms offset dev inode path */
	return sscanf(line, "%*x-%*x %*s %lx", offset) == 1 ? 0 : -1;
}

/*
 * Mainline: a partial munmap() splits the mapping. The piece that keeps
 * offset 0 still reaches the registers; the piece after the hole keeps its
 * own offset into the BAR and reads what a fresh mapping of that offset
 * reads. The memtype reservation covers the whole BAR until the last piece
 * is unmapped, then the list is byte for byte what it was.
 */
TEST_F(edu, partial_unmap_splits_pieces_keep_reservation)
{
	static char before[PAT_LIST_MAX], between[PAT_LIST_MAX], after[PAT_LIST_MAX];
	const unsigned long page = lab_page_size();
	unsigned long end = 0, offset = ~0UL;
	uint32_t tail_word, fresh_word;
	char *bar, *fresh;

	EDU_SPLIT_RULE("allowed");
	ASSERT_LE(3 * page, self->size);
	EDU_PAT_THEN_MAP_BAR(before, bar);
	ASSERT_EQ(0, munmap(bar + page, page)) {
		TH_LOG("munmap() of one page inside the BAR mapping failed: %s "
		       "(mainline needs no may_split refusal)", strerror(errno));
	}
	ASSERT_EQ(0, mapping_at((unsigned long)bar, &end, &offset));
	ASSERT_EQ((unsigned long)bar + page, end);
	ASSERT_EQ(0UL, offset);
	ASSERT_EQ(0, mapping_at((unsigned long)bar + 2 * page, &end, &offset)) {
		TH_LOG("no mapping after the hole at %p", bar + page);
	}
	ASSERT_EQ((unsigned long)bar + self->size, end);
	ASSERT_EQ(2 * page, offset);

	/* The registers, through the first piece. */
	ASSERT_EQ(0x010000edU, edu_read(bar, EDU_ID));
	edu_write(bar, EDU_LIVENESS, 0x5a5a0f0f);
	ASSERT_EQ(~0x5a5a0f0fU, edu_read(bar, EDU_LIVENESS));
	/* The second piece is still the BAR at its own offset. */
	fresh = mmap(NULL, page, PROT_READ, MAP_SHARED, self->fd, 2 * page);
	ASSERT_NE(MAP_FAILED, fresh);
	tail_word = edu_read(bar + 2 * page, 0);
	fresh_word = edu_read(fresh, 0);
	ASSERT_EQ(0, munmap(fresh, page));
	ASSERT_EQ(fresh_word, tail_word);

	ASSERT_EQ(0, munmap(bar, page));
	ASSERT_LE(0, lab_read_file(PAT_LIST, between, sizeof(between)));
	ASSERT_STRNE(before, between) {
		TH_LOG("the reservation went with the first piece, while the "
		       "second still maps the BAR");
	}
	ASSERT_EQ(0, munmap(bar + 2 * page, self->size - 2 * page));
	EDU_ASSERT_PAT_AS_BEFORE(before, after, "the last piece");
}

/*
 * Mainline: mremap() shrinks the mapping to its first page, in place; the
 * registers answer there, and unmapping it releases the reservation.
 */
TEST_F(edu, mremap_shrink_keeps_registers_releases_after)
{
	static char before[PAT_LIST_MAX], after[PAT_LIST_MAX];
	const unsigned long page = lab_page_size();
	unsigned long end = 0, offset = ~0UL;
	char *bar, *shrunk;

	EDU_SPLIT_RULE("allowed");
	EDU_PAT_THEN_MAP_BAR(before, bar);
	shrunk = mremap(bar, self->size, page, 0);
	ASSERT_EQ(bar, shrunk) {
		TH_LOG("mremap() to one page failed: %s", strerror(errno));
		munmap(bar, self->size);
	}
	ASSERT_EQ(0, mapping_at((unsigned long)bar, &end, &offset));
	ASSERT_EQ((unsigned long)bar + page, end);
	ASSERT_EQ(0x010000edU, edu_read(bar, EDU_ID));
	edu_write(bar, EDU_LIVENESS, 0x0f0f5a5a);
	ASSERT_EQ(~0x0f0f5a5aU, edu_read(bar, EDU_LIVENESS));
	ASSERT_EQ(0, munmap(bar, page));
	EDU_ASSERT_PAT_AS_BEFORE(before, after, "the shrunk mapping");
}

/*
 * 6.12: a partial munmap() would split the VMA: the driver refuses the split,
 * the mapping stays whole and usable, and unmapping it as a whole releases
 * its memtype reservation.
 */
TEST_F(edu, partial_unmap_refused_whole_unmap_releases)
{
	static char before[PAT_LIST_MAX], after[PAT_LIST_MAX];
	const unsigned long page = lab_page_size();
	unsigned long end = 0;
	char *bar;

	EDU_SPLIT_RULE("refused");
	EDU_PAT_THEN_MAP_BAR(before, bar);
	ASSERT_EQ(-1, munmap(bar + page, page)) {
		TH_LOG("munmap() of one page inside the BAR mapping succeeded");
	}
	ASSERT_EQ(EINVAL, errno);
	LAB_MAPS_SNAPSHOT(LAB_MAPS_SCRATCH);
	ASSERT_EQ(0, lab_maps_find(LAB_MAPS_SCRATCH, (unsigned long)bar, &end,
				   NULL, 0));
	ASSERT_EQ((unsigned long)bar + self->size, end);
	ASSERT_EQ(0x010000edU & 0xff, edu_read(bar, EDU_ID) & 0xff);
	ASSERT_EQ(0, munmap(bar, self->size));
	EDU_ASSERT_PAT_AS_BEFORE(before, after, "munmap() of the whole mapping");
}

/*
 * 6.12: mremap() that shrinks the mapping would split it too: refused, the
 * mapping stays whole, and unmapping it releases its reservation.
 */
TEST_F(edu, mremap_shrink_refused_mapping_stays_whole)
{
	static char before[PAT_LIST_MAX], after[PAT_LIST_MAX];
	const unsigned long page = lab_page_size();
	unsigned long end = 0, offset = ~0UL;
	char *bar;

	EDU_SPLIT_RULE("refused");
	EDU_PAT_THEN_MAP_BAR(before, bar);
	ASSERT_EQ(MAP_FAILED, mremap(bar, self->size, page, 0)) {
		TH_LOG("mremap() shrank the BAR mapping to one page");
	}
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, mapping_at((unsigned long)bar, &end, &offset));
	ASSERT_EQ((unsigned long)bar + self->size, end);
	ASSERT_EQ(0x010000edU, edu_read(bar, EDU_ID));
	ASSERT_EQ(0, munmap(bar, self->size));
	EDU_ASSERT_PAT_AS_BEFORE(before, after, "munmap() of the whole mapping");
}

/*
 * probe() claimed BAR 0 (pcim_request_region()): /proc/iomem names the
 * driver next to the BAR's range, so no other driver can claim it.
 */
TEST_F(edu, bar_claimed_in_iomem)
{
	static char iomem[64 * 1024];
	const char *module;

	LAB_ENV_REQUIRED(module, "MMAP_LAB_MODULE");
	ASSERT_LE(0, lab_read_file("/proc/iomem", iomem, sizeof(iomem)));
	ASSERT_NE(NULL, strstr(iomem, module)) {
		TH_LOG("no range of /proc/iomem is claimed by %s", module);
	}
}

/*
 * probe() enabled the device (pcim_enable_device()): its sysfs "enable"
 * attribute counts the drivers that enabled it. The firmware has already
 * turned on memory decoding in QEMU, so the registers answer either way;
 * this is where a missing enable shows.
 */
TEST_F(edu, device_enabled_by_driver)
{
	char path[300];
	long enabled = -1;

	ASSERT_TRUE(edu_sysfs_dir(path, sizeof(path))) {
		TH_LOG("no edu device (1234:11e8) in /sys/bus/pci/devices");
	}
	strncat(path, "/enable", sizeof(path) - strlen(path) - 1);
	ASSERT_EQ(0, lab_read_long(path, &enabled));
	ASSERT_LT(0, enabled) {
		TH_LOG("the edu device is not enabled by a driver (enable = %ld)",
		       enabled);
	}
}

TEST_HARNESS_MAIN
