#!/usr/bin/env bash
# Copy this template as a driver of your own name: NAME.c and Kbuild in
# DEST_DIR (default: ./NAME), with every mmap_example identifier, the /dev
# name and the MMAP_EXAMPLE_ macros renamed. The copy builds as it is
# (make -C KERNEL_OBJDIR M=DEST_DIR modules).
# Usage: rename.sh NAME [DEST_DIR]
set -euo pipefail

name=${1:-}
if ! [[ $name =~ ^[a-z][a-z0-9_]*$ ]]; then
	echo "usage: $0 NAME [DEST_DIR]: NAME is a C identifier in lower case, e.g. mydrv" >&2
	exit 2
fi
here=$(dirname "$(realpath "$0")")
dest=${2:-$name}
if [ -e "$dest/$name.c" ]; then
	echo "error: $dest/$name.c exists; not overwriting it" >&2
	exit 1
fi
mkdir -p "$dest"
upper=$(echo "$name" | tr '[:lower:]' '[:upper:]')
sed -e "s/mmap_example/$name/g" -e "s/MMAP_EXAMPLE_/${upper}_/g" "$here/mmap_example.c" >"$dest/$name.c"
echo "obj-m := $name.o" >"$dest/Kbuild"
echo ">> $dest/$name.c and $dest/Kbuild: build with make -C KERNEL_OBJDIR M=$(realpath "$dest") modules"
