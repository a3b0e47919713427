/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mydrv: the shape of a driver someone else wrote, as the conversion aid
 * meets it (scripts/coccinelle/own-driver/): its .mmap hook in one file,
 * its file_operations in another, the hook declared in this header.
 */
#ifndef MYDRV_H
#define MYDRV_H

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm_types.h>

#define MYDRV_BUF_ORDER	2
#define MYDRV_BUF_SIZE	(PAGE_SIZE << MYDRV_BUF_ORDER)

/**
 * struct mydrv - the device
 * @misc: its character device, /dev/mydrv
 * @pages: the buffer that user space maps
 */
struct mydrv {
	struct miscdevice misc;
	struct page *pages;
};

int mydrv_mmap(struct file *file, struct vm_area_struct *vma);

#endif /* MYDRV_H */
