// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hook whose body spatch cannot parse (here a macro that opens a
 * block, as scoped_guard() does in perf and firewire): spatch sees no
 * definition of it, so there is no hook to convert.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(demo_lock);
static unsigned long demo_pfn;

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;

	scoped_guard (mutex, &demo_lock) {
		if (!demo_pfn)
			return -ENODEV;
	}
	return remap_pfn_range(vma, vma->vm_start, demo_pfn, size,
			       vma->vm_page_prot);
}

static const struct file_operations demo_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_mmap,
};
