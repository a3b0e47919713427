// SPDX-License-Identifier: GPL-2.0
/*
 * check_data - the mapping and read()/write() show the same buffer, with
 * offsets, two mappings and fork().
 *
 * Environment: MMAP_LAB_DEVICE, MMAP_LAB_BUF_SIZE (0: no buffer, every test
 * skips).
 *
 * Each test uses a pattern seeded by its own pid, so a stale buffer left by
 * an earlier run can never make a broken path look right.
 */
#include "lab_harness.h"

FIXTURE(data)
{
	const char *dev;
	unsigned long size;
	int fd;
	uint32_t seed;
	uint8_t *buf;			/* size bytes, for pread()/pwrite() */
	struct lab_mappings maps;
};

FIXTURE_SETUP(data)
{
	self->fd = -1;
	LAB_ENV_ULONG(self->size, "MMAP_LAB_BUF_SIZE");
	if (!self->size)
		SKIP(return, "MMAP_LAB_BUF_SIZE=0: this stage has no buffer");
	ASSERT_EQ(0UL, self->size % lab_page_size()) {
		TH_LOG("MMAP_LAB_BUF_SIZE=%lu is not a multiple of the page size",
		       self->size);
	}
	LAB_ENV_REQUIRED(self->dev, "MMAP_LAB_DEVICE");
	LAB_OPEN(self->fd, self->dev);
	self->buf = malloc(self->size);
	ASSERT_NE(NULL, self->buf);
	self->seed = (uint32_t)getpid() * 2654435761u;
}

FIXTURE_TEARDOWN(data)
{
	lab_unmap_all(&self->maps);
	if (self->fd >= 0)
		close(self->fd);
	free(self->buf);
}

/* pwrite() the pattern over the whole buffer. */
#define WRITE_PATTERN_FD(seed) do {						\
	lab_pattern_fill(self->buf, self->size, (seed), 0);			\
	ASSERT_EQ((ssize_t)self->size,						\
		  lab_pwrite_all(self->fd, self->buf, self->size, 0)) {		\
		TH_LOG("pwrite() of %lu bytes at offset 0 to %s failed or was "	\
		       "short", self->size, self->dev);				\
	}									\
} while (0)

/* pread() the whole buffer into self->buf. */
#define READ_FD() do {								\
	memset(self->buf, 0, self->size);					\
	ASSERT_EQ((ssize_t)self->size,						\
		  lab_pread_all(self->fd, self->buf, self->size, 0)) {		\
		TH_LOG("pread() of %lu bytes at offset 0 from %s failed or "	\
		       "was short", self->size, self->dev);			\
	}									\
} while (0)

/* What pwrite() puts in the buffer, a read through the mapping sees. */
TEST_F(data, fd_write_seen_through_mapping)
{
	void *p;

	WRITE_PATTERN_FD(self->seed);
	LAB_MMAP(p, &self->maps, self->size, PROT_READ, MAP_SHARED, self->fd, 0);
	LAB_ASSERT_PATTERN(p, self->size, self->seed, 0,
			   "mapping after pwrite()");
}

/* What is stored through the mapping, pread() returns. */
TEST_F(data, mapping_write_seen_by_fd)
{
	void *p;

	WRITE_PATTERN_FD(~self->seed);
	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	lab_pattern_fill(p, self->size, self->seed, 0);
	READ_FD();
	LAB_ASSERT_PATTERN(self->buf, self->size, self->seed, 0,
			   "pread() after stores through the mapping");
}

/* Two mappings of the device are the same memory, in both directions. */
TEST_F(data, two_mappings_share_memory)
{
	void *a, *b;

	LAB_MMAP(a, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	LAB_MMAP(b, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	ASSERT_NE(a, b);

	lab_pattern_fill(a, self->size, self->seed, 0);
	LAB_ASSERT_PATTERN(b, self->size, self->seed, 0,
			   "second mapping after stores through the first");

	lab_pattern_fill(b, self->size, ~self->seed, 0);
	LAB_ASSERT_PATTERN(a, self->size, ~self->seed, 0,
			   "first mapping after stores through the second");
}

/*
 * A mapping at a page offset shows the buffer from that offset on: the
 * driver must honour vm_pgoff (a driver that ignores it shows offset 0).
 */
TEST_F(data, page_offset_mapping_sees_its_part)
{
	unsigned long page = lab_page_size(), offs[3], off;
	char what[96];
	void *p;
	int i;

	ASSERT_LE(2 * page, self->size) {
		TH_LOG("the buffer (%lu bytes) must have at least two pages",
		       self->size);
	}
	offs[0] = page;
	offs[1] = self->size / 2 / page * page;
	offs[2] = self->size - page;

	WRITE_PATTERN_FD(self->seed);
	for (i = 0; i < 3; i++) {
		off = offs[i];
		LAB_MMAP(p, &self->maps, self->size - off, PROT_READ, MAP_SHARED,
			 self->fd, off);
		snprintf(what, sizeof(what), "mapping at offset %#lx, length %#lx",
			 off, self->size - off);
		LAB_ASSERT_PATTERN(p, self->size - off, self->seed, off, what);
		ASSERT_EQ(0, lab_unmap(&self->maps, p));
	}
}

/* What the forked child reports through a shared anonymous page. */
struct child_report {
	int stage;		/* 1: wrong data seen by the child */
	unsigned long offset;
	uint32_t want, got;
};

/*
 * After fork() the child has the same shared mapping: it sees the parent's
 * data, and the parent sees what the child stores.
 */
TEST_F(data, fork_child_shares_mapping)
{
	struct child_report *rep;
	int status = 0;
	pid_t pid;
	void *p;

	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	LAB_MMAP(rep, &self->maps, lab_page_size(), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	lab_pattern_fill(p, self->size, self->seed, 0);

	pid = fork();
	ASSERT_LE(0, pid) {
		TH_LOG("fork() failed: %s", strerror(errno));
	}
	if (pid == 0) {
		long bad = lab_pattern_check(p, self->size, self->seed, 0,
					     &rep->want, &rep->got);

		if (bad >= 0) {
			rep->stage = 1;
			rep->offset = bad;
			_exit(1);
		}
		lab_pattern_fill(p, self->size, ~self->seed, 0);
		_exit(0);
	}

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) {
		TH_LOG("the child touching the inherited mapping was killed by "
		       "signal %d (%s)", WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
	}
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		if (rep->stage == 1)
			TH_LOG("the child saw 0x%08x at offset %#lx, the parent "
			       "had stored 0x%08x", rep->got, rep->offset,
			       rep->want);
	}
	LAB_ASSERT_PATTERN(p, self->size, ~self->seed, 0,
			   "parent's mapping after the child's stores");
}

TEST_HARNESS_MAIN
