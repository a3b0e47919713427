#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The table of the lab stages, from their folders and stage.conf files (the
one registry of the stages): per stage its folder, module, device(s),
kernel and what it teaches (STAGE_TEACHES), in the stages' order
(labs/NN-name/). "The mainline stages" of the prose are those whose kernel
is mainline.

  lab-table.py --rst             the guide's table (kit-lab-table directive)
  lab-table.py --write FILE.md   write the markdown table between FILE's
                                 markers (labs/README.md)
  lab-table.py --check FILE.md   exit 1 when FILE's table is not what the
                                 stage.conf files make (check-static)

A stage's devices are its MMAP_LAB_DEVICE and those of its variants
(STAGE_VARIANTS: variant-NAME.conf beside stage.conf).
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
BEGIN = "<!-- lab stages: written by scripts/labs/lab-table.py --write, from each stage.conf -->"
END = "<!-- end of lab stages -->"


def conf_get(path, var):
    """VAR of a stage.conf, read by the kit's one reader of the format."""
    done = subprocess.run([os.path.join(ROOT, "qemu", "stages.sh"), "get-file", path, var],
                          check=True, stdout=subprocess.PIPE, text=True)
    return done.stdout.rstrip("\n")


def stages():
    """(folder, number, modules, devices, kernel, teaches) per lab stage, in
    order; the kernel is STAGE_KERNEL's (mainline), else the kit's 6.12."""
    rows = []
    for folder in sorted(glob.glob(os.path.join(ROOT, "labs", "[0-9][0-9]-*"))):
        conf = os.path.join(folder, "stage.conf")
        devices = [conf_get(conf, "MMAP_LAB_DEVICE")]
        for variant in conf_get(conf, "STAGE_VARIANTS").split():
            devices.append(conf_get(os.path.join(folder, "variant-%s.conf" % variant), "MMAP_LAB_DEVICE"))
        name = os.path.basename(folder)
        kernel = "mainline" if conf_get(conf, "STAGE_KERNEL") == "mainline" else "6.12 (the kit)"
        rows.append((name, int(name[:2]), conf_get(conf, "STAGE_MODULES").split(),
                     [d for d in devices if d], kernel, conf_get(conf, "STAGE_TEACHES")))
    return rows


def markdown():
    out = [BEGIN, "", "| folder | module | device | kernel | what the stage teaches |", "|---|---|---|---|---|"]
    for name, _, modules, devices, kernel, teaches in stages():
        out.append("| `%s` | %s | %s | %s | %s |" % (name, ", ".join("`%s`" % m for m in modules),
                                                    ", ".join("`%s`" % d for d in devices), kernel, teaches))
    return "\n".join(out + ["", END])


def rst():
    def code(text):
        return re.sub(r"`([^`]*)`", r"``\1``", text)
    out = [".. list-table::", "   :header-rows: 1", "   :widths: 20 14 12 54", "",
           "   * - stage", "     - device", "     - kernel", "     - what it teaches"]
    for _, number, _, devices, kernel, teaches in stages():
        out += ["   * - :ref:`lab-%02d`" % number, "     - " + ", ".join("``%s``" % d for d in devices),
                "     - " + kernel, "     - " + code(teaches)]
    return "\n".join(out)


def main():
    if sys.argv[1:] == ["--rst"]:
        print(rst())
        return 0
    if len(sys.argv) != 3 or sys.argv[1] not in ("--write", "--check"):
        print(__doc__, file=sys.stderr)
        return 2
    path = sys.argv[2]
    text = open(path, encoding="utf-8").read()
    block = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not block.search(text):
        print("error: %s has no lab table markers (%s ... %s)" % (path, BEGIN, END), file=sys.stderr)
        return 1
    new = block.sub(lambda m: markdown(), text)
    if sys.argv[1] == "--check":
        if new != text:
            print("error: the lab table of %s is not what the stage.conf files make:"
                  " run scripts/labs/lab-table.py --write %s" % (path, path), file=sys.stderr)
            return 1
        return 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
