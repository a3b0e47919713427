#!/usr/bin/env bash
# Replay the learner's loop of the labs pages on one stage, in a work area of
# its own (KIT_WORK_DIR=build/learner-loop/work), as a learner would:
#   make start STAGE=N          the copy exists, a second start refuses
#   make check STAGE=N          checks the copy, fails, names the TODOs left
#   make boot STAGE=N           fed from a pipe: the guest runs that same module
#   paste TODO 1, make check    TODO 1's named checks now pass; and so on
#   make check STAGE=N          passes once every answer is in
#   make diff STAGE=N           the copy is the solution
#   make clean, make skeletons  the copy is untouched
# With --record, the outputs of the failing and the passing run are written
# to Documentation/labs/_captured/ for the labs pages.
# Prints TAP and "N passed, N failed".
# Usage: check-learner-loop.sh [--record] [STAGE]
set -uo pipefail

record=0
[ "${1:-}" = --record ] && { record=1; shift; }
id=${1:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/learner-copy.sh
. scripts/learner-copy.sh
# shellcheck source=scripts/stage-todos.sh
. scripts/stage-todos.sh
# shellcheck source=scripts/replay-boot.sh
. scripts/replay-boot.sh
area="$top/build/learner-loop"
export KIT_WORK_DIR="$area/work"
rm -rf "$area" && mkdir -p "$area"
lab=$(kit_stage_dir "$id")
work=$(kit_work_dir "$id")
src=$(basename "$(ls "$lab"/*.c)")
passed=0 failed=0 n=0
result() { # RC DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; passed=$((passed + 1))
	else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
check() { # OUTPUT_FILE: make check STAGE=id, output kept; returns its status
	make -s check STAGE="$id" >"$1" 2>&1
}
# Did the named test pass in the last run of the stage?
test_passed() {
	grep -qE "^ok [0-9]+ ${1//./\\.}( |$)" "$top/build/logs/$id"/*.tap
}

echo "TAP version 13"
make -s start STAGE="$id" >"$area/start.txt" 2>&1
result $? "make start STAGE=$id creates ${work#"$top"/}"
! make -s start STAGE="$id" >"$area/start-again.txt" 2>&1 && grep -q 'never overwrites' "$area/start-again.txt"
result $? "a second make start STAGE=$id refuses and says how to start over"

check "$area/failing.txt"
rc=$?
[ "$rc" != 0 ]
result $? "the untouched copy fails make check STAGE=$id"
head -n 1 "$area/failing.txt" | grep -q "checking ${work#"$top"/}/$src (your copy)"
result $? "the first line names the learner's file: $(head -n 1 "$area/failing.txt")"
todos=$(kit_stage_todos "$id" | tr '\n' ' ')
grep -q "TODOs left: $(for t in $todos; do printf '%s (line [0-9]*), ' "$t"; done | sed 's/, $//')" "$area/failing.txt"
result $? "make check lists every TODO as left: $(grep -o 'TODOs left: .*' "$area/failing.txt")"
grep -qE '^1 .*your copy$' "$area/failing.txt"
result $? "the summary table says the learner's copy was checked"

# make boot STAGE=N, its console fed from a pipe: the guest must run the very
# module make check just built from the untouched copy (not the solution),
# and one of the stage's checkers must give there what make check reported.
module=$(kit_stage_get "$id" STAGE_MODULES | awk '{ print $NF }')
program=$(kit_stage_get "$id" STAGE_CHECKS | awk '{ print $1 }')
checked_md5=$(md5sum <"$top/build/modules/$id/$module.ko" | cut -d ' ' -f 1)
scripts/replay-boot.sh "$id" "$area/boot.txt" "cat /proc/modules" \
	"md5sum /lib/modules/$module.ko" "$program" 2>"$area/boot-errors.txt"
result $? "make boot STAGE=$id, fed from a pipe, boots to its shell and powers off on exit"
grep -q "checking ${work#"$top"/}/$src (your copy)" "$area/boot.txt" &&
	grep -q "^$module .* Live" < <(boot_section "$area/boot.txt" 1)
result $? "make boot STAGE=$id builds the learner's copy and the guest has $module loaded"
booted_md5=$(boot_section "$area/boot.txt" 2 | awk -v ko="/lib/modules/$module.ko" '$2 == ko { print $1 }')
[ -n "$booted_md5" ] && [ "$booted_md5" = "$checked_md5" ]
result $? "the guest's $module.ko is the one make check STAGE=$id built"
boot_results=$(boot_section "$area/boot.txt" 3 | grep -E '^(not )?ok ')
[ -n "$boot_results" ] && [ "$boot_results" = "$(grep -E '^(not )?ok ' "$top/build/logs/$id/$program.tap")" ]
result $? "$program in the booted guest gives make check's results ($(echo "$boot_results" | grep -c '^not ok') failing)"

answered=
for t in $todos; do
	answered="$answered $t"
	left=$(for u in $todos; do [[ " $answered " == *" $u "* ]] || printf '%s,' "$u"; done)
	left=${left%,}
	if [ -n "$left" ]; then
		scripts/make-skeleton.sh "$lab/$src" "$work/$src" "$left"
	else
		cp "$lab/$src" "$work/$src"
	fi
	check "$area/after-todo$t.txt"
	checks=$(kit_todo_checks "$id" "$t")
	ok=0
	for c in $checks; do test_passed "$c" || ok=1; done
	[ -n "$checks" ] || ok=1
	result "$ok" "after pasting TODO $t's answer, its checks pass: $checks"
done
check "$area/passing.txt"
result $? "with every answer in, make check STAGE=$id passes: $(tail -n 1 "$area/passing.txt")"
grep -q 'every TODO has an answer' "$area/passing.txt"
result $? "and no TODO is listed as left"
make -s diff STAGE="$id" >"$area/diff.txt" 2>&1 && grep -q 'is the reference solution, line for line' "$area/diff.txt"
result $? "make diff STAGE=$id finds the copy identical to the solution"

sum=$(cat "$work"/* | md5sum)
make -s skeletons >/dev/null 2>&1
[ -d "$work" ] && [ "$(cat "$work"/* | md5sum)" = "$sum" ]
result $? "make skeletons leaves the copy untouched"
# make clean for real would remove this run's own logs: the commands it and
# distclean would run must not remove the learner's work area, work/.
rms=$(make -n clean distclean | grep '^rm ')
if grep -qF -e "$top/work" -e ' work' <<<"$rms"; then rc=1; else rc=0; fi
result "$rc" "make clean and make distclean never remove work/"

if [ "$record" = 1 ]; then
	out="$top/Documentation/labs/_captured"
	mkdir -p "$out"
	# The failing run: its start, its failures and its summary; paths as the
	# learner sees them (work/, not the test's area).
	for f in start failing passing; do
		sed -e "s|${KIT_WORK_DIR#"$top"/}|work|g" -e "s|$top/||g" "$area/$f.txt" >"$out/$f.txt"
	done
	echo "# recorded the outputs in ${out#"$top"/}"
fi
# Put back what the other stages' checks expect: the module built from
# whatever the default rule picks (the solution, or the real work/ copy).
KIT_WORK_DIR='' make -s modules STAGE="$id" >/dev/null 2>&1
echo "1..$n"
echo "loop $passed $failed 0 -" >"$top/build/logs/loop.result"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
