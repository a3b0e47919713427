/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kit_range_devs.h - the two devices of check_action_range, one source for
 * both probe modules, so that both kernels run the very same hooks:
 * kit_mmap_probe (labs/intree/, the kit's 6.12) and kit_range_probe
 * (labs/mainline-probe/, mainline, where this file is a symbolic link).
 *
 * /dev/kit_oversize_action: a hook that asks for a remap of two pages on a
 *	one-page mapping.
 * /dev/kit_bad_range: a hook that moves desc->end one page further before
 *	asking for a remap of the whole (moved) range, so that a kernel
 *	trusting desc->end would map one page past the VMA.
 *
 * Both remap range_pages, two contiguous pages, the second filled with
 * KIT_RANGE_FILL, so a read past the VMA shows where it came from. The
 * including module defines one_shared_page() with its kernel's flag API,
 * allocates the pages with range_pages_alloc() and registers oversize_dev
 * and bad_range_dev.
 */
#ifndef KIT_RANGE_DEVS_H
#define KIT_RANGE_DEVS_H

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>

/* The byte the second page is filled with, checked by userspace. */
#define KIT_RANGE_FILL 0xb2

static struct page *range_pages;

/* True for one shared page at offset 0; defined by the including module. */
static bool one_shared_page(const struct vm_area_desc *desc);

/**
 * range_pages_alloc() - allocate and fill range_pages
 *
 * Return: 0 or -ENOMEM.
 */
static int range_pages_alloc(void)
{
	range_pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	if (!range_pages)
		return -ENOMEM;
	memset(page_address(range_pages + 1), KIT_RANGE_FILL, PAGE_SIZE);
	return 0;
}

/**
 * range_pages_free() - free range_pages, if allocated
 */
static void range_pages_free(void)
{
	if (range_pages)
		__free_pages(range_pages, 1);
	range_pages = NULL;
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

#endif /* KIT_RANGE_DEVS_H */
