// SPDX-License-Identifier: GPL-2.0-only
/*
 * A convertible hook that another function of the file also calls with a
 * VMA: converting it would break that caller.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static unsigned long demo_pfn;

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
	return remap_pfn_range(vma, vma->vm_start, demo_pfn,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}

int demo_map_for_other(struct file *file, struct vm_area_struct *vma)
{
	return demo_mmap(file, vma);
}

static const struct file_operations demo_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_mmap,
};
