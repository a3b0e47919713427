// SPDX-License-Identifier: GPL-2.0
/*
 * check_action_failure - with fail_mmap_action armed, the action fails after
 * the VMA was created: the VMA is gone and user space sees the stage's errno.
 *
 * Environment: MMAP_LAB_ACTION (none: every test skips; else remap, ioremap
 * or map_kernel_pages), MMAP_LAB_ACTION_ERRNO,
 * MMAP_LAB_DEVICE, MMAP_LAB_BUF_SIZE (or, when 0, MMAP_LAB_MAP_SIZE), and
 * MMAP_LAB_HOOK_COUNTER (optional here: empty or unset = no success hook),
 * MMAP_LAB_LIVE_COUNTER (optional: the driver's count of its live VMAs).
 *
 * The failure comes from the kit kernel's fault-injection point
 * fail_mmap_action (debugfs /sys/kernel/debug/fail_mmap_action/, mounted
 * here if needed): probability=100, interval=1, task-filter=Y, verbose=0,
 * and times=1 plus /proc/self/make-it-fail=1 only around the one mmap() that
 * must fail. The teardown writes times=0 and make-it-fail=0.
 */
#include "lab_harness.h"

FIXTURE(inject)
{
	const char *dev;
	const char *counter;	/* NULL: the stage has no success hook */
	const char *live;	/* NULL: the driver does not count live VMAs */
	unsigned long size;	/* length of every mapping */
	unsigned long buf_size;
	int err;		/* errno the failed mmap() must report */
	int fd;
	struct lab_mappings maps;
};

FIXTURE_SETUP(inject)
{
	const char *action, *failed = "?";
	char path[256];
	size_t i;
	int r;

	self->fd = -1;
	LAB_ENV_REQUIRED(action, "MMAP_LAB_ACTION");
	if (!strcmp(action, "none"))
		SKIP(return, "MMAP_LAB_ACTION=none: this stage's mmap has no "
		     "action that could fail");
	ASSERT_TRUE(!strcmp(action, "remap") || !strcmp(action, "ioremap") ||
		    !strcmp(action, "map_kernel_pages")) {
		TH_LOG("MMAP_LAB_ACTION=\"%s\": expected none, remap, ioremap "
		       "or map_kernel_pages", action);
	}
	LAB_ENV_ERRNO(self->err, "MMAP_LAB_ACTION_ERRNO");
	LAB_ENV_REQUIRED(self->dev, "MMAP_LAB_DEVICE");
	LAB_MAP_SIZE(self->size);
	LAB_ENV_ULONG(self->buf_size, "MMAP_LAB_BUF_SIZE");
	self->counter = getenv("MMAP_LAB_HOOK_COUNTER");
	if (self->counter && !*self->counter)
		self->counter = NULL;
	self->live = getenv("MMAP_LAB_LIVE_COUNTER");
	if (self->live && !*self->live)
		self->live = NULL;

	r = lab_debugfs_mount();
	ASSERT_EQ(0, r) {
		TH_LOG("debugfs is not mounted on " LAB_DEBUGFS " and mounting "
		       "it failed: %s", strerror(-r));
	}
	if (!lab_path_exists(LAB_FI_DIR))
		SKIP(return, "kernel lacks fail_mmap_action (no " LAB_FI_DIR
		     "; CONFIG_FAIL_MMAP_ACTION=y in the kit kernel)");
	for (i = 0; lab_fi_attrs[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", LAB_FI_DIR, lab_fi_attrs[i]);
		ASSERT_TRUE(lab_path_exists(path)) {
			TH_LOG("%s is missing: not a fault-injection attribute "
			       "directory (CONFIG_FAULT_INJECTION_DEBUG_FS?)",
			       path);
		}
	}
	ASSERT_TRUE(lab_path_exists(LAB_MAKE_IT_FAIL)) {
		TH_LOG(LAB_MAKE_IT_FAIL " is missing (CONFIG_FAULT_INJECTION)");
	}
	r = lab_fi_configure(&failed);
	ASSERT_EQ(0, r) {
		TH_LOG("writing %s/%s failed: %s", LAB_FI_DIR, failed,
		       strerror(-r));
	}
	ASSERT_EQ(0, lab_make_it_fail(0));
	LAB_OPEN(self->fd, self->dev);
}

FIXTURE_TEARDOWN(inject)
{
	lab_fi_set("times", "0");
	lab_make_it_fail(0);
	lab_unmap_all(&self->maps);
	if (self->fd >= 0)
		close(self->fd);
}

/* Make the next mmap action of this task fail. */
#define ARM() do {								\
	ASSERT_EQ(0, lab_fi_set("times", "1"));					\
	ASSERT_EQ(0, lab_make_it_fail(1));					\
} while (0)

