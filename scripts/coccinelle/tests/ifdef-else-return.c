// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of drivers/mtd/mtdchar.c's .mmap hook: the #ifdef branch
 * ends with a return, and the #else branch after it is dead code to the
 * rules that follow the hook's control flow. The rewrites of the flags
 * match it all the same (<... ...>), on both targets: converted.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
#ifdef CONFIG_MMU
	return -ENODEV;
#else
	return vma->vm_flags & VM_SHARED ? 0 : -EACCES;
#endif
}

static const struct file_operations demo_fops = {
	.mmap		= demo_mmap,
};
