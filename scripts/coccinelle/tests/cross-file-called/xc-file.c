// SPDX-License-Identifier: GPL-2.0-only
#include <linux/fs.h>
#include "xc.h"

static int xc_dir_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!(file->f_mode & FMODE_READ))
		return -EACCES;
	return xc_mmap(file, vma);
}

const struct file_operations xc_fops = {
	.mmap		= xc_mmap,
};

const struct file_operations xc_dir_fops = {
	.mmap		= xc_dir_mmap,
};
