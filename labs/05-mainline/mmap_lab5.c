// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_lab5 - stage 5 of the mmap_prepare lab: stage 4 on mainline's API.
 *
 * Same device and same remap action as stage 4 (/dev/mmap_lab5), built for
 * and booted on Debian's mainline (7.x) kernel. What changed since stage 4 is
 * only what mainline changed in the API:
 *
 * - The descriptor's flags are a vma_flags_t bitmap, desc->vma_flags. Drivers
 *   read and write it only through helpers that take bit numbers:
 *   vma_desc_test(), vma_desc_test_any(), vma_desc_set_flags() and
 *   vma_desc_clear_flags(), with VMA_*_BIT (VMA_MAYSHARE_BIT, ...).
 * - There is no success hook. Per-mapping work goes to vm_ops->mapped(),
 *   which the mm core calls once a new VMA exists and its action has run.
 *   It gets the range and the file, never the VMA, and it is not called when
 *   the new mapping merged into a neighbour. Here it counts mappings in the
 *   read-only parameter mapped_calls, and with vm_ops->open and ->close the
 *   VMAs that exist in live_mappings. ->close also runs for a new VMA whose
 *   action failed, which ->mapped never saw: ->mapped marks the VMAs it
 *   counted (through its vm_private_data argument), and ->close uncounts
 *   only those.
 * - There is no error hook. The errno that mmap() reports when the action
 *   fails is a plain value, desc->action.error_override: here -EAGAIN.
 *
 * A second device, /dev/mmap_lab5_pages, shows a mainline-only action: its
 * buffer is made of single pages that are not physical neighbours, and
 * mmap_action_map_kernel_pages_full() inserts them one by one into the new
 * VMA (the prepare-time form of vm_insert_pages()). A PFN remap cannot map
 * such a buffer: it needs one physically contiguous range.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>

#define MMAP_LAB_BUF_ORDER	4	/* 2^4 = 16 pages */
#define MMAP_LAB_BUF_PAGES	BIT(MMAP_LAB_BUF_ORDER)
#define MMAP_LAB_BUF_SIZE	(MMAP_LAB_BUF_PAGES << PAGE_SHIFT)

/**
 * struct mmap_lab_dev - a buffer device
 * @misc: misc character device; misc_open() points file->private_data at it
 * @pages: /dev/mmap_lab5: first of %MMAP_LAB_BUF_PAGES physically contiguous
 *         pages, split so that every page has its own reference count
 * @page_array: /dev/mmap_lab5_pages: the %MMAP_LAB_BUF_PAGES single pages
 *              of the buffer, in buffer order
 * @buf: kernel virtual address of the buffer (linear map, or vmap() of
 *       @page_array)
 * @size: size of the buffer in bytes
 */
struct mmap_lab_dev {
	struct miscdevice misc;
	struct page *pages;
	struct page **page_array;
	void *buf;
	size_t size;
};

static struct mmap_lab_dev *to_mmap_lab_dev(const struct file *file)
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

/*
 * Number of new mappings completed on either device, shown by the read-only
 * parameter below (/sys/module/mmap_lab5/parameters/mapped_calls).
 */
static atomic_t mmap_lab_mapped_calls = ATOMIC_INIT(0);

/*
 * Number of VMAs of either device that exist now (live_mappings): one for
 * each new mapping, one more for each copy a split or fork() makes, one less
 * for each that goes. Per-mapping state of a real driver (a reference, an
 * allocation) follows the same rules.
 */
static atomic_t mmap_lab_live_mappings = ATOMIC_INIT(0);

/*
 * The mark mmap_lab_mapped() leaves in the VMAs it counted. The mm core
 * calls ->close() also for a new VMA whose action failed, which ->mapped()
 * never saw: only a marked VMA may be uncounted.
 */
static char mmap_lab_counted_mark;

static int counter_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(kp->arg));
}

