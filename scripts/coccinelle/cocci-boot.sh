#!/usr/bin/env bash
# make cocci-boot: real in-tree drivers, converted by the conversion aid
# (scripts/coccinelle/, kit target) and booted on the kit kernel beside the
# original. For every scripts/coccinelle/real-drivers/NAME.conf:
#   1. convert the driver's file of the 6.12 tree (build/linux) with
#      mmap-prepare.sh; the hook must become .mmap_prepare. A mutant is the
#      converted file broken on purpose (the conf's STAGE_REAL_MUTATION, a
#      sed script), to prove that the comparison below catches a bad
#      conversion. The conf's STAGE_REAL_PREPARE, if any, makes the data its
#      guest needs (STAGE_GUEST_FILES) in build/real-drivers/NAME/;
#   2. two images, shared by all the drivers, built in a copy of
#      build/kernel (build/real-drivers/kernel-obj, incremental there):
#      with every driver's converted file swapped into the tree, then with
#      every mutant, each image kept aside in build/real-drivers/
#      kernel-converted and kernel-mutant; the original files go back with
#      their own timestamps (even on failure or interruption), so
#      build/kernel, never built here, stays up to date as it was;
#   3. boot the conf's checks on the original, the converted and the mutant;
#   4. the original and the converted pass, and the "# observed:" lines of
#      the two (data, VmFlags, errno) are the same; the mutant fails.
# Prints TAP; writes build/logs/cocci-boot.result for make check's summary.
# Usage: cocci-boot.sh KERNEL_SRC KERNEL_OBJ CHECKER_DIR
set -uo pipefail

src=$(realpath "$1") kobj=$(realpath "$2") checker=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/../../qemu/stages.sh"
# shellcheck source=scripts/lib/tap.sh
. "$here/../lib/tap.sh"
conv="$kit_root/scripts/coccinelle/mmap-prepare.sh"
out="$kit_root/build/real-drivers"
logs="$kit_root/build/logs"
mkdir -p "$out" "$logs"
start=$(date +%s)
jobs=$(nproc)

# The copy of build/kernel the two images are built in (removed after).
vkobj="$out/kernel-obj"
# The tree's files swapped out, and where their originals are kept: put back
# by restore_sources (also on exit) with their own timestamps, older than
# build/kernel's objects, so that make there has nothing to rebuild.
swapped=() saved=()
restore_sources() {
	local i
	for i in "${!swapped[@]}"; do
		cp -p "${saved[$i]}" "${swapped[$i]}"
	done
	swapped=() saved=()
}
trap restore_sources EXIT
trap 'restore_sources; exit 130' INT TERM

# The settings of each driver, by name, read once.
declare -A file hook conf_of
# The drivers whose conversion and data are ready for the builds, in order.
ready=()

# The "# observed:" lines of a guest's TAP, sorted (tests run in order, but
# the comparison should not depend on it).
observed() { grep -h '^# observed: ' "$@" 2>/dev/null | sort; }

# Boot the conf's checks on the image in KDIR as run NAME; prints the failed
# lines and the comments, the first 40 (sed reads on to the end: a reader
# that quit early would kill run-stage.sh with SIGPIPE at its next line);
# the status is run-stage.sh's.
boot() { # NAME KDIR RUN
	KIT_STAGE_CONF="${conf_of[$1]}" KIT_MODULE_DIR="$out" KIT_RUN_NAME="$3" \
		KIT_GUEST_FILES_DIR="$out/$1" \
		"$kit_root/qemu/run-stage.sh" "$2" "$checker" 0 2>&1 | grep -E '^not ok|^# ' | sed -n '1,40p'
	return "${PIPESTATUS[0]}"
}

