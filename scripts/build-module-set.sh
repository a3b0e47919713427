#!/usr/bin/env bash
# Build the modules of several stage sources together, out of tree, in DIR:
# the guests of make bench and make stress load them side by side. Each
# source is copied as it is (the solutions, never a learner's work/ copy);
# with --buffer-order N, its "#define MMAP_LAB_BUF_ORDER<tab>4" line says N
# instead (make bench's larger buffers), and a source without that line is
# an error.
# Usage: build-module-set.sh [--buffer-order N] KERNEL_OBJ DIR SOURCE_DIR...
set -euo pipefail

order=
if [ "${1:-}" = --buffer-order ]; then
	order=$2
	shift 2
fi
kobj=$1 dir=$2
shift 2
rm -rf "$dir" && mkdir -p "$dir"
dir=$(realpath "$dir")
objs=()
for src; do
	for f in "$src"/*.c; do
		copy="$dir/$(basename "$f")"
		if [ -n "$order" ]; then
			sed "s/^#define MMAP_LAB_BUF_ORDER\t4\t.*\$/#define MMAP_LAB_BUF_ORDER\t$order\t\/* a larger buffer for make bench *\//" "$f" >"$copy"
			if ! grep -q "^#define MMAP_LAB_BUF_ORDER.$order" "$copy"; then
				echo "error: $f has no '#define MMAP_LAB_BUF_ORDER<tab>4' line to grow the buffer" >&2
				exit 1
			fi
		else
			cp "$f" "$copy"
		fi
		objs+=("$(basename "${f%.c}").o")
	done
done
echo "obj-m := ${objs[*]}" >"$dir/Kbuild"
make -s -C "$kobj" M="$dir" W=1 modules
