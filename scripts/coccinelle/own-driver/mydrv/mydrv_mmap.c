// SPDX-License-Identifier: GPL-2.0
/*
 * mydrv: mapping the buffer (see mydrv.h).
 */
#include <linux/mm.h>
#include "mydrv.h"

/**
 * mydrv_mmap - map the buffer, shared only
 * @file: the open device
 * @vma: the mapping
 *
 * Return: 0, or a negative errno.
 */
int mydrv_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mydrv *drv = container_of(file->private_data, struct mydrv, misc);
	unsigned long size = vma->vm_end - vma->vm_start;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_pgoff || size > MYDRV_BUF_SIZE)
		return -EINVAL;

	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return remap_pfn_range(vma, vma->vm_start, page_to_pfn(drv->pages),
			       size, vma->vm_page_prot);
}
