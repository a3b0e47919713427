#!/usr/bin/env bash
# Fetch Debian's mainline kernel source (scripts/kernel/fetch-mainline-source.sh)
# and build it in build/kernel-mainline: tinyconfig + qemu/kernel.config +
# qemu/kernel-mainline.config, the same debug options as the 6.12 kernel.
#
# When the source cannot be had (no network, no linux-source-7.* served) the
# reason goes to build/mainline-unavailable and the script succeeds: the
# mainline stages are then reported as skipped, with that reason, never as
# passed. A failed build fails.
#
# Usage: kernel-mainline.sh              fetch and build, in the foreground
#        kernel-mainline.sh --start      in the background (nice), for make
#                                        check: fetch, configure and prepare
#                                        now, build after --go (so the 6.12
#                                        kernel builds alone)
#        kernel-mainline.sh --start --now  the same, building at once
#        kernel-mainline.sh --go         let a --start build begin
#        kernel-mainline.sh --wait       wait for a --start (implies --go) and
#                                        print its log; with none pending,
#                                        fetch and build here
#        kernel-mainline.sh --prefetch   for make (all): in the background
#                                        (nice), fetch, configure and prepare,
#                                        never build: the 6.12 build's idle
#                                        moments do it, and make check's
#                                        build starts from there
#        kernel-mainline.sh --prefetch-wait  wait for it, print its log
# With KIT_PROFILE=sanitize (make check-sanitizers) it builds
# build/kernel-mainline-sanitize, qemu/kernel-sanitize.config merged last,
# and keeps its logs in build/logs-sanitize (qemu/stages.sh).
set -euo pipefail

here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/../../qemu/stages.sh"
build="$kit_root/build"
src="$build/mainline-src" obj=$(kit_build_path kernel-mainline)
logs=$(kit_build_path logs)
log="$logs/mainline-kernel.log" status="$logs/mainline-kernel.status"
pending="$logs/mainline-kernel.pending"
go_file="$logs/mainline-kernel.go"
prefetch_log="$logs/mainline-prefetch.log" prefetch_status="$logs/mainline-prefetch.status"
unavailable="$build/mainline-unavailable"

# Fetch and unpack the pinned source; 1 when it cannot be had (the reason is
# then in $unavailable), 0 when it is ready, the fetch's status on an error.
fetch() {
	local rc=0
	rm -f "$unavailable"
	"$here/fetch-mainline-source.sh" "$src" 2> >(tee "$logs/mainline-fetch.err" >&2) || rc=$?
	if [ "$rc" = 3 ]; then
		sed -n 's/^mainline source unavailable: //p' "$logs/mainline-fetch.err" >"$unavailable"
		echo "################################################################" >&2
		echo "WARNING: no mainline kernel: $(cat "$unavailable")" >&2
		echo "WARNING: the mainline stages will be reported as skipped." >&2
		echo "################################################################" >&2
		return 1
	fi
	return "$rc"
}

mapfile -t fragments < <(kit_kernel_fragments mainline)

# Does build/kernel-mainline need (re)building?
stale() {
	[ ! -f "$obj/.stamp-kernel-built" ] ||
		[ -n "$(find "$src/.kit-source-version" "${fragments[@]}" -newer "$obj/.stamp-kernel-built" 2>/dev/null)" ]
}

build() {
	if stale; then
		# A build that fails must not leave an older image to boot.
		rm -f "$obj/.stamp-kernel-built"
		# (explicit: callers run this under "||", where set -e is off)
		"$here/kernel.sh" "$src" "$obj" "${fragments[@]}" || return
		touch "$obj/.stamp-kernel-built"
	else
		# Quiet as a dependency (make check STAGE=5: its first line names
		# the file it checks), as the 6.12 kernel is.
		[ -n "${KIT_QUIET_UP_TO_DATE:-}" ] ||
			echo ">> mainline kernel up to date in ${obj#"$kit_root"/} ($(cat "$src/.kit-package-version"))"
	fi
}

fetch_and_build() {
	local rc=0
	fetch || rc=$?
	[ "$rc" != 1 ] || return 0
	[ "$rc" = 0 ] || return "$rc"
	build
}

# The background job of --start: fetch now, build once --go says so (or at
# once when $go_file is already there). It gives up when the make that
# started it ($1) is gone before that, so a failed or interrupted make
# check leaves nothing behind.
background() {
	local make_pid=$1 start rc=0
	start=$(date +%s)
	fetch || rc=$?
	if [ "$rc" = 0 ]; then
		# Before the go, configure and prepare: their single-threaded part
		# takes only what the 6.12 build leaves idle (this job runs at nice
		# 19). A failure here shows again in the build below.
		! stale || "$here/kernel.sh" --prepare-only "$src" "$obj" "${fragments[@]}" || true
		while [ ! -f "$go_file" ]; do
			if ! kill -0 "$make_pid" 2>/dev/null; then
				echo ">> make is gone before the go: not building the mainline kernel"
				return 1
			fi
			sleep 1
		done
		echo ">> building (waited $(($(date +%s) - start)) s since the start for the 6.12 kernel)"
		build
	elif [ "$rc" = 1 ]; then
		rc=0
	fi
	return "$rc"
}

