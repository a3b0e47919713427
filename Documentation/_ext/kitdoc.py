# Sphinx extension of the mmap_prepare kit.
#
# Directives that show material straight from the kit's tested files, so that
# nothing on the site is typed by hand:
#
#   .. kit-kernel-rst:: Documentation/filesystems/porting.rst
#      :entry-containing: mmap_prepare
#
#      Shows, from the kernel tree in KIT_KERNEL_SRC, every porting.rst entry
#      (the blocks between "---" lines) that mentions the text.
#
#   .. kit-kernel-rst:: Documentation/filesystems/vfs.rst
#      :item: mmap_prepare
#
#      Shows the definition-list item whose term is ``mmap_prepare``.
#      Add :render: to any kit-kernel-rst to parse the excerpt as
#      reStructuredText instead of showing its source.
#
#   .. kit-patch:: drivers/char/mem.c
#      :message:
#
#      Shows the hunks for one kernel file from the patches listed in
#      patches/series (and, with :message:, the commit message first).
#      :patch: TEXT limits the search to patches whose file name or subject
#      contains TEXT.
#
#   .. kit-series::
#
#      A table of patches/series: file, subject, files touched.
#
#   .. kit-todos:: labs/01-mmap-prepare/mmap_lab1.c
#
#      A list of the "/* TODO n/k: what */" markers of a lab solution.
#
#   .. kit-stage-checks:: labs/02-remap-action/stage.conf
#
#      The checkers a stage runs (STAGE_CHECKS) and the TEST_F() tests of
#      each, read from labs/checker/<checker>.c.
#
#   .. kit-stage-table::
#
#      Every stage in make check's order (qemu/stages.sh list): its id, the
#      folder its module is built from, its kernel and its STAGE_TITLE.
#
#   .. kit-lab-table::
#
#      The lab stages (labs/NN-name/): page, devices and STAGE_TEACHES,
#      from scripts/labs/lab-table.py --rst.
#
#   .. kit-workshop-schedule::
#
#      20 min | What ``.mmap()`` lets a driver do; the two diagrams | :ref:`why`
#      stage 0 | 20 min | read and complete the legacy hook
#      15 min | Break
#
#      The workshop schedule as a table: one slot per row of the content
#      ("LENGTH | TOPIC | MATERIAL", or "stage N | LENGTH | TOPIC | MATERIAL"
#      for a lab stage; an indented line continues the row above), start
#      times added up from the lengths, and a last row for the end. A lab
#      stage's slot is titled "Stage N: TOPIC" and links its page (lab-NN)
#      before any MATERIAL. Every lab stage of qemu/stages.sh list (the
#      labs/NN-name/ folders) must have exactly one slot, in the list's
#      order, and every slot must name one of them.
#
#   .. kit-script-map::
#
#      setup: what the scripts of scripts/setup/ are for
#      ...
#
#      The kit's tooling, a table per job folder of scripts/ (each line of
#      the content names one folder and says what its job is; a folder
#      without a line, or a line without a folder, is an error): every
#      script, the make target named after it (when the Makefile has one),
#      and the first sentence of its header comment.
#
#   .. kit-checker-stages::
#
#      The table of checker programs (labs/checker/check_*.c): what each
#      checks, from the first paragraph of its header comment, and which
#      stages run it (their STAGE_CHECKS and variants' VARIANT_CHECKS), the
#      real drivers of make cocci-boot, and make check DRIVER= where
#      scripts/driver/check-driver.sh names it. Fails when a program's
#      header has no such paragraph or no page shows its source.
#
#   .. kit-mistakes::
#
#      The mistake corpus of the labs (labs/NN-name/mistakes.tsv, replayed
#      by make check-mistakes): a table per stage, in make check's order,
#      of the TODO, the kind of mistake, the mistake, and what the verdict
#      says of it (or, for a compiler error, which file it names).
#
#   .. kit-in-tree-toctree::
#
#      Only in in-tree/index.rst: replaced, before parsing, by a toctree of
#      the conversion pages conf.py decided to build (kit_in_tree_pages).
#
# Every directive reports a warning (an error under "sphinx-build -W") when the
# file or the requested part of it does not exist.

import glob
import os
import re
import subprocess

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import ViewList
from sphinx.directives.code import LiteralInclude, container_wrapper
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)


def _rst_escape(text):
    """Text with the characters reStructuredText gives a meaning escaped."""
    return re.sub(r'([\\`*_|])', r'\\\1', text)


