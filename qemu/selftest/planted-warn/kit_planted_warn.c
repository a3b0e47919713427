// SPDX-License-Identifier: GPL-2.0
/*
 * kit_planted_warn - a throw-away module that triggers a kernel warning when
 * it loads. The harness self-test boots it and expects the stage to FAIL: it
 * proves that a WARN in the console log fails a stage even when every TAP
 * check passes.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init kit_planted_warn_init(void)
{
	WARN(1, "kit_planted_warn: warning planted by the harness self-test\n");
	return 0;
}

static void __exit kit_planted_warn_exit(void)
{
}

module_init(kit_planted_warn_init);
module_exit(kit_planted_warn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: harness self-test, plants a WARN");
