#!/usr/bin/env bash
# make cocci-report: run scripts/coccinelle/mmap_prepare.cocci in report mode
# over every C file of drivers/, sound/, fs/ and kernel/ that sets a .mmap,
# in the kit's 6.12 tree (build/linux, the series applied; the kit target)
# and in the mainline tree (build/mainline-src; -D mainline), and count the
# hooks: convertible, or not and why. Every verdict goes to
# build/cocci/report-TREE.txt; the counts are printed.
# Usage: cocci-report.sh
set -euo pipefail

here=$(dirname "$(realpath "$0")")
kit_root=$(dirname "$here")
cocci="$here/coccinelle/mmap_prepare.cocci"
out="$kit_root/build/cocci"
mkdir -p "$out"
command -v spatch >/dev/null || { echo "error: spatch not found: install Debian's coccinelle (make packages)" >&2; exit 1; }

report_tree() { # NAME TREE [SPATCH_DEFINES...]
	local name=$1 tree=$2
	shift 2
	[ -d "$tree" ] || { echo ">> $name: $tree missing; skipped"; return 0; }
	echo ">> $name: $tree (spatch report mode, 2 jobs)"
	(cd "$tree" && grep -rlE '\.mmap\s*=' --include=*.c drivers sound fs kernel | sort |
		xargs -P 2 -n 8 timeout 600 spatch --very-quiet --no-includes --sp-file "$cocci" -D report "$@" 2>/dev/null) \
		>"$out/report-$name.txt" || true
	local total convertible
	total=$(grep -cE ': (convertible|not converted)' "$out/report-$name.txt" || true)
	convertible=$(grep -cE ': convertible$' "$out/report-$name.txt" || true)
	echo "   $total .mmap hooks found: $convertible convertible, $((total - convertible)) not"
	grep -oE 'not converted: .*' "$out/report-$name.txt" | sed 's/^not converted: //' | sort | uniq -c | sort -rn | sed 's/^/     /'
	echo "   every hook and its verdict: ${out#"$kit_root"/}/report-$name.txt"
}

report_tree kit-6.12 "$kit_root/build/linux"
report_tree mainline "$kit_root/build/mainline-src" -D mainline
