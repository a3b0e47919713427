// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of romfs's and ramfs's NOMMU .mmap hooks: only a shared
 * mapping (is_nommu_shared_mapping() of the VMA's flags) can be mapped
 * directly.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static int romlike_mmap(struct file *file, struct vm_area_struct *vma)
{
	return is_nommu_shared_mapping(vma->vm_flags) ? 0 : -ENOSYS;
}

const struct file_operations romlike_ro_fops = {
	.llseek			= generic_file_llseek,
	.read_iter		= generic_file_read_iter,
	.mmap			= romlike_mmap,
};

static int ramlike_nommu_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!is_nommu_shared_mapping(vma->vm_flags))
		return -ENOSYS;

	file_accessed(file);
	vma->vm_ops = &generic_file_vm_ops;
	return 0;
}

const struct file_operations ramlike_file_operations = {
	.mmap			= ramlike_nommu_mmap,
};
