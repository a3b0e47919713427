// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of /dev/zero's .mmap hook (drivers/char/mem.c): a return
 * under #ifndef CONFIG_MMU, and the MMU code after it, which only the
 * paths that skip that return reach (the rules that look for a use
 * anywhere are "exists" rules for it). Mainline converts it; the kit's API
 * has no form of vma_set_anonymous().
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
