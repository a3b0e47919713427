/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hook declared for the file that names it (as fs/ocfs2/mmap.h,
 * fs/ceph/super.h, fs/smb/client/cifsfs.h).
 */
#ifndef XF_H
#define XF_H

extern int xf_mmap(struct file *file, struct vm_area_struct *vma);

#endif /* XF_H */
