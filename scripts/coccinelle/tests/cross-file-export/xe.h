/* SPDX-License-Identifier: GPL-2.0-only */
/* The prototype without parameter names (as fs/nfs/internal.h's). */
int xe_file_mmap(struct file *, struct vm_area_struct *);
