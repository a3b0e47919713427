// SPDX-License-Identifier: GPL-2.0-only
/*
 * A filesystem hook that ends with generic_file_mmap(): mainline has
 * generic_file_mmap_prepare(), the kit's 6.12 has no desc form of it.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static int demo_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	return generic_file_mmap(file, vma);
}

static const struct file_operations demo_file_operations = {
	.read_iter	= generic_file_read_iter,
	.mmap		= demo_file_mmap,
};
