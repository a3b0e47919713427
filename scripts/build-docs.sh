#!/usr/bin/env bash
# Build the HTML docs with Debian's Sphinx from a fresh environment (the
# kit's extension reads sources Sphinx does not track), warnings as errors,
# nitpicky, and check the built site for broken internal links.
# Usage: build-docs.sh KERNEL_SRC HTML_DIR
set -euo pipefail

src=$(realpath "$1") html=$2
top=$(cd "$(dirname "$0")/.." && pwd)
echo ">> building HTML docs into ${html#"$top"/} (sphinx-build -W -n)"
start=$(date +%s)
KIT_KERNEL_SRC="$src" KIT_ROOT="$top" sphinx-build -q -E -W --keep-going -n -b html \
	-d "$top/build/doctrees" "$top/Documentation" "$html"
python3 "$top/Documentation/check-links.py" "$html"
echo ">> docs built in $(($(date +%s) - start)) s: $html/index.html"
