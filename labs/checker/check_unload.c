// SPDX-License-Identifier: GPL-2.0
/*
 * check_unload - nothing holds the module, it unloads, and everything it
 * registered goes away. Run it last: it unloads MMAP_LAB_MODULE.
 *
 * Environment: MMAP_LAB_MODULE; MMAP_LAB_DEVICE (optional: a module without
 * a device, such as the harness smoke module, leaves it unset).
 *
 * The tests run in order. What existed when the program started is recorded
 * before the first test, so "X is gone" can only pass if X was there.
 */
#include "lab_harness.h"

static struct {
	bool sysfs;		/* /sys/module/<name> existed */
	int listed;		/* lab_module_listed() */
	bool node_chr;		/* the device node existed, a char device */
} at_start;

static void __attribute__((constructor)) record_start_state(void)
{
	const char *mod = getenv("MMAP_LAB_MODULE");
	const char *dev = getenv("MMAP_LAB_DEVICE");
	char name[128], path[256];
	struct stat st;

	if (mod) {
		lab_module_name(mod, name, sizeof(name));
		snprintf(path, sizeof(path), "/sys/module/%s", name);
		at_start.sysfs = lab_path_exists(path);
		at_start.listed = lab_module_listed(name);
	}
	if (dev)
		at_start.node_chr = !stat(dev, &st) && S_ISCHR(st.st_mode);
}

FIXTURE(unload)
{
	const char *dev;
	char mod[128];
	char sysdir[256];
};

FIXTURE_SETUP(unload)
{
	const char *mod;

	LAB_ENV_REQUIRED(mod, "MMAP_LAB_MODULE");
	self->dev = getenv("MMAP_LAB_DEVICE");
	lab_module_name(mod, self->mod, sizeof(self->mod));
	snprintf(self->sysdir, sizeof(self->sysdir), "/sys/module/%s",
		 self->mod);
}

FIXTURE_TEARDOWN(unload)
{
}

/* No open file, mapping or dependent module holds a reference. */
TEST_F(unload, refcnt_is_zero)
{
	char path[300];
	long refcnt = -1;
	int r;

	snprintf(path, sizeof(path), "%s/refcnt", self->sysdir);
	r = lab_read_long(path, &refcnt);
	ASSERT_EQ(0, r) {
		TH_LOG("cannot read %s: %s (is %s loaded?)", path,
		       strerror(-r), self->mod);
	}
	ASSERT_EQ(0, refcnt) {
		TH_LOG("%s holds %ld references after the checks: a file, a "
		       "mapping (vm_file) or a module still uses it",
		       self->mod, refcnt);
	}
}

/* delete_module(name, O_NONBLOCK) succeeds. */
TEST_F(unload, delete_module_succeeds)
{
	long r;

	ASSERT_TRUE(at_start.sysfs) {
		TH_LOG("%s was not loaded when check_unload started",
		       self->mod);
	}
	r = syscall(SYS_delete_module, self->mod, O_NONBLOCK);
	ASSERT_EQ(0, r) {
		TH_LOG("delete_module(\"%s\", O_NONBLOCK) failed: %s (%s)",
		       self->mod, lab_errno_name(errno), strerror(errno));
	}
}

/* /sys/module/<name> is gone. */
TEST_F(unload, sysfs_dir_removed)
{
	struct stat st;

	ASSERT_TRUE(at_start.sysfs) {
		TH_LOG("%s did not exist when check_unload started",
		       self->sysdir);
	}
	ASSERT_EQ(-1, stat(self->sysdir, &st)) {
		TH_LOG("%s still exists after the unload", self->sysdir);
	}
	ASSERT_EQ(ENOENT, errno);
}

/* The module is no longer in /proc/modules. */
TEST_F(unload, proc_modules_unlisted)
{
	ASSERT_EQ(1, at_start.listed) {
		TH_LOG("%s was not in /proc/modules when check_unload started",
		       self->mod);
	}
	ASSERT_EQ(0, lab_module_listed(self->mod)) {
		TH_LOG("%s is still in /proc/modules", self->mod);
	}
}

/* devtmpfs removed the device node when the driver unregistered it. */
TEST_F(unload, device_node_removed)
{
	struct stat st;

	if (!self->dev || !*self->dev)
		SKIP(return, "the module registers no device (MMAP_LAB_DEVICE unset)");
	ASSERT_TRUE(at_start.node_chr) {
		TH_LOG("%s was not a character device when check_unload "
		       "started", self->dev);
	}
	ASSERT_EQ(-1, stat(self->dev, &st)) {
		TH_LOG("%s still exists after the unload: the driver did not "
		       "unregister its device", self->dev);
	}
	ASSERT_EQ(ENOENT, errno);
}

TEST_HARNESS_MAIN
