/* SPDX-License-Identifier: GPL-2.0-only */
int xm_mmap(struct file *file, struct vm_area_struct *vma);
