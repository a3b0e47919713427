#!/usr/bin/env bash
# Render the patched kernel's filesystems book and fail if porting.rst or
# vfs.rst, which the series extends, produce a warning.
# Usage: build-kernel-docs.sh KERNEL_SRC OUT_DIR
set -euo pipefail

src=$(realpath "$1") out=$2
mkdir -p "$out"
out=$(realpath "$out")
echo ">> make SPHINXDIRS=filesystems htmldocs (about 30 s)"
start=$(date +%s)
make -s -C "$src" O="$out" SPHINXDIRS=filesystems htmldocs >"$out/htmldocs.log" 2>&1 || true
if grep -E 'filesystems/(porting|vfs)\.rst.*(WARNING|ERROR)' "$out/htmldocs.log"; then
	echo "error: porting.rst or vfs.rst has warnings; full log: $out/htmldocs.log" >&2
	exit 1
fi
[ -f "$out/Documentation/output/filesystems/porting.html" ] || {
	tail -n 20 "$out/htmldocs.log" >&2
	echo "error: the filesystems book was not rendered; full log: $out/htmldocs.log" >&2
	exit 1
}
echo ">> kernel docs rendered in $(($(date +%s) - start)) s: $out/Documentation/output/filesystems/"
