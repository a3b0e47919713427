// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_lab1 - stage 1 of the mmap_prepare lab: .mmap_prepare() and a fault
 * handler.
 *
 * Same device as stage 0 (/dev/mmap_lab1, a 64 KiB buffer of kernel pages),
 * mapped the new way. What changed since stage 0:
 *
 * - .mmap is replaced by .mmap_prepare(). It receives a struct vm_area_desc
 *   describing the mapping *before* the mm core creates the VMA. All checks
 *   are done on the descriptor, so a refused mmap() never leaves a half-built
 *   VMA behind, and the driver never sees a VMA it could misuse.
 * - Flags are plain bit operations on desc->vm_flags: there is no VMA yet,
 *   hence no vm_flags_set() and no VMA lock.
 * - Without a VMA there are no page tables to fill: remap_pfn_range() is not
 *   available here. The driver installs desc->vm_ops instead, whose .fault
 *   handler hands the mm core the buffer page of each address on first
 *   access. desc->private_data becomes vma->vm_private_data for the handler.
 * - Pages returned by .fault are ordinary reference-counted pages: the VMA is
 *   neither VM_PFNMAP nor VM_IO (VmFlags "dd de" only) and every page table
 *   entry holds a reference on its page. This is why the buffer is split into
 *   order-0 pages with split_page().
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
 * mmap_lab_fault() - supply the buffer page behind a faulting address
 * @vmf: fault description; vmf->pgoff is the page offset in the device file
 *       (the mmap() offset plus the page index inside the VMA)
 *
 * Called on the first access to each page of the mapping (and again after
 * fork(), or after the page table entry was zapped). The handler only finds
 * the page; the mm core installs the page table entry, which then owns the
 * reference taken here and drops it when the entry is unmapped.
 *
 * Context: process context, mmap or VMA lock held for read.
 * Return: 0 with vmf->page set, or %VM_FAULT_SIGBUS past the end of the
 * buffer.
 */
static vm_fault_t mmap_lab_fault(struct vm_fault *vmf)
{
	struct mmap_lab_dev *ldev = vmf->vma->vm_private_data;

	if (vmf->pgoff < ldev->size >> PAGE_SHIFT) {
		/* TODO 1/3: vmf->page = buffer page at vmf->pgoff; get_page() it; return 0 */
		vmf->page = ldev->pages + vmf->pgoff;
		get_page(vmf->page);
		return 0;
	}

	/* Past the end of the buffer there is no page: the access gets SIGBUS. */
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct mmap_lab_vm_ops = {
	.fault = mmap_lab_fault,
};

/**
 * mmap_lab_mmap_prepare() - check and describe a new mapping of the buffer
 * @desc: the mapping to be created; the driver reads the request from it and
 *        writes back flags, vm_ops and private data
 *
 * Runs before the VMA exists. Returning an error here makes mmap() fail with
 * nothing to undo. On success the mm core creates the VMA from @desc: VMA
 * flags from desc->vm_flags, vma->vm_ops from desc->vm_ops and
 * vma->vm_private_data from desc->private_data.
 *
 * Context: process context, mmap write lock held.
 * Return: 0 on success; -EINVAL for a MAP_PRIVATE mapping or a range that
 * does not fit in the buffer; -EPERM for PROT_EXEC.
 */
static int mmap_lab_mmap_prepare(struct vm_area_desc *desc)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(desc->file);

	/*
	 * MAP_SHARED sets VM_MAYSHARE, and also VM_SHARED unless the file was
	 * opened read-only, so VM_MAYSHARE is the flag to test.
	 */
	/* TODO 2/2: refuse a mapping without VM_MAYSHARE (MAP_PRIVATE) with -EINVAL */
	if (!(desc->vm_flags & VM_MAYSHARE))
		return -EINVAL;

	/* TODO 3/2: refuse PROT_EXEC (VM_EXEC) with -EPERM */
	if (desc->vm_flags & VM_EXEC)
		return -EPERM;

	/* TODO 4/3: refuse a range past the buffer with -EINVAL (desc->pgoff, vma_desc_size()) */
	if (desc->pgoff >= ldev->size >> PAGE_SHIFT ||
	    vma_desc_size(desc) > ldev->size - (desc->pgoff << PAGE_SHIFT))
		return -EINVAL;

	/*
	 * Same flags as stage 0, but on the descriptor: no mremap() growth,
	 * not in core dumps, no later mprotect(PROT_EXEC).
	 */
	/* TODO 5/2: add VM_DONTEXPAND | VM_DONTDUMP to desc->vm_flags, remove VM_MAYEXEC */
	desc->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	desc->vm_flags &= ~VM_MAYEXEC;

	/* Nothing is mapped yet: mmap_lab_fault() maps each page on demand. */
	desc->vm_ops = &mmap_lab_vm_ops;
	desc->private_data = ldev;
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
		.name = "mmap_lab1",
		.fops = &mmap_lab_fops,
	},
	.size = MMAP_LAB_BUF_SIZE,
};

static void mmap_lab_free_buffer(struct mmap_lab_dev *ldev)
{
	unsigned long i;

	/*
	 * Drops our reference only: a page still held elsewhere (say, pinned
	 * by get_user_pages() through a mapping) is freed with its last user.
	 */
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
	/* One reference count per page: the fault handler takes one per PTE. */
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
MODULE_DESCRIPTION("mmap lab stage 1: .mmap_prepare() with a fault handler");
