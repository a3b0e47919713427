// SPDX-License-Identifier: GPL-2.0
/*
 * kit_smoke - the smallest module the harness can load and unload, to prove
 * a guest boots, loads a module built against the kit kernel, and unloads it.
 */
#include <linux/module.h>
#include <linux/printk.h>

static int __init kit_smoke_init(void)
{
	pr_info("kit_smoke: loaded\n");
	return 0;
}

static void __exit kit_smoke_exit(void)
{
	pr_info("kit_smoke: unloaded\n");
}

module_init(kit_smoke_init);
module_exit(kit_smoke_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: harness smoke test module");
