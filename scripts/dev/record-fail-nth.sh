#!/usr/bin/env bash
# make record-fail-nth: write the fail-nth sweep's figures of the last run
# (each stage's build/logs/STAGE/check_fail_nth.tap, from make check or make
# check STAGE=N) into Documentation/labs/fail-nth-counts.inc: per guest and
# mapped file, the fault points swept, plain, MAP_FIXED and (for a remap) at
# a fresh address, and the guest time the sweeps took. Run it after a make
# check, check the numbers, commit.
# Usage: record-fail-nth.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=qemu/stages.sh
. "$top/qemu/stages.sh"
out="$top/Documentation/labs/fail-nth-counts.inc"
rows=() missing=()
for id in $(kit_stage_ids); do
	tap="$top/build/logs/$id/check_fail_nth.tap"
	case " $(kit_stage_get "$id" STAGE_CHECKS) " in *" check_fail_nth "*) ;; *) continue ;; esac
	[ -f "$tap" ] || { missing+=("$id") && continue; }
	kernel=$(kit_stage_get "$id" STAGE_KERNEL)
	# "ok N - fail-nth sweep: WHAT[, MAP_FIXED ...]: P fault points, mmap()
	# failed at F" and "# K mmap() calls in T s", in that order.
	while IFS=$'\t' read -r what plain fixed fresh secs; do
		rows+=("$id"$'\t'"${kernel:-6.12}"$'\t'"$what"$'\t'"$plain"$'\t'"$fixed"$'\t'"$fresh"$'\t'"$secs")
	done < <(awk '
		/^(not )?ok [0-9]+ - fail-nth sweep: / {
			line = $0
			sub(/^(not )?ok [0-9]+ - fail-nth sweep: /, "", line)
			fixed = sub(/, MAP_FIXED over an accounted private mapping/, "", line)
			fresh = sub(/, at a fresh address \(new page tables\)/, "", line)
			what = line; sub(/: [0-9]+ fault points?.*/, "", what)
			n = line; sub(/^.*: /, "", n); sub(/ fault points?.*/, "", n)
			if ($1 == "not") n = n " (failed)"
			if (fixed) fx[what] = n; else if (fresh) fr[what] = n; else { pl[what] = n; order[++k] = what }
		}
		/^# [0-9]+ mmap\(\) calls in [0-9.]+ s$/ { t[what] += $6 }
		END { for (i = 1; i <= k; i++) printf "%s\t%s\t%s\t%s\t%.2f\n", order[i], pl[order[i]], fx[order[i]], (order[i] in fr) ? fr[order[i]] : "-", t[order[i]] }
	' "$tap")
done
[ "${#rows[@]}" -gt 0 ] || { echo "error: no check_fail_nth results in build/logs: run make check first" >&2; exit 1; }
[ "${#missing[@]}" = 0 ] || echo "warning: no check_fail_nth results for stage(s) ${missing[*]}: their rows are left out" >&2
{
	echo ".. Written by make record-fail-nth (scripts/dev/record-fail-nth.sh) from"
	echo "   build/logs/*/check_fail_nth.tap, recorded at commit $(git -C "$top" rev-parse --short HEAD) on $(date -u +%Y-%m-%d). Do not edit."
	echo
	echo ".. list-table::"
	echo "   :header-rows: 1"
	echo "   :class: kit-wide-table"
	echo "   :widths: 14 8 38 10 12 10 10"
	echo
	echo "   * - guest"
	echo "     - kernel"
	echo "     - mapped"
	echo "     - fault points"
	echo "     - over an accounted mapping (MAP_FIXED)"
	echo "     - at a fresh address (new page tables)"
	echo "     - guest time, all (s)"
	for row in "${rows[@]}"; do
		IFS=$'\t' read -r id kernel what plain fixed fresh secs <<<"$row"
		echo "   * - $id"
		echo "     - $kernel"
		echo "     - \`\`$what\`\`"
		echo "     - $plain"
		echo "     - $fixed"
		echo "     - $fresh"
		echo "     - $secs"
	done
} >"$out"
echo ">> wrote ${out#"$top"/}: ${#rows[@]} rows"
