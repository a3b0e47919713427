#!/usr/bin/env python3
"""make kernel-profile's report: where a timed kernel build spent its time.

Reads the log that kernel-profile.sh's compiler wrapper writes, one
line per gcc call: "END_EPOCH_MS MILLISECONDS SOURCE". Prints
  - the timeline: how long the build ran before the first and after the last
    compile of vmlinux's objects (the head: host tools, generated headers;
    the tail: link, kallsyms, bzImage), how busy the jobs were in between,
    and how many jobs were compiling in each 10 s;
  - compiler time by top-level and second-level directory;
  - compiler time by the Kconfig symbol that brings each file into the
    build (read from the kbuild Makefiles: the obj-$(CONFIG_X) line that
    names the object or, for obj-y, the line that names its directory);
  - the slowest files.
Usage: kernel-profile-report.py LOG START_EPOCH_MS END_EPOCH_MS JOBS SRC
"""
import collections
import os
import re
import sys

LINE_OBJ = re.compile(r"^([A-Za-z0-9_.-]+?)-(y|objs|\$\((CONFIG_[A-Za-z0-9_]+)\))\s*[:+]?=(.*)$")


MAKEFILES = {}  # directory -> its entries, each Makefile read once


def makefile_entries(directory):
    """[(goal, symbol or None, [tokens])] of a directory's Makefile/Kbuild."""
    if directory in MAKEFILES:
        return MAKEFILES[directory]
    entries = []
    for name in ("Kbuild", "Makefile"):
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            continue
        text = open(path, errors="replace").read().replace("\\\n", " ")
        for line in text.splitlines():
            m = LINE_OBJ.match(line.strip())
            if m:
                entries.append((m.group(1), m.group(3), m.group(4).split()))
    MAKEFILES[directory] = entries
    return entries


def symbol_of(src, rel):
    """The Kconfig symbol that builds rel (a path below src), or 'always'."""
    directory, name = os.path.split(rel)
    token = os.path.splitext(name)[0] + ".o"
    for _ in range(8):  # composite objects nest a few levels at most
        found = None
        for goal, symbol, tokens in makefile_entries(os.path.join(src, directory)):
            if token in tokens:
                found = (goal, symbol)
                if symbol:
                    return symbol
        if found is None:
            break
        goal = found[0]
        if goal in ("obj", "lib", "core", "head", "always", "subdir"):
            break  # built whenever its directory is: ask the parent
        token = goal + ".o"  # part of a composite object: who builds that?
    return directory_symbol(src, directory)


def directory_symbol(src, directory):
    """The Kconfig symbol under which kbuild descends into directory."""
    while directory:
        parent, base = os.path.split(directory)
        for _, symbol, tokens in makefile_entries(os.path.join(src, parent)):
            if base + "/" in tokens and symbol:
                return symbol
        directory = parent
    return "always"


def main():
    log, start_ms, end_ms, jobs, src = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    calls = []
    for line in open(log):
        end, ms, f = line.split(None, 2)
        f = f.strip()
        f = os.path.relpath(f, src) if f.startswith("/") else f
        calls.append((int(end), int(ms), f))
    total = sum(ms for _, ms, _ in calls)
    wall = (end_ms - start_ms) / 1000
    # The objects of vmlinux: `make prepare` compiles two files early for the
    # generated headers, and arch/x86/boot is the bzImage, after the link.
    prepare = ("kernel/bounds.c", "arch/x86/kernel/asm-offsets.c")
    own = [c for c in calls if "/" in c[2] and not c[2].startswith(("tools/", "scripts/", "..", "arch/x86/boot/"))
           and c[2] not in prepare]
    first = min(end - ms for end, ms, _ in own)
    last = max(end for end, _, _ in own)
    head, tail, middle = (first - start_ms) / 1000, (end_ms - last) / 1000, (last - first) / 1000
    busy = sum(ms for _, ms, _ in own) / 1000
    print(f"kernel build: {wall:.0f} s wall clock, {total / 1000:.0f} s of compiler time in {len(calls)} calls")
    print("timeline:")
    print(f"  {head:6.1f} s  before the first compile of vmlinux's objects (host tools, headers)")
    print(f"  {middle:6.1f} s  compiling: {busy:.0f} s of compiler time, {100 * busy / (jobs * middle):.0f} % of {jobs} jobs")
    print(f"  {tail:6.1f} s  after the last compile of vmlinux's objects (link, kallsyms, bzImage)")
    # How many jobs were compiling, averaged over each 10 s of the build.
    buckets = [0.0] * (int(wall) // 10 + 1)
    for end, ms, _ in calls:
        t0, t1 = (end - ms - start_ms) / 1000, (end - start_ms) / 1000
        while t0 < t1:
            b = int(t0 // 10)
            step = min(t1, (b + 1) * 10) - t0
            buckets[min(b, len(buckets) - 1)] += step
            t0 += step
    print(f"  busy jobs in each 10 s (of {jobs}): " + " ".join(f"{b / 10:.1f}" for b in buckets))
    by_dir, by_sub, by_sym = collections.Counter(), collections.Counter(), collections.Counter()
    for _, ms, f in calls:
        parts = f.split("/")
        by_dir[parts[0] if len(parts) > 1 else "(top)"] += ms
        by_sub["/".join(parts[:2]) if len(parts) > 2 else parts[0]] += ms
        if f.startswith(("tools/", "scripts/")) or "/" not in f:
            by_sym["(host tools, other)"] += ms
        else:
            by_sym[symbol_of(src, f)] += ms
    for title, counter, n in (("by top-level directory", by_dir, 12), ("by second-level directory", by_sub, 15),
                              ("by the Kconfig symbol that builds the file", by_sym, 25)):
        print(f"compiler time {title}:")
        for key, ms in counter.most_common(n):
            print(f"  {key:40} {ms / 1000:7.1f} s  {100 * ms / total:4.1f} %")
    print("slowest files:")
    for _, ms, f in sorted(calls, key=lambda c: -c[1])[:15]:
        print(f"  {f:48} {ms / 1000:6.1f} s")


main()
