// SPDX-License-Identifier: GPL-2.0-only
/// The verdict on each hook: a use of its VMA that mmap_prepare_uses.cocci
/// does not accept (nor a static helper taken with the hook, below) is
/// "bad", and the hook stays as it is. Report mode's lines: convertible, or
/// not and why. Part of the semantic patch of mmap_prepare.cocci (see
/// there), which scripts/coccinelle/mmap-prepare.sh joins with the others.

@initialize:python@
@@
# Static helpers of the file that a hook hands its VMA to (below): per
# (file, name), the calls (hook, index of the VMA among the arguments,
# line, column), the definitions (index of the VMA parameter, the set of
# their lines and columns: one per #ifdef branch; None when not
# convertible), every place that names it, whether it uses the VMA
# otherwise; and the hooks converted (mmap_prepare_rewrite.cocci converts a
# helper with them).
helper_calls = {}
helper_defs = {}
helper_refs = {}
helper_bad_uses = set()
converted_hooks = set()
# Per hook (file, name): its first state change, (line, position, hook,
# what, kind), noted by the report_state_* rules, printed by report_state.
state_first = {}


def params_count(ps):
    """The number of parameters of a parameter list's text."""
    if not ps.strip():
        return 0
    depth, n = 0, 1
    for c in ps:
        depth += {"(": 1, ")": -1}.get(c, 0)
        n += c == "," and depth == 0
    return n


def helper_ok(file, h):
    """True when the helper H of FILE can go with the one hook that calls it."""
    key = (file, h.strip())
    d = helper_defs.get(key)
    calls = helper_calls.get(key, set())
    if not d or not calls or key in helper_bad_uses:
        return False
    if len({c[0] for c in calls}) != 1 or any(c[1] != d[0] for c in calls):
        return False
    allowed = {(c[2], c[3]) for c in calls} | d[1]
    return helper_refs.get(key, set()) <= allowed


# State a hook changes (a reference, an allocation, a count, an insertion):
# .mmap_prepare() runs before the VMA exists, and the mmap() can still fail
# after it with no VMA and no vm_ops->close to undo it. Per kind, the names
# of the calls that do it; reads (atomic_read(), kref_read()) are not state.
STATE_CALLS = [
    ("a reference", r"(try_module_get|__module_get|module_put|fget\w*|fput|get_file\w*|get_device|put_device"
     r"|get_page|put_page|folio_get|folio_put|get_task_struct|put_task_struct|get_pid|put_pid"
     r"|kref_(?!read\b)\w+|refcount_(?!read\b)\w+|\w+_get|\w+_put|\w+_hold|\w+_unhold)"),
    ("an allocation", r"(k[mzv]?alloc\w*|kcalloc|kvcalloc|kvmalloc\w*|kvzalloc\w*|vmalloc\w*|vzalloc\w*"
     r"|devm_\w*alloc\w*|alloc_pages\w*|__get_free_pages?|get_zeroed_page|kmem_cache_\w*alloc\w*"
     r"|kstrdup\w*|kmemdup\w*|dma_alloc_\w+|idr_alloc\w*|ida_alloc\w*|ida_simple_get)"),
    ("a count", r"(atomic(64|_long)?_(?!read\b|read_)\w+)"),
    ("an insertion", r"(list_add\w*|hlist_add\w*|list_move\w*|rb_insert\w*|xa_store\w*|xa_insert\w*"
     r"|radix_tree_insert)"),
]
LOCK_CALL = r"(\w+_lock(_\w+)?|down(_\w+)?|\w+_trylock\w*)"
UNLOCK_CALL = r"(\w+_unlock\w*|up(_\w+)?)"


def state_kind(fn):
    """What calling FN does to the driver's state ("a reference", ...), or
    None when it is not a state change the aid knows."""
    fn = fn.strip()
    return next((kind for kind, pat in STATE_CALLS if re.fullmatch(pat, fn)), None)


def source_line(pos):
    """The text of the line at spatch position POS, or "" when unreadable."""
    try:
        with open(pos.file, encoding="utf-8", errors="replace") as src:
            return src.read().splitlines()[int(pos.line) - 1]
    except (OSError, IndexError, ValueError):
        return ""


def note_state(pos, f, what, kind):
    """Keep the first (by line, then column) state change of hook F."""
    key = (pos.file, f.strip())
    at = (int(pos.line), int(pos.column))
    if key not in state_first or at < state_first[key][0]:
        state_first[key] = (at, pos, f.strip(), what, kind)


