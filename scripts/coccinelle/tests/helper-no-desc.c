// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hook that hands the VMA to a helper with no desc form (as DRM drivers
 * call drm_gem_mmap()), and a second fops that names such a helper defined
 * in another file.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <drm/drm_gem.h>

static int demo_drm_mmap(struct file *filp, struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTDUMP);
	return drm_gem_mmap(filp, vma);
}

static const struct file_operations demo_driver_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_drm_mmap,
};

static const struct file_operations demo_gem_fops = {
	.owner		= THIS_MODULE,
	.mmap		= drm_gem_mmap,
};