/* A load-time "mapped_calls=N" would call .set: refuse it. */
static int counter_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops counter_ops = {
	.set = counter_set,
	.get = counter_get,
};

module_param_cb(mapped_calls, &counter_ops, &mmap_lab_mapped_calls, 0444);
MODULE_PARM_DESC(mapped_calls, "number of new mappings completed (read-only)");
module_param_cb(live_mappings, &counter_ops, &mmap_lab_live_mappings, 0444);
MODULE_PARM_DESC(live_mappings, "number of VMAs of the devices now (read-only)");

/**
 * mmap_lab_mapped() - account for a new, fully populated mapping
 * @start: start address of the new VMA
 * @end: end address of the new VMA (exclusive)
 * @pgoff: page offset of the mapping in the file
 * @file: the file being mapped
 * @vm_private_data: the new VMA's vm_private_data, which the hook may change
 *
 * Mainline's replacement for stage 4's success hook: the mm core calls it
 * once the new VMA exists and the action has populated it. It is not given
 * the VMA, and it is not called when the mapping merged into an existing VMA
 * (these devices' mappings never merge: their VMAs are VM_PFNMAP or
 * VM_MIXEDMAP). A non-zero return would unmap the new VMA and make mmap()
 * fail with that error (or the action's error_override).
 *
 * Context: process context, mmap write lock held.
 * Return: 0.
 */
static int mmap_lab_mapped(unsigned long start, unsigned long end,
			   pgoff_t pgoff, const struct file *file,
			   void **vm_private_data)
{
	/* TODO 1/3: count it in both counters; mark the VMA (*vm_private_data) */
	atomic_inc(&mmap_lab_mapped_calls);
	atomic_inc(&mmap_lab_live_mappings);
	*vm_private_data = &mmap_lab_counted_mark;
	pr_debug("%s: mapped [%#lx, %#lx) at page %lu\n",
		 to_mmap_lab_dev(file)->misc.name, start, end, pgoff);
	return 0;
}

/**
 * mmap_lab_open() - count a copy of a counted VMA
 * @vma: the new VMA, a copy that a split or fork() made
 *
 * The copy inherits vm_private_data, the mark included.
 *
 * Context: mmap write lock held.
 */
static void mmap_lab_open(struct vm_area_struct *vma)
{
	if (vma->vm_private_data == &mmap_lab_counted_mark)
		atomic_inc(&mmap_lab_live_mappings);
}

/**
 * mmap_lab_close() - uncount a VMA that goes away
 * @vma: the VMA being removed
 *
 * Also called for a new VMA whose action failed (the mm core unmaps it with
 * do_munmap()): mmap_lab_mapped() never ran for it, and it has no mark.
 *
 * Context: mmap write lock held.
 */
static void mmap_lab_close(struct vm_area_struct *vma)
{
	if (vma->vm_private_data == &mmap_lab_counted_mark)
		atomic_dec(&mmap_lab_live_mappings);
}

static const struct vm_operations_struct mmap_lab_vm_ops = {
	.mapped = mmap_lab_mapped,
	.open = mmap_lab_open,
	.close = mmap_lab_close,
};

/**
 * mmap_lab_check_request() - the checks of stage 4, in mainline's flag helpers
 * @desc: the mapping to be created
 * @ldev: the device being mapped
 *
 * Context: process context, mmap write lock held.
 * Return: 0 if @desc may be mapped; -EINVAL for a MAP_PRIVATE mapping or a
 * range that does not fit in the buffer; -EPERM for PROT_EXEC.
 */
