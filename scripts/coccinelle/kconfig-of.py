#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Print the Kconfig symbol that builds a C file of a kernel tree: the
CONFIG_X of "obj-$(CONFIG_X) += file.o" in its directory's Makefile (or
Kbuild), following composite objects ("foo-y += file.o" and then
"obj-$(CONFIG_X) += foo.o"). Prints nothing when the file is always built
(obj-y) or no symbol is found.

Usage: kconfig-of.py TREE PATH/TO/FILE.c
"""
import os
import re
import sys


def makefile_text(directory):
    for name in ("Makefile", "Kbuild"):
        path = os.path.join(directory, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read().replace("\\\n", " ")
    return ""


def symbol(tree, path):
    directory, base = os.path.split(path)
    text = makefile_text(os.path.join(tree, directory))
    targets = {base[:-2] + ".o"}
    for _ in range(4):
        composites = set()
        for line in text.splitlines():
            m = re.match(r"\s*([\w-]+?)-(?:\$\((CONFIG_\w+)\)|y|objs|m)\s*[:+]?=\s*(.*)", line)
            if not m:
                continue
            lhs, sym, rhs = m.groups()
            if not targets & set(rhs.split()):
                continue
            if lhs == "obj":
                if sym:
                    return sym
                continue
            composites.add(lhs + ".o")
        if not composites:
            return None
        targets = composites
    return None


def main():
    sym = symbol(sys.argv[1], sys.argv[2])
    if sym:
        print(sym)


if __name__ == "__main__":
    main()
