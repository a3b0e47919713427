# SPDX-License-Identifier: GPL-2.0-only
"""What the aid's Python scripts share about a hook's files: reading them,
which files of a folder define or declare a hook (mmap-files.py gives
them to the aid with the file that names the hook; hook-groups.py names
them in the report when they were not given), and the name a static
helper gets when it is converted with its hook."""
import functools
import glob
import os
import re

MMAP = re.compile(r"\.mmap\s*=\s*(\w+)")


def read(path):
    """The text of PATH ("" when it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def semantic_patch_function(name):
    """The Python function NAME as the semantic patch defines it (in the
    initialize block of mmap_prepare_verdict.cocci), so that a rule the
    scripts share with spatch is written once, there."""
    text = read(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mmap_prepare_verdict.cocci"))
    m = re.search(r"^def %s\(.*?(?=^\S)" % re.escape(name), text, re.M | re.S)
    if not m:
        raise SystemExit("error: mmap_prepare_verdict.cocci defines no %s(): the aid's scripts need it" % name)
    scope = {}
    exec(m.group(0), scope)  # pylint: disable=exec-used
    return scope[name]


# The name a converted hook gets, and a static helper converted with it.
hook_name = semantic_patch_function("hook_name")
helper_name = semantic_patch_function("helper_name")


# A folder's files, read once for all the hooks looked for in it.
read_folder_file = functools.lru_cache(maxsize=None)(read)


def signatures(text, name, body):
    """Where TEXT defines (BODY "\\{") or declares (";") NAME as a hook."""
    sig = re.compile(re.escape(name) + r"\s*\(\s*struct\s+file\s*\*\s*\w*\s*,"
                     r"\s*struct\s+vm_area_struct\s*\*\s*\w*\s*\)\s*" + body)
    return [m.start() for m in sig.finditer(text)
            if m.start() == 0 or not re.match(r"[\w.>]", text[m.start() - 1])]


def is_static(text, start):
    """Whether the declaration that ends at START is static."""
    head = text[max(0, start - 200):start]
    head = re.split(r"[;{}]|\*/|\n#", head)[-1]
    return re.search(r"\bstatic\b", head) is not None


def in_folder(folder, hook, skip=()):
    """The .c and .h files of FOLDER but those in SKIP (real paths) that
    define or declare HOOK, not static: {"{": definers, ";": declarers}."""
    found = {"{": [], ";": []}
    for other in sorted(glob.glob(os.path.join(folder or ".", "*.[ch]"))):
        if os.path.realpath(other) in skip:
            continue
        text = read_folder_file(other)
        if hook not in text:
            continue
        for body, files in found.items():
            if any(not is_static(text, at) for at in signatures(text, hook, "\\" + body)):
                files.append(other)
    return found
