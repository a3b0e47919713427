// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hook that hands its VMA to a static helper of the file (as relay.c's
 * relay_file_mmap() calls relay_mmap_buf()): the helper is converted with it.
 */
#include <linux/fs.h>
#include <linux/mm.h>

struct demo_buf {
	unsigned long size;
};

static const struct vm_operations_struct demo_vm_ops;

/**
 * demo_mmap_buf - map a buffer
 * @buf: the buffer
 * @vma: the VMA to map it in
 */
static int demo_mmap_buf(struct demo_buf *buf, struct vm_area_struct *vma)
{
	unsigned long length = vma->vm_end - vma->vm_start;

	if (!buf)
		return -EBADF;
	if (length != buf->size)
		return -EINVAL;
	vma->vm_ops = &demo_vm_ops;
	vm_flags_set(vma, VM_DONTEXPAND);
	vma->vm_private_data = buf;
	return 0;
}

static int demo_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct demo_buf *buf = filp->private_data;

	return demo_mmap_buf(buf, vma);
}

static const struct file_operations demo_fops = {
	.owner		= THIS_MODULE,
	.mmap		= demo_mmap,
};