def _read(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


class _KitDirective(SphinxDirective):

    def fail(self, msg):
        logger.warning(msg, location=(self.env.docname, self.lineno))
        return [nodes.paragraph(text='[missing: %s]' % msg)]

    def parse_rst(self, lines, source):
        """The nodes of reStructuredText made up by a directive."""
        view = ViewList()
        for i, line in enumerate(lines):
            view.append(line, source, i)
        node = nodes.section()
        node.document = self.state.document
        nested_parse_with_titles(self.state, view, node)
        return node.children

    def literal(self, text, language, caption, path):
        literal = nodes.literal_block(text, text)
        literal['language'] = language
        literal['source'] = path
        self.set_source_info(literal)
        if caption:
            literal = container_wrapper(self, literal, caption)
        return literal


# ---------------------------------------------------------------------------
# kit-kernel-rst

def _porting_entries(lines, needle):
    """Blocks between separator lines ("---") that contain needle."""
    blocks, start = [], 0
    for i, line in enumerate(lines + ['---']):
        if re.fullmatch(r'-{3,}\s*', line):
            block = lines[start:i]
            if any(needle in l for l in block):
                # Trim blank lines at both ends.
                b, e = 0, len(block)
                while b < e and not block[b].strip():
                    b += 1
                while e > b and not block[e - 1].strip():
                    e -= 1
                blocks.append((start + b + 1, block[b:e]))
            start = i + 1
    return blocks


def _definition_items(lines, term):
    """Definition-list items whose term line is ``term``, with their body."""
    items = []
    pattern = re.compile(r'^(\s*)``%s``\s*$' % re.escape(term))
    for i, line in enumerate(lines):
        m = pattern.match(line)
        if not m:
            continue
        indent = len(m.group(1).expandtabs(8))
        j = i + 1
        while j < len(lines):
            nxt = lines[j]
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) == 0:
                break
            if nxt.strip() and \
               len(nxt.expandtabs(8)) - len(nxt.expandtabs(8).lstrip()) <= indent:
                break
            j += 1
        while j > i + 1 and not lines[j - 1].strip():
            j -= 1
        items.append((i + 1, lines[i:j]))
    return items


def _dedent(block):
    expanded = [l.expandtabs(8) for l in block]
    widths = [len(l) - len(l.lstrip()) for l in expanded if l.strip()]
    cut = min(widths) if widths else 0
    return [l[cut:] for l in expanded]


class KitKernelRst(_KitDirective):
    required_arguments = 1
    option_spec = {
        'entry-containing': directives.unchanged_required,
        'item': directives.unchanged_required,
        'render': directives.flag,
    }

    def run(self):
        rel = self.arguments[0]
        path = os.path.join(self.config.kit_kernel_tree, rel)
        if not os.path.isfile(path):
            return self.fail('kit-kernel-rst: %s not found in %s'
                             % (rel, self.config.kit_kernel_tree))
        self.env.note_dependency(path)
        lines = _read(path).splitlines()
        if 'entry-containing' in self.options:
            what = self.options['entry-containing']
            found = _porting_entries(lines, what)
            desc = 'entry mentioning "%s"' % what
        elif 'item' in self.options:
            what = self.options['item']
            found = _definition_items(lines, what)
            desc = 'item ``%s``' % what
        else:
            return self.fail('kit-kernel-rst: give :entry-containing: or :item:')
        if not found:
            return self.fail('kit-kernel-rst: no %s in %s' % (desc, rel))

        result = []
        for first, block in found:
            block = _dedent(block)
            last = first + len(block) - 1
            if 'render' in self.options:
                container = nodes.container(classes=['kit-kernel-rst'])
                vl = ViewList()
                for n, l in enumerate(block):
                    vl.append(l, path, first - 1 + n)
                nested_parse_with_titles(self.state, vl, container)
                caption = nodes.paragraph()
                caption += nodes.emphasis(
                    text='From %s, lines %d-%d, of the kit kernel tree:'
                    % (rel, first, last))
                result += [caption, container]
            else:
                caption = '%s, lines %d-%d (kit kernel tree)' % (rel, first, last)
                result.append(self.literal('\n'.join(block), 'rst', caption, path))
        return result


# ---------------------------------------------------------------------------
# patches/series

