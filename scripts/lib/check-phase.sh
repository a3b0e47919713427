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
# build/timings/phases-NAME, and --end there records the lane's end; the
# table shows each lane after the main line, its phases marked as beside it.
# Usage: check-phase.sh DESCRIPTION | --end | --table
set -euo pipefail

timings="$(dirname "$(dirname "$(dirname "$(realpath "$0")")")")/build/timings"
start_file="$timings/check-start" phases="$timings/phases"
lane=${KIT_PHASE_LANE:-}
[ -z "$lane" ] || phases="$timings/phases-$lane"
now=$(date +%s)
start=$now
[ ! -f "$start_file" ] || start=$(cat "$start_file")

# The rows of a phases file: each phase's duration up to the next one's
# start (the last one's: up to END, or its lane's --end line).
rows() { # FILE END PREFIX
	awk -F'\t' -v end="$2" -v prefix="$3" '
		$2 == "--end" { end = $1; next }
		{ at[++n] = $1; what[n] = $2 }
		END {
			for (i = 1; i <= n; i++) {
				stop = (i < n) ? at[i + 1] : end
				printf "   %4d s  at +%d:%02d  %s%s\n", stop - at[i], at[i] / 60, at[i] % 60, prefix, what[i]
			}
		}' "$1"
}

if [ "${1:-}" = --table ]; then
	[ -f "$phases" ] || { echo "no phases recorded (make check writes $phases)" >&2 && exit 0; }
	echo ">> make check's timeline (phase: its duration, then its start after the beginning)"
	rows "$phases" $((now - start)) ""
	for f in "$timings"/phases-*; do
		[ -f "$f" ] || continue
		rows "$f" $((now - start)) "(${f##*/phases-} lane, beside the above) "
	done
	printf '   total %d:%02d\n' $(((now - start) / 60)) $(((now - start) % 60))
	exit 0
fi

elapsed=$((now - start))
mkdir -p "$timings"
if [ "${1:-}" = --end ]; then
	printf '%d\t--end\n' "$elapsed" >>"$phases"
	exit 0
fi
printf '>> [+%d:%02d] %s%s\n' $((elapsed / 60)) $((elapsed % 60)) "${lane:+($lane lane) }" "$*"
printf '%d\t%s\n' "$elapsed" "$*" >>"$phases"
