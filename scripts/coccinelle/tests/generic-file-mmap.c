// SPDX-License-Identifier: GPL-2.0-only
/*
 * A filesystem whose fops name generic_file_mmap() and
 * generic_file_readonly_mmap() themselves (mm/filemap.c's): mainline
 * names their twins, generic_file_*mmap_prepare(); the kit's 6.12 has
 * no such functions, and the report says so.
 */
#include <linux/fs.h>

static const struct file_operations demo_file_operations = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.mmap		= generic_file_mmap,
};

static const struct file_operations demo_ro_file_operations = {
	.read_iter	= generic_file_read_iter,
	.mmap		= generic_file_readonly_mmap,
};
