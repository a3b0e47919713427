#!/usr/bin/env bash
# Copy this template as a driver of your own name: NAME.c and Kbuild in
# DEST_DIR (default: ./NAME), with every mmap_example identifier, the /dev
# name and the MMAP_EXAMPLE_ macros renamed, and kit-check.conf, which tells
# the kit's `make check DRIVER=DEST_DIR` what the driver does (its device,
# its buffer, what it refuses). The copy builds as it is
# (make -C KERNEL_OBJDIR M=DEST_DIR modules).
# --mainline copies the template's mainline twin (example-driver/mainline/)
# instead of the kit's 6.12 form.
# Usage: rename.sh [--mainline] NAME [DEST_DIR]
set -euo pipefail

here=$(dirname "$(realpath "$0")")
template=$here/mmap_example.c counter=success_hook_calls
if [ "${1:-}" = --mainline ]; then
	template=$here/mainline/mmap_example.c counter=mapped_calls
	shift
fi
name=${1:-}
if ! [[ $name =~ ^[a-z][a-z0-9_]*$ ]]; then
	echo "usage: $0 [--mainline] NAME [DEST_DIR]: NAME is a C identifier in lower case, e.g. mydrv" >&2
	exit 2
fi
dest=${2:-$name}
if [ -e "$dest/$name.c" ]; then
	echo "error: $dest/$name.c exists; not overwriting it" >&2
	exit 1
fi
mkdir -p "$dest"
upper=$(echo "$name" | tr '[:lower:]' '[:upper:]')
sed -e "s/mmap_example/$name/g" -e "s/MMAP_EXAMPLE_/${upper}_/g" "$template" >"$dest/$name.c"
echo "obj-m := $name.o" >"$dest/Kbuild"
cat >"$dest/kit-check.conf" <<EOF
# What \`make check DRIVER=$dest\` checks on $name (the kit's
# Documentation/labs/example-driver.rst, "Check it"). Change it with the
# driver: the buffer's size, what mmap() refuses.
DRIVER_MODULE=$name
DRIVER_DEVICE=/dev/$name
# The size of the buffer in bytes: a mapping of it all must work, one page
# more must be refused.
DRIVER_MAP_SIZE=65536
# What mmap() refuses: private (MAP_PRIVATE), exec (PROT_EXEC, and a later
# mprotect() to it), grow (mremap() growth), past-end (a range past the end).
DRIVER_REFUSES="private exec grow past-end"
# read() and write() give the same bytes as the mapping: yes or no.
DRIVER_RW_SAME=yes
# The action that fills the page tables (none, remap, ioremap,
# map_kernel_pages) and the errno mmap() reports when it fails.
DRIVER_ACTION=remap
DRIVER_ACTION_ERRNO=EAGAIN
# The flags every mapping has in /proc/self/smaps (VmFlags).
DRIVER_VMFLAGS="pf io dd de"
# A read-only counter of successful mappings, if the driver has one.
DRIVER_COUNTER=/sys/module/$name/parameters/$counter
# Module parameters for insmod, if any; what the guest cannot provide (a
# device QEMU does not have, a firmware file), if anything: then only the
# checks that need no device run.
DRIVER_MODULE_PARAMS=""
DRIVER_NEEDS=""
EOF
echo ">> $dest/$name.c, Kbuild and kit-check.conf: build with make -C KERNEL_OBJDIR M=$(realpath "$dest") modules; check with make check DRIVER=$dest"
