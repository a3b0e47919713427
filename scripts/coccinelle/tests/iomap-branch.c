// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_iomap_memory() returned from a branch, not at the end of the hook (as
 * drivers/mtd/mtdchar.c does): that path ends with the remap, so on
 * mainline it records the simple I/O remap action and returns 0; the other
 * paths record no action. The protection is set under #ifdef. The second
 * hook's branch has no braces.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static phys_addr_t demo_base;
static unsigned long demo_len;
static bool demo_ready;

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (demo_ready) {
#ifdef pgprot_noncached
		if (file->f_flags & O_DSYNC)
			vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
#endif
		return vm_iomap_memory(vma, demo_base, demo_len);
	}
	return -ENODEV;
}

static int demo_other_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!demo_ready)
		return -ENODEV;
	else if (vma->vm_pgoff)
		return vm_iomap_memory(vma, demo_base + PAGE_SIZE, demo_len);
	vm_flags_set(vma, VM_DONTEXPAND);
	return 0;
}

static const struct file_operations demo_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_mmap,
};

static const struct file_operations demo_other_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_other_mmap,
};
