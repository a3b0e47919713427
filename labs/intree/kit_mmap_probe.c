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
 * /dev/kit_compat_merge: a legacy .mmap that keeps its own file in the VMA
 *	and runs, through vfs_mmap(), the .mmap_prepare of another file, which
 *	changes the flags and sets a success hook: after that hook ran, the
 *	kernel must not merge the VMA away (parameter compat_merge_hook_calls).
 * /dev/kit_positive_hook: a success hook that returns 1, which mmap() must
 *	turn into -EINVAL rather than return as an address.
 * /dev/kit_bad_range: a hook that moves desc->end one page further before
 *	asking for a remap of the whole (moved) range: mmap() must refuse it,
 *	so the remap cannot write page tables past the VMA.
 * /dev/kit_oversize_action: a hook that asks for a remap of two pages on a
 *	one-page mapping: mmap() must refuse it, without a warning.
 * These two come from kit_range_devs.h, which kit_range_probe shares on
 * mainline; mainline answers them otherwise, and check_action_range expects
 * each kernel's answer.
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

#include "kit_range_devs.h"

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

static atomic_t compat_merge_hook_calls = ATOMIC_INIT(0);

static int hook_calls_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(kp->arg));
}

/* The counters are read-only: "merge_hook_calls=1" at insmod is refused. */
static int hook_calls_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops hook_calls_ops = {
	.set = hook_calls_set,
	.get = hook_calls_get,
};
module_param_cb(merge_hook_calls, &hook_calls_ops, &merge_hook_calls, 0444);
MODULE_PARM_DESC(merge_hook_calls, "success hook calls of /dev/kit_merge");
module_param_cb(compat_merge_hook_calls, &hook_calls_ops,
		&compat_merge_hook_calls, 0444);
MODULE_PARM_DESC(compat_merge_hook_calls,
		 "success hook calls of /dev/kit_compat_merge");

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

/**
 * compat_merge_success() - count the new VMAs of /dev/kit_compat_merge
 * @vma: the new VMA (unused)
 *
 * Return: 0.
 */
static int compat_merge_success(const struct vm_area_struct *vma)
{
	atomic_inc(&compat_merge_hook_calls);
	return 0;
}

/**
 * compat_merge_mmap_prepare() - change the flags and set a success hook
 * @desc: descriptor built by the compat path from the VMA of the outer file
 *
 * Return: 0, or -EINVAL past the pages or for a private mapping.
 */
static int compat_merge_mmap_prepare(struct vm_area_desc *desc)
{
	if (!(desc->vm_flags & VM_MAYSHARE) ||
	    desc->pgoff + vma_desc_pages(desc) > KIT_MERGE_PAGES)
		return -EINVAL;
	/* A flag change: 6.12's .mmap() path would try to merge again. */
	desc->vm_flags |= VM_DONTDUMP;
	desc->vm_ops = &merge_vm_ops;
	desc->action.success_hook = compat_merge_success;
	return 0;
}

/* No .owner: the inner file never reaches userspace; the outer one pins us. */
static const struct file_operations compat_merge_inner_fops = {
	.mmap_prepare = compat_merge_mmap_prepare,
};

/**
 * compat_merge_open() - give each open file an inner .mmap_prepare file
 * @inode: the misc device inode
 * @file: the file being opened
 *
 * Return: 0, or the error of anon_inode_getfile().
 */
static int compat_merge_open(struct inode *inode, struct file *file)
{
	struct file *inner;

	inner = anon_inode_getfile("kit_compat_merge_inner",
				   &compat_merge_inner_fops, NULL, O_RDWR);
	if (IS_ERR(inner))
		return PTR_ERR(inner);
	file->private_data = inner;
	return 0;
}

static int compat_merge_release(struct inode *inode, struct file *file)
{
	fput(file->private_data);
	return 0;
}

/**
 * compat_merge_mmap() - map through the inner file, keeping vm_file
 * @file: the outer file, which stays the VMA's file
 * @vma: the VMA being set up
 *
 * Return: what vfs_mmap() on the inner file returns.
 */
static int compat_merge_mmap(struct file *file, struct vm_area_struct *vma)
{
	return vfs_mmap(file->private_data, vma);
}

static const struct file_operations compat_merge_fops = {
	.owner = THIS_MODULE,
	.open = compat_merge_open,
	.release = compat_merge_release,
	.mmap = compat_merge_mmap,
};

static struct miscdevice compat_merge_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kit_compat_merge",
	.fops = &compat_merge_fops,
};

/**
 * positive_hook() - a buggy success hook that returns a positive value
 * @vma: the new VMA (unused)
 *
 * Return: 1, which is neither 0 nor a negative errno.
 */
static int positive_hook(const struct vm_area_struct *vma)
{
	return 1;
}

/**
 * positive_mmap_prepare() - a shared mapping with the buggy success hook
 * @desc: descriptor of the mapping
 *
 * Return: 0, or -EINVAL past the pages or for a private mapping.
 */
static int positive_mmap_prepare(struct vm_area_desc *desc)
{
	if (!(desc->vm_flags & VM_MAYSHARE) ||
	    desc->pgoff + vma_desc_pages(desc) > KIT_MERGE_PAGES)
		return -EINVAL;
	desc->vm_ops = &merge_vm_ops;
	desc->action.success_hook = positive_hook;
	return 0;
}

static const struct file_operations positive_fops = {
	.owner = THIS_MODULE,
	.mmap_prepare = positive_mmap_prepare,
};

static struct miscdevice positive_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kit_positive_hook",
	.fops = &positive_fops,
};

/**
 * one_shared_page() - is this the one mapping the range probes accept?
 * @desc: descriptor of the mapping
 *
 * Return: true for one shared page at offset 0.
 */
static bool one_shared_page(const struct vm_area_desc *desc)
{
	return !desc->pgoff && vma_desc_size(desc) == PAGE_SIZE &&
	       (desc->vm_flags & VM_MAYSHARE);
}

static struct miscdevice *const probe_devs[] = {
	&both_dev, &compat_dev, &merge_dev, &compat_merge_dev, &positive_dev,
	&bad_range_dev, &oversize_dev,
};

static void free_merge_pages(void)
{
	int i;

	for (i = 0; i < KIT_MERGE_PAGES; i++)
		if (merge_pages[i])
			__free_page(merge_pages[i]);
}

static void deregister_probe_devs(int n)
{
	while (n--)
		misc_deregister(probe_devs[n]);
}

static void free_probe_pages(void)
{
	free_merge_pages();
	if (compat_page)
		__free_page(compat_page);
	range_pages_free();
}

static int __init kit_mmap_probe_init(void)
{
	int i, ret;

	for (i = 0; i < KIT_MERGE_PAGES; i++) {
		merge_pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!merge_pages[i])
			goto nomem;
	}
	compat_page = alloc_page(GFP_KERNEL);
	if (!compat_page || range_pages_alloc())
		goto nomem;
	memset(page_address(compat_page), KIT_COMPAT_FILL, PAGE_SIZE);

	for (i = 0; i < ARRAY_SIZE(probe_devs); i++) {
		ret = misc_register(probe_devs[i]);
		if (ret) {
			deregister_probe_devs(i);
			free_probe_pages();
			return ret;
		}
	}
	return 0;

nomem:
	free_probe_pages();
	return -ENOMEM;
}

static void __exit kit_mmap_probe_exit(void)
{
	deregister_probe_devs(ARRAY_SIZE(probe_devs));
	free_probe_pages();
}

module_init(kit_mmap_probe_init);
module_exit(kit_mmap_probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: probes for the refused-hooks and compat paths");
