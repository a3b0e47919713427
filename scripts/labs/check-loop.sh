#!/usr/bin/env bash
# Replay the learner's loop of the labs pages on one stage, in a work area of
# its own (KIT_WORK_DIR=build/learner-loop/work), as a learner would:
#   make start STAGE=N          the copy exists, a second start refuses
#   make check STAGE=N          checks the copy, fails, names the TODOs left
#   make boot STAGE=N           fed from a pipe: the guest runs that same module
#   paste TODO 1 (then 2, ...)  TODO 1's named checks now pass; and so on
#                               (the pasted copies checked in one guest)
#   make check STAGE=N          passes once every answer is in
#   make check STAGE=N SOLUTION=1  checks the solution instead, passes
#   make diff STAGE=N           the copy is the solution
#   rm -r work/NN-name, make start  a fresh skeleton
#   make clean, make skeletons  the copy is untouched
# With --record, the outputs of the failing and the passing run are written
# to Documentation/labs/_captured/ for the labs pages (stage 1's, which the
# pages show; on stage 1 a run without --record compares them instead).
# With --quick, only start, the failing check, every answer pasted at once,
# the passing check and diff: make check replays that much on a mainline
# stage, where the copy is built against the mainline kernel.
# --result NAME names the summary row (default: loop).
# Prints TAP and "N passed, N failed".
# Usage: check-loop.sh [--record] [--quick] [--result NAME] [STAGE]
set -uo pipefail

record=0 quick=0 row=loop
while :; do
	case "${1:-}" in
	--record) record=1 && shift ;;
	--quick) quick=1 && shift ;;
	--result) row=${2:?--result needs a NAME} && shift 2 ;;
	*) break ;;
	esac
done
id=${1:-1}
# The stage whose outputs the labs pages show (Documentation/labs/_captured/).
captured_stage=1
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/labs/learner-copy.sh
. scripts/labs/learner-copy.sh
# shellcheck source=qemu/stages.sh
. qemu/stages.sh
# shellcheck source=scripts/lib/stage-logs.sh
. scripts/lib/stage-logs.sh
# shellcheck source=scripts/labs/replay-boot.sh
. scripts/labs/replay-boot.sh
# shellcheck source=scripts/labs/mutant-batch.sh
. scripts/labs/mutant-batch.sh
# The learner runs make from a shell, not from inside make (make check,
# make record-loop): what our makes print must be what theirs prints.
unset MAKELEVEL MAKEFLAGS MFLAGS
area="$top/build/learner-loop"
[ "$row" = loop ] || area="$area-${row#loop-}"
export KIT_WORK_DIR="$area/work"
rm -rf "$area" && mkdir -p "$area"
lab=$(kit_stage_dir "$id")
work=$(kit_work_dir "$id")
src=$(basename "$(ls "$lab"/*.c)")
passed=0 failed=0 n=0
# The loop's own make check runs write the stage's log, TAP and result over
# those of make check's real run of the stage: keep them and put them back
# at the end, so that the summary's row for the stage is the real run's.
kept="$area/kept-logs"
kit_keep_stage_logs "$id" "$kept"
# Put back what the other stages' checks expect (the module built from
# whatever the default rule picks: the solution, or the real work/ copy; the
# stage's logs of the real run), then the plan, the row and the summary;
# exits with the loop's status.
finish() {
	KIT_WORK_DIR='' make -s modules STAGE="$id" >/dev/null 2>&1
	kit_put_back_stage_logs "$id" "$kept"
	echo "1..$n"
	echo "$row $passed $failed 0 -" >"$top/build/logs/$row.result"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}
result() { # RC DESCRIPTION [DETAIL: printed under a failure]
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; passed=$((passed + 1))
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -z "${3:-}" ] || while IFS= read -r line; do echo "#   $line"; done <<<"$3"
	fi
}
check() { # OUTPUT_FILE: make check STAGE=id, output kept; returns its status
	make -s check STAGE="$id" >"$1" 2>&1
}

echo "TAP version 13"
why=
[ "$(kit_stage_get "$id" STAGE_KERNEL)" != mainline ] || why=$(kit_mainline_unavailable)
if [ -n "$why" ]; then
	echo "ok 1 - the learner's loop on stage $id # SKIP $why"
	echo "1..1"
	echo "$row 0 0 1 -" >"$top/build/logs/$row.result"
	exit 0
fi
make -s start STAGE="$id" >"$area/start.txt" 2>&1
result $? "make start STAGE=$id creates ${work#"$top"/}"
! make -s start STAGE="$id" >"$area/start-again.txt" 2>&1 && grep -q 'never overwrites' "$area/start-again.txt"
result $? "a second make start STAGE=$id refuses and says how to start over"