#define DISARM() do {								\
	ASSERT_EQ(0, lab_make_it_fail(0));					\
	ASSERT_EQ(0, lab_fi_set("times", "0"));					\
} while (0)

/*
 * The mmap() under injection: no stdio, no malloc, nothing that could change
 * /proc/self/maps on its own. Sets p and e (the errno).
 */
#define INJECTED_MMAP(p, e) do {						\
	(p) = lab_sys_mmap(NULL, self->size, PROT_READ | PROT_WRITE,		\
			   MAP_SHARED, self->fd, 0);				\
	(e) = errno;								\
} while (0)

/* After INJECTED_MMAP(): it failed (a success is undone first). */
#define ASSERT_INJECTED_FAILED(p) do {						\
	if ((p) != MAP_FAILED)							\
		munmap((p), self->size);					\
	ASSERT_EQ(MAP_FAILED, (p)) {						\
		TH_LOG("mmap() succeeded with fail_mmap_action armed: the "	\
		       "driver's mapping does not go through an mmap action");	\
	}									\
} while (0)

/*
 * Why a failed mmap() may report got instead of want, in the words of the
 * kernel it runs on: the kit's 6.12 has error_hook(), mainline has
 * error_override.
 */
static const char *errno_hint(int got, int want)
{
	bool kit = lab_kernel_is_kit();

	if (got == ENOMEM && want != ENOMEM)
		return kit ?
		       ": the action's own ENOMEM came through, unchanged: no "
		       "error_hook replaced it. Is the hook set, and does it "
		       "return a negative errno (-EAGAIN, not EAGAIN)? A "
		       "positive value is ignored, with a WARNING in the log" :
		       ": the action's own ENOMEM came through, unchanged: is "
		       "desc->action.error_override set (-EAGAIN)?";
	if (got == EINVAL && want != EINVAL && !kit)
		return ": every mapping fails with EINVAL when "
		       "desc->action.error_override is positive (EAGAIN where "
		       "-EAGAIN is meant): the kernel refuses it before "
		       "mapping, with a WARNING in the log";
	if (want == ENOMEM)
		return ": ENOMEM is the action's own error; nothing here "
		       "should replace it";
	return "";
}

/*
 * The failed mmap() reports MMAP_LAB_ACTION_ERRNO, and the failure is the
 * injected one (the injection point consumed its one failure).
 */
TEST_F(inject, failure_reports_stage_errno)
{
	long times = -1;
	void *p;
	int e;

	ARM();
	INJECTED_MMAP(p, e);
	ASSERT_EQ(0, lab_fi_get("times", &times));
	DISARM();

	ASSERT_INJECTED_FAILED(p);
	ASSERT_EQ(self->err, e) {
		TH_LOG("mmap() failed with %s (%s), expected %s "
		       "(MMAP_LAB_ACTION_ERRNO)%s", lab_errno_name(e),
		       strerror(e), lab_errno_name(self->err),
		       errno_hint(e, self->err));
	}
	ASSERT_EQ(0, times) {
		TH_LOG("mmap() failed but fail_mmap_action did not fire "
		       "(times=%ld): the failure came from somewhere else", times);
	}
}

/* The VMA created before the action ran is gone: maps byte-identical. */
TEST_F(inject, failure_leaves_no_vma)
{
	void *p;
	int e;

	ARM();
	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	INJECTED_MMAP(p, e);
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	DISARM();

	ASSERT_INJECTED_FAILED(p);
	(void)e;	/* the errno is failure_reports_stage_errno's rule */
	LAB_ASSERT_MAPS_SAME(LAB_MAPS_BEFORE, LAB_MAPS_AFTER,
			     "the mmap() whose action failed");
}

/*
 * The integer in file PATH before and after one mmap() that the injection
 * makes fail (asserted); E is that mmap()'s errno.
 */
