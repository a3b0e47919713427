// SPDX-License-Identifier: GPL-2.0-only
/*
 * A file with two .mmap fields: its file_operations' hook, which is
 * converted, and the .mmap of another structure (a dma_map_ops, as in
 * arch/x86/kernel/amd_gart_64.c), which is not a file operation: the aid
 * leaves it as it is and reports nothing about it.
 */
#include <linux/dma-map-ops.h>
#include <linux/fs.h>
#include <linux/mm.h>

static const struct dma_map_ops demo_dma_ops = {
	.mmap		= dma_common_mmap,
	.get_sgtable	= dma_common_get_sgtable,
};

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTEXPAND);
	return 0;
}

static const struct file_operations demo_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_mmap,
};
