#!/usr/bin/env bash
# Build one stage's modules out of tree against the kit kernel. The sources are
# copied to build/modules/ID so the repository stays free of build output.
# Usage: build-stage-module.sh KERNEL_OBJ_DIR STAGE_ID
set -euo pipefail

kobj=$(realpath "$1") id=$2
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/../qemu/stages.sh"
kit_require_stage "$id"
src=$(kit_stage_source "$id")
out="$kit_root/build/modules/$id"
mkdir -p "$out"
# Copy only what changed, so kbuild's timestamps stay meaningful.
for f in "$src"/*.c "$src"/*.h "$src"/Kbuild; do
	[ -e "$f" ] || continue
	cmp -s "$f" "$out/$(basename "$f")" || cp "$f" "$out/"
done
make -s -C "$kobj" M="$out" W=1 modules
