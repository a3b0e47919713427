// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hook is defined in another file of the driver (as ceph, nfs, cifs
 * or i915 do): only its declaration and the fops initialiser are here.
 * Converting the initialiser alone would name a demo_mmap_prepare() that
 * does not exist.
 */
#include <linux/fs.h>
#include <linux/mm.h>

int demo_mmap(struct file *file, struct vm_area_struct *vma);

const struct file_operations demo_file_fops = {
	.owner		= THIS_MODULE,
	.read_iter	= generic_file_read_iter,
	.mmap		= demo_mmap,
};
