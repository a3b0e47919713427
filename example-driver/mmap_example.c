// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_example - a misc device whose buffer user space can mmap(), written
 * with .mmap_prepare(). Template for new drivers; see README.md next to it.
 *
 * /dev/mmap_example is a buffer of physically contiguous kernel pages.
 * read(), write() and lseek() treat it as a fixed-size file; mmap() maps it
 * with MAP_SHARED only, never executable, never past its end.
 *
 * .mmap_prepare() runs before the VMA exists: it checks the request in the
 * struct vm_area_desc, adjusts the flags there and records an action,
 * "remap the whole range to these PFNs". The mm core creates the VMA,
 * performs the remap, then calls one of the action's hooks:
 * - success_hook(vma) once the VMA is fully populated: it counts mappings in
 *   the read-only module parameter success_hook_calls;
 * - error_hook(err) if the remap failed, after the VMA was unmapped again: it
 *   makes mmap() report -EAGAIN. It must never return 0.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#define MMAP_EXAMPLE_BUF_ORDER	4	/* 2^4 = 16 pages */
#define MMAP_EXAMPLE_BUF_PAGES	BIT(MMAP_EXAMPLE_BUF_ORDER)
#define MMAP_EXAMPLE_BUF_SIZE	(MMAP_EXAMPLE_BUF_PAGES << PAGE_SHIFT)

/**
 * struct mmap_example_dev - the buffer device
 * @misc: misc character device; misc_open() points file->private_data at it
 * @pages: first of %MMAP_EXAMPLE_BUF_PAGES physically contiguous pages,
 *         split so that every page has its own reference count
 * @buf: kernel virtual address of the buffer (linear map)
 * @size: size of the buffer in bytes
 */
struct mmap_example_dev {
	struct miscdevice misc;
	struct page *pages;
	void *buf;
	size_t size;
};

static struct mmap_example_dev *to_mmap_example_dev(struct file *file)
{
	return container_of(file->private_data, struct mmap_example_dev, misc);
}

static ssize_t mmap_example_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct mmap_example_dev *edev = to_mmap_example_dev(file);

	return simple_read_from_buffer(ubuf, count, ppos, edev->buf, edev->size);
}

static ssize_t mmap_example_write(struct file *file,
				  const char __user *ubuf, size_t count,
				  loff_t *ppos)
{
	struct mmap_example_dev *edev = to_mmap_example_dev(file);

	/* The buffer is a fixed-size file: it cannot grow. */
	if (count && *ppos >= (loff_t)edev->size)
		return -ENOSPC;

	return simple_write_to_buffer(edev->buf, edev->size, ppos, ubuf, count);
}

static loff_t mmap_example_llseek(struct file *file, loff_t offset, int whence)
{
	struct mmap_example_dev *edev = to_mmap_example_dev(file);

	return fixed_size_llseek(file, offset, whence, edev->size);
}

/*
 * Number of new mappings completed, shown by the read-only parameter below.
 * One counter for the module: there is one device, and module parameters
 * live in /sys/module/mmap_example/, not with the device.
 */
static atomic_t mmap_example_success_hook_calls = ATOMIC_INIT(0);

static int success_hook_calls_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(kp->arg));
}

/* Load-time "success_hook_calls=N" would call .set: refuse it. */
static int success_hook_calls_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops success_hook_calls_ops = {
	.set = success_hook_calls_set,
	.get = success_hook_calls_get,
};

module_param_cb(success_hook_calls, &success_hook_calls_ops,
		&mmap_example_success_hook_calls, 0444);
MODULE_PARM_DESC(success_hook_calls,
		 "number of new mappings completed (read-only)");

/**
 * mmap_example_success_hook() - account for a new, fully populated mapping
 * @vma: the new VMA, after the remap action filled its page tables
 *
 * Context: process context, mmap write lock held.
 * Return: 0. A non-zero value would make mmap() fail.
 */
static int mmap_example_success_hook(const struct vm_area_struct *vma)
{
	atomic_inc(&mmap_example_success_hook_calls);
	pr_debug("mapped [%#lx, %#lx)\n", vma->vm_start, vma->vm_end);
	return 0;
}

/**
 * mmap_example_error_hook() - choose the error mmap() reports when the
 * action fails
 * @err: the error of the action, such as -ENOMEM when page tables could not
 *       be allocated
 *
 * The mm core calls this after it has unmapped the half-built VMA.
 *
 * Context: process context, mmap write lock held.
 * Return: -EAGAIN; never 0, the mapping no longer exists.
 */
