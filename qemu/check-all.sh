#!/usr/bin/env bash
# Run stages (all of them, or those given) and print a summary table and the
# closing line "N passed, N failed". Exits non-zero on any failure.
# make check runs the 6.12 stages while the mainline kernel still builds and
# the mainline ones after it (--no-summary), then the summary of the whole
# kit (--summary-only: runs nothing, prints every stage's row and those of
# the parts that ran before the boots).
# Usage: check-all.sh [--no-summary | --summary-only] KERNEL_OBJ_DIR CHECKER_DIR [STAGE_ID...]
set -uo pipefail

summary=given
case "${1:-}" in
--no-summary) summary=none && shift ;;
--summary-only) summary=only && shift ;;
esac
kobj=$1 checker=$2
shift 2
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/stages.sh"
if [ "$summary" = only ]; then
	stages=()
	summary=all
elif [ $# -eq 0 ]; then
	mapfile -t stages < <(kit_stage_ids)
	[ "$summary" = none ] || summary=all
else
	stages=("$@")
fi
for id in "${stages[@]}"; do kit_require_stage "$id"; done

logs=$(kit_build_path logs)
modules=$(kit_build_path modules)
mkdir -p "$logs"
for id in "${stages[@]}"; do
	rm -f "$logs/$id.result" "$logs/$id.verdict"
	"$here/run-stage.sh" "$kobj" "$checker" "$id"
	echo
done
[ "$summary" != none ] || exit 0
with_static=0
if [ "$summary" = all ]; then
	mapfile -t stages < <(kit_stage_ids)
	with_static=1
fi

# The failing stages' verdicts (qemu/verdict.sh): each failing test by name
# with a hint, just above the table.
for id in "${stages[@]}"; do
	[ ! -s "$logs/$id.verdict" ] || cat "$logs/$id.verdict"
done

# Rows of the parts that ran beside the boots (static checks, TODO proof,
# learner's loop, ...), when the whole kit is checked: make check's, or make
# check-sanitizers' (KIT_PROFILE=sanitize).
if [ -n "${KIT_PROFILE:-}" ]; then
	parts=(mainline-kernel planted-bugs stress)
else
	parts=(static loop loop-mainline todos mainline-kernel todos-mainline cocci cocci-mainline cocci-boot bench stress mistakes driver relocation)
fi
total_passed=0 total_failed=0 total_skipped=0
# The title last and whole: it is the only column of any length.
printf '%-16s %6s %6s %7s %7s  %-18s  %s\n' stage passed failed skipped boot_s checked title
for id in "${parts[@]}" "${stages[@]}"; do
	title=
	case "$id" in
	static) title="static checks (checkpatch, skeletons, vma tests)" ;;
	loop) title="learner's loop replayed (start, check, boot, diff)" ;;
	loop-mainline) title="learner's loop, quick, on a mainline stage" ;;
	todos) title="TODO mutation proof (each answer removed), 6.12" ;;
	mainline-kernel) title="the mainline (7.x) kernel: fetched and built" ;;
	todos-mainline) title="TODO mutation proof (each answer removed), mainline" ;;
	cocci) title="conversion aid on stage 0, kit (6.12) target" ;;
	cocci-mainline) title="conversion aid on stage 0, mainline target" ;;
	cocci-boot) title="conversion aid on real drivers, booted beside the originals" ;;
	bench) title="performance lab, short run: guards on the remap action" ;;
	stress) title="stress run$([ -n "${KIT_PROFILE:-}" ] || echo ', short'): all drivers, 2 CPUs, rmmod, leaks" ;;
	planted-bugs) title="each sanitizer's planted bug reported" ;;
	mistakes) title="mistake corpus: each planted, its TODO named first" ;;
	driver) title="make check DRIVER=: the template renamed, wrong changes caught" ;;
	relocation) title="the built kit copied and moved: no kernel rebuilt" ;;
	esac
	if [ -n "$title" ]; then
		[ "$with_static" = 1 ] || continue
	else
		title=$(kit_stage_get "$id" STAGE_TITLE)
	fi
	if [ -f "$logs/$id.result" ]; then
		read -r _ p f s secs <"$logs/$id.result"
	else
		p=0 f=1 s=0 secs=-
	fi
	# Which source a stage's module was built from (scripts/labs/modules.sh).
	checked=-
	[ -f "$modules/$id/.checked" ] && checked=$(cut -f2 "$modules/$id/.checked")
	printf '%-16s %6s %6s %7s %7s  %-18s  %s\n' "$id" "$p" "$f" "$s" "$secs" "$checked" "$title"
	total_passed=$((total_passed + p))
	total_failed=$((total_failed + f))
	total_skipped=$((total_skipped + s))
done
echo
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
[ "$total_failed" = 0 ]
