// SPDX-License-Identifier: GPL-2.0
/*
 * kit_planted_bugs - a throw-away module with one bug for each sanitizer of
 * the kit's sanitizer profile (qemu/kernel-sanitize.config). make
 * check-sanitizers boots it first and expects each report in the console log:
 * a sanitizer that is off, or a log scan that misses its report, would
 * otherwise pass every other stage with "zero reports".
 *
 * On load it indexes an array one past its end (UBSAN), reads one byte past
 * a kmalloc() buffer (KASAN), and drops the only pointer to a second buffer
 * (kmemleak, at the guest's final scan). OPTIMIZER_HIDE_VAR() hides the
 * indexes from the compiler, which would otherwise see the bugs at build
 * time. KASAN's report comes after UBSAN's: KASAN reports only its first bug.
 * (No module parameters: the guest loads every module once with each
 * parameter set to 1.)
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/compiler.h>

/**
 * struct kit_planted_slots - an array with a member after it
 * @slot: the array indexed out of bounds
 * @after: keeps the bad index inside the object, so that KASAN stays quiet
 *	and the report is UBSAN's
 */
static struct kit_planted_slots {
	int slot[4];
	int after;
} kit_planted_slots;

/**
 * kit_planted_bugs_init() - plant one bug per sanitizer
 *
 * Return: 0, so that the module loads and its reports are the only
 * difference from a clean stage; -ENOMEM when the leak cannot be planted.
 */
static int __init kit_planted_bugs_init(void)
{
	unsigned int ubsan_index = ARRAY_SIZE(kit_planted_slots.slot);
	size_t kasan_size = 24;
	unsigned char *buf, *leak;

	OPTIMIZER_HIDE_VAR(ubsan_index);
	OPTIMIZER_HIDE_VAR(kasan_size);
	pr_info("kit_planted_bugs: slot %u: %d\n", ubsan_index,
		kit_planted_slots.slot[ubsan_index]);

	buf = kmalloc(kasan_size, GFP_KERNEL);
	if (buf) {
		pr_info("kit_planted_bugs: byte %zu: %u\n", kasan_size,
			buf[kasan_size]);
		kfree(buf);
	}

	/* Nothing keeps this pointer: kmemleak's scan finds the buffer. */
	leak = kmalloc(64, GFP_KERNEL);
	return leak ? 0 : -ENOMEM;
}

static void __exit kit_planted_bugs_exit(void)
{
}

module_init(kit_planted_bugs_init);
module_exit(kit_planted_bugs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmap_prepare kit: sanitizer self-test, plants a UBSAN, a KASAN and a kmemleak report");
