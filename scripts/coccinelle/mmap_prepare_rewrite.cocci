// SPDX-License-Identifier: GPL-2.0-only
/// The rewrites both targets share, after the target's own: the whole-VMA
/// remap becomes the action, the protection local goes, every other use of the
/// VMA and of the file argument becomes the descriptor's, the size local that
/// only the remap used goes; then the signature, and last the .mmap
/// initializer of that very hook.
/// Part of the semantic patch of mmap_prepare.cocci (see there), which
/// scripts/coccinelle/mmap-prepare.sh joins with the others.

// The whole-VMA remap becomes the action, recorded as the last step.
@remap_action depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma;
expression PFN, SZ, PR;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
- return remap_pfn_range(vma, vma->vm_start, PFN, SZ, PR);
+ mmap_action_remap_full(desc, PFN);
+ return 0;
|
- return io_remap_pfn_range(vma, vma->vm_start, PFN, SZ, PR);
+ mmap_action_ioremap_full(desc, PFN);
+ return 0;
)
}

// The local copy of the page protection that the remap used is the VMA's
// own from now on (the remap is gone; the action maps with it).
@script:python protok@
f << fops.f;
hp << hook.hp;
pv << protvar.pv;
a;
@@
key = hook_key(hp, f)
if flat(pv) in prot_aliases.get(key, ()) and (key, flat(pv)) not in bad_aliases:
    coccinelle.a = cocci.make_ident(pv.strip())
else:
    cocci.include_match(False)

@prot_local depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma, protok.a;
type T;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
- T a = vma->vm_page_prot;
|
- T a;
|
- a = vma->vm_page_prot;
|
- a
+ vma->vm_page_prot
)
...>
}

// Every other read or write of the VMA, and the file argument.
@fields depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
- vma->vm_end - vma->vm_start
+ vma_desc_size(desc)
|
- vma_pages(vma)
+ vma_desc_pages(desc)
|
- shmem_zero_setup(vma)
+ shmem_zero_setup_desc(desc)
|
- vma->vm_pgoff
+ desc->pgoff
|
- vma->vm_page_prot
+ desc->page_prot
|
- vma->vm_ops
+ desc->vm_ops
|
- vma->vm_private_data
+ desc->private_data
|
- vma->vm_file
+ desc->vm_file
|
- vma->vm_start
+ desc->start
|
- vma->vm_end
+ desc->end
|
- filearg
+ desc->file
)
...>
}

// The local that held the VMA's size, when the action took its only use.
@size_decl_gone depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma, sizevar.sz, d;
type T;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
- T sz = vma_desc_size(d);
... when != sz
}

@size_asg_gone depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma, sizevar_asg.sz, d;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
- sz = vma_desc_size(d);
... when != sz
}

@size_local_gone depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma, sizevar_asg.sz;
type T;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
... when != sz
- T sz;
... when != sz
}

// The signature, then the initializer: only of a hook whose signature was
// converted (the rule inherits sig's name), never of a .mmap whose hook is
// not in this file, was not parsed, or is NULL. Only the field's name and
// its value change: the rest of the line stays as it was.
@sig depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma;
fresh identifier fp = script:python(f) { hook_name(f) };
@@
int
- f(struct file *filearg, struct vm_area_struct *vma)
+ fp(struct vm_area_desc *desc)
 { ... }

// The hook's EXPORT_SYMBOL(), when another module names it (a hook defined
// in another file than its .mmap: mmap-prepare.sh converts those files
// together).
@export_field depends on patch@
identifier fops.f, sig.fp;
declarer name EXPORT_SYMBOL, EXPORT_SYMBOL_GPL;
@@
(
- EXPORT_SYMBOL(f);
+ EXPORT_SYMBOL(fp);
|
- EXPORT_SYMBOL_GPL(f);
+ EXPORT_SYMBOL_GPL(fp);
)

@mmap_field depends on patch@
identifier fops.f, fops.fops_name, sig.fp;
@@
struct file_operations fops_name = { ...,
- .mmap = f
+ .mmap_prepare = fp
, ...};


// A converted hook that is a macro for generic_file_mmap() or its read-only
// twin when an option is off ("#else #define ext2_file_mmap
// generic_file_mmap"): the macro follows the hook (mainline only; on the
// kit's API verify-converted.py refuses a hook whose old name is left
// defined).
@generic_define_ml depends on patch && mainline@
identifier fops.f, sig.fp;
symbol generic_file_mmap, generic_file_readonly_mmap;
@@
(
- #define f generic_file_mmap
+ #define fp generic_file_mmap_prepare
|
- #define f generic_file_readonly_mmap
+ #define fp generic_file_readonly_mmap_prepare
)

