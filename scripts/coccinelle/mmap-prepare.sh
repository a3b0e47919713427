#!/usr/bin/env bash
# Convert the .mmap hooks of the given C files to .mmap_prepare, in place:
# scripts/coccinelle/mmap_prepare.cocci (spatch), then the kernel-doc of each
# converted hook and the brace of an added error hook (tidy-converted.py).
# Files whose hook uses the VMA in a way the semantic patch cannot express
# are left untouched: --report says which, and where.
# Usage: mmap-prepare.sh [--mainline] [--report] FILE...
#   --mainline  write mainline's API (7.2+) instead of the kit's 6.12 API
#   --report    change nothing; print "FILE:LINE: HOOK: convertible" (after a
#               trial conversion of a copy) or where and why a hook is not
# A converted hook in which spatch left the VMA (code it could not parse) is
# put back as it was, with a message; the exit status is then 1.
set -euo pipefail

here=$(dirname "$(realpath "$0")")
defines=() mode=patch
while [ $# -gt 0 ]; do
	case "$1" in
	--mainline) defines+=(-D mainline) ;;
	--report) mode=report ;;
	-*) echo "usage: $0 [--mainline] [--report] FILE..." >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || { echo "usage: $0 [--mainline] [--report] FILE..." >&2; exit 2; }
command -v spatch >/dev/null || { echo "error: spatch not found: install Debian's coccinelle" >&2; exit 1; }
cocci=(spatch --very-quiet --no-includes --sp-file "$here/mmap_prepare.cocci" "${defines[@]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# spatch with the semantic patch; a spatch that cannot load Python (its
# rules need libpython3.11.so, from libpython3.11-dev) stops everything with
# that said, instead of converting nothing.
run_spatch() {
	local rc=0
	"${cocci[@]}" "$@" 2>"$tmp/spatch.err" || rc=$?
	if grep -q 'unable to find the Python library' "$tmp/spatch.err"; then
		echo "error: spatch cannot load Python (libpython3.11.so): install libpython3.11-dev (make packages)" >&2
		exit 1
	fi
	cat "$tmp/spatch.err" >&2
	return "$rc"
}

# Convert $1 in place; if spatch left the VMA or the file argument in a
# converted hook (code it could not parse), put the original back and say so.
convert() {
	cp "$1" "$tmp/original.c"
	run_spatch -D patch --in-place "$1" >/dev/null || true
	"$here/tidy-converted.py" "$1" >/dev/null
	if ! "$here/verify-converted.py" "$tmp/original.c" "$1" >&2; then
		cp "$tmp/original.c" "$1"
		echo "$1: left untouched" >&2
		return 1
	fi
}

if [ "$mode" = patch ]; then
	rc=0
	for f in "$@"; do
		convert "$f" || rc=1
	done
	exit "$rc"
fi
# One spatch for all the files; then each "convertible" verdict is tried on
# a copy: a hook spatch could not parse in full is reported as such.
run_spatch -D report "$@" >"$tmp/report.txt" || true
while IFS= read -r line; do
	if [[ "$line" == *": convertible" ]]; then
		f=${line%%:*}
		cp "$f" "$tmp/trial.c"
		if ! convert "$tmp/trial.c" 2>/dev/null || cmp -s "$f" "$tmp/trial.c"; then
			line="${line%: convertible}: not converted: part of it was not parsed by spatch (an #ifdef branch or a macro?)"
		fi
	fi
	echo "$line"
done <"$tmp/report.txt"
