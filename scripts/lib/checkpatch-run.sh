#!/usr/bin/env bash
# checkpatch_each [ARG...] -- FILE...: the kernel's scripts/checkpatch.pl
# from the tree in $src, --strict, terse, with message types, in one run over
# every FILE (perl's start and checkpatch's set-up once: a run a file cost
# twice the CPU over the checker's sources); sets checkpatch_out[FILE] to
# FILE's lines (terse: each starts with FILE:). Source it.
# checkpatch [ARG...] FILE: the same for one file, printed.
# It runs from outside this repository: checkpatch reads a surrounding git
# repository and then misreads the empty context lines of a patch.
# A file it cannot read, or a checkpatch that did not run (a perl error:
# status 2 and up), gives an ERROR line of its own: silence is not a clean
# file. Count the lines matching ': (ERROR|WARNING|CHECK):' for the verdict.

declare -A checkpatch_out=()
checkpatch_each() {
	local args=() f out rc=0
	while [ "$1" != -- ]; do args+=("$1") && shift; done
	shift
	checkpatch_out=()
	# shellcheck disable=SC2154 # $src: the kernel tree, set by the caller
	out=$(cd /tmp && "$src/scripts/checkpatch.pl" --strict --no-tree --no-summary --terse --show-types "${args[@]}" "$@" 2>&1) || rc=$?
	for f; do
		checkpatch_out[$f]=$(awk -v p="$f:" 'index($0, p) == 1' <<<"$out")
		[ -r "$f" ] || checkpatch_out[$f]+=$'\n'"$f:0: ERROR:CHECKPATCH_DID_NOT_RUN: cannot read the file"
		[ "$rc" -le 1 ] || checkpatch_out[$f]+=$'\n'"$(head -n 5 <<<"$out")"$'\n'"$f:0: ERROR:CHECKPATCH_DID_NOT_RUN: checkpatch.pl exited with $rc"
	done
}

checkpatch() {
	local file=${*: -1}
	checkpatch_each "${@:1:$#-1}" -- "$file"
	echo "${checkpatch_out[$file]}"
}
