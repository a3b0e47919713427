// SPDX-License-Identifier: GPL-2.0-only
/// Convert a file_operations .mmap hook to .mmap_prepare, when every use of
/// the VMA in it has a descriptor form (the conversion guide's table,
/// Documentation/conversion-guide.rst). Two targets:
///  - the kit's 6.12 API (default): desc->vm_flags, success/error hooks;
///  - mainline 7.2+ (-D mainline): vma_desc_test()/vma_desc_test_any()/
///    vma_desc_test_all()/vma_desc_set_flags()/vma_desc_clear_flags() with
///    VMA_*_BIT, mmap_action_simple_ioremap(), generic_file_mmap_prepare().
/// A whole-VMA remap becomes an action; its size may be written out, held
/// in a local or made sure of by an earlier test, and its protection may
/// be a local copy of the VMA's changed with pgprot_*() (which then becomes
/// desc->page_prot: the VMA keeps the protection it was mapped with).
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


def mask_ok(g):
    """True for the G of "(vm_flags & F) == G" (or !=) that mainline's
    tests can say: zero, or named VM_* flags."""
    return g.strip() == "0" or vm_flag_names(g) is not None


def desc_test(kind, names):
    """vma_desc_test() for one flag, else vma_desc_test_KIND()."""
    bits = ", ".join("VMA_%s_BIT" % name[3:] for name in names)
    if len(names) == 1:
        return "vma_desc_test(desc, %s)" % bits
    return "vma_desc_test_%s(desc, %s)" % (kind, bits)


def mask_test(f, g, op):
    """Mainline's form of "(vm_flags & F) OP G", OP "==" or "!=": the flags
    of G all set and the others of F all clear (or, for "!=", not so). Gives
    the expression bare and, when it has two terms, in parentheses."""
    fs = vm_flag_names(f)
    gs = [] if g.strip() == "0" else vm_flag_names(g)
    if not set(gs) <= set(fs):
        # A flag expected that the mask drops: never equal.
        return ("false", "false") if op == "==" else ("true", "true")
    on = [n for n in fs if n in gs]
    off = [n for n in fs if n not in gs]
    if op == "==":
        terms = ([desc_test("all", on)] if on else []) + (["!" + desc_test("any", off)] if off else [])
        e = " && ".join(terms)
    else:
        terms = (["!" + desc_test("all", on)] if on else []) + ([desc_test("any", off)] if off else [])
        e = " || ".join(terms)
    return e, ("(%s)" % e if len(terms) > 1 else e)


# Per hook (its file and name): the expressions known to be the size of the
# whole VMA where the remap runs, and the locals that stand for the VMA's
# page protection (both filled by the rules below, before the remap rules
# ask).
target = {"mainline": False}
whole_sizes = {}
prot_aliases = {}
bad_aliases = set()


def hook_key(hp, f):
    return (hp[0].file, f.strip())


def flat(e):
    return re.sub(r"\s+", "", e)


def is_whole_size(hp, f, vma, e):
    v = vma.strip()
    return flat(e) == "%s->vm_end-%s->vm_start" % (v, v) or flat(e) in whole_sizes.get(hook_key(hp, f), ())


def is_vma_prot(hp, f, vma, e):
    key = hook_key(hp, f)
    return flat(e) == "%s->vm_page_prot" % vma.strip() or (
        flat(e) in prot_aliases.get(key, ()) and (key, flat(e)) not in bad_aliases)

// Report mode words some reasons by target.
@script:python depends on mainline@
@@
target["mainline"] = True

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

// The size of the whole VMA, under other names: a local declared with it
// and never written again, or assigned it once on every path to the
// remap; or the value a test made sure of ("if (size != PAGE_SIZE) return
// -EINVAL;"). The remap rules below accept each as the remap's size.
@sizevar@
identifier fops.f, hook.filearg, hook.vma, sz;
type T;
position q;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
T sz@q = vma->vm_end - vma->vm_start;
...
}

@sizevar_asg@
identifier fops.f, hook.filearg, hook.vma, sz;
position q;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
sz@q = vma->vm_end - vma->vm_start;
...
}

