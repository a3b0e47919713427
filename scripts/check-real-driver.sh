#!/usr/bin/env bash
# make cocci-boot: real in-tree drivers, converted by the conversion aid
# (scripts/coccinelle/, kit target) and booted on the kit kernel beside the
# original. For each qemu/real-drivers/NAME.conf:
#   1. convert the driver's file of the 6.12 tree (build/linux) with
#      mmap-prepare.sh; the hook must become .mmap_prepare. A mutant is the
#      converted file broken on purpose (the conf's STAGE_REAL_MUTATION, a
#      sed script), to prove that the comparison below catches a bad
#      conversion;
#   2. build an image with each: build/kernel rebuilt incrementally with the
#      file swapped into the tree, the image kept aside; then the original
#      goes back (even on failure or interruption) and build/kernel is
#      rebuilt as it was;
#   3. make the data its guest needs (the conf's STAGE_REAL_PREPARE, a
#      command run in build/real-drivers/NAME/, for STAGE_GUEST_FILES) and
#      boot the conf's checks on the original, the converted and the mutant;
#   4. the original and the converted pass, and the "# observed:" lines of
#      the two (data, VmFlags, errno) are the same; the mutant fails.
# Prints TAP; writes build/logs/cocci-boot.result for make check's summary.
# Usage: check-real-driver.sh KERNEL_SRC KERNEL_OBJ CHECKER_DIR
set -uo pipefail

src=$(realpath "$1") kobj=$(realpath "$2") checker=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/../qemu/stages.sh"
# shellcheck source=scripts/tap.sh
. "$here/tap.sh"
conv="$kit_root/scripts/coccinelle/mmap-prepare.sh"
out="$kit_root/build/real-drivers"
logs="$kit_root/build/logs"
mkdir -p "$out" "$logs"
start=$(date +%s)
jobs=$(nproc)

stamp="$kobj/.stamp-kernel-built"
# The tree's original file, put back by restore_source (also on exit) with
# a new timestamp, so that make rebuilds from it.
swapped="" saved=""
restore_source() {
	[ -n "$swapped" ] || return 0
	cp "$saved" "$swapped"
	swapped=""
}
trap restore_source EXIT
trap 'restore_source; exit 130' INT TERM

# Build the kit kernel with C_FILE in place of the tree's FILE and keep its
# image and System.map in OUT_DIR (laid out like a kernel build directory,
# for run-stage.sh). Prints make's output on failure.
build_with() { # FILE C_FILE OUT_DIR
	local rc
	saved="$2.saved-original"
	cp -p "$src/$1" "$saved"
	swapped="$src/$1"
	cp "$2" "$src/$1"
	make -s -C "$src" O="$kobj" -j"$jobs" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		mkdir -p "$3/arch/x86/boot"
		cp "$kobj/arch/x86/boot/bzImage" "$3/arch/x86/boot/"
		cp "$kobj/System.map" "$3/"
	fi
	restore_source
	return "$rc"
}

# The "# observed:" lines of a guest's TAP, sorted (tests run in order, but
# the comparison should not depend on it).
observed() { grep -h '^# observed: ' "$@" 2>/dev/null | sort; }

# Boot the conf's checks on the image in KDIR as run NAME; prints the failed
# lines; the status is run-stage.sh's.
boot() { # CONF KDIR RUN
	KIT_STAGE_CONF="$1" KIT_MODULE_DIR="$out" KIT_RUN_NAME="$3" KIT_GUEST_FILES_DIR="$out/$(basename "$1" .conf)" \
		"$kit_root/qemu/run-stage.sh" "$2" "$checker" 0 2>&1 | grep -E '^not ok|^# ' | head -n 40
	return "${PIPESTATUS[0]}"
}