def not_the_vma(e, vma):
    """True when the expression E is not the hook's VMA (vma->vm_pgoff++ is
    a use of the VMA, judged elsewhere)."""
    return not re.match(r"\s*\(?\s*%s\b" % re.escape(vma.strip()), e)


def state_why(what, kind):
    """Report mode's reason for a hook that changes state before the
    mapping exists."""
    where = ("vm_ops->mapped, marking the VMA through its vm_private_data so that close() releases only"
             " what mapped took" if target["mainline"] else
             "the success hook (mainline: vm_ops->mapped), marking the VMA so that close() releases only"
             " what the hook took")
    return ("%s changes state (%s) before the mapping exists: mmap() can still fail after .mmap_prepare()"
            " with no VMA and no close() to undo it; it belongs in %s: convert by hand" % (what, kind, where))


def hook_name(h):
    """The name of a converted hook: F becomes F_prepare. The aid's
    scripts read this definition (hook_files.py): the rule is written here
    only."""
    return h.strip() + "_prepare"


def helper_name(h):
    """The name of a helper converted with its hook: "mmap" in it becomes
    "mmap_prepare" (relay_mmap_buf(), relay_mmap_prepare_buf(), as
    mainline); a name without "mmap" stays (mem.c's private_mapping_ok()).
    The aid's scripts read this definition (hook_files.py): the rule is
    written here only."""
    h = h.strip()
    return h.replace("mmap", "mmap_prepare", 1) if "mmap" in h else h


// A static function of this file that the hook hands its VMA to
// ("return relay_mmap_buf(buf, vma);"): converted with the hook, as
// H(..., struct vm_area_desc *desc, ...) (H: helper_name()), when it takes
// exactly one VMA, returns int, is named nowhere else than in calls of one
// hook that pass that hook's own VMA and in its definitions (one per
// #ifdef branch: mem.c's private_mapping_ok()), and uses the VMA only in
// ways that have a descriptor form here (its fields, named flags set or
// cleared, is_nommu_shared_mapping() of its flags; on the kit's API any use
// of the flags; no remap). Else the hook stays, with its
// reason: "the VMA is passed to F()". All or nothing: the helper goes only
// with a hook that is converted (hsel below).
@helper_call exists@
identifier fops.f, hook.filearg, hook.vma, h;
expression list[n] es1;
expression list es2;
position pc;
@@
f(struct file *filearg, struct vm_area_struct *vma) { <+... h@pc(es1, vma, es2) ...+> }

@helper_def@
identifier helper_call.h, v;
parameter list ps1, ps2;
position hd;
@@
static int h@hd(ps1, struct vm_area_struct *v, ps2) { ... }

@helper_any@
identifier helper_call.h;
position r;
@@
h@r

@helper_okpos@
identifier helper_call.h, helper_def.v;
parameter list helper_def.ps1, helper_def.ps2;
expression F : script:python () { vm_flag_names(F) is not None };
position p;
@@
h(ps1, struct vm_area_struct *v, ps2) {
<...
(
 v@p->vm_end
|
 v@p->vm_start
|
 v@p->vm_pgoff
|
 v@p->vm_page_prot
|
 v@p->vm_ops
|
 v@p->vm_private_data
|
 v@p->vm_file
|
 vma_pages(v@p)
|
 vm_flags_set(v@p, F)
|
 vm_flags_clear(v@p, F)
|
 is_nommu_shared_mapping(v@p->vm_flags)
)
...>
}

@helper_okflags depends on !mainline@
identifier helper_call.h, helper_def.v;
parameter list helper_def.ps1, helper_def.ps2;
expression E;
position p;
@@
h(ps1, struct vm_area_struct *v, ps2) {
<...
(
 v@p->vm_flags
|
 vm_flags_set(v@p, E)
|
 vm_flags_clear(v@p, E)
)
...>
}

@helper_bad exists@
identifier helper_call.h, helper_def.v;
parameter list helper_def.ps1, helper_def.ps2;
position p != {helper_okpos.p, helper_okflags.p};
@@
h(ps1, struct vm_area_struct *v, ps2) {
 ... when any
 v@p
 ... when any
}

@script:python helper_seen_call@
f << fops.f;
h << helper_call.h;
n << helper_call.n;
pc << helper_call.pc;
@@
helper_calls.setdefault((pc[0].file, h.strip()), set()).add((f.strip(), int(n), pc[0].line, pc[0].column))

