// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two fops in one file: one hook converts, the other (a partial remap)
 * does not. Only the first hook and its initialiser may change.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static unsigned long demo_pfn;

static int demo_full_mmap(struct file *file, struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTEXPAND);
	return remap_pfn_range(vma, vma->vm_start, demo_pfn,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}

static int demo_page_mmap(struct file *file, struct vm_area_struct *vma)
{
	return remap_pfn_range(vma, vma->vm_start, demo_pfn, PAGE_SIZE,
			       vma->vm_page_prot);
}

static const struct file_operations demo_full_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_full_mmap,
};

static const struct file_operations demo_page_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_page_mmap,
};