check "$area/failing.txt"
rc=$?
result "$((rc == 0))" "the untouched copy fails make check STAGE=$id"
head -n 1 "$area/failing.txt" | grep -q "checking ${work#"$top"/}/$src (your copy)"
result $? "the first line names the learner's file: $(head -n 1 "$area/failing.txt")"
todos=$(kit_stage_todos "$id" | tr '\n' ' ')
grep -q "TODOs left: $(for t in $todos; do printf '%s (line [0-9]*), ' "$t"; done | sed 's/, $//')" "$area/failing.txt"
result $? "make check lists every TODO as left: $(grep -o 'TODOs left: .*' "$area/failing.txt")"
grep -qE "^$id .*  your copy  " "$area/failing.txt"
result $? "the summary table says the learner's copy was checked"

# Every answer pasted at once, the copy then passes and is the solution.
quick_finish() {
	cp "$lab/$src" "$work/$src"
	check "$area/passing.txt"
	result $? "with every answer pasted, make check STAGE=$id passes: $(tail -n 1 "$area/passing.txt")"
	make -s diff STAGE="$id" >"$area/diff.txt" 2>&1 && grep -q 'is the reference solution, line for line' "$area/diff.txt"
	result $? "make diff STAGE=$id finds the copy identical to the solution"
	finish
}
[ "$quick" = 0 ] || quick_finish

# Whether two results are the same, and not empty.
same_and_set() { [ -n "$1" ] && [ "$1" = "$2" ]; }

# make boot STAGE=N, its console fed from a pipe: the guest must run the very
# module make check just built from the untouched copy (not the solution),
# and one of the stage's checkers must give there what make check reported.
module=$(kit_stage_get "$id" STAGE_MODULES | awk '{ print $NF }')
program=$(kit_stage_get "$id" STAGE_CHECKS | awk '{ print $1 }')
checked_md5=$(md5sum <"$top/build/modules/$id/$module.ko" | cut -d ' ' -f 1)
scripts/labs/replay-boot.sh "$id" "$area/boot.txt" "cat /proc/modules" \
	"md5sum /lib/modules/$module.ko" "$program" 2>"$area/boot-errors.txt"
result $? "make boot STAGE=$id, fed from a pipe, boots to its shell and powers off on exit"
grep -q "checking ${work#"$top"/}/$src (your copy)" "$area/boot.txt" &&
	grep -q "^$module .* Live" < <(boot_section "$area/boot.txt" 1)
result $? "make boot STAGE=$id builds the learner's copy and the guest has $module loaded"
booted_md5=$(boot_section "$area/boot.txt" 2 | awk -v ko="/lib/modules/$module.ko" '$2 == ko { print $1 }')
same_and_set "$booted_md5" "$checked_md5"
result $? "the guest's $module.ko is the one make check STAGE=$id built"
boot_results=$(boot_section "$area/boot.txt" 3 | grep -E '^(not )?ok ')
same_and_set "$boot_results" "$(grep -E '^(not )?ok ' "$top/build/logs/$id/$program.tap")"
result $? "$program in the booted guest gives make check's results ($(echo "$boot_results" | grep -c '^not ok') failing)"

# SOLUTION=1 (the stage loop's include, the workshop's set-up check): the
# reference solution, not the copy, and it passes.
make -s check STAGE="$id" SOLUTION=1 >"$area/solution.txt" 2>&1
rc=$?
[ "$rc" = 0 ] && head -n 1 "$area/solution.txt" | grep -q "checking ${lab#"$top"/}/$src (reference solution)" &&
	grep -qE "^$id .*  reference solution  " "$area/solution.txt" || rc=1
result "$rc" "make check STAGE=$id SOLUTION=1 checks the reference solution beside the copy, and passes: $(tail -n 1 "$area/solution.txt")"