static int mmap_example_error_hook(int err)
{
	pr_debug("remap action failed (%d), reporting -EAGAIN\n", err);
	return -EAGAIN;
}

/**
 * mmap_example_mmap_prepare() - check a new mapping, ask for a full remap
 * with hooks
 * @desc: the mapping to be created; the driver reads the request from it and
 *        writes back flags and the action with its hooks
 *
 * Runs before the VMA exists: an error returned here makes mmap() fail with
 * nothing to undo. On success the mm core creates the VMA from @desc,
 * performs the remap, then calls exactly one of the hooks.
 *
 * Context: process context, mmap write lock held.
 * Return: 0 on success; -EINVAL for a MAP_PRIVATE mapping or a range that
 * does not fit in the buffer; -EPERM for PROT_EXEC.
 */
static int mmap_example_mmap_prepare(struct vm_area_desc *desc)
{
	struct mmap_example_dev *edev = to_mmap_example_dev(desc->file);

	/*
	 * Only MAP_SHARED. It sets VM_MAYSHARE, and also VM_SHARED unless the
	 * file was opened read-only, so VM_MAYSHARE is the flag to test.
	 */
	if (!(desc->vm_flags & VM_MAYSHARE))
		return -EINVAL;

	if (desc->vm_flags & VM_EXEC)
		return -EPERM;

	/* [pgoff, pgoff + size) must lie inside the buffer. */
	if (desc->pgoff >= edev->size >> PAGE_SHIFT ||
	    vma_desc_size(desc) > edev->size - (desc->pgoff << PAGE_SHIFT))
		return -EINVAL;

	/*
	 * No mremap() growth, not in core dumps, no later mprotect(PROT_EXEC).
	 * The remap action adds VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP
	 * itself; the first two flags here only make the requirement explicit.
	 */
	desc->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	desc->vm_flags &= ~VM_MAYEXEC;

	/*
	 * Map the whole VMA, starting at the buffer page selected by the mmap()
	 * offset. Only recorded here: the mm core remaps once the VMA exists.
	 * For device memory (a PCI BAR), use mmap_action_ioremap_full() and set
	 * desc->page_prot = pgprot_noncached(desc->page_prot) *before* the call:
	 * the action copies desc->page_prot when it is recorded.
	 */
	mmap_action_remap_full(desc, page_to_pfn(edev->pages) + desc->pgoff);

	/* mmap_action_remap_full() leaves the hooks alone: any order works. */
	desc->action.success_hook = mmap_example_success_hook;
	desc->action.error_hook = mmap_example_error_hook;
	return 0;
}

/* .owner pins the module while a file or a mapping (vm_file) is open. */
static const struct file_operations mmap_example_fops = {
	.owner = THIS_MODULE,
	.read = mmap_example_read,
	.write = mmap_example_write,
	.llseek = mmap_example_llseek,
	.mmap_prepare = mmap_example_mmap_prepare,
};

static struct mmap_example_dev mmap_example_dev = {
	.misc = {
		.minor = MISC_DYNAMIC_MINOR,
		.name = "mmap_example",
		.fops = &mmap_example_fops,
	},
	.size = MMAP_EXAMPLE_BUF_SIZE,
};

static void mmap_example_free_buffer(struct mmap_example_dev *edev)
{
	unsigned long i;

	for (i = 0; i < MMAP_EXAMPLE_BUF_PAGES; i++)
		__free_page(edev->pages + i);
}

static int __init mmap_example_init(void)
{
	struct mmap_example_dev *edev = &mmap_example_dev;
	int ret;

	edev->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, MMAP_EXAMPLE_BUF_ORDER);
	if (!edev->pages)
		return -ENOMEM;
	/* One reference count per page instead of one for the whole block. */
	split_page(edev->pages, MMAP_EXAMPLE_BUF_ORDER);
	edev->buf = page_address(edev->pages);

	ret = misc_register(&edev->misc);
	if (ret)
		mmap_example_free_buffer(edev);
	return ret;
}
module_init(mmap_example_init);

static void __exit mmap_example_exit(void)
{
	misc_deregister(&mmap_example_dev.misc);
	mmap_example_free_buffer(&mmap_example_dev);
}
module_exit(mmap_example_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Example of .mmap_prepare() with a remap action and hooks");
