// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two fops name the hook of xf-mmap.c (as ocfs2_fops and
 * ocfs2_fops_no_plocks name ocfs2_mmap): both follow it.
 */
#include <linux/fs.h>
#include "xf.h"

const struct file_operations xf_fops = {
	.llseek		= generic_file_llseek,
	.mmap		= xf_mmap,
	.read_iter	= generic_file_read_iter,
};

const struct file_operations xf_fops_no_plocks = {
	.llseek		= generic_file_llseek,
	.mmap		= xf_mmap,
	.read_iter	= generic_file_read_iter,
};
