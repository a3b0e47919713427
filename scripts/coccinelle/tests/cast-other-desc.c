// SPDX-License-Identifier: GPL-2.0
/*
 * A converted hook whose cast of a descriptor field loses the space spatch
 * prints after it, beside a function of the file that has its own "desc"
 * (a DMA descriptor, say), written with a space after its cast: the aid
 * leaves that function as it is.
 */
#include <linux/fs.h>
#include <linux/mm.h>

struct demo_desc {
	unsigned long len;
};

static u32 demo_desc_len(struct demo_desc *desc)
{
	return (u32) desc->len;
}

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 from = (u64)vma->vm_pgoff << PAGE_SHIFT;

	if (from)
		return -EINVAL;
	vma->vm_ops = NULL;
	return 0;
}

static const struct file_operations demo_fops = {
	.mmap		= demo_mmap,
};
