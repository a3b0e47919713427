// SPDX-License-Identifier: GPL-2.0
/*
 * check_guest - smoke test of the guest the harness boots: what every other
 * checker relies on is there.
 *
 * Environment: MMAP_LAB_MODULE.
 */
#include "lab_harness.h"

#include <sys/sysmacros.h>

FIXTURE(guest)
{
};

FIXTURE_SETUP(guest)
{
}

FIXTURE_TEARDOWN(guest)
{
}

/* /proc is mounted and /proc/self/maps lists this process' VMAs. */
TEST_F(guest, proc_self_maps_readable)
{
	unsigned long start = 0, end = 0;
	const char *maps = LAB_MAPS_SCRATCH;

	LAB_MAPS_SNAPSHOT(LAB_MAPS_SCRATCH);
	ASSERT_TRUE(lab_parse_range(maps, &start, &end)) {
		TH_LOG("the first line of /proc/self/maps is not a range: "
		       "\"%.80s\"", maps);
	}
	ASSERT_LT(start, end);
	ASSERT_NE(NULL, strstr(maps, "[stack]")) {
		TH_LOG("/proc/self/maps has no [stack] line");
	}
}

/* /dev is devtmpfs, so device nodes appear and vanish with the drivers. */
TEST_F(guest, dev_is_devtmpfs)
{
	char type[64] = "";
	int r;

	r = lab_mount_type("/dev", type, sizeof(type));
	ASSERT_EQ(0, r) {
		TH_LOG("no file system on /dev in /proc/mounts: %s",
		       strerror(-r));
	}
	ASSERT_STREQ("devtmpfs", type);
}

/* /dev/null is the character device 1:3. */
TEST_F(guest, dev_null_exists)
{
	struct stat st;

	ASSERT_EQ(0, stat("/dev/null", &st)) {
		TH_LOG("stat(/dev/null) failed: %s", strerror(errno));
	}
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	ASSERT_EQ(1U, major(st.st_rdev));
	ASSERT_EQ(3U, minor(st.st_rdev));
}

/* The stage's module is loaded. */
TEST_F(guest, module_loaded)
{
	const char *mod;
	int r;

	LAB_ENV_REQUIRED(mod, "MMAP_LAB_MODULE");
	r = lab_module_listed(mod);
	ASSERT_LE(0, r) {
		TH_LOG("reading /proc/modules failed: %s", strerror(-r));
	}
	ASSERT_EQ(1, r) {
		TH_LOG("%s is not in /proc/modules", mod);
	}
}

TEST_HARNESS_MAIN