# 1. Convert NAME's file, break a copy of the result on purpose, make its
# guest's data; NAME joins the builds if all of that worked.
prepare_driver() { # CONF
	local conf=$1 name config mutation prepare dir log rc
	name=$(basename "$conf" .conf)
	conf_of[$name]=$conf
	file[$name]=$(kit_conf_get "$conf" STAGE_REAL_FILE)
	hook[$name]=$(kit_conf_get "$conf" STAGE_REAL_HOOK)
	config=$(kit_conf_get "$conf" STAGE_REAL_CONFIG)
	mutation=$(kit_conf_get "$conf" STAGE_REAL_MUTATION)
	prepare=$(kit_conf_get "$conf" STAGE_REAL_PREPARE)
	local f=${file[$name]} h=${hook[$name]}
	dir="$out/$name"
	rm -rf "$dir" && mkdir -p "$dir"

	if ! grep -qx "$config=y" "$kobj/.config"; then
		result 1 "$name: the kit kernel has $config=y (qemu/kernel.config)"
		return
	fi
	cp -p "$src/$f" "$dir/original.c"
	cp "$src/$f" "$dir/converted.c"
	log=$("$conv" "$dir/converted.c" 2>&1)
	rc=1
	grep -q "\.mmap_prepare = ${h}_prepare," "$dir/converted.c" &&
		! grep -q "\.mmap = $h," "$dir/converted.c" && rc=0
	diff -u --label "a/$f" --label "b/$f" "$dir/original.c" "$dir/converted.c" >"$dir/conversion.diff"
	result "$rc" "$name: the conversion aid turns $f's $h() into ${h}_prepare() ($(grep -c '^[-+][^-+]' "$dir/conversion.diff") lines changed, build/real-drivers/$name/conversion.diff)" "$log"
	[ "$rc" = 0 ] || return
	sed "$mutation" "$dir/converted.c" >"$dir/mutant.c"
	cmp -s "$dir/converted.c" "$dir/mutant.c"
	rc=$((!$?))
	result "$rc" "$name: the mutant ($mutation) differs from the converted file"
	[ "$rc" = 0 ] || return
	if [ -n "$prepare" ]; then
		log=$(cd "$dir" && bash -euo pipefail -c "$prepare" 2>&1)
		rc=$?
		result "$rc" "$name: its guest's data is made in build/real-drivers/$name ($prepare)" "$log"
		[ "$rc" = 0 ] || return
	fi
	ready+=("$name")
}

# 2. Build the kit kernel, in its copy $vkobj, with every ready driver's
# VARIANT.c in place of the tree's file and keep its image and System.map
# in build/real-drivers/kernel-VARIANT (laid out like a kernel build
# directory, for run-stage.sh). Prints make's output on failure. Not to be
# run in a subshell ($(...)): the files it swaps must be known to the trap.
build_variant() { # VARIANT
	local variant=$1 name rc
	for name in "${ready[@]}"; do
		saved+=("$out/$name/original.c")
		swapped+=("$src/${file[$name]}")
		cp "$out/$name/$variant.c" "$src/${file[$name]}"
	done
	make -s -C "$src" O="$vkobj" -j"$jobs" vmlinux 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		rm -rf "$out/kernel-$variant"
		mkdir -p "$out/kernel-$variant"
		cp "$vkobj/vmlinux" "$out/kernel-$variant/"
		cp "$vkobj/System.map" "$out/kernel-$variant/"
	fi
	restore_sources
	return "$rc"
}

# Has the System.map in DIR NAME's hook in the form it should: FORM
# "prepare" (HOOK_prepare, no HOOK) or "original" (HOOK).
hook_in_map() { # DIR NAME FORM
	local h=${hook[$2]}
	if [ "$3" = original ]; then
		grep -qw "$h" "$1/System.map"
	else
		grep -qw "${h}_prepare" "$1/System.map" && ! grep -qw "$h" "$1/System.map"
	fi
}

