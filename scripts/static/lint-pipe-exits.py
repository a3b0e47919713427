#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Find the ``grep -q`` tests that fail at random under ``set -o pipefail``.

``grep -q`` exits at its first match. A writer still writing then dies of
SIGPIPE, and pipefail makes the whole pipeline, whose status is the test's
result, fail: a match reads as a miss. bash's echo writes one line per write(2), so
``echo "$text" | grep -q WORD`` fails whenever grep is faster than echo's
last lines (seen in CI). Feed such readers from a file, a here-string
(``grep -q WORD <<<"$text"``) or a process substitution instead; a reader
behind ``head -n 1`` or ``tail -n 1`` gets one write and is safe.

Usage: lint-pipe-exits.py SCRIPT...  (bash scripts and the ones they source)   (exit 1 and one line per finding)
"""
import re
import sys

PIPE = re.compile(r"(?<!\|)\|(?!\|)")
EARLY_EXIT = re.compile(r"(?<!\|)\|(?!\|)\s*grep\s+-\w*q")
ONE_WRITE = re.compile(r"\b(head|tail)\s+-n\s*1\s*(\S+\s*)?$")


def findings(path):
    text = open(path, encoding="utf-8").read()
    # bash scripts set pipefail, and the libraries they source inherit it;
    # the guest's busybox sh scripts have none.
    if not text.startswith("#!/usr/bin/env bash") and "pipefail" not in text:
        return
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        for match in EARLY_EXIT.finditer(line):
            writer = PIPE.split(line[:match.start()])[-1]
            if ONE_WRITE.search(writer.rstrip()):
                continue
            yield f"{path}:{number}: grep -q after a pipe, under pipefail " \
                  f"(the writer's SIGPIPE can decide it): {line.strip()}"


def main():
    found = [f for path in sys.argv[1:] for f in findings(path)]
    print("\n".join(found) if found else f"{len(sys.argv) - 1} scripts: no grep -q after a pipe that can race")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
