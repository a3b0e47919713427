// SPDX-License-Identifier: GPL-2.0
/*
 * A reduction of ext4's and xfs's .mmap hooks: MAP_SYNC refused unless the
 * DAX device is synchronous, with daxdev_mapping_supported() of the VMA
 * (the second hook's call, once converted, is too long for one line).
 */
#include <linux/dax.h>
#include <linux/fs.h>
#include <linux/mm.h>

static const struct vm_operations_struct dxfs_dax_vm_ops;
static const struct vm_operations_struct dxfs_file_vm_ops;

static int dxfs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct inode *inode = file->f_mapping->host;
	struct dax_device *dax_dev = DXFS_SB(inode->i_sb)->s_daxdev;

	if (unlikely(dxfs_forced_shutdown(inode->i_sb)))
		return -EIO;

	/*
	 * We don't support synchronous mappings for non-DAX files and
	 * for DAX files if underneath dax_device is not synchronous.
	 */
	if (!daxdev_mapping_supported(vma, dax_dev))
		return -EOPNOTSUPP;

	file_accessed(file);
	if (IS_DAX(file_inode(file))) {
		vma->vm_ops = &dxfs_dax_vm_ops;
		vm_flags_set(vma, VM_HUGEPAGE);
	} else {
		vma->vm_ops = &dxfs_file_vm_ops;
	}
	return 0;
}

const struct file_operations dxfs_file_operations = {
	.mmap		= dxfs_file_mmap,
};

static int dxfs2_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct inode *inode = file_inode(file);
	struct dxfs_buftarg *target = dxfs_inode_buftarg(inode);

	if (!daxdev_mapping_supported(vma, target->bt_daxdev))
		return -EOPNOTSUPP;

	file_accessed(file);
	vma->vm_ops = &dxfs_file_vm_ops;
	if (IS_DAX(inode))
		vm_flags_set(vma, VM_HUGEPAGE);
	return 0;
}

const struct file_operations dxfs2_file_operations = {
	.mmap		= dxfs2_file_mmap,
};