static int mmap_lab_check_request(struct vm_area_desc *desc,
				  const struct mmap_lab_dev *ldev)
{
	/* Only MAP_SHARED (VM_MAYSHARE, see stage 1). */
	/* TODO 2/4: refuse a mapping that is not shared, then PROT_EXEC */
	if (!vma_desc_test(desc, VMA_MAYSHARE_BIT))
		return -EINVAL;
	if (vma_desc_test(desc, VMA_EXEC_BIT))
		return -EPERM;

	/* [pgoff, pgoff + size) must lie inside the buffer. */
	if (desc->pgoff >= ldev->size >> PAGE_SHIFT ||
	    vma_desc_size(desc) > ldev->size - (desc->pgoff << PAGE_SHIFT))
		return -EINVAL;

	/* mprotect(PROT_EXEC) later must fail too: drop VM_MAYEXEC. */
	/* TODO 3/2: keep the mapping from growing or being dumped; forbid exec */
	vma_desc_set_flags(desc, VMA_DONTEXPAND_BIT, VMA_DONTDUMP_BIT);
	vma_desc_clear_flags(desc, VMA_MAYEXEC_BIT);
	return 0;
}

/**
 * mmap_lab_mmap_prepare() - check a new mapping, ask for a full remap
 * @desc: the mapping to be created; the driver reads the request from it and
 *        writes back flags, vm_ops and the action
 *
 * As in stage 4, without the hooks: per-mapping work is in vm_ops->mapped,
 * and the errno of a failed action is a value in the action.
 *
 * Context: process context, mmap write lock held.
 * Return: 0 on success, or the error of mmap_lab_check_request().
 */
static int mmap_lab_mmap_prepare(struct vm_area_desc *desc)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(desc->file);
	int ret;

	ret = mmap_lab_check_request(desc, ldev);
	if (ret)
		return ret;

	mmap_action_remap_full(desc, page_to_pfn(ldev->pages) + desc->pgoff);

	/* TODO 4/2: count mappings in vm_ops->mapped; report -EAGAIN on failure */
	desc->vm_ops = &mmap_lab_vm_ops;
	desc->action.error_override = -EAGAIN;
	return 0;
}

/**
 * mmap_lab_pages_mmap_prepare() - map the scattered buffer page by page
 * @desc: the mapping to be created
 *
 * Same checks, vm_ops and error as /dev/mmap_lab5; the action inserts the
 * buffer's pages, from page @desc->pgoff on, instead of remapping one PFN
 * range. The map-kernel-pages action sets VM_MIXEDMAP itself.
 *
 * Context: process context, mmap write lock held.
 * Return: 0 on success, or the error of mmap_lab_check_request().
 */
static int mmap_lab_pages_mmap_prepare(struct vm_area_desc *desc)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(desc->file);
	int ret;

	ret = mmap_lab_check_request(desc, ldev);
	if (ret)
		return ret;

	/* The action maps pages[0] at desc->start: start at page pgoff. */
	/* TODO 5/1: map the buffer's pages from page desc->pgoff on */
	mmap_action_map_kernel_pages_full(desc, ldev->page_array + desc->pgoff);

	desc->vm_ops = &mmap_lab_vm_ops;
	desc->action.error_override = -EAGAIN;
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

static const struct file_operations mmap_lab_pages_fops = {
	.owner = THIS_MODULE,
	.read = mmap_lab_read,
	.write = mmap_lab_write,
	.llseek = mmap_lab_llseek,
	.mmap_prepare = mmap_lab_pages_mmap_prepare,
};

static struct mmap_lab_dev mmap_lab_dev = {
	.misc = {
		.minor = MISC_DYNAMIC_MINOR,
		.name = "mmap_lab5",
		.fops = &mmap_lab_fops,
	},
	.size = MMAP_LAB_BUF_SIZE,
};

static struct mmap_lab_dev mmap_lab_pages_dev = {
	.misc = {
		.minor = MISC_DYNAMIC_MINOR,
		.name = "mmap_lab5_pages",
		.fops = &mmap_lab_pages_fops,
	},
	.size = MMAP_LAB_BUF_SIZE,
};

static void mmap_lab_free_buffer(struct mmap_lab_dev *ldev)
{
	unsigned long i;

	for (i = 0; i < MMAP_LAB_BUF_PAGES; i++)
		__free_page(ldev->pages + i);
}