// Any other write to such a local, or its address taken, disqualifies it
// (anywhere in the file: a local of another function with the same name
// makes the rule only more careful).
@sizevar_written@
identifier sizevar.sz;
position q2 != sizevar.q;
assignment operator aop;
expression E;
@@
(
 sz@q2 aop E
|
 &sz@q2
|
 sz@q2++
|
 sz@q2--
|
 ++sz@q2
|
 --sz@q2
)

@sizevar_asg_written@
identifier sizevar_asg.sz;
position q2 != sizevar_asg.q;
assignment operator aop;
expression E;
@@
(
 sz@q2 aop E
|
 &sz@q2
|
 sz@q2++
|
 sz@q2--
|
 ++sz@q2
|
 --sz@q2
)

@sizecheck@
identifier fops.f, hook.filearg, hook.vma;
expression E, E2, E3, R;
position q;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
if@q (vma->vm_end - vma->vm_start != E) return R;
|
if@q (vma->vm_end - vma->vm_start != E || E2) return R;
|
if@q (E2 || vma->vm_end - vma->vm_start != E) return R;
)
... when != E = E3
}

@script:python@
f << fops.f;
sz << sizevar.sz;
q << sizevar.q;
@@
whole_sizes.setdefault(hook_key(q, f), set()).add(flat(sz))

@script:python@
f << fops.f;
sz << sizevar_asg.sz;
q << sizevar_asg.q;
@@
whole_sizes.setdefault(hook_key(q, f), set()).add(flat(sz))

@script:python@
f << fops.f;
e << sizecheck.E;
q << sizecheck.q;
@@
whole_sizes.setdefault(hook_key(q, f), set()).add(flat(e))

@script:python@
f << fops.f;
sz << sizevar.sz;
q << sizevar_written.q2;
@@
whole_sizes.get(hook_key(q, f), set()).discard(flat(sz))

@script:python@
f << fops.f;
sz << sizevar_asg.sz;
q << sizevar_asg_written.q2;
@@
whole_sizes.get(hook_key(q, f), set()).discard(flat(sz))

// A local copy of the VMA's page protection that the remap uses, changed
// only through pgprot_*() (pgprot_noncached(), ...): on the descriptor it
// is desc->page_prot itself, which the action maps with.
@protvar@
identifier fops.f, hook.filearg, hook.vma, pv;
type T;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<+...
(
 T pv = vma->vm_page_prot;
|
 pv = vma->vm_page_prot
)
...+>
}

@protuse@
identifier fops.f, hook.filearg, hook.vma, protvar.pv;
identifier FN =~ "^pgprot_";
expression E1, E2;
position q;
type T;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<+...
(
 T pv@q = vma->vm_page_prot;
|
 T pv@q;
|
 pv@q = vma->vm_page_prot
|
 pv@q = FN(vma->vm_page_prot)
|
 remap_pfn_range(vma, vma->vm_start, E1, E2, pv@q)
|
 io_remap_pfn_range(vma, vma->vm_start, E1, E2, pv@q)
)
...+>
}

@protfn@
identifier fops.f, hook.filearg, hook.vma, protvar.pv;
identifier FN =~ "^pgprot_";
position q, q2;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <+... pv@q = FN(pv@q2) ...+> }

@protremap@
identifier fops.f, hook.filearg, hook.vma, protvar.pv;
expression E1, E2;
position q;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
<+...
(
 remap_pfn_range(vma, vma->vm_start, E1, E2, pv@q)
|
 io_remap_pfn_range(vma, vma->vm_start, E1, E2, pv@q)
)
...+>
}

@protbad@
identifier fops.f, hook.filearg, hook.vma, protvar.pv;
position r != {protuse.q, protfn.q, protfn.q2};
@@
f(struct file *filearg, struct vm_area_struct *vma) { <+... pv@r ...+> }

@script:python@
f << fops.f;
pv << protvar.pv;
q << protremap.q;
@@
prot_aliases.setdefault(hook_key(q, f), set()).add(flat(pv))

@script:python@
f << fops.f;
pv << protvar.pv;
r << protbad.r;
@@
bad_aliases.add((hook_key(r, f), flat(pv)))

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
@okflags_ml depends on mainline@
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

// So do generic_file_mmap() and generic_file_readonly_mmap() as the last
// step: generic_file_mmap_prepare() and its read-only twin.
@okgeneric depends on mainline@
identifier fops.f, hook.filearg, hook.vma;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
 return generic_file_mmap(filearg, vma@p);
