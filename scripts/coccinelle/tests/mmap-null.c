// SPDX-License-Identifier: GPL-2.0-only
/* An fops that sets .mmap to NULL explicitly: nothing to convert. */
#include <linux/fs.h>

static const struct file_operations demo_fops = {
	.owner		= THIS_MODULE,
	.read_iter	= generic_file_read_iter,
	.mmap		= NULL,
};