class Patch:
    def __init__(self, name, text):
        self.name = name
        self.text = text
        head, _, _ = text.partition('\ndiff --git ')
        subject = re.search(r'^Subject: (.*(?:\n[ \t].*)*)', head, re.M)
        subject = re.sub(r'\s*\n\s*', ' ', subject.group(1)) if subject else name
        self.subject = re.sub(r'^\[[^\]]*\]\s*', '', subject)
        # Commit message: after the header block, up to the "---" line.
        body = head.split('\n\n', 1)[1] if '\n\n' in head else ''
        self.message = body.split('\n---\n', 1)[0].rstrip()
        self.files = {}
        for m in re.finditer(r'^diff --git a/(\S+) b/(\S+)\n(.*?)(?=^diff --git |^-- \n|\Z)',
                             text, re.M | re.S):
            self.files[m.group(2)] = 'diff --git a/%s b/%s\n%s' % (
                m.group(1), m.group(2), m.group(3).rstrip('\n'))


def load_series(kit_root):
    """The patches of patches/series, in order, or None without a series."""
    pdir = os.path.join(kit_root, 'patches')
    series = os.path.join(pdir, 'series')
    if not os.path.isfile(series):
        return None, series
    patches = []
    for line in _read(series).splitlines():
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        path = os.path.join(pdir, line)
        if os.path.isfile(path):
            patches.append(Patch(line, _read(path)))
        else:
            patches.append(Patch(line, ''))
            patches[-1].missing = path
    return patches, series


class KitPatch(_KitDirective):
    required_arguments = 1
    option_spec = {
        'patch': directives.unchanged_required,
        'message': directives.flag,
    }

    def run(self):
        target = self.arguments[0]
        patches, series = load_series(self.config.kit_root)
        if patches is None:
            return self.fail('kit-patch: %s does not exist' % series)
        self.env.note_dependency(series)
        wanted = self.options.get('patch')
        result = []
        for p in patches:
            if getattr(p, 'missing', None):
                return self.fail('kit-patch: %s is listed in patches/series '
                                 'but does not exist' % p.missing)
            if wanted and wanted not in p.name and wanted not in p.subject:
                continue
            if target not in p.files:
                continue
            path = os.path.join(self.config.kit_root, 'patches', p.name)
            self.env.note_dependency(path)
            if 'message' in self.options:
                result.append(self.literal(
                    'Subject: %s\n\n%s' % (p.subject, p.message), 'none',
                    'patches/%s: commit message' % p.name, path))
            result.append(self.literal(p.files[target], 'diff',
                                       'patches/%s: %s' % (p.name, target), path))
        if not result:
            return self.fail('kit-patch: no patch in patches/series touches %s%s'
                             % (target, ' (patch "%s")' % wanted if wanted else ''))
        return result


class KitSeries(_KitDirective):
    required_arguments = 0

    def run(self):
        patches, series = load_series(self.config.kit_root)
        if patches is None:
            return self.fail('kit-series: %s does not exist' % series)
        self.env.note_dependency(series)
        if not patches:
            return self.fail('kit-series: %s lists no patches' % series)
        table = nodes.table(classes=['kit-series'])
        tgroup = nodes.tgroup(cols=3)
        table += tgroup
        for width in (3, 6, 5):
            tgroup += nodes.colspec(colwidth=width)

        def row(cells, header=False):
            r = nodes.row()
            for c in cells:
                entry = nodes.entry()
                if isinstance(c, nodes.Node):
                    entry += c
                else:
                    entry += nodes.paragraph(text=c)
                r += entry
            return r

        thead = nodes.thead()
        thead += row(['patch', 'subject', 'files'])
        tgroup += thead
        tbody = nodes.tbody()
        for p in patches:
            files = nodes.paragraph()
            for i, f in enumerate(sorted(p.files)):
                if i:
                    files += nodes.Text(' ')
                files += nodes.literal(text=f)
            name = nodes.paragraph()
            name += nodes.literal(text=p.name)
            tbody += row([name, p.subject, files])
        tgroup += tbody
        return [table]


# ---------------------------------------------------------------------------
# kit-todos

TODO_RE = re.compile(r'/\*\s*TODO\s+(\d+)/(\d+):\s*(.*?)\s*\*/')