# 3. and 4. Boot NAME on the three images and compare.
boot_driver() { # NAME
	local name=$1 dir="$out/$1" checks log rc same
	checks=$(kit_conf_get "${conf_of[$name]}" STAGE_CHECKS)
	log=$(boot "$name" "$kobj" "real-$name-original")
	result $? "$name: the original driver passes $checks in a guest" "$log"
	log=$(boot "$name" "$out/kernel-converted" "real-$name-converted")
	result $? "$name: the converted driver passes $checks in a guest" "$log"
	observed "$logs/real-$name-original"/*.tap >"$dir/observed-original.txt"
	observed "$logs/real-$name-converted"/*.tap >"$dir/observed-converted.txt"
	rc=1
	[ -s "$dir/observed-original.txt" ] && cmp -s "$dir/observed-original.txt" "$dir/observed-converted.txt" && rc=0
	result "$rc" "$name: the original and the converted driver show the same data, VmFlags and errno ($(grep -c . "$dir/observed-original.txt") observations)" \
		"$(diff "$dir/observed-original.txt" "$dir/observed-converted.txt")"
	boot "$name" "$out/kernel-mutant" "real-$name-mutant" >/dev/null
	rc=$?
	observed "$logs/real-$name-mutant"/*.tap >"$dir/observed-mutant.txt"
	cmp -s "$dir/observed-original.txt" "$dir/observed-mutant.txt"
	same=$?
	result $(((rc == 0) && (same == 0))) "$name: the mutant is caught (its guest $([ "$rc" = 0 ] && echo passes || echo fails), its observations $([ "$same" = 0 ] && echo "are the original's" || echo differ))"
}

echo "TAP version 13"
if ! command -v spatch >/dev/null; then
	result 1 "spatch is installed (Debian package coccinelle; make packages)"
else
	for conf in "$kit_root"/scripts/coccinelle/real-drivers/*.conf; do
		prepare_driver "$conf"
	done
fi

built=()
if [ "${#ready[@]}" -gt 0 ]; then
	# kbuild records the object directory's path in some files (objtool's
	# build): rewritten to the copy's, so that only the swapped files
	# rebuild there (else all of it, objtool first).
	echo "# copying build/kernel to ${vkobj#"$kit_root"/} for the two images"
	fingerprint=$(cksum <"$kobj/vmlinux")
	rm -rf "$vkobj" && cp -a "$kobj" "$vkobj" &&
		"$kit_root/scripts/setup/relocate-build.py" --copy "$kobj" "$vkobj" 2>&1 | sed 's/^>>/#/'
	ok=1
	for variant in converted mutant; do
		echo "# building the kit kernel with the $variant ${ready[*]} (incremental, in its copy); its image goes to build/real-drivers/kernel-$variant"
		build_variant "$variant" >"$out/build-$variant.log"
		rc=$?
		log=$(cat "$out/build-$variant.log")
		for name in "${ready[@]}"; do
			r=$rc detail=$log
			if [ "$rc" = 0 ] && ! hook_in_map "$out/kernel-$variant" "$name" prepare; then
				r=1 detail="System.map: ${hook[$name]}_prepare is missing, or ${hook[$name]} is still there"
				ok=0
			fi
			result "$r" "$name: the kernel with the $variant ${file[$name]} builds and has ${hook[$name]}_prepare() instead of ${hook[$name]}()" "$detail"
		done
		[ "$rc" = 0 ] || { ok=0 && break; }
	done
	rm -rf "$vkobj"
	# build/kernel is the one built before, and stays up to date: the
	# tree's files are back with their own timestamps, older than their
	# objects there.
	all=0
	for name in "${ready[@]}"; do
		f=${file[$name]}
		r=0 detail=
		if [ "$(cksum <"$kobj/vmlinux")" != "$fingerprint" ]; then
			r=1 detail="build/kernel/vmlinux changed"
		elif [ ! "$src/$f" -ot "$kobj/${f%.c}.o" ]; then
			r=1 detail="$f is not older than build/kernel/${f%.c}.o: make kernel would rebuild it"
		elif ! hook_in_map "$kobj" "$name" original; then
			r=1 detail="build/kernel/System.map has no ${hook[$name]}"
		fi
		[ "$r" = 0 ] || all=1
		result "$r" "$name: the kit kernel is untouched, with the original $f (${hook[$name]}() in its System.map, the file older than its object)" "$detail"
	done
	[ "$ok" = 1 ] && [ "$all" = 0 ] && built=("${ready[@]}")
fi
for name in "${built[@]}"; do
	boot_driver "$name"
done

secs=$(($(date +%s) - start))
echo "1..$n"
echo "# make cocci-boot: ${secs} s; the converted files, diffs, images and observations are in build/real-drivers/"
echo "cocci-boot $passed $failed $skipped $secs" >"$logs/cocci-boot.result"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
