// SPDX-License-Identifier: GPL-2.0
/*
 * check_hooks - the success hook runs once per successful mmap(), never for a
 * refused one, and munmap() does not touch its counter; where the driver counts
 * its live VMAs (MMAP_LAB_LIVE_COUNTER), the count follows a mapping, a fork(),
 * a split and the unmaps.
 *
 * Environment: MMAP_LAB_HOOK_COUNTER (path of the counter, an integer;
 * empty: the stage has no hook and every test skips; unset: failure),
 * MMAP_LAB_LIVE_COUNTER (optional: the driver's count of its live VMAs),
 * MMAP_LAB_DEVICE, MMAP_LAB_BUF_SIZE (or, when 0, MMAP_LAB_MAP_SIZE).
 */
#include "lab_harness.h"

#define N_MAPPINGS 8

FIXTURE(hooks)
{
	const char *dev;
	const char *counter;
	unsigned long size;
	int fd;
	struct lab_mappings maps;
};

FIXTURE_SETUP(hooks)
{
	long v;
	int r;

	self->fd = -1;
	LAB_ENV_REQUIRED(self->counter, "MMAP_LAB_HOOK_COUNTER");
	if (!*self->counter)
		SKIP(return, "MMAP_LAB_HOOK_COUNTER is empty: this stage has no "
		     "success hook");
	LAB_ENV_REQUIRED(self->dev, "MMAP_LAB_DEVICE");
	LAB_MAP_SIZE(self->size);
	r = lab_read_long(self->counter, &v);
	ASSERT_EQ(0, r) {
		TH_LOG("cannot read an integer from %s: %s", self->counter,
		       strerror(-r));
	}
	LAB_OPEN(self->fd, self->dev);
}

FIXTURE_TEARDOWN(hooks)
{
	lab_unmap_all(&self->maps);
	if (self->fd >= 0)
		close(self->fd);
}

#define READ_COUNTER(v) do {							\
	int __r = lab_read_long(self->counter, &(v));				\
	ASSERT_EQ(0, __r) {							\
		TH_LOG("reading %s failed: %s", self->counter,			\
		       strerror(-__r));						\
	}									\
} while (0)

/*
 * The driver's count of live VMAs follows them: +1 for a mapping, +1 for the
 * copy fork() makes and -1 when the child exits, +1 when a partial munmap()
 * splits the mapping in two, and back where it was once all is unmapped.
 */
TEST_F(hooks, live_count_follows_vmas)
{
	const char *live = getenv("MMAP_LAB_LIVE_COUNTER");
	unsigned long page = lab_page_size();
	long base, v;
	int go[2], status;
	char *p;
	pid_t pid;

	if (!live || !*live)
		SKIP(return, "MMAP_LAB_LIVE_COUNTER is unset: this stage's driver "
		     "does not count its live mappings");
	ASSERT_LE(3 * page, self->size);
	ASSERT_EQ(0, lab_read_long(live, &base));
	p = lab_sys_mmap(NULL, 3 * page, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p) {
		TH_LOG("mmap() of 3 pages failed: %s", strerror(errno));
	}
	ASSERT_EQ(0, lab_read_long(live, &v));
	ASSERT_EQ(base + 1, v) {
		TH_LOG("%s is %ld after one mmap(), was %ld: ->mapped (or the "
		       "success hook) did not count it", live, v, base);
	}

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char c;

		close(go[1]);
		_exit(read(go[0], &c, 1) < 0);
	}
	close(go[0]);
	ASSERT_EQ(0, lab_read_long(live, &v));
	ASSERT_EQ(base + 2, v) {
		TH_LOG("%s is %ld with a fork()ed child holding a copy, "
		       "expected %ld: ->open did not count the copy (did "
		       "->mapped or the success hook mark the VMA?)", live, v,
		       base + 2);
	}
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, lab_read_long(live, &v));
	ASSERT_EQ(base + 1, v) {
		TH_LOG("%s is %ld after the child exited, expected %ld: "
		       "->close did not uncount its copy", live, v, base + 1);
	}

	ASSERT_EQ(0, munmap(p + page, page));
	ASSERT_EQ(0, lab_read_long(live, &v));
	ASSERT_EQ(base + 2, v) {
		TH_LOG("%s is %ld with the mapping split in two pieces, "
		       "expected %ld", live, v, base + 2);
	}
	ASSERT_EQ(0, munmap(p, 3 * page));
	ASSERT_EQ(0, lab_read_long(live, &v));
	ASSERT_EQ(base, v) {
		TH_LOG("%s is %ld once everything is unmapped, was %ld before",
		       live, v, base);
	}
}

/* One successful mmap(): the counter goes up by exactly one. */
TEST_F(hooks, mmap_counts_one)
{
	long before, after;
	void *p;

	READ_COUNTER(before);
	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	READ_COUNTER(after);
	ASSERT_EQ(before + 1, after) {
		TH_LOG("%s went from %ld to %ld across one mmap()",
		       self->counter, before, after);
	}
}

/* N successful mmap() calls: the counter goes up by N. */
TEST_F(hooks, n_mmaps_count_n)
{
	long before, after;
	void *p;
	int i;

	READ_COUNTER(before);
	for (i = 0; i < N_MAPPINGS; i++)
		LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, self->fd, 0);
	READ_COUNTER(after);
	ASSERT_EQ(before + N_MAPPINGS, after) {
		TH_LOG("%s went from %ld to %ld across %d mmap() calls",
		       self->counter, before, after, N_MAPPINGS);
	}
}

/* MAP_PRIVATE is refused before any VMA exists: the hook does not run. */
TEST_F(hooks, refused_map_private_not_counted)
{
	long before, after;

	LAB_REFUSES("private", "MAP_PRIVATE");
	READ_COUNTER(before);
	LAB_MMAP_REFUSED(self->size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			 self->fd, 0, EINVAL, "MAP_PRIVATE");
	READ_COUNTER(after);
	ASSERT_EQ(before, after) {
		TH_LOG("%s went from %ld to %ld across a refused MAP_PRIVATE "
		       "mmap()", self->counter, before, after);
	}
}

/* A length past the end is refused: the hook does not run. */
TEST_F(hooks, refused_length_past_end_not_counted)
{
	unsigned long len = self->size + lab_page_size();
	long before, after;

	LAB_REFUSES("past-end", "a range past the end");
	READ_COUNTER(before);
	LAB_MMAP_REFUSED(len, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0,
			 EINVAL, "length past the end");
	READ_COUNTER(after);
	ASSERT_EQ(before, after) {
		TH_LOG("%s went from %ld to %ld across a refused mmap() of "
		       "%#lx bytes", self->counter, before, after, len);
	}
}

/* munmap() does not change the counter. */
TEST_F(hooks, munmap_not_counted)
{
	long before, after;
	void *p;

	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	READ_COUNTER(before);
	ASSERT_EQ(0, lab_unmap(&self->maps, p));
	READ_COUNTER(after);
	ASSERT_EQ(before, after) {
		TH_LOG("%s went from %ld to %ld across munmap()",
		       self->counter, before, after);
	}
}

TEST_HARNESS_MAIN