class KitTodos(_KitDirective):
    required_arguments = 1

    def run(self):
        rel = self.arguments[0]
        path = os.path.join(self.config.kit_root, rel)
        if not os.path.isfile(path):
            return self.fail('kit-todos: %s does not exist' % rel)
        self.env.note_dependency(path)
        todos = []
        for n, line in enumerate(_read(path).splitlines(), 1):
            m = TODO_RE.search(line)
            if m:
                todos.append((int(m.group(1)), int(m.group(2)), m.group(3), n))
        if not todos:
            return self.fail('kit-todos: no "/* TODO n/k: ... */" marker in %s' % rel)
        # Line numbers are those of the skeleton, the file the learner edits:
        # every answer above a marker is missing there.
        removed, skel_line = 0, {}
        for number, count, what, line in todos:
            skel_line[number] = line - removed
            removed += count
        # The checks that prove each TODO (STAGE_TODO_CHECKS of stage.conf).
        conf = os.path.join(os.path.dirname(path), 'stage.conf')
        proof = {}
        if os.path.isfile(conf):
            self.env.note_dependency(conf)
            root = self.config.kit_root
            for word in _stage_conf_get(root, conf, 'STAGE_TODO_CHECKS').split():
                n, _, checks = word.partition('=')
                proof[int(n)] = checks.split(',')
        # Exercise numbers are shown as written in the source, not renumbered.
        blist = nodes.bullet_list(bullet='-')
        for number, count, what, line in sorted(todos):
            item = nodes.list_item()
            para = nodes.paragraph()
            para += nodes.strong(text='TODO %d' % number)
            para += nodes.Text(' (line %d of your copy, %d line%s to write): '
                               % (skel_line[number], count,
                                  '' if count == 1 else 's'))
            para += nodes.Text(what)
            if number in proof:
                para += nodes.Text('. Checked by ')
                for i, check in enumerate(proof[number]):
                    if i:
                        para += nodes.Text(', ')
                    para += nodes.literal(text=check)
            item += para
            blist += item
        return [blist]


# ---------------------------------------------------------------------------
# kit-stage-checks

TEST_RE = re.compile(r'^\s*TEST_F\(\s*(\w+)\s*,\s*(\w+)\s*\)', re.M)


def _stage_conf_get(kit_root, path, var):
    """The value of var in a stage.conf, from the kit's one reader of the
    format (a shell fragment): qemu/stages.sh get-file."""
    reader = os.path.join(kit_root, 'qemu', 'stages.sh')
    done = subprocess.run([reader, 'get-file', path, var], check=True,
                          stdout=subprocess.PIPE, text=True)
    return done.stdout.rstrip('\n')


class KitStageChecks(_KitDirective):
    """The checkers a stage runs (STAGE_CHECKS) and the tests in each."""
    required_arguments = 1

    def run(self):
        rel = self.arguments[0]
        root = self.config.kit_root
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            return self.fail('kit-stage-checks: %s does not exist' % rel)
        self.env.note_dependency(path)
        checks = _stage_conf_get(root, path, 'STAGE_CHECKS').split()
        if not checks:
            return self.fail('kit-stage-checks: no STAGE_CHECKS in %s' % rel)
        blist = nodes.bullet_list(bullet='-')
        for check in checks:
            src = os.path.join(root, 'labs', 'checker', check + '.c')
            if not os.path.isfile(src):
                return self.fail('kit-stage-checks: %s runs %s, but %s does '
                                 'not exist' % (rel, check,
                                                os.path.relpath(src, root)))
            self.env.note_dependency(src)
            tests = ['%s.%s' % m for m in TEST_RE.findall(_read(src))]
            item = nodes.list_item()
            para = nodes.paragraph()
            para += nodes.literal(text=check)
            if tests:
                para += nodes.Text(': ')
                for i, t in enumerate(tests):
                    if i:
                        para += nodes.Text(', ')
                    para += nodes.literal(text=t)
            else:
                # A program that prints its own TAP (check_fail_nth): what
                # its header says it does, and what this stage has it do.
                m = re.search(r'\b%s - (.*?\.)(\s|$)' % check,
                              re.sub(r'\n \*\s*', ' ', _read(src)), re.S)
                para += nodes.Text(': ' + (m.group(1) if m else
                                           'prints its own TAP'))
                sweep = _stage_conf_get(root, path, 'MMAP_LAB_SWEEP')
                if sweep:
                    para += nodes.Text(' Here: ')
                    para += nodes.literal(text='MMAP_LAB_SWEEP="%s"' % sweep)
                    para += nodes.Text(', each plain and MAP_FIXED.')
            item += para
            blist += item
        return [blist]


