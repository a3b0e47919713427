// SPDX-License-Identifier: GPL-2.0-only
/*
 * A filesystem (ext2) with a DAX hook that falls back to
 * generic_file_mmap(), and without DAX a macro that names
 * generic_file_mmap() for the hook: mainline renames the macro with the
 * hook (erofs did).
 */
#include <linux/fs.h>
#include <linux/mm.h>

#ifdef CONFIG_FS_DAX
static const struct vm_operations_struct demo_dax_vm_ops;

static int demo_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!IS_DAX(file_inode(file)))
		return generic_file_mmap(file, vma);

	file_accessed(file);
	vma->vm_ops = &demo_dax_vm_ops;
	return 0;
}
#else
#define demo_file_mmap	generic_file_mmap
#endif

const struct file_operations demo_file_operations = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.mmap		= demo_file_mmap,
};
