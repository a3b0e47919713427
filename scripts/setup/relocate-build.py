#!/usr/bin/env python3
"""Move build/ along with the kit: rewrite the old kit path to the new one.

kbuild writes absolute paths into an out-of-tree object directory: the
object directory's Makefile (include /old/build/linux/Makefile), its
"source" symlink, and every .cmd file (the command line, which kbuild
compares with the new one, and the headers the object depends on). A kit
that was copied (cp -a) or moved (mv) after a build would then rebuild both
kernels from scratch, or, while the old checkout still exists, silently
build against it.

build/.kit-root records where the kit was when build/ was made. When make
runs from elsewhere, this script rewrites the old path to the new one in
every text file and symlink under build/ (the unpacked source trees have
none, and are skipped), keeping each file's timestamps, so that make and
kbuild see the same, up-to-date tree at its new place. Binary files (object
files' debug strings) are left alone: no build step reads a path from them.

--copy OLD_DIR NEW_DIR does the same for a copy (cp -a) of one object
directory: OLD_DIR's path is rewritten to NEW_DIR's in the files under
NEW_DIR (make cocci-boot builds its images in a copy of build/kernel).

Usage: relocate-build.py BUILD_DIR | --copy OLD_DIR NEW_DIR
"""
import os
import re
import sys
import tempfile
import time

# The unpacked source trees: read-only to the build, no kit path inside.
SKIP_DIRS = {'linux', 'linux-pristine', 'mainline-src', 'kernel-git',
             'relocation'}
STAMP = '.kit-root'


def rewrite_file(path, pattern, new):
    """Rewrite one text file in place of itself; True when it changed."""
    with open(path, 'rb') as f:
        data = f.read()
    if b'\0' in data:
        return False
    out = pattern.sub(new, data)
    if out == data:
        return False
    st = os.lstat(path)
    # A new file renamed over the old one: a copy made with hard links
    # (cp -al) keeps the original's file untouched.
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix='.relocate-')
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(out)
        os.chmod(tmp, st.st_mode & 0o7777)
        os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return True


def rewrite_link(path, pattern, new):
    """Point a symlink into the old kit at the same place in the new one."""
    target = os.fsencode(os.readlink(path))
    out = pattern.sub(new, target)
    if out == target:
        return False
    st = os.lstat(path)
    os.unlink(path)
    os.symlink(out, path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
    return True


def relocate(tree, old, new, skip=()):
    """Rewrite the path OLD to NEW in the text files and symlinks under
    TREE (but its top-level folders SKIP); prints what it did."""
    start = time.monotonic()
    # The old path as a whole path component: /a/kit, not /a/kit2.
    pattern = re.compile(re.escape(os.fsencode(old)) +
                         rb'(?=[/\s"\':;=)]|$)', re.M)
    new = os.fsencode(new)
    files = links = 0
    for top, dirs, names in os.walk(tree):
        if top == tree:
            dirs[:] = [d for d in dirs if d not in skip]
        for name in names + [d for d in dirs
                             if os.path.islink(os.path.join(top, d))]:
            path = os.path.join(top, name)
            if os.path.islink(path):
                links += rewrite_link(path, pattern, new)
            elif os.path.isfile(path):
                files += rewrite_file(path, pattern, new)
    print(f'>> rewrote {files} files and {links} symlinks in '
          f'{time.monotonic() - start:.1f} s', file=sys.stderr)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == '--copy':
        relocate(os.path.realpath(sys.argv[3]), os.path.realpath(sys.argv[2]),
                 os.path.realpath(sys.argv[3]))
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    build = os.path.realpath(sys.argv[1])
    root = os.path.dirname(build)
    stamp = os.path.join(build, STAMP)
    os.makedirs(build, exist_ok=True)
    try:
        with open(stamp) as f:
            old = f.read().strip()
    except FileNotFoundError:
        old = ''
    if old and old != root:
        print(f'>> the kit moved from {old} to {root}: '
              'rewriting the old path in build/ (no rebuild needed)',
              file=sys.stderr)
        relocate(build, old, root, SKIP_DIRS)
    if old != root:
        with open(stamp, 'w') as f:
            f.write(root + '\n')


if __name__ == '__main__':
    main()
