#!/usr/bin/env bash
# Convert the .mmap hooks of the given C files to .mmap_prepare, in place:
# scripts/coccinelle/mmap_prepare.cocci (spatch), then the kernel-doc of each
# converted hook and the brace of an added error hook (tidy-converted.py).
# Files whose hook uses the VMA in a way the semantic patch cannot express
# are left untouched: --report says which, and where.
# Usage: mmap-prepare.sh [--mainline] [--report] FILE...
#   --mainline  write mainline's API (7.2+) instead of the kit's 6.12 API
#   --report    change nothing; print "HOOK: convertible" or where a hook is
#               not, for each file
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
for f in "$@"; do
	if [ "$mode" = report ]; then
		spatch --very-quiet --sp-file "$here/mmap_prepare.cocci" -D report "${defines[@]}" "$f"
	else
		spatch --very-quiet --sp-file "$here/mmap_prepare.cocci" -D patch "${defines[@]}" --in-place "$f"
		"$here/tidy-converted.py" "$f" >/dev/null
	fi
done
