#!/usr/bin/env bash
# Bisectability: apply patches/series one patch at a time to a pristine tree
# and build the test kernel after each (incrementally). Stops at the first
# patch that does not build.
# Usage: check-series.sh TARBALL PATCH_DIR FRAGMENT WORK_DIR
set -euo pipefail

tarball=$1 patch_dir=$(realpath "$2") fragment=$(realpath "$3") work=$4
here=$(dirname "$(realpath "$0")")
# Start from nothing: objects left from another state of the series would be
# newer than the unpacked sources and would not be rebuilt.
rm -rf "$work/linux" "$work/kernel"
mkdir -p "$work/linux"
work=$(realpath "$work")
echo ">> unpacking a pristine tree into $work/linux"
tar -xf "$tarball" -C "$work/linux" --strip-components=1
"$here/../kernel/configure-kernel.sh" "$work/linux" "$work/kernel" "$fragment"
n=0
while IFS= read -r p; do
	case "$p" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	patch -d "$work/linux" -p1 -N -s --fuzz=0 <"$patch_dir/$p"
	# A patch may add a Kconfig option the fragment asks for (FAIL_MMAP_ACTION):
	# merge the fragment again. Unchanged options do not rebuild anything.
	"$here/../kernel/configure-kernel.sh" "$work/linux" "$work/kernel" "$fragment" >/dev/null
	start=$(date +%s)
	if ! make -s -C "$work/linux" O="$work/kernel" -j"$(nproc)" >"$work/build-$n.log" 2>&1; then
		tail -n 30 "$work/build-$n.log" >&2
		echo "not ok $n - $p does not build (log: $work/build-$n.log)"
		exit 1
	fi
	echo "ok $n - $p builds ($(($(date +%s) - start)) s, $(grep -c 'warning:' "$work/build-$n.log") warnings)"
done <"$patch_dir/series"
echo "1..$n"
