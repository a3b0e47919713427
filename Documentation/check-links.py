#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the internal links of a built HTML site.

Usage: check-links.py [HTML_DIR]     (default: build/html next to Documentation/)

Walks every .html file under HTML_DIR and checks each href, src and data
attribute that points inside the site: the file must exist, and a #fragment
must name an id (or a <a name=...>) in the target page. External links
(http:, https:, mailto:, ...) are not checked. Links that climb out of
HTML_DIR are reported too: they would break as soon as the site is copied.

Prints one line per broken link (page, attribute value, reason) and exits 1 if
there is any, 0 otherwise. Python 3 standard library only.
"""

import html.parser
import os
import sys
import urllib.parse


class PageParser(html.parser.HTMLParser):
    LINK_ATTRS = {'href', 'src', 'data'}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors = set()
        self.links = []          # (line, attribute value)

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == 'id' or (name == 'name' and tag == 'a'):
                self.anchors.add(value)
            elif name in self.LINK_ATTRS and tag != 'base':
                self.links.append((self.getpos()[0], value))
            elif name == 'srcset':
                for part in value.split(','):
                    url = part.strip().split(' ')[0]
                    if url:
                        self.links.append((self.getpos()[0], url))

    handle_startendtag = handle_starttag


def parse(path, cache):
    if path not in cache:
        parser = PageParser()
        with open(path, encoding='utf-8', errors='replace') as f:
            parser.feed(f.read())
        parser.close()
        cache[path] = parser
    return cache[path]


def is_external(url):
    parts = urllib.parse.urlsplit(url)
    return bool(parts.scheme) or url.startswith('//')


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = argv[1] if len(argv) > 1 else os.path.join(here, '..', 'build', 'html')
    root = os.path.realpath(root)
    if not os.path.isdir(root):
        print('check-links: %s is not a directory (build the site first)' % root,
              file=sys.stderr)
        return 2

    cache = {}
    pages = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith('.html'):
                pages.append(os.path.join(dirpath, name))

    broken = 0
    checked = 0
    for page in pages:
        rel_page = os.path.relpath(page, root)
        for line, url in parse(page, cache).links:
            if not url or is_external(url):
                continue
            checked += 1
            parts = urllib.parse.urlsplit(url)
            path = urllib.parse.unquote(parts.path)
            fragment = urllib.parse.unquote(parts.fragment)
            if path:
                target = os.path.realpath(os.path.join(os.path.dirname(page), path))
            else:
                target = page
            reason = None
            if target != root and not target.startswith(root + os.sep):
                reason = 'points outside %s' % root
            elif os.path.isdir(target):
                index = os.path.join(target, 'index.html')
                if os.path.isfile(index):
                    target = index
                else:
                    reason = 'directory without index.html'
            elif not os.path.exists(target):
                reason = 'missing file %s' % os.path.relpath(target, root)
            if reason is None and fragment and target.endswith('.html'):
                if fragment not in parse(target, cache).anchors:
                    reason = 'no anchor #%s in %s' % (
                        fragment, os.path.relpath(target, root))
            if reason:
                broken += 1
                print('%s:%d: %s: %s' % (rel_page, line, url, reason))

    print('check-links: %d pages, %d internal links, %d broken'
          % (len(pages), checked, broken), file=sys.stderr)
    return 1 if broken else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
