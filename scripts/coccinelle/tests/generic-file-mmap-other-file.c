// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stacked filesystem that maps the file under it with
 * generic_file_mmap(): generic_file_mmap_prepare() maps desc->file, the
 * hook's own file, so this one stays.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static const struct vm_operations_struct demo_vm_ops;

static struct file *demo_lower_file(struct file *file)
{
	return file->private_data;
}

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
	int err;

	err = generic_file_mmap(demo_lower_file(file), vma);
	if (!err)
		vma->vm_ops = &demo_vm_ops;
	return err;
}

static const struct file_operations demo_fops = {
	.read_iter	= generic_file_read_iter,
	.mmap		= demo_mmap,
};
