#!/usr/bin/env bash
# Render the kernel documents the series changes (porting.rst, vfs.rst, the
# fault-injection page: every .rst file a patch in patches/ touches) with the
# patched kernel's own Sphinx configuration and extensions, and fail on any
# warning in them.
# Only those documents are rendered, as a small book of their own: the whole
# filesystems book (make SPHINXDIRS=filesystems htmldocs) cost about 50 s of
# CPU for the same verdict, and none of these pages links to another.
# Usage: docs-kernel.sh KERNEL_SRC OUT_DIR
set -euo pipefail

src=$(realpath "$1") out=$2
here=$(dirname "$(realpath "$0")")
mkdir -p "$out"
out=$(realpath "$out")
mapfile -t docs < <(sed -n 's|^+++ b/Documentation/\(.*\)\.rst$|\1|p' "$here"/../../patches/*.patch | sort -u)
if [ ${#docs[@]} -eq 0 ]; then
	echo "error: no patch in patches/ changes a Documentation/*.rst file; nothing to render" >&2
	exit 1
fi
echo ">> rendering the patched ${docs[*]/%/.rst} with the kernel's Sphinx configuration"
start=$(date +%s)
rm -rf "$out/src" "$out/html" "$out/doctrees"
mkdir -p "$out/src"
{
	echo "Documents changed by the kit's series"
	echo "====================================="
	echo
	echo ".. toctree::"
	echo
	printf '   %s\n' "${docs[@]}"
} >"$out/src/index.rst"
for d in "${docs[@]}"; do
	mkdir -p "$out/src/$(dirname "$d")"
	cp "$src/Documentation/$d.rst" "$out/src/$d.rst"
done
if ! sphinx-build -W --keep-going -q -b html -c "$src/Documentation" -d "$out/doctrees" \
	"$out/src" "$out/html" >"$out/sphinx.log" 2>&1; then
	grep -E 'WARNING|ERROR' "$out/sphinx.log" | sed "s|$out/src/|Documentation/|" >&2 || tail -n 20 "$out/sphinx.log" >&2
	echo "error: the patched kernel documents do not render cleanly; full log: $out/sphinx.log" >&2
	exit 1
fi
echo ">> kernel docs rendered in $(($(date +%s) - start)) s: $out/html/"
