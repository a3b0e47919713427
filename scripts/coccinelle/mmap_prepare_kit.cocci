// SPDX-License-Identifier: GPL-2.0-only
/// The rewrites for the kit's 6.12 API only: the errno of a failed remap
/// through an error hook, the flags through desc->vm_flags.
/// Part of the semantic patch of mmap_prepare.cocci (see there), which
/// scripts/coccinelle/mmap-prepare.sh joins with the others.

// The remap whose error was translated: the action, and the errno through
// an error hook, a new function next to the hook.
@errkit depends on patch && !bad && !mainline@
identifier fops.f, hook.filearg, hook.vma, ERR;
fresh identifier fe = f ## "_error";
expression PFN, SZ, PR;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
- if (remap_pfn_range(vma, vma->vm_start, PFN, SZ, PR))
-	return -ERR;
+ mmap_action_remap_full(desc, PFN);
|
- if (remap_pfn_range(vma, vma->vm_start, PFN, SZ, PR)) {
-	return -ERR;
- }
+ mmap_action_remap_full(desc, PFN);
|
- if (io_remap_pfn_range(vma, vma->vm_start, PFN, SZ, PR))
-	return -ERR;
+ mmap_action_ioremap_full(desc, PFN);
|
- if (io_remap_pfn_range(vma, vma->vm_start, PFN, SZ, PR)) {
-	return -ERR;
- }
+ mmap_action_ioremap_full(desc, PFN);
)
+ desc->action.error_hook = fe;
 return 0;
}

@errkit_hook depends on patch && !bad && !mainline && errkit@
identifier fops.f, errkit.ERR, errkit.fe;
@@
+ /* The errno user space saw when the legacy .mmap's remap failed. */
+ static int fe(int err)
+ {
+	return -ERR;
+ }
+
  int f(...) { ... }

// vm_flags_mod(): the set, then the clear, on the descriptor's vm_flags.
@mod_kit depends on patch && !bad && !mainline@
identifier fops.f, hook.filearg, hook.vma, A;
expression E, E2;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
- vm_flags_mod(vma, E, A);
+ desc->vm_flags |= E;
+ desc->vm_flags &= ~A;
|
- vm_flags_mod(vma, E, E2);
+ desc->vm_flags |= E;
+ desc->vm_flags &= ~(E2);
)
...>
}

// Flags, the kit's 6.12 form: the descriptor's vm_flags.
@flags_kit depends on patch && !bad && !mainline@
identifier fops.f, hook.filearg, hook.vma, A;
expression E;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
- vm_flags_set(vma, E);
+ desc->vm_flags |= E;
|
- vm_flags_clear(vma, A);
+ desc->vm_flags &= ~A;
|
- vm_flags_clear(vma, E);
+ desc->vm_flags &= ~(E);
|
- vma->vm_flags
+ desc->vm_flags
)
...>
}

