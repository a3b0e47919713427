// SPDX-License-Identifier: GPL-2.0-only
/// Convert a file_operations .mmap hook to .mmap_prepare, when every use of
/// the VMA in it has a descriptor form (the conversion guide's table,
/// Documentation/conversion-guide.rst). Two targets:
///  - the kit's 6.12 API (default): desc->vm_flags, success/error hooks;
///  - mainline 7.2+ (-D mainline): vma_desc_test()/vma_desc_set_flags()/
///    vma_desc_clear_flags() with VMA_*_BIT, mmap_action_simple_ioremap().
/// A hook is converted only when nothing in it is left: any other use of
/// the VMA (passed to another function, stored, vm_insert_page(),
/// dma_mmap_*(), a partial remap, an error translated after the remap, ...)
/// makes the whole file untouched, and report mode says where.
///
// Confidence: Moderate
// Comments: the result is checked by make cocci (stage 0 converted, then
//  built and run through stage 2's checks). Report mode lists every .mmap
//  hook that this version leaves to a human, with the first offending line.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual report
virtual mainline

@initialize:python@
@@
import re


def vm_flag_names(e):
    """The VM_* names of a flag expression such as "VM_IO | VM_DONTDUMP",
    or None when it is anything else (a mask variable, a computation)."""
    names = [t.strip() for t in re.sub(r"[()]", " ", e).split("|")]
    if all(re.fullmatch(r"VM_[A-Z0-9_]+", t) for t in names):
        return names
    return None


def vma_bits(e):
    """Mainline's bit numbers for the same flags: "VMA_IO_BIT, VMA_DONTDUMP_BIT"."""
    return ", ".join("VMA_%s_BIT" % name[3:] for name in vm_flag_names(e))

// The hook: the .mmap of a struct file_operations.
@fops@
identifier fops_name, f;
position fp;
@@
struct file_operations fops_name = { ..., .mmap = f@fp, ... };

@hook@
identifier fops.f, filearg, vma;
position hp;
@@
int f@hp(struct file *filearg, struct vm_area_struct *vma) { ... }

// A local that holds the size of the whole VMA, never assigned again.
@sizevar@
identifier fops.f, hook.filearg, hook.vma, sz;
type T;
expression E;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
T sz = vma->vm_end - vma->vm_start;
... when != sz = E
}

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
@okflags_ml depends on mainline@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
expression E;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
(
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

// vma_set_anonymous() has a descriptor form on mainline only.
@okanon depends on mainline@
identifier fops.f, hook.filearg, hook.vma;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <... vma_set_anonymous(vma@p) ...> }

// A remap of the whole VMA as the hook's final return statement (its size
// written out, or a local that holds it); the VMA inside it is accounted
// for by okpos.
@okret@
identifier fops.f, hook.filearg, hook.vma;
expression E;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
 return remap_pfn_range(vma@p, vma->vm_start, E, vma->vm_end - vma->vm_start, vma->vm_page_prot);
|
 return io_remap_pfn_range(vma@p, vma->vm_start, E, vma->vm_end - vma->vm_start, vma->vm_page_prot);
)
}

// vm_iomap_memory() has an action on mainline only.
@okret_iomap depends on mainline@
identifier fops.f, hook.filearg, hook.vma;
expression E, E1;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
 return vm_iomap_memory(vma@p, E, E1);
}

@okret_sz@
identifier fops.f, hook.filearg, hook.vma, sizevar.sz;
expression E;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
 return remap_pfn_range(vma@p, vma->vm_start, E, sz, vma->vm_page_prot);
|
 return io_remap_pfn_range(vma@p, vma->vm_start, E, sz, vma->vm_page_prot);
)
}

// The same remap as the last step, with its error replaced by a constant
// errno: "if (remap_pfn_range(...)) return -EAGAIN; return 0;". The action
// then gets an error hook (kit) or an error override (mainline) that gives
// user space that errno, as the legacy hook did.
@okif@
identifier fops.f, hook.filearg, hook.vma, ERR;
expression E;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
 if (remap_pfn_range(vma@p, vma->vm_start, E, vma->vm_end - vma->vm_start, vma->vm_page_prot))
	return -ERR;
|
 if (io_remap_pfn_range(vma@p, vma->vm_start, E, vma->vm_end - vma->vm_start, vma->vm_page_prot))
	return -ERR;
)
 return 0;
}

@okif_sz@
identifier fops.f, hook.filearg, hook.vma, sizevar.sz, ERR;
expression E;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
 if (remap_pfn_range(vma@p, vma->vm_start, E, sz, vma->vm_page_prot))
	return -ERR;
|
 if (io_remap_pfn_range(vma@p, vma->vm_start, E, sz, vma->vm_page_prot))
	return -ERR;
)
 return 0;
}

// Any other use of the VMA (a partial remap included): the file is not
// converted.
@bad@
identifier fops.f, hook.filearg, hook.vma;
position p != {okpos.p, okanon.p, okflags.p, okflags_ml.p, okflags_mlif.p, okret.p, okret_iomap.p, okret_sz.p, okif.p, okif_sz.p};
@@
f(struct file *filearg, struct vm_area_struct *vma) { <+... vma@p ...+> }

@script:python depends on report && bad@
f << fops.f;
p << bad.p;
@@
import re
try:
    with open(p[0].file, encoding="utf-8", errors="replace") as src:
        line = src.read().splitlines()[int(p[0].line) - 1]
except (OSError, IndexError, ValueError):
    line = ""
