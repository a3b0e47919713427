#!/usr/bin/env bash
# Prove that every TODO of every lab stage is checked (mutation proof):
#  - for each TODO N of a stage (STAGE_TODO_CHECKS in its stage.conf), the
#    solution with only TODO N's answer removed builds, boots, and fails at
#    least one of the checks named for N (a "not ok" line of that test: a
#    guest that crashes does not count);
#  - the untouched skeleton fails some checks (how many is printed).
# One kbuild run and one guest per stage: kbuild builds every mutant of the
# stage at once, each in a folder of its own (a build per mutant would pay
# kbuild's start-up, about 2 s, each time); the guest loads each mutant in
# turn, runs the checker programs its named checks belong to, and unloads it
# (qemu/guest-init.sh, STAGE_MUTANTS). When the joint build fails, each
# mutant is built alone, to tell which one does not build; when that guest
# does not run cleanly, one guest per mutant instead. Stages are proved
# side by side, KIT_JOBS at once (default: the number of cores; make check
# runs the 6.12 stages' proof last, where the other lane may have ended):
# each stage's kbuild and guest are one core's work. Prints a table per
# stage (in order, each once it is done) and TAP, ends with "N passed, N
# failed" and writes build/logs/NAME.result (--result NAME, default todos)
# for the summary table of make check.
# Usage: check-todos.sh [--result NAME] KERNEL_OBJ_DIR CHECKER_DIR [STAGE_ID...]
#        (default: every lab stage)
set -uo pipefail

result_name=todos
if [ "${1:-}" = --result ]; then
	result_name=$2
	shift 2
fi
kobj=$(realpath "$1") checker=$(realpath "$2")
shift 2
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/../../qemu/stages.sh"
# shellcheck source=scripts/labs/mutant-batch.sh
. "$here/mutant-batch.sh"
# shellcheck source=scripts/lib/ordered-jobs.sh
. "$here/../lib/ordered-jobs.sh"
logs="$kit_root/build/logs"
mutants="$kit_root/build/mutants"
mkdir -p "$logs" "$mutants"
start=$(date +%s)
passed=0 failed=0 skipped=0 n=0 tap=() waited=0

# A stage's results are written by its job, one line each: "0 TAB
# DESCRIPTION" (passed), "1 TAB ..." (failed) or "skip TAB ... # SKIP WHY",
# and counted once the job is done (tally).
results_of() { echo "$mutants/$1.results"; }
result() { # OK(0/1/skip) DESCRIPTION (in a stage's job: $stage_results)
	printf '%s\t%s\n' "$1" "$2" >>"$stage_results"
}
tally() { # RESULTS_FILE
	local ok desc
	while IFS=$'\t' read -r ok desc; do
		n=$((n + 1))
		case "$ok" in
		0) tap+=("ok $n - $desc") && passed=$((passed + 1)) ;;
		skip) tap+=("ok $n - $desc") && skipped=$((skipped + 1)) ;;
		*) tap+=("not ok $n - $desc") && failed=$((failed + 1)) ;;
		esac
	done <"$1"
}

# The checker program that defines the fixture of a test "fixture.test".
program_of() {
	grep -l "^FIXTURE(${1%%.*})" "$kit_root"/labs/checker/check_*.c | head -n 1 | xargs -r basename | sed 's/\.c$//'
}

