#!/usr/bin/env bash
# Which TODOs of a learner copy are still unanswered: a marker whose next
# line is still the line that follows it in the untouched skeleton.
# Prints one line per file, e.g.
#   work/01-mmap-prepare/mmap_lab1.c: TODOs left: 2 (line 137), 5 (line 154)
# Usage: todo-status.sh WORK_DIR SOLUTION_DIR
set -euo pipefail

work=$1 solution=$2
here=$(dirname "$(realpath "$0")")
root=$(cd "$here/.." && pwd)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# "marker<TAB>line after it" for every marker of a file.
after_markers() {
	awk '/^[ \t]*\/\* TODO [0-9]+\/[0-9]+: / { m = $0; ln = FNR; next }
	     m != "" { printf "%s\t%d\t%s\n", m, ln, $0; m = "" }' "$1"
}
for c in "$solution"/*.c; do
	mine="$work/$(basename "$c")"
	[ -f "$mine" ] || continue
	"$here/make-skeleton.sh" "$c" "$tmp"
	left=()
	while IFS=$'\t' read -r marker line next; do
		n=$(echo "$marker" | sed -E 's/.*TODO ([0-9]+)\/.*/\1/')
		want=$(after_markers "$tmp" | awk -F'\t' -v m="$marker" '$1 == m { print $3; exit }')
		[ "$next" = "$want" ] && left+=("$n (line $line)")
	done < <(after_markers "$mine")
	if [ ${#left[@]} -eq 0 ]; then
		echo "${mine#"$root"/}: every TODO has an answer"
	else
		list=$(printf '%s, ' "${left[@]}")
		echo "${mine#"$root"/}: TODOs left: ${list%, }"
	fi
done
