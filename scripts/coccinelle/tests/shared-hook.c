// SPDX-License-Identifier: GPL-2.0-only
/*
 * One hook named by two fops of the file: both .mmap lines follow the
 * converted hook.
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
	.mmap		= demo_mmap,
};

static const struct file_operations demo_ro_fops = {
	.owner		= THIS_MODULE,
	.read_iter	= generic_file_read_iter,
	.mmap		= demo_mmap,
};
