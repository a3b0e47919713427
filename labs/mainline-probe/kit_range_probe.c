// SPDX-License-Identifier: GPL-2.0
/*
 * kit_range_probe - mmap actions whose range is not the VMA's, on mainline,
 * for check_action_range. The kit's kernel has the same two devices in
 * labs/intree/kit_mmap_probe.c and answers both differently (see
 * Documentation/upstream.rst):
 *
 * /dev/kit_oversize_action: a hook that asks for a remap of two pages on a
 *	one-page mapping. mmap_action_remap() warns, and the prepare step
 *	refuses the range with -EFAULT.
 * /dev/kit_bad_range: a hook that moves desc->end one page further before
 *	asking for a remap of the whole (moved) range. Mainline keeps the VMA
 *	it planned, and checks the action against the moved end only: the
 *	second page is mapped past the VMA.
 *
 * Both remap the same two contiguous pages; the second is filled with
 * KIT_RANGE_FILL, so a read past the VMA shows where it came from.
 */
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>

/* The byte the second page is filled with, checked by userspace. */
#define KIT_RANGE_FILL 0xb2

/* Two contiguous pages (order 1), the first zeroed. */
static struct page *range_pages;

/**
 * one_shared_page() - is this the one mapping the probes accept?
 * @desc: descriptor of the mapping
 *
 * Return: true for one shared page at offset 0.
 */
static bool one_shared_page(const struct vm_area_desc *desc)
{
	return !desc->pgoff && vma_desc_size(desc) == PAGE_SIZE &&
	       vma_desc_test(desc, VMA_MAYSHARE_BIT);
}

/**
 * oversize_mmap_prepare() - a buggy hook: a remap one page longer than the
 * mapping
 * @desc: descriptor of the mapping
 *
 * Return: 0, or -EINVAL for anything but one shared page at offset 0.
 */
static int oversize_mmap_prepare(struct vm_area_desc *desc)
{
	if (!one_shared_page(desc))
		return -EINVAL;
	mmap_action_remap(desc, desc->start, page_to_pfn(range_pages),
			  2 * PAGE_SIZE);
	return 0;
}

static const struct file_operations oversize_fops = {
	.owner = THIS_MODULE,
	.mmap_prepare = oversize_mmap_prepare,
};

static struct miscdevice oversize_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kit_oversize_action",
	.fops = &oversize_fops,
};

/**
 * bad_range_mmap_prepare() - a buggy hook that moves the end of the mapping
 * @desc: descriptor of the mapping
 *
 * Return: 0, or -EINVAL for anything but one shared page at offset 0.
 */
static int bad_range_mmap_prepare(struct vm_area_desc *desc)
{
	if (!one_shared_page(desc))
		return -EINVAL;
	desc->end += PAGE_SIZE;
	mmap_action_remap_full(desc, page_to_pfn(range_pages));
	return 0;
}

static const struct file_operations bad_range_fops = {
	.owner = THIS_MODULE,
	.mmap_prepare = bad_range_mmap_prepare,
};

static struct miscdevice bad_range_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kit_bad_range",
	.fops = &bad_range_fops,
};

static int __init kit_range_probe_init(void)
{
	int ret;

	range_pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	if (!range_pages)
		return -ENOMEM;
	memset(page_address(range_pages + 1), KIT_RANGE_FILL, PAGE_SIZE);
	ret = misc_register(&oversize_dev);
	if (ret)
		goto free;
	ret = misc_register(&bad_range_dev);
	if (ret)
		goto deregister;
	return 0;

deregister:
	misc_deregister(&oversize_dev);
free:
	__free_pages(range_pages, 1);
	return ret;
}
module_init(kit_range_probe_init);

static void __exit kit_range_probe_exit(void)
{
	misc_deregister(&bad_range_dev);
	misc_deregister(&oversize_dev);
	__free_pages(range_pages, 1);
}
module_exit(kit_range_probe_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: mmap action ranges on mainline");
