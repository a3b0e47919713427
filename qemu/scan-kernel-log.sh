#!/usr/bin/env bash
# Fail (exit 1) and print the offending lines if a console log shows a kernel
# warning, bug, oops, call trace, panic, lockdep report, list corruption or bad
# page, or x86 PAT freeing a memory type it never reserved (a leaked
# reservation).
#
# One exception, for a test that proves a kernel warns: between the lines
#   kit-expect-warning: begin ERE
#   kit-expect-warning: end
# that a check writes to /dev/kmsg (lab_expect_warning_begin/end), exactly one
# warning block ("cut here" to "end trace") whose WARNING: line matches ERE
# is expected and left out of the scan. None, or more than one, is reported;
# so is any other warning in the window, and a window left open.
# Usage: scan-kernel-log.sh CONSOLE_LOG
set -euo pipefail

pattern='WARNING:|BUG:|Oops|list_add corruption|list_del corruption|Bad page|Call Trace|kernel BUG|Kernel panic|INFO: possible|INFO: lockdep|possible recursive locking|inconsistent lock state|circular locking|UBSAN:|general protection fault|freeing invalid memtype|kit-expect-warning:'

# The log without the expected warning blocks, with a line of its own for
# every window whose expectation failed.
without_expected() {
	awk '
	function flush(   i) { for (i = 1; i <= n; i++) print block[i]; n = 0 }
	{ sub(/\r$/, "") }
	/kit-expect-warning: begin / {
		sub(/.*kit-expect-warning: begin /, ""); want = $0; open = 1; seen = 0; next
	}
	/kit-expect-warning: end/ {
		flush(); inblock = 0
		if (!open)
			print "kit-expect-warning: an end with no begin: expected nothing"
		else if (seen != 1)
			printf "kit-expect-warning: expected one warning matching /%s/, saw %d\n", want, seen
		open = 0; next
	}
	open && /-+\[ cut here \]-+/ { flush(); inblock = 1; matched = 0 }
	inblock {
		block[++n] = $0
		if ($0 ~ /WARNING:/ && $0 ~ want)
			matched = 1
		if ($0 ~ /---\[ end trace/) {
			if (matched) { seen++; n = 0 } else flush()
			inblock = 0
		}
		next
	}
	{ print }
	END {
		flush()
		if (open)
			printf "kit-expect-warning: window for /%s/ left open (no end line): expected an end\n", want
	}' "$1"
}

if without_expected "$1" | grep -aE "$pattern"; then
	exit 1
fi
exit 0
