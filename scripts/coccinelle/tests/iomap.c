// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_iomap_memory() as the last statement: mainline's simple I/O remap
 * action; no action for it on the kit's 6.12 API.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static phys_addr_t demo_base;
static unsigned long demo_len;

static int demo_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
	return vm_iomap_memory(vma, demo_base, demo_len);
}

static const struct file_operations demo_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_mmap,
};
