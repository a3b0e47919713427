// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hook defined in a file of its own, without the fops that name it
 * (as ocfs2_mmap in fs/ocfs2/mmap.c, ceph_mmap in fs/ceph/addr.c): it is
 * converted with the files that declare and name it, given in the same run.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include "xf.h"

static vm_fault_t xf_fault(struct vm_fault *vmf)
{
	return filemap_fault(vmf);
}

static const struct vm_operations_struct xf_vm_ops = {
	.fault		= xf_fault,
};

int xf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct address_space *mapping = file->f_mapping;

	if (!mapping->a_ops->read_folio)
		return -ENOEXEC;
	file_accessed(file);
	vma->vm_ops = &xf_vm_ops;
	return 0;
}
