// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_lab2 - stage 2 of the mmap_prepare lab: the remap action.
 *
 * Same device again (/dev/mmap_lab2). What changed since stage 1:
 *
 * - No vm_ops and no fault handler. .mmap_prepare() still cannot touch page
 *   tables, but it can now ask for an *action*: mmap_action_remap_full()
 *   records in desc->action "map the whole VMA to these PFNs". Once the VMA
 *   exists, the mm core itself runs the equivalent of remap_pfn_range(), so
 *   the mapping is prepopulated as in stage 0 and the driver still never
 *   sees the VMA.
 * - Like remap_pfn_range(), the action makes the VMA VM_IO | VM_PFNMAP |
 *   VM_DONTEXPAND | VM_DONTDUMP (VmFlags "pf io dd de"); the mm core adds
 *   these flags to the descriptor when it prepares the action, right after
 *   .mmap_prepare() returns. Page table entries take no page references.
 * - The action runs after the VMA was inserted. If it fails (for example,
 *   no memory for page tables), the mm core unmaps the new VMA again and
 *   mmap() returns the error (-ENOMEM): the driver has nothing to clean up.
 */

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>

#define MMAP_LAB_BUF_ORDER	4	/* 2^4 = 16 pages */
#define MMAP_LAB_BUF_PAGES	BIT(MMAP_LAB_BUF_ORDER)
#define MMAP_LAB_BUF_SIZE	(MMAP_LAB_BUF_PAGES << PAGE_SHIFT)

/**
 * struct mmap_lab_dev - the buffer device
 * @misc: misc character device; misc_open() points file->private_data at it
 * @pages: first of %MMAP_LAB_BUF_PAGES physically contiguous pages, split so
 *         that every page has its own reference count
 * @buf: kernel virtual address of the buffer (linear map)
 * @size: size of the buffer in bytes
 */
struct mmap_lab_dev {
	struct miscdevice misc;
	struct page *pages;
	void *buf;
	size_t size;
};

static struct mmap_lab_dev *to_mmap_lab_dev(struct file *file)
{
	return container_of(file->private_data, struct mmap_lab_dev, misc);
}

static ssize_t mmap_lab_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(file);

	return simple_read_from_buffer(ubuf, count, ppos, ldev->buf, ldev->size);
}

static ssize_t mmap_lab_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(file);

	/* The buffer is a fixed-size file: it cannot grow. */
	if (count && *ppos >= (loff_t)ldev->size)
		return -ENOSPC;

	return simple_write_to_buffer(ldev->buf, ldev->size, ppos, ubuf, count);
}

static loff_t mmap_lab_llseek(struct file *file, loff_t offset, int whence)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(file);

	return fixed_size_llseek(file, offset, whence, ldev->size);
}

/**
 * mmap_lab_mmap_prepare() - check a new mapping and ask for a full remap
 * @desc: the mapping to be created; the driver reads the request from it and
 *        writes back flags and the action
 *
 * Runs before the VMA exists; the checks are those of stage 1. Instead of
 * vm_ops, the driver stores a remap action in desc->action. The mm core
 * creates the VMA from @desc and then performs the action on it.
 *
 * Context: process context, mmap write lock held.
 * Return: 0 on success; -EINVAL for a MAP_PRIVATE mapping or a range that
 * does not fit in the buffer; -EPERM for PROT_EXEC.
 */
static int mmap_lab_mmap_prepare(struct vm_area_desc *desc)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(desc->file);

	/* Only MAP_SHARED (VM_MAYSHARE, see stage 1). */
	if (!(desc->vm_flags & VM_MAYSHARE))
		return -EINVAL;

	if (desc->vm_flags & VM_EXEC)
		return -EPERM;

	/* [pgoff, pgoff + size) must lie inside the buffer. */
	if (desc->pgoff >= ldev->size >> PAGE_SHIFT ||
	    vma_desc_size(desc) > ldev->size - (desc->pgoff << PAGE_SHIFT))
		return -EINVAL;

	/*
	 * The remap action adds VM_DONTEXPAND | VM_DONTDUMP as well; saying so
	 * here keeps the driver's requirements visible. VM_MAYEXEC is ours.
	 */
	desc->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	desc->vm_flags &= ~VM_MAYEXEC;

	/*
	 * Map the whole VMA, [desc->start, desc->end), starting at the buffer
	 * page selected by the mmap() offset. Only recorded here: the mm core
	 * does the work once the VMA exists.
	 */
	/* TODO 1/1: mmap_action_remap_full() from the PFN of the buffer page at desc->pgoff */
	mmap_action_remap_full(desc, page_to_pfn(ldev->pages) + desc->pgoff);
	return 0;
}

/* .owner pins the module while a file or a mapping (vm_file) is open. */
static const struct file_operations mmap_lab_fops = {
	.owner = THIS_MODULE,
	.read = mmap_lab_read,
	.write = mmap_lab_write,
	.llseek = mmap_lab_llseek,
	.mmap_prepare = mmap_lab_mmap_prepare,
};

static struct mmap_lab_dev mmap_lab_dev = {
	.misc = {
		.minor = MISC_DYNAMIC_MINOR,
		.name = "mmap_lab2",
		.fops = &mmap_lab_fops,
	},
	.size = MMAP_LAB_BUF_SIZE,
};

static void mmap_lab_free_buffer(struct mmap_lab_dev *ldev)
{
	unsigned long i;

	for (i = 0; i < MMAP_LAB_BUF_PAGES; i++)
		__free_page(ldev->pages + i);
}

static int __init mmap_lab_init(void)
{
	struct mmap_lab_dev *ldev = &mmap_lab_dev;
	int ret;

	ldev->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, MMAP_LAB_BUF_ORDER);
	if (!ldev->pages)
		return -ENOMEM;
	/* One reference count per page instead of one for the whole block. */
	split_page(ldev->pages, MMAP_LAB_BUF_ORDER);
	ldev->buf = page_address(ldev->pages);

	ret = misc_register(&ldev->misc);
	if (ret)
		mmap_lab_free_buffer(ldev);
	return ret;
}
module_init(mmap_lab_init);

static void __exit mmap_lab_exit(void)
{
	misc_deregister(&mmap_lab_dev.misc);
	mmap_lab_free_buffer(&mmap_lab_dev);
}
module_exit(mmap_lab_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap lab stage 2: .mmap_prepare() with mmap_action_remap_full()");
