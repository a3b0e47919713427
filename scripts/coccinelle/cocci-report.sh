#!/usr/bin/env bash
# make cocci-report: run scripts/coccinelle/mmap_prepare.cocci in report mode
# over every C file of the tree that sets a .mmap (all but tools/, samples/
# and Documentation/: drivers/, sound/, fs/, kernel/, arch/, net/, ...) and
# the files that define the hooks they name (mmap-files.py),
# in the kit's 6.12 tree (build/linux, the series applied; the kit target)
# and in the mainline tree (build/mainline-src; -D mainline), and count the
# hooks, once each: convertible, or not and why. Every verdict goes to
# build/cocci/report-TREE.txt; the counts are printed and written to
# Documentation/cocci-report.inc, which the conversion aid's page includes.
# Usage: cocci-report.sh
set -euo pipefail

here=$(dirname "$(realpath "$0")")
kit_root=$(dirname "$(dirname "$here")")
out="$kit_root/build/cocci"
mkdir -p "$out"
command -v spatch >/dev/null || { echo "error: spatch not found: install Debian's coccinelle (make packages)" >&2; exit 1; }

report_tree() { # NAME TREE [--mainline]
	local name=$1 tree=$2
	shift 2
	echo ">> $name: ${tree#"$kit_root"/} (report mode, 2 jobs)"
	# Six folders a run, whole: a hook defined in one file of a folder and
	# named in another is converted across them (mmap-files.py adds the
	# files that define it; mmap-prepare.sh groups them).
	(cd "$tree" && "$here/mmap-files.py" . |
		xargs -P 2 -L 6 timeout 900 "$here/mmap-prepare.sh" --report "$@" 2>/dev/null) \
		>"$out/report-$name.txt" || true
	echo "   every hook and its verdict: ${out#"$kit_root"/}/report-$name.txt"
}

start=$(date +%s)
trees=()
report_tree kit-6.12 "$kit_root/build/linux"
trees+=("6.12 (kit target)=$out/report-kit-6.12.txt:linux-source-6.12 $(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || echo '?')")
why=$(cat "$kit_root/build/mainline-unavailable" 2>/dev/null || true)
if [ -d "$kit_root/build/mainline-src/mm" ]; then
	report_tree mainline "$kit_root/build/mainline-src" --mainline
	trees+=("mainline (--mainline)=$out/report-mainline.txt:linux-source-7 $(cat "$kit_root/build/mainline-src/.kit-package-version")")
else
	echo ">> mainline: skipped: ${why:-no mainline source in build/mainline-src}"
fi
"$here/report-counts.py" --rst "$kit_root/Documentation/cocci-report.inc" "${trees[@]}"
secs=$(($(date +%s) - start))
printf "\n| Run time: %s s on %s cores (make cocci-report).\n" "$secs" "$(nproc)" >>"$kit_root/Documentation/cocci-report.inc"
echo ">> make cocci-report: $secs s; the table is in Documentation/cocci-report.inc"
