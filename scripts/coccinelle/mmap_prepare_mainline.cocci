// SPDX-License-Identifier: GPL-2.0-only
/// The rewrites for mainline's API (7.2 and later) only: the errno of a
/// failed remap through error_override, vm_iomap_memory(), generic_file_mmap(),
/// the flags through vma_desc_test*() and vma_desc_set/clear_flags() with
/// VMA_*_BIT names, vma_set_anonymous().
/// Part of the semantic patch of mmap_prepare.cocci (see there), which
/// scripts/coccinelle/mmap-prepare.sh joins with the others.

// The remap whose error was translated: the action, and the errno through
// desc->action.error_override.
@errno_ml depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma, ERR;
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
+ desc->action.error_override = -ERR;
 return 0;
}

@iomap_ml depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
expression S, L;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
- return vm_iomap_memory(vma, S, L);
+ mmap_action_simple_ioremap(desc, S, L);
+ return 0;
...>
}

@generic_ml depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
- generic_file_mmap(filearg, vma)
+ generic_file_mmap_prepare(desc)
|
- generic_file_readonly_mmap(filearg, vma)
+ generic_file_readonly_mmap_prepare(desc)
)
...>
}

// A file_operations that names generic_file_mmap() or
// generic_file_readonly_mmap() itself (no hook of its own): their
// mmap_prepare twins, as mainline did in every such filesystem.
@generic_field_ml depends on patch && mainline@
identifier fops_name;
symbol generic_file_mmap;
@@
struct file_operations fops_name = { ...,
- .mmap = generic_file_mmap
+ .mmap_prepare = generic_file_mmap_prepare
, ...};

@generic_ro_field_ml depends on patch && mainline@
identifier fops_name;
symbol generic_file_readonly_mmap;
@@
struct file_operations fops_name = { ...,
- .mmap = generic_file_readonly_mmap
+ .mmap_prepare = generic_file_readonly_mmap_prepare
, ...};

// Flags, mainline's form: one helper call with the flags' bit numbers,
// VMA_*_BIT; a test of several flags is a test of any of them.
// (bad made sure that every test in the hook is a truth value.)
// A comparison of some flags with some of them: all of the expected ones
// set and the others clear, said with vma_desc_test_all() and
// vma_desc_test_any(); in parentheses where it is part of a larger
// expression and has two terms.
@mmask depends on patch && !bad && mainline exists@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
expression G : script:python () { mask_ok(G) };
binary operator op = {==, !=};
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <+... (vma@p->vm_flags & F) op G ...+> }

@script:python mmask_expr@
fl << mmask.F;
g << mmask.G;
op << mmask.op;
e;
ep;
@@
bare, paren = mask_test(fl, g, op.strip())
coccinelle.e = cocci.make_expr(bare)
coccinelle.ep = cocci.make_expr(paren)

@mmask_rw depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
expression mmask.F, mmask.G;
binary operator mmask.op;
position mmask.p;
expression mmask_expr.e, mmask_expr.ep;
statement S1, S2;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
 if (
- (vma@p->vm_flags & F) op G
+ e
 ) S1 else S2
|
 if (
- (vma@p->vm_flags & F) op G
+ e
 ) S1
|
- (vma@p->vm_flags & F) op G
+ ep
)
...>
}

// Two tests of single named flags joined by &&: one vma_desc_test_all()
// (zonefs, erofs), before the tests one by one below. In a longer chain,
// "E && (A) && (B)" is "(E && (A)) && (B)": the last two joined, E kept.
// (With the isomorphisms of tests and &, the patterns are too many to match.)
@mjoin depends on patch && !bad && mainline disable bitand_comm, not_int2, not_ptr2, commneq, ptr_to_array exists@
identifier fops.f, hook.filearg, hook.vma;
expression A : script:python () { vm_flag_names(A) is not None and len(vm_flag_names(A)) == 1 };
expression B : script:python () { vm_flag_names(B) is not None and len(vm_flag_names(B)) == 1 };
expression E;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<+...
(
 (vma@p->vm_flags & A) && (vma->vm_flags & B)
|
 E && (vma@p->vm_flags & A) && (vma->vm_flags & B)
)
...+>
}

@script:python mjoin_expr@
a << mjoin.A;
b << mjoin.B;
e;
@@
names = vm_flag_names(a) + [n for n in vm_flag_names(b) if n not in vm_flag_names(a)]
coccinelle.e = cocci.make_expr(desc_test("all", names))

@mjoin_rw depends on patch && !bad && mainline disable bitand_comm, not_int2, not_ptr2, commneq, ptr_to_array@
identifier fops.f, hook.filearg, hook.vma;
expression mjoin.A, mjoin.B, E;
position mjoin.p;
expression mjoin_expr.e;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
- (vma@p->vm_flags & A) && (vma->vm_flags & B)
+ e
|
 E &&
- (vma@p->vm_flags & A)
+ e
- && (vma->vm_flags & B)
)
...>
}

// NOMMU's test of a shared mapping, on the descriptor's flags.
@nommu_ml depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
- is_nommu_shared_mapping(vma->vm_flags)
+ is_nommu_shared_vma_flags(&desc->vma_flags)
...>
}

// daxdev_mapping_supported() takes the descriptor and the file's inode.
@dax_ml depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
expression D;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
- daxdev_mapping_supported(vma, D)
+ daxdev_mapping_supported(desc, file_inode(filearg), D)
...>
}

@mtest depends on patch && !bad && mainline exists@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <... vma@p->vm_flags & F ...> }

@script:python mtest_call@
fl << mtest.F;
fn;
bits;
@@
coccinelle.fn = cocci.make_ident("vma_desc_test" if len(vm_flag_names(fl)) == 1 else "vma_desc_test_any")
coccinelle.bits = cocci.make_ident(vma_bits(fl))

@mtest_rw depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma, mtest_call.fn, mtest_call.bits;
expression mtest.F;
position mtest.p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
- !(vma@p->vm_flags & F)
+ !fn(desc, bits)
|
- vma@p->vm_flags & F
+ fn(desc, bits)
)
...>
}

@mset depends on patch && !bad && mainline exists@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<+...
(
 vm_flags_set@p(vma, F);
|
 vm_flags_clear@p(vma, F);
)
...+>
}

@script:python mset_bits@
fl << mset.F;
bits;
@@
coccinelle.bits = cocci.make_ident(vma_bits(fl))

@mset_rw depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma, mset_bits.bits;
expression mset.F;
position mset.p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
- vm_flags_set@p(vma, F);
+ vma_desc_set_flags(desc, bits);
|
- vm_flags_clear@p(vma, F);
+ vma_desc_clear_flags(desc, bits);
)
...>
}

// vm_flags_mod(): the set, then the clear (as vm_flags_mod() does).
@mmod depends on patch && !bad && mainline exists@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
expression G : script:python () { vm_flag_names(G) is not None };
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <+... vm_flags_mod@p(vma, F, G); ...+> }

@script:python mmod_bits@
fl << mmod.F;
gl << mmod.G;
sbits;
cbits;
@@
coccinelle.sbits = cocci.make_ident(vma_bits(fl))
coccinelle.cbits = cocci.make_ident(vma_bits(gl))

@mmod_rw depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma, mmod_bits.sbits, mmod_bits.cbits;
expression mmod.F, mmod.G;
position mmod.p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
- vm_flags_mod@p(vma, F, G);
+ vma_desc_set_flags(desc, sbits);
+ vma_desc_clear_flags(desc, cbits);
...>
}

@anon_ml depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
- vma_set_anonymous(vma)
+ vma_desc_set_anonymous(desc)
...>
}

