#!/usr/bin/env bash
# Build and run the kernel's userland VMA tests (tools/testing/vma) on the
# patched tree. They build inside the tree (their Makefile reaches into lib/,
# mm/ and include/); the objects are removed afterwards.
# Usage: vma-tests.sh KERNEL_SRC
set -euo pipefail

dir=$(realpath "$1")/tools/testing/vma
log=$(mktemp)
trap 'make -s -C "$dir" clean >/dev/null 2>&1 || true; rm -f "$log"' EXIT
if ! make -s -C "$dir" -j"$(nproc)" >"$log" 2>&1; then
	cat "$log" >&2
	echo "error: tools/testing/vma does not build (needs liburcu-dev)" >&2
	exit 1
fi
"$dir/vma"
