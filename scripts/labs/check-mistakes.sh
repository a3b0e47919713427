#!/usr/bin/env bash
# make check-mistakes: the labs pages' Troubleshooting entries, replayed. Each
# plants one plausible mistake in a learner's copy of a stage's solution, runs
# `make check STAGE=N` on it as the learner would, and proves that the check
# fails and that its closing verdict names the mistake with the hint the page
# gives:
#   stage 2: a physical address where a PFN is expected (the PFN shifted
#            left by PAGE_SHIFT): the data checks fail (or, when the address
#            lands above what the CPU can address, the guest oopses with
#            "Bad pagetable", which the verdict names), and the verdict
#            points at TODO 1;
#   stage 4: the error hook returns EAGAIN, not -EAGAIN (6.12 ignores the
#            positive value, with a warning);
#   stage 4: the hooks written but never installed (TODO 3 left out): the
#            verdict names TODO 3, not only TODOs 1 and 2, whose tests TODO
#            3 shares;
#   stage 5: desc->action.error_override = EAGAIN, not -EAGAIN (mainline
#            refuses every mapping with EINVAL, with a warning);
#   stage 1: a missing semicolon: the compiler's error names the learner's
#            file and line (work/01-mmap-prepare/mmap_lab1.c:N:M), never
#            the copy kbuild compiled; stage 6 the same on mainline, whose
#            kbuild names the copy relative to M=;
#   stage 0: the hook returns EPERM, not -EPERM: mmap() "succeeds" at 0x1,
#            and TODO 1's line says why;
#   stage 0: VM_MAYEXEC tested where VM_EXEC is meant: every mmap() fails
#            with EPERM, and the verdict says so first;
#   stage 1: VM_SHARED tested where VM_MAYSHARE is meant: a read-only open
#            mapped MAP_SHARED is refused, and TODO 2's line says why;
#   stage 5: vma_desc_test(desc, VM_MAYSHARE), the old mask where a bit
#            number is meant: every mmap() fails with EINVAL, and the
#            verdict says so first;
#   stage 6: the offset added to the BAR's start although the simple I/O
#            remap adds it too: TODO 1's line says it is applied twice.
# Where a mistake breaks one TODO, the verdict's first TODO line must be that
# TODO's, with the hint on it.
# The copies live in build/mistakes/work; the stages' own logs and modules
# are put back afterwards. Writes build/logs/mistakes.result.
# Usage: check-mistakes.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/lib/tap.sh
. "$top/scripts/lib/tap.sh"
# shellcheck source=scripts/labs/learner-copy.sh
. "$top/scripts/labs/learner-copy.sh"
# shellcheck source=scripts/lib/stage-logs.sh
. "$top/scripts/lib/stage-logs.sh"
logs="$top/build/logs"
area="$top/build/mistakes"
start=$(date +%s)
mkdir -p "$logs"
rm -rf "$area" && mkdir -p "$area/kept"

# STAGE  FILE_PATTERN (sed -E)  HINT (a fixed string of the verdict)  WHAT
#   TODO: the TODO whose line the verdict must show first (no other TODO
#   named before it), with the hint on that line; "first": the hint is the
#   verdict's first line (a diagnosis that no TODO can be blamed for alone);
#   "-" for a compiler error
mistakes=(
	"2	s/page_to_pfn\(ldev->pages\) \+ desc->pgoff/(page_to_pfn(ldev->pages) + desc->pgoff) << PAGE_SHIFT/	mmap_action_remap_full() from the PFN of the buffer page	a physical address instead of a PFN	1"
	"4	s/err = -EAGAIN;/err = EAGAIN;/	the error hook returned a positive value	the error hook returns EAGAIN, not -EAGAIN	first"
	"4	/desc->action\.(success|error)_hook = /d	install both hooks	the hooks written but not installed (TODO 3 left out)	3"
	"5	0,/error_override = -EAGAIN;/s//error_override = EAGAIN;/	desc->action.error_override is positive	error_override = EAGAIN, not -EAGAIN	first"
	"1	0,/\treturn 0;/s//\treturn 0/	output:work/01-mmap-prepare/mmap_lab1.c:	a missing semicolon: the compiler names the learner's file	-"
	"0	s/vma->vm_flags \& VM_EXEC\)/vma->vm_flags \& VM_MAYEXEC)/	every mmap() fails with EPERM	VM_MAYEXEC tested where VM_EXEC is meant	first"
	"0	s/\t\treturn -EPERM;/\t\treturn EPERM;/	a hook returned a positive errno	the hook returns EPERM, not -EPERM (mmap() succeeds at 0x1)	1"
	"1	s/desc->vm_flags \& VM_MAYSHARE/desc->vm_flags \& VM_SHARED/	test VM_MAYSHARE	VM_SHARED tested where VM_MAYSHARE is meant	2"
	"5	s/vma_desc_test\(desc, VMA_MAYSHARE_BIT\)/vma_desc_test(desc, VM_MAYSHARE)/	every mmap() fails with EINVAL	the old mask where a VMA_*_BIT number is meant	first"
	"6	s/pci_resource_start\(ldev->pdev, MMAP_LAB_BAR\),/pci_resource_start(ldev->pdev, MMAP_LAB_BAR) + (desc->pgoff << PAGE_SHIFT),/	the offset is applied twice	the offset added to the start as well as by the action	1"
	"6	0,/\treturn 0;/s//\treturn 0/	output:work/06-mainline-io/mmap_lab6.c:	a missing semicolon on a mainline stage: the compiler names the learner's file	-"
)

