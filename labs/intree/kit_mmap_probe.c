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
 * /dev/kit_merge: .mmap_prepare with a fault handler and a success hook on
 *	a mergeable mapping, to show that the hook runs once per new VMA and
 *	not when a mapping merges (counter: parameter merge_hook_calls).
 *
 * The relay check has a module of its own, kit_relay_probe, which also builds
 * on stock 6.12 for `make check-stock`.
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

#define KIT_MERGE_PAGES 4
static struct page *merge_pages[KIT_MERGE_PAGES];
static atomic_t merge_hook_calls = ATOMIC_INIT(0);

static int merge_hook_calls_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(&merge_hook_calls));
}

static const struct kernel_param_ops merge_hook_calls_ops = {
	.get = merge_hook_calls_get,
};
module_param_cb(merge_hook_calls, &merge_hook_calls_ops, NULL, 0444);
MODULE_PARM_DESC(merge_hook_calls, "success hook calls of /dev/kit_merge");

/**
 * merge_fault() - map one of the KIT_MERGE_PAGES pages on demand
 * @vmf: the fault
 *
 * Return: 0 with the page in @vmf->page, or VM_FAULT_SIGBUS past the end.
 */
static vm_fault_t merge_fault(struct vm_fault *vmf)
{
	if (vmf->pgoff >= KIT_MERGE_PAGES)
		return VM_FAULT_SIGBUS;
	vmf->page = merge_pages[vmf->pgoff];
	get_page(vmf->page);
	return 0;
}

static const struct vm_operations_struct merge_vm_ops = {
	.fault = merge_fault,
};

/**
 * merge_success() - count the new VMAs of /dev/kit_merge
 * @vma: the new VMA (unused)
 *
 * Return: 0.
 */
static int merge_success(const struct vm_area_struct *vma)
{
	atomic_inc(&merge_hook_calls);
	return 0;
}

/**
 * merge_mmap_prepare() - a mergeable mapping with a success hook
 * @desc: descriptor of the mapping
 *
 * Return: 0, or -EINVAL past the pages or for a private mapping.
 */
static int merge_mmap_prepare(struct vm_area_desc *desc)
{
	if (!(desc->vm_flags & VM_MAYSHARE) ||
	    desc->pgoff + vma_desc_pages(desc) > KIT_MERGE_PAGES)
		return -EINVAL;
	desc->vm_ops = &merge_vm_ops;
	desc->action.success_hook = merge_success;
	return 0;
}

static const struct file_operations merge_fops = {
	.owner = THIS_MODULE,
	.mmap_prepare = merge_mmap_prepare,
};

static struct miscdevice merge_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kit_merge",
	.fops = &merge_fops,
};

static void free_merge_pages(void)
{
	int i;

	for (i = 0; i < KIT_MERGE_PAGES; i++)
		if (merge_pages[i])
			__free_page(merge_pages[i]);
}

static int __init kit_mmap_probe_init(void)
{
	int i, ret;

	for (i = 0; i < KIT_MERGE_PAGES; i++) {
		merge_pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!merge_pages[i]) {
			free_merge_pages();
			return -ENOMEM;
		}
	}

	compat_page = alloc_page(GFP_KERNEL);
	if (!compat_page) {
		ret = -ENOMEM;
		goto free_merge;
	}
	memset(page_address(compat_page), KIT_COMPAT_FILL, PAGE_SIZE);

	ret = misc_register(&both_dev);
	if (ret)
		goto free_page;
	ret = misc_register(&compat_dev);
	if (ret)
		goto deregister_both;
	ret = misc_register(&merge_dev);
	if (ret)
		goto deregister_compat;
	return 0;

deregister_compat:
	misc_deregister(&compat_dev);
deregister_both:
	misc_deregister(&both_dev);
free_page:
	__free_page(compat_page);
free_merge:
	free_merge_pages();
	return ret;
}

static void __exit kit_mmap_probe_exit(void)
{
	misc_deregister(&compat_dev);
	misc_deregister(&merge_dev);
	misc_deregister(&both_dev);
	__free_page(compat_page);
	free_merge_pages();
}

module_init(kit_mmap_probe_init);
module_exit(kit_mmap_probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: probes for the refused-hooks and compat paths");
