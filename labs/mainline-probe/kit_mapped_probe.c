// SPDX-License-Identifier: GPL-2.0
/*
 * kit_mapped_probe - the rules of mainline's vm_ops->mapped that no lab
 * device can show, for the mainline-probe stage's check_mapped:
 *
 * /dev/kit_mapped_merge: .mmap_prepare with a fault handler and a mapped
 *	callback on a mergeable mapping (no action, no VM_SPECIAL flag): the
 *	callback runs once per new VMA and not when a new mapping merges into
 *	an existing one (counter: parameter merge_mapped_calls).
 * /dev/kit_mapped_error: a mapped callback that fails with -EBUSY, and
 *	desc->action.error_override = -EAGAIN: the new VMA is unmapped again
 *	and mmap() reports EAGAIN (counter: parameter error_mapped_calls).
 */
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#define KIT_MERGE_PAGES 4
static struct page *merge_pages[KIT_MERGE_PAGES];
static atomic_t merge_mapped_calls = ATOMIC_INIT(0);
static atomic_t error_mapped_calls = ATOMIC_INIT(0);

static int calls_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(kp->arg));
}

/* The counters are read-only: "merge_mapped_calls=1" at insmod is refused. */
static int calls_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops calls_ops = {
	.set = calls_set,
	.get = calls_get,
};
module_param_cb(merge_mapped_calls, &calls_ops, &merge_mapped_calls, 0444);
MODULE_PARM_DESC(merge_mapped_calls, "mapped calls of /dev/kit_mapped_merge");
module_param_cb(error_mapped_calls, &calls_ops, &error_mapped_calls, 0444);
MODULE_PARM_DESC(error_mapped_calls, "mapped calls of /dev/kit_mapped_error");

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

/**
 * merge_mapped() - count the new VMAs of /dev/kit_mapped_merge
 * @start: start of the new VMA
 * @end: end of the new VMA
 * @pgoff: its page offset
 * @file: the file mapped
 * @vm_private_data: its vm_private_data (unchanged)
 *
 * Return: 0.
 */
static int merge_mapped(unsigned long start, unsigned long end, pgoff_t pgoff,
			const struct file *file, void **vm_private_data)
{
	atomic_inc(&merge_mapped_calls);
	return 0;
}

static const struct vm_operations_struct merge_vm_ops = {
	.fault = merge_fault,
	.mapped = merge_mapped,
};

/**
 * merge_mmap_prepare() - a mergeable mapping with a mapped callback
 * @desc: descriptor of the mapping
 *
 * Return: 0, or -EINVAL past the pages or for a private mapping.
 */
static int merge_mmap_prepare(struct vm_area_desc *desc)
{
	if (!vma_desc_test(desc, VMA_MAYSHARE_BIT) ||
	    desc->pgoff + vma_desc_pages(desc) > KIT_MERGE_PAGES)
		return -EINVAL;
	desc->vm_ops = &merge_vm_ops;
	return 0;
}

static const struct file_operations merge_fops = {
	.owner = THIS_MODULE,
	.mmap_prepare = merge_mmap_prepare,
};

static struct miscdevice merge_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kit_mapped_merge",
	.fops = &merge_fops,
};

/**
 * error_mapped() - refuse every new VMA of /dev/kit_mapped_error
 * @start: start of the new VMA
 * @end: end of the new VMA
 * @pgoff: its page offset
 * @file: the file mapped
 * @vm_private_data: its vm_private_data (unchanged)
 *
 * Return: -EBUSY, which the action's error_override turns into -EAGAIN.
 */
static int error_mapped(unsigned long start, unsigned long end, pgoff_t pgoff,
			const struct file *file, void **vm_private_data)
{
	atomic_inc(&error_mapped_calls);
	return -EBUSY;
}

static const struct vm_operations_struct error_vm_ops = {
	.fault = merge_fault,
	.mapped = error_mapped,
};

/**
 * error_mmap_prepare() - a mapping whose mapped callback fails
 * @desc: descriptor of the mapping
 *
 * Return: 0, or -EINVAL past the pages or for a private mapping.
 */
static int error_mmap_prepare(struct vm_area_desc *desc)
{
	if (!vma_desc_test(desc, VMA_MAYSHARE_BIT) ||
	    desc->pgoff + vma_desc_pages(desc) > KIT_MERGE_PAGES)
		return -EINVAL;
	desc->vm_ops = &error_vm_ops;
	desc->action.error_override = -EAGAIN;
	return 0;
}

static const struct file_operations error_fops = {
	.owner = THIS_MODULE,
	.mmap_prepare = error_mmap_prepare,
};

static struct miscdevice error_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kit_mapped_error",
	.fops = &error_fops,
};

static void kit_free_pages(void)
{
	int i;

	for (i = 0; i < KIT_MERGE_PAGES; i++)
		if (merge_pages[i])
			__free_page(merge_pages[i]);
}

static int __init kit_mapped_probe_init(void)
{
	int i, ret;

	for (i = 0; i < KIT_MERGE_PAGES; i++) {
		merge_pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!merge_pages[i]) {
			kit_free_pages();
			return -ENOMEM;
		}
	}
	ret = misc_register(&merge_dev);
	if (ret)
		goto free;
	ret = misc_register(&error_dev);
	if (ret)
		goto deregister;
	return 0;

deregister:
	misc_deregister(&merge_dev);
free:
	kit_free_pages();
	return ret;
}
module_init(kit_mapped_probe_init);

static void __exit kit_mapped_probe_exit(void)
{
	misc_deregister(&error_dev);
	misc_deregister(&merge_dev);
	kit_free_pages();
}
module_exit(kit_mapped_probe_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: probes of vm_ops->mapped on mainline");
