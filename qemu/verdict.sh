#!/usr/bin/env bash
# The verdict that ends a failing stage: each failing test by name, with a
# one-line hint. A test that proves a TODO (STAGE_TODO_CHECKS) points at that
# TODO in the file that was checked (the learner's copy, else the solution:
# build/modules/ID/.checked), the TODO's line ending with the message of its
# first failing test; any other test gives the last line it logged.
# Failures of the harness's own checks (the guest did not finish, the kernel
# log) say what to look at. What is diagnosed comes first: a kernel report
# with a known cause (an oops, a warning), else every mmap() refused with
# one errno, with its likely causes. A test that runs once per device (a
# stage with two) is named once on its TODO's line.
# Usage: verdict.sh STAGE_ID FAILURES_FILE CONSOLE_LOG [HARNESS_FAILURE...]
#   FAILURES_FILE: "TEST<TAB>MESSAGE" lines (qemu/tap-summary.pl --failures)
set -euo pipefail

id=$1 failures=$2 log=$3
shift 3
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/stages.sh"
max=12

# Where the checked sources are, relative to the kit when inside it.
modules=$(kit_build_path modules)
checked=$(cut -f1 "$modules/$id/.checked" 2>/dev/null || true)
which=$(cut -f2 "$modules/$id/.checked" 2>/dev/null || true)
case "$checked" in
/*) src_dir=$checked ;;
'') src_dir=$(kit_stage_dir "$id" 2>/dev/null || true) ;;
*) src_dir="$kit_root/$checked" ;;
esac

# "TODO n (file:line): its text", from the marker in the checked file.
todo_hint() { # N
	local marker file rest line text
	marker=$(grep -Hn "TODO $1/[0-9]*:" "$src_dir"/*.c 2>/dev/null | head -n 1) || true
	[ -n "$marker" ] || { echo "TODO $1" && return 0; }
	file=${marker%%:*} rest=${marker#*:}
	line=${rest%%:*} text=${rest#*TODO "$1"/*:}
	text=${text%%\*/*}
	echo "TODO $1 (${file#"$kit_root"/}:$line):${text% }"
}

# The TODOs a failing test is laid on: those of STAGE_TODO_CHECKS that name
# it; where several do (stage 4's TODO 3 installs the hooks TODOs 1 and 2
# write), the ones the learner has not answered yet
# (build/modules/ID/.todos-left, from scripts/labs/modules.sh), else all.
todos_left=$(cat "$modules/$id/.todos-left" 2>/dev/null || true)
todos_of() { # TEST
	local n all open=()
	mapfile -t all < <(kit_todos_of "$id" "$1")
	for n in "${all[@]}"; do
		! grep -qx "$n" <<<"$todos_left" || open+=("$n")
	done
	if [ ${#open[@]} -gt 0 ]; then echo "${open[*]}"; else echo "${all[*]}"; fi
}

# Tests that prove a TODO, grouped under it; the others, with their message.
# A TODO's line ends with the first of its tests' messages: the reason is
# there, not only in the test's output far above.
declare -A by_todo=() why_todo=()
others=()
count=0
plain_refused=
while IFS=$'\t' read -r test message; do
	[ -n "$test" ] || continue
	count=$((count + 1))
	# The plainest request refused: "every mmap() fails" below.
	[ "$test" != bad.whole_region_maps ] || plain_refused=$message
	todos=$(todos_of "$test")
	if [ -n "$todos" ]; then
		for n in $todos; do
			# A stage with two devices runs each test twice: one name each.
			case ", ${by_todo[$n]:-}," in
			*", $test,"*) ;;
			*) by_todo[$n]="${by_todo[$n]:+${by_todo[$n]}, }$test" ;;
			esac
			[ -n "${why_todo[$n]:-}" ] || [ -z "$message" ] || why_todo[$n]="$test: $message"
		done
	else
		case "$test" in
		*": "*) others+=("$test${message:+: $message}") ;; # a description already
		*) others+=("$test: ${message:-see its lines above}") ;;
		esac
	fi
done <"$failures"
# First what is diagnosed: kernel reports with a known cause (the mistake,
# and what to write), else every mmap() refused with one errno.
lines=()
known() { # ERE HINT
	! grep -aqE "$1" "$log" 2>/dev/null || lines+=("$2")
}
known 'Bad pagetable' "the guest oopsed with \"Bad pagetable\": a physical address was passed where a PFN is expected; a PFN is the address >> PAGE_SHIFT (page_to_pfn(), PHYS_PFN())"
known 'WARNING: .* mmap_action_finish' "the kernel warned in mmap_action_finish(): the error hook returned a positive value; return a negative errno (-EAGAIN, not EAGAIN)"
known 'WARNING: .*(check_mmap_action|mmap_action_prepare)' "the kernel warned in mmap_action_prepare(): desc->action.error_override is positive; set a negative errno (-EAGAIN, not EAGAIN)"
if [ ${#lines[@]} = 0 ] && [[ "$plain_refused" =~ failed:\ (E[A-Z0-9]+) ]]; then
	errno=${BASH_REMATCH[1]}
	case "$errno" in
	EPERM) likely="an exec test on VM_MAYEXEC (set on nearly every mapping) where VM_EXEC is meant, or one the wrong way round" ;;
	EINVAL) likely="a flag test given the old mask where a VMA_*_BIT number is meant (vma_desc_test(desc, VM_MAYSHARE)), VM_SHARED where VM_MAYSHARE is meant, a range check comparing pages with bytes or testing the wrong way round" ;;
	*) likely="a test the wrong way round, or an error returned where 0 is meant" ;;
	esac
	lines+=("every mmap() fails with $errno, the plainest one included (bad.whole_region_maps): a refusal that refuses everything. Likely: $likely")
fi
for n in $(printf '%s\n' "${!by_todo[@]}" | sort -n); do
	why=${why_todo[$n]:-}
	# "[fails a: its message]", or "[fails a, b; a: its message]".
	if [ "${why%%: *}" = "${by_todo[$n]}" ]; then why=": ${why#*: }"; else why=${why:+; $why}; fi
	lines+=("$(todo_hint "$n") [fails ${by_todo[$n]}$why]")
done
more=0
for o in "${others[@]}"; do
	if [ "${#lines[@]}" -ge "$max" ]; then more=$((more + 1)); else lines+=("$o"); fi
done
for h in "$@"; do
	count=$((count + 1))
	lines+=("$h")
done
[ "$count" -gt 0 ] || exit 0
echo "#"
echo "# stage $id: $count failing; ${which:-its sources}${checked:+, $checked}:"
for l in "${lines[@]}"; do echo "#   $l"; done
[ "$more" = 0 ] || echo "#   ... and $more more (above)"
echo "#"
