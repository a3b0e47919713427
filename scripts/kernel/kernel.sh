#!/usr/bin/env bash
# Configure (when the fragment changed) and build the kit kernel.
#   --prepare-only   configure and make prepare (host tools, generated
#                    headers: the single-threaded start of a build), no more
# Usage: kernel.sh [--prepare-only] SRC OBJ FRAGMENT...
set -euo pipefail

prepare_only=0
[ "${1:-}" != --prepare-only ] || { prepare_only=1 && shift; }
src=$(realpath "$1") obj=$2
shift 2
fragments=("$@")
here=$(dirname "$(realpath "$0")")
mkdir -p "$obj"
obj=$(realpath "$obj")
reconfigure=0
[ -f "$obj/.config" ] && [ ! "$src/Makefile" -nt "$obj/.config" ] || reconfigure=1
for f in "${fragments[@]}"; do [ ! "$f" -nt "$obj/.config" ] || reconfigure=1; done
if [ "$reconfigure" = 1 ]; then
	start=$(date +%s)
	"$here/configure-kernel.sh" "$src" "$obj" "${fragments[@]}"
	mkdir -p "$(dirname "$obj")/timings" && echo $(($(date +%s) - start)) >"$(dirname "$obj")/timings/configure-$(basename "$obj")"
fi
jobs=$(nproc)
if [ "$prepare_only" = 1 ]; then
	echo ">> make prepare in ${obj#"$PWD"/}"
	make -s -C "$src" O="$obj" -j"$jobs" prepare >"$obj/prepare.log" 2>&1 ||
		{ tail -n 20 "$obj/prepare.log" >&2; echo "error: make prepare failed; full log: $obj/prepare.log" >&2; exit 1; }
	exit 0
fi
# How long it may take, from a measurement: the last build of this object
# directory on this machine (written below), else the kit's recorded build
# from scratch (Documentation/measured-times.inc, make record-times), else
# no figure.
last="$(dirname "$obj")/timings/kernel-$(basename "$obj")"
measured="$here/../../Documentation/measured-times.inc"
case "$(basename "$obj")" in
kernel-mainline) row="building the mainline kernel from scratch" ;;
*) row="building the kernel from scratch" ;;
esac
hint=
if [ -f "$last" ] && secs=$(cat "$last") && [[ "$secs" =~ ^[0-9]+$ ]]; then
	hint=" (the last build here, maybe incremental, took $(printf '%d min %02d s' $((secs / 60)) $((secs % 60))))"
elif [ -f "$measured" ]; then
	# The row's time is the line after it: "   * - ROW ..." then "     - TIME".
	recorded=$(awk -v row="$row" '
		found { sub(/^ *- /, ""); print; exit }
		{ line = $0; if (sub(/^ *\* - /, "", line) && index(line, row) == 1) found = 1 }' "$measured")
	machine=$(sed -n 's/^Measured on .*: \([0-9]* cores\).*/\1/p' "$measured")
	[[ ! "$recorded" =~ ^[0-9]+\ min\ [0-9]+\ s$ ]] ||
		hint=" (from scratch: $recorded on the kit's reference machine${machine:+, $machine}; Documentation/measured-times.inc)"
fi
echo ">> building the kernel in ${obj#"$PWD"/} with $jobs jobs$hint"
start=$(date +%s)
if ! make -s -C "$src" O="$obj" -j"$jobs" >"$obj/build.log" 2>&1; then
	tail -n 40 "$obj/build.log" >&2
	echo "error: kernel build failed; full log: $obj/build.log" >&2
	exit 1
fi
secs=$(($(date +%s) - start))
grep -E 'warning:' "$obj/build.log" >"$obj/build-warnings.log" || true
echo ">> kernel built in ${secs} s ($(wc -l <"$obj/build-warnings.log") compiler warnings, see ${obj#"$PWD"/}/build-warnings.log)"
echo "$secs" >"$obj/build-seconds"
mkdir -p "$(dirname "$obj")/timings" && echo "$secs" >"$(dirname "$obj")/timings/kernel-$(basename "$obj")"
