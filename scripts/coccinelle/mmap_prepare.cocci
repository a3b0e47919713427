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
/// makes the whole file untouched, and report mode says where. But for one:
/// the VMA passed to a static int function of the file that only that hook
/// calls, with its own VMA, and that uses its VMA only as a hook may (no
/// remap): that helper takes a struct vm_area_desc *desc instead, with the
/// hook (kernel/relay.c's relay_mmap_buf(), which becomes
/// relay_mmap_prepare_buf() as in mainline), or neither changes.
///
/// The semantic patch is six files, which scripts/coccinelle/mmap-prepare.sh
/// joins in this order (run it, not spatch on one file):
///  - mmap_prepare.cocci (this one): the hook and the facts about it (the
///    names of the VMA's size and protection);
///  - mmap_prepare_uses.cocci: every use of the VMA that has a form on the
///    target;
///  - mmap_prepare_verdict.cocci: the static helper taken with its hook; any
///    other use is "bad"; report mode's verdicts;
///  - mmap_prepare_kit.cocci or mmap_prepare_mainline.cocci: the rewrites
///    that differ by target (the errno of a failed remap, the flags, and
///    mainline's generic_file_mmap(), vm_iomap_memory(),
///    vma_set_anonymous());
///  - mmap_prepare_rewrite.cocci: the rewrites both targets share, the
///    signature and the .mmap initializer last.
/// Its test cases are scripts/coccinelle/tests/ (make cocci-tests).
///
/// The rules that look for a use anywhere in a hook (<+... X ...+>) are
/// "exists" rules: by default (forall) they would need X on every path, and
/// a path through an early return ("#ifndef CONFIG_MMU return -ENOSYS;
/// #endif", mem.c's mmap_zero()) has none. Those that look for a use not
/// accounted for (bad_use, helper_bad, protbad) match each use on its own
/// ("... when any X ... when any"): with a nest, spatch 1.3 binds one use a
/// path, which may be an accounted one. A block spatch reads as dead (an
/// #else after the #if branch's return, mtdchar.c's) only <... ...> rules
/// reach: the flags test's rewrite is one.
///
// Confidence: Moderate
// Comments: the result is checked by make cocci (stage 0 converted, then
//  built and run through stage 2's checks). Report mode lists every .mmap
//  hook that this version leaves to a human, with the first offending line.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual context
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
# (file, line) of a generic_file_mmap() whose failure undoes the hook's
# earlier work: the function that undoes it (gen_undo, report mode).
generic_undo = {}


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
@script:python target_mainline depends on mainline@
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

@script:python whole_sizevar@
f << fops.f;
sz << sizevar.sz;
q << sizevar.q;
@@
whole_sizes.setdefault(hook_key(q, f), set()).add(flat(sz))

@script:python whole_sizevar_asg@
f << fops.f;
sz << sizevar_asg.sz;
q << sizevar_asg.q;
@@
whole_sizes.setdefault(hook_key(q, f), set()).add(flat(sz))

@script:python whole_sizecheck@
f << fops.f;
e << sizecheck.E;
q << sizecheck.q;
@@
whole_sizes.setdefault(hook_key(q, f), set()).add(flat(e))

@script:python sizevar_rewritten@
f << fops.f;
sz << sizevar.sz;
q << sizevar_written.q2;
@@
whole_sizes.get(hook_key(q, f), set()).discard(flat(sz))

@script:python sizevar_asg_rewritten@
f << fops.f;
sz << sizevar_asg.sz;
q << sizevar_asg_written.q2;
@@
whole_sizes.get(hook_key(q, f), set()).discard(flat(sz))

// A local copy of the VMA's page protection that the remap uses, changed
// only through pgprot_*() (pgprot_noncached(), ...): on the descriptor it
// is desc->page_prot itself, which the action maps with.
@protvar exists@
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

@protuse exists@
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

@protfn exists@
identifier fops.f, hook.filearg, hook.vma, protvar.pv;
identifier FN =~ "^pgprot_";
position q, q2;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <+... pv@q = FN(pv@q2) ...+> }

@protremap exists@
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

@protbad exists@
identifier fops.f, hook.filearg, hook.vma, protvar.pv;
position r != {protuse.q, protfn.q, protfn.q2};
@@
f(struct file *filearg, struct vm_area_struct *vma) {
 ... when any
 pv@r
 ... when any
}

@script:python prot_alias@
f << fops.f;
pv << protvar.pv;
q << protremap.q;
@@
prot_aliases.setdefault(hook_key(q, f), set()).add(flat(pv))

@script:python prot_alias_bad@
f << fops.f;
pv << protvar.pv;
r << protbad.r;
@@
bad_aliases.add((hook_key(r, f), flat(pv)))

