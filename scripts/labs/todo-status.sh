#!/usr/bin/env bash
# Which TODOs of a learner copy are still unanswered: a marker whose next
# line is still the line that follows it in the untouched skeleton.
# Prints one line per file, e.g.
#   work/01-mmap-prepare/mmap_lab1.c: TODOs left: 2 (line 137), 5 (line 154)
# --left prints only the numbers of the TODOs left, one a line (what
# qemu/verdict.sh reads from build/modules/ID/.todos-left).
# Usage: todo-status.sh [--left] WORK_DIR SOLUTION_DIR
set -euo pipefail

if [ "${1:-}" = --left ]; then
	shift
	"$0" "$@" | sed -n 's/.*TODOs left: //p' | tr ',' '\n' | sed -n 's/^ *\([0-9]*\) (line.*/\1/p'
	exit 0
fi
work=$1 solution=$2
here=$(dirname "$(realpath "$0")")
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for c in "$solution"/*.c; do
	mine="$work/$(basename "$c")"
	[ -f "$mine" ] || continue
	"$here/make-skeleton.sh" "$c" "$tmp"
	# First file: the skeleton, remember the line after each marker. Second:
	# the copy, list the markers whose next line is still that line.
	left=$(awk 'function key(s) { sub(/^[ \t]*\/\* /, "", s); sub(/:.*/, "", s); return s }
		FNR == 1 { file++ }
		/^[ \t]*\/\* TODO [0-9]+\/[0-9]+: / { m = key($0); ln = FNR; next }
		m != "" && file == 1 { after[m] = $0; m = "" }
		m != "" && file == 2 {
			if (m in after && after[m] == $0) { split(m, w, /[ \/]/); out = out sep w[2] " (line " ln ")"; sep = ", " }
			m = ""
		}
		END { print out }' "$tmp" "$mine")
	if [ -z "$left" ]; then
		echo "${mine#"$root"/}: every TODO has an answer"
	else
		echo "${mine#"$root"/}: TODOs left: $left"
	fi
done
