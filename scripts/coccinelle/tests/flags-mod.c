// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of orangefs's .mmap hook: the readahead hint set with
 * vm_flags_mod(), one flag set and another cleared in one call.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static const struct vm_operations_struct netfs_file_vm_ops;

static int netfs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	int ret;

	ret = netfs_revalidate_mapping(file_inode(file));
	if (ret)
		return ret;

	/* set the sequential readahead hint */
	vm_flags_mod(vma, VM_SEQ_READ, VM_RAND_READ);

	file_accessed(file);
	vma->vm_ops = &netfs_file_vm_ops;
	return 0;
}

const struct file_operations netfs_file_operations = {
	.mmap		= netfs_file_mmap,
};
