// SPDX-License-Identifier: GPL-2.0
/*
 * The remap's protection in a local that an if sets to the VMA's, under a
 * test with a side effect: once the copy goes the if is empty, and it
 * cannot go with it. Not converted (verify-converted.py); as a refused
 * hook leaves its whole file, this shape has a file of its own (the other
 * shapes: protection-locals.c).
 */
#include <linux/fs.h>
#include <linux/mm.h>

static unsigned long demo_pfn;

/* an emptied if whose test has a side effect: not converted */
static int demo_side_effect_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot = vma->vm_page_prot;

	if (printk_ratelimit())
		prot = vma->vm_page_prot;

	return remap_pfn_range(vma, vma->vm_start, demo_pfn + vma->vm_pgoff,
			       size, prot);
}

static const struct file_operations demo_side_effect_fops = {
	.mmap		= demo_side_effect_mmap,
};