# The answers pasted one by one, as the pages go: after TODO t's answer
# (and those before it), TODO t's named checks pass. The learner runs make
# check after each; here the copies (build/learner-loop/pasted/tN/) are
# built in one kbuild run and checked in one guest, as the TODO proof
# checks its mutants (scripts/labs/mutant-batch.sh: the stage's programs
# but check_commit_charge and check_unload, which hold no TODO's check).
# make check itself runs on the learner's copy before (untouched) and after
# (every answer in).
batch="$area/pasted" names=() answered=
modules=$(kit_stage_get "$id" STAGE_MODULES)
programs=$(kit_stage_get "$id" STAGE_CHECKS | tr ' ' '\n' | grep -vxE 'check_commit_charge|check_unload' | paste -sd,)
for t in $todos; do
	answered="$answered $t"
	left=$(for u in $todos; do [[ " $answered " == *" $u "* ]] || printf '%s,' "$u"; done)
	left=${left%,}
	mkdir -p "$batch/t$t"
	cp "$lab"/*.c "$lab/Kbuild" "$batch/t$t/"
	[ -z "$left" ] || scripts/labs/make-skeleton.sh "$lab/$src" "$batch/t$t/$src" "$left"
	names+=("t$t")
done
run="learner-loop-pasted-$id"
rm -rf "$top/build/logs/$run"
if kit_build_mutants "$(kit_stage_kobj "$id" "$top/build/kernel")" "$batch" "$modules" "$batch/build.log" "${names[@]}"; then
	kit_boot_mutants "$top/build/kernel" "$top/build/checker" "$id" "$batch" "$run" \
		"$(for name in "${names[@]}"; do printf '%s=%s ' "$name" "$programs"; done)" "${names[@]}" >"$batch/boot.txt" 2>&1
fi
# Did the named test pass (not skip) in copy NAME of that guest?
pasted_passed() { # NAME TEST
	awk -v t="$2" '$1 == "ok" && $3 == t && !/# SKIP/ { found = 1 } END { exit !found }' "$top/build/logs/$run/$1".*.tap 2>/dev/null
}
for t in $todos; do
	checks=$(kit_todo_checks "$id" "$t")
	ok=0
	for c in $checks; do pasted_passed "t$t" "$c" || ok=1; done
	[ -n "$checks" ] || ok=1
	result "$ok" "after pasting TODO $t's answer, its checks pass: $checks" \
		"$(grep -hE '^not ok' "$top/build/logs/$run/t$t".*.tap 2>/dev/null; tail -n 5 "$batch/build.log" 2>/dev/null)"
done
cp "$lab/$src" "$work/$src"
check "$area/passing.txt"
result $? "with every answer in, make check STAGE=$id passes: $(tail -n 1 "$area/passing.txt")"
grep -q 'every TODO has an answer' "$area/passing.txt"
result $? "and no TODO is listed as left"
make -s diff STAGE="$id" >"$area/diff.txt" 2>&1 && grep -q 'is the reference solution, line for line' "$area/diff.txt"
result $? "make diff STAGE=$id finds the copy identical to the solution"

# Starting over, as the labs index says: rm -r work/NN-name, make start.
rm -r "$work" && make -s start STAGE="$id" >"$area/start-over.txt" 2>&1 &&
	scripts/labs/make-skeleton.sh "$lab/$src" "$area/skeleton.c" &&
	cmp -s "$work/$src" "$area/skeleton.c"
result $? "rm -r ${work#"$top"/}, then make start STAGE=$id: a fresh skeleton again"

sum=$(cat "$work"/* | md5sum)
make -s skeletons >/dev/null 2>&1
rc=0
[ -d "$work" ] && [ "$(cat "$work"/* | md5sum)" = "$sum" ] || rc=1
result "$rc" "make skeletons leaves the copy untouched"
# make clean for real would remove this run's own logs: the commands it and
# distclean would run must not remove the learner's work area, work/.
rms=$(make -n clean distclean | grep '^rm ')
if grep -qF -e "$top/work" -e ' work' <<<"$rms"; then rc=1; else rc=0; fi
result "$rc" "make clean and make distclean never remove work/"

# The outputs the labs pages show (Documentation/labs/_captured/), as the
# learner sees them: paths under work/, not the test's area.
captured="$top/Documentation/labs/_captured"
as_learner_sees() { # FILE
	sed -e "s|${KIT_WORK_DIR#"$top"/}|work|g" -e "s|$top/||g" "$1"
}
if [ "$id" != "$captured_stage" ]; then
	[ "$record" = 0 ] || echo "# nothing recorded: the labs pages show stage $captured_stage's outputs"
elif [ "$record" = 1 ]; then
	mkdir -p "$captured"
	for f in start failing passing; do
		as_learner_sees "$area/$f.txt" >"$captured/$f.txt"
	done
	echo "# recorded the outputs in ${captured#"$top"/}"
else
	# Numbers (times, addresses, counts) aside, they must be this run's:
	# a changed message or table format makes the pages lie until make
	# record-loop records them again.
	# Numbers and the accelerator of the guests (KVM or TCG, and why) aside.
	numbers_aside() { sed -E 's/ under (KVM|TCG) \([^)]*\);/ under ACCEL;/; s/0x[0-9a-fA-F]+/0xH/g; s/[0-9]+(\.[0-9]+)?/N/g; s/[[:space:]]+/ /g'; }
	for f in start failing passing; do
		drift=$(diff <(numbers_aside <"$captured/$f.txt") <(as_learner_sees "$area/$f.txt" | numbers_aside) | head -n 8)
		rc=0
		[ -z "$drift" ] || rc=1
		result "$rc" "the labs pages' recorded ${f}.txt is what this run printed, numbers aside (else: make record-loop)" "$drift"
	done
fi
finish
