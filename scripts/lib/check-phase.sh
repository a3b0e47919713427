#!/usr/bin/env bash
# make check's timeline. Each phase of `make check` starts with
#   check-phase.sh "what this phase does"
# which prints ">> [+M:SS] what this phase does" (the time since make check
# started) and appends "SECONDS<TAB>what" to build/timings/phases. At the end
#   check-phase.sh --table
# prints how long each phase took (up to the start of the next one), so a
# slow run shows at once where its time went; scripts/dev/record-times.sh puts
# the same table into the docs. In a background lane (scripts/lib/
# check-lane.sh sets KIT_PHASE_LANE=NAME) the phases go to
# build/timings/phases-NAME, and --end there records the lane's end (--table
# records the main line's); the table shows each lane after the main line,
# its phases marked as beside it.
# Each row also says how much CPU the phase took (core-seconds: user + system
# time of the finished commands of the make that runs it; work that a phase
# leaves in the background, as the mainline kernel's build, counts nowhere).
# With two lanes at once, a phase's CPU over its duration tells how much of
# the two cores it had.
# Usage: check-phase.sh DESCRIPTION | --end | --table
set -euo pipefail

timings="$(dirname "$(dirname "$(dirname "$(realpath "$0")")")")/build/timings"
start_file="$timings/check-start" phases="$timings/phases"
lane=${KIT_PHASE_LANE:-}
[ -z "$lane" ] || phases="$timings/phases-$lane"
now=$(date +%s)
start=$now
[ ! -f "$start_file" ] || start=$(cat "$start_file")

# The CPU time (clock ticks, user + system) of the finished children of the
# make whose recipe runs this script: its parent, or the parent's parent when
# make ran it through /bin/sh. A lane's --end is run by check-lane.sh after
# the lane's make ended: that shell's children are the whole lane.
cpu_ticks() {
	local pid=$PPID
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" != sh ] || pid=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f2)
	# After the ") " that ends the command name: state is field 1, the
	# children's user and system times fields 14 and 15.
	sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $14 + $15; exit }' || echo 0
}

# The rows of a phases file: each phase's duration up to the next one's
# start (the last one's: up to END, or its lane's --end line), and its CPU
# time (ticks: the third field, up to the next line's, or END_TICKS).
rows() { # FILE END END_TICKS PREFIX
	awk -F'\t' -v end="$2" -v end_ticks="$3" -v prefix="$4" -v hz="$(getconf CLK_TCK)" '
		$2 == "--end" { end = $1; end_ticks = $3; next }
		{ at[++n] = $1; what[n] = $2; ticks[n] = $3 }
		END {
			for (i = 1; i <= n; i++) {
				stop = (i < n) ? at[i + 1] : end
				stop_ticks = (i < n) ? ticks[i + 1] : end_ticks
				printf "   %4d s %6.0f core-s  at +%d:%02d  %s%s\n", stop - at[i], (stop_ticks - ticks[i]) / hz, at[i] / 60, at[i] % 60, prefix, what[i]
			}
		}' "$1"
}

if [ "${1:-}" = --table ]; then
	[ -f "$phases" ] || { echo "no phases recorded (make check writes $phases)" >&2 && exit 0; }
	# The main line ends here: its last phase's end, for this table and
	# for scripts/dev/record-times.sh.
	printf '%d\t--end\t%d\n' $((now - start)) "$(cpu_ticks)" >>"$phases"
	echo ">> make check's timeline (phase: its duration, its CPU time, its start after the beginning)"
	rows "$phases" $((now - start)) 0 ""
	for f in "$timings"/phases-*; do
		[ -f "$f" ] || continue
		rows "$f" $((now - start)) 0 "(${f##*/phases-} lane, beside the above) "
	done
	printf '   total %d:%02d\n' $(((now - start) / 60)) $(((now - start) % 60))
	exit 0
fi

elapsed=$((now - start))
mkdir -p "$timings"
if [ "${1:-}" = --end ]; then
	printf '%d\t--end\t%d\n' "$elapsed" "$(cpu_ticks)" >>"$phases"
	exit 0
fi
printf '>> [+%d:%02d] %s%s\n' $((elapsed / 60)) $((elapsed % 60)) "${lane:+($lane lane) }" "$*"
printf '%d\t%s\t%d\n' "$elapsed" "$*" "$(cpu_ticks)" >>"$phases"
