// SPDX-License-Identifier: GPL-2.0
/*
 * kit_relay_probe - a relay channel with a known string in it, so that the
 * in-tree checks can map relay's buffer file (debugfs kit_relay/data0) and
 * read the string back. It uses no API of the series, so it builds on stock
 * 6.12 too and `make check-stock` compares relay's .mmap() with the series'
 * .mmap_prepare().
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/relay.h>

#define KIT_RELAY_TEXT "kit relay mmap check"

static struct dentry *relay_dir;
static struct rchan *relay_chan;

static struct dentry *kit_relay_create(const char *filename,
				       struct dentry *parent, umode_t mode,
				       struct rchan_buf *buf, int *is_global)
{
	*is_global = 1;
	/* The full debugfs proxy has no mmap: use the real file operations. */
	return debugfs_create_file_unsafe(filename, mode, parent, buf,
					  &relay_file_operations);
}

static int kit_relay_remove(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks kit_relay_callbacks = {
	.create_buf_file = kit_relay_create,
	.remove_buf_file = kit_relay_remove,
};

static int __init kit_relay_probe_init(void)
{
	relay_dir = debugfs_create_dir("kit_relay", NULL);
	/* Two sub-buffers of a page: the file maps 2 pages, no more, no less. */
	relay_chan = relay_open("data", relay_dir, PAGE_SIZE, 2,
				&kit_relay_callbacks, NULL);
	if (!relay_chan) {
		debugfs_remove(relay_dir);
		return -ENOMEM;
	}
	relay_write(relay_chan, KIT_RELAY_TEXT, sizeof(KIT_RELAY_TEXT));
	relay_flush(relay_chan);
	return 0;
}

static void __exit kit_relay_probe_exit(void)
{
	relay_close(relay_chan);
	debugfs_remove(relay_dir);
}

module_init(kit_relay_probe_init);
module_exit(kit_relay_probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: a relay channel to map from userspace");
