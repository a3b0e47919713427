// SPDX-License-Identifier: GPL-2.0-only
/// The uses of a hook's VMA that have a descriptor form on the target
/// (okpos, okflags, ..., okif): mmap_prepare_verdict.cocci calls any other
/// use "bad". Part of the semantic patch of mmap_prepare.cocci (see there),
/// which scripts/coccinelle/mmap-prepare.sh joins with the others.

// Every use of the VMA that has a descriptor form on both targets: set and
// clear of named VM_* flags, alone or or-ed together (tests: below). The remap forms must cover
// the whole VMA and be the hook's last statement (below).
@okpos@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
 vma@p->vm_end
|
 vma@p->vm_start
|
 vma@p->vm_pgoff
|
 vma@p->vm_page_prot
|
 vma@p->vm_ops
|
 vma@p->vm_private_data
|
 vma@p->vm_file
|
 vma_pages(vma@p)
|
 shmem_zero_setup(vma@p)
|
 vm_flags_set(vma@p, F)
|
 vm_flags_clear(vma@p, F)
)
...>
}

// On the kit's API any use of the flags has a form: desc->vm_flags (a mask
// variable, a comparison, ...). Mainline's helpers take named flags only.
@okflags depends on !mainline@
identifier fops.f, hook.filearg, hook.vma;
expression E;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
 vma@p->vm_flags
|
 vm_flags_set(vma@p, E)
|
 vm_flags_clear(vma@p, E)
)
...>
}

// On mainline a test of named flags is vma_desc_test() (one flag) or
// vma_desc_test_any() (several), which say true or false: only where the
// test is used as a truth value, never "(flags & (A | B)) != (A | B)".
// Two standard isomorphisms are off here: their variants of these eleven
// patterns were half of the semantic patch's parsing, paid by every spatch
// run, and matched nothing new. ptr_to_array lets "vma->vm_flags" match
// "vma[i].vm_flags" (no hook indexes its VMA); not_int2 turns a test X into
// "X != 0", and "(vma->vm_flags & F) != 0" is the second pattern already.
// Parsing on mainline: 1.9 s with both, 1.0 without ptr_to_array, 0.8
// without either (kit: 0.8 -> 0.45).
@okflags_ml depends on mainline disable ptr_to_array, not_int2@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
expression G : script:python () { mask_ok(G) };
expression E;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
 (vma@p->vm_flags & F) == G
|
 (vma@p->vm_flags & F) != G
|
 !(vma@p->vm_flags & F)
|
 vma@p->vm_flags & F && E
|
 vma@p->vm_flags & F || E
|
 E && vma@p->vm_flags & F
|
 E || vma@p->vm_flags & F
|
 (vma@p->vm_flags & F) && E
|
 (vma@p->vm_flags & F) || E
|
 E && (vma@p->vm_flags & F)
|
 E || (vma@p->vm_flags & F)
)
...>
}

@okflags_mlif depends on mainline@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
statement S1, S2;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
 if (vma@p->vm_flags & F) S1 else S2
|
 if (vma@p->vm_flags & F) S1
)
...>
}

// Two tests of named flags joined, "(vm_flags & A) && (vm_flags & B)" (or
// ||): okflags_ml's disjunction binds one of the two only, so both here.
// (With the isomorphisms of tests and &, the patterns are too many.)
@okflags_mljoin depends on mainline disable bitand_comm, not_int2, not_ptr2, commneq, ptr_to_array@
identifier fops.f, hook.filearg, hook.vma;
expression A : script:python () { vm_flag_names(A) is not None };
expression B : script:python () { vm_flag_names(B) is not None };
binary operator op = {&&, ||};
position p1, p2;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <... (vma@p1->vm_flags & A) op (vma@p2->vm_flags & B) ...> }

// More truth values of a flags test on mainline: a bool initialized with it
// (ntfs3's "bool rw = vma->vm_flags & VM_WRITE;"), the test of a ?:; and
// NOMMU's is_nommu_shared_mapping(vma->vm_flags), which is
// is_nommu_shared_vma_flags(&desc->vma_flags). (ptr_to_array: as okflags_ml.)
@okflags_mlmore depends on mainline disable ptr_to_array@
identifier fops.f, hook.filearg, hook.vma, x;
expression F : script:python () { vm_flag_names(F) is not None };
expression E1, E2;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
 bool x = vma@p->vm_flags & F;
|
 const bool x = vma@p->vm_flags & F;
|
 vma@p->vm_flags & F ? E1 : E2
|
 (vma@p->vm_flags & F) ? E1 : E2
|
 is_nommu_shared_mapping(vma@p->vm_flags)
)
...>
}

// vm_flags_mod() of named flags: a set and a clear, on both targets.
@okflags_mod@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
expression G : script:python () { vm_flag_names(G) is not None };
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <... vm_flags_mod(vma@p, F, G) ...> }

// daxdev_mapping_supported(vma, dax_dev) is daxdev_mapping_supported(desc,
// file_inode(file), dax_dev) on mainline (the kit's 6.12 has the VMA form
// only). The inode was the VMA's file's: not where the hook sets vm_file.
@vmfile_set exists@
identifier fops.f, hook.filearg, hook.vma;
expression E;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <+... vma->vm_file = E ...+> }

