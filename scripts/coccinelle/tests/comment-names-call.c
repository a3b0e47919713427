// SPDX-License-Identifier: GPL-2.0
/*
 * Comments in a hook that name the call the conversion replaces: they name
 * its replacement afterwards (nfs's "generic_file_mmap() returns ENOSYS on
 * nommu systems"). A comment outside the hook keeps the old name.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static const struct vm_operations_struct demo_vm_ops;

/* demo_file_mmap() calls generic_file_mmap() first. */
static int demo_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	int status;

	/*
	 * Note: generic_file_mmap() returns ENOSYS on nommu systems,
	 * so it is called before anything else.
	 */
	status = generic_file_mmap(file, vma);
	if (!status)
		vma->vm_ops = &demo_vm_ops;
	return status;
}

static const struct file_operations demo_file_fops = {
	.mmap		= demo_file_mmap,
};

static unsigned long demo_pfn;

static int demo_buf_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff)
		return -EINVAL;
	/* remap_pfn_range() maps the whole buffer at once. */
	return remap_pfn_range(vma, vma->vm_start, demo_pfn,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}

static const struct file_operations demo_buf_fops = {
	.mmap		= demo_buf_mmap,
};
