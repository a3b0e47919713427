// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of ntfs3's .mmap hook: the test of a flag kept in a bool, and
 * of mtdchar's NOMMU branch: a flags test as the condition of a ?:.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static const struct vm_operations_struct cfs_file_vm_ops;

static int cfs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct inode *inode = file_inode(file);
	u64 from = ((u64)vma->vm_pgoff << PAGE_SHIFT);
	bool rw = vma->vm_flags & VM_WRITE;

	if (is_compressed(inode) && rw)
		return -EOPNOTSUPP;

	if (rw && cfs_extend(inode, from + vma->vm_end - vma->vm_start))
		return -EAGAIN;

	file_accessed(file);
	vma->vm_ops = &cfs_file_vm_ops;
	return 0;
}

static const struct file_operations cfs_file_operations = {
	.mmap		= cfs_file_mmap,
};

static int cfs_char_mmap(struct file *file, struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_SHARED ? 0 : -EACCES;
}

static const struct file_operations cfs_char_operations = {
	.mmap		= cfs_char_mmap,
};
