// SPDX-License-Identifier: GPL-2.0-only
/*
 * .mmap as the initialiser's last field, without a comma: only the field's
 * name and its value change (no line of blanks left behind).
 */
#include <linux/fs.h>
#include <linux/mm.h>

static unsigned long demo_pfn;

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
	return remap_pfn_range(vma, vma->vm_start, demo_pfn,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}

static const struct file_operations demo_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_mmap
};
