# Sphinx configuration for the mmap_prepare teaching kit.
#
# Build (the kit's Makefile runs exactly this):
#   KIT_KERNEL_SRC=/abs/path/to/patched/kernel \
#     sphinx-build -W --keep-going -n -b html Documentation build/html
#
# The API reference is extracted with the kernel's own kernel-doc Sphinx
# extension from the tree named by KIT_KERNEL_SRC, so the pages always describe
# the code the labs are built against.

import os
import re
import sys

from sphinx.errors import ConfigError

DOC_DIR = os.path.dirname(os.path.abspath(__file__))
KIT_ROOT = os.path.dirname(DOC_DIR)

# -- The kernel tree ---------------------------------------------------------

kit_kernel_src = os.environ.get('KIT_KERNEL_SRC', '')
if not kit_kernel_src:
    raise ConfigError('conf.py: KIT_KERNEL_SRC is not set. Point it at the patched '
             'kernel source, e.g.\n'
             '  KIT_KERNEL_SRC=%s/build/linux sphinx-build ...' % KIT_ROOT)
kit_kernel_src = os.path.abspath(kit_kernel_src)
for needed in ('Documentation/sphinx/kerneldoc.py', 'scripts/kernel-doc',
               'include/linux/mm.h'):
    if not os.path.exists(os.path.join(kit_kernel_src, needed)):
        raise ConfigError('conf.py: KIT_KERNEL_SRC=%s is not a kernel source tree '
                 '(missing %s).' % (kit_kernel_src, needed))

# The kernel's own Sphinx extensions (kerneldoc and its kernellog helper).
sys.path.insert(0, os.path.join(kit_kernel_src, 'Documentation', 'sphinx'))
# The kit's small extension (kernel rst excerpts, patch hunks, lab TODO lists).
sys.path.insert(0, os.path.join(DOC_DIR, '_ext'))

# Set as the kernel's Documentation/conf.py does, with paths made absolute.
# kerneldoc_bin is a thin wrapper around $KIT_KERNEL_SRC/scripts/kernel-doc that
# turns "identifier not found" into a failure, so a renamed or missing symbol
# breaks the build instead of silently leaving a hole in the reference.
kerneldoc_srctree = kit_kernel_src
kerneldoc_bin = os.path.join(DOC_DIR, '_ext', 'kernel-doc-strict')
if not os.access(kerneldoc_bin, os.X_OK):
    raise ConfigError('conf.py: %s must be executable (chmod +x).' % kerneldoc_bin)
os.environ['KIT_KERNEL_DOC'] = os.path.join(kit_kernel_src, 'scripts',
                                            'kernel-doc')

# Read by the kit extension (_ext/kitdoc.py).
kit_root = KIT_ROOT
kit_kernel_tree = kit_kernel_src

# -- In-tree conversion pages -------------------------------------------------
# Each page of in-tree/ (except those in IN_TREE_OTHER_PAGES) walks through the
# conversion of one kernel file and names it on its first line:
#     .. kit-in-tree-file: drivers/char/mem.c
# A page is built only if a patch listed in patches/series converts that file
# (its hunks for the file add a ".mmap_prepare = ..." initialiser), so the
# site never describes a conversion the kit does not ship. The index
# gets a toctree of the built pages in place of its ".. kit-in-tree-toctree::"
# line (see _ext/kitdoc.py).
#
# The pages in IN_TREE_OTHER_PAGES are not about one conversion (the index, and
# how the in-tree users are checked); they are always built and the index
# links them with an ordinary toctree.

IN_TREE_OTHER_PAGES = ('index.rst', 'checks.rst')

import kitdoc  # noqa: E402  (from _ext/, on sys.path above)

kit_in_tree_skipped = []
kit_in_tree_pages = []     # read by _ext/kitdoc.py for in-tree/index


def _in_tree_pages():
    patches, _ = kitdoc.load_series(KIT_ROOT)
    converts = re.compile(r'^\+.*\.mmap_prepare\s*=', re.M)
    touched = set()
    for p in patches or []:
        touched.update(f for f, hunks in p.files.items()
                       if converts.search(hunks))
    in_tree = os.path.join(DOC_DIR, 'in-tree')
    for name in sorted(os.listdir(in_tree)):
        if not name.endswith('.rst') or name in IN_TREE_OTHER_PAGES:
            continue
        with open(os.path.join(in_tree, name), encoding='utf-8') as f:
            first = f.readline()
        marker = '.. kit-in-tree-file:'
        if not first.startswith(marker):
            raise ConfigError('conf.py: in-tree/%s must start with "%s PATH"'
                     % (name, marker))
        if first[len(marker):].strip() in touched:
            kit_in_tree_pages.append('in-tree/' + name[:-4])
        else:
            kit_in_tree_skipped.append('in-tree/' + name[:-4])


_in_tree_pages()

# -- Project -----------------------------------------------------------------

project = 'mmap_prepare kit'
author = 'the mmap_prepare kit authors'
copyright = '2026, ' + author
release = 'Linux 6.12 backport'

needs_sphinx = '5.3'
extensions = [
    'kerneldoc',
    'sphinx.ext.graphviz',
    'kitdoc',
]

# Internal references to sections by "page:Title" would break whenever a
# title is reworded; pages use explicit labels instead.
root_doc = 'index'
exclude_patterns = ['_build', '_ext', 'Thumbs.db', '.DS_Store'] + \
    [page + '.rst' for page in kit_in_tree_skipped]
templates_path = []
primary_domain = 'c'
highlight_language = 'none'
pygments_style = 'sphinx'

# Attributes kernel-doc may leave in prototypes, as in the kernel's conf.py.
c_id_attributes = [
    '__iomem', '__user', '__rcu', '__percpu', '__force', '__always_inline',
    '__maybe_unused', '__must_check', 'notrace', 'noinline', '__init',
]

# -- Nitpicky mode -----------------------------------------------------------
# Every cross-reference must resolve. The only exceptions are kernel C types
# that appear in the prototypes kernel-doc emits for the API reference but that
# the kit does not document itself (they belong to the wider kernel).
nitpick_ignore = [
    # struct vm_area_struct: the VMA, documented by the kernel, not by us.
    ('c:identifier', 'vm_area_struct'),
    # struct mm_struct, struct file, struct vm_operations_struct and
    # struct file_operations: core kernel structures.
    ('c:identifier', 'mm_struct'),
    ('c:identifier', 'file'),
    ('c:identifier', 'vm_operations_struct'),
    ('c:identifier', 'file_operations'),
    # Architecture-specific scalar types from <asm/pgtable_types.h> and
    # <linux/types.h>.
    ('c:identifier', 'pgprot_t'),
    ('c:identifier', 'pgoff_t'),
    ('c:identifier', 'vm_flags_t'),
    ('c:identifier', 'phys_addr_t'),
    ('c:identifier', 'size_t'),
]

# -- HTML --------------------------------------------------------------------

html_theme = 'sphinx_rtd_theme'
html_theme_options = {
    'navigation_depth': 3,
    'collapse_navigation': False,
}
html_title = 'mmap_prepare kit'
# _static/kit.css: lets table cells wrap (the theme keeps them on one line).
html_static_path = ['_static']
html_css_files = ['kit.css']
html_show_sourcelink = False
html_last_updated_fmt = None

# -- Graphviz ----------------------------------------------------------------

graphviz_output_format = 'svg'
graphviz_dot_args = ['-Gfontname=Helvetica', '-Nfontname=Helvetica',
                     '-Efontname=Helvetica']
