#!/usr/bin/env bash
# make check's timeline. Each phase of `make check` starts with
#   check-phase.sh "what this phase does"
# which prints ">> [+M:SS] what this phase does" (the time since make check
# started) and appends "SECONDS<TAB>what" to build/timings/phases. At the end
#   check-phase.sh --table
# prints how long each phase took (up to the start of the next one), so a
# slow run shows at once where its time went; scripts/dev/record-times.sh puts
# the same table into the docs.
# Usage: check-phase.sh DESCRIPTION | --table
set -euo pipefail

timings="$(dirname "$(dirname "$(dirname "$(realpath "$0")")")")/build/timings"
start_file="$timings/check-start" phases="$timings/phases"
now=$(date +%s)
start=$now
[ ! -f "$start_file" ] || start=$(cat "$start_file")

if [ "${1:-}" = --table ]; then
	[ -f "$phases" ] || { echo "no phases recorded (make check writes $phases)" >&2 && exit 0; }
	echo ">> make check's timeline (phase: its duration, then its start after the beginning)"
	awk -F'\t' -v end=$((now - start)) '
		{ at[NR] = $1; what[NR] = $2 }
		END {
			for (i = 1; i <= NR; i++) {
				stop = (i < NR) ? at[i + 1] : end
				printf "   %4d s  at +%d:%02d  %s\n", stop - at[i], at[i] / 60, at[i] % 60, what[i]
			}
			printf "   total %d:%02d\n", end / 60, end % 60
		}' "$phases"
	exit 0
fi

elapsed=$((now - start))
printf '>> [+%d:%02d] %s\n' $((elapsed / 60)) $((elapsed % 60)) "$*"
mkdir -p "$timings"
printf '%d\t%s\n' "$elapsed" "$*" >>"$phases"
