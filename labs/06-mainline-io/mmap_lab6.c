// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_lab6 - stage 6 of the mmap_prepare lab: stage 3 on mainline's API.
 *
 * The PCI driver of stage 3 for QEMU's "edu" device (1234:11e8), built for
 * and booted on Debian's mainline (7.x) kernel: /dev/mmap_lab6 maps the
 * device's registers, BAR 0 (1 MiB of MMIO), uncached. What changed since
 * stage 3 is what mainline changed in the API:
 *
 * - The flags go through vma_desc_test(), vma_desc_set_flags() and
 *   vma_desc_clear_flags() with VMA_*_BIT numbers (see stage 5).
 * - mmap_action_simple_ioremap(desc, phys, len) replaces the PFN arithmetic
 *   and the range check: it is the prepare-time form of vm_iomap_memory().
 *   Given the physical range of the BAR, it checks that the mapping's offset
 *   and length fit in it (-EINVAL otherwise) and requests an I/O remap of
 *   the part selected by the offset.
 * - The uncached protection is still the driver's: desc->page_prot, as the
 *   hook leaves it (the prepare step copies it after the hook returns).
 * - No vm_ops->may_split: stage 3 refuses to split its mapping because
 *   6.12's x86 PAT code would leak the memory type reservation of a split
 *   I/O mapping. Mainline keeps that reservation in a reference-counted
 *   pfnmap_track_ctx which the pieces of a split share (mm/memory.c,
 *   remap_pfn_range_track(); mm/vma_init.c, vma_pfnmap_track_ctx_dup()),
 *   and releases it with the last piece: a partial munmap() or an mremap()
 *   that shrinks the mapping just works, as for mainline's own I/O remap
 *   users (/dev/mem, hpet, open-dice).
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

static struct mmap_lab_dev *to_mmap_lab_dev(const struct file *file)
{
	return container_of(file->private_data, struct mmap_lab_dev, misc);
}

/**
 * mmap_lab_mmap_prepare() - check a new mapping of BAR 0 and ask for an
 * uncached I/O remap of it
 * @desc: the mapping to be created; the driver reads the request from it and
 *        writes back flags, page protection and the action
 *
 * Same checks as stage 3; the one against the length of the BAR is done by
 * the simple I/O remap action's prepare step.
 *
 * Context: process context, mmap write lock held.
 * Return: 0 on success; -EINVAL for a MAP_PRIVATE mapping or a range that
 * does not fit in the BAR; -EPERM for PROT_EXEC.
 */
static int mmap_lab_mmap_prepare(struct vm_area_desc *desc)
{
	struct mmap_lab_dev *ldev = to_mmap_lab_dev(desc->file);

	/* Only MAP_SHARED (VM_MAYSHARE, see stage 1). */
	if (!vma_desc_test(desc, VMA_MAYSHARE_BIT))
		return -EINVAL;

	if (vma_desc_test(desc, VMA_EXEC_BIT))
		return -EPERM;

	vma_desc_set_flags(desc, VMA_DONTEXPAND_BIT, VMA_DONTDUMP_BIT);
	vma_desc_clear_flags(desc, VMA_MAYEXEC_BIT);
	dev_dbg(&ldev->pdev->dev, "mapping %#lx bytes at offset %#lx of BAR %d\n",
		vma_desc_size(desc), desc->pgoff << PAGE_SHIFT, MMAP_LAB_BAR);

	/*
	 * After this hook returns, the action's prepare step turns the
	 * physical range into an I/O remap with desc->page_prot as the hook
	 * left it: make it uncached (first, as stage 3 must: only the remap
	 * helpers copy it when called). The offset and length of the mapping
	 * are checked against the BAR there.
	 */
	/* TODO 1/3: pgprot_noncached(), then mmap_action_simple_ioremap() of BAR 0 */
	desc->page_prot = pgprot_noncached(desc->page_prot);
	mmap_action_simple_ioremap(desc, pci_resource_start(ldev->pdev, MMAP_LAB_BAR),
				   ldev->size);
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
	ldev->misc.name = "mmap_lab6";
	ldev->misc.fops = &mmap_lab_fops;
	ldev->misc.parent = &pdev->dev;
	pci_set_drvdata(pdev, ldev);

	/* Last: /dev/mmap_lab6 can be opened as soon as it is registered. */
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
 * one fails in probe(), as the name mmap_lab6 is taken.
 */
module_pci_driver(mmap_lab_driver);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap lab stage 6: edu BAR 0 with mmap_action_simple_ioremap()");
