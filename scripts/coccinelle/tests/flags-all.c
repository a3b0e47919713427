// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of zonefs's and erofs's .mmap hooks: a shared writable
 * mapping refused by testing two flags, each on its own.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static const struct vm_operations_struct seqfs_file_vm_ops;

static int seqfs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	/* Sequential zones: no shared writable mappings. */
	if (seqfs_inode_is_seq(file_inode(file)) &&
	    (vma->vm_flags & VM_SHARED) && (vma->vm_flags & VM_MAYWRITE))
		return -EINVAL;

	file_accessed(file);
	vma->vm_ops = &seqfs_file_vm_ops;

	return 0;
}

static const struct file_operations seqfs_file_operations = {
	.mmap		= seqfs_file_mmap,
};

static int seqfs_dax_mmap(struct file *file, struct vm_area_struct *vma)
{
	if ((vma->vm_flags & VM_SHARED) && (vma->vm_flags & VM_MAYWRITE))
		return -EINVAL;

	vma->vm_ops = &seqfs_file_vm_ops;
	vm_flags_set(vma, VM_HUGEPAGE);
	return 0;
}

static const struct file_operations seqfs_dax_operations = {
	.mmap		= seqfs_dax_mmap,
};
