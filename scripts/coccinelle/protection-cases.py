#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the protection cases of make cocci: stage 0's legacy hook with its
remap's protection in a local that branches set, each case as CASE.c, and
what the conversion must make of it as CASE.expected: either the converted
hook's code between its declarations and its first comment, or "report: "
and the reason the report must give (the file then stays untouched).

Usage: protection-cases.py STAGE0_C OUTDIR
"""
import os
import sys

DECL = "\tunsigned long size = vma->vm_end - vma->vm_start;\n\n"
LOCAL = "\tunsigned long size = vma->vm_end - vma->vm_start;\n\tpgprot_t prot;\n\n"
COPY = "\tunsigned long size = vma->vm_end - vma->vm_start;\n\tpgprot_t prot = vma->vm_page_prot;\n\n"
NONCACHED = "\t\tdesc->page_prot = pgprot_noncached(desc->page_prot);\n"

# name: (the hook's first lines, the expected result)
CASES = {
    # the copy in an else: the else goes
    "else-copy": (LOCAL + "\tif (file->f_flags & O_SYNC)\n\t\tprot = pgprot_noncached(vma->vm_page_prot);\n"
                  "\telse\n\t\tprot = vma->vm_page_prot;\n\n",
                  "\tif (desc->file->f_flags & O_SYNC)\n" + NONCACHED + "\n"),
    # the copy in the if: the else stays, under the negated test ("!(x)" -> "x")
    "if-copy": (LOCAL + "\tif (!(file->f_flags & O_SYNC))\n\t\tprot = vma->vm_page_prot;\n"
                "\telse\n\t\tprot = pgprot_noncached(vma->vm_page_prot);\n\n",
                "\tif (desc->file->f_flags & O_SYNC)\n" + NONCACHED + "\n"),
    # a test over two lines, negated: its second line moves with it
    "if-copy-two-lines": (LOCAL + "\tif (file->f_flags & O_SYNC &&\n\t    ldev->size > PAGE_SIZE)\n"
                          "\t\tprot = vma->vm_page_prot;\n\telse\n"
                          "\t\tprot = pgprot_writecombine(vma->vm_page_prot);\n\n",
                          "\tif (!(desc->file->f_flags & O_SYNC &&\n\t      ldev->size > PAGE_SIZE))\n"
                          "\t\tdesc->page_prot = pgprot_writecombine(desc->page_prot);\n\n"),
    # braced branches: braces go with the emptied branch when one line is left
    "braced": (LOCAL + "\tif (file->f_flags & O_SYNC) {\n\t\tprot = vma->vm_page_prot;\n\t} else {\n"
               "\t\tprot = pgprot_noncached(vma->vm_page_prot);\n\t}\n\n",
               "\tif (!(desc->file->f_flags & O_SYNC))\n" + NONCACHED + "\n"),
    # an arm of two statements keeps its braces
    "braced-two-statements": (COPY + "\tif (file->f_flags & O_SYNC) {\n\t\tprot = vma->vm_page_prot;\n\t} else {\n"
                              "\t\tprot = pgprot_noncached(prot);\n\t\tprot = pgprot_decrypted(prot);\n\t}\n\n",
                              "\tif (!(desc->file->f_flags & O_SYNC)) {\n" + NONCACHED
                              + "\t\tdesc->page_prot = pgprot_decrypted(desc->page_prot);\n\t}\n\n"),
    # an else-if chain ending in the copy
    "else-if-chain": (LOCAL + "\tif (file->f_flags & O_SYNC)\n\t\tprot = pgprot_noncached(vma->vm_page_prot);\n"
                      "\telse if (file->f_flags & O_DSYNC)\n\t\tprot = pgprot_writecombine(vma->vm_page_prot);\n"
                      "\telse\n\t\tprot = vma->vm_page_prot;\n\n",
                      "\tif (desc->file->f_flags & O_SYNC)\n" + NONCACHED
                      + "\telse if (desc->file->f_flags & O_DSYNC)\n"
                      "\t\tdesc->page_prot = pgprot_writecombine(desc->page_prot);\n\n"),
    # set on some paths only (the others used it uninitialised): the if goes
    "some-paths": (LOCAL + "\tif (!(file->f_flags & O_SYNC))\n\t\tprot = vma->vm_page_prot;\n\n", ""),
    # an emptied if whose test has a side effect (one that is not driver
    # state, which would be refused for that): not converted
    "side-effect": (COPY + "\tif (printk_ratelimit())\n\t\tprot = vma->vm_page_prot;\n\n",
                    "report: a branch that only copied the VMA's protection is empty once the copy goes,"
                    " and its test may have side effects: rewrite that branch by hand"),
    # a protection that is not the VMA's: not converted, with that reason
    "other-protection": (COPY + "\tif (file->f_flags & O_SYNC)\n\t\tprot = PAGE_KERNEL;\n\n",
                         "report: the remap's protection is a local set otherwise than to the VMA's"
                         " protection or pgprot_*() of it"),
}


def main():
    stage0, outdir = sys.argv[1], sys.argv[2]
    with open(stage0, encoding="utf-8") as f:
        text = f.read()
    if text.count(DECL) != 1 or text.count("size, vma->vm_page_prot);") != 1:
        sys.exit(f"{stage0}: the size declaration or the remap's protection is not where the cases expect it")
    os.makedirs(outdir, exist_ok=True)
    for name, (head, expected) in CASES.items():
        case = text.replace(DECL, head).replace("size, vma->vm_page_prot);", "size, prot);")
        with open(os.path.join(outdir, name + ".c"), "w", encoding="utf-8") as f:
            f.write(case)
        with open(os.path.join(outdir, name + ".expected"), "w", encoding="utf-8") as f:
            f.write(expected)
        print(name)


if __name__ == "__main__":
    main()
