// SPDX-License-Identifier: GPL-2.0
/*
 * kit_range_probe - mmap actions whose range is not the VMA's, on mainline,
 * for check_action_range: the devices of kit_range_devs.h (shared with the
 * kit's kit_mmap_probe), which mainline answers otherwise than the kit (see
 * Documentation/upstream.rst):
 *
 * /dev/kit_oversize_action: mmap_action_remap() warns, and the prepare step
 *	refuses the range with -EFAULT.
 * /dev/kit_bad_range: mainline keeps the VMA it planned, and checks the
 *	action against the moved end only: the second page is mapped past the
 *	VMA.
 */
#include <linux/mm.h>
#include <linux/module.h>

#include "kit_range_devs.h"

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

static int __init kit_range_probe_init(void)
{
	int ret;

	ret = range_pages_alloc();
	if (ret)
		return ret;
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
	range_pages_free();
	return ret;
}
module_init(kit_range_probe_init);

static void __exit kit_range_probe_exit(void)
{
	misc_deregister(&bad_range_dev);
	misc_deregister(&oversize_dev);
	range_pages_free();
}
module_exit(kit_range_probe_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: mmap action ranges on mainline");