#define COUNTER_ACROSS_INJECTED_FAILURE(path, before, after, e) do {		\
	void *__p;								\
	int __r = lab_read_long((path), &(before));				\
	ASSERT_EQ(0, __r) {							\
		TH_LOG("reading %s failed: %s", (path), strerror(-__r));	\
	}									\
	ARM();									\
	INJECTED_MMAP(__p, e);							\
	DISARM();								\
	ASSERT_INJECTED_FAILED(__p);						\
	ASSERT_EQ(0, lab_read_long((path), &(after)));				\
} while (0)

/* The success hook does not run for a mapping whose action failed. */
TEST_F(inject, failure_does_not_count)
{
	long before = -1, after = -1;
	int e;

	if (!self->counter)
		SKIP(return, "MMAP_LAB_HOOK_COUNTER is empty: this stage has no "
		     "success hook");
	COUNTER_ACROSS_INJECTED_FAILURE(self->counter, before, after, e);
	ASSERT_EQ(self->err, e);
	ASSERT_EQ(before, after) {
		TH_LOG("%s went from %ld to %ld across an mmap() that failed",
		       self->counter, before, after);
	}
}

/*
 * The count of live VMAs is where it was after an mmap() whose action failed:
 * the mm core removes the new VMA with do_munmap(), which calls the driver's
 * ->close() for a VMA that ->mapped (or the success hook) never counted.
 */
TEST_F(inject, failure_keeps_live_count)
{
	long before = -1, after = -1;
	int e;

	if (!self->live)
		SKIP(return, "MMAP_LAB_LIVE_COUNTER is unset: this stage's driver "
		     "does not count its live mappings");
	COUNTER_ACROSS_INJECTED_FAILURE(self->live, before, after, e);
	(void)e;	/* which errno: failure_reports_stage_errno's question */
	ASSERT_EQ(before, after) {
		TH_LOG("%s went from %ld to %ld across an mmap() whose action "
		       "failed: ->close() ran for the VMA the core removed, which "
		       "was never counted; uncount only the VMAs that ->mapped "
		       "(or the success hook) marked in vm_private_data",
		       self->live, before, after);
	}
}

/*
 * Without injection the same mmap() succeeds: with the attribute armed but
 * this task not selected (make-it-fail=0), and with the task selected but
 * the attribute disarmed (times=0).
 */
TEST_F(inject, uninjected_mmap_succeeds)
{
	void *p;

	ASSERT_EQ(0, lab_fi_set("times", "1"));
	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	ASSERT_EQ(0, lab_unmap(&self->maps, p));
	DISARM();

	ASSERT_EQ(0, lab_make_it_fail(1));
	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	DISARM();
}

/*
 * The failure leaves the driver usable: the next mmap() succeeds, is one
 * VMA, and (with a buffer) shows what pwrite() stored.
 */
TEST_F(inject, mmap_after_failure_works)
{
	unsigned long end = 0;
	uint32_t seed = (uint32_t)getpid() * 2654435761u;
	void *p, *buf;
	int e, count;

	ARM();
	INJECTED_MMAP(p, e);
	DISARM();
	ASSERT_INJECTED_FAILED(p);
	ASSERT_EQ(self->err, e);

	LAB_MAPS_SNAPSHOT(LAB_MAPS_BEFORE);
	count = lab_maps_count(LAB_MAPS_BEFORE);
	LAB_MMAP(p, &self->maps, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	LAB_MAPS_SNAPSHOT(LAB_MAPS_AFTER);
	ASSERT_EQ(count + 1, lab_maps_count(LAB_MAPS_AFTER));
	ASSERT_EQ(0, lab_maps_find(LAB_MAPS_AFTER, (unsigned long)p, &end,
				   NULL, 0));
	ASSERT_EQ((unsigned long)p + self->size, end);

	if (!self->buf_size)
		return;
	buf = malloc(self->buf_size);
	ASSERT_NE(NULL, buf);
	lab_pattern_fill(buf, self->buf_size, seed, 0);
	ASSERT_EQ((ssize_t)self->buf_size,
		  lab_pwrite_all(self->fd, buf, self->buf_size, 0));
	free(buf);
	LAB_ASSERT_PATTERN(p, self->buf_size, seed, 0,
			   "mapping made after a failed one");
}

TEST_HARNESS_MAIN
