// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of /dev/mem's .mmap hook (drivers/char/mem.c): a static
 * helper that takes the VMA, defined once in each #ifdef branch, and a
 * remap whose failure returns -EAGAIN from a braced branch. Both
 * definitions go with the hook and keep their name (no "mmap" in it).
 */
#include <linux/fs.h>
#include <linux/mm.h>

#ifndef CONFIG_MMU
/* a private mapping needs an MMU */
static inline int demo_private_ok(struct vm_area_struct *vma)
{
	return is_nommu_shared_mapping(vma->vm_flags);
}
#else
static inline int demo_private_ok(struct vm_area_struct *vma)
{
	return 1;
}
#endif

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
	size_t size = vma->vm_end - vma->vm_start;
	phys_addr_t offset = (phys_addr_t)vma->vm_pgoff << PAGE_SHIFT;

	if (offset >> PAGE_SHIFT != vma->vm_pgoff)
		return -EINVAL;
	if (!demo_private_ok(vma))
		return -ENOSYS;
	vma->vm_page_prot = phys_mem_access_prot(file, vma->vm_pgoff, size,
						 vma->vm_page_prot);
	if (remap_pfn_range(vma,
			    vma->vm_start,
			    vma->vm_pgoff,
			    size,
			    vma->vm_page_prot)) {
		return -EAGAIN;
	}
	return 0;
}

static const struct file_operations demo_fops = {
	.mmap		= demo_mmap,
};
