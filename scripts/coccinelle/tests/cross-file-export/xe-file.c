// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hook defined and named here, and exported for another module that
 * names it too (as nfs_file_mmap, used by fs/nfs/nfs4file.c): the export,
 * the prototype and both fops follow the converted hook.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include "xe.h"

static const struct vm_operations_struct xe_file_vm_ops = {
	.fault		= filemap_fault,
};

int
xe_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct inode *inode = file_inode(file);

	if (!inode->i_mapping->a_ops->read_folio)
		return -ENOEXEC;
	vma->vm_ops = &xe_file_vm_ops;
	return 0;
}
EXPORT_SYMBOL_GPL(xe_file_mmap);

const struct file_operations xe_file_operations = {
	.mmap		= xe_file_mmap,
	.read_iter	= generic_file_read_iter,
};
