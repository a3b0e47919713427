#!/usr/bin/env bash
# Run stages (all of them, or those given) and print a summary table and the
# closing line "N passed, N failed". Exits non-zero on any failure.
# make check runs the 6.12 stages while the mainline kernel still builds and
# the mainline ones after it (--no-summary), then the summary of the whole
# kit (--summary-only: runs nothing, prints every stage's row and those of
# the parts that ran before the boots).
# Usage: check-all.sh [--no-summary | --summary-only] KERNEL_OBJ_DIR CHECKER_DIR [STAGE_ID...]
set -uo pipefail

# The gates of make check that are not stages, in the summary's order:
# NAME|PROFILES|TITLE, PROFILES the runs that have the gate (check: make
# check; sanitize: make check-sanitizers, KIT_PROFILE=sanitize). A gate
# writes build/logs/NAME.result; make check's recipe in the Makefile runs
# it and removes the old results first (it asks this list: --gates). A new
# gate is one line here and its run in that recipe.
gates=(
	"static|check|static checks (checkpatch, skeletons, vma tests)"
	"loop|check|learner's loop replayed (start, check, boot, diff)"
	"loop-mainline|check|learner's loop, quick, on a mainline stage"
	"todos|check|TODO mutation proof (each answer removed), 6.12"
	"mainline-kernel|check,sanitize|the mainline (7.x) kernel: fetched and built"
	"planted-bugs|sanitize|each sanitizer's planted bug reported"
	"todos-mainline|check|TODO mutation proof (each answer removed), mainline"
	"cocci|check|conversion aid on stage 0, kit (6.12) target"
	"cocci-mainline|check|conversion aid on stage 0, mainline target"
	"cocci-boot|check|conversion aid on real drivers, booted beside the originals"
	"bench|check|performance lab, short run: guards on the remap action"
	"stress|check,sanitize|stress run: all drivers, 2 CPUs, rmmod, leaks"
	"mistakes|check|mistake corpus: each planted, its TODO named first"
	"driver|check|make check DRIVER=: the template renamed, wrong changes caught"
	"relocation|check|the built kit copied and moved: no kernel rebuilt"
)
profile=check
[ -z "${KIT_PROFILE:-}" ] || profile=sanitize
parts=()
declare -A gate_title=()
for g in "${gates[@]}"; do
	IFS='|' read -r name profiles title <<<"$g"
	case ",$profiles," in *",$profile,"*) parts+=("$name") ;; esac
	gate_title[$name]=$title
done
if [ "${1:-}" = --gates ]; then
	echo "${parts[*]}"
	exit 0
fi

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
# learner's loop, ...), when the whole kit is checked: the gates above of
# this run's profile.
total_passed=0 total_failed=0 total_skipped=0
# The title last and whole: it is the only column of any length.
printf '%-16s %6s %6s %7s %7s  %-18s  %s\n' stage passed failed skipped boot_s checked title
for id in "${parts[@]}" "${stages[@]}"; do
	title=${gate_title[$id]:-}
	# make check's stress run is the short one.
	[ "$id:$profile" != stress:check ] || title=${title/stress run:/stress run, short:}
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
