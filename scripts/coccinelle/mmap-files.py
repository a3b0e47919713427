#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The files of a kernel tree to give the conversion aid, folder by folder.

Every C file that sets a .mmap (all of the tree but tools/, samples/ and
Documentation/), and, for a hook such a file names but does not define,
the .c and .h files of its folder that define or declare it (ceph_mmap of
fs/ceph/file.c is defined in fs/ceph/addr.c and declared in
fs/ceph/super.h): mmap-prepare.sh converts a hook across files only when
they are in the same run. make cocci-report, cocci-proof and cocci-recall
take their files from here.

Prints one line per folder, its files separated by spaces, relative to
TREE (--flat: one file a line).

Usage: mmap-files.py [--flat] TREE [PATH...]
  PATH...  only these files (relative to TREE) and their companions,
           instead of every file that sets a .mmap
"""
import os
import sys

from hook_files import MMAP, in_folder, read, signatures

SKIP = {"tools", "samples", "Documentation", ".git"}


def mmap_files(tree):
    found = []
    for top, dirs, files in os.walk(tree):
        if top == tree:
            dirs[:] = [d for d in dirs if d not in SKIP]
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".c"):
                path = os.path.join(top, name)
                if MMAP.search(read(path)):
                    found.append(os.path.relpath(path, tree))
    return found


def companions(tree, path):
    """The files of PATH's folder that define or declare a hook PATH names
    without defining it."""
    text = read(os.path.join(tree, path))
    folder = os.path.join(tree, os.path.dirname(path))
    out = set()
    for hook in set(MMAP.findall(text)):
        if hook == "NULL" or signatures(text, hook, r"\{"):
            continue
        for files in in_folder(folder, hook, {os.path.realpath(os.path.join(tree, path))}).values():
            out.update(os.path.relpath(f, tree) for f in files)
    return out


def main():
    args = sys.argv[1:]
    flat = bool(args) and args[0] == "--flat"
    if flat:
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    tree, paths = args[0], args[1:] or mmap_files(args[0])
    folders = {}
    for path in paths:
        group = folders.setdefault(os.path.dirname(path), set())
        group.add(path)
        group.update(companions(tree, path))
    for folder in sorted(folders):
        files = sorted(folders[folder])
        print("\n".join(files) if flat else " ".join(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
