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
last="$(dirname "$obj")/timings/kernel-$(basename "$obj")"
hint="5 to 6 minutes on 2 cores from scratch"
[ ! -f "$last" ] || hint="$hint; the last build here, maybe incremental, took $(cat "$last") s"
echo ">> building the kernel in ${obj#"$PWD"/} with $jobs jobs ($hint)"
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
