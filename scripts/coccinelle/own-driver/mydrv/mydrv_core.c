// SPDX-License-Identifier: GPL-2.0
/*
 * mydrv: the device and its file operations (see mydrv.h).
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include "mydrv.h"

static const struct file_operations mydrv_fops = {
	.owner = THIS_MODULE,
	.mmap = mydrv_mmap,
};

static struct mydrv mydrv = {
	.misc = {
		.minor = MISC_DYNAMIC_MINOR,
		.name = "mydrv",
		.fops = &mydrv_fops,
	},
};

static int __init mydrv_init(void)
{
	int ret;

	mydrv.pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, MYDRV_BUF_ORDER);
	if (!mydrv.pages)
		return -ENOMEM;
	ret = misc_register(&mydrv.misc);
	if (ret)
		__free_pages(mydrv.pages, MYDRV_BUF_ORDER);
	return ret;
}
module_init(mydrv_init);

static void __exit mydrv_exit(void)
{
	misc_deregister(&mydrv.misc);
	__free_pages(mydrv.pages, MYDRV_BUF_ORDER);
}
module_exit(mydrv_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A driver of someone else's, for the conversion aid");
