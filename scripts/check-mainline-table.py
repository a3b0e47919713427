#!/usr/bin/env python3
"""Check that every code form in the conversion guide's mainline column is
real: each ``literal`` of the second column of the table under the
"conversion-mainline" label must occur verbatim in one of the drivers the kit
builds and checks on its mainline kernel. Prints what is missing.

Usage: check-mainline-table.py GUIDE.rst SOURCE...
"""
import re
import sys


def mainline_column(rst):
    start = rst.index(".. _conversion-mainline:")
    end = rst.index("\n.. _", start + 1)
    rows = re.split(r"\n   \* - ", rst[start:end])[2:]  # skip the header row
    for row in rows:
        cells = re.split(r"\n     - ", row)
        yield " ".join(cells[1].split())


def main():
    guide, sources = sys.argv[1], sys.argv[2:]
    with open(guide, encoding="utf-8") as f:
        rst = f.read()
    code = ""
    for path in sources:
        with open(path, encoding="utf-8") as f:
            code += " ".join(f.read().split()) + "\n"
    missing, n = [], 0
    for cell in mainline_column(rst):
        for literal in re.findall(r"``(.+?)``", cell):
            n += 1
            if literal not in code:
                missing.append(literal)
    for literal in missing:
        print(f"not in the tested mainline sources: {literal}")
    print(f"{n - len(missing)} of {n} mainline forms found in {len(sources)} tested files")
    return 1 if missing or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