# The background job of --prefetch: fetch, then configure and prepare when
# the kernel is not built yet, unless the make that started it ($1) is gone
# (make failed: nothing more is wanted of this job).
prefetch() {
	local make_pid=$1 rc=0
	fetch || rc=$?
	[ "$rc" != 1 ] || return 0
	[ "$rc" = 0 ] || return "$rc"
	if ! kill -0 "$make_pid" 2>/dev/null; then
		echo ">> make is gone: the mainline source is fetched, not prepared"
		return 0
	fi
	! stale || "$here/kernel.sh" --prepare-only "$src" "$obj" "${fragments[@]}"
}

# The row of make check's summary for the mainline kernel itself
# (build/logs/mainline-kernel.result): passed when built, skipped when the
# source could not be had (build/mainline-unavailable says why), failed
# when the fetch or the build failed: its stages are then skipped, and this
# row is the failure that make check counts.
record() { # STATUS
	local counts="1 0 0"
	if [ "$1" != 0 ]; then
		counts="0 1 0"
	elif [ -s "$unavailable" ]; then
		counts="0 0 1"
	fi
	echo "mainline-kernel $counts -" >"$logs/mainline-kernel.result"
}

# Run this script with MODE in the background at nice 19, for the make that
# runs this (a recipe line's shell is its child; KIT_OWNER_PID names it
# otherwise): its output to LOG, its exit status to STATUS when it ends
# (written whole, then renamed: whoever waits reads it as soon as it exists).
in_background() { # LOG STATUS MODE
	local make_pid=${KIT_OWNER_PID:-$PPID}
	(
		rc=0
		nice -n 19 "$0" "$3" "$make_pid" >"$1" 2>&1 || rc=$?
		echo "$rc" >"$2.$BASHPID" && mv -f "$2.$BASHPID" "$2"
	) </dev/null &
}

mkdir -p "$logs" "$build/timings"
case "${1:-}" in
''|--wait)
	if [ "${1:-}" = '' ] || [ ! -f "$pending" ]; then
		# In the foreground (--wait with no background build pending:
		# quick when up to date). The status file is replaced, never
		# removed first: make check runs this from two lanes at once, and
		# the other lane reads it meanwhile (qemu/stages.sh); a build that
		# starts removes the kernel's stamp, which says "not built" until
		# it ends.
		rc=0
		fetch_and_build || rc=$?
		echo "$rc" >"$status.$$" && mv -f "$status.$$" "$status"
		record "$rc"
		exit "$rc"
	fi
	touch "$go_file"
	if [ ! -f "$status" ]; then
		echo ">> waiting for the mainline kernel build (log: ${log#"$kit_root"/})"
		while [ ! -f "$status" ]; do sleep 2; done
	fi
	rm -f "$pending"
	sed 's/^/   /' "$log"
	record "$(cat "$status")"
	exit "$(cat "$status")"
	;;
--start)
	rm -f "$status" "$go_file"
	[ "${2:-}" != --now ] || touch "$go_file"
	touch "$pending"
	echo ">> fetching the mainline kernel in the background (log: ${log#"$kit_root"/})"
	in_background "$log" "$status" --background
	;;
--background)
	background "$2"
	;;
--prefetch)
	rm -f "$prefetch_status"
	echo ">> fetching and preparing the mainline kernel's source in the background, for make check (log: ${prefetch_log#"$kit_root"/})"
	in_background "$prefetch_log" "$prefetch_status" --prefetch-background
	;;
--prefetch-background)
	prefetch "$2"
	;;
--prefetch-wait)
	[ -f "$prefetch_log" ] || exit 0
	if [ ! -f "$prefetch_status" ]; then
		echo ">> waiting for the mainline kernel's source (log: ${prefetch_log#"$kit_root"/})"
		while [ ! -f "$prefetch_status" ]; do sleep 1; done
	fi
	sed 's/^/   /' "$prefetch_log"
	# Not make's failure: the 6.12 kit is built; make check fetches and
	# builds the mainline kernel again, and fails there if it must.
	[ "$(cat "$prefetch_status")" = 0 ] ||
		echo "warning: fetching or preparing the mainline kernel failed (log above: ${prefetch_log#"$kit_root"/}); make check tries again, make kernel-mainline shows why" >&2
	exit 0
	;;
--go)
	touch "$go_file"
	[ ! -f "$pending" ] || echo ">> the mainline kernel now builds in the background (log: ${log#"$kit_root"/})"
	;;
*)
	echo "usage: $0 [--start [--now] | --go | --wait | --prefetch | --prefetch-wait]" >&2
	exit 2
	;;
esac