@script:python helper_seen_def@
h << helper_call.h;
ps1 << helper_def.ps1;
ps2 << helper_def.ps2;
hd << helper_def.hd;
@@
key = (hd[0].file, h.strip())
d = helper_defs.get(key, (params_count(str(ps1)), set()))
if d is None or d[0] != params_count(str(ps1)) or "vm_area_struct" in str(ps1) + str(ps2):
    helper_defs[key] = None
else:
    d[1].add((hd[0].line, hd[0].column))
    helper_defs[key] = d

@script:python helper_seen_ref@
h << helper_call.h;
r << helper_any.r;
@@
helper_refs.setdefault((r[0].file, h.strip()), set()).add((r[0].line, r[0].column))

@script:python helper_seen_bad@
h << helper_call.h;
p << helper_bad.p;
@@
helper_bad_uses.add((p[0].file, h.strip()))

// The hook's calls of such a helper, when it can go with the hook.
@helper_pass@
identifier fops.f, hook.filearg, hook.vma;
position hook.hp;
identifier h : script:python (hp) { helper_ok(hp[0].file, h) };
expression list es1, es2;
position p;
@@
f@hp(struct file *filearg, struct vm_area_struct *vma) { <... h(es1, vma@p, es2) ...> }

// Any other use of the VMA (a partial remap included): the hook is not
// converted.
@bad_use exists@
identifier fops.f, hook.filearg, hook.vma;
position p != {okpos.p, okanon.p, okflags.p, okflags_ml.p, okflags_mlif.p, okret.p, okret_iomap.p, okgeneric.p, okif.p,
                okflags_mljoin.p1, okflags_mljoin.p2, okflags_mlmore.p, okflags_mod.p, okdax.p,
                helper_pass.p};
@@
f(struct file *filearg, struct vm_area_struct *vma) {
 ... when any
 vma@p
 ... when any
}

// Nor is a hook that the file names other than in a .mmap initializer
// (called by another function, stored in a pointer): that use would still
// want the old signature.
@mmap_refs@
identifier fops.f, fn;
position r;
@@
struct file_operations fn = { ..., .mmap = f@r, ... };

// An EXPORT_SYMBOL() of a hook that a driver's modules share (as
// nfs_file_mmap) is renamed with it (mmap_prepare_rewrite.cocci).
@exported@
identifier fops.f;
declarer name EXPORT_SYMBOL, EXPORT_SYMBOL_GPL;
position r;
@@
(
EXPORT_SYMBOL(f@r);
|
EXPORT_SYMBOL_GPL(f@r);
)

@called@
identifier fops.f;
position p != {mmap_refs.r, exported.r};
@@
f@p

// State the hook changes before the mapping exists (STATE_CALLS): a call,
// a lock taken and not released in the hook, a counter of the driver
// (E->field++, a global's ++) moved. The hook is not converted: report mode
// says what and where it belongs.
@state_call exists@
identifier fops.f, hook.filearg, hook.vma;
identifier fn : script:python () { state_kind(fn) is not None };
expression list es;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
 ... when any
 fn@p(es)
 ... when any
}

@lock_taken exists@
identifier fops.f, hook.filearg, hook.vma;
identifier fn : script:python () { re.fullmatch(LOCK_CALL, fn.strip()) is not None };
expression list es;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
 ... when any
 fn@p(es)
 ... when any
}

@lock_released exists@
identifier fops.f, hook.filearg, hook.vma;
identifier fn : script:python () { re.fullmatch(UNLOCK_CALL, fn.strip()) is not None };
expression list es;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
 ... when any
 fn(es)
 ... when any
}

@state_count exists@
identifier fops.f, hook.filearg, hook.vma, fld;
expression E : script:python (vma) { not_the_vma(E, vma) };
global idexpression G;
position p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
 ... when any
(
 E->fld@p++
|
 ++E->fld@p
|
 E->fld@p--
|
 --E->fld@p
|
 E->fld@p += ...
|
 E->fld@p -= ...
|
 G@p++
|
 ++G@p
|
 G@p--
|
 --G@p
)
 ... when any
}

// The file also #defines the hook (its twin when an option is off, "#else
// #define demo_file_mmap generic_file_readonly_mmap"): converting the
// function would leave the macro's configuration naming a hook that the
// .mmap_prepare initializer no longer fits. Mainline renames a macro for
// generic_file_mmap() or its read-only twin with the hook
// (generic_define_ml); any other stays a human's job.
@macro_hook@
identifier fops.f;
expression E;
position p;
@@
#define f@p E

