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
# When every mmap() is refused with one errno, the TODOs that refuse with it
# (STAGE_TODO_ERRNOS, "N=ERRNO,...") are named first.
# Usage: verdict.sh STAGE_ID FAILURES_FILE CONSOLE_LOG [HARNESS_FAILURE...]
#   FAILURES_FILE: "TEST<TAB>MESSAGE" lines (qemu/tap-summary.pl --failures)
#   KIT_VERDICT_STATE: the folder of .checked and .todos-left, in place of
#   build/modules/ID (make check-mistakes judges planted copies with it)
#   KIT_VERDICT_NAME: what the verdict is of, in place of "stage ID"
#   (make check DRIVER=...: "driver NAME")
set -euo pipefail

id=$1 failures=$2 log=$3
shift 3
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/stages.sh"
max=12

# Where the checked sources are, relative to the kit when inside it.
state=${KIT_VERDICT_STATE:-$(kit_build_path modules)/$id}
checked=$(cut -f1 "$state/.checked" 2>/dev/null || true)
which=$(cut -f2 "$state/.checked" 2>/dev/null || true)
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
todos_left=$(cat "$state/.todos-left" 2>/dev/null || true)
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
lines=() errno='' first_tests=''
# A kernel report with a known cause; the TODOs of TEST come first, named
# even when the test passed: the report points at them.
declare -A note_todo=()
known() { # ERE HINT [TEST]
	local n
	grep -aqE "$1" "$log" 2>/dev/null || return 0
	lines+=("$2")
	[ -n "${3:-}" ] || return 0
	first_tests+=" $3"
	for n in $(todos_of "$3"); do
		[ -n "${by_todo[$n]:-}" ] || note_todo[$n]="the kernel's report points here"
	done
}
# A page freed while still mapped is seen as "Bad page state", or, when the
# free reaches the buddy allocator first, as a crash in its free path.
known 'BUG: Bad page state|RIP: [0-9]+:(__free_one_page|free_pcppages_bulk|free_unref_page|__free_pages_ok)\+' \
	"the kernel freed a page that was still in use (\"Bad page state\", or a crash in the page allocator's free path): a page handed to the mm core (vmf->page, a page array) without the reference it takes over; get_page() it first" data.fd_write_seen_through_mapping
known 'Bad pagetable' "the guest oopsed with \"Bad pagetable\": a physical address was passed where a PFN is expected, and a physical address is not a PFN: a PFN is the address >> PAGE_SHIFT (page_to_pfn(), PHYS_PFN())"
known 'WARNING: .* mmap_action_finish' "the kernel warned in mmap_action_finish(): the error hook returned 0 or a positive value; return a negative errno (-EAGAIN, not EAGAIN or 0)" inject.failure_reports_stage_errno
known 'WARNING: .*(check_mmap_action|mmap_action_prepare)' "the kernel warned in mmap_action_prepare(): desc->action.error_override is positive; set a negative errno (-EAGAIN, not EAGAIN)" inject.failure_reports_stage_errno
# Diagnoses in the tests' own messages: the TODOs of those tests come first.
# Not for a test whose TODO is still unanswered: its cause is plain.
known_failure() { # ERE HINT
	local tests='' t n open
	for t in $(grep -aE "$1" "$failures" | cut -f1 | sort -u || true); do
		open=0
		for n in $(kit_todos_of "$id" "$t"); do
			! grep -qx "$n" <<<"$todos_left" || open=1
		done
		[ "$open" = 1 ] || tests+="$t "
	done
	[ -n "$tests" ] || return 0
	lines+=("$2")
	first_tests+=" $tests"
}
known_failure 'replaced the flags of the request' "VmFlags lack what the request itself sets: the flags were assigned (desc->vm_flags = ...) where the driver must add (|=) or remove (&= ~) its own"
known_failure '^bad\.(length_past_end|offset_past_end)	.*succeeded' "mappings past the end of the buffer are accepted: the range check does not match the buffer (a size changed in one place only?), and the mapping then reaches memory that is not the buffer's"
known_failure '^vma\.map_private_refused	.*succeeded' "a MAP_PRIVATE mapping is accepted: the refusal returns 0, or tests the flag the wrong way round"
known_failure 'signal 7 \(SIGBUS\)' "an access to the mapping raised SIGBUS: part of it has nothing behind it; the remap covers less than the mapping (a size in pages where bytes are meant?), or the fault handler refused a page it has"
if [ ${#lines[@]} = 0 ] && [[ "$plain_refused" =~ failed:\ (E[A-Z0-9]+) ]]; then
	errno=${BASH_REMATCH[1]}
	case "$errno" in
	EPERM) likely="an exec test on VM_MAYEXEC (set on nearly every mapping) where VM_EXEC is meant, or one the wrong way round" ;;
	EINVAL) likely="a flag test given the old mask where a VMA_*_BIT number is meant (vma_desc_test(desc, VM_MAYSHARE)), VM_SHARED where VM_MAYSHARE is meant, a range check comparing pages with bytes or testing the wrong way round, an action given a length that does not cover the mapping (pages where bytes are meant)" ;;
	EAGAIN) likely="a hook that must return 0 (the success hook, vm_ops->mapped) returning non-zero, such as a count: mmap() then fails with the error hook's or error_override's errno" ;;
	*) likely="a test the wrong way round, or an error returned where 0 is meant" ;;
	esac
	lines+=("every mmap() fails with $errno, the plainest one included (bad.whole_region_maps): a refusal that refuses everything. Likely: $likely")
fi
# The TODOs in order; when every mmap() fails with one errno, those whose
# refusal returns it first: the likeliest place of the mistake.
order=$(printf '%s\n' "${!by_todo[@]}" "${!note_todo[@]}" | sort -nu)
if [ -n "${errno:-}" ]; then
	refusing=$(for word in $(kit_stage_get "$id" STAGE_TODO_ERRNOS 2>/dev/null); do
		case ",${word#*=}," in *",$errno,"*) echo "${word%%=*}" ;; esac
	done)
	# Named even when their own tests pass (a refusal of everything
	# refuses what they must refuse too).
	for n in $refusing; do
		[ -n "${by_todo[$n]:-}" ] || note_todo[$n]="returns $errno, the error of every mmap() here"
	done
	order="$refusing"$'\n'"$(grep -vxF "${refusing:-none}" <<<"$order" || true)"
fi
# The TODOs of the tests a diagnosis came from, next.
if [ -n "$first_tests" ]; then
	front=$(for n in $order; do
		[ -z "${note_todo[$n]:-}" ] || { echo "$n" && continue; }
		for t in $first_tests; do
			case ", ${by_todo[$n]:-}," in *", $t,"*) echo "$n" && break ;; esac
		done
	done)
	[ -z "$front" ] || order="$front"$'\n'"$(grep -vxF "$front" <<<"$order" || true)"
fi
for n in $order; do
	if [ -z "${by_todo[$n]:-}" ]; then
		[ -z "${note_todo[$n]:-}" ] || lines+=("$(todo_hint "$n") [${note_todo[$n]}]")
		continue
	fi
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
echo "# ${KIT_VERDICT_NAME:-stage $id}: $count failing; ${which:-its sources}${checked:+, $checked}:"
for l in "${lines[@]}"; do echo "#   $l"; done
[ "$more" = 0 ] || echo "#   ... and $more more (above)"
echo "#"
