#!/usr/bin/env python3
"""Check that every code form in the conversion guide's mainline column is
real: each ``literal`` of the mainline column of the idiom table (under the
"conversion-table" label) must occur verbatim, up to white space, in one of
the drivers the kit builds and checks on its mainline kernel, or else in the
7.x tree that kernel is built from (include/linux, mm, drivers/char). A
literal written ``name()`` stands for any call of name. Prints where each
form was found and what is missing.

Exit status: 0 all found; 1 some missing; 3 the rest could not be looked up
because the mainline tree is not there (no network: check-static skips).

Usage: check-mainline-table.py GUIDE.rst MAINLINE_TREE SOURCE...
"""
import os
import re
import sys

TREE_DIRS = ("include/linux", "mm", "drivers/char")


def mainline_column(rst):
    start = rst.index(".. _conversion-table:")
    end = rst.index("\n.. _", start + 1)
    rows = re.split(r"\n   \* - ", rst[start:end])[1:]
    # The column whose header starts with "mainline".
    header = [" ".join(c.split()) for c in re.split(r"\n     - ", rows[0])]
    col = next(i for i, c in enumerate(header) if c.startswith("mainline"))
    for row in rows[1:]:
        cells = re.split(r"\n     - ", row)
        yield " ".join(cells[col].split())


def flat(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return " ".join(f.read().split())


def tree_files(tree):
    for sub in TREE_DIRS:
        for top, _, names in os.walk(os.path.join(tree, sub)):
            for name in names:
                if name.endswith((".c", ".h")):
                    yield os.path.join(top, name)


def find(needle, texts):
    for path, text in texts:
        if needle in text:
            return path
    return None


def main():
    guide, tree, sources = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(guide, encoding="utf-8") as f:
        rst = f.read()
    kit = [(path, flat(path)) for path in sources]
    tree_texts = None
    if os.path.isdir(os.path.join(tree, "mm")):
        tree_texts = [(path, flat(path)) for path in tree_files(tree)]
    found, missing, unverified = 0, [], []
    for cell in mainline_column(rst):
        for literal in re.findall(r"``(.+?)``", cell):
            needle = literal[:-1] if literal.endswith("()") else literal
            where = find(needle, kit)
            if where is None and tree_texts is not None:
                where = find(needle, tree_texts)
            if where is not None:
                found += 1
                print(f"found: {literal}  ({os.path.relpath(where)})")
            elif tree_texts is None:
                unverified.append(literal)
            else:
                missing.append(literal)
    for literal in missing:
        print(f"not in the tested mainline sources: {literal}")
    for literal in unverified:
        print(f"not in the kit's mainline drivers, and no mainline tree to look in: {literal}")
    total = found + len(missing) + len(unverified)
    summary = f"{found} of {total} mainline forms found in the kit's mainline drivers or the 7.x tree"
    if unverified:
        summary += f", {len(unverified)} not verifiable without the mainline source"
    print(summary)
    if missing or total == 0:
        return 1
    return 3 if unverified else 0


if __name__ == "__main__":
    sys.exit(main())
