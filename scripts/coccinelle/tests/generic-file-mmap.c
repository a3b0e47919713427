// SPDX-License-Identifier: GPL-2.0-only
/*
 * A filesystem whose fops name generic_file_mmap() and
 * generic_file_readonly_mmap() themselves: their definitions are in
 * mm/filemap.c, not here, so there is no hook to convert in this file
 * (the kit's 6.12 has no generic_file_mmap_prepare() either).
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
