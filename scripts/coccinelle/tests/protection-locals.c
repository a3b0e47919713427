// SPDX-License-Identifier: GPL-2.0
/*
 * The remap's protection in a local that the hook's branches set, each
 * shape in a hook of its own (a reduction of stage 0's hook and of
 * drivers that pick a cached, uncached or write-combined mapping by an
 * open flag), several in one file. Converted, the copy of the VMA's
 * protection goes and the other branches set desc->page_prot; no branch
 * may be left empty. Not converted: a protection that is not the VMA's
 * (the semantic patch leaves that hook; the others still convert). A
 * test with a side effect has its own file, protection-side-effect.c.
 */
#include <linux/fs.h>
#include <linux/mm.h>

static unsigned long demo_pfn;

/* the copy in an else: the else goes */
static int demo_else_copy_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot;

	if (file->f_flags & O_SYNC)
		prot = pgprot_noncached(vma->vm_page_prot);
	else
		prot = vma->vm_page_prot;

	return remap_pfn_range(vma, vma->vm_start, demo_pfn + vma->vm_pgoff,
			       size, prot);
}

static const struct file_operations demo_else_copy_fops = {
	.mmap		= demo_else_copy_mmap,
};

/* the copy in the if: the else stays, under the negated test */
static int demo_if_copy_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot;

	if (!(file->f_flags & O_SYNC))
		prot = vma->vm_page_prot;
	else
		prot = pgprot_noncached(vma->vm_page_prot);

	return remap_pfn_range(vma, vma->vm_start, demo_pfn + vma->vm_pgoff,
			       size, prot);
}

static const struct file_operations demo_if_copy_fops = {
	.mmap		= demo_if_copy_mmap,
};

/* a test over two lines, negated: its second line moves with it */
static int demo_if_copy_two_lines_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot;

	if (file->f_flags & O_SYNC &&
	    demo_pfn > 16)
		prot = vma->vm_page_prot;
	else
		prot = pgprot_writecombine(vma->vm_page_prot);

	return remap_pfn_range(vma, vma->vm_start, demo_pfn + vma->vm_pgoff,
			       size, prot);
}

static const struct file_operations demo_if_copy_two_lines_fops = {
	.mmap		= demo_if_copy_two_lines_mmap,
};

/* braced branches: the braces go with the emptied branch when one line is left */
static int demo_braced_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot;

	if (file->f_flags & O_SYNC) {
		prot = vma->vm_page_prot;
	} else {
		prot = pgprot_noncached(vma->vm_page_prot);
	}

	return remap_pfn_range(vma, vma->vm_start, demo_pfn + vma->vm_pgoff,
			       size, prot);
}

static const struct file_operations demo_braced_fops = {
	.mmap		= demo_braced_mmap,
};

/* an arm of two statements keeps its braces */
static int demo_braced_two_statements_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot = vma->vm_page_prot;

	if (file->f_flags & O_SYNC) {
		prot = vma->vm_page_prot;
	} else {
		prot = pgprot_noncached(prot);
		prot = pgprot_decrypted(prot);
	}

	return remap_pfn_range(vma, vma->vm_start, demo_pfn + vma->vm_pgoff,
			       size, prot);
}

static const struct file_operations demo_braced_two_statements_fops = {
	.mmap		= demo_braced_two_statements_mmap,
};

/* an else-if chain ending in the copy */
static int demo_else_if_chain_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot;

	if (file->f_flags & O_SYNC)
		prot = pgprot_noncached(vma->vm_page_prot);
	else if (file->f_flags & O_DSYNC)
		prot = pgprot_writecombine(vma->vm_page_prot);
	else
		prot = vma->vm_page_prot;

	return remap_pfn_range(vma, vma->vm_start, demo_pfn + vma->vm_pgoff,
			       size, prot);
}

static const struct file_operations demo_else_if_chain_fops = {
	.mmap		= demo_else_if_chain_mmap,
};

/* set on some paths only (the others used it uninitialised): the if goes */
static int demo_some_paths_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot;

	if (!(file->f_flags & O_SYNC))
		prot = vma->vm_page_prot;

	return remap_pfn_range(vma, vma->vm_start, demo_pfn + vma->vm_pgoff,
			       size, prot);
}

static const struct file_operations demo_some_paths_fops = {
	.mmap		= demo_some_paths_mmap,
};

/* a protection that is not the VMA's: not converted */
static int demo_other_protection_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	pgprot_t prot = vma->vm_page_prot;

	if (file->f_flags & O_SYNC)
		prot = PAGE_KERNEL;

	return remap_pfn_range(vma, vma->vm_start, demo_pfn + vma->vm_pgoff,
			       size, prot);
}

static const struct file_operations demo_other_protection_fops = {
	.mmap		= demo_other_protection_mmap,
};
