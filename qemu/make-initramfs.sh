#!/usr/bin/env bash
# Build a stage's initramfs: busybox-static, the stage's modules, the checker
# programs, its data files (/data) and qemu/guest-init.sh as /init.
# The archive is not compressed: a guest under TCG took about 0.2 s to
# inflate a gzip one (busybox and the static checker programs, 4.6 MB of
# 9.6 MB), and the host 0.1 s to make it, for each of the 60-odd guests of
# make check; QEMU loads the bigger file in no time.
# Usage: make-initramfs.sh STAGE_CONF MODULE_DIR CHECKER_DIR OUTPUT.cpio
set -euo pipefail

stage_conf=$1 module_dir=$2 checker_dir=$3 output=$4
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/stages.sh"
busybox=/bin/busybox
if ! "$busybox" --list >/dev/null 2>&1; then
	echo "error: $busybox missing; install busybox-static (make packages)" >&2
	exit 1
fi
if grep -q 'program interpreter' < <(readelf -l "$busybox"); then
	echo "error: $busybox is dynamically linked; install busybox-static, not busybox" >&2
	exit 1
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,etc,proc,sys,dev,tmp,lib/modules}
cp "$busybox" "$root/bin/busybox"
# One link per applet (bin/sh -> busybox, ...), made by one process: a
# guest boots for every check, and ln per applet cost a second each time.
"$busybox" --list | perl -nle 'BEGIN { $bin = shift } next if $_ eq "busybox";
	symlink("busybox", "$bin/$_") or die "$bin/$_: $!\n"' "$root/bin"
cp "$here/guest-init.sh" "$root/init"
chmod 755 "$root/init"
cp "$stage_conf" "$root/etc/stage.conf"

modules=$(kit_conf_get "$stage_conf" STAGE_MODULES)
checks=$(kit_conf_get "$stage_conf" STAGE_CHECKS)
# /etc/module-params: "MODULE PARAMETER" for every parameter of every module,
# so the guest can load each module once with each parameter set.
: >"$root/etc/module-params"
for module in $modules; do
	ko="$module_dir/$module.ko"
	[ -f "$ko" ] || { echo "error: $ko was not built" >&2; exit 1; }
	cp "$ko" "$root/lib/modules/"
	modinfo -F parm "$ko" | sed -n "s/^\([A-Za-z0-9_]*\):.*/$module \1/p" >>"$root/etc/module-params"
done
# A variant (STAGE_VARIANTS) runs its own checks on another device of the
# same modules: its settings file, variant-NAME.conf next to the stage.conf
# (or in KIT_VARIANT_DIR), goes to /etc.
for variant in $(kit_conf_get "$stage_conf" STAGE_VARIANTS); do
	vconf="${KIT_VARIANT_DIR:-$(dirname "$stage_conf")}/variant-$variant.conf"
	[ -f "$vconf" ] || { echo "error: $vconf missing (STAGE_VARIANTS names $variant)" >&2; exit 1; }
	cp "$vconf" "$root/etc/variant-$variant.conf"
	checks="$checks $(kit_conf_get "$vconf" VARIANT_CHECKS)"
done
# Data files a check reads (STAGE_GUEST_FILES, names): looked up next to the
# stage.conf, or in KIT_GUEST_FILES_DIR (make cocci-boot makes udf's file
# system image in build/real-drivers/udf/), and copied to /data.
for file in $(kit_conf_get "$stage_conf" STAGE_GUEST_FILES); do
	path="${KIT_GUEST_FILES_DIR:-$(dirname "$stage_conf")}/$file"
	[ -f "$path" ] || { echo "error: $path missing (STAGE_GUEST_FILES names $file)" >&2; exit 1; }
	mkdir -p "$root/data"
	cp "$path" "$root/data/"
done
# The TODO mutation proof's batch (qemu/guest-init.sh): mutant M's modules
# come from KIT_MUTANT_ROOT/M/ and go to /lib/mutants/M/.
for mutant in $(kit_conf_get "$stage_conf" STAGE_MUTANTS); do
	mkdir -p "$root/lib/mutants/$mutant"
	for module in $(kit_conf_get "$stage_conf" STAGE_MUTANT_MODULES); do
		ko="${KIT_MUTANT_ROOT:?}/$mutant/$module.ko"
		[ -f "$ko" ] || { echo "error: $ko was not built" >&2; exit 1; }
		cp "$ko" "$root/lib/mutants/$mutant/"
	done
	checks="$checks $(kit_conf_get "$stage_conf" "STAGE_MUTANT_CHECKS_$mutant")"
done
for check in $checks; do
	[ -x "$checker_dir/$check" ] || { echo "error: checker $checker_dir/$check was not built" >&2; exit 1; }
	cp "$checker_dir/$check" "$root/usr/bin/"
done

mkdir -p "$(dirname "$output")"
(cd "$root" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet) >"$output.tmp"
mv "$output.tmp" "$output"
