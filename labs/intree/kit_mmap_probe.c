// SPDX-License-Identifier: GPL-2.0
/*
 * kit_mmap_probe - reaches the paths of the series that no in-tree user of
 * this kernel's configuration reaches, for the in-tree stage's checks:
 *
 * /dev/kit_both_hooks: file operations with both .mmap and .mmap_prepare,
 *	which mmap() must refuse with -ENODEV.
 * /dev/kit_compat: a legacy .mmap that maps another file, which only has
 *	.mmap_prepare (a remap action of one kernel page), through vfs_mmap():
 *	the compatibility path that stacking file systems take.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>

/* The byte the compat page is filled with, checked by userspace. */
#define KIT_COMPAT_FILL 0x5a

static struct page *compat_page;

/**
 * prepare_only_mmap_prepare() - map the one compat page with a remap action
 * @desc: descriptor of the mapping
 *
 * Return: 0, or -EINVAL for anything but one shared page at offset 0.
 */
static int prepare_only_mmap_prepare(struct vm_area_desc *desc)
{
	if (desc->pgoff || vma_desc_size(desc) != PAGE_SIZE ||
	    !(desc->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	mmap_action_remap_full(desc, page_to_pfn(compat_page));
	return 0;
}

static const struct file_operations prepare_only_fops = {
	.owner = THIS_MODULE,
	.mmap_prepare = prepare_only_mmap_prepare,
};

/**
 * compat_mmap() - a legacy .mmap that forwards to a .mmap_prepare file
 * @file: /dev/kit_compat
 * @vma: the VMA being set up
 *
 * Return: what vfs_mmap() on the .mmap_prepare-only file returns.
 */
static int compat_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct file *prepare_only;

	/* A file per mapping: it pins this module while the mapping lives. */
	prepare_only = anon_inode_getfile("kit_prepare_only",
					  &prepare_only_fops, NULL, O_RDWR);
	if (IS_ERR(prepare_only))
		return PTR_ERR(prepare_only);
	vma_set_file(vma, prepare_only);
	fput(prepare_only);
	return vfs_mmap(vma->vm_file, vma);
}

static const struct file_operations compat_fops = {
	.owner = THIS_MODULE,
	.mmap = compat_mmap,
};

static struct miscdevice compat_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kit_compat",
	.fops = &compat_fops,
};

/**
 * both_mmap() - never called: mmap() refuses a file with both hooks
 * @file: unused
 * @vma: unused
 *
 * Return: -EIO, so a kernel that calls it fails the check loudly.
 */
static int both_mmap(struct file *file, struct vm_area_struct *vma)
{
	return -EIO;
}

/**
 * both_mmap_prepare() - never called either
 * @desc: unused
 *
 * Return: -EIO.
 */
static int both_mmap_prepare(struct vm_area_desc *desc)
{
	return -EIO;
}

static const struct file_operations both_fops = {
	.owner = THIS_MODULE,
	.mmap = both_mmap,
	.mmap_prepare = both_mmap_prepare,
};

static struct miscdevice both_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kit_both_hooks",
	.fops = &both_fops,
};

static int __init kit_mmap_probe_init(void)
{
	int ret;

	compat_page = alloc_page(GFP_KERNEL);
	if (!compat_page)
		return -ENOMEM;
	memset(page_address(compat_page), KIT_COMPAT_FILL, PAGE_SIZE);

	ret = misc_register(&both_dev);
	if (ret)
		goto free_page;
	ret = misc_register(&compat_dev);
	if (ret)
		goto deregister_both;
	return 0;

deregister_both:
	misc_deregister(&both_dev);
free_page:
	__free_page(compat_page);
	return ret;
}

static void __exit kit_mmap_probe_exit(void)
{
	misc_deregister(&compat_dev);
	misc_deregister(&both_dev);
	__free_page(compat_page);
}

module_init(kit_mmap_probe_init);
module_exit(kit_mmap_probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: probes for the refused-hooks and compat paths");
