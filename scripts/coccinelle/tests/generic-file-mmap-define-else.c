// SPDX-License-Identifier: GPL-2.0-only
/*
 * A read-only filesystem whose DAX hook has a descriptor form on both
 * targets, and without DAX a macro that names generic_file_readonly_mmap()
 * for the hook. Mainline renames the macro with the hook; the kit's 6.12
 * has no generic_file_readonly_mmap_prepare() to name, so the hook stays
 * (the report says why).
 */
#include <linux/fs.h>
#include <linux/mm.h>

#ifdef CONFIG_FS_DAX
static const struct vm_operations_struct demo_dax_vm_ops;

static int demo_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	file_accessed(file);
	vma->vm_ops = &demo_dax_vm_ops;
	vm_flags_set(vma, VM_HUGEPAGE);
	return 0;
}
#else
#define demo_file_mmap	generic_file_readonly_mmap
#endif

const struct file_operations demo_file_operations = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.mmap		= demo_file_mmap,
};
