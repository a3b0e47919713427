// SPDX-License-Identifier: GPL-2.0-only
/*
 * A filesystem (9p) whose hook maps read-only in one mode, else calls
 * generic_file_mmap() and puts its own vm_ops on success; its read-only
 * fops names generic_file_readonly_mmap() itself. Mainline: the
 * generic_file_*mmap_prepare() calls where the old ones were, and the
 * read-only fops names generic_file_readonly_mmap_prepare().
 */
#include <linux/fs.h>
#include <linux/mm.h>

static const struct vm_operations_struct demo_mmap_file_vm_ops;

static int
demo_file_mmap(struct file *filp, struct vm_area_struct *vma)
{
	int retval;
	struct inode *inode = file_inode(filp);

	if (!(inode->i_flags & S_SYNC))
		return generic_file_readonly_mmap(filp, vma);

	retval = generic_file_mmap(filp, vma);
	if (!retval)
		vma->vm_ops = &demo_mmap_file_vm_ops;

	return retval;
}

static const struct file_operations demo_file_operations = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.mmap		= generic_file_readonly_mmap,
};

static const struct file_operations demo_mmap_file_operations = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.mmap		= demo_file_mmap,
};
