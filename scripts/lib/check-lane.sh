#!/usr/bin/env bash
# make check's background lane: a part of make check that runs beside the
# phases that follow it, so that both cores stay busy once the mainline
# kernel is built (before that, its build takes what the 6.12 phases leave).
# The lane's output goes to build/logs/lane-NAME.out and is printed when
# make check joins it; its phases (scripts/lib/check-phase.sh, which sees
# KIT_PHASE_LANE=NAME) go to build/timings/phases-NAME, shown beside the
# main timeline. A mark lets the main line wait for a point of the lane:
# the lane says `check-lane.sh mark NAME WHAT` when it is past WHAT.
# Usage: check-lane.sh start NAME COMMAND...   run COMMAND in the background
#        check-lane.sh mark NAME WHAT          (in the lane) WHAT is done
#        check-lane.sh wait NAME WHAT          wait until the lane marked WHAT
#                                              (or ended)
#        check-lane.sh join NAME               wait for the lane's end, print
#                                              its output
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
logs="$top/build/logs" timings="$top/build/timings"
cmd=${1:-} name=${2:-}
[ -n "$name" ] || { echo "usage: check-lane.sh start|mark|wait|join NAME ..." >&2 && exit 2; }
lane="$logs/lane-$name"
shift 2
mkdir -p "$logs" "$timings"

# Wait for FILE while the lane runs; say so once a minute. A lane that
# is gone without its end recorded (killed) ends the wait: its gates have
# no result then, and the summary counts them as failed.
wait_for() { # FILE WHAT
	local waited=0
	while [ ! -e "$1" ] && [ ! -e "$lane.done" ]; do
		if ! kill -0 "$(cat "$lane.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
			echo "error: the $name lane is gone without its end recorded (killed?): see ${lane#"$top"/}.out" >&2
			return
		fi
		sleep 1
		waited=$((waited + 1))
		[ $((waited % 60)) != 0 ] || echo ">> still waiting for the $name lane ($2), ${waited} s"
	done
}

case "$cmd" in
start)
	rm -f "$lane".* "$timings/phases-$name"
	# Its own process group is not needed: make's interrupt reaches it as
	# it reaches make. Nothing of it may write to make's terminal.
	(
		rc=0
		KIT_PHASE_LANE=$name "$@" >"$lane.out" 2>&1 </dev/null || rc=$?
		KIT_PHASE_LANE=$name "$top/scripts/lib/check-phase.sh" --end
		echo "$rc" >"$lane.rc"
		touch "$lane.done"
	) &
	echo "$!" >"$lane.pid"
	echo ">> the $name lane runs in the background from here; its output follows when make check joins it (${lane#"$top"/}.out)"
	;;
mark)
	touch "$lane.mark-$1"
	;;
wait)
	[ -e "$lane.mark-$1" ] || [ -e "$lane.done" ] || echo ">> waiting for the $name lane: $1"
	wait_for "$lane.mark-$1" "$1"
	;;
join)
	[ -e "$lane.done" ] || echo ">> waiting for the $name lane to end"
	wait_for "$lane.done" "its end"
	echo ">> the $name lane's output (it ran beside the phases above; ${lane#"$top"/}.out)"
	cat "$lane.out"
	[ "$(cat "$lane.rc" 2>/dev/null)" = 0 ] || echo "error: the $name lane ended with status $(cat "$lane.rc" 2>/dev/null || echo unknown): see its output above" >&2
	;;
*)
	echo "usage: check-lane.sh start|mark|wait|join NAME ..." >&2
	exit 2
	;;
esac
