#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a file converted by mmap_prepare.cocci against its original: every
hook F(struct file *FILE, struct vm_area_struct *VMA) of the original that
became F_prepare(struct vm_area_desc *desc) must no longer name FILE or VMA
in its body (other than as a field, desc->file, or as the type
"struct file" when the argument was called file). spatch skips code it cannot
parse, often a branch under #ifdef, and leaves it as it was: this catches
what it left behind, and so for a static helper converted with its hook
(F(..., struct vm_area_struct *VMA, ...) become H(..., desc, ...), H as
hook_files.helper_name() says). It also refuses a hook in which a branch
was left empty (see tidy-converted.py: an emptied if whose test may have
side effects). (A hook whose old name the file still #defines is kept back
by the semantic patch itself: macro_hook in mmap_prepare_verdict.cocci.)

Prints "CONVERTED: HOOK: not converted: REASON" per hook that is not clean;
exit status 1 if any. Several pairs in one run (one Python start for all).
Usage: verify-converted.py ORIGINAL CONVERTED [ORIGINAL CONVERTED]...
"""
import re
import sys

from hook_files import helper_name, hook_name

# "#ifndef CONFIG_MMU / return -ENOSYS; / #endif" and code after it.
DEAD_AFTER_IF = re.compile(r"^#\s*if[^\n]*\n(?:(?!#)[^\n]*\n)*?\s*return\b[^\n]*;\n#\s*endif[^\n]*\n\s*\S", re.M)
# An #else (#elif) right after the #if branch's return: spatch reads it as dead too.
DEAD_ELSE = re.compile(r"^\s*return\b[^\n]*;\n#\s*(?:else|elif)\b", re.M)
# A block under if (0) (mtdchar.c's "if (0 /*mtd->type == MTD_RAM ...*/) {").
IF0 = re.compile(r"\bif\s*\(\s*0\s*\)\s*\{")
SIGNATURE = re.compile(r"\b(\w+)\(\s*struct file \*(\w+),\s*struct vm_area_struct \*(\w+)\)\s*\{")


# A static helper converted with its hook: F_prepare(..., struct vm_area_desc *desc, ...).
HELPER = re.compile(r"\bstatic\s+(?:inline\s+)?int\s+(\w+)\(([^;(){}]*?)struct vm_area_struct \*(\w+)[^;(){}]*\)\s*\{")


def body(text, name, params=r""):
    m = re.search(r"\b" + re.escape(name) + r"\(" + params + r"struct vm_area_desc \*desc\b[^;(){}]*\)\s*\{", text)
    if not m:
        return None
    depth, i = 1, m.end()
    while depth and i < len(text):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[m.end():i]


def code_only(text):
    """The code without comments, strings and struct tags ("struct file")."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"", " ", text, flags=re.S)
    return re.sub(r"\b(struct|union|enum)\s+\w+", " ", text)


def verify(original_path, converted_path):
    with open(original_path, encoding="utf-8", errors="replace") as f:
        original = f.read()
    with open(converted_path, encoding="utf-8", errors="replace") as f:
        converted = f.read()
    bad = 0
    for hook, file_arg, vma_arg in SIGNATURE.findall(original):
        code = body(converted, hook_name(hook))
        if code is None:
            continue
        left = {name for name in (file_arg, vma_arg)
                if re.search(r"(?<![\w.>])" + re.escape(name) + r"\b", code_only(code))}
        if left:
            bad += 1
            names = "|".join(re.escape(name) for name in left)
            only = code_only(code)
            at = re.search(r"(?<![\w.>])(?:" + names + r")\b", only).start()
            first = only[only.rfind("\n", 0, at) + 1:].split("\n", 1)[0].strip()

            def dead_before(pattern, back):
                """Whether the first line left is in the dead code PATTERN ends BACK before."""
                return any(m.end() - back <= at for m in pattern.finditer(only))

            def in_if0():
                """Whether the first line left is in a block under if (0)."""
                for m in IF0.finditer(only):
                    depth, i = 1, m.end()
                    while depth and i < len(only):
                        depth += {"{": 1, "}": -1}.get(only[i], 0)
                        i += 1
                    if m.end() <= at < i:
                        return True
                return False

            # spatch reads code after an unconditional return as dead.
            if in_if0():
                why = "a block under if (0) is dead to spatch: delete it, or convert it by hand"
            elif dead_before(DEAD_AFTER_IF, 1):
                why = "code after a return under #if is dead to spatch: put it under #else"
            elif dead_before(DEAD_ELSE, 0):
                why = ("an #else after the #if branch's return is dead to spatch:"
                       " write the #if as if (IS_ENABLED(...)), or convert that branch by hand")
            else:
                why = "an #ifdef branch or a macro?"
            print(f"{converted_path}: {hook}: not converted: part of it was not parsed by spatch"
                  f" ({why}): '{', '.join(sorted(left))}' was left in it, first in \"{first}\"")
        elif re.search(r"^\t+(?:\{\}|\} else \{\n\t+\})$|\) \{\n\t+\}$", code_only(code), re.M):
            bad += 1
            print(f"{converted_path}: {hook}: not converted: a branch that only copied the VMA's protection"
                  " is empty once the copy goes, and its test may have side effects: rewrite that branch by hand")
    hooks = {hook for hook, _, _ in SIGNATURE.findall(original)}
    for helper, before, vma_arg in HELPER.findall(original):
        if helper in hooks:
            continue
        code = body(converted, helper_name(helper), r"(?:[^;(){}]*,\s*)?" if before.strip() else r"")
        if code is not None and re.search(r"(?<![\w.>])" + re.escape(vma_arg) + r"\b", code_only(code)):
            bad += 1
            print(f"{converted_path}: {helper}: not converted: part of it was not parsed by spatch"
                  f" (an #ifdef branch or a macro?): '{vma_arg}' was left in it")
    return bad


def main():
    pairs = sys.argv[1:]
    bad = sum(verify(pairs[i], pairs[i + 1]) for i in range(0, len(pairs) - 1, 2))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
