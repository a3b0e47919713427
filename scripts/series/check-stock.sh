#!/usr/bin/env bash
# The stock oracle: run the in-tree users' checks (check_intree) and the
# commit-charge checks (check_commit_charge, on secretmem) on unpatched 6.12
# and on the kit kernel, and require identical results for every in-tree
# user. Tests that need the series (the probe module, fail_mmap_action) must
# skip on stock. Prints TAP and "N passed, N failed".
# Usage: check-stock.sh TARBALL FRAGMENT WORK_DIR KIT_KERNEL_OBJ CHECKER_DIR
set -euo pipefail

tarball=$1 fragment=$2 work=$3 kit_kobj=$4 checker=$5
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=qemu/stages.sh
. "$top/qemu/stages.sh"
mkdir -p "$work"
work=$(realpath "$work")
if [ ! -f "$work/.stamp-source" ]; then
	rm -rf "$work/linux" && mkdir -p "$work/linux"
	echo ">> unpacking stock $(basename "$tarball") into $work/linux"
	tar -xf "$tarball" -C "$work/linux" --strip-components=1
	touch "$work/.stamp-source"
fi
"$top/scripts/kernel/kernel.sh" "$work/linux" "$work/kernel" "$fragment"

# On stock only the relay probe builds (kit_mmap_probe needs the series' API).
mods="$work/modules/intree"
mkdir -p "$mods"
cp "$top"/labs/intree/*.c "$top/labs/intree/Kbuild" "$mods/"
make -s -C "$work/kernel" M="$mods" KIT_STOCK=1 modules
conf="$work/intree-stock.conf"
# No probe device on stock: check_commit_charge's device variant skips.
kit_conf_override "$top/labs/intree/stage.conf" "$conf" STAGE_MODULES=kit_relay_probe \
	STAGE_CHECKS="check_intree check_commit_charge" MMAP_LAB_DEVICE=
echo ">> in-tree checks on stock 6.12"
KIT_STAGE_CONF="$conf" KIT_MODULE_DIR="$mods" KIT_RUN_NAME=intree-stock \
	"$top/qemu/run-stage.sh" "$work/kernel" "$checker" intree >/dev/null || true
echo ">> in-tree checks on the kit kernel"
"$top/scripts/labs/modules.sh" "$kit_kobj" intree
"$top/qemu/run-stage.sh" "$kit_kobj" "$checker" intree >/dev/null || true

# Result of every test: ok, skip or fail.
results() {
	sed -n -E 's/^(not )?ok [0-9]+ ([^ ]+)( # SKIP.*)?$/\2 \1ok\3/p' "$1" |
		awk '{ r = ($2 == "not") ? "fail" : ($0 ~ /# SKIP/ ? "skip" : "ok"); print $1, r }'
}
stock=$(for c in check_intree check_commit_charge; do results "$top/build/logs/intree-stock/$c.tap"; done)
kit=$(for c in check_intree check_commit_charge; do results "$top/build/logs/intree/$c.tap"; done)
needs_series='devmem_action_failure_is_eagain both_hooks_refused_enodev compat_vfs_mmap_maps_prepare_only_file'
needs_series+=' compat_action_failure_leaves_the_rest_alone success_hook_once_per_new_vma_not_on_merge'
needs_series+=' compat_merge_hook_once_per_vma positive_success_hook_refused'

passed=0 failed=0 n=0
echo "TAP version 13"
while read -r test kit_result; do
	n=$((n + 1))
	stock_result=$(echo "$stock" | awk -v t="$test" '$1 == t { print $2 }')
	name=${test#intree.}
	# check_commit_charge's device variant needs the probe device.
	if [[ $name == charge.device.* ]] || [[ " $needs_series " == *" $name "* ]]; then
		want="kit=ok stock=skip"
	else
		want="kit=ok stock=ok"
	fi
	if [ "kit=$kit_result stock=${stock_result:-missing}" = "$want" ]; then
		echo "ok $n - $name: kit $kit_result, stock ${stock_result:-missing}"
		passed=$((passed + 1))
	else
		echo "not ok $n - $name: kit $kit_result, stock ${stock_result:-missing} (want $want)"
		failed=$((failed + 1))
	fi
done <<<"$kit"
echo "1..$n"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$n" -gt 0 ]