class KitLabTable(_KitDirective):
    """The lab stages, with their devices and what each teaches, from their
    stage.conf files (scripts/labs/lab-table.py --rst, which also writes
    labs/README.md's table)."""

    def run(self):
        root = self.config.kit_root
        for conf in sorted(glob.glob(os.path.join(root, 'labs', '[0-9][0-9]-*', '*.conf'))):
            self.env.note_dependency(conf)
        try:
            done = subprocess.run([os.path.join(root, 'scripts', 'labs', 'lab-table.py'), '--rst'],
                                  check=True, text=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as e:
            return self.fail('kit-lab-table: scripts/labs/lab-table.py --rst failed: %s' % e)
        return self.parse_rst(done.stdout.splitlines(), 'kit-lab-table')


class KitStageTable(_KitDirective):
    """Every stage in make check's order (qemu/stages.sh list): its id, the
    folder its module is built from, the kernel it boots, its title."""

    def run(self):
        root = self.config.kit_root
        script = os.path.join(root, 'qemu', 'stages.sh')

        def ask(*args):
            return subprocess.run([script] + list(args), check=True, text=True,
                                  capture_output=True).stdout.strip()
        try:
            ids = ask('list').split()
        except (OSError, subprocess.CalledProcessError) as e:
            return self.fail('kit-stage-table: qemu/stages.sh list failed: %s' % e)
        rows = ['.. list-table::', '   :header-rows: 1', '   :widths: 18 34 10 38', '',
                '   * - ``STAGE``', '     - folder', '     - kernel', '     - title']
        for sid in ids:
            conf = ask('conf', sid)
            self.env.note_dependency(conf)
            folder = os.path.relpath(ask('source', sid), root)
            title = _stage_conf_get(root, conf, 'STAGE_TITLE')
            rows += ['   * - ``%s``' % sid, '     - ``%s/``' % folder,
                     '     - %s' % ask('kernel', sid), '     - %s' % _rst_escape(title)]
        return self.parse_rst(rows, 'kit-stage-table')


# ---------------------------------------------------------------------------
# kit-checker-stages

def _checker_programs(root):
    """The checker programs: labs/checker/check_*.c, by name."""
    return sorted(os.path.basename(f)[:-2] for f in
                  glob.glob(os.path.join(root, 'labs', 'checker', 'check_*.c')))


def _checker_summary(path, prog):
    """What a checker program checks: the first paragraph of its header
    comment ("check_x - what it checks."), without the name."""
    lines = _read(path).splitlines()
    para = []
    for line in lines[2:]:
        if line.rstrip() in (' *', ' */'):
            break
        para.append(line[3:].strip())
    text = ' '.join(para)
    prefix = prog + ' - '
    return text[len(prefix):] if text.startswith(prefix) else ''


class KitCheckerStages(_KitDirective):
    """The table of checker programs, made from labs/checker/check_*.c: each
    program, what it checks (the first paragraph of its header comment) and
    which stages run it, read from every stage.conf (STAGE_CHECKS) and
    variant (VARIANT_CHECKS), the real drivers of make cocci-boot
    (scripts/coccinelle/real-drivers/*.conf) and scripts/driver/check-driver.sh. Fails
    when a program's header has no "check_x - ..." paragraph, or when no
    page of the guide shows its source (a literalinclude of it)."""

    def run(self):
        root = self.config.kit_root
        script = os.path.join(root, 'qemu', 'stages.sh')
        progs = _checker_programs(root)
        if not progs:
            return self.fail('kit-checker-stages: no labs/checker/check_*.c')
        summaries = {}
        for p in progs:
            path = os.path.join(root, 'labs', 'checker', p + '.c')
            self.env.note_dependency(path)
            summaries[p] = _checker_summary(path, p)
        bad = [p for p in progs if not summaries[p]]
        if bad:
            return self.fail('kit-checker-stages: the header comment of %s does not '
                             'open with "check_x - what it checks." (its first paragraph '
                             'is the table\'s text)' % ', '.join(bad))
        shown = set()
        for rst in glob.glob(os.path.join(root, 'Documentation', '**', '*.rst'), recursive=True):
            shown.update(re.findall(r'literalinclude:: [./]*labs/checker/(check_\w+)\.c', _read(rst)))
        missing = [p for p in progs if p not in shown]
        if missing:
            return self.fail('kit-checker-stages: no page shows the source of %s: add '
                             'its section (a literalinclude) to this page' % ', '.join(missing))
        try:
            ids = subprocess.run([script, 'list'], check=True, text=True,
                                 capture_output=True).stdout.split()
        except (OSError, subprocess.CalledProcessError) as e:
            return self.fail('kit-checker-stages: qemu/stages.sh list failed: %s' % e)
        users = {p: [] for p in progs}
        for sid in ids:
            conf = subprocess.run([script, 'conf', sid], check=True, text=True,
                                  capture_output=True).stdout.strip()
            self.env.note_dependency(conf)
            words = _stage_conf_get(root, conf, 'STAGE_CHECKS').split()
            folder = os.path.dirname(conf)
            for var in sorted(f for f in os.listdir(folder) if re.fullmatch(r'variant-.+\.conf', f)):
                vconf = os.path.join(folder, var)
                self.env.note_dependency(vconf)
                words += _stage_conf_get(root, vconf, 'VARIANT_CHECKS').split()
            for w in set(words):
                if w in users:
                    users[w].append('``%s``' % sid)
        real = os.path.join(root, 'scripts', 'coccinelle', 'real-drivers')
        for conf in sorted(os.listdir(real)) if os.path.isdir(real) else []:
            if conf.endswith('.conf'):
                self.env.note_dependency(os.path.join(real, conf))
                for w in _stage_conf_get(root, os.path.join(real, conf), 'STAGE_CHECKS').split():
                    if w in users:
                        users[w].append('``make cocci-boot`` (%s)' % conf[:-5])
        driver = os.path.join(root, 'scripts', 'driver', 'check-driver.sh')
        if os.path.isfile(driver):
            text = _read(driver)
            for p in progs:
                if re.search(r'\b%s\b' % p, text):
                    users[p].append('``make check DRIVER=``')
        rows = ['.. list-table::', '   :header-rows: 1', '   :widths: 20 50 30', '',
                '   * - program', '     - what it checks', '     - run by']
        for p in progs:
            rows += ['   * - ``%s``' % p, '     - %s' % _rst_escape(summaries[p]),
                     '     - %s' % (', '.join(users[p]) or 'no stage')]
        return self.parse_rst(rows, 'kit-checker-stages')


# ---------------------------------------------------------------------------
# kit-workshop-schedule

def _split_cells(row):
    """The cells of a schedule row: split at " | ", but not inside ``...``."""
    cells, cell, literal, i = [], '', False, 0
    while i < len(row):
        if row.startswith('``', i):
            literal = not literal
            cell += '``'
            i += 2
        elif not literal and row.startswith(' | ', i):
            cells.append(cell.strip())
            cell = ''
            i += 3
        else:
            cell += row[i]
            i += 1
    cells.append(cell.strip())
    return cells


class KitWorkshopSchedule(_KitDirective):
    """The workshop schedule, with a slot for every lab stage of the stage
    list (qemu/stages.sh list), checked against it."""
    has_content = True

    def run(self):
        root = self.config.kit_root
        script = os.path.join(root, 'qemu', 'stages.sh')
        try:
            ids = subprocess.run([script, 'list'], check=True, text=True,
                                 capture_output=True).stdout.split()
            labs = [sid for sid in ids if sid.isdigit()]
            for sid in labs:
                conf = subprocess.run([script, 'conf', sid], check=True, text=True,
                                      capture_output=True).stdout.strip()
                self.env.note_dependency(conf)
        except (OSError, subprocess.CalledProcessError) as e:
            return self.fail('kit-workshop-schedule: qemu/stages.sh failed: %s' % e)

        # One row per line at the left margin; indented lines continue it.
        rows = []
        for line in self.content:
            if not line.strip():
                continue
            if line[0].isspace():
                if not rows:
                    return self.fail('kit-workshop-schedule: the content starts '
                                     'with a continuation line: %r' % line.strip())
                rows[-1] += ' ' + line.strip()
            else:
                rows.append(line.strip())
        if not rows:
            return self.fail('kit-workshop-schedule: no slot in the content')

        table = ['.. list-table::', '   :header-rows: 1', '   :widths: 12 12 46 30', '',
                 '   * - start', '     - length', '     - topic', '     - material']
        start, seen = 0, []

        def cell(text):
            return ('     - ' + text) if text else '     -'

        for row in rows:
            cells = _split_cells(row)
            stage = None
            m = re.fullmatch(r'stage\s+(\S+)', cells[0])
            if m:
                stage = m.group(1)
                cells = cells[1:]
            if len(cells) not in (2, 3):
                return self.fail('kit-workshop-schedule: a slot is "LENGTH | TOPIC '
                                 '| MATERIAL" or "stage N | LENGTH | TOPIC | '
                                 'MATERIAL", not %r' % row)
            length, topic = cells[0], cells[1]
            material = cells[2] if len(cells) == 3 else ''
            m = re.fullmatch(r'(\d+) min', length)
            if not m:
                return self.fail('kit-workshop-schedule: %r is not a length in '
                                 'minutes ("N min"), in %r' % (length, row))
            if stage is not None:
                if stage not in labs:
                    return self.fail('kit-workshop-schedule: a slot names stage %s, '
                                     'which is not a lab stage (lab stages of '
                                     'qemu/stages.sh list: %s)'
                                     % (stage, ' '.join(labs) or 'none'))
                if stage in seen:
                    return self.fail('kit-workshop-schedule: stage %s has two '
                                     'slots' % stage)
                seen.append(stage)
                topic = 'Stage %s: %s' % (stage, topic)
                link = ':ref:`lab-%02d`' % int(stage)
                material = link + (', ' + material if material else '')
            table += ['   * - %d:%02d' % (start // 60, start % 60),
                      cell(length), cell(topic), cell(material)]
            start += int(m.group(1))
        missing = [sid for sid in labs if sid not in seen]
        if missing:
            return self.fail('kit-workshop-schedule: no slot for lab stage%s %s '
                             '(qemu/stages.sh list)'
                             % ('' if len(missing) == 1 else 's', ', '.join(missing)))
        if seen != labs:
            return self.fail('kit-workshop-schedule: the lab slots come in the '
                             'order %s, the stage list in %s'
                             % (' '.join(seen), ' '.join(labs)))
        table += ['   * - %d:%02d' % (start // 60, start % 60), '     -',
                  '     - End', '     -']
        return self.parse_rst(table, 'kit-workshop-schedule')


# ---------------------------------------------------------------------------
# The toctree of in-tree/index: only the conversion pages that conf.py kept
# (a glob that matches nothing would be a warning).

IN_TREE_MARKER = '.. kit-in-tree-toctree::'


def _in_tree_toctree(app, docname, source):
    if docname != 'in-tree/index' or IN_TREE_MARKER not in source[0]:
        return
    pages = app.config.kit_in_tree_pages or []
    if pages:
        block = '.. toctree::\n   :maxdepth: 1\n\n' + ''.join(
            '   %s\n' % p.split('/', 1)[1] for p in pages)
    else:
        block = ('*The series in patches/series contains no conversion of '
                 'kernel code yet.*\n')
    source[0] = source[0].replace(IN_TREE_MARKER, block)



# ---------------------------------------------------------------------------
# literalinclude with :diff: and paths relative to the kit

class KitLiteralInclude(LiteralInclude):
    """literalinclude whose :diff: headers name files relative to the kit.

    Sphinx writes the absolute paths of both files into the "---" and "+++"
    lines of a diff, so the pages would show the builder's directory.
    """

    def run(self):
        result = super().run()
        if 'diff' not in self.options:
            return result
        root = os.path.realpath(self.config.kit_root) + os.sep

        def relative(text):
            lines = []
            for line in text.split('\n'):
                if line.startswith(('--- ', '+++ ')):
                    head, path = line[:4], line[4:]
                    path = os.path.realpath(path.split('\t')[0])
                    if path.startswith(root):
                        line = head + path[len(root):]
                lines.append(line)
            return '\n'.join(lines)

        for block in result[0].findall(nodes.literal_block) \
                if hasattr(result[0], 'findall') else \
                result[0].traverse(nodes.literal_block):
            text = relative(block.astext())
            block.rawsource = text
            block.children = [nodes.Text(text)]
        return result


# ---------------------------------------------------------------------------
# kit-script-map

def _header_sentence(path):
    """The first sentence of a script's header comment (or docstring)."""
    lines = _read(path).splitlines()
    text = []
    if path.endswith('.py'):
        body = '\n'.join(lines)
        m = re.search(r'"""(.*?)(\n\s*\n|""")', body, re.S)
        text = m.group(1).split('\n') if m else []
    else:
        for line in lines[1:] if lines and lines[0].startswith('#!') else lines:
            if not line.startswith('#'):
                break
            line = line[1:].strip()
            if 'SPDX-License-Identifier' in line:
                continue
            if not line or line.startswith('Usage'):
                if text:
                    break
                continue
            text.append(line)
    para = ' '.join(t.strip() for t in text)
    m = re.match(r'(.*?\.)(\s|$)', para)
    sentence = m.group(1) if m else para
    # "make bench: the performance lab." -> "the performance lab."
    return re.sub(r'^make [a-z-]+( [A-Z]+=[^:]*)?: ', '', sentence)


class KitScriptMap(_KitDirective):
    required_arguments = 0
    has_content = True

    def run(self):
        root = os.path.join(self.config.kit_root, 'scripts')
        makefile = os.path.join(self.config.kit_root, 'Makefile')
        self.env.note_dependency(makefile)
        targets = set(re.findall(r'^([a-z][a-z-]*):', _read(makefile), re.M))
        jobs = {}
        for line in self.content:
            if line.strip():
                job, _, what = line.partition(':')
                jobs[job.strip()] = what.strip()
        folders = sorted(d for d in os.listdir(root)
                         if os.path.isdir(os.path.join(root, d)))
        missing = [d for d in folders if d not in jobs]
        extra = [j for j in jobs if j not in folders]
        if missing or extra:
            return self.fail('kit-script-map: folders without a line: %s; '
                             'lines without a folder: %s'
                             % (missing or 'none', extra or 'none'))
        result = []
        for job in jobs:
            folder = os.path.join(root, job)
            section = nodes.rubric(text='scripts/%s/: %s' % (job, jobs[job]))
            result.append(section)
            table = nodes.table(classes=['kit-script-map'])
            tgroup = nodes.tgroup(cols=3)
            table += tgroup
            for width in (4, 3, 9):
                tgroup += nodes.colspec(colwidth=width)
            thead = nodes.thead()
            head = nodes.row()
            for title in ('script', 'make target', 'what it does'):
                entry = nodes.entry()
                entry += nodes.paragraph(text=title)
                head += entry
            thead += head
            tgroup += thead
            tbody = nodes.tbody()
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                if not name.endswith(('.sh', '.py')) or not os.path.isfile(path):
                    continue
                self.env.note_dependency(path)
                stem = name.rsplit('.', 1)[0]
                row = nodes.row()
                for cell in (nodes.literal(text=name),
                             nodes.literal(text='make ' + stem)
                             if stem in targets and name.endswith('.sh')
                             else nodes.Text(''),
                             nodes.Text(_header_sentence(path))):
                    entry = nodes.entry()
                    para = nodes.paragraph()
                    para += cell
                    entry += para
                    row += entry
                tbody += row
            tgroup += tbody
            result.append(table)
        return result

# ---------------------------------------------------------------------------
# kit-mistakes

class KitMistakes(_KitDirective):

    def run(self):
        root = self.config.kit_root
        labs = os.path.join(root, 'labs')
        stages = sorted(d for d in os.listdir(labs)
                        if re.fullmatch(r'\d\d-.+', d)
                        and os.path.isfile(os.path.join(labs, d, 'mistakes.tsv')))
        if not stages:
            return self.fail('kit-mistakes: no labs/NN-name/mistakes.tsv')
        lines, total = [], 0
        for d in stages:
            path = os.path.join(labs, d, 'mistakes.tsv')
            self.env.note_dependency(path)
            rows = []
            for n, line in enumerate(_read(path).splitlines(), 1):
                if not line.strip() or line.startswith('#'):
                    continue
                fields = line.split('\t')
                if len(fields) != 5:
                    return self.fail('kit-mistakes: %s line %d: %d fields, '
                                     'expected 5' % (path, n, len(fields)))
                rows.append(fields)
            total += len(rows)
            lines += ['.. rubric:: :ref:`lab-%s` (%d mistakes)' % (d[:2], len(rows)), '',
                      '.. list-table::', '   :header-rows: 1',
                      '   :widths: 8 18 37 37', '',
                      '   * - TODO', '     - kind', '     - the mistake',
                      '     - what the verdict shows']
            for todo, kind, mistake, _plant, hint in rows:
                if hint.startswith('compiler:'):
                    says = 'the compiler\'s error, at ``%sLINE:COLUMN``' % hint[len('compiler:'):]
                else:
                    says = '"%s"' % _rst_escape(hint)
                lines += ['   * - %s' % todo, '     - %s' % _rst_escape(kind),
                          '     - %s' % _rst_escape(mistake), '     - %s' % says]
            lines.append('')
        lines = ['%d mistakes over %d stages.' % (total, len(stages)), ''] + lines
        return self.parse_rst(lines, 'kit-mistakes')


def setup(app):
    app.add_config_value('kit_root', None, 'env')
    app.add_config_value('kit_kernel_tree', None, 'env')
    app.add_config_value('kit_in_tree_pages', [], 'env')
    app.connect('source-read', _in_tree_toctree)
    app.add_directive('kit-kernel-rst', KitKernelRst)
    app.add_directive('kit-patch', KitPatch)
    app.add_directive('kit-series', KitSeries)
    app.add_directive('kit-todos', KitTodos)
    app.add_directive('kit-stage-checks', KitStageChecks)
    app.add_directive('kit-stage-table', KitStageTable)
    app.add_directive('kit-lab-table', KitLabTable)
    app.add_directive('kit-script-map', KitScriptMap)
    app.add_directive('kit-workshop-schedule', KitWorkshopSchedule)
    app.add_directive('kit-mistakes', KitMistakes)
    app.add_directive('kit-checker-stages', KitCheckerStages)
    app.add_directive('literalinclude', KitLiteralInclude, override=True)
    return {'version': '1.0', 'parallel_read_safe': True,
            'parallel_write_safe': True}
