#!/usr/bin/env bash
# Generate a lab stage's student skeleton from its solution's TODO markers
# (scripts/make-skeleton.sh) into build/skeletons/NAME and compile it.
# Usage: build-skeleton.sh KERNEL_OBJ_DIR LAB_DIR
set -euo pipefail

kobj=$(realpath "$1") lab=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
out="$here/../build/skeletons/$(basename "$lab")"
# shellcheck source=qemu/stages.sh
. "$here/../qemu/stages.sh"
if [ "$(kit_conf_get "$lab/stage.conf" STAGE_KERNEL)" = mainline ]; then
	kobj="$kit_root/build/kernel-mainline"
	if why=$(kit_mainline_not_ready) && [ -n "$why" ]; then
		echo ">> skeleton $(basename "$lab"): not compiled: it runs on the mainline kernel, and $why"
		exit 0
	fi
fi
mkdir -p "$out"
for c in "$lab"/*.c; do
	"$here/make-skeleton.sh" "$c" "$out/$(basename "$c").new"
	# Keep the old file (and its timestamp) when nothing changed.
	if cmp -s "$out/$(basename "$c").new" "$out/$(basename "$c")"; then
		rm "$out/$(basename "$c").new"
	else
		mv "$out/$(basename "$c").new" "$out/$(basename "$c")"
	fi
done
cmp -s "$lab/Kbuild" "$out/Kbuild" || cp "$lab/Kbuild" "$out/"
todos=$(grep -c 'TODO [0-9]' "$out"/*.c | awk -F: '{s += $NF} END {print s}')
# Compiled already, from these very sources, against this kernel build: the
# stamp is newer than every source and than the kernel's Module.symvers
# (rewritten by every kernel build), and the modules are there.
stamp="$out/.compiled"
if [ -f "$stamp" ] && [ -z "$(find "$out" -maxdepth 1 \( -name '*.[ch]' -o -name Kbuild \) -newer "$stamp")" ] &&
	[ "$stamp" -nt "$kobj/Module.symvers" ] && ls "$out"/*.ko >/dev/null 2>&1; then
	echo ">> skeleton $(basename "$lab"): $todos TODO markers, compiled already (up to date)"
	exit 0
fi
rm -f "$stamp"
echo ">> skeleton $(basename "$lab"): $todos TODO markers, compiling"
make -s -C "$kobj" M="$out" modules
touch "$stamp"