echo "TAP version 13"
for m in "${mistakes[@]}"; do
	IFS=$'\t' read -r id plant hint what todo <<<"$m"
	if [ "$(kit_stage_kernel "$id")" = mainline ] && why=$(kit_mainline_not_ready) && [ -n "$why" ]; then
		skip "stage $id, $what: the verdict names it" "$why"
		continue
	fi
	export KIT_WORK_DIR="$area/work"
	work=$(kit_work_dir "$id")
	mkdir -p "$work"
	cp "$(kit_stage_dir "$id")"/*.c "$work/"
	file=$(ls "$work"/*.c)
	sed -E -i "$plant" "$file"
	# The stage's logs of make check's own run, kept aside.
	kit_keep_stage_logs "$id" "$area/kept"
	out="$area/stage-$id.out"
	rc=0
	if cmp -s "$file" "$(kit_stage_dir "$id")/$(basename "$file")"; then
		rc=1 && echo "the planting sed changed nothing" >"$out"
	else
		(env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make --no-print-directory check STAGE="$id") >"$out" 2>&1 && rc=1
		verdict=$(sed -n '/^# stage '"$id"': [0-9]* failing/,/^#$/p' "$out")
		case "$hint" in
		# A compiler error: the whole output names the learner's file,
		# never the copy kbuild compiled (build/modules/).
		output:*) grep -qE "(^|/)${hint#output:}[0-9]+:[0-9]+: error:" "$out" && ! grep -q 'build/modules/' "$out" || rc=1 ;;
		*) grep -qF -- "$hint" <<<"$verdict" || rc=1 ;;
		esac
		# The verdict's first TODO line is TODO's, and carries the hint; or
		# its first line carries it.
		if [ "$todo" = first ]; then
			[[ "$(sed -n 2p <<<"$verdict")" == "#   "*"$hint"* ]] || rc=1
		elif [ "$todo" != - ]; then
			first=$(grep -m 1 -E '^#   TODO [0-9]+' <<<"$verdict" || true)
			[[ "$first" == "#   TODO $todo "* && "$first" == *"$hint"* ]] || rc=1
		fi
	fi
	case "$todo" in
	-) where= ;;
	first) where=" first" ;;
	*) where=" on TODO $todo's line, the first TODO named" ;;
	esac
	result "$rc" "stage $id, $what: make check fails and says \"${hint#output:}\"$where" \
		"$(grep -E '^#   |^not ok|error' "$out" | head -n 15)"
	unset KIT_WORK_DIR
	# Put back the stage's logs and its module, built from the solution.
	kit_put_back_stage_logs "$id" "$area/kept"
	rm -rf "$area/kept"/* "$work"
	"$top/scripts/labs/modules.sh" "$top/build/kernel" "$id" >/dev/null 2>&1 ||
		result 1 "stage $id: its module builds again from the solution"
done
echo "1..$n"
echo "mistakes $passed $failed $skipped $(($(date +%s) - start))" >"$logs/mistakes.result"
[ "$failed" = 0 ]