check_driver() { # CONF
	local conf=$1 name file config hook mutation dir log rc rebuild_rc variant prepare
	name=$(basename "$conf" .conf)
	file=$(kit_conf_get "$conf" STAGE_REAL_FILE)
	config=$(kit_conf_get "$conf" STAGE_REAL_CONFIG)
	hook=$(kit_conf_get "$conf" STAGE_REAL_HOOK)
	mutation=$(kit_conf_get "$conf" STAGE_REAL_MUTATION)
	dir="$out/$name"
	rm -rf "$dir" && mkdir -p "$dir"

	if ! grep -qx "$config=y" "$kobj/.config"; then
		result 1 "$name: the kit kernel has $config=y (qemu/kernel.config)"
		return
	fi
	# 1. Convert, and break a copy of the result on purpose.
	cp "$src/$file" "$dir/original.c"
	cp "$src/$file" "$dir/converted.c"
	log=$("$conv" "$dir/converted.c" 2>&1)
	rc=1
	grep -q "\.mmap_prepare = ${hook}_prepare," "$dir/converted.c" &&
		! grep -q "\.mmap = $hook," "$dir/converted.c" && rc=0
	diff -u --label "a/$file" --label "b/$file" "$dir/original.c" "$dir/converted.c" >"$dir/conversion.diff"
	result "$rc" "$name: the conversion aid turns $file's $hook() into ${hook}_prepare() ($(grep -c '^[-+][^-+]' "$dir/conversion.diff") lines changed, build/real-drivers/$name/conversion.diff)" "$log"
	[ "$rc" = 0 ] || return
	sed "$mutation" "$dir/converted.c" >"$dir/mutant.c"
	cmp -s "$dir/converted.c" "$dir/mutant.c"
	result $((!$?)) "$name: the mutant ($mutation) differs from the converted file"

	# 2. The images. The kit kernel's stamp is removed meanwhile: if this is
	# interrupted, the next `make kernel` rebuilds it from the original.
	rm -f "$stamp"
	for variant in converted mutant; do
		echo "# building the kit kernel with the $variant $file (incremental); its image goes to ${dir#"$kit_root"/}/kernel-$variant"
		log=$(build_with "$file" "$dir/$variant.c" "$dir/kernel-$variant")
		rc=$?
		if [ "$rc" = 0 ] && ! { grep -qw "${hook}_prepare" "$dir/kernel-$variant/System.map" &&
			! grep -qw "$hook" "$dir/kernel-$variant/System.map"; }; then
			rc=1
			log="System.map: ${hook}_prepare is missing, or $hook is still there"
		fi
		result "$rc" "$name: the kernel with the $variant $file builds and has ${hook}_prepare() instead of $hook()" "$log"
		[ "$rc" = 0 ] || break
	done
	echo "# rebuilding the kit kernel with the original $file"
	log=$(make -s -C "$src" O="$kobj" -j"$jobs" 2>&1)
	rebuild_rc=$?
	[ "$rebuild_rc" = 0 ] && grep -qw "$hook" "$kobj/System.map" || rebuild_rc=1
	[ "$rebuild_rc" != 0 ] || touch "$stamp"
	result "$rebuild_rc" "$name: the kit kernel is rebuilt with the original $file ($hook() in its System.map)" "$log"
	[ "$rc" = 0 ] && [ "$rebuild_rc" = 0 ] || return
	prepare=$(kit_conf_get "$conf" STAGE_REAL_PREPARE)
	if [ -n "$prepare" ]; then
		log=$(cd "$dir" && bash -euo pipefail -c "$prepare" 2>&1)
		result $? "$name: the guest's data is made ($prepare)" "$log"
	fi

	# 3. and 4. Boot the three and compare.
	log=$(boot "$conf" "$kobj" "real-$name-original")
	result $? "$name: the original driver passes $(kit_conf_get "$conf" STAGE_CHECKS) in a guest" "$log"
	log=$(boot "$conf" "$dir/kernel-converted" "real-$name-converted")
	result $? "$name: the converted driver passes $(kit_conf_get "$conf" STAGE_CHECKS) in a guest" "$log"
	observed "$logs/real-$name-original"/*.tap >"$dir/observed-original.txt"
	observed "$logs/real-$name-converted"/*.tap >"$dir/observed-converted.txt"
	rc=1
	[ -s "$dir/observed-original.txt" ] && cmp -s "$dir/observed-original.txt" "$dir/observed-converted.txt" && rc=0
	result "$rc" "$name: the original and the converted driver show the same data, VmFlags and errno ($(grep -c . "$dir/observed-original.txt") observations)" \
		"$(diff "$dir/observed-original.txt" "$dir/observed-converted.txt")"
	boot "$conf" "$dir/kernel-mutant" "real-$name-mutant" >/dev/null
	rc=$?
	observed "$logs/real-$name-mutant"/*.tap >"$dir/observed-mutant.txt"
	cmp -s "$dir/observed-original.txt" "$dir/observed-mutant.txt"
	local same=$?
	result $(((rc == 0) && (same == 0))) "$name: the mutant is caught (its guest $([ "$rc" = 0 ] && echo passes || echo fails), its observations $([ "$same" = 0 ] && echo "are the original's" || echo differ))"
}

echo "TAP version 13"
if ! command -v spatch >/dev/null; then
	result 1 "spatch is installed (Debian package coccinelle; make packages)"
else
	for conf in "$kit_root"/qemu/real-drivers/*.conf; do
		check_driver "$conf"
	done
fi
secs=$(($(date +%s) - start))
echo "1..$n"
echo "# make cocci-boot: ${secs} s; the converted files, diffs, images and observations are in build/real-drivers/"
echo "cocci-boot $passed $failed $skipped $secs" >"$logs/cocci-boot.result"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