@macro_hook_ok depends on mainline@
identifier fops.f;
symbol generic_file_mmap, generic_file_readonly_mmap;
@@
(
#define f generic_file_mmap
|
#define f generic_file_readonly_mmap
)

// bad: the hook stays as it is (every rewrite depends on !bad).
@bad depends on bad_use || called || state_call || state_count || (lock_taken && !lock_released) || (macro_hook && !macro_hook_ok)@
identifier fops.f, hook.filearg, hook.vma;
@@
f(struct file *filearg, struct vm_area_struct *vma) { ... }

// The hooks converted: a helper goes only with its hook (hsel).
@script:python hook_converted depends on !bad@
f << fops.f;
hp << hook.hp;
@@
converted_hooks.add(hook_key(hp, f))

@script:python report_called depends on report && hook && !bad_use && called@
f << fops.f;
p << called.p;
@@
coccilib.report.print_report(p[0], "%s: not converted: the hook is also called or named here, which needs its old signature" % f)

@script:python report_bad depends on report && bad_use@
f << fops.f;
p << bad_use.p;
@@
import re
line = source_line(p[0])
reasons = [
    (r"\bvm_insert_pages?\s*\(|\bvmf_insert_", "vm_insert_page(): no action inserts pages on the kit's API (mainline: map-kernel-pages)"),
    (r"\bdma_mmap_\w+\s*\(", "dma_mmap_*(): no action for DMA memory"),
    (r"\b(io_)?remap_pfn_range\s*\(|\bremap_vmalloc_range", "a remap that is partial, not the last statement, or checked afterwards"),
    (r"^\s*vm_iomap_memory\s*\(.*\);\s*$", "vm_iomap_memory() with its result ignored: as mmap_action_simple_ioremap() a failure would fail the mmap, and what the hook did for the mapping (a reference vm_ops->close drops, ...) belongs in vm_ops->mapped: convert by hand"
     if target["mainline"] else "vm_iomap_memory(): mainline's simple I/O remap only (-D mainline)"),
    (r"\bvm_iomap_memory\s*\(", "vm_iomap_memory() not as the last statement" if target["mainline"]
     else "vm_iomap_memory(): mainline's simple I/O remap only (-D mainline)"),
    (r"\bvma_set_anonymous\s*\(", "vma_set_anonymous(): no descriptor form on the kit's API (-D mainline: vma_desc_set_anonymous())"),
    (r"\bgeneric_file(_readonly)?_mmap\s*\(", "generic_file_mmap() of a file other than the hook's (generic_file_mmap_prepare() maps desc->file)"
     if target["mainline"] else "generic_file_mmap(): mainline's generic_file_mmap_prepare() only (-D mainline)"),
    (r"=\s*vma\s*;", "the VMA is stored"),
    (r"\bdaxdev_mapping_supported\s*\(", "daxdev_mapping_supported(vma, ...) in a hook that sets vm_file: convert it by hand" if target["mainline"]
     else "daxdev_mapping_supported(vma, ...): no descriptor form on the kit's 6.12 API (mainline: daxdev_mapping_supported(desc, file_inode(file), dax_dev); -D mainline)"),
    (r"\bvm_flags_mod\s*\(", "vm_flags_mod() of flags not named VM_* flags (mainline's helpers take bit numbers)"),
    (r"\bvm_flags(_set|_clear)?\b", "flags not named VM_* flags, or used other than in a test (mainline's helpers take bit numbers)"),
    (r"\b(?!(?:if|while|for|switch|return|sizeof)\b)\w+\s*\([^;]*\bvma\b", "the VMA is passed to another function"),
]
why = next((r for pat, r in reasons if re.search(pat, line)), "a use of the VMA with no descriptor form")
if why == "the VMA is passed to another function":
    # Name the function: the innermost call still open at the VMA.
    col = int(p[0].column)
    opened = []
    for m in re.finditer(r"\b(\w+)\s*\(|[()]", line[:col]):
        if m.group(1):
            opened.append(m.group(1))
        elif m.group(0) == "(":
            opened.append(None)
        elif opened:
            opened.pop()
    fn = next((n for n in reversed(opened) if n), None)
    if fn:
        here = re.search(r"^\w[^;=]*\b%s\s*\([^;]*$" % re.escape(fn), "\n".join(
            open(p[0].file, encoding="utf-8", errors="replace").read().splitlines()), re.M)
        why = "the VMA is passed to %s()%s" % (fn, ", a function of this file: give it a struct vm_area_desc * form first"
                                               if here else ", which takes the VMA: convert by hand (with its descriptor form, if it has one)")
