#!/usr/bin/env bash
# Generate lab stages' student skeletons from their solutions' TODO markers
# (scripts/labs/make-skeleton.sh) into build/skeletons/NAME and compile them: the
# skeletons of one kernel in one kbuild run (M=build/skeletons, a folder per
# lab), since a run per skeleton would pay kbuild's start-up each time.
# Usage: skeletons.sh KERNEL_OBJ_DIR LAB_DIR...
set -euo pipefail

kobj=$(realpath "$1")
shift
here=$(dirname "$(realpath "$0")")
top=$(realpath -m "$here/../../build/skeletons")
# shellcheck source=qemu/stages.sh
. "$here/../../qemu/stages.sh"

declare -A labs_of=()
for lab; do
	lab=$(realpath "$lab")
	name=$(basename "$lab")
	out="$top/$name"
	k=$kobj
	if [ "$(kit_conf_get "$lab/stage.conf" STAGE_KERNEL)" = mainline ]; then
		k="$kit_root/build/kernel-mainline"
		if why=$(kit_mainline_not_ready) && [ -n "$why" ]; then
			echo ">> skeleton $name: not compiled: it runs on the mainline kernel, and $why"
			continue
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
	# Compiled already, from these very sources, against this kernel build:
	# the stamp is newer than every source and than the kernel's
	# Module.symvers (rewritten by every kernel build), and the modules are
	# there.
	stamp="$out/.compiled"
	if [ -f "$stamp" ] && [ -z "$(find "$out" -maxdepth 1 \( -name '*.[ch]' -o -name Kbuild \) -newer "$stamp")" ] &&
		[ "$stamp" -nt "$k/Module.symvers" ] && ls "$out"/*.ko >/dev/null 2>&1; then
		echo ">> skeleton $name: $todos TODO marker$([ "$todos" = 1 ] || echo s), compiled already (up to date)"
		continue
	fi
	rm -f "$stamp"
	echo ">> skeleton $name: $todos TODO marker$([ "$todos" = 1 ] || echo s), compiling"
	labs_of[$k]="${labs_of[$k]:-} $name"
done
for k in "${!labs_of[@]}"; do
	# shellcheck disable=SC2086 # lab folder names are single words
	set -- ${labs_of[$k]}
	echo "obj-m := ${*/%//}" >"$top/Kbuild"
	# What a learner sees on make start: a skeleton compiles without a
	# warning (an unused variable whose only use is an answer, say), but
	# one: a function defined and not used yet is a hook that a TODO is
	# there to install (stage 4's TODO 3), and the compiler saying so is a
	# hint.
	log=$(make -s -C "$k" M="$top" W=1 -j"$(nproc)" modules 2>&1) || { echo "$log" >&2 && exit 1; }
	if grep 'warning:' <<<"$log" | grep -v 'defined but not used \[-Wunused-function\]' >/dev/null; then
		echo "$log" >&2
		echo "error: a skeleton compiles with warnings (above): a learner would see them before writing a line" >&2
		exit 1
	fi
	for name; do touch "$top/$name/.compiled"; done
done
