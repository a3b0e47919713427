#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Which of mmap-prepare.sh's files are converted together: a hook named by
a .mmap in one file and defined (not static) in another, as ceph_mmap
(fs/ceph/file.c names it, addr.c defines it, super.h declares it). The files
of the run that name such a hook (define, declare, export or set it) are one
group: spatch converts the definition, the prototypes, the EXPORT_SYMBOL and
every .mmap of the group together, or none of them. A file that defines a
static function of that name has its own and stays out. Every other file is
a group of its own.

Prints, tab-separated, the files by their index in the arguments:
  group GID INDEX...        a group of two files or more
  link GID HOOK INDEX LINE  a file of the group and its first line naming HOOK
  missing INDEX HOOK LINE WHY  a file naming a .mmap's hook that no file of
                            the run defines: the file to add (looked for in
                            the same folder)
Usage: hook-groups.py FILE...
"""
import os
import re
import sys

from hook_files import MMAP, is_static, read, signatures, in_folder

# generic_file_mmap() and its read-only twin are the VFS's, not a driver's.
NOT_HOOKS = {"NULL", "generic_file_mmap", "generic_file_readonly_mmap"}


def main():
    files = sys.argv[1:]
    texts = [read(f) for f in files]
    given = {os.path.realpath(f) for f in files}
    named = {}  # hook -> the files whose .mmap name it
    for i, text in enumerate(texts):
        for hook in MMAP.findall(text):
            if hook not in NOT_HOOKS:
                named.setdefault(hook, set()).add(i)
    if not named:
        return 0
    mentions = {}  # hook -> {file: first line}
    for i, text in enumerate(texts):
        for word in set(re.findall(r"\w+", text)) & named.keys():
            at = re.search(r"\b%s\b" % word, text).start()
            mentions.setdefault(word, {})[i] = text.count("\n", 0, at) + 1
    parent = list(range(len(files)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    linked = {}
    for hook in sorted(named):
        defs, own = set(), set()
        for i in mentions.get(hook, {}):
            for body, kind in ((r"\{", defs), (r";", None)):
                for at in signatures(texts[i], hook, body):
                    if is_static(texts[i], at):
                        own.add(i)
                    elif kind is not None:
                        kind.add(i)
        members = set(mentions.get(hook, {})) - own
        if defs - own and len(members) > 1:
            members = sorted(members)
            for i in members[1:]:
                parent[root(i)] = root(members[0])
            linked[hook] = members
        elif not defs:
            for i in sorted(members):
                print("missing\t%d\t%s\t%d\t%s" % (i, hook, mentions[hook][i], where(files[i], hook, given)))
    groups = {}
    for members in linked.values():
        for i in members:
            groups.setdefault(root(i), set()).add(i)
    for gid, members in sorted(groups.items()):
        print("group\t%d\t%s" % (gid, "\t".join(map(str, sorted(members)))))
    for hook, members in sorted(linked.items()):
        for i in members:
            print("link\t%d\t%s\t%d\t%d" % (root(i), hook, i, mentions[hook][i]))
    return 0


def where(path, hook, given):
    """The report's reason for a hook defined in none of the files GIVEN:
    the files of its folder that define and declare it, to add to the run."""
    found = in_folder(os.path.dirname(path), hook, given)
    if not found["{"]:
        return ("its definition is in none of the files given (nor elsewhere in its folder): "
                "add the file that defines it to the run")
    add = found["{"][:1] + [h for h in found[";"] if h.endswith(".h")]
    return "its definition is not among the files given: add %s to the run" % " and ".join(add)


if __name__ == "__main__":
    sys.exit(main())
