// SPDX-License-Identifier: GPL-2.0
/*
 * Hooks that change the driver's state before the mapping exists: a
 * reference, an allocation, a count, an insertion, a counter, a lock kept.
 * mmap() can still fail after .mmap_prepare() (no VMA, no close()), so none
 * is converted as it stands. The first is the shape of mainline's
 * drivers/hwtracing/intel_th/msu.c. The last two only read or lock and
 * unlock around a check: convertible.
 */
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>

struct demo {
	atomic_t user_count;
	atomic_t mmap_count;
	struct kref ref;
	struct list_head maps;
	struct mutex lock;
	unsigned long mappings;
	size_t size;
};

struct demo_map {
	struct list_head node;
};

static const struct vm_operations_struct demo_vm_ops;

static int demo_user_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct demo *d = file->private_data;

	if (!atomic_inc_unless_negative(&d->user_count))
		return -EINVAL;
	atomic_set(&d->mmap_count, 1);
	vma->vm_ops = &demo_vm_ops;
	return 0;
}

static const struct file_operations demo_user_fops = {
	.mmap		= demo_user_mmap,
};

static int demo_ref_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct demo *d = file->private_data;

	kref_get(&d->ref);
	vma->vm_private_data = d;
	vma->vm_ops = &demo_vm_ops;
	return 0;
}

static const struct file_operations demo_ref_fops = {
	.mmap		= demo_ref_mmap,
};

static int demo_alloc_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct demo_map *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return -ENOMEM;
	vma->vm_private_data = m;
	vma->vm_ops = &demo_vm_ops;
	return 0;
}

static const struct file_operations demo_alloc_fops = {
	.mmap		= demo_alloc_mmap,
};

static struct demo_map demo_one_map;

static int demo_list_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct demo *d = file->private_data;

	list_add(&demo_one_map.node, &d->maps);
	vma->vm_ops = &demo_vm_ops;
	return 0;
}

static const struct file_operations demo_list_fops = {
	.mmap		= demo_list_mmap,
};

static int demo_counter_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct demo *d = file->private_data;

	d->mappings++;
	vma->vm_ops = &demo_vm_ops;
	return 0;
}

static const struct file_operations demo_counter_fops = {
	.mmap		= demo_counter_mmap,
};

static int demo_locked_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct demo *d = file->private_data;

	mutex_lock(&d->lock);
	vma->vm_ops = &demo_vm_ops;
	return 0;
}

static const struct file_operations demo_locked_fops = {
	.mmap		= demo_locked_mmap,
};

static int demo_check_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct demo *d = file->private_data;
	int ret = 0;

	mutex_lock(&d->lock);
	if (vma->vm_end - vma->vm_start > d->size)
		ret = -EINVAL;
	mutex_unlock(&d->lock);
	if (ret)
		return ret;
	vma->vm_ops = &demo_vm_ops;
	return 0;
}

static const struct file_operations demo_check_fops = {
	.mmap		= demo_check_mmap,
};

static int demo_read_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct demo *d = file->private_data;

	if (atomic_read(&d->user_count) < 0)
		return -EBUSY;
	vma->vm_ops = &demo_vm_ops;
	return 0;
}

static const struct file_operations demo_read_fops = {
	.mmap		= demo_read_mmap,
};
