/* SPDX-License-Identifier: GPL-2.0-only */
int xc_mmap(struct file *file, struct vm_area_struct *vma);