// (After the hook's rewrites: a rule that matches the hook as a function
// of this file before its signature is converted keeps that from being
// converted where spatch finds dead code, drivers/char/mem.c's mmap_zero().)
// A static helper the hook hands its VMA to (mmap_prepare_verdict.cocci):
// renamed as helper_name() says, its VMA the descriptor, with the hook that
// calls it.
@hdef depends on patch@
identifier h, v;
parameter list ps1, ps2;
position hd;
@@
static int h@hd(ps1, struct vm_area_struct *v, ps2) { ... }

@script:python hsel@
h << hdef.h;
v << hdef.v;
hd << hdef.hd;
hn;
hv;
@@
key = (hd[0].file, h.strip())
if helper_ok(hd[0].file, h) and any((hd[0].file, c[0]) in converted_hooks for c in helper_calls[key]):
    coccinelle.hn = cocci.make_ident(helper_name(h))
    coccinelle.hv = cocci.make_ident(v.strip())
else:
    cocci.include_match(False)

@hcall depends on patch && !bad@
identifier hook.vma, sig.fp, hdef.h, hsel.hn;
expression list es1, es2;
symbol desc;
@@
fp(struct vm_area_desc *desc) {
<...
- h(es1, vma, es2)
+ hn(es1, desc, es2)
...>
}

@hflags_kit depends on patch && !mainline@
identifier hdef.h, hsel.hv, A;
parameter list hdef.ps1, hdef.ps2;
expression E;
@@
h(ps1, struct vm_area_struct *hv, ps2) {
<...
(
- vm_flags_set(hv, E);
+ desc->vm_flags |= E;
|
- vm_flags_clear(hv, A);
+ desc->vm_flags &= ~A;
|
- vm_flags_clear(hv, E);
+ desc->vm_flags &= ~(E);
|
- hv->vm_flags
+ desc->vm_flags
)
...>
}

@hflags_ml depends on patch && mainline exists@
identifier hdef.h, hsel.hv;
parameter list hdef.ps1, hdef.ps2;
expression F : script:python () { vm_flag_names(F) is not None };
position p;
@@
h(ps1, struct vm_area_struct *hv, ps2) {
<+...
(
 vm_flags_set@p(hv, F);
|
 vm_flags_clear@p(hv, F);
)
...+>
}

@script:python hflags_ml_bits@
fl << hflags_ml.F;
bits;
@@
coccinelle.bits = cocci.make_ident(vma_bits(fl))

@hflags_ml_rw depends on patch && mainline@
identifier hdef.h, hsel.hv, hflags_ml_bits.bits;
parameter list hdef.ps1, hdef.ps2;
expression hflags_ml.F;
position hflags_ml.p;
@@
h(ps1, struct vm_area_struct *hv, ps2) {
<...
(
- vm_flags_set@p(hv, F);
+ vma_desc_set_flags(desc, bits);
|
- vm_flags_clear@p(hv, F);
+ vma_desc_clear_flags(desc, bits);
)
...>
}

@hnommu_ml depends on patch && mainline@
identifier hdef.h, hsel.hv;
parameter list hdef.ps1, hdef.ps2;
@@
h(ps1, struct vm_area_struct *hv, ps2) {
<...
- is_nommu_shared_mapping(hv->vm_flags)
+ is_nommu_shared_vma_flags(&desc->vma_flags)
...>
}

@hfields depends on patch@
identifier hdef.h, hsel.hv;
parameter list hdef.ps1, hdef.ps2;
@@
h(ps1, struct vm_area_struct *hv, ps2) {
<...
(
- hv->vm_end - hv->vm_start
+ vma_desc_size(desc)
|
- vma_pages(hv)
+ vma_desc_pages(desc)
|
- hv->vm_pgoff
+ desc->pgoff
|
- hv->vm_page_prot
+ desc->page_prot
|
- hv->vm_ops
+ desc->vm_ops
|
- hv->vm_private_data
+ desc->private_data
|
- hv->vm_file
+ desc->vm_file
|
- hv->vm_start
+ desc->start
|
- hv->vm_end
+ desc->end
)
...>
}

@hsig depends on patch@
identifier hdef.h, hdef.v, hsel.hn;
parameter list hdef.ps1, hdef.ps2;
@@
static int
- h(ps1, struct vm_area_struct *v, ps2)
+ hn(ps1, struct vm_area_desc *desc, ps2)
 { ... }
