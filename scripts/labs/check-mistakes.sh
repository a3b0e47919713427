#!/usr/bin/env bash
# make check-mistakes: the mistake corpus of the labs, replayed. Each lab
# stage keeps, beside its solution, labs/NN-name/mistakes.tsv: plausible
# mistakes a learner makes in its TODOs, each with the TODO it breaks and the
# hint the verdict must give (the format is in the file's header; the guide
# lists them, Documentation/labs/mistakes.rst). Each one is planted in a copy
# of the solution, and the check proves, of the stage's checks on that copy:
#   - the stage fails;
#   - the verdict's first TODO line is the TODO the mistake breaks (no other
#     TODO named before it);
#   - the hint is shown on that line or above it (a diagnosis the verdict
#     puts first: a known kernel report, every mmap() failing with one errno).
# A compiler error ("compiler:" hint) is replayed as the learner meets it:
# `make check STAGE=N` on a work/ copy, whose output must name the learner's
# file and line, never the copy kbuild compiled.
# The others run together: one kbuild run builds a stage's planted copies,
# one guest loads, checks and unloads each in turn (scripts/labs/
# mutant-batch.sh), with the stage's checks but check_commit_charge and
# check_unload (the batch unloads each copy itself). Each copy's verdict is
# qemu/verdict.sh's, given its TAP and its part of the console log. When
# the guest goes down, the copies after the one it went down with boot
# again, and so do that one (unless it was the guest's first) and the ones
# before it whose every check passed: a copy that corrupts memory (a page
# freed while the driver still uses it) brings the guest down when the page
# is used again, which may be in a later copy's checks. Each copy boots
# again at most once; a copy the guest went down with as its first is
# judged on what it printed.
# The stages run side by side, each a job (scripts/lib/ordered-jobs.sh:
# KIT_JOBS at once); their TAP is printed in the stages' order. Writes
# build/logs/mistakes.result; the copies live in build/mistakes/.
# KIT_BEFORE_MAINLINE, when set, is a command run once before the first
# stage of the mainline kernel (make check: wait for its lane's stages, so
# that the 6.12 stages' mistakes run meanwhile).
# Usage: check-mistakes.sh [STAGE_ID...]   (default: every lab stage)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/lib/tap.sh
. "$top/scripts/lib/tap.sh"
# shellcheck source=scripts/labs/learner-copy.sh
. "$top/scripts/labs/learner-copy.sh"
# shellcheck source=scripts/lib/stage-logs.sh
. "$top/scripts/lib/stage-logs.sh"
# shellcheck source=scripts/labs/mutant-batch.sh
. "$top/scripts/labs/mutant-batch.sh"
# shellcheck source=scripts/lib/ordered-jobs.sh
. "$top/scripts/lib/ordered-jobs.sh"
logs=$(kit_build_path logs)
area="$top/build/mistakes"
kobj="$top/build/kernel" checker="$top/build/checker"
start=$(date +%s)
mkdir -p "$logs"
rm -rf "$area" && mkdir -p "$area"

# The entries of stage ID's corpus: "N<TAB>TODO<TAB>CLASS<TAB>MISTAKE<TAB>
# PLANT<TAB>HINT" lines, N counting from 1.
entries_of() { # ID
	local file
	file="$(kit_stage_dir "$1")/mistakes.tsv"
	[ -f "$file" ] || return 0
	grep -vE '^(#|$)' "$file" | awk '{ print NR "\t" $0 }'
}

