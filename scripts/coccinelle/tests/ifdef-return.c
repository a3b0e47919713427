// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of /dev/zero's .mmap hook (drivers/char/mem.c): a return
 * under #ifndef CONFIG_MMU, and the MMU code after it, which spatch reads
 * as dead code and leaves as it is.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/shmem_fs.h>

static int mmap_nil(struct file *file, struct vm_area_struct *vma)
{
#ifndef CONFIG_MMU
	return -ENOSYS;
#endif
	if (vma->vm_flags & VM_SHARED)
		return shmem_zero_setup(vma);
	vma_set_anonymous(vma);
	return 0;
}

static const struct file_operations nil_fops = {
	.mmap		= mmap_nil,
};
