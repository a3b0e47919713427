// SPDX-License-Identifier: GPL-2.0-only
/* The other module's fops (as fs/nfs/nfs4file.c's). */
#include <linux/fs.h>
#include "xe.h"

const struct file_operations xe4_file_operations = {
	.read_iter	= generic_file_read_iter,
	.mmap		= xe_file_mmap,
};