# Write the sources of the mutant of stage dir $1 (TODO $2, or "" for the
# whole skeleton) into the new folder $3.
write_mutant() {
	rm -rf "$3" && mkdir -p "$3"
	cp "$1/Kbuild" "$3/"
	for c in "$1"/*.c; do
		"$here/make-skeleton.sh" "$c" "$3/$(basename "$c")" "$2" || return 1
	done
}

# Boot stage $1 with the modules of $2 and the checks $3; logs under run $4.
boot_mutant() {
	local conf="$2/stage.conf"
	kit_conf_override "$(kit_stage_conf "$1")" "$conf" STAGE_CHECKS="$3"
	KIT_STAGE_CONF="$conf" KIT_MODULE_DIR="$2" KIT_RUN_NAME="$4" \
		"$kit_root/qemu/run-stage.sh" "$kobj" "$checker" "$1" >/dev/null 2>&1
	return 0
}

# The proof of stage ID (a job of its own: prints its table, writes its
# results to $stage_results).
prove_stage() { # ID
	local id=$1 dir stage_checks markers stage_kobj batch modules t name p c
	local written=() names=() assign=() run batched skeleton_checks skeleton_built
	local checks verdict why taps bad total rc out
	local -A why_not=() progs_of=()
	dir=$(kit_stage_dir "$id")
	stage_checks=$(kit_stage_get "$id" STAGE_CHECKS)
	markers=$(kit_stage_todos "$id")
	stage_kobj=$(kit_stage_kobj "$id" "$kobj")
	echo ">> stage $id: $(echo "$markers" | wc -w) TODOs, one mutant each, and the skeleton, in one guest"
	# 1. Write every mutant (and the skeleton) into a folder of the batch,
	# $batch/todoN/ and $batch/skeleton/, and build them.
	batch="$mutants/$id"
	modules=$(kit_stage_get "$id" STAGE_MODULES)
	rm -rf "$batch" && mkdir -p "$batch"
	for t in $markers; do
		if [ -z "$(kit_todo_checks "$id" "$t")" ]; then
			why_not[$t]="has no checks named in STAGE_TODO_CHECKS"
		elif write_mutant "$dir" "$t" "$batch/todo$t"; then
			written+=("todo$t")
		else
			why_not[$t]="cannot be generated (scripts/labs/make-skeleton.sh failed)"
		fi
	done
	write_mutant "$dir" "" "$batch/skeleton" && written+=(skeleton)
	if [ ${#written[@]} -gt 0 ] && ! kit_build_mutants "$stage_kobj" "$batch" "$modules" "$batch/build.log" "${written[@]}"; then
		# One of them does not build: build each alone to tell which.
		for name in "${written[@]}"; do
			kit_build_mutants "$stage_kobj" "$batch" "$modules" "$batch/$name/build.log" "$name" || rm -f "$batch/$name"/*.ko
		done
	fi
	for t in $markers; do
		[ -z "${why_not[$t]:-}" ] || continue
		if ! ls "$batch/todo$t"/*.ko >/dev/null 2>&1; then
			why_not[$t]="does not build (see $batch/todo$t/build.log)"
			continue
		fi
		progs_of[$t]=$(for c in $(kit_todo_checks "$id" "$t"); do program_of "$c"; done | awk '!seen[$0]++' | tr '\n' ' ')
		p=${progs_of[$t]% }
		names+=("todo$t") assign+=("todo$t=${p// /,}")
	done
	# The skeleton runs all of the stage's checks but check_commit_charge,
	# which tests the kernel's accounting rather than the driver (and is the
	# slowest), and check_unload (the batch unloads each mutant itself).
	skeleton_checks=$(echo "$stage_checks" | tr ' ' '\n' | grep -vxE 'check_commit_charge|check_unload' | tr '\n' ' ')
	skeleton_built=0
	if ls "$batch/skeleton"/*.ko >/dev/null 2>&1; then
		skeleton_built=1
		p=${skeleton_checks% }
		names+=(skeleton) assign+=("skeleton=${p// /,}")
	fi
	# 2. One guest loads, checks and unloads them in turn. If it did not
	# run to the end with a clean log, or a mutant did not load or unload,
	# each mutant gets a guest of its own instead.
	run="mutant-$id-batch"
	batched=0
	if [ ${#names[@]} -gt 0 ]; then
		out=$(kit_boot_mutants "$kobj" "$checker" "$id" "$batch" "$run" "${assign[*]}" "${names[@]}")
		# The harness's own two tests ("ID: guest ran every check ...",
		# "ID: kernel log has no WARNING ...") must pass; the mutants'
		# checks are meant to fail.
		if ! grep -qF "not ok - $id: " <<<"$out" &&
			! grep -qsE '^not ok ' "$logs/$run"/*.load.tap "$logs/$run"/*.unload.tap; then
			batched=1
		else
			echo "   (the one-guest batch did not run cleanly, see build/logs/$run.log: one guest per mutant)"
		fi
	fi
	# The TAP files of mutant M: its sections of the batch, or its own run.
	mutant_taps() { # NAME
		if [ "$batched" = 1 ]; then
			ls "$logs/$run/$1".*.tap 2>/dev/null
		else
			ls "$logs/mutant-$id-$1"/*.tap 2>/dev/null
		fi
	}
	# 3. The verdicts.
	printf '   %-6s %-70s %s\n' TODO "named checks" "fails without the answer"
	for t in $markers; do
		checks=$(kit_todo_checks "$id" "$t")
		verdict=no why=${why_not[$t]:-}
		if [ -z "$why" ]; then
			[ "$batched" = 1 ] || boot_mutant "$id" "$batch/todo$t" "${progs_of[$t]% }" "mutant-$id-todo$t"
			mapfile -t taps < <(mutant_taps "todo$t")
			# A check that fails because the module never loaded proves
			# nothing about the answer (the batch already makes sure of it).
			if [ "$batched" = 0 ] && [ ${#taps[@]} -gt 0 ] && grep -qE '^not ok [0-9]+ insmod ' "${taps[@]}"; then
				taps=() why="does not load (see build/logs/mutant-$id-todo$t): its failed checks prove nothing"
			fi
			for c in $checks; do
				if [ ${#taps[@]} -gt 0 ] && grep -qE "^not ok [0-9]+ ${c//./\\.}( |$)" "${taps[@]}"; then
					verdict=yes why="fails $c"
					break
				fi
			done
			[ "$verdict" = yes ] || why=${why:-"every named check passed or never ran (see build/logs/$run)"}
		fi
		printf '   %-6s %-70.70s %s\n' "$t" "$checks" "$verdict ($why)"
		rc=0
		[ "$verdict" = yes ] || rc=1
		result "$rc" "stage $id TODO $t: the solution without its answer $why"
	done
	if [ "$skeleton_built" = 1 ]; then
		[ "$batched" = 1 ] || boot_mutant "$id" "$batch/skeleton" "${skeleton_checks% }" "mutant-$id-skeleton"
		mapfile -t taps < <(mutant_taps skeleton | grep -vE '\.(load|unload)\.tap$')
		bad=0 total=0
		if [ ${#taps[@]} -gt 0 ]; then
			bad=$(cat "${taps[@]}" | grep -cE '^not ok [0-9]+ ')
			total=$(cat "${taps[@]}" | grep -cE '^(not )?ok [0-9]+ ')
		fi
		echo "   skeleton: $bad of its $total checks fail"
		rc=0
		[ "$bad" -gt 0 ] || rc=1
		result "$rc" "stage $id: the untouched skeleton fails $bad of $total checks"
	else
		result 1 "stage $id: the untouched skeleton does not build (see $batch/skeleton/build.log)"
	fi
}

# Each lab stage a job (scripts/lib/ordered-jobs.sh): its table printed and
# its results counted in the stages' order.
kit_job_done() { # ID OUT
	cat "$2"
	tally "$(results_of "$1")"
}
# A mainline stage without its kernel: one skip.
skip_stage() { # ID WHY
	echo ">> stage $1: skipped: it runs on the mainline kernel, and $2"
	result skip "stage $1: every TODO # SKIP $2"
}
# shellcheck disable=SC2046 # ids are single words
[ $# -gt 0 ] || set -- $(kit_stage_ids)
for id; do
	case "$(kit_stage_dir "$id")" in "$kit_root"/labs/[0-9][0-9]-*) ;; *) continue ;; esac
	stage_results=$(results_of "$id")
	: >"$stage_results"
	if [ "$(kit_stage_kernel "$id")" = mainline ]; then
		# make check builds it in the background meanwhile; waited for
		# here, not in the stages' jobs.
		wait_start=$(date +%s)
		"$here/../kernel/kernel-mainline.sh" --wait 2>&1 | sed "s/^/   /" || true
		waited=$((waited + $(date +%s) - wait_start))
		why=$(kit_mainline_unavailable)
		if [ -n "$why" ]; then
			kit_job "$id" "$mutants/$id.out" skip_stage "$id" "$why"
			continue
		fi
	fi
	kit_job "$id" "$mutants/$id.out" prove_stage "$id"
done
kit_jobs_finish

# The proof's own time: without the wait for the mainline kernel, which
# make check builds in the background meanwhile.
secs=$(($(date +%s) - start - waited))
echo "TAP version 13"
printf '%s\n' "${tap[@]}"
echo "1..$n"
echo "# TODO mutation proof: ${secs} s (plus ${waited} s waiting for the mainline kernel build)"
echo "$result_name $passed $failed $skipped $secs" >"$logs/$result_name.result"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
