// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_lab3 - stage 3 of the mmap_prepare lab: the I/O remap action.
 *
 * A PCI driver for QEMU's "edu" device (1234:11e8). /dev/mmap_lab3 maps the
 * device's registers, BAR 0 (1 MiB of MMIO), into user space. What changed
 * since stage 2:
 *
 * - The memory is not RAM the driver allocated but device registers the PCI
 *   core assigned: the PFN comes from pci_resource_start(), the size limit
 *   from pci_resource_len(), and there is no read()/write() interface.
 * - mmap_action_ioremap_full() replaces mmap_action_remap_full(). It is the
 *   action form of io_remap_pfn_range(), which on some architectures
 *   translates the PFN of an I/O address; on x86 it behaves as the RAM
 *   remap does (VmFlags "pf io dd de").
 * - Registers must not be cached: a cached read could return a stale value
 *   and a write could sit in the cache instead of reaching the device. The
 *   driver makes desc->page_prot uncached before recording the action.
 * - The misc device lives and dies with the PCI device: registered in
 *   probe(), deregistered in remove().
 * - A mapping of the BAR cannot be split (vm_ops->may_split): on 6.12, x86
 *   PAT reserves the memory type of an I/O mapping for the VMA as a whole,
 *   and unmapping or moving only part of it leaks that reservation.
 */

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>

#define MMAP_LAB_BAR	0	/* the edu registers */

/**
 * struct mmap_lab_dev - one edu device
 * @misc: misc character device; misc_open() points file->private_data at it
 * @pdev: the PCI device whose BAR is mapped
 * @size: length of BAR %MMAP_LAB_BAR in bytes
 *
 * Allocated with devm_kzalloc(): freed after remove(). remove() deregisters
 * @misc first, so no new open() can reach a stale structure; a file already
 * open across an unbind (echo > .../unbind) is not handled by this lab.
 */
struct mmap_lab_dev {
	struct miscdevice misc;
	struct pci_dev *pdev;
	resource_size_t size;
};

static struct mmap_lab_dev *to_mmap_lab_dev(struct file *file)
{
	return container_of(file->private_data, struct mmap_lab_dev, misc);
}

/**
 * mmap_lab_may_split() - refuse to split a mapping of the BAR
 * @vma: the mapping munmap(), mremap() or mprotect() would split
 * @addr: where it would be split
 *
 * The remap reserved the memory type (uncached) of the whole range with x86
 * PAT, and 6.12 releases that reservation only for the range it was made
 * for. Unmapping part of the mapping frees a range that was never reserved
 * ("x86/PAT: ... freeing invalid memtype" in the log) and leaks the real
 * reservation. Refusing the split makes a partial munmap() fail with EINVAL;
 * the mapping can still be unmapped as a whole.
 *
 * Return: -EINVAL, always.
 */
static int mmap_lab_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct mmap_lab_vm_ops = {
	.may_split = mmap_lab_may_split,
};

/**
 * mmap_lab_mmap_prepare() - check a new mapping of BAR 0 and ask for an
 * uncached I/O remap of it
 * @desc: the mapping to be created; the driver reads the request from it and
 *        writes back flags, page protection and the action
 *
 * Same checks as the buffer stages, against the length of the BAR.
 *
 * Context: process context, mmap write lock held.
 * Return: 0 on success; -EINVAL for a MAP_PRIVATE mapping or a range that
 * does not fit in the BAR; -EPERM for PROT_EXEC.
 */
static int mmap_lab_mmap_prepare(struct vm_area_desc *desc)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(desc->file);

	/* Only MAP_SHARED (VM_MAYSHARE, see stage 1). */
	if (!(desc->vm_flags & VM_MAYSHARE))
		return -EINVAL;

	if (desc->vm_flags & VM_EXEC)
		return -EPERM;

	/* [pgoff, pgoff + size) must lie inside the BAR. */
	if (desc->pgoff >= ldev->size >> PAGE_SHIFT ||
	    vma_desc_size(desc) > ldev->size - (desc->pgoff << PAGE_SHIFT))
		return -EINVAL;

	desc->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	desc->vm_flags &= ~VM_MAYEXEC;
	desc->vm_ops = &mmap_lab_vm_ops;

	/*
	 * Order matters: mmap_action_ioremap_full() copies desc->page_prot
	 * into the action when it is called. A pgprot_noncached() applied
	 * after that call would change the VMA's vm_page_prot but not the
	 * page table entries the action writes, which would stay cached.
	 */
	/* TODO 1/4: pgprot_noncached(), then mmap_action_ioremap_full() at BAR 0 + pgoff */
	desc->page_prot = pgprot_noncached(desc->page_prot);
	mmap_action_ioremap_full(desc,
				 (pci_resource_start(ldev->pdev, MMAP_LAB_BAR) >> PAGE_SHIFT) +
				 desc->pgoff);
	return 0;
}

/* .owner pins the module while a file or a mapping (vm_file) is open. */
static const struct file_operations mmap_lab_fops = {
	.owner = THIS_MODULE,
	.mmap_prepare = mmap_lab_mmap_prepare,
};

static int mmap_lab_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct mmap_lab_dev *ldev;
	int ret;

	ldev = devm_kzalloc(&pdev->dev, sizeof(*ldev), GFP_KERNEL);
	if (!ldev)
		return -ENOMEM;

	/* Managed (pcim_*): undone automatically when the driver detaches. */
	/* TODO 2/3: enable the device with pcim_enable_device(), return its error */
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	if (!(pci_resource_flags(pdev, MMAP_LAB_BAR) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, MMAP_LAB_BAR) < PAGE_SIZE)
		return dev_err_probe(&pdev->dev, -ENODEV,
				     "BAR %d is not a memory BAR\n", MMAP_LAB_BAR);

	/* Claim the registers so that no other driver maps them too. */
	/* TODO 3/3: claim BAR 0 with pcim_request_region(), return its error */
	ret = pcim_request_region(pdev, MMAP_LAB_BAR, KBUILD_MODNAME);
	if (ret)
		return ret;

	ldev->pdev = pdev;
	ldev->size = pci_resource_len(pdev, MMAP_LAB_BAR);
	ldev->misc.minor = MISC_DYNAMIC_MINOR;
	ldev->misc.name = "mmap_lab3";
	ldev->misc.fops = &mmap_lab_fops;
	ldev->misc.parent = &pdev->dev;
	pci_set_drvdata(pdev, ldev);

	/* Last: /dev/mmap_lab3 can be opened as soon as it is registered. */
	ret = misc_register(&ldev->misc);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot register %s\n",
				     ldev->misc.name);
	return 0;
}

static void mmap_lab_remove(struct pci_dev *pdev)
{
	struct mmap_lab_dev *ldev = pci_get_drvdata(pdev);

	misc_deregister(&ldev->misc);
	/* The BAR region, the enable count and ldev are released by devres. */
}

static const struct pci_device_id mmap_lab_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },	/* QEMU edu */
	{ }
};
MODULE_DEVICE_TABLE(pci, mmap_lab_ids);

static struct pci_driver mmap_lab_driver = {
	.name = KBUILD_MODNAME,
	.id_table = mmap_lab_ids,
	.probe = mmap_lab_probe,
	.remove = mmap_lab_remove,
};

/*
 * module_pci_driver() generates module init/exit calling pci_register_driver()
 * and pci_unregister_driver(). Only one edu device is supported: a second
 * one fails in probe(), as the name mmap_lab3 is taken.
 */
module_pci_driver(mmap_lab_driver);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap lab stage 3: edu BAR 0 with mmap_action_ioremap_full()");
