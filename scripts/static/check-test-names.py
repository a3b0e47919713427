#!/usr/bin/env python3
"""The test names the guide and the stage.conf files give are the names the
checker prints. A checker test prints as FIXTURE.TEST, or FIXTURE.VARIANT.TEST
when its fixture has variants (FIXTURE_VARIANT_ADD); a page that says
``charge.refused_map_fixed_charge_delta_zero`` where the output says
``charge.device.refused_map_fixed_charge_delta_zero`` sends the learner
looking for a line that is not there.

Reads the TEST_F()/TEST()/FIXTURE_VARIANT_ADD() of labs/checker/*.c and every
word shaped FIXTURE.NAME (a known fixture first) in Documentation/**/*.rst and
*.inc (not the recorded outputs, which the checker wrote) and in the
STAGE_TODO_CHECKS of each stage.conf; prints each unknown one with where it
is, and exits 1 if there is any.
Usage: check-test-names.py KIT_ROOT
"""
import glob
import os
import re
import sys


def checker_names(root):
    """The fixtures, and the names the checker prints."""
    tests, variants = {}, {}
    for path in glob.glob(os.path.join(root, 'labs/checker/*.c')):
        text = open(path, encoding='utf-8').read()
        for fixture, name in re.findall(r'^TEST_F\((\w+),\s*(\w+)\)', text, re.M):
            tests.setdefault(fixture, set()).add(name)
        for fixture, variant in re.findall(r'^FIXTURE_VARIANT_ADD\((\w+),\s*(\w+)\)', text, re.M):
            variants.setdefault(fixture, set()).add(variant)
        for name in re.findall(r'^TEST\((\w+)\)', text, re.M):
            tests.setdefault('global', set()).add(name)
    names = set()
    for fixture, fixture_tests in tests.items():
        for name in fixture_tests:
            if fixture in variants:
                names.update(f'{fixture}.{v}.{name}' for v in variants[fixture])
            else:
                names.add(f'{fixture}.{name}')
    return set(tests), names


def main():
    root = sys.argv[1]
    fixtures, names = checker_names(root)
    word = re.compile(r'\b(%s)\.([a-z_]+\w*(?:\.\w+)?)\b' % '|'.join(sorted(fixtures, key=len, reverse=True)))
    sources = [p for p in glob.glob(os.path.join(root, 'Documentation/**/*.rst'), recursive=True)
               + glob.glob(os.path.join(root, 'Documentation/**/*.inc'), recursive=True)
               if '/_captured/' not in p]
    bad = []
    for path in sorted(sources):
        for n, line in enumerate(open(path, encoding='utf-8'), 1):
            for m in word.finditer(line):
                full = m.group(0)
                # A file name (check_vma.c, hooks.kit.res) or a glob
                # (pages.check_*) is not a test.
                if full in names or re.search(r'\.(c|h|conf|rst|txt|inc|sh|py|res|report|log)$', full) \
                        or line[m.end():m.end() + 1] == '*':
                    continue
                # A name that a known one starts with (a prefix in prose).
                if any(known.startswith(full + '.') for known in names):
                    continue
                bad.append(f'{os.path.relpath(path, root)}:{n}: {full}')
    for conf in sorted(glob.glob(os.path.join(root, 'labs/*/stage.conf'))):
        for line in open(conf, encoding='utf-8'):
            m = re.match(r'STAGE_TODO_CHECKS="([^"]*)"', line)
            if not m:
                continue
            for todo in m.group(1).split():
                for test in todo.split('=', 1)[1].split(','):
                    if test not in names:
                        bad.append(f'{os.path.relpath(conf, root)}: STAGE_TODO_CHECKS: {test}')
    for b in bad:
        print(b)
    print(f'{len(names)} test names in the checker; {len(bad)} unknown names in the docs and stage.conf files')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
