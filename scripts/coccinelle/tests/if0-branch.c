// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of drivers/mtd/mtdchar.c's .mmap hook (an if (0) block in an
 * #ifdef branch that ends with a return, an #else after it), with a use of
 * the VMA that has no descriptor form in the if (0) block: spatch reads
 * that block as dead and leaves it, so the hook is not converted, and the
 * report says why. The other hook of the file converts cleanly but stays:
 * a file that spatch left such code in goes back whole.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
#ifdef CONFIG_MMU
	struct page *page = file->private_data;

	if (0) {
		return vm_insert_page(vma, vma->vm_start, page);
	}
	return -ENODEV;
#else
	return vma->vm_flags & VM_SHARED ? 0 : -EACCES;
#endif
}

static int demo_other_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_ops = NULL;
	return 0;
}

static const struct file_operations demo_fops = {
	.mmap		= demo_mmap,
};

static const struct file_operations demo_other_fops = {
	.mmap		= demo_other_mmap,
};