# A compiler error, as the learner meets it: make check STAGE=ID on a work/
# copy with the mistake; the output must name the work/ file and line.
compiler_error() { # ID PLANT HINT DESCRIPTION
	local id=$1 plant=$2 hint=$3 work file out module_dir rc=0
	# A folder of its own per stage: the stages' jobs run side by side.
	local base="$area/compiler-$id"
	local kept="$base/kept" kept_module="$base/kept-module"
	export KIT_WORK_DIR="$base/work"
	work=$(kit_work_dir "$id")
	mkdir -p "$work" "$kept"
	cp "$(kit_stage_dir "$id")"/*.c "$work/"
	file=$(ls "$work"/*.c)
	sed -E -i "$plant" "$file"
	kit_keep_stage_logs "$id" "$kept"
	# make check STAGE=ID builds the work/ copy in build/modules/ID: the
	# folder is kept aside and put back after, so that the stage's module
	# needs no rebuild (a fresh checkout has none yet: then it is built).
	module_dir="$(kit_build_path modules)/$id"
	rm -rf "$kept_module"
	[ ! -d "$module_dir" ] || cp -a "$module_dir" "$kept_module"
	out="$area/stage-$id-compiler.out"
	if cmp -s "$file" "$(kit_stage_dir "$id")/$(basename "$file")"; then
		rc=1 && echo "the planting sed changed nothing" >"$out"
	else
		(env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make --no-print-directory check STAGE="$id") >"$out" 2>&1 && rc=1
		grep -qE "(^|/)${hint}[0-9]+:[0-9]+: error:" "$out" && ! grep -q 'build/modules/' "$out" || rc=1
	fi
	result "$rc" "$4: make check fails, naming ${hint}LINE:COLUMN" "$(grep -E 'error' "$out" | head -n 15)"
	unset KIT_WORK_DIR
	kit_put_back_stage_logs "$id" "$kept"
	rm -rf "$kept" "$work" "$module_dir"
	if [ -d "$kept_module" ]; then
		mv "$kept_module" "$module_dir"
	else
		"$top/scripts/labs/modules.sh" "$top/build/kernel" "$id" >/dev/null 2>&1 ||
			result 1 "stage $id: its module builds again from the solution"
	fi
	rm -rf "$base"
}

# The part of console log LOG that copy NAME printed: from its load to its
# unload, or to the end when the guest went down meanwhile; and the kernel's
# messages meanwhile, from the kernel log the guest prints at the end
# (between the lines "kit: mutant NAME begins" and "... ends").
console_part() { # LOG NAME
	tr -d '\r' <"$1" | awk -v b="### KIT TAP BEGIN $2.load" -v e="### KIT TAP END $2.unload" \
		-v kb="kit: mutant $2 begins" -v ke="kit: mutant $2 ends" '
		index($0, b) == 1 { on = 1 }
		index($0, kb) { on = 1 }
		on { print }
		on && (index($0, e) == 1 || index($0, ke)) { on = 0 }'
}

# Judge copy NAME of stage ID, booted in run RUN: print its verdict.
verdict_of() { # ID NAME RUN BATCH CRASHED(0/1)
	local id=$1 name=$2 run=$3 dir="$4/$2" harness=() found
	console_part "$logs/$run.log" "$name" >"$dir/console.log"
	perl "$top/qemu/tap-summary.pl" --failures "$dir/failures.tsv" "$logs/$run/$name".*.tap >/dev/null 2>&1 || true
	[ -s "$dir/failures.tsv" ] || [ -n "$(ls "$logs/$run/$name".*.tap 2>/dev/null)" ] ||
		printf 'no TAP at all\tthe guest printed nothing of this copy\n' >"$dir/failures.tsv"
	[ "$5" = 0 ] || harness+=("the guest did not run to the end (a hang, a panic, a timeout): see the end of ${logs#"$top"/}/$run.log")
	if found=$("$top/qemu/scan-kernel-log.sh" "$dir/console.log"); then :; else
		harness+=("the kernel log has: $(head -n 1 <<<"$found" | sed 's/^\[ *[0-9.]*\] //')")
	fi
	# As make check would see a learner's copy: which TODOs look unanswered.
	printf '%s\tplanted copy\n' "${dir#"$top"/}" >"$dir/.checked"
	"$top/scripts/labs/todo-status.sh" --left "$dir" "$(kit_stage_dir "$id")" >"$dir/.todos-left"
	KIT_VERDICT_STATE="$dir" "$top/qemu/verdict.sh" "$id" "$dir/failures.tsv" "$dir/console.log" "${harness[@]}" ||
		echo "# qemu/verdict.sh itself failed (exit $?)"
}

# The verdict VERDICT names TODO first, with HINT on its line or above.
verdict_names() { # VERDICT TODO HINT
	local upto
	# The verdict down to its first TODO line.
	upto=$(awk '{ print } /^#   TODO [0-9]+/ { exit }' <<<"$1")
	[ -n "$1" ] && grep -qE "^#   TODO $2 " <<<"$(tail -n 1 <<<"$upto")" && grep -qF -- "$3" <<<"$upto"
}

# Stage ID's corpus, in a job of its own: prints its TAP numbered from 1
# and writes "PASSED FAILED SKIPPED N" to $area/ID.counts.
plant_stage() { # ID
	local id=$1 entries e i todo mistake plant hint what name file batch modules
	local names=() built=() stage_kobj programs remaining round run checks next crashed verdict rc why down after_down
	local -A todo_of=() hint_of=() what_of=()
	passed=0 failed=0 skipped=0 n=0
	mapfile -t entries < <(entries_of "$id")
	if [ "$(kit_stage_kernel "$id")" = mainline ] && why=$(kit_mainline_not_ready) && [ -n "$why" ]; then
		for e in "${entries[@]}"; do
			IFS=$'\t' read -r i todo _ mistake _ _ <<<"$e"
			skip "stage $id, TODO $todo: $mistake" "$why"
		done
		echo "$passed $failed $skipped $n" >"$area/$id.counts"
		return
	fi
	batch="$area/$id" modules=$(kit_stage_get "$id" STAGE_MODULES)
	mkdir -p "$batch"
	for e in "${entries[@]}"; do
		IFS=$'\t' read -r i todo _ mistake plant hint <<<"$e"
		what="stage $id, TODO $todo: $mistake"
		case "$hint" in
		compiler:*)
			compiler_error "$id" "$plant" "${hint#compiler:}" "$what"
			continue
			;;
		esac
		name="m$i"
		mkdir -p "$batch/$name"
		cp "$(kit_stage_dir "$id")"/*.c "$(kit_stage_dir "$id")"/Kbuild "$batch/$name/"
		file=$(find "$batch/$name" -name "*.c" | head -n 1)
		sed -E -i "$plant" "$batch/$name"/*.c
		if cmp -s "$file" "$(kit_stage_dir "$id")/$(basename "$file")"; then
			result 1 "$what: planted" "the planting sed changed nothing: $plant"
			continue
		fi
		names+=("$name") todo_of[$name]=$todo hint_of[$name]=$hint what_of[$name]=$what
	done
	if [ ${#names[@]} -eq 0 ]; then
		echo "$passed $failed $skipped $n" >"$area/$id.counts"
		return
	fi
	echo "# stage $id: ${#names[@]} mistakes planted, one kbuild run, one guest"
	stage_kobj=$(kit_stage_kobj "$id" "$kobj")
	if ! kit_build_mutants "$stage_kobj" "$batch" "$modules" "$batch/build.log" "${names[@]}"; then
		for name in "${names[@]}"; do
			kit_build_mutants "$stage_kobj" "$batch" "$modules" "$batch/$name/build.log" "$name" || rm -f "$batch/$name"/*.ko
		done
	fi
	for name in "${names[@]}"; do
		if ls "$batch/$name"/*.ko >/dev/null 2>&1; then
			built+=("$name")
		else
			result 1 "${what_of[$name]}: builds" "$(grep -E 'error|warning' "$batch/$name/build.log" | head -n 10)"
		fi
	done
	# Every copy's checker programs: the stage's, as the skeleton's in the
	# TODO proof.
	programs=$(kit_stage_get "$id" STAGE_CHECKS | tr ' ' '\n' | grep -vxE 'check_commit_charge|check_unload' | paste -sd,)
	remaining=("${built[@]}") round=0
	local -A retried=()
	while [ ${#remaining[@]} -gt 0 ]; do
		round=$((round + 1))
		run="mistakes-$id-$round"
		checks=$(for name in "${remaining[@]}"; do printf '%s=%s ' "$name" "$programs"; done)
		kit_boot_mutants "$kobj" "$checker" "$id" "$batch" "$run" "$checks" "${remaining[@]}" >"$batch/$run.out" || true
		# The copy the guest went down with, if it did (the first without
		# its unload TAP).
		down=
		for name in "${remaining[@]}"; do
			[ -e "$logs/$run/$name.unload.tap" ] || { down=$name && break; }
		done
		next=() after_down=0
		for name in "${remaining[@]}"; do
			[ "$name" != "$down" ] || after_down=1
			crashed=0
			if [ "$after_down" = 1 ]; then
				if [ "$name" != "$down" ] || { [ "$name" != "${remaining[0]}" ] && [ -z "${retried[$name]:-}" ]; }; then
					# Boot again: the copies after the one the guest went
					# down with, and that one too unless it was the
					# guest's first (a copy before it may have done the
					# damage).
					next+=("$name") retried[$name]=1
					continue
				fi
				# The guest went down with this copy: judged on what it
				# printed.
				crashed=1
			fi
			verdict=$(verdict_of "$id" "$name" "$run" "$batch" "$crashed")
			if [ -n "$down" ] && [ "$after_down" = 0 ] && [ -z "$verdict" ] && [ -z "${retried[$name]:-}" ]; then
				# Every check passed, and a later copy's guest went down:
				# a copy that corrupts memory brings the guest down when
				# the page is used again, maybe after its own checks.
				# Booted again, first.
				next=("$name" "${next[@]}") retried[$name]=1
				continue
			fi
			echo "$verdict" >"$batch/$name/verdict"
			rc=0
			verdict_names "$verdict" "${todo_of[$name]}" "${hint_of[$name]}" || rc=1
			TAP_DETAIL="head" result "$rc" "${what_of[$name]}: fails, names TODO ${todo_of[$name]} first, says \"${hint_of[$name]}\"" \
				"${verdict:-(no verdict: every check passed)}"
		done
		remaining=("${next[@]}")
	done
	echo "$passed $failed $skipped $n" >"$area/$id.counts"
}

# Each stage a job (scripts/lib/ordered-jobs.sh): its TAP printed in the
# stages' order, renumbered after the stages before it.
kit_job_done() { # ID OUT
	local p f s k
	awk -v off="$n" '/^(not )?ok [0-9]+ / { sub(/[0-9]+/, $(/^not/ ? 3 : 2) + off) } { print }' "$2"
	read -r p f s k <"$area/$1.counts" 2>/dev/null || { p=0 f=1 s=0 k=1 && echo "not ok $((n + 1)) - stage $1: its job of the corpus ended early (see $2)"; }
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s)) n=$((n + k))
}

echo "TAP version 13"
# shellcheck disable=SC2046 # ids are single words
[ $# -gt 0 ] || set -- $(kit_stage_ids)
total=0
for id; do
	[ -f "$(kit_stage_dir "$id")/mistakes.tsv" ] || continue
	total=$((total + $(entries_of "$id" | wc -l)))
	if [ "$(kit_stage_kernel "$id")" = mainline ] && [ -n "${KIT_BEFORE_MAINLINE:-}" ]; then
		# shellcheck disable=SC2086 # a command and its words
		$KIT_BEFORE_MAINLINE
		KIT_BEFORE_MAINLINE=
	fi
	rm -f "$area/$id.counts"
	kit_job "$id" "$area/$id.out" plant_stage "$id"
done
kit_jobs_finish
echo "1..$n"
echo "# $total mistakes in the corpus; $passed passed, $failed failed, $skipped skipped"
echo "mistakes $passed $failed $skipped $(($(date +%s) - start))" >"$logs/mistakes.result"
[ "$failed" = 0 ]
