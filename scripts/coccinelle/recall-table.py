#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The table of make cocci-recall: the aid's conversion of each file
mainline converted by hand, next to mainline's own.

For each file of OUT/counted.txt and each TARGET, compares mainline's file
(MAINLINE) with the aid's conversion of the 6.12 file (OUT/TARGET/src).
The API a conversion uses is read from the converted hooks' code (see
hook_api()): the functions called with the descriptor as first argument
(generic_file_mmap_prepare, mmap_action_remap_full, vma_desc_set_flags,
daxdev_mapping_supported ...), the VMA_*_BIT flags named and the
desc->action hooks set. Verdicts:
  same            every .mmap_prepare of mainline's file is set by the aid
                  too, with the same API
  same as 6.12    converted, the API differs by what mainline changed
                  apart from its conversion (REVIEWED: read by a human)
  other helpers   converted, the API differs (both printed)
  partly          the aid set fewer .mmap_prepare than mainline
  not converted   the report's reason (OUT/TARGET/report.txt)
The kit target is compared on "converted or not" only: its 6.12 API names
the flags differently (desc->vm_flags, VM_*).

Usage: recall-table.py --mainline D --out D
                       [--rst FILE] TARGET...
"""
import argparse
import datetime
import os
import re
import sys

from hook_files import read

PREPARE = re.compile(r"\.mmap_prepare\s*=\s*(\w+)")
DESC_CALL = re.compile(r"\b(\w+)\(\s*desc\s*[,)]")
BIT = re.compile(r"\bVMA_\w+_BIT\b")
HOOK = re.compile(r"desc->action\.(\w+_hook)\b")
# Differences a maintainer read and found to be mainline's own change of
# behaviour, made apart from its conversion: the aid's hook does what the
# 6.12 hook did. Keyed by the exact difference (mainline's names the aid
# does not use, the aid's that mainline does not), so that any other change
# of either side shows again as "other helpers".
REVIEWED = {
    ("fs/aio.c", "VMA_DONTCOPY_BIT", ""):
        "mainline's hook also sets VM_DONTCOPY, which 6.12's did not: a change of behaviour, not of API",
    ("fs/ntfs3/file.c", "vma_desc_size()", ""):
        "6.12 wrote from + vma->vm_end - vma->vm_start, (from + end) - start: the aid keeps that"
        " (desc->end - desc->start); mainline rewrote it as from + vma_desc_size(desc)",
    ("drivers/char/mem.c", "VMA_MAYSHARE_BIT", "VMA_SHARED_BIT"):
        "6.12's mmap_zero() tested VM_SHARED, and so does the aid's; mainline tests VM_MAYSHARE, so that"
        " a shared mapping of /dev/zero opened read-only is shmem too: a change of behaviour, not of API",
    ("drivers/mtd/mtdchar.c", "", "mmap_action_simple_ioremap()"):
        "the aid converts the vm_iomap_memory() of 6.12's if (0) block, which can never run;"
        " mainline deleted that block",
}
REPORT = re.compile(r"^(?:\./)?(?P<file>[^:\s]+):\d+(?::[\d-]+)?: (?P<hook>[\w?]+): (?P<verdict>.*)$")


def hook_api(text, others=""):
    """The API names in the hooks TEXT's file_operations name as
    .mmap_prepare (through a #define too): the functions called with the
    descriptor as first argument, the VMA_*_BIT flags, the desc->action
    hooks; a .mmap_prepare that names a generic_file_*mmap_prepare()
    directly counts as a call of it. Only the hooks' own code: what else
    mainline changed in the file since 6.12 does not count."""
    names = set()
    aliases = dict(re.findall(r"^#define\s+(\w+)\s+(\w+)\s*$", text, re.M))
    for hook in set(PREPARE.findall(text)):
        hook = aliases.get(hook, hook)
        if re.fullmatch(r"generic_file_\w*mmap_prepare", hook):
            names.add(f"{hook}()")
            continue
        for body in re.findall(r"^\w[^;{]*\b" + re.escape(hook) + r"\(\s*struct vm_area_desc\s*\*\s*\w*\)\s*\{(.*?)^\}",
                               text + "\n" + others, re.M | re.S):
            names.update(f"{n}()" for n in DESC_CALL.findall(body) if n not in ("if", "while", "return", "sizeof"))
            names.update(BIT.findall(body))
            names.update(f"action.{h}" for h in HOOK.findall(body))
    return names


def reasons(report_path, path):
    """The report's reasons for PATH's hooks that were not converted."""
    why = []
    for text in read(report_path).splitlines():
        m = REPORT.match(text.strip())
        if m and m["file"] == path and m["verdict"] != "convertible":
            reason = re.sub(r"^not converted: ", "", m["verdict"])
            item = f"{m['hook']}: {reason}"
            if item not in why:
                why.append(item)
    return why


def compare(opts, target, path):
    ours = read(os.path.join(opts.out, target, "src", path))
    theirs = read(os.path.join(opts.mainline, path))
    want, got = PREPARE.findall(theirs), PREPARE.findall(ours)
    if not got:
        why = reasons(os.path.join(opts.out, target, "report.txt"), path)
        return "not converted", "; ".join(why[:2]) or "no .mmap hook reported"
    if len(got) < len(want):
        return "partly", f"{len(got)} of mainline's {len(want)} .mmap_prepare"
    if target != "mainline":
        return "same", ""
    folder = [p for p in read(os.path.join(opts.out, "files.txt")).split()
              if p != path and os.path.dirname(p) == os.path.dirname(path) and p.endswith(".c")]
    api_theirs = hook_api(theirs, "\n".join(read(os.path.join(opts.mainline, p)) for p in folder))
    api_ours = hook_api(ours, "\n".join(read(os.path.join(opts.out, target, "src", p)) for p in folder))
    if api_theirs == api_ours:
        return "same", ", ".join(sorted(api_ours))
    why = REVIEWED.get((path, ", ".join(sorted(api_theirs - api_ours)), ", ".join(sorted(api_ours - api_theirs))))
    if why:
        return "same as 6.12", why
    return "other helpers", (f"aid: {', '.join(sorted(api_ours)) or '-'}; "
                             f"mainline: {', '.join(sorted(api_theirs)) or '-'}")


def rst_table(rows_by_target, targets):
    lines = [
        f".. Generated by scripts/coccinelle/cocci-recall.sh on {datetime.date.today()}; do not edit.",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "   :class: kit-wide-table",
        f"   :widths: 30 {' '.join(['35'] * len(targets))}",
        "",
        "   * - file (6.12 version)",
    ]
    lines += [f"     - {t}" for t in targets]
    paths = [p for p, _, _ in rows_by_target[targets[0]]]
    for i, path in enumerate(paths):
        lines.append(f"   * - ``{path}``")
        for t in targets:
            _, verdict, detail = rows_by_target[t][i]
            cell = verdict + (f": {detail}" if detail and verdict != "same" else "")
            lines.append("     - " + cell.replace("*", r"\*").replace("_", r"\_"))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--mainline", "--out"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--rst")
    ap.add_argument("targets", nargs="+")
    opts = ap.parse_args()
    paths = read(os.path.join(opts.out, "counted.txt")).split()
    rows = {}
    summary = []
    for target in opts.targets:
        rows[target] = [(p, *compare(opts, target, p)) for p in paths]
        counts = {}
        for _, verdict, _ in rows[target]:
            counts[verdict] = counts.get(verdict, 0) + 1
        print(f">> {target}: of {len(paths)} files mainline converted by hand:")
        width = max(len(p) for p in paths)
        for path, verdict, detail in rows[target]:
            print(f"   {path:<{width}}  {verdict}{': ' + detail if detail else ''}")
        # Right: the same API as mainline's, or as 6.12's where mainline
        # changed behaviour (REVIEWED).
        right = counts.get("same", 0) + counts.get("same as 6.12", 0)
        line = (f"{target}: {right} of {len(paths)} converted as mainline did ({100 * right // max(len(paths), 1)}%:"
                f" {counts.get('same', 0)} same, {counts.get('same as 6.12', 0)} same as 6.12)"
                + "".join(f", {counts.get(v, 0)} {v}" for v in ("other helpers", "partly", "not converted")))
        summary.append(line)
    for line in summary:
        print(f">> {line}")
    if opts.rst:
        with open(opts.rst, "w", encoding="utf-8") as f:
            f.write(rst_table(rows, opts.targets))
            f.write("\n" + "\n".join(f"| {line}" for line in summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
