// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_lab0 - stage 0 of the mmap_prepare lab: the legacy .mmap() hook.
 *
 * /dev/mmap_lab0 is a 64 KiB buffer of kernel pages. read(), write() and
 * lseek() treat it as a fixed-size file; mmap() maps it into user space.
 *
 * This stage is the starting point: a classic .mmap() file operation. The
 * mm core has already built the VMA when it calls us, so the driver checks
 * that VMA, edits it in place (vm_flags_set()/vm_flags_clear()) and fills in
 * its page tables (remap_pfn_range()). The next stages move the same job to
 * .mmap_prepare(), which runs before the VMA exists.
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
 * mmap_lab_mmap() - map the buffer into a VMA (legacy .mmap file operation)
 * @file: the open device file
 * @vma: the VMA the mm core has just built for this mmap() call
 *
 * The VMA already exists when this runs. The driver validates it, then
 * modifies it in place: flags with vm_flags_set()/vm_flags_clear() (never a
 * plain write to vma->vm_flags), page tables with remap_pfn_range(). If this
 * fails half-way, the mm core has to tear down a VMA the driver has already
 * changed: one of the problems .mmap_prepare() solves.
 *
 * Context: process context, mmap write lock held.
 * Return: 0 on success; -EINVAL for a MAP_PRIVATE mapping or a range that
 * does not fit in the buffer; -EPERM for PROT_EXEC; or the error of
 * remap_pfn_range().
 */
static int mmap_lab_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(file);
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot = vma->vm_page_prot;

	if (printk_ratelimit())
		prot = vma->vm_page_prot;

	/*
	 * MAP_SHARED sets VM_MAYSHARE, and also VM_SHARED unless the file was
	 * opened read-only, so VM_MAYSHARE is the flag to test. MAP_PRIVATE
	 * would give the process private copies of the pages it writes.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;

	/* TODO 1/2: refuse PROT_EXEC (VM_EXEC in vma->vm_flags) with -EPERM */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;

	/* [vm_pgoff, vm_pgoff + size) must lie inside the buffer. */
	if (vma->vm_pgoff >= ldev->size >> PAGE_SHIFT ||
	    size > ldev->size - (vma->vm_pgoff << PAGE_SHIFT))
		return -EINVAL;

	/*
	 * VM_DONTEXPAND: mremap() may not grow the mapping past the buffer.
	 * VM_DONTDUMP: keep the buffer out of core dumps.
	 * ~VM_MAYEXEC: a later mprotect(PROT_EXEC) fails too.
	 */
	/* TODO 2/2: set VM_DONTEXPAND | VM_DONTDUMP and clear VM_MAYEXEC (vm_flags_*()) */
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vm_flags_clear(vma, VM_MAYEXEC);

	/*
	 * Fill in every page table entry now. remap_pfn_range() also sets
	 * VM_IO | VM_PFNMAP: the mm core will not look for a struct page
	 * behind these entries, so no page reference is taken per mapping.
	 */
	return remap_pfn_range(vma, vma->vm_start,
			       page_to_pfn(ldev->pages) + vma->vm_pgoff,
			       size, prot);
}

/* .owner pins the module while a file or a mapping (vm_file) is open. */
static const struct file_operations mmap_lab_fops = {
	.owner = THIS_MODULE,
	.read = mmap_lab_read,
	.write = mmap_lab_write,
	.llseek = mmap_lab_llseek,
	.mmap = mmap_lab_mmap,
};

static struct mmap_lab_dev mmap_lab_dev = {
	.misc = {
		.minor = MISC_DYNAMIC_MINOR,
		.name = "mmap_lab0",
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
MODULE_DESCRIPTION("mmap lab stage 0: legacy .mmap() with remap_pfn_range()");
