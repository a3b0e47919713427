// SPDX-License-Identifier: GPL-2.0-only
/*
 * A convertible hook of its own file, which another file also calls with
 * a VMA: none of the three files changes, and the report says where.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include "xc.h"

static const struct vm_operations_struct xc_vm_ops = {
	.fault		= filemap_fault,
};

int xc_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_ops = &xc_vm_ops;
	return 0;
}