key = (p[0].file, f.strip())
if why.startswith("a remap") and any((key, a) in bad_aliases for a in prot_aliases.get(key, ())):
    why = "the remap's protection is a local set otherwise than to the VMA's protection or pgprot_*() of it"
undo = generic_undo.get((p[0].file, p[0].line))
if undo:
    why = ("%s() undoes, when generic_file_mmap() fails, what the hook did before it: a prepare hook must"
           " change no state before the mapping exists (mainline: vm_ops->mapped)" % undo)
coccilib.report.print_report(p[0], "%s: not converted: %s" % (f, why))

@script:python report_macro depends on report && !bad_use && !called && macro_hook && !macro_hook_ok@
f << fops.f;
E << macro_hook.E;
p << macro_hook.p;
@@
coccilib.report.print_report(p[0], "%s: not converted: the file also #defines %s as %s (when an option is off?),"
                             " which this target cannot convert: convert that macro by hand" % (f, f, E.strip()))

// One reason per hook, only where no other reason was given: its first
// state change in the file (the rules give their matches in no set order),
// printed by report_state once all are noted.
@script:python report_state_call depends on report && !bad_use && !called && state_call@
f << fops.f;
fn << state_call.fn;
p << state_call.p;
@@
note_state(p[0], f, "%s()" % fn.strip(), state_kind(fn))

@script:python report_state_count depends on report && !bad_use && !called && state_count@
f << fops.f;
p << state_count.p;
@@
note_state(p[0], f, '"%s"' % (source_line(p[0]).strip().rstrip(";") or "a counter"), "a count")

@script:python report_state_lock depends on report && !bad_use && !called && lock_taken && !lock_released@
f << fops.f;
fn << lock_taken.fn;
p << lock_taken.p;
@@
note_state(p[0], f, "%s() with no unlock in the hook" % fn.strip(), "a lock held")

// Rules run one after the other on a file: by now every state change of
// the hook was noted.
@script:python report_state depends on report && !bad_use && !called && !(macro_hook && !macro_hook_ok) && (state_call || state_count || (lock_taken && !lock_released))@
f << fops.f;
hp << hook.hp;
@@
first = state_first.pop((hp[0].file, f.strip()), None)
if first:
    _, pos, name, what, kind = first
    coccilib.report.print_report(pos, "%s: not converted: %s" % (name, state_why(what, kind)))

// Context mode (-D context, make coccicheck MODE=context): the header of
// each convertible hook, and for the others the first use of the VMA that
// has no descriptor form, or the calls that change state.
@ctx_convertible depends on context && !bad@
identifier fops.f, hook.filearg, hook.vma;
@@
* int f(struct file *filearg, struct vm_area_struct *vma) { ... }

@ctx_bad depends on context && bad_use@
identifier fops.f, hook.filearg, hook.vma;
position bad_use.p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
 ... when any
* vma@p
 ... when any
}

@ctx_state depends on context && !bad_use && !called && state_call@
identifier fops.f, hook.filearg, hook.vma, state_call.fn;
expression list es;
position state_call.p;
@@
f(struct file *filearg, struct vm_area_struct *vma) {
 ... when any
* fn@p(es)
 ... when any
}

@script:python report_convertible depends on report && !bad@
f << fops.f;
hp << hook.hp;
@@
print("%s:%s: %s: convertible" % (hp[0].file, hp[0].line, f))

@script:python report_no_hook depends on report && !hook@
f << fops.f;
fp << fops.fp;
@@
if f.strip() == "NULL":
    why = "no hook (.mmap = NULL): nothing to convert"
# mm/filemap.c's own hooks: mainline's twins replace them (generic_field_ml).
elif f.strip() in ("generic_file_mmap", "generic_file_readonly_mmap") and target["mainline"]:
    why = None
elif f.strip() in ("generic_file_mmap", "generic_file_readonly_mmap"):
    why = "the kit's 6.12 API has no %s_prepare(): mainline's only (-D mainline)" % f.strip()
else:
    why = "its definition was not found or not parsed in this file"
print("%s:%s: %s: %s" % (fp[0].file, fp[0].line, f, "not converted: " + why if why else "convertible"))