|
 return generic_file_readonly_mmap(filearg, vma@p);
)
}

// The same remap as the last step, with its error replaced by a constant
// errno: "if (remap_pfn_range(...)) return -EAGAIN; return 0;". The action
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
 if (io_remap_pfn_range(vma@p, vma->vm_start, E, SZ, PR))
	return -ERR;
)
 return 0;
}

// Any other use of the VMA (a partial remap included): the file is not
// converted.
@bad@
identifier fops.f, hook.filearg, hook.vma;
position p != {okpos.p, okanon.p, okflags.p, okflags_ml.p, okflags_mlif.p, okret.p, okret_iomap.p, okgeneric.p, okif.p};
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
    (r"\bvm_iomap_memory\s*\(", "vm_iomap_memory() not as the last statement" if target["mainline"]
     else "vm_iomap_memory(): mainline's simple I/O remap only (-D mainline)"),
    (r"\bvma_set_anonymous\s*\(", "vma_set_anonymous(): no descriptor form on the kit's API (-D mainline: vma_desc_set_anonymous())"),
    (r"\bgeneric_file(_readonly)?_mmap\s*\(", "generic_file_mmap() not as the last statement" if target["mainline"]
     else "generic_file_mmap(): mainline's generic_file_mmap_prepare() only (-D mainline)"),
    (r"=\s*vma\s*;", "the VMA is stored"),
    (r"\bvm_flags(_set|_clear)?\b", "flags not named VM_* flags, or used other than in a test (mainline's helpers take bit numbers)"),
    (r"\b(?!(?:if|while|for|switch|return|sizeof)\b)\w+\s*\([^;]*\bvma\b", "the VMA is passed to another function"),
]
why = next((r for pat, r in reasons if re.search(pat, line)), "a use of the VMA with no descriptor form")
key = (p[0].file, f.strip())
if why.startswith("a remap") and any((key, a) in bad_aliases for a in prot_aliases.get(key, ())):
    why = "the remap's protection is a local set otherwise than to the VMA's protection or pgprot_*() of it"
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
if f.strip() == "NULL":
    why = "no hook (.mmap = NULL): nothing to convert"
else:
    why = "its definition was not found or not parsed in this file"
print("%s:%s: %s: not converted: %s" % (fp[0].file, fp[0].line, f, why))

// The whole-VMA remap becomes the action, recorded as the last step.
@depends on patch && !bad@
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

// The remap whose error was translated: the action, and the errno through
// an error hook (kit; a new function next to the hook) or error_override.
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
- if (io_remap_pfn_range(vma, vma->vm_start, PFN, SZ, PR))
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
expression PFN, SZ, PR;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
- if (remap_pfn_range(vma, vma->vm_start, PFN, SZ, PR))
-	return -ERR;
+ mmap_action_remap_full(desc, PFN);
|
- if (io_remap_pfn_range(vma, vma->vm_start, PFN, SZ, PR))
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

@depends on patch && !bad && mainline@
identifier fops.f, hook.filearg, hook.vma;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
(
- return generic_file_mmap(filearg, vma);
+ return generic_file_mmap_prepare(desc);
|
- return generic_file_readonly_mmap(filearg, vma);
+ return generic_file_readonly_mmap_prepare(desc);
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

@depends on patch && !bad@
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
// A comparison of some flags with some of them: all of the expected ones
// set and the others clear, said with vma_desc_test_all() and
// vma_desc_test_any(); in parentheses where it is part of a larger
// expression and has two terms.
@mmask depends on patch && !bad && mainline@
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

@depends on patch && !bad && mainline@
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
@depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma, sizevar.sz, d;
type T;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
- T sz = vma_desc_size(d);
... when != sz
}

@depends on patch && !bad@
identifier fops.f, hook.filearg, hook.vma, sizevar_asg.sz, d;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
...
- sz = vma_desc_size(d);
... when != sz
}

@depends on patch && !bad@
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
fresh identifier fp = f ## "_prepare";
@@
int
- f(struct file *filearg, struct vm_area_struct *vma)
+ fp(struct vm_area_desc *desc)
 { ... }

@depends on patch@
identifier fops.f, fops.fops_name, sig.fp;
@@
struct file_operations fops_name = { ...,
- .mmap = f
+ .mmap_prepare = fp
, ...};
