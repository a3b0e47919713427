// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_example - a misc device whose buffer user space can mmap(), written
 * with .mmap_prepare() for mainline (7.x) kernels. Template for new drivers;
 * see ../README.md. ../mmap_example.c is the same driver for the kit's 6.12
 * series.
 *
 * /dev/mmap_example is a buffer of physically contiguous kernel pages.
 * read(), write() and lseek() treat it as a fixed-size file; mmap() maps it
 * with MAP_SHARED only, never executable, never past its end.
 *
 * .mmap_prepare() runs before the VMA exists: it checks the request in the
 * struct vm_area_desc, adjusts the flags there and records an action,
 * "remap the whole range to these PFNs". The mm core creates the VMA and
 * performs the remap. Then:
 * - if the remap worked, it calls vm_ops->mapped() once for the new VMA:
 *   here it counts mappings in the read-only module parameter mapped_calls;
 * - if the remap failed, it unmaps the VMA again, and mmap() reports the
 *   action's error_override, here -EAGAIN, instead of the remap's error.
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

static struct mmap_example_dev *to_mmap_example_dev(const struct file *file)
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
static atomic_t mmap_example_mapped_calls = ATOMIC_INIT(0);

static int mapped_calls_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(kp->arg));
}

/* Load-time "mapped_calls=N" would call .set: refuse it. */
static int mapped_calls_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops mapped_calls_ops = {
	.set = mapped_calls_set,
	.get = mapped_calls_get,
};

module_param_cb(mapped_calls, &mapped_calls_ops, &mmap_example_mapped_calls,
		0444);
MODULE_PARM_DESC(mapped_calls, "number of new mappings completed (read-only)");

/**
 * mmap_example_mapped() - account for a new, fully populated mapping
 * @start: start address of the new VMA
 * @end: end address of the new VMA (exclusive)
 * @pgoff: page offset of the mapping in the file
 * @file: the file being mapped
 * @vm_private_data: the new VMA's vm_private_data, which the hook may change
 *
 * Called once the new VMA exists and the remap action has filled its page
 * tables; never for a mapping that merged into a neighbour (this device's
 * VM_PFNMAP mappings never merge). The VMA itself is not handed out.
 *
 * Context: process context, mmap write lock held.
 * Return: 0. An error would unmap the new VMA and make mmap() fail.
 */
static int mmap_example_mapped(unsigned long start, unsigned long end,
			       pgoff_t pgoff, const struct file *file,
			       void **vm_private_data)
{
	atomic_inc(&mmap_example_mapped_calls);
	pr_debug("mapped [%#lx, %#lx) at page %lu\n", start, end, pgoff);
	return 0;
}

static const struct vm_operations_struct mmap_example_vm_ops = {
	.mapped = mmap_example_mapped,
};

/**
 * mmap_example_mmap_prepare() - check a new mapping, ask for a full remap
 * @desc: the mapping to be created; the driver reads the request from it and
 *        writes back flags, vm_ops and the action
 *
 * Runs before the VMA exists: an error returned here makes mmap() fail with
 * nothing to undo. On success the mm core creates the VMA from @desc,
 * performs the remap, then calls vm_ops->mapped() or, if the remap failed,
 * unmaps the VMA and reports the action's error_override.
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
	if (!vma_desc_test(desc, VMA_MAYSHARE_BIT))
		return -EINVAL;

	if (vma_desc_test(desc, VMA_EXEC_BIT))
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
	vma_desc_set_flags(desc, VMA_DONTEXPAND_BIT, VMA_DONTDUMP_BIT);
	vma_desc_clear_flags(desc, VMA_MAYEXEC_BIT);

	/*
	 * Map the whole VMA, starting at the buffer page selected by the mmap()
	 * offset. Only recorded here: the mm core remaps once the VMA exists.
	 * For device memory (a PCI BAR), use mmap_action_simple_ioremap() with
	 * its physical address and size, and set desc->page_prot =
	 * pgprot_noncached(desc->page_prot) first. Pages that are not
	 * physically contiguous (vmalloc()) go through
	 * mmap_action_map_kernel_pages_full().
	 */
	mmap_action_remap_full(desc, page_to_pfn(edev->pages) + desc->pgoff);

	/* Per-mapping work, and the errno of a failed remap. */
	desc->vm_ops = &mmap_example_vm_ops;
	desc->action.error_override = -EAGAIN;
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
MODULE_DESCRIPTION("Example of .mmap_prepare() with a remap action (mainline API)");
