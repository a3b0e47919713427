#!/usr/bin/env bash
# make cocci-recall: how much of mainline's own hand conversion the aid
# redoes. Mainline moved dozens of files from .mmap to .mmap_prepare by hand
# after 6.12. The files counted are those that set a .mmap in stock 6.12
# (build/linux, with the series' files taken from build/linux-pristine) and
# a .mmap_prepare in mainline (build/mainline-src). Their 6.12 versions, and
# the files of the same folder that define a hook they name, are copied to
# build/cocci-recall/TARGET/ and converted there in one patch-mode run
# (and reported), for --mainline and for the kit target. Per counted file
# (recall-table.py):
#  - same: the aid converted every hook mainline converted, and its added
#    lines use the same mmap_prepare API names (mmap_action_*, vma_desc_*,
#    generic_file_*mmap_prepare, desc->action hooks) as mainline's;
#  - other helpers: converted, the names differ (both sets printed);
#  - not converted: the report's reason.
# Writes Documentation/cocci-recall.inc (mainline target) and prints the
# tables. About a minute.
# Usage: cocci-recall.sh [mainline|kit]...   (default: both)
set -euo pipefail

here=$(dirname "$(realpath "$0")")
kit_root=$(dirname "$(dirname "$here")")
stock="$kit_root/build/linux" pristine="$kit_root/build/linux-pristine" mainline="$kit_root/build/mainline-src"
out=${COCCI_RECALL_DIR:-$kit_root/build/cocci-recall}
[ $# -gt 0 ] || set -- mainline kit
for tree in "$stock" "$mainline"; do
	[ -d "$tree/mm" ] || { echo "error: no ${tree#"$kit_root"/}: run make (and make kernel-mainline) first" >&2; exit 1; }
done

# The 6.12 version of a file: the series changes some of them.
stock_of() { # PATH
	if [ -f "$pristine/$1" ]; then echo "$pristine/$1"; else echo "$stock/$1"; fi
}

start=$(date +%s)
mkdir -p "$out"
list() { # TREE PATTERN: the C files that set it, relative
	(cd "$1" && grep -rlE "$2" --include=*.c --exclude-dir=tools --exclude-dir=Documentation --exclude-dir=samples . |
		sed 's#^\./##' | sort)
}
{ list "$stock" '\.mmap\s*='; (cd "$pristine" && grep -rlE '\.mmap\s*=' --include=*.c . | sed 's#^\./##'); } |
	sort -u >"$out/stock-mmap.txt"
list "$mainline" '\.mmap_prepare\s*=' >"$out/mainline-prepare.txt"
comm -12 "$out/stock-mmap.txt" "$out/mainline-prepare.txt" >"$out/counted.txt"
echo ">> $(wc -l <"$out/counted.txt") files set .mmap in 6.12 and .mmap_prepare in mainline (${out#"$kit_root"/}/counted.txt)"

# The files counted, and the files of their folder that define a hook they
# name without defining it (nfs_file_mmap, ceph_mmap, ...).
mapfile -t counted <"$out/counted.txt"
"$here/mmap-files.py" --flat "$stock" "${counted[@]}" >"$out/files.txt"

for target in "$@"; do
	case "$target" in
	mainline) flag=(--mainline) ;;
	kit) flag=() ;;
	*) echo "usage: $0 [mainline|kit]..." >&2; exit 2 ;;
	esac
	dir="$out/$target"
	rm -rf "$dir" && mkdir -p "$dir/src" "$dir/report"
	while read -r f; do
		mkdir -p "$dir/src/$(dirname "$f")" "$dir/report/$(dirname "$f")"
		cp "$(stock_of "$f")" "$dir/src/$f"
		cp "$(stock_of "$f")" "$dir/report/$f"
	done <"$out/files.txt"
	echo ">> $target: converting the $(wc -l <"$out/files.txt") files (${dir#"$kit_root"/}/src), and reporting"
	mapfile -t files <"$out/files.txt"
	(cd "$dir/src" && "$here/mmap-prepare.sh" "${flag[@]}" "${files[@]}" >/dev/null 2>"$dir/patch.err") || true
	(cd "$dir/report" && "$here/mmap-prepare.sh" "${flag[@]}" --report "${files[@]}" >"$dir/report.txt" 2>"$dir/report.err") || true
done
"$here/recall-table.py" --mainline "$mainline" --out "$out" \
	--rst "$kit_root/Documentation/cocci-recall.inc" "$@"
secs=$(($(date +%s) - start))
echo "| Run time: $secs s on $(nproc) cores (make cocci-recall)." >>"$kit_root/Documentation/cocci-recall.inc"
echo ">> make cocci-recall: $secs s; the table is in Documentation/cocci-recall.inc"
