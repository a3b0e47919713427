#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Second step of scripts/coccinelle/mmap-prepare.sh, what Coccinelle does
not do itself:

- it rewrites code, not comments, so the kernel-doc block of each converted
  hook still names the old function and documents @file and @vma. For every
  function that takes a struct vm_area_desc *desc and whose kernel-doc names
  it as it was (F() for a hook F_prepare(), a helper's F_mmap_buf() for
  F_mmap_prepare_buf(), or its own name for a helper that kept it),
  rename it and replace the @file/@vma lines by one @desc line. Anything else
  in the comment is left as it is (its prose may still speak of the VMA: the
  conversion guide's checklist asks a human to reread it);
- it prints the error hook it adds (kit target) with its opening brace on
  the signature's line; kernel style puts a function's brace on its own line.
  Coccinelle 1.3 (Debian 13) also puts that hook between the converted
  hook's kernel-doc and the hook: move it above the kernel-doc, where
  Coccinelle 1.1 (Debian 12) puts it;
- Coccinelle 1.3 prints the two statements that replace one (a flags call
  split into a set and a clear) on one line: one statement a line;
- the bit list of a mainline flags call (vma_desc_set_flags(desc, VMA_A_BIT,
  ...)) is one token to it, so a long list is not wrapped: wrap it at 80
  columns, aligned after the parenthesis; so is a long
  daxdev_mapping_supported(desc, file_inode(desc->file), dax_dev);
- a long flags test in an if, "(vma->vm_flags & (A | B)) != (A | B)",
  spread over two lines, had braces around its one statement; its
  mainline form is one line, and checkpatch wants no braces then;
  Coccinelle 1.3 also puts braces around a mainline flags call that
  replaced the one statement of a braceless if: dropped too;
- a branch whose one statement copied the VMA's protection into the local
  the remap used ("else prot = vma->vm_page_prot;") is left empty, "{}",
  once that copy is gone: drop an empty else; an empty if with an else
  becomes the else under the negated test; an empty if alone goes, when its
  test has no side effects (else it stays, and verify-converted.py refuses
  the conversion);
- it prints a cast of a descriptor field with a space, "(phys_addr_t)
  desc->pgoff": without, as checkpatch wants (in converted hooks only: a
  "desc" of the file's other code is not the descriptor);
- a comment in a converted hook that names a call the conversion replaced
  ("generic_file_mmap() returns ENOSYS on nommu systems", nfs) names its
  replacement (REPLACED_CALLS), when the hook no longer makes the old call
  and makes the new one.

Usage: tidy-converted.py FILE...
"""
import re
import sys

from hook_files import helper_name, hook_name

DESC = " * @desc: the mapping to be created, described before the VMA exists\n"


def fix(text):
    changed = 0
    # A hook, F_prepare(struct vm_area_desc *desc), or a static helper
    # converted with it, H(..., struct vm_area_desc *desc) (its name with
    # mmap_prepare for mmap, or its own): for a helper only @vma goes (a
    # parameter called file is its own).
    for m in re.finditer(r"\b(\w+)\(((?:[^(){};]*,\s*)?)struct vm_area_desc \*desc\)", text):
        name = m.group(1)
        dropped = "vma" if m.group(2) else "file|vma"
        # The kernel-doc comment right above it ("F() - ...", "F - ..." or
        # "F: - ...", relay.c), when it names the function as it was: the
        # hook that hook_name() renamed, or the helper helper_name() did.
        head = re.compile(r"/\*\*\n \*([ \t])(\w+)(\(\))?(?=[\s:])(?:[^*]|\*(?!/))*\*/\n(?=[^\n]*\b"
                          + re.escape(name) + r"\()")
        doc = next((d for d in head.finditer(text)
                    if name in (d.group(2), hook_name(d.group(2)), helper_name(d.group(2)))), None)
        if not doc:
            continue
        old = doc.group(2)
        block = doc.group(0)
        lead = " *" + doc.group(1)
        parens = doc.group(3) or ""
        new = block.replace(lead + old + parens, lead + name + parens, 1)
        # Drop @file and @vma with their continuation lines; @desc instead.
        lines, out, skipping, placed = new.splitlines(keepends=True), [], False, False
        for line in lines:
            if re.match(r" \*[ \t]@(%s):" % dropped, line):
                skipping = True
                if not placed:
                    out.append(DESC.replace(" * ", lead, 1))
                    placed = True
                continue
            if skipping and re.match(r" \*\s{2,}\S", line):
                continue
            skipping = False
            out.append(line)
        new = "".join(out)
        if new != block:
            text = text.replace(block, new, 1)
            changed += 1
    return text, changed


def brace_on_own_line(text):
    return re.subn(r"^(static int \w+_error\(int err\)) ?\{$", r"\1\n{", text, flags=re.M)


# A kernel-doc block, then the error hook the semantic patch added (with its
# one-line comment), up to the hook's closing brace and the blank line.
HOOK_AFTER_DOC = re.compile(r"^(/\*\*\n(?:(?![^\n]*\*/)[^\n]*\n)* \*/\n)"
                            r"(/\* The errno user space saw [^\n]*\*/\n"
                            r"static int \w+_error\(int err\)\n\{\n(?:\t[^\n]*\n)*\}\n\n)", re.M)


def hook_above_kernel_doc(text):
    return HOOK_AFTER_DOC.subn(r"\2\1", text)


# "a;b;" on one line, outside for (;;), comments and strings.
TWO_STATEMENTS = re.compile(r"^(\t+)([^\n\"/]*?;)(?=[A-Za-z_])([^\n\"/]*;)$", re.M)


def one_statement_a_line(text):
    def split(m):
        if m.group(2).lstrip().startswith("for"):
            return m.group(0)
        return f"{m.group(1)}{m.group(2)}\n{m.group(1)}{m.group(3)}"
    total = 0
    for _ in range(8):  # a line of three statements takes two rounds
        new = TWO_STATEMENTS.sub(split, text)
        if new == text:
            break
        total += 1
        text = new
    return text, total


FLAGS_CALL = re.compile(r"^(\t+)((?:vma_desc_set_flags|vma_desc_clear_flags)\(desc,)\s*\n?\s*([A-Z0-9_, ]+\);)$", re.M)


def columns(text):
    return len(text.expandtabs(8))


def wrap_flags_call(m):
    indent, head, rest = m.group(1), m.group(2), m.group(3)
    args = [a.strip() for a in rest[:-2].split(",")]
    line = indent + head + " " + ", ".join(args) + ");"
    if columns(line) <= 80:
        return line
    col = columns(indent + head) - len("desc,")
    align = "\t" * (col // 8) + " " * (col % 8)
    lines, current = [], indent + head
    for i, arg in enumerate(args):
        piece = arg + (");" if i == len(args) - 1 else ",")
        if columns(current + " " + piece) > 80 and current.strip() not in ("", head):
            lines.append(current)
            current = align + piece
        else:
            current += " " + piece if current != align else piece
    lines.append(current)
    return "\n".join(lines)


# mainline's daxdev_mapping_supported(desc, file_inode(desc->file), DEV):
# past 80 columns, DEV on a line of its own, aligned after the parenthesis.
DAX_CALL = re.compile(r"^(\t+[^\n]*\bdaxdev_mapping_supported\()(desc, file_inode\(desc->file\),) ([^\n]*)$", re.M)


def wrap_dax_call(m):
    if columns(m.group(0)) <= 80:
        return m.group(0)
    col = columns(m.group(1))
    return m.group(1) + m.group(2) + "\n" + "\t" * (col // 8) + " " * (col % 8) + m.group(3)


def wrap_flags_calls(text):
    new = DAX_CALL.sub(wrap_dax_call, FLAGS_CALL.sub(wrap_flags_call, text))
    return new, int(new != text)


BRACED_TEST = re.compile(r"^(\t+)if \(([^\n]*\bvma_desc_test\w*\([^\n]*)\) \{\n\1\t([^\n]+;)\n\1\}\n", re.M)
# Coccinelle 1.3 puts braces around a flags call it wrote in place of the
# one statement of a braceless if ("if (IS_DAX(inode)) vm_flags_set(...);");
# the call may be wrapped over lines. Not an if with an else.
BRACED_FLAGS_CALL = re.compile(r"^(\t+)if \(([^\n]*)\) \{\n(\1\t(?:vma_desc_set_flags|vma_desc_clear_flags)\(desc,[^;{}]*;\n)"
                               r"\1\}\n(?!\1else\b)", re.M)


def in_converted_hooks(text, fix_body):
    """FIX_BODY (a body's text -> new text, count) applied to the body of
    each converted hook, F_prepare(struct vm_area_desc *desc), only."""
    count = 0
    # From the last hook up: a body that changes length moves what follows
    # it, never what comes before.
    for m in reversed(list(re.finditer(r"\b\w+_prepare\(struct vm_area_desc \*desc\)\n\{\n", text))):
        end = text.find("\n}\n", m.end())
        if end < 0:
            continue
        new, n = fix_body(text[m.end():end])
        if n:
            text = text[:m.end()] + new + text[end:]
            count += n
    return text, count


def unbrace_flag_tests(body):
    """Drop the braces of a one-line flags test with one one-line statement,
    and those Coccinelle 1.3 put around a flags call."""
    new, n = BRACED_TEST.subn(r"\1if (\2)\n\1\t\3\n", body)
    new, n2 = BRACED_FLAGS_CALL.subn(r"\1if (\2)\n\3", new)
    return new, n + n2


def side_effect_free(cond):
    """No call, assignment, increment or decrement in a test."""
    return not re.search(r"\w\s*\(|\+\+|--|(?<![=!<>])=(?!=)", cond)


def negate(cond):
    """The test negated, and how far its text moved to the right."""
    m = re.fullmatch(r"!\((.*)\)", cond, re.S)
    if m and balanced(m.group(1)):
        return m.group(1), -2
    m = re.fullmatch(r"!([\w.]+(?:->[\w.]+)*)", cond)
    if m:
        return m.group(1), -1
    return "!(" + cond + ")", 2


def balanced(text):
    depth = 0
    for c in text:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def realign(cond, shift):
    """Continuation lines of a test aligned after its parenthesis, moved."""
    def move(m):
        head = m.group(1).expandtabs(8)
        col = max(len(head) + shift, 0)
        return "\n" + "\t" * (col // 8) + " " * (col % 8)
    return re.sub(r"\n([\t ]*)", move, cond)


COND = r"((?:[^{};\n]|\n\1\s)*?)"
# "else {}" as spatch leaves it.
EMPTY_ELSE = re.compile(r"^(\t+)else\n\1\t\{\}\n", re.M)
# "if (C) {}" and the "else" that follows it, if any.
EMPTY_IF = re.compile(r"^(\t+)if \(" + COND + r"\)\n\1\t\{\}\n(\1else\n)?", re.M)
# The braced forms: "if (C) {...} else {...}" (either arm empty) or a lone
# "if (C) {}"; the arms are the lines indented deeper.
BRACED = re.compile(r"^(\t+)if \(" + COND + r"\) \{\n((?:\1\t[^\n]*\n)*?)\1\}"
                    r"(?: else \{\n((?:\1\t[^\n]*\n)*?)\1\})?\n", re.M)


def arm(indent, cond, body):
    """An if over body: without braces when body is one line."""
    if body.count("\n") == 1:
        return indent + "if (" + cond + ")\n" + body
    return indent + "if (" + cond + ") {\n" + body + indent + "}\n"


def drop_empty_branches(body):
    """In a converted hook's body: the branches emptied by the removal of
    the protection copy (see the module's docstring). Only those: other
    code of the hook is left as it is."""
    body, n = EMPTY_ELSE.subn("", body)

    def empty_if(e):
        nonlocal n
        indent, cond = e.group(1), e.group(2)
        if e.group(3):
            new, shift = negate(cond)
            n += 1
            return indent + "if (" + realign(new, shift) + ")\n"
        if side_effect_free(cond):
            n += 1
            return ""
        return e.group(0)

    def braced(e):
        nonlocal n
        indent, cond, then, other = e.group(1), e.group(2), e.group(3), e.group(4)
        if then and other is not None and not other:
            n += 1
            return arm(indent, cond, then)
        if not then and other:
            new, shift = negate(cond)
            n += 1
            return arm(indent, realign(new, shift), other)
        if not then and not other and side_effect_free(cond):
            n += 1
            return ""
        return e.group(0)
    body = EMPTY_IF.sub(empty_if, body)
    body = BRACED.sub(braced, body)
    # An emptied if that went leaves two blank lines in a row, or one
    # after the opening brace (when nothing was declared before it).
    body = re.sub(r"\n\n\n+", "\n\n", body)
    return (body.lstrip("\n") if n else body), n


# A call the conversion replaced, and what replaces it (either target).
REPLACED_CALLS = {
    "generic_file_mmap": ("generic_file_mmap_prepare",),
    "generic_file_readonly_mmap": ("generic_file_readonly_mmap_prepare",),
    "remap_pfn_range": ("mmap_action_remap_full", "mmap_action_remap"),
    "io_remap_pfn_range": ("mmap_action_ioremap_full", "mmap_action_ioremap"),
    "vm_iomap_memory": ("mmap_action_simple_ioremap",),
    "vma_pages": ("vma_desc_pages",),
    "vm_flags_set": ("vma_desc_set_flags",),
    "vm_flags_clear": ("vma_desc_clear_flags",),
}
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def rename_in_comments(body):
    """A comment of a converted hook that names a call the conversion
    replaced names its replacement: "generic_file_mmap() returns ENOSYS on
    nommu systems" (nfs) above generic_file_mmap_prepare(). Only for a call
    the hook no longer makes, whose replacement it makes now."""
    code = COMMENT.sub(" ", body)
    renames = {}
    for old, news in REPLACED_CALLS.items():
        if re.search(r"\b%s\s*\(" % old, code):
            continue
        new = next((n for n in news if re.search(r"\b%s\s*\(" % n, code)), None)
        if new:
            renames[old] = new
    if not renames:
        return body, 0
    pattern = re.compile(r"\b(%s)\b(?!_)" % "|".join(map(re.escape, renames)))
    count = 0

    def comment(m):
        nonlocal count
        new, n = pattern.subn(lambda w: renames[w.group(1)], m.group(0))
        count += n
        return new
    return COMMENT.sub(comment, body), count


# A cast of a descriptor field ("(phys_addr_t) desc->pgoff", mem.c).
CAST_SPACE = re.compile(r"\(((?:unsigned )?(?:long|int|char|short)|\w+_t|u(?:8|16|32|64))\) (?=desc->)")


def main():
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text, braces = brace_on_own_line(text)
        text, moved = hook_above_kernel_doc(text)
        text, split = one_statement_a_line(text)
        text, changed = fix(text)
        text, wrapped = wrap_flags_calls(text)
        text, unbraced = in_converted_hooks(text, unbrace_flag_tests)
        text, emptied = in_converted_hooks(text, drop_empty_branches)
        text, casts = in_converted_hooks(text, lambda body: CAST_SPACE.subn(r"(\1)", body))
        text, renamed = in_converted_hooks(text, rename_in_comments)
        if changed or braces or moved or split or wrapped or unbraced or emptied or casts or renamed:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        print(f"{path}: {changed} kernel-doc block(s) updated, {braces} brace(s) moved,"
              f" {moved} hook(s) moved above a kernel-doc, {'lines of two statements split' if split else 'no line of two statements'},"
              f" flags calls {'rewrapped' if wrapped else 'unchanged'}, {unbraced} flags test(s) unbraced,"
              f" {emptied} emptied branch(es) dropped, {casts} cast(s) unspaced,"
              f" {renamed} name(s) of a replaced call updated in comments")


if __name__ == "__main__":
    main()
