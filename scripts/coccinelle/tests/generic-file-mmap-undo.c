// SPDX-License-Identifier: GPL-2.0-only
/*
 * A network filesystem (afs) that counts its open mappings: the hook
 * takes a count before generic_file_mmap() and drops it when that fails,
 * the VMA's close drops it otherwise. A prepare hook runs before the
 * mapping exists, which may still fail or be merged afterwards: the count
 * would leak. Mainline moved it to vm_ops->mapped; the aid leaves it.
 */
#include <linux/fs.h>
#include <linux/mm.h>

struct demo_vnode {
	atomic_t cb_nr_mmap;
};

static const struct vm_operations_struct demo_vm_ops;

static void demo_add_open_mmap(struct demo_vnode *vnode)
{
	atomic_inc(&vnode->cb_nr_mmap);
}

static void demo_drop_open_mmap(struct demo_vnode *vnode)
{
	atomic_dec(&vnode->cb_nr_mmap);
}

static int demo_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct demo_vnode *vnode = file_inode(file)->i_private;
	int ret;

	demo_add_open_mmap(vnode);

	ret = generic_file_mmap(file, vma);
	if (ret == 0)
		vma->vm_ops = &demo_vm_ops;
	else
		demo_drop_open_mmap(vnode);
	return ret;
}

static const struct file_operations demo_file_operations = {
	.read_iter	= generic_file_read_iter,
	.mmap		= demo_file_mmap,
};
