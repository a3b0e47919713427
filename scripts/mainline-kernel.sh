#!/usr/bin/env bash
# Fetch Debian's mainline kernel source (scripts/fetch-mainline-source.sh)
# and build it in build/kernel-mainline: tinyconfig + qemu/kernel.config +
# qemu/kernel-mainline.config, the same debug options as the 6.12 kernel.
#
# When the source cannot be had (no network, no linux-source-7.* served) the
# reason goes to build/mainline-unavailable and the script succeeds: the
# mainline stages are then reported as skipped, with that reason, never as
# passed. A failed build fails.
#
# Usage: mainline-kernel.sh            fetch and build, in the foreground
#        mainline-kernel.sh --start    the same in the background (nice), for
#                                      make check: the 6.12 guests boot meanwhile
#        mainline-kernel.sh --wait     wait for a --start and print its log (or,
#                                      with none pending, fetch and build here)
set -euo pipefail

here=$(dirname "$(realpath "$0")")
kit_root=$(dirname "$here")
build="$kit_root/build"
src="$build/mainline-src" obj="$build/kernel-mainline"
log="$build/logs/mainline-kernel.log" status="$build/logs/mainline-kernel.status"
pending="$build/logs/mainline-kernel.pending"
unavailable="$build/mainline-unavailable"

fetch_and_build() {
	local rc=0 start
	start=$(date +%s)
	rm -f "$unavailable"
	"$here/fetch-mainline-source.sh" "$src" 2> >(tee "$build/logs/mainline-fetch.err" >&2) || rc=$?
	if [ "$rc" = 3 ]; then
		sed -n 's/^mainline source unavailable: //p' "$build/logs/mainline-fetch.err" >"$unavailable"
		echo "################################################################" >&2
		echo "WARNING: no mainline kernel: $(cat "$unavailable")" >&2
		echo "WARNING: the mainline stages will be reported as skipped." >&2
		echo "################################################################" >&2
		return 0
	fi
	[ "$rc" = 0 ] || return "$rc"
	if [ ! -f "$obj/.stamp-kernel-built" ] || [ -n "$(find "$src/.kit-source-version" "$kit_root/qemu/kernel.config" \
		"$kit_root/qemu/kernel-mainline.config" -newer "$obj/.stamp-kernel-built" 2>/dev/null)" ]; then
		"$here/build-kernel.sh" "$src" "$obj" "$kit_root/qemu/kernel.config" "$kit_root/qemu/kernel-mainline.config"
		touch "$obj/.stamp-kernel-built"
		echo "$(($(date +%s) - start))" >"$build/timings/kernel-mainline-total"
	else
		echo ">> mainline kernel up to date in ${obj#"$kit_root"/} ($(cat "$src/.kit-package-version"))"
	fi
}

mkdir -p "$build/logs" "$build/timings"
case "${1:-}" in
'')
	fetch_and_build
	;;
--start)
	rm -f "$status"
	touch "$pending"
	echo ">> fetching and building the mainline kernel in the background (log: ${log#"$kit_root"/})"
	(
		rc=0
		nice -n 19 "$0" >"$log" 2>&1 || rc=$?
		echo "$rc" >"$status"
	) </dev/null &
	;;
--wait)
	# No background build pending: do it here (quick when up to date).
	if [ ! -f "$pending" ]; then
		fetch_and_build
		exit
	fi
	if [ ! -f "$status" ]; then
		echo ">> waiting for the mainline kernel build (log: ${log#"$kit_root"/})"
		while [ ! -f "$status" ]; do sleep 2; done
	fi
	rm -f "$pending"
	sed 's/^/   /' "$log"
	exit "$(cat "$status")"
	;;
*)
	echo "usage: $0 [--start | --wait]" >&2
	exit 2
	;;
esac
