#!/usr/bin/env bash
# The log scanner (qemu/scan-kernel-log.sh) on made-up console logs: clean,
# a stray warning, and the expected-warning window (lab_expect_warning_*()
# in the checker) met, missed, mismatched, doubled and left open, and the
# sanitizer profile's reports (KASAN, UBSAN, page_table_check, kmemleak). Prints one
# line per case and exits 1 if any verdict is wrong. check-static runs it.
# Usage: log-scanner-cases.sh
set -euo pipefail

scanner="$(dirname "$(realpath "$0")")/../scan-kernel-log.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A warning block as 7.x prints it from a helper inlined into FUNCTION,
# with an extra line in it if given (another report, printed in between).
warning() { # FUNCTION [EXTRA_LINE]
	printf '%s\r\n' "[    3.100000] ------------[ cut here ]------------" \
		"[    3.100001] WARNING: include/linux/mm.h:4542 at $1+0x5e/0x90 [kit_range_probe], CPU#0: check/61" \
		"[    3.100002] Modules linked in: kit_range_probe" ${2:+"$2"} \
		"[    3.100003] Call Trace:" \
		"[    3.100004]  <TASK>" \
		"[    3.100005]  __mmap_region+0x4d1/0xb60" \
		"[    3.100006]  </TASK>" \
		"[    3.100007] ---[ end trace 0000000000000000 ]---"
}
begin() { printf '[    3.000000] kit-expect-warning: begin %s\r\n' "$1"; }
end() { printf '[    3.200000] kit-expect-warning: end\r\n'; }
ok() { printf 'ok 1 - range_probe.oversize\r\n'; }

bad=0
case_is() { # NAME WANT(clean|flagged) LOG-LINES...
	local name=$1 want=$2 got=clean
	shift 2
	printf '%s\n' "$@" >"$tmp/log"
	"$scanner" "$tmp/log" >"$tmp/out" || got=flagged
	if [ "$got" = "$want" ]; then
		echo "ok: $name: $got"
	else
		echo "WRONG: $name: $got, expected $want; scanner said: $(head -n 3 "$tmp/out")"
		bad=1
	fi
}

# The ERE check_action_range really passes (its C string, unescaped).
want=$(sed -n 's/^#define OVERSIZE_WARNING "\(.*\)"$/\1/p' "$(dirname "$scanner")/../labs/checker/check_action_range.c" | sed 's/\\\\/\\/g')
[ -n "$want" ] || { echo "WRONG: OVERSIZE_WARNING not found in labs/checker/check_action_range.c"; exit 1; }
case_is "a clean log" clean "$(ok)"
case_is "a warning outside any window" flagged "$(ok)" "$(warning oversize_mmap_prepare)"
case_is "one expected warning in its window" clean "$(begin "$want")" "$(warning oversize_mmap_prepare)" "$(end)" "$(ok)"
case_is "a window with no warning" flagged "$(begin "$want")" "$(end)"
case_is "a window whose warning is another one" flagged "$(begin "$want")" "$(warning other_mmap_prepare)" "$(end)"
case_is "a window with the warning twice" flagged "$(begin "$want")" "$(warning oversize_mmap_prepare)" \
	"$(warning oversize_mmap_prepare)" "$(end)"
case_is "a window left open" flagged "$(begin "$want")" "$(warning oversize_mmap_prepare)"
case_is "the expected warning after its window" flagged "$(begin "$want")" "$(end)" "$(warning oversize_mmap_prepare)"
case_is "a second begin while a window is open" flagged "$(begin "$want")" "$(warning oversize_mmap_prepare)" \
	"$(warning oversize_mmap_prepare)" "$(begin "$want")" "$(warning oversize_mmap_prepare)" "$(end)"
case_is "another report inside the expected block" flagged "$(begin "$want")" \
	"$(warning oversize_mmap_prepare "[    3.100009] BUG: sleeping function called from invalid context")" "$(end)"
case_is "a window whose ERE does not compile" flagged "$(begin 'mm\.h:[0-9')" "$(warning oversize_mmap_prepare)" "$(end)"
# The sanitizer profile's reports (make check-sanitizers), as its kernels
# print them; kmemleak's comes from the file the guest lists at the end.
case_is "a KASAN report" flagged "$(ok)" \
	'[    5.200000] BUG: KASAN: slab-out-of-bounds in kit_planted_bugs_init+0x8e/0x120 [kit_planted_bugs]'
case_is "a UBSAN report" flagged "$(ok)" \
	'[    5.300000] UBSAN: array-index-out-of-bounds in qemu/selftest/planted-bugs/kit_planted_bugs.c:41:9'
case_is "a page_table_check BUG" flagged "$(ok)" '[    5.400000] kernel BUG at mm/page_table_check.c:118!'
case_is "a kmemleak listing" flagged "$(ok)" '### KIT KMEMLEAK BEGIN' \
	'unreferenced object 0xffff888004b1c000 (size 64):' '  comm "insmod", pid 70, jiffies 4294669730' \
	'### KIT KMEMLEAK END'
case_is "an empty kmemleak listing" clean "$(ok)" '### KIT KMEMLEAK BEGIN' '### KIT KMEMLEAK END'
exit "$bad"