static int mmap_lab_alloc_buffer(struct mmap_lab_dev *ldev)
{
	ldev->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, MMAP_LAB_BUF_ORDER);
	if (!ldev->pages)
		return -ENOMEM;
	/* One reference count per page instead of one for the whole block. */
	split_page(ldev->pages, MMAP_LAB_BUF_ORDER);
	ldev->buf = page_address(ldev->pages);
	return 0;
}

static void mmap_lab_free_pages(struct page **pages, unsigned long n)
{
	while (n)
		__free_page(pages[--n]);
}

static void mmap_lab_free_page_array(struct mmap_lab_dev *ldev)
{
	vunmap(ldev->buf);
	mmap_lab_free_pages(ldev->page_array, MMAP_LAB_BUF_PAGES);
	kfree(ldev->page_array);
}

/*
 * A buffer of single pages, none of them the physical neighbour of the page
 * before it, seen by the kernel through vmap() as one range. Real buffers of
 * this kind come from vmalloc() or from pages collected over time; their
 * physical order is whatever the allocator gave. A freshly booted machine
 * tends to hand out neighbours, which would hide a driver that (wrongly)
 * maps such a buffer as one PFN range: so neighbours are set aside here
 * until the buffer is complete, then freed.
 */
static int mmap_lab_alloc_page_array(struct mmap_lab_dev *ldev)
{
	struct page **spare;
	unsigned long n = 0, n_spare = 0;
	struct page *page;
	int ret = -ENOMEM;

	ldev->page_array = kcalloc(MMAP_LAB_BUF_PAGES, sizeof(*ldev->page_array),
				   GFP_KERNEL);
	spare = kcalloc(MMAP_LAB_BUF_PAGES, sizeof(*spare), GFP_KERNEL);
	if (!ldev->page_array || !spare)
		goto out;
	while (n < MMAP_LAB_BUF_PAGES) {
		page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!page)
			goto out;
		if (n && page_to_pfn(page) == page_to_pfn(ldev->page_array[n - 1]) + 1 &&
		    n_spare < MMAP_LAB_BUF_PAGES)
			spare[n_spare++] = page;
		else
			ldev->page_array[n++] = page;
	}
	ldev->buf = vmap(ldev->page_array, MMAP_LAB_BUF_PAGES, VM_MAP, PAGE_KERNEL);
	if (ldev->buf)
		ret = 0;
out:
	if (spare)
		mmap_lab_free_pages(spare, n_spare);
	kfree(spare);
	if (ret && ldev->page_array) {
		mmap_lab_free_pages(ldev->page_array, n);
		kfree(ldev->page_array);
	}
	return ret;
}

static int __init mmap_lab_init(void)
{
	int ret;

	ret = mmap_lab_alloc_buffer(&mmap_lab_dev);
	if (ret)
		return ret;
	ret = mmap_lab_alloc_page_array(&mmap_lab_pages_dev);
	if (ret)
		goto free_buffer;
	ret = misc_register(&mmap_lab_dev.misc);
	if (ret)
		goto free_page_array;
	ret = misc_register(&mmap_lab_pages_dev.misc);
	if (ret)
		goto deregister;
	return 0;

deregister:
	misc_deregister(&mmap_lab_dev.misc);
free_page_array:
	mmap_lab_free_page_array(&mmap_lab_pages_dev);
free_buffer:
	mmap_lab_free_buffer(&mmap_lab_dev);
	return ret;
}
module_init(mmap_lab_init);

static void __exit mmap_lab_exit(void)
{
	misc_deregister(&mmap_lab_pages_dev.misc);
	misc_deregister(&mmap_lab_dev.misc);
	mmap_lab_free_page_array(&mmap_lab_pages_dev);
	mmap_lab_free_buffer(&mmap_lab_dev);
}
module_exit(mmap_lab_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap lab stage 5: stage 4 on mainline's API, and kernel pages");
