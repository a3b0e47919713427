// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_lab4 - stage 4 of the mmap_prepare lab: success and error hooks.
 *
 * Same device and same remap action as stage 2 (/dev/mmap_lab4). What changed
 * since stage 2: the driver also fills in desc->action.success_hook and
 * desc->action.error_hook, two callbacks the mm core calls once the action
 * has run.
 *
 * - success_hook(vma) runs after the action has populated the new VMA. It is
 *   the first time the driver sees the finished VMA, read-only (const). Here
 *   it counts mappings in the read-only module parameter success_hook_calls
 *   (/sys/module/mmap_lab4/parameters/success_hook_calls), and with
 *   vm_ops->open and ->close the VMAs that exist in live_mappings. ->close
 *   also runs for a new VMA whose action failed, which the success hook never
 *   saw: the hook marks the VMAs it counted (in vm_private_data), and ->close
 *   uncounts only marked ones.
 * - error_hook(err) runs when the action failed, after the mm core has
 *   already unmapped the new VMA. It may replace the error that mmap()
 *   returns: here any failure becomes -EAGAIN ("try again"). It must never
 *   return 0, since there is no mapping left to return.
 *
 * Hooks are only called when .mmap_prepare() succeeded and the mm core
 * created a new VMA for it; a refused mmap() reaches neither.
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

/*
 * Number of new mappings completed, shown by the read-only parameter below.
 * One counter for the module: the lab has one device, and module parameters
 * live in /sys/module/mmap_lab4/, not with the device.
 */
static atomic_t mmap_lab_success_hook_calls = ATOMIC_INIT(0);

/*
 * Number of VMAs of the device that exist now (live_mappings): one for each
 * new mapping, one more for each copy a split or fork() makes, one less for
 * each that goes. Per-mapping state of a real driver (a reference, an
 * allocation) follows the same rules.
 */
static atomic_t mmap_lab_live_mappings = ATOMIC_INIT(0);

/*
 * The mark the success hook leaves in the VMAs it counted. The mm core calls
 * ->close() also for a new VMA whose action failed, which the success hook
 * never saw: only a marked VMA may be uncounted.
 */
static char mmap_lab_counted_mark;

static int counter_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(kp->arg));
}

/* A load-time "success_hook_calls=N" would call .set: refuse it. */
static int counter_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops counter_ops = {
	.set = counter_set,
	.get = counter_get,
};

module_param_cb(success_hook_calls, &counter_ops,
		&mmap_lab_success_hook_calls, 0444);
MODULE_PARM_DESC(success_hook_calls,
		 "number of new mappings completed (read-only)");
module_param_cb(live_mappings, &counter_ops, &mmap_lab_live_mappings, 0444);
MODULE_PARM_DESC(live_mappings, "number of VMAs of the device now (read-only)");

/**
 * mmap_lab_mark_counted() - mark a VMA that the success hook counted
 * @vma: the new VMA, as the success hook receives it
 *
 * The one write to the VMA this driver allows itself. The success hook gets
 * a const VMA, yet ->close() must be able to tell a counted VMA from the new
 * VMA of a failed action, and vm_private_data is where a VMA carries the
 * driver's state. The write is safe: the field belongs to the driver, the
 * VMA is new, and the mmap lock is held for writing, so no fault or other
 * vm_ops call can read the field meanwhile. Nothing the mm core reads (flags,
 * vm_ops, page tables) may be changed this way. Mainline removed the success
 * hook and gives vm_ops->mapped() the address of vm_private_data instead
 * (stage 5); the v4 series' own hugetlbfs conversion wrote through the same
 * cast.
 *
 * Context: process context, mmap write lock held.
 */
static void mmap_lab_mark_counted(const struct vm_area_struct *vma)
{
	((struct vm_area_struct *)vma)->vm_private_data = &mmap_lab_counted_mark;
}

/**
 * mmap_lab_success_hook() - account for a new, fully populated mapping
 * @vma: the new VMA, after the remap action filled its page tables
 *
 * Context: process context, mmap write lock held.
 * Return: 0. A non-zero value would make mmap() fail.
 */
static int mmap_lab_success_hook(const struct vm_area_struct *vma)
{
	/* TODO 1/3: count it in both counters; mark the VMA (the helper above) */
	atomic_inc(&mmap_lab_success_hook_calls);
	atomic_inc(&mmap_lab_live_mappings);
	mmap_lab_mark_counted(vma);
	pr_debug("mapped [%#lx, %#lx)\n", vma->vm_start, vma->vm_end);
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
 * do_munmap() before it calls the error hook): the success hook never ran for
 * it, and it has no mark.
 *
 * Context: mmap write lock held.
 */
static void mmap_lab_close(struct vm_area_struct *vma)
{
	if (vma->vm_private_data == &mmap_lab_counted_mark)
		atomic_dec(&mmap_lab_live_mappings);
}

static const struct vm_operations_struct mmap_lab_vm_ops = {
	.open = mmap_lab_open,
	.close = mmap_lab_close,
};

/**
 * mmap_lab_error_hook() - choose the error mmap() reports when the action
 * fails
 * @err: the error of the action (-ENOMEM from the page table allocation,
 *       or from the fail_mmap_action fault injection)
 *
 * The mm core calls this after it has unmapped the half-built VMA.
 *
 * Context: process context, mmap write lock held.
 * Return: -EAGAIN; never 0, the mapping no longer exists.
 */
static int mmap_lab_error_hook(int err)
{
	pr_debug("remap action failed (%d), reporting -EAGAIN\n", err);
	/* TODO 2/1: report -EAGAIN instead of err, whatever err is (never 0) */
	err = -EAGAIN;
	return err;
}

/**
 * mmap_lab_mmap_prepare() - check a new mapping, ask for a full remap with
 * hooks
 * @desc: the mapping to be created; the driver reads the request from it and
 *        writes back flags and the action with its hooks
 *
 * As in stage 2, plus the two hooks of desc->action and the vm_ops that
 * follow the VMA's copies. The mm core creates the VMA from @desc, performs
 * the remap, then calls exactly one of the hooks.
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

	/* Stage 2: remap the whole VMA once it exists. */
	mmap_action_remap_full(desc, page_to_pfn(ldev->pages) + desc->pgoff);

	/* The VMA gets these before the action runs: ->close sees a failure. */
	desc->vm_ops = &mmap_lab_vm_ops;

	/*
	 * The hooks travel with the action; mmap_action_remap_full() does not
	 * touch them, so the order of these lines does not matter.
	 */
	/* TODO 3/2: install both hooks in desc->action */
	desc->action.success_hook = mmap_lab_success_hook;
	desc->action.error_hook = mmap_lab_error_hook;
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
		.name = "mmap_lab4",
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
MODULE_DESCRIPTION("mmap lab stage 4: remap action with success and error hooks");
