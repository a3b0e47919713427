#!/usr/bin/env bash
# make check's replay of the conversion aid's "On your own driver" steps
# (scripts/coccinelle/own-driver/steps.console, which
# Documentation/conversion-aid.rst includes) on a copy of mydrv/, a driver
# laid out as someone else's: the hook in mydrv_mmap.c, the
# file_operations in mydrv_core.c, the hook declared in mydrv.h. The
# settings lines (KIT=, KDIR=, DRIVER=, TARGET=, COCCI=) get this kit's values;
# every other command runs as written, in one shell, stopping at the first
# that fails. Then, as TAP: the report calls the hook convertible, and so
# does spatch alone with the standalone semantic patch (COCCI=); the
# conversion changed the three files (hook, file_operations, prototype) and
# left no VMA in them; the module built against the target's kernel with
# W=1 and -Werror.
# Usage: own-driver.sh kit|mainline KERNEL_OBJ [N]
#   prints TAP lines, numbered from N + 1 (default 1), no plan
set -euo pipefail

here=$(dirname "$(realpath "$0")")
kit_root=$(dirname "$(dirname "$here")")
steps="$here/own-driver"
target=$1 kdir=$(realpath "$2")
flag=""
[ "$target" = kit ] || flag=--mainline
# shellcheck source=scripts/lib/tap.sh
. "$kit_root/scripts/lib/tap.sh"
n=${3:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
driver="$work/mydrv"
cp -r "$steps/mydrv" "$driver"
git -C "$driver" init -q
git -C "$driver" add -A
git -C "$driver" -c user.name=kit -c user.email=kit@localhost commit -q -m "mydrv as its author wrote it"

# The steps, with this kit's settings.
{
	echo "set -euo pipefail"
	sed -n 's/^\$ //p' "$steps/steps.console" | sed -E \
		-e "s#^KIT=.*#KIT='$kit_root'#" -e "s#^KDIR=.*#KDIR='$kdir'#" \
		-e "s#^DRIVER=.*#DRIVER='$driver'#" -e "s#^TARGET=.*#TARGET='$flag'#" \
		-e "s#^COCCI=.*#COCCI='$kit_root/scripts/coccinelle/standalone/mmap_prepare_$target.cocci'#"
} >"$work/steps.sh"
rc=0
(unset MAKELEVEL MAKEFLAGS MFLAGS && bash -x "$work/steps.sh") >"$work/out.txt" 2>&1 || rc=$?
log=$(sed "s#$work/##g" "$work/out.txt")

grep -qE '^mydrv_(core|mmap)\.c:[0-9]+: mydrv_mmap: convertible$' "$work/out.txt" && ok=0 || ok=1
result "$ok" "own driver ($target): the report calls mydrv_mmap convertible (hook in mydrv_mmap.c, file_operations in mydrv_core.c)" "$log"
# What spatch alone printed: the lines between its command and the next.
alone=$(awk '/^\+ spatch --sp-file/ { on = 1; next } /^\+ / { on = 0 } on' "$work/out.txt")
grep -qE '^mydrv_(core|mmap)\.c:[0-9]+: mydrv_mmap: convertible$' <<<"$alone" && ok=0 || ok=1
result "$ok" "own driver ($target): spatch --sp-file standalone/mmap_prepare_$target.cocci -D report alone calls mydrv_mmap convertible" "$log"
left=$(grep -nE 'vm_area_struct|\.mmap\s*=' "$driver"/*.c "$driver"/*.h | sed "s#$work/##" || true)
changed=$(git -C "$driver" diff --name-only | sort | tr '\n' ' ')
[ "$changed" = "mydrv.h mydrv_core.c mydrv_mmap.c " ] && [ -z "$left" ] &&
	grep -q '\.mmap_prepare = mydrv_mmap_prepare,' "$driver/mydrv_core.c" &&
	grep -q '^int mydrv_mmap_prepare(struct vm_area_desc \*desc);' "$driver/mydrv.h" && ok=0 || ok=1
result "$ok" "own driver ($target): the hook, its file_operations and its prototype converted, no VMA left (changed: ${changed:-none})" \
	"$(git -C "$driver" diff; echo "$left")"
[ "$rc" = 0 ] && [ -f "$driver/mydrv.ko" ] && ok=0 || ok=1
result "$ok" "own driver ($target): every step of steps.console ran; the converted module builds against ${kdir#"$kit_root"/} with W=1 -Werror" "$log"