@okdax depends on mainline && !vmfile_set@
identifier fops.f, hook.filearg, hook.vma;
expression D;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <... daxdev_mapping_supported(vma@p, D) ...> }

// vma_set_anonymous() has a descriptor form on mainline only.
@okanon depends on mainline@
identifier fops.f, hook.filearg, hook.vma;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <... vma_set_anonymous(vma@p) ...> }

// A remap of the whole VMA (its size written out, or a name for it, see
// above) with the VMA's protection (or an alias of it) as the hook's final
// return statement; the VMA inside it is accounted for by okpos.
@okret@
identifier fops.f, hook.filearg, hook.vma;
position hook.hp;
expression E;
expression SZ : script:python (hp, f, vma) { is_whole_size(hp, f, vma, SZ) };
expression PR : script:python (hp, f, vma) { is_vma_prot(hp, f, vma, PR) };
position p;
@@
f@hp(struct file *filearg, struct vm_area_struct *vma) {
...
(
 return remap_pfn_range(vma@p, vma->vm_start, E, SZ, PR);
|
 return io_remap_pfn_range(vma@p, vma->vm_start, E, SZ, PR);
)
}

// vm_iomap_memory() has an action on mainline only: returned, at the end
// of the hook or of a branch (the path ends with the remap, so the action
// stands for it; it checks the size itself, as vm_iomap_memory() did).
@okret_iomap depends on mainline@
identifier fops.f, hook.filearg, hook.vma;
expression E, E1;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
 return vm_iomap_memory(vma@p, E, E1);
...>
}

// A call of generic_file_mmap() whose failure the hook answers by undoing
// something it did before ("afs_add_open_mmap(); ret = generic_file_mmap();
// if (ret == 0) ... else afs_drop_open_mmap();"): a prepare hook must change
// no state before the mapping exists (mainline moved such counts to
// vm_ops->mapped), so that call has no form (okgeneric).
@gen_undo depends on mainline exists@
identifier fops.f, hook.filearg, hook.vma, ret;
identifier undo !~ "^(pr_[a-z]+|printk|dprintk|[a-z0-9_]*_debug|[a-z0-9_]*_dbg|dev_[a-z]+|[a-z0-9_]*_warn[a-z_]*|[a-z0-9_]*_err|WARN[A-Z_]*)$";
expression list es;
expression E;
statement S;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<+...
(
 ret = generic_file_mmap(filearg, vma@p);
|
 ret = generic_file_readonly_mmap(filearg, vma@p);
)
(
 if (\(ret == 0\|!ret\)) S else { ... undo(es); ... }
|
 if (\(ret == 0\|!ret\)) S else undo(es);
|
 if (\(ret\|ret < 0\|ret != 0\)) { ... undo(es); ... }
|
 if (\(ret\|ret < 0\|ret != 0\)) undo(es);
|
 if (\(ret\|ret < 0\|ret != 0\)) { ... E = undo(es); ... }
)
...+>
}

@script:python gen_undo_seen@
p << gen_undo.p;
undo << gen_undo.undo;
@@
generic_undo[(p[0].file, p[0].line)] = undo.strip()

// So do generic_file_mmap() and generic_file_readonly_mmap(), wherever they
// are, on the hook's own file: generic_file_mmap_prepare() and its
// read-only twin set desc->vm_ops as they set the VMA's, and a vm_ops the
// hook sets afterwards still replaces it. Not on another file (a stacked
// filesystem's): generic_file_mmap_prepare() maps desc->file.
@okgeneric depends on mainline@
identifier fops.f, hook.filearg, hook.vma;
position p != gen_undo.p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
 generic_file_mmap(filearg, vma@p)
|
 generic_file_readonly_mmap(filearg, vma@p)
)
...>
}

// The same remap as the last step, with its error replaced by a constant
// errno: "if (remap_pfn_range(...)) return -EAGAIN; return 0;" (braced or
// not: mem.c's mmap_mem()). The action
// then gets an error hook (kit) or an error override (mainline) that gives
// user space that errno, as the legacy hook did.
@okif@
identifier fops.f, hook.filearg, hook.vma, ERR;
position hook.hp;
expression E;
expression SZ : script:python (hp, f, vma) { is_whole_size(hp, f, vma, SZ) };
expression PR : script:python (hp, f, vma) { is_vma_prot(hp, f, vma, PR) };
position p;
@@
f@hp(struct file *filearg, struct vm_area_struct *vma) {
...
(
 if (remap_pfn_range(vma@p, vma->vm_start, E, SZ, PR))
	return -ERR;
|
 if (remap_pfn_range(vma@p, vma->vm_start, E, SZ, PR)) {
	return -ERR;
 }
|
 if (io_remap_pfn_range(vma@p, vma->vm_start, E, SZ, PR))
	return -ERR;
|
 if (io_remap_pfn_range(vma@p, vma->vm_start, E, SZ, PR)) {
	return -ERR;
 }
)
 return 0;
}
