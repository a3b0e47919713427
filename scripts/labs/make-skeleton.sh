#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make-skeleton.sh SOLUTION.c OUTPUT.c [N]
#
# Turn a lab solution into the student skeleton (see labs/README.md). A marker
#
#	/* TODO n/k: what to do */
#
# alone on its line (n = exercise number, k >= 1) is kept, and the k lines
# that follow it, the answer, are deleted. Everything else is copied as is.
# With N (or a comma-separated list of numbers), only those TODOs' answers
# are deleted: the mutant that proves TODO N is checked
# (scripts/labs/check-todos.sh), or a learner who answered the others.
#
# Fails, without writing OUTPUT.c, on:
#   - a "/* TODO" comment that is not a well-formed one-line marker;
#   - a marker inside the k lines of another marker;
#   - a marker whose k lines run past the end of the file.
# A solution without any marker is copied unchanged, with a warning.

set -euo pipefail

prog=${0##*/}

usage() {
	echo "usage: $prog SOLUTION.c OUTPUT.c [N]" >&2
	exit 2
}

[[ $# -eq 2 || $# -eq 3 ]] || usage
src=$1
out=$2
only=${3:-}

if [[ ! -f $src ]]; then
	echo "$prog: $src: no such file" >&2
	exit 1
fi

outdir=$(dirname -- "$out")
mkdir -p -- "$outdir"
tmp=$(mktemp -- "$outdir/.make-skeleton.XXXXXX")
trap 'rm -f -- "$tmp"' EXIT

# POSIX awk (works with mawk and gawk).
awk -v src="$src" -v only="$only" '
function fail(msg) {
	printf "%s:%d: %s\n", src, NR, msg > "/dev/stderr"
	failed = 1
	exit 1
}

{
	marker = ($0 ~ /^[ \t]*\/\* TODO [0-9]+\/[0-9]+: .*[^ \t].*\*\/[ \t]*$/)

	if (skip > 0) {
		if (marker || $0 ~ /\/\*[ \t]*TODO/)
			fail("TODO marker inside the answer of the marker on line " mline)
		skip--
		next
	}

	if (marker) {
		k = $0
		sub(/^[ \t]*\/\* TODO [0-9]+\//, "", k)
		sub(/:.*$/, "", k)
		k = k + 0
		if (k < 1)
			fail("TODO marker with k = 0: nothing to remove")
		n = $0
		sub(/^[ \t]*\/\* TODO /, "", n)
		sub(/\/.*$/, "", n)
		skip = (only == "" || index("," only ",", "," (n + 0) ",")) ? k : 0
		mline = NR
		markers++
		print
		next
	}

	if ($0 ~ /\/\*[ \t]*TODO/)
		fail("malformed TODO marker, expected \"/* TODO n/k: text */\" alone on its line")

	print
}

END {
	if (failed)
		exit 1
	if (skip > 0) {
		printf "%s:%d: the marker asks for %d more line(s) than the file has\n", src, mline, skip > "/dev/stderr"
		exit 1
	}
	if (!markers)
		printf "%s: warning: no TODO marker, skeleton = solution\n", src > "/dev/stderr"
}
' "$src" >"$tmp"

chmod 0644 -- "$tmp"
mv -f -- "$tmp" "$out"
trap - EXIT