reasons = [
    (r"\bvm_insert_pages?\s*\(|\bvmf_insert_", "vm_insert_page(): no action inserts pages on the kit's API (mainline: map-kernel-pages)"),
    (r"\bdma_mmap_\w+\s*\(", "dma_mmap_*(): no action for DMA memory"),
    (r"\b(io_)?remap_pfn_range\s*\(|\bremap_vmalloc_range", "a remap that is partial, not the last statement, or checked afterwards"),
    (r"\bvm_iomap_memory\s*\(", "vm_iomap_memory(): mainline's simple I/O remap only (-D mainline)"),
    (r"\bvma_set_anonymous\s*\(", "vma_set_anonymous(): no descriptor form on the kit's API (-D mainline: vma_desc_set_anonymous())"),
    (r"=\s*vma\s*;", "the VMA is stored"),
    (r"\bvm_flags(_set|_clear)?\b", "flags used as other than a truth value, or not named VM_* flags (mainline's helpers take bit numbers)"),
    (r"\b(?!(?:if|while|for|switch|return|sizeof)\b)\w+\s*\([^;]*\bvma\b", "the VMA is passed to another function"),
]
why = next((r for pat, r in reasons if re.search(pat, line)), "a use of the VMA with no descriptor form")
coccilib.report.print_report(p[0], "%s: not converted: %s" % (f, why))

@script:python depends on report && !bad@
f << fops.f;
hp << hook.hp;
@@
print("%s:%s: %s: convertible" % (hp[0].file, hp[0].line, f))

@script:python depends on report && !hook@
f << fops.f;
fp << fops.fp;
@@
print("%s:%s: %s: not converted: its definition was not found or not parsed in this file" % (fp[0].file, fp[0].line, f))

// The whole-VMA remap becomes the action, recorded as the last step.
@depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma;
expression PFN, SZ;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
- return remap_pfn_range(vma, vma->vm_start, PFN, SZ, vma->vm_page_prot);
+ mmap_action_remap_full(desc, PFN);
+ return 0;
|
- return io_remap_pfn_range(vma, vma->vm_start, PFN, SZ, vma->vm_page_prot);
+ mmap_action_ioremap_full(desc, PFN);
+ return 0;
)
}

// The remap whose error was translated: the action, and the errno through
// an error hook (kit; a new function next to the hook) or error_override.
@errkit depends on patch && !bad && !mainline@
identifier fops.f, hook.filearg, hook.vma, ERR;
fresh identifier fe = f ## "_error";
expression PFN, SZ;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
- if (remap_pfn_range(vma, vma->vm_start, PFN, SZ, vma->vm_page_prot))
-	return -ERR;
+ mmap_action_remap_full(desc, PFN);
|
- if (io_remap_pfn_range(vma, vma->vm_start, PFN, SZ, vma->vm_page_prot))
-	return -ERR;
+ mmap_action_ioremap_full(desc, PFN);
)
+ desc->action.error_hook = fe;
 return 0;
}

@depends on patch && !bad && !mainline && errkit@
identifier fops.f, errkit.ERR;
fresh identifier fe = f ## "_error";
@@
+ /* The errno user space saw when the legacy .mmap's remap failed. */
+ static int fe(int err)
+ {
+	return -ERR;
+ }
+
  int f(...) { ... }

@depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma, ERR;
expression PFN, SZ;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
- if (remap_pfn_range(vma, vma->vm_start, PFN, SZ, vma->vm_page_prot))
-	return -ERR;
+ mmap_action_remap_full(desc, PFN);
|
- if (io_remap_pfn_range(vma, vma->vm_start, PFN, SZ, vma->vm_page_prot))
-	return -ERR;
+ mmap_action_ioremap_full(desc, PFN);
)
+ desc->action.error_override = -ERR;
 return 0;
}

@depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
expression S, L;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
- return vm_iomap_memory(vma, S, L);
+ mmap_action_simple_ioremap(desc, S, L);
+ return 0;
}

// Flags, the kit's 6.12 form: the descriptor's vm_flags.
@depends on patch && !bad && !mainline@
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

// Flags, mainline's form: one helper call with the flags' bit numbers,
// VMA_*_BIT; a test of several flags is a test of any of them.
// (bad made sure that every test in the hook is a truth value.)
@mtest depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
expression F : script:python () { vm_flag_names(F) is not None };
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <+... vma@p->vm_flags & F ...+> }

@script:python mtest_call@
fl << mtest.F;
fn;
bits;
@@
coccinelle.fn = cocci.make_ident("vma_desc_test" if len(vm_flag_names(fl)) == 1 else "vma_desc_test_any")
coccinelle.bits = cocci.make_ident(vma_bits(fl))

@depends on patch && !bad && mainline@
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

@mset depends on patch && !bad && mainline@
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

@depends on patch && !bad && mainline@
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

@depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<...
- vma_set_anonymous(vma)
+ vma_desc_set_anonymous(desc)
...>
}

// Every other read or write of the VMA, and the file argument.
@depends on patch && !bad@
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
@depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma, sizevar.sz, d;
type T;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
- T sz = vma_desc_size(d);
... when != sz
}

// The signature and the initializer.
@depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma;
fresh identifier fp = f ## "_prepare";
@@
int
- f(struct file *filearg, struct vm_area_struct *vma)
+ fp(struct vm_area_desc *desc)
 { ... }

@depends on patch && !bad@
identifier fops.f, fops.fops_name;
fresh identifier fp = f ## "_prepare";
@@
struct file_operations fops_name = { ...,
- .mmap = f,
+ .mmap_prepare = fp,
...};
